"""Reproductions of the source papers' experiments (figure grids, comparison tables and the
figures themselves). Not part of the top-level namespace: ``import mechdesign.studies``.

Li et al. 2022 (Warner versus "don't know"): :mod:`.figure_data` (the settings and the points
of Figs 1-5), :mod:`.warner_comparison` (everything ``mechdesign compare-warner`` reports),
:mod:`.figures` (Figs 1-5 drawn with matplotlib, loaded only when a figure is drawn).
"""

from .._lazy import lazy_exports

_NAMES = {
    # the data of the figures
    "figure_4_curves": ".figure_data",
    "PathPoint": ".figure_data",
    "shafer_grid": ".figure_data",
    "ShaferPoint": ".figure_data",
    "simulate_path": ".figure_data",
    # the comparison behind compare-warner
    "compare_warner": ".warner_comparison",
    "ComparisonRow": ".warner_comparison",
    "WarnerComparison": ".warner_comparison",
    # the figures
    "figure_1": ".figures",
    "figure_2": ".figures",
    "figure_3": ".figures",
    "figure_4": ".figures",
    "figure_4_title": ".figures",
    "figure_5": ".figures",
    "make_figures": ".figures",
    "write_figures": ".figures",
}

__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
__all__ = sorted(_NAMES)
