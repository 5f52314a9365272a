r"""Frequency estimation from randomized responses: estimators, exact variances, Cramer-Rao.

Three families:

* the binary survey estimators of Li et al. 2022 (``docs/belief_functions.md`` s.4): Warner's
  estimator, the maximum-likelihood estimator of the "don't know" mechanism Q_2x3 and the
  unbiased estimator of Walley's completion Q_lambda, with their exact variances (Eq. (1),
  Thm 3.10 with the exact ``A = E[1/M | M > 0]``, and the Q_lambda variance);
* for any k-ary :class:`~mechdesign.mechanism.Mechanism`: the unbiased inverse estimator, its
  Euclidean projection onto the probability simplex, the maximum-likelihood estimator by EM,
  and the exact covariance of the inverse estimator;
* the Cramer-Rao bound of any mechanism (``docs/formulations.md``, "Estimation").

Counts are arrays of shape ``(..., m)``: one count per output (for Q_2x3 the order is
``(n1, n2, n3)`` = Yes, No, "don't know"), and every estimator is vectorised over the leading
axes, so a batch of simulated surveys is one call. Where an estimator is undefined it returns
NaN, never a silent 0: the paper's binary estimators where ``n = 0`` (and, for Q_2x3, where
``n1 + n2 = 0``, the conditional estimator of Thm 3.10); the k-ary estimators only where
``n = 0``. On counts that fall only on outputs carrying no information (a column of Q equal
for every input, such as "don't know" in Q_2x3) the k-ary estimators are defined and return a
value fixed by Q, not by the data (e.g. ``[0.5, 0.5]`` for ``dont_know(0.6, 0.2)`` with
counts ``(0, 0, 5)``): the unconditional convention, see :func:`estimate_inverse`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.linalg import null_space
from scipy.special import logsumexp

from .._coerce import as_mechanism
from .._validation import check_int, check_probability, check_real
from ..errors import InvalidMechanismError, InvalidParameterError
from ..mechanism import Mechanism

PRIOR_SUM_TOL = 1e-9
"""A prior must sum to 1 within this tolerance; it is never renormalised."""

INVERSE_MOMENT_RTOL = 1e-15
"""Relative bound on the binomial mass left out of the exact ``A = E[1/M | M > 0]``."""


# ---------------------------------------------------------------------------- validation
def _as_counts(counts: Any, m: int, what: str = "counts") -> np.ndarray:
    """Non-negative finite counts with last axis of length ``m``, as floats."""
    try:
        arr = np.asarray(counts, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"{what} is not a numeric array: {exc}") from None
    if arr.ndim < 1 or arr.shape[-1] != m:
        raise InvalidParameterError(
            f"{what} must have last axis of length {m} (one count per output), "
            f"got shape {arr.shape}")
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        raise InvalidParameterError(
            f"{what} must be finite and >= 0, got {float(arr[bad].flat[0])!r}")
    return arr


def _as_prob_array(value: Any, name: str) -> np.ndarray:
    """A float array with every entry in [0, 1] (scalars allowed)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"{name} is not numeric: {exc}") from None
    bad = ~(np.isfinite(arr) & (arr >= 0) & (arr <= 1))
    if bad.any():
        raise InvalidParameterError(
            f"{name} must lie in [0, 1], got {float(arr[bad].flat[0])!r}")
    return arr


def _scalar_or_array(x: np.ndarray) -> float | np.ndarray:
    return float(x) if np.ndim(x) == 0 else x


def as_prior(prior: Any, k: int, name: str = "prior") -> np.ndarray:
    """A probability vector of length ``k`` (never renormalised).

    A scalar ``pi`` is accepted when ``k = 2`` and means ``(pi, 1 - pi)``: the proportion
    of the first input (the sensitive property P in Li et al. 2022).
    """
    if np.ndim(prior) == 0:
        if k != 2:
            raise InvalidParameterError(
                f"a scalar {name} ({prior!r}) is only meaningful for 2 inputs; give a "
                f"vector of length {k}")
        pi = check_probability(prior, name)
        return np.array([pi, 1.0 - pi])
    try:
        arr = np.array(prior, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"{name} is not numeric: {exc}") from None
    if arr.shape != (k,):
        raise InvalidParameterError(f"{name} must have shape ({k},), got {arr.shape}")
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        raise InvalidParameterError(f"{name} entries must be finite and >= 0, got "
                                    f"{float(arr[bad][0])!r}")
    if abs(arr.sum() - 1.0) > PRIOR_SUM_TOL:
        raise InvalidParameterError(
            f"{name} = {arr.tolist()!r} sums to {float(arr.sum())!r}, not 1; it is never "
            "renormalised silently")
    return arr


def _check_binary(mechanism: Mechanism, what: str) -> None:
    if mechanism.n_inputs != 2:
        raise InvalidMechanismError(f"{what} needs 2 inputs, got {mechanism.n_inputs}")


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
        below :data:`INVERSE_MOMENT_RTOL` of the sum; ``n = 10**6`` takes 0.4-0.9 ms
        (measured, best of 7 x 100 calls, for c from 0.1 to 0.99).
        ``False``: the seed's approximation ``1 / ((n + 1) c - 1)`` (always slightly low, about
        -3% at ``n = 10, c = 0.5``); it has no meaning when ``(n + 1) c <= 1`` and returns NaN
        there.

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
    cs = _as_prob_array(c, "c")
    if (cs <= 0).any():
        raise InvalidParameterError(
            "c must be > 0 (with c = 0 no respondent ever answers Yes or No), got 0.0")
    if not exact:
        with np.errstate(divide="ignore"):
            denom = (n + 1) * cs - 1.0
            out = np.where(denom > 0, 1.0 / np.where(denom > 0, denom, 1.0), np.nan)
        return _scalar_or_array(out)
    flat = cs.ravel()
    uniq, inv = np.unique(flat, return_inverse=True)
    vals = np.array([1.0 / n if u == 1.0 else _inverse_moment_exact(n, float(u),
                                                                     INVERSE_MOMENT_RTOL)
                     for u in uniq])
    return _scalar_or_array(vals[inv].reshape(cs.shape))


# ---------------------------------------------------------------------------- exact variances
def variance_warner(p: Any, pi: float, n: int) -> float | np.ndarray:
    r"""Exact variance of Warner's estimator (Warner 1965; Li et al. 2022, Eq. (1)).

    .. math:: \mathrm{Var}(\hat\pi) = \frac{\pi(1-\pi)}{n} + \frac{p(1-p)}{n(2p-1)^2}
              = \frac{-(\pi - 1/2)^2 + 1/(4(2p-1)^2)}{n}

    ``p`` may be an array. At ``p = 1/2`` the responses carry no information and the value is
    ``inf``. The estimator is unbiased, so this is also its mean squared error.
    """
    ps = _as_prob_array(p, "p")
    pi = check_probability(pi, "pi")
    n = check_int(n, "n", 1)
    with np.errstate(divide="ignore"):
        out = (-(pi - 0.5) ** 2 + 0.25 / (2.0 * ps - 1.0) ** 2) / n
    return _scalar_or_array(out)


def variance_dont_know(p: Any, q: Any, pi: float, n: int, exact: bool = True
                       ) -> float | np.ndarray:
    r"""Exact conditional variance of the Q_2x3 MLE (Li et al. 2022, Thm 3.10, corrected).

    .. math:: \nu^S(p, q) = \mathrm{Var}[\hat\pi \mid N_1 + N_2 \ne 0]
              = \Big[-(\pi - \tfrac12)^2 + \frac{(p+q)^2}{4(p-q)^2}\Big]\, A,
              \qquad A = E[1/M \mid M > 0],\ M \sim \mathrm{Bin}(n, p + q).

    (``docs/belief_functions.md`` s.4 and correction 1: the seed prints the fraction upside
    down.) Given ``M = m > 0``, ``N_1 ~ Bin(m, q_1/c)`` and the estimator is exactly unbiased
    with variance ``q_1 q_2 / (m (p-q)^2)``; averaging ``1/m`` gives the formula. With
    ``exact=False`` the seed's ``A ~= 1/((n+1)(p+q) - 1)`` is used instead (see
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
    ps = _as_prob_array(p, "p")
    qs = _as_prob_array(q, "q")
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
    return _scalar_or_array(bracket * A)


def variance_q_lambda(p: Any, q: Any, lam: Any, pi: float, n: int) -> float | np.ndarray:
    r"""Exact variance of the unbiased Q_lambda estimator (Li et al. 2022, s.4):

    .. math:: \nu_\lambda = \frac{-(\pi - 1/2)^2 + 1/(4 (p - q + (2\lambda - 1) d)^2)}{n},
              \qquad d = 1 - p - q.

    Q_lambda is Warner's mechanism with truth probability ``p + lambda d``, so this is
    Eq. (1) there. ``p, q, lam`` broadcast; ``inf`` where ``p + lambda d = 1/2``.
    """
    ps, qs, ls = np.broadcast_arrays(_as_prob_array(p, "p"), _as_prob_array(q, "q"),
                                     _as_prob_array(lam, "lam"))
    d = 1.0 - ps - qs
    if (d < -1e-12).any():
        raise InvalidParameterError(
            f"p + q must be <= 1, got p + q = {float((ps + qs)[d < -1e-12][0])!r}")
    d = np.maximum(d, 0.0)
    pi = check_probability(pi, "pi")
    n = check_int(n, "n", 1)
    with np.errstate(divide="ignore"):
        out = (-(pi - 0.5) ** 2 + 0.25 / (ps - qs + (2.0 * ls - 1.0) * d) ** 2) / n
    return _scalar_or_array(out)


# ---------------------------------------------------------------------------- binary estimators
def estimate_warner(counts: Any, p: float) -> float | np.ndarray:
    r"""Warner's unbiased estimator of pi (Warner 1965; Li et al. 2022, s.4):

    .. math:: \hat\pi = \frac{n_1/n - (1 - p)}{2p - 1}

    Parameters
    ----------
    counts : array_like, shape (..., 2)
        ``(n1, n2)``: numbers of Yes and No answers (``n = n1 + n2``).
    p : float
        Truth probability, ``p != 1/2``.

    Returns
    -------
    float or ndarray, shape (...)
        Not clipped to [0, 1] (clipping would bias it). NaN where ``n = 0`` (undefined).
    """
    p = check_probability(p, "p")
    if p == 0.5:
        raise InvalidParameterError("p = 0.5 makes Warner's estimator undefined (2p - 1 = 0)")
    c = _as_counts(counts, 2)
    n = c.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(n > 0, (c[..., 0] / n - (1.0 - p)) / (2.0 * p - 1.0), np.nan)
    return _scalar_or_array(out)


def estimate_dont_know(counts: Any, p: float, q: float) -> float | np.ndarray:
    r"""Maximum-likelihood estimator of pi for the "don't know" mechanism Q_2x3
    (Li et al. 2022, s.4):

    .. math:: \hat\pi = \frac{p\, n_1 - q\, n_2}{(p - q)(n_1 + n_2)}

    (the root of ``n1/q1 - n2/q2 = 0``; unconstrained, not clipped). Conditionally on
    ``N1 + N2 = m > 0`` it is exactly unbiased (Thm 3.10).

    Parameters
    ----------
    counts : array_like, shape (..., 3)
        ``(n1, n2, n3)``: Yes, No and "don't know" counts (the column order of
        :func:`mechdesign.catalog.dont_know`).
    p, q : float
        Truth and lie probabilities, ``p + q <= 1``, ``p != q``.

    Returns
    -------
    float or ndarray, shape (...)
        NaN where ``n1 + n2 = 0``: every answer was "don't know" and the likelihood does not
        depend on pi, so the estimator is undefined (the paper redraws such surveys).
    """
    p = check_probability(p, "p")
    q = check_probability(q, "q")
    if p + q > 1 + 1e-12:
        raise InvalidParameterError(f"p + q must be <= 1, got p + q = {p + q!r}")
    if p == q:
        raise InvalidParameterError(f"p = q = {p!r} makes the Q_2x3 estimator undefined")
    c = _as_counts(counts, 3)
    m = c[..., 0] + c[..., 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(m > 0, (p * c[..., 0] - q * c[..., 1]) / ((p - q) * m), np.nan)
    return _scalar_or_array(out)


def estimate_q_lambda(counts: Any, p: float, q: float, lam: float) -> float | np.ndarray:
    r"""Unbiased estimator of pi for Walley's completion Q_lambda (Li et al. 2022, s.4,
    correction 2):

    .. math:: \hat\pi_\lambda = \frac{n_1/n - (1-\lambda) d - q}{p - q + (2\lambda - 1) d},
              \qquad d = 1 - p - q.

    ``counts`` has shape ``(..., 2)`` (Yes, No). NaN where ``n = 0``. Raises when the
    denominator is 0 (``p + lambda d = 1/2``: the answers carry no information).
    """
    p = check_probability(p, "p")
    q = check_probability(q, "q")
    lam = check_probability(lam, "lam")
    if p + q > 1 + 1e-12:
        raise InvalidParameterError(f"p + q must be <= 1, got p + q = {p + q!r}")
    d = max(1.0 - p - q, 0.0)
    denom = p - q + (2.0 * lam - 1.0) * d
    if denom == 0:
        raise InvalidParameterError(
            f"p = {p!r}, q = {q!r}, lam = {lam!r} give p + lam d = 1/2: estimator undefined")
    c = _as_counts(counts, 2)
    n = c.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(n > 0, (c[..., 0] / n - (1.0 - lam) * d - q) / denom, np.nan)
    return _scalar_or_array(out)


# ---------------------------------------------------------------------------- k-ary estimators
def inverse_matrix(mechanism: Any) -> np.ndarray:
    r"""The ``(m, k)`` matrix ``L`` of the unbiased inverse estimator ``pi_hat = f @ L``.

    ``pi_hat`` minimises ``||pi @ Q - f||_2`` subject to ``sum(pi) = 1`` (``f`` the observed
    frequencies). With ``P = pinv(Q)`` (``Q`` of full row rank k), ``g = P^T 1_m``:

    .. math:: L = P + (1_m - P 1_k)\, g^T / (1_k^T g)

    For a square invertible ``Q`` this is ``Q^{-1}`` (the plain solve of ``pi Q = f``). Since
    ``pi @ Q @ L = pi`` for every prior, the estimator is exactly unbiased.

    Raises
    ------
    InvalidMechanismError
        ``Q`` is not of full row rank (the frequencies do not determine the prior).
    """
    Q = as_mechanism(mechanism).matrix
    k, m = Q.shape
    rank = np.linalg.matrix_rank(Q)
    if rank < k:
        raise InvalidMechanismError(
            f"the inverse estimator needs Q of full row rank {k}; this {k}x{m} Q has rank "
            f"{rank}, so different priors give the same output law")
    P = np.linalg.pinv(Q)  # (m, k)
    g = P.sum(axis=0)
    return P + np.outer(1.0 - P.sum(axis=1), g) / g.sum()


def estimate_inverse(mechanism: Any, counts: Any) -> np.ndarray:
    r"""Unbiased inverse estimator of the input frequencies of any mechanism.

    Solves ``pi @ Q = f`` (``f = counts / n``) in the least-squares sense on the affine
    plane ``sum(pi) = 1`` (exact solve when ``Q`` is square); see :func:`inverse_matrix`.
    Entries can be negative or above 1 (use :func:`estimate_projected` for a distribution).

    Parameters
    ----------
    mechanism : Mechanism (or EvidentialMechanism, read over its messages)
        ``k x m`` with full row rank (:class:`~mechdesign.errors.InvalidMechanismError`
        otherwise).
    counts : array_like, shape (..., m)

    Returns
    -------
    ndarray, shape (..., k)
        NaN rows where ``n = 0``.

    Notes
    -----
    Counts that carry no information. When every count falls on outputs whose column of Q
    is the same for every input (the "don't know" message of ``md.dont_know(0.6, 0.2)``,
    column ``(0.2, 0.2)``), the data say nothing about pi, yet the estimate is defined (not
    NaN): ``f @ L`` for those frequencies, a value fixed by Q alone. For
    ``md.dont_know(0.6, 0.2)`` read as a 3-output mechanism, counts ``(0, 0, 5)`` give
    ``[0.5, 0.5]``. This keeps the estimator unbiased over ALL surveys (the unconditional
    estimate); it is not the paper's Q_2x3 estimator (Li et al. 2022, Thm 3.10), which
    conditions on ``n1 + n2 > 0``, ignores ``n3`` and is NaN on such counts
    (:func:`estimate_dont_know`). Consequently ``simulate(dk, "inverse", ...)`` never redraws
    a survey and estimates the unconditional MSE (:func:`covariance_inverse`), not
    Thm 3.10's conditional variance: use
    :func:`~mechdesign.estimation.simulation.simulate_dont_know` for that.
    """
    mech = as_mechanism(mechanism)
    L = inverse_matrix(mech)
    c = _as_counts(counts, mech.n_outputs)
    n = c.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, (c / np.where(n > 0, n, 1.0)) @ L, np.nan)


def covariance_inverse(mechanism: Any, prior: Any, n: int) -> np.ndarray:
    r"""Exact covariance matrix of :func:`estimate_inverse` for ``n`` reports.

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


def project_simplex(v: Any) -> np.ndarray:
    r"""Euclidean projection of each vector (last axis) onto the probability simplex.

    .. math:: \Pi(v) = \max(v - \theta, 0), \quad \theta \text{ such that the result sums
              to } 1

    (sort-based algorithm, Held, Wolfe & Crowder 1974; Duchi et al. 2008). Vectorised over
    the leading axes; NaN rows stay NaN.
    """
    arr = np.asarray(v, dtype=float)
    if arr.ndim < 1 or arr.shape[-1] < 1:
        raise InvalidParameterError(f"need vectors along the last axis, got shape {arr.shape}")
    nan_rows = np.isnan(arr).any(axis=-1)
    work = np.where(nan_rows[..., None], 0.0, arr)
    k = work.shape[-1]
    u = -np.sort(-work, axis=-1)
    css = np.cumsum(u, axis=-1) - 1.0
    idx = np.arange(1, k + 1)
    cond = u - css / idx > 0
    rho = k - np.argmax(cond[..., ::-1], axis=-1)  # number of positive entries (>= 1)
    theta = np.take_along_axis(css, (rho - 1)[..., None], axis=-1) / rho[..., None]
    out = np.maximum(work - theta, 0.0)
    return np.where(nan_rows[..., None], np.nan, out)


def estimate_projected(mechanism: Any, counts: Any) -> np.ndarray:
    """The inverse estimator projected onto the simplex (:func:`project_simplex`).

    A distribution, biased near the boundary of the simplex. Shape ``(..., k)``; NaN rows
    where ``n = 0``.

    Counts that fall only on outputs carrying no information (a column of Q equal for every
    input) give the projection of the inverse estimate there, a value fixed by Q, not NaN:
    ``[0.5, 0.5]`` for ``md.dont_know(0.6, 0.2)`` with counts ``(0, 0, 5)`` (see
    :func:`estimate_inverse`). ``simulate(dk, "projected", ...)`` therefore estimates an
    unconditional MSE, not Thm 3.10's conditional variance
    (:func:`~mechdesign.estimation.simulation.simulate_dont_know`).
    """
    return project_simplex(estimate_inverse(mechanism, counts))


def _loglik(pi: np.ndarray, f: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """Per-report log-likelihood ``sum_y f_y ln (pi Q)_y`` (0 ln 0 = 0), row-wise."""
    lam = pi @ Q
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(f > 0, f * np.log(lam), 0.0).sum(axis=1)


def _em_gradient(pi: np.ndarray, f: np.ndarray, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``g_x = sum_y f_y Q[x,y] / (pi Q)_y`` (the gradient of the log-likelihood) and
    ``w_y = f_y / (pi Q)_y``."""
    lam = pi @ Q
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(f > 0, f / lam, 0.0)
    return w @ Q.T, w


def _step(p: np.ndarray, d: np.ndarray, t: np.ndarray, reach: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray]:
    """``p + t d`` with coordinates that reach 0 set to 0 exactly (and flagged)."""
    new = p + t[:, None] * d
    hit = np.isfinite(reach) & (reach <= t[:, None] * (1 + 1e-12))
    new = np.where(hit | (new < 0), 0.0, new)
    return new / new.sum(axis=1, keepdims=True), hit


def _newton_polish(pi: np.ndarray, f: np.ndarray, Q: np.ndarray, iters: int = 60
                   ) -> np.ndarray:
    """Active-set Newton steps on the face of the simplex spanned by the support.

    EM is linear (or, when the optimum sits on the boundary with zero slope, sublinear);
    a few Newton steps on the support ``S`` of the EM iterate reach the optimum to rounding.
    Each step solves the KKT system of the quadratic model on ``{sum_S d = 0}``; a
    coordinate that would turn negative stops the step at the boundary and leaves ``S``; a
    step that would lower the log-likelihood is shortened (backtracking) until it ascends.
    When a row's steps stop, the coordinate off its support that most violates the KKT
    condition ``g_x <= 1`` re-enters the support and the steps resume; a row without
    violation is done.
    """
    b, k = pi.shape
    support = pi > 1e-7 * pi.max(axis=1, keepdims=True)
    pi = np.where(support, pi, 0.0)
    pi /= pi.sum(axis=1, keepdims=True)
    live = np.ones(b, dtype=bool)
    eye = np.eye(k, dtype=bool)
    for _ in range(iters * (k + 1)):
        if not live.any():
            break
        idx = np.flatnonzero(live)
        p, fl, S = pi[idx], f[idx], support[idx]
        g, w = _em_gradient(p, fl, Q)
        lam = p @ Q
        with np.errstate(invalid="ignore", divide="ignore"):
            curv = np.where(fl > 0, w / lam, 0.0)  # f_y / lam_y^2
        H = -np.einsum("xy,by,zy->bxz", Q, curv, Q)
        both = S[:, :, None] & S[:, None, :]
        H = np.where(both, H, np.where(eye, -1.0, 0.0))
        K = np.zeros((idx.size, k + 1, k + 1))
        K[:, :k, :k] = H
        K[:, :k, k] = -S.astype(float)
        K[:, k, :k] = S
        rhs = np.concatenate([-np.where(S, g, 0.0), np.zeros((idx.size, 1))], axis=1)
        d = (np.linalg.pinv(K) @ rhs[..., None])[:, :k, 0]
        d = np.where(S, d, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            reach = np.where(S & (d < 0), p / -d, np.inf)
        t = np.minimum(reach.min(axis=1), 1.0)
        base = _loglik(p, fl, Q)
        new, hit = _step(p, d, t, reach)
        worse = _loglik(new, fl, Q) < base - 1e-15
        for _ in range(60):  # backtracking: d is an ascent direction, a short step ascends
            if not worse.any():
                break
            t = np.where(worse, t / 2, t)
            new[worse], hit[worse] = _step(p[worse], d[worse], t[worse], reach[worse])
            worse[worse] = _loglik(new[worse], fl[worse], Q) < base[worse] - 1e-15
        if worse.any():
            new[worse], hit[worse] = p[worse], False
        pi[idx] = new
        S = S & ~hit
        stopped = (np.abs(new - p).max(axis=1) <= 1e-14) & ~hit.any(axis=1)
        if stopped.any():
            # KKT off the support: g_x <= 1; the most violating coordinate re-enters
            gs = np.where(S[stopped], -np.inf, _em_gradient(new[stopped], fl[stopped], Q)[0])
            best = np.argmax(gs, axis=1)
            viol = np.take_along_axis(gs, best[:, None], axis=1)[:, 0] > 1.0 + 1e-12
            rows = np.flatnonzero(stopped)
            S[rows[viol], best[viol]] = True
            live[idx[rows[~viol]]] = False
        support[idx] = S
    return pi


def estimate_mle(mechanism: Any, counts: Any, *, tol: float = 1e-10,
                 max_iter: int = 200) -> np.ndarray:
    r"""Maximum-likelihood estimate of the input frequencies on the simplex, by EM.

    Maximises ``l(pi) = sum_y f_y ln((pi @ Q)_y)`` over distributions pi with the EM update
    (Dempster, Laird & Rubin 1977; the mixture-proportion case)

    .. math:: \pi_x \leftarrow \pi_x\, g_x(\pi), \qquad
              g_x(\pi) = \sum_y f_y \frac{Q[x, y]}{(\pi Q)_y},

    from the uniform prior, then polishes with active-set Newton steps on the support (EM is
    only linear, and sublinear when the optimum lies on the boundary with zero slope, where it
    would stall about 1e-5 away). The log-likelihood is concave, so the KKT conditions
    ``g_x <= 1`` (equality where ``pi_x > 0``) characterise the maximum; the result is
    certified by the gap ``ln max_x g_x(pi)``, an upper bound (Jensen) on the per-report
    log-likelihood still to gain.

    Parameters
    ----------
    mechanism : Mechanism
        Any ``k x m`` mechanism (full rank not needed; if the MLE is not unique one
        maximiser is returned).
    counts : array_like, shape (..., m)
        Non-negative and finite; need not be integers (weighted survey counts are fine:
        only the frequencies ``f = counts / n`` enter the likelihood).
    tol : float
        Certified gap required (default 1e-10; the gap of an exact optimum evaluates to
        rounding, about 1e-16 times the condition number of ``Q Q^T``).
    max_iter : int
        EM steps before the Newton polish. If some count vector still has a gap above
        ``tol`` after the polish, a ``RuntimeWarning`` names the largest gap.

    Returns
    -------
    ndarray, shape (..., k)
        NaN rows where ``n = 0``. For 2 inputs this is the unconstrained MLE clipped to
        [0, 1] (the likelihood is concave in pi).

        Counts that fall only on outputs carrying no information (a column of Q equal for
        every input) make the likelihood constant in pi: every prior maximises it, and the
        EM starting point, the uniform distribution, is returned (not NaN). For
        ``md.dont_know(0.6, 0.2)`` read as a 3-output mechanism, counts ``(0, 0, 5)`` give
        ``[0.5, 0.5]``; with ``n1 + n2 > 0`` the result is the paper's estimator
        (:func:`estimate_dont_know`) clipped to [0, 1]. So ``simulate(dk, "mle", ...)``
        redraws no survey and estimates the unconditional MSE of that clipped estimator,
        not Thm 3.10's conditional variance: use
        :func:`~mechdesign.estimation.simulation.simulate_dont_know` for that.

    Raises
    ------
    InvalidParameterError
        A count on an output that no input can produce (a zero column of ``Q``).
    """
    mech = as_mechanism(mechanism)
    tol = check_real(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", 1)
    Q = mech.matrix
    k = mech.n_inputs
    c = _as_counts(counts, mech.n_outputs)
    lead = c.shape[:-1]
    flat = c.reshape(-1, mech.n_outputs)
    impossible = (Q.max(axis=0) == 0) & (flat > 0).any(axis=0)
    if impossible.any():
        y = int(np.argmax(impossible))
        raise InvalidParameterError(
            f"counts report output {mech.outputs[y]!r}, which no input can produce (column "
            f"{y} of Q is 0): the likelihood is 0 for every prior")
    n = flat.sum(axis=1)
    ok = n > 0
    f = flat[ok] / n[ok, None]
    pi = np.full((f.shape[0], k), 1.0 / k)
    active = np.ones(f.shape[0], dtype=bool)
    em_tol = max(tol, 1e-10)
    for _ in range(max_iter):
        if not active.any():
            break
        g, _w = _em_gradient(pi[active], f[active], Q)
        new = pi[active] * g
        new /= new.sum(axis=1, keepdims=True)  # exact in arithmetic; removes rounding drift
        pi[active] = new
        done = np.log(g.max(axis=1)) <= em_tol
        idx = np.flatnonzero(active)
        active[idx[done]] = False
    if f.shape[0]:
        pi = _newton_polish(pi, f, Q)
        gap = np.log(_em_gradient(pi, f, Q)[0].max(axis=1))
        bad = gap > tol
        if bad.any():
            warnings.warn(
                f"estimate_mle: EM did not converge on {int(bad.sum())} count vector(s) "
                f"(largest certified gap {float(gap.max()):.3g} > tol = {tol:g} after "
                f"{max_iter} EM steps and a Newton polish); returning the last iterate",
                RuntimeWarning, stacklevel=2)
    out = np.full((flat.shape[0], k), np.nan)
    out[ok] = pi
    return out.reshape((*lead, k))


# ---------------------------------------------------------------------------- Cramer-Rao
def fields_equal(a: Any, b: Any) -> bool:
    """Field-by-field equality of two dataclass records holding numpy arrays (NaN == NaN)."""
    if type(a) is not type(b):
        return False
    for key, va in a.__dict__.items():
        vb = b.__dict__[key]
        if isinstance(va, np.ndarray) or isinstance(vb, np.ndarray):
            if not np.array_equal(np.asarray(va), np.asarray(vb), equal_nan=True):
                return False
        elif isinstance(va, float) and isinstance(vb, float) and math.isnan(va):
            if not math.isnan(vb):
                return False
        elif va != vb:
            return False
    return True


@dataclass(frozen=True, eq=False)
class CramerRao:
    r"""The Cramer-Rao bound of a mechanism at a prior, per report.

    Attributes
    ----------
    matrix : ndarray, shape (k, k)
        ``CR = U (U^T I U)^{-1} U^T``; for an efficient estimator from n reports,
        ``n Cov(pi_hat) -> CR``. NaN everywhere when the prior is not identifiable.
    trace : float
        The A-criterion ``trace CR`` (sum of the per-frequency variances times n); ``inf``
        when not identifiable.
    fisher : ndarray, shape (k, k)
        Fisher information of one report, ``I = sum_y Q[:,y] Q[:,y]^T / (pi . Q[:,y])``.
    identifiable : bool
        ``U^T I U`` is non-singular (relative tolerance 1e-12).
    """

    matrix: np.ndarray
    trace: float
    fisher: np.ndarray
    identifiable: bool

    def __eq__(self, other: object) -> bool:
        return fields_equal(self, other)

    __hash__ = None  # type: ignore[assignment]


def cramer_rao(mechanism: Any, prior: Any) -> CramerRao:
    r"""Cramer-Rao bound for estimating the input frequencies on the simplex
    (``docs/formulations.md``, "Estimation").

    .. math:: I(Q) = \sum_y \frac{Q[:,y]\, Q[:,y]^T}{\pi \cdot Q[:,y]}, \qquad
              CR(Q) = U (U^T I(Q) U)^{-1} U^T,

    with ``U`` an orthonormal basis of ``{v : sum v = 0}`` (the tangent space of the simplex).
    Per report: divide by n for n reports. For 2 inputs ``CR[0, 0] = 1 / I_pi`` with
    ``I_pi = sum_y (Q[0,y] - Q[1,y])^2 / (pi Q[0,y] + (1-pi) Q[1,y])`` (``docs/belief_functions.md``
    s.6); for Warner's mechanism that is ``n`` times Eq. (1). Reference values (uniform prior,
    trace): Warner at eps = 1, 2.341347; subset selection k = 10, d = 4, eps = 0.5, 127.2172.

    Parameters
    ----------
    mechanism : Mechanism (or EvidentialMechanism, read over its messages)
    prior : array_like, shape (k,), or a float for 2 inputs (the proportion of input 0)
        Outputs of probability 0 under the prior are skipped when their column is zero; a
        column that is positive only on inputs of prior 0 makes the information infinite
        and raises :class:`~mechdesign.errors.InvalidParameterError`.

    Returns
    -------
    CramerRao
    """
    mech = as_mechanism(mechanism)
    Q = mech.matrix
    k = mech.n_inputs
    pr = as_prior(prior, k)
    lam = pr @ Q
    live = lam > 0
    dead_nonzero = ~live & (Q.max(axis=0) > 0)
    if dead_nonzero.any():
        y = int(np.argmax(dead_nonzero))
        raise InvalidParameterError(
            f"output {mech.outputs[y]!r} has probability 0 under the prior {pr.tolist()!r} but "
            "not for every input: the Fisher information is infinite (prior on the boundary)")
    Ql = Q[:, live]
    fisher = (Ql / lam[live]) @ Ql.T
    U = null_space(np.ones((1, k)))  # (k, k-1), orthonormal
    red = U.T @ fisher @ U
    red = (red + red.T) / 2
    w = np.linalg.eigvalsh(red)
    # relative to the information's own scale: with equal rows the projection is pure
    # rounding (1e-32), and comparing it only with itself called it identifiable
    if w.min() <= 1e-12 * max(w.max(), float(np.abs(fisher).max()), 1e-300):
        return CramerRao(np.full((k, k), np.nan), math.inf, fisher, False)
    cr = U @ np.linalg.solve(red, U.T)
    cr = (cr + cr.T) / 2
    return CramerRao(cr, float(np.trace(cr)), fisher, True)
