"""Tests of :mod:`mechdesign.numeric.duchi`: Duchi, Jordan and Wainwright's two-report
randomizer, each closed form against a computation written here from the paper's
definition (Wang et al. 2019, s. III-A: ``P(+B | x) = (e^eps - 1) x / (2 e^eps + 2) + 1/2``,
``B = (e^eps + 1)/(e^eps - 1)``).

Pinned: the law, unbiasedness and the variance by exact summation over the two reports at
eps in {0.5, 1, 2, 4}; a simulation within 5 standard errors (fixed seed); the matrix on
{-1, 1} x {-B, +B} has epsilon exactly eps and finer discretisations never more; reports
that are not +-B are refused by name.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.numeric import Duchi

EPSILONS = (0.5, 1.0, 2.0, 4.0)
XS = (-1.0, -0.6, 0.0, 0.25, 1.0)


def paper_law(x: float, eps: float) -> tuple[float, dict[float, float]]:
    """``(B, {report: probability})`` straight from the paper's formulas."""
    e = math.exp(eps)
    B = (e + 1) / (e - 1)
    plus = (e - 1) * x / (2 * e + 2) + 0.5
    return B, {B: plus, -B: 1 - plus}


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("x", XS)
def test_law_mean_and_variance_by_exact_summation(eps, x):
    d = Duchi(eps)
    B, law = paper_law(x, eps)
    assert d.B == pytest.approx(B, rel=1e-14)
    assert d.p_plus(x) == pytest.approx(law[B], rel=1e-14)
    mean = sum(y * p for y, p in law.items())
    second = sum(y * y * p for y, p in law.items())
    assert mean == pytest.approx(x, abs=1e-14)                      # unbiased
    assert d.variance(x) == pytest.approx(second - mean ** 2, rel=1e-12)  # B^2 - x^2
    lo, hi = d.output_range
    Q = d.to_matrix([x], [lo, 0.0, hi])
    np.testing.assert_allclose(Q[0], [law[-B], law[B]], rtol=1e-14)


@pytest.mark.parametrize("eps", EPSILONS)
def test_worst_case_is_at_zero(eps):
    d = Duchi(eps)
    xs = np.linspace(-1, 1, 2001)
    assert d.worst_case_variance() == pytest.approx(d.variance(xs).max(), rel=1e-15)
    assert d.worst_case_variance() == pytest.approx(d.variance(0.0), rel=1e-15)


@pytest.mark.parametrize("eps", EPSILONS)
def test_simulation_within_five_standard_errors(eps):
    d, n = Duchi(eps), 200_000
    for x in (-0.8, 0.0, 0.5):
        y = d.sample(np.full(n, x), rng=11)
        se = math.sqrt(d.variance(x) / n)
        assert abs(y.mean() - x) < 5 * se
        # the fraction of +B is a binomial proportion
        frac_se = math.sqrt(d.p_plus(x) * (1 - d.p_plus(x)) / n)
        assert abs((y > 0).mean() - d.p_plus(x)) < 5 * frac_se


@pytest.mark.parametrize("eps", EPSILONS)
def test_matrix_epsilon_is_exact_at_the_ends_and_never_above(eps):
    d = Duchi(eps)
    # {-1, 1} x {-B, +B}: the ratio (B + 1)/(B - 1) = e^eps of the proof
    Q = d.to_matrix([-1.0, 1.0], [-d.B, 0.0, d.B])
    assert md.epsilon_ldp(Q) == pytest.approx(eps, rel=1e-12)
    fine = d.to_matrix(np.linspace(-1, 1, 41), np.linspace(-d.B, d.B, 50))
    assert md.epsilon_ldp(fine) <= eps * (1 + 1e-12)
    # an interior grid is strictly more private: the ratio is (B + a)/(B - a) at |x| <= a
    inner = d.to_matrix([-0.5, 0.5], [-d.B, 0.0, d.B])
    assert md.epsilon_ldp(inner) == pytest.approx(math.log((d.B + 0.5) / (d.B - 0.5)), rel=1e-12)


def test_reports_must_be_plus_or_minus_b():
    d = Duchi(1.0)
    est = d.estimate_mean([d.B, -d.B, d.B])
    assert est.mean == pytest.approx(d.B / 3)
    with pytest.raises(InvalidParameterError, match=r"reports\[1\] = 0\.5 is not a report"):
        d.estimate_mean([d.B, 0.5])
    with pytest.raises(InvalidParameterError, match=r"x = 2\.0 is outside"):
        d.p_plus(2.0)


def test_a_bin_edge_on_an_atom_puts_it_in_the_bin_that_starts_there():
    # bins are [e_j, e_{j+1}), the last one closed: +B on an inner edge belongs to the right
    d = Duchi(1.0)
    Q = d.to_matrix([1.0], [-d.B, d.B, d.B + 1])
    np.testing.assert_allclose(Q[0], [1 - d.p_plus(1.0), d.p_plus(1.0)])
