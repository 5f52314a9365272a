"""The subset lattice of a small output set, as bitmasks (output j is bit j).

Belief and plausibility are linear maps of a mass function (Li et al. 2022, section 1):
``bel(E) = sum_{B subset of E} m(B)`` (the zeta transform) and
``pl(E) = sum_{B meets E} m(B)``. Both are computed here as sums of non-negative terms only,
never as ``1 - bel(complement)``: a subtraction turns exact zeros into 1e-17 noise, and a
ratio such as ``pl_x(E) / pl_x'(E)`` then reports a spurious finite or infinite value.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .errors import SizeLimitError

MAX_EVENT_OUTPUTS = 16
"""Largest output set for which every event (all 2^m subsets) is enumerated."""


def check_event_size(m: int) -> None:
    if m > MAX_EVENT_OUTPUTS:
        raise SizeLimitError(
            f"{m} outputs give 2^{m} events; event enumeration is limited to "
            f"{MAX_EVENT_OUTPUTS} outputs")


def scatter(values: np.ndarray, masks: np.ndarray, m: int) -> np.ndarray:
    """Place ``values[:, j]`` at column ``masks[j]`` of a ``(k, 2^m)`` array (summing repeats)."""
    out = np.zeros((values.shape[0], 1 << m))
    np.add.at(out, (slice(None), masks), values)
    return out


def zeta_subsets(f: np.ndarray, m: int) -> np.ndarray:
    """``g[:, E] = sum_{B subset of E} f[:, B]`` for all ``E`` (fast zeta transform, O(m 2^m))."""
    g = np.array(f, dtype=float, copy=True)
    k = g.shape[0]
    for i in range(m):
        v = g.reshape(k, 1 << (m - i - 1), 2, 1 << i)
        v[:, :, 1, :] += v[:, :, 0, :]
    return g


def plausibility(f: np.ndarray, m: int) -> np.ndarray:
    """``pl[:, E] = sum_{B meets E} f[:, B]`` for all ``E``, without subtraction.

    A set B meeting E is counted once, at ``y = min(B and E)``: y in B and B avoids the
    elements of E below y, i.e. ``B subset of Y minus (E and {< y})``. So
    ``pl(E) = sum_{y in E} h_y(Y minus (E and {< y}))`` with ``h_y`` the zeta transform of
    the masses of the sets containing y. O(m^2 2^m), all terms non-negative.
    """
    full = (1 << m) - 1
    masks = np.arange(1 << m)
    pl = np.zeros_like(f, dtype=float)
    for y in range(m):
        has_y = (masks >> y) & 1 == 1
        h = zeta_subsets(np.where(has_y, f, 0.0), m)
        events = masks[has_y]
        targets = full ^ (events & ((1 << y) - 1))
        pl[:, events] += h[:, targets]
    return pl


def subset_indicator(masks: np.ndarray, m: int) -> np.ndarray:
    """Boolean ``(len(masks), 2^m)``: entry ``[j, E]`` is ``masks[j] subset of E``."""
    events = np.arange(1 << m)
    return (masks[:, None] & ~events[None, :]) == 0


def meets_indicator(masks: np.ndarray, m: int) -> np.ndarray:
    """Boolean ``(len(masks), 2^m)``: entry ``[j, E]`` is ``masks[j]`` meets ``E``."""
    events = np.arange(1 << m)
    return (masks[:, None] & events[None, :]) != 0


def mask_of(indices: Iterable[int]) -> int:
    """The bitmask of a collection of output indices."""
    mask = 0
    for j in indices:
        mask |= 1 << int(j)
    return mask
