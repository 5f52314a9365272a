"""Solver defaults, chosen by measurement (``benchmarks/design_scaling.py``).

* LPs: HiGHS interior point with crossover (a vertex solution, exact zeros) up to
  :data:`LP_CLARABEL_ABOVE` variables, Clarabel above: on the pure-LDP design LP with an
  arbitrary loss, Clarabel took 1.9 s at k = 200 where HiGHS IPM took 7.8 s and HiGHS dual
  simplex over 100 s (see ``benchmarks/README.md``).
* Conic programs (estimation, SDP cones): Clarabel.
No banner is printed.
"""

from __future__ import annotations

import functools
import os
import sys

import cvxpy as cp

from ..errors import SolverFailedError

LP_CLARABEL_ABOVE = 20_000
"""Number of scalar variables above which Clarabel replaces HiGHS for LPs."""


def choose_solver(problem: cp.Problem | None, solver: str | None) -> str:
    """The solver name to use; a typed error naming it when it is not installed."""
    installed = cp.installed_solvers()
    if solver is not None:
        name = solver.upper()
        if name not in installed:
            raise SolverFailedError(
                f"solver {solver!r} is not installed; installed: {', '.join(installed)}")
        return name
    is_lp = problem.is_dcp() and all(
        type(c).__name__ in ("Inequality", "Equality", "Zero", "NonNeg", "NonPos")
        for c in problem.constraints) and problem.objective.expr.is_affine()
    if not is_lp:
        return "CLARABEL"
    n_vars = sum(v.size for v in problem.variables())
    return "HIGHS" if n_vars <= LP_CLARABEL_ABOVE else "CLARABEL"


@functools.cache
def _silence_highs_banner() -> None:
    """HiGHS prints a banner on stdout when the first Highs object of a process is made,
    before any option can be set: make that first object with stdout sent to /dev/null."""
    try:
        import highspy
    except ImportError:  # pragma: no cover (comes with cvxpy)
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def solver_options(name: str, options: dict) -> dict:
    """Quiet defaults per solver, overridden by the user's options."""
    opts = dict(options)
    if name == "HIGHS":
        _silence_highs_banner()
        highs = {"output_flag": False, "solver": "ipm"}
        highs.update(opts.pop("highs_options", {}))
        opts["highs_options"] = highs
    opts.setdefault("verbose", False)
    return opts
