r"""Exact verification of a small mechanism in rational arithmetic (standard library only).

The float measures of :mod:`mechdesign.privacy.measures` are exact up to floating-point
rounding, and a check of a target accepts :data:`~mechdesign.privacy.measures.EPSILON_TOL`
of slack. :func:`verify_exact` removes both: every stored entry is a dyadic rational and is
read as an exact :class:`fractions.Fraction`; sums, ratios and hockey-stick sums are formed
exactly; the only irrational number, ``e^x`` (``x = eps``, ``2 eps``, ``-eps`` or
``eps d(x, x')``, itself an exact rational), is bracketed with :mod:`decimal`:
``x`` is rounded down and up to ``digits + 20`` digits, ``Decimal.exp`` (correctly rounded
at ``digits`` digits) is applied to both, and the results are widened by one unit in the
last place, so ``lo <= e^x <= hi`` rigorously. A comparison ``ratio <= e^x`` is then
decided (``ratio <= lo``: holds, ``ratio > hi``: fails) or, if ``lo < ratio <= hi``,
reported as undecidable at that precision (``holds = None``; raise ``digits``). ``e^0 = 1``
is exact.

What is checked (the matrix as stored, rows never renormalised; ``0/0`` ignored, ``c/0 = inf``
for ``c > 0``):

* ``"ldp"``: ``max_x Q[x, y] <= e^eps min_x Q[x, y]`` for every column y
  (Li et al. 2022, s.2; ``docs/formulations.md``).
* ``"approx_ldp"`` (Huang & Canonne, Def. 2.2): for x != x' (or, with a neighbour relation
  ``pairs=``/``graph=``, for both orders of each neighbouring pair only),
  ``H(e^eps) = sum_y max(0, Q[x, y] - e^eps Q[x', y]) <= delta``. ``H(t) = max_A (Q_x(A) -
  t Q_x'(A))`` is continuous and non-increasing in t, so the pair holds iff
  ``e^eps >= t*``, the smallest t with ``H(t) <= delta``, which is rational: on each piece
  between consecutive column ratios ``H(t) = a - t b`` and ``t* = (a - delta) / b``
  (``t* = inf`` when the columns with ``Q[x', y] = 0`` carry more than delta). The decision
  uses ``H`` at both ends of the bracket; :attr:`Verification.ratio` is ``max t*``.
* ``"deletion_ldp"`` with ``delta = 0`` (Huang & Canonne, Def. 2.3): a reference
  distribution r with ``e^-eps r_y <= Q[x, y] <= e^eps r_y`` exists iff, with
  ``M_y = max_x Q[x, y]`` and ``m_y = min_x Q[x, y]``,

  .. math:: M_y \le e^{2\varepsilon} m_y \ \forall y, \qquad \sum_y M_y \le e^\varepsilon,
            \qquad \sum_y m_y \ge e^{-\varepsilon}.

  Derivation: column y needs ``r_y`` in ``[e^-eps M_y, e^eps m_y]`` (non-empty iff the first
  condition), and ``sum_y r_y = 1`` is reachable iff ``sum_y e^-eps M_y <= 1 <=
  sum_y e^eps m_y`` (the sum of the r_y ranges over that whole interval); singleton events
  suffice because the deletion inequalities are additive over events.
  With ``delta > 0`` no closed form exists: the smallest delta is the optimum of an LP over
  the reference r (minimise delta subject to both hockey-stick sums of every input being at
  most delta; :func:`~mechdesign.privacy.measures.deletion_lp`, built at ``min(eps, 30)``).
  It is bracketed rigorously from both sides: the LP's reference, made exact (rounded to
  multiples of ``2^-60``, and snapped to fractions with denominators up to ``10^6`` when
  those sum to 1), and the exact column means, with exact hockey-stick sums give upper
  bounds; the LP's dual weights, read exactly, give a lower
  bound (every reference r has ``max_x max(H(Q_x || r), H(r || Q_x)) >= sum_{x,y}
  alpha_xy (Q_xy - e r_y) + beta_xy (r_y - e Q_xy)`` for weights ``0 <= alpha_xy <=
  lambda_x`` summing to 1 through the lambdas, minimised over the simplex at a vertex), and
  so do necessary conditions for every pair (Def. 2.3 gives ``Q_x(S) <= e^2eps Q_x'(S) +
  (1 + e^eps) delta``, ``e^eps sum_y min(Q_x, Q_x') + 2 delta >= 1`` and ``sum_y max(Q_x,
  Q_x') - 2 delta <= e^eps``). By LP duality the two ends meet up to the LP tolerance for
  eps <= 30 (measured: at most 5e-11 apart on 2,100 random mechanisms; above 30 the LP
  runs at 30 and the bracket can be wider): the target is proved when the
  upper end is at most delta, disproved when the lower end exceeds it, and left undecided
  (``holds = None``, :attr:`Verification.excess` a rigorous upper bound on the excess
  delta) only when delta lies inside that bracket.

Tolerance: ``verify_exact(..., tolerance=t)`` accepts an exact value up to ``t`` above the
target, in the target's units: epsilon for the pure notions (the bound becomes
``e^{(eps + t) scale}``), delta for ``approx_ldp`` and ``deletion_ldp`` with ``delta > 0``.
The default ``t = 0`` is the strict check.
* ``"metric"`` (Chatzikokolakis et al. 2013): ``Q[x, y] <= e^{eps d(x, x')} Q[x', y]`` for
  every pair at finite distance, with d a matrix or the shortest-path metric of a weighted
  graph (computed here exactly, in Fractions, by Dijkstra). A spanner used by the design is
  irrelevant: the guarantee is checked for every pair of the original metric.
* ``"sldp_mass"``, ``"sldp_pl"``, ``"sldp_bel"`` (Li et al. 2022, Def. 3.1): the LDP ratio of
  masses (over messages), of plausibilities or of beliefs of every event, with
  ``bel_x(E) = sum_{B subset of E} m_x(B)`` and ``pl_x(E) = sum_{B meets E} m_x(B)`` exact
  Fraction sums.
* ``"wldp"`` (Li et al. 2022, Def. 3.13, Lemma 3.14): ``max_x pl_x(E) <= e^eps min_x bel_x(E)``
  for every event E, ``x = x'`` included.

Sizes: at most :data:`MAX_EXACT_ENTRIES` entries (rows times columns, messages for an
evidential mechanism) and, for the event notions, at most :data:`MAX_EXACT_OUTPUTS` outputs
(every one of the 2^m events is enumerated). Larger requests raise
:class:`~mechdesign.errors.SizeLimitError`.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import numpy as np

from .._coerce import as_evidential, as_mechanism
from .._exact import (
    DEFAULT_DIGITS,
    EXP_CLAMP,
    dyadic_integers,
    event_sums,
    exp_bracket,
)
from .._html import value_view
from .._validation import check_delta, check_epsilon, check_int
from ..errors import InvalidParameterError, SizeLimitError
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from ..neighbors import distance_matrix, neighbour_pairs, ordered_pairs
from .measures import DELETION_LP_TOLERANCE, DeletionLP, deletion_lp
from .notions import (
    LDP,
    SLDP,
    VARIANTS,
    WLDP,
    ApproxLDP,
    DeletionLDP,
    MetricDP,
    Notion,
    notion_facet,
    register_facet,
)

__all__ = [
    "EXP_CLAMP",
    "MAX_EXACT_ENTRIES",
    "MAX_EXACT_OUTPUTS",
    "NOTIONS",
    "REFERENCE_BITS",
    "ExactWitness",
    "Verification",
    "verify_exact",
]


MAX_EXACT_ENTRIES = 400
"""Largest ``k * n`` (inputs times outputs, or messages) verified in rational arithmetic."""

MAX_EXACT_OUTPUTS = 10
"""Largest output set for the event notions (sldp_pl, sldp_bel, wldp): 2^10 events."""

NOTIONS = VARIANTS
"""Notion names accepted by :func:`verify_exact` (``"sldp"`` is an alias of ``"sldp_mass"``)."""



@value_view
@dataclass(frozen=True)
class ExactWitness:
    """Where the reported comparison is made.

    ``condition`` states the inequality in words; ``x`` / ``x_prime`` are the row indices of
    the larger and the smaller side; ``column`` is an output (or message) index; ``event`` is
    an event of output labels (event notions) or the set of column indices of a hockey-stick
    sum (approximate notions).
    """

    condition: str
    x: int | None = None
    x_prime: int | None = None
    column: int | None = None
    event: frozenset | None = None


@value_view
@dataclass(frozen=True)
class Verification:
    """The exact verdict of :func:`verify_exact`.

    Attributes
    ----------
    notion : str
        The canonical notion name (one of :data:`NOTIONS`).
    holds : bool or None
        True: proved; False: disproved; None: undecidable at the precision used (the exact
        ratio lies inside the bracket of ``e^x``; raise ``digits``), or, for deletion LDP
        with ``delta > 0`` only, neither the LP's reference nor the necessary conditions
        settle it.
    ratio : Fraction, float or None
        The exact ratio of the reported comparison (``math.inf`` for ``c / 0``): the worst
        ratio for LDP and the SLDP/WLDP notions, the worst pair's ratio for metric privacy,
        the most violated (or tightest) of the three conditions for deletion LDP, and
        ``max t*`` (the smallest ``e^eps`` that the delta allows) for approximate LDP.
        None for deletion LDP with ``delta > 0``.
    threshold : (Fraction, Fraction)
        A rigorous bracket ``lo <= e^x <= hi`` of the bound the ratio is compared with
        (``(delta, delta)`` for deletion LDP with ``delta > 0``).
    witness : ExactWitness or None
        The reported comparison (the first violated one, else the tightest); None when no
        constraint is active.
    excess : float
        How far the matrix misses the target, in the target's units (epsilon; delta for
        approximate LDP and for deletion LDP with ``delta > 0``), as a float approximation
        of the exact value; ``<= tolerance`` when ``holds`` is True (``<= 0`` by default).
        For deletion LDP with ``delta > 0`` it is a rigorous upper bound when ``holds`` is
        None and a rigorous lower bound when ``holds`` is False.
    message : str
    digits : int
        The decimal precision of the bracket.
    achieved_delta : (Fraction, Fraction or float) or None
        Approximate LDP and deletion LDP with ``delta > 0``: a rigorous bracket of the
        smallest delta the matrix satisfies at this epsilon (the upper end is ``math.inf``
        if no reference could be built); None for the pure notions.
    """

    notion: str
    holds: bool | None
    ratio: Fraction | float | None
    threshold: tuple[Fraction, Fraction]
    witness: ExactWitness | None
    excess: float
    message: str
    digits: int = DEFAULT_DIGITS
    achieved_delta: tuple[Fraction, Fraction | float] | None = None


def _excess(r: Fraction | float, scale: Fraction, eps: float) -> float:
    """``ln(r) / scale - eps`` evaluated at 40 digits, then rounded to a float (so an excess
    of 1e-17 is reported as such, not as 0)."""
    if isinstance(r, float):  # inf
        return math.inf
    if r <= 0:
        return -math.inf
    if scale == 0:
        return 0.0 if r <= 1 else math.inf
    with localcontext() as ctx:
        ctx.prec = 40
        ln_r = Decimal(r.numerator).ln(ctx) - Decimal(r.denominator).ln(ctx)
        sc = Decimal(scale.numerator) / Decimal(scale.denominator)
        return float(ln_r / sc - Decimal(eps))


def _f(v: Fraction | float, digits: int = 17) -> str:
    """A Fraction (or inf) written with ``digits`` significant digits."""
    if isinstance(v, float):
        return "inf" if math.isinf(v) else f"{v:.{digits}g}"
    with localcontext() as ctx:
        ctx.prec = digits
        return str(+(Decimal(v.numerator) / Decimal(v.denominator)))


# ------------------------------------------------------------------------------ inputs
_integers = dyadic_integers


def _resolve(notion: Any, epsilon: Any, delta: Any, distance: Any, relation: dict) -> Notion:
    """The notion object given, or the one a name and parameters make (read by
    :meth:`~mechdesign.privacy.notions.Notion.from_name`)."""
    if isinstance(notion, str):
        params = {"epsilon": epsilon, "delta": delta if delta != 0.0 else None,
                  "distance": distance, **relation}
        if epsilon is not None:
            params["epsilon"] = check_epsilon(epsilon)
        if delta != 0.0:
            params["delta"] = check_delta(delta)
        elif notion.strip().lower().replace("-", "_") == "approx_ldp":
            params["delta"] = 0.0  # a parameter it needs (the others refuse a delta)
        notion = Notion.from_name(notion, **params)
    elif not isinstance(notion, Notion):
        raise InvalidParameterError(
            f"notion must be a name ({', '.join(NOTIONS)}) or a notion such as "
            f"md.LDP(epsilon=1), got {notion!r}")
    elif (epsilon is not None or delta != 0.0 or distance is not None
          or any(v is not None for v in relation.values())):
        raise InvalidParameterError(
            f"{notion!r} carries its own parameters; do not pass epsilon, delta, distance, "
            "pairs or graph")
    return notion


def _check_size(k: int, n: int, what: str) -> None:
    if k * n > MAX_EXACT_ENTRIES:
        raise SizeLimitError(
            f"exact verification is limited to {MAX_EXACT_ENTRIES} entries; the {what} has "
            f"{k} x {n} = {k * n}")


# ------------------------------------------------------------------------------ comparisons
@dataclass(frozen=True)
class _Ratio:
    """One comparison ``ratio <= e^{scale * eps}``."""

    ratio: Fraction | float
    scale: Fraction
    witness: ExactWitness


def _decide(r: _Ratio, eps: float, digits: int, tol: Fraction = Fraction(0)
            ) -> tuple[bool | None, tuple, float]:
    """``ratio <= e^{scale (eps + tol)}``, decided on the bracket of the exponent (``tol``
    is the tolerance in epsilon units); the excess is measured against ``eps`` itself."""
    lo, hi = exp_bracket(r.scale * (Fraction(eps) + tol), digits)
    excess = _excess(r.ratio, r.scale, eps)
    if isinstance(r.ratio, float):  # inf
        return False, (lo, hi), math.inf
    if r.ratio <= lo:
        return True, (lo, hi), excess if tol else min(excess, 0.0)
    if r.ratio > hi:
        return False, (lo, hi), max(excess, float(tol), 5e-324)
    return None, (lo, hi), excess


def _combine(name: str, target: str, comps: list[_Ratio], eps: float, digits: int,
             tol: Fraction = Fraction(0)) -> Verification:
    """The verdict over all comparisons: any False -> False, else any None -> None."""
    if tol:
        target = f"{target} (tolerance {float(tol)!r})"
    if not comps:
        one = (Fraction(1), Fraction(1))
        return Verification(name, True, Fraction(1), one, None, -eps,
                            f"{target} holds exactly: no constraint is active", digits)
    decided = [(_decide(c, eps, digits, tol), c) for c in comps]

    def worst(items: list) -> tuple:
        return max(items, key=lambda it: it[0][2])

    fails = [it for it in decided if it[0][0] is False]
    unknown = [it for it in decided if it[0][0] is None]
    if fails:
        (verdict, bracket, excess), c = worst(fails)
    elif unknown:
        (verdict, bracket, excess), c = worst(unknown)
    else:
        (verdict, bracket, excess), c = worst(decided)
    word = {True: "holds exactly", False: "does NOT hold exactly",
            None: f"is undecidable at {digits} digits"}[verdict]
    bound = "eps" if not tol else "(eps + tolerance)"
    msg = (f"{target} {word}: {c.witness.condition}; exact ratio {_f(c.ratio, 25)} vs "
           f"e^({_f(c.scale)} {bound}) in [{_f(bracket[0], 25)}, {_f(bracket[1], 25)}]; "
           f"excess {excess:.3g} in epsilon")
    return Verification(name, verdict, c.ratio, bracket, c.witness, excess, msg, digits)


def _column_ratios(A: list[list[int]], B: list[list[int]] | None,
                   scale: Fraction, what: str, labels: list | None = None) -> list[_Ratio]:
    """One comparison per column: ``max_x A[x, c] <= e^{scale eps} min_x B[x, c]`` (A and B
    integers over the same denominator, which cancels in the ratio)."""
    B = A if B is None else B
    k, n = len(A), len(A[0])
    out = []
    for c in range(n):
        col_a = [A[x][c] for x in range(k)]
        col_b = [B[x][c] for x in range(k)]
        hi = max(col_a)
        if hi == 0:
            continue
        x = col_a.index(hi)
        lo = min(col_b)
        xp = col_b.index(lo)
        ratio: Fraction | float = math.inf if lo == 0 else Fraction(hi, lo)
        where = labels[c] if labels is not None else c
        out.append(_Ratio(ratio, scale, ExactWitness(
            f"{what} {where!r}: row {x} over row {xp}", x, xp,
            None if labels is not None else c, where if labels is not None else None)))
    return out


# ------------------------------------------------------------------------------ notions
def _verify_ldp(N: list[list[int]], eps: float, digits: int, name: str = "ldp",
                target: str = "LDP", tol: Fraction = Fraction(0)) -> Verification:
    comps = _column_ratios(N, None, Fraction(1), "Q[x, y] <= e^eps Q[x', y], column")
    return _combine(name, f"{eps!r}-{target}", comps, eps, digits, tol)


def _threshold_t(P: list[int], R: list[int], delta: Fraction
                 ) -> tuple[Fraction | float, frozenset]:
    """Smallest t >= 0 with ``sum_y max(0, P_y - t R_y) <= delta`` and the maximising set.

    ``H(t)`` is continuous and non-increasing; between consecutive ratios ``P_y / R_y``
    (taken in decreasing order) it is ``a - t b`` with a, b the sums over the columns
    already passed, so the crossing is ``(a - delta) / b``.
    """
    a = sum(p for p, r in zip(P, R, strict=True) if r == 0)
    A = [y for y, (p, r) in enumerate(zip(P, R, strict=True)) if r == 0 and p > 0]
    if a > delta:
        return math.inf, frozenset(A)
    cols = sorted((y for y in range(len(P)) if R[y] > 0 and P[y] > 0),
                  key=lambda y: Fraction(P[y], R[y]), reverse=True)
    b = 0
    for y in cols:
        if a - Fraction(P[y], R[y]) * b > delta:
            return (a - delta) / b, frozenset(A)
        a += P[y]
        b += R[y]
        A.append(y)
    if a > delta:
        return (a - delta) / b, frozenset(A)
    return Fraction(0), frozenset()


def _hockey(P: list[int], R: list[int], e: Fraction) -> Fraction:
    """``sum_y max(0, P_y - e R_y)`` exactly (integer arithmetic, one division)."""
    en, ed = e.numerator, e.denominator
    total = 0
    for p, r in zip(P, R, strict=True):
        d = p * ed - en * r
        if d > 0:
            total += d
    return Fraction(total, ed)


def _verify_approx(N: list[list[int]], D: int, eps: float, delta: float, digits: int,
                   tol: Fraction = Fraction(0), pairs: list[tuple[int, int]] | None = None
                   ) -> Verification:
    k = len(N)
    dl = Fraction(delta) * D  # in units of 1 / D, like the entries
    allowed = (Fraction(delta) + tol) * D  # what the decision accepts
    lo, hi = exp_bracket(Fraction(eps), digits)
    h_hi = h_lo = Fraction(0)
    best_t: Fraction | float = Fraction(0)
    best = None
    if pairs is None:
        pairs = [(x, xp) for x in range(k) for xp in range(k) if x != xp]
    for x, xp in pairs:
        t, A = _threshold_t(N[x], N[xp], dl)
        if best is None or t > best_t:
            best_t, best = t, (x, xp, A)
        h_hi = max(h_hi, _hockey(N[x], N[xp], lo))  # H is non-increasing in e
        h_lo = max(h_lo, _hockey(N[x], N[xp], hi))
    holds = True if h_hi <= allowed else False if h_lo > allowed else None
    h_hi, h_lo = h_hi / D, h_lo / D
    excess = float(h_hi - Fraction(delta)) if holds is not False else float(
        h_lo - Fraction(delta))
    x, xp, A = best if best is not None else (None, None, frozenset())
    wit = None if best is None else ExactWitness(
        f"sum over the columns {sorted(A)} of Q[x, y] - e^eps Q[x', y] <= delta, row {x} "
        f"against row {xp}", x, xp, None, A)
    word = {True: "holds exactly", False: "does NOT hold exactly",
            None: f"is undecidable at {digits} digits"}[holds]
    vs = f"delta {delta!r}" + (f" + tolerance {float(tol)!r}" if tol else "")
    n_pairs = len(pairs) // 2
    on = ("" if len(pairs) == k * (k - 1)
          else f" on {n_pairs} neighbouring pair{'s' if n_pairs != 1 else ''}")
    msg = (f"({eps!r}, {delta!r})-LDP{on} {word}: largest hockey-stick sum in "
           f"[{_f(h_lo, 25)}, "
           f"{_f(h_hi, 25)}] vs {vs}; smallest e^eps this delta allows: "
           f"{_f(best_t, 25)}" + ("" if best is None else f" (rows {x}, {xp})"))
    return Verification("approx_ldp", holds, best_t, (lo, hi), wit, excess, msg, digits,
                        (h_lo, h_hi))


def _verify_deletion_pure(N: list[list[int]], D: int, eps: float, digits: int,
                          tol: Fraction = Fraction(0)) -> Verification:
    k, n = len(N), len(N[0])
    comps = _column_ratios(N, None, Fraction(2), "max_x Q[x, y] <= e^(2 eps) min_x Q[x, y], "
                                                 "column")
    s_max = sum(max(N[x][y] for x in range(k)) for y in range(n))
    s_min = sum(min(N[x][y] for x in range(k)) for y in range(n))
    comps.append(_Ratio(Fraction(s_max, D), Fraction(1),
                        ExactWitness("sum_y max_x Q[x, y] <= e^eps")))
    comps.append(_Ratio(math.inf if s_min == 0 else Fraction(D, s_min), Fraction(1),
                        ExactWitness("sum_y min_x Q[x, y] >= e^-eps (ratio 1 / sum)")))
    return _combine("deletion_ldp", f"{eps!r}-deletion LDP", comps, eps, digits, tol)


REFERENCE_BITS = 60
"""The LP's reference distribution is rounded to multiples of ``2^-60`` summing to 1."""


def _reference_candidates(r: np.ndarray) -> list[list[Fraction]]:
    """Exact distributions near the LP's float reference: r rounded to multiples of
    ``2^-REFERENCE_BITS`` (the remainder on the largest entry), and r's entries as the
    nearest fractions with denominators up to ``10^6`` when those sum to exactly 1 (an
    optimum such as the uniform reference 1/3 is then found exactly, not 1e-18 off)."""
    r = np.clip(np.nan_to_num(r, nan=0.0), 0.0, None)
    if r.sum() <= 0:
        return []
    unit = 1 << REFERENCE_BITS
    ints = [int(v) for v in np.floor(r / r.sum() * unit)]
    ints[int(np.argmax(r))] += unit - sum(ints)
    out = [[Fraction(v, unit) for v in ints]]
    snapped = [Fraction(float(v)).limit_denominator(10**6) for v in r]
    if sum(snapped) == 1:
        out.append(snapped)
    return out


def _mean_row(N: list[list[int]]) -> list[Fraction]:
    """The exact column means of the rows, scaled to sum to exactly 1 (a reference that
    proves delta = 0 for equal rows at any epsilon)."""
    sums = [sum(col) for col in zip(*N, strict=True)]
    total = sum(sums)
    return [Fraction(v, total) for v in sums]


def _worst_hockey(N: list[list[int]], D: int, r: list[Fraction], e: Fraction
                  ) -> tuple[Fraction, int, str]:
    """``max_x max(H_e(Q_x || r), H_e(r || Q_x))`` exactly, with the row and the side."""
    L = D
    for v in r:
        L = L * v.denominator // math.gcd(L, v.denominator)
    NQ = [[v * (L // D) for v in row] for row in N]
    rr = [int(v * L) for v in r]
    best, where, side = Fraction(-1), 0, ""
    for x, row in enumerate(NQ):
        for h, cond in ((_hockey(row, rr, e), "H(Q_x || r)"), (_hockey(rr, row, e), "H(r || Q_x)")):
            if h / L > best:
                best, where, side = h / L, x, cond
    return best, where, side


def _dual_bound(N: list[list[int]], D: int, lp: DeletionLP,
                brackets: tuple[Fraction, Fraction]) -> Fraction | None:
    r"""A rigorous lower bound on the smallest deletion delta from the LP's dual weights.

    For weights ``lambda >= 0`` (of the k + k hockey-stick rows), ``0 <= alpha[x, y] <=
    lambda^up_x`` and ``0 <= beta[x, y] <= lambda^down_x``, every reference r has

    .. math:: \Lambda \max_x \max(H(Q_x \| r), H(r \| Q_x))
              \ge \sum_x \lambda^{up}_x H(Q_x \| r) + \lambda^{down}_x H(r \| Q_x)
              \ge \sum_{x,y} \alpha_{xy} (Q_{xy} - e r_y) + \beta_{xy} (r_y - e Q_{xy})

    (``Lambda = sum lambda``; ``max(0, t) >= w t`` for ``w`` in [0, 1]). The right side is
    linear in r, so over the simplex its minimum is at a vertex:
    ``sum alpha Q - e sum beta Q + min_y (b_y - e a_y)`` with ``a_y = sum_x alpha[x, y]``,
    ``b_y = sum_x beta[x, y]``. It is concave in e, so its minimum over the bracket of
    ``e^eps`` is at an end. The LP's duals (read exactly, clipped into the ranges) make it
    the LP optimum up to the LP tolerance: the per-entry weights alpha, beta carry the
    fractional weight of columns where ``Q[x, y] = e r_y`` (a set-based bound, weight 0 or
    lambda, left brackets 0.04 wide).
    """
    k, n = len(N), len(N[0])
    lam_up = [Fraction(float(v)) for v in lp.lam_up]
    lam_down = [Fraction(float(v)) for v in lp.lam_down]
    total = sum(lam_up, Fraction(0)) + sum(lam_down, Fraction(0))
    if total <= 0:
        return None
    alpha = [[min(Fraction(float(lp.alpha[x, y])), lam_up[x]) for y in range(n)]
             for x in range(k)]
    beta = [[min(Fraction(float(lp.beta[x, y])), lam_down[x]) for y in range(n)]
            for x in range(k)]
    aq = sum((alpha[x][y] * N[x][y] for x in range(k) for y in range(n)), Fraction(0)) / D
    bq = sum((beta[x][y] * N[x][y] for x in range(k) for y in range(n)), Fraction(0)) / D
    a = [sum((alpha[x][y] for x in range(k)), Fraction(0)) for y in range(n)]
    b = [sum((beta[x][y] for x in range(k)), Fraction(0)) for y in range(n)]
    return min(aq - t * bq + min(b[y] - t * a[y] for y in range(n)) for t in brackets) / total


def _verify_deletion_approx(Qf: np.ndarray, N: list[list[int]], D: int, eps: float,
                            delta: float, digits: int, tol: Fraction = Fraction(0)
                            ) -> Verification:
    k = len(N)
    lo, hi = exp_bracket(Fraction(eps), digits)
    _lo2, hi2 = exp_bracket(2 * Fraction(eps), digits)
    target = f"({eps!r}, {delta!r})-deletion LDP"
    # upper bound: the LP's reference, made exact (two ways), and exact hockey-stick sums
    # (decreasing in e, so at the lower end of the bracket)
    upper: Fraction | None = None
    up_wit = None
    lp = deletion_lp(Qf, eps)
    for r in [*([] if lp is None else _reference_candidates(lp.r)), _mean_row(N)]:
        h, x, cond = _worst_hockey(N, D, r, lo)
        if upper is None or h < upper:
            upper, up_wit = h, ExactWitness(
                f"{cond} <= delta with the LP's reference r (made exact)", x)
    # lower bounds: the LP's dual weights, and necessary conditions for every pair
    lower, low_wit = Fraction(0), None
    if lp is not None:
        dual = _dual_bound(N, D, lp, (lo, hi))
        if dual is not None and dual > lower:
            lower, low_wit = dual, ExactWitness("LP dual bound: a weighted sum of the "
                                                "hockey-stick terms of every input")
    for x in range(k):
        for xp in range(k):
            if x == xp:
                continue
            s_min = sum(min(a, b) for a, b in zip(N[x], N[xp], strict=True))
            s_max = sum(max(a, b) for a, b in zip(N[x], N[xp], strict=True))
            for v, cond in (
                    (_hockey(N[x], N[xp], hi2) / D / (1 + hi),
                     "H_{e^2eps}(Q_x || Q_x') <= (1 + e^eps) delta"),
                    ((1 - hi * Fraction(s_min, D)) / 2,
                     "e^eps sum_y min(Q_x, Q_x') + 2 delta >= 1"),
                    ((Fraction(s_max, D) - hi) / 2, "sum_y max(Q_x, Q_x') - 2 delta <= e^eps")):
                if v > lower:
                    lower, low_wit = v, ExactWitness(cond + " (necessary)", x, xp)
    dl = Fraction(delta)
    allowed = dl + tol
    span = (f"the smallest delta lies in [{_f(lower, 25)}, "
            f"{'inf' if upper is None else _f(upper, 25)}]")
    if tol:
        target = f"{target} (tolerance {float(tol)!r})"
    if upper is not None and upper <= allowed:
        holds, excess, wit = True, float(upper - dl), up_wit
        how = f"{span}; the exact reference r proves it"
    elif lower > allowed:
        holds, excess, wit = False, float(lower - dl), low_wit
        how = f"{span}; the lower end is proved by: {low_wit.condition if low_wit else ''}"
    else:
        holds, wit = None, up_wit
        excess = math.inf if upper is None else float(upper - dl)
        how = (f"{span}, which contains the target (the LP's bracket is about "
               f"{DELETION_LP_TOLERANCE:g} wide); raise or lower delta by more than its width")
    word = {True: "holds exactly", False: "does NOT hold exactly",
            None: "is not settled exactly"}[holds]
    return Verification("deletion_ldp", holds, None, (dl, dl), wit, excess,
                        f"{target} {word}: {how}", digits,
                        (lower, math.inf if upper is None else upper))


def _exact_distances(distance: Any, inputs: tuple) -> list[list[Fraction | float]]:
    """Exact distances between the inputs: the matrix's entries, or shortest paths of a
    weighted graph summed in Fractions (Dijkstra); ``math.inf`` when unconstrained."""
    D = distance_matrix(distance, inputs)  # validates (shape, signs, nodes, weights)
    k = len(inputs)
    if not (hasattr(distance, "edges") and hasattr(distance, "nodes")):
        return [[math.inf if math.isinf(D[i, j]) else Fraction(float(D[i, j]))
                 for j in range(k)] for i in range(k)]
    directed = bool(getattr(distance, "is_directed", lambda: False)())
    adj: dict = {}
    for u, v, w in distance.edges(data="weight", default=1.0):
        fw = Fraction(float(w))
        for a, b in ((u, v), (v, u)) if not directed else ((u, v),):
            if b not in adj.setdefault(a, {}) or fw < adj[a][b]:
                adj[a][b] = fw
    out: list[list[Fraction | float]] = []
    for src in inputs:
        dist: dict = {src: Fraction(0)}
        heap = [(Fraction(0), 0, src)]
        count = 1
        done = set()
        while heap:
            d, _, u = heapq.heappop(heap)
            if u in done:
                continue
            done.add(u)
            for v, w in adj.get(u, {}).items():
                nd = d + w
                if v not in dist or nd < dist[v]:
                    dist[v] = nd
                    heapq.heappush(heap, (nd, count, v))
                    count += 1
        out.append([dist.get(dst, math.inf) for dst in inputs])
    return out


def _verify_metric(mech: Mechanism, Q: list[list[int]], eps: float, distance: Any,
                   digits: int, tol: Fraction = Fraction(0)) -> Verification:
    D = _exact_distances(distance, mech.inputs)
    k, n = len(Q), len(Q[0])
    comps = []
    for x in range(k):
        for xp in range(k):
            d = D[x][xp]
            if x == xp or (isinstance(d, float) and math.isinf(d)):
                continue
            worst: Fraction | float = Fraction(0)
            col = None
            for y in range(n):
                a, b = Q[x][y], Q[xp][y]
                if a == 0:
                    continue
                r: Fraction | float = math.inf if b == 0 else Fraction(a, b)
                if col is None or r > worst:
                    worst, col = r, y
            if col is None:
                continue
            comps.append(_Ratio(worst, Fraction(d), ExactWitness(
                f"Q[x, y] <= e^(eps d) Q[x', y] with d = {_f(d)}: rows {x}, {xp}, column "
                f"{col}", x, xp, col)))
    return _combine("metric", f"{eps!r}-metric privacy", comps, eps, digits, tol)


def _verify_events(ev: EvidentialMechanism, name: str, eps: float, digits: int,
                   tol: Fraction = Fraction(0)) -> Verification:
    m = ev.n_outputs
    if m > MAX_EXACT_OUTPUTS:
        raise SizeLimitError(
            f"exact {name} enumerates 2^m events; m = {m} outputs exceeds "
            f"{MAX_EXACT_OUTPUTS}")
    M, _D = _integers(ev.masses)
    masks = [int(b) for b in ev.focal_masks]
    labels = [ev.event(E) for E in range(1, 1 << m)]
    bel = event_sums(M, masks, m, "bel") if name in ("sldp_bel", "wldp") else None
    if name == "sldp_bel":
        comps = _column_ratios(bel, None, Fraction(1), "bel_x(E) <= e^eps bel_x'(E), event",
                               labels)
        target = f"{eps!r}-bel-SLDP"
    elif name == "sldp_pl":
        pl = event_sums(M, masks, m, "pl")
        comps = _column_ratios(pl, None, Fraction(1), "pl_x(E) <= e^eps pl_x'(E), event",
                               labels)
        target = f"{eps!r}-pl-SLDP"
    else:
        pl = event_sums(M, masks, m, "pl")
        comps = _column_ratios(pl, bel, Fraction(1), "pl_x(E) <= e^eps bel_x'(E), event",
                               labels)
        target = f"{eps!r}-WLDP"
    return _combine(name, target, comps, eps, digits, tol)


# ------------------------------------------------------------------------------ entry point
def verify_exact(mechanism: Any, notion: Any, epsilon: float | None = None,
                 delta: float = 0.0, distance: Any = None, *, pairs: Any = None,
                 graph: Any = None, digits: int = DEFAULT_DIGITS, tolerance: float = 0.0
                 ) -> Verification:
    r"""Decide in exact rational arithmetic whether ``mechanism`` meets a privacy notion.

    Parameters
    ----------
    mechanism : Mechanism, EvidentialMechanism or array_like
        At most :data:`MAX_EXACT_ENTRIES` entries. Ordinary notions read an evidential
        mechanism over its messages; the SLDP/WLDP notions read an ordinary mechanism as
        the Bayesian evidential one (singleton focal sets), as the float measures do.
    notion : str or notion object
        One of :data:`NOTIONS`, or a notion of :mod:`mechdesign.privacy` (``LDP``,
        ``ApproxLDP``, ``DeletionLDP``, ``MetricDP``, ``SLDP``, ``WLDP``), whose class and
        fields are read (then ``epsilon``, ``delta`` and ``distance`` must not be given).
    epsilon : float
        The target (required with a name).
    delta : float
        ``approx_ldp`` and ``deletion_ldp`` only.
    distance : array_like or networkx graph
        ``metric`` only: a ``(k, k)`` matrix or a weighted graph on the input labels.
    pairs, graph : optional
        ``approx_ldp`` only: the neighbour relation (pairs of input labels or row indices,
        or a networkx graph on the input labels; see
        :func:`~mechdesign.neighbors.neighbour_pairs`). Only neighbouring pairs are checked,
        in both orders. Default: every pair of inputs.
    digits : int
        Decimal digits of the bracket of ``e^x`` (at least 20).
    tolerance : float
        Slack in the target's units, added exactly (as rationals) to the target: ``holds``
        is True when the exact value is at most ``epsilon + tolerance`` for the pure notions
        (``ldp``, ``deletion_ldp`` with ``delta = 0``, ``metric``, the SLDP notions,
        ``wldp``; for metric privacy the bound is ``e^{(epsilon + tolerance) d}``) and at
        most ``delta + tolerance`` for ``approx_ldp`` and ``deletion_ldp`` with ``delta > 0``
        (epsilon is then exact). The default 0 is the strict check. ``excess`` is still
        measured against the target itself, so it may be positive, up to ``tolerance``,
        when ``holds`` is True.

    Returns
    -------
    Verification
        ``holds`` is True (proved), False (disproved) or None (undecidable at ``digits``).

    Notes
    -----
    See the module docstring for each notion's exact condition, the deletion-LDP closed form
    and its derivation, and the bracketing of ``e^x``. References: Li et al. 2022
    (``docs/belief_functions.md``, s.2), Huang & Canonne Defs. 2.2-2.3
    (``docs/accounting.md``, s.1).

    Examples
    --------
    >>> import mechdesign as md
    >>> v = verify_exact(md.warner(0.75), "ldp", 1.0986123)  # ln 3 = 1.09861228866...
    >>> v.holds, v.ratio
    (True, Fraction(3, 1))
    """
    digits = check_int(digits, "digits", 20)
    tol = Fraction(check_epsilon(tolerance, "tolerance"))
    resolved = _resolve(notion, epsilon, delta, distance, {"pairs": pairs, "graph": graph})
    return notion_facet(resolved, "exact_verifier")(mechanism, resolved, digits, tol)


# ------------------------------------------------------------------------------ registrations
# One exact verifier per notion type, registered on the notion registry's facets
# (:data:`mechdesign.privacy.notions.FACETS`): ``fn(mechanism, notion, digits, tolerance)``.
def _ordinary(mechanism: Any) -> tuple[Mechanism, list[list[int]], int]:
    mech = as_mechanism(mechanism)
    _check_size(mech.n_inputs, mech.n_outputs, "mechanism")
    N, D = _integers(mech.matrix)
    return mech, N, D


def _evidential(mechanism: Any) -> EvidentialMechanism:
    ev = as_evidential(mechanism)
    _check_size(ev.n_inputs, len(ev.focal_sets), "evidential mechanism")
    return ev


def _exact_ldp(mechanism: Any, notion: Any, digits: int, tol: Fraction) -> Verification:
    return _verify_ldp(_ordinary(mechanism)[1], notion.epsilon, digits, tol=tol)


def _exact_approx(mechanism: Any, notion: Any, digits: int, tol: Fraction) -> Verification:
    mech, N, D = _ordinary(mechanism)
    rel = neighbour_pairs(mech.inputs, **notion.relation)
    ordered = None if rel is None else list(zip(*map(np.ndarray.tolist, ordered_pairs(*rel)),
                                                 strict=True))
    return _verify_approx(N, D, notion.epsilon, notion.delta, digits, tol, ordered)


def _exact_deletion(mechanism: Any, notion: Any, digits: int, tol: Fraction) -> Verification:
    mech, N, D = _ordinary(mechanism)
    if notion.delta == 0.0:
        return _verify_deletion_pure(N, D, notion.epsilon, digits, tol)
    return _verify_deletion_approx(mech.matrix, N, D, notion.epsilon, notion.delta, digits, tol)


def _exact_metric(mechanism: Any, notion: Any, digits: int, tol: Fraction) -> Verification:
    mech, N, _ = _ordinary(mechanism)
    return _verify_metric(mech, N, notion.epsilon, notion.distance, digits, tol)


def _exact_belief(mechanism: Any, notion: Any, digits: int, tol: Fraction) -> Verification:
    ev = _evidential(mechanism)
    if notion.variant == "sldp_mass":
        return _verify_ldp(_integers(ev.masses)[0], notion.epsilon, digits, "sldp_mass",
                           "SLDP (masses)", tol)
    return _verify_events(ev, notion.variant, notion.epsilon, digits, tol)


for _cls, _fn in ((LDP, _exact_ldp), (ApproxLDP, _exact_approx), (DeletionLDP, _exact_deletion),
                  (MetricDP, _exact_metric), (SLDP, _exact_belief), (WLDP, _exact_belief)):
    register_facet(_cls, "exact_verifier", _fn)
