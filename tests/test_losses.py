"""Tests of :mod:`mechdesign.losses`: loss matrices ``L[x, y]``, the cost of reporting output
y when the input is x.

Pinned, against the matrices written out by hand: Hamming, absolute and squared losses on
k inputs and m outputs; ``from_distance`` copies and refuses a negative entry (naming it)
and a non-finite one; ``check_loss`` accepts gains (negative entries) but refuses a range
that overflows a double; k and m are validated; the builders problem files name.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mechdesign import losses
from mechdesign.errors import InvalidMechanismError, InvalidParameterError


def test_hamming():
    np.testing.assert_array_equal(losses.hamming(3), [[0, 1, 1], [1, 0, 1], [1, 1, 0]])
    np.testing.assert_array_equal(losses.hamming(2, 3), [[0, 1, 1], [1, 0, 1]])


def test_absolute_and_squared():
    np.testing.assert_array_equal(losses.absolute(3), [[0, 1, 2], [1, 0, 1], [2, 1, 0]])
    np.testing.assert_array_equal(losses.absolute(2, 4), [[0, 1, 2, 3], [1, 0, 1, 2]])
    np.testing.assert_array_equal(losses.squared(3), [[0, 1, 4], [1, 0, 1], [4, 1, 0]])
    assert losses.squared(4, 2).shape == (4, 2) and losses.squared(4, 2)[3, 0] == 9.0
    for L in (losses.hamming(4), losses.absolute(4), losses.squared(4)):
        assert L.dtype == float


@pytest.mark.parametrize("call, match", [
    (lambda: losses.hamming(1), "k must be >= 2, got 1"),
    (lambda: losses.absolute(3, 0), "m must be >= 1, got 0"),
    (lambda: losses.squared(2.5), "k must be an integer, got 2.5"),
    (lambda: losses.from_distance([[0, -1.0]]), r"loss\[0, 1\] = -1.0 is negative"),
    (lambda: losses.check_loss([[1e308, -1e308]]),
     r"the loss's range overflows a double: max 1e\+308 - min -1e\+308"),
])
def test_bad_losses_are_typed_errors_naming_the_value(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_non_finite_and_non_numeric_losses_are_refused():
    with pytest.raises(InvalidMechanismError, match=r"loss\[0, 1\] = nan is not finite"):
        losses.from_distance([[0, math.nan]])
    with pytest.raises(InvalidMechanismError, match=r"loss\[0, 0\] = '1' is a str"):
        losses.check_loss([["1", 0]])


def test_from_distance_copies_and_check_loss_allows_gains():
    D = np.array([[0.0, 2.0], [2.0, 0.0]])
    L = losses.from_distance(D)
    L[0, 1] = 5.0
    assert D[0, 1] == 2.0
    gains = losses.check_loss([[-1.0, 0.5], [0.0, -2.0]])  # negative entries are gains
    np.testing.assert_array_equal(gains, [[-1.0, 0.5], [0.0, -2.0]])


def test_builders():
    assert losses.BUILDERS == {"hamming": losses.hamming, "absolute": losses.absolute,
                               "squared": losses.squared}
