"""Figures (matplotlib, object-oriented API: every function returns a ``Figure``; saving a
PNG uses the Agg renderer and never touches pyplot's global state)."""

from .warner import figure_1, figure_2, figure_3, figure_4, figure_5, make_figures, write_figures

__all__ = ["figure_1", "figure_2", "figure_3", "figure_4", "figure_5", "make_figures",
           "write_figures"]
