"""Designing for a central target: the designed randomizer against k-RR calibrated to it.

For each case, side by side in one run: the objective value of the design for a central
target (:class:`~mechdesign.accounting.notions.Composed`: the randomizer used ``uses`` times
is (epsilon, delta)-LDP as a whole; :class:`~mechdesign.accounting.notions.Shuffled`: n
users, one report each, shuffled, central (epsilon, delta)) and of k-ary randomized
response calibrated to the same target (``structure["calibrated_krr"]``), the relative gain
``(krr - design) / krr`` (objectives minimised: positive when the design is better), the
chosen per-use route, the achieved central delta (the certificate's, measured on the
returned matrix), the best met value of the pure-LDP and of the Rényi-LDP routes (Composed)
and the design's wall time.

Cases:
  * Composed, k = 10: Hamming loss (``ExpectedLoss(1 - I)``) and ``EstimationVariance`` (A),
    priors uniform and Zipf(1.1), uses in {100, 365}, central (1, 1e-6) and (4, 1e-9);
  * Shuffled: k in {2, 10, 50}, n in {1e4, 1e6}, central (1, 1e-8), Hamming loss, uniform
    prior.

Each case runs in a child process with ``solve(time_limit=--time-limit)`` and is killed
after ``--timeout`` seconds (the time limit bounds each per-use solve's share, not the exact
compositions between them, so a design can overrun it); a killed or failed case is a row
with its reason. Rows are printed as they finish, then the table.

Run:  python benchmarks/deployment_design.py            (full grid; about 20 min, 2 cores)
      python benchmarks/deployment_design.py --quick    (3 cases, under 2 min)
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import re
import time
import traceback
import warnings

import numpy as np

import mechdesign as md
from mechdesign.accounting.notions import Composed, Shuffled

K = 10
TIE = 1e-8
"""Relative excess over calibrated k-RR read as a tie: the pure route designs at k-RR's
epsilon0 times (1 - 1e-9), and solvers agree to about 1e-11."""


def prior_of(name: str, k: int) -> np.ndarray:
    if name == "uniform":
        return np.full(k, 1.0 / k)
    p = np.arange(1, k + 1, dtype=float) ** -1.1
    return p / p.sum()


def objective_of(name: str, prior: np.ndarray):
    k = prior.size
    if name == "hamming":
        return md.ExpectedLoss(1 - np.eye(k), prior=prior)
    return md.EstimationVariance(prior=prior)


def composed_cases() -> list[dict]:
    out = []
    for objective in ("hamming", "estimation"):
        for prior in ("uniform", "zipf1.1"):
            for uses in (100, 365):
                for eps, delta in ((1.0, 1e-6), (4.0, 1e-9)):
                    out.append(dict(kind="composed", k=K, objective=objective, prior=prior,
                                    uses=uses, eps=eps, delta=delta))
    return out


def shuffled_cases() -> list[dict]:
    return [dict(kind="shuffled", k=k, objective="hamming", prior="uniform", n=n, eps=1.0,
                 delta=1e-8) for k in (2, 10, 50) for n in (10**4, 10**6)]


QUICK = [
    dict(kind="composed", k=K, objective="hamming", prior="uniform", uses=100, eps=1.0,
         delta=1e-6),
    dict(kind="composed", k=K, objective="estimation", prior="uniform", uses=100, eps=1.0,
         delta=1e-6),
    dict(kind="shuffled", k=10, objective="hamming", prior="uniform", n=10**6, eps=1.0,
         delta=1e-8),
]


def label(case: dict) -> str:
    if case["kind"] == "composed":
        target = f"Composed({case['uses']}, {case['eps']:g}, {case['delta']:g})"
    else:
        target = f"Shuffled({case['n']:.0e}, {case['eps']:g}, {case['delta']:g})"
    return f"{target} k={case['k']} {case['objective']} {case['prior']}"


def run_case(case: dict, time_limit: float, queue) -> None:
    """Design one case (in a child process) and put a row dict on ``queue``."""
    warnings.simplefilter("ignore")  # cvxpy's "may be inaccurate": the retries are in notes
    k = case["k"]
    objective = objective_of(case["objective"], prior_of(case["prior"], k))
    if case["kind"] == "composed":
        target = Composed(case["uses"], case["eps"], case["delta"])
    else:
        target = Shuffled(case["n"], case["eps"], case["delta"])
    row: dict = {}
    t0 = time.perf_counter()
    try:
        res = md.DesignProblem(target, objective).solve(time_limit=time_limit)
    except Exception as exc:  # a design that raises is a finding: keep the traceback
        row.update(error=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc())
        row["wall"] = time.perf_counter() - t0
        queue.put(row)
        return
    row["wall"] = time.perf_counter() - t0
    row["status"] = str(res.status)
    row["value"] = res.value
    cert = res.certificate
    row["achieved"] = None if cert is None else cert.achieved
    row["met"] = None if cert is None else cert.met
    st = res.structure or {}
    row["chosen"] = st.get("chosen")
    krr = st.get("calibrated_krr")
    row["krr_eps0"] = None if krr is None else krr["epsilon0"]
    row["krr"] = None if krr is None else krr["value"]
    routes = st.get("routes") or []
    for family, prefix in (("pure", "LDP("), ("renyi", "RenyiLDP(")):
        vals = [r["value"] for r in routes if r["met"] and r["notion"].startswith(prefix)]
        row[family] = min(vals) if vals else None
    row["routes"] = len(routes)
    queue.put(row)


def run(case: dict, time_limit: float, timeout: float) -> dict:
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=run_case, args=(case, time_limit, queue))
    t0 = time.perf_counter()
    proc.start()
    try:
        row = queue.get(timeout=timeout)
    except Exception:  # queue.Empty: over the timeout
        proc.kill()
        row = {"error": f"timeout after {timeout:g} s (killed)",
               "wall": time.perf_counter() - t0}
    proc.join()
    return {**case, **row}


def short_route(chosen: str | None) -> str:
    """``LDP(epsilon=0.0274...)`` -> ``LDP 0.02744``; ``RenyiLDP(alpha=21.0, epsilon=...)``
    -> ``Renyi a=21 0.001398``."""
    if chosen is None:
        return "-"
    nums = [float(x) for x in re.findall(r"=([-+0-9.eE]+)", chosen)]
    if chosen.startswith("RenyiLDP") and len(nums) == 2:
        return f"Renyi a={nums[0]:.4g} {nums[1]:.4g}"
    if chosen.startswith("LDP") and len(nums) == 1:
        return f"LDP {nums[0]:.4g}"
    return chosen


def fmt(x, spec: str = ".6g") -> str:
    if x is None:
        width = "".join(c for c in spec.split(".")[0] if c.isdigit())
        return "-".rjust(int(width)) if width else "-"
    return format(x, spec)


def line(r: dict) -> str:
    if "error" in r:
        return f"{label(r):<52} ERROR {r['error']} ({r['wall']:.1f} s)"
    gain = None
    if r["value"] is not None and r["krr"] not in (None, 0):
        gain = (r["krr"] - r["value"]) / abs(r["krr"])
    route = short_route(r["chosen"])
    return (f"{label(r):<52} {fmt(r['value'], '>12.6g')} {fmt(r['krr'], '>12.6g')} "
            f"{fmt(gain, '>+10.2e')} {route:<24} {fmt(r['achieved'], '>9.3g')} "
            f"{fmt(r.get('pure'), '>12.6g')} {fmt(r.get('renyi'), '>12.6g')} "
            f"{r['wall']:>7.1f}")


HEADER = (f"{'case':<52} {'design':>12} {'cal. k-RR':>12} {'gain':>10} {'chosen':<24} "
          f"{'delta':>9} {'best pure':>12} {'best Renyi':>12} {'wall s':>7}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 cases, under 2 minutes")
    ap.add_argument("--only", choices=("composed", "shuffled"), help="one family of cases")
    ap.add_argument("--objective", choices=("hamming", "estimation"),
                    help="the Composed cases of one objective only")
    ap.add_argument("--time-limit", type=float, default=120.0,
                    help="solve(time_limit=...) per design, seconds (default 120)")
    ap.add_argument("--timeout", type=float, default=180.0,
                    help="kill a design after this many seconds (default 180)")
    args = ap.parse_args()
    if args.quick:
        cases = QUICK
    else:
        cases = []
        if args.only in (None, "shuffled"):
            cases += shuffled_cases()
        if args.only in (None, "composed"):
            cases += [c for c in composed_cases()
                      if args.objective in (None, c["objective"])]
    print(f"{len(cases)} cases; time_limit {args.time_limit:g} s, timeout {args.timeout:g} s; "
          "gain = (k-RR - design) / k-RR (minimised: > 0 is the design better); delta = the "
          "achieved central delta; best pure / best Renyi = the best met value of each "
          "per-use route family (Composed)", flush=True)
    print(HEADER, flush=True)
    rows = []
    t0 = time.perf_counter()
    for case in cases:
        r = run(case, args.time_limit, args.timeout)
        rows.append(r)
        print(line(r), flush=True)
    print(f"\ntotal {time.perf_counter() - t0:.0f} s", flush=True)
    for r in rows:
        if "traceback" in r:
            print(f"\n{label(r)} raised:\n{r['traceback']}")
        elif "error" not in r:
            if r.get("met") is False or (r["achieved"] is not None
                                         and r["achieved"] > r["delta"]):
                print(f"\nFINDING {label(r)}: central delta {r['achieved']!r} above the "
                      f"target {r['delta']:g}")
            if r["value"] is not None and r["krr"] is not None \
                    and r["value"] > r["krr"] * (1 + TIE):
                print(f"\nFINDING {label(r)}: design value {r['value']!r} worse than "
                      f"calibrated k-RR {r['krr']!r} (relative "
                      f"{(r['value'] - r['krr']) / abs(r['krr']):.3g})")


if __name__ == "__main__":
    main()
