r"""Closed-form composition bounds: basic, advanced (Dwork-Rothblum-Vadhan), optimal
homogeneous (Kairouz-Oh-Viswanath, at every epsilon) and optimal heterogeneous
(Murtagh-Vadhan) composition, and the privacy-loss atoms of k-fold randomized response that
attain the optimal ones (``docs/accounting.md`` s.2).

These hold for EVERY mechanism with the given per-use guarantees; the exact privacy of a given
finite mechanism is :func:`~mechdesign.accounting.composition.delta_composed`, never above them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from .._algebra import log_multinomial
from .._exact import dexpm1, outward
from .._exact import linear_up as _linear_up
from .._exact import up as _up
from .._exact import up_nonzero as _up_nonzero
from .._html import value_view
from .._validation import check_delta, check_epsilon, check_int, check_probability
from ..errors import InvalidParameterError, SizeLimitError
from .pld import MAX_ATOMS, LossAtoms, Rounding

__all__ = [
    "MAX_SUBSETS_K",
    "CompositionBound",
    "advanced_composition",
    "advanced_composition_delta",
    "basic_composition",
    "check_advanced",
    "optimal_composition_delta",
    "optimal_composition_epsilon",
    "optimal_heterogeneous_delta",
    "optimal_heterogeneous_epsilon",
    "randomized_response_atoms",
]

MAX_SUBSETS_K = 20
"""Murtagh-Vadhan by enumeration of the 2^k subsets: k <= 20."""


@value_view
@dataclass(frozen=True)
class CompositionBound:
    """An (epsilon, delta) guarantee from a composition theorem."""

    epsilon: float
    delta: float
    theorem: str


def _as_float_list(values: Any, name: str, check: Any) -> list[float]:
    if isinstance(values, int | float | np.floating | np.integer):
        values = [values]
    try:
        seq = list(values)
    except TypeError:
        raise InvalidParameterError(f"{name} must be a number or a sequence, got {values!r}"
                                    ) from None
    if not seq:
        raise InvalidParameterError(f"{name} must not be empty")
    return [check(v, f"{name}[{i}]") for i, v in enumerate(seq)]


def _sum_up(values: list[float]) -> float:
    """The smallest double at or above the exact sum of non-negative doubles (``inf`` when it
    overflows or a term is ``inf``): ``math.fsum`` is correctly rounded, and the sign of the
    exact residual ``sum - s`` (again ``fsum``, exact in sign) says whether to step up."""
    if any(math.isinf(v) for v in values):
        return math.inf
    try:
        s = math.fsum(values)
        if math.isinf(s):
            return math.inf
        return _up(s) if math.fsum([*values, -s]) > 0 else s
    except OverflowError:  # fsum's intermediate overflow: the exact sum is above the range
        return math.inf


def basic_composition(epsilons: Any, deltas: Any = None) -> CompositionBound:
    r"""Basic composition: ``(sum eps_i, min(1, sum delta_i))`` (Dwork et al. 2006).

    Outward rounded: each sum is the exact sum of the doubles rounded up to a double (the
    correctly rounded ``math.fsum``, stepped up one double when the exact residual is
    positive), so never below the exact value and equal to it when it is a double.
    """
    eps = _as_float_list(epsilons, "epsilons", lambda v, n: check_epsilon(v, n, allow_inf=True))
    dl = [0.0] * len(eps) if deltas is None else _as_float_list(deltas, "deltas", check_delta)
    if len(dl) != len(eps):
        raise InvalidParameterError(
            f"epsilons and deltas have different lengths ({len(eps)} and {len(dl)})")
    return CompositionBound(_sum_up(eps), min(1.0, _sum_up(dl)), "basic")


def check_advanced(epsilon: float, delta: float, k: int, delta_prime: float
                   ) -> tuple[float, float, int, float]:
    """The validated arguments of the Hoeffding-type bounds (advanced composition and advanced
    grouposition): ``epsilon >= 0``, ``0 <= delta <= 1``, ``k >= 1``, ``0 < delta_prime <= 1``
    (a typed :class:`~mechdesign.errors.InvalidParameterError` naming the value otherwise)."""
    eps, d, k = check_epsilon(epsilon), check_delta(delta), check_int(k, "k", 1)
    dp = check_probability(delta_prime, "delta_prime")
    if dp == 0:
        raise InvalidParameterError("delta_prime must be > 0, got 0.0")
    return eps, d, k, dp


def advanced_composition(epsilon: float, delta: float, k: int,
                         delta_prime: float) -> CompositionBound:
    r"""Advanced composition (Dwork, Rothblum, Vadhan 2010): k-fold (eps, delta)-DP is
    (eps', k delta + delta')-DP with

    .. math:: \varepsilon' = \sqrt{2k\ln(1/\delta')}\,\varepsilon + k\varepsilon(e^\varepsilon - 1).

    Not capped by ``k eps``: compare with :func:`basic_composition`.

    Outward rounded: eps' is evaluated by :func:`mechdesign._exact.outward` at 60 digits and
    rounded up (``inf`` when it exceeds the double range); ``k delta + delta'`` is exact
    rational arithmetic rounded up, then capped at 1.
    """
    eps, d, k, dp = check_advanced(epsilon, delta, k, delta_prime)
    K = Decimal(k)

    def formula(e: Decimal, dp: Decimal) -> Decimal:
        if e > 2000:  # k e (e^e - 1) is far above the double range
            return Decimal("Infinity")
        return (2 * K * -dp.ln()).sqrt() * e + K * e * dexpm1(e)

    val = outward(formula, eps, dp)
    return CompositionBound(val, min(1.0, _linear_up(k, d, dp)),
                            "advanced (Dwork-Rothblum-Vadhan)")


def advanced_composition_delta(epsilon: float, k: int, epsilon_total: float) -> float:
    r"""The delta' at which :func:`advanced_composition` of k pure ``epsilon``-LDP uses
    reaches ``epsilon_total`` (its inverse, Dwork, Rothblum, Vadhan 2010), capped by basic
    composition:

    .. math:: \delta' = \exp\Big(-\frac{(\varepsilon_{tot} - k\varepsilon(e^\varepsilon - 1))^2}
              {2k\varepsilon^2}\Big) \quad\text{when } \varepsilon_{tot} > k\varepsilon
              (e^\varepsilon - 1),

    1 (no guarantee) when ``epsilon_total`` is at most the drift term ``k eps (e^eps - 1)``,
    and 0 when ``epsilon_total >= k eps`` (basic composition).

    Outward rounded: ``epsilon_total >= k eps`` is decided exactly (rational arithmetic on
    the doubles), the rest is evaluated by :func:`mechdesign._exact.outward` at 60 digits and
    rounded up (a positive value below the smallest double reads ``5e-324``, never 0).
    """
    eps = check_epsilon(epsilon)
    k = check_int(k, "k", 1)
    total = check_epsilon(epsilon_total, "epsilon_total", allow_inf=True)
    if total >= k * Fraction(eps):  # exact: k * eps rounded could pass a total below it
        return 0.0
    K = Decimal(k)

    def formula(e: Decimal, t: Decimal) -> Decimal:
        drift = K * e * dexpm1(e) if e <= 2000 else Decimal("Infinity")
        if t <= drift:
            return Decimal(1)
        return min(Decimal(1), (-(((t - drift) / e) ** 2) / (2 * K)).exp())

    # exactly positive here (total < k eps); the decimal exp may underflow to 0
    return min(1.0, max(outward(formula, eps, total), math.ulp(0.0)))


def randomized_response_atoms(epsilon: float, k: int = 1, delta: float = 0.0) -> LossAtoms:
    r"""The privacy-loss atoms of k uses of binary randomized response RR(eps), leaky with
    probability ``delta`` (it then reveals the input: an infinite loss), in closed form
    (Kairouz, Oh & Viswanath 2015): with ``l`` the number of uses that point to the other
    input, the loss is ``(k - 2l) eps`` with

    .. math:: \ln P(L = (k - 2l)\varepsilon) = k\ln(1 - \delta) + \ln\binom{k}{l}
              + (k - l)\varepsilon - k \ln(1 + e^\varepsilon).

    Every k-fold composition of (eps, delta)-DP mechanisms is a post-processing of this pair,
    so its profile is :func:`optimal_composition_delta`.
    """
    eps = check_epsilon(epsilon)
    k = check_int(k, "k", 1)
    d = check_delta(delta)
    log_keep = k * math.log1p(-d) if d < 1 else -math.inf
    if eps == 0.0:  # every use is 0-private: one atom at loss 0, whatever k
        return LossAtoms.from_losses([0.0], [log_keep], log_keep,
                                     err=Rounding(keep=4 * 2.0 ** -53))
    if k + 1 > MAX_ATOMS:  # refused before allocating k + 1 atoms
        raise SizeLimitError(
            f"the {k}-fold composition of randomized response has {k + 1} privacy losses, "
            f"more than MAX_ATOMS = {MAX_ATOMS}; use fewer uses, or the advanced "
            "composition bound (advanced_composition), which is closed form in k")
    ell = np.arange(k + 1)
    L = _up_nonzero((k - 2 * ell) * eps)  # one rounding of an integer times eps, stepped up
    log1pe = float(np.logaddexp(0.0, eps))
    coef = log_multinomial(np.stack([ell, k - ell], axis=1))
    logm = coef + (k - ell) * eps - k * log1pe
    lp = logm + log_keep
    # errors (u = 2^-53): the binomial coefficient (see pld._multinomial), one rounding each
    # of (k - l) eps and k ln(1 + e^eps) (itself within 2u), three sums
    u = 2.0 ** -53
    errs = (8 * u * (np.abs(coef) + 3 * (math.log(2 * math.pi * k) + 1)) + 12e-16
            + 3 * u * (k * eps + k * log1pe) + 3 * u * np.abs(lp))
    return LossAtoms.from_losses(L[::-1].astype(float), lp[::-1], log_keep, scale=k * eps,
                                 err=Rounding(keep=4 * u), log_errs=errs[::-1])


def optimal_composition_delta(epsilon: float, k: int, epsilon_total: float,
                              delta: float = 0.0) -> float:
    r"""Optimal homogeneous composition (Kairouz, Oh, Viswanath 2015, Thm 3.3), at every
    ``eps'`` (not only on the grid ``(k - 2i) eps``):

    .. math:: \delta(\varepsilon') = 1 - (1-\delta)^k \Big[1 - \frac{\sum_{l=0}^{k}\binom{k}{l}
              \max(0, e^{(k-l)\varepsilon} - e^{\varepsilon'} e^{l\varepsilon})}
              {(1 + e^{\varepsilon})^k}\Big]

    evaluated in log space (``(1 + e^eps)^k`` overflows at k = 1000, eps = 1). The smallest
    delta such that EVERY k-fold composition of (eps, delta)-DP mechanisms is
    (eps', delta)-DP; attained by binary randomized response.
    """
    eps = check_epsilon(epsilon)
    k = check_int(k, "k", 1)
    et = check_epsilon(epsilon_total, "epsilon_total", allow_inf=True)
    d = check_delta(delta)
    return min(1.0, float(randomized_response_atoms(eps, k, d).delta(et)))


def optimal_composition_epsilon(epsilon: float, k: int, delta_total: float,
                                delta: float = 0.0) -> float:
    """Smallest eps' with :func:`optimal_composition_delta` ``<= delta_total`` (exact step
    function inversion; ``inf`` when ``1 - (1 - delta)^k > delta_total``)."""
    eps = check_epsilon(epsilon)
    k = check_int(k, "k", 1)
    dt = check_delta(delta_total, "delta_total")
    d = check_delta(delta)
    return randomized_response_atoms(eps, k, d).epsilon(dt)


def _check_heterogeneous(epsilons: Any, deltas: Any) -> tuple[list[float], list[float]]:
    eps = _as_float_list(epsilons, "epsilons", check_epsilon)
    if len(eps) > MAX_SUBSETS_K:
        raise SizeLimitError(
            f"Murtagh-Vadhan enumerates 2^k subsets; k = {len(eps)} exceeds {MAX_SUBSETS_K}. "
            "The same value is the exact composition of binary randomized responses: "
            "delta_composed([randomized_response(2, e) for e in epsilons], eps_total) "
            "(then account for the deltas: 1 - prod(1 - delta_i) + prod(1 - delta_i) * that)")
    dl = [0.0] * len(eps) if deltas is None else _as_float_list(deltas, "deltas", check_delta)
    if len(dl) != len(eps):
        raise InvalidParameterError(
            f"epsilons and deltas have different lengths ({len(eps)} and {len(dl)})")
    return eps, dl


def _heterogeneous_atoms(eps: list[float], deltas: list[float]) -> LossAtoms:
    """Atoms of the composition of leaky binary RR(eps_i, delta_i): the outcome "exactly the
    uses in S point to the true input" has loss ``2 sum_S eps_i - sum eps_i`` and mass
    ``prod(1 - delta_i) e^{sum_S eps_i} / prod(1 + e^{eps_i})`` (2^k subsets)."""
    log_keep = float(sum(math.log1p(-d) if d < 1 else -math.inf for d in deltas))
    s = np.zeros(1)
    for e in eps:
        s = np.concatenate((s, s + e))
    total = float(sum(eps))
    log_norm = float(sum(np.logaddexp(0.0, e) for e in eps))
    # errors (u = 2^-53): each subset sum and the total within k u sum(eps), the loss
    # 2 s - total two more roundings; the log masses the same plus k ln(1 + e^eps_i), each
    # within 2u, summed; log_keep a sum of k log1p, each within 2u relative
    u, k = 2.0 ** -53, len(eps)
    L = 2 * s - total
    lp = s - log_norm + log_keep
    margin = (3 * k + 4) * u * total + 2 * u * float(np.max(np.abs(L)))
    log_err = (3 * k + 6) * u * (total + log_norm) + 2 * u * abs(log_keep)
    return LossAtoms.from_losses(L, lp, log_keep, scale=max(total, 1.0),
                                 err=Rounding(loss=margin, log=log_err, keep=(k + 3) * u),
                                 log_errs=2 * u * np.abs(lp))


def optimal_heterogeneous_delta(epsilons: Any, epsilon_total: float,
                                deltas: Any = None) -> float:
    r"""Optimal heterogeneous composition (Murtagh & Vadhan 2018, Thm 1.5), by enumeration:

    .. math:: \delta(\varepsilon_g) = 1 - \prod(1-\delta_i) + \prod(1-\delta_i)
              \sum_{S \subseteq [k]} \frac{\max(0, e^{\sum_{S}\varepsilon_i}
              - e^{\varepsilon_g} e^{\sum_{i \notin S}\varepsilon_i})}{\prod(1 + e^{\varepsilon_i})}

    (#P-hard in general; ``k <= 20`` here. It equals the exact composition of binary
    randomized responses RR(eps_i), which :func:`delta_composed` computes for any k.)
    """
    eps, dl = _check_heterogeneous(epsilons, deltas)
    eg = check_epsilon(epsilon_total, "epsilon_total", allow_inf=True)
    return min(1.0, float(_heterogeneous_atoms(eps, dl).delta(eg)))


def optimal_heterogeneous_epsilon(epsilons: Any, delta_total: float,
                                  deltas: Any = None) -> float:
    """Smallest eps_g with :func:`optimal_heterogeneous_delta` ``<= delta_total``."""
    eps, dl = _check_heterogeneous(epsilons, deltas)
    dt = check_delta(delta_total, "delta_total")
    return _heterogeneous_atoms(eps, dl).epsilon(dt)
