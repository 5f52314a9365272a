"""The timing side-channel check and the test clocks (:mod:`mechdesign.testing.timing`).

Pinned: ``time_calls`` times each call once per label in a random interleaving with the
same number of calls per secret (times read exactly from a clock the call itself moves);
``threshold_accuracy`` is 1 on separable times and 1/2 (within five standard errors of
``sqrt(0.25 / n_test)``) on times that carry no information; ``WorkClock`` counts lines and
``os.urandom`` bytes and restores both hooks; ``FakeClock`` stands still until moved (or
moves ``step`` a read) and its ``time_module`` reads it; ``BisectionSampler`` draws each
output with its row's exact probability (counted over every random value it can draw).
The sampler-level use of the check is in tests/test_sampler.py.
"""

from __future__ import annotations

import math
import os
import sys

import numpy as np
import pytest

from mechdesign.testing.timing import (
    BisectionSampler,
    FakeClock,
    WorkClock,
    threshold_accuracy,
    time_calls,
)


def test_time_calls_reads_the_clock_around_each_call_in_a_balanced_interleaving():
    clock = FakeClock(start=0.0)
    secrets = [0.25, 1.0, 3.0]  # each call moves the clock by its secret
    times, labels = time_calls(clock.advance, secrets, 40, rng=3, warmup=5, clock=clock)
    assert times.dtype == np.int64 and times.size == labels.size == 120
    assert np.bincount(labels).tolist() == [40, 40, 40]
    # int64 of the clock's difference: exactly the secret (whole seconds truncated)
    np.testing.assert_array_equal(times, np.array(secrets)[labels].astype(np.int64))
    _, labels2 = time_calls(clock.advance, secrets, 40, rng=3, warmup=0, clock=clock)
    np.testing.assert_array_equal(labels, labels2)  # the interleaving is the rng's
    assert not np.array_equal(labels, np.sort(labels))  # and it interleaves


def test_threshold_accuracy_is_one_on_separable_times_and_a_half_on_noise():
    labels = np.tile([0, 1], 2000)
    assert threshold_accuracy(np.where(labels == 1, 20, 10), labels) == 1.0
    noise = np.random.default_rng(7).integers(0, 1000, labels.size)
    acc = threshold_accuracy(noise, labels)
    assert abs(acc - 0.5) <= 5 * math.sqrt(0.25 / (labels.size // 2))
    # labels above 1 are ignored: only the first two secrets are compared
    three = np.tile([0, 1, 2], 1000)
    assert threshold_accuracy(np.where(three == 1, 20, 10), three) == 1.0


def test_work_clock_counts_lines_and_random_bytes_then_restores_the_hooks():
    def loop(n: int) -> None:
        for _ in range(n):
            pass

    before_trace, before_urandom = sys.gettrace(), os.urandom
    with WorkClock() as clock:
        t0 = clock()
        loop(10)
        t1 = clock()
        loop(100)
        t2 = clock()
        os.urandom(16)
        t3 = clock()
    assert t2 - t1 > t1 - t0 > 0  # more iterations, more lines
    assert t3 - t2 >= 16  # the 16 bytes drawn (plus the lines of the call)
    assert sys.gettrace() is before_trace and os.urandom is before_urandom


def test_the_work_clock_makes_a_secret_dependent_loop_visible():
    def leaky(n: int) -> None:
        for _ in range(n):
            pass

    with WorkClock() as clock:
        times, labels = time_calls(leaky, [1, 5], 50, rng=0, warmup=0, clock=clock)
    assert threshold_accuracy(times, labels) == 1.0


def test_fake_clock_moves_only_when_told_or_by_its_step():
    clock = FakeClock(start=5.0)
    assert clock() == clock() == 5.0 and clock.reads == 2
    clock.advance(2.5)
    assert clock() == 7.5
    fake = clock.time_module()
    assert fake.monotonic() == fake.perf_counter() == fake.time() == 7.5
    fake.sleep(1.0)
    assert fake.monotonic_ns() == 8_500_000_000
    assert fake.gmtime is not None  # everything else is the real time module
    stepping = FakeClock(start=0.0, step=0.5)
    assert [stepping() for _ in range(3)] == [0.0, 0.5, 1.0]


def test_bisection_sampler_draws_each_output_with_its_exact_probability(monkeypatch):
    # every value the sampler can draw, counted: the outputs' shares are the row's entries
    # exactly (rejection keeps the accepted values uniform below a multiple of the total)
    Q = np.array([[0.5, 0.25, 0.25], [0.125, 0.375, 0.5]])
    sampler = BisectionSampler(Q)
    for x in range(2):
        cum, total = sampler.tables[x]
        counts = np.zeros(3, dtype=np.int64)
        for r in range(total):
            counts[np.searchsorted(cum, r, side="right")] += 1
        np.testing.assert_array_equal(counts / total, Q[x])
    draws = [sampler.draw(1) for _ in range(200)]
    assert set(draws) <= {0, 1, 2}
    # a draw reads os.urandom: with the bytes fixed, the output is the bisection's
    monkeypatch.setattr(os, "urandom", lambda n: bytes(n))  # r = 0: the first output
    assert sampler.draw(0) == 0 and sampler.draw(1) == 0


@pytest.mark.parametrize("fn", [time_calls, threshold_accuracy])
def test_seed_is_the_former_name_of_rng(fn):
    labels = np.tile([0, 1], 100)
    args = ((lambda s: None, [0, 1], 5) if fn is time_calls
            else (np.where(labels == 1, 2, 1), labels))
    with pytest.warns(DeprecationWarning, match="rng"):
        old = fn(*args, seed=4)
    new = fn(*args, rng=4)
    if fn is time_calls:
        np.testing.assert_array_equal(old[1], new[1])
    else:
        assert old == new
