"""What happens under composition.

* :mod:`.pld`: the privacy-loss distribution of a pair of finite distributions (exact atoms,
  composition, the grid bracket), the one engine behind composition and trade-off curves;
* :mod:`.composition`: exact composition of mechanisms, the privacy profile;
* :mod:`.bounds`: closed-form composition bounds (basic, advanced, optimal);
* :mod:`.tradeoff`: trade-off curves (f-DP); :mod:`.belief_tradeoff` and
  :mod:`.belief_composition`: their belief-function counterparts;
* :mod:`.amplification` (shuffling, subsampling; bounds), :mod:`.exact_subsampling` and
  :mod:`.exact_shuffling` (the exact privacy of subsampled and shuffled finite randomizers,
  robust shuffle privacy) and :mod:`.sequential` (sequential and group
  privacy);
* :mod:`.renyi`: Rényi DP curves and zCDP of finite mechanisms and their conversion to
  (epsilon, delta) bounds, for RDP accountants; :mod:`.dp_events`: a mechanism as an event
  of ``dp_accounting`` (optional).
"""

from .._lazy import lazy_exports

_NAMES = {
    "advanced_composition": ".bounds",
    "advanced_composition_delta": ".bounds",
    "advanced_grouposition": ".sequential",
    "advanced_grouposition_approx": ".sequential",
    "basic_composition": ".bounds",
    "belief_composition": ".belief_composition",
    "calibrate": ".calibration",
    "calibrate_composition": ".calibration",
    "calibrate_shuffle": ".calibration",
    "calibrate_subsampling": ".calibration",
    "Calibration": ".calibration",
    "BeliefComposition": ".belief_composition",
    "check_advanced": ".bounds",
    "check_alphas": ".tradeoff",
    "check_pair": ".tradeoff",
    "coarsened_step": ".pld",
    "compose": ".composition",
    "compose_atoms": ".pld",
    "compose_evidential": ".belief_composition",
    "Composition": ".composition",
    "CompositionBound": ".bounds",
    "CompositionResult": ".composition",
    "convex_conjugate": ".tradeoff",
    "curve_from_points": ".tradeoff",
    "delta_composed": ".composition",
    "delta_from_tradeoff": ".tradeoff",
    "epsilon_composed": ".composition",
    "epsilon_of_tradeoff": ".tradeoff",
    "epsilon_rdp": ".renyi",
    "exact_shuffle_delta": ".exact_shuffling",
    "exact_shuffle_epsilon": ".exact_shuffling",
    "ExactShuffle": ".exact_shuffling",
    "honest_users": ".exact_shuffling",
    "gaussian_approximation": ".tradeoff",
    "GaussianApproximation": ".tradeoff",
    "grid_bracket": ".pld",
    "GroupPrivacy": ".sequential",
    "holds_theorem": ".belief_tradeoff",
    "LossAtoms": ".pld",
    "LossBracket": ".pld",
    "lower_convex_hull": ".tradeoff",
    "lower_envelope": ".tradeoff",
    "optimal_composition_delta": ".bounds",
    "optimal_composition_epsilon": ".bounds",
    "optimal_heterogeneous_delta": ".bounds",
    "optimal_heterogeneous_epsilon": ".bounds",
    "optimistic_function": ".belief_tradeoff",
    "pessimistic_function": ".belief_tradeoff",
    "privacy_loss_atoms": ".pld",
    "privacy_profile": ".composition",
    "PrivacyProfile": ".composition",
    "randomized_response_atoms": ".bounds",
    "randomized_response_noise": ".dp_events",
    "rdp_to_dp": ".renyi",
    "RDPConversion": ".renyi",
    "renyi_curve": ".renyi",
    "renyi_divergence": ".renyi",
    "renyi_epsilon": ".renyi",
    "RenyiCurve": ".renyi",
    "robust_shuffle_delta": ".exact_shuffling",
    "robust_shuffle_epsilon": ".exact_shuffling",
    "sequential_composition": ".sequential",
    "sequential_epsilon": ".sequential",
    "SequentialPrivacy": ".sequential",
    "shuffle_delta": ".amplification",
    "shuffle_epsilon": ".amplification",
    "shuffle_to_ldp": ".amplification",
    "ShuffleBound": ".amplification",
    "ShuffleDelta": ".amplification",
    "subsample": ".exact_subsampling",
    "subsampled": ".amplification",
    "SubsampledPrivacy": ".exact_subsampling",
    "subsampling_privacy": ".exact_subsampling",
    "tensor_power": ".tradeoff",
    "to_dp_event": ".dp_events",
    "tensor_product": ".tradeoff",
    "tradeoff_curve": ".tradeoff",
    "tradeoff_dp": ".tradeoff",
    "tradeoff_function": ".tradeoff",
    "tradeoff_function_dp": ".tradeoff",
    "tradeoff_gaussian": ".tradeoff",
    "tradeoff_optimistic": ".belief_tradeoff",
    "tradeoff_pessimistic": ".belief_tradeoff",
    "tradeoff_sldp": ".belief_tradeoff",
    "TradeoffCurve": ".tradeoff",
    "ZCDP": ".renyi",
    "zcdp_rho": ".renyi",
}

__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
__all__ = sorted(_NAMES)
