"""Solver defaults, chosen by measurement (``benchmarks/design_scaling.py``, section 2,
numbers in ``benchmarks/README.md``).

* LPs above :data:`LP_CLARABEL_ABOVE` variables and conic programs: Clarabel with
  tolerances 1e-10. On the 10 x 10 metric LP Clarabel took 0.78 s against 6.6 s for HiGHS
  interior point and 16.8 s for HiGHS simplex; on the pure-LDP LP at k = 200, 2.2 s.
* Smaller LPs: HiGHS interior point with crossover (a vertex solution with exact zeros;
  these solve in well under a second whatever the solver).
No banner is printed.
"""

from __future__ import annotations

import functools
import os
import sys

import cvxpy as cp

from ..errors import SolverFailedError

LP_CLARABEL_ABOVE = 2_000
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
    if not is_lp(problem):
        return "CLARABEL"
    n_vars = sum(v.size for v in problem.variables())
    return "HIGHS" if n_vars <= LP_CLARABEL_ABOVE else "CLARABEL"


def is_lp(problem: cp.Problem) -> bool:
    """A linear objective under linear constraints only."""
    return problem.is_dcp() and all(
        type(c).__name__ in ("Inequality", "Equality", "Zero", "NonNeg", "NonPos")
        for c in problem.constraints) and problem.objective.expr.is_affine()


def lp_fallback(problem: cp.Problem, name: str) -> str | None:
    """The solver to re-try a default-chosen LP with when ``name`` ended inaccurate or
    failed: HiGHS after Clarabel. Measured (benchmarks/README.md, section 3b): on the
    exact metric-privacy LPs of 10 x 10 and 12 x 12 grids (30 to 60 rows per variable)
    Clarabel ended ``optimal_inaccurate`` after 406 s and 175 s, HiGHS reached the optimum."""
    return "HIGHS" if name == "CLARABEL" and is_lp(problem) else None


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
    if name == "CLARABEL":
        # measured: tight tolerances cost 0-10% more time and return the optimum with no
        # repair needed (at the default 1e-8 certification had to repair)
        for key in ("tol_gap_abs", "tol_gap_rel", "tol_feas"):
            opts.setdefault(key, 1e-10)
    opts.setdefault("verbose", False)
    return opts
