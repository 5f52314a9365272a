"""A 50-point privacy-accuracy frontier at k = 50 against 50 independent solves.

Side by side in one process, each timed ``--repeats`` times (the best run is printed, the
machine may be shared): ``mechdesign.frontier.sweep.frontier`` (compiled once with epsilon as
cvxpy parameters) in its default automatic mode, sequentially (``workers=1``) and on a
process pool of 2 (``workers=2``), against ``DesignProblem.solve()`` at each epsilon. Prints
the solver path each side used, times, the ratio independent / frontier and the largest
value difference.

Run: python benchmarks/frontier_sweep.py [--k 50] [--points 50] [--repeats 2]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import mechdesign as md
from mechdesign.frontier.sweep import frontier


def _best(fn, repeats: int):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), max(times), out


def _path(results) -> str:
    solvers = "+".join(sorted({r.solver for r in results}))
    warm = any("warm-started" in r.formulation for r in results)
    return f"{solvers} warm simplex" if warm else solvers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--points", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    L = rng.random((args.k, args.k))
    eps = np.linspace(0.1, 4.0, args.points)
    cases = {
        "LDP, random loss": md.DesignProblem(privacy=md.LDP(1.0), objective=md.ExpectedLoss(L)),
        "metric (line), absolute loss": md.DesignProblem(
            privacy=md.MetricDP(1.0, md.neighbors.line_distance(args.k)),
            objective=md.ExpectedLoss(md.losses.absolute(args.k))),
    }
    print(f"k = {args.k}, {args.points} epsilons in [0.1, 4], {os.cpu_count()} cores, "
          f"best of {args.repeats} runs (worst in brackets)")
    print(f"{'case / side':<40}{'path':<28}{'time s':>16}{'ratio':>8}{'max |diff|':>12}")
    for name, prob in cases.items():
        def independent(prob=prob):
            return [prob.with_privacy(type(prob.privacy)(e, *(
                [prob.privacy.distance] if isinstance(prob.privacy, md.MetricDP) else []))
            ).solve() for e in eps]
        t_ind, w_ind, ind = _best(independent, args.repeats)
        ind_values = np.array([r.value for r in ind])
        print(name)
        print(f"  {'50 independent solve()':<38}{_path(ind):<28}"
              f"{t_ind:>8.2f} ({w_ind:5.2f})")
        for label, kw in (("frontier, automatic", {}), ("frontier, workers=1", {"workers": 1}),
                          ("frontier, workers=2", {"workers": 2})):
            t, w, f = _best(lambda kw=kw, prob=prob: frontier(prob, eps, **kw), args.repeats)
            diff = float(np.max(np.abs(f.values - ind_values)))
            print(f"  {label:<38}{_path(f.results):<28}{t:>8.2f} ({w:5.2f})"
                  f"{t_ind / t:>7.1f}x{diff:>12.1e}")
            assert all(c.met for c in f.certificates)


if __name__ == "__main__":
    main()
