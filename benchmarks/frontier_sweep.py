"""A 50-point privacy-accuracy frontier at k = 50 against 50 independent solves (issue 5).

Side by side in one process: ``mechdesign.frontier.frontier`` (compiled once with epsilon as
cvxpy parameters; LPs re-solved by HiGHS dual simplex warm-started from the previous
basis) against ``DesignProblem.solve()`` at each epsilon. Prints times, the ratio and the
largest value difference.

Run: python benchmarks/frontier_sweep.py [--k 50] [--points 50]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import mechdesign as md
from mechdesign.frontier import frontier


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--points", type=int, default=50)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    L = rng.random((args.k, args.k))
    eps = np.linspace(0.1, 4.0, args.points)
    cases = {
        "LDP, random loss": md.DesignProblem(privacy=md.LDP(1.0), objective=md.ExpectedLoss(L)),
        "metric (line), absolute loss": md.DesignProblem(
            privacy=md.MetricDP(1.0, md.line_distance(args.k)),
            objective=md.ExpectedLoss(md.losses.absolute(args.k))),
    }
    print(f"k = {args.k}, {args.points} epsilons in [0.1, 4]")
    print(f"{'case':<32}{'frontier s':>12}{'independent s':>15}{'ratio':>8}{'max |diff|':>12}")
    for name, prob in cases.items():
        t0 = time.perf_counter()
        f = frontier(prob, eps, progress=True)
        t_front = time.perf_counter() - t0
        t0 = time.perf_counter()
        ind = []
        for i, e in enumerate(eps):
            ind.append(prob.with_privacy(type(prob.privacy)(e, *(
                [prob.privacy.distance] if isinstance(prob.privacy, md.MetricDP) else []))
            ).solve().value)
            print(f"\rindependent: {i + 1}/{len(eps)}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        t_ind = time.perf_counter() - t0
        diff = float(np.max(np.abs(f.values - np.array(ind))))
        print(f"{name:<32}{t_front:>12.2f}{t_ind:>15.2f}{t_ind / t_front:>7.1f}x{diff:>12.1e}")
        assert all(c.met for c in f.certificates)


if __name__ == "__main__":
    main()
