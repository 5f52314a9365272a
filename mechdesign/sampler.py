r"""Exact sampling for deployment whose work and randomness do not depend on the input.

A randomizer runs on a respondent's device: the output must be drawn exactly from the row
of the respondent's input, and the time the draw takes must not reveal that input. A
per-row table (integer weights at the row's own scale, a bisection over them) leaks it: the
integers' sizes and the bisection's depth differ between rows
(``benchmarks/sampler_timing.py`` measures both samplers side by side).

:class:`ExactSampler` gives every row the same shape:

* **One scale.** Every float is a dyadic rational, so with ``2^K`` the largest denominator
  among ALL entries, ``w[x, y] = Q[x, y] 2^K`` are integers (exact). The row totals
  ``S_x = sum_y w[x, y]`` differ by at most the 1e-9 a row may be off 1.
* **One range.** Candidates ``u`` are uniform below ``S = max_x S_x`` (the same number of
  random bytes for every row; rejection from 64 surplus bits keeps them exactly uniform).
  Row x accepts ``u < S_x`` and then outputs the ``y`` with
  ``sum_{y' < y} w[x, y'] <= u < sum_{y' <= y} w[x, y']``: exactly ``w[x, y] / S_x``.
* **One width.** With ``B`` the bit length of ``S`` (at least 64), the table stores
  ``T[x, y] = 3 2^B + C[x, y] - 1`` (``C`` the cumulative weights): for every ``u < 2^B`` the
  difference ``T[x, y] - u`` lies in ``[2^{B+1}, 2^{B+2})``, so every subtraction works on
  integers of the same size, and its bit ``B`` is ``[C[x, y] > u]``. The masked differences
  (``2^{B+1}`` or ``3 2^B``) are summed over all ``m`` columns and the count of columns with
  ``C > u`` is read from the sum once: no comparison, no early exit, no small integers, the
  same ``m`` operations for every row.
* **A fixed number of candidates.** Each draw evaluates ``R`` candidates and keeps the first
  accepted one, chosen by arithmetic, not by a branch. A candidate is rejected with
  probability ``1 - S_x / S`` (at most 2e-9, zero when the rows' totals agree), so ``R`` is
  the smallest count with ``(1 - S_min / S)^R <= 2^-64``; only if all ``R`` are rejected (at
  most 2^-64) is another round drawn.

The exactness argument is the table's: each ``u`` below ``S_x`` maps to one output, and the
output ``y`` owns ``w[x, y]`` of them.

Limits: this is Python; the interpreter's own work is not constant-time at the machine
level (which row's objects are in cache, the returned output's object). Measured with the
attack of :mod:`mechdesign.testing.timing` (a threshold on the time of single calls), the
row is guessed at 49-52% against 50% chance, where the per-row bisection reached 89-94% on
rows of different scales; a draw is slower than the bisection's
(``benchmarks/sampler_timing.py``; numbers in ``benchmarks/README.md``, "Sampler timing
channel").
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = [
    "MIN_WIDTH",
    "REJECTION_TARGET",
    "SURPLUS_BITS",
    "ExactSampler",
]


SURPLUS_BITS = 64
"""Random bits drawn beyond the range: a candidate is redrawn with probability < 2^-64."""

REJECTION_TARGET = 2.0 ** -64
"""Largest probability that all candidates of one draw are rejected (a second round)."""

MIN_WIDTH = 64
"""Smallest ``B``: every table entry and every difference ``T - u`` is then an integer of
several machine digits, never one of the interpreter's shared small-integer objects (whose
addresses would depend on the value)."""


class ExactSampler:
    """Exact sampler of a row-stochastic float matrix with input-independent work.

    Parameters
    ----------
    matrix : array_like, shape (k, m)
        Finite, non-negative rows with positive sums (validated by
        :class:`~mechdesign.mechanism.Mechanism`; not checked again here).

    Attributes
    ----------
    total : int
        ``S``, the common range of the candidates.
    candidates : int
        ``R``, candidates evaluated per draw.
    """

    def __init__(self, matrix: Any) -> None:
        rows = [[Fraction(float(v)) for v in row] for row in np.asarray(matrix)]
        scale = max(f.denominator for row in rows for f in row)  # a power of two
        weights = [[f.numerator * (scale // f.denominator) for f in row] for row in rows]
        totals = [sum(w) for w in weights]
        self.total = max(totals)
        self._shift = max(self.total.bit_length(), MIN_WIDTH)
        base = (3 << self._shift) - 1
        self._tables = tuple(tuple(base + c for c in itertools.accumulate(w)) for w in weights)
        self._mask = 3 << self._shift  # keeps bits B and B+1 of T - u: 2^(B+1) or 3 2^B
        m = len(self._tables[0])
        self._start = m << (self._shift + 2)  # running sums start (and stay) wide
        self._count_zero = 2 * m  # (sum - start) >> B when no column has C > u
        self.totals = tuple(totals)
        reject = Fraction(self.total - min(totals), self.total)
        self.candidates = 1 if reject == 0 else max(
            1, math.ceil(math.log(REJECTION_TARGET) / math.log(float(reject))))
        self._nbytes = (self._shift + 7) // 8 + SURPLUS_BITS // 8
        bound = 1 << (8 * self._nbytes)
        self._limit = bound - bound % self.total

    @property
    def n_outputs(self) -> int:
        return len(self._tables[0])

    def weights(self, x: int) -> list[int]:
        """The integer weights ``w[x, y]`` of row ``x`` (at the common scale)."""
        cum = [t - ((3 << self._shift) - 1) for t in self._tables[x]]
        return [c - p for c, p in zip(cum, [0, *cum[:-1]], strict=True)]

    def select(self, x: int, u: int) -> int:
        """The output of row ``x`` for the candidate ``u`` in ``[0, S)``, or ``m`` when row
        ``x`` rejects it (``u >= S_x``): ``m - sum_y [C[x, y] > u]``, the same ``m``
        subtractions of equal-width integers for every row and every ``u``."""
        return self._output(self._candidate(x, u)[1])

    def _candidate(self, x: int, u: int) -> tuple[int, int]:
        """``(accepted, sum)``: 1 if row ``x`` accepts ``u`` (else 0), and the running sum
        ``start + sum_y (T[x, y] - u) & (3 2^B)``, whose terms are ``3 2^B`` where ``C > u``
        and ``2^(B+1)`` elsewhere. Every term and the sum are wide integers of one size (no
        shared small-integer objects whose addresses would follow the output), so the
        interpreter does the same work on the same kinds of objects whatever the row."""
        table = self._tables[x]
        mask = self._mask
        acc = self._start
        for t in table:
            acc += (t - u) & mask
        # bit B of the last column: C[x, m-1] = S_x > u; (T - u) >> B is 3 or 2
        return ((table[-1] - u) >> self._shift) - 2, acc

    def _output(self, acc: int) -> int:
        """The output a running sum encodes: ``m`` minus the columns with ``C > u``."""
        return self.n_outputs - (((acc - self._start) >> self._shift) - self._count_zero)

    def uniforms(self, count: int) -> list[int]:
        """``count`` independent uniform integers below :attr:`total` from ``os.urandom``:
        ``count`` blocks of the same size, each redrawn only if it falls in the top
        ``2^(8 nbytes) mod S`` values (probability below 2^-64)."""
        n = self._nbytes
        raw = os.urandom(n * count)
        out = []
        for i in range(count):
            r = int.from_bytes(raw[i * n:(i + 1) * n], "little")
            while r >= self._limit:
                r = int.from_bytes(os.urandom(n), "little")
            out.append(r % self.total)
        return out

    def draw(self, x: int) -> int:
        """One exact draw from row ``x``: :attr:`candidates` candidates, all evaluated, the
        first accepted one kept by arithmetic (no branch on the row's data)."""
        rejected = self._start + (self._count_zero << self._shift)  # the sum of output m
        m = self.n_outputs
        while True:
            result = rejected
            for u in reversed(self.uniforms(self.candidates)):
                accepted, acc = self._candidate(x, u)  # accepted: 1 except w.p. <= 2e-9
                result = accepted * acc + (1 - accepted) * result
            y = self._output(result)
            if y < m:  # all candidates rejected: probability <= 2^-64
                return y

    def draw_many(self, xs: Sequence[int]) -> list[int]:
        """:meth:`draw` for each row index in ``xs``."""
        return [self.draw(int(x)) for x in xs]
