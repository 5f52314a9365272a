r"""Privacy notions as values with two faces.

Each notion is a frozen dataclass. Its cvxpy face, :meth:`formulate`, returns the design
variable (an affine cvxpy expression ``Q`` of shape ``(k, n)``, rows inputs) and named lists
of constraints; its numpy face, :meth:`measure`, returns the notion's parameter achieved by a
concrete mechanism by delegating to :mod:`mechdesign.privacy.measures`, and :meth:`holds`
compares it with the target. Formulations follow ``docs/formulations.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import cvxpy as cp
import networkx as nx
import numpy as np
from scipy import sparse

from .. import _subsets
from .._validation import check_delta, check_epsilon, check_real
from ..errors import InvalidParameterError
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from ..neighbors import distance_matrix, graph_dilation, greedy_spanner, metric_skeleton
from ..privacy.measures import (
    EPSILON_TOL,
    delta_deletion,
    delta_ldp,
    epsilon_deletion,
    epsilon_ldp,
    epsilon_metric,
    epsilon_sldp,
    epsilon_wldp,
)
from .symmetry import Symmetry, check_invariant

Constraints = dict[str, list]


MAX_LOG_RATIO = 20.0
"""Largest coefficient e^a written into a constraint. A ratio bound ``X <= e^c Y`` with
``c > 20`` is written ``e^{20 - c} X <= e^20 Y`` (both sides multiplied by ``e^{20 - c}``):
the same constraint, exact for every c, with no coefficient above e^20 (4.9e8). Larger
coefficients wreck the solvers' scaling (Clarabel reported a feasible metric problem
infeasible at e^25); the earlier cap ``min(e^c, e^20)`` was a stronger constraint that
made deletion LDP (column ratio e^{2 eps}) 5.8x worse than its optimum at eps = 16. A
solver may drop a left coefficient below its small-value threshold (HiGHS: 1e-9, i.e.
c > 40.7); that only loosens the solver's problem, and the certificate (re-measure,
repair, dual bound on the exact data) reports what the returned matrix achieves."""


def split_exp(c: Any) -> tuple[Any, Any]:
    """``(l, r)`` with ``r / l = e^c`` and ``max(l, r) <= e^MAX_LOG_RATIO``, elementwise:
    ``X <= e^c Y`` is written ``l X <= r Y``."""
    c = np.asarray(c, dtype=float)
    return np.exp(-np.maximum(c - MAX_LOG_RATIO, 0.0)), np.exp(np.minimum(c, MAX_LOG_RATIO))


def capped_exp(a: Any) -> Any:
    """``exp(min(a, MAX_LOG_RATIO))``, elementwise (only where the cap cannot bind)."""
    return np.exp(np.minimum(a, MAX_LOG_RATIO))


def coefficient(context: dict, fn: Callable[[float], Any], epsilon: float) -> Any:
    """``fn(epsilon)``: a constant, or a cvxpy Parameter when ``context["parametric"]``.

    A parametric build registers a setter in ``context["setters"]``; a frontier calls them
    to move every coefficient to a new epsilon and re-solves the compiled problem (DPP).
    """
    value = fn(epsilon)
    if not context.get("parametric"):
        return value
    p = cp.Parameter(np.shape(value), nonneg=True, value=value)
    context.setdefault("setters", []).append(lambda eps: setattr(p, "value", fn(eps)))
    return p


def _exp(context: dict, epsilon: float, scale: float = 1.0) -> Any:
    return coefficient(context, lambda e: float(capped_exp(scale * e)), epsilon)


def ratio_coefficients(context: dict, epsilon: float, scale: Any = 1.0) -> tuple[Any, Any]:
    """``split_exp(scale * epsilon)`` as constants or parameters (see :func:`coefficient`)."""
    left = coefficient(context, lambda e: split_exp(np.multiply(scale, e))[0], epsilon)
    right = coefficient(context, lambda e: split_exp(np.multiply(scale, e))[1], epsilon)
    return left, right


def _outer_ones(k: int, t: cp.Expression) -> cp.Expression:
    """The ``(k, n)`` expression whose every row is the vector ``t``."""
    return np.ones((k, 1)) @ cp.reshape(t, (1, t.shape[0]), order="C")


def offset_form(k: int, n: int, context: dict, epsilon: float, scale: float = 1.0
                ) -> tuple[cp.Expression, list, cp.Variable]:
    r"""Column-ratio constraints ``t_y <= Q[x, y] <= e^a t_y`` (``a = scale * epsilon``)
    in offset form.

    ``Q = 1 t^T + U`` with ``0 <= U[x, y]`` and ``U <= (e^a - 1) t``, written
    ``l U <= (r - l) t`` with ``(l, r) = split_exp(a)`` (exact for every a): k n inequality
    rows plus bounds, instead of the 2 k n of the two-sided form or the k^2 n of the
    pairwise form (measured here at k = 200 on a random loss: 1.9 s with Clarabel and
    7.8 s with HiGHS interior point, against 3.3 s and 34 s for the two-sided form; a
    one-off measurement made while choosing the form, not repeated by ``benchmarks/``).
    """
    left = coefficient(context, lambda e: float(split_exp(scale * e)[0]), epsilon)
    excess = coefficient(context, lambda e: float(np.subtract(*split_exp(scale * e)[::-1])),
                         epsilon)
    U = cp.Variable((k, n), nonneg=True, name="U")
    t = cp.Variable(n, nonneg=True, name="t")
    T = _outer_ones(k, t)
    return T + U, [left * U <= excess * T], t


class Notion:
    """Base class: a privacy notion with a cvxpy face and a numpy face."""

    evidential: ClassVar[bool] = False
    #: True when every LDP-like column constraint makes the staircase theorem apply.
    staircase: ClassVar[bool] = False

    def formulate(self, k: int, n: int, context: dict) -> tuple[cp.Expression, Constraints]:
        raise NotImplementedError

    def measure(self, mechanism: Any) -> float:
        """The notion's parameter achieved by ``mechanism`` (epsilon, or delta for ApproxLDP)."""
        raise NotImplementedError

    def n_nonzeros(self, k: int, n: int, context: dict) -> int:
        """An estimate of the nonzeros :meth:`formulate` puts in the constraint matrix
        (checked against cvxpy's compiled data in ``tests/test_certificates.py``); the
        design refuses problems whose estimated memory exceeds the budget before building
        anything. Default: the offset form, about 4 k n."""
        return 4 * k * n

    @property
    def target(self) -> float:
        return self.epsilon  # type: ignore[attr-defined]

    @property
    def measures_delta(self) -> bool:
        """True when :meth:`measure` and :attr:`target` are a delta (else an epsilon)."""
        return False

    def ties_columns(self, inputs: tuple) -> bool:
        """True when every feasible column that is positive on one input is positive on
        all of them (a bounded ratio between every two inputs). Without it a message can be
        sent by some inputs only, and the Fisher information at a prior with zeros on
        exactly those inputs is unbounded (see ``EstimationVariance``). Default: False."""
        return False

    def envelope(self, mechanism: Any, aim: float = 1.0) -> np.ndarray | None:
        """A repair that raises too-small entries to the smallest values the notion allows
        at ``aim`` times its epsilon (None when the notion has none; certification then
        mixes rows instead)."""
        return None

    def neutral_row(self, C: np.ndarray, mechanism: Any) -> np.ndarray:
        """A data-independent row that meets every target of the notion when all rows equal
        it; certification mixes it in. Default: the column means of ``C``."""
        return C.mean(axis=0, keepdims=True)

    def holds(self, mechanism: Any, tol: float = EPSILON_TOL) -> bool:
        """Does ``mechanism`` meet the notion (measured value <= target + tol)?"""
        return self.measure(mechanism) <= self.target + tol

    def describe(self) -> str:
        return repr(self)


@dataclass(frozen=True)
class LDP(Notion):
    r"""Pure eps-LDP: ``Q[x, y] <= e^eps Q[x', y]`` for all x, x', y.

    Formulated column-wise (one auxiliary per column, offset form), exact.
    """

    epsilon: float
    staircase: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    def formulate(self, k: int, n: int, context: dict) -> tuple[cp.Expression, Constraints]:
        Q, cons, _ = offset_form(k, n, context, self.epsilon)
        return Q, {"privacy": cons}

    def measure(self, mechanism: Any) -> float:
        return epsilon_ldp(mechanism)

    def ties_columns(self, inputs: tuple) -> bool:
        return True

    def envelope(self, mechanism: Any, aim: float = 1.0) -> np.ndarray:
        Q = as_ordinary(mechanism).matrix
        k = Q.shape[0]
        return ratio_envelope(Q, aim * self.epsilon * (1.0 - np.eye(k)))


@dataclass(frozen=True)
class ApproxLDP(Notion):
    r"""(eps, delta)-LDP: ``sum_y max(0, Q[x, y] - e^eps Q[x', y]) <= delta`` for x != x'.

    Auxiliaries ``s[x, x', y] >= Q[x, y] - e^eps Q[x', y]``, ``s >= 0``, row sums <= delta
    (``docs/formulations.md``). With ``delta = 0`` this is :class:`LDP`: it
    uses that formulation and is measured and certified as pure LDP (:meth:`measure`
    returns the achieved epsilon); otherwise :meth:`measure` returns the achieved delta at
    the target epsilon.
    """

    epsilon: float
    delta: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))

    @property
    def target(self) -> float:
        return self.delta if self.delta > 0 else self.epsilon

    @property
    def measures_delta(self) -> bool:
        return self.delta > 0

    def formulate(self, k: int, n: int, context: dict) -> tuple[cp.Expression, Constraints]:
        if self.delta == 0.0:
            return LDP(self.epsilon).formulate(k, n, context)
        Q = cp.Variable((k, n), nonneg=True, name="Q")
        lf, rf = ratio_coefficients(context, self.epsilon)
        cons = []
        for x in range(k):
            others = [i for i in range(k) if i != x]
            S = cp.Variable((k - 1, n), nonneg=True)
            # S >= Q_x - e^eps Q_x', both sides times lf (exact, see MAX_LOG_RATIO)
            cons += [lf * S >= lf * _outer_ones(k - 1, Q[x, :]) - rf * Q[others, :],
                     cp.sum(S, axis=1) <= self.delta]
        return Q, {"privacy": cons}

    def n_nonzeros(self, k: int, n: int, context: dict) -> int:
        return 4 * k * n if self.delta == 0.0 else 5 * k * (k - 1) * n

    def ties_columns(self, inputs: tuple) -> bool:
        return self.delta == 0.0

    def measure(self, mechanism: Any) -> float:
        """The achieved delta at the target epsilon; with ``delta = 0`` (pure LDP) the
        achieved epsilon, so that a matrix above the epsilon is never certified on a tiny
        delta."""
        if self.delta == 0.0:
            return epsilon_ldp(mechanism)
        return delta_ldp(mechanism, self.epsilon)

    def envelope(self, mechanism: Any, aim: float = 1.0) -> np.ndarray | None:
        return LDP(self.epsilon).envelope(mechanism, aim) if self.delta == 0.0 else None


@dataclass(frozen=True)
class DeletionLDP(Notion):
    r"""Deletion (eps, delta)-LDP (Huang & Canonne, Def. 2.3): a free reference
    distribution r with ``sum_y max(0, Q[x, y] - e^eps r_y) <= delta`` and
    ``sum_y max(0, r_y - e^eps Q[x, y]) <= delta`` for every x.

    With ``delta = 0``: ``e^-eps r_y <= Q[x, y] <= e^eps r_y``, formulated without ``r``
    (see :meth:`_formulate_pure`). :meth:`measure` returns the achieved
    epsilon (delta = 0) or the achieved delta at the target epsilon.
    """

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))

    @property
    def target(self) -> float:
        return self.epsilon if self.delta == 0.0 else self.delta

    @property
    def measures_delta(self) -> bool:
        return self.delta > 0

    def formulate(self, k: int, n: int, context: dict) -> tuple[cp.Expression, Constraints]:
        if self.delta == 0.0:
            return self._formulate_pure(k, n, context)
        Q = cp.Variable((k, n), nonneg=True, name="Q")
        r = cp.Variable(n, nonneg=True, name="reference")
        R = _outer_ones(k, r)
        lf, rf = ratio_coefficients(context, self.epsilon)
        up = cp.Variable((k, n), nonneg=True)
        down = cp.Variable((k, n), nonneg=True)
        cons = [cp.sum(r) == 1, lf * up >= lf * Q - rf * R, lf * down >= lf * R - rf * Q,
                cp.sum(up, axis=1) <= self.delta, cp.sum(down, axis=1) <= self.delta]
        return Q, {"privacy": cons}

    def _formulate_pure(self, k: int, n: int, context: dict) -> tuple[cp.Expression, Constraints]:
        r"""delta = 0 without the reference as a variable.

        A reference ``r`` with ``e^-eps r_y <= Q[x, y] <= e^eps r_y`` and ``sum r = 1``
        exists iff (i) every column has ``max_x Q / min_x Q <= e^{2 eps}``,
        (ii) ``sum_y min_x Q[x, y] >= e^-eps`` and (iii) ``sum_y max_x Q[x, y] <= e^eps``
        (take ``r_y`` in ``[e^-eps max_x Q, e^eps min_x Q]``; the end points sum to at most
        and at least 1). So: offset form ``t_y <= Q[x, y] <= e^{2 eps} t_y`` with
        ``sum t >= e^-eps``, and (iii) through column maxima ``u`` only when it can bind,
        i.e. ``e^eps < min(k, n)`` (``sum_y max_x Q <= min(k, n)`` always). The ratio
        ``e^{2 eps}`` is written exactly (:data:`MAX_LOG_RATIO`). The
        earlier form ``sum t == e^-eps`` pinned t to ``1e-8`` at eps = 18 and the solvers
        called the problem infeasible.
        """
        Q, cons, t = offset_form(k, n, context, self.epsilon, 2.0)
        cons.append(cp.sum(t) >= _exp(context, self.epsilon, -1.0))
        if context.get("parametric") or np.exp(self.epsilon) < min(k, n):
            u = cp.Variable(n, nonneg=True, name="column_max")
            cons += [Q <= _outer_ones(k, u), cp.sum(u) <= _exp(context, self.epsilon)]
        return Q, {"privacy": cons}

    def n_nonzeros(self, k: int, n: int, context: dict) -> int:
        return 6 * k * n + 2 * n if self.delta == 0.0 else 10 * k * n + n

    def ties_columns(self, inputs: tuple) -> bool:
        return self.delta == 0.0

    def measure(self, mechanism: Any) -> float:
        if self.delta == 0.0:
            return epsilon_deletion(mechanism).epsilon
        return delta_deletion(mechanism, self.epsilon)


@dataclass(frozen=True)
class MetricDP(Notion):
    r"""Metric privacy: ``Q[x, y] <= e^{eps d(x, x')} Q[x', y]``.

    ``distance`` is a ``(k, k)`` matrix or a weighted networkx graph on the input labels.

    * A graph: constraints on its edges only. Exact, because ``d`` is its shortest-path
      metric and chaining the edge constraints along a shortest path gives every pair.
    * A matrix, ``spanner=None``: every pair at finite distance with no third point between
      them (:func:`~mechdesign.neighbors.metric_skeleton`; exact by chaining: the line
      metric keeps only neighbours).
    * A matrix, ``spanner=t``: only the edges of a greedy t-spanner, with ``eps / s`` where
      ``s <= t`` is the spanner's measured dilation; every pair then still gets
      ``e^{eps d}`` (Bordenabe, Chatzikokolakis, Palamidessi 2014), at some loss of utility.
    """

    epsilon: float
    distance: Any = field(compare=False, repr=False)
    spanner: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        if self.spanner is not None:
            s = check_real(self.spanner, "spanner")
            if s < 1:
                raise InvalidParameterError(f"spanner stretch must be >= 1, got {s!r}")
            object.__setattr__(self, "spanner", s)

    def edges(self, inputs: tuple, symmetry: Symmetry | None = None
              ) -> tuple[list[tuple[int, int, float]], float]:
        """Constrained pairs ``(x, x', d)`` (one per unordered pair, ``d = D[x, x']``; the
        formulation reads the other direction's distance from :meth:`directed_pairs`) and
        the eps divisor. A spanner is built on ``min(D, D^T)``, which bounds both
        directions from below, so its guarantee holds for an asymmetric ``D`` too.

        With a ``symmetry`` the distance must be invariant under it, and the pairs are
        closed under it (the union of their orbits: still a t-spanner, its dilation
        re-measured; for the skeleton and a graph the added pairs are implied by chaining).
        """
        D = distance_matrix(self.distance, inputs)  # validates nodes and weights
        if isinstance(self.distance, nx.Graph):
            index = {x: i for i, x in enumerate(inputs)}
            es = [(index[u], index[v], float(w)) for u, v, w in
                  self.distance.edges(data="weight", default=1.0) if u in index and v in index]
            dilation = 1.0
        elif self.spanner is not None:
            D = np.minimum(D, D.T)
            es, dilation = greedy_spanner(D, self.spanner)
        else:
            es, dilation = metric_skeleton(D), 1.0
        if symmetry is None:
            return es, dilation
        check_invariant("distance", D, symmetry, "ii")
        closed = symmetry.symmetrize_edges(es, D)
        if self.spanner is not None and len(closed) > len(es):
            dilation = graph_dilation(D, closed)
        return closed, dilation

    def _context_edges(self, k: int, context: dict
                       ) -> tuple[list[tuple[int, int, float]], float]:
        """The constrained pairs, computed once per build (kept in ``context``)."""
        if "edges" not in context:
            inputs = context.get("inputs") or tuple(range(k))
            context["edges"] = self.edges(inputs, context.get("symmetry"))
        return context["edges"]

    def directed_pairs(self, k: int, context: dict
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(a, b, d)``: the rows ``Q[a_i] <= e^{eps d_i} Q[b_i]`` of the formulation, both
        directions of every pair, ``d`` already divided by the dilation. The reverse
        direction of a skeleton pair takes its own distance ``D[x', x]`` (an asymmetric
        distance used to be read as symmetric: stricter, and a worse optimum); graph and
        spanner edges are symmetric. Directions at infinite distance are left out."""
        es, dilation = self._context_edges(k, context)
        u = np.array([e[0] for e in es], dtype=int)
        v = np.array([e[1] for e in es], dtype=int)
        w = np.array([e[2] for e in es], dtype=float)
        back = w
        if not isinstance(self.distance, nx.Graph) and self.spanner is None and len(es):
            D = distance_matrix(self.distance, context.get("inputs") or tuple(range(k)))
            back = D[v, u]
        a, b = np.concatenate([u, v]), np.concatenate([v, u])
        d = np.concatenate([w, back]) / dilation
        finite = np.isfinite(d)
        return a[finite], b[finite], d[finite]

    def n_nonzeros(self, k: int, n: int, context: dict) -> int:
        es, _ = self._context_edges(k, context)
        sym = context.get("symmetry")
        pairs = 4 * len(es) * n + 2 * k * n  # 2 directions x n columns x 2 entries + rows
        return pairs if sym is None else max(1, pairs // sym.order)

    def formulate(self, k: int, n: int, context: dict) -> tuple[cp.Expression, Constraints]:
        sym = context.get("symmetry")
        es, dilation = self._context_edges(k, context)
        context["spanner_dilation"] = dilation
        context["n_privacy_pairs"] = len(es)
        a, b, d = self.directed_pairs(k, context)
        if sym is not None:
            return self._formulate_reduced(k, n, a, b, d, sym, context)
        Q = cp.Variable((k, n), nonneg=True, name="Q")
        if not len(a):
            return Q, {"privacy": []}
        lf, rf = ratio_coefficients(context, self.epsilon, d[:, None])
        cons = [cp.multiply(lf, Q[a, :]) <= cp.multiply(rf, Q[b, :])]
        return Q, {"privacy": cons}

    def _formulate_reduced(self, k: int, n: int, a: np.ndarray, b: np.ndarray,
                           d: np.ndarray, sym: Symmetry, context: dict
                           ) -> tuple[cp.Expression, Constraints]:
        """One variable per orbit of entries, one privacy row per orbit of the triples
        ``(x, x', y)`` (:mod:`~mechdesign.design.symmetry`); ``d`` is already divided by
        the dilation."""
        z = cp.Variable(sym.n_orbits, nonneg=True, name="Q_orbits")
        P = sparse.csr_matrix((np.ones(k * n), (np.arange(k * n), sym.orbit.ravel())),
                              shape=(k * n, sym.n_orbits))
        Q = cp.reshape(P @ z, (k, n), order="C")
        left, right, i = sym.pair_rows(a, b)
        context["n_privacy_rows"] = len(left)
        if not len(left):
            return Q, {"privacy": []}
        rows = np.arange(len(left))
        ones = np.ones(len(left))
        Lsel = sparse.csr_matrix((ones, (rows, left)), shape=(len(left), sym.n_orbits))
        Rsel = sparse.csr_matrix((ones, (rows, right)), shape=(len(left), sym.n_orbits))
        lf, rf = ratio_coefficients(context, self.epsilon, d[i])
        return Q, {"privacy": [cp.multiply(lf, Lsel @ z) <= cp.multiply(rf, Rsel @ z)]}

    def measure(self, mechanism: Any) -> float:
        return epsilon_metric(mechanism, self.distance)

    def ties_columns(self, inputs: tuple) -> bool:
        return bool(np.isfinite(distance_matrix(self.distance, inputs)).all())

    def envelope(self, mechanism: Any, aim: float = 1.0) -> np.ndarray:
        m = as_ordinary(mechanism)
        D = distance_matrix(self.distance, m.inputs)
        eps = aim * self.epsilon
        # E[x] >= Q[z] e^{-eps d(z, x)}: the factor of row x from row z is D[z, x] (the
        # transpose matters for an asymmetric distance)
        with np.errstate(invalid="ignore"):
            return ratio_envelope(m.matrix, np.where(np.isfinite(D.T), eps * D.T, np.inf))


def _event_matrices(focal_masks: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Indicator matrices (F, E) for bel and pl over the events E = all but {} and Y."""
    events = np.arange(1, (1 << m) - 1)
    sub = _subsets.subset_indicator(focal_masks, m)[:, events].astype(float)
    meets = _subsets.meets_indicator(focal_masks, m)[:, events].astype(float)
    return sub, meets


@dataclass(frozen=True)
class SLDP(Notion):
    r"""Shafer LDP over evidential masses (Li et al. 2022, Def. 3.1):
    ``kind="mass"``: ``m_x(B) <= e^eps m_x'(B)`` (pure LDP over the messages, offset form);
    ``"pl"``/``"bel"``: the same for plausibilities/beliefs of every event, which are linear
    maps of the masses (one auxiliary per event). The problem designs an
    :class:`~mechdesign.evidential.EvidentialMechanism`.
    """

    epsilon: float
    kind: Literal["mass", "pl", "bel"] = "mass"
    evidential: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        if self.kind not in ("mass", "pl", "bel"):
            raise InvalidParameterError(f"kind must be 'mass', 'pl' or 'bel', got {self.kind!r}")

    @property
    def staircase(self) -> bool:  # type: ignore[override]
        return self.kind == "mass"

    def formulate(self, k: int, n: int, context: dict) -> tuple[cp.Expression, Constraints]:
        if self.kind == "mass":
            Q, cons, _ = offset_form(k, n, context, self.epsilon)
            return Q, {"privacy": cons}
        lf, rf = ratio_coefficients(context, self.epsilon)
        M = cp.Variable((k, n), nonneg=True, name="masses")
        sub, meets = _event_matrices(context["focal_masks"], context["n_labels"])
        A = M @ (sub if self.kind == "bel" else meets)
        t = cp.Variable(A.shape[1], nonneg=True)
        T = _outer_ones(k, t)
        return M, {"privacy": [A >= T, lf * A <= rf * T]}

    def n_nonzeros(self, k: int, n: int, context: dict) -> int:
        if self.kind == "mass":
            return 4 * k * n
        return k * n * 2 ** context["n_labels"] + 4 * k * 2 ** context["n_labels"]

    def measure(self, mechanism: Any) -> float:
        return epsilon_sldp(mechanism, self.kind)

    def ties_columns(self, inputs: tuple) -> bool:
        return self.kind == "mass"

    def envelope(self, mechanism: Any, aim: float = 1.0) -> np.ndarray | None:
        if self.kind != "mass":
            return None
        return LDP(self.epsilon).envelope(mechanism, aim)


@dataclass(frozen=True)
class WLDP(Notion):
    r"""Walley LDP (Li et al. 2022, Def. 3.13, Lemma 3.14):
    ``max_x pl_x(E) <= e^eps min_x' bel_x'(E)`` for every event E (x = x' included), with
    one auxiliary per event: ``t_E <= bel_x(E)`` and ``pl_x(E) <= e^eps t_E``.
    """

    epsilon: float
    evidential: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    def formulate(self, k: int, n: int, context: dict) -> tuple[cp.Expression, Constraints]:
        M = cp.Variable((k, n), nonneg=True, name="masses")
        sub, meets = _event_matrices(context["focal_masks"], context["n_labels"])
        t = cp.Variable(sub.shape[1], nonneg=True)
        T = _outer_ones(k, t)
        lf, rf = ratio_coefficients(context, self.epsilon)
        return M, {"privacy": [M @ sub >= T, lf * (M @ meets) <= rf * T]}

    def n_nonzeros(self, k: int, n: int, context: dict) -> int:
        return 2 * k * n * 2 ** context["n_labels"] + 4 * k * 2 ** context["n_labels"]

    def measure(self, mechanism: Any) -> float:
        return epsilon_wldp(mechanism)

    def neutral_row(self, C: np.ndarray, mechanism: Any) -> np.ndarray:
        """A Bayesian row: WLDP compares pl_x(E) with bel_x(E) for x = x' too, so a constant
        row with "don't know" mass is not eps-WLDP for small eps. The mean mass of each
        message is spread evenly over the singletons of its outputs (when those messages
        are allowed; otherwise the column means)."""
        fsets = list(mechanism.focal_sets)
        single = {next(iter(B)): j for j, B in enumerate(fsets) if len(B) == 1}
        mean = C.mean(axis=0)
        if not all(y in single for B in fsets for y in B):
            return mean[None, :]
        r = np.zeros_like(mean)
        for j, B in enumerate(fsets):
            for y in B:
                r[single[y]] += mean[j] / len(B)
        return r[None, :]


def ratio_envelope(Q: np.ndarray, log_factor: np.ndarray) -> np.ndarray:
    r"""``E[x, y] = max_z Q[z, y] e^{-log_factor[x, z]}`` (``log_factor[x, x] = 0``).

    With ``log_factor[x, z] = eps d(z, x)`` for a distance d with the triangle inequality,
    E meets ``E[x, y] <= e^{eps d(x,x')} E[x', y]`` exactly and ``E >= Q``: the least
    repair that only raises entries. Rows then sum to slightly more than 1 and are
    renormalised by the caller.
    """
    E = np.array(Q, dtype=float, copy=True)
    for x in range(Q.shape[0]):
        scale = np.exp(-log_factor[x])[:, None]  # (k, 1); exp(-inf) = 0
        np.maximum(E[x], (Q * scale).max(axis=0), out=E[x])
    return E


def as_ordinary(mechanism: Mechanism | EvidentialMechanism) -> Mechanism:
    """Messages as outputs (the reading every non-evidential measure uses)."""
    if isinstance(mechanism, EvidentialMechanism):
        return mechanism.to_mechanism()
    return mechanism
