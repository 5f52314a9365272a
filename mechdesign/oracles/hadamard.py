r"""Hadamard response as a frequency oracle (Acharya, Sun, Zhang 2019).

With ``K`` the smallest power of two above k and ``H[i, y] = (-1)^{popcount(i & y)}`` the
Sylvester-Hadamard matrix, value x owns the ``K/2`` reports
``C_x = {y : H[x + 1, y] = +1}``. Implemented as a mixture: with probability ``1 - t`` a
uniform report of ``C_x``, with probability ``t`` a uniform report of ``0..K-1``:

.. math:: P(y \mid x) = \frac{2 (1 - t)}{K}[y \in C_x] + \frac{t}{K},

privacy ratio ``1 + 2 (1 - t)/t``, ``t = 2 / (e^eps + 1)`` rounded up. A report ``y`` supports
the values whose set contains it: ``p* = 1 - t/2`` and, since two distinct rows of H agree on
exactly half the columns, ``q* = 1/2``. The support counts of all k values come from one
fast Walsh-Hadamard transform of the report histogram: ``C_v = (n + (H h)[v + 1]) / 2``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from .base import FrequencyOracle, mixture_numerator, raise_outside
from .randomness import ONE, RandomWords

__all__ = [
    "HadamardResponse",
    "walsh_hadamard",
]


def walsh_hadamard(values: np.ndarray) -> np.ndarray:
    """``H @ values`` for the Sylvester-Hadamard matrix of size ``len(values)`` (a power of
    two), in ``O(K log K)`` integer operations."""
    a = np.asarray(values, dtype=np.int64)
    size, h = len(a), 1
    while h < size:
        a = a.reshape(-1, 2, h)
        a = np.stack((a[:, 0] + a[:, 1], a[:, 0] - a[:, 1]), axis=1).reshape(-1)
        h *= 2
    return a


class HadamardResponse(FrequencyOracle):
    """Hadamard response over ``K = 2^{bit_length(k)}`` reports."""

    family = "hadamard_response"

    def __init__(self, k: Any, epsilon: Any) -> None:
        super().__init__(k, epsilon)
        self.K = 1 << self.k.bit_length()
        self._noise = mixture_numerator(2, self.epsilon)
        t = Fraction(self._noise, ONE)
        self.p_star = 1 - t / 2
        self.q_star = Fraction(1, 2)
        self.ratio_excess = 2 * (1 - t) / t

    def pair_atoms(self) -> list[tuple[Fraction, Fraction]]:
        """Reports in ``C_x`` only, ``C_x'`` only, both and neither: ``K/4`` each (two
        distinct non-zero rows of H are independent parities; see the base class)."""
        t = Fraction(self._noise, ONE)
        inside, outside = (2 - t) / 4, t / 4  # K/4 reports of 2(1-t)/K + t/K, or of t/K
        return [(inside, outside), (outside, inside), (inside, inside), (outside, outside)]

    @property
    def n_outputs(self) -> int:
        return self.K

    @property
    def report_width(self) -> int:
        return 0

    def _draw(self, x: np.ndarray, source: RandomWords) -> np.ndarray:
        n = len(x)
        y = source.below(self.K, n).astype(np.int64)
        informative = ~source.bernoulli(self._noise, n)
        code = x + 1
        inside = np.bitwise_count(code & y) % 2 == 0
        # flipping one bit of y that code has moves y between C_x and its complement, a
        # bijection: a uniform y conditioned on C_x stays uniform
        flip = np.where(informative & ~inside, code & -code, 0)
        return y ^ flip

    def support_counts(self, reports: Any) -> np.ndarray:
        arr = self.check_reports(reports)
        if arr.size and arr.max() >= self.K:
            raise_outside(int(arr.max()), self.K)
        hist = np.bincount(arr.astype(np.int64), minlength=self.K)
        transformed = walsh_hadamard(hist)
        return (len(arr) + transformed[1:self.k + 1]) // 2

    def _matrix(self) -> tuple[np.ndarray, list]:
        t = Fraction(self._noise, ONE)
        y = np.arange(self.K)
        inside = np.bitwise_count(np.arange(1, self.k + 1)[:, None] & y[None, :]) % 2 == 0
        return (np.where(inside, float(2 * (1 - t) / self.K + t / self.K),
                         float(t / self.K)), list(range(self.K)))
