"""Tests of :mod:`mechdesign.numeric.base`: the contract every numeric randomizer keeps.

Pinned on each randomizer of the package: bad parameters, inputs, reports, grids and bin
edges raise typed errors naming the value; sampling is vectorised (shape kept, a float for
a scalar), reproducible with a seed and inside the output range, also from the secure
source; the discretised matrix is row-stochastic and its exact epsilon is at most the
randomizer's (hypothesis, random grids and bins); ``to_mechanism`` is that matrix with its
labels; the mean estimate's standard errors follow their stated formulas; instances are
immutable values. Each mechanism's closed forms are in its own file.
"""

from __future__ import annotations

import doctest
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
import mechdesign.numeric
from mechdesign.errors import InvalidParameterError, ValidationError
from mechdesign.numeric import (
    MAX_EPSILON,
    Duchi,
    Hybrid,
    MeanEstimate,
    Piecewise,
    SquareWave,
)
from mechdesign.numeric.base import REPORT_TOL, check_edges, uniforms

CLASSES = (Duchi, Piecewise, Hybrid, SquareWave)


def all_randomizers(eps: float) -> list:
    return [Duchi(eps), Piecewise(eps), Hybrid(eps), Hybrid(eps, alpha=0.3), SquareWave(eps)]


def test_the_namespace_is_lazy_and_documented():
    assert md.numeric is mechdesign.numeric
    assert "numeric" in dir(md)
    assert doctest.testmod(mechdesign.numeric).failed == 0


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("bad, pattern", [
    (0.0, r"> 0.*0\.0"), (-1.0, r">= 0.*-1\.0"), (math.nan, "NaN.*nan"),
    (math.inf, "at most.*inf"), (MAX_EPSILON * 2, "at most.*40\\.0"), ("1", "real.*'1'"),
    (True, "real.*True"), (None, "real.*None"),
])
def test_bad_epsilon_is_a_typed_error_naming_it(cls, bad, pattern):
    with pytest.raises(InvalidParameterError, match=pattern):
        cls(bad)


@pytest.mark.parametrize("mech, bad", [
    (Duchi(1.0), 1.5), (Duchi(1.0), -1.0000001), (Piecewise(1.0), math.inf),
    (Hybrid(2.0), -3.0), (SquareWave(1.0), -0.1), (SquareWave(1.0), 1.01),
])
def test_inputs_outside_the_domain_are_named(mech, bad):
    x = [mech.low, bad, mech.high]
    with pytest.raises(InvalidParameterError, match=rf"x\[1\] = {re.escape(repr(bad))} is "
                       "outside the input domain"):
        mech.sample(x, rng=0)
    with pytest.raises(InvalidParameterError, match="outside the input domain"):
        mech.variance(bad)


@pytest.mark.parametrize("mech", all_randomizers(1.0))
def test_nan_string_and_bool_inputs_are_refused(mech):
    with pytest.raises(InvalidParameterError, match=r"x\[0, 1\] is NaN"):
        mech.sample([[0.5, math.nan]], rng=0)
    with pytest.raises(InvalidParameterError, match=re.escape("'0.5'")):
        mech.sample(["0.5"], rng=0)
    with pytest.raises(ValidationError, match="bool"):
        mech.sample(np.array([True]), rng=0)
    with pytest.raises(InvalidParameterError, match="NaN"):
        mech.variance(math.nan)


@pytest.mark.parametrize("mech", all_randomizers(0.7))
def test_sample_keeps_the_shape_and_is_reproducible(mech):
    x = np.linspace(mech.low, mech.high, 12).reshape(3, 4)
    a, b = mech.sample(x, rng=5), mech.sample(x, rng=np.random.default_rng(5))
    assert a.shape == (3, 4) and np.array_equal(a, b)
    one = mech.sample(mech.low, rng=1)
    assert isinstance(one, float)
    assert isinstance(mech.variance(mech.high), float)
    assert mech.sample([], rng=1).shape == (0,)
    lo, hi = mech.output_range
    secure = mech.sample(np.full(1000, mech.high))  # os.urandom
    assert secure.shape == (1000,) and ((secure >= lo) & (secure <= hi)).all()


@pytest.mark.parametrize("bad", [-1, 1.5, "seed", object()])
def test_bad_rng_is_a_typed_error(bad):
    with pytest.raises(InvalidParameterError, match="rng"):
        Piecewise(1.0).sample([0.0], rng=bad)


def test_secure_uniforms_are_53_bit_and_in_range():
    u = uniforms((4000,), None)
    assert ((u >= 0) & (u < 1)).all()
    assert np.array_equal(u * 2.0 ** 53, np.floor(u * 2.0 ** 53))
    # the mean of 4000 uniforms is within 5 standard errors (1/sqrt(12 n)) of 1/2 with
    # overwhelming probability (5 sigma: 6e-7)
    assert abs(u.mean() - 0.5) < 5 / math.sqrt(12 * 4000)


@settings(max_examples=40, deadline=None)
@given(which=st.integers(0, 4), eps=st.sampled_from([0.05, 0.5, 1.0, 3.0, 8.0]),
       seed=st.integers(0, 2 ** 32 - 1), size=st.integers(1, 200))
def test_sampled_reports_lie_in_the_output_range(which, eps, seed, size):
    mech = all_randomizers(eps)[which]
    rng = np.random.default_rng(seed)
    x = rng.uniform(mech.low, mech.high, size)
    x[: size // 4] = mech.low  # the ends of the domain, where the windows touch the range
    x[size // 4: size // 2] = mech.high
    y = mech.sample(x, rng=rng)
    lo, hi = mech.output_range
    assert ((y >= lo) & (y <= hi)).all()
    mech.check_reports(y)  # every report it draws is one it accepts


@st.composite
def grids_and_bins(draw):
    which = draw(st.integers(0, 4))
    eps = draw(st.sampled_from([1e-4, 0.1, 0.5, 1.0, 2.0, 4.0, 10.0, MAX_EPSILON]))
    mech = all_randomizers(eps)[which]
    k = draw(st.integers(1, 6))
    pts = draw(st.lists(st.floats(0.0, 1.0), min_size=k, max_size=k, unique=True))
    grid = mech.low + (mech.high - mech.low) * np.array(pts)
    lo, hi = mech.output_range
    m = draw(st.integers(0, 8))
    inner = draw(st.lists(st.floats(0.0, 1.0, exclude_min=True, exclude_max=True),
                          min_size=m, max_size=m, unique=True))
    pad = draw(st.sampled_from([0.0, 0.5]))
    edges = np.unique(np.r_[lo - pad, lo + (hi - lo) * np.array(inner), hi + pad])
    return mech, np.unique(grid), edges


@settings(max_examples=80, deadline=None)
@given(case=grids_and_bins())
def test_discretised_rows_sum_to_one_and_keep_epsilon(case):
    mech, grid, edges = case
    Q = mech.to_matrix(grid, edges)
    assert Q.shape == (grid.size, edges.size - 1)
    assert (Q >= 0).all()
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert md.epsilon_ldp(Q) <= mech.epsilon  # the stored matrix, outward-rounded


@pytest.mark.parametrize("mech", all_randomizers(1.3))
def test_to_mechanism_is_the_matrix_with_labels(mech):
    grid = np.linspace(mech.low, mech.high, 5)
    lo, hi = mech.output_range
    edges = np.linspace(lo, hi, 7)
    M = mech.to_mechanism(grid, edges)
    assert np.array_equal(M.matrix, mech.to_matrix(grid, edges))
    assert M.inputs == tuple(float(g) for g in grid)
    assert M.outputs[0] == (float(edges[0]), float(edges[1])) and len(M.outputs) == 6


@pytest.mark.parametrize("edges, pattern", [
    ([0.0], "at least 2 edges"), ([[0.0, 1.0]], "1-D"), ([-9.0, math.nan, 9.0], r"\[1\] is NaN"),
    ([-9.0, math.inf], r"\[1\] = inf is not finite"), ([-9.0, 1.0, 1.0, 9.0], r"increasing.*1\.0"),
    ([-0.5, 9.0], "cover the output range"), (["a", "b"], "'a'"),
])
def test_bad_bin_edges_are_named(edges, pattern):
    with pytest.raises(InvalidParameterError, match=pattern):
        Piecewise(2.0).to_matrix([0.0], edges)


@pytest.mark.parametrize("grid, pattern", [
    ([], "non-empty"), ([[0.0]], "1-D"), ([0.0, 0.0], "distinct"),
    ([0.0, 2.0], r"grid_in\[1\] = 2\.0 is outside"), ([math.nan], r"grid_in\[0\] is NaN"),
])
def test_bad_grids_are_named(grid, pattern):
    with pytest.raises(InvalidParameterError, match=pattern):
        Duchi(1.0).to_matrix(grid, [-5.0, 0.0, 5.0])


def test_check_edges_accepts_a_covering_grid():
    assert np.array_equal(check_edges([-1, 0, 1], (-1.0, 1.0)), [-1.0, 0.0, 1.0])


@pytest.mark.parametrize("mech", all_randomizers(1.0))
def test_reports_are_checked(mech):
    lo, hi = mech.output_range
    with pytest.raises(InvalidParameterError, match="empty"):
        mech.estimate_mean([])
    with pytest.raises(InvalidParameterError, match=r"reports\[1\] is NaN"):
        mech.estimate_mean([lo, math.nan])
    far = hi + 1.0
    with pytest.raises(InvalidParameterError, match=rf"reports\[0\] = {re.escape(repr(far))}"):
        mech.estimate_mean([far])
    # a report written with fewer digits (just outside the range) is accepted
    mech.estimate_mean([hi + REPORT_TOL * (hi - lo) / 2, lo])


@pytest.mark.parametrize("mech", all_randomizers(1.0))
def test_mean_estimate_is_the_mean_of_the_debiased_reports(mech):
    y = mech.sample(np.linspace(mech.low, mech.high, 50), rng=3)
    est = mech.estimate_mean(y)
    z = mech.debias(y)
    assert isinstance(est, MeanEstimate) and est.n == 50
    assert est.mean == pytest.approx(z.mean(), rel=1e-12, abs=1e-15)
    assert est.standard_error == pytest.approx(z.std(ddof=1) / math.sqrt(50), rel=1e-12)
    assert est.worst_case_standard_error == pytest.approx(
        math.sqrt(mech.worst_case_variance() / 50), rel=1e-12)
    single = mech.estimate_mean(y[:1])
    assert single.standard_error == single.worst_case_standard_error  # one report


def test_randomizers_are_immutable_values():
    pm = Piecewise(1.0)
    with pytest.raises(AttributeError, match="immutable"):
        pm.epsilon = 2.0
    assert pm == Piecewise(1.0) and hash(pm) == hash(Piecewise(1.0))
    assert pm != Piecewise(1.5) and pm != Duchi(1.0)
    assert Hybrid(1.0, alpha=0.2) != Hybrid(1.0)
    assert repr(Hybrid(1.0, alpha=0.25)) == "Hybrid(epsilon=1.0, alpha=0.25)"
    assert repr(SquareWave(2.0)) == "SquareWave(epsilon=2.0)"
    assert SquareWave(1.0).domain == (0.0, 1.0) and Duchi(1.0).domain == (-1.0, 1.0)


@pytest.mark.parametrize("eps", [1e-6, MAX_EPSILON])
def test_extreme_epsilons_stay_finite(eps):
    for mech in all_randomizers(eps):
        grid = np.array([mech.low, mech.high])
        lo, hi = mech.output_range
        Q = mech.to_matrix(grid, np.linspace(lo, hi, 9))
        assert np.isfinite(Q).all() and math.isfinite(mech.worst_case_variance())
        assert md.epsilon_ldp(Q) <= eps


def test_within_epsilon_mixes_a_stored_matrix_whose_ratio_rounds_above_e_eps():
    # rows whose ratio is e^eps in exact arithmetic but one ulp above it as doubles: the
    # repair mixes with the mean row by a weight of order 1e-15 and no more
    from mechdesign.numeric.base import within_epsilon

    eps = 1.0
    hi = np.nextafter(math.exp(eps) / (1 + math.exp(eps)), 1.0)
    Q = np.array([[hi, 1 - hi], [1 - hi, hi]])
    assert md.epsilon_ldp(Q) > eps
    R = within_epsilon(Q, eps)
    assert md.epsilon_ldp(R) <= eps
    assert np.abs(R - Q).max() < 1e-13
    np.testing.assert_allclose(R.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    assert within_epsilon(R, eps) is R  # a matrix that meets epsilon is returned as is
