"""HiGHS as mechdesign runs it: its adapter (quiet interior point with crossover by default,
options checked against HiGHS itself, a native call Ctrl-C stops, duals for the
independent bound) and the warm-started simplex of a sweep (:class:`WarmHighs`).
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

import cvxpy as cp
import numpy as np

from .base import SolverAdapter, is_lp
from .run import run_interruptible

__all__ = ["HIGHS", "WARM_HIGHS_MAX_ROWS_PER_VAR", "WARM_HIGHS_MAX_VARS", "WARM_HIGHS_OPTIONS",
           "HighsAdapter", "WarmHighs", "highs_run", "silence_highs_banner",
           "warm_highs_applies"]

@functools.cache
def silence_highs_banner() -> None:
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


def _highs_option_problem(key: str, value: Any) -> str | None:
    """Why HiGHS refuses ``key = value`` (asked of a scratch ``highspy.Highs``), or None."""
    import highspy
    silence_highs_banner()
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)  # no "ERROR: unknown option" on the console
    if h.getOptionType(key)[0] == highspy.HighsStatus.kError:
        return "not a HiGHS option"
    try:
        bad = h.setOptionValue(key, value) == highspy.HighsStatus.kError
    except (TypeError, ValueError):
        bad = True
    return f"HiGHS refuses the value {value!r}" if bad else None


class HighsAdapter(SolverAdapter):
    """HiGHS: interior point with crossover (a vertex answer, exact zeros), no output;
    ``highs_options`` (a dict of HiGHS options) and top-level HiGHS options are both
    accepted, each checked by a scratch ``highspy.Highs``."""

    checks_options = True

    def __init__(self) -> None:
        super().__init__("HIGHS")

    def settings(self, options: dict, time_limit: float | None) -> dict:
        opts = dict(options)
        silence_highs_banner()
        highs = {"output_flag": False, "solver": "ipm"}
        highs.update(opts.pop("highs_options", {}))
        if time_limit is not None:
            highs.setdefault("time_limit", float(time_limit))
        opts["highs_options"] = highs
        opts.setdefault("verbose", False)
        return opts

    def option_problem(self, key: str, value: Any) -> str | None:
        if key != "highs_options":
            return _highs_option_problem(key, value)
        if not isinstance(value, dict):
            return f"highs_options must be a dict of HiGHS options, got {type(value).__name__}"
        for k, v in value.items():
            problem = _highs_option_problem(k, v) if isinstance(k, str) else "not a string"
            if problem is not None:
                return f"highs_options[{k!r}]: {problem}"
        return None

    def call(self, prob: cp.Problem, data: dict, chain: Any, verbose: bool, opts: dict,
             stop: threading.Event) -> Callable[[], Any] | None:
        from cvxpy import settings as s
        if data.get(s.BOOL_IDX) or data.get(s.INT_IDX):
            return None
        highs = {"log_to_console": verbose, **opts.get("highs_options", {}),
                 **{k: v for k, v in opts.items() if k != "highs_options"}}
        lp = _highs_lp(data)
        return lambda: highs_run(lp, highs, stop)

    def primal_dual(self, raw: Any) -> tuple[np.ndarray, np.ndarray] | None:
        if not isinstance(raw, dict):
            return None
        # the Lagrangian sign of cvxpy's own invert
        return (np.asarray(raw["solution"].col_value, dtype=float),
                -np.asarray(raw["solution"].row_dual, dtype=float))

    def fallback(self, lp: bool) -> str | None:
        return "CLARABEL" if lp else None


HIGHS = HighsAdapter()
"""The HiGHS adapter."""


def highs_run(lp: Any, options: dict, stop: threading.Event, basis: Any = None) -> dict:
    """Solve a ``highspy.HighsLp`` with ``options`` (a bad option is a ValueError, as in
    cvxpy's interface), stopping when ``stop`` is set; the results dict cvxpy's HiGHS
    interface unpacks."""
    import highspy
    h = highspy.Highs()
    for key, value in options.items():
        if h.setOptionValue(key, value) == highspy.HighsStatus.kError:
            raise ValueError(f"HIGHS returned status kError for option (name, value): "
                             f"({key}, {value})")
    h.passModel(lp)
    if basis is not None:
        h.setBasis(basis)

    def check(event: Any) -> None:
        if stop.is_set():
            event.interrupt()

    h.cbSimplexInterrupt += check
    h.cbIpmInterrupt += check
    h.run()
    results = {"solution": h.getSolution(), "basis": h.getBasis(), "info": h.getInfo(),
               "model_status": h.getModelStatus().name, "run_time": h.getRunTime()}
    if results["model_status"] == "kInfeasible":
        results["dual_ray"] = h.getDualRay()
    if results["model_status"] == "kInterrupt":
        raise KeyboardInterrupt
    return results


def _highs_lp(data: dict) -> object:
    """cvxpy's HiGHS problem data as a ``highspy.HighsLp`` (as cvxpy's HiGHS interface
    builds it: equalities first, then ``A x <= b``)."""
    import highspy
    from cvxpy import settings as s
    from cvxpy.reductions.solvers.conic_solvers.conic_solver import dims_to_solver_dict
    inf = highspy.kHighsInf
    dims = dims_to_solver_dict(data[s.DIMS])
    A = data[s.A].tocsc()
    n_eq, n_leq = dims[s.EQ_DIM], dims[s.LEQ_DIM]
    upper = np.asarray(data[s.B], dtype=float)
    lower = np.concatenate([upper[:n_eq], np.full(n_leq, -inf)])
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = A.shape[1], A.shape[0]
    lp.offset_ = 0
    lp.col_cost_ = np.asarray(data[s.C], dtype=float)
    lp.row_lower_, lp.row_upper_ = lower, upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_ = A.indptr, A.indices
    lp.a_matrix_.value_ = A.data
    lb, ub = data.get(s.LOWER_BOUNDS), data.get(s.UPPER_BOUNDS)
    lp.col_lower_ = np.full(lp.num_col_, -inf) if lb is None else np.asarray(lb, float)
    lp.col_upper_ = np.full(lp.num_col_, inf) if ub is None else np.asarray(ub, float)
    return lp


# HiGHS simplex, each point of a sweep started from the previous point's optimal basis.
# cvxpy's own warm_start for HiGHS passes the previous *solution* (setSolution), which the
# simplex does not use as a start; the basis cuts the iterations about tenfold.
WARM_HIGHS_OPTIONS = {"solver": "simplex", "simplex_strategy": 4,
                      "primal_feasibility_tolerance": 1e-10,
                      "dual_feasibility_tolerance": 1e-10}
"""HiGHS options of the warm-started sweep: primal simplex (strategy 4), tolerances tightened
from 1e-7 so certification needs no repair."""

WARM_HIGHS_MAX_VARS = 3_000
"""Above this many variables *and* :data:`WARM_HIGHS_MAX_ROWS_PER_VAR` constraint rows per
variable, a default sweep uses Clarabel instead of the warm-started simplex (the simplex
wins on pure-LDP sweeps, Clarabel on metric LPs with many rows per variable;
``benchmarks/frontier_sweep.py``)."""

WARM_HIGHS_MAX_ROWS_PER_VAR = 1.5


def warm_highs_applies(prob: cp.Problem, solver: str | None, options: dict) -> bool:
    """The warm-started HiGHS path: an LP, no user options, solver unset or HiGHS; with the
    solver unset, not a large LP with many rows per variable."""
    if options or (solver is not None and solver.upper() != "HIGHS"):
        return False
    if "HIGHS" not in cp.installed_solvers() or not is_lp(prob):
        return False
    if solver is not None:
        return True
    n_vars = sum(v.size for v in prob.variables())
    n_rows = sum(c.size for c in prob.constraints)
    return n_vars <= WARM_HIGHS_MAX_VARS or n_rows <= WARM_HIGHS_MAX_ROWS_PER_VAR * n_vars


class WarmHighs:
    """Solve a compiled LP with HiGHS simplex from the previous call's optimal basis.

    Called as ``runner(prob)`` in place of ``prob.solve(...)`` (see :meth:`Program.run`).
    The LP data come from cvxpy (``get_problem_data``: with parameters only the parameter
    map is re-applied) and the answer goes back through ``unpack_results``, so values, duals
    and status are set as by ``Problem.solve``. A warm start that ends in any status but
    optimal is re-run cold (a warm start occasionally stops with ``kUnknown``). This uses
    cvxpy's solver-interface data layout; if a cvxpy release changes it, every call raises
    ``cp.SolverError`` and the caller's fallback solver takes over (never a wrong answer:
    values come only through ``unpack_results``).
    """

    def __init__(self) -> None:
        self.basis = None
        self.last: tuple[dict, dict] | None = None  # problem data and raw answer
        self.cold_retries = 0
        self.broken: str | None = None
        self.options = HIGHS.settings({"highs_options": WARM_HIGHS_OPTIONS}, None
                                      )["highs_options"]  # also silences HiGHS's banner

    def _run(self, lp: object, basis: object) -> dict:
        stop = threading.Event()
        return run_interruptible(lambda: highs_run(lp, self.options, stop, basis), stop)

    def __call__(self, prob: cp.Problem) -> None:
        if self.broken:
            raise cp.SolverError(self.broken)
        try:
            data, chain, inverse = prob.get_problem_data("HIGHS")
            lp = _highs_lp(data)
            results = self._run(lp, self.basis)
            if self.basis is not None and results["model_status"] != "kOptimal":
                self.cold_retries += 1
                results = self._run(lp, None)
            self.basis = results["basis"] if results["model_status"] == "kOptimal" else None
            prob.unpack_results(results, chain, inverse)
            self.last = (data, results)
        except (cp.SolverError, ValueError):
            self.basis = None
            raise
        except (ImportError, KeyError, AttributeError, TypeError, IndexError) as exc:
            self.broken = (f"warm-started HiGHS does not fit this cvxpy "
                           f"{cp.__version__} ({type(exc).__name__}: {exc})")
            raise cp.SolverError(self.broken) from exc
