"""Shared terminal formatting for the commands."""

from __future__ import annotations

import math


def fmt(x: float) -> str:
    """A number with 10 significant digits; ``inf`` for non-private."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.10g}"


def print_table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> None:
    """Left-aligned columns under a header and a rule."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
