"""Job 3: a custom privacy LP in Python, with the duals of your constraints and the cvxpy
escape hatch.

Four ordered values, pure eps-LDP, expected absolute error under a uniform prior. A policy
adds two requirements that no built-in notion states:

* ``floor``: the first value is reported truthfully with probability at least 0.6;
* ``pair_0_1`` and ``pair_1_0``: the neighbouring values 0 and 1 are also
  (eps', delta)-indistinguishable at a stricter eps' = 0.25 with delta = 0.02, written as
  the hockey-stick divergence ``sum_y max(0, Q[x, y] - e^eps' Q[x', y]) <= delta``.

``DesignProblem(..., constraints={name: Q -> constraint})`` solves and certifies the
design and gives each named constraint's dual (the marginal cost of tightening it).
Write such a constraint with cvxpy atoms only (``cp.sum(cp.pos(...))``); a constraint that
creates its own ``cp.Variable`` is not supported by ``solve()`` yet.

Then ``to_cvxpy()`` hands over the plain cvxpy problem: the same constraints added by hand
and solved by cvxpy directly give the same optimum, and a ``cp.Parameter`` sweeps delta
without rebuilding. Nothing solved that way is certified by mechdesign.

Writes ``out/custom_lp.csv`` (the certified matrix) and ``out/custom_lp.png``.
``--fast`` (or ``MECHDESIGN_FAST=1``) sweeps fewer deltas.

    python examples/custom_lp.py [--fast]
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from pathlib import Path

import cvxpy as cp
import numpy as np

import mechdesign as md

K, EPSILON = 4, 1.0
STRICT_EPSILON, DELTA = 0.25, 0.02
OUT = Path("out")


def hockey_stick(x: int, x2: int, delta: float | cp.Parameter) -> Callable:
    """The constraint ``sum_y max(0, Q[x, y] - e^eps' Q[x2, y]) <= delta`` on ``Q``: atoms
    only, no variable of its own."""
    return lambda Q: cp.sum(cp.pos(Q[x] - math.exp(STRICT_EPSILON) * Q[x2])) <= delta


def main(fast: bool = False) -> None:
    """Design with the named constraints, then extend the plain cvxpy problem."""
    OUT.mkdir(exist_ok=True)
    loss = md.losses.absolute(K)
    objective = md.ExpectedLoss(loss)
    privacy = md.LDP(EPSILON)

    # 1. without and with the policy's constraints: certified, with duals
    base = md.DesignProblem(privacy, objective).solve()
    constraints = {"floor": lambda Q: Q[0, 0] >= 0.6,
                   "pair_0_1": hockey_stick(0, 1, DELTA),
                   "pair_1_0": hockey_stick(1, 0, DELTA)}
    problem = md.DesignProblem(privacy, objective, constraints=constraints)
    res = problem.solve()
    print(f"no constraint of yours: value {base.value:.10f}")
    print(f"with {', '.join(res.user_constraints)}: value {res.value:.10f} "
          f"({res.status}, optimum {res.optimum}, certified gap {res.gap:.1e}), "
          f"{res.certificate.notion} met: {res.certificate.met}")
    for name in res.user_constraints:
        print(f"  dual of {name:<9} {res.duals[name]:.6f}")
    m = res.mechanism
    print(np.array2string(m.matrix, precision=4, suppress_small=True))
    print(f"delta of the pair (0, 1) at eps' = {STRICT_EPSILON}, measured on the matrix: "
          f"{md.delta_ldp(m, STRICT_EPSILON, pairs=[(0, 1)]):.6g} (target {DELTA})")
    md.io.save_mechanism(m, OUT / "custom_lp.csv")
    md.plotting.plot_heatmap(res, title=f"custom LP: value {res.value:.4f}").savefig(
        OUT / "custom_lp.png", dpi=100)
    print(f"wrote {OUT / 'custom_lp.csv'} and {OUT / 'custom_lp.png'}")

    # 2. the escape hatch: the plain cvxpy problem (the floor included) and the matrix Q.
    #    The design layer solves the loss scaled to [0, 1] (divided by its largest entry).
    scale = float(loss.max())
    cvx_problem, Q = md.DesignProblem(privacy, objective,
                                      constraints={"floor": constraints["floor"]}).to_cvxpy()
    delta = cp.Parameter(nonneg=True, value=DELTA)
    extended = cp.Problem(cvx_problem.objective,
                          [*cvx_problem.constraints, hockey_stick(0, 1, delta)(Q),
                           hockey_stick(1, 0, delta)(Q)])
    extended.solve(solver=cp.CLARABEL)
    print(f"\ncvxpy directly: {extended.status}, value {extended.value * scale:.10f} "
          f"(solve(): {res.value:.10f})")
    print("delta   value (cvxpy, not certified)")
    for d in (0.0, 0.02, 0.1) if fast else (0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2):
        delta.value = d
        extended.solve(solver=cp.CLARABEL)
        print(f"{d:<7g} {extended.value * scale:.6f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fast", action="store_true", help="fewer deltas in the sweep")
    args = parser.parse_args()
    main(fast=args.fast or os.environ.get("MECHDESIGN_FAST") == "1")
