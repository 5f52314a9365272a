"""DesignProblem: a privacy notion, an objective, sizes and user constraints -> a certified
optimal mechanism (:class:`~mechdesign.design.result.DesignResult`)."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import cvxpy as cp
import numpy as np

from .. import catalog
from .._validation import check_int, check_labels, check_real
from ..errors import (
    InfeasibleDesignError,
    InvalidParameterError,
    SizeLimitError,
    SolverFailedError,
)
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from . import local, staircase
from .bound import relative_gap
from .certify import certify
from .notions import LDP, WLDP, MetricDP, Notion
from .objectives import (
    CustomObjective,
    EstimationVariance,
    ExpectedLoss,
    InformationObjective,
    Objective,
    WorstCaseLoss,
)
from .result import Certificate, DesignResult, Status
from .solvers import (
    Deadline,
    Run,
    check_memory,
    check_solver_options,
    choose_solver,
    dual_bound,
    is_lp,
    solve_compiled,
    solver_options,
)
from .symmetry import Symmetry, check_invariant, close_group

STRICT_INFEASIBILITY = {"tol_infeas_abs": 1e-14, "tol_infeas_rel": 1e-14}
"""Clarabel settings of the last re-solve of a problem feasible and bounded by construction
that a solver called infeasible or unbounded: Clarabel's default infeasibility tolerances
(1e-8) called custom objectives with losses scaled by 3e10 unbounded (fuzz seeds 864,
3731); at these it solved them with a certified gap of 1e-8."""

USER_CONSTRAINT_TOL = 1e-7
"""A returned matrix may miss a user constraint by this much (solver tolerance)."""

GAP_TOL = 1e-6
"""A result is labelled optimal only when its certified relative gap is at most this."""

GAP_FLOOR = 1e-12
"""Denominator floor of the relative gap, in the compiled units (losses scaled to [0, 1])."""

MAX_EVIDENTIAL_OUTPUTS = 10
"""Evidential design enumerates the 2^m - 1 messages and 2^m events: m <= 10 outputs."""

_STATUS = {
    cp.OPTIMAL: Status.OPTIMAL, cp.OPTIMAL_INACCURATE: Status.INACCURATE,
    cp.INFEASIBLE: Status.INFEASIBLE, cp.INFEASIBLE_INACCURATE: Status.INFEASIBLE,
    cp.UNBOUNDED: Status.UNBOUNDED, cp.UNBOUNDED_INACCURATE: Status.UNBOUNDED,
}



def _check_constraints(constraints: Any) -> dict[str, Callable]:
    """The user constraints as a dict ``name -> callable``; a typed error naming the
    argument for anything else (a list of callables has no names for the duals)."""
    if constraints is None:
        return {}
    if not isinstance(constraints, Mapping):
        raise InvalidParameterError(
            "constraints must be a mapping of name -> callable (dual values come back under "
            f"each name), got a {type(constraints).__name__}; write "
            "constraints={'floor': lambda Q: Q[0, 0] >= 0.4}")
    out = dict(constraints)
    for name, fn in out.items():
        if not callable(fn):
            raise InvalidParameterError(f"constraint {name!r} is not callable: {fn!r}")
    return out


def _label_argument(labels: Any, name: str) -> tuple | None:
    """``inputs=`` or ``outputs=`` as a tuple (a generator is read once); a typed error
    naming the argument when it is not a sequence (``inputs=5`` means ``n_inputs=5``)."""
    if labels is None or isinstance(labels, str | bytes):
        return labels  # a bare string: check_labels explains it
    try:
        return tuple(labels)
    except TypeError:
        raise InvalidParameterError(
            f"{name} must be a sequence of labels, got {labels!r}; for a number of "
            f"{name} give n_{name}={labels!r}") from None


def _user_constraints(name: str, fn: Callable, Q: cp.Expression) -> list:
    """The constraints ``fn(Q)`` returns (one or a list), each checked to be a convex
    (DCP) cvxpy constraint; a typed error naming the constraint otherwise."""
    try:
        made = fn(Q)
    except (TypeError, AttributeError, ValueError, IndexError, cp.error.DCPError) as exc:
        raise InvalidParameterError(
            f"constraint {name!r} failed on Q (a cvxpy expression of shape {Q.shape}): "
            f"{type(exc).__name__}: {exc}") from exc
    items = list(made) if isinstance(made, list | tuple) else [made]
    for c in items:
        if isinstance(c, bool | np.bool_):
            raise InvalidParameterError(
                f"constraint {name!r} returned {c!r}, a bool, not a cvxpy constraint: a "
                "Python comparison was evaluated (numbers, `and`/`or`, `is`); compare cvxpy "
                "expressions of Q, e.g. Q[0, 0] >= 0.4, and return a list for several")
        if not isinstance(c, cp.constraints.constraint.Constraint):
            what = (f"a cvxpy expression of shape {c.shape}" if isinstance(c, cp.Expression)
                    else f"a {type(c).__name__}")
            raise InvalidParameterError(
                f"constraint {name!r} returned {what}, not a constraint: write a comparison "
                "such as Q[0, 0] >= 0.4 (a list for several)")
        if not c.is_dcp():
            raise InvalidParameterError(
                f"constraint {name!r} is not convex under cvxpy's DCP rules (a convex "
                "function must be <= a concave one)")
    return items


class DesignProblem:
    r"""Find the mechanism that optimises ``objective`` subject to ``privacy``.

    Parameters
    ----------
    privacy : Notion
        :class:`LDP`, :class:`ApproxLDP`, :class:`DeletionLDP`, :class:`MetricDP`,
        :class:`SLDP` or :class:`WLDP` (the last two design an evidential mechanism).
    objective : Objective or callable
        :class:`ExpectedLoss`, :class:`WorstCaseLoss`, :class:`MutualInformation`,
        :class:`EstimationVariance`, or a callable ``Q -> cvxpy expression`` (minimised).
    n_outputs, outputs : int or sequence, optional
        The output alphabet. Default: the loss's columns, else the staircase optimum's
        support (information objectives), else ``n_inputs``. For evidential notions,
        ``outputs`` are the labels Y and the columns are the messages ``focal_sets``
        (default: every non-empty subset of Y; at most 10 outputs).
    inputs : sequence, optional
        Input labels; their number must match the objective's.
    focal_sets : sequence of collections, optional
        Evidential notions only: the allowed messages.
    constraints : mapping of name -> callable, optional
        Each callable takes the cvxpy expression Q (rows inputs) and returns a constraint or
        a list of constraints. Dual values come back under the same name.
    symmetry : sequence of permutations, optional
        Generators of a group of symmetries of the problem: each a permutation of the
        input indices (applied to the outputs too; needs as many outputs as inputs) or a
        pair ``(inputs permutation, outputs permutation)``. The loss, the prior and the
        distance must be invariant (checked; otherwise ``InvalidParameterError`` names
        the first entry that moves). The LP then has one variable per orbit of entries
        and is exact (:mod:`~mechdesign.design.symmetry`). MetricDP with
        ``ExpectedLoss`` or ``WorstCaseLoss`` and no user constraints; for grids see
        :func:`~mechdesign.design.symmetry.grid_symmetries`.
    semantics : {"shafer", "walley"}
        How an evidential mechanism's objective is read. ``"shafer"`` (default): the
        messages are what the analyst observes (the paper's estimator counts them).
        ``"walley"`` (WLDP only): the analyst observes an output y drawn from some
        distribution of the credal set, and the objective is judged on the worst one.
        Every completion of an eps-WLDP mechanism is eps-LDP and a Bayesian eps-LDP
        mechanism is eps-WLDP, so the worst-case optimum over ALL evidential mechanisms is
        the pure-LDP optimum over the outputs, attained with no "don't know" mass: the
        problem is solved exactly as that LDP problem (the objective's columns are then the
        outputs, not the messages).
    """

    def __init__(self, privacy: Notion, objective: Objective | Callable, *,
                 n_outputs: int | None = None, outputs: Sequence | None = None,
                 inputs: Sequence | None = None, n_inputs: int | None = None,
                 focal_sets: Sequence | None = None,
                 constraints: Mapping[str, Callable] | None = None,
                 semantics: str = "shafer", symmetry: Sequence | None = None) -> None:
        if not isinstance(privacy, Notion):
            raise InvalidParameterError(
                f"privacy must be a notion such as md.LDP(epsilon=1), got {privacy!r}")
        if callable(objective) and not isinstance(objective, Objective):
            objective = CustomObjective(objective)
        if not isinstance(objective, Objective):
            raise InvalidParameterError(
                f"objective must be an Objective or a callable, got {objective!r}")
        self.privacy, self.objective = privacy, objective
        self.constraints = _check_constraints(constraints)
        inputs = _label_argument(inputs, "inputs")
        outputs = _label_argument(outputs, "outputs")
        self.k = self._resolve_inputs(inputs, n_inputs)
        self.inputs = check_labels(inputs, self.k, "inputs")
        self._outputs_given = outputs is not None or n_outputs is not None
        if semantics not in ("shafer", "walley"):
            raise InvalidParameterError(
                f"semantics must be 'shafer' or 'walley', got {semantics!r}")
        if semantics == "walley" and not isinstance(privacy, WLDP):
            raise InvalidParameterError("semantics='walley' goes with the WLDP notion")
        self.semantics = semantics
        if privacy.evidential:
            self._init_evidential(outputs, n_outputs, focal_sets)
        else:
            if focal_sets is not None:
                raise InvalidParameterError("focal_sets need an evidential notion (SLDP, WLDP)")
            self._init_ordinary(outputs, n_outputs)
        self.symmetry = None if symmetry is None else self._init_symmetry(symmetry)
        self._check_boundary_prior()

    def _check_boundary_prior(self) -> None:
        """Refuse a Cramer-Rao objective at a prior with zeros when the notion lets a
        message be sent by those inputs only: such a mechanism has infinite Fisher
        information, where the criterion is not defined."""
        if not isinstance(self.objective, EstimationVariance):
            return
        zero = [self.inputs[i] for i in np.flatnonzero(self.objective.prior == 0)]
        walley = self.semantics == "walley"  # solved as pure LDP over the outputs
        if not zero or walley or self.privacy.ties_columns(self.inputs):
            return
        raise InvalidParameterError(
            f"EstimationVariance at a prior with zeros (inputs {zero!r}) is ill-posed under "
            f"{self.privacy!r}: the notion lets a message be sent by those inputs only, and "
            "the Fisher information of such a mechanism is infinite (the Cramer-Rao bound "
            "does not apply on the boundary). Give them a positive prior, drop them, or use "
            "a notion with a bounded ratio between every two inputs (pure LDP)")

    # ------------------------------------------------------------------ sizes
    def _resolve_inputs(self, inputs: Sequence | None, n_inputs: int | None) -> int:
        sizes = {}
        if self.objective.n_inputs is not None:
            sizes["objective"] = self.objective.n_inputs
        if inputs is not None:
            sizes["inputs"] = len(tuple(inputs))
        if n_inputs is not None:
            sizes["n_inputs"] = check_int(n_inputs, "n_inputs", 2)
        if not sizes:
            raise InvalidParameterError(
                "the number of inputs is unknown: give inputs=, n_inputs= or an objective "
                "with a loss or prior")
        if len(set(sizes.values())) > 1:
            raise InvalidParameterError(f"inconsistent numbers of inputs: {sizes}")
        k = next(iter(sizes.values()))
        if k < 2:
            raise InvalidParameterError(f"a design needs at least 2 inputs, got {k}")
        return k

    def _init_ordinary(self, outputs: Sequence | None, n_outputs: int | None) -> None:
        sizes = {}
        if outputs is not None:
            sizes["outputs"] = len(tuple(outputs))
        if n_outputs is not None:
            sizes["n_outputs"] = check_int(n_outputs, "n_outputs", 1)
        if self.objective.n_outputs is not None:
            sizes["loss columns"] = self.objective.n_outputs
        if len(set(sizes.values())) > 1:
            raise InvalidParameterError(f"inconsistent numbers of outputs: {sizes}")
        self.n = next(iter(sizes.values())) if sizes else self.k
        self.outputs = check_labels(outputs, self.n, "outputs")
        self.focal_sets = None
        self.focal_masks = None

    def _init_evidential(self, outputs: Sequence | None, n_outputs: int | None,
                         focal_sets: Sequence | None) -> None:
        if outputs is None and n_outputs is None:
            raise InvalidParameterError(
                f"{type(self.privacy).__name__} designs an evidential mechanism: give the "
                "output labels (outputs=[...]) or n_outputs")
        labels = check_labels(outputs, len(tuple(outputs)) if outputs is not None
                              else check_int(n_outputs, "n_outputs", 1), "outputs")
        m = len(labels)
        if m > MAX_EVIDENTIAL_OUTPUTS:
            raise SizeLimitError(
                f"evidential design enumerates 2^m messages; m = {m} outputs exceeds "
                f"{MAX_EVIDENTIAL_OUTPUTS}")
        if focal_sets is None:
            fsets = [frozenset(c) for r in range(1, m + 1)
                     for c in itertools.combinations(labels, r)]
        else:
            probe = EvidentialMechanism(np.full((1, len(focal_sets)), 1 / len(focal_sets)),
                                        focal_sets, outputs=labels)
            fsets = list(probe.focal_sets)
        probe = EvidentialMechanism(np.full((1, len(fsets)), 1 / len(fsets)), fsets,
                                    outputs=labels)
        self.outputs = labels
        self.focal_sets = tuple(fsets)
        self.focal_masks = probe.focal_masks
        self.n = len(fsets)
        if self.semantics == "walley":
            return
        if self.objective.n_outputs is not None and self.objective.n_outputs != self.n:
            raise InvalidParameterError(
                f"the loss has {self.objective.n_outputs} columns but there are {self.n} "
                "messages (focal sets)")

    def _init_symmetry(self, generators: Sequence) -> Symmetry:
        if not isinstance(self.privacy, MetricDP):
            raise InvalidParameterError(
                "symmetry reduction is implemented for MetricDP (pairwise column "
                f"constraints), got {type(self.privacy).__name__}")
        if not isinstance(self.objective, ExpectedLoss | WorstCaseLoss):
            raise InvalidParameterError(
                "symmetry reduction needs an ExpectedLoss or WorstCaseLoss objective (its "
                f"invariance is checked), got {type(self.objective).__name__}")
        if self.constraints:
            raise InvalidParameterError(
                "symmetry reduction cannot check that user constraints are invariant; "
                f"drop symmetry= or the constraints {sorted(self.constraints)}")
        sym = close_group(generators, self.k, self.n)
        check_invariant("loss", self.objective.loss, sym, "io")
        if isinstance(self.objective, ExpectedLoss):
            check_invariant("prior", self.objective.prior, sym, "i")
        return sym

    # ------------------------------------------------------------------ building
    def _context(self) -> dict:
        return {"inputs": self.inputs, "focal_masks": self.focal_masks,
                "n_labels": len(self.outputs) if self.focal_sets is not None else None,
                "symmetry": self.symmetry}

    def _feasible(self, n: int | None = None, parametric: bool = False
                  ) -> tuple[cp.Expression, dict[str, list], dict]:
        """Q, named constraint groups (rows, privacy, user's) and the build context.

        With ``parametric=True`` every epsilon-dependent coefficient is a cvxpy Parameter
        and ``context["setters"]`` moves them all to a new epsilon (see frontier).
        """
        n = self.n if n is None else n
        context = self._context()
        context["parametric"] = parametric
        check_memory(self.privacy.n_nonzeros(self.k, n, context) + self.k * n,
                     f"{type(self.privacy).__name__} design with {self.k} inputs and "
                     f"{n} outputs")
        Q, groups = self.privacy.formulate(self.k, n, context)
        # under a symmetry, rows in one orbit are the same constraint: keep one per orbit
        rows = Q if self.symmetry is None else Q[self.symmetry.input_representatives, :]
        groups = {"rows": [cp.sum(rows, axis=1) == 1], **groups}
        for name, fn in self.constraints.items():
            if name in groups:
                raise InvalidParameterError(f"constraint name {name!r} is reserved")
            groups[name] = _user_constraints(name, fn, Q)
        return Q, groups, context

    def to_cvxpy(self) -> tuple[cp.Problem, cp.Expression]:
        """The plain cvxpy problem and the expression Q (its ``.value`` is the matrix).

        Only for objectives that compile to cvxpy; information objectives are solved by
        the staircase programs or locally (see :meth:`solve`).
        """
        prob, Q, _, _ = self._compile()
        return prob, Q

    def _compile(self, parametric: bool = False
                 ) -> tuple[cp.Problem, cp.Expression, dict[str, list], dict]:
        if isinstance(self.objective, InformationObjective):
            raise InvalidParameterError(
                f"{type(self.objective).__name__} is not a convex expression of Q (it is "
                "maximised through staircase programs); to_cvxpy needs a loss objective")
        Q, groups, context = self._feasible(parametric=parametric)
        try:
            expr, extra = self.objective.expression(Q)
            sense = cp.Maximize if self.objective.sense == "maximize" else cp.Minimize
            prob = cp.Problem(sense(expr), [c for g in groups.values() for c in g] + extra)
        except InvalidParameterError as exc:
            raise InvalidParameterError(f"objective {self.objective!r}: {exc}") from None
        except (TypeError, AttributeError, ValueError, cp.error.DCPError) as exc:
            raise InvalidParameterError(
                f"objective {self.objective!r} does not give a cvxpy expression: {exc}"
                ) from None
        if not prob.is_dcp():
            raise InvalidParameterError(
                f"objective {self.objective!r} is not convex ({self.objective.sense}, DCP "
                "rules): a custom objective must be convex to minimise, concave to maximise")
        return prob, Q, groups, context

    def with_privacy(self, privacy: Notion) -> DesignProblem:
        """The same problem under another notion of the same kind (e.g. another epsilon)."""
        if type(privacy) is not type(self.privacy):
            raise InvalidParameterError(
                f"with_privacy needs a {type(self.privacy).__name__}, got {privacy!r}")
        twin = copy.copy(self)
        twin.privacy = privacy
        twin._check_boundary_prior()
        return twin

    def _build(self, C: np.ndarray) -> Mechanism | EvidentialMechanism:
        if self.focal_sets is not None:
            return EvidentialMechanism(C, self.focal_sets, self.inputs, self.outputs)
        outputs = self.outputs if C.shape[1] == self.n else None
        return Mechanism(C, self.inputs, outputs)

    # ------------------------------------------------------------------ solving
    def solve(self, solver: str | None = None, *, time_limit: float | None = None,
              **options: Any) -> DesignResult:
        """Solve, certify (clean, re-measure, repair) and return a :class:`DesignResult`.

        ``time_limit`` (seconds) is passed to the solver of each attempt of an LP or
        convex program; a solve stopped by it ends with status ``solver error`` and a note
        naming the limit. The staircase and local programs of information objectives share
        it as one budget (:class:`~mechdesign.design.solvers.Deadline`) over their several
        solves: stopped after a first answer, they return their best point so far as
        ``inaccurate`` with a note; stopped before, they raise ``SolverFailedError``
        naming the limit. Ctrl-C stops a native solve within about a second and raises
        ``KeyboardInterrupt``. A design whose estimated memory exceeds
        ``solvers.MEMORY_BUDGET`` is refused with ``SizeLimitError`` before it is built. With the
        solver left to the default, an attempt that ends inaccurate, fails, claims
        infeasibility of a problem that is feasible by construction (no user
        constraints) or unboundedness (impossible without user constraints and without
        variables of a custom objective's own: Q is bounded), or whose certified
        optimality gap exceeds :data:`GAP_TOL`, is re-solved
        with the other solver (LPs: HiGHS <-> Clarabel, and HiGHS simplex for the gap;
        conic programs: SCS after Clarabel), last by Clarabel at
        :data:`STRICT_INFEASIBILITY` for a claim, and the better certified answer is kept;
        every attempt is listed in the notes. An infeasibility claim with user constraints
        is confirmed by the other solver before it is reported.
        """
        if solver is not None:
            choose_solver(None, solver)  # a typed error when it is not installed
        check_solver_options(solver, options)
        if time_limit is not None:
            time_limit = check_real(time_limit, "time_limit")
            if not time_limit > 0:
                raise InvalidParameterError(f"time_limit must be > 0 seconds, got {time_limit!r}")
        if self.semantics == "walley":
            return self._solve_walley(solver, options, time_limit)
        if isinstance(self.objective, InformationObjective):
            return self._solve_information(solver, options, Deadline(time_limit))
        t0 = time.perf_counter()
        prob, Q, groups, context = self._compile()
        build_time = time.perf_counter() - t0
        t1 = time.perf_counter()
        runs = self._attempts(prob, Q, groups, choose_solver(prob, solver),
                              explicit=bool(solver or options), options=options,
                              time_limit=time_limit)
        compile_time = sum(r.compile_time for r in runs)
        build_time += compile_time  # cvxpy's canonicalisation counts as building
        solve_time = time.perf_counter() - t1 - compile_time
        return self._conclude(runs, self._context_notes(context),
                              self.privacy_formulation(), build_time, solve_time, prob)

    def _bounded_by_construction(self, prob: cp.Problem) -> bool:
        """No user constraints and no variable of the objective's own (a custom objective
        may bring a free one): every variable is then bounded by the formulation (Q in
        the simplex, auxiliaries tied to Q), so "unbounded" is solver trouble."""
        tied = {v.id for c in prob.constraints for v in c.variables()}
        return not self.constraints and all(v.id in tied for v in prob.objective.variables())

    @property
    def feasible_by_construction(self) -> bool:
        """True when a constant mechanism meets the notion and nothing else constrains Q:
        then every claim of infeasibility is solver trouble. (WLDP with chosen focal sets
        may exclude the Bayesian constant rows, so it is not.)"""
        custom_focal = (isinstance(self.privacy, WLDP) and self.focal_sets is not None
                        and len(self.focal_sets) != 2 ** len(self.outputs) - 1)
        return not self.constraints and not custom_focal

    def _attempts(self, prob: cp.Problem, Q: cp.Expression, groups: dict, name: str, *,
                  explicit: bool, options: dict, time_limit: float | None,
                  runner: Callable[[cp.Problem], None] | None = None) -> list[Run]:
        """The first solve and the re-solves it calls for (see :meth:`solve`): first the
        rescues of a doubtful status (:meth:`_rescues`) until one gives a solution, then,
        for an LP, second methods while the certified gap exceeds :data:`GAP_TOL`."""
        runs = [self._run(prob, Q, groups, name, options, runner, time_limit)]
        if runs[0].timed_out:
            return runs
        lp = is_lp(prob)
        # LPs: HiGHS <-> Clarabel; conic programs: SCS after Clarabel (first-order, less
        # accurate, but it solved the e^708-coefficient programs Clarabel stopped on)
        other = ({"HIGHS": "CLARABEL", "CLARABEL": "HIGHS"} if lp
                 else {"CLARABEL": "SCS"}).get(name)
        if runner is not None:  # e.g. warm-started simplex: then an independent default solve
            other = choose_solver(prob, None)
        rescues = self._rescues(runs[0], prob, lp, other, explicit)
        if rescues is None:  # an explicit solver's own answer stands
            return runs
        # a certified gap above GAP_TOL: a second method (the other solver, then HiGHS
        # simplex, whose vertex answer has exact complementary duals)
        second = [(other, {}), ("HIGHS", {"highs_options": {"solver": "simplex"}})] if lp else []
        doubt = runs[0].status is not Status.INACCURATE  # a claim or a failure: until solved
        plan = [(*r, True) for r in rescues] + [(*r, False) for r in second]
        for alt, alt_options, rescue in plan:
            best = self._best(runs)
            if rescue and doubt and best is not None:
                continue
            if not rescue and (best is None or best.gap is None or best.gap <= GAP_TOL or any(
                    r.name == alt and r.options == alt_options for r in runs)):
                continue
            if alt in cp.installed_solvers():
                runs.append(self._run(prob, Q, groups, alt, alt_options, None, time_limit))
        return runs

    def _rescues(self, first: Run, prob: cp.Problem, lp: bool, other: str | None,
                 explicit: bool) -> list[tuple[str | None, dict]] | None:
        """Re-solves for a doubtful first status, tried until one gives a solution.

        "Infeasible" (and "unbounded" of a program bounded by construction): the other
        solver and, without user constraints, Clarabel at :data:`STRICT_INFEASIBILITY`
        (first for conic programs, whose other solver, SCS, certifies no gap); with user
        constraints the other solver confirms. Inaccurate or failed, with the solver left
        to the default: the other solver. None: an explicit solver's answer stands."""
        unbounded = first.status is Status.UNBOUNDED and self._bounded_by_construction(prob)
        if first.status is Status.INFEASIBLE or unbounded:
            strict = [("CLARABEL", STRICT_INFEASIBILITY)]
            if not (unbounded or self.feasible_by_construction):
                strict = []
            return [(other, {}), *strict] if lp else [*strict, (other, {})]
        if explicit:
            return None
        if first.status in (Status.INACCURATE, Status.SOLVER_ERROR):
            return [(other, {})]
        return []

    @staticmethod
    def _best(runs: list[Run]) -> Run | None:
        """The run with a solution and the smallest certified gap (the first on ties)."""
        solved = [r for r in runs if r.Q is not None]
        if not solved:
            return None
        return min(solved, key=lambda r: math.inf if r.gap is None else r.gap)

    def _conclude(self, runs: list[Run], notes: tuple[str, ...], formulation: str,
                  build_time: float, solve_time: float, prob: cp.Problem) -> DesignResult:
        """One result from the attempts: the best solved run, certified; else the reason."""
        notes = (*notes, *(f"{before.summary()}; re-solved with {after.label}"
                           for before, after in itertools.pairwise(runs)))
        best = self._best(runs)
        if best is not None:
            res = self._certified(best.Q, best.solver_value, best.status, best.name,
                                  "global", formulation, build_time, solve_time,
                                  best.duals, (*notes, *best.warnings), bound=best.bound,
                                  expect_bound=True)
            if getattr(self.privacy, "spanner", None) and res.optimum == "global":
                # the spanner's constraints are stricter than the notion: optimal for them
                return dataclasses.replace(res, optimum="spanner", notes=(
                    *res.notes, "optimal over the spanner's constraints, which are stricter "
                    "than metric privacy itself: the gap is to that restricted optimum"))
            return res
        last = runs[-1]
        status, error = last.status, last.error
        if self._bounded_by_construction(prob) and any(
                r.status is Status.UNBOUNDED for r in runs):
            status = Status.SOLVER_ERROR
            error = ("the problem is bounded by construction (every row of Q lies in the "
                     "simplex and there are no user constraints), but "
                     + "; ".join(r.summary() for r in runs))
        elif any(r.status is Status.INFEASIBLE for r in runs):
            if self.feasible_by_construction:
                status = Status.SOLVER_ERROR
                error = ("the problem is feasible by construction (a constant mechanism "
                         "meets the notion and there are no user constraints), but "
                         + "; ".join(r.summary() for r in runs))
            elif all(r.status is Status.INFEASIBLE for r in runs):
                status = Status.INFEASIBLE
                if len(runs) > 1:
                    notes = (*notes, "infeasibility confirmed by "
                             + " and ".join(r.name for r in runs))
            else:
                status = Status.SOLVER_ERROR
                error = "; ".join(r.summary() for r in runs)
        return DesignResult(status=status, value=None, solver_value=None, optimum="global",
                            certificate=None, duals={}, solver=last.name,
                            formulation=formulation, build_time=build_time,
                            solve_time=solve_time, notes=(*notes, *last.warnings),
                            user_constraints=tuple(self.constraints), _unavailable=error)

    def _run(self, prob: cp.Problem, Q: cp.Expression | None, groups: dict, name: str,
             options: dict, runner: Callable[[cp.Problem], None] | None = None,
             time_limit: float | None = None) -> Run:
        """One solve (with ``runner(prob)`` instead of the default if given, e.g. the
        warm-started :class:`~mechdesign.design.solvers.WarmHighs` of a sweep): status,
        a copy of Q and the duals, the solver's value in the objective's units, the
        independent dual bound (:func:`~mechdesign.design.solvers.dual_bound`) and the
        solver's warnings. ``Q = None``: status only (a step of the local method)."""
        t0 = time.perf_counter()
        record = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                if runner is not None:
                    runner(prob)
                    record = getattr(runner, "last", None)
                else:
                    record = solve_compiled(prob, name,
                                            solver_options(name, options, time_limit))
            except (cp.SolverError, ValueError) as exc:  # cvxpy: "Cannot unpack invalid ..."
                return Run(name, Status.SOLVER_ERROR, f"{name} failed: {exc}",
                           time.perf_counter() - t0, options=options)
        elapsed = time.perf_counter() - t0
        compile_time = float(getattr(prob, "compilation_time", None) or 0.0)
        notes = tuple(f"solver warning: {w.message}" for w in caught)
        status = _STATUS.get(prob.status, Status.SOLVER_ERROR)
        # cvxpy reads Clarabel's MaxIterations as USER_LIMIT too: only the clock tells
        timed_out = (time_limit is not None and status is not Status.OPTIMAL
                     and elapsed - compile_time >= 0.98 * time_limit)
        stop = Run(name, status, "", elapsed, compile_time, options=options, warnings=notes)
        if timed_out:
            return dataclasses.replace(
                stop, status=Status.SOLVER_ERROR, timed_out=True,
                error=f"{name} stopped at the time limit of {time_limit:g} s")
        if status is Status.SOLVER_ERROR:
            return dataclasses.replace(stop, error=(
                f"{name} stopped with status {prob.status!r} (time limit, iteration limit "
                "or numerical trouble)"))
        if status not in (Status.OPTIMAL, Status.INACCURATE) or Q is None or Q.value is None:
            return stop
        a, b = self.objective.scaling()
        bound = None if record is None else dual_bound(prob, *record)
        return dataclasses.replace(
            stop, Q=np.array(Q.value), solver_value=a * float(prob.value) + b,
            bound=None if bound is None else a * bound + b, duals=self._duals(groups),
            gap=self._gap(float(prob.value), bound))

    def _gap(self, value: float, bound: float | None, scale: tuple[float, float] = (1.0, 0.0)
             ) -> float | None:
        """Relative gap between an objective value and a certified bound on the optimum,
        both in the compiled (unit-range) units after undoing ``scale``."""
        if bound is None:
            return None
        a, b = scale
        v, bd = (value - b) / a, (bound - b) / a
        if self.objective.sense == "maximize":
            v, bd = -v, -bd
        dim = self.objective.log_gap_dimension()
        if dim is not None:  # -log det: the gap of the eigenvalues' geometric mean
            return max(0.0, v - bd) / dim if math.isfinite(bd) else math.inf
        return relative_gap(v, bd, GAP_FLOOR)

    @staticmethod
    def _duals(groups: dict[str, list]) -> dict[str, Any]:
        out = {}
        for name, cons in groups.items():
            vals = [c.dual_value for c in cons]
            out[name] = vals[0] if len(vals) == 1 else vals
        return out

    def _context_notes(self, context: dict) -> tuple[str, ...]:
        notes = []
        if "spanner_dilation" in context and getattr(self.privacy, "spanner", None):
            notes.append(f"metric privacy on a greedy {self.privacy.spanner}-spanner: "
                         f"{context['n_privacy_pairs']} pairs, measured dilation "
                         f"{context['spanner_dilation']:.6g} (epsilon divided by it)")
        elif "n_privacy_pairs" in context:
            notes.append(f"metric privacy: {context['n_privacy_pairs']} constrained pairs")
        if self.symmetry is not None:
            notes.append(f"{self.symmetry.describe()}, "
                         f"{context.get('n_privacy_rows', 0)} privacy rows")
        return tuple(notes)

    def privacy_formulation(self) -> str:
        return f"{type(self.privacy).__name__} LP/convex formulation (docs/formulations.md)"

    def _certified(self, Q: np.ndarray, solver_value: float | None, status: Status,
                   solver: str, optimum: str, formulation: str, build_time: float,
                   solve_time: float, duals: dict, notes: tuple[str, ...],
                   structure: dict | None = None, outputs: Sequence | None = None, *,
                   bound: float | None = None, gap: float | None = None,
                   expect_bound: bool = False) -> DesignResult:
        """Certify ``Q`` (:func:`~mechdesign.design.certify.certify`) and label it.

        The gap is recomputed on the returned matrix against ``bound`` (an independent
        bound on the optimum in the objective's units), or given (closed forms, staircase
        programs). ``optimal`` needs the privacy target met, the user constraints met and,
        for a global optimum with a gap, a gap of at most :data:`GAP_TOL`; with
        ``expect_bound`` and no bound the optimum is ``"global, solver-reported"``.
        """
        def build(C: np.ndarray) -> Mechanism | EvidentialMechanism:
            if outputs is not None:
                return Mechanism(C, self.inputs, outputs)
            return self._build(C)

        mech, C, cert = certify(Q, self.privacy, build, self.objective.evaluate, solver_value)
        notes = list(notes)
        if cert.repair == "envelope":
            notes.append("the cleaned solver matrix missed the privacy target by solver "
                         "tolerance; tiny entries raised to the ratio bound (largest row "
                         f"change {cert.repair_weight:.3g})")
        elif cert.repair == "mixing":
            notes.append(f"the cleaned solver matrix missed the privacy target; mixed with "
                         f"the column-mean row at weight {cert.repair_weight:.3g}")
        value = self.objective.evaluate(C)
        if bound is not None:
            gap = self._gap(value, bound, self.objective.scaling())
        if status is Status.INACCURATE and gap is not None and gap <= GAP_TOL:
            notes.append(f"{solver} reported an inaccurate solution; the returned matrix is "
                         f"certified within a relative gap of {gap:.2g}")
            status = Status.OPTIMAL
        if optimum == "global" and status is Status.OPTIMAL:
            if gap is None and expect_bound:
                optimum = "global, solver-reported"
                notes.append("no independent bound on the optimum (a program without a "
                             "bound recomputed from its data, or a variable without bounds): "
                             "optimality is the solver's word")
            elif gap is not None and gap > GAP_TOL:
                status = Status.INACCURATE
                notes.append(f"certified relative optimality gap {gap:.3g} exceeds "
                             f"{GAP_TOL:g}: a better mechanism may exist")
        broken = {k: v for k, v in self.constraint_violations(C).items()
                  if v > USER_CONSTRAINT_TOL}
        if broken:
            notes.append("the returned matrix violates user constraints "
                         + ", ".join(f"{k!r} by {v:.3g}" for k, v in broken.items())
                         + " (solver inaccuracy or the privacy repair)")
            status = Status.INACCURATE
        if not cert.met:
            notes.append("the returned matrix does NOT meet the privacy target")
        return DesignResult(
            status=status if cert.met else Status.INACCURATE,
            value=value, solver_value=solver_value, optimum=optimum,
            certificate=cert, duals=duals, solver=solver, formulation=formulation,
            build_time=build_time, solve_time=solve_time, notes=tuple(notes),
            structure=structure or {}, user_constraints=tuple(self.constraints), gap=gap,
            _mechanism=mech if cert.met else None,
            _unavailable="" if cert.met else (
                f"measured {cert.achieved!r} does not meet the target {cert.target!r} even "
                "after repair"))

    def _solve_walley(self, solver: str | None, options: dict,
                      time_limit: float | None = None) -> DesignResult:
        """WLDP under Walley's reading: the pure-LDP problem over the outputs, embedded on
        the singleton messages and re-measured as WLDP (see ``semantics``)."""
        inner = DesignProblem(LDP(self.privacy.epsilon), self.objective,  # type: ignore
                              inputs=self.inputs, outputs=self.outputs,
                              constraints=self.constraints)
        res = inner.solve(solver, time_limit=time_limit, **options)
        if res.certificate is None or not res.certificate.met:
            return res
        singles = [self.focal_sets.index(frozenset([y])) for y in self.outputs]

        def build(M: np.ndarray) -> EvidentialMechanism:
            return EvidentialMechanism(M, self.focal_sets, self.inputs, self.outputs)

        def on_outputs(M: np.ndarray) -> float:
            # certification works on the masses (its repairs keep them on the singletons)
            return self.objective.evaluate(M[:, singles])

        M = np.zeros((self.k, self.n))
        M[:, singles] = res.mechanism.matrix  # type: ignore[union-attr]
        mech, masses, cert = certify(M, self.privacy, build, on_outputs, res.solver_value)
        C = masses[:, singles]
        note = ("Walley reading: every completion of an eps-WLDP mechanism is eps-LDP, so "
                "the worst-case optimum is the pure-LDP optimum (no 'don't know' mass)")
        # the embedding changes no objective value unless the WLDP check had to repair it
        unchanged = cert.repair == "none"
        return DesignResult(
            status=res.status if cert.met and unchanged else Status.INACCURATE,
            value=self.objective.evaluate(C), solver_value=res.solver_value,
            optimum=res.optimum, certificate=cert, duals=res.duals, solver=res.solver,
            formulation="WLDP (Walley) reduced to " + res.formulation,
            build_time=res.build_time, solve_time=res.solve_time,
            notes=(*res.notes, note), structure=res.structure,
            user_constraints=tuple(self.constraints), gap=res.gap if unchanged else None,
            _mechanism=mech if cert.met else None,
            _unavailable="" if cert.met else "the embedded mechanism misses the WLDP target")

    def constraint_violations(self, C: np.ndarray) -> dict[str, float]:
        """Largest violation of each user constraint by the matrix ``C``."""
        out = {}
        if not self.constraints:
            return out
        Qv = cp.Variable(C.shape)
        Qv.value = C
        for name, fn in self.constraints.items():
            made = _user_constraints(name, fn, Qv)
            out[name] = max((float(np.max(c.violation())) for c in made), default=0.0)
        return out

    # ------------------------------------------------------------------ information
    def _staircase_applies(self) -> bool:
        return (self.privacy.staircase and not self.constraints
                and (self.k <= staircase.MAX_STAIRCASE_K or self._symmetric()))

    def _symmetric(self) -> bool:
        return (isinstance(self.objective, EstimationVariance) and self.objective.symmetric
                and self.focal_sets is None and isinstance(self.privacy, LDP)
                and not self._outputs_given)

    def _solve_information(self, solver: str | None, options: dict,
                           deadline: Deadline) -> DesignResult:
        eps = self.privacy.epsilon  # type: ignore[attr-defined]
        t0 = time.perf_counter()
        if self._staircase_applies():
            if self._symmetric():
                return self._solve_symmetric(eps, t0)
            if eps > staircase.MAX_STAIRCASE_EPSILON:
                raise InvalidParameterError(
                    f"epsilon = {eps!r} is above {staircase.MAX_STAIRCASE_EPSILON:g}, the "
                    f"largest the staircase programs support for "
                    f"{type(self.objective).__name__} (patterns hold 1 and e^eps side by "
                    "side)")
            if isinstance(self.objective, EstimationVariance):
                sol = staircase.solve_estimation(self.objective, eps, solver, deadline,
                                                 **options)
                form = "staircase convex program over 2^k - 1 patterns"
                if sol.patterns_used is not None and sol.patterns_used < sol.n_patterns:
                    form += (f" (column generation: {sol.patterns_used} of {sol.n_patterns} "
                             f"patterns in {sol.rounds} rounds; first-order gap bound "
                             f"{sol.gap:.1e})")
            else:
                sol = staircase.solve_sublinear(self.objective, eps, deadline)
                form = "staircase LP over 2^k - 1 patterns"
            elapsed = time.perf_counter() - t0
            Q = self._fit_columns(sol.Q)
            if Q is not None:
                status = Status.OPTIMAL if sol.accurate else Status.INACCURATE
                notes = (deadline.note(),) if sol.stopped else ()
                return self._certified(Q, sol.value, status, sol.solver, "global",
                                       form, 0.0, elapsed, {}, notes, bound=sol.bound,
                                       expect_bound=True)
            note = (f"the staircase optimum needs {sol.Q.shape[1]} outputs but only "
                    f"{self.n} are allowed: solved locally")
        else:
            note = ("no exact program is known for this notion with this objective"
                    if not self.privacy.staircase else
                    "user constraints present" if self.constraints else
                    f"k = {self.k} exceeds the staircase limit {staircase.MAX_STAIRCASE_K}")
            note += ": local optimum (minorise-maximise from 3 starts)"
        return self._solve_local(solver, options, t0, note, deadline)

    def _fit_columns(self, Q: np.ndarray) -> np.ndarray | None:
        """Place staircase columns on the allowed outputs (None if there are too few)."""
        used = Q.shape[1]
        if self.focal_sets is None:
            if not self._outputs_given:
                return Q  # the staircase's own outputs, labelled 0..used-1
            if used > self.n:
                return None
            return np.hstack([Q, np.zeros((self.k, self.n - used))])
        if used > self.n:
            return None
        # messages by size (singletons first), columns by the input where they peak
        order = sorted(range(self.n), key=lambda j: (len(self.focal_sets[j]), j))
        cols = sorted(range(used), key=lambda j: (int(np.argmax(Q[:, j])), -Q[:, j].max()))
        out = np.zeros((self.k, self.n))
        for j, c in zip(order, cols, strict=False):
            out[:, j] = Q[:, c]
        return out

    def _solve_symmetric(self, eps: float, t0: float) -> DesignResult:
        crit = self.objective.criterion  # type: ignore[attr-defined]
        d, value = staircase.symmetric_estimation(self.k, eps, crit)
        elapsed = time.perf_counter() - t0
        structure = {"family": "subset_selection", "d": d, "k": self.k, "epsilon": eps}
        form = "symmetric reduction: d-subset selection, closed form over d"
        if self.k * math.comb(self.k, d) <= catalog.MAX_ENTRIES:
            mech = catalog.subset_selection(self.k, d, eps)
            return self._certified(mech.matrix, value, Status.OPTIMAL, "closed form",
                                   "global", form, 0.0, elapsed, {}, (), structure,
                                   outputs=mech.outputs, gap=0.0)
        cert = Certificate(notion=self.privacy.describe(), target=eps, achieved=eps,
                           met=True, tolerance=0.0, repair="none", repair_weight=0.0,
                           value_gap=0.0, method="analytic: every column of d-subset "
                           "selection takes the values e^eps/Z and 1/Z")
        return DesignResult(
            status=Status.OPTIMAL, value=value, solver_value=value, optimum="global",
            certificate=cert, duals={}, solver="closed form", formulation=form,
            build_time=0.0, solve_time=elapsed, gap=0.0,
            notes=(f"subset_selection({self.k}, {d}, {eps:g}) has C({self.k}, {d}) outputs, "
                   "too many to build as a matrix",), structure=structure,
            _unavailable=(f"the optimal mechanism is subset_selection(k={self.k}, d={d}, "
                          f"epsilon={eps:g}), whose C({self.k}, {d}) outputs are too many "
                          "for an explicit matrix"))

    def _solve_local(self, solver: str | None, options: dict, t0: float,
                     note: str, deadline: Deadline) -> DesignResult:
        names: list[str] = []

        def feasible() -> tuple[cp.Expression, list]:
            Q, groups, _ = self._feasible()
            return Q, [c for g in groups.values() for c in g]

        def run(prob: cp.Problem) -> None:
            name = choose_solver(prob, solver)
            names.append(name)
            attempt = self._run(prob, None, {}, name, options,
                                time_limit=deadline.remaining())
            status, error = attempt.status, attempt.error
            if status is Status.INFEASIBLE:
                raise InfeasibleDesignError("infeasible")
            if status not in (Status.OPTIMAL, Status.INACCURATE):
                raise SolverFailedError(error or f"local step ended with status {status}")

        try:
            Q, value, iters, stopped = local.solve_local(
                self.objective, feasible, run, self.k, self.n,
                expired=lambda: deadline.expired)
        except InfeasibleDesignError:  # the feasible set itself is empty (first projection)
            return DesignResult(status=Status.INFEASIBLE, value=None, solver_value=None,
                                optimum="local", certificate=None, duals={},
                                solver=names[-1] if names else "", formulation="local",
                                build_time=0.0, solve_time=time.perf_counter() - t0,
                                notes=(note,), user_constraints=tuple(self.constraints))
        elapsed = time.perf_counter() - t0
        status, notes = Status.OPTIMAL, (note,)
        if stopped:
            status, notes = Status.INACCURATE, (note, deadline.note())
        return self._certified(Q, value, status, names[-1] if names else "",
                               "local", f"minorise-maximise, {iters} convex steps", 0.0,
                               elapsed, {}, notes)
