"""The worst prior's estimation criterion under pure LDP: the staircase epigraph program
(:mod:`~mechdesign.design.engines.minimax_staircase`) with its dual Frank-Wolfe
certificate."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ...errors import InvalidParameterError
from ...privacy.notions import LDP
from ..engines import staircase as staircase_engine
from ..outcome import Solution, certify_solution
from ..result import DesignResult, Optimum, Status
from ..solvers import Deadline
from .staircase_programs import fit_columns

if TYPE_CHECKING:
    from ..spec import ProblemSpec

__all__ = ["solve_minimax_estimation"]


def solve_minimax_estimation(spec: ProblemSpec, solver: str | None, options: dict,
                             deadline: Deadline) -> DesignResult:
    """The worst prior's estimation criterion under pure LDP: the staircase epigraph
    program of :mod:`~mechdesign.design.minimax_staircase` (every pattern, k <= 10) with
    its dual Frank-Wolfe certificate. Other notions, user constraints and larger k are
    refused with a typed error (no exact program; the local method does not take a
    maximum of criteria)."""
    from ..engines.minimax_staircase import solve_minimax_estimation as solve

    if not isinstance(spec.privacy, LDP):
        raise InvalidParameterError(
            f"MinimaxEstimation is solved under pure LDP only (its staircase program); "
            f"{spec.privacy!r} is not supported")
    if spec.constraints:
        raise InvalidParameterError(
            "MinimaxEstimation takes no user constraints (its staircase program is exact "
            f"only without them); got {sorted(spec.constraints)!r}")
    eps = spec.privacy.epsilon
    if eps > staircase_engine.MAX_STAIRCASE_EPSILON:
        raise InvalidParameterError(
            f"epsilon = {eps!r} is above {staircase_engine.MAX_STAIRCASE_EPSILON:g}, the largest "
            "the staircase programs support for MinimaxEstimation (patterns hold 1 and "
            "e^eps side by side)")
    t0 = time.perf_counter()
    sol = solve(spec.objective, eps, solver, deadline, **options)  # type: ignore[arg-type]
    Q = fit_columns(spec, sol.Q)
    if Q is None:
        raise InvalidParameterError(
            f"the minimax staircase optimum needs {sol.Q.shape[1]} outputs but only "
            f"{spec.n} are allowed (leave the outputs to the design)")
    status = Status.OPTIMAL if sol.accurate else Status.INACCURATE
    r = len(spec.objective.priors)  # type: ignore[attr-defined]
    form = (f"staircase epigraph program over 2^k - 1 patterns, {r} priors; dual "
            "Frank-Wolfe lower bound")
    return certify_solution(spec, Solution(
        Q=Q, solver_value=sol.value, status=status, solver=sol.solver, optimum=Optimum.GLOBAL,
        formulation=form, solve_time=time.perf_counter() - t0, bound=sol.bound,
        expect_bound=True))
