"""The three trade-offs of Q_2x3(p, q), the Fig. 5 rectangle and the Q_lambda path
(mechdesign.estimation.dont_know; docs/belief_functions.md s.4)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.estimation.dont_know import (
    Rectangle,
    dont_know_analysis,
    dont_know_from_c_eps,
    epsilon_q_lambda,
    shafer_variance_curve,
)
from mechdesign.estimation.variances import (
    binomial_inverse_moment,
    variance_dont_know,
    variance_q_lambda,
    variance_warner,
)


def test_sanity_example_p06_q02():
    # docs/belief_functions.md s.4: p = .6, q = .2: r_S = r_bel,S = 3, r_pl,S = 2, r_W = 4,
    # eps^O = ln 1.5
    a = dont_know_analysis(0.6, 0.2, pi=0.3, n=100)
    assert a.epsilon_shafer == pytest.approx(math.log(3), abs=1e-15)
    assert a.epsilon_walley == pytest.approx(math.log(4), abs=1e-15)
    assert a.epsilon_optimal == pytest.approx(math.log(1.5), abs=1e-15)
    dk = md.dont_know(0.6, 0.2)
    assert md.epsilon_sldp(dk, "bel") == pytest.approx(math.log(3), abs=1e-15)
    assert md.epsilon_sldp(dk, "pl") == pytest.approx(math.log(2), abs=1e-15)
    # nu^W = [-(.3-.5)^2 + 1/(4 (.2)^2)] / 100 = (6.25 - .04)/100
    assert a.variance_walley == pytest.approx(0.0621, rel=1e-13)
    # nu^O = [-(.04) + 1/(4 (.6)^2)] / 100 = (25/36 - .04)/100
    assert a.variance_optimal == pytest.approx((25 / 36 - 0.04) / 100, rel=1e-13)
    # nu^S = [-(.04) + .64/(4 * .16)] * A(100, .8) = .96 A
    assert a.variance_shafer == pytest.approx(0.96 * binomial_inverse_moment(100, 0.8),
                                              rel=1e-14)
    assert a.inverse_moment == binomial_inverse_moment(100, 0.8)


def test_rectangle_and_path_endpoints():
    a = dont_know_analysis(0.6, 0.2, pi=0.3, n=100, lambdas=11)
    r = a.rectangle
    assert (r.epsilon_low, r.epsilon_high) == (a.epsilon_optimal, a.epsilon_walley)
    assert (r.variance_low, r.variance_high) == (a.variance_optimal, a.variance_walley)
    # lambda = 0 at (eps^O, nu^W), lambda = 1 at (eps^W, nu^O)
    assert a.epsilon_lambda[0] == pytest.approx(a.epsilon_optimal, rel=1e-14)
    assert a.variance_lambda[0] == pytest.approx(a.variance_walley, rel=1e-14)
    assert a.epsilon_lambda[-1] == pytest.approx(a.epsilon_walley, rel=1e-14)
    assert a.variance_lambda[-1] == pytest.approx(a.variance_optimal, rel=1e-14)
    # each path point is the LDP epsilon of the catalog's Q_lambda
    for lam, eps in zip(a.lambdas, a.epsilon_lambda, strict=True):
        assert eps == pytest.approx(md.epsilon_ldp(md.q_lambda(0.6, 0.2, lam)), rel=1e-13)
    assert not a.lambdas.flags.writeable
    assert a == dont_know_analysis(0.6, 0.2, pi=0.3, n=100, lambdas=11)
    assert a != dont_know_analysis(0.6, 0.2, pi=0.3, n=100, lambdas=12)


@settings(max_examples=80, deadline=None)
@given(p=st.floats(0.51, 0.99), t=st.floats(0.01, 0.99), pi=st.floats(0, 1),
       n=st.integers(1, 10_000))
def test_every_q_lambda_lies_in_the_rectangle(p, t, pi, n):
    q = t * (1 - p)
    a = dont_know_analysis(p, q, pi, n, lambdas=41)
    assert a.rectangle.contains(a.epsilon_lambda, a.variance_lambda).all()
    # the path is monotone: more "don't know" mass to the truth, more loss, less error
    assert (np.diff(a.epsilon_lambda) > 0).all()
    assert (np.diff(a.variance_lambda) < 0).all()
    # the Shafer loss lies between the two (q <= 1 - p)
    assert a.epsilon_optimal <= a.epsilon_shafer <= a.epsilon_walley


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
@settings(max_examples=80, deadline=None)
@given(p2=st.floats(0.51, 0.99), a=st.floats(0, 1), b=st.floats(0, 1), c=st.floats(0, 1),
       pi=st.floats(0, 1), n=st.integers(1, 1000))
@example(p2=0.8828125, a=0.0, b=0.6317827212094257, c=1.0, pi=0.0, n=1)  # CI: 1 ulp
def test_corollary_4_8_walley_order(p2, a, b, c, pi, n):
    # p >= p', q >= q'  =>  eps^W(p, q) <= eps^W(p', q')  and  nu^W(p, q) <= nu^W(p', q')
    p1 = 0.51 + a * (p2 - 0.51)           # p' <= p
    q2 = b * (1 - p2)                      # q with p + q <= 1
    q1 = c * q2                            # q' <= q (and p' + q' <= 1)
    big = dont_know_analysis(p2, q2, pi, n, lambdas=2)
    small = dont_know_analysis(p1, q1, pi, n, lambdas=2)
    # equal in exact arithmetic when only p differs and the Walley event is the same: an ulp
    assert big.epsilon_walley <= small.epsilon_walley * (1 + 1e-15)
    assert big.variance_walley <= small.variance_walley * (1 + 1e-13)


def test_q_equal_zero_is_non_private_but_estimable():
    a = dont_know_analysis(0.7, 0.0, 0.3, 50)
    assert a.epsilon_shafer == math.inf and a.epsilon_walley == math.inf
    assert math.isfinite(a.variance_shafer) and math.isfinite(a.variance_optimal)
    b = dont_know_analysis(1.0, 0.0, 0.3, 50)  # truthful: Var = pi (1 - pi) / n
    assert b.variance_walley == pytest.approx(0.3 * 0.7 / 50, rel=1e-13)


def test_from_c_eps_inverts_the_parametrisation():
    # docs/belief_functions.md s.4 and correction 3: p = c/(1 + e^-eps), q = c/(1 + e^eps)
    for c in (1.0, 0.9, 0.5, 0.1):
        for eps in (0.1, 1.0, 4.0, 30.0):
            p, q = dont_know_from_c_eps(c, eps)
            assert p + q == pytest.approx(c, rel=1e-15)
            assert math.log(p) - math.log(q) == pytest.approx(eps, rel=1e-13)
            # (p + q)/(p - q) = coth(eps/2)
            assert (p + q) / (p - q) == pytest.approx(1 / math.tanh(eps / 2), rel=1e-12)
    assert dont_know_from_c_eps(0.8, math.inf) == (0.8, 0.0)
    p, q = dont_know_from_c_eps(0.7, np.array([0.5, 1.0]))
    assert p.shape == q.shape == (2,)


@settings(max_examples=60, deadline=None)
@given(c=st.floats(0.05, 1.0), eps=st.floats(0.05, 6.0), pi=st.floats(0, 1),
       n=st.integers(1, 5000))
def test_shafer_curve_is_warner_scaled_and_never_below_warner(c, eps, pi, n):
    # nu^S(eps; c) = Warner's curve times n A(n, c) >= 1 (Jensen: A >= 1/n); Fig. 2
    w = variance_warner(1 / (1 + math.exp(-eps)), pi, n)
    s = shafer_variance_curve(c, eps, pi, n)
    assert s == pytest.approx(w * n * binomial_inverse_moment(n, c), rel=1e-10)
    assert s >= w * (1 - 1e-12)


def test_epsilon_q_lambda_infinite_when_lie_mass_vanishes():
    assert epsilon_q_lambda(0.6, 0.0, 1.0) == math.inf
    assert epsilon_q_lambda(0.6, 0.2, 0.5) == pytest.approx(math.log(0.7 / 0.3), rel=1e-14)


def test_as_dict_is_json_ready():
    d = dont_know_analysis(0.6, 0.2, 0.3, 100, lambdas=[0.0, 0.5, 1.0]).as_dict()
    back = json.loads(json.dumps(d))
    assert back["epsilon_walley"] == pytest.approx(math.log(4))
    assert back["rectangle"]["variance_high"] == pytest.approx(0.0621)
    assert back["lambdas"] == [0.0, 0.5, 1.0]


@pytest.mark.parametrize(("kwargs", "needle"), [
    ({"p": 0.2, "q": 0.2}, "p = 0.2, q = 0.2"),     # p = q: no information
    ({"p": 0.1, "q": 0.3}, "p = 0.1, q = 0.3"),     # p < q: inverted
    ({"p": 0.0, "q": 0.0}, "p = 0.0, q = 0.0"),
    ({"p": math.nan, "q": 0.1}, "nan"),
    ({"p": 0.4, "q": math.nan}, "nan"),
    ({"p": -0.1, "q": 0.0}, "-0.1"),
    ({"p": 0.4, "q": -0.1}, "-0.1"),
    ({"p": 0.7, "q": 0.4}, "1.1"),
    ({"p": 0.7, "q": 0.2, "pi": 1.5}, "1.5"),
    ({"p": 0.7, "q": 0.2, "n": 0}, "0"),
    ({"p": 0.7, "q": 0.2, "lambdas": 1}, "1"),
    ({"p": 0.7, "q": 0.2, "lambdas": [0.5, 1.2]}, "1.2"),
])
def test_dont_know_analysis_bad_input(kwargs, needle):
    args = {"pi": 0.3, "n": 10, **kwargs}
    with pytest.raises(InvalidParameterError) as info:
        dont_know_analysis(**args)
    assert needle in str(info.value)


@pytest.mark.parametrize(("call", "needle"), [
    (lambda: dont_know_from_c_eps(0.0, 1.0), "c"),
    (lambda: dont_know_from_c_eps(0.5, -1.0), "-1.0"),
])
def test_from_c_eps_bad_input(call, needle):
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert needle in str(info.value)


# ----------------------------------------------------------- p <= 1/2 (accepted, not refused)
# Shafer's reading of Q_2x3(p, q) needs only p > q; the Walley and optimal readings are the
# worst and the best completion Q_lambda, and at p <= 1/2 one completion is uninformative:
# D_lambda = 2p - 1 + 2 lambda d vanishes at lambda* = (1 - 2p)/(2d), d = 1 - p - q.

BELOW_HALF = [(0.4, 0.1), (0.5, 0.2), (0.5, 0.0), (0.3, 0.2999999), (0.45, 0.0), (0.2, 0.1),
              (0.01, 0.005), (0.5 - 1e-12, 0.1)]


@pytest.mark.parametrize(("p", "q"), BELOW_HALF)
@pytest.mark.parametrize(("pi", "n"), [(0.3, 1), (0.0, 7), (0.5, 100), (0.9, 10_000)])
def test_below_half_shafer_values_are_variance_dont_know(p, q, pi, n):
    a = dont_know_analysis(p, q, pi, n, lambdas=11)
    # Shafer: eps^S = ln(p/q), nu^S = Thm 3.10 (exact A), exactly variance_dont_know's value
    assert a.epsilon_shafer == pytest.approx(math.log(p / q) if q else math.inf, rel=1e-12)
    assert a.variance_shafer == variance_dont_know(p, q, pi, n, exact=True)
    assert math.isfinite(a.variance_shafer)
    # > 0, except q = 0 with pi in {0, 1}: every Yes/No answer is truthful, pi_hat = pi
    assert a.variance_shafer > 0 if q > 0 or 0 < pi < 1 else a.variance_shafer >= -1e-15
    approx = dont_know_analysis(p, q, pi, n, exact=False, lambdas=2)
    assert approx.variance_shafer == pytest.approx(variance_dont_know(p, q, pi, n, exact=False),
                                                   rel=0, nan_ok=True)
    # Walley: eps^W = ln((1-q)/q) still holds; its variance (worst completion) is inf
    assert a.epsilon_walley == pytest.approx(math.log((1 - q) / q) if q else math.inf,
                                             rel=1e-12)
    assert a.walley_degenerate and a.variance_walley == math.inf
    # optimal: nu^O = nu(Q_1) still holds; its epsilon (best completion) is 0
    assert a.optimal_degenerate and a.epsilon_optimal == 0.0
    assert a.variance_optimal == variance_warner(1 - q, pi, n)
    lam_star = (1 - 2 * p) / (2 * (1 - p - q))
    assert a.lambda_uninformative == pytest.approx(lam_star, rel=1e-15, abs=1e-15)
    assert 0 <= a.lambda_uninformative < 1
    assert "degenerate at p <= 1/2" in a.note and repr(p) in a.note
    d = a.as_dict()
    assert d["walley_degenerate"] is d["optimal_degenerate"] is True
    assert d["note"] == a.note
    assert a.rectangle.contains(a.epsilon_lambda, a.variance_lambda).all()


def test_p04_q01_by_hand():
    # Worked example: Q_2x3(0.4, 0.1), half the answers "don't know" (c = p + q = 1/2).
    # Thm 3.10 (docs/belief_functions.md s.4, correction 1):
    #   nu^S = [-(pi - 1/2)^2 + (p+q)^2/(4 (p-q)^2)] * A,  A = E[1/M | M > 0], M ~ Bin(n, c).
    #   (p+q)^2/(4 (p-q)^2) = (1/4)/(4 * 9/100) = 25/36; at pi = 3/10 the bracket is
    #   25/36 - 1/25 = 589/900.
    #   n = 1: M = 1 surely given M > 0, A = 1, nu^S = 589/900.
    #   n = 2: P(M=1) = 1/2, P(M=2) = 1/4, P(M>0) = 3/4, A = (1/2 + 1/8)/(3/4) = 5/6,
    #          nu^S = 589/900 * 5/6 = 589/1080.
    bracket = Fraction(25, 36) - Fraction(1, 25)
    assert bracket == Fraction(589, 900)
    for n, A in ((1, Fraction(1)), (2, Fraction(5, 6))):
        a = dont_know_analysis(0.4, 0.1, 0.3, n)
        assert a.inverse_moment == pytest.approx(float(A), rel=1e-15)
        assert a.variance_shafer == pytest.approx(float(bracket * A), rel=1e-14)
    a = dont_know_analysis(0.4, 0.1, 0.3, 100, lambdas=[0.0, 0.2, 1.0])
    # eps^S = ln(0.4/0.1) = ln 4; eps^W = ln(0.9/0.1) = ln 9 (pl_P(Yes) = 1 - q over
    # bel_notP(Yes) = q, Li et al. Lemma 3.14)
    assert a.epsilon_shafer == pytest.approx(math.log(4), rel=1e-14)
    assert a.epsilon_walley == pytest.approx(math.log(9), rel=1e-14)
    # nu^O = nu(Q_1) = [-(0.04) + 1/(4 (1 - 2q)^2)]/n = (1/2.56 - 0.04)/100 = 0.350625/100
    assert a.variance_optimal == pytest.approx(0.00350625, rel=1e-13)
    # lambda* = (1 - 2p)/(2d) = 0.2/1.0 = 0.2: Q_0.2 = [[1/2, 1/2], [1/2, 1/2]]
    assert a.lambda_uninformative == pytest.approx(0.2, rel=1e-14)
    assert np.allclose(md.q_lambda(0.4, 0.1, 0.2).matrix, 0.5, rtol=0, atol=1e-15)
    assert (a.variance_walley, a.epsilon_optimal) == (math.inf, 0.0)
    # the path: at lambda = 0, Q_0 = warner(0.4) flips the answers: LDP epsilon
    # |ln(0.4/0.6)| = ln 1.5 and Eq. (1) (-(0.04) + 1/(4 * 0.04))/100 = 6.21/100;
    # at lambda* the loss is 0 and the variance explodes; at lambda = 1, (ln 9, nu^O)
    assert a.epsilon_lambda[0] == pytest.approx(math.log(1.5), rel=1e-14)
    assert a.variance_lambda[0] == pytest.approx(0.0621, rel=1e-13)
    assert a.epsilon_lambda[1] < 1e-14 and a.variance_lambda[1] > 1e25
    assert a.epsilon_lambda[2] == pytest.approx(math.log(9), rel=1e-14)
    assert a.variance_lambda[2] == pytest.approx(a.variance_optimal, rel=1e-14)
    assert "ln(p/(1-p))| = 0.405465" in a.note and "0.0621" in a.note


def test_p_exactly_half_by_hand():
    # p = 1/2, q = 0.2: Q_0 = warner(1/2) is itself the uninformative completion
    # (lambda* = (1 - 2p)/(2d) = 0): Eq. (1) has 1/(2p - 1)^2 = inf and eps(Q_0) = ln 1 = 0.
    # Shafer: c = 0.7, (p+q)^2/(4 (p-q)^2) = 0.49/0.36 = 49/36; at pi = 1/2 the bracket is
    # 49/36. n = 2: P(M=1) = 2(0.7)(0.3) = 0.42, P(M=2) = 0.49, A = (0.42 + 0.245)/0.91
    # = 19/26, so nu^S = 49/36 * 19/26 = 931/936.
    a = dont_know_analysis(0.5, 0.2, 0.5, 2, lambdas=5)
    assert a.variance_shafer == pytest.approx(931 / 936, rel=1e-14)
    assert a.variance_shafer == variance_dont_know(0.5, 0.2, 0.5, 2)
    assert a.epsilon_shafer == pytest.approx(math.log(2.5), rel=1e-14)
    assert a.lambda_uninformative == 0.0
    assert a.variance_walley == math.inf == variance_warner(0.5, 0.5, 2)
    assert a.epsilon_optimal == 0.0 == md.epsilon_ldp(md.warner(0.5))
    assert a.walley_degenerate and a.optimal_degenerate
    assert "warner(1/2)" in a.note
    # nu^O = nu(Q_1) = [0 + 1/(4 * 0.6^2)]/2 = 25/72
    assert a.variance_optimal == pytest.approx(25 / 72, rel=1e-14)


def test_p_just_above_q_and_just_above_half():
    # p = q + 1e-9: almost no information; Thm 3.10's bracket ~ (2q)^2/(4e-18) = q^2 * 1e18
    p, q = 0.3 + 1e-9, 0.3
    a = dont_know_analysis(p, q, 0.3, 50)
    assert a.variance_shafer == variance_dont_know(p, q, 0.3, 50)
    assert 1e15 < a.variance_shafer < math.inf
    assert a.epsilon_shafer == pytest.approx(math.log1p(1e-9 / 0.3), rel=1e-6)
    assert a.walley_degenerate
    # just above 1/2 nothing is degenerate: the paper's Q_0 corner, with a huge variance
    b = dont_know_analysis(0.5 + 1e-9, 0.2, 0.3, 50)
    assert not b.walley_degenerate and not b.optimal_degenerate and b.note == ""
    assert math.isnan(b.lambda_uninformative)
    assert b.variance_walley == variance_warner(0.5 + 1e-9, 0.3, 50) > 1e15
    assert b.epsilon_optimal == pytest.approx(math.log((0.5 + 1e-9) / (0.5 - 1e-9)), rel=1e-6)


@st.composite
def _p_above_q(draw):
    q = draw(st.floats(0.0, 0.4999))
    t = draw(st.floats(1e-6, 1.0))
    return q + t * (1 - 2 * q), q   # q < p <= 1 - q


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
@settings(max_examples=150, deadline=None)
@given(pq=_p_above_q(), pi=st.floats(0, 1), n=st.integers(1, 5000))
@example(pq=(0.4, 0.1), pi=0.3, n=100)
@example(pq=(0.5, 0.2), pi=0.3, n=100)
@example(pq=(0.5 + 1e-12, 0.1), pi=0.0, n=1)
@example(pq=(0.6, 0.4), pi=0.5, n=3)  # d = 0: Warner
def test_every_p_above_q_invariant(pq, pi, n):
    p, q = pq
    a = dont_know_analysis(p, q, pi, n, lambdas=21)
    # Shafer: the analysis reports variance_dont_know itself; finite and >= 0 (0 only when
    # q = 0 and pi in {0, 1}: then every Yes/No answer is truthful and pi_hat = pi)
    assert a.variance_shafer == variance_dont_know(p, q, pi, n)
    assert math.isfinite(a.variance_shafer)
    if q > 1e-9 or 1e-9 < pi < 1 - 1e-9:
        assert a.variance_shafer > 0
    else:
        assert a.variance_shafer >= -1e-15
    # the optimal variance is nu(Q_1), always finite (q < 1/2)
    assert a.variance_optimal == variance_warner(1 - q, pi, n)
    assert math.isfinite(a.variance_optimal)
    # Walley and optimal: the paper's Q_0 values, or flagged degenerate exactly at p <= 1/2
    assert a.walley_degenerate == a.optimal_degenerate == (p <= 0.5)
    if p > 0.5:
        assert a.variance_walley == variance_warner(p, pi, n)
        assert math.isfinite(a.variance_walley)
        # eps(Q_0) = ln(p/(1-p)); Q_0's entry 1 - p is built as q + d: rounding / (1 - p)
        eps_q0 = math.log(p / (1 - p)) if p < 1 else math.inf
        slack = 1e-15 / (1 - p) if p < 1 else 0.0
        assert a.epsilon_optimal == pytest.approx(eps_q0, rel=1e-12, abs=slack)
        assert a.note == "" and math.isnan(a.lambda_uninformative)
    else:
        assert a.variance_walley == math.inf and a.epsilon_optimal == 0.0
        lam = a.lambda_uninformative
        assert 0 <= lam < 1
        # that completion is uninformative: its variance is inf (or rounding-huge)
        assert variance_q_lambda(p, q, lam, pi, n) > 1e20 / n
        assert a.note
    # W and O are the worst and best completions: every path point lies in the rectangle
    # (slack for the cancellation in D_lambda = p - q + (2 lambda - 1) d when p - q is tiny)
    rtol = max(1e-12, 1e-14 / (p - q))
    assert a.rectangle.contains(a.epsilon_lambda, a.variance_lambda, rtol=rtol).all()
    assert a.epsilon_optimal <= a.epsilon_shafer <= a.epsilon_walley
    # ... and the path's epsilons are the LDP epsilons of the catalog's Q_lambda
    for lam, eps in zip(a.lambdas[::5], a.epsilon_lambda[::5], strict=True):
        assert eps == pytest.approx(md.epsilon_ldp(md.q_lambda(p, q, lam)), rel=1e-9, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(pq=_p_above_q(), a=st.floats(0, 1), c=st.floats(0, 1), pi=st.floats(0, 1),
       n=st.integers(1, 1000))
def test_walley_order_for_every_p_above_q(pq, a, c, pi, n):
    # the Corollary (p >= p', q >= q' => nu^W(p, q) <= nu^W(p', q')) holds for every p > q
    # once nu^W is the worst completion (inf at p <= 1/2); with the literal nu(Q_0) it would
    # fail (nu(warner(0.1)) < nu(warner(0.4)))
    p2, q2 = pq
    q1 = c * q2
    p1 = q1 + max(a, 1e-6) * (p2 - q1)           # q' < p' <= p
    big = dont_know_analysis(p2, q2, pi, n, lambdas=2)
    small = dont_know_analysis(p1, q1, pi, n, lambdas=2)
    assert big.epsilon_walley <= small.epsilon_walley * (1 + 1e-15)
    assert big.variance_walley <= small.variance_walley * (1 + 1e-13)


def test_epsilon_q_lambda_is_the_ldp_epsilon_when_q_lambda_flips():
    # p + lambda d < 1/2: Q_lambda flips Yes and No; its LDP epsilon is |ln(...)|
    assert epsilon_q_lambda(0.4, 0.1, 0.0) == pytest.approx(math.log(1.5), rel=1e-14)
    assert epsilon_q_lambda(0.4, 0.1, 0.0) == pytest.approx(
        md.epsilon_ldp(md.q_lambda(0.4, 0.1, 0.0)), rel=1e-14)
    assert epsilon_q_lambda(0.0, 0.0, 0.0) == math.inf   # [[0, 1], [1, 0]]


def test_rectangle_contains_with_an_infinite_upper_bound():
    # an infinite upper bound (nu^W at p <= 1/2, eps^W at q = 0) must not make the lower
    # bound vacuous
    r = Rectangle(0.0, 2.0, 0.5, math.inf)
    assert r.contains(1.0, 1e300) and r.contains(1.0, math.inf)
    assert not r.contains(1.0, 0.1)
    r = Rectangle(0.5, math.inf, 0.1, 1.0)
    assert not r.contains(0.1, 0.5) and r.contains(math.inf, 0.5)
