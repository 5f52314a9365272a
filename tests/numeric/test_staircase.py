"""Tests of :mod:`mechdesign.numeric.staircase`: Geng and Viswanath's staircase mechanism on
[-1, 1], each closed form against the density written here from the paper (IEEE Trans. Inf.
Theory 2016: with ``b = e^-eps`` and sensitivity ``Delta = 2``, the noise density is
``a b^k`` on ``|t|`` in ``[k Delta, (k + gamma) Delta)`` and ``a b^(k+1)`` on
``[(k + gamma) Delta, (k + 1) Delta)``, ``a = (1 - b)/(2 Delta (gamma + (1 - gamma) b))``).

Pinned: normalisation and the variance by quadrature over the steps at eps in
{0.5, 1, 2, 4} and four gammas; the default gamma minimises the variance (brute force) and
equals the paper's quadratic-cost formula, while ``1/(1 + e^(eps/2))`` minimises ``E|N|``
instead; the staircase beats Laplace (by a factor above 9 at eps = 8) and the ratio of
their variances tends to 1 as eps -> 0 (as ``1 - eps^2/24``); the discretised matrix (tails
folded) equals the density integrated over each bin and its epsilon is exactly eps on
{-1, 1} with the bin [1, inf), never above (float measure and exact verifier); a
simulation within 4 standard errors at n = 10^5 (fixed seeds); the density ratio at any
report is at most e^eps and the folded rows sum to 1 (hypothesis); bad parameters raise
typed errors naming the value.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.numeric import MAX_EPSILON, Laplace, Staircase, staircase_gamma
from mechdesign.privacy.verify import verify_exact

DELTA = 2.0
EPSILONS = (0.5, 1.0, 2.0, 4.0)
GAMMAS = (None, 0.0, 0.3, 1.0)


def paper_pieces(eps: float, gamma: float) -> list[tuple[float, float, float]]:
    """``(lo, hi, level)``: the paper's density on ``t >= 0``, piece by piece, for the
    steps whose mass ``b^k`` is above 1e-18 (the rest is below rounding)."""
    b = math.exp(-eps)
    a = (1 - b) / (2 * DELTA * (gamma + (1 - gamma) * b))
    pieces = []
    for k in range(math.ceil(42 / eps)):
        mid = (k + gamma) * DELTA
        if gamma > 0:
            pieces.append((k * DELTA, mid, a * b ** k))
        if gamma < 1:
            pieces.append((mid, (k + 1) * DELTA, a * b ** (k + 1)))
    return pieces


def noise_moment(eps: float, gamma: float, j: int) -> float:
    """``int |t|^j f(t) dt`` over the real line (twice the half line), by quad per piece."""
    return 2 * sum(integrate.quad(lambda t, c=level: t ** j * c, lo, hi, epsabs=0,
                                  epsrel=1e-13)[0] for lo, hi, level in paper_pieces(eps, gamma))


def noise_mass(eps: float, gamma: float, lo: float, hi: float) -> float:
    """``P(lo <= N < hi)``: each piece's level times its overlap with the interval, on both
    sides of 0 (exact integration of a step function)."""
    total = 0.0
    for p_lo, p_hi, level in paper_pieces(eps, gamma):
        for a, c in ((p_lo, p_hi), (-p_hi, -p_lo)):
            total += level * max(0.0, min(c, hi) - max(a, lo))
    return total


def class_gamma(eps: float, gamma: float | None) -> float:
    return Staircase(eps, gamma).gamma


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("gamma", GAMMAS)
def test_normalised_and_variance_by_quadrature(eps, gamma):
    sc = Staircase(eps, gamma)
    g = class_gamma(eps, gamma)
    assert noise_moment(eps, g, 0) == pytest.approx(1.0, abs=1e-12)
    var = noise_moment(eps, g, 2)  # the noise is symmetric: E[N] = 0, Var = E[N^2]
    assert sc.variance(0.3) == pytest.approx(var, rel=1e-10)
    assert sc.worst_case_variance() == sc.variance(-1.0) == sc.variance(1.0)
    b = math.exp(-eps)
    assert sc.a == pytest.approx((1 - b) / (2 * DELTA * (g + (1 - g) * b)), rel=1e-14)
    ts = np.array([0.0, 0.5, 1.9, 2.1, 4.0 + 2 * g + 0.01, 7.3])
    want = [next(level for lo, hi, level in paper_pieces(eps, g) if lo <= t < hi) for t in ts]
    np.testing.assert_allclose(sc.pdf(ts + 0.25, 0.25), want, rtol=1e-13)
    np.testing.assert_allclose(sc.pdf(0.25 - ts, 0.25), want, rtol=1e-13)  # symmetric


@pytest.mark.parametrize("eps", (0.5, 1.0, 2.0, 4.0, 8.0))
def test_default_gamma_minimises_the_variance_and_is_the_papers(eps):
    b = math.exp(-eps)
    paper = -b / (1 - b) + (b - 2 * b ** 2 + 2 * b ** 4 - b ** 5) ** (1 / 3) / (
        2 ** (1 / 3) * (1 - b) ** 2)  # Geng and Viswanath, quadratic cost
    g = staircase_gamma(eps)
    assert g == pytest.approx(paper, rel=1e-9)
    assert Staircase(eps).gamma == g
    gammas = np.linspace(0, 1, 2001)
    variances = np.array([Staircase(eps, x).worst_case_variance() for x in gammas])
    best = Staircase(eps).worst_case_variance()
    assert best <= variances.min() * (1 + 1e-14)
    assert abs(gammas[variances.argmin()] - g) <= 1e-3
    s = math.cbrt(b * (1 + b) / 2)  # Var* = Delta^2 (s^2 + b)/(1 - b)^2
    assert best == pytest.approx(DELTA ** 2 * (s * s + b) / (1 - b) ** 2, rel=1e-12)


@pytest.mark.parametrize("eps", (1.0, 4.0))
def test_the_l1_gamma_minimises_the_mean_absolute_noise_not_the_variance(eps):
    # E|N| = 2 sum_pieces level (hi^2 - lo^2)/2, exact on each piece; the pieces of
    # paper_pieces, vectorised over 999 gammas
    g = np.linspace(0.001, 0.999, 999)[:, None]
    b, k = math.exp(-eps), np.arange(math.ceil(42 / eps))[None, :]
    a = (1 - b) / (2 * DELTA * (g + (1 - g) * b))
    lo, mid, hi = k * DELTA, (k + g) * DELTA, (k + 1) * DELTA
    mean_abs = (a * b ** k * (mid ** 2 - lo ** 2) + a * b ** (k + 1) * (hi ** 2 - mid ** 2)).sum(1)
    gammas = g[:, 0]
    assert mean_abs[0] == pytest.approx(sum(  # the vectorised sum is paper_pieces' sum
        level * (hi * hi - lo * lo) for lo, hi, level in paper_pieces(eps, gammas[0])))
    l1 = 1 / (1 + math.exp(eps / 2))
    assert abs(gammas[int(np.argmin(mean_abs))] - l1) <= 1e-3
    assert Staircase(eps, l1).variance(0.0) > Staircase(eps).variance(0.0)


def test_staircase_beats_laplace_and_matches_it_as_eps_goes_to_zero():
    # Geng and Viswanath: the staircase's variance is Theta(e^{-2 eps/3}) against Laplace's
    # 8/eps^2; at eps = 8 that is 0.01352 against 0.125
    assert Staircase(8.0).variance(0.0) < Laplace(8.0).variance(0.0) / 9
    for eps in (0.01, 0.1, 0.5, 1.0, 2.0, 8.0, MAX_EPSILON):
        assert Staircase(eps).worst_case_variance() < Laplace(eps).worst_case_variance()
    # the ratio tends to 1 as 1 - eps^2/24 + O(eps^4)
    ratios = []
    for eps in (1e-1, 1e-2, 1e-3):
        ratio = Staircase(eps).worst_case_variance() / Laplace(eps).worst_case_variance()
        assert (1 - ratio) == pytest.approx(eps ** 2 / 24, rel=1e-2)
        ratios.append(ratio)
    assert ratios == sorted(ratios) and ratios[-1] < 1


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("gamma", (None, 0.0, 0.7))
def test_matrix_is_the_density_integrated_over_each_bin_with_folded_tails(eps, gamma):
    sc = Staircase(eps, gamma)
    inner = np.r_[np.sort(np.random.default_rng(8).uniform(-9, 9, 6)), -3.0, 1.0, 1.2, 5.0]
    inner = np.unique(inner)  # some edges on step boundaries of x = 1 and x = -1
    xs = [-1.0, -0.35, 0.0, 0.6, 1.0]
    Q = sc.to_matrix(xs, np.r_[-20.0, inner, 20.0])
    bins = [(-math.inf, inner[0]), *itertools.pairwise(inner), (inner[-1], math.inf)]
    want = [[noise_mass(eps, sc.gamma, a - x, c - x) for a, c in bins] for x in xs]
    np.testing.assert_allclose(Q, want, rtol=1e-11, atol=1e-15)
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, rtol=0, atol=1e-14)


@pytest.mark.parametrize("eps", EPSILONS)
def test_matrix_epsilon_is_exact_on_the_tail_and_never_above(eps):
    sc = Staircase(eps)
    # [1, inf) has mass 1/2 at x = 1 and b/2 at x = -1: ratio e^eps exactly
    Q = sc.to_matrix([-1.0, 1.0], [-3.0, 1.0, 3.0])
    np.testing.assert_allclose(Q, [[1 - math.exp(-eps) / 2, math.exp(-eps) / 2],
                                   [0.5, 0.5]], rtol=1e-14)
    assert md.epsilon_ldp(Q) == pytest.approx(eps, rel=1e-12)
    fine = sc.to_matrix(np.linspace(-1, 1, 21), np.linspace(-9, 9, 91))
    assert md.epsilon_ldp(fine) <= eps
    small = sc.to_matrix([-1.0, 0.0, 1.0], [-2.0, -1.0, 0.3, 1.0, 2.0])
    assert verify_exact(small, "ldp", epsilon=eps).holds is True
    M = sc.to_mechanism([-1.0, 1.0], [-3.0, 1.0, 3.0])
    assert M.outputs == ((-math.inf, 1.0), (1.0, math.inf))


def test_sampling_is_unbiased_and_follows_the_steps():
    eps, n = 1.0, 100_000
    sc = Staircase(eps)
    b, g = math.exp(-eps), sc.gamma
    sd = math.sqrt(sc.variance(0.0) / n)
    for x, seed in ((-1.0, 12), (0.4, 13), (1.0, 14)):
        noise = sc.sample(np.full(n, x), rng=seed) - x
        assert abs(noise.mean()) < 4 * sd
        for frac, p in (((np.abs(noise) >= DELTA).mean(), b),  # beyond the first step
                        ((np.abs(noise) / DELTA % 1 < g).mean(), g / (g + (1 - g) * b)),
                        ((noise > 0).mean(), 0.5)):
            assert abs(frac - p) < 4 * math.sqrt(p * (1 - p) / n)
    x = np.random.default_rng(15).uniform(-1, 1, n)
    est = sc.estimate_mean(sc.sample(x, rng=16))
    assert abs(est.mean - x.mean()) < 4 * est.worst_case_standard_error


@settings(max_examples=20, deadline=None)
@given(eps=st.floats(0.01, MAX_EPSILON), gamma=st.floats(0, 1), x=st.floats(-1, 1),
       x2=st.floats(-1, 1), y=st.floats(-50, 50),
       cuts=st.lists(st.floats(-30, 30), min_size=1, max_size=6, unique=True))
def test_density_ratio_and_folded_rows(eps, gamma, x, x2, y, cuts):
    sc = Staircase(eps, gamma)
    # f is non-increasing in |t| and f(|t| + 2) = e^-eps f(|t|): the ratio is <= e^eps
    assert sc.pdf(y, x) <= math.exp(eps) * sc.pdf(y, x2) * (1 + 1e-12)
    grid = np.unique([x, x2, -1.0, 1.0])
    Q = sc.to_matrix(grid, np.r_[-math.inf, np.sort(cuts), math.inf])
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, rtol=0, atol=1e-13)  # mass 1
    assert (Q >= 0).all() and md.epsilon_ldp(Q) <= eps


@pytest.mark.parametrize("kwargs, pattern", [
    ({"epsilon": 0.0}, r"> 0.*0\.0"), ({"epsilon": -2.0}, r">= 0.*-2\.0"),
    ({"epsilon": math.nan}, "NaN.*nan"), ({"epsilon": 1.0, "gamma": math.nan}, "gamma.*nan"),
    ({"epsilon": 1.0, "gamma": -0.1}, r"gamma.*\[0, 1\].*-0\.1"),
    ({"epsilon": 1.0, "gamma": 1.5}, r"gamma.*1\.5"), ({"epsilon": 1.0, "gamma": "0.3"}, "'0.3'"),
])
def test_bad_parameters_are_typed_errors_naming_the_value(kwargs, pattern):
    with pytest.raises(InvalidParameterError, match=pattern):
        Staircase(**kwargs)


def test_bad_inputs_and_reports_are_named():
    sc = Staircase(1.0)
    with pytest.raises(InvalidParameterError, match=r"x\[2\] = -1\.5 is outside"):
        sc.sample([0.0, 1.0, -1.5], rng=0)
    with pytest.raises(InvalidParameterError, match=r"x is NaN"):
        sc.variance(math.nan)
    with pytest.raises(InvalidParameterError, match=r"reports\[0\] = -inf is not finite"):
        sc.estimate_mean([-math.inf])
    with pytest.raises(InvalidParameterError, match=r"epsilon.*-1\.0"):
        staircase_gamma(-1.0)


def test_value_semantics_and_floats_at_the_epsilon_range_ends():
    assert Staircase(1.0) == Staircase(1.0) and Staircase(1.0) != Staircase(1.0, 0.5)
    assert repr(Staircase(1.0, 0.25)) == "Staircase(epsilon=1.0, gamma=0.25)"
    # gamma = 0 and gamma = 1 are the same law (a b^(k+1) on step k, a = (1-b)/(2 Delta b),
    # against a' b^k, a' = (1-b)/(2 Delta))
    assert Staircase(1.0, 0.0).variance(0.0) == pytest.approx(
        Staircase(1.0, 1.0).variance(0.0), rel=1e-14)
    for eps in (1e-6, MAX_EPSILON):
        sc = Staircase(eps)
        assert 0 < sc.gamma < 0.5 and math.isfinite(sc.worst_case_variance())
        y = sc.sample(np.full(1000, -1.0))  # os.urandom
        assert np.isfinite(y).all()
        Q = sc.to_matrix([-1.0, 1.0], [-3.0, -1.0, 1.0, 3.0])
        assert np.isfinite(Q).all() and md.epsilon_ldp(Q) <= eps
