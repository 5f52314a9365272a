"""Input checks shared by the estimation modules: priors, count arrays, probability arrays.

Each check returns a float array (never renormalised, never clipped) or raises
:class:`~mechdesign.errors.InvalidParameterError` naming the offending value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_probability
from ..errors import InvalidParameterError

PRIOR_SUM_TOL = 1e-9
"""A prior must sum to 1 within this tolerance; it is never renormalised."""


def as_prior(prior: Any, k: int, name: str = "prior") -> np.ndarray:
    """A probability vector of length ``k`` (never renormalised).

    A scalar ``pi`` is accepted when ``k = 2`` and means ``(pi, 1 - pi)``: the proportion
    of the first input (the sensitive property P in Li et al. 2022).

    Raises
    ------
    InvalidParameterError
        A scalar for ``k != 2``, a wrong shape, an entry that is negative or not finite, or a
        sum farther than :data:`PRIOR_SUM_TOL` from 1.
    """
    if np.ndim(prior) == 0:
        if k != 2:
            raise InvalidParameterError(
                f"a scalar {name} ({prior!r}) is only meaningful for 2 inputs; give a "
                f"vector of length {k}")
        pi = check_probability(prior, name)
        return np.array([pi, 1.0 - pi])
    try:
        arr = np.array(prior, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"{name} is not numeric: {exc}") from None
    if arr.shape != (k,):
        raise InvalidParameterError(f"{name} must have shape ({k},), got {arr.shape}")
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        raise InvalidParameterError(f"{name} entries must be finite and >= 0, got "
                                    f"{float(arr[bad][0])!r}")
    if abs(arr.sum() - 1.0) > PRIOR_SUM_TOL:
        raise InvalidParameterError(
            f"{name} = {arr.tolist()!r} sums to {float(arr.sum())!r}, not 1; it is never "
            "renormalised silently")
    return arr


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
