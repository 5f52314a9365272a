"""Shuffle computations at the edges found by a review (2026-12-02): no OverflowError at
large epsilon0 + epsilon, and sizes far past the limit refused at once."""

from __future__ import annotations

import tracemalloc

import pytest

from mechdesign.accounting import exact_shuffle_delta, exact_shuffle_epsilon, shuffle_delta
from mechdesign.errors import SizeLimitError
from mechdesign.testing.timing import WorkClock


def test_no_overflow_at_large_epsilons():
    # e^(eps + eps0) overflows a double; the clone bound is computed in log space there.
    # Two users of RR with flip probability 1e-200 (eps0 = 460.5): at eps = 300 they are
    # told apart almost surely (delta ~ 1), and no delta below 1e-300 holds below eps0
    Q = [[1 - 1e-200, 1e-200], [1e-200, 1 - 1e-200]]
    assert shuffle_delta(460.5, 2, 300.0).upper == pytest.approx(1.0, abs=1e-12)
    exact = exact_shuffle_delta(Q, 2, 300.0)
    assert exact.delta <= exact.clone_bound + 1e-12 and exact.delta == pytest.approx(1.0)
    assert exact_shuffle_epsilon(Q, 2, 1e-300).epsilon <= 460.5170185988095 + 1e-12
    # (the ordinary range keeps its code path: test_clone_delta_matches_mpmath)


@pytest.mark.parametrize("n, Q", [
    (10**6, [[0.7, 0.3], [0.3, 0.7]]),
    (10**9, [[0.7, 0.3], [0.3, 0.7]]),
    (3000, [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]]),
])
def test_sizes_far_past_the_limit_are_refused_at_once(n, Q):
    # was 0.6 s at 1e6 and an OOM kill at 1e9; "at once" is counted, not timed: before any
    # work that grows with n (measured: about 570 Python lines and a 9 KB peak whatever n;
    # one array of n doubles at 1e6 is 8 MB)
    with pytest.raises(SizeLimitError):  # first call: the lazy imports, not counted
        exact_shuffle_delta(Q, n, 1.0)
    tracemalloc.start()
    try:
        with WorkClock() as clock, pytest.raises(SizeLimitError, match="MAX_SHUFFLE_WORK"):
            exact_shuffle_delta(Q, n, 1.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert clock() < 2000 and peak < 1_000_000, (clock(), peak)
