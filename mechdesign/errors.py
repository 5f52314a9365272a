"""The exception hierarchy of mechdesign.

Every error the library raises on purpose derives from :class:`MechdesignError`.
Bad input derives from :class:`ValidationError`, which is also a :class:`ValueError`, so
``except ValueError`` keeps working for callers who do not know this module. Messages name
the offending value.
"""

from __future__ import annotations

# In source order: the order of the API reference page.
__all__ = [  # noqa: RUF022
    "MechdesignError",
    "ValidationError",
    "InvalidMechanismError",
    "InvalidParameterError",
    "SizeLimitError",
    "FileFormatError",
    "DesignError",
    "InfeasibleDesignError",
    "UnboundedDesignError",
    "SolverFailedError",
    "UncertifiedDesignError",
    "MissingDependencyError",
]


class MechdesignError(Exception):
    """Base class of every error raised on purpose by mechdesign."""


class ValidationError(MechdesignError, ValueError):
    """Bad input: a value that is not what the function documents."""


class InvalidMechanismError(ValidationError):
    """A matrix that is not a mechanism (not 2-D, not finite, negative, rows not summing to 1)."""


class InvalidParameterError(ValidationError):
    """A scalar parameter outside its domain (eps < 0, delta outside [0, 1], p + q > 1, ...)."""


class SizeLimitError(ValidationError):
    """A request above a documented size limit (too many outputs, too many subsets, ...)."""


class FileFormatError(ValidationError):
    """A mechanism or problem file that cannot be read (missing, malformed, wrong keys)."""


class DesignError(MechdesignError):
    """A design problem has no mechanism to return."""


class InfeasibleDesignError(DesignError):
    """The privacy notion and the user constraints admit no mechanism."""


class UnboundedDesignError(DesignError):
    """The objective is unbounded on the feasible set (a custom objective or constraint)."""


class SolverFailedError(DesignError):
    """The solver failed, ran out of time, or is not installed; the message names the cause."""


class UncertifiedDesignError(DesignError):
    """The solver's mechanism misses the privacy target and could not be repaired."""


class MissingDependencyError(MechdesignError, ImportError):
    """An optional package that a function needs is not installed; the message names it."""
