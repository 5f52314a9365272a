"""mechdesign: design privacy mechanisms by linear and convex programming, and measure
exactly what they guarantee.

Conventions: rows are inputs, columns are outputs, ``Q[x, y] = P(y | x)``. Non-private is
``math.inf``; bad input raises a :class:`~mechdesign.errors.ValidationError` naming the value.
"""

from . import errors
from .analysis.privacy import (
    EPSILON_TOL,
    DeletionPrivacy,
    delta_ldp,
    epsilon_deletion,
    epsilon_ldp,
    epsilon_metric,
    epsilon_sldp,
    epsilon_wldp,
    hockey_stick,
)
from .analysis.report import privacy_report
from .catalog import (
    deletion_counterexample,
    dont_know,
    hadamard_response,
    q_lambda,
    randomized_response,
    subset_selection,
    truncated_geometric,
    unary_encoding,
    warner,
)
from .errors import (
    FileFormatError,
    InvalidMechanismError,
    InvalidParameterError,
    MechdesignError,
    SizeLimitError,
    ValidationError,
)
from .evidential import EvidentialMechanism
from .io import load_mechanism, save_mechanism
from .mechanism import Mechanism
from .neighbors import distance_matrix, line_distance

__version__ = "0.1.0"

__all__ = [
    "EPSILON_TOL",
    "DeletionPrivacy",
    "EvidentialMechanism",
    "FileFormatError",
    "InvalidMechanismError",
    "InvalidParameterError",
    "Mechanism",
    "MechdesignError",
    "SizeLimitError",
    "ValidationError",
    "deletion_counterexample",
    "delta_ldp",
    "distance_matrix",
    "dont_know",
    "epsilon_deletion",
    "epsilon_ldp",
    "epsilon_metric",
    "epsilon_sldp",
    "epsilon_wldp",
    "errors",
    "hadamard_response",
    "hockey_stick",
    "line_distance",
    "load_mechanism",
    "privacy_report",
    "q_lambda",
    "randomized_response",
    "save_mechanism",
    "subset_selection",
    "truncated_geometric",
    "unary_encoding",
    "warner",
]
