r"""Trade-off functions of evidential mechanisms (Li et al. 2022, s.3.1 and s.3.3), exact.

Setting (``docs/belief_functions.md`` s.1 and s.3): H0 is input x, H1 is input x'; the
adversary sees an output y in Y and only knows that its law lies in the credal set ``P_x``
of the mass function ``m_x``. For a test ``phi: Y -> [0, 1]`` the Choquet forms are

.. math:: \sup_{P_x} E\phi = \sum_B m_x(B) \max_{y \in B} \phi(y), \qquad
          \inf_{P_x} E\phi = \sum_B m_x(B) \min_{y \in B} \phi(y).

* Pessimistic (Walley; also the SLDP curve of Thm 3.5): ``alpha^pe = sup_{P_x} E phi``,
  ``beta^pe = sup_{P_x'} E(1 - phi) = 1 - inf_{P_x'} E phi``;
  ``T^pe(alpha) = inf{beta^pe : alpha^pe <= alpha}``.
* Optimistic: ``alpha^op = inf_{P_x} E phi``, ``beta^op = inf_{P_x'} E(1 - phi)``;
  ``T^op(alpha) = inf{beta^op : alpha^op <= alpha}``.

Exact characterisations used here (derived in the docstrings, cross-checked in the tests):

1. For phi ordered by a chain ``top_0 = {} < top_1 < ... < top_n = Y`` (the outputs sorted by
   decreasing phi), phi is a mixture of the indicators of the ``top_j``, the Choquet forms are
   linear, and the sup/inf are attained by allocating every focal set to its first / last
   element in the chain. So the achievable ``(alpha, beta)`` for that chain are the convex hull
   of the chain points, which are ``(pl_x(E), pl_x'(Y-E)) = (pl_x(E), 1 - bel_x'(E))``
   (pessimistic) and ``(bel_x(E), bel_x'(Y-E)) = (bel_x(E), 1 - pl_x'(E))`` (optimistic)
   for ``E = top_j``.
2. Pessimistic: T^pe is convex (an LP value in alpha) and lies below every event point, so
   ``T^pe`` is the lower convex hull of ``{(pl_x(E), pl_x'(Y - E)) : E subset of Y}``
   (2^|Y| points). Second method: the LP over tests with the Choquet forms
   (``method="lp"``, :func:`scipy.optimize.linprog` with HiGHS).
3. Optimistic: the infima commute, so ``T^op = min over (pr, pr') in P_x x P_x' of
   T(pr, pr')`` (the sheet's credal-set form); T^op is NOT convex in general. It is the
   pointwise minimum over the |Y|! chains of the chain hulls (``method="chains"``), and
   equally the minimum over chains of the Neyman-Pearson curve of the Bayesian pair that
   allocates every focal set to its last element (for x) / first element (for x')
   (``method="credal"``). |Y| <= :data:`MAX_CHAIN_OUTPUTS`.

Composition: ``k`` self-compositions use the product mechanism ``m^{(x) k}`` (focal sets are
rectangles) and the pair ``((x, ..., x), (x', ..., x'))``.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Literal

import numpy as np
from scipy.optimize import linprog

from .._coerce import as_evidential
from .._validation import check_epsilon, check_int
from ..errors import InvalidParameterError, SizeLimitError
from ..evidential import EvidentialMechanism
from .tradeoff import (
    TradeoffCurve,
    check_alphas,
    check_pair,
    curve_from_points,
    lower_convex_hull,
    lower_envelope,
    tensor_product,
    tradeoff_function,
    tradeoff_function_dp,
)

__all__ = [
    "MAX_CHAIN_OUTPUTS",
    "TRADEOFF_TOL",
    "holds_theorem",
    "optimistic_function",
    "pessimistic_function",
    "tradeoff_optimistic",
    "tradeoff_pessimistic",
    "tradeoff_sldp",
]

MAX_CHAIN_OUTPUTS = 8
"""The optimistic curve enumerates the |Y|! chains of the outputs: |Y| <= 8 (40320 chains)."""

TRADEOFF_TOL = 1e-9
"""Slack on beta when :func:`holds_theorem` compares a curve with its bound."""

Theorem = Literal["3.5", "3.6", "3.18", "3.19"]


def _power(m: EvidentialMechanism, k: int) -> EvidentialMechanism:
    out = m
    for _ in range(k - 1):
        out = out.product(m)
    return out


def _diagonal_index(x: int, n: int, k: int) -> int:
    """Row of the input ``(x, ..., x)`` in the row-major k-fold product."""
    return x * sum(n ** i for i in range(k))


def _pairs(m: EvidentialMechanism, pair: Any) -> list[tuple[int, int]]:
    if pair is None:
        return [(x, xp) for x in range(m.n_inputs) for xp in range(m.n_inputs)]
    return [check_pair(m, pair)]


# ============================================================================ pessimistic


def _pessimistic_curve(ev: EvidentialMechanism, x: int, xp: int, label: str) -> TradeoffCurve:
    pl = ev.pl_matrix().copy()
    full = (1 << ev.n_outputs) - 1
    pl[:, full] = 1.0  # pl(Y) = 1 for a mass function; the float sum may end at 1 - 1e-16
    events = np.arange(full + 1)
    a, b = lower_convex_hull(pl[x, events], pl[xp, full ^ events])
    return curve_from_points(a, b, label)


def pessimistic_function(m: Any, pair: Any = (0, 1), k: int = 1) -> TradeoffCurve:
    r"""``T^pe`` of the pair ``(x, x')`` (or the minimum over ordered pairs if ``pair=None``)
    as exact breakpoints: the lower convex hull of

    .. math:: \{(pl_x(E),\ pl_{x'}(Y \setminus E)) : E \subseteq Y\}

    (module notes, item 2). Equal to the SLDP trade-off T of Li et al. 2022, Thm 3.5, and to
    the trade-off of a least-favourable Bayesian pair (Huber-Strassen). ``k``: the k-fold
    composition (module notes). At most 16 outputs in ``Y^k`` (2^16 events).
    """
    ev, pairs = _prepare(m, pair, k)
    curves = [_pessimistic_curve(ev, x, xp, "T^pe" + s) for x, xp, s in pairs]
    if len(curves) == 1:
        return curves[0]
    return lower_envelope(curves, "min over pairs of T^pe" + (f"^(x){k}" if k > 1 else ""))


def _pessimistic_lp(ev: EvidentialMechanism, x: int, xp: int, alphas: np.ndarray
                    ) -> np.ndarray:
    """``T^pe(alpha)`` by the LP over tests with the Choquet forms, one LP per alpha.

    Variables ``phi_y`` (tests), ``u_B >= max_{y in B} phi_y``, ``v_B <= min_{y in B} phi_y``:
    maximise ``sum_B m_x'(B) v_B`` subject to ``sum_B m_x(B) u_B <= alpha``; then
    ``T^pe = 1 - max``.
    """
    n, F = ev.n_outputs, len(ev.focal_sets)
    rows = []
    for j, mask in enumerate(ev.focal_masks):
        for y in range(n):
            if mask >> y & 1:
                r = np.zeros(n + 2 * F)
                r[y], r[n + j] = 1.0, -1.0  # phi_y - u_B <= 0
                rows.append(r)
                r = np.zeros(n + 2 * F)
                r[n + F + j], r[y] = 1.0, -1.0  # v_B - phi_y <= 0
                rows.append(r)
    level = np.zeros(n + 2 * F)
    level[n:n + F] = ev.masses[x]
    A = np.vstack([*rows, level])
    c = np.zeros(n + 2 * F)
    c[n + F:] = -ev.masses[xp]
    out = np.empty(alphas.shape)
    for idx, alpha in np.ndenumerate(alphas):
        b = np.zeros(len(A))
        b[-1] = alpha
        res = linprog(c, A_ub=A, b_ub=b, bounds=(0.0, 1.0), method="highs")
        if res.status != 0:  # pragma: no cover - phi = 0 is always feasible
            raise InvalidParameterError(
                f"the test LP failed at alpha = {float(alpha)!r}: {res.message}")
        out[idx] = min(max(1.0 + res.fun, 0.0), 1.0)
    return out


def tradeoff_pessimistic(m: Any, alphas: Any, pair: Any = (0, 1), k: int = 1,
                         method: Literal["hull", "lp"] = "hull") -> np.ndarray | float:
    r"""The pessimistic trade-off ``T^pe(alpha)`` of Li et al. 2022 (s.3.3):

    .. math:: T^{pe}(\alpha) = \inf\{\sup_{P_{x'}} E(1-\phi) : \sup_{P_x} E\phi \le \alpha\}

    ``method="hull"`` (default): the exact breakpoints of :func:`pessimistic_function`;
    ``method="lp"``: one :func:`scipy.optimize.linprog` (HiGHS) per alpha over the Choquet
    forms (accurate to the solver's ~1e-9). Same shape as ``alphas``.
    For Q_2x3(p, q) with p > 1/2 this is ``f_{ln(p/(1-p))}``; for p <= 1/2 it is ``1 - alpha``.
    """
    if method == "hull":
        return pessimistic_function(m, pair, k)(alphas)
    if method != "lp":
        raise InvalidParameterError(f"method must be 'hull' or 'lp', got {method!r}")
    x = check_alphas(alphas)
    ev, pairs = _prepare(m, pair, k)
    vals = np.min([_pessimistic_lp(ev, a, b, np.atleast_1d(x)) for a, b, _ in pairs], axis=0)
    return float(vals[0]) if x.ndim == 0 else vals.reshape(x.shape)


def tradeoff_sldp(m: Any, alphas: Any, pair: Any = (0, 1), k: int = 1) -> np.ndarray | float:
    r"""The SLDP trade-off of Li et al. 2022, Thm 3.5:

    .. math:: T(\alpha) = \inf\{\beta_\phi : \alpha_\phi \le \alpha\}, \quad
              \alpha_\phi = \sup_{P_x} E\phi, \quad \beta_\phi = 1 - \inf_{P_{x'}} E\phi.

    Since ``1 - inf E phi = sup E(1 - phi)`` this is the pessimistic curve
    :func:`tradeoff_pessimistic`; eps-SLDP (mass) implies ``T >= f_eps``.
    """
    return tradeoff_pessimistic(m, alphas, pair, k)


# ============================================================================ optimistic


def _chains(n: int) -> np.ndarray:
    if n > MAX_CHAIN_OUTPUTS:
        raise SizeLimitError(
            f"the optimistic curve enumerates {n}! chains of {n} outputs; the limit is "
            f"{MAX_CHAIN_OUTPUTS} outputs")
    return np.array(list(itertools.permutations(range(n))), dtype=np.int64).reshape(-1, n)


def _chain_hulls(a: np.ndarray, b: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Lower convex hulls of many chains at once.

    Row c holds the points ``(a[c, j], b[c, j])``, a non-decreasing and b non-increasing in j.
    Point j is a vertex iff no later point has the same a (that one is at least as low) and
    it lies strictly below every segment joining points i < j < l with
    ``a_i < a_j < a_l``.
    """
    npts = a.shape[1]
    vertex = np.ones(a.shape, dtype=bool)
    vertex[:, :-1] &= a[:, 1:] != a[:, :-1]
    for i, j, h in itertools.combinations(range(npts), 3):
        cross = ((a[:, j] - a[:, i]) * (b[:, h] - b[:, i])
                 - (b[:, j] - b[:, i]) * (a[:, h] - a[:, i]))
        between = (a[:, i] < a[:, j]) & (a[:, j] < a[:, h])
        vertex[:, j] &= (cross > 0) | ~between
    out, seen = [], set()
    for c in range(len(a)):
        va, vb = a[c, vertex[c]], b[c, vertex[c]]
        key = va.tobytes() + vb.tobytes()
        if key in seen:
            continue
        seen.add(key)
        va, vb = np.clip(va, 0.0, 1.0), np.clip(vb, 0.0, 1.0)
        if va[0] > 0:
            va, vb = np.r_[0.0, va], np.r_[vb[0], vb]
        if va[-1] < 1:
            va, vb = np.r_[va, 1.0], np.r_[vb, vb[-1]]
        out.append((va, vb))
    return out


def _optimistic_chains(ev: EvidentialMechanism, x: int, xp: int, label: str) -> TradeoffCurve:
    n = ev.n_outputs
    perms = _chains(n)
    full = (1 << n) - 1
    masks = np.concatenate([np.zeros((len(perms), 1), dtype=np.int64),
                            np.cumsum(np.left_shift(1, perms), axis=1)], axis=1)
    bel = ev.bel_matrix()
    pts = np.unique(np.concatenate([bel[x, masks], bel[xp, full ^ masks]], axis=1), axis=0)
    hulls = _chain_hulls(pts[:, :n + 1], pts[:, n + 1:])
    return lower_envelope(hulls, label)


def _optimistic_credal(ev: EvidentialMechanism, x: int, xp: int, label: str) -> TradeoffCurve:
    n = ev.n_outputs
    perms = _chains(n)
    rank = np.argsort(perms, axis=1)  # rank[c, y] = position of y in chain c
    member = np.array([[mask >> y & 1 for y in range(n)] for mask in ev.focal_masks], dtype=bool)
    pairs = set()
    for r in rank:
        pos = np.where(member, r[None, :], -1)
        last = np.argmax(pos, axis=1)  # lowest phi in B: the inf allocation for x
        first = np.argmin(np.where(member, r[None, :], n), axis=1)  # highest phi: sup for x'
        pr = np.bincount(last, weights=ev.masses[x], minlength=n)
        prp = np.bincount(first, weights=ev.masses[xp], minlength=n)
        pairs.add((pr.tobytes(), prp.tobytes()))
    curves = []
    for pb, ppb in pairs:
        pr, prp = np.frombuffer(pb), np.frombuffer(ppb)
        curves.append(tradeoff_function(pr, prp))  # sums as the mass rows: never renormalised
    return lower_envelope(curves, label)


def _prepare(m: Any, pair: Any, k: int
             ) -> tuple[EvidentialMechanism, list[tuple[int, int, str]]]:
    """The (k-fold) mechanism and its row pairs ``(row_x, row_x', label suffix)``."""
    ev = as_evidential(m)
    k = check_int(k, "k", 1)
    pairs = _pairs(ev, pair)
    power = f"^(x){k}" if k > 1 else ""
    if k == 1:
        return ev, [(a, b, f"(m[{a}], m[{b}])") for a, b in pairs]
    n = ev.n_inputs
    return _power(ev, k), [(_diagonal_index(a, n, k), _diagonal_index(b, n, k),
                            f"(m[{a}], m[{b}]){power}") for a, b in pairs]


def optimistic_function(m: Any, pair: Any = (0, 1), k: int = 1,
                        method: Literal["chains", "credal"] = "chains") -> TradeoffCurve:
    r"""``T^op`` of the pair ``(x, x')`` (or the minimum over ordered pairs, ``x = x'``
    included, if ``pair=None``) as exact breakpoints:

    .. math:: T^{op} = \min_{\text{chains } \sigma}
              \mathrm{hull}\{(bel_x(E), bel_{x'}(Y \setminus E)) : E \in \sigma\}
              = \min_{pr \in P_x,\ pr' \in P_{x'}} T(pr, pr')

    (module notes, item 3; Li et al. 2022, s.3.3). Not convex in general. ``method``:
    ``"chains"`` (chain hulls) or ``"credal"`` (Neyman-Pearson curves of the extreme Bayesian
    pairs); both exact. At most :data:`MAX_CHAIN_OUTPUTS` outputs in ``Y^k``.
    """
    if method not in ("chains", "credal"):
        raise InvalidParameterError(f"method must be 'chains' or 'credal', got {method!r}")
    ev, pairs = _prepare(m, pair, k)
    build = _optimistic_chains if method == "chains" else _optimistic_credal
    curves = [build(ev, x, xp, "T^op" + s) for x, xp, s in pairs]
    if len(curves) == 1:
        return curves[0]
    return lower_envelope(curves, "min over pairs of T^op" + (f"^(x){k}" if k > 1 else ""))


def tradeoff_optimistic(m: Any, alphas: Any, pair: Any = (0, 1), k: int = 1,
                        method: Literal["chains", "credal"] = "chains") -> np.ndarray | float:
    r"""The optimistic trade-off ``T^op(alpha)`` of Li et al. 2022 (s.3.3):

    .. math:: T^{op}(\alpha) = \inf\{\inf_{P_{x'}} E(1-\phi) : \inf_{P_x} E\phi \le \alpha\}

    exact (see :func:`optimistic_function`). For Q_2x3(p, q): ``f_{ln((1-q)/q)}``, the curve of
    Walley's completion Q_1. Same shape as ``alphas``.
    """
    return optimistic_function(m, pair, k, method)(alphas)


# ============================================================================ the theorems


def _dominates(curve: TradeoffCurve, bound: TradeoffCurve) -> bool:
    """``curve >= bound - TRADEOFF_TOL`` everywhere (both are piecewise linear, so at the
    union of their breakpoints)."""
    grid = np.union1d(curve.alphas, bound.alphas)
    return bool((curve(grid) >= bound(grid) - TRADEOFF_TOL).all())


def holds_theorem(m: Any, epsilon: float, theorem: Theorem = "3.5") -> bool:
    r"""Whether the conclusion of a theorem of Li et al. 2022 holds for ``m`` at ``epsilon``,
    checked exactly for every ordered pair of inputs (``x = x'`` included):

    * ``"3.5"``  (SLDP): ``T^pe >= f_eps`` (implied by eps-SLDP, mass).
    * ``"3.6"``  (Cor 3.6, 2-fold SLDP, tight form): ``T^pe_2 >= f_eps (x) f_eps``
      (which implies ``T^pe_2 >= f_{2 eps}``).
    * ``"3.18"`` (WLDP): ``T^op >= f_eps``; equivalent to eps-WLDP.
    * ``"3.19"`` (Cor 3.19, 2-fold WLDP): ``T^op_2 >= f_{2 eps}``. The tight form
      ``f_eps (x) f_eps`` does NOT hold for ``T^op_2`` (``docs/belief_functions.md`` s.3;
      a counterexample is in the tests), so it is not offered.

    Exact up to :data:`TRADEOFF_TOL` on beta.
    """
    eps = check_epsilon(epsilon, allow_inf=True)
    if theorem not in ("3.5", "3.6", "3.18", "3.19"):
        raise InvalidParameterError(
            f"theorem must be '3.5', '3.6', '3.18' or '3.19', got {theorem!r}")
    if math.isinf(eps):
        return True
    f = tradeoff_function_dp(eps)
    if theorem == "3.5":
        return _dominates(pessimistic_function(m, None), f)
    if theorem == "3.6":
        return _dominates(pessimistic_function(m, None, k=2), tensor_product(f, f))
    if theorem == "3.18":
        return _dominates(optimistic_function(m, None), f)
    return _dominates(optimistic_function(m, None, k=2), tradeoff_function_dp(2 * eps))
