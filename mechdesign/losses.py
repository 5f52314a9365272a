"""Loss matrices ``L[x, y]``: the cost of reporting output y when the input is x."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._validation import as_float_matrix, check_int
from .errors import InvalidParameterError


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
    """A finite ``(k, m)`` loss matrix (negative entries are gains and are allowed)."""
    return as_float_matrix(L, "loss")


BUILDERS = {"hamming": hamming, "absolute": absolute, "squared": squared}
"""Named loss builders, as used by problem files."""
