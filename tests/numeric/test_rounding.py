"""Tests of :mod:`mechdesign.numeric.rounding`: unbiased randomized rounding to a grid.

Pinned: the rounding law (its two points and probabilities) has expectation x and variance
``(x - g_i)(g_(i+1) - x)`` exactly; a simulation agrees within 5 standard errors; rounding
before a discretised randomizer keeps its epsilon (the composite matrix ``R Q`` over inputs
between the grid points, measured exactly) and, with an exact per-bin estimate, its
unbiasedness; bad grids and values outside the grid are typed errors naming them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.numeric import (
    Duchi,
    Piecewise,
    SquareWave,
    randomized_round,
    randomized_round_index,
    rounding_variance,
)


def rounding_law(x: float, grid: np.ndarray) -> np.ndarray:
    """``R[x, :]``: the probability of each grid point, by the rule written out."""
    row = np.zeros(grid.size)
    i = min(int(np.searchsorted(grid, x, side="right")) - 1, grid.size - 2)
    lam = (x - grid[i]) / (grid[i + 1] - grid[i])
    row[i] += 1 - lam
    row[i + 1] += lam
    return row


@settings(max_examples=60, deadline=None)
@given(pts=st.lists(st.floats(-10, 10), min_size=2, max_size=8, unique=True),
       where=st.floats(0.0, 1.0))
def test_expectation_and_variance_are_exact(pts, where):
    grid = np.sort(np.array(pts))
    x = grid[0] + where * (grid[-1] - grid[0])
    law = rounding_law(x, grid)
    mean = law @ grid
    assert mean == pytest.approx(x, abs=1e-12 * (1 + abs(x)))
    var = law @ grid ** 2 - mean ** 2
    assert rounding_variance(x, grid) == pytest.approx(var, abs=1e-9 * (1 + grid @ grid))
    assert grid[0] <= randomized_round(x, grid, rng=0) <= grid[-1]


def test_grid_points_and_ends_are_kept():
    grid = np.array([-1.0, -0.2, 0.5, 1.0])
    idx = randomized_round_index(np.tile(grid, 50), grid, rng=1)
    assert np.array_equal(idx, np.tile(np.arange(4), 50))
    assert rounding_variance(0.5, grid) == 0.0
    assert isinstance(randomized_round_index(0.1, grid, rng=1), int)
    assert isinstance(randomized_round(0.1, grid, rng=1), float)
    assert randomized_round([[0.1, 0.2]], grid, rng=1).shape == (1, 2)


def test_simulation_within_five_standard_errors():
    grid, n = np.linspace(0, 1, 6), 200_000
    for x in (0.05, 0.5, 0.93):
        r = randomized_round(np.full(n, x), grid, rng=2)
        assert set(np.unique(r)) <= set(grid)
        assert abs(r.mean() - x) < 5 * math.sqrt(rounding_variance(x, grid) / n)
    secure = randomized_round(np.full(1000, 0.5), grid)  # os.urandom
    assert set(np.unique(secure)) <= {grid[2], grid[3]}


@pytest.mark.parametrize("mech", [Duchi(1.0), Piecewise(2.0), SquareWave(0.5)])
def test_rounding_first_keeps_the_epsilon_of_the_discretised_randomizer(mech):
    grid = np.linspace(mech.low, mech.high, 9)
    lo, hi = mech.output_range
    Q = mech.to_matrix(grid, np.linspace(lo, hi, 40))
    xs = np.linspace(mech.low, mech.high, 101)  # inputs between the grid points too
    R = np.array([rounding_law(x, grid) for x in xs])
    composite = R @ Q
    assert md.epsilon_ldp(composite) <= md.epsilon_ldp(Q) * (1 + 1e-12)
    assert md.epsilon_ldp(Q) <= mech.epsilon


def test_rounding_then_an_unbiased_randomizer_is_unbiased():
    # Duchi's reports are unbiased for every grid point, so for every x
    # E[Y | x] = sum_g R(g | x) g = x, with variance E[B^2 - G^2] + 0 = B^2 - x^2 - Var(G)
    d, grid = Duchi(1.0), np.linspace(-1, 1, 5)
    for x in (-0.9, 0.1, 0.62):
        law = rounding_law(x, grid)
        mean = law @ grid
        second = d.B ** 2  # Y^2 = B^2 whatever G is
        assert mean == pytest.approx(x, abs=1e-15)
        assert second - mean ** 2 == pytest.approx(d.variance(x), rel=1e-14)
        assert law @ d.variance(grid) + rounding_variance(x, grid) == pytest.approx(
            d.variance(x), rel=1e-14)


def test_end_to_end_with_the_exact_sampler():
    pm = Piecewise(1.0)
    grid = np.linspace(-1, 1, 11)
    edges = np.linspace(-pm.C, pm.C, 21)
    M = pm.to_mechanism(grid, edges)
    rows = randomized_round_index(np.array([-0.93, 0.0, 0.41]), grid, rng=4)
    out = M.sample(rows)  # rng=None: the exact, secure sampler of Mechanism
    assert out.shape == (3,) and ((out >= 0) & (out < 20)).all()


@pytest.mark.parametrize("grid, x, pattern", [
    ([0.0], 0.0, "at least 2 points"), ([0.0, 0.0, 1.0], 0.5, r"increasing.*grid\[1\] = 0\.0"),
    ([0.0, math.inf], 0.5, r"grid\[1\] = inf"), ([0.0, 1.0], 1.5, r"x = 1\.5 is outside"),
    ([0.0, 1.0], [0.2, math.nan], r"x\[1\] is NaN"), ([[0.0, 1.0]], 0.5, "1-D"),
    ([0.0, 1.0], ["0.5"], "'0.5'"),
])
def test_bad_input_is_named(grid, x, pattern):
    with pytest.raises(InvalidParameterError, match=pattern):
        randomized_round(x, grid, rng=0)
    with pytest.raises(InvalidParameterError, match=pattern):
        rounding_variance(x, grid)
