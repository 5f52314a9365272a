"""Verification at scale: solve N random design problems and check every returned mechanism
with the float measures of the analysis layer AND in exact rational arithmetic
(:func:`mechdesign.analysis.verify.verify_exact`).

Usage::

    python benchmarks/verify_fuzz.py --cases 10000 [--workers 2] [--start 0] [--json out.json]

Case ``i`` is generated from seed ``start + i`` by ``case_from_seed`` in
``tests/test_design_fuzz.py`` (the same machinery the CI tests use), so any case can be
replayed::

    python benchmarks/verify_fuzz.py --replay 1234

Progress goes to stderr; the summary to stdout. Categories:

* ``verified``: the exact check PROVES the guarantee;
* ``within_tol``: the exact check disproves it (or cannot settle it) by at most
  ``EPSILON_TOL = 1e-9`` in the target's units, the tolerance the certificate allows;
* failures: ``exact_fail`` (misses by more than the tolerance), ``float_fail`` (the float
  measure itself exceeds the tolerance), ``no_mechanism`` (no certified mechanism for a
  feasible problem) and ``error`` (an exception).

The target is 0 failures.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_design_fuzz import Outcome, case_from_seed, run_case

FAILED = ("exact_fail", "float_fail", "no_mechanism", "error")


def _run(seed: int) -> Outcome:
    warnings.simplefilter("ignore")  # cvxpy's "solution may be inaccurate" is recorded anyway
    return run_case(case_from_seed(seed))


def summarise(outcomes: list[Outcome], elapsed: float) -> str:
    by_cat = collections.Counter(o.category for o in outcomes)
    failed = [o for o in outcomes if o.failed]
    lines = [f"cases: {len(outcomes)}   wall time: {elapsed:.0f} s   "
             f"failed: {len(failed)} (target 0)"]
    lines.append("categories: " + ", ".join(f"{c} {by_cat[c]}" for c in
                                             ("verified", "within_tol", *FAILED)))
    float_only = [o for o in outcomes if o.float_ok and o.exact_holds is False]
    if float_only:
        ex = sorted(o.excess for o in float_only)
        lines.append(f"float check passes but the exact check says NO: {len(float_only)} "
                     f"cases; excess median {ex[len(ex) // 2]:.3g}, max {ex[-1]:.3g} "
                     "(target units)")
    undecided = sum(o.exact_holds is None for o in outcomes if not o.failed)
    lines.append(f"exact check undecided (within tolerance): {undecided}")
    worst = max((o for o in outcomes if o.category in ("within_tol", "exact_fail")),
                key=lambda o: o.excess, default=None)
    if worst is not None:
        lines.append(f"worst exact excess: {worst.excess:.3g} ({worst.case})")
    for key, label in (("notion", "notion"), ("objective", "objective")):
        lines.append("")
        lines.append(f"{label:<20} {'cases':>6} {'verified':>9} {'within':>7} {'failed':>7} "
                     f"{'worst excess':>13} {'mean s':>7}")
        groups: dict = collections.defaultdict(list)
        for o in outcomes:
            groups[getattr(o.case, key)].append(o)
        for name in sorted(groups):
            g = groups[name]
            ex = max((o.excess for o in g), default=0.0)
            lines.append(f"{name:<20} {len(g):>6} "
                         f"{sum(o.category == 'verified' for o in g):>9} "
                         f"{sum(o.category == 'within_tol' for o in g):>7} "
                         f"{sum(o.failed for o in g):>7} {ex:>13.3g} "
                         f"{sum(o.seconds for o in g) / len(g):>7.2f}")
    if failed:
        lines.append("")
        lines.append("failures (replay with --replay SEED):")
        for o in failed[:40]:
            lines.append(f"  seed {o.case.seed}: {o.category}: {o.case}: {o.detail[:300]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--start", type=int, default=0, help="first seed")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json", help="also write every outcome to this JSON file")
    ap.add_argument("--replay", type=int, help="run one seed and print its outcome")
    args = ap.parse_args(argv)
    if args.replay is not None:
        out = _run(args.replay)
        print(out.case)
        print(out.category, out.excess, out.detail, out.notes, sep="\n")
        return int(out.failed)
    seeds = range(args.start, args.start + args.cases)
    t0 = time.perf_counter()
    outcomes: list[Outcome] = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = [pool.submit(_run, s) for s in seeds]
        for i, fut in enumerate(as_completed(futures), 1):
            out = fut.result()
            outcomes.append(out)
            if out.failed:
                print(f"FAILED seed {out.case.seed}: {out.category}: {out.case}: "
                      f"{out.detail[:400]}", file=sys.stderr, flush=True)
            if i % 50 == 0 or i == len(futures):
                nf = sum(o.failed for o in outcomes)
                print(f"[{i}/{len(futures)}] {time.perf_counter() - t0:.0f} s, {nf} failed",
                      file=sys.stderr, flush=True)
    outcomes.sort(key=lambda o: o.case.seed)
    print(summarise(outcomes, time.perf_counter() - t0))
    if args.json:
        Path(args.json).write_text(json.dumps(
            [{"seed": o.case.seed, "notion": o.case.notion, "objective": o.case.objective,
              "k": o.case.k, "m": o.case.m, "eps": o.case.eps, "delta": o.case.delta,
              "category": o.category, "excess": o.excess, "float_excess": o.float_excess,
              "exact_holds": o.exact_holds, "seconds": o.seconds, "detail": o.detail}
             for o in outcomes], indent=1))
    return int(any(o.failed for o in outcomes))


if __name__ == "__main__":
    sys.exit(main())
