"""Pure (or pure deletion) LDP with an expected loss at large k: cutting planes in the
column floors over a working set of outputs (:mod:`~mechdesign.design.engines.cut_generation`;
the LP of pairs of :mod:`~mechdesign.design.engines.working_set` as a second method),
certified by the dual function over all outputs."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ...privacy.notions import DeletionLDP
from ..engines import cut_generation
from ..engines import working_set as working_set_engine
from ..objectives import unit_range
from ..outcome import Solution, certify_solution, unsolved_result
from ..program import SECOND_METHOD_MIN_SECONDS
from ..result import DesignResult, Optimum, Status
from ..solvers import Deadline

if TYPE_CHECKING:
    from ..spec import ProblemSpec

__all__ = ["solve_working_set"]


def solve_working_set(spec: ProblemSpec, options: dict, time_limit: float | None
                      ) -> DesignResult:
    """Pure LDP or pure deletion LDP with an expected loss at large k, in the loss's unit
    range: cutting planes in the column floors over a working set of outputs
    (:func:`~mechdesign.design.cut_generation.solve_cut_generation`); when HiGHS fails on
    its master (not a time or memory stop), the LP of pairs
    (:func:`~mechdesign.design.working_set.solve_working_set`) as a second method, and the
    better certified of the two. The gap is certified by the dual function over ALL
    outputs."""
    t0 = time.perf_counter()
    objective = spec.objective
    unit, scale, offset = unit_range(objective.loss)
    cost = objective.prior[:, None] * unit
    deadline = Deadline(time_limit)
    eps = spec.privacy.epsilon
    deletion = isinstance(spec.privacy, DeletionLDP)
    envelope = (working_set_engine.Envelope.deletion(eps, spec.k, spec.n) if deletion
                else working_set_engine.Envelope.ldp(eps))
    highs, budget = options.get("highs_options"), spec.working_set_max_entries()
    sol = cut_generation.solve_cut_generation(cost, envelope, deadline, highs, budget)
    pairs, notes = False, []
    if sol.status not in ("optimal", "time limit", "memory limit") and not deadline.expired:
        notes.append(f"the cutting planes ended with HiGHS status {sol.status}; the LP of "
                     "pairs was solved as a second method")
        budget = spec.working_set_max_pairs()
        other = working_set_engine.solve_working_set(cost, envelope,
                                              _second_deadline(deadline, sol.Q is not None),
                                              highs, budget)
        if other.Q is not None and (sol.Q is None
                                    or other.value - other.bound < sol.value - sol.bound):
            sol, pairs = other, True
    solve_time = time.perf_counter() - t0
    notion = "pure deletion LDP" if deletion else "pure LDP"
    form = (f"{notion}, offset form, the LP of pairs on a working set of outputs "
            "(docs/formulations.md)" if pairs else
            f"{notion}, offset form, cutting planes in the column floors (docs/formulations.md)")
    if sol.Q is None:
        error = (deadline.stopped("the working-set program") if sol.status == "time limit"
                 else f"HiGHS ended the working-set program with {sol.status}")
        return unsolved_result(spec, Status.SOLVER_ERROR, "HIGHS", form, 0.0, solve_time,
                               [*notes, error], error=error)
    status = Status.OPTIMAL if sol.status == "optimal" else Status.INACCURATE
    notes.insert(0, f"working set: {len(sol.outputs)} of {spec.n} outputs used after "
                 f"{sol.rounds} rounds " + (
                     "(HiGHS primal simplex on the LP of pairs, pricing over all outputs)"
                     if pairs else f"of cutting planes ({sol.cuts:,} cuts; HiGHS dual "
                     "simplex on the master, pricing over all outputs)"))
    if sol.status == "memory limit":
        notes.append(f"the working-set loop stopped early (memory limit: its LP would have "
                     f"passed {budget:,} {'pairs' if pairs else 'entries'}, what "
                     "MEMORY_BUDGET leaves): the best point so far, with its certified gap")
    elif sol.status != "optimal":
        notes.append(f"the working-set loop stopped early ({sol.status}): the best point so "
                     "far, with its certified gap")
    return certify_solution(spec, Solution(
        Q=sol.Q, solver_value=scale * sol.value + offset, status=status, solver="HIGHS",
        optimum=Optimum.GLOBAL, formulation=form, solve_time=solve_time, notes=tuple(notes),
        structure={"working_set": list(sol.outputs)},
        counts={"rounds": sol.rounds, **({} if pairs else {"cuts": sol.cuts})},
        bound=scale * sol.bound + offset))


def _second_deadline(deadline: Deadline, answered: bool) -> Deadline:
    """The time of a second method after a failed first one: what remains of ``deadline``,
    and, when the first left an answer (a feasible point with its gap), at most its own
    time, :data:`~mechdesign.design.program.SECOND_METHOD_MIN_SECONDS` at least (the LP of
    pairs was measured many times slower on designs the cutting planes solve quickly:
    ``benchmarks/README.md``, "Pure LDP at large k")."""
    limits = [deadline.remaining()]
    if answered:
        limits.append(max(SECOND_METHOD_MIN_SECONDS, time.monotonic() - deadline.start))
    finite = [x for x in limits if x is not None]
    return Deadline(min(finite) if finite else None)
