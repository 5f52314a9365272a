r"""Frequency estimators from randomized responses: the binary survey estimators of the
paper and the inverse, projected and maximum-likelihood estimators of any mechanism.

* the binary survey estimators of Li et al. 2022 (``docs/belief_functions.md`` s.4): Warner's
  estimator, the maximum-likelihood estimator of the "don't know" mechanism Q_2x3 and the
  unbiased estimator of Walley's completion Q_lambda (their exact variances are in
  :mod:`~mechdesign.estimation.variances`);
* for any k-ary :class:`~mechdesign.mechanism.Mechanism`: the unbiased inverse estimator, its
  Euclidean projection onto the probability simplex and the maximum-likelihood estimator by
  EM (the Cramer-Rao bound is in :mod:`~mechdesign.estimation.fisher`).

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

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._coerce import as_mechanism
from .._validation import check_int, check_probability, check_real
from ..errors import InvalidMechanismError, InvalidParameterError
from .inputs import as_counts, scalar_or_array

__all__ = [
    "ESTIMATOR_ALIASES",
    "estimate_dont_know",
    "estimate_inverse",
    "estimate_mle",
    "estimate_projected",
    "estimate_q_lambda",
    "estimate_warner",
    "estimator_name",
    "inverse_matrix",
    "norm_sub",
    "project_simplex",
]


ESTIMATOR_ALIASES: dict[str, str] = {"unbiased": "inverse"}
"""Older names of the named estimators, still accepted: ``"unbiased"`` (the first name of
:func:`~mechdesign.oracles.survey.estimate_survey`'s default) is the inverse estimator,
:func:`estimate_inverse` (for a frequency oracle, its support-count estimator, the same
estimator on its matrix)."""


def estimator_name(name: Any, names: Sequence[str]) -> str:
    """The documented name of an estimator chosen by name: ``name`` itself when it is one
    of ``names``, the documented name of an alias (:data:`ESTIMATOR_ALIASES`).

    Raises
    ------
    InvalidParameterError
        ``name`` is neither (the message names it and lists ``names``).
    """
    if isinstance(name, str):
        name = ESTIMATOR_ALIASES.get(name, name)
        if name in names:
            return name
    aliases = [f"{old!r} for {new!r}" for old, new in ESTIMATOR_ALIASES.items() if new in names]
    raise InvalidParameterError(
        f"unknown estimator {name!r}; names: {', '.join(map(repr, names))}"
        + (f" (also {', '.join(aliases)})" if aliases else ""))


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
    c = as_counts(counts, 2)
    n = c.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(n > 0, (c[..., 0] / n - (1.0 - p)) / (2.0 * p - 1.0), np.nan)
    return scalar_or_array(out)


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
    c = as_counts(counts, 3)
    m = c[..., 0] + c[..., 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(m > 0, (p * c[..., 0] - q * c[..., 1]) / ((p - q) * m), np.nan)
    return scalar_or_array(out)


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
    c = as_counts(counts, 2)
    n = c.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(n > 0, (c[..., 0] / n - (1.0 - lam) * d - q) / denom, np.nan)
    return scalar_or_array(out)


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
    a survey and estimates the unconditional MSE
    (:func:`~mechdesign.estimation.variances.covariance_inverse`), not
    Thm 3.10's conditional variance: use
    :func:`~mechdesign.estimation.simulation.simulate_dont_know` for that.
    """
    mech = as_mechanism(mechanism)
    L = inverse_matrix(mech)
    c = as_counts(counts, mech.n_outputs)
    n = c.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, (c / np.where(n > 0, n, 1.0)) @ L, np.nan)


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


def norm_sub(v: Any) -> np.ndarray:
    r"""Norm-Sub consistency (Wang et al., "Locally differentially private frequency estimation
    with consistency", NDSS 2020): set the negative estimates to 0 and shift the positive
    ones by a common amount so that they sum to 1, repeating until none is negative.

    Its fixed point in closed form: when the positive parts sum to at least 1 the shift is
    non-negative and the result is the Euclidean projection onto the simplex,
    ``max(v - theta, 0)`` (:func:`project_simplex`); otherwise the first round raises every
    positive entry by ``(1 - sum v^+) / #{v > 0}`` and stops, which keeps the entries that
    were negative at 0 (where the projection would raise them too). Vectorised over the
    leading axes; NaN rows stay NaN; a row with no positive entry becomes uniform.
    """
    arr = np.asarray(v, dtype=float)
    projected = project_simplex(arr)
    pos = arr > 0
    npos = pos.sum(axis=-1, keepdims=True)
    plus = np.where(pos, arr, 0.0).sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        raised = np.where(pos, arr + (1.0 - plus) / np.maximum(npos, 1), 0.0)
    uniform = np.full_like(arr, 1.0 / max(arr.shape[-1], 1))
    out = np.where(plus >= 1.0, projected, np.where(npos > 0, raised, uniform))
    return np.where(np.isnan(arr).any(axis=-1, keepdims=True), np.nan, out)


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
    c = as_counts(counts, mech.n_outputs)
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


