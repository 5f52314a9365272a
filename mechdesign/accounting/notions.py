r"""Notions whose measure is the accounting layer's: Rényi LDP and a central target after
repeated use.

* :class:`RenyiLDP` ``(alpha, epsilon)``: every ordered pair of neighbouring inputs has Rényi
  divergence ``D_alpha(Q[x] || Q[x']) <= epsilon`` (Mironov 2017, Definition 4, read
  locally). Measured by :func:`~mechdesign.accounting.renyi.renyi_epsilon` (rounded
  outward), proved by :func:`exact_renyi` (exact rationals at integer orders, a rigorous
  decimal bracket otherwise), designed with power cones (``docs/formulations.md``).
* :class:`Composed` ``(uses, epsilon, delta)``: the randomizer, used ``uses`` times on the
  same input, is (epsilon, delta)-LDP as a whole. Measured by the exact composition of
  :func:`~mechdesign.accounting.composition.compose` (privacy-loss atoms) when the atoms
  are few, else by the matrix's exact Rényi curve and a proven conversion. The design
  reaches it through per-use notions whose composition is proven
  (:mod:`mechdesign.design.methods.composed`) and reports this measure beside the target.
* :class:`Shuffled` ``(n, epsilon, delta)``: n users, one report each, shuffled; measured
  by the clone bound at the matrix's exact local epsilon
  (:mod:`mechdesign.design.methods.shuffled`).

All are registered on the notion registry (:func:`~mechdesign.privacy.notions.register`)
when this module is imported; :meth:`Notion.from_name
<mechdesign.privacy.notions.Notion.from_name>` imports it on first use of their names
(:data:`~mechdesign.privacy.notions.PROVIDERS`), so they live beside their measures and
nothing below imports this layer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from .._coerce import as_mechanism
from .._exact import dyadic_integers
from .._validation import check_delta, check_int, check_real
from ..errors import InvalidParameterError
from ..neighbors import ordered_pairs
from ..privacy.notions import Notion, Related, register, register_facet
from ..privacy.verify import ExactWitness, Verification, _check_size

__all__ = [
    "MAX_EXACT_ORDER",
    "MEASURE_MAX_ATOMS",
    "MEASURE_ORDERS",
    "Composed",
    "RenyiLDP",
    "Shuffled",
    "composed_delta",
    "exact_renyi",
    "pure_budget",
    "renyi_budget",
    "shuffle_budget",
]

MAX_EXACT_ORDER = 64
"""Largest integer order that :func:`exact_renyi` evaluates in exact rationals
(``sum_y N_x^a / N_x'^(a - 1)`` has about ``53 a`` bits per term); other orders are
bracketed in decimal arithmetic."""


def _check_alpha(alpha: Any) -> float:
    a = check_real(alpha, "alpha")
    if not 1.0 <= a < math.inf:
        hint = " (alpha = inf is pure LDP: use md.LDP)" if a == math.inf else ""
        raise InvalidParameterError(f"alpha must be a finite order >= 1, got {alpha!r}{hint}")
    return a


@register
@dataclass(frozen=True)
class RenyiLDP(Related, Notion):
    r"""Rényi LDP: ``D_alpha(Q[x] || Q[x']) <= epsilon`` for every ordered pair of inputs
    (or of neighbouring inputs: ``pairs`` or ``graph`` as in
    :class:`~mechdesign.privacy.notions.ApproxLDP`).

    .. math:: D_\alpha(P \| R) = \frac{1}{\alpha - 1} \ln \sum_y P_y^\alpha R_y^{1 - \alpha}
              \quad (\alpha > 1), \qquad D_1(P \| R) = \sum_y P_y \ln \frac{P_y}{R_y}.

    Rényi divergences add up under composition, so ``uses`` uses of an
    ``(alpha, eps)``-Rényi-LDP randomizer are ``(alpha, uses * eps)``; an eps-LDP randomizer
    is ``(alpha, eps)`` at every order (``D_alpha <= D_inf``). ``alpha`` is a finite order
    ``>= 1`` (1: the Kullback-Leibler divergence). Reference: I. Mironov, "Rényi
    differential privacy", CSF 2017.
    """

    alpha: float
    epsilon: float
    pairs: tuple | None = None
    graph: Any = field(default=None, repr=False)
    name: ClassVar[str] = "renyi_ldp"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "alpha", _check_alpha(self.alpha))
        self.check_relation()

    def index_pairs(self, inputs: Any) -> np.ndarray | None:
        """The ordered neighbouring pairs as an ``(m, 2)`` row-index array (None: all)."""
        relation = self.neighbours(inputs)
        if relation is None:
            return None
        return np.column_stack(ordered_pairs(*relation))

    def measure(self, mechanism: Any) -> float:
        from .renyi import renyi_epsilon

        m = as_mechanism(mechanism)
        pairs = self.index_pairs(m.inputs)
        return renyi_epsilon(m, self.alpha, pairs=None if pairs is None else pairs.tolist())

    def ties_columns(self, inputs: tuple) -> bool:
        # a finite D_alpha (alpha >= 1) needs supp Q[x] within supp Q[x'] for each ordered
        # pair: along a connected relation every row has the same support
        return self.connects(inputs)

    def __repr__(self) -> str:
        return f"RenyiLDP(alpha={self.alpha!r}, epsilon={self.epsilon!r}{self.relation_repr()})"

    def describe(self) -> str:
        order = "KL (alpha = 1)" if self.alpha == 1.0 else f"alpha = {self.alpha:g}"
        return f"Rényi LDP, {order}, epsilon = {self.epsilon:g}" + self.relation_text()


class Central(Notion):
    """A central (epsilon, delta) target reached through a per-use randomizer: measured as a
    delta at the target epsilon; ``count`` names the integer field (uses, users)."""

    count: ClassVar[str] = ""

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, self.count, check_int(getattr(self, self.count), self.count, 1))

    @property
    def target(self) -> float:
        return self.delta  # type: ignore[attr-defined]

    @property
    def measures_delta(self) -> bool:
        return True


@register
@dataclass(frozen=True)
class Composed(Central):
    r"""A central target after repeated use: the randomizer applied ``uses`` times to the
    same input (independent randomness each time) is (epsilon, delta)-LDP as a whole.

    .. math:: \max_{x \ne x'} H_{e^\varepsilon}\big(Q[x]^{\otimes u} \,\big\|\,
              Q[x']^{\otimes u}\big) \le \delta

    :meth:`measure` is an upper bound on the delta of the ``uses``-fold composition at
    ``epsilon`` (:func:`composed_delta`): the exact value from the privacy-loss atoms of
    every ordered pair when they are few, else the bound of the matrix's exact Rényi curve;
    never below the exact value. The number of uses is called ``uses`` (``k`` is
    the number of inputs everywhere in mechdesign). A design for this notion
    (:mod:`mechdesign.design.methods.composed`) solves per-use problems whose composition is
    proven to meet the target (pure LDP by the optimal composition theorem, Rényi LDP by
    the conversion of Canonne, Kamath and Steinke) and keeps the better one.
    """

    uses: int
    epsilon: float
    delta: float
    name: ClassVar[str] = "composed"
    count: ClassVar[str] = "uses"

    def ties_columns(self, inputs: tuple) -> bool:
        return self.delta == 0.0

    def measure(self, mechanism: Any) -> float:
        return composed_delta(mechanism, self.uses, self.epsilon)[1]

    def describe(self) -> str:
        return (f"composed: {self.uses} uses together ({self.epsilon:g}, {self.delta:g})-LDP")


MEASURE_MAX_ATOMS = 6_000
"""Largest number of composed privacy-loss atoms per pair that :func:`composed_delta`
computes exactly when the matrix has more than two distinct ordered pairs (with at most two,
as k-RR, the composition's own limit applies, as in calibration); beyond it the
Rényi bound alone is used (an interior-point design's rows differ in every entry, and the
grid bracket of 90 pairs at 100 uses took 7-16 s)."""

MEASURE_ORDERS = tuple(float(a) for a in 1.0 + np.geomspace(1e-2, 1e4, 61))
"""The orders of the Rényi bound of :func:`composed_delta`."""


def _rdp_delta(m: Any, uses: int, epsilon: float) -> float:
    r"""An upper bound on the delta at ``epsilon`` of ``uses`` uses, from the matrix's Rényi
    curve (rounded outward) and the conversion of Canonne, Kamath and Steinke:

    .. math:: \ln\delta(\alpha) = (\alpha - 1)\big(u\,\varepsilon(\alpha) - \varepsilon
              + \ln(1 - 1/\alpha)\big) - \ln\alpha,

    convex in alpha (``(alpha - 1) D_alpha`` is convex, and so is the rest), minimised over
    :data:`MEASURE_ORDERS` and then by a bounded scalar search around the best of them. The
    candidate is confirmed by the outward forward conversion (raised until it is), so it is
    never below what that conversion proves."""
    from scipy.optimize import minimize_scalar

    from .renyi import _conversion_up, renyi_epsilon

    def log_delta(a: float) -> float:
        r = uses * renyi_epsilon(m, a)
        if not math.isfinite(r):
            return math.inf
        return (a - 1) * (r - epsilon + math.log1p(-1 / a)) - math.log(a)

    grid = [log_delta(a) for a in MEASURE_ORDERS]
    i = int(np.argmin(grid))
    lo, hi = MEASURE_ORDERS[max(i - 1, 0)], MEASURE_ORDERS[min(i + 1, len(MEASURE_ORDERS) - 1)]
    a_best, v_best = MEASURE_ORDERS[i], grid[i]
    if hi > lo:
        found = minimize_scalar(log_delta, bounds=(lo, hi), method="bounded",
                                options={"xatol": 1e-9 * hi})
        if found.fun < v_best:
            a_best, v_best = float(found.x), float(found.fun)
    if not math.isfinite(v_best) or v_best >= 0:
        return 1.0
    r = uses * renyi_epsilon(m, a_best)
    d = math.exp(v_best)
    for _ in range(40):
        if d >= 1.0:
            return 1.0
        if _conversion_up(r, a_best, d, "canonne") <= epsilon:
            return d
        d *= 1 + 1e-12 * 4 ** _
    return 1.0


@lru_cache(maxsize=16)
def _composed(matrix: bytes, shape: tuple[int, int], uses: int, epsilon: float
              ) -> tuple[float, float, str]:
    from ..errors import SizeLimitError
    from .composition import compose
    from .pld import MAX_ATOMS

    m = as_mechanism(np.frombuffer(matrix).reshape(shape))
    Q = m.matrix
    distinct = {tuple(sorted(zip(Q[x], Q[y], strict=True)))
                for x in range(shape[0]) for y in range(shape[0]) if x != y}
    # few distinct pairs (k-RR and other structured designs): as many atoms as calibration
    # uses, so a calibrated family measures as it was calibrated
    atoms = MAX_ATOMS if len(distinct) <= 2 else MEASURE_MAX_ATOMS
    try:
        res = compose(m, uses, method="exact", max_atoms=atoms).delta(epsilon)
    except SizeLimitError:  # too many atoms: the Rényi bound alone
        return 0.0, _rdp_delta(m, uses, epsilon), "Rényi bound"
    return res.lower, res.upper, "exact atoms"


def composed_delta(mechanism: Any, uses: int, epsilon: float) -> tuple[float, float, str]:
    """``(lower, upper, how)``: bounds on the delta at ``epsilon`` of ``uses`` uses of
    ``mechanism``; ``upper`` is never below the exact value. The exact composition
    (:func:`~mechdesign.accounting.composition.compose`, privacy-loss atoms) when it has at
    most :data:`MEASURE_MAX_ATOMS` atoms per pair (``how = "exact atoms"``: ``lower`` and
    ``upper`` bracket the exact value within rounding), else the Rényi bound of
    :func:`_rdp_delta` (``how = "Rényi bound"``, ``lower = 0``). The last answers are cached
    by the matrix's bytes: certification measures, then verifies, the same matrix."""
    Q = np.ascontiguousarray(as_mechanism(mechanism).matrix, dtype=float)
    return _composed(Q.tobytes(), Q.shape, check_int(uses, "uses", 1), float(epsilon))


def pure_budget(uses: int, epsilon: float, delta: float) -> float:
    r"""The largest per-use eps0 at which EVERY eps0-LDP randomizer used ``uses`` times is
    (epsilon, delta)-LDP: the eps0 at which binary randomized response's exact composition
    meets the target (Kairouz, Oh and Viswanath 2015: binary RR composes worst among
    eps0-DP pairs), by :func:`~mechdesign.accounting.calibration.calibrate_composition`
    (bisection on the doubles, outward-rounded forward value)."""
    from .calibration import calibrate_composition

    cal = calibrate_composition("randomized_response", params={"k": 2},
                                target_epsilon=epsilon, target_delta=delta,
                                k=check_int(uses, "uses", 1))
    return float(cal.value)


@register
@dataclass(frozen=True)
class Shuffled(Central):
    r"""A central target in the shuffle model: ``n`` users each send one report of the
    randomizer, the reports are shuffled, and the multiset is (epsilon, delta)-DP with
    respect to one user's input.

    :meth:`measure` is the Feldman-McMillan-Talwar clone bound at the matrix's exact
    local epsilon (:func:`~mechdesign.accounting.amplification.shuffle_delta`, rounded
    outward): an upper bound on the shuffled delta of every randomizer with that local
    epsilon. Where ``n`` is small enough, the design also reports the exact shuffled delta
    (:func:`~mechdesign.accounting.exact_shuffling.exact_shuffle_delta`, a float
    evaluation) beside it. References: V. Feldman, A. McMillan, K. Talwar, "Hiding among
    the clones", FOCS 2021 / "Stronger privacy amplification by shuffling", SODA 2023.
    """

    n: int
    epsilon: float
    delta: float
    name: ClassVar[str] = "shuffled"
    count: ClassVar[str] = "n"

    def ties_columns(self, inputs: tuple) -> bool:
        return True

    def measure(self, mechanism: Any) -> float:
        from ..privacy.measures import epsilon_ldp
        from .amplification import shuffle_delta

        e0 = epsilon_ldp(mechanism)
        if not math.isfinite(e0):
            return 1.0
        return shuffle_delta(e0, self.n, self.epsilon).upper

    def describe(self) -> str:
        return (f"shuffled: {self.n} users, one report each, central ({self.epsilon:g}, "
                f"{self.delta:g})-DP")


def shuffle_budget(n: int, epsilon: float, delta: float) -> float:
    """The largest local eps0 whose clone bound for ``n`` shuffled reports meets
    (epsilon, delta) (:func:`~mechdesign.accounting.calibration.calibrate_shuffle`)."""
    from .calibration import calibrate_shuffle

    return float(calibrate_shuffle("epsilon0", target_epsilon=epsilon, target_delta=delta,
                                   n=check_int(n, "n", 1)).value)


def renyi_budget(uses: int, epsilon: float, delta: float, alpha: float) -> float:
    r"""The largest per-use Rényi epsilon at order ``alpha`` whose ``uses``-fold composition
    converts to an (epsilon, delta) guarantee by the conversion of Canonne, Kamath and
    Steinke (2020, Prop. 12):

    .. math:: r = \frac{1}{u}\Big(\varepsilon - \ln\frac{\alpha - 1}{\alpha}
              + \frac{\ln\delta + \ln\alpha}{\alpha - 1}\Big)

    (``0`` when that is negative: the order cannot reach the target). Checked with the
    outward-rounded conversion (:func:`~mechdesign.accounting.renyi.rdp_to_dp`'s), and
    lowered by ulps until the composed, converted value is at most ``epsilon``.
    """
    from .renyi import _conversion_up

    uses = check_int(uses, "uses", 1)
    delta = check_delta(delta)
    a = _check_alpha(alpha)
    if a == 1.0 or delta == 0.0:
        return 0.0
    r = (epsilon - math.log((a - 1) / a) + (math.log(delta) + math.log(a)) / (a - 1)) / uses
    for _ in range(64):
        if r <= 0:
            return 0.0
        if _conversion_up(r * uses * (1 + 2.0**-52), a, delta, "canonne") <= epsilon:
            return r
        r *= 1 - 2.0**-40
    return 0.0  # pragma: no cover - the formula is within ulps of the outward one


# ------------------------------------------------------------------------------ exact check
def _pair_sum(P: list[int], R: list[int], D: int, a: Fraction, prec: int
              ) -> tuple[Fraction, Fraction] | None:
    r"""A rigorous bracket of ``S = sum_y P_y^a R_y^(1 - a)`` (``a > 1``) or of the KL sum
    ``sum_y P_y ln(P_y / R_y)`` (``a = 1``) for the rows ``N / D``; None (an infinite
    divergence) when P has mass where R has none."""
    if any(p > 0 and r == 0 for p, r in zip(P, R, strict=True)):
        return None
    if a.denominator == 1 and 1 < a <= MAX_EXACT_ORDER:
        e = int(a)
        s = sum(Fraction(p**e, r ** (e - 1)) for p, r in zip(P, R, strict=True) if p > 0)
        return s / D, s / D
    with localcontext() as ctx:
        ctx.prec = prec
        da = Decimal(a.numerator) / Decimal(a.denominator)
        total = Decimal(0)
        err = Decimal(0)
        unit = Decimal(10) ** (1 - prec)
        for p, r in zip(P, R, strict=True):
            if p == 0:
                continue
            lp, lr = Decimal(p).ln(), Decimal(r).ln()
            if a == 1:
                term = Decimal(p) * (lp - lr) / Decimal(D)
                bound = abs(term) * 8 * unit + Decimal(p) / D * (abs(lp) + abs(lr)) * 4 * unit
            else:
                x = (da - 1) * (lp - lr)
                term = Decimal(p) * x.exp() / Decimal(D)
                # relative: the two logs (|ln| ulps each, times a - 1), the product, exp
                bound = abs(term) * (8 + 4 * (da - 1) * (abs(lp) + abs(lr)) + 4 * abs(x)) * unit
            total += term
            err += bound + abs(total) * 2 * unit
        mid = Fraction(total)
        slack = Fraction(err)
        return mid - slack, mid + slack


def exact_renyi(mechanism: Any, notion: RenyiLDP, digits: int = 40,
                tol: Fraction = Fraction(0)) -> Verification:
    r"""Decide ``D_alpha(Q[x] || Q[x']) <= epsilon + tol`` for every (neighbouring) ordered
    pair of the stored matrix, rigorously.

    The rows are read exactly (``N / D``, :func:`~mechdesign._exact.dyadic_integers`). At
    an integer order up to :data:`MAX_EXACT_ORDER` the sum
    ``S = sum_y P_y^alpha R_y^(1 - alpha)`` is an exact rational; at other orders it is
    evaluated in decimal arithmetic at ``digits + 20`` digits with a bound on every
    rounding (logarithms and exponentials are correctly rounded), giving a bracket. ``S`` is
    compared with the bracket of ``e^{(alpha - 1)(eps + tol)}`` (the KL sum with ``eps + tol``
    itself): proved (True) when the bracket of S is below, disproved (False) when above,
    undecided (None) otherwise.
    """
    m = as_mechanism(mechanism)
    _check_size(m.n_inputs, m.n_outputs, "mechanism")
    N, D = dyadic_integers(m.matrix)
    idx = notion.index_pairs(m.inputs)
    pairs = ([(x, xp) for x in range(m.n_inputs) for xp in range(m.n_inputs) if x != xp]
             if idx is None else [tuple(map(int, p)) for p in idx])
    a = Fraction(notion.alpha)
    target = Fraction(notion.epsilon) + tol
    # compared in logs: e^{(alpha - 1) eps} overflows any clamp at alpha = 1000, eps = 3
    lo = hi = target if a == 1 else (a - 1) * target
    verdict: bool | None = True
    worst = None
    for x, xp in pairs:
        bracket = _pair_sum(N[x], N[xp], D, a, digits + 20)
        if bracket is None:
            witness = ExactWitness(f"Q[{x}] has mass where Q[{xp}] has none", x, xp)
            return Verification("renyi_ldp", False, math.inf, (lo, hi), witness, math.inf,
                                f"{notion.describe()} does NOT hold: D_alpha(Q[{x}] || "
                                f"Q[{xp}]) is infinite", digits)
        s_lo, s_hi = bracket if a == 1 else _ln_bracket(*bracket, digits + 20)
        v = True if s_hi <= lo else False if s_lo > hi else None
        if worst is None or s_hi > worst[1]:
            worst = (s_lo, s_hi, x, xp)
        if v is False:
            verdict = False
        elif v is None and verdict is True:
            verdict = None
    s_lo, s_hi, x, xp = worst  # type: ignore[misc]
    mid = (s_lo + s_hi) / 2
    achieved = float(mid if a == 1 else mid / (a - 1))
    word = {True: "holds exactly", False: "does NOT hold exactly",
            None: f"is undecidable at {digits} digits"}[verdict]
    what = "KL sum" if a == 1 else f"ln sum P^{float(a):g} R^(1 - {float(a):g})"
    msg = (f"{notion.describe()} {word}: worst pair ({x}, {xp}), {what} in "
           f"[{_short(s_lo)}, {_short(s_hi)}] vs bound in [{_short(lo)}, {_short(hi)}]; "
           f"divergence about {achieved:.17g}")
    witness = ExactWitness(f"D_alpha(Q[{x}] || Q[{xp}]) <= epsilon", x, xp)
    return Verification("renyi_ldp", verdict, mid, (lo, hi), witness,
                        achieved - notion.epsilon, msg, digits)


def _ln_bracket(lo: Fraction, hi: Fraction, prec: int) -> tuple[Fraction, Fraction]:
    """A rigorous bracket of ``ln v`` for ``lo <= v <= hi`` (positive rationals): the
    logarithms of numerator and denominator are correctly rounded at ``prec`` digits, so
    a few units of their last place either side cover it."""
    with localcontext() as ctx:
        ctx.prec = prec
        unit = Decimal(10) ** (1 - prec)

        def ln(v: Fraction) -> tuple[Decimal, Decimal]:
            p, q = Decimal(v.numerator).ln(), Decimal(v.denominator).ln()
            slack = (abs(p) + abs(q) + 1) * 2 * unit
            return p - q - slack, p - q + slack

        return Fraction(ln(lo)[0]), Fraction(ln(hi)[1])


def _short(v: Fraction) -> str:
    """A rational of any size in 17 significant digits."""
    with localcontext() as ctx:
        ctx.prec = 17
        return str(Decimal(v.numerator) / Decimal(v.denominator))


def _exact_composed(mechanism: Any, notion: Composed, digits: int, tol: Fraction
                    ) -> Verification:
    """The composed delta's outward bound (:func:`composed_delta`), not a rational
    computation: proved when it is at most the target, disproved when the exact atoms'
    lower end is above it, else undecided."""
    lower, upper, how = composed_delta(mechanism, notion.uses, notion.epsilon)
    allowed = Fraction(notion.delta) + tol
    verdict = True if Fraction(upper) <= allowed else (
        False if Fraction(lower) > allowed else None)
    word = {True: "holds", False: "does NOT hold", None: "is not settled"}[verdict]
    msg = (f"{notion.describe()} {word}: composed delta in [{lower!r}, {upper!r}] "
           f"({how})")
    return Verification("composed", verdict, None, (Fraction(notion.delta),) * 2, None,
                        upper - notion.delta, msg, digits,
                        achieved_delta=(Fraction(lower), upper))


def _exact_shuffled(mechanism: Any, notion: Shuffled, digits: int, tol: Fraction
                    ) -> Verification:
    """The matrix's local epsilon (the float measure, proved an upper bound by the exact LDP
    check), then the clone bound (outward) at it: proved when that bound is within the
    target; otherwise undecided (the clone bound is an upper bound on the shuffled delta,
    not the delta itself)."""
    from ..privacy.measures import epsilon_ldp
    from ..privacy.notions import LDP
    from ..privacy.verify import verify_exact

    e0 = epsilon_ldp(mechanism)
    local = verify_exact(mechanism, LDP(e0)).holds is True if math.isfinite(e0) else False
    bound = notion.measure(mechanism)
    verdict = True if local and Fraction(bound) <= Fraction(notion.delta) + tol else None
    msg = (f"{notion.describe()} {'holds' if verdict else 'is not settled'}: local epsilon "
           f"{e0!r} {'proved' if local else 'not proved'}, clone bound {bound!r}")
    return Verification("shuffled", verdict, None, (Fraction(notion.delta),) * 2, None,
                        bound - notion.delta, msg, digits)


register_facet(RenyiLDP, "exact_verifier", exact_renyi)
register_facet(Shuffled, "exact_verifier", _exact_shuffled)
register_facet(Composed, "exact_verifier", _exact_composed)
