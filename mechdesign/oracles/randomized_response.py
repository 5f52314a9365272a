r"""k-ary randomized response as a frequency oracle (Kairouz, Oh, Viswanath 2016; "direct
encoding" in Wang et al. 2017).

Implemented as a mixture: with probability ``1 - t`` report the value, with probability
``t`` report a uniform value of ``0..k-1`` (possibly the true one). Then

.. math:: P(y = x) = 1 - t + t/k, \qquad P(y = v \ne x) = t/k,

the privacy ratio is ``1 + k (1 - t)/t`` and ``t = k / (k + e^eps - 1)`` gives the usual
``e^eps / (e^eps + k - 1)`` on the diagonal; ``t`` is rounded up to a multiple of
``2^-128``. A report is one integer; it supports the value it names.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from .base import FrequencyOracle, mixture_numerator, raise_outside
from .randomness import ONE, RandomWords

__all__ = [
    "RandomizedResponse",
]


class RandomizedResponse(FrequencyOracle):
    """k-RR: report the value with probability ``e^eps / (e^eps + k - 1)``."""

    family = "randomized_response"

    def __init__(self, k: Any, epsilon: Any) -> None:
        super().__init__(k, epsilon)
        self._noise = mixture_numerator(self.k, self.epsilon)
        t = Fraction(self._noise, ONE)
        self.p_star = 1 - t + t / self.k
        self.q_star = t / self.k
        self.ratio_excess = self.k * (1 - t) / t

    def pair_atoms(self) -> list[tuple[Fraction, Fraction]]:
        """Reports ``x``, ``x'`` and the ``k - 2`` others (see the base class)."""
        p, q = self.p_star, self.q_star
        return [(p, q), (q, p), ((self.k - 2) * q, (self.k - 2) * q)]

    @property
    def n_outputs(self) -> int:
        return self.k

    @property
    def report_width(self) -> int:
        return 0

    def _draw(self, x: np.ndarray, source: RandomWords) -> np.ndarray:
        uniform = source.below(self.k, len(x)).astype(np.int64)
        noisy = source.bernoulli(self._noise, len(x))
        return np.where(noisy, uniform, x)

    def support_counts(self, reports: Any) -> np.ndarray:
        arr = self.check_reports(reports)
        if arr.size and arr.max() >= self.k:
            raise_outside(int(arr.max()), self.k)
        return np.bincount(arr.astype(np.int64), minlength=self.k)

    def _matrix(self) -> tuple[np.ndarray, list]:
        Q = np.full((self.k, self.k), float(self.q_star))
        np.fill_diagonal(Q, float(self.p_star))
        return Q, list(range(self.k))

