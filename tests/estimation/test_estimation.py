"""Estimators, exact variances and the Cramer-Rao bound (mechdesign.estimation.estimators).

Reference values are derived next to each test: exact enumeration over every count vector
with fractions.Fraction (so "unbiased" is checked as an exact equality), scipy's binomial pmf
as an independent evaluation of A, and the closed forms of docs/belief_functions.md s.4 and
docs/formulations.md ("Estimation").
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import mechdesign as md
from mechdesign.errors import InvalidMechanismError, InvalidParameterError
from mechdesign.estimation.estimators import (
    binomial_inverse_moment,
    covariance_inverse,
    cramer_rao,
    estimate_dont_know,
    estimate_inverse,
    estimate_mle,
    estimate_projected,
    estimate_q_lambda,
    estimate_warner,
    inverse_matrix,
    project_simplex,
    variance_dont_know,
    variance_q_lambda,
    variance_warner,
)
from mechdesign.estimation.simulation import simulate, simulate_dont_know
from tests.strategies import stochastic_matrices


# ----------------------------------------------------------------------------- exact helpers
def compositions(n: int, parts: int):
    """Every count vector of ``parts`` non-negative integers summing to n."""
    if parts == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in compositions(n - first, parts - 1):
            yield (first, *rest)


def multinomial_pmf(counts, probs) -> F:
    n = sum(counts)
    coef = math.factorial(n)
    for c in counts:
        coef //= math.factorial(c)
    out = F(coef)
    for c, p in zip(counts, probs, strict=True):
        out *= p ** c
    return out


def exact_A(n: int, c: F) -> F:
    """E[1/M | M > 0], M ~ Bin(n, c), as a fraction (docs/belief_functions.md s.4)."""
    s = sum(F(math.comb(n, k)) * c ** k * (1 - c) ** (n - k) / k for k in range(1, n + 1))
    return s / (1 - (1 - c) ** n)


def dont_know_moments(n: int, p: F, q: F, pi: F) -> tuple[F, F]:
    """Conditional mean and variance of the Q_2x3 MLE given N1 + N2 > 0, by enumeration."""
    q1, q2 = pi * p + (1 - pi) * q, pi * q + (1 - pi) * p
    law = (q1, q2, 1 - p - q)
    mass = mean = second = F(0)
    for counts in compositions(n, 3):
        n1, n2, _ = counts
        if n1 + n2 == 0:
            continue
        w = multinomial_pmf(counts, law)
        est = (p * n1 - q * n2) / ((p - q) * (n1 + n2))
        mass += w
        mean += w * est
        second += w * est * est
    mean /= mass
    return mean, second / mass - mean * mean


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
    # docs/belief_functions.md s.4: the seed's 1/((n+1)c - 1) is about 3% low at n = 10, c = .5
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


def test_dont_know_estimator_matches_fraction_formula_on_every_count_vector():
    p, q = F(3, 5), F(1, 5)
    counts = np.array(list(compositions(10, 3)))
    got = estimate_dont_know(counts, 0.6, 0.2)
    for row, value in zip(counts, got, strict=True):
        n1, n2, _ = (int(v) for v in row)
        if n1 + n2 == 0:
            assert np.isnan(value)  # undefined, never a silent 0
        else:
            assert value == pytest.approx(float((p * n1 - q * n2) / ((p - q) * (n1 + n2))),
                                          rel=1e-14, abs=1e-15)


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


def test_binary_estimators_return_nan_when_undefined():
    assert np.isnan(estimate_warner([0, 0], 0.75))
    assert np.isnan(estimate_q_lambda([[0, 0]], 0.6, 0.2, 0.5)[0])
    out = estimate_dont_know([[0, 0, 5], [3, 1, 1]], 0.6, 0.2)
    assert np.isnan(out[0]) and out[1] == pytest.approx((0.6 * 3 - 0.2) / (0.4 * 4))


def test_k_ary_estimators_on_uninformative_counts_give_the_unconditional_value():
    # Documented in estimate_inverse / estimate_projected / estimate_mle: counts only on the
    # "don't know" message (column (0.2, 0.2), no information) are NOT NaN for the k-ary
    # estimators. Inverse: L = pinv(Q) (Q Q^T symmetric under swapping the inputs) has
    # "don't know" row (0.5, 0.5) (inverse_matrix prints [[1.75, -.75], [-.75, 1.75],
    # [.5, .5]]); MLE: the likelihood is constant in pi, EM stays at its uniform start.
    # Only n = 0 is NaN; the paper's conditional estimator is NaN on both.
    dk = md.dont_know(0.6, 0.2)
    counts = [[0, 0, 5], [0, 0, 0]]
    for est in (estimate_inverse, estimate_projected, estimate_mle):
        out = est(dk, counts)
        np.testing.assert_allclose(out[0], [0.5, 0.5], rtol=0, atol=1e-15)
        assert np.isnan(out[1]).all()
    np.testing.assert_allclose(inverse_matrix(dk)[2], [0.5, 0.5], atol=1e-15)
    assert np.isnan(estimate_dont_know(counts, 0.6, 0.2)).all()
    # with n1 + n2 > 0 the 2-input MLE is the paper's estimator clipped to [0, 1]
    some = np.array(list(compositions(6, 3)))
    some = some[some[:, 0] + some[:, 1] > 0]
    np.testing.assert_allclose(estimate_mle(dk, some)[:, 0],
                               np.clip(estimate_dont_know(some, 0.6, 0.2), 0, 1), atol=1e-9)


def test_simulating_k_ary_estimators_of_dont_know_gives_the_unconditional_mse():
    # So simulate(dk, "mle" | "inverse") redraws nothing and estimates the unconditional MSE
    # (exact values by enumeration over all count vectors), not Thm 3.10's conditional
    # variance, which simulate_dont_know estimates (it redraws the n1 + n2 = 0 surveys).
    dk, pi, n, reps = md.dont_know(0.6, 0.2), 0.3, 2, 4000
    counts = np.array(list(compositions(n, 3)))
    w = stats.multinomial.pmf(counts, n, np.array([pi, 1 - pi]) @ dk.to_mechanism().matrix)
    for name, est in (("inverse", estimate_inverse), ("mle", estimate_mle)):
        exact = float(w @ (est(dk, counts)[:, 0] - pi) ** 2)  # 0.605 and 0.170
        sim = simulate(dk, name, pi, n, reps, seed=3)
        assert sim.redrawn == 0
        assert abs(sim.mse - exact) <= 4 * sim.stderr
    np.testing.assert_allclose(w @ (estimate_inverse(dk, counts)[:, 0] - pi) ** 2,
                               covariance_inverse(dk, [pi, 1 - pi], n)[0, 0], rtol=1e-12)
    conditional = simulate_dont_know(0.6, 0.2, pi, n, reps, seed=3)
    assert conditional.redrawn > 0  # P(n1 + n2 = 0) = 0.2^2
    assert abs(conditional.mse - variance_dont_know(0.6, 0.2, pi, n)) <= 4 * conditional.stderr
    # Thm 3.10: [-(pi - 1/2)^2 + c^2 / (4 (p - q)^2)] A = (1 - 0.04) * 2/3 = 0.64, with
    # A = E[1/M | M > 0], M ~ Bin(2, 0.8): (0.32 / 1 + 0.64 / 2) / 0.96 = 2/3
    assert variance_dont_know(0.6, 0.2, pi, n) == pytest.approx(0.64, rel=1e-12)


# ----------------------------------------------------------------------------- k-ary estimators
MECHS = [
    md.randomized_response(3, 1.0),
    md.Mechanism([[0.5, 0.3, 0.2, 0.0], [0.2, 0.3, 0.1, 0.4], [0.1, 0.1, 0.6, 0.2]]),
    md.dont_know(0.6, 0.2).to_mechanism(),
]


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


def test_inverse_estimator_is_warner_for_warner():
    counts = np.array([[7, 3], [0, 10], [10, 0]])
    np.testing.assert_allclose(estimate_inverse(md.warner(0.75), counts)[:, 0],
                               estimate_warner(counts, 0.75), rtol=1e-13)
    # and the exact solve pi Q = f for a square Q
    Q = md.randomized_response(3, 0.7).matrix
    np.testing.assert_allclose(inverse_matrix(md.randomized_response(3, 0.7)), np.linalg.inv(Q),
                               rtol=1e-12)


def test_inverse_estimator_needs_full_row_rank():
    rank1 = md.Mechanism([[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(InvalidMechanismError, match="rank 1"):
        estimate_inverse(rank1, [[3, 4]])


def test_estimators_are_vectorised_over_leading_axes():
    mech = md.randomized_response(3, 1.0)
    counts = np.arange(24).reshape(2, 4, 3)
    out = estimate_inverse(mech, counts)
    assert out.shape == (2, 4, 3)
    np.testing.assert_allclose(out[1, 2], estimate_inverse(mech, counts[1, 2]), rtol=1e-14)
    assert estimate_mle(mech, counts).shape == (2, 4, 3)
    assert estimate_projected(mech, counts).shape == (2, 4, 3)
    nan_row = estimate_mle(mech, np.zeros((1, 3)))
    assert np.isnan(nan_row).all()


@settings(max_examples=80, deadline=None)
@given(v=st.lists(st.floats(-5, 5), min_size=1, max_size=6),
       z=st.lists(st.floats(0, 1), min_size=6, max_size=6))
def test_projection_onto_simplex_is_the_euclidean_projection(v, z):
    v = np.array(v)
    x = project_simplex(v)
    assert (x >= 0).all() and abs(x.sum() - 1) < 1e-12
    # variational inequality: (v - x) . (y - x) <= 0 for every y in the simplex
    y = np.array(z[: len(v)]) + 1e-3
    y /= y.sum()
    assert (v - x) @ (y - x) <= 1e-10
    np.testing.assert_allclose(project_simplex(x), x, atol=1e-14)  # idempotent


def test_projection_known_values():
    np.testing.assert_allclose(project_simplex([2.0, 0.0]), [1.0, 0.0])
    np.testing.assert_allclose(project_simplex([0.5, 0.5, 0.5]), [1 / 3] * 3)
    np.testing.assert_allclose(project_simplex([[0.6, 0.6, -1.0]]), [[0.5, 0.5, 0.0]])
    assert np.isnan(project_simplex([[np.nan, 1.0]])).all()


@pytest.mark.parametrize("n", [10])
def test_mle_by_em_is_clipped_closed_form_for_two_inputs(n):
    # two inputs: the log-likelihood is concave in pi, so the MLE on [0, 1] is the
    # unconstrained MLE clipped (Warner: n1/q1 = n2/q2; Q_2x3: docs/belief_functions.md s.4)
    counts = np.array([[k, n - k] for k in range(n + 1)])
    em = estimate_mle(md.warner(0.75), counts)[:, 0]
    np.testing.assert_allclose(em, np.clip(estimate_warner(counts, 0.75), 0, 1), atol=1e-8)
    c3 = np.array(list(compositions(n, 3)))
    c3 = c3[c3[:, 0] + c3[:, 1] > 0]
    em3 = estimate_mle(md.dont_know(0.6, 0.2).to_mechanism(), c3)[:, 0]
    np.testing.assert_allclose(em3, np.clip(estimate_dont_know(c3, 0.6, 0.2), 0, 1), atol=1e-8)


def _loglik(pi, counts, Q):
    lam = pi @ Q
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.where(counts > 0, counts * np.log(lam), 0.0).sum())


@settings(max_examples=60, deadline=None)
@given(Q=stochastic_matrices(rows=(2, 4), cols=(2, 5), tiny=False), data=st.data())
def test_mle_beats_every_other_distribution(Q, data):
    # the MLE maximises the likelihood over the simplex: no other point (the projected
    # inverse, the uniform prior, random points, the vertices) may do better
    mech = md.Mechanism(Q)
    k, m = Q.shape
    counts = np.array(data.draw(st.lists(st.integers(0, 40), min_size=m, max_size=m)))
    counts[Q.max(axis=0) == 0] = 0  # outputs no input produces (tested separately)
    if counts.sum() == 0:
        return
    mle = estimate_mle(mech, counts)
    assert (mle >= 0).all() and abs(mle.sum() - 1) < 1e-12
    best = _loglik(mle, counts, Q)
    rng = np.random.default_rng(0)
    others = [np.full(k, 1 / k), *np.eye(k), *rng.dirichlet(np.ones(k), size=20)]
    if np.linalg.matrix_rank(Q) == k:
        others.append(estimate_projected(mech, counts))
    for z in others:
        assert best >= _loglik(z, counts, Q) - 1e-9 * max(1.0, abs(best))


def test_mle_equals_inverse_when_the_inverse_is_a_distribution():
    # square invertible Q and an interior inverse estimate: pi Q = f is attainable, so the
    # likelihood is maximised there
    mech = md.randomized_response(3, 1.5)
    counts = np.array([[30, 50, 20], [40, 35, 25]])
    inv = estimate_inverse(mech, counts)
    assert (inv > 0).all()
    np.testing.assert_allclose(estimate_mle(mech, counts), inv, atol=1e-9)


def test_mle_accepts_weighted_counts():
    # survey weights give non-integer counts; only f = counts / n enters the likelihood, so
    # halving every count changes nothing, and the interior case still equals the inverse
    mech = md.randomized_response(3, 1.5)
    counts = np.array([30.5, 49.25, 20.25])
    np.testing.assert_allclose(estimate_mle(mech, counts / 2), estimate_mle(mech, counts),
                               atol=1e-12)
    np.testing.assert_allclose(estimate_mle(mech, counts), estimate_inverse(mech, counts),
                               atol=1e-9)


def test_mle_newton_polish_reaches_the_optimum_after_few_em_steps():
    # 3 EM steps alone are far off (rate about 1 - (2p-1)^2 at p = .55); the polish finishes
    ref = np.clip(estimate_warner([[30, 70]], 0.55), 0, 1)
    assert estimate_mle(md.warner(0.55), [[30, 70]], max_iter=3)[0, 0] == pytest.approx(
        ref, abs=1e-12)


def test_mle_warns_when_the_gap_cannot_be_certified():
    # the certified gap ln max g is >= 0 (sum_x pi_x g_x = 1), so tol < 0 cannot be met
    with pytest.warns(RuntimeWarning, match="certified gap"):
        estimate_mle(md.warner(0.75), [[30, 70]], tol=-1.0)


# ----------------------------------------------------------------------------- Cramer-Rao
def test_cramer_rao_reference_values():
    # docs/formulations.md "Estimation": uniform prior, trace CR
    eps1 = md.warner(math.e / (1 + math.e))
    assert cramer_rao(eps1, [0.5, 0.5]).trace == pytest.approx(2.341347, abs=5e-7)
    ss = md.subset_selection(10, 4, 0.5)
    assert cramer_rao(ss, np.full(10, 0.1)).trace == pytest.approx(127.2172, abs=5e-5)


@pytest.mark.parametrize(("p", "pi"), [(0.75, 0.3), (0.9, 0.5), (0.3, 0.0)])
def test_cramer_rao_of_warner_is_n_times_eq_1(p, pi):
    cr = cramer_rao(md.warner(p), pi)
    assert cr.matrix[0, 0] == pytest.approx(variance_warner(p, pi, 1), rel=1e-12)
    assert cr.trace == pytest.approx(2 * variance_warner(p, pi, 1), rel=1e-12)
    assert cr.identifiable


def test_cramer_rao_of_dont_know_is_the_large_n_limit_of_thm_3_10():
    # per report: q1 q2 / (c (p-q)^2) = [-(pi-1/2)^2 + c^2/(4(p-q)^2)] / c; n nu^S -> that
    cr = cramer_rao(md.dont_know(0.6, 0.2), 0.3).matrix[0, 0]
    assert cr == pytest.approx((-(0.2 ** 2) + 0.64 / (4 * 0.16)) / 0.8, rel=1e-12)
    assert 10**6 * variance_dont_know(0.6, 0.2, 0.3, 10**6) == pytest.approx(cr, rel=1e-5)


def test_cramer_rao_matches_reduced_parametrisation():
    # second method: parametrise by the first k-1 frequencies, J = [I; -1^T],
    # Cov(first k-1) >= (J^T I J)^{-1}
    mech = MECHS[1]
    prior = np.array([0.2, 0.3, 0.5])
    cr = cramer_rao(mech, prior)
    J = np.vstack([np.eye(2), -np.ones((1, 2))])
    ref = np.linalg.inv(J.T @ cr.fisher @ J)
    np.testing.assert_allclose(cr.matrix[:2, :2], ref, rtol=1e-12)
    np.testing.assert_allclose(cr.matrix.sum(axis=1), 0, atol=1e-12)


@settings(max_examples=50, deadline=None)
@given(eps=st.floats(0.1, 3.0), a=st.floats(0.05, 0.9))
def test_cramer_rao_below_inverse_estimator_covariance(eps, a):
    mech = md.randomized_response(3, eps)
    prior = np.array([a, (1 - a) / 2, (1 - a) / 2])
    cr = cramer_rao(mech, prior)
    cov = covariance_inverse(mech, prior, 1)
    # CR is a lower bound in the Loewner order on the tangent space
    assert np.linalg.eigvalsh(cov - cr.matrix).min() >= -1e-10


def test_cramer_rao_not_identifiable_and_boundary():
    out = cramer_rao(md.Mechanism([[0.5, 0.5], [0.5, 0.5]]), 0.5)
    assert not out.identifiable and out.trace == math.inf and np.isnan(out.matrix).all()
    with pytest.raises(InvalidParameterError, match="infinite"):
        cramer_rao(md.Mechanism([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]), [1.0, 0.0])


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("call", "needle"), [
    (lambda: binomial_inverse_moment(0, 0.5), "0"),
    (lambda: binomial_inverse_moment(10, 0.0), "0.0"),
    (lambda: binomial_inverse_moment(10, 1.5), "1.5"),
    (lambda: variance_warner(0.7, 1.2, 10), "1.2"),
    (lambda: variance_dont_know(0.7, 0.4, 0.3, 10), "1.1"),
    (lambda: variance_dont_know(0.6, 0.2, 0.3, 2.5), "2.5"),
    (lambda: estimate_warner([[1, 2]], 0.5), "0.5"),
    (lambda: estimate_warner([[1, 2, 3]], 0.7), "(1, 3)"),
    (lambda: estimate_dont_know([[1, -2, 3]], 0.6, 0.2), "-2"),
    (lambda: estimate_dont_know([[1, 2, 3]], 0.3, 0.3), "0.3"),
    (lambda: estimate_q_lambda([[1, 2]], 0.4, 0.4, 0.5), "lam = 0.5"),
    (lambda: cramer_rao(md.randomized_response(3, 1.0), [0.5, 0.6, -0.1]), "-0.1"),
    (lambda: cramer_rao(md.randomized_response(3, 1.0), [0.5, 0.6, 0.1]), "1.2"),
    (lambda: cramer_rao(md.randomized_response(3, 1.0), 0.5), "0.5"),
    (lambda: covariance_inverse(md.warner(0.7), 0.3, 0), "0"),
    (lambda: estimate_mle(md.Mechanism([[0.0, 1.0], [0.0, 1.0]]), [[1, 3]]), "column 0"),
])
def test_bad_input_raises_typed_error_naming_the_value(call, needle):
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert needle in str(info.value)


def test_all_count_vectors_helper_is_complete():
    # guard for the enumeration helper itself: C(n + 2, 2) vectors, each summing to n
    vecs = list(compositions(30, 3))
    assert len(vecs) == math.comb(32, 2) == len(set(vecs))
    assert all(sum(v) == 30 for v in vecs)
    assert set(itertools.islice(compositions(2, 2), 10)) == {(0, 2), (1, 1), (2, 0)}
