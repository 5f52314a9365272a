"""Tests of :mod:`mechdesign.numeric.laplace`: the Laplace mechanism on [-1, 1], each closed
form against the density written here from Dwork et al. (TCC 2006: noise of density
``exp(-|t|/s)/(2s)`` with ``s = Delta/eps``, here ``Delta = 2``).

Pinned: normalisation, unbiasedness and the variance ``2 s^2 = 8/eps^2`` by adaptive
quadrature at eps in {0.5, 1, 2, 4}; the discretised matrix (tails folded into the end bins)
equals the quadrature of the density over each bin; its epsilon is exactly eps on {-1, 1}
with the last bin [1, inf) and never above (float measure and the exact rational verifier);
a simulation within 4 standard errors at n = 10^5 (fixed seeds); the density ratio at any
report is at most e^eps and the folded rows sum to 1 (hypothesis); bad parameters, inputs,
reports and edges raise typed errors naming the value.
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.numeric import MAX_EPSILON, Laplace
from mechdesign.numeric.laplace import fold_edges
from mechdesign.privacy.verify import verify_exact

EPSILONS = (0.5, 1.0, 2.0, 4.0)
XS = (-1.0, -0.3, 0.0, 0.7, 1.0)


def paper_density(eps: float):
    """``f(y, x) = exp(-|y - x|/s)/(2s)``, ``s = 2/eps`` (sensitivity 2)."""
    s = 2.0 / eps

    def f(y: float, x: float) -> float:
        return math.exp(-abs(y - x) / s) / (2 * s)

    return f


def moment(eps: float, x: float, k: int, a: float = -math.inf, c: float = math.inf) -> float:
    """``int_a^c y^k f(y | x) dy`` by quad, split at the kink ``y = x``."""
    f = paper_density(eps)
    cuts = sorted({a, c, *([x] if a < x < c else [])})
    return sum(integrate.quad(lambda y: y ** k * f(y, x), lo, hi, epsabs=1e-13,
                              epsrel=1e-12)[0] for lo, hi in itertools.pairwise(cuts))


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("x", XS)
def test_normalised_unbiased_and_variance_by_quadrature(eps, x):
    lap = Laplace(eps)
    assert moment(eps, x, 0) == pytest.approx(1.0, abs=1e-10)
    assert moment(eps, x, 1) == pytest.approx(x, abs=1e-9)
    var = moment(eps, x, 2) - moment(eps, x, 1) ** 2
    assert lap.variance(x) == pytest.approx(var, rel=1e-9)
    assert lap.variance(x) == pytest.approx(8 / eps ** 2, rel=1e-15)  # 2 s^2, s = 2/eps
    assert lap.worst_case_variance() == lap.variance(x)  # the same at every input
    ys = np.array([x - 3.0, x - 0.1, x, x + 0.4, x + 5.0])
    np.testing.assert_allclose(lap.pdf(ys, x), [paper_density(eps)(y, x) for y in ys],
                               rtol=1e-14)


@pytest.mark.parametrize("eps", EPSILONS)
def test_matrix_is_the_density_integrated_over_each_bin_with_folded_tails(eps):
    lap = Laplace(eps)
    inner = np.sort(np.random.default_rng(2).uniform(-4, 4, 6))
    edges = np.r_[-10.0, inner, 10.0]  # the end edges only name the folded bins
    Q = lap.to_matrix(list(XS), edges)
    bins = [(-math.inf, inner[0]), *itertools.pairwise(inner), (inner[-1], math.inf)]
    want = [[moment(eps, x, 0, a, c) for a, c in bins] for x in XS]
    np.testing.assert_allclose(Q, want, rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, rtol=0, atol=1e-14)
    # infinite end edges mean the same bins
    assert np.array_equal(lap.to_matrix(list(XS), np.r_[-math.inf, inner, math.inf]), Q)


@pytest.mark.parametrize("eps", EPSILONS)
def test_matrix_epsilon_is_exact_on_the_tail_and_never_above(eps):
    lap = Laplace(eps)
    # the proof's event [1, inf): 1/2 at x = 1 against e^-eps/2 at x = -1
    Q = lap.to_matrix([-1.0, 1.0], [-3.0, 1.0, 3.0])
    np.testing.assert_allclose(Q, [[1 - math.exp(-eps) / 2, math.exp(-eps) / 2],
                                   [0.5, 0.5]], rtol=1e-14)
    assert md.epsilon_ldp(Q) == pytest.approx(eps, rel=1e-12)
    fine = lap.to_matrix(np.linspace(-1, 1, 21), np.linspace(-8, 8, 81))
    assert md.epsilon_ldp(fine) <= eps
    assert md.epsilon_ldp(fine) == pytest.approx(eps, rel=1e-12)  # the edge at 1 is there
    small = lap.to_matrix([-1.0, 0.0, 1.0], [-2.0, -1.0, 0.5, 1.0, 2.0])
    assert verify_exact(small, "ldp", epsilon=eps).holds is True
    # inputs closer together are more private: the ratio is e^{|x - x'|/s}
    inner = lap.to_matrix([-0.5, 0.5], [-3.0, 0.5, 3.0])
    assert md.epsilon_ldp(inner) == pytest.approx(eps / 2, rel=1e-12)


def test_to_mechanism_labels_the_folded_bins():
    lap = Laplace(1.0)
    M = lap.to_mechanism([-1.0, 1.0], [-2.0, 0.0, 2.0])
    assert M.outputs == ((-math.inf, 0.0), (0.0, math.inf))
    assert M.inputs == (-1.0, 1.0)
    assert np.array_equal(M.matrix, lap.to_matrix([-1.0, 1.0], [-2.0, 0.0, 2.0]))
    # two edges: one bin, the whole line
    assert np.array_equal(lap.to_matrix([0.0, 1.0], [-1.0, 1.0]), [[1.0], [1.0]])


def test_sampling_is_unbiased_and_has_the_laplace_tail():
    eps, n = 1.0, 100_000
    lap = Laplace(eps)
    sd = math.sqrt(lap.variance(0.0) / n)
    for x, seed in ((-1.0, 3), (0.3, 4), (1.0, 5)):
        y = lap.sample(np.full(n, x), rng=seed)
        assert abs(y.mean() - x) < 4 * sd
        # P(Y - x > 2) = e^{-2/s}/2 = e^-eps/2: a binomial proportion
        p = math.exp(-eps) / 2
        assert abs((y - x > 2).mean() - p) < 4 * math.sqrt(p * (1 - p) / n)
    x = np.random.default_rng(6).uniform(-1, 1, n)
    est = lap.estimate_mean(lap.sample(x, rng=7))
    assert abs(est.mean - x.mean()) < 4 * est.worst_case_standard_error
    assert est.worst_case_standard_error == pytest.approx(math.sqrt(8 / n), rel=1e-15)
    assert est.standard_error == pytest.approx(est.worst_case_standard_error, rel=0.02)


@settings(max_examples=20, deadline=None)
@given(eps=st.floats(0.01, MAX_EPSILON), x=st.floats(-1, 1), x2=st.floats(-1, 1),
       y=st.floats(-50, 50), cuts=st.lists(st.floats(-30, 30), min_size=1, max_size=6,
                                           unique=True))
def test_density_ratio_and_folded_rows(eps, x, x2, y, cuts):
    lap = Laplace(eps)
    # the density ratio at any report is e^{(|y - x'| - |y - x|)/s} <= e^eps
    assert lap.pdf(y, x) <= math.exp(eps) * lap.pdf(y, x2) * (1 + 1e-12)
    grid = np.unique([x, x2, -1.0, 1.0])
    Q = lap.to_matrix(grid, np.r_[-math.inf, np.sort(cuts), math.inf])
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, rtol=0, atol=1e-13)  # mass 1
    assert (Q >= 0).all() and md.epsilon_ldp(Q) <= eps


@pytest.mark.parametrize("bad, pattern", [
    (0.0, r"> 0.*0\.0"), (-1.0, r">= 0.*-1\.0"), (math.nan, "NaN.*nan"),
    (math.inf, r"at most.*inf"), ("1", r"real.*'1'"),
])
def test_bad_epsilon_is_a_typed_error_naming_it(bad, pattern):
    with pytest.raises(InvalidParameterError, match=pattern):
        Laplace(bad)


def test_bad_inputs_reports_and_edges_are_named():
    lap = Laplace(1.0)
    with pytest.raises(InvalidParameterError, match=r"x\[1\] = 1\.5 is outside"):
        lap.sample([0.0, 1.5], rng=0)
    with pytest.raises(InvalidParameterError, match=r"x\[0\] is NaN"):
        lap.sample([math.nan], rng=0)
    with pytest.raises(InvalidParameterError, match=r"x = -1\.01 is outside"):
        lap.variance(-1.01)
    with pytest.raises(InvalidParameterError, match=r"reports\[1\] = inf is not finite"):
        lap.estimate_mean([0.3, math.inf])
    with pytest.raises(InvalidParameterError, match=r"reports\[0\] is NaN"):
        lap.estimate_mean([math.nan])
    with pytest.raises(InvalidParameterError, match="empty"):
        lap.estimate_mean([])
    assert lap.estimate_mean([100.0, -40.0]).mean == 30.0  # any real report
    for edges, pattern in [
        ([0.0], "at least 2 edges"), ([-1.0, math.inf, 2.0], re.escape("[1] = inf")),
        ([math.inf, 2.0], re.escape("[0] = inf")), ([0.0, -math.inf], re.escape("[1] = -inf")),
        ([0.0, 1.0, 1.0], r"increasing.*1\.0"), ([0.0, math.nan], r"\[1\] is NaN"),
    ]:
        with pytest.raises(InvalidParameterError, match=pattern):
            lap.to_matrix([0.0], edges)
    with pytest.raises(InvalidParameterError, match=r"grid_in\[1\] = 2\.0 is outside"):
        lap.to_matrix([0.0, 2.0], [-1.0, 1.0])
    assert np.array_equal(fold_edges([-5.0, 0.0, 5.0]), [-math.inf, 0.0, math.inf])


def test_value_semantics_and_floats_at_the_epsilon_range_ends():
    assert Laplace(1.0) == Laplace(1.0) and Laplace(1.0) != Laplace(2.0)
    assert repr(Laplace(0.5)) == "Laplace(epsilon=0.5)"
    assert Laplace(2.0).scale == 1.0 and Laplace(2.0).output_range == (-math.inf, math.inf)
    for eps in (1e-6, MAX_EPSILON):
        lap = Laplace(eps)
        y = lap.sample(np.full(1000, 1.0))  # os.urandom
        assert np.isfinite(y).all()
        Q = lap.to_matrix([-1.0, 1.0], [-3.0, -1.0, 1.0, 3.0])
        assert np.isfinite(Q).all() and md.epsilon_ldp(Q) <= eps
