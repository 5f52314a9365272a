"""Pure (deletion) LDP at large k: the default path against the LP of pairs and the global
program, side by side.

Each run is a fresh ``python -c`` subprocess (so its peak memory is its own): build the
loss, solve, report wall time, value, certified gap and peak RSS above the imported
baseline. ``default`` is ``DesignProblem(LDP(1), ExpectedLoss(L)).solve()`` (from k = 100:
cutting planes in the column floors); ``pairs`` forces the working-set LP of pairs (HiGHS
primal simplex; the path before the cutting planes, now their second method);
``global program`` forces the offset-form LP of every entry through
``methods.program.solve_program`` (the path of every size before either), with the library's
default solver for that size (Clarabel above 2,000 variables). Losses: uniform
random (seed 0), absolute ``|x - y| / (k - 1)``, hierarchical (codes 0..k-1 as leaves of
a tree of branching 10, like ICD or ISCO codes: ``1 - (common leading digits) / depth``),
Hamming (k-RR is optimal: ``(k - 1) / (e + k - 1)``).

    python benchmarks/ldp_working_set.py                 # the table of benchmarks/README.md
    python benchmarks/ldp_working_set.py --k 100 200 --losses random --no-global
    python benchmarks/ldp_working_set.py --k 1000 3000 --pairs-max-k 3000 --no-global
    python benchmarks/ldp_working_set.py --notion deletion --k 100 200 400 1000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = """
import json, resource, sys, time
import numpy as np
import mechdesign as md
from mechdesign.design.engines import cut_generation, working_set
from mechdesign.design.methods import program as program_method
k, loss, path, notion = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
if loss == "random":
    L = np.random.default_rng(0).random((k, k))
elif loss == "absolute":
    x = np.arange(k); L = np.abs(x[:, None] - x[None, :]) / (k - 1)
elif loss == "hierarchical":
    depth = int(np.ceil(np.log10(k))); x = np.arange(k)
    digits = (x[:, None] // 10 ** np.arange(depth - 1, -1, -1)) % 10
    same = np.cumprod(digits[:, None, :] == digits[None, :, :], axis=2).sum(axis=2)
    L = 1.0 - same / depth
else:
    L = md.losses.hamming(k)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
privacy = md.DeletionLDP(1.0) if notion == "deletion" else md.LDP(1.0)
prob = md.DesignProblem(privacy, md.ExpectedLoss(L))
if path == "pairs":  # the LP of pairs in place of the cutting planes
    cut_generation.solve_cut_generation = working_set.solve_working_set
t = time.perf_counter()
res = prob.solve() if path != "global" else program_method.solve_program(prob, None, {}, None)
dt = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base
print(json.dumps({"time": dt, "value": res.value, "gap": res.gap, "status": res.status.value,
                  "met": res.certificate.met, "peak_mib": peak / 1024,
                  "ws": any("working set" in n for n in res.notes)}))
"""


def run(k: int, loss: str, path: str, timeout: float, notion: str = "ldp") -> dict | None:
    try:
        out = subprocess.run([sys.executable, "-c", CHILD, str(k), loss, path, notion],
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:  # a crash is a result too, not the end of the run
        return {"error": f"exit {out.returncode}: {out.stderr.strip()[-100:]}"}
    return json.loads(lines[-1])


def cell(r: dict | None, timeout: float) -> str:
    if r is None:
        return f"> {timeout:.0f} s (stopped)"
    if "error" in r:
        return r["error"]
    gap = "-" if r["gap"] is None else f"{r['gap']:.1e}"
    status = "" if r["status"] == "optimal" else f" {r['status']}"
    return f"{r['time']:8.2f} s  gap {gap}  {r['peak_mib']:7.0f} MiB{status}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, nargs="*", default=[100, 200, 400, 600, 1000, 2000, 3000])
    ap.add_argument("--losses", nargs="*",
                    default=["random", "absolute", "hierarchical", "hamming"])
    ap.add_argument("--global-max-k", type=int, default=600,
                    help="largest k run through the global program (default 600)")
    ap.add_argument("--no-global", action="store_true")
    ap.add_argument("--pairs-max-k", type=int, default=3000,
                    help="largest k run through the LP of pairs (default 3000)")
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--notion", choices=["ldp", "deletion"], default="ldp",
                    help="pure LDP (default) or pure deletion LDP, eps = 1")
    args = ap.parse_args()
    print(f"{'loss':12s} {'k':>5s}  {'default':40s} {'LP of pairs':40s} {'ratio':>7s} "
          f"{'global program':40s} {'ratio':>7s} {'same value':>10s}")
    for loss in args.losses:
        for k in args.k:
            print(f"  {loss} k = {k} ...", file=sys.stderr, flush=True)
            ours = run(k, loss, "default", args.timeout, args.notion)
            cells, values = [], [ours["value"]] if ours and "error" not in ours else []
            for path, tried in (("pairs", k <= args.pairs_max_k),
                                ("global", not args.no_global and k <= args.global_max_k)):
                other = run(k, loss, path, args.timeout, args.notion) if tried else None
                both = values and other and "error" not in other
                ratio = f"{other['time'] / ours['time']:6.1f}x" if both else "-"
                if both:
                    values.append(other["value"])
                cells += [cell(other, args.timeout) if tried else "-", ratio]
            same = (f"{(max(values) - min(values)) / abs(values[0]):.1e}" if len(values) > 1
                    else "-")
            print(f"{loss:12s} {k:5d}  {cell(ours, args.timeout):40s} {cells[0]:40s} "
                  f"{cells[1]:>7s} {cells[2]:40s} {cells[3]:>7s} {same:>10s}", flush=True)

if __name__ == "__main__":
    main()
