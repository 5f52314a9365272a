"""Does the time of one call reveal its secret argument? A timing side-channel check shared by
the test suite and ``benchmarks/sampler_timing.py``.

:func:`time_calls` times single calls ``fn(x)`` for secrets ``x`` in a random interleaved
order (so drift of the machine's speed hits every secret alike); :func:`threshold_accuracy`
is the attacker: on one half of the timings it learns the best threshold (and side) between
two secrets, on the other half it guesses the secret from the time alone. An input-independent
implementation leaves it at 50% up to sampling error (standard deviation
``sqrt(0.25 / n_test)``).

The test suite passes :class:`WorkClock` as the clock (Python lines run and random bytes
drawn: deterministic, so the check holds on a busy machine); the wall-clock measurement is
``benchmarks/sampler_timing.py``. :class:`FakeClock` stands in for ``time.monotonic`` in
tests of time limits, which then stop after a chosen event instead of after real seconds.
"""

from __future__ import annotations

import bisect
import gc
import os
import sys
import time
import types
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from .._validation import NOT_GIVEN, renamed_rng

__all__ = [
    "BisectionSampler",
    "FakeClock",
    "WorkClock",
    "threshold_accuracy",
    "time_calls",
]


def time_calls(fn: Callable[[Any], object], secrets: Sequence[Any], n: int,
               rng: int | np.random.Generator | None = 0, warmup: int = 200,
               clock: Callable[[], int] = time.perf_counter_ns, *, seed: Any = NOT_GIVEN
               ) -> tuple[np.ndarray, np.ndarray]:
    """Times of ``n`` single calls ``fn(s)`` per secret, interleaved at random; returns
    ``(times, labels)`` with ``labels`` the index of the secret of each call. The garbage
    collector is paused while timing.

    Parameters
    ----------
    fn : callable
        The call under test, ``fn(secret)``.
    secrets : sequence
        The secrets; labels are their indices.
    n : int
        Calls per secret.
    rng : int, numpy.random.Generator or None
        The random source of the interleaving: an int seed (default 0), a ``Generator``, or
        None (fresh entropy).
    warmup : int
        Untimed calls first.
    clock : callable
        Read before and after each call: ``time.perf_counter_ns`` (nanoseconds, the
        default), or a deterministic :class:`WorkClock`.
    seed : int, numpy.random.Generator or None
        The former name of ``rng``: still works for one release, with a
        :class:`DeprecationWarning`.
    """
    gen = np.random.default_rng(renamed_rng(_unless_default(rng, 0, seed), seed, "time_calls"))
    labels = gen.permutation(np.repeat(np.arange(len(secrets)), n))
    for i in range(warmup):
        fn(secrets[i % len(secrets)])
    times = np.empty(labels.size, dtype=np.int64)
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


def threshold_accuracy(times: np.ndarray, labels: np.ndarray,
                       rng: int | np.random.Generator | None = 1, *,
                       seed: Any = NOT_GIVEN) -> float:
    """Test accuracy of the best single-threshold classifier between labels 0 and 1, trained
    on a random half of the calls (thresholds at the training times' percentiles 1..99, both
    sides) and scored on the other half. ``rng`` splits the calls (an int seed, default 1, a
    numpy ``Generator`` or None for fresh entropy); ``seed=``, its former name, still works
    for one release with a :class:`DeprecationWarning`."""
    source = renamed_rng(_unless_default(rng, 1, seed), seed, "threshold_accuracy")
    keep = labels < 2
    t, y = np.asarray(times)[keep], np.asarray(labels)[keep]
    order = np.random.default_rng(source).permutation(t.size)
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


def _unless_default(rng: Any, default: int, seed: Any) -> Any:
    """``rng``, or None when ``seed=`` (the deprecated name) is given and ``rng`` is still
    its default seed: :func:`~mechdesign._validation.renamed_rng` then takes ``seed`` and
    refuses only an ``rng`` the caller passed too."""
    if seed is not NOT_GIVEN and isinstance(rng, int) and rng == default:
        return None
    return rng


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


class WorkClock:
    """A deterministic clock for :func:`time_calls`: the Python lines executed and the bytes
    drawn from :func:`os.urandom` since the clock was entered (one unit each).

    Inside ``with WorkClock() as clock:`` every line event of the current thread (through
    :func:`sys.settrace`) and every byte of ``os.urandom`` advance ``clock()``. A call whose
    count depends on its secret has a control flow or a randomness consumption that does;
    the count does not see work inside one line (integer sizes, C loops), which only the
    wall-clock measurement (``benchmarks/sampler_timing.py``) sees.
    """

    def __init__(self) -> None:
        self.count = 0
        self._saved: tuple[Any, Any] | None = None

    def __call__(self) -> int:
        return self.count

    def _trace(self, frame: types.FrameType, event: str, arg: object) -> Any:
        self.count += 1
        return self._trace

    def __enter__(self) -> WorkClock:
        real = os.urandom

        def counted(n: int) -> bytes:
            self.count += n
            return real(n)

        self._saved = (sys.gettrace(), real)
        os.urandom = counted
        sys.settrace(self._trace)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._saved is None:
            return
        previous, real = self._saved
        sys.settrace(previous)
        os.urandom = real
        self._saved = None


class FakeClock:
    """A stand-in for the clock a time limit reads: it stands still until :meth:`advance`
    moves it (or moves ``step`` seconds at every read).

    A test patches it into the module under test, e.g.
    ``monkeypatch.setattr(solvers, "time", clock.time_module())``, and advances it at a
    chosen event (after the first round's solve, say), so "a time limit stops the solve" is
    tested without measuring real time, the same on an idle and on a busy machine.

    Parameters
    ----------
    start : float
        The first reading (seconds).
    step : float
        Seconds added after every reading (0: only :meth:`advance` moves it).
    """

    def __init__(self, start: float = 1000.0, step: float = 0.0) -> None:
        self.now = float(start)
        self.step = float(step)
        self.reads = 0

    def __call__(self) -> float:
        value = self.now
        self.reads += 1
        self.now += self.step
        return value

    def advance(self, seconds: float) -> None:
        """Move the clock forward by ``seconds``."""
        self.now += seconds

    def time_module(self) -> types.SimpleNamespace:
        """A replacement for a module's ``time``: ``monotonic``, ``perf_counter`` and
        ``time`` read this clock, ``sleep`` advances it, everything else is the real
        :mod:`time`."""
        fake = types.SimpleNamespace(**{k: getattr(time, k) for k in dir(time)
                                        if not k.startswith("_")})
        fake.monotonic = fake.perf_counter = fake.time = self
        fake.monotonic_ns = fake.perf_counter_ns = lambda: int(self() * 1e9)
        fake.sleep = self.advance
        return fake
