"""The solvers room: one :class:`~mechdesign.design.solvers.base.SolverAdapter` per solver
and the calls every method makes through them.

:data:`ADAPTERS` is the table (HiGHS, Clarabel, SCS; any other installed cvxpy solver gets
the plain adapter, and the block-angular interior point is
:data:`~mechdesign.design.solvers.clarabel.BLOCK_IPM`). Defaults, chosen by measurement
(``benchmarks/design_scaling.py``, section 2, numbers in ``benchmarks/README.md``):

* LPs above :data:`LP_CLARABEL_ABOVE` variables and conic programs: Clarabel with
  tolerances 1e-10 (several times faster than HiGHS interior point and simplex on the
  large metric and pure-LDP LPs);
* smaller LPs: HiGHS interior point with crossover (a vertex solution with exact zeros;
  these solve in well under a second whatever the solver).

No banner is printed. Nothing here knows a design problem: a compiled ``cvxpy.Problem``
and options in, the solver's data and raw answer out, and a bound computed from them
(:func:`dual_bound`).
"""

from __future__ import annotations

import threading
from typing import Any

import cvxpy as cp
import numpy as np

from ...errors import InvalidParameterError, SolverFailedError
from .base import COMMON_OPTIONS, SolverAdapter, is_lp
from .clarabel import BLOCK_IPM, CLARABEL
from .highs import HIGHS, WarmHighs, warm_highs_applies
from .run import (
    BYTES_PER_NONZERO,
    MEMORY_BUDGET,
    Deadline,
    Run,
    check_memory,
    run_interruptible,
)

__all__ = ["ADAPTERS", "BLOCK_IPM", "BYTES_PER_NONZERO", "CHECKED_SOLVERS", "LP_CLARABEL_ABOVE",
           "MEMORY_BUDGET", "Deadline", "Run", "SolverAdapter", "WarmHighs", "check_memory",
           "check_solver_options", "choose_solver", "dual_bound", "is_lp", "solve_compiled",
           "solver_adapter", "solver_options", "warm_highs_applies"]

ADAPTERS: dict[str, SolverAdapter] = {
    "HIGHS": HIGHS,
    "CLARABEL": CLARABEL,
    "SCS": SolverAdapter("SCS", time_limit_key="time_limit_secs"),
}
"""The solvers mechdesign knows more about than their cvxpy name, by that name."""

LP_CLARABEL_ABOVE = 2_000
"""Number of scalar variables above which Clarabel replaces HiGHS for LPs."""

CHECKED_SOLVERS = tuple(name for name, a in ADAPTERS.items() if a.checks_options)
"""Solvers whose options :func:`check_solver_options` checks: those whose option names
(and value types) can be asked of the installed solver itself. Options of other solvers
(SCS, OSQP, ...) go to cvxpy unchecked: their interfaces publish no list."""


def solver_adapter(name: str) -> SolverAdapter:
    """The adapter of the solver cvxpy calls ``name`` (the plain adapter for a solver not
    in :data:`ADAPTERS`)."""
    return ADAPTERS.get(name) or SolverAdapter(name)


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


def solver_options(name: str, options: dict, time_limit: float | None = None) -> dict:
    """Quiet defaults of solver ``name``, overridden by the user's options, with
    ``time_limit`` (seconds) where the solver takes one
    (:meth:`SolverAdapter.settings <mechdesign.design.solvers.base.SolverAdapter.settings>`)."""
    return solver_adapter(name).settings(options, time_limit)


def _option_problem(adapter: SolverAdapter, key: str, value: Any) -> str | None:
    """Why ``adapter``'s solver refuses the option ``key = value``, or None."""
    return None if key in COMMON_OPTIONS else adapter.option_problem(key, value)


def check_solver_options(solver: str | None, options: dict) -> None:
    """Refuse an option the solver does not know (or a value of the wrong type) before any
    work, with an :class:`~mechdesign.errors.InvalidParameterError` naming it.

    Checked for :data:`CHECKED_SOLVERS` only. With ``solver=None`` the default may be
    either of them, so an option is accepted when one of them knows it (name the solver to
    have the options checked against it alone).
    """
    names = [solver.upper()] if solver is not None else list(CHECKED_SOLVERS)
    if not all(n in CHECKED_SOLVERS for n in names):
        return
    for key, value in options.items():
        problems = [_option_problem(ADAPTERS[n], key, value) for n in names]
        if all(p is not None for p in problems):
            if solver is not None:
                raise InvalidParameterError(
                    f"solver option {key!r} refused for {names[0]}: {problems[0]}")
            raise InvalidParameterError(
                f"solver option {key!r} refused: {'; '.join(problems)} (with solver=None "
                "mechdesign chooses HIGHS or CLARABEL; name the solver to pass its options)")


def solve_compiled(prob: cp.Problem, name: str, opts: dict,
                   adapter: SolverAdapter | None = None) -> tuple[dict, Any]:
    """``prob.solve(solver=name, **opts)`` in its public steps (compile, solve, unpack),
    the solve interruptible by Ctrl-C (:func:`run_interruptible`) through ``adapter``'s
    native call (default: :func:`solver_adapter` of ``name``; cvxpy's own call when the
    adapter has none or the data layout is not the one it knows); returns the solver's
    problem data and raw answer for :func:`dual_bound`."""
    adapter = adapter or solver_adapter(name)
    opts = dict(opts)
    verbose = bool(opts.pop("verbose", False))
    data, chain, inverse = prob.get_problem_data(name, solver_opts=dict(opts))
    stop = threading.Event()
    try:
        call = adapter.call(prob, data, chain, verbose, opts, stop)
    except (ImportError, AttributeError, KeyError, TypeError):
        call = None
    if call is None:
        def call() -> Any:
            return chain.solve_via_data(prob, data, False, verbose, dict(opts))
    raw = run_interruptible(call, stop)
    prob.unpack_results(raw, chain, inverse)
    return data, raw


def dual_bound(prob: cp.Problem, data: dict, raw: Any, name: str = "") -> float | None:
    """A rigorous bound on the optimum of the LP ``prob`` from the raw duals of solver
    ``name`` (:meth:`SolverAdapter.primal_dual
    <mechdesign.design.solvers.base.SolverAdapter.primal_dual>`, then
    :func:`~mechdesign.design.bound.lp_lower_bound`): a lower bound when minimising, an
    upper bound when maximising. ``None`` when ``prob`` is not an LP, the raw answer
    carries no duals, or the data layout is not the expected one."""
    from cvxpy import settings as s
    from cvxpy.reductions.solvers.conic_solvers.conic_solver import dims_to_solver_dict

    from ..bound import lp_lower_bound
    try:
        dims = dims_to_solver_dict(data[s.DIMS])
        if any(dims.get(key) for key in (s.SOC_DIM, s.EXP_DIM, s.PSD_DIM, "p")):
            return None
        answer = solver_adapter(name).primal_dual(raw)
        if answer is None:
            return None
        x, y = answer
        c = np.asarray(data[s.C], dtype=float)
        if prob.value is None or len(x) != len(c) or len(y) != data[s.A].shape[0]:
            return None
        sign = 1.0 if isinstance(prob.objective, cp.Minimize) else -1.0
        # the objective's constant from the data, not prob.value - c x: HiGHS's reported
        # objective differed from c x by 2e-9 (relative) on a solution it had left 3e-9
        # infeasible, and the "bound" then sat above a verified better matrix
        offset = float(data[s.PARAM_PROB].apply_parameters()[1])
        bound = offset + lp_lower_bound(data[s.A], data[s.B], c, dims[s.EQ_DIM],
                                        dims[s.LEQ_DIM], y, data.get(s.LOWER_BOUNDS),
                                        data.get(s.UPPER_BOUNDS))
    except (KeyError, AttributeError, TypeError, ValueError):
        return None
    return sign * bound
