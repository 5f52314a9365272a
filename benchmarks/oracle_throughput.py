"""Frequency-oracle throughput: sampling and estimating 10^6 reports with ``mechdesign.oracles``
against the float-coin numpy code a user would write, side by side in one process.

For each case, ``n`` respondents (``--n``, default 10^6) hold values drawn once from a
Zipf(1.1) prior over ``0..k-1`` (``f_v`` proportional to ``(v + 1)^-1.1``; a seeded numpy
Generator, outside the timed region). They are processed in chunks of ``--chunk``
respondents (default 10^5) so that memory stays bounded: each chunk's reports are sampled,
``support_counts(reports)`` is added into a running total and the reports are discarded;
at the end ``estimate_counts(total, n)`` turns the counts into frequencies. This is how a
collector would run an oracle over a large survey, and it is the cost a user of the
library pays: sampling is exact (every coin a ``T / 2^128`` comparison, every uniform
choice by rejection, :mod:`mechdesign.oracles.randomness`) and validated, which is not
free.

Notes
-----
Columns of the table:

* ``bytes/rep``: the size of one report as :meth:`~mechdesign.oracles.FrequencyOracle.sample`
  returns it (``reports.nbytes / len(reports)``).
* ``rng``: ``secure`` is ``sample(x)`` with the default ``rng=None`` (words from
  :func:`os.urandom`, for deployment); ``seeded`` passes one
  ``numpy.random.default_rng(seed)`` Generator to every chunk (reproducible experiments).
* ``sample s``: all calls to ``sample``; ``estimate s``: all calls to ``support_counts``
  plus the final ``estimate_counts``; ``total s`` their sum (wall clock,
  ``time.perf_counter``).
* ``base s``: the baseline below, same values, same ``n``, same chunking, one seeded
  Generator; ``ratio = base s / total s`` (above 1: mechdesign is faster).
* ``max std err``: ``max_v |hat f_v - f_v| / sqrt(oracle.variance(f, n)_v)``, the largest
  error in units of the oracle's exact standard error (iid model, ``f`` the prior); for
  ``k`` standard normals it is about 4 at ``k = 10^4``, and above 5 is suspicious.
  ``base max std err`` is the same for the baseline's estimate (with the oracle's variance
  at the ``n`` the baseline ran).

Baselines (float uniforms from a seeded ``numpy.random.Generator``, not exact):

* k-RR: ``where(rng.random(n) < p, x, other)``, ``other = rng.integers(0, k - 1)`` shifted
  past ``x``; counts by ``bincount``.
* unary encoding: ``rng.random((rows, k)) < q``, then the own bit set with probability
  ``p``; counts by column sums of the bool matrix. The float matrix of a whole chunk
  (10^5 x 10^4 doubles, 8 GB) does not fit a reasonable budget, so each chunk is drawn in
  blocks of at most ``--baseline-block`` entries (default 2^24, 128 MB of doubles).
* subset selection: per row, the d smallest of ``rng.random((rows, k))`` keys by
  ``argpartition``, after setting the key of ``x`` to -1 in the informative rows
  (probability ``1 - t``, the oracle's mixture: ``x`` plus a uniform (d-1)-subset of the
  others; otherwise a uniform d-subset); counts by ``bincount``; same blocks.
* Hadamard response: ``y = rng.integers(0, K)``, one bit of ``x + 1`` flipped when the
  float coin says informative and ``y`` is outside ``C_x`` (the oracle's algorithm);
  counts by a dense K-length histogram, then the naive estimate: the k x K matrix of
  ``H[v + 1, y] = +-1`` built block by block and multiplied with the histogram.
* local hashing: the textbook hash ``((a v + b) mod P) mod g``, ``P = 2^31 - 1``, seeds
  ``a`` in ``[1, P)``, ``b`` in ``[0, P)``, g-ary randomized response on the bucket (same
  g as the oracle); the textbook estimator hashes every value for every report in uint64
  numpy, in blocks of ``--baseline-block`` entries.

A baseline projected to take more than ``--baseline-budget`` seconds (default 120) is
stopped once it has processed ``--baseline-small-n`` respondents (default 10^5, whole
chunks) and its per-report time is scaled linearly to ``n`` (its once-per-run final step,
the Hadamard matrix product, is not scaled); the ``baseline`` column says so.

Examples
--------
::

    python benchmarks/oracle_throughput.py                      # every case, about 30 minutes
    python benchmarks/oracle_throughput.py --only krr hr olh-1000 --rng seeded
    python benchmarks/oracle_throughput.py --n 100000 --no-baseline   # quick look
    python benchmarks/oracle_throughput.py --markdown           # the table as markdown
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mechdesign.oracles import (
    FrequencyOracle,
    HadamardResponse,
    LocalHashing,
    RandomizedResponse,
    SubsetSelection,
    UnaryEncoding,
)

PRIME = (1 << 31) - 1
"""The textbook local-hashing modulus ``P``."""


# ---------------------------------------------------------------------------- cases
@dataclass(frozen=True)
class Case:
    """One benchmark case: an oracle and the baseline that implements the same mechanism."""

    name: str
    label: str
    build: Callable[[], FrequencyOracle]
    baseline: Callable[[FrequencyOracle, int], Baseline]


@dataclass
class Run:
    """Timings (seconds) and the accuracy check of one pass over the ``n`` respondents."""

    sample_s: float
    estimate_s: float
    max_z: float
    bytes_per_report: float = math.nan
    n_run: int = 0
    note: str = ""

    @property
    def total_s(self) -> float:
        return self.sample_s + self.estimate_s


def zipf_prior(k: int, exponent: float = 1.1) -> np.ndarray:
    """``f_v`` proportional to ``(v + 1)^-exponent`` over ``0..k-1``."""
    f = np.arange(1, k + 1, dtype=float) ** -exponent
    return f / f.sum()


def max_standardized_error(oracle: FrequencyOracle, estimate: np.ndarray, prior: np.ndarray,
                           n: int) -> float:
    """``max_v |estimate_v - f_v| / sd_v`` with the oracle's exact iid standard errors."""
    sd = np.sqrt(oracle.variance(prior, n))
    return float(np.max(np.abs(estimate - prior) / sd))


# ---------------------------------------------------------------------------- mechdesign
def run_oracle(oracle: FrequencyOracle, values: np.ndarray, prior: np.ndarray, chunk: int,
               rng_mode: str, seed: int) -> Run:
    """Sample, count and estimate all ``values`` chunk by chunk with the oracle."""
    rng = None if rng_mode == "secure" else np.random.default_rng(seed)
    n = len(values)
    total = np.zeros(oracle.k, dtype=np.int64)
    sample_s = count_s = 0.0
    size = math.nan
    for start in range(0, n, chunk):
        x = values[start:start + chunk]
        t0 = time.perf_counter()
        reports = oracle.sample(x, rng=rng)
        t1 = time.perf_counter()
        total += oracle.support_counts(reports)
        t2 = time.perf_counter()
        sample_s += t1 - t0
        count_s += t2 - t1
        if start == 0:
            size = reports.nbytes / len(reports)
        del reports
    t0 = time.perf_counter()
    estimate = oracle.estimate_counts(total, n)
    count_s += time.perf_counter() - t0
    return Run(sample_s, count_s, max_standardized_error(oracle, estimate, prior, n), size, n)


# ---------------------------------------------------------------------------- baselines
class Baseline:
    """A float-coin numpy implementation: ``step`` samples and counts one chunk (returning
    its sample and count seconds), ``finish`` turns the counts into frequencies."""

    note = ""

    def __init__(self, k: int, block: int) -> None:
        self.k = k
        self.block = block
        self.counts = np.zeros(k, dtype=np.int64)

    def rows_per_block(self, width: int) -> int:
        return max(1, self.block // max(width, 1))

    def step(self, x: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
        raise NotImplementedError

    def timed_blocks(self, x: np.ndarray, draw: Callable[[np.ndarray], np.ndarray],
                     count: Callable[[np.ndarray], np.ndarray]) -> tuple[float, float]:
        """Sample (``draw``) and count (``count``, added to the support counts) the values
        ``x`` in blocks of :meth:`rows_per_block` rows; returns (sample s, count s)."""
        sample_s = count_s = 0.0
        step = self.rows_per_block(self.k)
        for start in range(0, len(x), step):
            t0 = time.perf_counter()
            sample = draw(x[start:start + step])
            t1 = time.perf_counter()
            self.counts += count(sample)
            sample_s += t1 - t0
            count_s += time.perf_counter() - t1
        return sample_s, count_s

    def support(self, n: int) -> np.ndarray:
        """Support counts after ``n`` respondents (the final step, if any, included)."""
        return self.counts

    p_star: float
    q_star: float

    def finish(self, n: int) -> np.ndarray:
        c = self.support(n)
        return (c / n - self.q_star) / (self.p_star - self.q_star)


class RRBaseline(Baseline):
    def __init__(self, oracle: FrequencyOracle, block: int) -> None:
        super().__init__(oracle.k, block)
        e = math.exp(oracle.epsilon)
        self.p_star = e / (e + self.k - 1)
        self.q_star = 1.0 / (e + self.k - 1)

    def step(self, x: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
        t0 = time.perf_counter()
        other = rng.integers(0, self.k - 1, len(x))
        other += other >= x
        reports = np.where(rng.random(len(x)) < self.p_star, x, other)
        t1 = time.perf_counter()
        self.counts += np.bincount(reports, minlength=self.k)
        return t1 - t0, time.perf_counter() - t1


class UEBaseline(Baseline):
    note = "float blocks"

    def __init__(self, oracle: FrequencyOracle, block: int) -> None:
        super().__init__(oracle.k, block)
        assert isinstance(oracle, UnaryEncoding)
        if oracle.optimized:
            self.p_star, self.q_star = 0.5, 1.0 / (1.0 + math.exp(oracle.epsilon))
        else:
            half = math.exp(oracle.epsilon / 2)
            self.p_star, self.q_star = half / (1.0 + half), 1.0 / (1.0 + half)

    def step(self, x: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
        def draw(xs: np.ndarray) -> np.ndarray:
            bits = rng.random((len(xs), self.k)) < self.q_star
            bits[np.arange(len(xs)), xs] = rng.random(len(xs)) < self.p_star
            return bits

        return self.timed_blocks(x, draw, lambda bits: bits.sum(axis=0))


class SubsetBaseline(Baseline):
    note = "float blocks"

    def __init__(self, oracle: FrequencyOracle, block: int) -> None:
        super().__init__(oracle.k, block)
        assert isinstance(oracle, SubsetSelection)
        k, d = self.k, oracle.d
        self.d = d
        self.t = k / (k + d * math.expm1(oracle.epsilon))
        self.p_star = 1 - self.t + self.t * d / k
        self.q_star = (1 - self.t) * (d - 1) / (k - 1) + self.t * d / k

    def step(self, x: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
        def draw(xs: np.ndarray) -> np.ndarray:
            keys = rng.random((len(xs), self.k))
            informative = np.flatnonzero(rng.random(len(xs)) >= self.t)
            keys[informative, xs[informative]] = -1.0  # x is among the d smallest keys
            return np.argpartition(keys, self.d - 1, axis=1)[:, :self.d]

        return self.timed_blocks(
            x, draw, lambda subset: np.bincount(subset.ravel(), minlength=self.k))


class HadamardBaseline(Baseline):
    note = "naive k x K product"

    def __init__(self, oracle: FrequencyOracle, block: int) -> None:
        super().__init__(oracle.k, block)
        self.K = 1 << self.k.bit_length()
        self.hist = np.zeros(self.K, dtype=np.int64)
        self.t = 2.0 / (math.exp(oracle.epsilon) + 1.0)
        self.p_star, self.q_star = 1 - self.t / 2, 0.5

    def step(self, x: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
        t0 = time.perf_counter()
        y = rng.integers(0, self.K, len(x))
        informative = rng.random(len(x)) >= self.t
        code = x + 1
        inside = np.bitwise_count(code & y) % 2 == 0
        reports = y ^ np.where(informative & ~inside, code & -code, 0)
        t1 = time.perf_counter()
        self.hist += np.bincount(reports, minlength=self.K)
        return t1 - t0, time.perf_counter() - t1

    def support(self, n: int) -> np.ndarray:
        y = np.arange(self.K)
        plus_minus = np.zeros(self.k, dtype=np.int64)
        step = self.rows_per_block(self.K)
        for start in range(0, self.k, step):
            codes = np.arange(start + 1, min(self.k, start + step) + 1)
            H = np.where(np.bitwise_count(codes[:, None] & y[None, :]) % 2 == 0, 1, -1)
            plus_minus[start:start + len(codes)] = H @ self.hist
        return (n + plus_minus) // 2


class HashingBaseline(Baseline):
    note = "textbook mod-P hash"

    def __init__(self, oracle: FrequencyOracle, block: int) -> None:
        super().__init__(oracle.k, block)
        assert isinstance(oracle, LocalHashing)
        self.g = oracle.g
        e = math.exp(oracle.epsilon)
        self.p_star, self.q_star = e / (e + self.g - 1), 1.0 / self.g
        self.values = np.arange(self.k, dtype=np.uint64)[None, :]

    def step(self, x: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
        t0 = time.perf_counter()
        n, P, g = len(x), np.uint64(PRIME), np.uint64(self.g)
        a = rng.integers(1, PRIME, n, dtype=np.uint64)
        b = rng.integers(0, PRIME, n, dtype=np.uint64)
        bucket = ((a * x.astype(np.uint64) + b) % P) % g
        other = rng.integers(0, self.g - 1, n, dtype=np.uint64)
        other += other >= bucket
        y = np.where(rng.random(n) < self.p_star, bucket, other)
        t1 = time.perf_counter()
        step = self.rows_per_block(self.k)
        for start in range(0, n, step):
            rows = slice(start, start + step)
            h = (a[rows, None] * self.values + b[rows, None]) % P % g
            self.counts += (h == y[rows, None]).sum(axis=0)
        return t1 - t0, time.perf_counter() - t1


def run_baseline(base: Baseline, oracle: FrequencyOracle, values: np.ndarray,
                 prior: np.ndarray, chunk: int, seed: int, budget: float,
                 small_n: int) -> Run:
    """The baseline over the same chunks; stopped after ``small_n`` respondents and scaled
    linearly to ``len(values)`` when its projected time is above ``budget``."""
    rng = np.random.default_rng(seed)
    n = len(values)
    sample_s = count_s = 0.0
    done = 0
    for start in range(0, n, chunk):
        x = values[start:start + chunk]
        s, c = base.step(x, rng)
        sample_s, count_s, done = sample_s + s, count_s + c, done + len(x)
        if done < n and done >= small_n and (sample_s + count_s) * n / done > budget:
            break
    t0 = time.perf_counter()
    estimate = base.finish(done)
    final_s = time.perf_counter() - t0
    scale = n / done
    notes = [base.note] if base.note else []
    if done < n:
        notes.append(f"scaled from n={done:,}")
    return Run(sample_s * scale, count_s * scale + final_s,
               max_standardized_error(oracle, estimate, prior, done), n_run=done,
               note=", ".join(notes))


CASES = [
    Case("krr", "k-RR", lambda: RandomizedResponse(10_000, 1.0), RRBaseline),
    Case("oue", "OUE", lambda: UnaryEncoding(10_000, 1.0, optimized=True), UEBaseline),
    Case("sue", "SUE", lambda: UnaryEncoding(10_000, 1.0), UEBaseline),
    Case("ss-1", "subset selection", lambda: SubsetSelection(10_000, 1.0), SubsetBaseline),
    Case("ss-2", "subset selection", lambda: SubsetSelection(10_000, 2.0), SubsetBaseline),
    Case("ss-4", "subset selection", lambda: SubsetSelection(10_000, 4.0), SubsetBaseline),
    Case("hr", "Hadamard response", lambda: HadamardResponse(10_000, 1.0), HadamardBaseline),
    Case("olh-1000", "OLH", lambda: LocalHashing(1_000, 1.0), HashingBaseline),
    Case("olh-10000", "OLH", lambda: LocalHashing(10_000, 1.0), HashingBaseline),
]


# ---------------------------------------------------------------------------- output
HEADER = ["case", "oracle", "k", "eps", "bytes/rep", "rng", "sample s", "estimate s",
          "total s", "base s", "ratio", "max std err", "base max std err", "baseline"]


def describe(case: Case, oracle: FrequencyOracle) -> str:
    if isinstance(oracle, SubsetSelection):
        return f"{case.label} (d={oracle.d})"
    if isinstance(oracle, LocalHashing):
        return f"{case.label} (g={oracle.g})"
    return case.label


def row(case: Case, oracle: FrequencyOracle, mode: str, ours: Run, base: Run | None
        ) -> list[str]:
    def sec(v: float) -> str:
        return f"{v:.3g}" if v < 100 else f"{v:.0f}"

    ratio = "-"
    if base:
        r = base.total_s / ours.total_s
        ratio = f"{r:,.0f}x" if r >= 10 else f"{r:.2f}x"
    return [case.name, describe(case, oracle), str(oracle.k), f"{oracle.epsilon:g}",
            f"{ours.bytes_per_report:g}", mode, sec(ours.sample_s), sec(ours.estimate_s),
            sec(ours.total_s), sec(base.total_s) if base else "-", ratio,
            f"{ours.max_z:.2f}", f"{base.max_z:.2f}" if base else "-",
            (base.note or "-") if base else "-"]


def print_table(rows: Sequence[list[str]], markdown: bool) -> None:
    if markdown:
        print("| " + " | ".join(HEADER) + " |")
        print("|" + "|".join("---" for _ in HEADER) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
        return
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(HEADER)]
    print("  ".join(h.rjust(w) for h, w in zip(HEADER, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)), flush=True)


def commit() -> str:
    """The short git commit of the checkout this script runs from (``unknown`` outside git)."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, cwd=os.path.dirname(os.path.abspath(__file__)),
                             timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="respondents (default 10^6)")
    ap.add_argument("--chunk", type=int, default=100_000,
                    help="respondents per chunk (default 10^5)")
    ap.add_argument("--only", nargs="+", choices=[c.name for c in CASES], metavar="CASE",
                    help=f"cases to run (default all): {', '.join(c.name for c in CASES)}")
    ap.add_argument("--rng", choices=["secure", "seeded", "both"], default="both",
                    help="mechdesign's randomness: os.urandom, a seeded Generator, or both")
    ap.add_argument("--seed", type=int, default=0, help="seed of the values (reports: +1, +2)")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--baseline-budget", type=float, default=120.0,
                    help="projected baseline seconds above which it runs on --baseline-small-n "
                         "respondents and is scaled (default 120)")
    ap.add_argument("--baseline-small-n", type=int, default=100_000)
    ap.add_argument("--baseline-block", type=int, default=1 << 24,
                    help="largest float/hash block of a baseline, in entries (default 2^24)")
    ap.add_argument("--markdown", action="store_true", help="print the table as markdown")
    args = ap.parse_args(argv)

    modes = ["secure", "seeded"] if args.rng == "both" else [args.rng]
    cases = [c for c in CASES if args.only is None or c.name in args.only]
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"oracle throughput: n = {args.n:,} respondents in chunks of {args.chunk:,}, "
          f"Zipf(1.1) prior; {datetime.date.today()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, numpy {np.__version__}, mechdesign at commit "
          f"{commit()}; load average at start {load}")
    rows: list[list[str]] = []
    for case in cases:
        oracle = case.build()
        prior = zipf_prior(oracle.k)
        values = np.random.default_rng(args.seed).choice(oracle.k, size=args.n, p=prior)
        warm = values[:1000]
        oracle.support_counts(oracle.sample(warm, rng=0))  # first-call costs
        runs: dict[str, Run] = {}
        for mode in modes:
            print(f"  {case.name}: {oracle!r}, {mode} ...", file=sys.stderr, flush=True)
            runs[mode] = run_oracle(oracle, values, prior, args.chunk, mode, args.seed + 1)
            print(f"    {runs[mode].total_s:.2f} s", file=sys.stderr, flush=True)
        base = None
        if not args.no_baseline:
            print(f"  {case.name}: baseline ...", file=sys.stderr, flush=True)
            base_impl = case.baseline(oracle, args.baseline_block)
            base_impl.step(warm, np.random.default_rng(0))  # first-call costs
            base_impl = case.baseline(oracle, args.baseline_block)
            base = run_baseline(base_impl, oracle, values, prior, args.chunk, args.seed + 2,
                                args.baseline_budget, args.baseline_small_n)
            print(f"    {base.total_s:.2f} s ({base.note or 'n = ' + str(base.n_run)})",
                  file=sys.stderr, flush=True)
        rows.extend(row(case, oracle, mode, runs[mode], base) for mode in modes)
    print_table(rows, args.markdown)
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"load average at end {load}")


if __name__ == "__main__":
    main()
