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

The reproduction of the paper's figures (the simulated grids and paths, the Fig. 4 curves)
builds on this module in :mod:`mechdesign.studies.figure_data`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import expit

from .._validation import check_int, check_probability, frozen
from ..catalog import dont_know, q_lambda
from ..errors import InvalidParameterError
from ..privacy.measures import epsilon_ldp, epsilon_sldp, epsilon_wldp
from .inputs import as_probability_array
from .records import fields_equal
from .variances import (
    binomial_inverse_moment,
    variance_dont_know,
    variance_q_lambda,
    variance_warner,
)


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
        The inputs (``exact``: Thm 3.10 with the exact A, or the paper's approximation).
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


def epsilon_q_lambda(p: Any, q: Any, lam: Any) -> float | np.ndarray:
    r"""``eps_lambda = ln((p + lambda d) / (q + (1 - lambda) d))``, ``d = 1 - p - q``
    (Li et al. 2022, s.4): the LDP epsilon of Q_lambda when ``p + lambda d >= 1/2``.
    Broadcasts; ``inf`` where ``q + (1 - lambda) d = 0``.
    """
    ps, qs, ls = np.broadcast_arrays(as_probability_array(p, "p"), as_probability_array(q, "q"),
                                     as_probability_array(lam, "lam"))
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
        :func:`~mechdesign.estimation.variances.variance_dont_know` directly.) ``q = 0`` is
        allowed and gives infinite Shafer and Walley epsilons (non-private).
    pi : float
        True proportion in [0, 1].
    n : int
        Survey size, ``>= 1``.
    exact : bool
        Thm 3.10 with the exact A (default) or the paper's approximation
        ``A ~= 1/((n+1)(p+q) - 1)``.
    lambdas : int or sequence of float
        The lambda grid of the path: a number of equally spaced points in [0, 1] (>= 2), or the
        values themselves.

    Examples
    --------
    The worked example p = .6, q = .2 (``docs/belief_functions.md`` s.4): eps^S = ln 3,
    eps^W = ln 4, eps^O = ln 1.5.

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
        lam = as_probability_array(lambdas, "lambdas").ravel()
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
        lambdas=frozen(lam),
        epsilon_lambda=frozen(np.asarray(epsilon_q_lambda(p, q, lam), dtype=float)),
        variance_lambda=frozen(np.asarray(variance_q_lambda(p, q, lam, pi, n), dtype=float)),
    )


def dont_know_from_c_eps(c: Any, epsilon: Any) -> tuple[np.ndarray | float, np.ndarray | float]:
    r"""The Q_2x3(p, q) with ``p + q = c`` and Shafer loss ``ln(p/q) = eps``
    (``docs/belief_functions.md`` s.4 and correction 3):

    .. math:: p = \frac{c}{1 + e^{-\varepsilon}}, \qquad q = \frac{c}{1 + e^{\varepsilon}}.

    ``c`` in (0, 1], ``eps >= 0`` (``inf`` gives ``q = 0``); they broadcast.
    """
    cs = as_probability_array(c, "c")
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
