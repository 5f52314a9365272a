"""Tests of :mod:`mechdesign.numeric.square_wave`: Li et al.'s Square Wave mechanism
(SIGMOD 2020) and the EM/EMS estimate of the input distribution.

Pinned: ``b`` against the paper's formula in 50-digit arithmetic (mpmath) from eps = 1e-6 to
20, across the switch between its two evaluations; at eps in {0.5, 1, 2, 4} and several v,
normalisation, the debiased report's mean and variance by quadrature of the density
written here from the paper; the discretised matrix and the EMS bin matrix against
quadrature; the matrix's epsilon is exactly eps on {0, 1} and never above; plain EM on
exact expected counts recovers a known histogram; EMS recovers Beta(2, 5) from 10^5 reports
within Wasserstein-1 distance 0.02 (fixed seed); a simulation within 5 standard errors.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

import mechdesign as md
from mechdesign.errors import InvalidMechanismError, InvalidParameterError
from mechdesign.numeric import (
    SquareWave,
    SquareWaveDistribution,
    expectation_maximization,
    square_wave_b,
)

EPSILONS = (0.5, 1.0, 2.0, 4.0)
VS = (0.0, 0.1, 0.5, 0.77, 1.0)


def paper_b(eps: float) -> mpmath.mpf:
    mpmath.mp.dps = 50
    e = mpmath.exp(mpmath.mpf(eps))
    return (eps * e - e + 1) / (2 * e * (e - 1 - eps))


def paper_density(eps: float):
    """``(b, f)`` with ``f(y, v)`` the paper's density (p near v, q elsewhere)."""
    e = math.exp(eps)
    b = float(paper_b(eps))
    p, q = e / (2 * b * e + 1), 1 / (2 * b * e + 1)

    def f(y: float, v: float) -> float:
        if abs(y - v) <= b:
            return p
        return q if -b <= y <= 1 + b else 0.0

    return b, f


def moment(eps: float, v: float, k: int, a: float | None = None, c: float | None = None):
    b, f = paper_density(eps)
    a = -b if a is None else a
    c = 1 + b if c is None else c
    jumps = [w for w in (v - b, v + b) if a + 1e-12 < w < c - 1e-12]  # no slivers
    cuts = sorted({a, c, *jumps})
    return sum(integrate.quad(lambda y: y ** k * f(y, v), lo, hi, epsabs=1e-13,
                              epsrel=1e-13)[0] for lo, hi in itertools.pairwise(cuts))


@pytest.mark.parametrize("eps", [1e-6, 1e-3, 0.3, 0.999999, 1.0, 1.000001, 2.5, 8.0, 20.0])
def test_b_is_the_papers_formula_to_the_last_digits(eps):
    assert square_wave_b(eps) == pytest.approx(float(paper_b(eps)), rel=1e-14)


def test_b_falls_from_one_half():
    bs = [square_wave_b(e) for e in (1e-9, 0.1, 1.0, 5.0)]
    assert bs[0] == pytest.approx(0.5, rel=1e-8) and bs == sorted(bs, reverse=True)


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("v", VS)
def test_debiased_report_is_unbiased_with_the_closed_form_variance(eps, v):
    sw = SquareWave(eps)
    m0, m1, m2 = (moment(eps, v, k) for k in range(3))
    assert m0 == pytest.approx(1.0, abs=1e-12)
    shift, kappa = sw.q * (1 + 2 * sw.b) / 2, sw.kappa
    assert (m1 - shift) / kappa == pytest.approx(v, abs=1e-10)
    assert sw.variance(v) == pytest.approx((m2 - m1 ** 2) / kappa ** 2, rel=1e-10)
    assert float(sw.debias(np.array(m1))) == pytest.approx(v, abs=1e-10)


@pytest.mark.parametrize("eps", EPSILONS)
def test_worst_case_is_at_the_ends_and_symmetric(eps):
    sw = SquareWave(eps)
    v = np.linspace(0, 1, 1001)
    var = sw.variance(v)
    np.testing.assert_allclose(var, var[::-1], rtol=1e-12)
    assert sw.worst_case_variance() == pytest.approx(var.max(), rel=1e-15)
    assert sw.worst_case_variance() == pytest.approx(sw.variance(0.0), rel=1e-12)


@pytest.mark.parametrize("eps", EPSILONS)
def test_density_and_matrix_are_the_papers(eps):
    sw = SquareWave(eps)
    b, f = paper_density(eps)
    assert sw.p / sw.q == pytest.approx(math.exp(eps), rel=1e-13)
    ys = np.linspace(-b - 0.2, 1 + b + 0.2, 257)
    for v in VS:
        keep = np.abs(np.abs(ys - v) - b) > 1e-9
        np.testing.assert_allclose(sw.pdf(ys[keep], v), [f(y, v) for y in ys[keep]], rtol=1e-12)
    lo, hi = sw.output_range
    edges = np.r_[lo, np.sort(np.random.default_rng(2).uniform(lo, hi, 6)), hi]
    want = [[moment(eps, v, 0, a, c) for a, c in itertools.pairwise(edges)]
            for v in VS]
    np.testing.assert_allclose(sw.to_matrix(list(VS), edges), want, rtol=1e-10, atol=1e-14)


@pytest.mark.slow  # 2.5-11 s: left out of the quick and the floors runs
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_bin_matrix_is_the_matrix_averaged_over_each_input_bin(eps):
    sw = SquareWave(eps)
    d, m = 5, 7
    Q = sw.bin_matrix(d, m)
    edges = np.linspace(*sw.output_range, m + 1)
    for i in range(d):
        a, c = i / d, (i + 1) / d
        row, _ = integrate.quad_vec(lambda v: sw.to_matrix([v], edges)[0], a, c, epsabs=1e-13,
                                    points=None)
        np.testing.assert_allclose(Q[i], row / (c - a), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, atol=1e-14)
    assert sw.bin_matrix(4).shape == (4, 4)


@pytest.mark.parametrize("eps", EPSILONS)
def test_matrix_epsilon_exact_and_never_above(eps):
    sw = SquareWave(eps)
    lo, hi = sw.output_range
    # the proof's event [-b, min(b, 1 - b)): in the band of v = 0, not in that of v = 1
    Q = sw.to_matrix([0.0, 1.0], [lo, min(sw.b, 1 - sw.b), hi])
    assert md.epsilon_ldp(Q) == pytest.approx(eps, rel=1e-12)
    fine = sw.to_matrix(np.linspace(0, 1, 21), np.linspace(lo, hi, 200))
    assert md.epsilon_ldp(fine) == pytest.approx(eps, rel=1e-12)
    assert md.epsilon_ldp(fine) <= eps
    assert md.epsilon_ldp(sw.bin_matrix(16)) <= eps


@pytest.mark.parametrize("eps", EPSILONS)
def test_simulation_within_five_standard_errors(eps):
    sw, n = SquareWave(eps), 200_000
    for v in (0.0, 0.35, 1.0):
        z = sw.debias(sw.sample(np.full(n, v), rng=9))
        assert abs(z.mean() - v) < 5 * math.sqrt(sw.variance(v) / n)
        near = (np.abs(sw.sample(np.full(n, v), rng=10) - v) <= sw.b).mean()
        share = 2 * sw.b * sw.p
        assert abs(near - share) < 5 * math.sqrt(share * (1 - share) / n)


def test_plain_em_recovers_a_histogram_from_its_expected_counts():
    sw = SquareWave(2.0)
    Q = sw.bin_matrix(8, 24)
    theta = np.array([0.05, 0.1, 0.3, 0.2, 0.05, 0.05, 0.15, 0.1])
    res = expectation_maximization(Q, 1e6 * theta @ Q, smoothing=False, tol=1e-9,
                                   max_iter=20_000)
    assert res.converged and res.iterations < 20_000
    np.testing.assert_allclose(res.probabilities, theta, atol=1e-5)
    assert res.log_likelihood == pytest.approx(1e6 * (theta @ Q) @ np.log(theta @ Q), rel=1e-9)


def test_ems_recovers_a_beta_distribution():
    sw = SquareWave(1.0)
    v = np.random.default_rng(3).beta(2, 5, 100_000)
    est = sw.estimate_distribution(sw.sample(v, rng=4), d=256)
    assert isinstance(est, SquareWaveDistribution) and est.converged
    assert est.probabilities.sum() == pytest.approx(1.0) and (est.probabilities >= 0).all()
    grid = np.linspace(0, 1, 20_001)
    w1 = np.trapezoid(np.abs(est.cdf(grid) - stats.beta(2, 5).cdf(grid)), grid)
    assert w1 < 0.02  # 0.0077 when written
    assert est.mean == pytest.approx(2 / 7, abs=0.02)
    # without smoothing the same reports give a rougher histogram: larger total variation
    rough = sw.estimate_distribution(sw.sample(v, rng=4), d=256, smoothing=False, max_iter=300)
    assert np.abs(np.diff(rough.probabilities)).sum() > np.abs(np.diff(est.probabilities)).sum()


@pytest.mark.parametrize("kwargs, error, pattern", [
    ({"counts": [1.0, -1.0]}, InvalidParameterError, r"counts\[1\] = -1\.0"),
    ({"counts": [0.0, 0.0]}, InvalidParameterError, "all be zero"),
    ({"counts": [1.0]}, InvalidParameterError, "one entry per column"),
    ({"counts": [1.0, math.nan]}, InvalidParameterError, r"counts\[1\] is NaN"),
    ({"tol": 0.0}, InvalidParameterError, "tol must be > 0"),
    ({"max_iter": 0}, InvalidParameterError, "max_iter must be >= 1"),
    ({"Q": [[0.5, 0.6], [0.5, 0.5]]}, InvalidMechanismError, "sums to 1.1"),
])
def test_bad_em_input_is_named(kwargs, error, pattern):
    args = {"Q": [[0.9, 0.1], [0.2, 0.8]], "counts": [3.0, 4.0], **kwargs}
    Q, counts = args.pop("Q"), args.pop("counts")
    with pytest.raises(error, match=pattern):
        expectation_maximization(Q, counts, **args)


def test_bad_distribution_requests_are_named():
    sw = SquareWave(1.0)
    with pytest.raises(InvalidParameterError, match="d must be >= 2"):
        sw.estimate_distribution([0.5], d=1)
    with pytest.raises(InvalidParameterError, match=r"reports\[0\] = 5\.0 is outside"):
        sw.estimate_distribution([5.0])
    with pytest.raises(InvalidParameterError, match=r"v\[0\] = 1\.5 is outside"):
        sw.pdf(0.0, [1.5])
