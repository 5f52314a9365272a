r"""Privacy amplification by subsampling and by shuffling, and shuffle -> LDP.

Sources: Huang & Canonne, "Lemmas of differential privacy" (Thm 5.1, Thm 5.2 = [FMT22,
Thm 3.2], Thm 6.1), Feldman, McMillan, Talwar 2021 ("Hiding among the clones", FMT21) and
``docs/accounting.md`` s.4.

As the sub-namespace ``mechdesign.accounting.amplification`` this module also gathers,
loaded on first use, the exact privacy of subsampled finite randomizers
(:func:`subsampled_mechanism`, :func:`exact_subsampling_epsilon`, from
:mod:`~mechdesign.accounting.exact_subsampling`) and of shuffled ones, robust shuffle
privacy included (:mod:`~mechdesign.accounting.exact_shuffling`). ``subsampled`` is the
deprecated name of :func:`subsampling_bound`.
"""

from __future__ import annotations

import itertools
import math
import struct
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from scipy.optimize import brentq
from scipy.special import bdtr

from .._algebra import log_expm1, log_multinomial
from .._exact import dexpm1, dlog1p, float_up, outward
from .._exact import down as _down
from .._exact import up as _up
from .._html import value_view
from .._lazy import lazy_exports
from .._validation import check_delta, check_epsilon, check_int, check_probability
from ..errors import InvalidParameterError
from ..privacy.conversions import Guarantee

# This module is also the sub-namespace mechdesign.accounting.amplification: its own names and,
# re-exported, the exact privacy of subsampled and shuffled finite randomizers, whose modules
# import the bounds here (so they load on first use; the imports below are for type checkers).
if TYPE_CHECKING:
    from .exact_shuffling import (
        ExactShuffle,
        exact_shuffle_delta,
        exact_shuffle_epsilon,
        honest_users,
        robust_shuffle_delta,
        robust_shuffle_epsilon,
    )
    from .exact_subsampling import (
        SubsampledPrivacy,
        exact_subsampling_epsilon,
        subsampled_mechanism,
    )

_REEXPORTS = {
    "SubsampledPrivacy": ".exact_subsampling",
    "exact_subsampling_epsilon": ".exact_subsampling",
    "subsampled_mechanism": ".exact_subsampling",
    "ExactShuffle": ".exact_shuffling",
    "exact_shuffle_delta": ".exact_shuffling",
    "exact_shuffle_epsilon": ".exact_shuffling",
    "honest_users": ".exact_shuffling",
    "robust_shuffle_delta": ".exact_shuffling",
    "robust_shuffle_epsilon": ".exact_shuffling",
}

_DEPRECATED = {
    "subsample": "subsampled_mechanism",
    "subsampled": "subsampling_bound",
    "subsampling_privacy": "exact_subsampling_epsilon",
}
"""Old name -> new name, kept for one release: reading an old name warns."""

__all__ = [
    "CLONE_TAIL",
    "EXACT_HALF_BINOMIAL_C",
    "MAX_SHUFFLE_N",
    "SCIPY_RTOL",
    "ExactShuffle",
    "ShuffleBound",
    "ShuffleDelta",
    "SubsampledPrivacy",
    "exact_shuffle_delta",
    "exact_shuffle_epsilon",
    "exact_subsampling_epsilon",
    "honest_users",
    "robust_shuffle_delta",
    "robust_shuffle_epsilon",
    "shuffle_delta",
    "shuffle_epsilon",
    "shuffle_to_ldp",
    "subsampled_mechanism",
    "subsampling_bound",
]
__getattr__, __dir__ = lazy_exports(__name__, _REEXPORTS, package=__package__,
                                     deprecated=_DEPRECATED)

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


def subsampling_bound(epsilon: float, delta: float, p: float) -> Guarantee:
    r"""Amplification by subsampling (Huang & Canonne Thm 6.1, [Ste22, Thm 28]): running an
    (eps, delta)-DP mechanism on a random subset in which each record is included with
    probability at most p gives

    .. math:: \varepsilon' = \ln(1 + p(e^\varepsilon - 1)), \quad \delta' = p\delta

    Outward rounded: eps' is evaluated by :func:`mechdesign._exact.outward` at 60 digits
    (as ``log1p(p expm1(eps))``, and as ``eps + ln(p + (1 - p) e^-eps)`` above
    ``eps = 1000``) and rounded up; ``p delta`` is the exact product rounded up. A positive
    value never reads 0 (``subsampling_bound(1e-300, 0, 1e-300)`` has eps' ``5e-324``,
    ``subsampling_bound(40, 1e-3, 5e-324)`` delta' ``5e-324``).

    Formerly ``subsampled`` (a deprecated alias in :mod:`mechdesign.accounting` and here for
    one release). The exact epsilon of a subsampled finite randomizer is
    :func:`exact_subsampling_epsilon`.
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
_U = 2.0 ** -53
"""Unit roundoff of a double."""

EXACT_HALF_BINOMIAL_C = 1000
"""Clone counts ``c`` up to this use Bin(c, 1/2) pmf and cdf tables formed from exact
integers (each entry the double nearest the exact value); above it, ``log_multinomial``
(with its error bound) and ``scipy.special.bdtr``."""

SCIPY_RTOL = 1e-9
r"""Relative error taken for ``scipy.special.bdtr`` (Bin(c, 1/2) cdf for
``c > EXACT_HALF_BINOMIAL_C``) and for ``scipy.stats.binom`` tails (the clone counts left
out). Not proven: Cephes documents about 1e-14 for the incomplete beta function, and against
30-digit sums bdtr measured at most 2.1e-12 relative for c <= 3000 and the binom tails
1.1e-13; 1e-9 leaves a factor of 500."""


@dataclass(frozen=True, eq=False)
class _Clones:
    eps0: float
    n: int
    c: np.ndarray       # clone counts summed over
    w: np.ndarray       # their Bin(n - 1, e^-eps0) probabilities, as computed
    w_rel: np.ndarray   # |w_exact - w| <= w_rel * w (or the 2^-1074 of an underflow)
    tail: float         # mass of the counts left out (an upper bound)


@lru_cache(maxsize=4096)
def _half_binomial(c: int) -> tuple[np.ndarray, np.ndarray]:
    """Bin(c, 1/2) pmf and cdf for ``c <= EXACT_HALF_BINOMIAL_C``, each entry the double
    nearest the exact value (``int.__float__`` is correctly rounded; ``2^-c`` is normal)."""
    row = [math.comb(c, a) for a in range(c + 1)]
    pmf = np.array([math.ldexp(float(v), -c) for v in row])
    cdf = np.array([math.ldexp(float(v), -c) for v in itertools.accumulate(row)])
    return pmf, cdf


def _log_binomial_err(N: Any, logC: np.ndarray) -> np.ndarray:
    """Error bound of :func:`log_multinomial` for binomial coefficients ``C(N, .)`` (as for
    the KOV atoms in :mod:`mechdesign.accounting.bounds`: two terms within ``8 u`` of the
    entropy sum, the Stirling remainders and ``ln(2 pi c)`` terms, and their truncation)."""
    N = np.maximum(np.asarray(N, dtype=float), 1.0)
    return 8 * _U * (np.abs(logC) + 3 * (np.log(2 * np.pi * N) + 1)) + 12e-16


def _clones(eps0: float, n: int) -> _Clones:
    from scipy.stats import binom  # heavy (scipy.stats): imported when used

    N = n - 1
    p = math.exp(-eps0)
    if N == 0 or eps0 == 0:  # no other user, or every other user is a clone
        c = np.full(1, N, dtype=np.int64)
        return _Clones(eps0, n, c, np.ones(1), np.zeros(1), 0.0)
    mean, sd = N * p, math.sqrt(N * p * (1 - p))
    width = 12.0
    while True:  # widen until the left-out mass is below CLONE_TAIL (or nothing is left out)
        lo = max(0, math.floor(mean - width * sd - width * width))
        hi = min(N, math.ceil(mean + width * sd + width * width))
        tail = float(binom.cdf(lo - 1, N, p) + binom.sf(hi, N, p))
        if tail <= CLONE_TAIL or (lo == 0 and hi == N):
            break
        width *= 2
    if lo == 0 and hi == N:
        tail = 0.0
    elif tail > 0:
        tail = (tail * (1 + SCIPY_RTOL)) * (1 + 4 * _U) + 2.0 ** -1074
    c = np.arange(lo, hi + 1)
    # ln w = ln C(N, c) + c ln p + (N - c) ln(1 - p), ln p = -eps0 exactly (p is e^-eps0)
    logC = log_multinomial(np.stack([c, N - c], axis=1))
    lq = math.log1p(-math.exp(-eps0)) if eps0 > math.log(2) else math.log(-math.expm1(-eps0))
    ce, rest = c * eps0, (N - c) * lq
    lw = logC - ce + rest
    # errors: log_multinomial; c eps0 one rounding; lq within 4u (condition <= 1.45 of
    # log1p / log here, each function within an ulp) and the product one more; two sums
    err = (_log_binomial_err(N, logC) + 3 * _U * ce + 9 * _U * np.abs(rest)
           + 2 * _U * (np.abs(logC) + ce + np.abs(rest)) + 2 * _U * np.abs(lw))
    w = np.exp(lw)
    return _Clones(eps0, n, c, w, np.expm1(1.01 * err) + 3 * _U, tail)


def _clone_delta(cl: _Clones, eps: float) -> tuple[float, float]:
    r"""``(lower, upper)`` on ``E_C[H_{e^eps}(P_C || Q_C)]`` (exact, for the exact
    ``e^-eps0``) over the summed clone counts; ``upper`` adds the mass left out.

    Per count c, ``H_c = max_a S_c(a)`` with ``S_c(a) = c1 b_c(a) - (e^eps - 1) B_c(a - 1)``
    (the sum of ``P_c - e^eps Q_c`` over ``0..a``; the ratio is decreasing in a, so the
    positive terms are a prefix). ``a*`` is computed in floats (off by at most one), so
    ``S_c`` is bounded at ``a* - 1, a*, a* + 1``. Every factor carries a relative error
    bound: ``c1 = -expm1(eps - eps0)/(1 + e^-eps0)`` 8u; ``e^eps - 1`` 2u (in log space
    above 700, ``(3 eps + |ln B|) u``); ``b, B`` half an ulp from the exact tables for
    ``c <= EXACT_HALF_BINOMIAL_C``, else ``b`` from :func:`log_multinomial` (its bound plus
    ``(c ln 2 + |ln b|) 2u``) and ``B`` :data:`SCIPY_RTOL`; the weights ``w_rel``
    (:func:`_clones`). The positive part is raised and the negative lowered by those bounds
    (and ``4 u`` of both for the roundings of the difference), the dot product by
    ``(L + 2) 2^-52`` relative (L counts, non-negative terms) plus ``L 2^-1074`` for
    underflows, then stepped one double outward. ``u = 2^-53``.
    """
    eps0 = cl.eps0
    if eps >= eps0:
        return 0.0, 0.0
    c = cl.c
    # ratio P_c(a)/Q_c(a) is decreasing in a and exceeds e^eps iff a < (c + 1) / (1 + tau)
    if eps + eps0 < 700:
        tau = math.expm1(eps + eps0) / (math.exp(eps) * math.expm1(eps0 - eps))
    else:  # the same in log space (e^(eps + eps0) overflows a double from 709.8 on)
        log_tau = log_expm1(eps + eps0) - eps - log_expm1(eps0 - eps)
        tau = math.exp(log_tau) if log_tau < 709 else math.inf
    c1 = -math.expm1(eps - eps0) / (1.0 + math.exp(-eps0))
    r_c1 = 8 * _U
    astar = np.ceil((c + 1) / (1.0 + tau)).astype(np.int64) - 1
    L = len(c)
    A = [np.clip(astar + shift, 0, c) for shift in (-1, 0, 1)]  # a* - 1, a*, a* + 1
    b = [np.empty(L) for _ in A]  # b_c(a) and B_c(a - 1) at each, with relative bounds
    B = [np.zeros(L) for _ in A]
    r_b = [np.full(L, _U) for _ in A]
    r_B = [np.full(L, _U) for _ in A]
    small = c <= EXACT_HALF_BINOMIAL_C
    for i in np.flatnonzero(small):
        pmf, cdf = _half_binomial(int(c[i]))
        for a, bb, BB in zip(A, b, B, strict=True):
            bb[i] = pmf[a[i]]
            BB[i] = cdf[a[i] - 1] if a[i] >= 1 else 0.0
    big = ~small
    if big.any():
        # b in log space at a* (log_multinomial) and its neighbours by the exact ratio
        # C(c, a +- 1) / C(c, a); B by bdtr once, at a* - 2, then b added on
        cb, a0 = c[big], A[1][big]
        logC = log_multinomial(np.stack([a0, cb - a0], axis=1))
        cl2 = cb * math.log(2.0)
        lb0 = logC - cl2
        e0 = _log_binomial_err(cb, logC) + 2 * _U * (cl2 + np.abs(lb0))
        with np.errstate(divide="ignore", invalid="ignore"):
            step_dn = np.log(np.where(a0 >= 1, a0 / np.maximum(cb - a0 + 1, 1), 1.0))
            step_up = np.log(np.where(a0 < cb, (cb - a0) / (a0 + 1.0), 1.0))
        for k, (lb, e) in enumerate(((lb0 + step_dn, e0 + 4 * _U * np.abs(step_dn)),
                                     (lb0, e0), (lb0 + step_up, e0 + 4 * _U * np.abs(step_up)))):
            lb_k = np.where(A[k][big] == a0, lb0, lb)
            b[k][big] = np.exp(lb_k)
            r_b[k][big] = np.expm1(1.01 * (e + 2 * _U * np.abs(lb_k))) + 2 * _U
        am = A[0][big]
        B[0][big] = np.where(am >= 1, bdtr(np.maximum(am - 1, 0), cb, 0.5), 0.0)
        r_B[0][big] = SCIPY_RTOL
        for k in (1, 2):  # B(a_k - 1) = B(a_{k-1} - 1) + b(a_{k-1}) when a_k = a_{k-1} + 1
            moved = A[k][big] > A[k - 1][big]
            B[k][big] = B[k - 1][big] + np.where(moved, b[k - 1][big], 0.0)
            r_B[k][big] = np.maximum(r_B[k - 1][big], r_b[k - 1][big]) + 2 * _U
    h_lo = np.zeros(L)
    h_up = np.zeros(L)
    em1 = math.expm1(min(eps, 700.0))
    for bb, BB, rb, rB in zip(b, B, r_b, r_B, strict=True):
        t1 = c1 * bb
        r1 = r_c1 + rb + 2 * _U
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            if eps < 700:
                t2 = em1 * BB
                r2 = rB + 4 * _U
            else:
                lg = log_expm1(eps) + np.log(BB)
                t2 = np.where(BB > 0, np.exp(lg), 0.0)
                r2 = np.expm1(np.where(BB > 0, 1.01 * ((3 * eps + 2 * np.abs(np.log(BB))) * _U
                                                       + rB + np.abs(lg) * _U), 0.0)) + _U
        slack = 4 * _U * (t1 + t2)
        h_up = np.maximum(h_up, t1 * (1 + r1) - t2 * (1 - r2) + slack)
        h_lo = np.maximum(h_lo, t1 * (1 - r1) - t2 * (1 + r2) - slack)
    h_up = np.minimum(h_up, 1.0)
    grow = (L + 2) * 2.0 ** -52
    # underflows (w, b or B below 2^-1022): at most 2^-1074 absolute each, per count
    tiny = 4 * L * 2.0 ** -1074 * max(1.0, em1)
    upper = float(np.dot(cl.w * (1 + cl.w_rel), h_up)) * (1 + grow) + tiny + cl.tail
    lower = float(np.dot(cl.w * (1 - cl.w_rel), h_lo)) * (1 - grow) - tiny
    return max(0.0, _down(lower)), _up(upper)


@value_view
@dataclass(frozen=True)
class ShuffleDelta:
    """Bracket ``[lower, upper]`` on the clone bound's delta at one epsilon, both rigorous
    for the float evaluation (rounded outward by the error bounds of :func:`_clone_delta`);
    the counts left out contribute at most their mass, added to ``upper``."""

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

    Outward rounded: ``upper`` is never below the exact clone bound and ``lower`` never
    above it (the bound as defined for the exact ``e^-eps0``). The float evaluation is
    bounded factor by factor (:func:`_clone_delta`): about ``(L + 30) 2^-53`` relative
    (L clone counts summed) for ``n <= 1001``, where the Bin(c, 1/2) tables are exact;
    above, ``scipy.special.bdtr`` is taken within :data:`SCIPY_RTOL` = 1e-9 relative (a
    measured, not proven, accuracy), which the hockey-stick difference can amplify
    (``upper / lower - 1`` is 3e-8 at eps0 = 4, n = 1e5, eps = 0.17).
    """
    e0, n = _shuffle_args(epsilon0, n)
    eps = check_epsilon(epsilon, allow_inf=True)
    low, up = _clone_delta(_clones(e0, n), eps)
    return ShuffleDelta(eps, min(low, 1.0), min(1.0, up))


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


def _bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _from_bits(i: int) -> float:
    return struct.unpack("<d", struct.pack("<q", i))[0]


def _smallest_meeting(f: Callable[[float], float], target: float, a: float, b: float
                      ) -> float:
    """The smallest double in ``(a, b]`` with ``f <= target``, for ``0 <= a < b``,
    ``f(a) > target >= f(b)`` and f non-increasing: Brent's method on ``ln f`` to a few
    doubles, then an exponential search and a bisection on the doubles' bit patterns
    (ordered like the values for non-negative doubles). Without monotonicity the result
    still meets the target and its predecessor does not."""
    floor = 2.0 ** -1074
    log_t = math.log(max(target, floor))

    def g(e: float) -> float:
        return math.log(max(f(e), floor)) - log_t

    ia, ib = _bits(a), _bits(b)
    root = float(brentq(g, a, b, xtol=1e-300, rtol=1e-15, maxiter=200))
    ir = min(max(_bits(root), ia + 1), ib)
    step = 1
    if f(_from_bits(ir)) <= target:  # search down for a double that does not meet it
        lo, hi = ir - 1, ir
        while lo > ia and f(_from_bits(lo)) <= target:
            hi, step = lo, 2 * step
            lo = max(ia, hi - step)
    else:  # search up for one that does
        lo, hi = ir, ir + 1
        while hi < ib and f(_from_bits(hi)) > target:
            lo, step = hi, 2 * step
            hi = min(ib, lo + step)
    while hi - lo > 1:  # f(lo) > target >= f(hi)
        mid = (lo + hi) // 2
        if f(_from_bits(mid)) <= target:
            hi = mid
        else:
            lo = mid
    return _from_bits(hi)


def _below(f_low: Callable[[float], float], target: float, up: float) -> float:
    """A double below ``up`` at which ``f_low > target`` (``f_low(0) > target``), from
    ``1e-9`` relative below ``up``, the gap growing tenfold until it holds."""
    margin = 1e-9 * up + 1e-13
    a = max(0.0, up - margin)
    while a > 0 and f_low(a) <= target:
        margin *= 10
        a = max(0.0, up - margin)
    return a


ShuffleMethod = Literal["numeric", "closed_form", "closed_form_fmt21"]


@value_view
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
    """FMT22 Thm 3.2 by :func:`mechdesign._exact.outward` (60 digits, rounded up), and its
    range ``eps0 <= ln(n / (8 ln(2/delta)) - 1)`` decided conservatively (the right side
    rounded down)."""
    N = Decimal(n)

    def val(e: Decimal, d: Decimal) -> Decimal:
        if e > 5000:  # e^eps0 (e^eps0 - 1) beyond any double
            return Decimal("Infinity")
        return dlog1p(4 * dexpm1(e) * ((2 * (4 / d).ln() / ((e.exp() + 1) * N)).sqrt() + 1 / N))

    def room(d: Decimal) -> Decimal:
        return N / (8 * (2 / d).ln()) - 1

    valid = (outward(room, d, direction="down") > 0
             and e0 <= outward(lambda d: room(d).ln(), d, direction="down"))
    return outward(val, e0, d), valid


def _fmt21(e0: float, n: int, d: float) -> tuple[float, bool]:
    """The FMT21 closed form by :func:`mechdesign._exact.outward` (60 digits, rounded up),
    its range ``eps0 <= ln(n / (16 ln(4/delta)))`` decided conservatively (the right side
    rounded down, and above 0)."""
    N = Decimal(n)

    def val(e0: Decimal, d: Decimal) -> Decimal:
        if e0 > 5000:
            return Decimal("Infinity")
        a = 8 * (e0.exp() * (4 / d).ln() / N).sqrt()
        c = 8 * e0.exp() / N
        e = dlog1p(a + c)
        b = -dexpm1(-e0)
        dd = 1 + (-e0 - e).exp()
        return dlog1p(b / dd * (a + c))

    ln_ratio = outward(lambda d: (N / (16 * (4 / d).ln())).ln(), d, direction="down")
    return outward(val, e0, d), ln_ratio > 0 and e0 <= ln_ratio


def shuffle_epsilon(epsilon0: float, n: int, delta: float,
                    method: ShuffleMethod = "numeric") -> ShuffleBound:
    r"""Amplification by shuffling: n users each apply an eps0-LDP randomizer, the reports
    are shuffled; the result is (eps, delta)-DP for the returned eps.

    Methods
    -------
    ``"numeric"``
        The Feldman-McMillan-Talwar 2021 clone bound computed exactly (:func:`shuffle_delta`)
        and inverted. ``upper`` (the returned epsilon) is the smallest double at which
        ``shuffle_delta(...).upper``, a rigorous upper bound on the clone delta, is at
        most delta (Brent on its logarithm, then a search double by double); ``lower`` is
        a double at which ``shuffle_delta(...).lower`` still exceeds delta (1e-9 relative
        below ``upper``, widened tenfold until it does), so the exact epsilon of the clone
        bound lies in ``(lower, upper]``. Holds for every eps0-LDP randomizer.
    ``"closed_form"``
        FMT22 Thm 3.2 (Huang & Canonne Thm 5.2, seed eq. 5):

        .. math:: \varepsilon \le \ln\Big(1 + 4(e^{\varepsilon_0} - 1)\Big(
                  \sqrt{\tfrac{2\ln(4/\delta)}{(e^{\varepsilon_0} + 1) n}} + \tfrac1n\Big)\Big)

        valid for ``eps0 <= ln(n / (8 ln(2/delta)) - 1)``; ``restricted=True``: the erratum
        of FMT22 limits it to a class of randomizers (:data:`FMT22_ERRATUM`).
        Evaluated by :func:`mechdesign._exact.outward` at 60 digits and rounded up; the
        range condition's right side is rounded down.
    ``"closed_form_fmt21"``
        The FMT21 closed form as evaluated by the authors' public code:
        ``e = ln(1 + a + c)``, ``a = 8 sqrt(e^eps0 ln(4/delta) / n)``, ``c = 8 e^eps0 / n``,
        ``eps = ln(1 + (1 - e^-eps0) / (1 + e^{-eps0 - e}) (a + c))``, valid for
        ``eps0 <= ln(n / (16 ln(4/delta)))``; all eps0-LDP randomizers.
        Rounded as ``"closed_form"``.
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
        return _clone_delta(cl, e)[0]

    def upper_delta(e: float) -> float:
        return min(1.0, _clone_delta(cl, e)[1])

    if upper_delta(0.0) <= d:
        low = up = 0.0
    elif d == 0:
        low = up = e0
    elif cl.tail > d:
        up = e0  # the clone delta is exactly 0 from eps0 on, whatever was left out
        low = 0.0 if low_delta(0.0) <= d else _invert(low_delta, low_delta, d, e0)[0]
    else:  # upper(0) > d >= upper(e0) = 0
        up = _smallest_meeting(upper_delta, d, 0.0, e0)
        low = 0.0 if low_delta(0.0) <= d else _below(low_delta, d, up)
    up = min(up, e0)
    return ShuffleBound(up, min(low, up), up, method, True, False, note, up, e0, n, d)
