"""Reproductions of the source papers' experiments (figure grids and comparison tables).
Not part of the top-level namespace: ``import mechdesign.studies``.
"""

from .._lazy import lazy_exports

_NAMES = {
    "compare_warner": ".warner_comparison",
    "ComparisonRow": ".warner_comparison",
    "WarnerComparison": ".warner_comparison",
}

__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
__all__ = sorted(_NAMES)
