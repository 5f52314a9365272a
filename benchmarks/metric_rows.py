"""Exact geo-indistinguishability on n x n grids: row generation against the whole program,
side by side.

Each cell is one fresh ``python -c`` subprocess (its peak memory is its own):
``DesignProblem(MetricDP(1, D), ExpectedLoss(D), symmetry=grid_symmetries(n, n)).solve()``
with the Euclidean distance D and a uniform prior, end to end (skeleton, rounds, certificate).
``row generation`` is the default path; ``whole program`` builds every skeleton row
(``row_generation.MIN_TRIPLES`` raised out of reach), the path of every size before. Both
use the library's default solver for the size (Clarabel). Time, value, certified gap,
status, peak RSS above the imported baseline and, for row generation, its rounds and rows.

    python benchmarks/metric_rows.py                      # the table of benchmarks/README.md
    python benchmarks/metric_rows.py --n 12 16 --whole-max-n 12 --timeout 300
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = """
import json, re, resource, sys, time
sys.path.insert(0, sys.argv[3])
from design_scaling import metric_problem
from mechdesign.design.methods import row_generation
n, path = int(sys.argv[1]), sys.argv[2]
if path == "whole":
    row_generation.MIN_TRIPLES = 10 ** 18
problem = metric_problem(n, "exact", sym=True)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
try:
    res = problem.solve()
except Exception as exc:  # a refusal is a result too
    print(json.dumps({"error": f"{type(exc).__name__}: {str(exc)[:90]}",
                      "time": time.perf_counter() - t}))
    raise SystemExit(0)
dt = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base
note = next((x for x in res.notes if x.startswith("row generation:")), "")
m = re.search(r"(\\d+) rounds, ([\\d,]+) orbit rows of the ([\\d,]+)", note)
print(json.dumps({"time": dt, "value": res.value, "gap": res.gap, "status": res.status.value,
                  "met": res.certificate.met, "peak_mib": peak / 1024,
                  "rounds": m.group(1) if m else "-",
                  "rows": f"{m.group(2)} / {m.group(3)}" if m else "-"}))
"""


def run(n: int, path: str, timeout: float) -> dict | None:
    here = __file__.rsplit("/", 1)[0] or "."
    try:
        out = subprocess.run([sys.executable, "-c", CHILD, str(n), path, here],
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        return {"error": f"exit {out.returncode}: {out.stderr.strip()[-100:]}"}
    return json.loads(lines[-1])


def cell(r: dict | None, timeout: float) -> list[str]:
    if r is None:
        return [f"> {timeout:.0f} s (stopped)", "-", "-", "-", "-"]
    if "error" in r:
        return [r["error"], "-", "-", "-", "-"]
    gap = "-" if r["gap"] is None else f"{r['gap']:.1e}"
    return [f"{r['time']:.1f} s", f"{r['value']:.7f}", gap, r["status"],
            f"{r['peak_mib']:.0f} MiB"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="*", default=[12, 16, 20, 24])
    ap.add_argument("--whole-max-n", type=int, default=20,
                    help="largest n for the whole program (default 20)")
    ap.add_argument("--timeout", type=float, default=900.0)
    args = ap.parse_args()
    print("| grid | path | time | value | certified gap | status | peak memory | rounds "
          "| rows (orbits) / skeleton rows |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in args.n:
        for path in ("rows", "whole"):
            if path == "whole" and n > args.whole_max_n:
                continue
            print(f"  running {n}x{n} {path} ...", file=sys.stderr, flush=True)
            r = run(n, path, args.timeout)
            extra = ([r.get("rounds", "-"), r.get("rows", "-")]
                     if r is not None and "error" not in r else ["-", "-"])
            label = "row generation" if path == "rows" else "whole program"
            print("| " + " | ".join([f"{n}x{n}", label, *cell(r, args.timeout), *extra])
                  + " |", flush=True)


if __name__ == "__main__":
    main()
