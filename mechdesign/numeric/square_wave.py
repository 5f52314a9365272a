r"""The Square Wave mechanism (SW) of Li et al. (SIGMOD 2020) and its distribution estimate
by expectation maximisation with smoothing (EMS).

For ``v`` in ``[0, 1]`` the report lies in ``[-b, 1 + b]`` with density ``p`` within ``b``
of ``v`` and ``q`` elsewhere,

.. math:: b = \frac{\varepsilon e^\varepsilon - e^\varepsilon + 1}
                   {2 e^\varepsilon (e^\varepsilon - 1 - \varepsilon)}, \qquad
          p = \frac{e^\varepsilon}{2 b e^\varepsilon + 1}, \qquad
          q = \frac{1}{2 b e^\varepsilon + 1}.

*Normalised*: ``2b p + (1 + 2b - 2b) q = (2b e^eps + 1)/(2b e^eps + 1) = 1``. (Li et al.
choose ``b`` to maximise an upper bound on the mutual information between input and report;
``b`` falls from 1/2 at ``eps -> 0`` to about ``eps e^-eps / 2``.)

*Mean*: ``E[Y | v] = q (1 + 2b)/2 + kappa v`` with ``kappa = 2b (p - q)``: the constant
``q`` on ``[-b, 1 + b]`` has mass ``q (1 + 2b)`` and centre 1/2, the extra ``p - q`` on
``[v - b, v + b]`` mass ``2b (p - q)`` and centre ``v``. So ``z = (Y - q (1 + 2b)/2)/kappa``
is an unbiased per-report estimate of ``v`` (:meth:`SquareWave.debias`).

*Variance*: ``E[Y^2 | v] = q ((1 + b)^3 + b^3)/3 + (p - q)(2b v^2 + 2b^3/3)``, so
``Var(z | v) = (E[Y^2 | v] - E[Y | v]^2) / kappa^2``. Its coefficient of ``v^2`` is
``(kappa - kappa^2)/kappa^2 > 0`` (``kappa < 1``), and the mechanism is symmetric under
``v -> 1 - v``, ``y -> 1 - y``: the worst case is at ``v = 0`` and ``v = 1``.

*Distribution* (EMS). Split ``[0, 1]`` into ``d`` input bins and ``[-b, 1 + b]`` into
``d_out`` output bins; ``Q[i, j]`` is the probability of output bin ``j`` when ``v`` is
uniform on input bin ``i`` (computed exactly, :meth:`SquareWave.bin_matrix`). From the
counts ``n_j`` of reports per output bin, EM for the input histogram ``theta`` iterates

.. math:: \theta_i \leftarrow \frac{\theta_i}{n} \sum_j
          \frac{Q[i, j]\, n_j}{\sum_{i'} \theta_{i'} Q[i', j]},

the multiplicative update of the multinomial likelihood ``sum_j n_j ln (theta Q)_j``;
EMS follows each update by a smoothing step, ``theta_i <- (theta_{i-1} + 2 theta_i +
theta_{i+1})/4`` (at the ends ``(2 theta_0 + theta_1)/3``), and renormalises
(:func:`expectation_maximization`).

Reference
---------
Z. Li, T. Wang, M. Lopuhaä-Zwakenberg, N. Li, B. Škorić, "Estimating numerical
distributions under local differential privacy", SIGMOD 2020 (the SW mechanism, s. 4; EMS,
s. 5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_int, check_real, check_stochastic
from ..errors import InvalidParameterError
from .base import NumericRandomizer, _real_array, window_bins, within_epsilon

__all__ = [
    "EMResult",
    "SquareWave",
    "SquareWaveDistribution",
    "expectation_maximization",
    "square_wave_b",
]


def square_wave_b(epsilon: float) -> float:
    """Li et al.'s half-width ``b`` of the high band, computed without cancellation: the
    power series ``N = sum_{k>=2} (k-1) eps^k / k!`` and ``D = sum_{k>=2} eps^k / k!`` of
    ``eps e^eps - e^eps + 1`` and ``e^eps - 1 - eps`` below ``eps = 1``,
    ``(eps - 1 + e^-eps) / (2 (e^eps - 1 - eps))`` above; ``b = N / (2 e^eps D)``."""
    eps = float(epsilon)
    if eps < 1.0:
        num = den = 0.0
        term = 1.0  # eps^k / k!
        for k in range(1, 40):
            term *= eps / k
            if k >= 2:
                num += (k - 1) * term
                den += term
        return num / (2 * math.exp(eps) * den)
    return (eps - 1 + math.exp(-eps)) / (2 * (math.expm1(eps) - eps))


@dataclass(frozen=True)
class EMResult:
    """The outcome of :func:`expectation_maximization`.

    Attributes
    ----------
    probabilities : numpy.ndarray
        The estimated input distribution (non-negative, summing to 1).
    iterations : int
        Updates performed.
    converged : bool
        Whether the log-likelihood changed by less than ``tol`` before ``max_iter``.
    log_likelihood : float
        ``sum_j n_j ln (theta Q)_j`` at the returned ``theta``.
    """

    probabilities: np.ndarray
    iterations: int
    converged: bool
    log_likelihood: float


@dataclass(frozen=True)
class SquareWaveDistribution:
    """The input distribution estimated from Square Wave reports: a histogram on ``[0, 1]``.

    Attributes
    ----------
    edges : numpy.ndarray
        The ``d + 1`` edges of the equal input bins.
    probabilities : numpy.ndarray
        The mass of each bin (summing to 1); within a bin the estimate is uniform.
    iterations, converged, log_likelihood
        As in :class:`EMResult`.
    """

    edges: np.ndarray
    probabilities: np.ndarray
    iterations: int
    converged: bool
    log_likelihood: float

    def cdf(self, v: Any) -> np.ndarray:
        """The estimated distribution function at ``v`` (piecewise linear)."""
        cum = np.concatenate([[0.0], np.cumsum(self.probabilities)])
        return np.interp(np.asarray(v, dtype=float), self.edges, cum)

    @property
    def mean(self) -> float:
        """The mean of the estimated distribution (bin midpoints weighted by mass)."""
        mid = (self.edges[:-1] + self.edges[1:]) / 2
        return float(mid @ self.probabilities)


def _smooth(theta: np.ndarray) -> np.ndarray:
    """Binomial smoothing ``(1, 2, 1)/4`` inside, ``(2, 1)/3`` at the ends, renormalised."""
    if theta.size < 3:
        return theta
    out = np.empty_like(theta)
    out[1:-1] = (theta[:-2] + 2 * theta[1:-1] + theta[2:]) / 4
    out[0] = (2 * theta[0] + theta[1]) / 3
    out[-1] = (2 * theta[-1] + theta[-2]) / 3
    return out / out.sum()


def expectation_maximization(Q: Any, counts: Any, *, smoothing: bool = True,
                             tol: float = 1e-3, max_iter: int = 10_000) -> EMResult:
    r"""The input distribution most likely to have produced output counts, by EM (with the
    EMS smoothing step unless ``smoothing=False``).

    Parameters
    ----------
    Q : array_like, shape (k, m)
        A row-stochastic matrix ``Q[i, j] = P(output j | input i)``.
    counts : array_like, shape (m,)
        Non-negative counts of the outputs, not all zero.
    smoothing : bool
        Apply Li et al.'s smoothing after each update (EMS); plain EM otherwise.
    tol : float
        Stop when the log-likelihood ``sum_j n_j ln (theta Q)_j`` changes by less than this.
    max_iter : int
        At most this many updates.

    Notes
    -----
    Starts from the uniform distribution; each update is
    ``theta_i <- theta_i sum_j Q[i, j] n_j / (n (theta Q)_j)`` (module docstring), which
    never lowers the likelihood (plain EM); the smoothing step may, so the stopping rule is
    on the size of the change, not its sign.
    """
    M = check_stochastic(Q, "Q")
    n = _real_array(counts, "counts")
    if n.shape != (M.shape[1],):
        raise InvalidParameterError(
            f"counts must have one entry per column of Q ({M.shape[1]}), got shape {n.shape}")
    if (n < 0).any() or not np.isfinite(n).all():
        i = int(np.argmax((n < 0) | ~np.isfinite(n)))
        raise InvalidParameterError(f"counts[{i}] = {float(n[i])!r} is not a count")
    total = float(n.sum())
    if total <= 0:
        raise InvalidParameterError("counts must not all be zero")
    tol = check_real(tol, "tol")
    if tol <= 0:
        raise InvalidParameterError(f"tol must be > 0, got {tol!r}")
    max_iter = check_int(max_iter, "max_iter", 1)
    seen = n > 0
    theta = np.full(M.shape[0], 1.0 / M.shape[0])

    def loglik(th: np.ndarray) -> float:
        out = th @ M
        with np.errstate(divide="ignore"):
            return float(n[seen] @ np.log(out[seen]))

    old = loglik(theta)
    converged = False
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 (the count is returned)
        out = theta @ M
        ratio = np.divide(n, out, out=np.zeros_like(n), where=out > 0)
        theta = theta * (M @ ratio) / total
        theta = theta / theta.sum()
        if smoothing:
            theta = _smooth(theta)
        new = loglik(theta)
        if abs(new - old) < tol:
            converged = True
            old = new
            break
        old = new
    return EMResult(theta, it, converged, old)


class SquareWave(NumericRandomizer):
    r"""Li et al.'s Square Wave mechanism for ``v`` in ``[0, 1]``: density ``p`` on
    ``[v - b, v + b]`` and ``q`` on the rest of ``[-b, 1 + b]`` (module docstring).

    Parameters
    ----------
    epsilon : float
        Pure-LDP parameter in ``(0, MAX_EPSILON]``.

    Attributes
    ----------
    b : float
        Half-width of the high band (:func:`square_wave_b`).
    p, q : float
        The densities near and away from ``v``; ``p / q = e^eps``.

    Notes
    -----
    Privacy, exactly ``epsilon``. For every ``v`` the density is ``p`` or ``q = p e^-eps``
    at each point of ``[-b, 1 + b]`` (0 outside), so any event ``E`` has
    ``q |E| <= P(E | v) <= p |E|`` and ratio at most ``p / q = e^eps``. Attained: for
    ``v = 0`` and ``v' = 1`` the set ``[-b, min(b, 1 - b))`` is in the first band and not
    in the second (``1 - b > -b``), ratio exactly ``e^eps``; a matrix from :meth:`to_matrix`
    with ``0`` and ``1`` in the grid and a bin inside that set reaches ``epsilon``.

    The variance methods are those of the unbiased per-report estimate
    ``z = (Y - q (1 + 2b)/2) / kappa`` of ``v``, ``kappa = 2b (p - q)``; Li et al. use the
    reports for the distribution (:meth:`estimate_distribution`), and the mean estimate is
    this linear correction.
    """

    name = "square_wave"
    low = 0.0
    high = 1.0
    n_uniforms = 2

    def __init__(self, epsilon: Any) -> None:
        super().__init__(epsilon)
        eps = self.epsilon
        b = square_wave_b(eps)
        scale = 2 * b * math.exp(eps) + 1
        self._set("b", b)
        self._set("p", math.exp(eps) / scale)
        self._set("q", 1.0 / scale)
        self._set("kappa", 2 * b * math.expm1(eps) / scale)  # 2b (p - q)

    b: float
    p: float
    q: float
    kappa: float

    @property
    def output_range(self) -> tuple[float, float]:
        """``(-b, 1 + b)``, the upper end rounded up to a double (``1 + b`` is rarely one:
        at large epsilon ``b`` is far below 1, and the band of ``v = 1`` must fit)."""
        return (-self.b, float(np.nextafter(1.0 + self.b, np.inf)))

    def pdf(self, y: Any, v: Any) -> float | np.ndarray:
        """The density of the report ``y`` given the input ``v`` (broadcast)."""
        vs = self.check_inputs(v, "v")
        ys = np.asarray(y, dtype=float)
        dens = np.where(np.abs(ys - vs) <= self.b, self.p,
                        np.where((ys >= -self.b) & (ys <= 1 + self.b), self.q, 0.0))
        return float(dens) if dens.ndim == 0 else dens

    def _draw(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        near = u[:, 0] < 2 * self.b * self.p
        s = u[:, 1]
        band = x - self.b + 2 * self.b * s
        # away: a uniform point of [-b, v - b) ∪ (v + b, 1 + b], total length 1
        away = np.where(s < x, -self.b + s, x + self.b + (s - x))
        return np.where(near, band, away)

    def debias(self, reports: np.ndarray) -> np.ndarray:
        """``z = (y - q (1 + 2b)/2) / kappa``: unbiased for ``v`` (module docstring)."""
        return (reports - self.q * (1 + 2 * self.b) / 2) / self.kappa

    def _variance(self, x: np.ndarray) -> np.ndarray:
        b, p, q = self.b, self.p, self.q
        second = q * ((1 + b) ** 3 + b ** 3) / 3 + (p - q) * (2 * b * x ** 2 + 2 * b ** 3 / 3)
        first = q * (1 + 2 * b) / 2 + self.kappa * x
        return (second - first ** 2) / self.kappa ** 2

    def worst_case_variance(self) -> float:
        """The variance at ``v = 0`` (equal to that at ``v = 1``)."""
        return float(self._variance(np.array([0.0, 1.0])).max())

    def _bin_probabilities(self, x: np.ndarray, edges: np.ndarray) -> np.ndarray:
        return window_bins(x, self.b, self.p, self.q, self.output_range, edges)

    # ---------------------------------------------------------------- distribution
    def bin_matrix(self, d: Any, output_bins: Any = None) -> np.ndarray:
        r"""``Q[i, j] = P(Y in output bin j | v uniform on input bin i)``, exactly.

        Parameters
        ----------
        d : int
            Equal input bins on ``[0, 1]`` (at least 2).
        output_bins : int, optional
            Equal output bins on ``[-b, 1 + b]``; default ``d``.

        Notes
        -----
        With input bin ``[a1, a2]`` (width ``h``) and output bin ``[c1, c2]``,
        ``Q[i, j] = q (c2 - c1) + (p - q) A / h``, where ``A`` is the area of
        ``{(v, y) in [a1, a2] x [c1, c2] : |y - v| <= b}``. With ``H(u) = max(u, 0)^2 / 2``,
        the area of ``{y - v <= s}`` in the rectangle is
        ``H(a2 + s - c1) - H(a1 + s - c1) - H(a2 + s - c2) + H(a1 + s - c2)`` (integrate
        ``clip(v + s - c1, 0, c2 - c1)`` over ``v``), and ``A`` is its value at ``s = b``
        minus that at ``s = -b``.
        """
        d = check_int(d, "d", 2)
        m = d if output_bins is None else check_int(output_bins, "output_bins", 2)
        a = np.linspace(0.0, 1.0, d + 1)
        c = np.linspace(*self.output_range, m + 1)
        a1, a2 = a[:-1, None], a[1:, None]
        c1, c2 = c[None, :-1], c[None, 1:]

        def below(s: float) -> np.ndarray:
            def H(t: np.ndarray) -> np.ndarray:
                return np.maximum(t, 0.0) ** 2 / 2
            return H(a2 + s - c1) - H(a1 + s - c1) - H(a2 + s - c2) + H(a1 + s - c2)

        area = np.maximum(below(self.b) - below(-self.b), 0.0)
        Q = self.q * (c2 - c1) + (self.p - self.q) * area / (a2 - a1)
        return within_epsilon(Q / Q.sum(axis=1, keepdims=True), self.epsilon)

    def estimate_distribution(self, reports: Any, d: Any = 256, output_bins: Any = None, *,
                              smoothing: bool = True, tol: float = 1e-3,
                              max_iter: int = 10_000) -> SquareWaveDistribution:
        """The input distribution on ``d`` equal bins of ``[0, 1]``, by EMS (Li et al.).

        Parameters
        ----------
        reports : array_like
            Square Wave reports (each in ``[-b, 1 + b]``).
        d : int
            Input bins (default 256).
        output_bins : int, optional
            Output bins the reports are counted in; default ``d``.
        smoothing, tol, max_iter
            As in :func:`expectation_maximization` (``smoothing=False``: plain EM).
        """
        arr = self.check_reports(reports)
        Q = self.bin_matrix(d, output_bins)
        lo, hi = self.output_range
        edges_out = np.linspace(lo, hi, Q.shape[1] + 1)
        counts, _ = np.histogram(np.clip(arr, lo, hi), bins=edges_out)
        res = expectation_maximization(Q, counts.astype(float), smoothing=smoothing, tol=tol,
                                       max_iter=max_iter)
        return SquareWaveDistribution(np.linspace(0.0, 1.0, Q.shape[0] + 1),
                                      res.probabilities, res.iterations, res.converged,
                                      res.log_likelihood)
