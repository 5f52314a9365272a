"""DesignProblem: a privacy notion, an objective, sizes and user constraints (a validated
specification) -> a certified optimal mechanism
(:class:`~mechdesign.design.result.DesignResult`).

The problem is a value: :meth:`DesignProblem.compile` builds the program
(:class:`~mechdesign.design.program.Program`, shared with the frontier) and
:meth:`DesignProblem.solve` hands the problem to one of the methods of
:mod:`~mechdesign.design.methods`, chosen by :mod:`~mechdesign.design.planner`; nothing is
stored on the problem during a solve. The methods read it through
:class:`~mechdesign.design.spec.ProblemSpec`.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import cvxpy as cp
import numpy as np

from .._html import MAX_REPR, clip, items_text, kv_table, wrap
from .._validation import check_int, check_labels, check_real
from ..errors import InvalidParameterError, SizeLimitError, SolverFailedError
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from ..privacy.notions import WLDP, ApproxLDP, MetricDP, Notion
from . import planner
from .formulations import BuildContext, Formulation, describe_build, formulate
from .objectives import (
    CustomObjective,
    EstimationVariance,
    ExpectedLoss,
    InformationObjective,
    Objective,
    WorstCaseLoss,
)
from .outcome import GAP_FLOOR, GAP_TOL, USER_CONSTRAINT_TOL
from .planner import (  # re-exported: their home is the planner
    WORKING_SET_BYTES_PER_CUT_ENTRY,
    WORKING_SET_BYTES_PER_ENTRY,
    WORKING_SET_BYTES_PER_PAIR,
    WORKING_SET_MAX_EPSILON,
    WORKING_SET_MIN_ENTRIES,
)
from .program import FeasibleSet, Program
from .result import DesignResult, Status
from .solvers import (
    check_memory,
    check_solver_options,
    choose_solver,
)
from .symmetry import Symmetry, check_invariant, close_group

log = logging.getLogger("mechdesign.design")

__all__ = ["GAP_FLOOR", "GAP_TOL", "MAX_EVIDENTIAL_OUTPUTS", "USER_CONSTRAINT_TOL",
           "WORKING_SET_BYTES_PER_CUT_ENTRY", "WORKING_SET_BYTES_PER_ENTRY",
           "WORKING_SET_BYTES_PER_PAIR",
           "WORKING_SET_MAX_EPSILON", "WORKING_SET_MIN_ENTRIES",
           "DesignProblem"]

MAX_EVIDENTIAL_OUTPUTS = 10
"""Evidential design enumerates the 2^m - 1 messages and 2^m events: m <= 10 outputs."""



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


def with_objective_notes(res: DesignResult, problem: DesignProblem) -> DesignResult:
    """``res`` with the objective's own notes appended (a prior divided by its sum is said,
    never silent)."""
    notes = problem.objective.notes
    return dataclasses.replace(res, notes=(*res.notes, *notes)) if notes else res


def recheck(name: str, made: list) -> float:
    r"""The largest violation of the constraints ``made`` (built on a constant Q).

    Without variables, each constraint's own residual. With variables of the user's own,
    the least violation over their values: every inequality ``f <= g`` (and ``NonPos``)
    becomes ``f - g <= t`` and every equality ``|f - g| <= t``; other cones (second-order,
    exponential, power, PSD) are kept as they are; then ``min t`` is solved (Clarabel)
    and the value is ``max(t, residuals)``. ``inf`` when the kept cones are infeasible at
    this Q. A solver failure raises :class:`~mechdesign.errors.SolverFailedError` naming the
    constraint: it cannot be re-checked, which is not the same as met.
    """
    if not any(c.variables() for c in made):
        return max((float(np.max(c.violation())) for c in made), default=0.0)
    t = cp.Variable(nonneg=True)
    relaxed: list = []
    for c in made:
        if isinstance(c, cp.constraints.Inequality | cp.constraints.NonPos):
            relaxed.append(c.expr <= t)
        elif isinstance(c, cp.constraints.NonNeg):
            relaxed.append(-c.expr <= t)
        elif isinstance(c, cp.constraints.Equality | cp.constraints.Zero):
            relaxed.append(cp.abs(c.expr) <= t)
        else:
            relaxed.append(c)
    prob = cp.Problem(cp.Minimize(t), relaxed)
    try:
        prob.solve(solver=cp.CLARABEL)
    except cp.error.SolverError as exc:
        raise SolverFailedError(
            f"user constraint {name!r} could not be re-checked at the returned matrix: the "
            f"re-optimisation of its own variables failed ({exc})") from exc
    if prob.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
        return math.inf
    if t.value is None:
        raise SolverFailedError(
            f"user constraint {name!r} could not be re-checked at the returned matrix: the "
            f"re-optimisation of its own variables ended {prob.status!r}")
    kept = [c for c in relaxed if any(c is m for m in made)]
    residual = max((float(np.max(c.violation())) for c in kept), default=0.0)
    return max(float(t.value), residual, 0.0)


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
        self.outputs_given = outputs is not None or n_outputs is not None
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
        if isinstance(privacy, ApproxLDP):
            privacy.neighbours(self.inputs)  # a relation naming no input is refused here
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
    def build_context(self, n: int | None = None, parametric: bool = False) -> BuildContext:
        """What the notion's formulation needs to know about this problem."""
        evidential = self.focal_sets is not None
        return BuildContext(k=self.k, n=self.n if n is None else n, inputs=self.inputs,
                            symmetry=self.symmetry, focal_masks=self.focal_masks,
                            n_labels=len(self.outputs) if evidential else None,
                            parametric=parametric)

    def feasible_set(self, parametric: bool = False,
                     form: Formulation | None = None) -> FeasibleSet:
        """Q and its named constraint groups (``"rows"``, ``"privacy"``, the user's).

        With ``parametric=True`` every epsilon-dependent coefficient is a cvxpy Parameter and
        the setters move them all to a new epsilon (see :meth:`Program.set_epsilon`).
        A design whose estimated memory exceeds ``solvers.MEMORY_BUDGET`` is refused with
        ``SizeLimitError`` before anything is built. ``form``: the privacy rows built
        elsewhere (a round of row generation, whose size its caller checked) instead of the
        notion's registered formulation.
        """
        if form is None:
            ctx = self.build_context(parametric=parametric)
            what = (f"{type(self.privacy).__name__} design with {self.k} inputs and "
                    f"{self.n} outputs")
            form = formulate(self.privacy, ctx,
                             lambda nnz: check_memory(nnz + self.k * self.n, what))
        Q = form.Q
        # under a symmetry, rows in one orbit are the same constraint: keep one per orbit
        rows = Q if self.symmetry is None else Q[self.symmetry.input_representatives, :]
        groups: dict[str, tuple] = {"rows": (cp.sum(rows, axis=1) == 1,),
                                    "privacy": form.constraints}
        for name, fn in self.constraints.items():
            if name in groups:
                raise InvalidParameterError(f"constraint name {name!r} is reserved")
            groups[name] = tuple(_user_constraints(name, fn, Q))
        return FeasibleSet(Q, MappingProxyType(groups), form.setters,
                           describe_build(self.privacy, form, self.symmetry), form.relax)

    def compile(self, parametric: bool = False, form: Formulation | None = None) -> Program:
        """The cvxpy program of this problem (loss objectives; information objectives are
        solved by the staircase programs or locally, see :meth:`solve`); ``form`` as in
        :meth:`feasible_set`."""
        if isinstance(self.objective, InformationObjective):
            raise InvalidParameterError(
                f"{type(self.objective).__name__} is not a convex expression of Q (it is "
                "maximised through staircase programs); to_cvxpy needs a loss objective")
        t0 = time.perf_counter()
        fs = self.feasible_set(parametric=parametric, form=form)
        try:
            expr, extra = self.objective.expression(fs.Q)
            sense = cp.Maximize if self.objective.sense == "maximize" else cp.Minimize
            prob = cp.Problem(sense(expr), fs.constraints + extra)
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
        return Program(self, prob, fs, time.perf_counter() - t0)

    def to_cvxpy(self) -> tuple[cp.Problem, cp.Expression]:
        """The plain cvxpy problem and the expression Q (its ``.value`` is the matrix)."""
        program = self.compile()
        return program.prob, program.Q

    def with_privacy(self, privacy: Notion) -> DesignProblem:
        """The same problem under another notion of the same kind (e.g. another epsilon)."""
        if type(privacy) is not type(self.privacy):
            raise InvalidParameterError(
                f"with_privacy needs a {type(self.privacy).__name__}, got {privacy!r}")
        twin = copy.copy(self)
        twin.privacy = privacy
        twin._check_boundary_prior()
        return twin

    def over_outputs(self, privacy: Notion) -> DesignProblem:
        """The problem over the plain outputs (no focal sets, Shafer semantics, no symmetry)
        under ``privacy``, with the same objective, labels and user constraints: the inner
        problem of the Walley reduction."""
        return DesignProblem(privacy, self.objective, inputs=self.inputs,
                             outputs=self.outputs, constraints=self.constraints)

    def per_use(self, privacy: Notion) -> DesignProblem:
        """The same problem under a per-use notion of another kind (the inner problems of a
        ``Composed`` target): objective, labels, user constraints and whether the outputs
        were given are kept."""
        twin = copy.copy(self)
        twin.privacy = privacy
        twin._check_boundary_prior()
        return twin

    def build_mechanism(self, C: np.ndarray, outputs: Sequence | None = None
                        ) -> Mechanism | EvidentialMechanism:
        """The mechanism of matrix ``C`` with this problem's labels (``outputs`` overrides
        the output labels of an ordinary mechanism)."""
        if outputs is not None:
            return Mechanism(C, self.inputs, outputs)
        if self.focal_sets is not None:
            return EvidentialMechanism(C, self.focal_sets, self.inputs, self.outputs)
        return Mechanism(C, self.inputs, self.outputs if C.shape[1] == self.n else None)

    def constraint_violations(self, C: np.ndarray) -> dict[str, float]:
        """Largest violation of each user constraint by the matrix ``C``.

        Each constraint is rebuilt with ``Q`` replaced by the constant ``C``. When it has
        variables of its own (an epigraph auxiliary, say ``s >= Q[0] - e^eps Q[1]``), their
        values are re-optimised at ``C`` (:func:`recheck`): the violation is the least
        achievable one, not the solver's leftover auxiliaries.
        """
        out: dict[str, float] = {}
        Qc = cp.Constant(np.asarray(C, dtype=float))
        for name, fn in self.constraints.items():
            out[name] = recheck(name, _user_constraints(name, fn, Qc))
        return out

    def bounded_by_construction(self, prob: cp.Problem) -> bool:
        """No user constraints and no variable of the objective's own (a custom objective
        may bring a free one): every variable is then bounded by the formulation (Q in the
        simplex, auxiliaries tied to Q), so "unbounded" is solver trouble."""
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

    def privacy_formulation(self) -> str:
        return f"{type(self.privacy).__name__} LP/convex formulation (docs/formulations.md)"

    def working_set_applies(self, solver: str | None, options: dict) -> bool:
        """True when the planner sends this problem to the working-set path
        (:mod:`~mechdesign.design.planner`, where its conditions are listed)."""
        return planner.working_set_applies(self, solver, options)

    def working_set_max_entries(self) -> int:
        """:func:`~mechdesign.design.planner.working_set_max_entries` of this problem."""
        return planner.working_set_max_entries(self)

    def working_set_max_pairs(self) -> int:
        """:func:`~mechdesign.design.planner.working_set_max_pairs` of this problem."""
        return planner.working_set_max_pairs(self)

    def staircase_applies(self) -> bool:
        """:func:`~mechdesign.design.planner.staircase_applies` of this problem."""
        return planner.staircase_applies(self)

    def pattern_generation_applies(self, solver: str | None = None,
                                   options: dict | None = None) -> bool:
        """:func:`~mechdesign.design.planner.pattern_generation_applies` of this problem."""
        return planner.pattern_generation_applies(self, solver, options)

    def symmetric(self) -> bool:
        """:func:`~mechdesign.design.planner.symmetric` of this problem."""
        return planner.symmetric(self)

    # ------------------------------------------------------------------ solving
    def solve(self, solver: str | None = None, *, time_limit: float | None = None,
              progress: bool = False, **options: Any) -> DesignResult:
        """Solve, certify (clean, re-measure, repair) and return a :class:`DesignResult`.

        ``time_limit`` (seconds) is one budget
        (:class:`~mechdesign.design.solvers.Deadline`) for the whole solve: an LP or convex
        program's first attempt gets all of it and each re-solve what is left; a solve
        stopped by it ends with status ``solver error`` and a note naming the limit. The
        staircase, local and working-set programs share it over their several solves:
        stopped after a first answer, they return their best point so far as
        ``inaccurate`` with a note; stopped before, they raise ``SolverFailedError`` naming
        the limit. Ctrl-C stops a native solve within about a second and raises
        ``KeyboardInterrupt``. A design whose estimated memory exceeds
        ``solvers.MEMORY_BUDGET`` is refused with ``SizeLimitError`` before it is built.
        With the solver left to the default, an attempt that ends inaccurate, fails, claims
        infeasibility of a problem that is feasible by construction (no user constraints)
        or unboundedness (impossible without user constraints and without variables of a
        custom objective's own: Q is bounded), or whose certified optimality gap exceeds
        :data:`GAP_TOL`, is re-solved with the other solver (LPs: HiGHS <-> Clarabel, and
        HiGHS simplex for the gap; conic programs: SCS after Clarabel), last by Clarabel at
        strict infeasibility tolerances for a claim, and the better certified answer is
        kept; every attempt is listed in the notes. An infeasibility claim with user
        constraints is confirmed by the other solver before it is reported.

        ``progress=True`` prints the progress of long designs on stderr while solving (the
        logger ``mechdesign.design`` at INFO: column generation reports each round with
        the best value so far and the certified bound); its DEBUG messages (the strategy
        and every solver attempt with its time) show with ``logging`` configured, or
        ``mechdesign solve --verbose``.
        """
        if progress is not True and progress is not False:
            raise InvalidParameterError(f"progress must be True or False, got {progress!r}")
        if not progress:
            res = self._solve(solver, time_limit, options)
        else:
            from .._progress import log_to_stderr

            with log_to_stderr(logging.INFO, "mechdesign.design"):
                res = self._solve(solver, time_limit, options)
        return self._conclude(res)

    def _conclude(self, res: DesignResult) -> DesignResult:
        """What every solve adds to its method's result: the minimal conflicting set of user
        constraints of an infeasible design, and the objective's notes."""
        if res.status is Status.INFEASIBLE and self.constraints:
            conflict = self.infeasible_constraints()
            res = dataclasses.replace(res, conflict=conflict, notes=(*res.notes, (
                "infeasible together with the privacy constraints and the simplex: "
                + ", ".join(repr(c) for c in conflict) + " (a minimal such set: dropping "
                "any one of them makes the rest feasible)") if conflict else
                "infeasible even without the user constraints"))
        return with_objective_notes(res, self)

    def infeasible_constraints(self) -> tuple[str, ...]:
        """A minimal set of user constraints that is infeasible with the privacy constraints
        and the rows (a deletion filter: each constraint is dropped in turn and kept out when
        the rest stays infeasible; one feasibility solve per user constraint). Empty when
        the problem is infeasible without them (or feasible)."""
        fs = self.feasible_set()
        base = [*fs.groups.get("rows", ()), *fs.groups.get("privacy", ())]
        others = [c for name, g in fs.groups.items()
                  if name not in ("rows", "privacy", *self.constraints) for c in g]

        def infeasible(names: list[str]) -> bool:
            cons = [*base, *others, *(c for n in names for c in fs.groups[n])]
            prob = cp.Problem(cp.Minimize(0), cons)
            for solver in (cp.CLARABEL, cp.SCS):
                try:
                    prob.solve(solver=solver)
                except cp.error.SolverError:
                    continue
                return prob.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE)
            return False  # undecided: keep the constraint in the set

        names = list(self.constraints)
        if not infeasible(names) or infeasible([]):
            return ()
        for name in list(names):
            rest = [n for n in names if n != name]
            if infeasible(rest):
                names = rest
        return tuple(names)

    def plan(self, solver: str | None = None, **options: Any) -> planner.Plan:
        """What :meth:`solve` would do with these arguments, decided without solving: the
        method, why (each rule of :data:`~mechdesign.design.planner.RULES` tried in order),
        the solver policy, reductions, memory estimate and fallbacks
        (:func:`mechdesign.design.planner.plan`; ``print(problem.plan())`` shows it)."""
        self._check_solve_arguments(solver, None, options)
        return planner.plan(self, solver, options)

    def _check_solve_arguments(self, solver: str | None, time_limit: float | None,
                               options: dict) -> float | None:
        if solver is not None:
            choose_solver(None, solver)  # a typed error when it is not installed
        check_solver_options(solver, options)
        if time_limit is not None:
            time_limit = check_real(time_limit, "time_limit")
            if not time_limit > 0:
                raise InvalidParameterError(f"time_limit must be > 0 seconds, got {time_limit!r}")
        return time_limit

    def _solve(self, solver: str | None, time_limit: float | None,
               options: dict) -> DesignResult:
        time_limit = self._check_solve_arguments(solver, time_limit, options)
        the_plan = planner.plan(self, solver, options, estimate_memory=False)
        return planner.run(the_plan, self, solver, options, time_limit)

    def __repr__(self) -> str:
        extra = (f", constraints={items_text(sorted(self.constraints), str, 40)}"
                 if self.constraints else "")
        if self.semantics == "walley":
            extra += ", semantics='walley'"
        if self.symmetry is not None:
            extra += f", symmetry of order {self.symmetry.order}"
        return clip(f"DesignProblem({clip(repr(self.privacy), 60)}, "
                    f"{type(self.objective).__name__} ({self.objective.sense}), "
                    f"{self.k} inputs x {self.n} {'messages' if self.focal_sets else 'outputs'}"
                    f"{extra}", MAX_REPR - 1) + ")"

    def _repr_html_(self) -> str:
        """The notion, the objective and the sizes as a table (notebooks)."""
        columns = "messages (focal sets)" if self.focal_sets else "outputs"
        return wrap(kv_table([
            ("privacy", self.privacy.describe()),
            ("objective", f"{self.objective.sense} {type(self.objective).__name__}"),
            ("inputs", f"{self.k}: {items_text(self.inputs, str)}"),
            ("outputs", f"{len(self.outputs)}: {items_text(self.outputs, str)}"),
            (columns, None if not self.focal_sets else str(self.n)),
            ("constraints", sorted(self.constraints) or None),
            ("semantics", self.semantics if self.privacy.evidential else None),
            ("symmetry", None if self.symmetry is None
             else f"group of order {self.symmetry.order}, {self.symmetry.n_orbits} orbits")],
            "DesignProblem"))
