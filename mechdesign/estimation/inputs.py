"""Input checks shared by the estimation modules: priors, count arrays, probability arrays.

Each check returns a float array (never renormalised, never clipped) or raises
:class:`~mechdesign.errors.InvalidParameterError` naming the offending value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# the prior check lives in the bottom layer (the privacy layer checks priors too) and is
# re-exported here, where the estimation modules find it
from .._validation import PRIOR_SUM_TOL as PRIOR_SUM_TOL
from .._validation import as_prior as as_prior
from ..errors import InvalidParameterError

__all__ = [
    "PRIOR_SUM_TOL",
    "as_counts",
    "as_prior",
    "as_probability_array",
    "scalar_or_array",
]


def as_counts(counts: Any, m: int, what: str = "counts") -> np.ndarray:
    """Survey counts as floats: shape ``(..., m)`` (one count per output), finite, ``>= 0``.

    Counts need not be integers (weighted survey counts are accepted).
    """
    try:
        arr = np.asarray(counts, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"{what} is not a numeric array: {exc}") from None
    if arr.ndim < 1 or arr.shape[-1] != m:
        raise InvalidParameterError(
            f"{what} must have last axis of length {m} (one count per output), "
            f"got shape {arr.shape}")
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        raise InvalidParameterError(
            f"{what} must be finite and >= 0, got {float(arr[bad].flat[0])!r}")
    return arr


def as_probability_array(value: Any, name: str) -> np.ndarray:
    """A float array (a scalar gives a 0-d array) with every entry in [0, 1].

    The vectorised counterpart of :func:`~mechdesign._validation.check_probability`, used for
    the broadcast parameters ``p``, ``q``, ``lambda`` and ``c = p + q``.
    """
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"{name} is not numeric: {exc}") from None
    bad = ~(np.isfinite(arr) & (arr >= 0) & (arr <= 1))
    if bad.any():
        raise InvalidParameterError(
            f"{name} must lie in [0, 1], got {float(arr[bad].flat[0])!r}")
    return arr


def scalar_or_array(x: np.ndarray) -> float | np.ndarray:
    """A Python float for a 0-d result (scalar inputs), else the array unchanged."""
    return float(x) if np.ndim(x) == 0 else x
