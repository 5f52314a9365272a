"""The design layer: notions and objectives compiled to LP / convex programs (the only
cvxpy user). The notions themselves are values of :mod:`mechdesign.privacy`; here each gets
its cvxpy formulation (:mod:`~mechdesign.design.formulations`)."""

from .._lazy import lazy_exports

_NAMES = {
    "Certificate": ".result",
    "CustomObjective": ".objectives",
    "DesignProblem": ".problem",
    "DesignResult": ".result",
    "EstimationVariance": ".objectives",
    "ExpectedLoss": ".objectives",
    "FeasibleSet": ".program",
    "Method": ".result",
    "MinimaxEstimation": ".objectives",
    "MinimaxLoss": ".objectives",
    "MutualInformation": ".objectives",
    "Objective": ".objectives",
    "Optimum": ".result",
    "Plan": ".planner",
    "PosteriorVulnerability": ".objectives",
    "Program": ".program",
    "Status": ".result",
    "SublinearUtility": ".objectives",
    "WorstCaseLoss": ".objectives",
    "grid_symmetries": ".symmetry",
    "leakage_constraint": ".leakage",
}

__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
__all__ = sorted(_NAMES)
