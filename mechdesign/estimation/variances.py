r"""Exact variances of the frequency estimators (:mod:`~mechdesign.estimation.estimators`).

* Warner's estimator: Eq. (1) of Li et al. 2022 (Warner 1965);
* the Q_2x3 maximum-likelihood estimator: Thm 3.10 of Li et al. 2022 (corrected, with the
  exact ``A = E[1/M | M > 0]`` of :func:`binomial_inverse_moment` or the paper's
  approximation), ``docs/belief_functions.md`` s.4;
* the unbiased Q_lambda estimator (Eq. (1) at truth probability ``p + lambda d``);
* the covariance matrix of the unbiased inverse estimator of any mechanism.

Every function broadcasts over its probability parameters and returns a float for scalar
inputs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import logsumexp

from .._coerce import as_mechanism
from .._validation import check_int, check_probability
from ..errors import InvalidParameterError
from .estimators import inverse_matrix
from .inputs import as_prior, as_probability_array, scalar_or_array

__all__ = [
    "INVERSE_MOMENT_RTOL",
    "binomial_inverse_moment",
    "covariance_inverse",
    "variance_dont_know",
    "variance_q_lambda",
    "variance_warner",
]


INVERSE_MOMENT_RTOL = 1e-15
"""Relative bound on the binomial mass left out of the exact ``A = E[1/M | M > 0]``."""


# ---------------------------------------------------------------------------- A = E[1/M | M>0]
def _inverse_moment_exact(n: int, c: float, rtol: float) -> float:
    r"""``E[1/M | M > 0]`` for ``M ~ Bin(n, c)``, ``0 < c < 1``, in log space.

    Relative weights ``w_k = P(M = k) / P(M = k*)`` are built from the pmf ratios
    ``P(k+1)/P(k) = (n-k)/(k+1) * c/(1-c)`` (a cumulative sum of logs: no ``gammaln(n)`` of
    size 1e7 whose rounding would cost 1e-9), over a window around the mode ``k*``; then
    ``A = sum_k w_k / k / sum_k w_k`` (k >= 1). The window is widened until the mass outside,
    bounded through log-concavity of the binomial pmf (the ratios are monotone, so each tail
    is below a geometric series), is below ``rtol`` of both sums.
    """
    log_odds = math.log(c) - math.log1p(-c)
    mode = min(max(math.floor((n + 1) * c), 1), n)
    half = math.ceil(10.0 * math.sqrt(n * c * (1.0 - c)) + 10.0)
    while True:
        lo, hi = max(1, mode - half), min(n, mode + half)
        # log ratios P(k+1)/P(k) for k = lo..hi-1, integrated from the mode
        k_up = np.arange(mode, hi, dtype=float)
        up = np.log(n - k_up) - np.log(k_up + 1.0) + log_odds
        k_dn = np.arange(lo, mode, dtype=float)  # log P(k)/P(k+1) for k = lo..mode-1
        dn = -(np.log(n - k_dn) - np.log(k_dn + 1.0) + log_odds)
        logw = np.concatenate([np.cumsum(dn[::-1])[::-1], [0.0], np.cumsum(up)])
        ks = np.arange(lo, hi + 1, dtype=float)
        log_num = logsumexp(logw - np.log(ks))
        log_den = logsumexp(logw)
        # tails: right of hi the ratios are <= r_hi, left of lo they are <= r_lo (log-concave)
        tail_num = tail_den = 0.0
        if hi < n:
            r = (n - hi) / (hi + 1.0) * math.exp(log_odds)
            if r >= 1:
                half *= 2
                continue
            t = math.exp(logw[-1]) * r / (1.0 - r)
            tail_den += t
            tail_num += t / (hi + 1.0)
        if lo > 1:
            r = lo / (n - lo + 1.0) * math.exp(-log_odds)
            if r >= 1:
                half *= 2
                continue
            t = math.exp(logw[0]) * r / (1.0 - r)
            tail_den += t
            tail_num += t  # 1/k <= 1
        if (tail_num <= rtol * math.exp(log_num) and tail_den <= rtol * math.exp(log_den)):
            return math.exp(log_num - log_den)
        half *= 2


def binomial_inverse_moment(n: int, c: Any, exact: bool = True) -> float | np.ndarray:
    r"""``A = E[1/M | M > 0]`` for ``M ~ Bin(n, c)`` (Li et al. 2022, Thm 3.10).

    .. math:: A = \frac{1}{1 - (1-c)^n} \sum_{k=1}^{n} \binom{n}{k} c^k (1-c)^{n-k} \frac1k

    Parameters
    ----------
    n : int
        Number of respondents, ``n >= 1``.
    c : float or array_like
        Success probability(ies) in ``(0, 1]`` (for Q_2x3, ``c = p + q``).
    exact : bool
        ``True`` (default): the finite sum, evaluated in log space over the window where the
        binomial pmf is non-negligible, with the mass left out bounded (through log-concavity)
        below :data:`INVERSE_MOMENT_RTOL` of the sum (the window spans about
        ``20 sqrt(n c (1 - c))`` terms around the mode, not n).
        ``False``: the approximation ``1 / ((n + 1) c - 1)`` that Li et al. 2022 adopt after
        Thm 3.10 (always slightly low, about -3% at ``n = 10, c = 0.5``); it has no meaning
        when ``(n + 1) c <= 1`` and returns NaN there.

    Returns
    -------
    float or ndarray (the shape of ``c``)
        ``A = 1/n`` exactly at ``c = 1``.

    Raises
    ------
    InvalidParameterError
        ``n < 1`` or some ``c`` outside ``(0, 1]`` (``c = 0``: ``M = 0`` always, A undefined).
    """
    n = check_int(n, "n", 1)
    cs = as_probability_array(c, "c")
    if (cs <= 0).any():
        raise InvalidParameterError(
            "c must be > 0 (with c = 0 no respondent ever answers Yes or No), got 0.0")
    if not exact:
        with np.errstate(divide="ignore"):
            denom = (n + 1) * cs - 1.0
            out = np.where(denom > 0, 1.0 / np.where(denom > 0, denom, 1.0), np.nan)
        return scalar_or_array(out)
    flat = cs.ravel()
    uniq, inv = np.unique(flat, return_inverse=True)
    vals = np.array([1.0 / n if u == 1.0 else _inverse_moment_exact(n, float(u),
                                                                     INVERSE_MOMENT_RTOL)
                     for u in uniq])
    return scalar_or_array(vals[inv].reshape(cs.shape))


# ---------------------------------------------------------------------------- exact variances
def variance_warner(p: Any, pi: float, n: int) -> float | np.ndarray:
    r"""Exact variance of Warner's estimator (Warner 1965; Li et al. 2022, Eq. (1)).

    .. math:: \mathrm{Var}(\hat\pi) = \frac{\pi(1-\pi)}{n} + \frac{p(1-p)}{n(2p-1)^2}
              = \frac{-(\pi - 1/2)^2 + 1/(4(2p-1)^2)}{n}

    ``p`` may be an array. At ``p = 1/2`` the responses carry no information and the value is
    ``inf``. The estimator is unbiased, so this is also its mean squared error.
    """
    ps = as_probability_array(p, "p")
    pi = check_probability(pi, "pi")
    n = check_int(n, "n", 1)
    with np.errstate(divide="ignore"):
        out = (-(pi - 0.5) ** 2 + 0.25 / (2.0 * ps - 1.0) ** 2) / n
    return scalar_or_array(out)


def variance_dont_know(p: Any, q: Any, pi: float, n: int, exact: bool = True
                       ) -> float | np.ndarray:
    r"""Exact conditional variance of the Q_2x3 MLE (Li et al. 2022, Thm 3.10, corrected).

    .. math:: \nu^S(p, q) = \mathrm{Var}[\hat\pi \mid N_1 + N_2 \ne 0]
              = \Big[-(\pi - \tfrac12)^2 + \frac{(p+q)^2}{4(p-q)^2}\Big]\, A,
              \qquad A = E[1/M \mid M > 0],\ M \sim \mathrm{Bin}(n, p + q).

    (``docs/belief_functions.md`` s.4 and correction 1: the paper prints the fraction upside
    down.) Given ``M = m > 0``, ``N_1 ~ Bin(m, q_1/c)`` and the estimator is exactly unbiased
    with variance ``q_1 q_2 / (m (p-q)^2)``; averaging ``1/m`` gives the formula. With
    ``exact=False`` the paper's ``A ~= 1/((n+1)(p+q) - 1)`` is used instead (see
    :func:`binomial_inverse_moment`). At ``p + q = 1`` this is Warner's Eq. (1).

    Parameters
    ----------
    p, q : float or array_like (broadcast)
        Truth and lie probabilities, ``p + q <= 1``, ``p + q > 0``. The paper assumes
        ``p > 1/2``; the formula only needs ``p != q`` (``p = q`` gives ``inf``: the answers
        carry no information about pi).
    pi : float
        True proportion in [0, 1].
    n : int
        Survey size, ``>= 1``.
    """
    ps = as_probability_array(p, "p")
    qs = as_probability_array(q, "q")
    ps, qs = np.broadcast_arrays(ps, qs)
    c = ps + qs
    if (c > 1 + 1e-12).any():
        raise InvalidParameterError(
            f"p + q must be <= 1, got p + q = {float(c[c > 1 + 1e-12][0])!r}")
    pi = check_probability(pi, "pi")
    n = check_int(n, "n", 1)
    A = np.asarray(binomial_inverse_moment(n, np.minimum(c, 1.0), exact=exact))
    with np.errstate(divide="ignore"):
        bracket = -(pi - 0.5) ** 2 + c ** 2 / (4.0 * (ps - qs) ** 2)
    return scalar_or_array(bracket * A)


def variance_q_lambda(p: Any, q: Any, lam: Any, pi: float, n: int) -> float | np.ndarray:
    r"""Exact variance of the unbiased Q_lambda estimator (Li et al. 2022, s.4):

    .. math:: \nu_\lambda = \frac{-(\pi - 1/2)^2 + 1/(4 (p - q + (2\lambda - 1) d)^2)}{n},
              \qquad d = 1 - p - q.

    Q_lambda is Warner's mechanism with truth probability ``p + lambda d``, so this is
    Eq. (1) there. ``p, q, lam`` broadcast; ``inf`` where ``p + lambda d = 1/2``.
    """
    ps, qs, ls = np.broadcast_arrays(as_probability_array(p, "p"), as_probability_array(q, "q"),
                                     as_probability_array(lam, "lam"))
    d = 1.0 - ps - qs
    if (d < -1e-12).any():
        raise InvalidParameterError(
            f"p + q must be <= 1, got p + q = {float((ps + qs)[d < -1e-12][0])!r}")
    d = np.maximum(d, 0.0)
    pi = check_probability(pi, "pi")
    n = check_int(n, "n", 1)
    with np.errstate(divide="ignore"):
        out = (-(pi - 0.5) ** 2 + 0.25 / (ps - qs + (2.0 * ls - 1.0) * d) ** 2) / n
    return scalar_or_array(out)


def covariance_inverse(mechanism: Any, prior: Any, n: int) -> np.ndarray:
    r"""Exact covariance matrix of
    :func:`~mechdesign.estimation.estimators.estimate_inverse` for ``n`` reports.

    With ``lam = prior @ Q`` the output frequencies have covariance
    ``(diag(lam) - lam lam^T) / n``, and the estimator is linear (``f @ L``), so

    .. math:: \mathrm{Cov}(\hat\pi) = L^T (\mathrm{diag}(\lambda) - \lambda\lambda^T) L / n .

    The trace is the mean squared error summed over the k frequencies.
    """
    mech = as_mechanism(mechanism)
    pr = as_prior(prior, mech.n_inputs)
    n = check_int(n, "n", 1)
    L = inverse_matrix(mech)
    lam = pr @ mech.matrix
    return L.T @ (np.diag(lam) - np.outer(lam, lam)) @ L / n
