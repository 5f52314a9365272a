"""Huang & Canonne's Lemma 4.5 as a reduction (:mod:`mechdesign.accounting._binary_reduction`),
checked against the exact sequential composition ``Q1 @ Q2`` in rational arithmetic.

For each pair of random small randomizers (rational entries on a grid, so the doubles are
exact or read exactly) and each ordered pair of inputs:

1. ``excess`` is the hockey-stick divergence of the exact product at the level c, computed
   here independently (sum of positive parts over all outputs);
2. the lemma's inequality ``binary_excess >= excess``;
3. the binary randomizers are at least as private as the originals: every likelihood ratio
   and every hockey-stick divergence of Q1 (Q2) is at most the largest of R1 on the pair
   (of R2);
4. with the default level (the pair's largest ratio in the product), the binary composition
   has ratio ``>= c``, so ``eps(R2 o R1) <= eps(Q2 o Q1) <= Cor 4.1(eps(Q1), eps(Q2))``.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.accounting._binary_reduction import BinaryReduction, binary_reduction
from mechdesign.accounting.sequential import sequential_composition, sequential_epsilon
from mechdesign.errors import InvalidMechanismError, InvalidParameterError


def exact(M: np.ndarray) -> list[list[F]]:
    return [[F(float(v)) for v in row] for row in M]


def matmul(A: list[list[F]], B: list[list[F]]) -> list[list[F]]:
    return [[sum((A[i][j] * B[j][k] for j in range(len(B))), F(0)) for k in range(len(B[0]))]
            for i in range(len(A))]


def hockey(P: list[F], Q: list[F], c: F) -> F:
    """``H_c(P || Q) = sum_y max(0, P[y] - c Q[y])``."""
    return sum((max(F(0), p - c * q) for p, q in zip(P, Q, strict=True)), F(0))


def max_ratio(P: list[F], Q: list[F]) -> F | None:
    """``max_y P[y] / Q[y]`` over ``P[y] > 0`` (None: infinite)."""
    best = F(0)
    for p, q in zip(P, Q, strict=True):
        if p > 0:
            if q == 0:
                return None
            best = max(best, p / q)
    return best


def pair_max(M: list[list[F]], rows: list[int]) -> F | None:
    vals = [max_ratio(M[a], M[b]) for a, b in itertools.permutations(rows, 2)]
    return None if None in vals else max(vals, default=F(1))


@st.composite
def grid_matrix(draw, rows: int, cols: int, positive: bool = False) -> np.ndarray:
    """A row-stochastic matrix with entries j/8 (dyadic: the doubles are exact)."""
    out = []
    for _ in range(rows):
        w = draw(st.lists(st.integers(1 if positive else 0, 8), min_size=cols, max_size=cols))
        if sum(w) == 0:
            w[0] = 1
        out.append([F(v, sum(w)) for v in w])
    return np.array([[float(v) for v in row] for row in out])


@st.composite
def chains(draw, positive: bool = False):
    k, n, m = draw(st.integers(2, 4)), draw(st.integers(2, 4)), draw(st.integers(2, 4))
    return draw(grid_matrix(k, n, positive)), draw(grid_matrix(n, m, positive))


def test_worked_example_two_binary_rr():
    # R1 = RR(ln 3), R2 = RR(ln 3) (already binary). Product (3/4 * 3/4 + 1/4 * 1/4 = 5/8,
    # 3/8): ratio 5/3 = (e^{a+b} + 1)/(e^a + e^b) = 10/6, Cor 4.1 with equality. The reduction
    # at that level returns R1 and R2 themselves (P1 = {0}, S = {0}) with zero excess.
    rr = [[0.75, 0.25], [0.25, 0.75]]
    r = binary_reduction(rr, rr)
    assert r.scale == F(5, 3) and r.excess == 0 and r.binary_excess == 0
    assert r.composed_exact == ((F(3, 8), F(5, 8)), (F(5, 8), F(3, 8))) or \
        r.composed_exact == ((F(5, 8), F(3, 8)), (F(3, 8), F(5, 8)))
    assert r.epsilon == pytest.approx(math.log(5 / 3), rel=1e-15)
    assert r.epsilon == pytest.approx(sequential_epsilon(math.log(3), math.log(3)), rel=1e-15)
    assert isinstance(r, BinaryReduction) and len(repr(r)) <= 200
    assert "<table" in r._repr_html_() and r.holds


@settings(max_examples=120, deadline=None)
@given(chain=chains(), level=st.sampled_from([None, 0.0, 0.1, 0.5, 1.0, 2.0]),
       order=st.booleans())
def test_lemma_4_5_against_the_exact_product(chain, level, order):
    Q1, Q2 = chain
    pair = (0, 1) if order else (1, 0)
    R1, R2 = exact(Q1), exact(Q2)
    prod = matmul(R1, R2)
    x, xp = pair
    if level is None and max_ratio(prod[x], prod[xp]) is None:
        with pytest.raises(InvalidParameterError, match="infinite"):
            binary_reduction(Q1, Q2, pair)
        return
    r = binary_reduction(Q1, Q2, pair, level)
    c = r.scale
    if level is None:
        assert c == max(F(1), max_ratio(prod[x], prod[xp]))
    else:
        assert c <= F(math.exp(level)) * (1 + F(1, 10**12)) and (level > 0) == (c > 1)
    # 1. the excess is the hockey-stick divergence of the exact product at c
    assert r.excess == hockey(prod[x], prod[xp], c)
    # 2. Lemma 4.5's inequality
    assert r.binary_excess >= r.excess and r.holds
    # 3. Q1 and Q2 are post-processings: no ratio, no divergence above the originals'
    B1, B2 = [list(row) for row in r.first_exact], [list(row) for row in r.second_exact]
    orig1 = pair_max(R1, [x, xp])
    orig2 = pair_max(R2, list(range(len(R2))))
    for B, orig in ((B1, orig1), (B2, orig2)):
        got = pair_max(B, [0, 1])
        assert orig is None or (got is not None and got <= orig)
    for t in (F(1), F(3, 2), F(3)):
        assert max(hockey(B1[0], B1[1], t), hockey(B1[1], B1[0], t)) <= max(
            hockey(R1[x], R1[xp], t), hockey(R1[xp], R1[x], t))
        assert max(hockey(B2[0], B2[1], t), hockey(B2[1], B2[0], t)) <= max(
            hockey(R2[a], R2[b], t) for a, b in itertools.permutations(range(len(R2)), 2))
    # 4. at the pair's own largest ratio the binary composition is at least as leaky
    if level is None and r.event:
        C = [list(row) for row in r.composed_exact]
        assert C[0][1] >= c * C[1][1] and C[0][1] > 0


@settings(max_examples=60, deadline=None)
@given(chain=chains(positive=True))
def test_cor_4_1_chain(chain):
    """eps(R2 o R1) on the pair <= eps(Q2 o Q1) <= Cor 4.1(eps(Q1), eps(Q2))
    <= Cor 4.1(eps(R1), eps(R2)); the last is sequential_composition's bound, and its exact
    epsilon (all pairs) is at least the pair's."""
    Q1, Q2 = chain
    r = binary_reduction(Q1, Q2, (0, 1))
    binary = md.epsilon_ldp(r.first.then(r.second))
    e1, e2 = md.epsilon_ldp(r.first), md.epsilon_ldp(r.second)
    tol = 1e-12
    assert r.epsilon <= binary + tol
    assert binary <= sequential_epsilon(e1, e2) + tol
    s = sequential_composition(Q1, Q2)
    assert sequential_epsilon(e1, e2) <= s.bound + tol
    assert r.epsilon <= s.epsilon + tol


def test_bad_input():
    rr = [[0.75, 0.25], [0.25, 0.75]]
    with pytest.raises(InvalidMechanismError, match="3 inputs"):
        binary_reduction(rr, [[1.0], [1.0], [1.0]])
    with pytest.raises(InvalidParameterError, match="2"):
        binary_reduction(rr, rr, (0, 2))
    with pytest.raises(InvalidParameterError, match="infinite"):
        binary_reduction([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(InvalidParameterError, match="-1"):
        binary_reduction(rr, rr, epsilon=-1.0)
