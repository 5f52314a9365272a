"""Does the time of one call reveal its secret argument? A timing side-channel check shared by
the test suite and ``benchmarks/sampler_timing.py``.

:func:`time_calls` times single calls ``fn(x)`` for secrets ``x`` in a random interleaved
order (so drift of the machine's speed hits every secret alike); :func:`threshold_accuracy`
is the attacker: on one half of the timings it learns the best threshold (and side) between
two secrets, on the other half it guesses the secret from the time alone. An input-independent
implementation leaves it at 50% up to sampling error (standard deviation
``sqrt(0.25 / n_test)``).
"""

from __future__ import annotations

import bisect
import gc
import os
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np


def time_calls(fn: Callable[[Any], object], secrets: Sequence[Any], n: int, seed: int = 0,
               warmup: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Times (ns) of ``n`` single calls ``fn(s)`` per secret, interleaved at random; returns
    ``(times, labels)`` with ``labels`` the index of the secret of each call. The garbage
    collector is paused while timing."""
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.repeat(np.arange(len(secrets)), n))
    for i in range(warmup):
        fn(secrets[i % len(secrets)])
    times = np.empty(labels.size, dtype=np.int64)
    clock = time.perf_counter_ns
    enabled = gc.isenabled()
    gc.disable()
    try:
        for i, label in enumerate(labels):
            s = secrets[label]
            t0 = clock()
            fn(s)
            times[i] = clock() - t0
    finally:
        if enabled:
            gc.enable()
    return times, labels


def threshold_accuracy(times: np.ndarray, labels: np.ndarray, seed: int = 1) -> float:
    """Test accuracy of the best single-threshold classifier between labels 0 and 1, trained
    on a random half of the calls (thresholds at the training times' percentiles 1..99, both
    sides) and scored on the other half."""
    keep = labels < 2
    t, y = np.asarray(times)[keep], np.asarray(labels)[keep]
    order = np.random.default_rng(seed).permutation(t.size)
    train, test = order[: t.size // 2], order[t.size // 2:]
    best, rule = -1.0, (0.0, True)
    for thr in np.percentile(t[train], np.arange(1, 100)):
        for above_is_one in (True, False):
            guess = (t[train] > thr) == above_is_one
            acc = float(np.mean(guess == (y[train] == 1)))
            if acc > best:
                best, rule = acc, (thr, above_is_one)
    thr, above_is_one = rule
    return float(np.mean(((t[test] > thr) == above_is_one) == (y[test] == 1)))


class BisectionSampler:
    """A leaky reference: the deployment sampler mechdesign used before
    :class:`~mechdesign.sampler.ExactSampler`. Each row's integer weights at the row's OWN
    scale (the largest denominator in that row), a uniform integer below the row's total, a
    bisection: the integers' sizes and the bisection's depth differ between rows, so the
    time of a call depends on the row. Exact, but for measuring the timing check's power
    only."""

    def __init__(self, matrix: np.ndarray) -> None:
        self.tables = []
        for row in matrix:
            fr = [Fraction(float(v)) for v in row]
            scale = max(f.denominator for f in fr)
            cum, acc = [], 0
            for f in fr:
                acc += f.numerator * (scale // f.denominator)
                cum.append(acc)
            self.tables.append((cum, acc))

    def draw(self, x: int) -> int:
        cum, total = self.tables[x]
        nbytes = (max(total.bit_length(), 1) + 7) // 8 + 8
        bound = 1 << (8 * nbytes)
        limit = bound - bound % total
        while True:
            r = int.from_bytes(os.urandom(nbytes), "little")
            if r < limit:
                return bisect.bisect_right(cum, r % total)
