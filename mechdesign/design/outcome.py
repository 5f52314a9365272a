r"""The one place a :class:`~mechdesign.design.result.DesignResult` is assembled.

Every solve path ends here: :func:`certify_solution` for a matrix, handed over as a typed
:class:`Solution` (cleaned, re-measured, repaired if needed and labelled by
:func:`~mechdesign.design.certify.certify`),
:func:`unsolved_result` when there is none, :func:`analytic_result` for a closed-form
optimum too large to write as a matrix. The rules of ``docs/certificates.md`` apply to all
of them: a result is ``optimal`` only when the returned matrix meets the privacy target and
the user constraints and, for a global optimum with an independent bound, its certified
relative gap is at most :data:`GAP_TOL`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .bound import GAP_FLOOR, GAP_TOL, relative_gap  # GAP_*: re-exported
from .certify import certify
from .result import Certificate, DesignResult, Optimum, Status

if TYPE_CHECKING:
    from ..oracles import FrequencyOracle
    from .objectives import Objective
    from .spec import ProblemSpec

__all__ = ["GAP_FLOOR", "GAP_TOL", "USER_CONSTRAINT_TOL", "Solution", "analytic_result",
           "certify_solution", "gap_of", "unsolved_result"]

USER_CONSTRAINT_TOL = 1e-7
"""A returned matrix may miss a user constraint by this much (solver tolerance)."""

def gap_of(objective: Objective, value: float, bound: float | None,
           scale: tuple[float, float] = (1.0, 0.0)) -> float | None:
    """Relative gap between an objective value and a certified bound on the optimum, both
    in the compiled (unit-range) units after undoing ``scale = (a, b)`` (value = a u + b);
    for ``-log det`` objectives the gap of the eigenvalues' geometric mean."""
    if bound is None:
        return None
    a, b = scale
    v, bd = (value - b) / a, (bound - b) / a
    if objective.sense == "maximize":
        v, bd = -v, -bd
    dim = objective.log_gap_dimension()
    if dim is not None:
        return max(0.0, v - bd) / dim if math.isfinite(bd) else math.inf
    return relative_gap(v, bd, GAP_FLOOR)


@dataclass(frozen=True, kw_only=True)
class Solution:
    """What a solve method hands to certification: the matrix and everything known about
    how it was obtained (one typed boundary from every method to :func:`certify_solution`).

    Attributes
    ----------
    Q : ndarray
        The solver's matrix (cleaned, re-measured and repaired by certification).
    solver_value : float or None
        The method's own objective value.
    status : Status
        How the method ended (relabelled by the certified gap).
    solver : str
        The engine or solver that produced Q.
    optimum : Optimum
        What the method claims (``global``, ``local``, ``catalog``...).
    formulation : str
        A description of the program or method.
    build_time, solve_time : float
        Seconds.
    duals : dict
        Dual values by constraint name.
    notes : tuple of str
    structure : dict
        What the method found (a family and its parameters, a working set).
    counts : dict of str to int
        How much work the iterative methods did: ``rounds``, ``cuts``, ``patterns``,
        ``rows``, ``steps`` (those that apply; empty for a single solve).
    outputs : sequence, optional
        Output labels of Q (default: the problem's).
    bound : float, optional
        An independent bound on the optimum (the gap is recomputed on the returned matrix).
    gap : float, optional
        The certified gap when known directly (closed forms, staircase programs).
    expect_bound : bool
        A global optimum without a bound is labelled ``"global, solver-reported"``.
    build, evaluate : callable, optional
        Replace the problem's mechanism constructor and objective (the Walley reduction
        certifies masses but evaluates on the outputs; its user constraints were checked on
        the inner problem).
    oracle : FrequencyOracle, optional
        The same optimum as a structured mechanism.
    """

    Q: np.ndarray
    solver_value: float | None
    status: Status
    solver: str
    optimum: Optimum
    formulation: str
    build_time: float = 0.0
    solve_time: float = 0.0
    duals: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    structure: dict = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    outputs: Sequence | None = None
    bound: float | None = None
    gap: float | None = None
    expect_bound: bool = False
    build: Callable[[np.ndarray], Any] | None = None
    evaluate: Callable[[np.ndarray], float] | None = None
    oracle: FrequencyOracle | None = None


def certify_solution(spec: ProblemSpec, sol: Solution) -> DesignResult:
    """Certify ``sol.Q`` and label it: the one way a solved matrix becomes a result.

    The gap is recomputed on the returned matrix against ``sol.bound`` (an independent
    bound on the optimum in the objective's units), or given (``sol.gap``: closed forms,
    staircase programs). ``expect_bound`` with no bound labels the optimum ``"global,
    solver-reported"``; a global program's point that is not certified optimal is ``"not
    certified"``.
    """
    build = sol.build
    if build is None:
        def build(C: np.ndarray) -> Any:
            return spec.build_mechanism(C, sol.outputs)
    own_objective = sol.evaluate is None  # else the user constraints were checked elsewhere
    evaluate = sol.evaluate or spec.objective.evaluate
    mech, C, cert = certify(sol.Q, spec.privacy, build, evaluate, sol.solver_value)
    notes = [*sol.notes, *_repair_notes(cert)]
    value = evaluate(C)
    gap = sol.gap
    if sol.bound is not None:
        gap = gap_of(spec.objective, value, sol.bound, spec.objective.scaling())
    status, optimum = _label(sol.status, Optimum(sol.optimum), gap, sol.expect_bound,
                             sol.solver, notes)
    if own_objective:
        broken = {k: v for k, v in spec.constraint_violations(C).items()
                  if v > USER_CONSTRAINT_TOL}
        if broken:
            notes.append("the returned matrix violates user constraints "
                         + ", ".join(f"{k!r} by {v:.3g}" for k, v in broken.items())
                         + " (solver inaccuracy or the privacy repair)")
            status = Status.INACCURATE
    if not cert.met:
        notes.append("the returned matrix does NOT meet the privacy target")
    return DesignResult(
        status=status if cert.met else Status.INACCURATE, value=value,
        solver_value=sol.solver_value, optimum=optimum, certificate=cert, duals=sol.duals,
        solver=sol.solver, formulation=sol.formulation, build_time=sol.build_time,
        solve_time=sol.solve_time, notes=tuple(notes), structure=sol.structure,
        counts=dict(sol.counts), user_constraints=tuple(spec.constraints), gap=gap,
        _mechanism=mech if cert.met else None, _oracle=sol.oracle if cert.met else None,
        _unavailable="" if cert.met else (
            f"measured {cert.achieved!r} does not meet the target {cert.target!r} even "
            "after repair"))


def _repair_notes(cert: Certificate) -> list[str]:
    if cert.repair == "envelope":
        return ["the cleaned solver matrix missed the privacy target by solver tolerance; "
                f"tiny entries raised to the ratio bound (largest row change "
                f"{cert.repair_weight:.3g})"]
    if cert.repair == "mixing":
        return [f"the cleaned solver matrix missed the privacy target; mixed with the "
                f"column-mean row at weight {cert.repair_weight:.3g}"]
    return []


def _label(status: Status, optimum: Optimum, gap: float | None, expect_bound: bool,
           solver: str, notes: list[str]) -> tuple[Status, Optimum]:
    """Status and optimum label from the certified gap (appends the reasons to notes)."""
    if status is Status.INACCURATE and gap is not None and gap <= GAP_TOL:
        notes.append(f"{solver} reported an inaccurate solution; the returned matrix is "
                     f"certified within a relative gap of {gap:.2g}")
        status = Status.OPTIMAL
    if optimum == "global" and status is Status.OPTIMAL:
        if gap is None and expect_bound:
            optimum = Optimum.SOLVER_REPORTED
            notes.append("no independent bound on the optimum (a program without a bound "
                         "recomputed from its data, or a variable without bounds): "
                         "optimality is the solver's word")
        elif gap is not None and gap > GAP_TOL:
            status = Status.INACCURATE
            notes.append(f"certified relative optimality gap {gap:.3g} exceeds {GAP_TOL:g}: "
                         "a better mechanism may exist")
    if optimum == "global" and status is not Status.OPTIMAL:
        optimum = Optimum.NOT_CERTIFIED  # the global program's best point so far
    return status, optimum


def unsolved_result(spec: ProblemSpec, status: Status, solver: str, formulation: str,
                    build_time: float, solve_time: float, notes: Sequence[str],
                    error: str = "", optimum: Optimum = Optimum.GLOBAL) -> DesignResult:
    """A result without a mechanism (infeasible, unbounded, solver error): ``mechanism``
    raises the typed error that ``status`` and ``error`` call for."""
    return DesignResult(status=status, value=None, solver_value=None, optimum=Optimum(optimum),
                        certificate=None, duals={}, solver=solver, formulation=formulation,
                        build_time=build_time, solve_time=solve_time, notes=tuple(notes),
                        user_constraints=tuple(spec.constraints), _unavailable=error)


def analytic_result(spec: ProblemSpec, value: float, epsilon: float, formulation: str,
                    solve_time: float, structure: dict, method: str, note: str,
                    unavailable: str, oracle: FrequencyOracle) -> DesignResult:
    """A closed-form optimum whose mechanism is too large to write as a matrix: the value,
    the family in ``structure``, the structured mechanism ``oracle`` and its certificate
    (the oracle's exact epsilon as implemented; ``mechanism`` raises ``SizeLimitError``
    with ``unavailable``)."""
    achieved = oracle.epsilon_exact
    cert = Certificate(notion=spec.privacy.describe(), target=epsilon, achieved=achieved,
                       met=achieved <= epsilon, tolerance=0.0, repair="none",
                       repair_weight=0.0, value_gap=0.0, method=method)
    return DesignResult(
        status=Status.OPTIMAL, value=value, solver_value=value, optimum=Optimum.GLOBAL,
        certificate=cert, duals={}, solver="closed form", formulation=formulation,
        build_time=0.0, solve_time=solve_time, gap=0.0, notes=(note,), structure=structure,
        _unavailable=unavailable, _oracle=oracle)
