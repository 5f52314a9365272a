"""Tests of :mod:`mechdesign._exact`: the rigorous elementary arithmetic under the catalog,
the measures and the verifier.

Pinned, each against mpmath or exact rationals: the bracket of e^x contains it, is tight at
60 digits, never crosses 1 and clamps large exponents; log_ratio's exact cases (c/0, 0/c,
0/0, equal entries; its 8-ulp bound is held in tests/privacy/test_measure_bounds.py);
directed rounding of rationals gives the adjacent doubles; ``up``, ``down``, ``round_up``,
``up_nonzero`` and ``linear_up`` move outward by the stated steps; ``dexpm1``/``dlog1p``
keep 45 digits where the naive forms cancel; ``outward`` is the nearest double on the
requested side (exact results unwidened; 0, inf, overflow and underflow handled); stored
floats as exact integers over a power of two; exact belief and plausibility sums (Li et al.
2022, s.1) by hand and against the float transforms of :mod:`mechdesign._subsets`.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechdesign._exact import (
    EXP_CLAMP,
    OUTWARD_DIGITS,
    dexpm1,
    dlog1p,
    down,
    dyadic_integers,
    event_sums,
    exp_bracket,
    float_down,
    float_up,
    linear_up,
    log_ratio,
    outward,
    round_up,
    up,
    up_nonzero,
)
from mechdesign._subsets import plausibility, scatter, zeta_subsets

HUGE = float(np.finfo(float).max)


def mpf(v: Fraction | float) -> mp.mpf:
    """An exact rational or float as an mpmath number at the current precision."""
    v = Fraction(v)
    return mp.mpf(v.numerator) / v.denominator


# ------------------------------------------------------------------------------ e^x
@settings(max_examples=100, deadline=None)
@given(st.floats(-60, 60, allow_nan=False))
def test_exp_bracket_contains_e_to_the_x_and_is_tight(x):
    lo, hi = exp_bracket(x)
    with mp.workdps(80):
        true = mp.exp(mp.mpf(x))  # x is a float, read exactly by both
        assert mpf(lo) <= true <= mpf(hi)
    assert (hi - lo) / lo <= Fraction(1, 10**58)  # a few units at 60 digits
    assert (lo < hi) is (x != 0)  # e^0 = 1 is the only exact value


def test_exp_bracket_of_zero_is_exact_and_large_exponents_are_clamped():
    assert exp_bracket(0.0) == (Fraction(1), Fraction(1))
    assert exp_bracket(5000.0) == exp_bracket(EXP_CLAMP)
    assert exp_bracket(-5000.0) == exp_bracket(-EXP_CLAMP)
    # a rational exponent (1/3) is bracketed for itself, not for a float near it
    lo, hi = exp_bracket(Fraction(1, 3), digits=40)
    with mp.workdps(80):
        assert lo < Fraction(mp.nstr(mp.exp(mp.mpf(1) / 3), 45)) < hi


# ------------------------------------------------------------------------------ ln(hi / lo)
def test_log_ratio_exact_cases():
    out = log_ratio([0.5, 0.0, 0.0, 0.25], [0.0, 0.5, 0.0, 0.25])
    assert out[0] == math.inf and out[1] == -math.inf and math.isnan(out[2]) and out[3] == 0.0


# ------------------------------------------------------------------------------ directed rounding
@settings(max_examples=200, deadline=None)
@given(st.integers(-10**30, 10**30), st.integers(1, 10**30))
def test_float_up_and_down_are_the_adjacent_doubles(num, den):
    value = Fraction(num, den)
    lo, hi = float_down(value), float_up(value)
    assert Fraction(lo) <= value <= Fraction(hi)
    if Fraction(lo) == value:
        assert lo == hi  # a double is its own bracket
    else:
        assert math.nextafter(lo, math.inf) == hi


def test_steps_outward():
    assert up(1.0) == 1.0 + 2.0 ** -52 and up(1.0, 2) == 1.0 + 2.0 ** -51
    assert down(1.0) == 1.0 - 2.0 ** -53 and down(0.0) == -5e-324
    np.testing.assert_array_equal(round_up([0.0, math.inf, 1.0, -1.0], 2),
                                  [0.0, math.inf, up(1.0, 2), up(-1.0, 2)])
    np.testing.assert_array_equal(up_nonzero([0.0, 1e-300]), [0.0, up(1e-300)])


@pytest.mark.parametrize("k, a, b", [(3, 0.1, 0.0), (10**6, 1e-7, 0.3), (7, 1 / 3, 1e-300),
                                     (1, 0.5, 0.25)])
def test_linear_up_is_the_smallest_double_at_or_above(k, a, b):
    exact = k * Fraction(a) + Fraction(b)
    v = linear_up(k, a, b)
    assert Fraction(v) >= exact and Fraction(math.nextafter(v, -math.inf)) < exact
    assert linear_up(2, HUGE) == math.inf and linear_up(1, math.inf) == math.inf


# ------------------------------------------------------------------------------ closed forms
@pytest.mark.parametrize("x", ["1e-20", "-3e-13", "1e-11", "0.5", "-0.3", "5"])
def test_dexpm1_and_dlog1p_keep_45_digits(x):
    # at 60 digits: the series below 1e-12, else e^x - 1 (ln(1 + x)) losing at most
    # log10(1/|x|) < 12 digits to cancellation; OUTWARD_MARGIN (1e-40) covers both
    with localcontext() as ctx:
        ctx.prec = OUTWARD_DIGITS
        got_exp, got_log = dexpm1(Decimal(x)), dlog1p(Decimal(x))
    with mp.workdps(80):
        want_exp, want_log = mp.expm1(mp.mpf(x)), mp.log1p(mp.mpf(x))
        assert abs(mp.mpf(str(got_exp)) / want_exp - 1) < mp.mpf("1e-45")
        assert abs(mp.mpf(str(got_log)) / want_log - 1) < mp.mpf("1e-45")


@pytest.mark.parametrize("x", [1e-12, 0.5, 1.0, math.log(3), 20.0, 700.0])
def test_outward_is_the_nearest_double_on_each_side(x):
    up_value = outward(lambda e: e.exp(), x)
    down_value = outward(lambda e: e.exp(), x, direction="down")
    with mp.workdps(80):
        exact = mp.exp(mp.mpf(x))
        assert mp.mpf(down_value) <= exact <= mp.mpf(up_value)
        assert mp.mpf(math.nextafter(up_value, -math.inf)) < exact
        assert mp.mpf(math.nextafter(down_value, math.inf)) > exact


def test_outward_edge_cases():
    assert outward(lambda a, b: a + b, 0.5, 0.25) == 0.75  # exact: not widened
    assert outward(lambda a, b: a + b, 0.5, 0.25, direction="down") == 0.75
    assert outward(lambda a: a - a, 0.3) == 0.0
    assert outward(lambda a: a, math.inf) == math.inf
    assert outward(lambda a: a.exp(), 1e6) == math.inf  # overflow: inf is an upper bound
    assert outward(lambda a: (-a).exp(), 1e7) == 5e-324  # underflow: positive, tiny
    assert outward(lambda a: (-a).exp(), 1e7, direction="down") == 0.0


def test_outward_down_above_the_double_range_is_the_largest_double():
    # e^1000 > 1.8e308: the largest double is the nearest one below (the docstring's rule);
    # it once raised OverflowError (the sign was taken by converting the huge value to float)
    assert outward(lambda a: a.exp(), 1e3, direction="down") == HUGE
    assert outward(lambda a: -a.exp(), 1e3, direction="up") == -HUGE
    assert outward(lambda a: a.exp(), 1e3, direction="up") == math.inf
    assert outward(lambda a: -a.exp(), 1e3, direction="down") == -math.inf


# ------------------------------------------------------------------------------ exact sums
def test_dyadic_integers_are_the_stored_floats_exactly():
    A = np.array([[0.5, 0.25], [0.75, 1e-3], [1 / 3, 5e-324]])
    N, D = dyadic_integers(A)
    assert D & (D - 1) == 0  # a power of two
    for i, row in enumerate(A):
        for j, v in enumerate(row):
            assert Fraction(N[i][j], D) == Fraction(float(v))


def test_event_sums_by_hand():
    # "don't know" in integer units: masses (3, 1, 1) and (1, 3, 1) on {Yes}, {No} and
    # {Yes, No} (bits 0b01, 0b10, 0b11); events {Yes}, {No}, {Yes, No}
    M, masks = [[3, 1, 1], [1, 3, 1]], [0b01, 0b10, 0b11]
    assert event_sums(M, masks, 2, "bel") == [[3, 1, 5], [1, 3, 5]]
    assert event_sums(M, masks, 2, "pl") == [[4, 2, 5], [2, 4, 5]]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4).flatmap(lambda m: st.tuples(
    st.just(m), st.lists(st.integers(1, (1 << m) - 1), min_size=1, max_size=5, unique=True),
    st.lists(st.lists(st.integers(0, 2**20), min_size=5, max_size=5), min_size=1,
             max_size=3))))
def test_event_sums_equal_the_float_transforms(data):
    m, masks, rows = data
    M = [row[:len(masks)] for row in rows]
    F = scatter(np.array(M, dtype=float), np.array(masks), m)  # small integers: exact floats
    for kind, transform in (("bel", zeta_subsets), ("pl", plausibility)):
        exact = np.array(event_sums(M, masks, m, kind), dtype=float)
        np.testing.assert_array_equal(exact, transform(F, m)[:, 1:])
