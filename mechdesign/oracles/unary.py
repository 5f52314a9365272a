r"""Unary encodings as frequency oracles (Wang et al. 2017, s.4.2): the value is one-hot
encoded in k bits and every bit is reported independently,

.. math:: P(b_v = 1 \mid x = v) = p, \qquad P(b_v = 1 \mid x \ne v) = q.

The privacy ratio of two values on one report is ``p (1 - q) / (q (1 - p))``.

* symmetric (SUE, basic one-time RAPPOR): ``p = 1 - q``, ``q = 1 / (1 + e^{eps/2})``, ratio
  ``((1 - q)/q)^2``;
* optimised (OUE): ``p = 1/2``, ``q = 1 / (1 + e^eps)``, ratio ``(1 - q)/q``; the ``p, q``
  that minimise the variance at small frequencies (Wang et al. s.4.2).

``q`` is rounded UP to a multiple of ``2^-128`` (more noise: the ratio only falls). A report
is the k bits packed little-endian into ``ceil(k/8)`` bytes (bit ``v`` of the report is bit
``v % 8`` of byte ``v // 8``), ``k / 8`` bytes instead of ``2^k`` matrix columns; it
supports the values whose bit is set.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from .._exact import exp_bracket
from ..errors import InvalidParameterError
from .base import FrequencyOracle
from .bitcount import column_counts
from .randomness import ONE, RandomWords

__all__ = [
    "UnaryEncoding",
]


class UnaryEncoding(FrequencyOracle):
    """Symmetric (``optimized=False``) or optimised (``optimized=True``) unary encoding."""

    family = "unary_encoding"

    def __init__(self, k: Any, epsilon: Any, optimized: bool = False) -> None:
        super().__init__(k, epsilon)
        if not isinstance(optimized, bool | np.bool_):
            raise InvalidParameterError(f"optimized must be True or False, got {optimized!r}")
        self.optimized = bool(optimized)
        # the likelihood ratio of one bit, (1 - q)/q, is at most `low` <= e^{eps} (OUE) or
        # e^{eps/2} (SUE, whose ratio is its square): q = ceil(2^128 / (1 + low)) / 2^128
        low = exp_bracket(self.epsilon if self.optimized else self.epsilon / 2, 60)[0]
        self._q = min(ONE // 2, math.ceil(ONE / (1 + low)))
        self._p = ONE // 2 if self.optimized else ONE - self._q
        q, p = Fraction(self._q, ONE), Fraction(self._p, ONE)
        self.p_star, self.q_star = p, q
        self.ratio_excess = p * (1 - q) / (q * (1 - p)) - 1

    @property
    def parameters(self) -> dict[str, Any]:
        return {"k": self.k, "epsilon": self.epsilon, "optimized": self.optimized}

    def pair_atoms(self) -> list[tuple[Fraction, Fraction]]:
        """Grouped by bits ``(b_x, b_x')`` = (1, 0), (0, 1), (1, 1), (0, 0); the other bits
        have the same law under both inputs (see the base class)."""
        p, q = self.p_star, self.q_star
        return [(p * (1 - q), q * (1 - p)), (q * (1 - p), p * (1 - q)), (p * q, p * q),
                ((1 - p) * (1 - q), (1 - p) * (1 - q))]

    @property
    def n_outputs(self) -> int:
        return 1 << self.k

    @property
    def packed(self) -> bool:
        return True

    @property
    def report_width(self) -> int:
        return -(-self.k // 8)

    def _draw(self, x: np.ndarray, source: RandomWords) -> np.ndarray:
        n, width = len(x), self.report_width
        packed = source.bernoulli_bytes(self._q, n * width).reshape(n, width)
        own = source.bernoulli(self._p, n).astype(np.uint8)
        rows, byte, bit = np.arange(n), x // 8, (x % 8).astype(np.uint8)
        packed[rows, byte] = (packed[rows, byte] & ~(np.uint8(1) << bit)) | (own << bit)
        if self.k % 8:  # clear the unused high bits of the last byte
            packed[:, -1] &= np.uint8((1 << (self.k % 8)) - 1)
        return packed

    def support_counts(self, reports: Any) -> np.ndarray:
        return column_counts(self.check_reports(reports), self.k)

    def _matrix(self) -> tuple[np.ndarray, list]:
        k = self.k
        bits = ((np.arange(1 << k)[:, None] >> np.arange(k)[None, :]) & 1).astype(bool)
        p, q = float(self.p_star), float(self.q_star)
        ln = {True: (math.log(p), math.log(q)), False: (math.log1p(-p), math.log1p(-q))}
        own = np.eye(k, dtype=bool)
        logs = np.where(bits[None, :, :],
                        np.where(own[:, None, :], ln[True][0], ln[True][1]),
                        np.where(own[:, None, :], ln[False][0], ln[False][1]))
        Q = np.exp(logs.sum(axis=2))
        return Q, [tuple(int(b) for b in row) for row in bits]
