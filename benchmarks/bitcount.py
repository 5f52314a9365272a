"""Column counts of packed bitmaps: ``mechdesign.oracles.bitcount.column_counts`` against the
row-chunk unpack-and-sum loop it replaces, side by side in one process.

Each case is ``n`` bitmap reports of ``k`` bits (``np.packbits(..., bitorder="little")``,
``ceil(k/8)`` bytes a row), every bit set independently with probability
``35/128 = 0.2734`` (``(a & b) | (c & d & e & f & g)`` of seven uniform random bytes from a
seeded numpy Generator, in chunks, outside the timed region; bits at or above ``k``
cleared). Both methods see the reports in chunks of ``--chunk`` rows (default 10^5), as a
collector adding up a large survey would, and add each chunk's counts into an int64 total:

* ``base s``: the loop unary encoding's ``support_counts`` ran before ``column_counts``:
  ``np.unpackbits(chunk[rows], axis=1, count=k, bitorder="little")`` summed over the rows,
  over the row slices of ``mechdesign.oracles.base.row_chunks`` (at most 2^22 unpacked bits
  each);
* ``new s``: ``column_counts(chunk, k)`` (bit-sliced carry-save and ripple-carry addition in
  cache-sized blocks; see the module's docstring).

Times are the median of ``--repeat`` runs (default 3) of the whole pass over the ``n`` rows
(wall clock, ``time.perf_counter``); ``ratio = base s / new s``; ``equal`` checks that the
two totals are identical. Cases: ``--n`` x ``--k`` (default 10^6 x 10^4), then the quick
rows ``--n`` x 10^3 and ``--n / 10`` x ``--k``.

Run:  python benchmarks/bitcount.py         (about 30 s and 1.5 GB at the defaults)
      python benchmarks/bitcount.py --n 100000 --repeat 1      (a few seconds)
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np

from mechdesign.oracles.base import row_chunks
from mechdesign.oracles.bitcount import column_counts

GENERATION_ROWS = 10_000


def reports(n: int, k: int, seed: int) -> np.ndarray:
    """``n`` packed rows of ``k`` bits, each bit 1 with probability 35/128, in chunks."""
    rng = np.random.default_rng(seed)
    width = -(-k // 8)
    out = np.empty((n, width), dtype=np.uint8)
    for start in range(0, n, GENERATION_ROWS):
        shape = (min(n, start + GENERATION_ROWS) - start, width)
        a, b, c, d, e, f, g = (rng.integers(0, 256, shape, dtype=np.uint8) for _ in range(7))
        out[start:start + shape[0]] = (a & b) | (c & d & e & f & g)
    if k % 8:
        out[:, -1] &= (1 << (k % 8)) - 1
    return out


def baseline(chunk: np.ndarray, k: int) -> np.ndarray:
    """The row-chunk loop of unary encoding's former ``support_counts``."""
    counts = np.zeros(k, dtype=np.int64)
    for rows in row_chunks(len(chunk), k):
        bits = np.unpackbits(chunk[rows], axis=1, count=k, bitorder="little")
        counts += bits.sum(axis=0, dtype=np.int64)
    return counts


def timed(count: Callable[[np.ndarray, int], np.ndarray], packed: np.ndarray, k: int,
          chunk: int, repeat: int) -> tuple[float, np.ndarray]:
    """Median wall time of a chunked pass over ``packed``, and the pass's totals."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        total = np.zeros(k, dtype=np.int64)
        for first in range(0, len(packed), chunk):
            total += count(packed[first:first + chunk], k)
        times.append(time.perf_counter() - start)
    return statistics.median(times), total


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="rows (default 10^6)")
    ap.add_argument("--k", type=int, default=10_000, help="bits a row (default 10^4)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per timing (median; 3)")
    ap.add_argument("--chunk", type=int, default=100_000, help="rows a call (default 10^5)")
    ap.add_argument("--seed", type=int, default=20261201)
    args = ap.parse_args(argv)

    print(f"numpy {np.__version__}, Python {platform.python_version()}, "
          f"{os.cpu_count()} cores, {platform.processor() or platform.machine()}; "
          f"chunks of {args.chunk} rows, median of {args.repeat}")
    print(f"{'n':>9} {'k':>7} {'ones':>6} {'base s':>8} {'new s':>8} {'ratio':>6}  equal")
    cases = [(args.n, args.k), (args.n, 1_000), (max(1, args.n // 10), args.k)]
    for n, k in cases:
        packed = reports(n, k, args.seed)
        base_s, base_total = timed(baseline, packed, k, args.chunk, args.repeat)
        new_s, new_total = timed(column_counts, packed, k, args.chunk, args.repeat)
        ones = base_total.sum() / (n * k)
        equal = bool(np.array_equal(base_total, new_total))
        print(f"{n:>9} {k:>7} {ones:>6.3f} {base_s:>8.3f} {new_s:>8.3f} "
              f"{base_s / new_s:>6.1f}  {equal}", flush=True)
        del packed


if __name__ == "__main__":
    main()
