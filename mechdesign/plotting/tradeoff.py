r"""Plots of hypothesis-testing trade-off curves (beta against alpha).

Object-oriented matplotlib only (no pyplot, no global backend switch): the function returns a
:class:`matplotlib.figure.Figure`, and ``fig.savefig("x.png")`` renders with Agg.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from ..accounting import TradeoffCurve, tradeoff_dp
from ..errors import InvalidParameterError

REFERENCE_POINTS = 401
"""Grid on which the reference curve ``f_eps`` is drawn (it has one kink, drawn exactly too)."""

CURVE_STYLES = ("-", (0, (6, 2)), (0, (3, 1, 1, 1)), (0, (1, 1)))
"""Line styles of the curves, in order, so that curves that coincide (``T^op = T^pe`` for a
mechanism with no "don't know" message) stay visible."""


def plot_tradeoff(curves: TradeoffCurve | Mapping[str, TradeoffCurve] | Sequence[TradeoffCurve],
                  reference_epsilon: float | None = None, *, reference_delta: float = 0.0,
                  title: str = "trade-off function") -> Figure:
    r"""Draw trade-off curves ``beta = T(alpha)`` through their exact breakpoints, with the
    diagonal ``1 - alpha`` (perfect privacy) and, if ``reference_epsilon`` is given and finite,
    ``f_{eps,delta}(alpha) = max{0, 1 - delta - e^eps alpha, e^-eps (1 - delta - alpha)}``
    (``delta = reference_delta``) dashed for reference.

    Parameters
    ----------
    curves : TradeoffCurve, sequence of TradeoffCurve, or mapping of str to TradeoffCurve
        One :class:`~mechdesign.accounting.TradeoffCurve`, a list of them (labelled by their
        ``label``), or a ``{label: curve}`` mapping. Each curve has its own line style
        (:data:`CURVE_STYLES`).
    reference_epsilon : float, optional
        Draw ``f_{eps,delta}`` at this epsilon (skipped when infinite).
    reference_delta : float
    title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    if isinstance(curves, TradeoffCurve):
        items = [(curves.label or "T", curves)]
    elif isinstance(curves, Mapping):
        items = list(curves.items())
    else:
        items = [(getattr(c, "label", "") or f"curve {i}", c) for i, c in enumerate(curves)]
    if not items or not all(isinstance(c, TradeoffCurve) for _, c in items):
        raise InvalidParameterError("plot_tradeoff needs one or more TradeoffCurve objects")
    fig = Figure(figsize=(5.2, 5.0), layout="constrained")
    ax = fig.add_subplot()
    ax.plot([0, 1], [1, 0], color="0.6", ls=":", lw=1, label=r"$1 - \alpha$ (perfect privacy)")
    if reference_epsilon is not None and math.isfinite(reference_epsilon):
        d = reference_delta
        kink = (1.0 - d) / (1.0 + math.exp(reference_epsilon)) if reference_epsilon < 709 \
            else 0.0
        grid = np.union1d(np.linspace(0.0, 1.0, REFERENCE_POINTS), [kink, 1.0 - d])
        label = (rf"$f_\varepsilon$, $\varepsilon = {reference_epsilon:.4g}$" if d == 0 else
                 rf"$f_{{\varepsilon,\delta}}$, $\varepsilon = {reference_epsilon:.4g}$, "
                 rf"$\delta = {d:.2g}$")
        ax.plot(grid, tradeoff_dp(reference_epsilon, grid, d), color="k", ls="--", lw=1.2,
                label=label)
    for i, (label, c) in enumerate(items):
        ax.plot(c.alphas, c.betas, lw=1.8, ls=CURVE_STYLES[i % len(CURVE_STYLES)],
                marker="." if len(c) <= 60 else None, label=label)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel(r"type I error $\alpha$")
    ax.set_ylabel(r"type II error $\beta$")
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig
