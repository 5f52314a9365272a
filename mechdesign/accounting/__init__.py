"""What happens under composition, amplification and calibration.

Every name is available here (``mechdesign.accounting.compose``) and in the sub-namespace
that answers its question, each a module with an explicit ``__all__``:

* :mod:`mechdesign.accounting.composition`: exact composition of mechanisms and the
  privacy profile, the privacy-loss distribution behind it (exact atoms and the grid
  bracket), closed-form composition bounds (basic, advanced, optimal), sequential
  composition and group privacy, Huang & Canonne's Lemma 4.5 as a reduction
  (:func:`binary_reduction`), and belief-function (SLDP, WLDP) composition;
* :mod:`mechdesign.accounting.amplification`: amplification by subsampling and by
  shuffling: the closed-form bounds (:func:`subsampling_bound`, :func:`shuffle_delta`, ...)
  and the exact privacy of subsampled and shuffled finite randomizers
  (:func:`subsampled_mechanism`, :func:`exact_subsampling_epsilon`,
  :func:`exact_shuffle_delta`, robust shuffle privacy);
* :mod:`mechdesign.accounting.tradeoff`: trade-off curves (f-DP), their belief-function
  counterparts, and the test behind each point of a curve (Neyman-Pearson, and Li et al.'s
  minimax test);
* :mod:`mechdesign.accounting.renyi`: Rényi DP curves and zCDP of finite mechanisms, their
  conversion to (epsilon, delta) bounds, and a mechanism as an event of ``dp_accounting``
  (optional), for RDP accountants;
* :mod:`mechdesign.accounting.calibration`: the parameter (per-use epsilon, number of uses,
  shuffle size, sampling probability) that meets a central (epsilon, delta) target.

The three functions once named ``subsample``, ``subsampled`` and ``subsampling_privacy``
are :func:`subsampled_mechanism` (the subsampled randomizer as a matrix),
:func:`subsampling_bound` (the (epsilon, delta) bound of Poisson subsampling, Huang &
Canonne Thm 6.1) and :func:`exact_subsampling_epsilon` (the exact epsilon of the
subsampled matrix beside that bound); the old names remain for one release as deprecated
aliases that warn.
"""

from .._lazy import lazy_exports

_NAMES = {
    "advanced_composition": ".bounds",
    "advanced_composition_delta": ".bounds",
    "advanced_grouposition": ".sequential",
    "advanced_grouposition_approx": ".sequential",
    "basic_composition": ".bounds",
    "belief_composition": "._belief_composition",
    "binary_reduction": "._binary_reduction",
    "BinaryReduction": "._binary_reduction",
    "calibrate": ".calibration",
    "calibrate_composition": ".calibration",
    "calibrate_shuffle": ".calibration",
    "calibrate_subsampling": ".calibration",
    "Calibration": ".calibration",
    "BeliefComposition": "._belief_composition",
    "check_advanced": ".bounds",
    "check_alphas": ".tradeoff",
    "check_pair": ".tradeoff",
    "coarsened_step": ".pld",
    "compose": ".composition",
    "compose_atoms": ".pld",
    "compose_evidential": "._belief_composition",
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
    "epsilon_wldp_composed": "._belief_composition",
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
    "minimax_test": ".neyman_pearson",
    "MinimaxTest": ".neyman_pearson",
    "neyman_pearson_test": ".neyman_pearson",
    "NPTest": ".neyman_pearson",
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
    "exact_subsampling_epsilon": ".exact_subsampling",
    "subsampled_mechanism": ".exact_subsampling",
    "SubsampledPrivacy": ".exact_subsampling",
    "subsampling_bound": ".amplification",
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
    "wldp_pair_ratios": "._belief_composition",
    "ZCDP": ".renyi",
    "zcdp_rho": ".renyi",
}

SUBNAMESPACES = ("composition", "amplification", "tradeoff", "renyi", "calibration")
"""The documented sub-namespaces: every name of ``__all__`` is in exactly one of them."""

_DEPRECATED = {
    "subsample": "subsampled_mechanism",
    "subsampled": "subsampling_bound",
    "subsampling_privacy": "exact_subsampling_epsilon",
}
"""Old name -> new name, kept for one release: reading an old name warns."""

__all__ = sorted(_NAMES)
_NAMES.update(dict.fromkeys(SUBNAMESPACES, ""))  # attributes, as the submodules, not in __all__

__getattr__, __dir__ = lazy_exports(__name__, _NAMES, deprecated=_DEPRECATED)
