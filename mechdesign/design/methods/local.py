"""The local method: minorise-maximise from several starts
(:mod:`~mechdesign.design.engines.local`), each step a convex program over the problem's
feasible set; a local optimum, labelled so."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import cvxpy as cp

from ...errors import InfeasibleDesignError, SolverFailedError
from ..engines import local as local_engine
from ..outcome import Solution, certify_solution, unsolved_result
from ..program import run_solve
from ..result import DesignResult, Optimum, Status
from ..solvers import Deadline, choose_solver

if TYPE_CHECKING:
    from ..spec import ProblemSpec

__all__ = ["solve_local"]


def solve_local(spec: ProblemSpec, solver: str | None, options: dict, t0: float,
                note: str, deadline: Deadline) -> DesignResult:
    """The minorise-maximise method of :mod:`~mechdesign.design.local` from several
    starts; each step is a convex program over the problem's feasible set."""
    names: list[str] = []

    def feasible() -> tuple[cp.Expression, list]:
        fs = spec.feasible_set()
        return fs.Q, fs.constraints

    def run(prob: cp.Problem) -> None:
        name = choose_solver(prob, solver)
        names.append(name)
        attempt = run_solve(prob, None, name, options, None, deadline.remaining(), spec)
        if attempt.status is Status.INFEASIBLE:
            raise InfeasibleDesignError("infeasible")
        if attempt.status not in (Status.OPTIMAL, Status.INACCURATE):
            raise SolverFailedError(attempt.error
                                    or f"local step ended with status {attempt.status}")

    try:
        Q, value, iters, stopped = local_engine.solve_local(
            spec.objective, feasible, run, spec.k, spec.n, expired=lambda: deadline.expired)
    except InfeasibleDesignError:  # the feasible set itself is empty (first projection)
        return unsolved_result(spec, Status.INFEASIBLE, names[-1] if names else "", "local",
                               0.0, time.perf_counter() - t0, (note,), optimum=Optimum.LOCAL)
    status, notes = Status.OPTIMAL, (note,)
    if stopped:
        status, notes = Status.INACCURATE, (note, deadline.note())
    return certify_solution(spec, Solution(
        Q=Q, solver_value=value, status=status, solver=names[-1] if names else "",
        optimum=Optimum.LOCAL, formulation=f"minorise-maximise, {iters} convex steps",
        counts={"steps": iters},
        solve_time=time.perf_counter() - t0, notes=tuple(notes)))
