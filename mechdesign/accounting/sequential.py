r"""Randomizers in sequence and advanced grouposition.

Sources: Huang & Canonne, "Lemmas of differential privacy" (Lemma 4.5, Cor 4.1, Thm 4.1,
Thm 4.2); Bun, Nelson, Stemmer, "Heavy hitters and the structure of local privacy" (BNS19);
Kairouz, Oh, Viswanath, "The composition theorem for differential privacy" (KOV15).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from .._coerce import as_mechanism
from .._exact import dexpm1, dlog1p, dyadic_integers, float_up, log_ratio, outward
from .._exact import up as _up
from .._html import value_view
from .._validation import check_epsilon, check_int, check_probability
from ..errors import InvalidMechanismError, InvalidParameterError
from ..mechanism import Mechanism
from ..privacy.measures import epsilon_deletion, epsilon_ldp
from .bounds import _linear_up, check_advanced

__all__ = [
    "EXACT_PRODUCT_WORK",
    "GroupPrivacy",
    "SequentialPrivacy",
    "advanced_grouposition",
    "advanced_grouposition_approx",
    "sequential_composition",
    "sequential_epsilon",
]


def sequential_epsilon(epsilon1: float, epsilon2: float) -> float:
    r"""Privacy of ``R2 o R1`` for an eps1-LDP ``R1`` followed by an eps2-LDP ``R2``
    (Huang & Canonne Cor 4.1, [EFMRSTT20, Cor A.2]; tight for binary randomized response):

    .. math:: \varepsilon = \ln\frac{e^{\varepsilon_1 + \varepsilon_2} + 1}
              {e^{\varepsilon_1} + e^{\varepsilon_2}} \le \min(\varepsilon_1, \varepsilon_2),
              \quad \le \varepsilon_1 \varepsilon_2 / 2.

    ``inf`` arguments are allowed (a non-private stage leaves the other's epsilon).

    Outward rounded: evaluated by :func:`mechdesign._exact.outward` at 60 digits and rounded
    up, as ``ln(1 + (e^a - 1)(e^b - 1) / (e^a + e^b))`` (numerator minus denominator of the
    ratio, so nothing cancels at small epsilons), with ``a >= b`` and both divided by
    ``e^a``; for ``b > 1000`` as ``b + ln(1 + e^{-a-b}) - ln(1 + e^{b-a})``. Then capped by
    ``min(eps1, eps2)`` (exact, and never below the value).
    """
    e1 = check_epsilon(epsilon1, "epsilon1", allow_inf=True)
    e2 = check_epsilon(epsilon2, "epsilon2", allow_inf=True)
    if math.isinf(e1) or math.isinf(e2):
        return min(e1, e2)
    return min(outward(_sequential, max(e1, e2), min(e1, e2)), e1, e2)


def _sequential(a: Decimal, b: Decimal) -> Decimal:
    """``ln((e^{a+b} + 1) / (e^a + e^b))`` for ``a >= b >= 0`` in decimal, without
    cancellation or overflow."""
    if b > 1000:
        return b + dlog1p((-a - b).exp()) - dlog1p((b - a).exp())
    x = -dexpm1(-a) * dexpm1(b) / (1 + (b - a).exp())  # (e^a - 1)(e^b - 1) / (e^a + e^b)
    return dlog1p(x)


@value_view
@dataclass(frozen=True)
class SequentialPrivacy:
    """Privacy of ``R2 o R1`` (matrix ``Q1 @ Q2``).

    Attributes
    ----------
    epsilon : float
        Pure LDP epsilon of the exact product ``Q1 @ Q2`` of the stored matrices (the
        randomizer run), rounded up (see :func:`sequential_composition`); exactly never above
        the exact ``bound``, so at most its rounding above the reported one.
    bound : float
        Cor 4.1 from the two epsilons (:func:`sequential_epsilon`, rounded up).
    weak_bound : float
        ``eps1 eps2 / 2`` (Huang & Canonne, appendix 7.1), exact product rounded up.
    epsilon1, epsilon2 : float
        Epsilons of the stages (:func:`~mechdesign.privacy.epsilon_ldp`, upper bounds).
    deletion_epsilon, deletion_bound : float
        Pure deletion epsilon of the exact product (rounded up, as ``epsilon``), and Cor 4.1
        applied to the deletion epsilon of ``R1`` and the LDP epsilon of ``R2`` ("if R1 is
        removal eps1-LDP then R2 o R1 is removal eps-LDP").
    mechanism : Mechanism
        The composed randomizer (the float product ``Q1 @ Q2``, each entry within
        ``n 2^-53`` relative of the exact one, or ``n 2^-1074`` absolute where it underflows).
    """

    epsilon: float
    bound: float
    weak_bound: float
    epsilon1: float
    epsilon2: float
    deletion_epsilon: float
    deletion_bound: float
    mechanism: Mechanism


def sequential_composition(first: Any, second: Any) -> SequentialPrivacy:
    r"""``R2 o R1``: first ``R1`` (``first``, matrix ``Q1``), then ``R2`` on its output.

    The composed matrix is ``Q1 @ Q2`` (``second`` has one row per output of ``first``).
    Reports the exact epsilon of the product with the Cor 4.1 bound; the exact value is never
    larger (Lemma 4.5 reduces to binary randomizers, where the bound is attained).

    Outward rounded: ``epsilon`` and ``deletion_epsilon`` are upper bounds on the pure and
    deletion epsilons of the EXACT product of the stored matrices (:func:`_product_epsilons`:
    exact rational entries for small products and wherever the float product may
    underflow, else the float product widened by its error bound ``(n + 2) 2^-52``
    relative; then :func:`mechdesign._exact.log_ratio` or :func:`mechdesign._exact.outward`).
    So they may read up to about ``(n + 6) 2^-51`` above the exact values for large
    products, and within a double of them for small ones. ``bound`` and
    ``deletion_bound`` are :func:`sequential_epsilon` of the stages' measured epsilons
    (upper bounds, and the formula is increasing in both).
    """
    m1 = as_mechanism(first, "first")
    m2 = as_mechanism(second, "second")
    if m2.n_inputs != m1.n_outputs:
        raise InvalidMechanismError(
            f"second has {m2.n_inputs} inputs but first has {m1.n_outputs} outputs")
    prod = m1.then(m2)
    e1, e2 = epsilon_ldp(m1), epsilon_ldp(m2)
    d1 = epsilon_deletion(m1).epsilon
    weak = (math.inf if math.isinf(e1) or math.isinf(e2)
            else float_up(Fraction(e1) * Fraction(e2) / 2))
    eps, deletion = _product_epsilons(m1.matrix, m2.matrix, prod.matrix)
    return SequentialPrivacy(
        epsilon=eps, bound=sequential_epsilon(e1, e2), weak_bound=weak,
        epsilon1=e1, epsilon2=e2, deletion_epsilon=deletion,
        deletion_bound=sequential_epsilon(d1, e2), mechanism=prod)


EXACT_PRODUCT_WORK = 4096
"""Products ``Q1 @ Q2`` with ``k n m`` at most this are formed exactly (rationals) by
:func:`_product_epsilons` (milliseconds at the limit: ``benchmarks/README.md``,
"Measurements behind the library's constants"); larger ones from the float product and its
error bound."""

_TINY_PER_TERM = 2.0 ** -960
"""Float product entries below ``n`` times this may have lost relative accuracy to
underflow (each product of two doubles loses at most ``2^-1075`` absolutely); they are
formed exactly."""


def _ln_up(r: Fraction) -> float:
    """An upper bound on ``ln r`` for a positive rational (60 digits, rounded up; ``log1p`` of
    the exact ``r - 1``, so a ratio near 1 does not cancel)."""
    t = r - 1
    return outward(lambda: dlog1p(Decimal(t.numerator) / Decimal(t.denominator)))


def _product_epsilons(Q1: np.ndarray, Q2: np.ndarray, P: np.ndarray) -> tuple[float, float]:
    r"""Upper bounds on the pure LDP and pure deletion epsilons of the exact product
    ``Q1 @ Q2`` of the stored matrices (``P`` is the float product).

    Only each column's largest and smallest entry matter: ``eps = max_y ln(M_y / m_y)`` and
    ``eps_del = max(eps / 2, ln sum_y M_y, -ln sum_y m_y, 0)`` (see
    :func:`~mechdesign.privacy.epsilon_deletion`), ``inf`` when a column has an exact 0 next
    to a positive entry (the support is exact: a boolean product). Entries are exact
    rationals when the product is small (:data:`EXACT_PRODUCT_WORK`) or the float entry is
    below ``n 2^-960``; otherwise the float entry widened by ``(n + 2) 2^-52`` relative
    (then stepped one double outward): a sum of n non-negative products of doubles, in any
    order, is within ``gamma_n = n u / (1 - n u)`` relative (``u = 2^-53``; Higham,
    "Accuracy and stability of numerical algorithms", s.3.1) plus ``n 2^-1074`` absolute
    from underflow, which the threshold makes below ``2^-100`` relative. Ratios of widened
    floats go through :func:`mechdesign._exact.log_ratio`; ratios with an exact entry, and
    the sums (exact rational sums of the bounds), through :func:`mechdesign._exact.outward`.
    """
    k, n = Q1.shape
    m = Q2.shape[1]
    support = ((Q1 > 0).astype(float) @ (Q2 > 0).astype(float)) > 0  # exact: counts <= n
    used = support.any(axis=0)
    if (used & ~support.all(axis=0)).any():
        return math.inf, math.inf  # an exact 0 beside a positive entry in some column
    exact = support & ((P < n * _TINY_PER_TERM) | (k * n * m <= EXACT_PRODUCT_WORK))
    rel = (n + 2) * 2.0 ** -52
    with np.errstate(over="ignore"):
        hi = np.nextafter(P * (1 + rel), np.inf)
    lo = np.nextafter(P * (1 - rel), -np.inf)
    hi_col = np.where(exact, -np.inf, hi).max(axis=0)  # float bounds of the inexact entries
    lo_col = np.where(exact, np.inf, lo).min(axis=0)
    exact_cols = used & exact.any(axis=0)
    float_cols = used & ~exact_cols
    eps = float(log_ratio(hi_col[float_cols], lo_col[float_cols]).max(initial=0.0))
    M = {int(y): Fraction(float(hi_col[y])) for y in np.flatnonzero(float_cols)}
    mn = {int(y): Fraction(float(lo_col[y])) for y in np.flatnonzero(float_cols)}
    if exact_cols.any():
        N1, D1 = dyadic_integers(Q1)
        N2, D2 = dyadic_integers(Q2)
        col: dict[int, list[Fraction]] = {}
        for x, y in zip(*np.nonzero(exact), strict=True):
            v = sum(N1[x][j] * N2[j][y] for j in range(n))
            col.setdefault(int(y), []).append(Fraction(v, D1 * D2))
        for y, vals in col.items():
            M[y] = max(vals + ([Fraction(float(hi_col[y]))] if hi_col[y] > 0 else []))
            mn[y] = min(vals + ([Fraction(float(lo_col[y]))] if np.isfinite(lo_col[y]) else []))
        worst = max(M[y] / mn[y] for y in col)
        if worst > 1:
            eps = max(eps, _ln_up(worst))
    if math.isinf(eps):
        return math.inf, math.inf
    half = eps / 2 if (eps / 2) * 2 == eps else _up(eps / 2)  # exact unless subnormal
    s_hi, s_lo = sum(M.values()), sum(mn.values())
    deletion = max(half, _ln_up(s_hi) if s_hi > 1 else 0.0,
                   _ln_up(1 / s_lo) if s_lo < 1 else 0.0, 0.0)
    return eps, deletion


@value_view
@dataclass(frozen=True)
class GroupPrivacy:
    """A guarantee for datasets that differ in k entries, each entry an LDP randomizer.

    ``epsilon, delta`` is the reported guarantee: the smaller-epsilon one of the
    grouposition formula ``(formula, formula_delta)`` and plain composition of the k differing
    randomizers ``(group, group_delta)``; ``used`` says which.
    """

    epsilon: float
    delta: float
    formula: float
    formula_delta: float
    group: float
    group_delta: float
    used: Literal["formula", "group"]


def _pick(formula: float, fdelta: float, group: float, gdelta: float) -> GroupPrivacy:
    if formula < group:
        return GroupPrivacy(formula, fdelta, formula, fdelta, group, gdelta, "formula")
    return GroupPrivacy(group, gdelta, formula, fdelta, group, gdelta, "group")


def advanced_grouposition(epsilon: float, k: int, delta: float) -> GroupPrivacy:
    r"""Advanced grouposition for pure LDP (Huang & Canonne Thm 4.1, [BNS19, Thm 4.2]):
    for datasets at distance k and eps-LDP randomizers,

    .. math:: \varepsilon' = k\varepsilon^2/2 + \varepsilon\sqrt{2k\ln(1/\delta)}

    with failure probability delta. The formula can exceed plain group privacy ``k eps``
    (with delta = 0), so the smaller is reported.

    Outward rounded: the formula is evaluated by :func:`mechdesign._exact.outward` at 60
    digits and rounded up; ``k eps`` is exact rational arithmetic rounded up.
    """
    eps = check_epsilon(epsilon)
    k = check_int(k, "k", 1)
    d = check_probability(delta, "delta")
    if d == 0:
        raise InvalidParameterError("delta must be > 0 for advanced grouposition, got 0.0")
    return _pick(_grouposition(eps, k, d), d, _linear_up(k, eps), 0.0)


def _grouposition(eps: float, k: int, d: float) -> float:
    """``k eps^2 / 2 + eps sqrt(2 k ln(1/d))`` by :func:`mechdesign._exact.outward` (60 digits,
    rounded up; ``inf`` above the double range)."""
    K = Decimal(k)
    return outward(lambda e, d: K * e * e / 2 + e * (2 * K * -d.ln()).sqrt(), eps, d)


def advanced_grouposition_approx(epsilon: float, delta: float, k: int,
                                 delta_prime: float) -> GroupPrivacy:
    r"""Advanced grouposition for approximate LDP (Huang & Canonne Thm 4.2, [BNS19, Thm 4.3]):
    for (eps, delta)-LDP randomizers and datasets at distance k,

    .. math:: \varepsilon' = k\varepsilon^2/2 + \varepsilon\sqrt{2k\ln(1/\delta')},
              \quad \text{total failure probability } k\delta + \delta'.

    Compared with basic composition of the k differing randomizers, ``(k eps, k delta)``;
    the smaller epsilon is reported.

    Correction: Huang & Canonne print the total as ``delta + k delta'``, which is false. By
    the Kairouz-Oh-Viswanath decomposition every (eps, delta) pair of inputs is a
    post-processing of leaky randomized response (with probability delta reveal the input,
    else binary RR(eps)), so the k differing randomizers leak with probability
    ``1 - (1 - delta)^k``, up to ``k delta`` (union bound), and without a leak they are
    eps-LDP, where Thm 4.1 costs ``delta'`` (the Hoeffding tail). Hence ``k delta + delta'``;
    at ``delta = 0`` this is Thm 4.1. The printed total is broken by 1000 leaky RR(0.1) with
    ``delta = 1e-3``, ``delta' = 1e-6``: it claims (21.62, 0.002), while the exact composition
    has delta 0.632 at eps' = 21.62 (the chance that one of the 1000 leaks).

    Parameters
    ----------
    epsilon, delta : float
        Guarantee of each randomizer, ``epsilon >= 0``, ``0 <= delta <= 1``.
    k : int
        Distance between the datasets (number of differing entries), ``k >= 1``.
    delta_prime : float
        Hoeffding tail of Thm 4.1, ``0 < delta_prime <= 1``.

    Returns
    -------
    GroupPrivacy
        ``formula_delta = min(1, k delta + delta')``, ``group_delta = min(1, k delta)``.
        Outward rounded: the formula is evaluated by :func:`mechdesign._exact.outward` at 60
        digits and rounded up; ``k eps``, ``k delta + delta'`` and ``k delta`` are exact
        rational arithmetic rounded up.
    """
    eps, d, k, dp = check_advanced(epsilon, delta, k, delta_prime)
    return _pick(_grouposition(eps, k, dp), min(1.0, _linear_up(k, d, dp)), _linear_up(k, eps),
                 min(1.0, _linear_up(k, d)))
