r"""Plots of hypothesis-testing trade-off curves (beta against alpha).

Object-oriented matplotlib only (no pyplot, no global backend switch): the function returns a
:class:`matplotlib.figure.Figure`, and ``fig.savefig("x.png")`` renders with Agg.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ..accounting import TradeoffCurve, tradeoff_dp, tradeoff_gaussian
from ..errors import InvalidParameterError

__all__ = [
    "CURVE_STYLES",
    "LOG_ALPHA_MIN",
    "REFERENCE_POINTS",
    "plot_tradeoff",
]

REFERENCE_POINTS = 401
"""Grid on which the reference curve ``f_eps`` is drawn (it has one kink, drawn exactly too)."""

CURVE_STYLES = ("-", (0, (6, 2)), (0, (3, 1, 1, 1)), (0, (1, 1)))
"""Line styles of the curves, in order, so that curves that coincide (``T^op = T^pe`` for a
mechanism with no "don't know" message) stay visible."""


def plot_tradeoff(curves: TradeoffCurve | Mapping[str, TradeoffCurve] | Sequence[TradeoffCurve],
                  reference_epsilon: float | None = None, *, reference_delta: float = 0.0,
                  title: str = "trade-off function", gaussian_mu: float | None = None,
                  log_panel: bool = False) -> Figure:
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
    gaussian_mu : float, optional
        Also draw ``G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu)`` (thin, dash-dotted, on top
        of the curves), the central-limit APPROXIMATION of a k-fold composition
        (:func:`~mechdesign.accounting.gaussian_approximation`; labelled as such: not a
        bound).
    log_panel : bool
        Add a second panel: the power ``1 - beta`` against ``alpha`` on log-log axes
        (``1e-12 .. 1``), where ``f_{eps,delta}`` is the line ``delta + e^eps alpha``. A
        composed curve meets its tight ``f_{eps,delta}`` where its slope is ``-e^eps``, at a
        tiny alpha and a beta near 1 that the linear panel squeezes onto the axes (1000-fold
        RR(0.05) at delta = 1e-6: eps = 8.28); the log-log panel shows it.

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
    fig = Figure(figsize=(10.0, 5.0) if log_panel else (5.2, 5.0), layout="constrained")
    axes = fig.subplots(1, 2) if log_panel else [fig.add_subplot()]
    for i, ax in enumerate(axes):
        log = i == 1
        _draw(ax, items, reference_epsilon, reference_delta, gaussian_mu, log)
        ax.grid(alpha=0.3)
        if log:
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(LOG_ALPHA_MIN, 1)
            ax.set_ylim(LOG_ALPHA_MIN, 1)
            ax.set_xlabel(r"type I error $\alpha$ (log scale)")
            ax.set_ylabel(r"power $1 - \beta$ (log scale)")
            ax.set_title(r"the same as power $1 - \beta$, log-log")
        else:
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1)
            ax.set_aspect("equal")
            ax.set_xlabel(r"type I error $\alpha$")
            ax.set_ylabel(r"type II error $\beta$")
            ax.set_title(title)
            ax.legend(fontsize=8)
    return fig


LOG_ALPHA_MIN = 1e-12
"""Left end of the log panel's alpha axis."""


def _draw(ax: Any, items: list[tuple[str, TradeoffCurve]], reference_epsilon: float | None,
          d: float, gaussian_mu: float | None, log: bool) -> None:
    """The diagonal, the references and the curves on one axes: ``beta`` against ``alpha``,
    or (``log``) the power ``1 - beta`` against ``alpha`` on log-log axes, where
    ``f_{eps,delta}`` is the line ``delta + e^eps alpha`` and a curve touching it shows."""
    if log:
        base = np.logspace(math.log10(LOG_ALPHA_MIN), 0.0, REFERENCE_POINTS)
    else:
        base = np.linspace(0.0, 1.0, REFERENCE_POINTS)

    def plot(x: np.ndarray, beta: Any, **style: Any) -> None:
        ax.plot(x, 1.0 - np.asarray(beta) if log else beta, **style)

    plot(base, 1.0 - base, color="0.6", ls=":", lw=1, label=r"$1 - \alpha$ (perfect privacy)")
    if reference_epsilon is not None and math.isfinite(reference_epsilon):
        kink = (1.0 - d) / (1.0 + math.exp(reference_epsilon)) if reference_epsilon < 709 \
            else 0.0
        grid = np.union1d(base, [kink, 1.0 - d])
        if log:
            grid = grid[grid > 0]
        label = (rf"$f_\varepsilon$, $\varepsilon = {reference_epsilon:.4g}$" if d == 0 else
                 rf"$f_{{\varepsilon,\delta}}$, $\varepsilon = {reference_epsilon:.4g}$, "
                 rf"$\delta = {d:.2g}$")
        plot(grid, tradeoff_dp(reference_epsilon, grid, d), color="k", ls="--", lw=1.2,
             label=label)
    for i, (label, c) in enumerate(items):
        a, b = (c.alphas, c.betas)
        if log:  # linear pieces are curves on log axes: evaluate them on the grid too
            a = np.union1d(a[a > 0], base)
            b = np.asarray(c(a))
        plot(a, b, lw=1.8, ls=CURVE_STYLES[i % len(CURVE_STYLES)], color=f"C{i}",
             marker="." if len(c) <= 60 else None, label=label)
    if gaussian_mu is not None and math.isfinite(gaussian_mu):  # thin, on top of the curve
        plot(base, tradeoff_gaussian(gaussian_mu, base), color="k", ls="-.", lw=0.9,
             label=rf"$G_\mu$, $\mu = {gaussian_mu:.4g}$ (CLT approximation, not a bound)")
