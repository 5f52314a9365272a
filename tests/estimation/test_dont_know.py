"""The three trade-offs of Q_2x3(p, q), the Fig. 5 rectangle and the Q_lambda path
(mechdesign.estimation.dont_know; docs/belief_functions.md s.4)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.estimation.dont_know import (
    dont_know_analysis,
    dont_know_from_c_eps,
    epsilon_q_lambda,
    shafer_variance_curve,
)
from mechdesign.estimation.variances import binomial_inverse_moment, variance_warner


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
    ({"p": 0.5, "q": 0.2}, "0.5"),
    ({"p": 0.4, "q": 0.1}, "0.4"),
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
