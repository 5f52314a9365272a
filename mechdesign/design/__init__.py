"""The design layer: notions and objectives compiled to LP / convex programs (cvxpy)."""

from .notions import LDP, SLDP, WLDP, ApproxLDP, DeletionLDP, MetricDP, Notion
from .objectives import (
    CustomObjective,
    EstimationVariance,
    ExpectedLoss,
    MutualInformation,
    Objective,
    SublinearUtility,
    WorstCaseLoss,
)
from .problem import DesignProblem
from .result import Certificate, DesignResult, Status
from .symmetry import grid_symmetries

__all__ = [
    "LDP", "SLDP", "WLDP", "ApproxLDP", "Certificate", "CustomObjective", "DeletionLDP",
    "DesignProblem", "DesignResult", "EstimationVariance", "ExpectedLoss", "MetricDP",
    "MutualInformation", "Notion", "Objective", "Status", "SublinearUtility", "WorstCaseLoss",
    "grid_symmetries",
]
