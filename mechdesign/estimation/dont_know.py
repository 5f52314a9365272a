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

The table is the paper's, for ``p > 1/2``. Read as what they are, the worst (W) and the best
(O) of the completions, the readings extend to every ``0 <= q < p``, ``p + q <= 1``: at
``p <= 1/2`` the completion with ``p + lambda d = 1/2`` is uninformative, so ``nu^W = inf``
and ``eps^O = 0``, and :func:`dont_know_analysis` flags both readings as degenerate (the
Shafer reading and ``eps^W``, ``nu^O`` are unaffected; see its docstring).

The reproduction of the paper's figures (the simulated grids and paths, the Fig. 4 curves)
builds on this module in :mod:`mechdesign.studies.figure_data`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.special import expit

from .._exact import exp_bracket
from .._html import approx, kv_table, number, short_repr, value_view, wrap
from .._validation import check_int, check_probability, frozen
from ..catalog import dont_know, q_lambda
from ..errors import InvalidParameterError
from ..evidential import EvidentialMechanism
from ..privacy.measures import epsilon_ldp, epsilon_sldp, epsilon_wldp
from .inputs import as_probability_array
from .records import fields_equal
from .variances import (
    binomial_inverse_moment,
    variance_dont_know,
    variance_q_lambda,
    variance_warner,
)

__all__ = [
    "DontKnowAnalysis",
    "DontKnowDesign",
    "Rectangle",
    "dont_know_analysis",
    "dont_know_design",
    "dont_know_from_c_eps",
    "epsilon_q_lambda",
    "shafer_variance_curve",
]


@value_view
@dataclass(frozen=True)
class Rectangle:
    """The box ``[epsilon_low, epsilon_high] x [variance_low, variance_high]`` of Fig. 5.

    ``epsilon_high`` is ``inf`` when ``q = 0``; ``variance_high`` is ``inf`` at ``p <= 1/2``
    (see :func:`dont_know_analysis`).
    """

    epsilon_low: float
    epsilon_high: float
    variance_low: float
    variance_high: float

    def contains(self, epsilon: Any, variance: Any, rtol: float = 1e-12) -> np.ndarray | bool:
        """Whether points lie in the box (boundaries included, relative slack ``rtol``)."""
        e = np.asarray(epsilon, dtype=float)
        v = np.asarray(variance, dtype=float)
        # the slack scales with the finite bounds (an infinite upper bound must not make
        # the lower one vacuous)
        se = rtol * max([abs(b) for b in (self.epsilon_low, self.epsilon_high)
                         if math.isfinite(b)] + [1.0])
        sv = rtol * max([abs(b) for b in (self.variance_low, self.variance_high)
                         if math.isfinite(b)] + [1e-300])
        inside = ((e >= self.epsilon_low - se) & (e <= self.epsilon_high + se)
                  & (v >= self.variance_low - sv) & (v <= self.variance_high + sv))
        return bool(inside) if inside.ndim == 0 else inside


@dataclass(frozen=True, eq=False)
class DontKnowAnalysis:
    r"""The privacy and accuracy of Q_2x3(p, q) under the three readings (Li et al. 2022, s.4).

    The Walley reading is the worst and the optimal reading the best of the completions
    Q_lambda, lambda in [0, 1]; at ``p <= 1/2`` both are degenerate (see
    :func:`dont_know_analysis`).

    Attributes
    ----------
    p, q, pi, n, exact
        The inputs (``exact``: Thm 3.10 with the exact A, or the paper's approximation).
    epsilon_shafer : float
        ``ln(p/q)``, measured by :func:`~mechdesign.privacy.measures.epsilon_sldp` (mass).
    epsilon_walley : float
        ``ln((1-q)/q)``, measured by :func:`~mechdesign.privacy.measures.epsilon_wldp`
        (the largest Q_lambda epsilon, that of ``Q_1``; valid for every ``p > q``).
    epsilon_optimal : float
        The smallest Q_lambda epsilon: ``ln(p/(1-p))``, the LDP epsilon of ``Q_0 = warner(p)``,
        at ``p > 1/2``; ``0.0`` at ``p <= 1/2`` (attained by the uninformative completion;
        ``optimal_degenerate`` is set).
    variance_shafer : float
        Thm 3.10: ``Var[pi_hat | N1 + N2 != 0]``.
    variance_walley : float
        The largest Q_lambda variance: ``nu(Q_0)``, Eq. (1) at truth probability p, at
        ``p > 1/2``; ``inf`` at ``p <= 1/2`` (``walley_degenerate`` is set).
    variance_optimal : float
        ``nu(Q_1)``, Eq. (1) at truth probability 1 - q (the smallest; finite for every
        ``p > q``, since then ``q < 1/2``).
    walley_degenerate, optimal_degenerate : bool
        ``p <= 1/2``: the Walley variance is ``inf`` (no accuracy guarantee) and the optimal
        epsilon is 0 (attained only by a completion that reveals nothing). The optimal
        reading has no other condition: ``Q_1 = warner(1-q)`` is informative whenever
        ``q < p``, ``p + q <= 1``.
    lambda_uninformative : float
        ``(1 - 2p) / (2 (1 - p - q))``, the lambda in [0, 1) whose Q_lambda has both rows
        ``(1/2, 1/2)``, at ``p <= 1/2``; NaN at ``p > 1/2`` (no such completion).
    note : str
        Empty when no reading is degenerate; otherwise a sentence saying why, with the
        LDP epsilon ``|ln(p/(1-p))|`` and the variance of ``Q_0 = warner(p)`` itself.
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
    walley_degenerate: bool
    optimal_degenerate: bool
    lambda_uninformative: float
    note: str
    inverse_moment: float
    rectangle: Rectangle
    lambdas: np.ndarray
    epsilon_lambda: np.ndarray
    variance_lambda: np.ndarray

    def __repr__(self) -> str:
        flag = ("; Walley/optimal DEGENERATE (p <= 1/2)"
                if self.walley_degenerate or self.optimal_degenerate else "")
        return short_repr(
            "DontKnowAnalysis",
            f"Q_2x3({number(self.p)}, {number(self.q)}), pi={number(self.pi)}, n={self.n}: "
            f"eps S/W/O={approx(self.epsilon_shafer, 6)}/{approx(self.epsilon_walley, 6)}/"
            f"{approx(self.epsilon_optimal, 6)}, var S/W/O={approx(self.variance_shafer, 6)}/"
            f"{approx(self.variance_walley, 6)}/{approx(self.variance_optimal, 6)}{flag}")

    def _repr_html_(self) -> str:
        """The three readings (epsilon and variance of each) as a table, with the inputs
        and the note on degenerate readings (notebooks)."""
        def reading(eps: float, var: float) -> str:
            return f"epsilon = {number(eps)}, variance = {number(var)}"

        rows: list[tuple[str, Any]] = [
            ("mechanism", f"Q_2x3(p={number(self.p)}, q={number(self.q)})"),
            ("pi, n", f"{number(self.pi)}, {self.n}"),
            ("Shafer (mass SLDP; Thm 3.10)",
             reading(self.epsilon_shafer, self.variance_shafer)),
            ("Walley (WLDP, worst completion)",
             reading(self.epsilon_walley, self.variance_walley)),
            ("optimal completion", reading(self.epsilon_optimal, self.variance_optimal)),
            ("A of Thm 3.10", f"{number(self.inverse_moment)} "
                              f"({'exact' if self.exact else 'the paper approximation'})"),
            ("note", self.note or None)]
        return wrap(kv_table(rows, "DontKnowAnalysis"))

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
    r"""The LDP epsilon of Q_lambda (Li et al. 2022, s.4), ``d = 1 - p - q``:

    .. math:: \varepsilon_\lambda = \Big|\ln \frac{p + \lambda d}{q + (1 - \lambda) d}\Big|.

    The paper's ``ln((p + lambda d)/(q + (1 - lambda) d))`` when ``p + lambda d >= 1/2``; below
    that Q_lambda flips Yes and No, the logarithm is negative and the LDP epsilon is its
    absolute value (0 where ``p + lambda d = 1/2``). Broadcasts; ``inf`` where a row has a
    zero entry (``q + (1 - lambda) d = 0`` or ``p + lambda d = 0``).
    """
    ps, qs, ls = np.broadcast_arrays(as_probability_array(p, "p"), as_probability_array(q, "q"),
                                     as_probability_array(lam, "lam"))
    d = np.maximum(1.0 - ps - qs, 0.0)
    with np.errstate(divide="ignore"):
        out = np.abs(np.log(ps + ls * d) - np.log(qs + (1.0 - ls) * d))
    return float(out) if out.ndim == 0 else out


def dont_know_analysis(p: float, q: float, pi: float, n: int, exact: bool = True,
                       lambdas: int | Sequence[float] = 101) -> DontKnowAnalysis:
    r"""Shafer, Walley and optimal trade-offs of Q_2x3(p, q), the Fig. 5 rectangle and the
    Q_lambda path (Li et al. 2022, s.4 of ``docs/belief_functions.md``).

    The Walley reading is the worst case over the completions Q_lambda (lambda in [0, 1]) of
    s.4 and the optimal reading the best case. With ``d = 1 - p - q`` the columns of Q_lambda
    differ by ``D_lambda = p - q + (2 lambda - 1) d = 2p - 1 + 2 lambda d``, and

    .. math:: \nu_\lambda = \frac{-(\pi - 1/2)^2 + 1/(4 D_\lambda^2)}{n}, \qquad
              \varepsilon_\lambda = \Big|\ln\frac{1/2 + D_\lambda/2}{1/2 - D_\lambda/2}\Big|,

    the first decreasing, the second increasing in ``|D_lambda|``. ``D_lambda`` increases
    from ``D_0 = 2p - 1`` to ``D_1 = 1 - 2q``, and ``|D_0| <= D_1`` because ``q < p`` and
    ``p + q <= 1`` (equality only at ``d = 0``, where every Q_lambda is Q_0). So the largest
    ``|D_lambda|`` is always ``D_1``: ``eps^W = eps(Q_1) = ln((1-q)/q)`` and
    ``nu^O = nu(Q_1)`` for every ``p > q``. The smallest ``|D_lambda|`` depends on the sign
    of ``D_0``:

    * ``p > 1/2``: it is ``D_0 > 0``, giving the paper's ``nu^W = nu(Q_0)`` and
      ``eps^O = ln(p/(1-p)) = eps(Q_0)``;
    * ``p <= 1/2``: ``D_lambda`` vanishes at ``lambda* = (1 - 2p)/(2d)`` in [0, 1)
      (``1 - 2p < 2d`` because ``q < 1/2``); that completion answers Yes with probability
      1/2 whoever asks, so the worst-case variance is ``nu^W = inf`` and the best-case loss is
      ``eps^O = 0``. Both readings are flagged degenerate (``walley_degenerate``,
      ``optimal_degenerate``, ``note``): Walley gives no accuracy guarantee, and the optimal
      loss 0 is that of the uninformative completion alone. The paper's printed
      ``ln(p/(1-p))`` is ``<= 0`` there and is not a privacy loss. Q_0 = warner(p)
      itself is still informative at ``p < 1/2`` (it flips the answers): its LDP epsilon is
      ``|ln(p/(1-p))|`` and its unbiased estimator has variance Eq. (1) at p; both are given
      in ``note``, and they are the lambda = 0 point of the path.

    The rectangle ``[eps^O, eps^W] x [nu^O, nu^W]`` contains every Q_lambda trade-off in both
    cases (at ``p <= 1/2`` it is ``[0, eps^W] x [nu^O, inf]``, and the path runs from the
    lambda = 0 point of Q_0 towards ``(0, inf)`` at ``lambda*``, then to ``(eps^W, nu^O)``).

    Parameters
    ----------
    p, q : float
        Truth and lie probabilities, ``0 <= q < p``, ``p + q <= 1`` (Shafer's privacy and
        variance are defined for every such pair; ``p <= 1/2`` makes the Walley and optimal
        readings degenerate, see above). ``p <= q`` is refused: the answers carry no
        information (``p = q``) or favour the lie. ``q = 0`` is allowed and gives infinite
        Shafer and Walley epsilons (non-private).
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

    Returns
    -------
    DontKnowAnalysis

    Raises
    ------
    InvalidParameterError
        p or q NaN or outside [0, 1], ``p + q > 1``, ``p <= q``, pi outside [0, 1], ``n < 1``,
        or a bad lambda grid; the message names the value.

    Examples
    --------
    The worked example p = .6, q = .2 (``docs/belief_functions.md`` s.4): eps^S = ln 3,
    eps^W = ln 4, eps^O = ln 1.5.

    >>> a = dont_know_analysis(0.6, 0.2, pi=0.3, n=100)
    >>> bool(abs(a.epsilon_optimal - np.log(1.5)) < 1e-12)
    True

    Half the answers "don't know": Shafer's reading is as usual, the other two degenerate.

    >>> b = dont_know_analysis(0.4, 0.1, pi=0.3, n=100)
    >>> bool(abs(b.epsilon_shafer - np.log(4)) < 1e-12), b.walley_degenerate
    (True, True)
    >>> b.variance_walley, b.epsilon_optimal, round(b.lambda_uninformative, 12)
    (inf, 0.0, 0.2)
    """
    p = check_probability(p, "p")
    q = check_probability(q, "q")
    dk = dont_know(p, q)  # checks p + q <= 1
    if not p > q:
        raise InvalidParameterError(
            f"dont_know_analysis needs p > q (p = q: the answers carry no information; p < q: "
            f"lying is likelier than the truth), got p = {p!r}, q = {q!r}")
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
    var_s = float(variance_dont_know(p, q, pi, n, exact=exact))
    var_o = float(variance_warner(1.0 - q, pi, n))
    eps_q0 = epsilon_ldp(q_lambda(p, q, 0.0))  # |ln(p/(1-p))|, the LDP epsilon of warner(p)
    var_q0 = float(variance_warner(p, pi, n))
    degenerate = p <= 0.5
    if degenerate:
        lam_star = (1.0 - 2.0 * p) / (2.0 * (1.0 - p - q))  # d > 0: q < p <= 1/2
        eps_o, var_w = 0.0, math.inf
        where = ("the completion Q_0 = warner(1/2) (lambda = 0)" if p == 0.5 else
                 f"Q_0 = warner(p) flips Yes and No (its LDP epsilon |ln(p/(1-p))| = "
                 f"{eps_q0:.6g}, the variance of its unbiased estimator {var_q0:.6g}), and the "
                 f"completion Q_lambda at lambda = {lam_star:.6g}")
        note = (f"Walley and optimal readings degenerate at p <= 1/2 (p = {p!r}): {where} "
                f"answers Yes with probability 1/2 whatever the truth, so the Walley (worst) "
                f"variance is inf and the optimal (best) epsilon is 0, attained only by that "
                f"uninformative completion; eps^W = ln((1-q)/q) and nu^O = nu(Q_1) still hold")
    else:
        lam_star, eps_o, var_w, note = math.nan, eps_q0, var_q0, ""
    A = float(binomial_inverse_moment(n, min(p + q, 1.0), exact=exact))
    return DontKnowAnalysis(
        p=p, q=q, pi=pi, n=n, exact=bool(exact),
        epsilon_shafer=eps_s, epsilon_walley=eps_w, epsilon_optimal=eps_o,
        variance_shafer=var_s, variance_walley=var_w, variance_optimal=var_o,
        walley_degenerate=degenerate, optimal_degenerate=degenerate,
        lambda_uninformative=lam_star, note=note,
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


@dataclass(frozen=True, eq=False)
class DontKnowDesign:
    r"""The "don't know" mechanism prescribed for a response rate c and a Shafer budget eps
    (Li et al. 2022, s.4; see :func:`dont_know_design`).

    Attributes
    ----------
    c, epsilon : float
        The inputs: answer probability ``c = p + q`` (the "don't know" probability is
        ``1 - c``) and the SLDP budget.
    p, q : float
        Truth and lie probabilities as stored: ``p = c e^eps / (1 + e^eps)``,
        ``q = c / (1 + e^eps)``, rounded so that ``p <= e^eps q`` holds exactly.
    mechanism : EvidentialMechanism
        ``dont_know(p, q)``.
    epsilon_shafer : float
        Measured (:func:`~mechdesign.privacy.measures.epsilon_sldp`, mass): ``eps``.
    epsilon_walley : float
        Measured (:func:`~mechdesign.privacy.measures.epsilon_wldp`):
        ``ln((1 - q)/q) = ln(e^eps + 1 - c) - ln c``.
    walley_formula : float
        ``ln(e^eps + 1 - c) - ln c``, the closed form of ``epsilon_walley``.
    variance_factor : float
        ``(p + q)^2 / (p - q)^2 = coth^2(eps/2)``, the factor of Thm 3.10 (independent of c).
    paper_regime : bool
        ``p > 1/2``, the paper's standing assumption (needed by the Walley and optimal
        readings of :func:`dont_know_analysis`); equivalent to ``c > (1 + e^-eps)/2``.
    """

    c: float
    epsilon: float
    p: float
    q: float
    mechanism: EvidentialMechanism
    epsilon_shafer: float
    epsilon_walley: float
    walley_formula: float
    variance_factor: float
    paper_regime: bool

    def __repr__(self) -> str:
        return short_repr(
            "DontKnowDesign",
            f"c={number(self.c)}, eps={number(self.epsilon)}: p={number(self.p)}, "
            f"q={number(self.q)}, eps_S={approx(self.epsilon_shafer, 6)}, "
            f"eps_W={approx(self.epsilon_walley, 6)}"
            + ("" if self.paper_regime else "; p <= 1/2"))

    def _repr_html_(self) -> str:
        return wrap(kv_table([
            ("c = p + q (1 - c: don't know)", number(self.c)),
            ("epsilon (SLDP budget)", number(self.epsilon)), ("p (truth)", number(self.p)),
            ("q (lie)", number(self.q)), ("measured eps_S", number(self.epsilon_shafer)),
            ("measured eps_W", number(self.epsilon_walley)),
            ("(p+q)^2/(p-q)^2 = coth^2(eps/2)", number(self.variance_factor)),
            ("p > 1/2 (paper's regime)", str(self.paper_regime))],
            "Don't-know design rule (Li et al. 2022)"))


def dont_know_design(c: float, epsilon: float) -> DontKnowDesign:
    r"""The "don't know" design rule of Li et al. 2022 (s.4): given the answer rate ``c`` and
    a Shafer (SLDP) budget eps, the Q_2x3(p, q) to run,

    .. math:: p = \frac{c\, e^\varepsilon}{1 + e^\varepsilon}, \qquad
              q = \frac{c}{1 + e^\varepsilon}, \qquad 1 - p - q = 1 - c .

    Derivation (``docs/belief_functions.md`` s.4, "The don't know design rule"). The
    variance of Thm 3.10 is ``[-(pi - 1/2)^2 + (p+q)^2 / (4 (p-q)^2)] A(n, p + q)``. Li et
    al.'s proposition: at fixed p it increases with q, so within the budget
    ``p / q <= e^eps`` a respondent should lie as little as allowed, ``q = p e^-eps``, and
    put the remaining mass into "don't know". Fixing the answer rate ``p + q = c`` then gives
    ``p (1 + e^-eps) = c``, the formulas above (the seed prints ``p = (1-c)/(e^-eps + 1)``,
    which holds only if c is the "don't know" probability). Along ``p + q = c``, ``A(n, c)``
    is fixed and the factor ``(p+q)/(p-q) = (p/q + 1)/(p/q - 1)`` decreases in ``p/q``, so
    among all Q_2x3 with answer rate c and ``eps_S <= eps`` this one (``p/q = e^eps``,
    factor ``coth(eps/2)``) has the smallest variance: ``nu^S(eps; c)`` of
    :func:`shafer_variance_curve`, Warner's curve scaled by ``n A(n, c)``.

    Its privacy: ``eps_S = ln(p/q) = eps`` (and ``eps_bel = eps``), while the Walley reading
    pays for the "don't know" mass:

    .. math:: \varepsilon_W = \ln\frac{1 - q}{q} = \ln(e^\varepsilon + 1 - c) - \ln c
              \ \ge\ \varepsilon,

    with equality only at ``c = 1`` (Warner). The stored ``p`` is lowered by an ulp where
    needed so that ``p <= e^eps q`` holds exactly (decided in rational arithmetic against a
    40-digit bracket of ``e^eps``): the mechanism never exceeds its budget.

    Parameters
    ----------
    c : float
        Answer probability ``p + q`` in (0, 1].
    epsilon : float
        SLDP budget, ``>= 0`` (``inf``: ``q = 0``, no privacy).

    Returns
    -------
    DontKnowDesign

    Examples
    --------
    >>> d = dont_know_design(0.8, float(np.log(3)))
    >>> round(d.p, 12), round(d.q, 12), round(float(np.exp(d.epsilon_walley)), 9)
    (0.6, 0.2, 4.0)
    """
    p0, q0 = dont_know_from_c_eps(c, epsilon)
    cf, eps = float(np.asarray(c, dtype=float)), float(np.asarray(epsilon, dtype=float))
    p, q = float(p0), float(q0)
    if math.isfinite(eps) and q > 0:
        bound = exp_bracket(eps, 40)[0]  # <= e^eps
        while Fraction(p) > bound * Fraction(q):
            p = float(np.nextafter(p, 0.0))
    dk = dont_know(p, q)
    walley = (math.inf if q == 0 else
              math.log(math.exp(eps) + 1.0 - cf) - math.log(cf) if eps < 700 else
              eps + math.log1p((1.0 - cf) * math.exp(-eps)) - math.log(cf))
    t = math.tanh(eps / 2.0)
    factor = (1.0 / t) ** 2 if t > 1e-154 else math.inf  # coth^2 beyond the doubles: inf
    return DontKnowDesign(c=cf, epsilon=eps, p=p, q=q, mechanism=dk,
                          epsilon_shafer=epsilon_sldp(dk, "mass"),
                          epsilon_walley=epsilon_wldp(dk), walley_formula=walley,
                          variance_factor=factor, paper_regime=p > 0.5)
