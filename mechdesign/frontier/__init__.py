"""Privacy-accuracy frontiers: a design problem swept over epsilon (compiled once), and
the catalog families evaluated on the same problem for comparison.
"""

from .._lazy import lazy_exports

_NAMES = {
    "check_epsilons": ".sweep",
    "compare_families": ".families",
    "comparison_families": ".families",
    "estimator_variance": ".families",
    "FamilyComparison": ".families",
    "FamilySkipped": ".families",
    "dont_know_family": ".families",
    "dont_know_frontier": ".families",
    "family_frontier": ".families",
    "family_mechanism": ".families",
    "Frontier": ".sweep",
    "frontier": ".sweep",
    "pool_pays": ".sweep",
    "pool_workers": ".sweep",
    "process_pool": ".sweep",
}

__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
__all__ = sorted(_NAMES)
