r"""Optimised local hashing (OLH; Wang et al. 2017, s.4.4) with an explicit, seeded hash
family.

Hash family (Dietzfelbinger's multiply-add-shift, "strongly universal"): with ``W`` =
``hash_bits`` (even, default 32) and ``L = W/2``, a seed is a pair ``(a, b)`` of uniform
W-bit integers and

.. math:: h_{a,b}(v) = \big((a v + b) \bmod 2^W\big) \gg (W - L),

which for values below ``2^{W - L + 1}`` (k up to 131072 at W = 32) takes every pair of values
``(h(v), h(v'))``, ``v != v'``, to a uniform pair of ``[2^L]^2`` (Dietzfelbinger 1996; checked
exhaustively at small W in the tests). The hash is mapped to ``g`` buckets by
``phi(h) = (h g) >> L``, whose bucket ``r`` holds ``c_r`` hash values, so two distinct values
land in one bucket with probability exactly ``gamma = sum_r c_r^2 / 2^{2l}`` (``1/g`` when g
divides ``2^L``).

A respondent draws a seed, hashes its value and reports ``(a, b, y)`` where, as a mixture,
``y`` is the bucket with probability ``1 - t`` and a uniform bucket with probability ``t``.
For a fixed seed this is g-ary randomized response, so the privacy ratio is
``1 + g (1 - t)/t``, ``t = g / (g + e^eps - 1)`` rounded up. A report supports the values
hashing to its bucket: ``p* = 1 - t + t/g`` and ``q* = gamma (1 - t) + t/g``.
``g=None`` takes the g that minimises the total variance under a uniform prior (about
``e^eps + 1``, Wang et al.). Estimation costs ``O(n k)`` (the protocol's own cost): three
32-bit operations per report and value.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from .._validation import check_int
from ..errors import InvalidParameterError
from .base import FrequencyOracle, mixture_numerator, row_chunks
from .randomness import ONE, RandomWords

__all__ = [
    "LocalHashing",
    "best_bucket_count",
]


def _bucket_starts(g: int, L: int) -> np.ndarray:
    """``lo_r = ceil(r 2^L / g)`` for ``r = 0..g``: bucket r holds hash values
    ``lo_r <= h < lo_{r+1}``."""
    r = np.arange(g + 1, dtype=np.int64)
    return -((-r << L) // g)


def _total_variance(k: int, epsilon: float, g: np.ndarray, L: int) -> np.ndarray:
    """Total variance (one report, uniform prior) of OLH with ``g`` buckets (an array),
    nominal t. ``2^L = s g + r``: r buckets of ``s + 1`` hash values and ``g - r`` of s."""
    s, r = np.divmod(1 << L, g)
    gamma = (r * (s + 1.0) ** 2 + (g - r) * s ** 2.0) / 4.0 ** L
    t = g / (g + math.expm1(epsilon))
    p, q = 1 - t + t / g, gamma * (1 - t) + t / g
    lam = (p + (k - 1) * q) / k
    with np.errstate(divide="ignore"):  # p = q at epsilons below double precision
        return k * lam * (1 - lam) / (p - q) ** 2


def best_bucket_count(k: int, epsilon: float, L: int) -> int:
    """The g near ``e^eps + 1`` (within 3, at most ``2^L``) with the smallest total
    variance under a uniform prior; 2 at ``eps = 0``."""
    if epsilon == 0:
        return 2
    centre = math.exp(min(epsilon, 60.0)) + 1.0
    low = int(min(max(2.0, centre - 3.0), float(1 << L)))
    g = np.arange(low, int(min(centre + 3.0, float(1 << L))) + 1)
    return int(g[np.argmin(_total_variance(k, epsilon, g, L))])


class LocalHashing(FrequencyOracle):
    """OLH with ``g`` buckets (``None``: the best for a uniform prior)."""

    family = "local_hashing"

    def __init__(self, k: Any, epsilon: Any, g: Any = None, hash_bits: Any = 32) -> None:
        super().__init__(k, epsilon)
        self.hash_bits = check_int(hash_bits, "hash_bits", 4)
        if self.hash_bits > 32 or self.hash_bits % 2:
            raise InvalidParameterError(
                f"hash_bits must be an even number from 4 to 32, got {self.hash_bits}")
        self.L = self.hash_bits // 2
        if (self.k - 1).bit_length() > self.hash_bits - self.L + 1:
            raise InvalidParameterError(
                f"k = {self.k} is too large for hash_bits = {self.hash_bits} (values must be "
                f"below 2^{self.hash_bits - self.L + 1})")
        if g is None:
            g = best_bucket_count(self.k, self.epsilon, self.L)
        self.g = check_int(g, "g", 2)
        if self.g > 1 << self.L:
            raise InvalidParameterError(f"g must be <= 2^{self.L} = {1 << self.L}, got {self.g}")
        self._starts = _bucket_starts(self.g, self.L)
        sizes = np.diff(self._starts)
        self.gamma = Fraction(int((sizes * sizes).sum()), 1 << (2 * self.L))
        self._noise = mixture_numerator(self.g, self.epsilon)
        t = Fraction(self._noise, ONE)
        self.p_star = 1 - t + t / self.g
        self.q_star = self.gamma * (1 - t) + t / self.g
        self.ratio_excess = self.g * (1 - t) / t

    @property
    def parameters(self) -> dict[str, Any]:
        return {"k": self.k, "epsilon": self.epsilon, "g": self.g, "hash_bits": self.hash_bits}

    def pair_atoms(self) -> list[tuple[Fraction, Fraction]]:
        """A seed puts x and x' in distinct buckets with probability ``1 - gamma`` (the hash
        pair is uniform): then bucket(x), bucket(x') and the ``g - 2`` others; otherwise their
        common bucket and the ``g - 1`` others (see the base class)."""
        t, g, gamma = Fraction(self._noise, ONE), self.g, self.gamma
        hit, miss = 1 - t + t / g, t / g
        apart = 1 - gamma
        rest = (apart * (g - 2) + gamma * (g - 1)) * miss
        return [(apart * hit, apart * miss), (apart * miss, apart * hit),
                (gamma * hit, gamma * hit), (rest, rest)]

    @property
    def n_outputs(self) -> int:
        return (1 << (2 * self.hash_bits)) * self.g

    @property
    def report_width(self) -> int:
        return 3

    def bucket(self, a: np.ndarray, b: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``phi(h_{a,b}(v))``: the bucket of value v under seed (a, b) (broadcasting)."""
        mask = np.uint64((1 << self.hash_bits) - 1)
        z = (a.astype(np.uint64) * v.astype(np.uint64) + b.astype(np.uint64)) & mask
        h = z >> np.uint64(self.hash_bits - self.L)
        return ((h * np.uint64(self.g)) >> np.uint64(self.L)).astype(np.int64)

    def _draw(self, x: np.ndarray, source: RandomWords) -> np.ndarray:
        n = len(x)
        mask = np.uint64((1 << self.hash_bits) - 1)
        a, b = source.words(n) & mask, source.words(n) & mask
        uniform = source.below(self.g, n).astype(np.int64)
        noisy = source.bernoulli(self._noise, n)
        y = np.where(noisy, uniform, self.bucket(a, b, x))
        return np.stack([a, b, y.astype(np.uint64)], axis=1).astype(np.uint32)

    def support_counts(self, reports: Any) -> np.ndarray:
        arr = self.check_reports(reports)
        if arr.size:
            top = int(arr[:, :2].max())
            if top >> self.hash_bits:
                raise InvalidParameterError(
                    f"hash seed {top} does not fit hash_bits = {self.hash_bits}")
            if int(arr[:, 2].max()) >= self.g:
                raise InvalidParameterError(
                    f"report bucket {int(arr[:, 2].max())} is outside 0..{self.g - 1}")
        shift = self.hash_bits - self.L
        # v is in bucket y  <=>  (a v + b - lo_y 2^shift) mod 2^W  <  c_y 2^shift
        a = arr[:, 0].astype(np.uint32)[:, None]
        y = arr[:, 2].astype(np.int64)
        low = (self._starts[y] << shift).astype(np.uint64)
        off = ((arr[:, 1].astype(np.uint64) - low) & np.uint64(0xFFFF_FFFF)).astype(np.uint32)
        width = (np.diff(self._starts)[y] << shift).astype(np.uint32)  # < 2^32 for g >= 2
        values = np.arange(self.k, dtype=np.uint32)[None, :]
        counts = np.zeros(self.k, dtype=np.int64)
        narrow = self.hash_bits < 32
        for rows in row_chunks(len(arr), self.k):
            z = a[rows] * values
            z += off[rows][:, None]
            if narrow:
                z &= np.uint32((1 << self.hash_bits) - 1)
            counts += np.count_nonzero(z < width[rows][:, None], axis=0)
        return counts

    def _matrix(self) -> tuple[np.ndarray, list]:
        seeds = np.array(list(itertools.product(range(1 << self.hash_bits), repeat=2)))
        buckets = self.bucket(seeds[:, 0][None, :], seeds[:, 1][None, :],
                              np.arange(self.k)[:, None])  # (k, seeds)
        t = Fraction(self._noise, ONE)
        share = Fraction(1, len(seeds))
        hit = float(share * (1 - t + t / self.g))
        miss = float(share * t / self.g)
        Q = np.where(buckets[:, :, None] == np.arange(self.g)[None, None, :], hit, miss)
        outputs = [(int(a), int(b), y) for a, b in seeds for y in range(self.g)]
        return Q.reshape(self.k, -1), outputs
