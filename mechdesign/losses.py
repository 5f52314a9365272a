"""Loss matrices ``L[x, y]``: the cost of reporting output y when the input is x."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._validation import as_float_matrix, check_int
from .errors import InvalidParameterError

# In source order: the order of the API reference page.
__all__ = [  # noqa: RUF022
    "hamming",
    "absolute",
    "squared",
    "from_distance",
    "check_loss",
    "BUILDERS",
]


def hamming(k: int, m: int | None = None) -> np.ndarray:
    """``L[x, y] = [x != y]`` on ``k`` inputs and ``m`` outputs (default ``m = k``)."""
    k = check_int(k, "k", 2)
    m = k if m is None else check_int(m, "m", 1)
    return 1.0 - np.eye(k, m)


def absolute(k: int, m: int | None = None) -> np.ndarray:
    """``L[x, y] = |x - y|`` on inputs ``0..k-1`` and outputs ``0..m-1``."""
    k = check_int(k, "k", 2)
    m = k if m is None else check_int(m, "m", 1)
    return np.abs(np.arange(k)[:, None] - np.arange(m)[None, :]).astype(float)


def squared(k: int, m: int | None = None) -> np.ndarray:
    """``L[x, y] = (x - y)^2`` on inputs ``0..k-1`` and outputs ``0..m-1``."""
    return absolute(k, m) ** 2


def from_distance(D: Any) -> np.ndarray:
    """A loss matrix from any finite, non-negative ``(k, m)`` array (validated copy)."""
    L = as_float_matrix(D, "loss")
    if (L < 0).any():
        i, j = np.argwhere(L < 0)[0]
        raise InvalidParameterError(f"loss[{i}, {j}] = {float(L[i, j])!r} is negative")
    return L


def check_loss(L: Any) -> np.ndarray:
    """A finite ``(k, m)`` loss matrix (negative entries are gains and are allowed) whose
    range ``max - min`` is a finite double (the designer works in unit range; a range that
    overflows, e.g. entries of +-1e308, is refused here rather than failing in a solver)."""
    A = as_float_matrix(L, "loss")
    if A.size:
        hi, lo = float(A.max()), float(A.min())
        if not math.isfinite(hi - lo):
            raise InvalidParameterError(
                f"the loss's range overflows a double: max {hi!r} - min {lo!r}; rescale the "
                "loss (only its differences matter to the optimal mechanism)")
    return A


BUILDERS = {"hamming": hamming, "absolute": absolute, "squared": squared}
"""Named loss builders, as used by problem files."""
