"""Exact variances (mechdesign.estimation.variances): A = E[1/M | M > 0], Thm 3.10, Eq. (1),
the Q_lambda variance and the covariance of the inverse estimator.

References: exact enumeration over every count vector with fractions.Fraction (so "unbiased"
and the variances are checked as exact equalities), scipy's binomial pmf as an independent
evaluation of A, and the closed forms of docs/belief_functions.md s.4.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.estimation.estimators import estimate_inverse, estimate_q_lambda, estimate_warner
from mechdesign.estimation.variances import (
    binomial_inverse_moment,
    covariance_inverse,
    variance_dont_know,
    variance_q_lambda,
    variance_warner,
)
from tests.estimation.exact import MECHS, compositions, dont_know_moments, exact_A


# ----------------------------------------------------------------------------- A
@pytest.mark.parametrize("n", [1, 2, 10, 30])
@pytest.mark.parametrize("c", [F(1, 20), F(1, 2), F(4, 5), F(99, 100)])
def test_inverse_moment_matches_fraction_sum(n, c):
    # reference: the finite sum of Thm 3.10 in exact rational arithmetic
    got = binomial_inverse_moment(n, float(c))
    assert got == pytest.approx(float(exact_A(n, c)), rel=1e-13)


@pytest.mark.parametrize("n", [1, 7, 100, 10**6])
def test_inverse_moment_at_c_one_is_one_over_n(n):
    # M = n surely, so E[1/M | M > 0] = 1/n exactly (docs/belief_functions.md s.7)
    assert binomial_inverse_moment(n, 1.0) == 1.0 / n


@pytest.mark.parametrize(("n", "c"), [(10**6, 0.8), (10**6, 1e-5), (10**5, 0.5),
                                      (2000, 0.999), (50_000, 2e-4)])
def test_inverse_moment_large_n_against_scipy_pmf(n, c):
    # second method: scipy's binomial pmf (boost's algorithm) summed over every k
    k = np.arange(1, n + 1)
    pmf = stats.binom.pmf(k, n, c)
    ref = float(np.sum(pmf / k) / -math.expm1(n * math.log1p(-c)))
    assert binomial_inverse_moment(n, c) == pytest.approx(ref, rel=1e-11)


def test_inverse_moment_approximation_is_low_by_three_percent_at_n10_c_half():
    # docs/belief_functions.md s.4: the approximation 1/((n+1)c - 1) Li et al. adopt is
    # about 3% low at n = 10, c = .5 (the sign and size vary with n and c)
    exact = float(exact_A(10, F(1, 2)))  # 0.229109...
    approx = binomial_inverse_moment(10, 0.5, exact=False)
    assert approx == pytest.approx(1 / 4.5, rel=1e-15)
    assert approx / exact - 1 == pytest.approx(-0.030061, abs=1e-6)


def test_inverse_moment_approximation_undefined_below_one_expected_success():
    # (n + 1) c <= 1 makes 1/((n+1)c - 1) negative or infinite: NaN, not a number
    out = binomial_inverse_moment(10, [0.05, 1 / 11, 0.5], exact=False)
    assert np.isnan(out[0]) and np.isnan(out[1]) and out[2] == pytest.approx(1 / 4.5)


def test_inverse_moment_vectorised_shape():
    cs = np.array([[0.2, 0.5], [0.5, 1.0]])
    out = binomial_inverse_moment(30, cs)
    assert out.shape == (2, 2)
    assert out[0, 1] == out[1, 0] == pytest.approx(float(exact_A(30, F(1, 2))), rel=1e-13)


# ----------------------------------------------------------------------------- Thm 3.10
@pytest.mark.parametrize("n", [10, 30])
@pytest.mark.parametrize(("p", "q", "pi"), [(F(3, 5), F(1, 5), F(3, 10)),
                                            (F(7, 10), F(1, 10), F(1, 2)),
                                            (F(2, 5), F(1, 5), F(9, 10))])
def test_thm_3_10_against_exact_enumeration(n, p, q, pi):
    mean, var = dont_know_moments(n, p, q, pi)
    # the conditional mean is pi EXACTLY (rational arithmetic, no tolerance)
    assert mean == pi
    # closed form with exact A; and the rational closed form of the sheet
    closed = (-(pi - F(1, 2)) ** 2 + (p + q) ** 2 / (4 * (p - q) ** 2)) * exact_A(n, p + q)
    assert var == closed
    assert variance_dont_know(float(p), float(q), float(pi), n) == pytest.approx(
        float(var), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(p=st.floats(0.01, 1.0), pi=st.floats(0.0, 1.0), n=st.integers(1, 5000))
def test_thm_3_10_reduces_to_eq_1_when_nobody_says_dont_know(p, pi, n):
    # p + q = 1: A = 1/n and Thm 3.10 is Warner's Eq. (1) (docs/belief_functions.md s.7)
    q = 1.0 - p
    if abs(p - q) < 1e-3:
        return
    assert variance_dont_know(p, q, pi, n) == pytest.approx(variance_warner(p, pi, n),
                                                            rel=1e-12)


@settings(max_examples=80, deadline=None)
@given(p=st.floats(0.02, 0.98), a=st.floats(0.0, 1.0), b=st.floats(0.0, 1.0),
       pi=st.floats(0.0, 1.0), n=st.integers(1, 3000), exact=st.booleans())
def test_proposition_4_5_variance_increases_with_q_at_fixed_p(p, a, b, pi, n, exact):
    # docs/belief_functions.md s.4 ("don't know" proposition): at fixed p, nu^S increases with q, so
    # within a budget lie as little as allowed and say "don't know" instead
    top = min(p, 1.0 - p)
    q1, q2 = sorted((a * top, b * top))
    if q2 - q1 < 1e-6 * top or top - q2 < 1e-9:
        return
    if not exact and (n + 1) * (p + q1) <= 1.5:
        return  # the approximation is meaningless there
    v1 = variance_dont_know(p, q1, pi, n, exact=exact)
    v2 = variance_dont_know(p, q2, pi, n, exact=exact)
    assert v1 < v2


def test_variance_dont_know_at_p_equal_q_is_infinite():
    assert variance_dont_know(0.3, 0.3, 0.5, 10) == math.inf


def test_variance_dont_know_large_n_is_fast_and_near_asymptote():
    # n = 10^6: A ~ 1/(n c) (1 + (1-c)/(n c)); nu ~ CR/n with CR = [..]/c
    v = variance_dont_know(0.6, 0.2, 0.3, 10**6)
    bracket = -(0.3 - 0.5) ** 2 + 0.8 ** 2 / (4 * 0.4 ** 2)
    assert v == pytest.approx(bracket / (0.8 * 10**6) * (1 + 0.2 / 0.8e6), rel=1e-10)


# ----------------------------------------------------------------------------- Warner, Q_lambda
@pytest.mark.parametrize("n", [10, 30])
@pytest.mark.parametrize(("p", "pi"), [(F(3, 4), F(3, 10)), (F(1, 3), F(1, 2))])
def test_warner_eq_1_against_enumeration(n, p, pi):
    lam = pi * p + (1 - pi) * (1 - p)
    mean = second = F(0)
    for n1 in range(n + 1):
        w = F(math.comb(n, n1)) * lam ** n1 * (1 - lam) ** (n - n1)
        est = (F(n1, n) - (1 - p)) / (2 * p - 1)
        mean += w * est
        second += w * est * est
    assert mean == pi  # exactly unbiased
    var = second - mean ** 2
    assert var == (pi * (1 - pi) + p * (1 - p) / (2 * p - 1) ** 2) / n  # Eq. (1), exactly
    assert variance_warner(float(p), float(pi), n) == pytest.approx(float(var), rel=1e-13)
    counts = np.array([[k, n - k] for k in range(n + 1)])
    est = estimate_warner(counts, float(p))
    assert est[3] == pytest.approx(float((F(3, n) - (1 - p)) / (2 * p - 1)), rel=1e-14)


@pytest.mark.parametrize("lam", [F(0), F(1, 4), F(1)])
def test_q_lambda_estimator_unbiased_and_variance_exact(lam):
    p, q, pi, n = F(3, 5), F(1, 5), F(3, 10), 30
    d = 1 - p - q
    a = p + lam * d  # Q_lambda is Warner at truth probability p + lambda d
    y = pi * a + (1 - pi) * (1 - a)
    mean = second = F(0)
    for n1 in range(n + 1):
        w = F(math.comb(n, n1)) * y ** n1 * (1 - y) ** (n - n1)
        est = (F(n1, n) - (1 - lam) * d - q) / (p - q + (2 * lam - 1) * d)
        mean += w * est
        second += w * est * est
    assert mean == pi
    var = second - pi ** 2
    assert variance_q_lambda(0.6, 0.2, float(lam), 0.3, n) == pytest.approx(float(var),
                                                                            rel=1e-13)
    got = estimate_q_lambda(np.array([[7, 23]]), 0.6, 0.2, float(lam))
    ref = (F(7, 30) - (1 - lam) * d - q) / (p - q + (2 * lam - 1) * d)
    assert got[0] == pytest.approx(float(ref), rel=1e-14)


def test_q_lambda_ends_are_warner():
    # Q_0 = warner(p), Q_1 = warner(1 - q): the variances are Eq. (1) there
    assert variance_q_lambda(0.6, 0.2, 0.0, 0.3, 100) == pytest.approx(
        variance_warner(0.6, 0.3, 100), rel=1e-15)
    assert variance_q_lambda(0.6, 0.2, 1.0, 0.3, 100) == pytest.approx(
        variance_warner(0.8, 0.3, 100), rel=1e-15)


# ----------------------------------------------------------------------------- inverse estimator
@pytest.mark.parametrize("mech", MECHS, ids=["3-RR", "3x4", "Q2x3"])
def test_inverse_estimator_unbiased_and_covariance_exact_by_enumeration(mech):
    prior = np.array([0.2, 0.3, 0.5][: mech.n_inputs])
    prior = prior / prior.sum() if mech.n_inputs == 2 else prior
    n = 10
    lam = prior @ mech.matrix
    counts = np.array(list(compositions(n, mech.n_outputs)))
    w = stats.multinomial.pmf(counts, n, lam)
    est = estimate_inverse(mech, counts)
    mean = w @ est
    np.testing.assert_allclose(mean, prior, atol=1e-13)  # unbiased
    cov = (est - prior).T @ ((est - prior) * w[:, None])
    np.testing.assert_allclose(covariance_inverse(mech, prior, n), cov, atol=1e-13)
    np.testing.assert_allclose(est.sum(axis=1), 1.0, atol=1e-12)  # on the affine plane


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("call", "needle"), [
    (lambda: binomial_inverse_moment(0, 0.5), "0"),
    (lambda: binomial_inverse_moment(10, 0.0), "0.0"),
    (lambda: binomial_inverse_moment(10, 1.5), "1.5"),
    (lambda: variance_warner(0.7, 1.2, 10), "1.2"),
    (lambda: variance_dont_know(0.7, 0.4, 0.3, 10), "1.1"),
    (lambda: variance_dont_know(0.6, 0.2, 0.3, 2.5), "2.5"),
    (lambda: covariance_inverse(md.warner(0.7), 0.3, 0), "0"),
])
def test_bad_input_raises_typed_error_naming_the_value(call, needle):
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert needle in str(info.value)
