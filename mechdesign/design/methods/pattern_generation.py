"""The A criterion past the staircase limit: column generation with local-search pricing
and a semidefinite certificate (:mod:`~mechdesign.design.engines.pattern_generation`)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..outcome import Solution, certify_solution
from ..result import DesignResult, Optimum, Status
from ..solvers import Deadline
from .known import oracle_comparison

if TYPE_CHECKING:
    from ..spec import ProblemSpec

__all__ = ["solve_pattern_generation"]


def solve_pattern_generation(spec: ProblemSpec, eps: float, t0: float,
                             deadline: Deadline) -> DesignResult:
    """Estimation (A criterion) past the staircase limit: column generation with
    local-search pricing and the semidefinite certificate of
    :mod:`~mechdesign.design.pattern_generation`; the note compares the design with the
    best frequency oracle at the same prior."""
    from ..engines.pattern_generation import solve_estimation_patterns

    sol = solve_estimation_patterns(spec.objective, eps, deadline)  # type: ignore[arg-type]
    form = (f"staircase column generation: {sol.patterns_used} patterns of 2^{spec.k} - 1 "
            f"in {sol.rounds} rounds, local-search pricing, semidefinite lower bound")
    notes = [oracle_comparison(spec.objective, eps, sol.value)]  # type: ignore[arg-type]
    if sol.stopped:
        notes.append(deadline.note())
    elif not sol.priced_out:
        notes.append(f"column generation stopped after {sol.rounds} rounds: {sol.reason}")
    if sol.bound is None:
        notes.append("the semidefinite bound failed: no certified gap")
    status = Status.INACCURATE if sol.stopped else Status.OPTIMAL  # the gap labels it
    return certify_solution(spec, Solution(
        Q=sol.Q, solver_value=sol.value, status=status,
        solver="barrier (numpy); bound: CLARABEL", optimum=Optimum.GLOBAL, formulation=form,
        solve_time=time.perf_counter() - t0, notes=tuple(notes), bound=sol.bound,
        counts={"rounds": sol.rounds, "patterns": sol.patterns_used},
        expect_bound=True))
