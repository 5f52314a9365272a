"""mechdesign: design privacy mechanisms by linear and convex programming, and measure
exactly what they guarantee.

Conventions: rows are inputs, columns are outputs, ``Q[x, y] = P(y | x)``. Non-private is
``math.inf``; bad input raises a :class:`~mechdesign.errors.ValidationError` naming the value.

The top level holds the names the three jobs need (design an optimal randomizer, compare
Warner's randomized response with the "don't know" mechanisms, solve a custom privacy LP);
everything else lives in a namespace that answers one question:

* :mod:`mechdesign.privacy`: what a mechanism guarantees (notions, exact measures, verifier,
  report, conversions, Blackwell order);
* :mod:`mechdesign.accounting`: composition, trade-off curves, amplification;
* :mod:`mechdesign.estimation`: estimators, variances, Cramer-Rao bounds, simulation;
* :mod:`mechdesign.oracles`: frequency oracles for large domains (k-RR, unary encodings,
  subset selection, Hadamard response, local hashing) with sampling and estimation;
  :class:`Randomizer` is the protocol a Mechanism, an EvidentialMechanism and every oracle
  share, and :func:`estimate` estimates frequencies from any of them;
* :mod:`mechdesign.design`: design problems, objectives, results (the only cvxpy user);
* :mod:`mechdesign.frontier`, :mod:`mechdesign.io`, :mod:`mechdesign.plotting`,
  :mod:`mechdesign.catalog`, :mod:`mechdesign.losses`, :mod:`mechdesign.neighbors`;
* :mod:`mechdesign.studies`: the source papers' experiments (imported explicitly).

Names load on first use, so ``import mechdesign`` does not import cvxpy, networkx,
scipy.stats or matplotlib.
"""

from ._lazy import lazy_exports
from .errors import (
    DesignError,
    FileFormatError,
    InfeasibleDesignError,
    InvalidMechanismError,
    InvalidParameterError,
    MechdesignError,
    SizeLimitError,
    SolverFailedError,
    UnboundedDesignError,
    UncertifiedDesignError,
    ValidationError,
)

__version__ = "0.1.0"

_NAMESPACES = ("accounting", "catalog", "design", "errors", "estimation", "frontier", "io",
               "losses", "neighbors", "numeric", "oracles", "plotting", "privacy", "studies")

_NAMES = {
    **dict.fromkeys(_NAMESPACES, ""),
    # values and constructors
    "Mechanism": ".mechanism",
    "EvidentialMechanism": ".evidential",
    "Randomizer": ".randomizer",
    "randomized_response": ".catalog",
    "warner": ".catalog",
    "dont_know": ".catalog",
    "q_lambda": ".catalog",
    # privacy notions and their exact measures
    "LDP": ".privacy",
    "ApproxLDP": ".privacy",
    "DeletionLDP": ".privacy",
    "MetricDP": ".privacy",
    "SLDP": ".privacy",
    "WLDP": ".privacy",
    "epsilon_ldp": ".privacy",
    "delta_ldp": ".privacy",
    "epsilon_deletion": ".privacy",
    "epsilon_metric": ".privacy",
    "epsilon_sldp": ".privacy",
    "epsilon_wldp": ".privacy",
    "verify_exact": ".privacy",
    "privacy_report": ".privacy",
    "is_garbling_of": ".privacy",
    # design
    "DesignProblem": ".design",
    "DesignResult": ".design",
    "ExpectedLoss": ".design",
    "WorstCaseLoss": ".design",
    "MutualInformation": ".design",
    "EstimationVariance": ".design",
    # estimation from any randomizer's survey
    "estimate": ".oracles.survey",
    # Warner versus "don't know"
    "dont_know_analysis": ".estimation",
    "variance_warner": ".estimation",
    "variance_dont_know": ".estimation",
    "simulate": ".estimation",
    # accounting
    "compose": ".accounting",
    "tradeoff_function": ".accounting",
    # files
    "load_problem": ".io",
    "load_mechanism": ".io",
    "save_mechanism": ".io",
}

__getattr__, __dir__ = lazy_exports(__name__, _NAMES)

__all__ = [
    "DesignError",
    "FileFormatError",
    "InfeasibleDesignError",
    "InvalidMechanismError",
    "InvalidParameterError",
    "MechdesignError",
    "SizeLimitError",
    "SolverFailedError",
    "UnboundedDesignError",
    "UncertifiedDesignError",
    "ValidationError",
    *(name for name in _NAMES if name not in _NAMESPACES),
]
