r"""The cvxpy face of each privacy notion: one formulation registered per notion type.

A notion (a frozen value of :mod:`mechdesign.privacy.notions`) knows nothing of cvxpy. This
module compiles it: :func:`formulate` looks up the formulation registered for the notion's
type (the way cvxpy attaches a canonicalisation to each atom) and calls it with a typed
:class:`BuildContext`; the result is a typed :class:`Formulation` (the design variable ``Q``,
the privacy constraints, the setters of a parametric build and what the build measured).
Nothing is mutated on the way in or out. The derivations (offset form, the exact coefficient
split, the reference-free pure deletion LDP, metric skeletons and spanners, events of
belief functions) are in ``docs/formulations.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp
import numpy as np
from scipy import sparse

from .._subsets import meets_indicator, subset_indicator
from ..accounting.notions import Composed, RenyiLDP, Shuffled, pure_budget, shuffle_budget
from ..errors import InvalidParameterError
from ..neighbors import ordered_pairs
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
from .symmetry import Symmetry, check_invariant

MAX_LOG_RATIO = 20.0
"""Largest coefficient e^a written into a constraint. A ratio bound ``X <= e^c Y`` with
``c > 20`` is written ``e^{20 - c} X <= e^20 Y`` (both sides multiplied by ``e^{20 - c}``):
the same constraint, exact for every c, with no coefficient above e^20 (4.9e8); larger
coefficients wreck the solvers' scaling. A solver may drop a left coefficient below its
small-value threshold (HiGHS: 1e-9, i.e. c > 40.7); that only loosens the solver's problem,
and certification (re-measure, repair, dual bound on the exact data) reports what the
returned matrix achieves."""


@dataclass(frozen=True)
class BuildContext:
    """What a formulation needs to know about the problem besides the notion.

    ``k`` inputs and ``n`` columns (outputs, or messages for evidential notions); the input
    labels; the symmetry group of a reduced build; the focal sets' bit masks and the number
    of output labels (evidential notions); ``parametric``: every epsilon-dependent
    coefficient becomes a cvxpy Parameter (a frontier moves them with the setters).
    """

    k: int
    n: int
    inputs: tuple
    symmetry: Symmetry | None = None
    focal_masks: np.ndarray | None = None
    n_labels: int | None = None
    parametric: bool = False


@dataclass(frozen=True)
class Formulation:
    """A compiled notion: ``Q`` (an affine expression of shape ``(k, n)``), the privacy
    constraints, the setters that move every epsilon-dependent coefficient of a parametric
    build to a new epsilon, and what the build measured (for the result's notes)."""

    Q: cp.Expression
    constraints: tuple = ()
    setters: tuple[Callable[[float], None], ...] = ()
    n_pairs: int | None = None
    dilation: float | None = None
    n_rows: int | None = None
    relax: Callable[[np.ndarray], list] | None = None
    """For a conic formulation: ``relax(Q0)``, linear constraints implied by the privacy
    constraints for every Q (tangent planes at the point ``Q0``). With them in place of the
    cones, an LP's optimum is a lower bound on the program's, and its dual bound is
    recomputed from the data (:mod:`~mechdesign.design.program`)."""


@dataclass(frozen=True)
class _Rule:
    formulate: Callable[[Any, BuildContext, Any], Formulation]
    n_nonzeros: Callable[[Any, BuildContext, Any], int]
    prepare: Callable[[Any, BuildContext], Any] | None


def formulation(notion_type: type[Notion], n_nonzeros: Callable[[Any, BuildContext, Any], int],
                prepare: Callable[[Any, BuildContext], Any] | None = None) -> Callable:
    """Decorator: register ``fn(notion, context, plan) -> Formulation`` as the formulation of
    ``notion_type``. ``prepare(notion, context)`` computes once what both the size estimate
    and the formulation need (the plan; None by default), and ``n_nonzeros(notion, context,
    plan)`` estimates the nonzeros the formulation puts in the constraint matrix: the design
    refuses problems whose estimated memory exceeds the budget before building anything
    (the estimates are checked against cvxpy's compiled data in the tests)."""
    def register(fn: Callable[[Any, BuildContext, Any], Formulation]) -> Callable:
        register_facet(notion_type, "formulation", _Rule(fn, n_nonzeros, prepare))
        return fn
    return register


def _rule(notion: Notion) -> _Rule:
    """The formulation facet of the notion's type (:func:`~mechdesign.privacy.notions.
    notion_facet`: a typed error naming the notion when none is registered)."""
    return notion_facet(notion, "formulation")


def formulate(notion: Notion, context: BuildContext,
              check_size: Callable[[int], None] | None = None) -> Formulation:
    """The formulation of ``notion`` registered for its type; ``check_size`` is called with
    the estimated nonzeros first (it raises to refuse the build)."""
    rule = _rule(notion)
    plan = rule.prepare(notion, context) if rule.prepare else None
    if check_size is not None:
        check_size(rule.n_nonzeros(notion, context, plan))
    return rule.formulate(notion, context, plan)


def estimated_nonzeros(notion: Notion, context: BuildContext) -> int:
    """The registered estimate of the constraint matrix's nonzeros."""
    rule = _rule(notion)
    plan = rule.prepare(notion, context) if rule.prepare else None
    return rule.n_nonzeros(notion, context, plan)


# ---------------------------------------------------------------------- coefficients
def split_exp(c: Any) -> tuple[Any, Any]:
    """``(l, r)`` with ``r / l = e^c`` and ``max(l, r) <= e^MAX_LOG_RATIO``, elementwise:
    ``X <= e^c Y`` is written ``l X <= r Y``."""
    c = np.asarray(c, dtype=float)
    return np.exp(-np.maximum(c - MAX_LOG_RATIO, 0.0)), np.exp(np.minimum(c, MAX_LOG_RATIO))


def capped_exp(a: Any) -> Any:
    """``exp(min(a, MAX_LOG_RATIO))``, elementwise (only where the cap cannot bind)."""
    return np.exp(np.minimum(a, MAX_LOG_RATIO))


@dataclass
class Coefficients:
    """Builds the epsilon-dependent coefficients of one formulation: constants, or cvxpy
    Parameters with a setter each when ``parametric`` (local to one build; the setters are
    handed out in the :class:`Formulation`)."""

    epsilon: float
    parametric: bool
    setters: list[Callable[[float], None]] = field(default_factory=list)

    def __call__(self, fn: Callable[[float], Any]) -> Any:
        """``fn(epsilon)``: a constant, or a Parameter that a setter moves to ``fn(eps)``."""
        value = fn(self.epsilon)
        if not self.parametric:
            return value
        p = cp.Parameter(np.shape(value), nonneg=True, value=value)
        self.setters.append(lambda eps: setattr(p, "value", fn(eps)))
        return p

    def exp(self, scale: float = 1.0) -> Any:
        """``e^{scale eps}`` (capped at ``e^MAX_LOG_RATIO``)."""
        return self(lambda e: float(capped_exp(scale * e)))

    def ratio(self, scale: Any = 1.0) -> tuple[Any, Any]:
        """``split_exp(scale * eps)``: the two sides of ``X <= e^{scale eps} Y``."""
        return (self(lambda e: split_exp(np.multiply(scale, e))[0]),
                self(lambda e: split_exp(np.multiply(scale, e))[1]))

    def done(self, Q: cp.Expression, constraints: list, **measured: Any) -> Formulation:
        return Formulation(Q, tuple(constraints), tuple(self.setters), **measured)


TANGENT_LOG_RANGE = 50.0
"""The tangent points of :func:`renyi_tangents` take ratios ``t`` with
``-50 <= ln t - eps <= 50 / (alpha - 1)`` (any t gives a valid cut; clipping keeps every
coefficient finite)."""


def renyi_tangents(Q: cp.Expression, a: np.ndarray, b: np.ndarray, alpha: float,
                   epsilon: float) -> Callable[[np.ndarray], list]:
    r"""``relax(Q0)`` for Rényi LDP: for each constrained ordered pair ``(x, x')`` one linear
    cut implied by the constraint for EVERY Q.

    ``f(p, r) = p^alpha r^(1 - alpha)`` is convex and positively homogeneous, so it lies
    above its tangent plane through the origin at any ratio ``t = p / r``:
    ``f(p, r) >= alpha t^(alpha - 1) p + (1 - alpha) t^alpha r``. Summing over outputs at
    the ratios of ``Q0`` (clipped, :data:`TANGENT_LOG_RANGE`) and dividing by
    ``e^{(alpha - 1) eps}``:
    ``sum_y alpha (t_y e^-eps)^(alpha - 1) Q[x, y] + (1 - alpha) t_y (t_y e^-eps)^(alpha - 1)
    Q[x', y] <= 1``. At alpha = 1 (``p ln(p/r) >= (ln t + 1) p - t r``):
    ``sum_y (ln t_y + 1) Q[x, y] - t_y Q[x', y] <= eps``."""
    def relax(Q0: np.ndarray) -> list:
        with np.errstate(divide="ignore", invalid="ignore"):
            logt = np.log(np.clip(Q0[a, :], 1e-300, None)) - np.log(
                np.clip(Q0[b, :], 1e-300, None))
        # (alpha - 1)(ln t - eps) at most TANGENT_LOG_RANGE: every coefficient finite
        top = TANGENT_LOG_RANGE / max(alpha - 1.0, 1.0)
        logt = np.clip(logt, epsilon - TANGENT_LOG_RANGE, epsilon + top)
        if alpha == 1.0:
            return [cp.sum(cp.multiply(logt + 1.0, Q[a, :])
                           - cp.multiply(np.exp(logt), Q[b, :]), axis=1) <= epsilon]
        scaled = np.exp((alpha - 1.0) * (logt - epsilon))
        cp_ = alpha * scaled
        cr = (1.0 - alpha) * np.exp(logt) * scaled
        return [cp.sum(cp.multiply(cp_, Q[a, :]) + cp.multiply(cr, Q[b, :]), axis=1) <= 1.0]
    return relax


def outer_ones(k: int, t: cp.Expression) -> cp.Expression:
    """The ``(k, n)`` expression whose every row is the vector ``t``."""
    return np.ones((k, 1)) @ cp.reshape(t, (1, t.shape[0]), order="C")


def offset_form(k: int, n: int, coef: Coefficients, scale: float = 1.0
                ) -> tuple[cp.Expression, list, cp.Variable]:
    r"""Column-ratio constraints ``t_y <= Q[x, y] <= e^a t_y`` (``a = scale * epsilon``) in
    offset form: ``Q = 1 t^T + U`` with ``0 <= U`` and ``l U <= (r - l) t``, where
    ``(l, r) = split_exp(a)`` (exact for every a). k n inequality rows plus bounds, instead of
    the 2 k n of the two-sided form or the k^2 n of the pairwise form
    (``docs/formulations.md``)."""
    left = coef(lambda e: float(split_exp(scale * e)[0]))
    excess = coef(lambda e: float(np.subtract(*split_exp(scale * e)[::-1])))
    U = cp.Variable((k, n), nonneg=True, name="U")
    t = cp.Variable(n, nonneg=True, name="t")
    T = outer_ones(k, t)
    return T + U, [left * U <= excess * T], t


def _offset_nonzeros(notion: Any, ctx: BuildContext, plan: Any) -> int:
    return 4 * ctx.k * ctx.n


# ---------------------------------------------------------------------- LDP and ApproxLDP
@formulation(LDP, _offset_nonzeros)
def formulate_ldp(notion: LDP, ctx: BuildContext, plan: Any = None) -> Formulation:
    """Pure LDP, column-wise in offset form (one auxiliary per column), exact."""
    coef = Coefficients(notion.epsilon, ctx.parametric)
    Q, cons, _ = offset_form(ctx.k, ctx.n, coef)
    return coef.done(Q, cons)


def approx_pairs(notion: ApproxLDP, ctx: BuildContext) -> tuple[np.ndarray, np.ndarray] | None:
    """The ordered neighbouring pairs ``(a, b)`` of the notion's relation (both orders of
    each pair), or None for every pair of inputs."""
    relation = notion.neighbours(ctx.inputs)
    return None if relation is None else ordered_pairs(*relation)


def _approx_nonzeros(notion: ApproxLDP, ctx: BuildContext,
                     plan: tuple[np.ndarray, np.ndarray] | None) -> int:
    if plan is not None and notion.delta == 0.0:  # per ordered pair: n ratio rows of 2
        return 2 * len(plan[0]) * ctx.n + 2 * ctx.k * ctx.n
    if plan is not None:  # per ordered pair: n slack rows of 3 entries and a sum of n
        return 5 * len(plan[0]) * ctx.n
    return 4 * ctx.k * ctx.n if notion.delta == 0.0 else 5 * ctx.k * (ctx.k - 1) * ctx.n


@formulation(ApproxLDP, _approx_nonzeros, approx_pairs)
def formulate_approx_ldp(notion: ApproxLDP, ctx: BuildContext,
                         plan: tuple[np.ndarray, np.ndarray] | None = None) -> Formulation:
    """Slacks ``s[x, x', y] >= Q[x, y] - e^eps Q[x', y]``, ``s >= 0``, row sums <= delta
    (with ``delta = 0``: the LDP formulation), for every ordered pair or, with a neighbour
    relation, for both orders of each neighbouring pair only (``delta = 0``: the ratio
    bounds ``Q[x, y] <= e^eps Q[x', y]`` of those pairs)."""
    if plan is not None:
        return _formulate_approx_pairs(notion, ctx, *plan)
    if notion.delta == 0.0:
        return formulate_ldp(LDP(notion.epsilon), ctx)
    k, n = ctx.k, ctx.n
    coef = Coefficients(notion.epsilon, ctx.parametric)
    Q = cp.Variable((k, n), nonneg=True, name="Q")
    lf, rf = coef.ratio()
    cons = []
    for x in range(k):
        others = [i for i in range(k) if i != x]
        S = cp.Variable((k - 1, n), nonneg=True)
        # S >= Q_x - e^eps Q_x', both sides times lf (exact, see MAX_LOG_RATIO)
        cons += [lf * S >= lf * outer_ones(k - 1, Q[x, :]) - rf * Q[others, :],
                 cp.sum(S, axis=1) <= notion.delta]
    return coef.done(Q, cons)


def _formulate_approx_pairs(notion: ApproxLDP, ctx: BuildContext, a: np.ndarray,
                            b: np.ndarray) -> Formulation:
    """The constraints of :func:`formulate_approx_ldp` on the ordered pairs ``(a_i, b_i)``:
    one slack row per pair and output, vectorised (``docs/formulations.md``)."""
    k, n = ctx.k, ctx.n
    coef = Coefficients(notion.epsilon, ctx.parametric)
    Q = cp.Variable((k, n), nonneg=True, name="Q")
    lf, rf = coef.ratio()
    measured = {"n_pairs": len(a) // 2}
    if notion.delta == 0.0:
        return coef.done(Q, [lf * Q[a, :] <= rf * Q[b, :]], **measured)
    S = cp.Variable((len(a), n), nonneg=True, name="hockey_stick")
    # S >= Q_x - e^eps Q_x', both sides times lf (exact, see MAX_LOG_RATIO)
    return coef.done(Q, [lf * S >= lf * Q[a, :] - rf * Q[b, :],
                         cp.sum(S, axis=1) <= notion.delta], **measured)


# ---------------------------------------------------------------------- deletion LDP
def _deletion_nonzeros(notion: DeletionLDP, ctx: BuildContext, plan: Any) -> int:
    k, n = ctx.k, ctx.n
    return 6 * k * n + 2 * n if notion.delta == 0.0 else 10 * k * n + n


@formulation(DeletionLDP, _deletion_nonzeros)
def formulate_deletion_ldp(notion: DeletionLDP, ctx: BuildContext, plan: Any = None
                           ) -> Formulation:
    """Deletion LDP: hockey-stick slacks against a free reference distribution r; with
    ``delta = 0`` the reference-free form of :func:`formulate_pure_deletion`."""
    if notion.delta == 0.0:
        return formulate_pure_deletion(notion, ctx)
    k, n = ctx.k, ctx.n
    coef = Coefficients(notion.epsilon, ctx.parametric)
    Q = cp.Variable((k, n), nonneg=True, name="Q")
    r = cp.Variable(n, nonneg=True, name="reference")
    R = outer_ones(k, r)
    lf, rf = coef.ratio()
    up = cp.Variable((k, n), nonneg=True)
    down = cp.Variable((k, n), nonneg=True)
    cons = [cp.sum(r) == 1, lf * up >= lf * Q - rf * R, lf * down >= lf * R - rf * Q,
            cp.sum(up, axis=1) <= notion.delta, cp.sum(down, axis=1) <= notion.delta]
    return coef.done(Q, cons)


def formulate_pure_deletion(notion: DeletionLDP, ctx: BuildContext) -> Formulation:
    r"""delta = 0 without the reference as a variable.

    A reference ``r`` with ``e^-eps r_y <= Q[x, y] <= e^eps r_y`` and ``sum r = 1`` exists
    iff (i) every column has ``max_x Q / min_x Q <= e^{2 eps}``, (ii)
    ``sum_y min_x Q[x, y] >= e^-eps`` and (iii) ``sum_y max_x Q[x, y] <= e^eps``. So: offset
    form ``t_y <= Q[x, y] <= e^{2 eps} t_y`` with ``sum t >= e^-eps``, and (iii) through
    column maxima ``u`` only when it can bind, i.e. ``e^eps < min(k, n)``
    (``sum_y max_x Q <= min(k, n)`` always); ``docs/formulations.md``.
    """
    k, n = ctx.k, ctx.n
    coef = Coefficients(notion.epsilon, ctx.parametric)
    Q, cons, t = offset_form(k, n, coef, 2.0)
    cons.append(cp.sum(t) >= coef.exp(-1.0))
    if ctx.parametric or np.exp(notion.epsilon) < min(k, n):
        u = cp.Variable(n, nonneg=True, name="column_max")
        cons += [Q <= outer_ones(k, u), cp.sum(u) <= coef.exp()]
    return coef.done(Q, cons)


# ---------------------------------------------------------------------- metric privacy
def metric_edges(notion: MetricDP, ctx: BuildContext) -> tuple[list, float]:
    """The constrained pairs and the epsilon divisor (:meth:`MetricDP.edges`), closed under
    the build's symmetry: the union of the pairs' orbits (still a t-spanner, its dilation
    re-measured; for the skeleton and a graph the added pairs are implied by chaining)."""
    edges, dilation = notion.edges(ctx.inputs)
    if ctx.symmetry is None:
        return edges, dilation
    D = notion.distances(ctx.inputs)
    check_invariant("distance", D, ctx.symmetry, "ii")
    closed = ctx.symmetry.symmetrize_edges(edges, D)
    if notion.spanner is not None and len(closed) > len(edges):
        dilation = notion.dilation(ctx.inputs, closed)
    return closed, dilation


def _metric_nonzeros(notion: MetricDP, ctx: BuildContext, plan: tuple[list, float]) -> int:
    edges, _ = plan
    pairs = 4 * len(edges) * ctx.n + 2 * ctx.k * ctx.n  # 2 directions x n columns x 2 + rows
    return pairs if ctx.symmetry is None else max(1, pairs // ctx.symmetry.order)


@formulation(MetricDP, _metric_nonzeros, metric_edges)
def formulate_metric(notion: MetricDP, ctx: BuildContext, plan: tuple[list, float]
                     ) -> Formulation:
    """``l Q[a] <= r Q[b]`` for both directions of every constrained pair (exact by
    chaining; a spanner divides epsilon by its measured dilation)."""
    k, n = ctx.k, ctx.n
    edges, dilation = plan
    a, b, d = notion.directed_pairs(ctx.inputs, edges, dilation)
    coef = Coefficients(notion.epsilon, ctx.parametric)
    measured = {"n_pairs": len(edges),
                "dilation": dilation if notion.spanner is not None else None}
    if ctx.symmetry is not None:
        return _formulate_reduced(ctx, ctx.symmetry, a, b, d, coef, measured)
    Q = cp.Variable((k, n), nonneg=True, name="Q")
    if not len(a):
        return coef.done(Q, [], **measured)
    lf, rf = coef.ratio(d[:, None])
    return coef.done(Q, [cp.multiply(lf, Q[a, :]) <= cp.multiply(rf, Q[b, :])], **measured)


def _formulate_reduced(ctx: BuildContext, sym: Symmetry, a: np.ndarray, b: np.ndarray,
                       d: np.ndarray, coef: Coefficients, measured: dict) -> Formulation:
    """One variable per orbit of entries, one privacy row per orbit of the triples
    ``(x, x', y)`` (:mod:`~mechdesign.design.symmetry`)."""
    left, right, i = sym.pair_rows(a, b)
    return orbit_ratio_rows(ctx.k, ctx.n, sym, left, right, d[i], coef, **measured)


def orbit_ratio_rows(k: int, n: int, sym: Symmetry | None, left: np.ndarray,
                     right: np.ndarray, d: np.ndarray, coef: Coefficients,
                     **measured: Any) -> Formulation:
    """``Q`` on one variable ``z`` per orbit of entries (``sym.orbit``; per entry, row-major,
    without a group) and the rows ``l z[left_i] <= r z[right_i]`` with ``r / l =
    e^{eps d_i}``; rows whose two sides are one variable hold (``d >= 0``) and are
    dropped. Shared by the symmetry-reduced metric build and row generation."""
    n_orbits = k * n if sym is None else sym.n_orbits
    z = cp.Variable(n_orbits, nonneg=True, name="Q" if sym is None else "Q_orbits")
    if sym is None:
        Q = cp.reshape(z, (k, n), order="C")
    else:
        P = sparse.csr_matrix((np.ones(k * n), (np.arange(k * n), sym.orbit.ravel())),
                              shape=(k * n, n_orbits))
        Q = cp.reshape(P @ z, (k, n), order="C")
    useful = left != right
    left, right, d = left[useful], right[useful], d[useful]
    if not len(left):
        return coef.done(Q, [], n_rows=0, **measured)
    rows = np.arange(len(left))
    ones = np.ones(len(left))
    Lsel = sparse.csr_matrix((ones, (rows, left)), shape=(len(left), n_orbits))
    Rsel = sparse.csr_matrix((ones, (rows, right)), shape=(len(left), n_orbits))
    lf, rf = coef.ratio(d)
    return coef.done(Q, [cp.multiply(lf, Lsel @ z) <= cp.multiply(rf, Rsel @ z)],
                     n_rows=len(left), **measured)


# ---------------------------------------------------------------------- belief functions
def event_matrices(focal_masks: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Indicator matrices (F, E) for bel and pl over the events E = all but {} and Y."""
    events = np.arange(1, (1 << m) - 1)
    sub = subset_indicator(focal_masks, m)[:, events].astype(float)
    meets = meets_indicator(focal_masks, m)[:, events].astype(float)
    return sub, meets


def _evidential_context(ctx: BuildContext) -> tuple[np.ndarray, int]:
    if ctx.focal_masks is None or ctx.n_labels is None:
        raise InvalidParameterError("an evidential notion needs the focal sets of the design")
    return ctx.focal_masks, ctx.n_labels


def _sldp_nonzeros(notion: SLDP, ctx: BuildContext, plan: Any) -> int:
    if notion.kind == "mass":
        return 4 * ctx.k * ctx.n
    _, m = _evidential_context(ctx)
    return ctx.k * ctx.n * 2 ** m + 4 * ctx.k * 2 ** m


@formulation(SLDP, _sldp_nonzeros)
def formulate_sldp(notion: SLDP, ctx: BuildContext, plan: Any = None) -> Formulation:
    """Mass SLDP: pure LDP over the messages (offset form); pl/bel SLDP: the same for the
    plausibilities/beliefs of every event, linear maps of the masses (one auxiliary per
    event)."""
    k, n = ctx.k, ctx.n
    coef = Coefficients(notion.epsilon, ctx.parametric)
    if notion.kind == "mass":
        Q, cons, _ = offset_form(k, n, coef)
        return coef.done(Q, cons)
    masks, m = _evidential_context(ctx)
    lf, rf = coef.ratio()
    M = cp.Variable((k, n), nonneg=True, name="masses")
    sub, meets = event_matrices(masks, m)
    A = M @ (sub if notion.kind == "bel" else meets)
    t = cp.Variable(A.shape[1], nonneg=True)
    T = outer_ones(k, t)
    return coef.done(M, [A >= T, lf * A <= rf * T])


def _wldp_nonzeros(notion: WLDP, ctx: BuildContext, plan: Any) -> int:
    _, m = _evidential_context(ctx)
    return 2 * ctx.k * ctx.n * 2 ** m + 4 * ctx.k * 2 ** m


@formulation(WLDP, _wldp_nonzeros)
def formulate_wldp(notion: WLDP, ctx: BuildContext, plan: Any = None) -> Formulation:
    """One auxiliary per event: ``t_E <= bel_x(E)`` and ``pl_x(E) <= e^eps t_E``."""
    k, n = ctx.k, ctx.n
    masks, m = _evidential_context(ctx)
    coef = Coefficients(notion.epsilon, ctx.parametric)
    M = cp.Variable((k, n), nonneg=True, name="masses")
    sub, meets = event_matrices(masks, m)
    t = cp.Variable(sub.shape[1], nonneg=True)
    T = outer_ones(k, t)
    lf, rf = coef.ratio()
    return coef.done(M, [M @ sub >= T, lf * (M @ meets) <= rf * T])


# ---------------------------------------------------------------------- Rényi LDP
def renyi_pairs(notion: RenyiLDP, ctx: BuildContext) -> tuple[np.ndarray, np.ndarray]:
    """The ordered pairs ``(a, b)`` the notion constrains (every ordered pair by default)."""
    idx = notion.index_pairs(ctx.inputs)
    if idx is None:
        a, b = np.nonzero(~np.eye(ctx.k, dtype=bool))
        return a, b
    return idx[:, 0], idx[:, 1]


def _renyi_nonzeros(notion: RenyiLDP, ctx: BuildContext,
                    plan: tuple[np.ndarray, np.ndarray]) -> int:
    return 4 * len(plan[0]) * ctx.n  # per (pair, output): one 3-D cone and a sum entry


@formulation(RenyiLDP, _renyi_nonzeros, renyi_pairs)
def formulate_renyi(notion: RenyiLDP, ctx: BuildContext,
                    plan: tuple[np.ndarray, np.ndarray]) -> Formulation:
    r"""Rényi LDP with power cones (``alpha > 1``) or relative entropy (``alpha = 1``).

    For ``alpha > 1`` and each constrained ordered pair ``(x, x')`` and output ``y``, an
    auxiliary ``T >= 0`` with ``T^(1/alpha) Q[x', y]^(1 - 1/alpha) >= c Q[x, y]``,
    ``c = e^{-(1 - 1/alpha) eps}`` (a 3-D power cone: ``T >= e^{-(alpha - 1) eps}
    Q[x, y]^alpha Q[x', y]^(1 - alpha)``, the perspective of ``t^alpha``, jointly convex),
    and ``sum_y T <= 1``: exactly ``sum_y Q[x, y]^alpha Q[x', y]^(1 - alpha) <=
    e^{(alpha - 1) eps}``, scaled so that no coefficient exceeds 1 whatever
    ``(alpha - 1) eps``. For ``alpha = 1``: ``sum_y rel_entr(Q[x, y], Q[x', y]) <= eps``
    (exponential cones). ``docs/formulations.md``.
    """
    a, b = plan
    k, n = ctx.k, ctx.n
    coef = Coefficients(notion.epsilon, ctx.parametric)
    Q = cp.Variable((k, n), nonneg=True, name="Q")
    measured = {"n_pairs": len(a) // 2} if notion.pairs is not None or notion.graph is not None \
        else {}
    relax = None if ctx.parametric else renyi_tangents(Q, a, b, notion.alpha,
                                                        notion.epsilon)
    if notion.alpha == 1.0:
        bound = coef(lambda e: e)
        return coef.done(Q, [cp.sum(cp.rel_entr(Q[a, :], Q[b, :]), axis=1) <= bound],
                         relax=relax, **measured)
    inv = 1.0 / notion.alpha
    scale = coef(lambda e: math.exp(-(1.0 - inv) * e))
    T = cp.Variable((len(a), n), nonneg=True, name="renyi_terms")
    cone = cp.constraints.PowCone3D(cp.vec(T, order="C"), cp.vec(Q[b, :], order="C"),
                                    scale * cp.vec(Q[a, :], order="C"), inv)
    return coef.done(Q, [cone, cp.sum(T, axis=1) <= 1.0], relax=relax, **measured)

# ---------------------------------------------------------------------- central targets
def central_formulation(budget: Callable[[Any], float]
                        ) -> tuple[Callable[[Any, BuildContext], float],
                                   Callable[[Any, BuildContext, float], Formulation]]:
    """``(prepare, formulate)`` of a central target (``Composed``, ``Shuffled``), registered
    below with :func:`formulation`, for a custom program
    built on top of it (``to_cvxpy``): pure LDP at ``budget(notion)``, the per-use eps0 at
    which every eps0-LDP randomizer meets the target (a safe inner approximation; exact for
    the clone bound, which depends on eps0 alone). The designs themselves
    (:mod:`~mechdesign.design.methods`) search further and measure each matrix."""
    def prepare(notion: Any, ctx: BuildContext) -> float:
        if ctx.parametric:
            raise InvalidParameterError(
                f"a {type(notion).__name__} target has no parametric build (its epsilon is "
                "the central one); sweep the central epsilon with one design per point")
        return budget(notion)

    def formulate_central(notion: Any, ctx: BuildContext, plan: float) -> Formulation:
        return formulate_ldp(LDP(plan), ctx)

    return prepare, formulate_central


for _cls, _budget in (
        (Composed, lambda nt: pure_budget(nt.uses, nt.epsilon, nt.delta)),
        (Shuffled, lambda nt: shuffle_budget(nt.n, nt.epsilon, nt.delta))):
    _prepare, _form = central_formulation(_budget)
    formulation(_cls, _offset_nonzeros, _prepare)(_form)

def describe_build(notion: Notion, form: Formulation, symmetry: Symmetry | None
                   ) -> tuple[str, ...]:
    """Notes on what a build constrained (pairs, spanner dilation, symmetry rows)."""
    notes = []
    if form.dilation is not None:
        notes.append(f"metric privacy on a greedy {notion.spanner}-spanner: "  # type: ignore
                     f"{form.n_pairs} pairs, measured dilation {form.dilation:.6g} "
                     "(epsilon divided by it)")
    elif form.n_pairs is not None and isinstance(notion, ApproxLDP | RenyiLDP):
        notes.append(f"{'approximate' if isinstance(notion, ApproxLDP) else 'Rényi'} LDP on "
                     f"{form.n_pairs} neighbouring pairs (both orders constrained)")
    elif form.n_pairs is not None:
        notes.append(f"metric privacy: {form.n_pairs} constrained pairs")
    if symmetry is not None:
        notes.append(f"{symmetry.describe()}, {form.n_rows or 0} privacy rows")
    return tuple(notes)


__all__ = [
    "MAX_LOG_RATIO",
    "BuildContext",
    "Coefficients",
    "Formulation",
    "capped_exp",
    "central_formulation",
    "describe_build",
    "estimated_nonzeros",
    "event_matrices",
    "formulate",
    "formulate_renyi",
    "formulation",
    "offset_form",
    "orbit_ratio_rows",
    "outer_ones",
    "renyi_pairs",
    "split_exp",
]
