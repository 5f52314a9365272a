"""Figures. matplotlib's object-oriented API: every function returns a ``Figure``, which
``fig.savefig(path)`` renders with Agg; pyplot's global state is never touched. matplotlib
loads when the first figure is drawn.

* :func:`plot_heatmap`: a mechanism's matrix (or a design result's mechanism);
* :func:`plot_frontier`: the optimal value of a design problem against epsilon, with the
  catalog families;
* :func:`plot_privacy_profile`: ``delta(eps)`` of a composition, with the optimal bound;
* :func:`plot_tradeoff`: hypothesis-testing trade-off curves with ``f_{eps,delta}``;
* :func:`figure_1` ... :func:`figure_5`, :func:`make_figures`, :func:`write_figures`: the
  figures of Li et al. 2022 (Warner versus "don't know"), drawn in
  :mod:`mechdesign.studies.figures`.
"""

from .._lazy import lazy_exports

_NAMES = {
    "family_label": ".frontier",
    "frontier_labels": ".frontier",
    "labelled_matrix": ".heatmap",
    "plot_frontier": ".frontier",
    "plot_heatmap": ".heatmap",
    "plot_privacy_profile": ".profile",
    "plot_tradeoff": ".tradeoff",
    "profile_epsilons": ".profile",
    "swept_notion": ".frontier",
    # the paper's figures
    "figure_1": "..studies.figures",
    "figure_2": "..studies.figures",
    "figure_3": "..studies.figures",
    "figure_4": "..studies.figures",
    "figure_4_title": "..studies.figures",
    "figure_5": "..studies.figures",
    "make_figures": "..studies.figures",
    "write_figures": "..studies.figures",
}

__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
__all__ = sorted(_NAMES)
