r"""The tests behind the trade-off curves: Neyman-Pearson and minimax tests, exact.

A point ``(alpha, T(alpha))`` of a trade-off curve (:mod:`.tradeoff`, :mod:`.belief_tradeoff`)
is the error pair of one test ``phi: Y -> [0, 1]`` (``phi(y)`` is the probability of rejecting
H0 on output y). This module returns that test, computed in exact rational arithmetic (floats
are read as the dyadic rationals they are), so its errors can be checked to the last digit.

* :func:`neyman_pearson_test` (two distributions, H0: P, H1: Q). By the Neyman-Pearson lemma
  the most powerful level-alpha test rejects on a likelihood-ratio threshold ``t``:

  .. math:: \phi(y) = \begin{cases} 1 & Q[y] > t\,P[y] \\ \gamma & Q[y] = t\,P[y] \\
            0 & Q[y] < t\,P[y] \end{cases}, \qquad E_P[\phi] = \alpha,

  and its type II error ``E_Q[1 - phi]`` is ``T(P, Q)(alpha)`` (Dong, Roth & Su 2022, s.2;
  ``docs/accounting.md`` s.5, "The test behind each point").
* :func:`minimax_test` (an evidential mechanism and a pair of inputs, Li et al. 2022, s.3.1):
  the level-alpha minimax test of Shafer's semantics, ``argmin {beta^pe : alpha^pe <= alpha}``
  with ``alpha^pe = sup_{P_x} E phi`` and ``beta^pe = sup_{P_x'} E(1 - phi)``. It is a mixture
  of the indicators of two NESTED events ``E_1 subset E_2`` whose points
  ``(pl_x(E), pl_x'(Y - E))`` lie on the segment of the pessimistic curve containing alpha;
  nested indicators are comonotone, so the Choquet forms are linear along the mixture
  (``docs/belief_functions.md`` s.3, "The level-alpha minimax test").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from .._coerce import as_evidential
from .._exact import dyadic_integers, event_sums
from .._html import MAX_REPR, clip, kv_table, number, numbers_text, wrap
from .._validation import check_stochastic
from ..errors import InvalidParameterError, SizeLimitError
from .tradeoff import check_pair

__all__ = [
    "MAX_MINIMAX_OUTPUTS",
    "MinimaxTest",
    "NPTest",
    "minimax_test",
    "neyman_pearson_test",
]

MAX_MINIMAX_OUTPUTS = 12
""":func:`minimax_test` enumerates the ``2^|Y|`` events: at most 12 outputs."""


def _exact_vector(values: Any, name: str) -> list[Fraction]:
    """A probability vector as exact rationals: Fractions and ints as given, floats as the
    dyadic rationals they store. Checked like a row of a mechanism (finite, non-negative,
    summing to 1 within 1e-9)."""
    if isinstance(values, str | bytes):
        raise InvalidParameterError(f"{name} must be a probability vector, got {values!r}")
    try:
        items = list(values)
    except TypeError:
        raise InvalidParameterError(
            f"{name} must be a probability vector, got {values!r}") from None
    out: list[Fraction] = []
    for v in items:
        if isinstance(v, Fraction | int | np.integer) and not isinstance(v, bool):
            out.append(Fraction(int(v)) if isinstance(v, np.integer) else Fraction(v))
        elif isinstance(v, float | np.floating) and math.isfinite(float(v)):
            out.append(Fraction(float(v)))
        else:
            raise InvalidParameterError(f"{name} must hold finite numbers, got {v!r}")
    if not out:
        raise InvalidParameterError(f"{name} must not be empty")
    check_stochastic(np.array([[float(f) for f in out]]), name)
    if any(f < 0 for f in out):
        raise InvalidParameterError(
            f"{name} must be non-negative, got {float(min(out))!r}")
    return out


def _exact_level(alpha: Any) -> Fraction:
    if isinstance(alpha, bool) or not isinstance(
            alpha, Fraction | int | float | np.integer | np.floating):
        raise InvalidParameterError(f"alpha must be a number in [0, 1], got {alpha!r}")
    if isinstance(alpha, float | np.floating) and not math.isfinite(float(alpha)):
        raise InvalidParameterError(f"alpha must lie in [0, 1], got {float(alpha)!r}")
    a = Fraction(int(alpha)) if isinstance(alpha, np.integer) else Fraction(
        float(alpha) if isinstance(alpha, np.floating) else alpha)
    if not 0 <= a <= 1:
        raise InvalidParameterError(f"alpha must lie in [0, 1], got {float(a)!r}")
    return a


def _short(kind: str, parts: list[tuple[str, str]]) -> str:
    """``Kind(name=value, ...)`` in at most :data:`~mechdesign._html.MAX_REPR` characters."""
    body = ", ".join(f"{k}={v}" for k, v in parts)
    return clip(f"{kind}({body}", MAX_REPR - 1) + ")"


def _frozen_floats(values: list[Fraction]) -> np.ndarray:
    arr = np.array([float(v) for v in values])
    arr.flags.writeable = False
    return arr


# ============================================================================ Neyman-Pearson


@dataclass(frozen=True, eq=False)
class NPTest:
    r"""The most powerful level-alpha test of H0: P against H1: Q (Neyman-Pearson).

    Attributes
    ----------
    phi : ndarray
        ``phi[y]`` in [0, 1], the probability of rejecting H0 on output y (read-only; the
        doubles nearest to :attr:`phi_exact`).
    alpha : float
        Type I error ``E_P[phi]``: the requested level, or ``sum(P)`` if that is smaller
        (a stored row may sum to ``1 - 2^-53``).
    beta : float
        Type II error ``E_Q[1 - phi] = T(P, Q)(alpha)``.
    threshold : float
        The likelihood ratio ``t``: ``phi = 1`` where ``Q > t P``, ``gamma`` where
        ``Q = t P``, 0 where ``Q < t P``; the smallest value of ``Q[y]/P[y]`` (over
        ``P[y] > 0``) with ``P(Q > t P) <= alpha``.
    gamma : float
        The randomisation on the boundary ``{Q = t P, P > 0}``.
    phi_exact, alpha_exact, beta_exact, threshold_exact, gamma_exact
        The same as exact rationals (tuples of :class:`~fractions.Fraction` for ``phi``).

    Notes
    -----
    Outputs with ``P[y] = 0 < Q[y]`` are always rejected (``phi = 1``: power at no cost);
    outputs with ``P[y] = Q[y] = 0`` are never rejected (``phi = 0``: they do not occur).
    """

    phi: np.ndarray
    alpha: float
    beta: float
    threshold: float
    gamma: float
    phi_exact: tuple[Fraction, ...]
    alpha_exact: Fraction
    beta_exact: Fraction
    threshold_exact: Fraction
    gamma_exact: Fraction

    def __repr__(self) -> str:
        return _short("NPTest", [("phi", numbers_text(self.phi)), ("alpha", number(self.alpha)),
                                 ("beta", number(self.beta)),
                                 ("threshold", number(self.threshold)),
                                 ("gamma", number(self.gamma))])

    def _repr_html_(self) -> str:
        return wrap(kv_table([("phi", np.array2string(self.phi, threshold=20)),
                              ("alpha (type I)", number(self.alpha)),
                              ("beta (type II)", number(self.beta)),
                              ("threshold t (Q/P)", number(self.threshold)),
                              ("gamma", number(self.gamma))],
                             "Neyman-Pearson test"))


def neyman_pearson_test(P: Any, Q: Any, alpha: Any) -> NPTest:
    r"""The randomised Neyman-Pearson test of level alpha for H0: P against H1: Q, exact.

    .. math:: \phi(y) = \mathbb 1[Q_y > t P_y] + \gamma\, \mathbb 1[Q_y = t P_y], \qquad
              E_P[\phi] = \alpha, \qquad E_Q[1 - \phi] = T(P, Q)(\alpha),

    where ``t`` is the smallest likelihood ratio ``Q[y]/P[y]`` (``P[y] > 0``) with
    ``P(Q > t P) <= alpha`` and ``gamma = (alpha - P(Q > t P)) / P(Q = t P)`` in [0, 1].
    By the Neyman-Pearson lemma no test ``phi'`` with ``E_P[phi'] <= alpha`` has a smaller
    type II error, so ``beta`` is the trade-off function ``T(P, Q)`` of
    :func:`~mechdesign.accounting.tradeoff.tradeoff_function` at alpha (Dong, Roth & Su 2022,
    s.2; Li et al. 2022 call it the level-alpha minimax test of the Bayesian pair). The
    conventions are those of :mod:`.tradeoff`: type I error ``E_P[phi]``, type II error
    ``E_Q[1 - phi]``.

    Parameters
    ----------
    P, Q : sequence of float or Fraction
        Probability vectors of the same length (P under H0). Floats are read exactly.
    alpha : float or Fraction
        The level, in [0, 1]. Above ``sum(P)`` (a float row may sum to ``1 - 2^-53``) the test
        rejects everything and its type I error is ``sum(P)``.

    Returns
    -------
    NPTest
        The test with its errors, exact (``*_exact``) and as doubles.

    Examples
    --------
    Binary randomized response with ``e^eps = 3``, level 1/8: reject on output 1 with
    probability 1/2 (``E_P phi = 1/4 * 1/2``), type II error ``1 - 3/4 * 1/2 = 5/8``, which is
    ``f_eps(1/8) = 1 - 3/8``.

    >>> from fractions import Fraction as F
    >>> t = neyman_pearson_test([F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)], F(1, 8))
    >>> t.phi_exact, t.beta_exact, t.threshold_exact
    ((Fraction(0, 1), Fraction(1, 2)), Fraction(5, 8), Fraction(3, 1))
    """
    p = _exact_vector(P, "P")
    q = _exact_vector(Q, "Q")
    if len(p) != len(q):
        raise InvalidParameterError(
            f"P and Q must have the same length, got {len(p)} and {len(q)}")
    a = min(_exact_level(alpha), sum(p, Fraction(0)))
    support = [y for y in range(len(p)) if p[y] > 0]
    ratios = sorted({q[y] / p[y] for y in support}, reverse=True)
    mass = {r: Fraction(0) for r in ratios}
    for y in support:
        mass[q[y] / p[y]] += p[y]
    above = Fraction(0)  # P(Q > t P) for the current candidate t
    t = ratios[0]
    for r in ratios:
        if above > a:
            break
        t = r
        above_t = above
        above += mass[r]
    above = above_t
    gamma = (a - above) / mass[t]
    phi: list[Fraction] = []
    for y in range(len(p)):
        if p[y] == 0:
            phi.append(Fraction(1) if q[y] > 0 else Fraction(0))
        else:
            r = q[y] / p[y]
            phi.append(Fraction(1) if r > t else gamma if r == t else Fraction(0))
    alpha_ = sum((pi * f for pi, f in zip(p, phi, strict=True)), Fraction(0))
    beta = sum((qi * (1 - f) for qi, f in zip(q, phi, strict=True)), Fraction(0))
    return NPTest(_frozen_floats(phi), float(alpha_), float(beta), float(t), float(gamma),
                  tuple(phi), alpha_, beta, t, gamma)


# ============================================================================ minimax (belief)


@dataclass(frozen=True, eq=False)
class MinimaxTest:
    r"""The level-alpha minimax test of an evidential pair (Li et al. 2022, s.3.1).

    Attributes
    ----------
    phi : ndarray
        ``phi[y]`` in [0, 1] over the outputs Y of the mechanism (read-only doubles).
    alpha : float
        ``alpha^pe = sup_{P_x} E[phi] = sum_B m_x(B) max_B phi``: the requested level (or the
        total mass of row x if that is smaller).
    beta : float
        ``beta^pe = sup_{P_x'} E[1 - phi] = sum_B m_x'(B) max_B (1 - phi) = T^pe(alpha)``.
    lower_event, upper_event : frozenset
        The nested events ``E_1 subset E_2`` (of output labels): ``phi = 1`` on ``E_1``,
        ``weight`` on ``E_2 - E_1``, 0 elsewhere.
    weight : float
        The mixing weight ``g``: ``phi = (1 - g) 1_{E_1} + g 1_{E_2}``.
    phi_exact, alpha_exact, beta_exact, weight_exact
        The same as exact rationals.
    """

    phi: np.ndarray
    alpha: float
    beta: float
    lower_event: frozenset
    upper_event: frozenset
    weight: float
    phi_exact: tuple[Fraction, ...]
    alpha_exact: Fraction
    beta_exact: Fraction
    weight_exact: Fraction

    def __repr__(self) -> str:
        return _short("MinimaxTest", [("phi", numbers_text(self.phi)),
                                      ("alpha", number(self.alpha)),
                                      ("beta", number(self.beta)),
                                      ("weight", number(self.weight))])

    def _repr_html_(self) -> str:
        return wrap(kv_table([("phi", np.array2string(self.phi, threshold=20)),
                              ("alpha^pe (type I)", number(self.alpha)),
                              ("beta^pe (type II)", number(self.beta)),
                              ("E_1 (phi = 1)", sorted(map(repr, self.lower_event))),
                              ("E_2 - E_1 (phi = weight)",
                               sorted(map(repr, self.upper_event - self.lower_event))),
                              ("weight", number(self.weight))],
                             "Level-alpha minimax test (Li et al. 2022)"))


def _lower_hull_points(pts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The lower convex hull of integer points, collinear boundary points KEPT (exact)."""
    best: dict[int, int] = {}
    for a, b in pts:
        if a not in best or b < best[a]:
            best[a] = b
    hull: list[tuple[int, int]] = []
    for a, b in sorted(best.items()):
        while len(hull) >= 2:
            (a0, b0), (a1, b1) = hull[-2], hull[-1]
            if (a1 - a0) * (b - b0) - (b1 - b0) * (a - a0) < 0:  # strictly below: drop
                hull.pop()
            else:
                break
        hull.append((a, b))
    return hull


def minimax_test(m: Any, alpha: Any, pair: Any = (0, 1)) -> MinimaxTest:
    r"""The level-alpha minimax test of Li et al. 2022 (s.3.1, Thm 3.5) for H0: input x
    against H1: input x' of an evidential mechanism, exact.

    Li et al. define ``phi`` as a level-alpha minimax test when it minimises
    ``beta^pe = 1 - inf_{P_x'} E phi`` among the tests with ``alpha^pe = sup_{P_x} E phi
    <= alpha``; its type II error is the pessimistic (SLDP) curve
    :func:`~mechdesign.accounting.belief_tradeoff.pessimistic_function` at alpha.

    Construction (``docs/belief_functions.md`` s.3). ``T^pe`` is the lower convex hull of the event
    points ``(pl_x(E), pl_x'(Y - E))``; take the hull segment containing alpha and, among the
    events whose points lie on its supporting line, two NESTED ones ``E_1 subset E_2`` with
    ``pl_x(E_1) <= alpha <= pl_x(E_2)``. Then

    .. math:: \phi = (1 - g)\,\mathbb 1_{E_1} + g\,\mathbb 1_{E_2}, \qquad
              g = \frac{\alpha - pl_x(E_1)}{pl_x(E_2) - pl_x(E_1)}

    is comonotone with both indicators, so ``sup_{P_x} E phi = (1 - g) pl_x(E_1) + g
    pl_x(E_2) = alpha`` and ``beta^pe = (1 - g) pl_x'(Y - E_1) + g pl_x'(Y - E_2) =
    T^pe(alpha)``. Such a pair exists because plausibilities are 2-alternating (Huber and
    Strassen 1973: the minimax tests are Neyman-Pearson tests of a least-favourable pair, whose
    rejection regions are nested); if it did not, the function would raise rather than return
    a test with a larger error.

    Parameters
    ----------
    m : EvidentialMechanism or Mechanism
        At most :data:`MAX_MINIMAX_OUTPUTS` outputs (the events are enumerated). Masses are
        read exactly.
    alpha : float or Fraction
        The level in [0, 1].
    pair : (int, int)
        Row indices ``(x, x')`` (H0, H1); ``x = x'`` is allowed.

    Returns
    -------
    MinimaxTest
    """
    ev = as_evidential(m)
    x, xp = check_pair(ev, pair)
    n = ev.n_outputs
    if n > MAX_MINIMAX_OUTPUTS:
        raise SizeLimitError(
            f"minimax_test enumerates 2^{n} events; the limit is {MAX_MINIMAX_OUTPUTS} outputs")
    M, D = dyadic_integers(ev.masses[[x, xp]])
    masks = [int(b) for b in ev.focal_masks]
    pl = event_sums(M, masks, n, "pl")  # column E - 1 is event E
    full = (1 << n) - 1

    def pl_of(row: int, E: int) -> int:
        return 0 if E == 0 else pl[row][E - 1]

    A = [pl_of(0, E) for E in range(full + 1)]
    B = [pl_of(1, full ^ E) for E in range(full + 1)]
    a = min(_exact_level(alpha) * D, Fraction(A[full]))
    hull = _lower_hull_points(list(zip(A, B, strict=True)))
    # the hull segment [(a0, b0), (a1, b1)] containing a; every event whose point lies on
    # its supporting line is on the hull (all points lie on or above that line)
    i = max(j for j in range(len(hull)) if hull[j][0] <= a)
    (a0, b0) = hull[i]
    if a0 == a:  # a vertex: one event suffices
        on_line = [E for E in range(full + 1) if A[E] == a0 and B[E] == b0]
    else:
        (a1, b1) = hull[i + 1]
        on_line = [E for E in range(full + 1)
                   if (a1 - a0) * (B[E] - b0) == (b1 - b0) * (A[E] - a0)]
    lows = sorted((E for E in on_line if A[E] <= a), key=lambda E: -A[E])
    highs = sorted((E for E in on_line if A[E] >= a), key=lambda E: A[E])
    found = next(((E1, E2) for E1 in lows for E2 in highs if E1 & ~E2 == 0), None)
    if found is None:  # pragma: no cover - excluded by Huber-Strassen (see docstring)
        raise InvalidParameterError(
            f"no nested pair of events on the pessimistic curve at alpha = {float(a / D)!r}")
    E1, E2 = found
    g = Fraction(0) if A[E2] == A[E1] else (a - A[E1]) / (A[E2] - A[E1])
    phi = [Fraction(1) if E1 >> y & 1 else g if E2 >> y & 1 else Fraction(0)
           for y in range(n)]
    alpha_ = ((1 - g) * A[E1] + g * A[E2]) / D
    beta = ((1 - g) * B[E1] + g * B[E2]) / D
    return MinimaxTest(_frozen_floats(phi), float(alpha_), float(beta), ev.event(E1),
                       ev.event(E2), float(g), tuple(phi), alpha_, beta, g)
