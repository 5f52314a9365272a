r"""The solve methods of a design problem, one function each.

* :func:`solve_program`: the global LP / convex program (compiled once,
  :class:`~mechdesign.design.program.Program`), with its re-solves and certificate;
* :func:`solve_walley`: WLDP read by Walley, reduced to the pure-LDP problem over the
  outputs and embedded on the singleton messages;
* :func:`solve_working_set`: pure (or pure deletion) LDP with an expected loss at large k,
  by cutting planes in the column floors over a working set of outputs
  (:mod:`~mechdesign.design.cut_generation`; the LP of pairs of
  :mod:`~mechdesign.design.working_set` as a second method), certified by the dual
  function;
* information objectives (maximised convex functions): :func:`solve_symmetric` (uniform
  prior, trace or log-det: subset selection at its best d), :func:`solve_staircase` (pure
  LDP and mass SLDP, ``k <= MAX_STAIRCASE_K``), :func:`solve_pattern_generation`,
  :func:`solve_minimax_estimation` or :func:`solve_local` (minorise-maximise), and
  :func:`prefer_known` after an estimation design;
* :func:`solve_hamming`: k-RR in closed form; :func:`solve_row_generation`: metric privacy
  by row generation.

Which one runs is decided by :mod:`~mechdesign.design.planner` (and nowhere else); each
returns through the result builder of :mod:`~mechdesign.design.outcome`. None mutates the
problem.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from typing import TYPE_CHECKING, Any

import cvxpy as cp
import numpy as np

from .. import catalog
from ..errors import InfeasibleDesignError, InvalidParameterError, SizeLimitError, SolverFailedError
from ..evidential import EvidentialMechanism
from ..privacy.notions import LDP, DeletionLDP
from . import cut_generation, local, planner, row_generation, staircase, working_set
from .objectives import (
    EstimationVariance,
    ExpectedLoss,
    WorstCaseLoss,
    unit_range,
)
from .outcome import GAP_TOL, Solution, analytic_result, certify_solution, unsolved_result
from .program import SECOND_METHOD_MIN_SECONDS, best_run, run_solve
from .result import DesignResult, Optimum, Status
from .solvers import Deadline, check_memory, choose_solver
from .symmetry import check_invariant

if TYPE_CHECKING:
    from .problem import DesignProblem

log = logging.getLogger("mechdesign.design")


def solve_program(spec: DesignProblem, solver: str | None, options: dict,
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


def solve_working_set(spec: DesignProblem, options: dict, time_limit: float | None
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
    envelope = (working_set.Envelope.deletion(eps, spec.k, spec.n) if deletion
                else working_set.Envelope.ldp(eps))
    highs, budget = options.get("highs_options"), planner.working_set_max_entries(spec)
    sol = cut_generation.solve_cut_generation(cost, envelope, deadline, highs, budget)
    pairs, notes = False, []
    if sol.status not in ("optimal", "time limit", "memory limit") and not deadline.expired:
        notes.append(f"the cutting planes ended with HiGHS status {sol.status}; the LP of "
                     "pairs was solved as a second method")
        budget = planner.working_set_max_pairs(spec)
        other = working_set.solve_working_set(cost, envelope,
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
        structure={"working_set": list(sol.outputs)}, bound=scale * sol.bound + offset))


def _second_deadline(deadline: Deadline, answered: bool) -> Deadline:
    """The time of a second method after a failed first one: what remains of ``deadline``,
    and, when the first left an answer (a feasible point with its gap), at most its own
    time, :data:`~mechdesign.design.program.SECOND_METHOD_MIN_SECONDS` at least (the LP of
    pairs took minutes on designs the cutting planes solve in a tenth of a second)."""
    limits = [deadline.remaining()]
    if answered:
        limits.append(max(SECOND_METHOD_MIN_SECONDS, time.monotonic() - deadline.start))
    finite = [x for x in limits if x is not None]
    return Deadline(min(finite) if finite else None)


def solve_row_generation(spec: DesignProblem, skeleton: list, solver: str | None,
                         options: dict, time_limit: float | None) -> DesignResult:
    """Exact metric privacy on the triples that bind (:mod:`~mechdesign.design.row_generation`):
    each round builds and solves the program on the current triples (a relaxation, with its
    certified dual bound); the skeleton's violated triples enter and the next round solves
    again (the most violated first, at most :data:`row_generation.NEW_PER_ROUND` of the
    starting triples a round), until none is violated, the time limit or
    :data:`row_generation.MAX_ROUNDS`. The
    last round's matrix is certified against the notion itself, its gap against the last
    round's bound (every round's bound is a bound on the exact optimum). A round that leaves
    at most :data:`row_generation.FEW_ROWS` of its rows violated, by at most
    :data:`row_generation.SMALL_EXCESS`, is certified first, and stands when its repaired
    matrix meets the notion within the gap tolerance."""
    t0 = time.perf_counter()
    notion = spec.privacy
    D = notion.distances(spec.inputs)  # type: ignore[union-attr]
    if spec.symmetry is not None:
        check_invariant("distance", D, spec.symmetry, "ii")
    deadline = Deadline(time_limit)
    k, n, eps = spec.k, spec.n, notion.epsilon  # type: ignore[union-attr]
    a, b, d = row_generation.directed(spec, skeleton)
    start_a, start_b, _ = row_generation.start_pairs(spec, D)
    cap = max(1, int(row_generation.NEW_PER_ROUND * len(start_a) * n))  # triples a round
    rows = row_generation.codes(spec.symmetry, k, n,
                                *row_generation.all_columns(start_a, start_b, n))
    what = f"MetricDP design with {k} inputs and {n} outputs (row generation)"
    times = [time.perf_counter() - t0, 0.0]  # build (skeleton, starting rows), solve
    program, runs, rounds, left, solved_rows = None, [], 0, 0, 0  # rounds: solved ones

    def conclude() -> DesignResult:
        assert program is not None
        res = program.conclude(runs, "MetricDP by row generation on the skeleton's triples "
                               "(docs/formulations.md)", times[0], times[1], spec=spec)
        note = (f"row generation: {rounds} rounds, {solved_rows:,} "
                + ("orbit rows" if spec.symmetry is not None else "rows")
                + f" of the {2 * len(skeleton) * n:,} skeleton rows"
                + ("" if not left else f"; {left:,} rows still violated (by more than "
                   f"{row_generation.VIOLATION_TOL:g}) when it stopped: the envelope repair "
                   "restores privacy and the gap says what that cost"))
        return dataclasses.replace(res, notes=(*res.notes, note))

    while True:
        try:
            check_memory(row_generation.estimated_nonzeros(spec, rows.size), what)
        except SizeLimitError:
            if program is None:
                raise
            break  # the last finished round stands
        t1 = time.perf_counter()
        trial = spec.compile(form=row_generation.formulate_rows(spec, rows, D))
        t2 = time.perf_counter()
        name = trial.default_solver(solver)
        # one solve; the rescues of a failed one and, for the final round, the re-solves of
        # a gap above tolerance (an intermediate round only finds violations; a final one
        # certified within the tolerance stands, whatever the solver's own status)
        again = {"explicit": bool(solver or options), "options": options}
        first = trial.run(name, options, None, deadline.remaining())
        trial_runs = [first] if first.Q is not None else trial.attempts(
            name, time_limit=deadline.remaining(), first=first, **again)
        best = best_run(trial_runs)
        new, excess = np.zeros(0, dtype=np.int64), 0.0
        if best is not None:
            va, vb, vy, ve = row_generation.violated(best.Q, a, b, d, eps)
            excess = float(ve.max()) if ve.size else 0.0
            keep = row_generation.largest(ve, cap)
            new = np.setdiff1d(row_generation.codes(spec.symmetry, k, n, va[keep], vb[keep],
                                                    vy[keep]), rows, assume_unique=True)
            if not new.size and first.Q is not None and not (
                    first.gap is not None and first.gap <= GAP_TOL):
                trial_runs = trial.attempts(name, time_limit=deadline.remaining(),
                                            first=first, **again)
                best = best_run(trial_runs)
        compile_time = sum(r.compile_time for r in trial_runs)
        times[0] += t2 - t1 + compile_time
        times[1] += time.perf_counter() - t2 - compile_time
        if best is None and program is not None:
            break  # the last solved round stands
        program, runs, solved_rows = trial, trial_runs, rows.size
        if best is None:
            break
        rounds += 1
        left = new.size
        log.info("row generation round %d: %d rows, %.1f s; %d violated rows (by up to %.2g)",
                 rounds, rows.size, time.perf_counter() - t1, left, excess)
        if not left or deadline.expired or rounds >= row_generation.MAX_ROUNDS:
            break
        if (left <= row_generation.FEW_ROWS * rows.size
                and excess <= row_generation.SMALL_EXCESS):
            res = conclude()
            if _certified(res):
                return res
        rows = np.union1d(rows, new)
    res = conclude() if rounds else None
    if (res is not None and _certified(res)) or deadline.expired:
        return res if res is not None else conclude()
    # no round solved, or one failed before the rows were complete (fuzzing: both solvers
    # failed on a round at eps = 2.5..3.5): the whole program, whose rescues may fare better
    try:
        whole = solve_program(spec, solver, options, deadline.remaining())
    except SizeLimitError:
        return res if res is not None else conclude()
    if res is not None and _gap_key(res) <= _gap_key(whole):
        return res
    return dataclasses.replace(whole, notes=(
        *whole.notes, f"row generation stopped after {rounds} solved rounds ("
        + (runs[-1].error or "rows still violated" if runs else "not run")
        + "): the whole program was solved"))


def _gap_key(res: DesignResult) -> float:
    return math.inf if res.gap is None else res.gap


def _certified(res: DesignResult) -> bool:
    """The result meets its notion with a certified gap within the tolerance."""
    return (res.certificate is not None and res.certificate.met and res.gap is not None
            and res.gap <= GAP_TOL)


def solve_walley(spec: DesignProblem, solver: str | None, options: dict,
                 time_limit: float | None) -> DesignResult:
    """WLDP under Walley's reading: the pure-LDP problem over the outputs, embedded on the
    singleton messages and re-measured as WLDP (see ``DesignProblem``'s ``semantics``)."""
    from .problem import DesignProblem

    inner = DesignProblem(LDP(spec.privacy.epsilon), spec.objective,  # type: ignore
                          inputs=spec.inputs, outputs=spec.outputs,
                          constraints=spec.constraints)
    res = inner.solve(solver, time_limit=time_limit, **options)
    if res.certificate is None or not res.certificate.met:
        return res
    focal = spec.focal_sets or ()
    singles = [focal.index(frozenset([y])) for y in spec.outputs]
    M = np.zeros((spec.k, spec.n))
    M[:, singles] = res.mechanism.matrix  # type: ignore[union-attr]

    def build(masses: np.ndarray) -> EvidentialMechanism:
        return EvidentialMechanism(masses, focal, spec.inputs, spec.outputs)

    def on_outputs(masses: np.ndarray) -> float:
        # certification works on the masses (its repairs keep them on the singletons)
        return spec.objective.evaluate(masses[:, singles])

    note = ("Walley reading: every completion of an eps-WLDP mechanism is eps-LDP, so the "
            "worst-case optimum is the pure-LDP optimum (no 'don't know' mass)")
    out = certify_solution(spec, Solution(
        Q=M, solver_value=res.solver_value, status=res.status, solver=res.solver,
        optimum=res.optimum, formulation="WLDP (Walley) reduced to " + res.formulation,
        build_time=res.build_time, solve_time=res.solve_time, duals=res.duals,
        notes=(*res.notes, note), structure=res.structure, gap=res.gap, build=build,
        evaluate=on_outputs))
    if out.certificate is not None and out.certificate.repair != "none":
        # the embedding changes no objective value unless the WLDP check had to repair it
        return dataclasses.replace(out, status=Status.INACCURATE, gap=None)
    return out


def prefer_known(spec: DesignProblem, res: DesignResult) -> DesignResult:
    """``res``, or the best frequency oracle at the problem's prior when ``res`` is not
    certified optimal and the oracle's matrix does better on the design's own objective.

    The oracle with the smallest estimator variance at the prior (:func:`best_oracle`) and
    k-RR are materialised (when small enough: :data:`~mechdesign.oracles.base.MAX_ENTRIES`
    and at most ``spec.n`` outputs when the outputs are given) and evaluated by the
    objective; the better one replaces an uncertified design it beats, certified like
    any matrix, labelled ``optimum = "catalog"`` with its name, and its gap taken against
    the design's bound (the bound holds for every mechanism).
    """
    from ..oracles.choice import best_oracle
    from ..oracles.randomized_response import RandomizedResponse

    if (res.status is Status.OPTIMAL or res.value is None or spec.constraints
            or type(spec.privacy) is not LDP or spec.focal_sets is not None):
        return res  # the catalog is pure eps-LDP over ordinary outputs
    eps = spec.privacy.epsilon  # type: ignore[attr-defined]
    best = None
    for oracle in (best_oracle(spec.objective.prior, eps)[0],  # type: ignore[attr-defined]
                   RandomizedResponse(spec.k, eps)):
        try:
            M = oracle.to_mechanism().matrix
        except SizeLimitError:
            continue
        if spec.outputs_given and M.shape[1] > spec.n:
            continue
        value = spec.objective.evaluate(M)
        if value < res.value and (best is None or value < best[0]):
            best = (value, oracle, M)
    if best is None:
        return res
    value, oracle, M = best
    bound = None
    if res.gap is not None and math.isfinite(res.gap) and res.value > 0:
        bound = res.value * (1.0 - res.gap) * (1.0 - 1e-12)  # the design's lower bound
    note = (f"the design ended uncertified ({res.status}) at value {res.value:.6g}; the "
            f"best catalog mechanism at this prior, {oracle!r}, has {value:.6g} on the same "
            "objective and is returned instead")
    Q = M if not spec.outputs_given else np.hstack(
        [M, np.zeros((spec.k, spec.n - M.shape[1]))])
    out = certify_solution(spec, Solution(
        Q=Q, solver_value=value, status=Status.INACCURATE, solver="catalog",
        optimum=Optimum.CATALOG, formulation=f"catalog: {oracle!r}",
        build_time=res.build_time, solve_time=res.solve_time, notes=(*res.notes, note),
        bound=bound, expect_bound=bound is not None, oracle=oracle))
    return out


def solve_staircase(spec: DesignProblem, solver: str | None, options: dict,
                    deadline: Deadline) -> DesignResult:
    """An information objective by the staircase programs (exact); the local method when
    the optimum needs more outputs than the problem allows."""
    eps = spec.privacy.epsilon  # type: ignore[attr-defined]
    t0 = time.perf_counter()
    if eps > staircase.MAX_STAIRCASE_EPSILON:
        raise InvalidParameterError(
            f"epsilon = {eps!r} is above {staircase.MAX_STAIRCASE_EPSILON:g}, the largest "
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
        bound=sol.bound, expect_bound=True))


def solve_minimax_estimation(spec: DesignProblem, solver: str | None, options: dict,
                             deadline: Deadline) -> DesignResult:
    """The worst prior's estimation criterion under pure LDP: the staircase epigraph
    program of :mod:`~mechdesign.design.minimax_staircase` (every pattern, k <= 10) with
    its dual Frank-Wolfe certificate. Other notions, user constraints and larger k are
    refused with a typed error (no exact program; the local method does not take a
    maximum of criteria)."""
    from .minimax_staircase import solve_minimax_estimation as solve

    if not isinstance(spec.privacy, LDP):
        raise InvalidParameterError(
            f"MinimaxEstimation is solved under pure LDP only (its staircase program); "
            f"{spec.privacy!r} is not supported")
    if spec.constraints:
        raise InvalidParameterError(
            "MinimaxEstimation takes no user constraints (its staircase program is exact "
            f"only without them); got {sorted(spec.constraints)!r}")
    eps = spec.privacy.epsilon
    if eps > staircase.MAX_STAIRCASE_EPSILON:
        raise InvalidParameterError(
            f"epsilon = {eps!r} is above {staircase.MAX_STAIRCASE_EPSILON:g}, the largest "
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


def solve_pattern_generation(spec: DesignProblem, eps: float, t0: float,
                             deadline: Deadline) -> DesignResult:
    """Estimation (A criterion) past the staircase limit: column generation with
    local-search pricing and the semidefinite certificate of
    :mod:`~mechdesign.design.pattern_generation`; the note compares the design with the
    best frequency oracle at the same prior."""
    from .pattern_generation import solve_estimation_patterns

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
        expect_bound=True))


def oracle_comparison(objective: EstimationVariance, eps: float, value: float) -> str:
    """A note comparing ``value`` (a design's Cramer-Rao criterion) with the frequency
    oracles' exact estimator variances at the same prior and epsilon."""
    from ..oracles.choice import best_oracle

    best, other = best_oracle(objective.prior, eps)
    change = 100 * (1 - value / other)
    return (f"best frequency oracle at this prior: {best!r}, estimator variance "
            f"{other:.6g} per report; this design's Cramer-Rao value {value:.6g} is "
            f"{abs(change):.3g}% {'lower' if change >= 0 else 'higher'} (the value of its "
            "maximum-likelihood estimate, estimator='mle'; its inverse estimator does worse)")


def _staircase(spec: DesignProblem, eps: float, solver: str | None, options: dict,
               deadline: Deadline) -> tuple[Any, str]:
    """The staircase program of the objective and a description of it."""
    if isinstance(spec.objective, EstimationVariance):
        sol = staircase.solve_estimation(spec.objective, eps, solver, deadline, **options)
        form = "staircase convex program over 2^k - 1 patterns"
        if sol.patterns_used is not None and sol.patterns_used < sol.n_patterns:
            form += (f" (column generation: {sol.patterns_used} of {sol.n_patterns} patterns "
                     f"in {sol.rounds} rounds; first-order gap bound {sol.gap:.1e})")
        return sol, form
    return (staircase.solve_sublinear(spec.objective, eps, deadline),
            "staircase LP over 2^k - 1 patterns")


def fit_columns(spec: DesignProblem, Q: np.ndarray) -> np.ndarray | None:
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


def hamming_closed_form(spec: DesignProblem) -> tuple[float, float] | None:
    """``(a, b)`` when the problem is pure LDP over every pair with a loss ``a (1 - I) + b``
    (``a > 0``, k x k, Hamming up to scale and shift), at the uniform prior (expected loss)
    or the worst case, with no user constraints, focal sets or symmetry; else None."""
    obj = spec.objective
    if (type(spec.privacy) is not LDP or spec.constraints
            or spec.focal_sets is not None or spec.symmetry is not None
            or spec.semantics == "walley" or spec.n != spec.k
            or not isinstance(obj, ExpectedLoss | WorstCaseLoss)):
        return None
    if isinstance(obj, ExpectedLoss) and not np.all(obj.prior == obj.prior[0]):
        return None
    L = obj.loss
    b = float(L[0, 0])
    off = float(L[0, 1]) if spec.k > 1 else b
    k = spec.k
    if not off > b or not (L.diagonal() == b).all() or int((L == off).sum()) != k * k - k:
        return None
    return off - b, b


def solve_hamming(spec: DesignProblem, a: float, b: float) -> DesignResult:
    r"""Hamming loss (up to scale and shift) under pure LDP: k-RR, in closed form at any k.

    Value ``b + a (k - 1) / (e^eps + k - 1)`` for the loss ``a (1 - I) + b`` at the uniform
    prior, and the same for the worst case (k-RR's rows all have it). Optimal with gap 0:
    every eps-LDP column has ``Q[y, y] <= e^eps Q[x, y]`` for all x, so
    ``sum_x Q[x, y] >= Q[y, y] (1 + (k - 1) e^-eps)`` and, summing over y,
    ``sum_y Q[y, y] <= k / (1 + (k - 1) e^-eps)``: the average (hence the worst) loss is at
    least k-RR's (Kairouz, Oh & Viswanath 2016). ``(a, b)`` from :func:`hamming_closed_form`.
    No program is built; the matrix is returned and certified when it has at most
    ``catalog.MAX_ENTRIES`` entries, else the structured mechanism (``result.oracle``) with
    its exact epsilon.
    """
    from ..oracles import RandomizedResponse

    t0 = time.perf_counter()
    k, eps = spec.k, spec.privacy.epsilon  # type: ignore[attr-defined]
    value = b + a * (k - 1) / (math.exp(eps) + k - 1) if eps < 700 else b
    oracle = RandomizedResponse(k, eps)
    structure = {"family": "randomized_response", "k": k, "epsilon": eps}
    form = "closed form: k-RR is optimal for Hamming loss (no program built)"
    if k * k <= catalog.MAX_ENTRIES:
        mech = catalog.randomized_response(k, eps)
        return certify_solution(spec, Solution(
            Q=mech.matrix, solver_value=value, status=Status.OPTIMAL, solver="closed form",
            optimum=Optimum.GLOBAL, formulation=form, solve_time=time.perf_counter() - t0,
            structure=structure, outputs=spec.outputs, gap=0.0, oracle=oracle))
    return analytic_result(
        spec, value, eps, form, time.perf_counter() - t0, structure,
        method="exact: the structured mechanism's privacy ratio",
        note=(f"k-RR at k = {k} has {k * k} entries, too many to build as a matrix: use "
              "result.oracle to sample and estimate"),
        unavailable=(f"the optimal mechanism is k-RR (k = {k}, epsilon = {eps:g}), whose "
                     f"{k} x {k} matrix is too large to build; result.oracle is the same "
                     "mechanism in structured form"),
        oracle=oracle)


def solve_symmetric(spec: DesignProblem, eps: float, t0: float) -> DesignResult:
    """Uniform prior, symmetric criterion: d-subset selection at its best d (closed form),
    returned as a structured mechanism at any k (``result.oracle``) and as a matrix when
    its ``k x C(k, d)`` entries fit."""
    from ..oracles import SubsetSelection

    k = spec.k
    d, value = staircase.symmetric_estimation(k, eps, spec.objective.criterion)  # type: ignore
    oracle = SubsetSelection(k, eps, d=d)
    elapsed = time.perf_counter() - t0
    structure = {"family": "subset_selection", "d": d, "k": k, "epsilon": eps}
    form = "symmetric reduction: d-subset selection, closed form over d"
    if k * math.comb(k, d) <= catalog.MAX_ENTRIES:
        mech = catalog.subset_selection(k, d, eps)
        return certify_solution(spec, Solution(
            Q=mech.matrix, solver_value=value, status=Status.OPTIMAL, solver="closed form",
            optimum=Optimum.GLOBAL, formulation=form, solve_time=elapsed,
            structure=structure, outputs=mech.outputs, gap=0.0, oracle=oracle))
    return analytic_result(
        spec, value, eps, form, elapsed, structure,
        method=("exact: the structured mechanism's largest privacy ratio, "
                "1 + (k/d)(1 - t)/t with its noise probability t a multiple of 2^-128 "
                "rounded up"),
        note=(f"subset_selection({k}, {d}, {eps:g}) has C({k}, {d}) outputs, too many to "
              "build as a matrix: use result.oracle to sample and estimate"),
        unavailable=(f"the optimal mechanism is subset_selection(k={k}, d={d}, "
                     f"epsilon={eps:g}), whose C({k}, {d}) outputs are too many for an "
                     "explicit matrix; result.oracle is the same mechanism in structured "
                     "form (sampling, estimation, exact variance)"),
        oracle=oracle)


def solve_local(spec: DesignProblem, solver: str | None, options: dict, t0: float,
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
        Q, value, iters, stopped = local.solve_local(
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
        solve_time=time.perf_counter() - t0, notes=tuple(notes)))
