r"""Warner versus "don't know": the three privacy/accuracy trade-offs of Q_2x3(p, q).

Li et al. 2022 (``docs/belief_functions.md`` s.4, with the corrections of s.8): a respondent
tells the truth with probability p, lies with probability q and says "don't know" with
probability ``d = 1 - p - q``. Read with Shafer's semantics the mechanism has three messages;
read with Walley's, "don't know" is an unknown mixture of Yes and No, and every completion
Q_lambda (lambda in [0, 1]) is a Warner mechanism.

=========  ==========================  ==========================================
semantics  privacy loss                estimation error (variance of pi_hat)
=========  ==========================  ==========================================
Shafer     eps^S = ln(p/q)             nu^S: Thm 3.10, exact A = E[1/M | M > 0]
Walley     eps^W = ln((1-q)/q) = eps(Q_1)  nu^W = nu(Q_0) = [-(pi-1/2)^2 + 1/(4(2p-1)^2)]/n
optimal    eps^O = ln(p/(1-p)) = eps(Q_0)  nu^O = nu(Q_1) = [-(pi-1/2)^2 + 1/(4(1-2q)^2)]/n
=========  ==========================  ==========================================

Every Q_lambda trade-off lies in the rectangle ``[eps^O, eps^W] x [nu^O, nu^W]``; the path
runs from ``(eps^O, nu^W)`` at lambda = 0 to ``(eps^W, nu^O)`` at lambda = 1 (Fig. 5).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from scipy.special import expit

from .._validation import check_int, check_probability
from ..accounting.belief_tradeoff import optimistic_function, pessimistic_function
from ..accounting.tradeoff import tradeoff_function_dp
from ..catalog import dont_know, q_lambda
from ..errors import InvalidParameterError
from ..privacy.measures import epsilon_ldp, epsilon_sldp, epsilon_wldp
from .estimators import (
    _as_prob_array,
    binomial_inverse_moment,
    estimate_q_lambda,
    fields_equal,
    variance_dont_know,
    variance_q_lambda,
    variance_warner,
)
from .simulation import SimulationResult, _as_seed_sequence, simulate, simulate_dont_know

FIGURE_C = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5)
"""The c = p + q grid used when the paper is silent (``docs/belief_functions.md`` s.5)."""

FIGURE_EPSILONS = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
"""Privacy losses at which the figures show simulated points (the curves span (0, 4])."""

FIGURE_PI, FIGURE_N = 0.3, 100
"""pi and n used when the paper is silent (``docs/belief_functions.md`` s.5)."""

FIGURE3_N = (10, 100, 500, 1000)
FIGURE3_DONT_KNOW = 0.1
"""Fig. 3: sample sizes and the fixed "don't know" probability ``1 - p - q``."""


@dataclass(frozen=True)
class Rectangle:
    """The box ``[epsilon_low, epsilon_high] x [variance_low, variance_high]`` of Fig. 5."""

    epsilon_low: float
    epsilon_high: float
    variance_low: float
    variance_high: float

    def contains(self, epsilon: Any, variance: Any, rtol: float = 1e-12) -> np.ndarray | bool:
        """Whether points lie in the box (boundaries included, relative slack ``rtol``)."""
        e = np.asarray(epsilon, dtype=float)
        v = np.asarray(variance, dtype=float)
        se = rtol * max(abs(self.epsilon_high), 1.0)
        sv = rtol * max(abs(self.variance_high), 1e-300)
        inside = ((e >= self.epsilon_low - se) & (e <= self.epsilon_high + se)
                  & (v >= self.variance_low - sv) & (v <= self.variance_high + sv))
        return bool(inside) if inside.ndim == 0 else inside


@dataclass(frozen=True, eq=False)
class DontKnowAnalysis:
    r"""The privacy and accuracy of Q_2x3(p, q) under the three readings (Li et al. 2022, s.4).

    Attributes
    ----------
    p, q, pi, n, exact
        The inputs (``exact``: Thm 3.10 with the exact A, or the seed's approximation).
    epsilon_shafer : float
        ``ln(p/q)``, measured by :func:`~mechdesign.privacy.measures.epsilon_sldp` (mass).
    epsilon_walley : float
        ``ln((1-q)/q)``, measured by :func:`~mechdesign.privacy.measures.epsilon_wldp`.
    epsilon_optimal : float
        ``ln(p/(1-p))``, the LDP epsilon of ``Q_0 = warner(p)``.
    variance_shafer : float
        Thm 3.10: ``Var[pi_hat | N1 + N2 != 0]``.
    variance_walley : float
        ``nu(Q_0)``, Eq. (1) at truth probability p (the largest Q_lambda variance).
    variance_optimal : float
        ``nu(Q_1)``, Eq. (1) at truth probability 1 - q (the smallest).
    inverse_moment : float
        The A of Thm 3.10 that was used.
    rectangle : Rectangle
        ``[eps^O, eps^W] x [nu^O, nu^W]``.
    lambdas, epsilon_lambda, variance_lambda : ndarray
        The Q_lambda path (read-only arrays):
        ``eps_lambda = ln((p + lambda d)/(q + (1-lambda) d))`` and ``nu_lambda`` = Eq. (1) at
        truth probability ``p + lambda d``.
    """

    p: float
    q: float
    pi: float
    n: int
    exact: bool
    epsilon_shafer: float
    epsilon_walley: float
    epsilon_optimal: float
    variance_shafer: float
    variance_walley: float
    variance_optimal: float
    inverse_moment: float
    rectangle: Rectangle
    lambdas: np.ndarray
    epsilon_lambda: np.ndarray
    variance_lambda: np.ndarray

    def __eq__(self, other: object) -> bool:
        return fields_equal(self, other)

    __hash__ = None  # type: ignore[assignment]

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (arrays as lists, ``inf`` kept as float)."""
        out: dict[str, Any] = {}
        for key, value in self.__dict__.items():
            if isinstance(value, np.ndarray):
                out[key] = value.tolist()
            elif isinstance(value, Rectangle):
                out[key] = dict(value.__dict__)
            else:
                out[key] = value
        return out


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.flags.writeable = False
    return a


def epsilon_q_lambda(p: Any, q: Any, lam: Any) -> float | np.ndarray:
    r"""``eps_lambda = ln((p + lambda d) / (q + (1 - lambda) d))``, ``d = 1 - p - q``
    (Li et al. 2022, s.4): the LDP epsilon of Q_lambda when ``p + lambda d >= 1/2``.
    Broadcasts; ``inf`` where ``q + (1 - lambda) d = 0``.
    """
    ps, qs, ls = np.broadcast_arrays(_as_prob_array(p, "p"), _as_prob_array(q, "q"),
                                     _as_prob_array(lam, "lam"))
    d = np.maximum(1.0 - ps - qs, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(ps + ls * d) - np.log(qs + (1.0 - ls) * d)
    return float(out) if out.ndim == 0 else out


def dont_know_analysis(p: float, q: float, pi: float, n: int, exact: bool = True,
                       lambdas: int | Sequence[float] = 101) -> DontKnowAnalysis:
    r"""Shafer, Walley and optimal trade-offs of Q_2x3(p, q), the Fig. 5 rectangle and the
    Q_lambda path (Li et al. 2022, s.4 of ``docs/belief_functions.md``).

    Parameters
    ----------
    p, q : float
        Truth and lie probabilities, ``p + q <= 1``. ``p > 1/2`` is REQUIRED here (the paper's
        standing assumption): at ``p <= 1/2`` Q_0 = warner(p) is uninformative or flips Yes
        and No, eps^O would be <= 0 and the rectangle statement fails. (The Shafer quantities
        alone only need ``p != q``: use
        :func:`~mechdesign.estimation.estimators.variance_dont_know` directly.) ``q = 0`` is
        allowed and gives infinite Shafer and Walley epsilons (non-private).
    pi : float
        True proportion in [0, 1].
    n : int
        Survey size, ``>= 1``.
    exact : bool
        Thm 3.10 with the exact A (default) or the seed's approximation.
    lambdas : int or sequence of float
        The lambda grid of the path: a number of equally spaced points in [0, 1] (>= 2), or the
        values themselves.

    Examples
    --------
    The sheet's sanity example p = .6, q = .2: eps^S = ln 3, eps^W = ln 4, eps^O = ln 1.5.

    >>> a = dont_know_analysis(0.6, 0.2, pi=0.3, n=100)
    >>> bool(abs(a.epsilon_optimal - np.log(1.5)) < 1e-12)
    True
    """
    p = check_probability(p, "p")
    q = check_probability(q, "q")
    if p <= 0.5:
        raise InvalidParameterError(
            f"dont_know_analysis needs p > 1/2 (the paper's assumption: Q_0 = warner(p) must be "
            f"informative and not flip the answers), got p = {p!r}")
    dk = dont_know(p, q)  # checks p + q <= 1
    pi = check_probability(pi, "pi")
    n = check_int(n, "n", 1)
    if isinstance(lambdas, int | np.integer) and not isinstance(lambdas, bool):
        count = check_int(lambdas, "lambdas", 2)
        lam = np.linspace(0.0, 1.0, count)
    else:
        lam = _as_prob_array(lambdas, "lambdas").ravel()
        if lam.size == 0:
            raise InvalidParameterError("lambdas must not be empty")
    eps_s = epsilon_sldp(dk, "mass")
    eps_w = epsilon_wldp(dk)
    eps_o = epsilon_ldp(q_lambda(p, q, 0.0))
    var_s = float(variance_dont_know(p, q, pi, n, exact=exact))
    var_w = float(variance_warner(p, pi, n))
    var_o = float(variance_warner(1.0 - q, pi, n))
    A = float(binomial_inverse_moment(n, min(p + q, 1.0), exact=exact))
    return DontKnowAnalysis(
        p=p, q=q, pi=pi, n=n, exact=bool(exact),
        epsilon_shafer=eps_s, epsilon_walley=eps_w, epsilon_optimal=eps_o,
        variance_shafer=var_s, variance_walley=var_w, variance_optimal=var_o,
        inverse_moment=A,
        rectangle=Rectangle(eps_o, eps_w, var_o, var_w),
        lambdas=_readonly(lam),
        epsilon_lambda=_readonly(epsilon_q_lambda(p, q, lam)),
        variance_lambda=_readonly(variance_q_lambda(p, q, lam, pi, n)),
    )


def dont_know_from_c_eps(c: Any, epsilon: Any) -> tuple[np.ndarray | float, np.ndarray | float]:
    r"""The Q_2x3(p, q) with ``p + q = c`` and Shafer loss ``ln(p/q) = eps``
    (``docs/belief_functions.md`` s.4 and correction 3):

    .. math:: p = \frac{c}{1 + e^{-\varepsilon}}, \qquad q = \frac{c}{1 + e^{\varepsilon}}.

    ``c`` in (0, 1], ``eps >= 0`` (``inf`` gives ``q = 0``); they broadcast.
    """
    cs = _as_prob_array(c, "c")
    if (cs <= 0).any():
        raise InvalidParameterError("c = p + q must be > 0, got 0.0")
    try:
        es = np.asarray(epsilon, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"epsilon is not numeric: {exc}") from None
    bad = np.isnan(es) | (es < 0)
    if bad.any():
        raise InvalidParameterError(f"epsilon must be >= 0, got {float(es[bad].flat[0])!r}")
    p = cs * expit(es)
    q = cs * expit(-es)
    if p.ndim == 0:
        return float(p), float(q)
    return p, q


def shafer_variance_curve(c: float, epsilon: Any, pi: float, n: int, exact: bool = True
                          ) -> float | np.ndarray:
    r"""``nu^S(eps; c)`` (Li et al. 2022, s.4): Thm 3.10 along ``p + q = c``,

    .. math:: \nu^S(\varepsilon; c) = \Big[-(\pi - \tfrac12)^2
              + \tfrac14 \coth^2(\varepsilon/2)\Big]\, A(n, c),

    Warner's curve (``c = 1``, ``A = 1/n``) scaled by ``n A(n, c)``, about
    ``n / ((n+1) c - 1)``.
    """
    p, q = dont_know_from_c_eps(c, epsilon)
    return variance_dont_know(p, q, pi, n, exact=exact)


@dataclass(frozen=True)
class ShaferPoint:
    """One (c, eps, n) setting of Figs 1-3: closed forms and, optionally, a simulation."""

    c: float
    epsilon: float
    n: int
    p: float
    q: float
    variance: float
    variance_approx: float
    simulated: SimulationResult | None


def shafer_grid(cs: Sequence[float], epsilons: Sequence[float], pi: float,
                n: int | Sequence[int], reps: int = 1000, seed: Any = None, *,
                on_point: Callable[[], None] | None = None,
                **options: Any) -> tuple[ShaferPoint, ...]:
    r"""Closed-form (exact and approximate A) and simulated ``nu^S`` on a (c, n, eps) grid.

    For every ``c`` in ``cs``, every ``n`` (an int or a sequence) and every ``eps`` in
    ``epsilons``: ``p, q`` from :func:`dont_know_from_c_eps`, Thm 3.10 with the exact and the
    approximate A, and, when ``reps > 0``,
    :func:`~mechdesign.estimation.simulation.simulate_dont_know` with its own child of
    ``SeedSequence(seed)`` (so each point is reproducible on its own). ``options`` go to the
    simulator. Points come in the order c, n, eps. ``on_point`` (optional) is called after
    each simulated point (progress reporting).
    """
    ns = [n] if isinstance(n, int | np.integer) else list(n)
    ns = [check_int(v, "n", 1) for v in ns]
    pi = check_probability(pi, "pi")
    reps = check_int(reps, "reps", 0)
    if reps == 1:
        raise InvalidParameterError("reps must be 0 (no simulation) or >= 2, got 1")
    settings = [(float(c), nn, float(e)) for c in cs for nn in ns for e in epsilons]
    for c, _, e in settings:
        if not 0 < c <= 1:
            raise InvalidParameterError(f"c = p + q must lie in (0, 1], got {c!r}")
        if not 0 < e < np.inf:
            raise InvalidParameterError(
                f"epsilon must be > 0 and finite (eps = 0 makes p = q: no information), got {e!r}")
    seeds = _as_seed_sequence(seed).spawn(len(settings)) if reps else [None] * len(settings)
    out = []
    for (c, nn, e), ss in zip(settings, seeds, strict=True):
        p, q = dont_know_from_c_eps(c, e)
        sim = None
        if reps:
            sim = simulate_dont_know(p, q, pi, nn, reps, ss, **options)
            if on_point is not None:
                on_point()
        out.append(ShaferPoint(
            c=c, epsilon=e, n=nn, p=p, q=q,
            variance=float(variance_dont_know(p, q, pi, nn, exact=True)),
            variance_approx=float(variance_dont_know(p, q, pi, nn, exact=False)),
            simulated=sim))
    return tuple(out)


@dataclass(frozen=True)
class PathPoint:
    """A simulated Q_lambda mechanism of Fig. 5 with its closed-form trade-off."""

    lam: float
    epsilon: float
    variance: float
    simulated: SimulationResult


def simulate_path(analysis: DontKnowAnalysis, lambdas: Sequence[float], reps: int = 1000,
                  seed: Any = None, *, on_point: Callable[[], None] | None = None,
                  **options: Any) -> tuple[PathPoint, ...]:
    r"""Simulate the unbiased Q_lambda estimator at each lambda (Fig. 5's simulated points).

    Each ``Q_lambda = q_lambda(p, q, lam)`` survey is answered with
    :func:`~mechdesign.estimation.estimators.estimate_q_lambda`; its MSE estimates
    ``nu_lambda`` (:func:`~mechdesign.estimation.estimators.variance_q_lambda`). Each lambda
    gets its own child of ``SeedSequence(seed)``; ``options`` go to
    :func:`~mechdesign.estimation.simulation.simulate`. ``on_point`` (optional) is called after
    each simulated lambda (progress reporting).
    """
    lam = _as_prob_array(lambdas, "lambdas").ravel()
    reps = check_int(reps, "reps", 2)
    a = analysis
    seeds = _as_seed_sequence(seed).spawn(lam.size)
    out = []
    for value, ss in zip(lam.tolist(), seeds, strict=True):
        est = partial(estimate_q_lambda, p=a.p, q=a.q, lam=value)
        sim = simulate(q_lambda(a.p, a.q, value), est, a.pi, a.n, reps, ss, **options)
        out.append(PathPoint(value, float(epsilon_q_lambda(a.p, a.q, value)),
                             float(variance_q_lambda(a.p, a.q, value, a.pi, a.n)), sim))
        if on_point is not None:
            on_point()
    return tuple(out)


def figure_4_curves(p: float, q: float) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    r"""Fig. 4: trade-off curves ``{label: (alpha, beta)}`` of Q_2x3(p, q) (Li et al. 2022,
    Thm 3.18 and Cor 3.19; ``docs/belief_functions.md`` s.3).

    ``f_eps`` and ``f_2eps`` (:func:`~mechdesign.accounting.tradeoff.tradeoff_function_dp`) at
    the mechanism's WLDP epsilon, against the pessimistic and optimistic curves ``T^pe``,
    ``T^op`` (:mod:`~mechdesign.accounting.belief_tradeoff`) and their 2-fold versions
    ``T^pe_2``, ``T^op_2``. The labels are the keys, in drawing order; draw them with
    :func:`mechdesign.plotting.figure_4`.
    """
    dk = dont_know(p, q)
    eps = epsilon_wldp(dk)
    curves = {"f_eps": tradeoff_function_dp(eps), "f_2eps": tradeoff_function_dp(2 * eps),
              "T^pe": pessimistic_function(dk), "T^op": optimistic_function(dk),
              "T^pe_2": pessimistic_function(dk, k=2), "T^op_2": optimistic_function(dk, k=2)}
    return {label: (c.alphas, c.betas) for label, c in curves.items()}
