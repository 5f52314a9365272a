r"""Design for a central target after repeated use (:class:`~mechdesign.accounting.notions.
Composed`): per-use problems whose composition is proven to meet the target, the better
kept, and the returned matrix's composition measured exactly.

The set of randomizers whose ``u``-fold composition is (eps, delta)-LDP is not convex in
general, so the design searches two families of convex per-use problems, each of which
implies the target:

* **pure per-use LDP** at eps0. Every eps0-LDP randomizer composes no worse than binary
  randomized response at eps0 (Kairouz, Oh and Viswanath 2015, optimal composition), so the
  largest eps0 at which binary RR's exact composition meets the target is safe for every
  design. Designs at a larger eps0 can still meet it (k-ary RR composes better than binary
  RR): the search moves eps0 up by bisection while the designed matrix's exact composition
  meets the target. k-RR calibrated to the same target (by its exact composition) is a
  candidate itself, so the design is never worse than it; the best design at k-RR's eps0
  can compose worse than k-RR (estimation designs do) and is then rejected.
* **Rényi LDP per use** at order alpha: ``u`` uses of an (alpha, r)-Rényi-LDP randomizer
  are (alpha, u r)-RDP, which converts to (eps, delta) by Canonne, Kamath and Steinke
  (2020, Prop. 12) when ``r <= renyi_budget(u, eps, delta, alpha)``. A grid of orders is
  tried, then refined around the best.

The best design (by the problem's objective) among those whose exact composed delta meets
the target is returned; its certificate is the Composed notion's, measured on the returned
matrix (:meth:`Composed.measure <mechdesign.accounting.notions.Composed.measure>`: exact
privacy-loss atoms, or the pessimistic end of a grid bracket). Every route's outcome is in
the notes and in ``structure["routes"]``. The value is optimal for the per-use notion it was
designed under, not proven optimal over all randomizers that meet the central target
(``optimum = "local"``, no gap).
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from ...accounting.notions import Composed, RenyiLDP, pure_budget, renyi_budget
from ...errors import SolverFailedError
from ...privacy.notions import LDP
from ..result import Certificate, DesignResult, Optimum, Status
from ..solvers import Deadline

if TYPE_CHECKING:
    from ..spec import ProblemSpec

__all__ = ["ORDERS", "PURE_STEPS", "RENYI_MARGIN", "Route", "central_result", "krr_matrix",
           "solve_composed"]

ORDERS = (2.0, 3.0, 5.0, 8.0, 13.0, 21.0, 34.0, 55.0, 89.0)
"""The Rényi orders of the first pass (roughly geometric); the best one is refined by the
geometric midpoints on either side."""

RENYI_MARGIN = 1.0 - 1e-6
"""The Rényi route designs at this fraction of the order's budget: the exact measure of the
central guarantee (the Rényi bound minimised over orders, when the atoms are too many) then
has room to confirm it; the value changes by about 1e-6 relative."""

PURE_STEPS = 6
"""Bisection steps of the pure route above the binary-RR epsilon (each a design and an
exact composition)."""


@dataclasses.dataclass(frozen=True)
class Route:
    """One per-use design tried: the notion, its value, the exact composed delta of its
    matrix, and whether it meets the central target."""

    notion: str
    value: float | None
    delta: float | None
    met: bool

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _better(spec: ProblemSpec, a: float, b: float) -> bool:
    return a > b if spec.objective.sense == "maximize" else a < b


def _calibrated_krr(spec: ProblemSpec, target: Composed) -> tuple[float, float, float] | None:
    """``(eps0, value, delta)`` of k-ary randomized response calibrated to the target by its
    exact composition (:func:`~mechdesign.accounting.calibration.calibrate_composition`),
    its objective value on this problem and its composed delta; None when k-RR does not fit
    the problem's outputs."""
    from ...accounting.calibration import calibrate_composition

    if spec.n < spec.k or spec.focal_sets is not None:
        return None
    cal = calibrate_composition("randomized_response", params={"k": spec.k},
                                target_epsilon=target.epsilon, target_delta=target.delta,
                                k=target.uses)
    value = float(spec.objective.evaluate(krr_matrix(spec, cal.value)))
    return float(cal.value), value, float(cal.achieved[1])


def krr_matrix(spec: ProblemSpec, eps0: float) -> np.ndarray:
    """k-RR at ``eps0`` on the problem's inputs, with zero columns appended when the problem
    has more outputs than inputs."""
    from ...catalog import randomized_response

    Q = np.zeros((spec.k, spec.n))
    Q[:, :spec.k] = randomized_response(spec.k, eps0).matrix
    return Q


def _krr_result(spec: ProblemSpec, eps0: float) -> DesignResult:
    """k-RR at ``eps0`` as a certified result of the per-use problem ``LDP(eps0)`` (zero
    columns appended when the problem has more outputs than inputs)."""
    from ..outcome import Solution, certify_solution

    Q = krr_matrix(spec, eps0)
    value = float(spec.objective.evaluate(Q))
    return certify_solution(spec.per_use(LDP(eps0)), Solution(
        Q=Q, solver_value=value, status=Status.OPTIMAL, solver="catalog",
        optimum=Optimum.CATALOG, formulation=f"catalog: k-RR at epsilon0 = {eps0!r}"))


def solve_composed(spec: ProblemSpec, solver: str | None, options: dict,
                   time_limit: float | None) -> DesignResult:
    """Design for ``spec.privacy``, a :class:`Composed` target (module docstring)."""
    target: Composed = spec.privacy  # type: ignore[assignment]
    t0 = time.perf_counter()
    routes: list[Route] = []
    best: tuple[float, DesignResult, float, str] | None = None

    deadline = Deadline(time_limit)

    def consider(name: str, res: DesignResult | None) -> float | None:
        """Measure a per-use result's composition and keep it if it is the best so far."""
        nonlocal best
        if res is None or res.value is None or res.certificate is None \
                or not res.certificate.met:
            routes.append(Route(name, None if res is None else res.value, None, False))
            return None
        delta = target.measure(res.mechanism)
        met = delta <= target.delta
        routes.append(Route(name, res.value, delta, met))
        if met and (best is None or _better(spec, res.value, best[0])):
            best = (res.value, res, delta, name)
        return delta

    def attempt(per_use: Any) -> tuple[DesignResult | None, float | None]:
        if deadline.expired:
            return None, None
        try:
            res = spec.per_use(per_use).solve(solver, time_limit=deadline.remaining(),
                                              **options)
        except SolverFailedError as exc:  # a route that runs out of time or fails is skipped
            routes.append(Route(repr(per_use), None, None, False))
            notes_failed.append(f"per-use route {per_use!r} failed: {exc}")
            return None, None
        return res, consider(repr(per_use), res)

    notes_failed: list[str] = []
    # the catalog's k-RR calibrated to the target by its exact composition (the yardstick,
    # itself a candidate), and the pure-LDP design at its eps0
    krr = _calibrated_krr(spec, target)
    if krr is not None:
        # a hair inside (1e-9 relative): the calibration sits on the target, and
        # certification may move an entry by an ulp, which can put the composition above it
        inside = krr[0] * (1 - 1e-9)
        consider(f"k-RR calibrated, epsilon0 = {inside!r}", _krr_result(spec, inside))
        attempt(LDP(inside))
    # pure route: safe eps0, then bisection upwards on the measured composition
    eps0 = pure_budget(target.uses, target.epsilon, target.delta)
    if eps0 > 0:
        attempt(LDP(eps0))
        lo, hi = eps0, max(eps0, krr[0] if krr else 0.0, target.epsilon)
        if hi > lo:
            _, d = attempt(LDP(hi))
            if d is None or d > target.delta:
                for _ in range(PURE_STEPS):
                    mid = math.sqrt(lo * hi)
                    _, d = attempt(LDP(mid))
                    if d is not None and d <= target.delta:
                        lo = mid
                    else:
                        hi = mid
    # Renyi route: a grid of orders, refined around the best
    if target.delta > 0:
        values: dict[float, float] = {}
        for alpha in ORDERS:
            r = RENYI_MARGIN * renyi_budget(target.uses, target.epsilon, target.delta, alpha)
            if r > 0:
                res, d = attempt(RenyiLDP(alpha, r))
                if d is not None and d <= target.delta and res.value is not None:
                    values[alpha] = res.value
        if values:
            top = max(values, key=lambda a: (-values[a] if spec.objective.sense != "maximize"
                                             else values[a]))
            i = ORDERS.index(top)
            for j in (i - 1, i + 1):
                if 0 <= j < len(ORDERS):
                    alpha = math.sqrt(top * ORDERS[j])
                    r = RENYI_MARGIN * renyi_budget(target.uses, target.epsilon, target.delta,
                                                    alpha)
                    if r > 0:
                        attempt(RenyiLDP(alpha, r))
    table = tuple(routes)
    notes = [*notes_failed,
             *(["stopped at the time limit: the best route so far is returned"]
               if deadline.expired else []),
             *(f"per-use route {r.notion}: value "
               f"{r.value if r.value is None else f'{r.value:.6g}'}, composed delta "
               f"{r.delta if r.delta is None else f'{r.delta:.3g}'}"
               f"{'' if r.met else ' (does not meet the target)'}" for r in table)]
    elapsed = time.perf_counter() - t0
    if best is None:
        from ..outcome import unsolved_result

        return unsolved_result(spec, Status.INFEASIBLE, solver or "default", "composed: no "
                               "per-use route met the target", 0.0, elapsed, notes,
                               error=f"no per-use design met {target.describe()}")
    if krr is not None:
        notes.append(f"k-RR calibrated to the same target: epsilon0 = {krr[0]:.6g}, value "
                     f"{krr[1]:.6g}, exact composed delta {krr[2]:.3g}")
    value, res, delta, chosen = best
    notes.append(f"chosen: {chosen}, value {value:.6g}, composed delta {delta:.3g} <= "
                 f"{target.delta:g} at epsilon {target.epsilon:g}; optimal for that per-use "
                 "notion, not proven optimal over every randomizer meeting the central target")
    how = (f"{target.uses}-fold composition of the returned matrix (exact privacy-loss atoms, "
           "or its Rényi bound)")
    extra = {"routes": [r.to_dict() for r in table], "calibrated_krr": None if krr is None
             else {"epsilon0": krr[0], "value": krr[1], "delta": krr[2]}}
    return central_result(res, target, delta, chosen, how, notes, extra, len(table), elapsed)


def central_result(res: DesignResult, target: Any, achieved: float, chosen: str, how: str,
                   notes: list[str], extra: dict, steps: int, elapsed: float
                   ) -> DesignResult:
    """The per-use design ``res`` reported against a central ``target``: the certificate
    is the target's (``achieved`` measured on the returned matrix by ``how``), with the
    per-use certificate named in its method; ``optimum = "local"`` and no gap (the per-use
    notion's optimum is not proven optimal for the central target)."""
    cert = res.certificate
    assert cert is not None
    central = Certificate(
        notion=target.describe(), target=target.delta, achieved=achieved,
        met=achieved <= target.delta, tolerance=0.0, repair=cert.repair,
        repair_weight=cert.repair_weight, value_gap=cert.value_gap,
        method=f"{how}; designed under {chosen}, certified for it: {cert.method}",
        exact=achieved <= target.delta)
    return dataclasses.replace(
        res, certificate=central, optimum=Optimum.LOCAL, gap=None, notes=(*res.notes, *notes),
        structure={**res.structure, **extra, "chosen": chosen},
        counts={**res.counts, "steps": steps}, solve_time=elapsed,
        formulation=f"{target.name} target via {chosen}: {res.formulation}")
