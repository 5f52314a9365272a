r"""Privacy amplification by subsampling and by shuffling, and shuffle -> LDP.

Sources: Huang & Canonne, "Lemmas of differential privacy" (Thm 5.1, Thm 5.2 = [FMT22,
Thm 3.2], Thm 6.1), Feldman, McMillan, Talwar 2021 ("Hiding among the clones", FMT21) and
``docs/accounting.md`` s.4.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Literal

import numpy as np
from scipy.optimize import brentq
from scipy.special import bdtr

from .._algebra import log_expm1, log_multinomial
from .._exact import dexpm1, dlog1p, float_up, outward
from .._validation import check_delta, check_epsilon, check_int, check_probability
from ..errors import InvalidParameterError
from ..privacy.conversions import Guarantee

MAX_SHUFFLE_N = 10**9
"""Largest number of users for the numeric shuffle bound (the work grows like sqrt(n))."""

CLONE_TAIL = 1e-30
"""The clone count C ~ Bin(n - 1, e^-eps0) is summed over an interval around its mean wide
enough that the mass left out is at most CLONE_TAIL; that mass (computed) is added to the
upper end of the bracket."""

FMT22_ERRATUM = (
    "FMT22 erratum: Thm 3.2 (the closed form, Huang & Canonne Thm 5.2 / eq. 5) holds only for "
    "a restricted class of local randomizers (the proof of its Lemma 3.5 fails in general); "
    "for an arbitrary eps0-LDP randomizer use method='numeric' (FMT21 clones) or "
    "'closed_form_fmt21'.")


def subsampled(epsilon: float, delta: float, p: float) -> Guarantee:
    r"""Amplification by subsampling (Huang & Canonne Thm 6.1, [Ste22, Thm 28]): running an
    (eps, delta)-DP mechanism on a random subset in which each record is included with
    probability at most p gives

    .. math:: \varepsilon' = \ln(1 + p(e^\varepsilon - 1)), \quad \delta' = p\delta

    Outward rounded: eps' is evaluated by :func:`mechdesign._exact.outward` at 60 digits
    (as ``log1p(p expm1(eps))``, and as ``eps + ln(p + (1 - p) e^-eps)`` above
    ``eps = 1000``) and rounded up; ``p delta`` is the exact product rounded up. A positive
    value never reads 0 (``subsampled(1e-300, 0, 1e-300)`` has eps' ``5e-324``,
    ``subsampled(40, 1e-3, 5e-324)`` delta' ``5e-324``).
    """
    eps = check_epsilon(epsilon, allow_inf=True)
    d = check_delta(delta)
    p = check_probability(p, "p")
    if math.isinf(eps):
        val = math.inf if p > 0 else 0.0
    elif p == 0 or eps == 0:
        val = 0.0
    elif p == 1:
        val = eps
    else:
        val = max(outward(_subsampled_epsilon, eps, p), _SMALLEST)  # exactly positive
    return Guarantee(val, float_up(Fraction(p) * Fraction(d)), "DP",
                     "Huang & Canonne Thm 6.1 (subsampling)")


_SMALLEST = math.ulp(0.0)
"""The smallest positive double: the upward rounding of a positive value below it."""


def _subsampled_epsilon(e: Decimal, p: Decimal) -> Decimal:
    """``ln(1 + p (e^eps - 1))`` in decimal (no overflow: ``e^eps`` is factored out above
    1000, where ``e^-eps`` may underflow to 0 harmlessly: ``p >= 2^-1074`` dominates it)."""
    if e <= 1000:
        return dlog1p(p * dexpm1(e))
    return e + (p + (1 - p) * (-e).exp()).ln()


def shuffle_to_ldp(epsilon_shuffle: float, delta_shuffle: float, n: int) -> Guarantee:
    r"""One-message shuffle to LDP (Huang & Canonne Thm 5.1, [CSUZZ19, Thm 6.2]): if an
    n-user one-message shuffle protocol is (eps_S, delta_S)-DP, its randomizer is
    ``(eps_S + ln n, delta_S)``-LDP.

    Outward rounded: ``eps_S + ln n`` is evaluated by :func:`mechdesign._exact.outward` at 60
    digits and rounded up (exact for ``n = 1``); ``delta_S`` is returned as given."""
    eps = check_epsilon(epsilon_shuffle, "epsilon_shuffle", allow_inf=True)
    d = check_delta(delta_shuffle, "delta_shuffle")
    n = check_int(n, "n", 1)
    ln_n = Decimal(n).ln
    val = eps if n == 1 else outward(lambda e: e + ln_n(), eps)
    return Guarantee(val, d, "LDP", "Huang & Canonne Thm 5.1 (CSUZZ19 Thm 6.2)")


# --------------------------------------------------------------------------- clones (FMT21)
@dataclass(frozen=True, eq=False)
class _Clones:
    eps0: float
    n: int
    c: np.ndarray       # clone counts summed over
    w: np.ndarray       # their Bin(n - 1, e^-eps0) probabilities
    tail: float         # mass of the counts left out


def _clones(eps0: float, n: int) -> _Clones:
    from scipy.stats import binom  # heavy (scipy.stats): imported when used

    N = n - 1
    p = math.exp(-eps0)
    if N == 0:
        c = np.zeros(1, dtype=np.int64)
        return _Clones(eps0, n, c, np.ones(1), 0.0)
    mean, sd = N * p, math.sqrt(N * p * (1 - p))
    width = 12.0
    while True:  # widen until the left-out mass is below CLONE_TAIL (or nothing is left out)
        lo = max(0, math.floor(mean - width * sd - width * width))
        hi = min(N, math.ceil(mean + width * sd + width * width))
        tail = float(binom.cdf(lo - 1, N, p) + binom.sf(hi, N, p))
        if tail <= CLONE_TAIL or (lo == 0 and hi == N):
            break
        width *= 2
    c = np.arange(lo, hi + 1)
    w = np.exp(binom.logpmf(c, N, p))
    return _Clones(eps0, n, c, w, tail)


def _clone_delta(cl: _Clones, eps: float) -> float:
    r"""``E_C[H_{e^eps}(P_C || Q_C)]`` over the summed clone counts (exact per count)."""
    eps0 = cl.eps0
    if eps >= eps0:
        return 0.0
    c = cl.c
    # ratio P_c(a)/Q_c(a) is decreasing in a and exceeds e^eps iff a < (c + 1) / (1 + tau)
    if eps + eps0 < 700:
        tau = math.expm1(eps + eps0) / (math.exp(eps) * math.expm1(eps0 - eps))
        c1 = (math.exp(eps0) - math.exp(eps)) / (1.0 + math.exp(eps0))
    else:  # the same in log space (e^(eps + eps0) overflows a double from 709.8 on)
        log_tau = log_expm1(eps + eps0) - eps - log_expm1(eps0 - eps)
        tau = math.exp(log_tau) if log_tau < 709 else math.inf
        c1 = -math.expm1(eps - eps0) / (1.0 + math.exp(-eps0))
    astar = np.ceil((c + 1) / (1.0 + tau)).astype(np.int64) - 1
    astar = np.clip(astar, 0, c)
    log_b = log_multinomial(np.stack([astar, c - astar], axis=1)) - c * math.log(2.0)
    B0 = np.where(astar >= 1, bdtr(np.maximum(astar - 1, 0), c, 0.5), 0.0)
    # sum_{a <= a*} [P(a) - e^eps Q(a)] = c1 b(a*) + (1 - e^eps) B(a* - 1)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        lost = (math.expm1(eps) * B0 if eps < 700
                else np.where(B0 > 0, np.exp(eps + np.log(B0)), 0.0))
    term = np.maximum(c1 * np.exp(log_b) - lost, 0.0)
    return float(np.dot(cl.w, term))


@dataclass(frozen=True)
class ShuffleDelta:
    """Bracket ``[lower, upper]`` on the clone bound's delta at one epsilon (the counts left
    out contribute at most their mass)."""

    epsilon: float
    lower: float
    upper: float


def _shuffle_args(epsilon0: float, n: int) -> tuple[float, int]:
    e0 = check_epsilon(epsilon0, "epsilon0")
    n = check_int(n, "n", 1)
    if n > MAX_SHUFFLE_N:
        raise InvalidParameterError(f"n = {n} exceeds {MAX_SHUFFLE_N}")
    return e0, n


def shuffle_delta(epsilon0: float, n: int, epsilon: float) -> ShuffleDelta:
    r"""The Feldman-McMillan-Talwar clone bound on the delta of n shuffled eps0-LDP reports.

    With ``C ~ Bin(n - 1, e^-eps0)``, ``A ~ Bin(C, 1/2)`` and ``alpha = e^eps0/(e^eps0 + 1)``
    the shuffled output is dominated by ``P_C = alpha * A + (1 - alpha) * (A + 1)`` against
    ``Q_C = alpha * (A + 1) + (1 - alpha) * A`` (mixtures over the shift; C observed).
    For fixed c the likelihood ratio is decreasing in a, so
    ``H_{e^eps}(P_c || Q_c) = c_1 b_c(a*) - (e^eps - 1) B_c(a* - 1)`` with
    ``c_1 = (e^eps0 - e^eps)/(e^eps0 + 1)``, ``b_c, B_c`` the Bin(c, 1/2) pmf and cdf and
    ``a* = ceil((c+1)/(1+tau)) - 1``, ``tau = (e^{eps+eps0} - 1)/(e^eps0 - e^eps)``;
    the bound is symmetric in P, Q. Vectorised over c (mass left out <= :data:`CLONE_TAIL`).
    """
    e0, n = _shuffle_args(epsilon0, n)
    eps = check_epsilon(epsilon, allow_inf=True)
    cl = _clones(e0, n)
    low = _clone_delta(cl, eps)
    return ShuffleDelta(eps, low, min(1.0, low + (cl.tail if eps < e0 else 0.0)))


def _invert(f_low: Callable[[float], float], f_up: Callable[[float], float], target: float,
            hi: float) -> tuple[float, float]:
    """``(a, b)`` with ``f_low(a) > target >= f_up(b)``, ``b - a`` about ``2e-9 b``, for
    continuous decreasing ``f_low <= f_up`` on ``[0, hi]`` with ``f_low(0) > target >=
    f_up(hi)``: Brent's method on ``ln f_low`` (nearly linear, unlike f), then both ends
    checked (the margin grows tenfold while rounding puts an end on the wrong side)."""
    log_t = math.log(target)

    def g(e: float) -> float:
        return math.log(max(f_low(e), 1e-300)) - log_t

    root = float(brentq(g, 0.0, hi, xtol=1e-15, rtol=1e-11, maxiter=200))
    margin = 1e-9 * root + 1e-13
    b = min(hi, root + margin)
    while b < hi and f_up(b) > target:
        margin *= 10
        b = min(hi, root + margin)
    margin = 1e-9 * root + 1e-13
    a = max(0.0, root - margin)
    while a > 0 and f_low(a) <= target:
        margin *= 10
        a = max(0.0, root - margin)
    return a, b


ShuffleMethod = Literal["numeric", "closed_form", "closed_form_fmt21"]


@dataclass(frozen=True)
class ShuffleBound:
    """An epsilon for n shuffled eps0-LDP reports at a given delta.

    Attributes
    ----------
    epsilon : float
        The reported guarantee (never above ``epsilon0``: the LDP guarantee survives
        shuffling, Huang & Canonne s.5).
    lower, upper : float
        Numeric bracket of the method's value (equal for the closed forms).
    method : str
    valid : bool
        False when a closed form is outside its stated parameter range (then
        ``epsilon = epsilon0``).
    restricted : bool
        True when the theorem only holds for a restricted class of randomizers (FMT22
        erratum); ``note`` says which.
    formula : float
        The method's raw value before the ``epsilon0`` cap.
    """

    epsilon: float
    lower: float
    upper: float
    method: str
    valid: bool
    restricted: bool
    note: str
    formula: float
    epsilon0: float
    n: int
    delta: float


def _fmt22(e0: float, n: int, d: float) -> tuple[float, bool]:
    val = math.log1p(4 * math.expm1(e0) * (math.sqrt(2 * math.log(4 / d) / ((math.exp(e0) + 1)
                                                                           * n)) + 1 / n))
    ratio = n / (8 * math.log(2 / d))
    valid = ratio > 1 and e0 <= math.log(ratio - 1)
    return val, valid


def _fmt21(e0: float, n: int, d: float) -> tuple[float, bool]:
    a = 8 * math.sqrt(math.exp(e0) * math.log(4 / d) / n)
    c = 8 * math.exp(e0) / n
    e = math.log1p(a + c)
    b = -math.expm1(-e0)
    dd = 1 + math.exp(-e0 - e)
    val = math.log1p(b / dd * (a + c))
    ratio = n / (16 * math.log(4 / d))
    valid = ratio > 1 and e0 <= math.log(ratio)
    return val, valid


def shuffle_epsilon(epsilon0: float, n: int, delta: float,
                    method: ShuffleMethod = "numeric") -> ShuffleBound:
    r"""Amplification by shuffling: n users each apply an eps0-LDP randomizer, the reports
    are shuffled; the result is (eps, delta)-DP for the returned eps.

    Methods
    -------
    ``"numeric"``
        The Feldman-McMillan-Talwar 2021 clone bound computed exactly (:func:`shuffle_delta`)
        and inverted (Brent on ``ln delta``, both ends checked); ``lower``/``upper`` bracket
        it (width about 2e-9 relative, plus the clone counts left out). Holds for every
        eps0-LDP randomizer.
    ``"closed_form"``
        FMT22 Thm 3.2 (Huang & Canonne Thm 5.2, seed eq. 5):

        .. math:: \varepsilon \le \ln\Big(1 + 4(e^{\varepsilon_0} - 1)\Big(
                  \sqrt{\tfrac{2\ln(4/\delta)}{(e^{\varepsilon_0} + 1) n}} + \tfrac1n\Big)\Big)

        valid for ``eps0 <= ln(n / (8 ln(2/delta)) - 1)``; ``restricted=True``: the erratum
        of FMT22 limits it to a class of randomizers (:data:`FMT22_ERRATUM`).
    ``"closed_form_fmt21"``
        The FMT21 closed form as evaluated by the authors' public code:
        ``e = ln(1 + a + c)``, ``a = 8 sqrt(e^eps0 ln(4/delta) / n)``, ``c = 8 e^eps0 / n``,
        ``eps = ln(1 + (1 - e^-eps0) / (1 + e^{-eps0 - e}) (a + c))``, valid for
        ``eps0 <= ln(n / (16 ln(4/delta)))``; all eps0-LDP randomizers.
    """
    e0, n = _shuffle_args(epsilon0, n)
    d = check_delta(delta)
    if method not in ("numeric", "closed_form", "closed_form_fmt21"):
        raise InvalidParameterError(
            f"method must be 'numeric', 'closed_form' or 'closed_form_fmt21', got {method!r}")
    if method != "numeric":
        if not 0 < d < 1:
            raise InvalidParameterError(f"the closed forms need 0 < delta < 1, got {d!r}")
        val, valid = (_fmt22 if method == "closed_form" else _fmt21)(e0, n, d)
        restricted = method == "closed_form"
        note = FMT22_ERRATUM if restricted else "FMT21 closed form (all eps0-LDP randomizers)"
        if not valid:
            note += "; outside the theorem's parameter range: reporting epsilon0"
        eps = min(val, e0) if valid else e0
        return ShuffleBound(eps, eps, eps, method, valid, restricted, note, val, e0, n, d)
    cl = _clones(e0, n)
    note = "FMT21 clone bound, computed exactly (all eps0-LDP randomizers)"
    if e0 == 0:
        return ShuffleBound(0.0, 0.0, 0.0, method, True, False, note, 0.0, e0, n, d)

    def low_delta(e: float) -> float:
        return _clone_delta(cl, e)

    def upper_delta(e: float) -> float:
        return _clone_delta(cl, e) + cl.tail

    if upper_delta(0.0) <= d:
        low = up = 0.0
    elif d == 0:
        low = up = e0
    elif cl.tail > d:
        up = e0
        low = 0.0 if low_delta(0.0) <= d else _invert(low_delta, low_delta, d, e0)[0]
    elif low_delta(0.0) <= d:
        low, up = 0.0, _invert(upper_delta, upper_delta, d, e0)[1]
    else:
        low, up = _invert(low_delta, upper_delta, d, e0)
    up = min(up, e0)
    return ShuffleBound(up, min(low, up), up, method, True, False, note, up, e0, n, d)
