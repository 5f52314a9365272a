"""Tests of :mod:`mechdesign._subsets`: the subset lattice of a small output set as bitmasks
(output j is bit j), and belief and plausibility as its zeta-type transforms.

Pinned, each against a brute-force sum over every pair of sets in exact rationals (the
definitions, Li et al. 2022 s.1: ``bel(E) = sum_{B subset of E} m(B)``,
``pl(E) = sum_{B meets E} m(B)``): the fast zeta transform, the subtraction-free
plausibility (an exact zero stays 0.0, never 1e-17 noise; ``1 - bel(complement)`` does not
keep it), the subset and meets indicators, ``mask_of``, ``scatter`` (repeated masks summed),
and the event-size limit (a typed error naming the count past 16 outputs).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechdesign._subsets import (
    MAX_EVENT_OUTPUTS,
    check_event_size,
    mask_of,
    meets_indicator,
    plausibility,
    scatter,
    subset_indicator,
    zeta_subsets,
)
from mechdesign.errors import SizeLimitError


@st.composite
def set_functions(draw) -> tuple[np.ndarray, int]:
    """A (k, 2^m) non-negative array (masses on every subset, many exact zeros)."""
    m = draw(st.integers(1, 5))
    k = draw(st.integers(1, 3))
    cells = st.one_of(st.just(0.0), st.floats(1e-300, 1.0), st.floats(0.0, 1.0))
    values = draw(st.lists(cells, min_size=k << m, max_size=k << m))
    return np.array(values).reshape(k, 1 << m), m


def brute(f: np.ndarray, m: int, related) -> list[list[Fraction]]:
    """sum of f[x, B] over the sets B related to each E, in exact rationals."""
    return [[sum((Fraction(float(f[x, B])) for B in range(1 << m) if related(B, E)),
                 Fraction(0)) for E in range(1 << m)] for x in range(f.shape[0])]


def assert_close_to(got: np.ndarray, exact: list[list[Fraction]]) -> None:
    for x, row in enumerate(exact):
        for E, value in enumerate(row):
            assert (got[x, E] == 0.0) == (value == 0), (x, E)  # exact zeros stay zeros
            assert got[x, E] == pytest.approx(float(value), rel=1e-13, abs=0), (x, E)


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
@settings(max_examples=80, deadline=None)
@given(set_functions())
def test_zeta_transform_is_the_sum_over_subsets(data):
    f, m = data
    assert_close_to(zeta_subsets(f, m), brute(f, m, lambda B, E: B & ~E == 0))


@settings(max_examples=80, deadline=None)
@given(set_functions())
def test_plausibility_is_the_sum_over_meeting_sets(data):
    f, m = data
    assert_close_to(plausibility(f, m), brute(f, m, lambda B, E: B & E != 0))


def test_plausibility_keeps_an_exact_zero_that_subtraction_loses():
    # masses 0.7, 0.2 and 0.1 on {0}, {1} and {0, 1} of m = 3 outputs: no set meets {2},
    # so pl({2}) = 0 exactly; 1 - bel({0, 1}) would read 1 - (0.7 + 0.2 + 0.1) = 1.1e-16
    f = np.zeros((1, 8))
    f[0, [0b001, 0b010, 0b011]] = [0.7, 0.2, 0.1]
    assert 1.0 - (0.7 + 0.2 + 0.1) != 0.0
    assert plausibility(f, 3)[0, 0b100] == 0.0
    assert plausibility(f, 3)[0, 0b111] == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("m", [1, 2, 4])
def test_indicators(m):
    masks = np.arange(1 << m)
    sub, meets = subset_indicator(masks, m), meets_indicator(masks, m)
    assert sub.shape == meets.shape == (1 << m, 1 << m)
    for B, E in itertools.product(range(1 << m), repeat=2):
        members_b = {j for j in range(m) if B >> j & 1}
        members_e = {j for j in range(m) if E >> j & 1}
        assert sub[B, E] == (members_b <= members_e)
        assert meets[B, E] == bool(members_b & members_e)


def test_mask_of_and_scatter():
    assert mask_of([]) == 0 and mask_of([0, 2]) == 0b101 and mask_of(np.array([3, 3])) == 8
    assert mask_of([69]) == 1 << 69  # a Python int: no overflow past 64 outputs
    # columns 0 and 2 both hold the set {1}: their values are summed at mask 0b10
    out = scatter(np.array([[0.25, 0.5, 0.25]]), np.array([0b10, 0b11, 0b10]), 2)
    np.testing.assert_array_equal(out, [[0.0, 0.0, 0.5, 0.5]])


def test_event_enumeration_is_limited_to_16_outputs():
    assert MAX_EVENT_OUTPUTS == 16
    check_event_size(16)
    with pytest.raises(SizeLimitError, match="17 outputs give 2\\^17 events; event "
                                             "enumeration is limited to 16 outputs"):
        check_event_size(17)
