"""Information objectives by the staircase programs (exact, ``k <= MAX_STAIRCASE_K``), the
local method when the optimum needs more outputs than the problem allows."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import InvalidParameterError
from ..engines import staircase as staircase_engine
from ..objectives import EstimationVariance
from ..outcome import Solution, certify_solution
from ..result import DesignResult, Optimum, Status
from ..solvers import Deadline
from .local import solve_local

if TYPE_CHECKING:
    from ..spec import ProblemSpec

__all__ = ["fit_columns", "solve_staircase"]


def solve_staircase(spec: ProblemSpec, solver: str | None, options: dict,
                    deadline: Deadline) -> DesignResult:
    """An information objective by the staircase programs (exact); the local method when
    the optimum needs more outputs than the problem allows."""
    eps = spec.privacy.epsilon  # type: ignore[attr-defined]
    t0 = time.perf_counter()
    if eps > staircase_engine.MAX_STAIRCASE_EPSILON:
        raise InvalidParameterError(
            f"epsilon = {eps!r} is above {staircase_engine.MAX_STAIRCASE_EPSILON:g}, the largest "
            f"the staircase programs support for {type(spec.objective).__name__} (patterns "
            "hold 1 and e^eps side by side)")
    sol, form = _staircase(spec, eps, solver, options, deadline)
    Q = fit_columns(spec, sol.Q)
    if Q is None:
        note = (f"the staircase optimum needs {sol.Q.shape[1]} outputs but only {spec.n} "
                "are allowed: solved locally")
        return solve_local(spec, solver, options, t0, note, deadline)
    status = Status.OPTIMAL if sol.accurate else Status.INACCURATE
    notes = (deadline.note(),) if sol.stopped else ()
    return certify_solution(spec, Solution(
        Q=Q, solver_value=sol.value, status=status, solver=sol.solver, optimum=Optimum.GLOBAL,
        formulation=form, solve_time=time.perf_counter() - t0, notes=tuple(notes),
        bound=sol.bound, expect_bound=True, counts=_counts(sol)))


def _counts(sol: Any) -> dict[str, int]:
    """The column generation's rounds and patterns, when it ran."""
    used = getattr(sol, "patterns_used", None)
    if used is None or used >= getattr(sol, "n_patterns", used + 1):
        return {}
    return {"rounds": int(sol.rounds), "patterns": int(used)}


def _staircase(spec: ProblemSpec, eps: float, solver: str | None, options: dict,
               deadline: Deadline) -> tuple[Any, str]:
    """The staircase program of the objective and a description of it."""
    if isinstance(spec.objective, EstimationVariance):
        sol = staircase_engine.solve_estimation(spec.objective, eps, solver, deadline, **options)
        form = "staircase convex program over 2^k - 1 patterns"
        if sol.patterns_used is not None and sol.patterns_used < sol.n_patterns:
            form += (f" (column generation: {sol.patterns_used} of {sol.n_patterns} patterns "
                     f"in {sol.rounds} rounds; first-order gap bound {sol.gap:.1e})")
        return sol, form
    return (staircase_engine.solve_sublinear(spec.objective, eps, deadline),
            "staircase LP over 2^k - 1 patterns")


def fit_columns(spec: ProblemSpec, Q: np.ndarray) -> np.ndarray | None:
    """Place staircase columns on the allowed outputs (None if there are too few)."""
    used = Q.shape[1]
    if spec.focal_sets is None:
        if not spec.outputs_given:
            return Q  # the staircase's own outputs, labelled 0..used-1
        if used > spec.n:
            return None
        return np.hstack([Q, np.zeros((spec.k, spec.n - used))])
    if used > spec.n:
        return None
    # messages by size (singletons first), columns by the input where they peak
    focal = spec.focal_sets
    order = sorted(range(spec.n), key=lambda j: (len(focal[j]), j))
    cols = sorted(range(used), key=lambda j: (int(np.argmax(Q[:, j])), -Q[:, j].max()))
    out = np.zeros((spec.k, spec.n))
    for j, c in zip(order, cols, strict=False):
        out[:, j] = Q[:, c]
    return out
