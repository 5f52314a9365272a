"""accounting.step_search: the exact step of a monotone predicate (the search behind
calibration), on steps known in advance."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechdesign.accounting.step_search import (
    StepPredicate,
    double_key,
    falsify_monotone,
    from_double_key,
    largest_int,
    search_real,
    smallest_int,
)
from mechdesign.errors import InvalidParameterError


def below(threshold: float) -> StepPredicate:
    """Meets (epsilon 0 <= 0) exactly when x <= threshold."""
    return StepPredicate(lambda x: (0.0 if x <= threshold else 1.0, 0.0, True), 0.0, 0.0,
                         "x", "a step")


@given(st.floats(1e-300, 1e300))
def test_the_real_step_ends_at_two_adjacent_doubles(t):
    good, bad = search_real(below(t), 0.0, math.inf, 0.0)
    assert good == t and bad == np.nextafter(t, math.inf)


def test_keys_order_the_doubles():
    xs = [-1e300, -1.0, -5e-324, 0.0, 5e-324, 1.0, 1e300, math.inf]
    keys = [double_key(x) for x in xs]
    assert keys == sorted(keys) and [from_double_key(k) for k in keys] == xs


@pytest.mark.parametrize("t", [1, 2, 7, 1000, 999_999])
def test_the_integer_steps(t):
    pred = below(t)
    assert largest_int(pred, 1, 10**6) == (t, t + 1)
    first = StepPredicate(lambda n: (0.0 if n >= t else 1.0, 0.0, True), 0.0, 0.0, "n",
                          "a step")
    assert smallest_int(first, 1, 10**6) == (t, None if t == 1 else t - 1)
    # every forward value is computed once: O(log t) of them
    assert len(pred.seen) <= 2 * math.log2(t + 1) + 3


def test_unmeetable_targets_and_non_monotone_predicates_are_refused():
    with pytest.raises(InvalidParameterError, match="cannot be met by a step"):
        search_real(below(-1.0), 0.0, 1.0, 0.0)
    with pytest.raises(InvalidParameterError, match="not even at x = 5"):
        largest_int(below(2), 5, 100)
    # met on [0, 0.25] and again on [0.5, 0.6]: the search ends at one of the two steps,
    # and the check (three points spread geometrically on each side: 0.3 from 0.6, 0.5
    # from 0.25) refuses; a falsifier, not a proof: a narrow bump between its points
    # would pass (documented)
    bumpy = StepPredicate(lambda x: (0.0 if x <= 0.25 or 0.5 <= x <= 0.6 else 1.0, 0.0,
                                     True), 0.0, 0.0, "x", "a bumpy step")
    good, bad = search_real(bumpy, 0.0, 1.0, 0.0)
    assert good in (0.25, 0.6)
    with pytest.raises(InvalidParameterError, match="not monotone in x"):
        falsify_monotone(bumpy, good, bad, 0.0, 1.0, integer=False)
