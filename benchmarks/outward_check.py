"""Outward rounding, counted: N adversarial cases per public measure and
accountant, each value compared with its 50-digit reference (``tests/outward_reference.py``).

The cases and the library-vs-reference rows are those of ``tests/test_outward_rounding.py``
(its ``CHECKS`` table): the same hypothesis strategies (near-equal rows, eps down to 1e-12 and
at a privacy loss of the matrix, deltas down to 1e-300, k = 1, subnormal entries), drawn here
with random seeds and only generated (no shrinking), and counted instead of asserted.

A case is an under-report when any value it returns is below its exact value (for a
calibration: when the exact value at the returned parameter exceeds the target). The relative
under-report is ``(exact - claimed) / exact``; the relative over-report
``(claimed - exact) / exact`` (absolute when the exact value is 0), over the rows above
their exact value; the median is over all rows (0 for an exact row). Library exceptions are
counted apart (``errors``) with the first message.

Usage::

    python benchmarks/outward_check.py                 # 220 cases per function (>= 10,000)
    python benchmarks/outward_check.py --n 50 --jobs 2 --only delta_ldp,subsampled
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from multiprocessing import Pool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def run_one(args: tuple[str, int, int]) -> dict:
    """Draw ``n`` cases of one check and compare every row; returns the counts."""
    name, n, seed_value = args
    from hypothesis import HealthCheck, Phase, given, seed, settings

    from tests import outward_reference as R
    from tests.test_outward_rounding import CHECKS, over_report, under_report

    chk = CHECKS[name]
    stats = {"name": name, "cases": 0, "under": 0, "worst_under": 0.0, "worst_under_case": "",
             "worst_over": 0.0, "overs": [], "errors": 0, "first_error": ""}

    @seed(seed_value)
    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=False)
    @given(case=chk.cases)
    def body(case):
        stats["cases"] += 1
        try:
            rows = chk.run(case)
        except Exception as err:  # a crash is counted, not a pass
            stats["errors"] += 1
            if not stats["first_error"]:
                stats["first_error"] = f"{type(err).__name__}: {err}"[:200]
            return
        under_any = False
        for label, claimed, exact, _rtol, _atol in rows:
            u = under_report(claimed, exact)
            if u > 0:
                under_any = True
                uf = float(u) if u != R.INF else math.inf
                if uf > stats["worst_under"]:
                    stats["worst_under"] = uf
                    from tests.test_outward_rounding import show
                    stats["worst_under_case"] = f"[{label}] {claimed!r} < " \
                        f"{R.MP.nstr(exact, 17)} for {show(case)}"[:300]
            o = over_report(claimed, exact)
            of = float(o) if o != R.INF else math.inf
            stats["overs"].append(of)
            stats["worst_over"] = max(stats["worst_over"], of)
        stats["under"] += under_any

    t0 = time.perf_counter()
    body()
    stats["seconds"] = time.perf_counter() - t0
    finite = [v for v in stats["overs"] if math.isfinite(v)]
    stats["median_over"] = statistics.median(finite) if finite else 0.0
    del stats["overs"]
    return stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=None,
                    help="cases per function (default: enough for 10,000 in all, at least 200)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--seed", type=int, default=31, help="base seed (each function adds its index)")
    ap.add_argument("--only", default="", help="comma-separated substrings of function names")
    ns = ap.parse_args()

    from tests.test_outward_rounding import CHECKS

    names = sorted(CHECKS)
    if ns.only:
        keys = [k for k in ns.only.split(",") if k]
        names = [nm for nm in names if any(k in nm for k in keys)]
    n = ns.n if ns.n is not None else max(200, math.ceil(10_000 / len(CHECKS)))
    tasks = [(nm, n, ns.seed + i) for i, nm in enumerate(names)]
    print(f"{len(names)} functions x {n} cases, {ns.jobs} job(s)", flush=True)
    results = []
    t0 = time.perf_counter()
    if ns.jobs > 1:
        with Pool(ns.jobs) as pool:
            for r in pool.imap_unordered(run_one, tasks):
                results.append(r)
                print(f"  [{len(results)}/{len(tasks)}] {r['name']}: {r['cases']} cases, "
                      f"{r['under']} under, {r['seconds']:.1f} s", flush=True)
    else:
        for task in tasks:
            r = run_one(task)
            results.append(r)
            print(f"  [{len(results)}/{len(tasks)}] {r['name']}: {r['cases']} cases, "
                  f"{r['under']} under, {r['seconds']:.1f} s", flush=True)
    results.sort(key=lambda r: r["name"])

    def g(v: float) -> str:
        return "0" if v == 0 else ("inf" if math.isinf(v) else f"{v:.2g}")

    print(f"\nfinished in {time.perf_counter() - t0:.0f} s\n")
    print("| function | cases | under-reports | worst rel. under | worst rel. over "
          "| median rel. over | errors |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['name']} | {r['cases']} | {r['under']} | {g(r['worst_under'])} | "
              f"{g(r['worst_over'])} | {g(r['median_over'])} | {r['errors']} |")
    total = sum(r["cases"] for r in results)
    unders = sum(r["under"] for r in results)
    print(f"| **total** | {total} | {unders} | | | | {sum(r['errors'] for r in results)} |")
    print("\nworst under-report per function:")
    for r in results:
        if r["under"]:
            print(f"  {r['name']}: {r['worst_under_case']}")
    errs = [r for r in results if r["errors"]]
    if errs:
        print("\nerrors:")
        for r in errs:
            print(f"  {r['name']}: {r['errors']} x {r['first_error']}")


if __name__ == "__main__":
    main()
