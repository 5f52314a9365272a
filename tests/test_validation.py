"""Tests of :mod:`mechdesign._validation`: the input checks every layer shares.

Pinned: scalars (real, epsilon, probability, integer) refuse bools, strings, NaN and values
out of range, naming them; matrix entries must be real numbers (numpy would read "0.5" and
True), 2-D, non-empty and finite; rows sum to 1 within ROW_SUM_TOL and are never
renormalised; a prior typed to 6 decimals (within 1e-6 per value of summing to 1) is divided
by its sum with a PriorNormalisedWarning naming the sum, farther off it is refused naming
the sum, and float rounding is kept silently; frozen arrays can never be made writeable;
labels are distinct, hashable, not NaN and not a bare string; the deprecated ``seed`` of a
renamed ``rng`` warns, and both together are refused.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

from mechdesign._validation import (
    NOT_GIVEN,
    PRIOR_NORMALISE_TOL,
    PRIOR_SUM_TOL,
    ROW_SUM_TOL,
    PriorNormalisedWarning,
    as_float_matrix,
    as_prior,
    check_delta,
    check_epsilon,
    check_int,
    check_labels,
    check_probability,
    check_real,
    check_stochastic,
    frozen,
    prior_with_note,
    renamed_rng,
)
from mechdesign.errors import InvalidMechanismError, InvalidParameterError

SIX_DIGITS = [0.333334, 0.333334, 0.333334]  # 1/3 typed to 6 decimals: sums to 1.000002


def zipf_typed(k: int = 40, s: float = 1.1, decimals: int = 6) -> list[float]:
    """A Zipf(s) prior on k values written to ``decimals`` decimals, as a user types it."""
    w = 1.0 / np.arange(1, k + 1) ** s
    return [round(float(v), decimals) for v in w / w.sum()]


# ------------------------------------------------------------------------------ scalars
@pytest.mark.parametrize("call, match", [
    (lambda: check_real(True, "x"), "x must be a real number, got True"),
    (lambda: check_real("1", "x"), "x must be a real number, got '1'"),
    (lambda: check_real(math.nan, "x"), "x must not be NaN, got nan"),
    (lambda: check_epsilon(-1e-3), r"epsilon must be >= 0, got -0\.001"),
    (lambda: check_epsilon(math.inf), "epsilon must be finite, got inf"),
    (lambda: check_probability(1.5, "p"), r"p must lie in \[0, 1\], got 1\.5"),
    (lambda: check_delta(-0.1), r"delta must lie in \[0, 1\], got -0\.1"),
    (lambda: check_int(3.0, "k"), "k must be an integer, got 3.0"),
    (lambda: check_int(True, "k"), "k must be an integer, got True"),
    (lambda: check_int(np.int64(1), "k", 2), "k must be >= 2, got 1"),
])
def test_bad_scalars_are_refused_naming_the_value(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_good_scalars_come_back_as_python_numbers():
    assert check_real(np.float32(0.5), "x") == 0.5 and type(check_real(1, "x")) is float
    assert check_epsilon(math.inf, allow_inf=True) == math.inf
    assert check_probability(0, "p") == 0.0 and check_delta(1) == 1.0
    k = check_int(np.int64(7), "k", 2)
    assert k == 7 and type(k) is int


# ------------------------------------------------------------------------------ matrices
@pytest.mark.parametrize("values, match", [
    ([["0.5", 0.5], [0.5, 0.5]], r"matrix\[0, 0\] = '0.5' is a str"),
    ([[1.0, 0.0], [0.5, True]], r"matrix\[1, 1\] = True is a bool"),
    (np.array([[True, False]]), "has dtype bool"),
    ([0.5, 0.5], r"must be 2-D \(rows are inputs\), got shape \(2,\)"),
    (np.zeros((0, 2)), r"must not be empty, got shape \(0, 2\)"),
    ([[1.0, math.inf]], r"matrix\[0, 1\] = inf is not finite"),
    ([[1.2, -0.2]], r"matrix\[0, 1\] = -0.2 is negative"),
    ([[0.5, 0.5 + 2 * ROW_SUM_TOL]], r"row 0 of matrix sums to 1.000000002.*not 1 "
                                     r"\(tolerance 1e-09\); rows are never renormalised"),
])
def test_bad_matrices_are_refused_naming_the_entry(values, match):
    with pytest.raises(InvalidMechanismError, match=match):
        check_stochastic(values)


def test_a_row_within_the_tolerance_is_kept_as_given():
    rows = [[0.5, 0.5 + ROW_SUM_TOL / 2], [0.25, 0.75]]
    out = check_stochastic(rows)
    np.testing.assert_array_equal(out, rows)  # never renormalised
    source = np.array(rows)
    copy = as_float_matrix(source)
    copy[0, 0] = 9.0  # a fresh copy: the caller's array is untouched
    assert source[0, 0] == 0.5


def test_frozen_arrays_cannot_be_made_writeable():
    a = frozen(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(a, [[0, 1, 2], [3, 4, 5]])
    for view in (a, a[0], a.T, a.base):
        if isinstance(view, np.ndarray):
            with pytest.raises(ValueError):
                view.flags.writeable = True
    with pytest.raises(ValueError):
        a[0, 0] = 1.0


# ------------------------------------------------------------------------------ priors
def test_a_prior_typed_to_6_decimals_is_divided_by_its_sum_with_a_warning():
    assert issubclass(PriorNormalisedWarning, UserWarning)
    with pytest.warns(PriorNormalisedWarning, match=r"prior sums to 1\.000002, not 1") as rec:
        p = as_prior(SIX_DIGITS, 3)
    assert len(rec) == 1 and "divided by its sum" in str(rec[0].message)
    np.testing.assert_allclose(p, np.full(3, 1 / 3), rtol=1e-15)
    assert abs(p.sum() - 1.0) <= 2.3e-16
    # the note returned is the warning's text
    with pytest.warns(PriorNormalisedWarning):
        q, note = prior_with_note(SIX_DIGITS, 3, "pi")
    assert note.startswith("pi sums to 1.000002") and np.array_equal(p, q)


def test_a_40_value_prior_typed_to_6_decimals_is_accepted():
    typed = zipf_typed()
    total = float(np.sum(typed))
    assert PRIOR_SUM_TOL < abs(total - 1) <= 40 * PRIOR_NORMALISE_TOL
    with pytest.warns(PriorNormalisedWarning, match=re.escape(f"sums to {total!r}")):
        p = as_prior(typed, 40)
    np.testing.assert_allclose(p, np.array(typed) / total, rtol=1e-15)


def test_float_rounding_is_kept_as_given_and_silent():
    near = [0.5, 0.5 + PRIOR_SUM_TOL / 2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(as_prior(near, 2), near)
        assert np.array_equal(as_prior(0.3, 2), [0.3, 0.7])


@pytest.mark.parametrize(("prior", "total"), [
    ([0.5, 0.6], "1.1"),
    ([0.3334, 0.3334, 0.3334], "1.0002"),         # 4 decimals: off 2e-4 > 3e-6
    ([0.5, 0.5 + 2.5e-6], "1.0000025"),           # just past 2 x 1e-6
    ([0.25, 0.25, 0.25, 0.25 - 5e-6], "0.999995"),  # below 1 too: off 5e-6 > 4e-6
])
def test_larger_errors_are_refused_naming_the_sum(prior, total):
    with pytest.raises(InvalidParameterError, match=f"sums to {total}") as info:
        as_prior(prior, len(prior))
    assert "correct the values" in str(info.value)


def test_the_boundary_is_one_millionth_per_value():
    with pytest.warns(PriorNormalisedWarning, match="sums to 1.0000015"):
        as_prior([0.5, 0.5 + 1.5e-6], 2)  # off 1.5e-6 <= 2e-6
    with pytest.raises(InvalidParameterError, match=r"prior\[0\]|sums to 1.0000025"):
        as_prior([0.5, 0.5 + 2.5e-6], 2)


def test_a_long_refused_prior_is_not_printed_whole():
    with pytest.raises(InvalidParameterError) as info:
        as_prior(np.full(40, 0.03), 40)  # sums to 1.2
    text = str(info.value)
    assert "(40 values)" in text and len(text) < 400 and "sums to 1.2" in text


@pytest.mark.parametrize("prior, k, match", [
    (0.3, 3, r"a scalar prior \(0.3\) is only meaningful for 2 inputs"),
    (1.5, 2, r"prior must lie in \[0, 1\], got 1.5"),
    ([0.5, 0.5], 3, r"prior must have shape \(3,\), got \(2,\)"),
    ([1.2, -0.2], 2, "prior entries must be finite and >= 0, got -0.2"),
    (["0.5", "0.5"], 2, r"prior\[0\] = '0.5' is a str"),
])
def test_bad_priors_are_refused_naming_the_value(prior, k, match):
    with pytest.raises(InvalidParameterError, match=match):
        as_prior(prior, k)


# ------------------------------------------------------------------------------ labels
def test_labels():
    assert check_labels(None, 3, "inputs") == (0, 1, 2)
    assert check_labels(["a", ("b", 1)], 2, "inputs") == ("a", ("b", 1))
    assert check_labels(iter("xyz"), None, "outputs") == ("x", "y", "z")


@pytest.mark.parametrize("labels, match", [
    ("ab", r"inputs must be a sequence of labels, not the string 'ab' \(write \['ab'\]"),
    ([1, 1], r"inputs labels must be distinct, got \(1, 1\)"),
    ([math.nan, 1], "inputs label nan is \\(or contains\\) NaN"),
    ([("a", math.nan), 1], "is \\(or contains\\) NaN"),
    ([[1], 2], r"inputs label \[1\] is unhashable"),
    ([1], r"inputs has 1 labels for 2 entries"),
    (5, "inputs must be a sequence of labels, got 5"),
])
def test_bad_labels_are_refused(labels, match):
    with pytest.raises(InvalidMechanismError, match=match):
        check_labels(labels, 2, "inputs")


# ------------------------------------------------------------------------------ rng
def test_renamed_rng():
    assert renamed_rng(7, NOT_GIVEN, "f") == 7
    with pytest.warns(DeprecationWarning, match=r"f\(seed=\.\.\.\) is deprecated.*use rng="):
        assert renamed_rng(None, 3, "f") == 3
    with pytest.raises(InvalidParameterError, match="f: give the random source once, as rng"):
        renamed_rng(1, 2, "f")
