"""The independent reference optimum of the fuzz harness: the naive pairwise LP of each
notion, written from the definitions and solved with ``scipy.optimize.linprog`` (see the
docstring of :mod:`mechdesign.testing.fuzz`, check 2). A witness, never a bound.

Each notion type's reading (its LP rows and its float measure) is a :class:`FuzzReference`,
registered on the notion registry as the ``fuzz_reference`` facet when this module is
imported (``register_facet(Cls, "fuzz_reference", FuzzReference(...))``, at the end of the
module); the harness asks :func:`fuzz_reference` and never branches on the notion's type."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

from ..design.problem import DesignProblem
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from ..privacy import measures
from ..privacy.notions import (
    LDP,
    SLDP,
    WLDP,
    ApproxLDP,
    DeletionLDP,
    MetricDP,
    Notion,
    notion_facet,
    register_facet,
)
from ..privacy.verify import verify_exact
from .cases import REFERENCE_OBJECTIVES, Built, Case

__all__ = [
    "REF_HIGH_LOG_RATIO",
    "REF_MARGINS",
    "REF_MAX_LOG_RATIO",
    "REF_TIME_LIMIT",
    "FuzzReference",
    "Reference",
    "effective_loss",
    "exact_check",
    "fuzz_reference",
    "objective_value",
    "reference_lp",
    "unit_range",
]

REF_MARGINS = ((1e-9, 1e-7), (1e-6, 1e-5), (1e-4, 1e-3))
"""Relative (epsilon, delta) margins of the reference LP, tried in turn until its cleaned
matrix verifies exactly."""

REF_MAX_LOG_RATIO = 20.0
"""Ratio coefficients of the reference LP are capped at ``e^20`` (stronger constraints)."""

REF_HIGH_LOG_RATIO = 30.0
"""The cap of a second attempt when some coefficient exceeds ``e^20``."""

REF_TIME_LIMIT = 20.0
"""HiGHS time limit of one reference LP, seconds."""



# ------------------------------------------------------------------------------ reference
def _shortest_paths(G: nx.Graph, k: int) -> np.ndarray:
    """All-pairs shortest paths of a weighted graph on nodes 0..k-1 (Floyd-Warshall)."""
    D = np.full((k, k), np.inf)
    np.fill_diagonal(D, 0.0)
    for u, v, w in G.edges(data="weight", default=1.0):
        D[u, v] = D[v, u] = min(D[u, v], float(w))
    for w in range(k):
        D = np.minimum(D, D[:, w:w + 1] + D[w:w + 1, :])
    return D


def _masks(problem: DesignProblem) -> tuple[list[int], int]:
    """Bit mask (over the output labels) of each message, and the number of labels."""
    index = {y: i for i, y in enumerate(problem.outputs)}
    return [sum(1 << index[y] for y in B) for B in problem.focal_sets], len(problem.outputs)


class _LP:
    """A sparse LP ``min c.x`` with ``A_ub x <= b_ub``, ``A_eq x = b_eq``; the first
    ``k n`` variables are ``Q`` (row-major), all variables ``>= 0`` unless freed."""

    def __init__(self, k: int, n: int, cap: float = 20.0) -> None:
        self.k, self.n, self.nvar, self.cap = k, n, k * n, cap
        self.ub: list[tuple[list[int], list[float], float]] = []
        self.eq: list[tuple[list[int], list[float], float]] = []
        self.free: list[int] = []
        self.c: dict[int, float] = {}

    def q(self, x: int, y: int) -> int:
        return x * self.n + y

    def new(self, count: int) -> int:
        start = self.nvar
        self.nvar += count
        return start

    def solve(self) -> Any:
        def mat(rows: list) -> tuple[Any, np.ndarray] | tuple[None, None]:
            if not rows:
                return None, None
            r = [i for i, (cols, _, _) in enumerate(rows) for _ in cols]
            c = [j for cols, _, _ in rows for j in cols]
            v = [a for _, vals, _ in rows for a in vals]
            A = coo_matrix((v, (r, c)), shape=(len(rows), self.nvar)).tocsr()
            return A, np.array([b for _, _, b in rows])

        A_ub, b_ub = mat(self.ub)
        A_eq, b_eq = mat(self.eq)
        c = np.zeros(self.nvar)
        for j, v in self.c.items():
            c[j] += v
        bounds = np.zeros((self.nvar, 2))
        bounds[:, 1] = np.inf
        bounds[self.free, 0] = -np.inf
        return linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds,
                       method="highs", options={"time_limit": REF_TIME_LIMIT,
                                                "primal_feasibility_tolerance": 1e-10,
                                                "dual_feasibility_tolerance": 1e-10})


def _coef(a: float, cap: float) -> float:
    return math.exp(min(a, cap))


def _pairwise(lp: _LP, rows_of: Any, count: int, log_ratio: Any) -> None:
    """``A_j(x) <= e^{log_ratio(x, x')} A_j(x')`` for ordered pairs x != x' and j < count,
    where ``rows_of(x, j)`` lists the Q entries summed in ``A_j(x)``; ``log_ratio`` None
    skips the pair."""
    for x, xp in itertools.permutations(range(lp.k), 2):
        a = log_ratio(x, xp)
        if a is None:
            continue
        c = _coef(a, lp.cap)
        for j in range(count):
            left, right = rows_of(x, j), rows_of(xp, j)
            lp.ub.append((left + right, [1.0] * len(left) + [-c] * len(right), 0.0))


def _column(lp: _LP) -> Callable[[int, int], list[int]]:
    """``A_y(x) = Q[x, y]``: one column of Q per constraint family."""
    return lambda x, y: [lp.q(x, y)]


def _ordered_pairs(k: int, pairs: tuple | None) -> set[tuple[int, int]]:
    """Every ordered pair of distinct inputs (``pairs`` None), or both orders of ``pairs``
    (row indices, as the fuzz cases give them)."""
    if pairs is None:
        return set(itertools.permutations(range(k), 2))
    return {p for x, xp in pairs for p in ((x, xp), (xp, x))}


def _events(problem: DesignProblem) -> tuple[list[list[int]], list[list[int]]]:
    """For every non-empty event E over the output labels: the messages inside E (its
    belief) and the messages meeting E (its plausibility)."""
    masks, m = _masks(problem)
    events = range(1, 1 << m)
    inside = [[j for j, b in enumerate(masks) if b & ~E == 0] for E in events]
    meets = [[j for j, b in enumerate(masks) if b & E] for E in events]
    return inside, meets


def _ldp_rows(lp: _LP, problem: DesignProblem, notion: Any, eps: float,
              delta: float) -> None:
    """Pure LDP: ``Q[x, y] <= e^eps Q[x', y]`` for all ordered pairs and columns."""
    _pairwise(lp, _column(lp), lp.n, lambda x, xp: eps)


def _approx_ldp_rows(lp: _LP, problem: DesignProblem, notion: ApproxLDP, eps: float,
                     delta: float) -> None:
    """ApproxLDP on its neighbouring ordered pairs: LDP's ratio rows when ``delta = 0``,
    else a slack ``s[x, x', y] >= Q[x, y] - e^eps Q[x', y]``, ``s >= 0``, ``sum_y s <=
    delta`` per pair."""
    near = _ordered_pairs(lp.k, notion.pairs)
    if notion.delta == 0.0:
        _pairwise(lp, _column(lp), lp.n, lambda x, xp: eps if (x, xp) in near else None)
        return
    n, c = lp.n, _coef(eps, lp.cap)
    for x, xp in sorted(near):
        s = lp.new(n)
        for y in range(n):
            lp.ub.append(([lp.q(x, y), lp.q(xp, y), s + y], [1.0, -c, -1.0], 0.0))
        lp.ub.append((list(range(s, s + n)), [1.0] * n, delta))


def _deletion_rows(lp: _LP, problem: DesignProblem, notion: DeletionLDP, eps: float,
                   delta: float) -> None:
    """DeletionLDP: a free reference distribution r with ``e^-eps r_y <= Q[x, y] <=
    e^eps r_y`` (delta = 0), or hockey-stick slacks both ways with sums <= delta."""
    k, n, c = lp.k, lp.n, _coef(eps, lp.cap)
    r = lp.new(n)
    lp.eq.append((list(range(r, r + n)), [1.0] * n, 1.0))
    if notion.delta == 0.0:
        for x in range(k):
            for y in range(n):
                lp.ub.append(([lp.q(x, y), r + y], [1.0, -c], 0.0))
                lp.ub.append(([r + y, lp.q(x, y)], [1.0, -c], 0.0))
        return
    for x in range(k):
        up, down = lp.new(n), lp.new(n)
        for y in range(n):
            lp.ub.append(([lp.q(x, y), r + y, up + y], [1.0, -c, -1.0], 0.0))
            lp.ub.append(([r + y, lp.q(x, y), down + y], [1.0, -c, -1.0], 0.0))
        lp.ub.append((list(range(up, up + n)), [1.0] * n, delta))
        lp.ub.append((list(range(down, down + n)), [1.0] * n, delta))


def _metric_distances(notion: MetricDP, k: int) -> np.ndarray:
    """The distance as given (ordered), or a graph's shortest paths (Floyd-Warshall)."""
    dist = notion.distance
    return _shortest_paths(dist, k) if isinstance(dist, nx.Graph) else np.asarray(dist)


def _metric_rows(lp: _LP, problem: DesignProblem, notion: MetricDP, eps: float,
                 delta: float) -> None:
    """MetricDP: ``Q[x, y] <= e^{eps d(x, x')} Q[x', y]`` for every ordered pair at finite
    distance, never a skeleton or a spanner."""
    D = _metric_distances(notion, lp.k)

    def log_ratio(x: int, xp: int) -> float | None:
        return None if math.isinf(D[x, xp]) else eps * float(D[x, xp])

    _pairwise(lp, _column(lp), lp.n, log_ratio)


def _sldp_rows(lp: _LP, problem: DesignProblem, notion: SLDP, eps: float,
               delta: float) -> None:
    """SLDP over the messages: the masses (LDP's rows), or the plausibilities/beliefs of
    every event, for all ordered pairs."""
    if notion.kind == "mass":
        _ldp_rows(lp, problem, notion, eps, delta)
        return
    inside, meets = _events(problem)
    table = meets if notion.kind == "pl" else inside
    _pairwise(lp, lambda x, e: [lp.q(x, j) for j in table[e]], len(inside),
              lambda x, xp: eps)


def _wldp_rows(lp: _LP, problem: DesignProblem, notion: WLDP, eps: float,
               delta: float) -> None:
    """WLDP: ``pl_x(E) <= e^eps bel_x'(E)`` for all x, x' (x = x' included) and events."""
    inside, meets = _events(problem)
    c = _coef(eps, lp.cap)
    for x, xp in itertools.product(range(lp.k), repeat=2):
        for e in range(len(inside)):
            left = [lp.q(x, j) for j in meets[e]]
            right = [lp.q(xp, j) for j in inside[e]]
            lp.ub.append((left + right, [1.0] * len(left) + [-c] * len(right), 0.0))


def _metric_largest_distance(notion: MetricDP) -> float:
    """The largest finite distance of a metric notion (shortest paths of a graph)."""
    dist = notion.distance
    D = (_shortest_paths(dist, dist.number_of_nodes()) if isinstance(dist, nx.Graph)
         else np.asarray(dist, dtype=float))
    finite = D[np.isfinite(D)]
    return float(finite.max()) if finite.size else 0.0


def _one(notion: Any) -> float:
    return 1.0


# ------------------------------------------------------------------------------ facet
@dataclass(frozen=True)
class FuzzReference:
    """The fuzz harness's independent reading of one notion type: the ``fuzz_reference``
    facet of the notion registry (:data:`~mechdesign.privacy.notions.FACETS`), registered
    per notion type at the end of this module.

    Attributes
    ----------
    privacy_rows : callable
        ``privacy_rows(lp, problem, notion, epsilon, delta)`` adds the notion's constraints,
        written from its definition (module docstring of :mod:`mechdesign.testing.fuzz`,
        check 2), to the naive LP ``lp`` at the given (margined) ``epsilon`` and ``delta``;
        ``lp.k`` inputs, ``lp.n`` columns (the messages of an evidential notion).
    float_measure : callable
        ``float_measure(notion, mechanism)``: the notion's parameter (epsilon, or delta at
        the target epsilon) from :mod:`mechdesign.privacy.measures`, called directly rather
        than through :meth:`~mechdesign.privacy.notions.Notion.measure`.
    largest_distance : callable
        ``largest_distance(notion)``: the factor of epsilon in the largest ratio
        coefficient (a metric's largest finite distance; 1 for the others). When epsilon
        times it exceeds :data:`REF_MAX_LOG_RATIO`, :func:`reference_lp` tries a second solve
        at :data:`REF_HIGH_LOG_RATIO`.
    """

    privacy_rows: Callable[[Any, DesignProblem, Any, float, float], None]
    float_measure: Callable[[Any, Any], float]
    largest_distance: Callable[[Any], float] = _one


def fuzz_reference(notion: Notion | type[Notion]) -> FuzzReference:
    """The :class:`FuzzReference` registered for the notion's type (a typed error naming
    the notion when there is none)."""
    return notion_facet(notion, "fuzz_reference")


def effective_loss(case: Case, problem: DesignProblem, loss: np.ndarray) -> np.ndarray:
    """The loss per column of the LP: Walley's reading charges a message its worst output."""
    if case.notion != "wldp_walley":
        return loss
    masks, m = _masks(problem)
    return np.stack([loss[:, [i for i in range(m) if b >> i & 1]].max(axis=1)
                     for b in masks], axis=1)


def unit_range(L: np.ndarray) -> tuple[np.ndarray, float, float]:
    """``((L - b) / a, a, b)`` with ``b = min L``, ``a = max L - min L`` (1 if 0): the loss
    in unit range. Expected and worst-case losses of a row-stochastic matrix are then
    ``a f' + b``."""
    b = float(L.min())
    a = float(L.max()) - b
    a = a if a > 0 and math.isfinite(a) else 1.0
    return (L - b) / a, a, b


def objective_value(objective: str, L: np.ndarray, prior: np.ndarray | None,
                    Q: np.ndarray) -> float:
    """The expected or worst-case loss of ``Q`` in numpy."""
    rows = (Q * L).sum(axis=1)
    return float(prior @ rows) if objective == "expected_loss" else float(rows.max())


@dataclass(frozen=True)
class Reference:
    """The reference LP's outcome (see :class:`Outcome` for ``status``)."""

    status: str
    value: float | None = None
    matrix: np.ndarray | None = None
    margin: float | None = None
    detail: str = ""


def _attempt(case: Case, built: Built, L: np.ndarray, eps_margin: float,
             delta_margin: float, cap: float, cost_scale: float) -> Reference:
    """One solve of the reference LP: margins, ratio cap and objective scale as given."""
    problem, notion = built.problem, built.notion
    k, n = L.shape
    Ls, _, _ = unit_range(L)
    lp = _LP(k, n, cap)
    for x in range(k):
        lp.eq.append(([lp.q(x, y) for y in range(n)], [1.0] * n, 1.0))
    delta = getattr(notion, "delta", 0.0) * (1 - delta_margin)
    fuzz_reference(notion).privacy_rows(lp, problem, notion,
                                        notion.epsilon * (1 - eps_margin), delta)
    if case.objective == "expected_loss":
        for x in range(k):
            for y in range(n):
                lp.c[lp.q(x, y)] = cost_scale * float(built.prior[x] * Ls[x, y])
    else:
        z = lp.new(1)
        lp.free.append(z)
        lp.c[z] = cost_scale
        for x in range(k):
            lp.ub.append(([lp.q(x, y) for y in range(n)] + [z],
                          [float(v) for v in Ls[x]] + [-1.0], 0.0))
    res = lp.solve()
    if res.status == 2:
        return Reference("infeasible", detail=f"HiGHS: {res.message}")
    if res.status != 0 or res.x is None:
        return Reference("failed", detail=f"HiGHS status {res.status}: {res.message}")
    Q = np.clip(res.x[:k * n].reshape(k, n), 0.0, None)
    sums = Q.sum(axis=1, keepdims=True)
    if not (sums > 0).all():
        return Reference("failed", detail="a row of the LP solution is all zero")
    Q = Q / sums
    if notion.evidential:
        mech: Any = EvidentialMechanism(Q, problem.focal_sets, problem.inputs,
                                           problem.outputs)
    else:
        mech = Mechanism(Q, problem.inputs, problem.outputs if n == problem.n else None)
    v = exact_check(mech, notion)
    what = f"margin {eps_margin:g}, cap e^{cap:g}, cost x{cost_scale:.3g}"
    if v.holds is not True:
        return Reference("unverified", detail=f"{what}: {v.message[:200]}")
    return Reference("verified", objective_value(case.objective, L, built.prior, Q), Q,
                     eps_margin, f"HiGHS, {what}")


def reference_lp(case: Case, built: Built) -> Reference:
    """The naive pairwise LP of ``case`` (module docstring), solved by HiGHS, cleaned and
    proved feasible by :func:`verify_exact`; ``"skipped"`` for objectives that are not
    linear.

    The first margin of :data:`REF_MARGINS` whose solution verifies is kept; at that margin
    two more solves may improve it (the best verified one is returned): the ratio cap raised
    to ``e^30`` when some coefficient exceeds ``e^20``, and, when the value is below 1e-3 in
    unit range, the objective multiplied by the inverse of that value (HiGHS's absolute
    tolerances otherwise hide differences below about 1e-10 of the loss range).
    """
    if case.objective not in REFERENCE_OBJECTIVES:
        return Reference("skipped")
    L = effective_loss(case, built.problem, built.loss)
    best = Reference("unverified")
    for eps_margin, delta_margin in REF_MARGINS:
        best = _attempt(case, built, L, eps_margin, delta_margin, REF_MAX_LOG_RATIO, 1.0)
        if best.status != "unverified":
            break
    if best.status != "verified":
        return best
    _, a, b = unit_range(L)
    eps_margin, delta_margin = next(m for m in REF_MARGINS if m[0] == best.margin)
    cap = REF_MAX_LOG_RATIO
    largest = fuzz_reference(built.notion).largest_distance(built.notion)
    if built.notion.epsilon * largest > REF_MAX_LOG_RATIO:
        more = _attempt(case, built, L, eps_margin, delta_margin, REF_HIGH_LOG_RATIO, 1.0)
        if more.status == "verified" and more.value < best.value:
            best, cap = more, REF_HIGH_LOG_RATIO
    unit_value = (best.value - b) / a
    if unit_value < 1e-3:
        scale = min(1e10, 1.0 / max(unit_value, 1e-15))
        more = _attempt(case, built, L, eps_margin, delta_margin, cap, scale)
        if more.status == "verified" and more.value < best.value:
            best = more
    return best


def exact_check(mech: Any, notion: Any) -> Any:
    """:func:`~mechdesign.privacy.verify.verify_exact` at the target with tolerance 0."""
    return verify_exact(mech, notion, tolerance=0.0)


# ------------------------------------------------------------------------------ registrations
def _approx_ldp_measure(notion: ApproxLDP, mech: Any) -> float:
    # on its neighbour relation; delta = 0 is pure LDP
    if notion.delta == 0.0:
        return measures.epsilon_ldp(mech, **notion.relation)
    return measures.delta_ldp(mech, notion.epsilon, **notion.relation)


def _deletion_measure(notion: DeletionLDP, mech: Any) -> float:
    if notion.delta == 0.0:
        return measures.epsilon_deletion(mech).epsilon
    return measures.delta_deletion(mech, notion.epsilon)


def _renyi_rows(lp: _LP, problem: DesignProblem, notion: Any, eps: float,
                delta: float) -> None:
    """Rényi LDP has no LP rows; the witness is inside it: an eps-LDP matrix has
    ``D_alpha <= D_inf <= eps`` at every order (on every pair), so LDP's ratio rows at the
    same epsilon give a feasible point (a witness, never a bound)."""
    _ldp_rows(lp, problem, notion, eps, delta)


def _composed_rows(lp: _LP, problem: DesignProblem, notion: Any, eps: float,
                   delta: float) -> None:
    """The Composed target's witness: LDP's ratio rows at the eps0 at which every
    eps0-LDP matrix composes within the target (binary RR's exact composition,
    ``pure_budget``)."""
    from ..accounting.notions import pure_budget

    _ldp_rows(lp, problem, notion, pure_budget(notion.uses, eps, delta), delta)


def _shuffled_rows(lp: _LP, problem: DesignProblem, notion: Any, eps: float,
                   delta: float) -> None:
    """The Shuffled target's witness: LDP's ratio rows at the clone bound's eps0
    (``shuffle_budget``)."""
    from ..accounting.notions import shuffle_budget

    _ldp_rows(lp, problem, notion, shuffle_budget(notion.n, eps, delta), delta)


def _register_accounting_notions() -> None:
    from ..accounting.notions import Composed, RenyiLDP, Shuffled

    register_facet(Shuffled, "fuzz_reference", FuzzReference(
        _shuffled_rows, lambda notion, mech: notion.measure(mech)))
    register_facet(RenyiLDP, "fuzz_reference", FuzzReference(
        _renyi_rows, lambda notion, mech: notion.measure(mech)))
    register_facet(Composed, "fuzz_reference", FuzzReference(
        _composed_rows, lambda notion, mech: notion.measure(mech)))


_register_accounting_notions()

for _cls, _ref in (
        (LDP, FuzzReference(_ldp_rows, lambda notion, mech: measures.epsilon_ldp(mech))),
        (ApproxLDP, FuzzReference(_approx_ldp_rows, _approx_ldp_measure)),
        (DeletionLDP, FuzzReference(_deletion_rows, _deletion_measure)),
        (MetricDP, FuzzReference(
            _metric_rows, lambda notion, mech: measures.epsilon_metric(mech, notion.distance),
            _metric_largest_distance)),
        (SLDP, FuzzReference(
            _sldp_rows, lambda notion, mech: measures.epsilon_sldp(mech, notion.kind))),
        (WLDP, FuzzReference(_wldp_rows, lambda notion, mech: measures.epsilon_wldp(mech))),
):
    register_facet(_cls, "fuzz_reference", _ref)
