"""The outcome of a design: one frozen record with the mechanism and its certificate."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._html import (
    MAX_SHOWN,
    approx,
    clip,
    kv_table,
    number,
    paragraph,
    short_repr,
    wrap,
)
from ..errors import (
    DesignError,
    InfeasibleDesignError,
    SizeLimitError,
    SolverFailedError,
    UnboundedDesignError,
    UncertifiedDesignError,
)
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from ..oracles import FrequencyOracle

__all__ = ["Certificate", "DesignResult", "Method", "Optimum", "Status"]


class Status(enum.Enum):
    """How the solve ended; ``str(status)`` says so in words."""

    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    INACCURATE = "inaccurate"
    SOLVER_ERROR = "solver error"

    def __str__(self) -> str:
        return self.value


class Optimum(enum.StrEnum):
    """What a result's value is known to be (:attr:`DesignResult.optimum`; the string
    values are what JSON carries and compare equal to plain strings)."""

    GLOBAL = "global"
    SOLVER_REPORTED = "global, solver-reported"
    SPANNER = "spanner"
    LOCAL = "local"
    CATALOG = "catalog"
    NOT_CERTIFIED = "not certified"


class Method(enum.StrEnum):
    """The methods the planner (:mod:`~mechdesign.design.planner`) chooses from
    (:attr:`DesignResult.method`; the string values are what JSON carries)."""

    WALLEY = "walley"
    COMPOSED = "composed"
    SHUFFLED = "shuffled"
    CLOSED_FORM_KRR = "closed_form_krr"
    WORKING_SET = "working_set"
    MINIMAX_STAIRCASE = "minimax_staircase"
    PATTERN_GENERATION = "pattern_generation"
    LOCAL = "local"
    SYMMETRIC = "symmetric"
    STAIRCASE = "staircase"
    ROW_GENERATION = "row_generation"
    PROGRAM = "program"


@dataclass(frozen=True)
class Certificate:
    """What the returned matrix was measured to guarantee, independently of the solver.

    ``achieved`` is the notion's parameter measured on the returned (cleaned, possibly
    repaired) matrix by the analysis layer. ``met`` means the matrix meets the target with
    no slack: the float measure, rounded up for its own floating-point error, is at most
    the target (for a delta the rounding bound is added, relative to the target, never an
    absolute tolerance), and where the matrix is small enough for
    :func:`~mechdesign.privacy.verify.verify_exact` (``exact`` is then not None) the
    rational-arithmetic check proves it (``exact is True``). ``tolerance`` is 0: nothing
    above the target is accepted.
    ``repair`` says how a cleaned matrix that missed the target was mended: ``"none"``,
    ``"envelope"`` (tiny entries raised to the ratio bound; ``repair_weight`` is the largest
    L1 change of a row) or ``"mixing"`` (``(1 - gamma) Q + gamma 1 r^T``;
    ``repair_weight`` is gamma).
    ``value_gap`` is the objective of the returned matrix minus the solver's value.
    """

    notion: str
    target: float
    achieved: float
    met: bool
    tolerance: float
    repair: str
    repair_weight: float
    value_gap: float
    method: str
    exact: bool | None = None

    def __repr__(self) -> str:
        verdict = "met" if self.met else "NOT met"
        proof = {True: ", proved exactly", False: ", exact check failed", None: ""}[self.exact]
        repair = ("" if self.repair == "none"
                  else f", repair={self.repair!r} ({number(self.repair_weight)})")
        return short_repr("Certificate", f"{clip(self.notion, 40)}: {verdict}{proof}, "
                          f"achieved={number(self.achieved)}, target={number(self.target)}"
                          f"{repair}")

    def _repr_html_(self) -> str:
        """The certificate as a table: the privacy measured on the returned matrix against
        the target, how it was checked, and any repair (notebooks)."""
        rows: list[tuple[str, Any]] = [
            ("privacy", self.notion), ("target", number(self.target)),
            ("achieved (measured)", number(self.achieved)), ("met", self.verdict()),
            ("tolerance", number(self.tolerance)),
            ("repair", None if self.repair == "none"
             else f"{self.repair} (weight {number(self.repair_weight)})"),
            ("value gap", None if np.isnan(self.value_gap) else number(self.value_gap)),
            ("method", self.method)]
        return wrap(kv_table(rows, "Certificate"))

    def verdict(self) -> str:
        """``met`` or ``NOT met``, with how it was checked, in words."""
        if not self.met:
            return "NOT met"
        return {True: "yes, proved in rational arithmetic",
                False: "yes (float measure; the exact check failed)",
                None: "yes (float measure, rounded up)"}[self.exact]


def _dual_value(dual: Any) -> Any:
    """A dual for JSON: a float, a list (of floats or of arrays as lists), or None."""
    if dual is None:
        return None
    if isinstance(dual, list | tuple):
        return [_dual_value(d) for d in dual]
    arr = np.asarray(dual, dtype=float)
    return float(arr) if arr.ndim == 0 else arr.tolist()


@dataclass(frozen=True)
class DesignResult:
    """Result of :meth:`DesignProblem.solve`.

    Attributes
    ----------
    status : Status
    value : float or None
        The objective evaluated (numpy) on the returned mechanism.
    solver_value : float or None
        The optimal value reported by the solver.
    optimum : Optimum
        ``"global"`` (LP / convex program / closed form), ``"global, solver-reported"``
        (no independent bound), ``"spanner"`` (metric privacy with ``spanner=t``: optimal
        over the spanner's constraints, which are stricter than the notion), ``"local"``
        (minorise-maximise from several starts, for notions without a known exact program),
        ``"catalog"`` (a stopped design replaced by a better catalog mechanism) or ``"not
        certified"`` (a global program's best point, stopped before its gap closed). A
        :class:`Optimum` (a string enum: it compares equal to these strings).
    certificate : Certificate or None
    duals : dict
        Dual values by constraint name (``"rows"``, ``"privacy"`` and the user's names), in
        the objective's units: a binding constraint's dual is the rate at which the optimal
        value changes with its right-hand side (the row-sum duals leave out the loss's
        offset, which the compiled program removes).
    solver, formulation : str
        The solver that produced the returned matrix: a cvxpy solver name (``"HIGHS"``,
        ``"CLARABEL"``, ...) or ``"BLOCK-IPM"``, mechdesign's block-angular interior point
        (:mod:`mechdesign.design.block_ipm`), and how the program was formulated.
    build_time, solve_time : float (seconds; building includes cvxpy's canonicalisation)
    notes : tuple of str
    structure : dict
        Family information for closed-form designs (e.g. subset selection and its d), or
        the working set of outputs of the working-set method.
    counts : dict of str to int
        The work of an iterative method: ``rounds`` (cutting planes, row or column
        generation), ``cuts``, ``patterns`` (staircase columns used), ``rows`` (rows of the
        last row-generation round), ``steps`` (local method); empty for one solve.
    oracle : FrequencyOracle
        (property) The optimum as a structured mechanism
        (:mod:`mechdesign.oracles`) when the design's optimum is a known family (uniform-prior
        estimation: subset selection at its best d), at any k, for sampling and
        estimation; a typed error otherwise.
    gap : float or None
        Certified relative optimality gap of the returned mechanism: its objective against
        a bound on the optimum recomputed in numpy from the solver's duals (or the
        closed form / the staircase program's own certificate), both in the compiled
        units (losses scaled to [0, 1]), divided by the larger of their magnitudes
        (floor 1e-12). ``status`` is ``optimal`` only when it is at most 1e-6; None when
        no independent bound exists (then ``optimum`` says ``"solver-reported"``).
    user_constraints : tuple of str
        The names of the user constraints (their duals are in ``duals``).
    conflict : tuple of str
        When infeasible: a minimal set of user constraints that cannot hold together with
        the privacy constraints (:meth:`DesignProblem.infeasible_constraints`).
    method : Method or None
        The method that produced it (``"program"``, ``"working_set"``, ``"staircase"``, ...;
        :meth:`DesignProblem.plan` says why); None for a result not made by the planner.
    """

    status: Status
    value: float | None
    solver_value: float | None
    optimum: Optimum
    certificate: Certificate | None
    duals: dict = field(repr=False)
    solver: str
    formulation: str
    build_time: float
    solve_time: float
    notes: tuple[str, ...] = ()
    structure: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)
    user_constraints: tuple[str, ...] = ()
    gap: float | None = None
    conflict: tuple[str, ...] = ()
    method: Method | None = None
    _mechanism: Mechanism | EvidentialMechanism | None = field(default=None, repr=False)
    _unavailable: str = field(default="", repr=False)
    _oracle: FrequencyOracle | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        """Status, value, certified gap, the certificate's verdict and the formulation."""
        cert = self.certificate
        verdict = ("no certificate" if cert is None else
                   f"{clip(cert.notion, 32)} {'met' if cert.met else 'NOT met'}"
                   f"{' (exact)' if cert.exact else ''}, achieved={number(cert.achieved)}")
        gap = "none (solver-reported)" if self.gap is None else number(self.gap)
        return short_repr("DesignResult", f"{self.status}, value={number(self.value)}, "
                          f"gap={gap}; {verdict}; {clip(self.formulation, 48)}")

    def _repr_html_(self) -> str:
        """The certificate as a table, and the mechanism when it is small (notebooks)."""
        cert = self.certificate
        rows: list[tuple[str, Any]] = [
            ("status", str(self.status)), ("value", number(self.value)),
            ("certified gap", "none (solver-reported optimum)" if self.gap is None
             else number(self.gap)),
            ("optimum", self.optimum)]
        if cert is not None:
            rows += [("privacy", cert.notion), ("target", number(cert.target)),
                     ("achieved (measured)", number(cert.achieved)),
                     ("met", cert.verdict()),
                     ("repair", None if cert.repair == "none"
                      else f"{cert.repair} (weight {number(cert.repair_weight)})")]
        rows += [("formulation", self.formulation), ("solver", self.solver),
                 ("time", f"build {approx(self.build_time)} s, solve "
                          f"{approx(self.solve_time)} s"),
                 ("notes", list(self.notes))]
        parts = [kv_table(rows, "DesignResult")]
        mech = self._mechanism
        if mech is None:
            parts.append(paragraph(f"no mechanism: {self._unavailable}" if self._unavailable
                                   else "no mechanism"))
        elif max(mech.n_inputs, len(getattr(mech, "focal_sets", mech.outputs))) <= MAX_SHOWN:
            parts.append(mech._repr_html_())
        else:
            parts.append(paragraph(repr(mech), code=True))
        return wrap(*parts)

    @property
    def oracle(self) -> FrequencyOracle:
        """The optimum as a frequency oracle (sample and estimate at any k); a typed
        :class:`~mechdesign.errors.DesignError` when the optimum is not a known family."""
        if self._oracle is None:
            raise DesignError("this design's optimum is not a structured family; use "
                              "result.mechanism")
        return self._oracle

    @property
    def achieved(self) -> float | None:
        """The measured privacy parameter of the returned mechanism."""
        return None if self.certificate is None else self.certificate.achieved

    @property
    def mechanism(self) -> Mechanism | EvidentialMechanism:
        """The designed mechanism; a typed :class:`~mechdesign.errors.DesignError` if none."""
        if self._mechanism is not None:
            return self._mechanism
        names = ", ".join(self.user_constraints) or "none"
        if self.status is Status.INFEASIBLE:
            if self.conflict:
                raise InfeasibleDesignError(
                    "the design problem is infeasible: the user constraints "
                    f"{', '.join(map(repr, self.conflict))} cannot hold together with the "
                    "privacy constraints (a minimal such set)")
            raise InfeasibleDesignError(
                f"the design problem is infeasible (user constraints present: {names})")
        if self.status is Status.UNBOUNDED:
            raise UnboundedDesignError(
                f"the objective is unbounded (user constraints present: {names})")
        if self.status is Status.SOLVER_ERROR:
            raise SolverFailedError(self._unavailable or "the solver failed")
        if self.certificate is not None and not self.certificate.met:
            raise UncertifiedDesignError(self._unavailable)
        if self.status is Status.OPTIMAL and self.structure:
            raise SizeLimitError(self._unavailable)
        raise DesignError(self._unavailable or f"no mechanism (status {self.status})")

    def summary(self) -> dict[str, Any]:
        """A JSON-ready dict of everything but the matrix."""
        cert = self.certificate
        return {
            "status": str(self.status), "value": self.value, "solver_value": self.solver_value,
            "optimum": str(self.optimum), "solver": self.solver, "formulation": self.formulation,
            "build_time": self.build_time, "solve_time": self.solve_time,
            "notes": list(self.notes), "structure": self.structure, "counts": self.counts,
            "gap": self.gap,
            "oracle": None if self._oracle is None else self._oracle.to_dict(),
            "user_constraints": {name: {"dual": _dual_value(self.duals.get(name))}
                                 for name in self.user_constraints},
            "conflict": list(self.conflict),
            "method": None if self.method is None else str(self.method),
            "certificate": None if cert is None else {
                "notion": cert.notion, "target": cert.target, "achieved": cert.achieved,
                "met": cert.met, "tolerance": cert.tolerance, "repair": cert.repair,
                "repair_weight": cert.repair_weight, "value_gap": cert.value_gap,
                "method": cert.method, "exact": cert.exact},
        }
