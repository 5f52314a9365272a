"""The test behind each trade-off point (:mod:`mechdesign.accounting.neyman_pearson`).

Every check is against an independent exact computation: the trade-off function of a pair
of rational distributions is the lower convex hull of the 2^m deterministic tests'
points ``(P(S), Q(Y - S))`` (every randomised test is a mixture of them), computed here with
Fractions; and no test does better than the returned one (a linear program over phi,
:func:`scipy.optimize.linprog`). For evidential pairs the Choquet forms of Li et al. 2022
(s.3.1) are recomputed from phi by brute force over the focal sets.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import mechdesign as md
from mechdesign.accounting import (
    MinimaxTest,
    NPTest,
    minimax_test,
    neyman_pearson_test,
    pessimistic_function,
    tradeoff_function,
    tradeoff_pessimistic,
)
from mechdesign.errors import InvalidMechanismError, InvalidParameterError
from tests.strategies import evidential_mechanisms

# ------------------------------------------------------------------ independent references


def hull_value(points: list[tuple[F, F]], a: F) -> F:
    """The lower convex envelope of ``points`` at ``a``, exact: the minimum over pairs of
    points bracketing ``a`` of the chord's value (a point at ``a`` itself counts)."""
    best = None
    for (a0, b0), (a1, b1) in itertools.product(points, repeat=2):
        if a0 <= a <= a1:
            v = b0 if a1 == a0 else b0 + (b1 - b0) * (a - a0) / (a1 - a0)
            best = v if best is None else min(best, v)
    assert best is not None
    return best


def exact_tradeoff(P: list[F], Q: list[F], a: F) -> F:
    """``T(P, Q)(a)`` from the deterministic tests: points ``(P(S), Q(Y - S))``."""
    m = len(P)
    pts = [(sum((P[y] for y in range(m) if S >> y & 1), F(0)),
            sum((Q[y] for y in range(m) if not S >> y & 1), F(0))) for S in range(1 << m)]
    return hull_value(pts, a)


def lp_best_beta(P: np.ndarray, Q: np.ndarray, a: float) -> float:
    """min ``E_Q[1 - phi]`` subject to ``E_P[phi] <= a``, ``0 <= phi <= 1`` (HiGHS)."""
    res = linprog(-Q, A_ub=P[None, :], b_ub=[a], bounds=(0.0, 1.0), method="highs")
    assert res.status == 0
    return float(Q.sum() + res.fun)


rational = st.integers(0, 6)


@st.composite
def rational_pairs(draw):
    """Two rational distributions on 2..5 outputs (zeros frequent) and a rational level."""
    m = draw(st.integers(2, 5))
    out = []
    for _ in range(2):
        w = draw(st.lists(rational, min_size=m, max_size=m))
        if sum(w) == 0:
            w[0] = 1
        out.append([F(v, sum(w)) for v in w])
    a = F(draw(st.integers(0, 24)), 24)
    return out[0], out[1], a


# ------------------------------------------------------------------ Neyman-Pearson


def test_randomized_response_worked_example():
    # RR with e^eps = 3: P = (3/4, 1/4), Q = (1/4, 3/4). Output 1 has ratio Q/P = 3, output 0
    # has 1/3. At level 1/8 < P(1) = 1/4 the test rejects output 1 with probability
    # gamma = (1/8)/(1/4) = 1/2; power 3/4 * 1/2 = 3/8, beta = 5/8 = f_eps(1/8) = 1 - 3/8.
    t = neyman_pearson_test([F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)], F(1, 8))
    assert t.phi_exact == (F(0), F(1, 2))
    assert (t.alpha_exact, t.beta_exact, t.threshold_exact, t.gamma_exact) == (
        F(1, 8), F(5, 8), F(3), F(1, 2))
    assert t.beta == pytest.approx(float(md.accounting.tradeoff_dp(math.log(3), 0.125)),
                                   rel=1e-15)
    assert not t.phi.flags.writeable
    assert isinstance(t, NPTest) and len(repr(t)) <= 200 and "<table" in t._repr_html_()


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
@settings(max_examples=150, deadline=None)
@given(rational_pairs())
def test_np_test_is_exact_and_most_powerful(case):
    P, Q, a = case
    t = neyman_pearson_test(P, Q, a)
    # type I error is exactly the level (the rows sum to exactly 1 here)
    assert t.alpha_exact == a
    assert sum((p * f for p, f in zip(P, t.phi_exact, strict=True)), F(0)) == a
    # type II error is exactly the trade-off function at a (independent hull)
    assert t.beta_exact == exact_tradeoff(P, Q, a)
    assert t.beta_exact == sum((q * (1 - f) for q, f in zip(Q, t.phi_exact, strict=True)),
                               F(0))
    # Neyman-Pearson form: 1 above the threshold, 0 below, gamma on it
    for p, q, f in zip(P, Q, t.phi_exact, strict=True):
        assert 0 <= f <= 1
        if p > 0:
            assert f == (1 if q > t.threshold_exact * p else
                         t.gamma_exact if q == t.threshold_exact * p else 0)
        else:
            assert f == (1 if q > 0 else 0)
    # the float curve of tradeoff.py agrees
    Pf, Qf = np.array([float(v) for v in P]), np.array([float(v) for v in Q])
    assert t.beta == pytest.approx(float(tradeoff_function(Pf, Qf)(float(a))), abs=1e-14)
    # and no test at level a does better (LP over phi)
    assert lp_best_beta(Pf, Qf, float(a)) >= t.beta - 1e-9


def test_alpha_zero_rejects_the_outputs_h0_never_produces():
    # P(2) = 0 < Q(2): rejecting output 2 costs no type I error, so even at level 0 it is
    # rejected; beta = 1 - Q(2) = 1/2.
    t = neyman_pearson_test([F(1, 2), F(1, 2), F(0)], [F(1, 4), F(1, 4), F(1, 2)], 0)
    assert t.phi_exact == (F(0), F(0), F(1)) and t.beta_exact == F(1, 2)


def test_level_beyond_zero_beta_is_still_attained_exactly():
    # Q is supported on output 0, where P has 1/3: beta = 0 from alpha = 1/3 on. At level 1/2
    # the test adds rejection on output 1 (ratio 0) with probability 1/4 to spend the level.
    t = neyman_pearson_test([F(1, 3), F(2, 3)], [F(1), F(0)], F(1, 2))
    assert (t.alpha_exact, t.beta_exact) == (F(1, 2), F(0))
    assert t.phi_exact == (F(1), F(1, 4)) and t.threshold_exact == 0


def test_float_rows_are_read_exactly():
    # 0.1 is not 1/10: the test is exact for the stored doubles
    t = neyman_pearson_test([0.9, 0.1], [0.1, 0.9], 0.05)
    assert t.alpha_exact == F(0.05)
    # gamma = F(0.05) / F(0.1) = 1/2 exactly (0.05 is 0.1 / 2 as doubles); the type II error
    # is E_Q[1 - phi] = Q(0) + Q(1) (1 - gamma) in the stored values
    assert t.gamma_exact == F(1, 2)
    assert t.beta_exact == F(0.1) + F(0.9) / 2
    assert t.beta == pytest.approx(float(tradeoff_function([0.9, 0.1], [0.1, 0.9])(0.05)),
                                   rel=1e-15)


@pytest.mark.parametrize(("P", "Q", "alpha", "error", "match"), [
    ([0.5, 0.5], [1.0], 0.1, InvalidParameterError, "same length"),
    ([0.5, 0.5], [0.5, 0.5], 1.5, InvalidParameterError, "1.5"),
    ([0.5, 0.5], [0.5, 0.5], math.nan, InvalidParameterError, "nan"),
    ("ab", [0.5, 0.5], 0.1, InvalidParameterError, "'ab'"),
    # distributions are checked as tradeoff_function checks them (a row of a mechanism)
    ([1.5, -0.5], [0.5, 0.5], 0.1, InvalidMechanismError, "-0.5"),
    ([0.5, 0.6], [0.5, 0.5], 0.1, InvalidMechanismError, "P"),
])
def test_bad_input(P, Q, alpha, error, match):
    with pytest.raises(error, match=match):
        neyman_pearson_test(P, Q, alpha)


# ------------------------------------------------------------------ minimax (belief)


def choquet(ev: md.EvidentialMechanism, x: int, phi: tuple[F, ...]) -> tuple[F, F]:
    """``(sup_{P_x} E phi, sup_{P_x} E (1 - phi))`` by the Choquet sums (brute force)."""
    idx = {y: j for j, y in enumerate(ev.outputs)}
    up = sum((F(float(ev.masses[x, j])) * max(phi[idx[y]] for y in B)
              for j, B in enumerate(ev.focal_sets)), F(0))
    down = sum((F(float(ev.masses[x, j])) * max(1 - phi[idx[y]] for y in B)
                for j, B in enumerate(ev.focal_sets)), F(0))
    return up, down


def test_minimax_test_of_dont_know_is_warner_np():
    # Q_2x3(5/8, 1/8) (dyadic, stored exactly): T^pe = f_{ln(p/(1-p))} = f_{ln(5/3)}
    # (Li et al. 2022; docs/belief_functions.md s.3). At alpha = 1/8:
    # max(1 - 5/3 * 1/8, 3/5 (1 - 1/8)) = max(19/24, 21/40) = 19/24.
    dk = md.dont_know(0.625, 0.125)
    t = minimax_test(dk, F(1, 8))
    assert (t.alpha_exact, t.beta_exact) == (F(1, 8), F(19, 24))
    assert choquet(dk, 0, t.phi_exact)[0] == F(1, 8)
    assert choquet(dk, 1, t.phi_exact)[1] == F(19, 24)
    # it rejects on "No" only: the lower event is empty, "No" gets weight
    # alpha / pl_P({No}) = (1/8) / (1/8 + 1/4) = 1/3
    assert t.lower_event == frozenset() and t.upper_event == frozenset({"No"})
    assert t.weight_exact == F(1, 3)
    assert isinstance(t, MinimaxTest) and len(repr(t)) <= 200 and "<table" in t._repr_html_()


@settings(max_examples=80, deadline=None)
@given(ev=evidential_mechanisms(rows=(2, 2), outputs=(2, 4)),
       a=st.integers(0, 16), same=st.booleans())
def test_minimax_test_attains_the_pessimistic_curve(ev, a, same):
    pair = (0, 0) if same else (0, 1)
    alpha = F(a, 16)
    t = minimax_test(ev, alpha, pair)
    total = sum((F(float(v)) for v in ev.masses[0]), F(0))
    # the level is spent exactly (or the whole row mass, if that is smaller)
    assert t.alpha_exact == min(alpha, total)
    up, _ = choquet(ev, pair[0], t.phi_exact)
    _, down = choquet(ev, pair[1], t.phi_exact)
    assert up == t.alpha_exact and down == t.beta_exact
    assert t.lower_event <= t.upper_event and all(0 <= f <= 1 for f in t.phi_exact)
    # beta is T^pe(alpha) (exact hull of the event points of belief_tradeoff) ...
    assert t.beta == pytest.approx(float(pessimistic_function(ev, pair)(float(alpha))),
                                   abs=1e-12)
    # ... and no test with sup E_x phi <= alpha has a smaller beta^pe (Choquet LP)
    lp = float(tradeoff_pessimistic(ev, float(alpha), pair, method="lp"))
    assert lp >= t.beta - 1e-8


def test_minimax_bad_input():
    dk = md.dont_know(0.6, 0.2)
    with pytest.raises(InvalidParameterError, match="2"):
        minimax_test(dk, 0.1, (0, 2))
    with pytest.raises(InvalidParameterError, match=r"-0\.1"):
        minimax_test(dk, -0.1)
