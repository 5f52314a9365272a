"""Tests of :mod:`mechdesign.numeric.piecewise`: the Piecewise mechanism of Wang et al.
(ICDE 2019), each closed form against the density written here from the paper (Algorithm 2:
``C = (e^(eps/2) + 1)/(e^(eps/2) - 1)``, window ``[l(x), r(x)]`` with
``l(x) = (C + 1) x / 2 - (C - 1)/2`` and ``r(x) = l(x) + C - 1``, density
``p = (e^eps - e^(eps/2))/(2 e^(eps/2) + 2)`` on it and ``p / e^eps`` elsewhere on [-C, C]).

Pinned, at eps in {0.5, 1, 2, 4} and several x: normalisation, unbiasedness and the variance
``x^2/(t - 1) + (t + 3)/(3 (t - 1)^2)`` (Lemma 1) by adaptive quadrature of that density;
the discretised matrix equals the quadrature of the density over each bin; its epsilon is
exactly eps on {-1, 1} and on a fine grid, never above; a simulation (mean, variance,
window frequency) within 5 standard errors at a fixed seed.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate

import mechdesign as md
from mechdesign.numeric import Piecewise

EPSILONS = (0.5, 1.0, 2.0, 4.0)
XS = (-1.0, -0.4, 0.0, 0.3, 0.85, 1.0)


def paper_density(eps: float):
    """``(C, f)`` with ``f(y, x)`` the paper's density."""
    t = math.exp(eps / 2)
    C = (t + 1) / (t - 1)
    p = (math.exp(eps) - t) / (2 * t + 2)

    def f(y: float, x: float) -> float:
        left = (C + 1) * x / 2 - (C - 1) / 2
        right = left + C - 1
        if left <= y <= right:
            return p
        return p / math.exp(eps) if -C <= y <= C else 0.0

    return C, f


def moment(eps: float, x: float, k: int, a: float | None = None, c: float | None = None):
    """``int_a^c y^k f(y | x) dy`` by quad on the pieces where f is constant."""
    C, f = paper_density(eps)
    left = (C + 1) * x / 2 - (C - 1) / 2
    a = -C if a is None else a
    c = C if c is None else c
    jumps = [v for v in (left, left + C - 1) if a + 1e-12 < v < c - 1e-12]  # no slivers
    cuts = sorted({a, c, *jumps})
    return sum(integrate.quad(lambda y: y ** k * f(y, x), lo, hi, epsabs=1e-13,
                              epsrel=1e-13)[0] for lo, hi in itertools.pairwise(cuts))


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("x", XS)
def test_normalised_unbiased_and_variance_by_quadrature(eps, x):
    pm = Piecewise(eps)
    C, _ = paper_density(eps)
    assert pm.C == pytest.approx(C, rel=1e-13)
    assert moment(eps, x, 0) == pytest.approx(1.0, abs=1e-12)
    assert moment(eps, x, 1) == pytest.approx(x, abs=1e-11)
    var = moment(eps, x, 2) - moment(eps, x, 1) ** 2
    assert pm.variance(x) == pytest.approx(var, rel=1e-10)
    t = math.exp(eps / 2)  # Lemma 1 of the paper, written out
    assert pm.variance(x) == pytest.approx(x ** 2 / (t - 1) + (t + 3) / (3 * (t - 1) ** 2),
                                           rel=1e-13)


@pytest.mark.parametrize("eps", EPSILONS)
def test_class_density_is_the_papers(eps):
    pm = Piecewise(eps)
    _, f = paper_density(eps)
    ys = np.linspace(-pm.C - 0.5, pm.C + 0.5, 301)
    for x in XS:
        left, right = pm.window(x)
        keep = (np.abs(ys - left) > 1e-9) & (np.abs(ys - right) > 1e-9)  # not on a jump
        np.testing.assert_allclose(pm.pdf(ys[keep], x), [f(y, x) for y in ys[keep]],
                                   rtol=1e-12)
    assert pm.p / pm.q == pytest.approx(math.exp(eps), rel=1e-13)


@pytest.mark.parametrize("eps", EPSILONS)
def test_matrix_is_the_density_integrated_over_each_bin(eps):
    pm = Piecewise(eps)
    edges = np.r_[-pm.C, np.sort(np.random.default_rng(1).uniform(-pm.C, pm.C, 7)), pm.C]
    Q = pm.to_matrix(list(XS), edges)
    want = [[moment(eps, x, 0, a, c) for a, c in itertools.pairwise(edges)]
            for x in XS]
    np.testing.assert_allclose(Q, want, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("eps", EPSILONS)
def test_worst_case_is_at_the_ends(eps):
    pm = Piecewise(eps)
    xs = np.linspace(-1, 1, 2001)
    assert pm.worst_case_variance() == pytest.approx(pm.variance(xs).max(), rel=1e-15)
    assert pm.worst_case_variance() == pytest.approx(pm.variance(1.0), rel=1e-15)


@pytest.mark.parametrize("eps", EPSILONS)
def test_matrix_epsilon_exact_where_the_windows_separate(eps):
    pm = Piecewise(eps)
    # the proof's event: [-C, -1] is the window of x = -1 and outside that of x = 1
    Q = pm.to_matrix([-1.0, 1.0], [-pm.C, -1.0, 1.0, pm.C])
    assert md.epsilon_ldp(Q) == pytest.approx(eps, rel=1e-12)
    # a fine grid holding -1 and 1 with fine bins: a bin inside [-C, -1] attains it too
    grid = np.linspace(-1, 1, 21)
    fine = pm.to_matrix(grid, np.linspace(-pm.C, pm.C, 301))
    assert md.epsilon_ldp(fine) == pytest.approx(eps, rel=1e-12)
    assert md.epsilon_ldp(fine) <= eps * (1 + 1e-12)
    # coarse bins average the two levels: strictly less
    coarse = pm.to_matrix(grid, [-pm.C, 0.0, pm.C])
    assert md.epsilon_ldp(coarse) < eps - 1e-3


@pytest.mark.parametrize("eps", EPSILONS)
def test_simulation_within_five_standard_errors(eps):
    pm, n = Piecewise(eps), 200_000
    t = math.exp(eps / 2)
    for x in (-1.0, 0.2, 0.9):
        y = pm.sample(np.full(n, x), rng=7)
        var = pm.variance(x)
        assert abs(y.mean() - x) < 5 * math.sqrt(var / n)
        fourth = moment(eps, x, 4) - 4 * x * moment(eps, x, 3) + 6 * x ** 2 * moment(
            eps, x, 2) - 3 * x ** 4  # E[(Y - x)^4]
        assert abs(y.var() - var) < 5 * math.sqrt((fourth - var ** 2) / n)
        left, right = pm.window(x)
        inside = ((y >= left) & (y <= right)).mean()
        share = t / (t + 1)
        assert abs(inside - share) < 5 * math.sqrt(share * (1 - share) / n)
        # and below the window: a share (l + C)/(C + 1) of the rest
        below = (y < left).mean()
        want = (1 - share) * (left + pm.C) / (pm.C + 1)
        assert abs(below - want) < 5 * math.sqrt(want * (1 - want) / n) + 1e-12


def test_the_mean_estimate_is_unbiased_in_simulation():
    pm = Piecewise(1.0)
    x = np.random.default_rng(4).uniform(-1, 1, 100_000)
    est = pm.estimate_mean(pm.sample(x, rng=5))
    exact_se = math.sqrt(pm.variance(x).sum()) / x.size
    assert abs(est.mean - x.mean()) < 5 * exact_se
    assert exact_se <= est.standard_error <= est.worst_case_standard_error * 1.1
