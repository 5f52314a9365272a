r"""A compiled design program, shared by :meth:`DesignProblem.solve
<mechdesign.design.problem.DesignProblem.solve>` and the frontier.

:meth:`DesignProblem.compile <mechdesign.design.problem.DesignProblem.compile>` builds a
:class:`Program` once: the cvxpy problem, the design variable ``Q``, the named constraint
groups (``"rows"``, ``"privacy"`` and the user's names) and, for a parametric build, the
setters that move every epsilon-dependent coefficient. :meth:`Program.attempts` runs the
first solve and the re-solves a doubtful answer calls for (another solver, strict
infeasibility tolerances, a second method when the certified gap is too wide);
:meth:`Program.conclude` turns the attempts into one certified
:class:`~mechdesign.design.result.DesignResult`. A frontier calls the same two methods at
every epsilon after :meth:`Program.set_epsilon`. The problem is read through
:class:`~mechdesign.design.spec.ProblemSpec`; the solvers through their adapters
(:mod:`~mechdesign.design.solvers`).
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import math
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import cvxpy as cp
import numpy as np

from .outcome import GAP_TOL, Solution, certify_solution, gap_of, unsolved_result
from .result import DesignResult, Optimum, Status
from .solvers import (
    BLOCK_IPM,
    Deadline,
    Run,
    SolverAdapter,
    choose_solver,
    dual_bound,
    is_lp,
    solve_compiled,
    solver_adapter,
    solver_options,
)

if TYPE_CHECKING:
    from .spec import ProblemSpec

__all__ = ["SECOND_METHOD_MIN_SECONDS", "SOLVER_STATUS", "STRICT_INFEASIBILITY", "FeasibleSet",
           "Program", "best_run", "run_solve"]

log = logging.getLogger("mechdesign.design")
"""Progress and attempts of the design (``mechdesign solve --verbose``)."""

SECOND_METHOD_MIN_SECONDS = 30.0
"""A second method (the other solver, HiGHS simplex) re-solving a solved design whose
certified gap is above tolerance gets as long as the first solve took, at least this: on
large metric LPs HiGHS is many times slower than Clarabel (a 28 x 28 spanner grid whose
Clarabel answer had a gap of 1.2e-6 spent the rest of a 900 s limit in HiGHS and returned
the same answer: ``benchmarks/README.md``, "Grids at scale")."""

STRICT_INFEASIBILITY = {"tol_infeas_abs": 1e-14, "tol_infeas_rel": 1e-14}
"""Clarabel settings of the last re-solve of a problem feasible and bounded by construction
that a solver called infeasible or unbounded (Clarabel's default infeasibility tolerances,
1e-8, call some custom objectives with losses scaled by 3e10 unbounded)."""

SOLVER_STATUS = {
    cp.OPTIMAL: Status.OPTIMAL, cp.OPTIMAL_INACCURATE: Status.INACCURATE,
    cp.INFEASIBLE: Status.INFEASIBLE, cp.INFEASIBLE_INACCURATE: Status.INFEASIBLE,
    cp.UNBOUNDED: Status.UNBOUNDED, cp.UNBOUNDED_INACCURATE: Status.UNBOUNDED,
}
"""cvxpy's status strings as :class:`~mechdesign.design.result.Status` (anything else is a
solver error)."""


@dataclass(frozen=True)
class FeasibleSet:
    """The design variable and its constraints, by group name (read-only)."""

    Q: cp.Expression
    groups: Mapping[str, tuple]
    setters: tuple[Callable[[float], None], ...] = ()
    notes: tuple[str, ...] = ()
    relax: Callable[[np.ndarray], list] | None = None

    @property
    def constraints(self) -> list:
        return [c for group in self.groups.values() for c in group]

    def duals(self, scale: float = 1.0) -> dict[str, Any]:
        """Dual values by group name (one value for a one-constraint group), times
        ``scale``: the objective's ``a`` of :meth:`~mechdesign.design.objectives.Objective.scaling`
        turns the compiled program's duals (losses scaled to [0, 1]) into the objective's
        units, the sensitivity ``d value / d rhs`` of each constraint."""
        out = {}
        for name, cons in self.groups.items():
            vals = [_scaled(c.dual_value, scale) for c in cons]
            out[name] = vals[0] if len(vals) == 1 else vals
        return out


TIGHT_CONIC = {"tol_gap_abs": 1e-12, "tol_gap_rel": 1e-12, "tol_feas": 1e-12,
               "tol_ktratio": 1e-10}
"""Clarabel's settings for the second method of a conic program with a relaxation bound
(Rényi LDP): re-solved this tightly while the certified gap exceeds the tolerance."""


def _scaled(dual: Any, scale: float) -> Any:
    """A constraint's dual times ``scale``: None, an array, or (a cone's) list of arrays."""
    if dual is None:
        return None
    if isinstance(dual, list | tuple):
        return [scale * d for d in dual]
    return scale * dual


@dataclass(frozen=True)
class Program:
    """A design problem compiled to cvxpy (see the module docstring).

    ``problem`` is the specification it was built from; the methods take another
    specification of the same shape (``spec``, e.g. the same problem at another epsilon
    after :meth:`set_epsilon`) for certification.
    """

    problem: ProblemSpec
    prob: cp.Problem
    feasible: FeasibleSet
    build_time: float

    @property
    def Q(self) -> cp.Expression:
        return self.feasible.Q

    @property
    def parametric(self) -> bool:
        return bool(self.feasible.setters)

    def set_epsilon(self, epsilon: float) -> None:
        """Move every epsilon-dependent coefficient of a parametric build to ``epsilon``."""
        for setter in self.feasible.setters:
            setter(epsilon)

    def default_solver(self, solver: str | None = None) -> str:
        """The solver a solve starts with (``solver`` if given, checked)."""
        return choose_solver(self.prob, solver)

    # ------------------------------------------------------------------ attempts
    def attempts(self, name: str, *, explicit: bool, options: dict,
                 time_limit: float | None, runner: Callable[[cp.Problem], None] | None = None,
                 spec: ProblemSpec | None = None, first: Run | None = None) -> list[Run]:
        """The first solve and the re-solves it calls for: the rescues of a doubtful status
        (:meth:`rescues`) until one gives a solution, then, for an LP, second methods (the
        other solver, then HiGHS simplex, whose vertex answer has exact complementary duals)
        while the certified gap exceeds :data:`~mechdesign.design.outcome.GAP_TOL`, all
        within one ``time_limit`` (a re-solve gets what the earlier ones left; a second
        method at most the first solve's time, :data:`SECOND_METHOD_MIN_SECONDS` at least).
        ``first``: the first solve, already run (with ``name`` and ``options``)."""
        spec = spec or self.problem
        deadline = Deadline(time_limit)  # one budget for the first solve and its re-solves
        lp = is_lp(self.prob)
        # a default Clarabel solve of an LP may run the block interior point first
        blocks = lp and not explicit and runner is None and name == "CLARABEL"
        runs = [first or self.run(name, options, runner, time_limit, spec,
                                  adapter=BLOCK_IPM if blocks else None)]
        if runs[0].timed_out:
            return runs
        other = solver_adapter(name).fallback(lp)
        if runner is not None:  # e.g. warm-started simplex: then an independent default solve
            other = choose_solver(self.prob, None)
        rescues = self.rescues(runs[0], lp, other, explicit, spec)
        if rescues is None:  # an explicit solver's own answer stands
            return runs
        second = [(other, {}), ("HIGHS", {"highs_options": {"solver": "simplex"}})] if lp else (
            [("CLARABEL", TIGHT_CONIC)] if self.feasible.relax is not None else [])
        doubt = runs[0].status is not Status.INACCURATE  # a claim or a failure: until solved
        plan = [(*r, True) for r in rescues] + [(*r, False) for r in second]
        for alt, alt_options, rescue in plan:
            best = best_run(runs)
            if rescue and doubt and best is not None:
                continue
            if not rescue and (best is None or best.gap is None or best.gap <= GAP_TOL or any(
                    r.name == alt and r.options == alt_options for r in runs)):
                continue
            if deadline.expired:
                break
            if alt in cp.installed_solvers():
                limit = deadline.remaining()
                if not rescue:  # a check of a solved design: as long as the first solve took
                    check = max(SECOND_METHOD_MIN_SECONDS, runs[0].elapsed)
                    limit = check if limit is None else min(limit, check)
                runs.append(self.run(alt, alt_options, None, limit, spec))
        return runs

    def rescues(self, first: Run, lp: bool, other: str | None, explicit: bool,
                spec: ProblemSpec) -> list[tuple[str | None, dict]] | None:
        """Re-solves for a doubtful first status, tried until one gives a solution.

        "Infeasible" (and "unbounded" of a program bounded by construction): the other solver
        and, without user constraints, Clarabel at :data:`STRICT_INFEASIBILITY` (first for
        conic programs, whose other solver, SCS, certifies no gap); with user constraints the
        other solver confirms. Inaccurate or failed, with the solver left to the default: the
        other solver. None: an explicit solver's answer stands."""
        unbounded = first.status is Status.UNBOUNDED and spec.bounded_by_construction(self.prob)
        if first.status is Status.INFEASIBLE or unbounded:
            strict = [("CLARABEL", STRICT_INFEASIBILITY)]
            if not (unbounded or spec.feasible_by_construction):
                strict = []
            return [(other, {}), *strict] if lp else [*strict, (other, {})]
        if explicit:
            return None
        if first.status in (Status.INACCURATE, Status.SOLVER_ERROR):
            return [(other, {})]
        return []

    def run(self, name: str, options: dict, runner: Callable[[cp.Problem], None] | None = None,
            time_limit: float | None = None, spec: ProblemSpec | None = None,
            with_solution: bool = True, adapter: SolverAdapter | None = None) -> Run:
        """One solve (with ``runner(prob)`` instead of the default if given, e.g. the
        warm-started :class:`~mechdesign.design.solvers.WarmHighs` of a sweep): status, a copy
        of Q and the duals, the solver's value in the objective's units, the independent dual
        bound (:func:`~mechdesign.design.solvers.dual_bound`) and the solver's warnings.
        ``with_solution=False``: status only (a step of the local method). ``adapter``: how
        solver ``name`` is run, when not its own adapter (the block interior point)."""
        return run_solve(self.prob, self.feasible if with_solution else None, name, options,
                         runner, time_limit, spec or self.problem, adapter)

    # ------------------------------------------------------------------ conclusion
    def conclude(self, runs: list[Run], formulation: str, build_time: float,
                 solve_time: float, spec: ProblemSpec | None = None) -> DesignResult:
        """One result from the attempts: the best solved run, certified; else the reason."""
        spec = spec or self.problem
        notes = (*self.feasible.notes,
                 *(f"{before.summary()}; re-solved with {after.label}"
                   for before, after in itertools.pairwise(runs)))
        best = best_run(runs)
        if best is not None:
            res = certify_solution(spec, Solution(
                Q=best.Q, solver_value=best.solver_value, status=best.status,
                solver=best.engine or best.name, optimum=Optimum.GLOBAL,
                formulation=formulation, build_time=build_time, solve_time=solve_time,
                duals=best.duals, notes=(*notes, *best.warnings), bound=best.bound,
                expect_bound=True))
            if getattr(spec.privacy, "spanner", None) and res.optimum == "global":
                # the spanner's constraints are stricter than the notion: optimal for them
                return dataclasses.replace(res, optimum=Optimum.SPANNER, notes=(
                    *res.notes, "optimal over the spanner's constraints, which are stricter "
                    "than metric privacy itself: the gap is to that restricted optimum"))
            return res
        status, error, notes = self._failure(runs, spec, notes)
        last = runs[-1]
        return unsolved_result(spec, status, last.name, formulation, build_time, solve_time,
                               (*notes, *last.warnings), error)

    def _failure(self, runs: list[Run], spec: ProblemSpec, notes: tuple[str, ...]
                 ) -> tuple[Status, str, tuple[str, ...]]:
        """Status, error and notes when no attempt gave a solution: a claim of
        unboundedness or infeasibility of a problem bounded or feasible by construction is
        a solver error; infeasibility is reported only when every attempt agrees."""
        last = runs[-1]
        status, error = last.status, last.error
        summary = "; ".join(r.summary() for r in runs)
        if spec.bounded_by_construction(self.prob) and any(
                r.status is Status.UNBOUNDED for r in runs):
            return Status.SOLVER_ERROR, (
                "the problem is bounded by construction (every row of Q lies in the simplex "
                f"and there are no user constraints), but {summary}"), notes
        if any(r.status is Status.INFEASIBLE for r in runs):
            if spec.feasible_by_construction:
                return Status.SOLVER_ERROR, (
                    "the problem is feasible by construction (a constant mechanism meets the "
                    f"notion and there are no user constraints), but {summary}"), notes
            if all(r.status is Status.INFEASIBLE for r in runs):
                if len(runs) > 1:
                    notes = (*notes, "infeasibility confirmed by "
                             + " and ".join(r.name for r in runs))
                return Status.INFEASIBLE, error, notes
            return Status.SOLVER_ERROR, summary, notes
        return status, error, notes


def relaxation_bound(prob: cp.Problem, feasible: FeasibleSet, time_limit: float | None
                     ) -> float | None:
    """A rigorous bound on the optimum of the conic program ``prob`` from a linear
    relaxation: its privacy cones replaced by the tangent cuts ``feasible.relax`` at the
    solver's point (valid for every Q), solved by HiGHS, and the LP's dual bound recomputed
    from its data (:func:`~mechdesign.design.solvers.dual_bound`). None when the rest of
    the program is not linear or the LP fails."""
    others = [c for name, group in feasible.groups.items() if name != "privacy"
              for c in group]
    lp = cp.Problem(prob.objective, [*others, *feasible.relax(np.asarray(feasible.Q.value))])
    if not is_lp(lp):
        return None
    # the LP shares the program's variables: its solve must not replace the solution
    saved = [(v, v.value) for v in prob.variables()]
    try:
        record = solve_compiled(lp, "HIGHS", solver_options("HIGHS", {}, time_limit), None)
    except (cp.SolverError, ValueError):
        record = None
    finally:
        for v, value in saved:
            v.value = value
    if lp.status not in ("optimal", "optimal_inaccurate") or record is None:
        return None
    return dual_bound(lp, *record, "HIGHS")


def best_run(runs: list[Run]) -> Run | None:
    """The run with a solution and the smallest certified gap (the first on ties)."""
    solved = [r for r in runs if r.Q is not None]
    if not solved:
        return None
    return min(solved, key=lambda r: math.inf if r.gap is None else r.gap)


def run_solve(prob: cp.Problem, feasible: FeasibleSet | None, name: str, options: dict,
              runner: Callable[[cp.Problem], None] | None, time_limit: float | None,
              spec: ProblemSpec, adapter: SolverAdapter | None = None) -> Run:
    """One solve of ``prob`` (see :meth:`Program.run`); ``feasible=None``: status only.
    Each attempt is logged (logger ``mechdesign.design``, DEBUG: ``--verbose``)."""
    run = _run_solve(prob, feasible, name, options, runner, time_limit, spec, adapter)
    log.debug("%s%s", run.summary(), f": {run.error}" if run.error else "")
    return run


def _run_solve(prob: cp.Problem, feasible: FeasibleSet | None, name: str, options: dict,
               runner: Callable[[cp.Problem], None] | None, time_limit: float | None,
               spec: ProblemSpec, adapter: SolverAdapter | None) -> Run:
    t0 = time.perf_counter()
    record = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if runner is not None:
                runner(prob)
                record = getattr(runner, "last", None)
            else:
                record = solve_compiled(prob, name, solver_options(name, options, time_limit),
                                        adapter)
        except (cp.SolverError, ValueError) as exc:  # cvxpy: "Cannot unpack invalid ..."
            return Run(name, Status.SOLVER_ERROR, f"{name} failed: {exc}",
                       time.perf_counter() - t0, options=options)
    elapsed = time.perf_counter() - t0
    compile_time = float(getattr(prob, "compilation_time", None) or 0.0)
    notes = tuple(f"solver warning: {w.message}" for w in caught)
    raw = None if record is None else record[1]
    engine = getattr(raw, "engine", "")  # the block interior point (block_ipm)
    if getattr(raw, "block_note", None):
        notes = (*notes, raw.block_note)
    status = SOLVER_STATUS.get(prob.status, Status.SOLVER_ERROR)
    # cvxpy reads Clarabel's MaxIterations as USER_LIMIT too: only the clock tells
    timed_out = (time_limit is not None and status is not Status.OPTIMAL
                 and elapsed - compile_time >= 0.98 * time_limit)
    stop = Run(name, status, "", elapsed, compile_time, options=options, warnings=notes,
               engine=engine)
    if timed_out:
        return dataclasses.replace(stop, status=Status.SOLVER_ERROR, timed_out=True,
                                   error=f"{name} stopped at the time limit of {time_limit:g} s")
    if status is Status.SOLVER_ERROR:
        return dataclasses.replace(stop, error=(
            f"{name} stopped with status {prob.status!r} (time limit, iteration limit or "
            "numerical trouble)"))
    if (status not in (Status.OPTIMAL, Status.INACCURATE) or feasible is None
            or feasible.Q.value is None):
        return stop
    a, b = spec.objective.scaling()
    bound = None if record is None else dual_bound(prob, *record, name)
    if bound is None and feasible.relax is not None:
        bound = relaxation_bound(prob, feasible, time_limit)
    return dataclasses.replace(
        stop, Q=np.array(feasible.Q.value), solver_value=a * float(prob.value) + b,
        bound=None if bound is None else a * bound + b, duals=feasible.duals(a),
        gap=gap_of(spec.objective, float(prob.value), bound))
