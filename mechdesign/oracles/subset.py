r"""d-subset selection as a frequency oracle (Ye & Barg 2018; Wang et al. 2016).

Implemented as a mixture: with probability ``1 - t`` the report is the value plus a uniform
``(d-1)``-subset of the other values, with probability ``t`` a uniform d-subset of all k.
For a d-subset S,

.. math:: P(S \mid x) = \frac{1 - t}{\binom{k-1}{d-1}}[x \in S] + \frac{t}{\binom{k}{d}},

so the privacy ratio is ``1 + (k/d)(1 - t)/t`` and ``t = k / (k + d (e^eps - 1))`` gives the
catalog's ``e^eps / (C(k-1,d-1) e^eps + C(k-1,d))`` inside S; ``t`` is rounded up. Support
probabilities: ``p* = 1 - t + t d/k``, ``q* = (1 - t)(d - 1)/(k - 1) + t d/k``.

The best d for a uniform prior minimises ``k (d/k)(1 - d/k) / (p* - q*)^2`` (each report
supports exactly d values, so ``lambda_v = d/k``); it is the d of
:func:`~mechdesign.design.engines.staircase.symmetric_estimation` (tested). A report is the d
values of S as integers (in no particular order) when ``16 d <= k``; for larger subsets it
is S's membership bitmap, k bits packed little-endian into ``ceil(k/8)`` bytes as unary
encoding's reports (smaller than d 16-bit integers, and drawn without a per-value step).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from .._validation import check_int
from ..errors import InvalidParameterError
from .base import FrequencyOracle, mixture_numerator, raise_outside, row_chunks
from .bitcount import column_counts
from .randomness import ONE, RandomWords

__all__ = [
    "BITMAP_BITS",
    "COIN_MARGIN",
    "MEMBER_ENTRIES",
    "PACKED_ABOVE",
    "SubsetSelection",
    "best_subset_size",
    "subset_selection_risk",
]


MEMBER_ENTRIES = 1 << 26
"""Sampling keeps a respondents-by-values membership table of at most this many booleans
(64 MB): fewer, larger steps of Floyd's algorithm."""

PACKED_ABOVE = 16
"""Reports of ``d > k / PACKED_ABOVE`` values are bitmaps (``ceil(k/8)`` bytes, less than
d 16-bit integers); smaller ones are the d values, checked for repeats by sorting."""

COIN_MARGIN = 1.0
"""Bitmap subsets start from coins of probability ``(d - COIN_MARGIN sd) / k`` (sd the
standard deviation of their number): most rows then only gain members, which they do
faster than they lose them (measured: 0.5 and 1.5 are slower at k = 10^4)."""

BITMAP_BITS = 1 << 27
"""Packed sampling works on at most this many report bits at once (16 MiB; measured at
k = 10^4: 2^27-2^28 fastest, the adjusting rounds' scattered reads and writes slow down in
larger blocks and Python's per-round work adds up in smaller ones)."""


def _repeats(reports: np.ndarray, row: int, d: int) -> None:
    """Raise the typed error for a report that repeats a value (naming the value)."""
    values, counts = np.unique(reports[row], return_counts=True)
    raise InvalidParameterError(f"report {row} repeats the value {int(values[counts > 1][0])}: "
                                f"a subset has {d} distinct values")


def subset_selection_risk(k: int, d: np.ndarray, epsilon: float) -> np.ndarray:
    r"""Total variance per report of d-subset selection's estimator under a uniform prior,
    which is also its ``trace CR`` (the designer's closed form):

    .. math:: \frac{(k-1)^2 (d e^\varepsilon + k - d)^2}{(e^\varepsilon - 1)^2\, d\, (k - d)\, k}

    From the module docstring: ``lambda_v = d/k``, ``p* - q* = (1 - t)(k - d)/(k - 1)`` and
    ``1 - t = d (e^eps - 1)/(k + d (e^eps - 1))`` give ``k (d/k)(1 - d/k)/(p* - q*)^2`` in
    this form. Reference values (docs/formulations.md): k = 2, eps = 1: 2.341347; k = 10,
    eps = 0.5, d = 4: 127.2172; k = 20, eps = 1, d = 5: 66.6344. Evaluated with numerator
    and denominator divided by ``e^{2 eps}`` (``d + (k - d) e^-eps`` over ``1 - e^-eps``),
    which cannot overflow at any epsilon (``inf`` at eps = 0).
    """
    d = np.asarray(d, dtype=float)
    shrink = math.exp(-epsilon)
    drop = -math.expm1(-epsilon)
    with np.errstate(divide="ignore"):
        return (k - 1) ** 2 * (d + (k - d) * shrink) ** 2 / (drop ** 2 * d * (k - d) * k)


def best_subset_size(k: int, epsilon: float) -> int:
    """The d in ``1..k-1`` with the smallest total variance under a uniform prior (1 at
    eps = 0, where every d carries nothing)."""
    return 1 + int(np.argmin(subset_selection_risk(k, np.arange(1, k), epsilon)))


class SubsetSelection(FrequencyOracle):
    """d-subset selection; ``d=None`` takes :func:`best_subset_size`."""

    family = "subset_selection"

    def __init__(self, k: Any, epsilon: Any, d: Any = None) -> None:
        super().__init__(k, epsilon)
        if d is None:
            d = 1 if self.epsilon == 0 else best_subset_size(self.k, self.epsilon)
        self.d = check_int(d, "d", 1)
        if self.d > self.k - 1:
            raise InvalidParameterError(f"d must be <= k - 1 = {self.k - 1}, got {self.d}")
        self._noise = mixture_numerator(Fraction(self.k, self.d), self.epsilon)
        t, k, d = Fraction(self._noise, ONE), self.k, self.d
        self.p_star = 1 - t + t * Fraction(d, k)
        self.q_star = (1 - t) * Fraction(d - 1, k - 1) + t * Fraction(d, k)
        self.ratio_excess = Fraction(k, d) * (1 - t) / t

    @property
    def parameters(self) -> dict[str, Any]:
        return {"k": self.k, "epsilon": self.epsilon, "d": self.d}

    def pair_atoms(self) -> list[tuple[Fraction, Fraction]]:
        """Subsets holding x only, x' only, both and neither: ``C(k-2, d-1)``,
        ``C(k-2, d-1)``, ``C(k-2, d-2)`` and ``C(k-2, d)`` of them, each with the module
        docstring's probability inside or outside (see the base class)."""
        k, d = self.k, self.d
        t = Fraction(self._noise, ONE)
        outside = t / math.comb(k, d)
        inside = (1 - t) / math.comb(k - 1, d - 1) + outside
        one, both, neither = (math.comb(k - 2, j) if j >= 0 else 0
                                for j in (d - 1, d - 2, d))
        return [(one * inside, one * outside), (one * outside, one * inside),
                (both * inside, both * inside), (neither * outside, neither * outside)]

    @property
    def n_outputs(self) -> int:
        return math.comb(self.k, self.d)

    @property
    def packed(self) -> bool:
        """True when a report is the k-bit membership bitmap (``d > k / 16``), not d values."""
        return self.d * PACKED_ABOVE > self.k

    @property
    def report_width(self) -> int:
        return -(-self.k // 8) if self.packed else self.d

    def _draw(self, x: np.ndarray, source: RandomWords) -> np.ndarray:
        if self.packed:
            out = np.empty((len(x), self.report_width), dtype=np.uint8)
            for rows in row_chunks(len(x), self.k, BITMAP_BITS):
                self._draw_bitmaps(x[rows], source, out[rows])
            return out
        out = np.empty((len(x), self.d), dtype=np.uint16 if self.k <= 1 << 16 else np.int64)
        for rows in row_chunks(len(x), self.k, MEMBER_ENTRIES):
            out[rows] = self._draw_chunk(x[rows], source)
        return out

    def _draw_chunk(self, x: np.ndarray, source: RandomWords) -> np.ndarray:
        # Floyd's algorithm, one step for all rows at once: a uniform d-subset of 0..k-1
        c, k, d = len(x), self.k, self.d
        base = np.arange(c) * k  # row offsets into the flat membership table
        member = np.zeros(c * k, dtype=bool)
        subset = np.empty((d, c), dtype=np.int64)
        for i, j in enumerate(range(k - d, k)):
            t = source.below(j + 1, c)
            pick = np.where(member[base + t], j, t)
            member[base + pick] = True
            subset[i] = pick
        # informative answers (probability 1 - t) must contain x: if the uniform subset
        # misses it, x replaces a uniform member (a uniform (d-1)-subset of the others stays)
        informative = ~source.bernoulli(self._noise, c)
        slot = source.below(d, c)
        replace = np.flatnonzero(informative & ~member[base + x])
        subset[slot[replace], replace] = x[replace]
        return subset.T

    def _draw_bitmaps(self, x: np.ndarray, source: RandomWords, bitmap: np.ndarray) -> None:
        r"""Bitmap reports: a uniform d-subset as iid coins adjusted to exactly d members.

        Every value enters with probability ``rho`` (exact coins, about one standard deviation
        below ``d/k`` so that most rows only need additions); then a row with fewer than d
        members adds uniform positions (a member drawn again changes nothing) and a row with
        more removes uniform positions, one per row and round, until it has d. The coins are
        exchangeable and each step treats every position alike (its law commutes with any
        permutation of ``0..k-1``), so the result is too, and an exchangeable d-subset is
        uniform. Informative rows that miss x drop a uniform member (the same step with
        target d - 1) and take x, as in :meth:`_draw_chunk`.
        """
        c, k, d = len(x), self.k, self.d
        spread = COIN_MARGIN * math.sqrt(d * (1 - d / k))
        rho = max(0, math.floor(ONE * (d - spread) / k))
        flat = bitmap.reshape(-1)  # the rows of `out` being filled, contiguous
        source.bernoulli_bytes(rho, flat.size, out=flat)
        if k % 8:  # positions k.. are not values
            bitmap[:, -1] &= np.uint8((1 << (k % 8)) - 1)
        _adjust(bitmap, np.arange(c), d, k, source)
        informative = ~source.bernoulli(self._noise, c)
        byte, mask = np.arange(c) * bitmap.shape[1] + x // 8, _bit(x)
        fix = np.flatnonzero(informative & (flat[byte] & mask == 0))
        _adjust(bitmap, fix, d - 1, k, source, np.full(fix.size, d))
        flat[byte[fix]] |= mask[fix]

    def support_counts(self, reports: Any) -> np.ndarray:
        if self.packed:
            arr = self.check_reports(reports)
            sizes = _row_sizes(arr)
            wrong = np.flatnonzero(sizes != self.d)
            if wrong.size:
                row = int(wrong[0])
                raise InvalidParameterError(f"report {row} holds {int(sizes[row])} values: a "
                                            f"subset has {self.d}")
            return column_counts(arr, self.k)
        arr = self.check_reports(reports)
        if arr.size and arr.max() >= self.k:
            raise_outside(int(arr.max()), self.k)
        if self.d > 1 and arr.size:  # repeats, found by sorting each report
            small = arr.astype(np.uint16) if self.k <= 1 << 16 else arr
            repeated = (np.diff(np.sort(small, axis=1), axis=1) == 0).any(axis=1)
            if repeated.any():
                _repeats(arr, int(np.flatnonzero(repeated)[0]), self.d)
        return np.bincount(arr.ravel().astype(np.int64), minlength=self.k)

    def _matrix(self) -> tuple[np.ndarray, list]:
        k, d = self.k, self.d
        t = Fraction(self._noise, ONE)
        outside = t / math.comb(k, d)
        inside = (1 - t) / math.comb(k - 1, d - 1) + outside
        subsets = list(itertools.combinations(range(k), d))
        member = np.zeros((k, len(subsets)), dtype=bool)
        for j, s in enumerate(subsets):
            member[list(s), j] = True
        return np.where(member, float(inside), float(outside)), subsets


_MASKS = np.uint8(1) << np.arange(8, dtype=np.uint8)


def _bit(position: np.ndarray) -> np.ndarray:
    """The bit of ``position`` within its byte, as a ``uint8`` mask."""
    return _MASKS[position & 7]


def _row_sizes(bitmap: np.ndarray) -> np.ndarray:
    """Members of each row of a ``uint8`` bitmap: popcounts of its 8-byte words (whole ones
    read in place, measured faster than single bytes: ``benchmarks/README.md``,
    "Measurements behind the library's constants") plus those of the bytes left over."""
    whole = bitmap.shape[1] // 8 * 8
    if whole and bitmap.strides[1] != 1:  # the words must be read along contiguous rows
        bitmap = np.ascontiguousarray(bitmap)
    sizes = np.bitwise_count(bitmap[:, :whole].view("<u8")).sum(axis=1, dtype=np.int64)
    if whole < bitmap.shape[1]:
        sizes += np.bitwise_count(bitmap[:, whole:]).sum(axis=1, dtype=np.int64)
    return sizes


def _adjust(bitmap: np.ndarray, rows: np.ndarray, target: int, k: int,
            source: RandomWords, count: np.ndarray | None = None) -> None:
    """Bring each of ``rows`` of ``bitmap`` (contiguous rows of bytes) to exactly ``target``
    members among positions ``0..k-1`` (``count``: their sizes, when known): a row below it
    sets a uniform position per round, a row above clears one (a no-op when the position
    already has that state), and a row leaves the rounds when it reaches ``target``."""
    flat = bitmap.reshape(-1)
    count = _row_sizes(bitmap[rows]) if count is None else count
    for grow in (True, False):
        pick = count < target if grow else count > target
        start = rows[pick] * bitmap.shape[1]  # first byte of each row still adjusting
        need = np.abs(count[pick] - target)  # members still to set or clear
        while start.size:
            pos = source.below(k, start.size)
            byte, mask = start + (pos >> 3), _bit(pos)
            old = flat[byte]
            new = old | mask if grow else old & ~mask
            flat[byte] = new
            need -= new != old
            left = need > 0
            start, need = start[left], need[left]
