"""Small algebraic helpers shared by the analyzers."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def power_by_squaring(base: T, k: int, combine: Callable[[T, T], T]) -> T:
    """``base`` combined with itself ``k >= 1`` times, in O(log k) combinations (``combine``
    must be associative: a convolution of privacy-loss distributions, for instance)."""
    result: T | None = None
    while True:
        if k & 1:
            result = base if result is None else combine(result, base)
        k >>= 1
        if not k:
            break
        base = combine(base, base)
    assert result is not None
    return result
