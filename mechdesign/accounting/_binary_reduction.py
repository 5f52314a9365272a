r"""Huang & Canonne's Lemma 4.5: ``R2 o R1`` reduces to binary randomizers, exactly.

Lemma 4.5 ([EFMRSTT20, Lemma A.1] in Huang & Canonne, "Lemmas of differential privacy"):
*if for every* ``(eps1, delta1)``-LDP ``Q1: {0,1} -> {0,1}`` *and every* ``(eps2, delta2)``-LDP
``Q2: {0,1} -> {0,1}`` *the composition* ``Q2 o Q1`` *is* ``(eps, delta)``-LDP, *then for every*
``(eps1, delta1)``-LDP ``R1: X -> Y`` *and* ``(eps2, delta2)``-LDP ``R2: Y -> Z``, ``R2 o R1``
*is* ``(eps, delta)``-LDP. The proof is a reduction: from ``R1, R2``, a pair ``(x, x')`` and a
level ``c = e^eps`` it builds ``Q1`` (a post-processing of ``R1`` restricted to ``{x, x'}``)
and ``Q2`` (``R2`` restricted to two outputs of ``R1``, then post-processed) whose
composition violates the level at least as much as ``R2 o R1`` does. :func:`binary_reduction`
performs that construction in exact rational arithmetic and returns it with the two
violations, so the lemma is checked to the last digit on any pair of finite randomizers
(``docs/accounting.md`` s.2, "Lemma 4.5 as a reduction").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .._coerce import as_mechanism
from .._exact import dyadic_integers, exp_bracket, outward
from .._html import MAX_REPR, approx, clip, kv_table, number, wrap
from .._validation import check_epsilon
from ..errors import InvalidMechanismError, InvalidParameterError
from ..mechanism import Mechanism
from .tradeoff import check_pair

__all__ = [
    "BinaryReduction",
    "binary_reduction",
]

ExactMatrix = tuple[tuple[Fraction, ...], ...]


def _ln_up(r: Fraction) -> float:
    """An upper bound on ``ln r`` for a rational ``r >= 1`` (60 digits, rounded up)."""
    if r == 1:
        return 0.0
    from decimal import Decimal

    from .._exact import dlog1p

    t = r - 1
    return outward(lambda: dlog1p(Decimal(t.numerator) / Decimal(t.denominator)))


def _matrix(rows: ExactMatrix, name: str) -> Mechanism:
    return Mechanism([[float(v) for v in row] for row in rows], name=name)


@dataclass(frozen=True, eq=False)
class BinaryReduction:
    r"""The binary randomizers of Lemma 4.5 for one pair ``(x, x')`` and one level ``c``.

    Attributes
    ----------
    first : Mechanism
        ``Q1: {0, 1} -> {0, 1}``: input 0 is x, input 1 is x'; output 1 is "R1's output is in
        ``region``". Rows ``(R1(x)(Y - P1), R1(x)(P1))`` and ``(R1(x')(Y - P1), R1(x')(P1))``.
    second : Mechanism
        ``Q2: {0, 1} -> {0, 1}``: input b is R1's output ``y_b``; output 1 is "R2's output
        is in ``event``". Rows ``(R2(y_0)(Z - S), g(y_0))`` and ``(R2(y_1)(Z - S), g(y_1))``
        with ``g(y) = Pr[R2(y) in S]`` (sums of the stored entries, so each row sums to its
        row of R2 exactly).
    first_exact, second_exact : tuple of tuple of Fraction
        The same matrices, exact.
    pair : (int, int)
        ``(x, x')``, rows of ``R1``.
    scale : Fraction
        The level ``c``: ``e^epsilon`` rounded down to a rational (60 digits), or the largest
        likelihood ratio of the pair in the exact product when no epsilon was given.
    epsilon : float
        ``ln c``, rounded up.
    region : frozenset of int
        ``P1 = {y : R1(x)[y] >= c R1(x')[y], R1(x)[y] > 0}`` (indices of R1's outputs).
    event : frozenset of int
        ``S = {z : (R2 o R1)(x)[z] >= c (R2 o R1)(x')[z], (R2 o R1)(x)[z] > 0}`` (indices of
        R2's outputs): the worst event of the pair at level c.
    y0, y1 : int
        The outputs of R1 minimising and maximising ``g(y) = Pr[R2(y) in S]``.
    excess : Fraction
        ``Pr[R2(R1(x)) in S] - c Pr[R2(R1(x')) in S]``: the hockey-stick divergence
        ``H_c((R2 o R1)(x) || (R2 o R1)(x'))`` of the exact product (0 when c is its largest
        ratio).
    binary_excess : Fraction
        ``Pr[Q2(Q1(0)) = 1] - c Pr[Q2(Q1(1)) = 1]``; Lemma 4.5's proof shows
        ``binary_excess >= excess``.
    """

    first: Mechanism
    second: Mechanism
    first_exact: ExactMatrix
    second_exact: ExactMatrix
    pair: tuple[int, int]
    scale: Fraction
    epsilon: float
    region: frozenset
    event: frozenset
    y0: int
    y1: int
    excess: Fraction
    binary_excess: Fraction

    @property
    def composed_exact(self) -> ExactMatrix:
        """``Q1 @ Q2``, the binary composition ``Q2 o Q1``, exact."""
        A, B = self.first_exact, self.second_exact
        return tuple(tuple(sum((A[i][j] * B[j][k] for j in range(2)), Fraction(0))
                           for k in range(2)) for i in range(2))

    @property
    def holds(self) -> bool:
        """Whether the lemma's inequality ``binary_excess >= excess`` holds (always)."""
        return self.binary_excess >= self.excess

    def __repr__(self) -> str:
        body = (f"pair={self.pair}, epsilon={number(self.epsilon)}, "
                f"excess={approx(float(self.excess), 6)}, "
                f"binary_excess={approx(float(self.binary_excess), 6)}, y0={self.y0}, "
                f"y1={self.y1}, |P1|={len(self.region)}, |S|={len(self.event)}")
        return clip(f"BinaryReduction({body}", MAX_REPR - 1) + ")"

    def _repr_html_(self) -> str:
        return wrap(kv_table([
            ("pair (x, x')", str(self.pair)), ("epsilon = ln c", number(self.epsilon)),
            ("Q1 (R1 restricted, then 1[y in P1])", str(self.first.matrix.tolist())),
            ("Q2 (R2 at y0, y1, then 1[z in S])", str(self.second.matrix.tolist())),
            ("excess of R2 o R1 at c", str(self.excess)),
            ("excess of Q2 o Q1 at c", str(self.binary_excess))],
            "Huang & Canonne Lemma 4.5: binary reduction"))


def binary_reduction(first: Any, second: Any, pair: Any = (0, 1),
                     epsilon: float | None = None) -> BinaryReduction:
    r"""The reduction of Huang & Canonne's Lemma 4.5 (EFMRSTT20, Lemma A.1), exact.

    Statement. Let ``R1: X -> Y`` be ``(eps1, delta1)``-LDP and ``R2: Y -> Z``
    ``(eps2, delta2)``-LDP (finite, rows are inputs: ``R2 o R1`` has matrix ``Q1 @ Q2``).
    Conditions: none beyond these; the lemma holds for every level ``c = e^eps >= 0`` and both
    pure (``delta = 0``) and approximate LDP. If ``Q2 o Q1`` is ``(eps, delta)``-LDP for all
    binary ``(eps1, delta1)``-LDP ``Q1`` and ``(eps2, delta2)``-LDP ``Q2``, then ``R2 o R1`` is
    ``(eps, delta)``-LDP. Hence the worst composition of LDP randomizers is attained on binary
    ones, which gives Cor 4.1 (:func:`~mechdesign.accounting.sequential.sequential_epsilon`).

    Construction (the lemma's proof, for the pair ``(x, x')`` and the level c): with
    ``S`` the worst event of ``(R2 o R1)(x)`` against ``(R2 o R1)(x')`` at level c,
    ``g(y) = Pr[R2(y) in S]``, ``y_0 = argmin g``, ``y_1 = argmax g`` and
    ``P1 = {y : R1(x)[y] >= c R1(x')[y]}``,

    .. math:: \Pr[R_2 R_1(x) \in S] - c \Pr[R_2 R_1(x') \in S]
              = \sum_y g(y) \big(R_1(x)[y] - c R_1(x')[y]\big)
              \le g(y_0) \big(R_1(x)(P_1^c) - c R_1(x')(P_1^c)\big)
                + g(y_1) \big(R_1(x)(P_1) - c R_1(x')(P_1)\big),

    (the weights are ``>= 0`` on ``P1`` and ``<= 0`` off it), and the right side is
    ``Pr[Q2(Q1(0)) = 1] - c Pr[Q2(Q1(1)) = 1]`` for ``Q1(b) = 1[R1(x_b) in P1]`` and
    ``Q2(b) = 1[R2(y_b) in S]``. ``Q1`` is a post-processing of R1 on ``{x, x'}`` and ``Q2`` of
    R2 on ``{y_0, y_1}``, so each is at least as private as its original (every
    ``(eps, delta)`` guarantee carries over). The sets are taken non-strict (the seed's ``P1``
    is strict; both satisfy the inequality), so at the product's own largest ratio c the
    binary composition still has ratio ``>= c`` on output 1.

    Parameters
    ----------
    first, second : Mechanism or array_like
        ``R1`` (matrix ``Q1``) and ``R2`` (one row per output of R1). Read exactly.
    pair : (int, int)
        Rows ``(x, x')`` of R1.
    epsilon : float, optional
        The level ``c = e^epsilon`` (rounded down to a rational at 60 digits). Default: the
        largest likelihood ratio ``max_z (R2 o R1)(x)[z] / (R2 o R1)(x')[z]`` of the exact
        product (then ``excess = 0`` and ``ln c`` is the pair's exact pure epsilon; a pair
        with an infinite ratio needs an explicit epsilon).

    Returns
    -------
    BinaryReduction
        ``Q1``, ``Q2``, the sets and both excesses, exact.
    """
    m1 = as_mechanism(first, "first")
    m2 = as_mechanism(second, "second")
    if m2.n_inputs != m1.n_outputs:
        raise InvalidMechanismError(
            f"second has {m2.n_inputs} inputs but first has {m1.n_outputs} outputs")
    x, xp = check_pair(m1, pair)
    N1, D1 = dyadic_integers(m1.matrix[[x, xp]])
    N2, D2 = dyadic_integers(m2.matrix)
    r1 = [[Fraction(v, D1) for v in row] for row in N1]
    g_all = [[Fraction(v, D2) for v in row] for row in N2]
    ny, nz = m1.n_outputs, m2.n_outputs
    prod = [[sum((r1[i][y] * g_all[y][z] for y in range(ny)), Fraction(0)) for z in range(nz)]
            for i in range(2)]
    if epsilon is None:
        ratios = [prod[0][z] / prod[1][z] for z in range(nz) if prod[0][z] > 0
                  and prod[1][z] > 0]
        if any(prod[0][z] > 0 and prod[1][z] == 0 for z in range(nz)):
            raise InvalidParameterError(
                f"the pair {(x, xp)} has an infinite likelihood ratio in R2 o R1 (an output "
                "that x' never produces); pass a finite epsilon")
        c = max([Fraction(1), *ratios])
        eps = _ln_up(c)
    else:
        e = check_epsilon(epsilon)
        c = exp_bracket(e)[0]
        eps = e  # ln c <= e since c <= e^e
    S = frozenset(z for z in range(nz) if prod[0][z] > 0 and prod[0][z] >= c * prod[1][z])
    g = [sum((g_all[y][z] for z in S), Fraction(0)) for y in range(ny)]
    y0 = min(range(ny), key=lambda y: (g[y], y))
    y1 = max(range(ny), key=lambda y: (g[y], -y))
    P1 = frozenset(y for y in range(ny) if r1[0][y] > 0 and r1[0][y] >= c * r1[1][y])
    inside = [sum((r1[i][y] for y in P1), Fraction(0)) for i in range(2)]
    Q1 = tuple((sum(r1[i], Fraction(0)) - inside[i], inside[i]) for i in range(2))
    # the law of 1[R2(y_b) in S]: (R2(y_b)(Z - S), R2(y_b)(S)), both sums of stored entries
    Q2 = tuple((sum((g_all[y][z] for z in range(nz) if z not in S), Fraction(0)), g[y])
               for y in (y0, y1))
    excess = sum((prod[0][z] - c * prod[1][z] for z in S), Fraction(0))
    composed = [Q1[i][0] * Q2[0][1] + Q1[i][1] * Q2[1][1] for i in range(2)]
    binary_excess = composed[0] - c * composed[1]
    return BinaryReduction(
        first=_matrix(Q1, "Q1 (Lemma 4.5)"), second=_matrix(Q2, "Q2 (Lemma 4.5)"),
        first_exact=Q1, second_exact=Q2, pair=(x, xp), scale=c,
        epsilon=eps if math.isfinite(eps) else math.inf, region=P1, event=S, y0=y0, y1=y1,
        excess=excess, binary_excess=binary_excess)
