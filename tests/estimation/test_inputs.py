"""Shared input checks of the estimation modules (mechdesign.estimation.inputs): values pass
through unchanged (never renormalised or clipped), bad values raise a typed error naming them."""

from __future__ import annotations

import numpy as np
import pytest

from mechdesign.errors import InvalidParameterError
from mechdesign.estimation.inputs import (
    PRIOR_SUM_TOL,
    as_counts,
    as_prior,
    as_probability_array,
    scalar_or_array,
)


def test_as_prior_scalar_means_the_first_input_for_two_inputs():
    np.testing.assert_array_equal(as_prior(0.3, 2), [0.3, 0.7])
    np.testing.assert_array_equal(as_prior([0.2, 0.3, 0.5], 3), [0.2, 0.3, 0.5])
    # within the tolerance the vector is kept as given, not renormalised
    near = [0.5, 0.5 + PRIOR_SUM_TOL / 2]
    np.testing.assert_array_equal(as_prior(near, 2), near)


def test_as_counts_keeps_weighted_counts_and_leading_axes():
    out = as_counts([[1.5, 0.0, 2.0], [3, 4, 5]], 3)
    assert out.dtype == float and out.shape == (2, 3)
    assert out[0, 0] == 1.5


def test_as_probability_array_broadcast_parameters():
    assert as_probability_array(0.25, "p").shape == ()
    np.testing.assert_array_equal(as_probability_array([0.0, 1.0], "p"), [0.0, 1.0])


def test_scalar_or_array():
    assert scalar_or_array(np.asarray(0.5)) == 0.5
    assert isinstance(scalar_or_array(np.asarray(0.5)), float)
    arr = np.array([0.5])
    assert scalar_or_array(arr) is arr


@pytest.mark.parametrize(("call", "needle"), [
    (lambda: as_prior(0.3, 3), "vector of length 3"),
    (lambda: as_prior([0.5, 0.5], 3), "(3,)"),
    (lambda: as_prior([0.5, 0.6], 2), "sums to 1.1"),
    (lambda: as_prior([1.5, -0.5], 2), "-0.5"),
    (lambda: as_prior(["a", "b"], 2), "prior[0] = 'a' is a str"),
    (lambda: as_counts([1, 2], 3), "(2,)"),
    (lambda: as_counts([1, np.inf], 2), "inf"),
    (lambda: as_counts([[1, -2]], 2), "-2"),
    (lambda: as_probability_array([0.5, 1.2], "lam"), "lam must lie in [0, 1], got 1.2"),
    (lambda: as_probability_array(np.nan, "p"), "nan"),
])
def test_bad_input_raises_typed_error_naming_the_value(call, needle):
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert needle in str(info.value)
