"""The step of a monotone predicate, found exactly: the search behind calibration
(:mod:`mechdesign.accounting.calibration`).

A target is met at a parameter value when a forward computation (a privacy guarantee at
that value) lies within it; when the guarantee is monotone in the parameter, "meets" is a
step function of it. A real parameter's step is found on the doubles themselves: bisection
on their bit patterns (an integer key increasing with the double) ends at two adjacent
doubles, one meeting the target and one not, in at most 64 forward computations. An
integer parameter's step is found by galloping (1, 2, 4, ...) and binary search. Every
forward value is computed once. Monotonicity is assumed by the search and falsified
where it can be: a few points beyond each end of the step are checked
(:func:`falsify_monotone`).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import Any

from .._html import number
from ..errors import InvalidParameterError

__all__ = [
    "Forward",
    "StepPredicate",
    "double_key",
    "falsify_monotone",
    "from_double_key",
    "largest_int",
    "narrow",
    "not_monotone",
    "points_between",
    "search_real",
    "smallest_int",
]

Forward = Callable[[Any], tuple[float, float, bool]]
"""The forward computation: a parameter value -> ``(epsilon, delta, exact)``."""


class StepPredicate:
    """``x`` meets the target when the forward guarantee at ``x`` is within it; every
    forward value is computed once and kept."""

    def __init__(self, forward: Forward, epsilon: float, delta: float, name: str,
                 question: str) -> None:
        self._forward = forward
        self.epsilon, self.delta = epsilon, delta
        self.name, self.question = name, question
        self.seen: dict[Any, tuple[float, float, bool]] = {}

    def at(self, x: Any) -> tuple[float, float, bool]:
        if x not in self.seen:
            self.seen[x] = self._forward(x)
        return self.seen[x]

    def meets(self, x: Any) -> bool:
        eps, delta, _ = self.at(x)
        return eps <= self.epsilon and delta <= self.delta

    def target(self) -> str:
        return f"the target (epsilon={self.epsilon!r}, delta={self.delta!r})"

    def gives(self, x: Any) -> str:
        eps, delta, _ = self.at(x)
        return f"({number(eps)}, {number(delta)}) at {self.name} = {number(x)}"


def double_key(x: float) -> int:
    """An integer increasing with the double x (its bit pattern, negated for x < 0)."""
    bits = struct.unpack("<q", struct.pack("<d", abs(x)))[0]
    return bits if x >= 0 else -bits


def from_double_key(i: int) -> float:
    x = struct.unpack("<d", struct.pack("<q", abs(i)))[0]
    return x if i >= 0 else -x


def search_real(pred: StepPredicate, lo: float, hi: float, xtol: float
                 ) -> tuple[float, float | None]:
    """The step of the predicate on the doubles of ``[lo, hi]``: ``(good, bad)`` adjacent
    (or within ``xtol``), ``good`` meeting the target; ``(hi, None)`` when both ends do."""
    at_lo, at_hi = pred.meets(lo), pred.meets(hi)
    if at_lo and at_hi:
        return hi, None
    if not (at_lo or at_hi):
        raise InvalidParameterError(
            f"{pred.target()} cannot be met by {pred.question} for any {pred.name} in "
            f"[{number(lo)}, {number(hi)}]: the forward computation gives {pred.gives(lo)} "
            f"and {pred.gives(hi)} (if it is met inside the range, the guarantee is not "
            f"monotone in {pred.name} there: give bounds on which it is)")
    good, bad = (lo, hi) if at_lo else (hi, lo)
    g, b = narrow(pred, double_key(good), double_key(bad), from_double_key,
                   lambda g, b: abs(from_double_key(g) - from_double_key(b)) <= xtol)
    return from_double_key(g), from_double_key(b)


def narrow(pred: StepPredicate, good: int, bad: int, value: Callable[[int], Any],
            close: Callable[[int, int], bool] = lambda g, b: False) -> tuple[int, int]:
    """Bisect the integers between ``good`` (whose ``value`` meets the target) and ``bad``
    (whose does not) until they are adjacent or ``close``: the one search behind the real
    (``value`` maps a double's bit-pattern key back to it) and the integer parameters."""
    while abs(good - bad) > 1 and not close(good, bad):
        mid = (good + bad) // 2
        if pred.meets(value(mid)):
            good = mid
        else:
            bad = mid
    return good, bad


def largest_int(pred: StepPredicate, lo: int, hi: int) -> tuple[int, int | None]:
    """The largest integer of ``[lo, hi]`` meeting the target and the next one (galloping
    1, 2, 4, ... from ``lo``, then binary search); ``(hi, None)`` when ``hi`` meets it."""
    if not pred.meets(lo):
        raise InvalidParameterError(
            f"{pred.target()} cannot be met by {pred.question}, not even at {pred.name} = "
            f"{lo}: the forward computation gives {pred.gives(lo)}")
    good = lo
    while True:
        cand = min(max(2 * good, good + 1), hi)
        if cand == good:
            return good, None
        if not pred.meets(cand):
            bad = cand
            break
        good = cand
    return narrow(pred, good, bad, int)


def smallest_int(pred: StepPredicate, lo: int, hi: int) -> tuple[int, int | None]:
    """The smallest integer of ``[lo, hi]`` meeting the target and the one before it;
    ``(lo, None)`` when ``lo`` meets it."""
    if pred.meets(lo):
        return lo, None
    bad = lo
    while True:
        cand = min(max(2 * bad, bad + 1), hi)
        if pred.meets(cand):
            good = cand
            break
        if cand == hi:
            raise InvalidParameterError(
                f"{pred.target()} cannot be met by {pred.question} with {pred.name} up to "
                f"{hi}: the forward computation gives {pred.gives(hi)}")
        bad = cand
    return narrow(pred, good, bad, int)


def points_between(x: float, end: float) -> list[float]:
    """Three points strictly between ``x`` and ``end``, spread geometrically when both are
    positive (or toward 0 and toward inf), linearly otherwise."""
    if x > 0 and end == 0:
        pts = [x / 2, x / 16, x / 256]
    elif x > 0 and math.isinf(end):
        pts = [2 * x, 16 * x, 256 * x]
    elif x > 0 and end > 0:
        pts = [x * (end / x) ** f for f in (0.25, 0.5, 0.75)]
    elif math.isfinite(end):
        pts = [x + (end - x) * f for f in (0.25, 0.5, 0.75)]
    else:
        pts = []
    return [p for p in pts if min(x, end) < p < max(x, end) and math.isfinite(p)]


def falsify_monotone(pred: StepPredicate, value: float, bad: float | None, lo: float,
                    hi: float, integer: bool) -> None:
    """Falsify the monotonicity the search assumed: points beyond ``value`` (away from the
    step) must meet the target and points beyond ``bad`` must not."""
    if bad is None:
        meet_side, fail_side = points_between(value, lo if value == hi else hi), []
    else:
        far = lo if bad > value else hi
        meet_side = points_between(value, far)
        fail_side = points_between(bad, hi if bad > value else lo)
    if integer:
        meet_side = sorted({round(p) for p in meet_side} - {value, bad})
        fail_side = sorted({round(p) for p in fail_side} - {value, bad})
    for x in meet_side:
        if not pred.meets(x):
            raise not_monotone(pred, value, x)
    for x in fail_side:
        if pred.meets(x):
            raise not_monotone(pred, x, bad)


def not_monotone(pred: StepPredicate, met: Any, missed: Any) -> InvalidParameterError:
    return InvalidParameterError(
        f"{pred.target()} is not monotone in {pred.name} for {pred.question}: it is met at "
        f"{pred.name} = {number(met)} but not at {number(missed)} ({pred.gives(met)}; "
        f"{pred.gives(missed)}); calibration needs a guarantee monotone in the parameter: "
        "give bounds on which it is")
