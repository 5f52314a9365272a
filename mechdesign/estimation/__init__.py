"""How well the population frequencies are estimated: estimators, exact variances,
Cramer-Rao bounds, simulation and the analysis of the "don't know" mechanisms.

One module per question: :mod:`.estimators` (the estimators), :mod:`.variances` (their exact
variances), :mod:`.fisher` (Fisher information and the Cramer-Rao bound), :mod:`.simulation`
(Monte Carlo surveys), :mod:`.dont_know` (the Shafer, Walley and optimal trade-offs of
Q_2x3), :mod:`.inputs` and :mod:`.records` (shared input checks and record equality). The
reproduction of the paper's figures is in :mod:`mechdesign.studies`.
"""

from .._lazy import lazy_exports

_NAMES = {
    # estimators
    "estimate_dont_know": ".estimators",
    "estimate_inverse": ".estimators",
    "estimate_mle": ".estimators",
    "estimate_projected": ".estimators",
    "estimate_q_lambda": ".estimators",
    "estimate_warner": ".estimators",
    "inverse_matrix": ".estimators",
    "project_simplex": ".estimators",
    "norm_sub": ".estimators",
    # exact variances
    "binomial_inverse_moment": ".variances",
    "covariance_inverse": ".variances",
    "variance_dont_know": ".variances",
    "variance_q_lambda": ".variances",
    "variance_warner": ".variances",
    # Cramer-Rao
    "cramer_rao": ".fisher",
    "CramerRao": ".fisher",
    # simulation
    "as_seed_sequence": ".simulation",
    "simulate": ".simulation",
    "simulate_dont_know": ".simulation",
    "SimulationResult": ".simulation",
    # the "don't know" mechanisms
    "dont_know_analysis": ".dont_know",
    "dont_know_design": ".dont_know",
    "DontKnowDesign": ".dont_know",
    "dont_know_from_c_eps": ".dont_know",
    "DontKnowAnalysis": ".dont_know",
    "epsilon_q_lambda": ".dont_know",
    "Rectangle": ".dont_know",
    "shafer_variance_curve": ".dont_know",
    # shared helpers
    "as_counts": ".inputs",
    "as_prior": ".inputs",
    "as_probability_array": ".inputs",
    "scalar_or_array": ".inputs",
    "fields_equal": ".records",
}

__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
__all__ = sorted(_NAMES)
