"""Tests of :mod:`mechdesign.numeric.hybrid`: Wang et al.'s Hybrid mechanism (ICDE 2019,
s. III-C), Piecewise with probability alpha and Duchi et al. otherwise.

Pinned: the threshold eps* is the paper's closed form, the root of the cubics of the
docstring, and the point where Duchi stops being the best mixture; the alpha rule
``1 - e^(-eps/2)`` above it and 0 below is the minimiser of the worst-case variance over a
fine grid of alphas (brute force); the worst case is then at most min(Duchi, Piecewise) at
each eps and constant in x; the variance is the mixture's, by quadrature of the
Piecewise density plus the Duchi atoms; the matrix's epsilon is exactly eps where the
proof says and never above; a simulation within 5 standard errors.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, optimize

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.numeric import HYBRID_THRESHOLD, Duchi, Hybrid, Piecewise, hybrid_alpha

EPSILONS = (0.5, 1.0, 2.0, 4.0)


def worst_case(eps: float, alpha: float) -> float:
    """max over a fine x grid of alpha V_PM + (1 - alpha) V_D, from the two closed forms
    written out (Wang et al., Lemma 1 and s. III-A)."""
    t = math.exp(eps / 2)
    B = (math.exp(eps) + 1) / (math.exp(eps) - 1)
    x = np.linspace(-1, 1, 401)
    v_pm = x ** 2 / (t - 1) + (t + 3) / (3 * (t - 1) ** 2)
    v_d = B ** 2 - x ** 2
    return float((alpha * v_pm + (1 - alpha) * v_d).max())


def test_threshold_is_the_root_of_the_cubics():
    # Wang et al.: eps* = ln((-5 + 2 (6353 - 405 sqrt 241)^(1/3)
    #                        + 2 (6353 + 405 sqrt 241)^(1/3)) / 27)
    s = math.exp(HYBRID_THRESHOLD)
    assert 9 * s ** 3 + 5 * s ** 2 - 13 * s - 49 == pytest.approx(0.0, abs=1e-11)
    t = math.sqrt(s)
    assert 3 * t ** 3 - t ** 2 + t - 7 == pytest.approx(0.0, abs=1e-12)
    root = optimize.brentq(lambda u: 3 * u ** 3 - u ** 2 + u - 7, 1.0, 2.0, xtol=1e-15)
    assert HYBRID_THRESHOLD == pytest.approx(2 * math.log(root), rel=1e-13)
    assert HYBRID_THRESHOLD == pytest.approx(0.6093524930273, abs=1e-12)
    # there the variance of Piecewise at x = 0 equals Duchi's B^2 (L0's slope changes sign)
    for eps, sign in ((HYBRID_THRESHOLD - 1e-6, 1), (HYBRID_THRESHOLD + 1e-6, -1)):
        slope = Piecewise(eps).variance(0.0) - Duchi(eps).variance(0.0)
        assert np.sign(slope) == sign


@pytest.mark.parametrize("eps", [0.1, 0.3, 0.6, 0.62, 0.8, *EPSILONS, 8.0])
def test_alpha_rule_minimises_the_worst_case_variance(eps):
    alphas = np.linspace(0, 1, 2001)
    brute = min(worst_case(eps, a) for a in alphas)
    chosen = hybrid_alpha(eps)
    assert chosen == pytest.approx(1 - math.exp(-eps / 2) if eps > HYBRID_THRESHOLD else 0.0,
                                   rel=1e-14)
    assert worst_case(eps, chosen) <= brute * (1 + 1e-12)
    assert Hybrid(eps).worst_case_variance() == pytest.approx(worst_case(eps, chosen), rel=1e-12)


@pytest.mark.parametrize("eps", [0.2, HYBRID_THRESHOLD, *EPSILONS, 10.0])
def test_worst_case_is_at_most_duchi_and_piecewise(eps):
    h = Hybrid(eps)
    assert h.worst_case_variance() <= min(Duchi(eps).worst_case_variance(),
                                          Piecewise(eps).worst_case_variance()) * (1 + 1e-14)


@pytest.mark.parametrize("eps", [e for e in EPSILONS if e > HYBRID_THRESHOLD])
def test_above_the_threshold_the_variance_is_flat_and_closed_form(eps):
    h = Hybrid(eps)
    t = math.exp(eps / 2)
    B = (t ** 2 + 1) / (t ** 2 - 1)
    v = h.variance(np.linspace(-1, 1, 11))
    np.testing.assert_allclose(v, (t + 3) / (3 * t * (t - 1)) + B ** 2 / t, rtol=1e-12)


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("alpha", [None, 0.0, 0.35, 1.0])
@pytest.mark.parametrize("x", [-1.0, -0.2, 0.5, 1.0])
def test_mean_and_variance_by_quadrature(eps, alpha, x):
    h = Hybrid(eps, alpha)
    pm, d = Piecewise(eps), Duchi(eps)
    left, right = pm.window(x)
    cuts = sorted({-pm.C, left, right, pm.C})

    def pm_moment(k):
        return sum(integrate.quad(lambda y: y ** k * pm.pdf(y, x), a, c, epsabs=1e-13)[0]
                   for a, c in itertools.pairwise(cuts))

    def d_moment(k):
        return d.B ** k * d.p_plus(x) + (-d.B) ** k * (1 - d.p_plus(x))

    a = h.alpha
    m1 = a * pm_moment(1) + (1 - a) * d_moment(1)
    m2 = a * pm_moment(2) + (1 - a) * d_moment(2)
    assert m1 == pytest.approx(x, abs=1e-11)
    assert h.variance(x) == pytest.approx(m2 - m1 ** 2, rel=1e-10)


@pytest.mark.parametrize("eps", EPSILONS)
def test_matrix_epsilon_exact_with_an_atom_bin_and_never_above(eps):
    h = Hybrid(eps)
    C, B = h.piecewise.C, h.duchi.B
    assert 1 < B < C
    # +B alone in a small bin inside [1, C]: both parts have ratio e^eps there
    edges = [-C, -1.0, B - 1e-3, B + 1e-3, C]
    assert md.epsilon_ldp(h.to_matrix([-1.0, 1.0], edges)) == pytest.approx(eps, rel=1e-12)
    fine = h.to_matrix(np.linspace(-1, 1, 17), np.linspace(-C, C, 120))
    assert md.epsilon_ldp(fine) <= eps
    assert np.allclose(fine.sum(axis=1), 1.0, atol=1e-12)


def test_alpha_zero_is_duchi_and_one_is_piecewise():
    eps, grid = 1.5, np.linspace(-1, 1, 5)
    d, pm = Duchi(eps), Piecewise(eps)
    edges = np.linspace(-pm.C, pm.C, 9)
    np.testing.assert_allclose(Hybrid(eps, 0.0).to_matrix(grid, edges), d.to_matrix(grid, edges))
    np.testing.assert_allclose(Hybrid(eps, 1.0).to_matrix(grid, edges), pm.to_matrix(grid, edges))
    assert Hybrid(eps, 0.0).output_range == d.output_range
    assert Hybrid(0.3).alpha == 0.0 and Hybrid(0.3).output_range == Duchi(0.3).output_range


@pytest.mark.parametrize("eps", EPSILONS)
def test_simulation_within_five_standard_errors(eps):
    h, n = Hybrid(eps), 200_000
    for x in (-1.0, 0.0, 0.7):
        y = h.sample(np.full(n, x), rng=3)
        assert abs(y.mean() - x) < 5 * math.sqrt(h.variance(x) / n)
        atoms = np.isclose(np.abs(y), h.duchi.B, rtol=0, atol=1e-15)
        share = 1 - h.alpha  # Piecewise puts no mass on the two points
        assert abs(atoms.mean() - share) < 5 * math.sqrt(share * (1 - share) / n) + 1e-12


@pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan, "0.5"])
def test_bad_alpha_is_named(bad):
    with pytest.raises(InvalidParameterError, match="alpha"):
        Hybrid(1.0, bad)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        hybrid_alpha(-1.0)
