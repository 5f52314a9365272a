"""The global program: the problem compiled once to cvxpy (an LP or a convex program), solved
with the re-solves a doubtful answer calls for, and certified
(:class:`~mechdesign.design.program.Program`)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..result import DesignResult

if TYPE_CHECKING:
    from ..spec import ProblemSpec

__all__ = ["solve_program"]


def solve_program(spec: ProblemSpec, solver: str | None, options: dict,
                  time_limit: float | None) -> DesignResult:
    """The global program: build, solve (with re-solves), certify."""
    program = spec.compile()
    t1 = time.perf_counter()
    runs = program.attempts(program.default_solver(solver), explicit=bool(solver or options),
                            options=options, time_limit=time_limit)
    compile_time = sum(r.compile_time for r in runs)
    solve_time = time.perf_counter() - t1 - compile_time
    # cvxpy's canonicalisation counts as building
    return program.conclude(runs, spec.privacy_formulation(),
                            program.build_time + compile_time, solve_time)
