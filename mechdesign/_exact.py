r"""Rigorous elementary arithmetic shared by the catalog, the measures and the verifier.

Standard library and numpy only (this module sits below the mechanism values, so the catalog
can use it).

* :func:`exp_bracket`: rational ``lo <= e^x <= hi`` from :mod:`decimal` (correctly rounded).
* :func:`log_ratio`: an upper bound on ``ln(hi / lo)`` for float arrays, accurate to a few
  ulps even when ``hi / lo`` is within ``1e-15`` of 1, and for entries from ``2^-1074`` to
  ``1``. Every privacy measure forms its logarithms of ratios here.
* :func:`dyadic_integers`, :func:`event_sums`: stored floats as exact integers over one
  power-of-two denominator, and exact belief / plausibility tables from them.
* :func:`up`, :func:`down`, :func:`up_nonzero`: a computed double moved outwards, the
  rule every returned epsilon and delta follows (``docs/outward_rounding.md``).
* :func:`float_up`, :func:`float_down`: directed rounding of rationals (the catalog rounds
  its entries in the safe direction with them, so a stored matrix is never less private
  than its nominal epsilon).

Why ``log(hi) - log(lo)`` is not enough: for ``hi = lo (1 + t)`` with small t the two logs
are large and nearly equal, each rounded to half an ulp of its own size, and their difference
keeps only ``t / ulp(log lo)`` significant bits: ``ln((1e-300 (1 + 1e-10)) / 1e-300)`` reads
``0.99931e-10`` (6.9e-4 low), and randomized response at ``eps = 1e-12`` with 50 inputs
reads 2.5e-4 low. Near 1 the ratio is instead ``log1p((hi - lo) / lo)``, where ``hi - lo``
is exact (Sterbenz's lemma: ``lo / 2 <= hi <= 2 lo``).
"""

from __future__ import annotations

import math
from decimal import (
    ROUND_CEILING,
    ROUND_FLOOR,
    ROUND_HALF_EVEN,
    Decimal,
    Inexact,
    Overflow,
    Underflow,
    localcontext,
)
from fractions import Fraction
from typing import Any, Literal

import numpy as np

DEFAULT_DIGITS = 60
"""Decimal digits of the bracket of ``e^x``."""

EXP_CLAMP = 1000
r"""Exponents are clamped to ``[-1000, 1000]`` before bracketing ``e^x``. No decision changes:
entries are at most 1 and positive entries at least ``2^-1074 > e^-745``, so every finite
ratio checked here (at most 400 entries summed) is below ``e^760``, every hockey-stick term
``max(0, P - e^x P')`` with ``P' > 0`` is 0 for all ``x >= 760``, and a positive sum of
minima exceeds ``e^-745``."""

LOG_RATIO_ULPS = 4
r"""How many ulps :func:`log_ratio` raises its floating-point evaluation by.

The evaluation error is below 4 ulps of the result: at most three roundings of the ratio's
inputs (``hi``, ``lo`` and ``hi - lo`` when they are themselves rounded sums; one division),
each of relative size ``2^-53``, are carried into the logarithm with a condition number of at
most 1 (``log1p`` on ``[-1/2, 1]``) or, away from 1, as an absolute error below one ulp of a
result of size at least ``ln 2``; the logarithm adds one ulp (numpy's ``log`` and ``log1p``
measure 0.50 and 0.55 ulps against mpmath). So the returned value is at least the exact one
and at most 8 ulps above it."""

_TINY = float(np.finfo(float).tiny)
_HUGE = float(np.finfo(float).max)


# ------------------------------------------------------------------------------ e^x
def exp_bracket(x: Any, digits: int = DEFAULT_DIGITS) -> tuple[Fraction, Fraction]:
    r"""Rational ``lo <= e^x <= hi`` for a rational (or float, read exactly) ``x``.

    ``x`` is clamped to ``[-EXP_CLAMP, EXP_CLAMP]`` (see :data:`EXP_CLAMP`), rounded down and
    up at ``digits + 20`` digits; ``Decimal.exp`` is correctly rounded (half-even) at
    ``digits`` digits, so one unit in the last place either side is a rigorous bracket.
    ``e^0 = 1`` exactly, and the bracket never crosses 1 (``lo >= 1`` for ``x > 0``, ``hi <= 1``
    for ``x < 0``), so a ratio 1 is decided even when ``|x|`` is below ``10^-digits``.
    """
    x = Fraction(x)
    if x == 0:
        return Fraction(1), Fraction(1)
    x = min(max(x, Fraction(-EXP_CLAMP)), Fraction(EXP_CLAMP))
    num, den = Decimal(x.numerator), Decimal(x.denominator)
    with localcontext() as ctx:
        ctx.prec = digits + 20
        ctx.rounding = ROUND_FLOOR
        x_lo = num / den
        ctx.rounding = ROUND_CEILING
        x_hi = num / den
        ctx.prec = digits
        ctx.rounding = ROUND_HALF_EVEN
        lo = ctx.next_minus(x_lo.exp(ctx))
        hi = ctx.next_plus(x_hi.exp(ctx))
    one = Fraction(1)
    if x > 0:
        return max(Fraction(lo), one), Fraction(hi)
    return Fraction(lo), min(Fraction(hi), one)


# ------------------------------------------------------------------------------ ln(hi / lo)
def round_up(values: Any, ulps: int = LOG_RATIO_ULPS) -> np.ndarray:
    """``values`` raised by ``ulps`` units in the last place (finite non-zero entries only:
    0 and +-inf are exact where this module uses them)."""
    v = np.array(values, dtype=float, copy=True)
    move = np.isfinite(v) & (v != 0)
    for _ in range(ulps):
        v = np.where(move, np.nextafter(v, math.inf), v)
    return v


def up(x: float, steps: int = 1) -> float:
    """``x`` moved ``steps`` doubles towards ``+inf`` (an upper bound on a value of which
    ``x`` is within ``steps`` correctly rounded operations)."""
    for _ in range(steps):
        x = math.nextafter(x, math.inf)
    return x


def down(x: float, steps: int = 1) -> float:
    """``x`` moved ``steps`` doubles towards ``-inf``."""
    for _ in range(steps):
        x = math.nextafter(x, -math.inf)
    return x


def up_nonzero(x: Any) -> np.ndarray:
    """Each non-zero entry moved one double up: an upper bound on the exact value of one
    correctly rounded operation (a rounded sum or product is 0 only when the exact one is)."""
    x = np.asarray(x, dtype=float)
    return np.where(x != 0, np.nextafter(x, np.inf), x)


def log_ratio(hi: Any, lo: Any, diff: Any = None) -> np.ndarray:
    r"""An upper bound on ``ln(hi / lo)``, elementwise, within 8 ulps of the exact value.

    .. math:: \ln\frac{hi}{lo} = \begin{cases}
              \operatorname{log1p}\big((hi - lo) / lo\big) & lo/2 \le hi \le 2\,lo \\
              \ln(hi / lo) & \text{otherwise, if } hi/lo \text{ is a normal double} \\
              \ln hi - \ln lo & \text{otherwise (} |\ln(hi/lo)| > 708\text{)}
              \end{cases}

    In the first case ``hi - lo`` is exact (Sterbenz), so nothing cancels; in the second the
    result is at least ``ln 2`` in size, so the ratio's rounding costs at most an ulp; in the
    third both logarithms and the result are about 700 in size. The evaluation is then
    raised by :data:`LOG_RATIO_ULPS` ulps (see there for the error bound), so the value is
    never below the exact one. Exact cases are exact: ``hi == lo`` gives 0, ``c / 0 = inf``,
    ``0 / c = -inf`` and ``0 / 0`` gives NaN (callers ignore those).

    Parameters
    ----------
    hi, lo : array_like
        Non-negative floats, broadcast together. Taken as exact values, unless ``diff`` is
        given.
    diff : array_like, optional
        The correctly rounded value of ``hi - lo`` when ``hi`` and ``lo`` are themselves the
        correctly rounded values of exact quantities (sums; see ``math.fsum``); then the
        bound holds for the exact quantities.

    References
    ----------
    Sterbenz, "Floating-point computation" (1974), Thm 4.3.1: ``y/2 <= x <= 2y`` implies
    ``x - y`` is exact. Goldberg, "What every computer scientist should know about
    floating-point arithmetic" (1991), s.1.4 (cancellation) and Thm 4 (``log1p``).
    """
    hi = np.asarray(hi, dtype=float)
    lo = np.asarray(lo, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        d = hi - lo if diff is None else np.asarray(diff, dtype=float)
        near = (hi <= 2.0 * lo) & (lo <= 2.0 * hi) & (lo > 0)
        r = hi / lo
        normal = (r >= _TINY) & (r <= _HUGE)
        far = np.where(normal, np.log(np.where(normal, r, 1.0)), np.log(hi) - np.log(lo))
        v = np.where(near, np.log1p(np.where(near, d / np.where(near, lo, 1.0), 0.0)), far)
        v = np.where(near & (d == 0), 0.0, v)
    return round_up(v)


# ------------------------------------------------------------------------------ directed rounding
def float_down(value: Fraction) -> float:
    """The largest float ``<= value`` (a rational within the float range)."""
    f = float(value)  # correctly rounded (Fraction.__float__ divides integers exactly)
    return f if Fraction(f) <= value else float(np.nextafter(f, -math.inf))


def float_up(value: Fraction) -> float:
    """The smallest float ``>= value`` (a rational within the float range)."""
    f = float(value)
    return f if Fraction(f) >= value else float(np.nextafter(f, math.inf))


def linear_up(k: int, a: float, b: float = 0.0) -> float:
    """The smallest double at or above ``k a + b`` (exact rational arithmetic on the doubles;
    ``inf`` above the range or when ``a`` or ``b`` is ``inf``)."""
    if math.isinf(a) or math.isinf(b):
        return math.inf
    v = k * Fraction(a) + Fraction(b)
    return math.inf if v > Fraction(np.finfo(float).max) else float_up(v)


# ------------------------------------------------------------------------------ closed forms
OUTWARD_DIGITS = 60
"""Significant digits at which :func:`outward` evaluates a closed form."""

OUTWARD_MARGIN = Decimal("1e-40")
r"""Relative widening :func:`outward` applies before rounding to a double. Every
:mod:`decimal` operation it uses (``+ - * /``, ``sqrt``, ``exp``, ``ln``) is correctly rounded
at :data:`OUTWARD_DIGITS` digits (relative error below ``10^-59``), so a formula of up to a
few hundred operations whose condition number (the amplification of relative input
perturbations, e.g. by cancellation) is below ``10^17`` is within ``10^-40`` of its exact
value; an input double carries at most ``2^-53 ~ 10^-16`` of relative meaning, so no
cancellation between doubles amplifies more than that."""


_SERIES_BELOW = Decimal("1e-12")


def dexpm1(x: Decimal) -> Decimal:
    """``e^x - 1`` in the current :mod:`decimal` context without cancellation (a series
    below ``1e-12``: truncation below ``|x|^6``, i.e. ``1e-60`` relative)."""
    if abs(x) < _SERIES_BELOW:
        return x * (1 + x / 2 * (1 + x / 3 * (1 + x / 4 * (1 + x / 5))))
    return x.exp() - 1


def dlog1p(x: Decimal) -> Decimal:
    """``ln(1 + x)`` in the current :mod:`decimal` context without cancellation (a series
    below ``1e-12``)."""
    if abs(x) < _SERIES_BELOW:
        return x * (1 - x * (Decimal(1) / 2 - x * (Decimal(1) / 3 - x * (Decimal(1) / 4
                                                                             - x / 5))))
    return (1 + x).ln()


def outward(formula: Any, *args: float, direction: Literal["up", "down"] = "up") -> float:
    r"""A closed form evaluated at 60 digits and rounded outward to a double.

    ``formula`` receives the arguments as exact :class:`~decimal.Decimal` values (a double
    converts exactly; ``inf`` stays ``inf``) inside a 60-digit context and returns a
    ``Decimal``; the result, widened by :data:`OUTWARD_MARGIN` (relative) unless every
    operation was exact (decimal's ``Inexact`` flag), is rounded to the
    nearest double at or above it (``direction="up"``) or at or below it. ``0`` and ``inf``
    are returned exactly. This is the one place closed-form epsilons and deltas are rounded:
    a bound printed by mechdesign is never below the exact value for the stored inputs.
    Formulas use :func:`dexpm1` and :func:`dlog1p` where ``e^x - 1`` or ``ln(1 + x)`` would
    cancel.
    """
    with localcontext() as ctx:
        ctx.prec = OUTWARD_DIGITS
        ctx.rounding = ROUND_HALF_EVEN
        ctx.Emin, ctx.Emax = -999_999, 999_999
        ctx.traps[Overflow] = False  # e^(huge) is +inf, as a bound
        ctx.clear_flags()
        value = formula(*(Decimal(float(a)) for a in args))
        if value.is_nan():
            return math.nan
        if value == 0 and ctx.flags[Underflow]:  # a positive (or negative) value below 1e-999999
            tiny = 5e-324 if not value.is_signed() else -5e-324
            return tiny if (tiny > 0) == (direction == "up") else 0.0
        if value.is_infinite() or value == 0:
            return float(value)
        if ctx.flags[Inexact]:
            sign = 1 if direction == "up" else -1
            ctx.prec = OUTWARD_DIGITS + 10
            value = value * (1 + sign * OUTWARD_MARGIN * (1 if value > 0 else -1))
        frac = Fraction(value)
    if abs(frac) > Fraction(_HUGE):
        big = math.inf if frac > 0 else -math.inf
        return big if (frac > 0) == (direction == "up") else (_HUGE if frac > 0 else -_HUGE)
    return float_up(frac) if direction == "up" else float_down(frac)


# ------------------------------------------------------------------------------ exact sums
def dyadic_integers(A: Any) -> tuple[list[list[int]], int]:
    """The stored floats as exact integers over one common denominator ``D`` (a power of
    two, every float being a dyadic rational): ``A[i, j] = N[i][j] / D`` exactly."""
    fr = [[Fraction(float(v)) for v in row] for row in np.asarray(A)]
    D = max(f.denominator for row in fr for f in row)
    return [[f.numerator * (D // f.denominator) for f in row] for row in fr], D


def event_sums(M: list[list[int]], masks: list[int], m: int, kind: Literal["bel", "pl"]
               ) -> list[list[int]]:
    r"""Exact belief or plausibility of every non-empty event, from integer masses.

    .. math:: bel_x(E) = \sum_{B \subseteq E} m_x(B), \qquad
              pl_x(E) = \sum_{B \cap E \ne \emptyset} m_x(B)

    (Li et al. 2022, s.1). ``M[x][j]`` is the mass of focal set j (bitmask ``masks[j]`` over
    the m outputs) in integer units; column ``E - 1`` of the result is event ``E`` (bitmask
    ``1 .. 2^m - 1``). O(k n 2^m) integer additions.
    """
    out: list[list[int]] = [[] for _ in M]
    for E in range(1, 1 << m):
        members = [j for j, b in enumerate(masks)
                   if (b & ~E == 0 if kind == "bel" else b & E)]
        for x, row in enumerate(M):
            out[x].append(sum(row[j] for j in members))
    return out
