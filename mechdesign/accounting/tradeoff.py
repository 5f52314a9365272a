r"""Hypothesis-testing trade-off functions (f-DP), exact and piecewise linear.

For two distributions P (hypothesis H0) and Q (hypothesis H1) on a finite set, a test
``phi: Y -> [0, 1]`` rejects H0 with probability ``phi(y)``; its type I error is
``alpha_phi = E_P[phi]`` and its type II error ``beta_phi = 1 - E_Q[phi]``. The trade-off
function is

.. math:: T(P, Q)(\alpha) = \inf\{\beta_\phi : \alpha_\phi \le \alpha\}.

By Neyman-Pearson it is the piecewise-linear interpolation of the points obtained by rejecting
the outputs in decreasing order of the likelihood ratio ``Q[y] / P[y]`` (randomising on the
boundary output): breakpoints at the cumulative masses (Dong, Roth & Su 2022, s.2;
``docs/accounting.md`` s.5). Every curve here is returned as exact
breakpoints (:class:`TradeoffCurve`); evaluating at a grid of alphas is linear interpolation.

Privacy-loss atoms. The curve of a pair is read from its privacy-loss distribution
(:mod:`mechdesign.accounting.pld`, the engine composition uses too): the outputs grouped by
their loss ``ln P[y] - ln Q[y]`` into atoms that carry both masses, rejected in increasing
order of the loss. The k-fold product ``(P^k, Q^k)`` has the atoms of the k-fold
convolution, computed in log space (no underflow for masses like 1e-200), so the 1000-fold
composition of binary randomized response (1001 atoms) is exact and fast.
Losses that agree to :data:`~mechdesign.accounting.pld.MERGE_RTOL` relative are merged,
which moves the curve by at most about that times the merged mass; the masses themselves
are summed, never rounded. The size of a composition is limited as in
:mod:`~mechdesign.accounting.pld` (:data:`~mechdesign.accounting.pld.MAX_ATOMS` atoms,
:data:`~mechdesign.accounting.pld.MAX_PAIRS` terms per step).

Precision. A trade-off function is of two distributions, so the curve of a pair of
stored rows is that of the rows EACH DIVIDED BY ITS EXACT SUM (a row of doubles may sum to
``1 + 5.6e-17``; the excess is spread in proportion, as a sampler drawing from the row
would). At ``k = 1`` the breakpoints are computed exactly from the doubles' integer
representations and rounded DOWN, and their complements ``1 - beta`` and ``1 - alpha``
rounded UP from the same integers, all kept with the curve
(:attr:`TradeoffCurve.exact_points`), so the polyline lies on or below the exact curve and
the readings
(:func:`delta_from_tradeoff`, :func:`epsilon_of_tradeoff`) are upper bounds at full relative
precision (a breakpoint below ``2^-1022`` is subnormal and carries an absolute rounding;
below ``2^-1074`` it is 0 and the epsilon read is ``inf``). They can differ from
:func:`~mechdesign.privacy.measures.delta_ldp` and ``epsilon_ldp`` of the raw rows by about
a row's excess over 1. Breakpoints are never dropped or joined in a way that raises the
curve (:func:`curve_from_points`). Composed curves (``k > 1``, :func:`tensor_product`) come
from the privacy-loss atoms, whose masses carry a relative error of about ``k`` ulps
(:meth:`~mechdesign.accounting.pld.LossAtoms.self_compose`) that is not bounded here: for
composed guarantees use :func:`~mechdesign.accounting.delta_composed` and
:func:`~mechdesign.accounting.epsilon_composed`, which are outward-rounded. A pointwise
minimum (:func:`lower_envelope`) keeps the curves it is the minimum of and reads its
epsilon and delta from them.

Mechanisms. The trade-off of a mechanism for a pair of inputs (x, x') is
``T(Q[x], Q[x'])``. The "worst pair" is not a single pair in general (the pair whose curve is
lowest differs from alpha to alpha), so with ``pair=None`` the functions return the POINTWISE
MINIMUM over all ordered pairs, exact (crossings included). It is what f-LDP quantifies over:
Q is f-LDP iff that minimum is >= f. It is piecewise linear but need not be convex, i.e. it
need not be the trade-off function of any single pair.

As the sub-namespace ``mechdesign.accounting.tradeoff`` this module also gathers, loaded on
first use, the pessimistic and optimistic curves of belief-function mechanisms
(:mod:`~mechdesign.accounting.belief_tradeoff`) and the test behind each point of a curve
(Neyman-Pearson, and Li et al.'s minimax test: :mod:`~mechdesign.accounting.neyman_pearson`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from .._coerce import as_mechanism
from .._exact import dyadic_integers, float_down, float_up, outward
from .._html import clip, value_view
from .._lazy import lazy_exports
from .._validation import check_delta, check_epsilon, check_int, check_real, check_stochastic
from ..errors import InvalidParameterError
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from .pld import LossAtoms

# This module is also the sub-namespace mechdesign.accounting.tradeoff: its own names and,
# re-exported, the belief-function curves and the tests behind each point of a curve, whose
# modules import this one (so they load on first use; the imports below are for type checkers).
if TYPE_CHECKING:
    from .belief_tradeoff import (
        holds_theorem,
        optimistic_function,
        pessimistic_function,
        tradeoff_optimistic,
        tradeoff_pessimistic,
        tradeoff_sldp,
    )
    from .neyman_pearson import MinimaxTest, NPTest, minimax_test, neyman_pearson_test

_REEXPORTS = {
    "holds_theorem": ".belief_tradeoff",
    "optimistic_function": ".belief_tradeoff",
    "pessimistic_function": ".belief_tradeoff",
    "tradeoff_optimistic": ".belief_tradeoff",
    "tradeoff_pessimistic": ".belief_tradeoff",
    "tradeoff_sldp": ".belief_tradeoff",
    "MinimaxTest": ".neyman_pearson",
    "NPTest": ".neyman_pearson",
    "minimax_test": ".neyman_pearson",
    "neyman_pearson_test": ".neyman_pearson",
}

__all__ = [
    "CONVEXITY_TOL",
    "EXACT_READS",
    "GaussianApproximation",
    "MinimaxTest",
    "NPTest",
    "TradeoffCurve",
    "check_alphas",
    "check_pair",
    "convex_conjugate",
    "curve_from_points",
    "delta_from_tradeoff",
    "epsilon_of_tradeoff",
    "gaussian_approximation",
    "holds_theorem",
    "lower_convex_hull",
    "lower_envelope",
    "minimax_test",
    "neyman_pearson_test",
    "optimistic_function",
    "pessimistic_function",
    "tensor_power",
    "tensor_product",
    "tradeoff_curve",
    "tradeoff_dp",
    "tradeoff_function",
    "tradeoff_function_dp",
    "tradeoff_gaussian",
    "tradeoff_optimistic",
    "tradeoff_pessimistic",
    "tradeoff_sldp",
]
__getattr__, __dir__ = lazy_exports(__name__, _REEXPORTS, package=__package__)

CONVEXITY_TOL = 1e-9
"""Slack when checking that a curve is convex (a genuine trade-off function)."""

_U = 2.0 ** -53  # unit roundoff of round-to-nearest doubles
_ETA = 2.0 ** -1074  # the smallest subnormal
_TINY = 2.0 ** -1022  # the smallest normal double
_COLLINEAR_TOL = 1e-13
_SAME_ALPHA_RTOL = 1e-15
_TIE_TOL = 1e-15


# ============================================================================ the curve object


@dataclass(frozen=True, eq=False)
class TradeoffCurve:
    r"""A piecewise-linear function on [0, 1] given by its breakpoints.

    Attributes
    ----------
    alphas : ndarray
        Strictly increasing breakpoints, ``alphas[0] = 0`` and ``alphas[-1] = 1``.
    betas : ndarray
        The values at the breakpoints (non-increasing, in [0, 1]).
    label : str
        A name for legends and tables.
    exact_points : tuple of four ndarrays, optional
        For a curve computed exactly (:func:`tradeoff_function` of a pair): every
        Neyman-Pearson breakpoint as ``(alphas, betas, powers, rests)``, the first two
        rounded DOWN, ``powers = 1 - beta`` and ``rests = 1 - alpha`` rounded UP, before any
        simplification of the polyline. The readings (:func:`delta_from_tradeoff`,
        :func:`epsilon_of_tradeoff`) use them (:meth:`reading_points`): near 1 a double
        carries ``1 - beta`` only to ``1e-16`` absolute, so a power of 1e-300 would read as
        1.1e-16, and a breakpoint whose beta rounds to its neighbour's would be dropped
        from the polyline with the delta it carries.
    parts : tuple of TradeoffCurve
        For a pointwise minimum (:func:`lower_envelope`), the curves it is the minimum of:
        the readings take the largest of theirs, which is exact for the minimum (its
        conjugate is the maximum of theirs) and never rests on the minimum's own crossings.

    Notes
    -----
    Calling the curve evaluates it by linear interpolation, which is exact: between two
    breakpoints a trade-off function of finite distributions is linear. Both arrays are
    read-only. A pointwise minimum over pairs is a ``TradeoffCurve`` too, but may fail to be
    convex (:attr:`is_convex`), in which case it is not a trade-off function and cannot be
    tensored.
    """

    alphas: np.ndarray
    betas: np.ndarray
    label: str = field(default="")
    exact_points: tuple[np.ndarray, ...] | None = field(default=None, repr=False)
    parts: tuple[TradeoffCurve, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        a = np.array(self.alphas, dtype=float)
        b = np.array(self.betas, dtype=float)
        if a.ndim != 1 or a.shape != b.shape or a.size < 2:
            raise InvalidParameterError(
                f"alphas and betas must be 1-D of the same length >= 2, got shapes "
                f"{a.shape} and {b.shape}")
        if not (np.isfinite(a).all() and np.isfinite(b).all()):
            raise InvalidParameterError("breakpoints must be finite")
        if a[0] != 0.0 or a[-1] != 1.0 or (np.diff(a) <= 0).any():
            raise InvalidParameterError(
                "alphas must increase strictly from 0 to 1, got "
                f"{a[:3].tolist()}...{a[-3:].tolist()}")
        if (b < -1e-12).any() or (b > 1 + 1e-12).any():
            bad = float(b[(b < -1e-12) | (b > 1 + 1e-12)][0])
            raise InvalidParameterError(f"betas must lie in [0, 1], got {bad!r}")
        a.flags.writeable = False
        b.flags.writeable = False
        object.__setattr__(self, "alphas", a)
        object.__setattr__(self, "betas", b)
        if self.exact_points is not None:
            object.__setattr__(self, "exact_points", _check_points(self.exact_points))
        object.__setattr__(self, "parts", tuple(self.parts))

    def __call__(self, alphas: Any) -> np.ndarray | float:
        """The curve at ``alphas`` (array_like in [0, 1]); same shape as ``alphas``."""
        x = check_alphas(alphas)
        return np.interp(x, self.alphas, self.betas)

    def __len__(self) -> int:
        return len(self.alphas)

    def __repr__(self) -> str:
        label = f" {clip(repr(self.label), 80)}" if self.label else ""
        return f"<TradeoffCurve{label} with {len(self)} breakpoints>"

    def _repr_html_(self) -> str:
        """The curve drawn by :func:`~mechdesign.plotting.plot_tradeoff` through its
        breakpoints (a table of the breakpoints when matplotlib is not installed)."""
        from .._html import figure_html, series_table, wrap

        caption = f"TradeoffCurve {self.label}".rstrip()

        def draw() -> Any:
            from ..plotting.tradeoff import plot_tradeoff
            return plot_tradeoff(self, title=clip(caption, 60))

        def table() -> str:
            return series_table([("alpha", self.alphas), ("beta", self.betas)], caption)

        return wrap(figure_html(draw, table, f"{caption}: beta against alpha"))

    @property
    def is_convex(self) -> bool:
        """True when the slopes are non-decreasing (up to :data:`CONVEXITY_TOL`)."""
        with np.errstate(over="ignore", invalid="ignore"):
            slopes = np.diff(self.betas) / np.diff(self.alphas)
        return bool((np.diff(slopes) >= -CONVEXITY_TOL * (1 + np.abs(slopes[1:]))).all())

    def reading_points(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(alphas, betas, powers, rests)`` the readings use: :attr:`exact_points` when
        the curve has them, else its breakpoints with ``1 - beta`` and ``1 - alpha`` rounded
        up from the doubles."""
        if self.exact_points is not None:
            return self.exact_points  # type: ignore[return-value]
        return self.alphas, self.betas, _one_minus_up(self.betas), _one_minus_up(self.alphas)

    def as_rows(self) -> list[tuple[float, float]]:
        """The breakpoints as ``(alpha, beta)`` tuples."""
        return list(zip(self.alphas.tolist(), self.betas.tolist(), strict=True))


def _one_minus_up(x: np.ndarray) -> np.ndarray:
    """``1 - x`` rounded up, for doubles ``x`` in ``[0, 1]``: the rounded difference plus
    its exact error (Fast2Sum of ``1`` and ``-x``: ``1 - x = r + t`` exactly), stepped up
    one double when ``t > 0``."""
    x = np.asarray(x, dtype=float)
    r = 1.0 - x
    t = -x - (r - 1.0)
    return np.where(t > 0, np.nextafter(r, np.inf), r)


def _check_points(points: Any) -> tuple[np.ndarray, ...]:
    """``exact_points`` checked: four 1-D arrays of one length in [0, 1], the last two
    within 1e-12 of 1 minus the first two (read-only copies)."""
    try:
        arrs = tuple(np.array(v, dtype=float) for v in points)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"exact_points must be four arrays (alphas, betas, powers, rests), got {points!r}"
        ) from None
    if len(arrs) != 4 or any(v.ndim != 1 or v.shape != arrs[0].shape for v in arrs):
        raise InvalidParameterError(
            "exact_points must be four 1-D arrays of one length (alphas, betas, powers, rests)")
    a, b, pw, rs = arrs
    for v in arrs:
        if not np.isfinite(v).all() or (v < 0).any() or (v > 1).any():
            raise InvalidParameterError("exact_points must lie in [0, 1]")
        v.flags.writeable = False
    if (np.abs(pw - (1.0 - b)) > 1e-12).any() or (np.abs(rs - (1.0 - a)) > 1e-12).any():
        raise InvalidParameterError(
            "exact_points: powers and rests must be 1 - beta and 1 - alpha")
    return arrs


def check_alphas(alphas: Any) -> np.ndarray:
    """``alphas`` (type I errors) as a float array, each in ``[0, 1]``; otherwise an
    :class:`~mechdesign.errors.InvalidParameterError` naming the first bad value."""
    try:
        x = np.asarray(alphas, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"alphas must be numbers in [0, 1], got {alphas!r}") from None
    bad = ~np.isfinite(x) | (x < 0) | (x > 1)
    if bad.any():
        raise InvalidParameterError(f"alphas must lie in [0, 1], got {float(x[bad].flat[0])!r}")
    return x


def _simplify(alphas: np.ndarray, betas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort, join repeated alphas and drop collinear interior points, never raising the curve.

    Alphas within a few ulps are one breakpoint: the FIRST alpha of the run with its
    smallest beta, a point below and left of every point of the run, so the polyline does
    not rise (a curve through points each below and left of a breakpoint of a convex
    non-increasing curve, consecutive points to consecutive breakpoints, lies below it;
    0 survives, and so does the right end, level with its run's smallest beta). An
    interior point is dropped when the slopes on its two sides agree to
    ``_COLLINEAR_TOL`` AND, in exact rational arithmetic, it lies on or above the chord of
    its neighbours (the last point kept and the next one), so dropping it never raises the
    curve; an infinite slope (a run of width 1e-324) is never collinear.
    """
    order = np.lexsort((betas, alphas))
    a, b = alphas[order], betas[order]
    first = np.ones(len(a), dtype=bool)
    first[1:] = a[1:] - a[:-1] > _SAME_ALPHA_RTOL * a[1:]
    starts = np.flatnonzero(first)
    end = a[-1]
    a, b = a[starts], np.minimum.reduceat(b, starts)
    if a[-1] < end:  # keep the right end (level with the run's smallest beta: not higher)
        a, b = np.append(a, end), np.append(b, b[-1])
    if len(a) <= 2:
        return a, b
    # collinear interior points (candidates by slopes, not cross products: products of
    # 1e-200 masses underflow; then decided exactly)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        slope = np.diff(b) / np.diff(a)
        same = (np.abs(slope[1:] - slope[:-1]) <= _COLLINEAR_TOL * (
            np.abs(slope[1:]) + np.abs(slope[:-1]))) & np.isfinite(slope[1:]) & np.isfinite(
            slope[:-1])
    keep = np.ones(len(a), dtype=bool)
    if not same.any():
        return a, b
    last = 0
    for i in range(1, len(a) - 1):
        if same[i - 1] and _on_or_above(a[last], b[last], a[i], b[i], a[i + 1], b[i + 1]):
            keep[i] = False
        else:
            last = i
    return a[keep], b[keep]


def _on_or_above(a0: float, b0: float, a1: float, b1: float, a2: float, b2: float) -> bool:
    """Whether ``(a1, b1)`` lies on or above the chord from ``(a0, b0)`` to ``(a2, b2)``
    (``a0 < a1 < a2``), decided exactly on the doubles."""
    A0, B0, A1, B1, A2, B2 = (Fraction(float(v)) for v in (a0, b0, a1, b1, a2, b2))
    return (B1 - B0) * (A2 - A0) >= (B2 - B0) * (A1 - A0)


def lower_convex_hull(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lower convex hull of the points ``(a[i], b[i])`` (Andrew's monotone chain), as
    arrays of its vertices in increasing ``a``; the lowest ``b`` is kept for a repeated ``a``.
    A trade-off function is convex, so a curve known at some tests is at most the hull of
    their points, and equal to it when every test is a mixture of those."""
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    keep = np.ones(len(a), dtype=bool)
    keep[1:] = a[1:] != a[:-1]
    ha: list[float] = []
    hb: list[float] = []
    for x, y in zip(a[keep].tolist(), b[keep].tolist(), strict=True):
        while len(ha) >= 2 and ((ha[-1] - ha[-2]) * (y - hb[-2])
                                - (hb[-1] - hb[-2]) * (x - ha[-2])) <= 0:
            ha.pop()
            hb.pop()
        ha.append(x)
        hb.append(y)
    return np.array(ha), np.array(hb)


def curve_from_points(alphas: Any, betas: Any, label: str = "") -> TradeoffCurve:
    """The :class:`TradeoffCurve` through the points ``(alphas[i], betas[i])`` in any order:
    values clipped to ``[0, 1]``, alphas within a few ulps joined (smallest beta kept),
    collinear interior points dropped, and the ends ``alpha = 0`` and ``alpha = 1`` added
    (level with the nearest point) when missing."""
    a = np.clip(np.asarray(alphas, dtype=float), 0.0, 1.0)
    b = np.clip(np.asarray(betas, dtype=float), 0.0, 1.0)
    a, b = _simplify(a, b)
    if a[0] != 0.0 or a[-1] != 1.0:
        if a[0] != 0.0:
            a, b = np.concatenate([[0.0], a]), np.concatenate([[b[0]], b])
        if a[-1] != 1.0:
            a, b = np.concatenate([a, [1.0]]), np.concatenate([b, [b[-1]]])
        a, b = _simplify(a, b)
    return TradeoffCurve(a, b, label)


# ============================================================================ privacy-loss atoms


def _check_distribution(values: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{name} must be a probability vector, got {values!r}") from None
    if arr.ndim != 1:
        raise InvalidParameterError(
            f"{name} must be a 1-D probability vector, got shape {np.shape(arr)}")
    return check_stochastic(arr[None, :], name)[0]


def _atoms_from_pair(P: np.ndarray, Q: np.ndarray) -> LossAtoms:
    """The privacy-loss atoms of ``(P, Q)`` (loss ``ln P - ln Q``) of validated vectors."""
    if P.shape != Q.shape:
        raise InvalidParameterError(
            f"P and Q must have the same length, got {P.shape[0]} and {Q.shape[0]}")
    with np.errstate(divide="ignore"):
        return LossAtoms.from_log_masses(np.log(P), np.log(Q))


def _curve_from_atoms(A: LossAtoms, label: str) -> TradeoffCurve:
    """Neyman-Pearson: reject the atoms of ``(P, Q)`` in increasing order of the loss
    ``ln P/Q`` (the atom ``-inf``, where P = 0, first; ``+inf``, where Q = 0, last)."""
    a, b = np.exp(A.log_masses), np.exp(A.log_masses_prime)
    if A.mass_minus_inf > 0:
        a, b = np.r_[0.0, a], np.r_[A.mass_minus_inf, b]
    if A.mass_inf > 0:
        a, b = np.r_[a, A.mass_inf], np.r_[b, 0.0]
    # extended precision for the running sums (a 1000-term double cumsum drifts by ~1e-13);
    # betas are suffix sums, so small tails keep their full relative precision. At
    # alpha = 0 the type II error is 1 - Q(P = 0) by definition (1 - E_Q[phi] for the test
    # that rejects only where P = 0): a row of Q summing to 1 - 1e-16 made the suffix sum
    # T(0) = 1 - 1e-16, and the curve's epsilon, read exactly, infinite
    a, b = a.astype(np.longdouble), b.astype(np.longdouble)
    alphas = np.concatenate([[0.0], np.cumsum(a).astype(float)])
    betas = np.concatenate([np.cumsum(b[::-1])[::-1].astype(float), [0.0]])
    m = A.mass_minus_inf
    head = 1.0 - m
    if m > 0 and Fraction(head) > 1 - Fraction(m):  # rounded up (1 - 5e-324 is 1.0): down
        head = math.nextafter(head, 0.0)
    betas[0] = head
    alphas[-1] = 1.0  # the total P mass is 1 within 1e-9; pin the end of the domain
    return _convex_curve(alphas, betas, label)


def _atoms_from_curve(f: TradeoffCurve) -> LossAtoms:
    """A pair of finite distributions whose trade-off function is ``f`` (one atom per segment)."""
    if not f.is_convex:
        raise InvalidParameterError(
            f"{f!r} is not convex, so it is not a trade-off function (a pointwise minimum over "
            "pairs?); tensor the pairs' own curves instead")
    if f.betas[-1] > 1e-12:
        raise InvalidParameterError(
            f"a trade-off function vanishes at alpha = 1, got beta(1) = {float(f.betas[-1])!r}")
    if (f.betas > 1.0 - f.alphas + 1e-12).any():
        raise InvalidParameterError("a trade-off function lies below 1 - alpha")
    da = np.diff(f.alphas)
    db = np.maximum(-np.diff(f.betas), 0.0)
    head = max(1.0 - float(f.betas[0]), 0.0)
    with np.errstate(divide="ignore"):
        return LossAtoms.from_log_masses(np.log(np.concatenate([[0.0], da])),
                                         np.log(np.concatenate([[head], db])))


# ============================================================================ pairs and mechanisms


def _pair_index(m: Mechanism | EvidentialMechanism, x: Any, what: str) -> int:
    if isinstance(x, int | np.integer) and not isinstance(x, bool):
        i = int(x)
        if not 0 <= i < m.n_inputs:
            raise InvalidParameterError(f"{what} index {i} is outside 0..{m.n_inputs - 1}")
        return i
    raise InvalidParameterError(f"{what} must be a row index (int), got {x!r}")


def check_pair(m: Mechanism | EvidentialMechanism, pair: Any) -> tuple[int, int]:
    """Validate an ordered pair of input row indices ``(x, x')``."""
    try:
        x, xp = pair
    except (TypeError, ValueError):
        raise InvalidParameterError(f"pair must be two row indices (x, x'), got {pair!r}"
                                    ) from None
    return _pair_index(m, x, "pair[0]"), _pair_index(m, xp, "pair[1]")


def _pair_points(P: np.ndarray, Q: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""The Neyman-Pearson breakpoints of ``T(P / |P|, Q / |Q|)``, each rounded down.

    The stored rows are read as exact dyadic rationals and each is divided by its exact
    sum (a row of doubles may sum to ``1 +- 1e-16``; its excess is spread over its entries
    in proportion, as a sampler drawing from the row would, rather than lost at one end
    of the curve). Outputs are rejected in decreasing order of ``Q[y] / P[y]`` (``P = 0``
    first), the order decided exactly: a float quotient settles it when neighbours differ
    by more than ``16u`` relative and both are normal doubles, otherwise the ratios are
    compared as rationals; outputs of exactly equal ratio make one segment. Breakpoint
    ``j`` is
    ``(P(S_j) / |P|, Q(S_j^c) / |Q|)`` with ``S_j`` the first ``j`` outputs, evaluated in
    integers and rounded DOWN to a double: a point below and left of an exact breakpoint,
    so the polyline through them lies on or below the exact curve. The complements
    ``Q(S_j) / |Q|`` (the power ``1 - beta``) and ``P(S_j^c) / |P|`` (``1 - alpha``) are
    rounded UP from the same integers, so every reading from the curve
    (:func:`delta_from_tradeoff`, :func:`epsilon_of_tradeoff`) is an upper bound at full
    relative precision. Returns alphas, betas, powers, rests.
    """
    live = np.flatnonzero((P > 0) | (Q > 0))
    p, q = P[live], Q[live]
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        r = np.where(p > 0, q / p, np.inf)
    order = np.argsort(-r, kind="stable")
    rs = r[order]
    exact_inf = p[order] == 0
    sure = np.isfinite(rs) & (rs >= _TINY) & (rs < np.finfo(float).max)
    sure |= exact_inf | ((q[order] == 0) & (p[order] > 0))  # ratios inf and 0 are exact
    apart = np.ones(max(len(rs) - 1, 0), dtype=bool)
    if len(rs) > 1:
        apart = (sure[:-1] & sure[1:] & (rs[1:] < rs[:-1] * (1 - 16 * _U))) | (
            exact_inf[:-1] & ~exact_inf[1:])
    if not apart.all():
        order = order.copy()
        cuts = np.r_[0, np.flatnonzero(apart) + 1, len(rs)]
        for s, e in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
            if e - s > 1:
                run = order[s:e].tolist()
                run.sort(key=lambda y: (1, Fraction(0)) if p[y] == 0 else
                         (0, Fraction(float(q[y])) / Fraction(float(p[y]))), reverse=True)
                order[s:e] = run
    (ip, iq), _ = dyadic_integers(np.vstack([p[order], q[order]]))
    tp, tq = sum(ip), sum(iq)
    alphas, betas, powers, rests = [0.0], [1.0], [0.0], [1.0]
    acc_p = acc_q = 0
    for i, (a, b) in enumerate(zip(ip, iq, strict=True)):
        acc_p += a
        acc_q += b
        if i + 1 < len(ip) and b * ip[i + 1] == iq[i + 1] * a:
            continue  # the same likelihood ratio as the next output: one segment
        alphas.append(float_down(Fraction(acc_p, tp)))
        betas.append(float_down(Fraction(tq - acc_q, tq)))
        powers.append(float_up(Fraction(acc_q, tq)))
        rests.append(float_up(Fraction(tp - acc_p, tp)))
    return np.array(alphas), np.array(betas), np.array(powers), np.array(rests)


def _pair_curve(P: np.ndarray, Q: np.ndarray, k: int, label: str) -> TradeoffCurve:
    """``T(P, Q)^{(x) k}``: exact breakpoints rounded down at ``k = 1``
    (:func:`_pair_points`), the privacy-loss atoms' curve otherwise."""
    if k > 1:
        return _curve_from_atoms(_atoms_from_pair(P, Q).self_compose(k), label)
    if P.shape != Q.shape:
        raise InvalidParameterError(
            f"P and Q must have the same length, got {P.shape[0]} and {Q.shape[0]}")
    points = _pair_points(P, Q)
    return replace(_convex_curve(points[0], points[1], label), exact_points=points)


def _convex_curve(alphas: np.ndarray, betas: np.ndarray, label: str) -> TradeoffCurve:
    """The curve through Neyman-Pearson breakpoints; when their rounding left it non-convex
    (a beta of 1 - 2e-18 stored as 1.0), the lower convex hull of its breakpoints, which
    lies on or below it."""
    curve = curve_from_points(alphas, betas, label)
    if not curve.is_convex:
        curve = curve_from_points(*lower_convex_hull(curve.alphas, curve.betas), label)
    return curve


def tradeoff_function(first: Any, second: Any = None, /, *, pair: Any = None,
                      k: int = 1) -> TradeoffCurve:
    r"""The exact trade-off function as breakpoints: ``T(P^k, Q^k)`` or that of a mechanism.

    Two forms:

    * ``tradeoff_function(P, Q, k=1)``: P, Q probability vectors (P is H0).
    * ``tradeoff_function(mechanism, pair=None, k=1)``: with ``pair = (x, x')`` the curve of
      ``T(Q[x]^k, Q[x']^k)``; with ``pair=None`` the pointwise minimum over all ordered pairs
      (see the module notes: it may not be convex). An :class:`EvidentialMechanism` is read
      over its messages (``to_mechanism()``); for the belief-function curves use
      :mod:`mechdesign.accounting.belief_tradeoff`.

    ``k`` self-compositions: the same input is fed to k independent copies, and the curve is
    ``T(P, Q)^{(x) k}``, computed through the privacy-loss atoms (module notes).

    Each row is read as the distribution it stands for: divided by its exact sum (module
    notes, "Precision"); at ``k = 1`` the breakpoints are exact, rounded down, so readings
    from the curve are upper bounds.

    Returns
    -------
    TradeoffCurve

    References
    ----------
    Dong, Roth & Su 2022 (Gaussian differential privacy), Prop. 2.2 and Neyman-Pearson;
    ``docs/accounting.md`` s.5.
    """
    k = check_int(k, "k", 1)
    if isinstance(first, Mechanism | EvidentialMechanism):
        if second is not None:
            raise InvalidParameterError(
                "tradeoff_function(mechanism, ...) takes no second distribution; "
                f"got {second!r} (use pair=(x, x'))")
        mech = as_mechanism(first)
        Qm = mech.matrix
        suffix = f"^(x){k}" if k > 1 else ""
        if pair is not None:
            x, xp = check_pair(mech, pair)
            return _pair_curve(Qm[x], Qm[xp], k, f"T(Q[{x}], Q[{xp}]){suffix}")
        n = mech.n_inputs
        curves: dict[bytes, TradeoffCurve] = {}
        for x in range(n):
            for xp in range(n):
                if x == xp:
                    continue
                key = Qm[x].tobytes() + Qm[xp].tobytes()
                if key not in curves:
                    curves[key] = _pair_curve(Qm[x], Qm[xp], k, "")
        label = f"min over pairs of T(Q[x], Q[x']){suffix}"
        if not curves:  # one input: nothing to tell apart
            return TradeoffCurve(np.array([0.0, 1.0]), np.array([1.0, 0.0]), label)
        return lower_envelope(list(curves.values()), label=label)
    if pair is not None:
        raise InvalidParameterError("pair applies to a mechanism, not to two distributions")
    if second is None:
        raise InvalidParameterError("tradeoff_function(P, Q) needs two distributions")
    P = _check_distribution(first, "P")
    Q = _check_distribution(second, "Q")
    return _pair_curve(P, Q, k, "T(P, Q)" + (f"^(x){k}" if k > 1 else ""))


def tradeoff_curve(first: Any, second: Any = None, third: Any = None, /, *,
                   alphas: Any = None, pair: Any = None, k: int = 1) -> np.ndarray | float:
    r"""The exact trade-off function evaluated at ``alphas``.

    * ``tradeoff_curve(P, Q, alphas, k=1)``: ``T(P^k, Q^k)(alphas)``.
    * ``tradeoff_curve(mechanism, alphas, pair=None, k=1)``: ``T(Q[x]^k, Q[x']^k)(alphas)``
      for ``pair = (x, x')``, or the pointwise minimum over ordered pairs when ``pair=None``.

    ``alphas`` may also be passed by keyword. Same shape as ``alphas``.

    .. math:: T(P, Q)(lpha) = \inf\{1 - E_Q\phi : E_P \phi \le lpha\}

    See :func:`tradeoff_function` for the breakpoints.
    """
    if isinstance(first, Mechanism | EvidentialMechanism):
        if third is not None or (second is not None and alphas is not None):
            raise InvalidParameterError(
                "tradeoff_curve(mechanism, alphas, pair=..., k=...) takes alphas once; got "
                f"{second!r} and {third if third is not None else alphas!r}")
        grid = second if alphas is None else alphas
        if grid is None:
            raise InvalidParameterError("tradeoff_curve(mechanism, alphas) needs alphas")
        return tradeoff_function(first, pair=pair, k=k)(grid)
    if third is not None and alphas is not None:
        raise InvalidParameterError("alphas given twice (positionally and by keyword)")
    grid = third if alphas is None else alphas
    if grid is None:
        raise InvalidParameterError("tradeoff_curve(P, Q, alphas) needs alphas")
    return tradeoff_function(first, second, pair=pair, k=k)(grid)


# ============================================================================ pointwise minimum


def lower_envelope(curves: Sequence[TradeoffCurve | tuple[Any, Any]],
                   label: str = "") -> TradeoffCurve:
    r"""The exact pointwise minimum of piecewise-linear curves, crossings included.

    Each item is a :class:`TradeoffCurve` or raw breakpoints ``(alphas, betas)`` with
    alphas strictly increasing from 0 to 1. Between two consecutive breakpoints of the union
    every curve is linear, so the minimum there is the lower envelope of lines, traced by
    walking from line to line at the crossings. The result is piecewise linear and
    non-increasing, but need not be convex. Its breakpoints are exact up to 1e-15 in beta
    (curves closer than that at a breakpoint count as equal); its readings are not read
    from them: when every item is a :class:`TradeoffCurve`, the result keeps them as
    :attr:`~TradeoffCurve.parts` and :func:`delta_from_tradeoff` and
    :func:`epsilon_of_tradeoff` take the largest of their readings, the exact readings of
    the minimum.
    """
    curves = list(curves)
    if not curves:
        raise InvalidParameterError("lower_envelope needs at least one curve")
    if len(curves) == 1 and isinstance(curves[0], TradeoffCurve):
        return replace(curves[0], label=label or curves[0].label)
    pieces = [(c.alphas, c.betas) if isinstance(c, TradeoffCurve)
              else (np.asarray(c[0], dtype=float), np.asarray(c[1], dtype=float))
              for c in curves]
    U = np.unique(np.concatenate([a for a, _ in pieces]))
    V = np.unique(np.array([np.interp(U, a, b) for a, b in pieces]), axis=0)
    lo = V.min(axis=0)
    S = np.diff(V, axis=1)
    # the line lowest at the left end of each interval (ties, up to rounding: the steepest);
    # when it is also lowest at the right end it is lowest throughout (differences of lines
    # are linear). Values within _TIE_TOL count as equal, so two curves that differ by one
    # rounding (0.9999999999999999 against 1.0 at alpha = 0) do not make a spurious crossing.
    tied = V[:, :-1] <= lo[:-1] + _TIE_TOL
    left = np.argmin(np.where(tied, S, np.inf), axis=0)
    cols = np.arange(len(U) - 1)
    crossing = np.flatnonzero(V[left, cols + 1] > lo[1:] + _TIE_TOL)
    xs, ys = [U], [lo]
    for i in crossing:
        v0, s = V[:, i], S[:, i]
        cur, t = int(left[i]), 0.0
        while True:
            lower = s < s[cur]
            if not lower.any():
                break
            with np.errstate(divide="ignore", invalid="ignore"):
                tc = (v0 - v0[cur]) / (s[cur] - s)
            tc = np.where(lower & (tc > t), tc, np.inf)
            t_next = float(tc.min())
            if t_next >= 1.0:
                break
            hits = np.flatnonzero(tc <= t_next)
            cur = int(hits[np.argmin(s[hits])])
            t = t_next
            xs.append(np.array([U[i] + t * (U[i + 1] - U[i])]))
            ys.append(np.array([v0[cur] + t * s[cur]]))
    c = curve_from_points(np.concatenate(xs), np.concatenate(ys), label)
    if all(isinstance(item, TradeoffCurve) for item in curves):
        parts = [p for item in curves for p in (item.parts or (item,))]
        c = replace(c, parts=tuple(parts))
    return c


# ============================================================================ f_{eps, delta}


def tradeoff_dp(epsilon: float, alphas: Any, delta: float = 0.0) -> np.ndarray | float:
    r"""The trade-off function of (eps, delta)-DP (Dong, Roth & Su 2022, Prop. 2.4):

    .. math:: f_{\varepsilon,\delta}(\alpha) = \max\{0,\ 1 - \delta - e^\varepsilon \alpha,
              \ e^{-\varepsilon}(1 - \delta - \alpha)\}

    (``docs/belief_functions.md`` s.3). Binary randomized response RR(eps) has exactly
    ``f_{eps, 0}``. Same shape as ``alphas``; ``epsilon = inf`` gives ``1 - delta`` at 0 and 0
    elsewhere.
    """
    eps = check_epsilon(epsilon, allow_inf=True)
    d = check_delta(delta)
    x = check_alphas(alphas)
    up = math.exp(eps) if eps < 709 else math.inf
    down = math.exp(-eps)
    with np.errstate(invalid="ignore", over="ignore"):
        first = np.where(x > 0, 1.0 - d - up * x, 1.0 - d)
    return np.maximum(np.maximum(first, down * (1.0 - d - x)), 0.0)


def tradeoff_function_dp(epsilon: float, delta: float = 0.0) -> TradeoffCurve:
    r"""``f_{eps, delta}`` as breakpoints: ``(0, 1 - delta)``, the kink at
    ``alpha* = (1 - delta)/(1 + e^eps)``, then ``(1 - delta, 0)`` and ``(1, 0)``."""
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    kink = (1.0 - d) / (1.0 + math.exp(eps)) if eps < 709 else 0.0
    a = np.array([0.0, kink, 1.0 - d, 1.0])
    b = np.array([1.0 - d, math.exp(-eps) * (1.0 - d - kink), 0.0, 0.0])
    return curve_from_points(a, b, f"f_({eps:g}, {d:g})")


def epsilon_of_tradeoff(f: TradeoffCurve) -> float:
    r"""The smallest eps with ``f >= f_{eps, 0}`` everywhere.

    ``f`` is piecewise linear and ``f_eps`` convex, so it suffices to check the breakpoints:
    ``eps = max_j max(ln((1 - beta_j)/alpha_j), ln((1 - alpha_j)/beta_j))`` (terms with a
    non-positive numerator are skipped; a zero denominator gives ``inf``). For ``T(P, Q)`` this
    is the pure-DP epsilon of the pair in both directions (of the rows each divided by its
    sum: :func:`tradeoff_function`); for a pointwise minimum with
    :attr:`~TradeoffCurve.parts`, the largest of the parts' epsilons.

    Rounded outward, over :meth:`~TradeoffCurve.reading_points`: the numerators are the
    complements ``1 - beta`` and ``1 - alpha`` (rounded up) and the denominators the
    breakpoints (rounded down for an exact pair curve); the largest ratio is
    found in floating point, and every ratio within ``8u`` (relative) of it is evaluated at
    60 digits and rounded up (:func:`mechdesign._exact.outward`), so the value is never below
    the exact one for the stored breakpoints (and, for an exact pair curve, for the pair).
    For the epsilon of a mechanism's matrix as stored use
    :func:`~mechdesign.privacy.measures.epsilon_ldp`.
    """
    if f.parts:
        return max(epsilon_of_tradeoff(p) for p in f.parts)
    alphas, betas, powers, rests = f.reading_points()
    num = np.concatenate([powers, rests])
    den = np.concatenate([alphas, betas])
    live = num > 0
    if not live.any():
        return 0.0
    if (den[live] <= 0).any():
        return math.inf
    with np.errstate(over="ignore"):
        ratio = num[live] / den[live]
    close = ratio >= ratio.max() * (1.0 - 8 * _U)
    best = max(outward(lambda x, d: (x / d).ln(), float(x), float(d))
               for x, d in zip(num[live][close], den[live][close], strict=True))
    return max(best, 0.0)


# ============================================================================ tensor products


def _as_atoms(item: Any) -> LossAtoms:
    if isinstance(item, TradeoffCurve):
        return _atoms_from_curve(item)
    try:
        P, Q = item
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"expected a TradeoffCurve or a pair (P, Q) of distributions, got {item!r}"
        ) from None
    return _atoms_from_pair(_check_distribution(P, "P"), _check_distribution(Q, "Q"))


def tensor_product(*factors: Any) -> TradeoffCurve:
    r"""``f (x) g (x) ...``: the trade-off function of the product pair.

    .. math:: T(P_1, Q_1) \otimes T(P_2, Q_2) = T(P_1 \times P_2, Q_1 \times Q_2)

    Each factor is a convex :class:`TradeoffCurve` (read as the canonical pair with one atom
    per segment) or a pair ``(P, Q)`` of probability vectors (more precise for tiny masses).
    Example: ``tensor_product(tradeoff_function_dp(eps), tradeoff_function_dp(eps))`` is
    ``max{0, 1 - e^{2eps} a, 2/(1+e^eps) - a, e^{-2eps}(1 - a)}`` (Li et al. 2022, Cor 3.6).
    (Dong, Roth & Su 2022, Def. 3.1; ``docs/accounting.md`` s.5.)
    """
    if not factors:
        raise InvalidParameterError("tensor_product needs at least one factor")
    A = _as_atoms(factors[0])
    for item in factors[1:]:
        A = A.compose(_as_atoms(item))
    return _curve_from_atoms(A, " (x) ".join(
        f.label if isinstance(f, TradeoffCurve) and f.label else "T" for f in factors))


def tensor_power(f: Any, k: int) -> TradeoffCurve:
    """``f^{(x) k}`` by repeated squaring of the privacy-loss atoms (see :func:`tensor_product`)."""
    k = check_int(k, "k", 1)
    label = f.label if isinstance(f, TradeoffCurve) and f.label else "T"
    return _curve_from_atoms(_as_atoms(f).self_compose(k), f"{label}^(x){k}")


# ============================================================================ duality


def convex_conjugate(f: TradeoffCurve, y: Any) -> np.ndarray | float:
    r"""``f*(y) = sup_{alpha in [0, 1]} (y alpha - f(alpha))``; for piecewise-linear ``f``
    the sup is attained at a breakpoint. Same shape as ``y``."""
    yy = np.asarray(y, dtype=float)
    vals = yy[..., None] * f.alphas - f.betas
    out = vals.max(axis=-1)
    return float(out) if out.ndim == 0 else out


def delta_from_tradeoff(f: TradeoffCurve, epsilon: Any) -> np.ndarray | float:
    r"""The primal-dual relation of f-DP (Dong, Roth & Su 2022, Prop. 2.12):

    .. math:: \delta(\varepsilon) = 1 + f^*(-e^\varepsilon)
              = \max_j \big(1 - \beta_j - e^\varepsilon \alpha_j\big).

    For ``T(P, Q)`` this is the hockey-stick divergence ``H_{e^eps}(Q || P)`` (of the rows
    each divided by its sum: :func:`tradeoff_function`); for the pointwise minimum over the
    ordered pairs of a mechanism (:attr:`~TradeoffCurve.parts`: the largest of the parts'
    readings) it is :func:`~mechdesign.privacy.measures.delta_ldp` of the row-normalised
    matrix. ``epsilon`` may be an array (may be negative); same shape.

    Rounded outward, for the :meth:`~TradeoffCurve.reading_points` (breakpoints and their
    complements ``1 - beta``, rounded up) read as exact doubles: each term
    ``power_j - e^eps alpha_j`` is evaluated in floating point and raised by its error bound
    (``5u e^eps alpha + u |term|`` with ``u = 2^-53``: numpy's ``exp`` within ``4u`` and the
    product, the difference; plus ``2^-1074`` where the product underflows) and rounded up; for
    up to :data:`EXACT_READS` epsilons the terms that can be the largest are then evaluated
    at 60 digits and rounded up (:func:`mechdesign._exact.outward`), which removes the
    bound's slack where ``1 - beta`` and ``e^eps alpha`` cancel.
    """
    e = np.asarray(epsilon, dtype=float)
    if np.isnan(e).any():
        raise InvalidParameterError(f"epsilon must not be NaN, got {epsilon!r}")
    if f.parts:
        out = np.max([np.asarray(delta_from_tradeoff(p, e)) for p in f.parts], axis=0)
        return float(out) if out.ndim == 0 else out
    alphas, _, powers, _ = f.reading_points()
    with np.errstate(over="ignore"):
        scale = np.exp(e)
    with np.errstate(invalid="ignore", over="ignore"):
        head = powers
        prod = np.where(alphas > 0, scale[..., None] * alphas, 0.0)
        terms = head - prod
        err = (5 * _U * prod + _U * np.abs(terms)
               + np.where((prod > 0) & (prod < _TINY), _ETA, 0.0))
        hi = np.where(np.isfinite(terms), terms + err, terms)
    top = hi.max(axis=-1)
    # a term is at most 1 (betas and alphas are >= 0): the cap is exact
    out = np.clip(np.where(top > 0, np.nextafter(top, np.inf), top), 0.0, 1.0)
    if e.size <= EXACT_READS:
        flat_e, flat_out = e.ravel(), out.ravel()
        lows = (terms - err).reshape(-1, alphas.size)
        highs = hi.reshape(-1, alphas.size)
        for i, eps in enumerate(flat_e.tolist()):
            if flat_out[i] == 0.0 or math.isinf(eps):
                continue
            cand = np.flatnonzero(highs[i] >= lows[i].max())
            flat_out[i] = min(1.0, max(0.0, max(outward(_delta_term, eps, float(alphas[j]),
                                                        float(powers[j])) for j in cand)))
        out = flat_out.reshape(e.shape)
    return float(out) if out.ndim == 0 else out


EXACT_READS = 64
"""Largest number of epsilons for which :func:`delta_from_tradeoff` evaluates its leading
terms at 60 digits (beyond it, the floating-point evaluation raised by its error bound)."""


def _delta_term(eps: Any, a: Any, power: Any) -> Any:
    """``power - e^eps a`` (``power`` at ``a = 0``) at 60 digits."""
    return power - (eps.exp() * a if a > 0 else 0)


# ============================================================================ Gaussian DP


def tradeoff_gaussian(mu: float, alphas: Any) -> np.ndarray | float:
    r"""The Gaussian trade-off function ``G_mu = T(N(0, 1), N(mu, 1))`` (Dong, Roth & Su 2022,
    Def. 2.7):

    .. math:: G_\mu(\alpha) = \Phi(\Phi^{-1}(1 - \alpha) - \mu).

    This is an exact function; it is only as an approximation of a composition (see
    :func:`gaussian_approximation`) that it is approximate.
    """
    m = check_real(mu, "mu")
    if m < 0:
        raise InvalidParameterError(f"mu must be >= 0, got {m!r}")
    x = check_alphas(alphas)
    if math.isinf(m):
        return np.where(x > 0, 0.0, 1.0) if np.ndim(x) else float(x == 0)
    from scipy.stats import norm  # heavy (scipy.stats): imported when used

    return norm.cdf(norm.isf(x) - m)


@value_view
@dataclass(frozen=True)
class GaussianApproximation:
    r"""A CLT APPROXIMATION of a k-fold composition by Gaussian DP ``G_mu``. Not a bound:
    the exact composed curve can lie below ``G_mu`` (compare with :func:`tradeoff_function`).

    Attributes
    ----------
    mu : float
        ``2 k KL / sqrt(k kappa2)`` (Dong, Roth & Su 2022, Thm 3.5), maximised over pairs.
    k : int
        Number of compositions.
    is_approximation : bool
        Always True: a reminder for whoever prints it.
    """

    mu: float
    k: int
    is_approximation: bool = True

    def __call__(self, alphas: Any) -> np.ndarray | float:
        """``G_mu(alphas)``: the APPROXIMATE composed trade-off."""
        return tradeoff_gaussian(self.mu, alphas)


def _gdp_mu(P: np.ndarray, Q: np.ndarray, k: int) -> float:
    live = P > 0
    if ((P > 0) != (Q > 0)).any():  # an infinite loss in either direction
        return math.inf
    l = np.log(P[live]) - np.log(Q[live])  # noqa: E741  (log-likelihood ratio under H0)
    kl = float(P[live] @ l)
    kappa2 = float(P[live] @ (l * l))
    if kappa2 == 0.0:
        return 0.0
    return 2.0 * math.sqrt(k) * kl / math.sqrt(kappa2)


def gaussian_approximation(first: Any, second: Any = None, /, *, k: int = 1,
                           pair: Any = None) -> GaussianApproximation:
    r"""Central-limit APPROXIMATION of ``T(P, Q)^{(x) k}`` by ``G_mu`` (never a bound).

    Dong, Roth & Su 2022, Thm 3.5: with ``kl = KL(P || Q) = -int log|f'|`` and
    ``kappa2 = E_P[ln^2(P/Q)] = int log^2|f'|``, ``f^{(x) k} ~ G_mu`` with

    .. math:: \mu = \frac{2 k\, \mathrm{kl}}{\sqrt{k\, \kappa_2}}.

    For binary RR(eps0): ``mu = 2 sqrt(k) tanh(eps0 / 2)``, which is ``sqrt(k) eps0`` to first
    order (``docs/accounting.md`` s.5). Forms as in
    :func:`tradeoff_function`; for a mechanism with ``pair=None`` the largest mu over ordered
    pairs. ``mu = inf`` when the pair is not mutually absolutely continuous.
    """
    k = check_int(k, "k", 1)
    if isinstance(first, Mechanism | EvidentialMechanism):
        if second is not None:
            raise InvalidParameterError("gaussian_approximation(mechanism) takes no second "
                                        f"distribution; got {second!r}")
        mech = as_mechanism(first)
        Qm = mech.matrix
        if pair is not None:
            x, xp = check_pair(mech, pair)
            return GaussianApproximation(_gdp_mu(Qm[x], Qm[xp], k), k)
        n = mech.n_inputs
        mus = [_gdp_mu(Qm[x], Qm[xp], k) for x in range(n) for xp in range(n) if x != xp]
        return GaussianApproximation(max(mus, default=0.0), k)
    if second is None:
        raise InvalidParameterError("gaussian_approximation(P, Q) needs two distributions")
    P = _check_distribution(first, "P")
    Q = _check_distribution(second, "Q")
    return GaussianApproximation(_gdp_mu(P, Q, k), k)
