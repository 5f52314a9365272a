r"""The figures of Li et al. 2022 (Warner versus "don't know"), closed form plus simulation.

Each function returns a :class:`matplotlib.figure.Figure` built with the object-oriented API
(no pyplot, no global backend switch: ``fig.savefig("x.png")`` renders with Agg). Closed-form
curves come from :mod:`mechdesign.estimation.dont_know`, the points and curves to draw from
:mod:`mechdesign.studies.figure_data`; simulated points (MSE over the simulated surveys) are
drawn with error bars of two standard errors of the MSE. Generic plots of library objects
(trade-off curves, ...) are in :mod:`mechdesign.plotting`.

* :func:`figure_1`: eps^S against nu^S for several c = p + q (c = 1 is Warner, black).
* :func:`figure_2`: Warner is the lower envelope of all Q_2x3 trade-offs, at every eps.
* :func:`figure_3`: the effect of the sample size n with 1 - p - q = 0.1.
* :func:`figure_4`: the trade-off functions f_eps, f_2eps, T^op, T^pe of Q_2x3 and their
  2-fold versions (curves from :func:`~mechdesign.studies.figure_data.figure_4_curves`).
* :func:`figure_5`: the Shafer, Walley and optimal trade-offs, the rectangle and Q_lambda.
* :func:`write_figures`: fig1.png ... fig5.png of a
  :class:`~mechdesign.studies.warner_comparison.WarnerComparison` (what
  ``mechdesign compare-warner --out DIR`` writes).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle as RectPatch

from .._validation import NOT_GIVEN, renamed_rng
from ..errors import InvalidParameterError
from ..estimation.dont_know import DontKnowAnalysis, shafer_variance_curve
from ..estimation.simulation import SimulationResult
from ..estimation.variances import variance_dont_know, variance_warner
from .figure_data import PathPoint, ShaferPoint, figure_4_curves
from .warner_comparison import WarnerComparison

__all__ = [
    "CURVE_EPSILONS",
    "ERRORBAR_SE",
    "FIGURE_FILES",
    "figure_1",
    "figure_2",
    "figure_3",
    "figure_4",
    "figure_4_title",
    "figure_5",
    "make_figures",
    "write_figures",
]

CURVE_EPSILONS = np.linspace(0.1, 4.0, 300)
"""Where the closed-form curves are drawn: the paper's (0, 4], from 0.1 where nu is finite."""

ERRORBAR_SE = 2.0
"""Error bars are +- this many standard errors of the simulated MSE."""


def _colors(values: Sequence[float], black_first: bool = True) -> dict[float, tuple]:
    from matplotlib import colormaps

    cmap = colormaps["viridis"]
    vals = list(values)
    out: dict[float, tuple] = {}
    rest = vals[1:] if black_first else vals
    if black_first and vals:
        out[vals[0]] = (0.0, 0.0, 0.0, 1.0)
    for i, v in enumerate(rest):
        out[v] = cmap(0.15 + 0.75 * i / max(len(rest) - 1, 1))
    return out


def _sim_handle(reps: int | None) -> Line2D:
    label = f"simulated MSE ± {ERRORBAR_SE:g} s.e."
    if reps:
        label += f" ({reps} surveys)"
    return Line2D([], [], color="0.3", marker="o", linestyle="none", label=label)


def _errorbar(ax: Axes, x: float, sim: SimulationResult, color: Any,
              scale: float = 1.0) -> None:
    ax.errorbar([x], [sim.mse / scale], yerr=[ERRORBAR_SE * sim.stderr / scale], fmt="o",
                color=color, markersize=4, capsize=2, elinewidth=1)


def _group(points: Sequence[ShaferPoint], key: str) -> dict[float, list[ShaferPoint]]:
    out: dict[float, list[ShaferPoint]] = {}
    for pt in points:
        out.setdefault(getattr(pt, key), []).append(pt)
    return out


def _reps(points: Sequence[ShaferPoint]) -> int | None:
    sims = [pt.simulated for pt in points if pt.simulated is not None]
    return sims[0].reps if sims else None


def figure_1(points: Sequence[ShaferPoint], pi: float, *, exact: bool = True) -> Figure:
    r"""Fig. 1: the Shafer trade-off ``(eps^S, nu^S)`` along ``p + q = c`` for each c.

    ``points`` come from :func:`~mechdesign.studies.figure_data.shafer_grid` with one n;
    each c gets its closed-form curve ``nu^S(eps; c)`` (log scale) and the simulated points.
    The paper: c = 1 (Warner, black) is lowest; smaller c (more "don't know") moves the curve
    further away.
    """
    by_c = _group(points, "c")
    ns = {pt.n for pt in points}
    if len(ns) != 1:
        raise InvalidParameterError(f"figure_1 needs points with one n, got {sorted(ns)}")
    n = ns.pop()
    cs = sorted(by_c, reverse=True)
    colors = _colors(cs, black_first=cs[0] == 1.0)
    fig = Figure(figsize=(6.4, 4.8), layout="constrained")
    ax = fig.add_subplot()
    for c in cs:
        label = "c = 1 (Warner)" if c == 1.0 else f"c = {c:g}"
        ax.plot(CURVE_EPSILONS, shafer_variance_curve(c, CURVE_EPSILONS, pi, n, exact=exact),
                color=colors[c], lw=2.2 if c == 1.0 else 1.4, label=label)
        for pt in by_c[c]:
            if pt.simulated is not None:
                _errorbar(ax, pt.epsilon, pt.simulated, colors[c])
    ax.set_yscale("log")
    ax.set_xlabel(r"privacy loss $\varepsilon^S = \ln(p/q)$")
    ax.set_ylabel(r"estimation error $\nu^S = \mathrm{Var}[\hat\pi \mid N_1+N_2 \neq 0]$")
    ax.set_title(rf"Fig. 1: $Q_{{2\times 3}}$ with $p+q=c$ ($\pi$ = {pi:g}, n = {n})")
    handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=[*handles, _sim_handle(_reps(points))], fontsize=8)
    ax.set_xlim(0, CURVE_EPSILONS[-1] + 0.1)
    ax.grid(alpha=0.3, which="both")
    return fig


def figure_2(points: Sequence[ShaferPoint], pi: float, *, exact: bool = True,
             cloud: int = 1500, rng: int | np.random.Generator | None = 0,
             seed: Any = NOT_GIVEN) -> Figure:
    r"""Fig. 2: Warner's mechanism is optimal among the Q_2x3 mechanisms at every eps.

    Left: ``(eps^S, nu^S)`` of ``cloud`` random Q_2x3(p, q) (p > q, p + q <= 1, eps <= 4;
    closed form, coloured by c) above Warner's curve, with the simulated Warner points.
    Right: ``nu^S(eps; c) / nu_Warner(eps)`` for each c of ``points`` (>= 1, = 1 at c = 1),
    with the simulated ratios. ``nu^S >= nu_W`` because ``A(n, c) >= 1/n`` (Jensen).

    ``rng`` draws the cloud: an int seed (default 0, the same cloud every time), a numpy
    ``Generator`` or None (fresh entropy). ``seed=``, its former name, still works for one
    release with a :class:`DeprecationWarning`.
    """
    if seed is not NOT_GIVEN and isinstance(rng, int) and rng == 0:
        rng = None  # rng left at its default: seed= alone names the source
    rng = np.random.default_rng(renamed_rng(rng, seed, "figure_2"))
    ns = {pt.n for pt in points}
    if len(ns) != 1:
        raise InvalidParameterError(f"figure_2 needs points with one n, got {sorted(ns)}")
    n = ns.pop()
    # uniform on the triangle {q < p, p + q <= 1}: fold a unit-square draw
    p = rng.uniform(0, 1, 4 * cloud)
    q = rng.uniform(0, 1, 4 * cloud)
    e = np.log(p) - np.log(np.maximum(q, 1e-300))
    keep = (q < p) & (p + q <= 1) & (e >= CURVE_EPSILONS[0]) & (e <= CURVE_EPSILONS[-1])
    p, q = p[keep][:cloud], q[keep][:cloud]
    eps = np.log(p) - np.log(q)
    nu = variance_dont_know(p, q, pi, n, exact=exact)
    fig = Figure(figsize=(11, 4.6), layout="constrained")
    ax, bx = fig.subplots(1, 2)
    sc = ax.scatter(eps, nu, c=p + q, cmap="viridis", s=6, alpha=0.6, vmin=0, vmax=1,
                    label=r"$Q_{2\times3}(p, q)$, random")
    fig.colorbar(sc, ax=ax, label=r"$c = p + q$")
    ax.plot(CURVE_EPSILONS, variance_warner(1 / (1 + np.exp(-CURVE_EPSILONS)), pi, n),
            color="k", lw=2.2, label="Warner (c = 1)")
    for pt in points:
        if pt.c == 1.0 and pt.simulated is not None:
            _errorbar(ax, pt.epsilon, pt.simulated, "k")
    ax.set_yscale("log")
    w_curve = variance_warner(1 / (1 + np.exp(-CURVE_EPSILONS)), pi, n)
    ax.set_ylim(0.7 * float(np.min(w_curve)), 5.0 * float(np.max(w_curve)))
    ax.set_xlabel(r"privacy loss $\varepsilon^S = \ln(p/q)$")
    ax.set_ylabel(r"estimation error $\nu^S$")
    ax.set_title(rf"Fig. 2: Warner is the lower envelope ($\pi$ = {pi:g}, n = {n})")
    handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=[*handles, _sim_handle(_reps(points))], fontsize=8)
    ax.grid(alpha=0.3, which="both")

    by_c = _group(points, "c")
    cs = sorted(by_c, reverse=True)
    colors = _colors(cs, black_first=cs[0] == 1.0)
    warner_curve = variance_warner(1 / (1 + np.exp(-CURVE_EPSILONS)), pi, n)
    for c in cs:
        label = "c = 1 (Warner)" if c == 1.0 else f"c = {c:g}"
        ratio = shafer_variance_curve(c, CURVE_EPSILONS, pi, n, exact=exact) / warner_curve
        bx.plot(CURVE_EPSILONS, ratio, color=colors[c], lw=2.2 if c == 1.0 else 1.4,
                label=label)
        for pt in by_c[c]:
            if pt.simulated is not None:
                w = float(variance_warner(1 / (1 + np.exp(-pt.epsilon)), pi, n))
                _errorbar(bx, pt.epsilon, pt.simulated, colors[c], scale=w)
    bx.set_xlabel(r"privacy loss $\varepsilon^S$")
    bx.set_ylabel(r"$\nu^S(\varepsilon; c)\ /\ \nu_{\mathrm{Warner}}(\varepsilon)$")
    bx.set_title("ratio to Warner at the same privacy loss")
    handles, _ = bx.get_legend_handles_labels()
    bx.legend(handles=[*handles, _sim_handle(_reps(points))], fontsize=8, ncol=3,
              loc="upper center", bbox_to_anchor=(0.5, -0.14))
    bx.grid(alpha=0.3)
    return fig


def figure_3(points: Sequence[ShaferPoint], pi: float, *, exact: bool = True) -> Figure:
    r"""Fig. 3: the sample size. ``points`` share one c (the paper: ``1 - p - q = 0.1``) and
    come with several n (the paper: 10, 100, 500, 1000).

    Left, linear scale as in the paper: at large eps every n gives a small error ("similar
    estimations"); at small eps the error falls with n. Right, log scale: the curves are
    parallel, ``nu^S`` is about ``1/n`` times a function of eps.
    """
    cs = {pt.c for pt in points}
    if len(cs) != 1:
        raise InvalidParameterError(f"figure_3 needs points with one c, got {sorted(cs)}")
    c = cs.pop()
    by_n = _group(points, "n")
    ns = sorted(by_n)
    colors = _colors(ns, black_first=False)
    fig = Figure(figsize=(11, 4.6), layout="constrained")
    axes = fig.subplots(1, 2)
    # linear panel: from 0 to the highest curve value at eps = 0.5 or error bar top
    top = 0.0
    for pt in points:
        top = max(top, float(shafer_variance_curve(c, 0.5, pi, pt.n, exact=exact)))
        if pt.simulated is not None:
            top = max(top, pt.simulated.mse + ERRORBAR_SE * pt.simulated.stderr)
    for ax, scale in zip(axes, ("linear", "log"), strict=True):
        for nn in ns:
            curve = shafer_variance_curve(c, CURVE_EPSILONS, pi, nn, exact=exact)
            ax.plot(CURVE_EPSILONS, curve, color=colors[nn], lw=1.6, label=f"n = {nn}")
            for pt in by_n[nn]:
                if pt.simulated is not None:
                    _errorbar(ax, pt.epsilon, pt.simulated, colors[nn])
        ax.set_yscale(scale)
        ax.set_xlabel(r"privacy loss $\varepsilon^S = \ln(p/q)$")
        ax.set_ylabel(r"estimation error $\nu^S$")
        handles, _ = ax.get_legend_handles_labels()
        ax.legend(handles=[*handles, _sim_handle(_reps(points))], fontsize=8)
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylim(0, 1.1 * top)
    axes[0].set_title(rf"Fig. 3: $1-p-q$ = {1 - c:.2g}, $\pi$ = {pi:g} (linear)")
    axes[1].set_title("same, log scale")
    return fig


_FIG4_STYLE = {
    "f_eps": {"color": "black", "ls": "--", "label": r"$f_\varepsilon$"},
    "f_2eps": {"color": "0.45", "ls": "-.", "label": r"$f_{2\varepsilon}$"},
    "T^pe": {"label": r"$T^{pe}$"},
    "T^op": {"label": r"$T^{op}$"},
    "T^pe_2": {"label": r"$T^{pe}_2$ (2-fold)"},
    "T^op_2": {"label": r"$T^{op}_2$ (2-fold)"},
}
"""Fig. 4 styles by label: the two reference curves get distinguishable black/grey dashes."""

_REFERENCE_DASHES = ("--", "-.", (0, (1, 1)), (0, (5, 1, 1, 1, 1, 1)))


def figure_4_title(p: float, q: float, epsilon: float) -> str:
    r"""``Fig. 4: Q_2x3(p, q), eps = ln r`` (``r = e^eps`` shown when eps is finite)."""
    if math.isfinite(epsilon):
        eps = rf"$\varepsilon$ = ln {math.exp(epsilon):.4g} = {epsilon:.4g}"
    else:
        eps = r"$\varepsilon$ = inf"
    return rf"Fig. 4: $Q_{{2\times3}}$({p:g}, {q:g}), {eps}"


def figure_4(curves: Mapping[str, tuple[Sequence[float], Sequence[float]]], *,
             title: str = "Fig. 4: trade-off functions") -> Figure:
    r"""Fig. 4: draw trade-off functions ``beta = T(alpha)`` given as ``{label: (alpha, beta)}``
    (see :func:`~mechdesign.studies.figure_data.figure_4_curves`; :func:`figure_4_title` makes
    the title naming the mechanism and eps).

    The paper's Fig. 4 shows f_eps and f_2eps against T^op and T^pe of Q_2x3 (Thm 3.18,
    Cor 3.19). Reference curves (labels starting with ``f_``) are drawn on top in black and
    grey with different dashes (f_eps dashed, f_2eps dash-dot), since T^op of Q_2x3
    coincides with f_eps; the diagonal ``1 - alpha`` (perfect privacy) is shown too.
    """
    fig = Figure(figsize=(5.4, 5.2), layout="constrained")
    ax = fig.add_subplot()
    ax.plot([0, 1], [1, 0], color="0.6", ls=":", lw=1, label=r"$1 - \alpha$ (perfect privacy)")
    n_ref = 0
    for label, (alpha, beta) in curves.items():
        style = dict(_FIG4_STYLE.get(label, {"label": label}))
        if label.startswith("f_"):
            style.setdefault("color", "black")
            style.setdefault("ls", _REFERENCE_DASHES[n_ref % len(_REFERENCE_DASHES)])
            n_ref += 1
            ax.plot(alpha, beta, lw=1.3, zorder=3, **style)
        else:
            ax.plot(alpha, beta, lw=1.8, ls="-", zorder=2, **style)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel(r"type I error $\alpha$")
    ax.set_ylabel(r"type II error $\beta$")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def figure_5(analysis: DontKnowAnalysis, path: Sequence[PathPoint] = (),
             shafer: SimulationResult | None = None) -> Figure:
    r"""Fig. 5: the trade-offs of Q_2x3(p, q) under Shafer (S), Walley (W) and the optimal
    completion (O), the rectangle ``[eps^O, eps^W] x [nu^O, nu^W]`` and the Q_lambda path from
    ``(eps^O, nu^W)`` (lambda = 0) to ``(eps^W, nu^O)`` (lambda = 1).

    ``path``: simulated Q_lambda points (:func:`~mechdesign.studies.figure_data.simulate_path`);
    ``shafer``: a simulation of the Q_2x3 MLE (drawn at eps^S).

    At ``p <= 1/2`` (``analysis.walley_degenerate``) ``nu^W = inf``: the W and O labels say
    "degenerate", the rectangle reaches the top of the axes, which stops at twice the
    largest finite variance shown (the path leaves it towards ``(0, inf)``).
    """
    a = analysis
    r = a.rectangle
    fig = Figure(figsize=(6.4, 4.8), layout="constrained")
    ax = fig.add_subplot()
    v_high = r.variance_high
    if a.walley_degenerate:  # nu^W = inf: stop the axis above the finite variances
        finite = [v for v in (a.variance_lambda[0], a.variance_shafer, a.variance_optimal,
                              *(pt.simulated.mse + ERRORBAR_SE * pt.simulated.stderr
                                for pt in path),
                              *([shafer.mse + ERRORBAR_SE * shafer.stderr] if shafer else []))
                  if math.isfinite(v)]
        v_high = 2.0 * max(finite)
    ax.add_patch(RectPatch((r.epsilon_low, r.variance_low), r.epsilon_high - r.epsilon_low,
                           v_high - r.variance_low, facecolor=(0.12, 0.47, 0.71, 0.08),
                           edgecolor="tab:blue", lw=1.2, ls="--",
                           label=r"rectangle $[\varepsilon^O,\varepsilon^W]\times[\nu^O,\nu^W]$"))
    ax.plot(a.epsilon_lambda, a.variance_lambda, color="tab:blue", lw=1.8,
            label=r"$Q_\lambda$, $\lambda$ from 0 to 1")
    ax.plot(a.epsilon_shafer, a.variance_shafer, marker="*", ms=14, color="tab:red",
            ls="none", alpha=0.7, zorder=1,
            label=rf"S: ($\varepsilon^S$, $\nu^S$) = ({a.epsilon_shafer:.3g}, "
                  rf"{a.variance_shafer:.3g})")
    flag_w = ", degenerate (p <= 1/2)" if a.walley_degenerate else ""
    flag_o = ", degenerate (p <= 1/2)" if a.optimal_degenerate else ""
    ax.plot(a.epsilon_walley, a.variance_walley, marker="s", ms=9, color="tab:purple",
            ls="none", label=rf"W: ($\varepsilon^W$, $\nu^W$) = ({a.epsilon_walley:.3g}, "
                             rf"{a.variance_walley:.3g}){flag_w}")
    ax.plot(a.epsilon_optimal, a.variance_optimal, marker="D", ms=8, color="tab:green",
            ls="none", label=rf"O: ($\varepsilon^O$, $\nu^O$) = ({a.epsilon_optimal:.3g}, "
                              rf"{a.variance_optimal:.3g}){flag_o}")
    for lam, x, y in ((0.0, a.epsilon_lambda[0], a.variance_lambda[0]),
                      (1.0, a.epsilon_lambda[-1], a.variance_lambda[-1])):
        ax.annotate(rf"$\lambda$ = {lam:g}", (x, y), textcoords="offset points",
                    xytext=(6, 6) if lam == 0 else (-36, 8), fontsize=8, color="tab:blue")
    reps = None
    tops, bottoms = [], []
    sims = [(pt.epsilon, pt.simulated, "tab:blue") for pt in path]
    if shafer is not None:
        sims.append((a.epsilon_shafer, shafer, "darkred"))
    for x, sim, color in sims:
        _errorbar(ax, x, sim, color)
        reps = sim.reps
        tops.append(sim.mse + ERRORBAR_SE * sim.stderr)
        bottoms.append(sim.mse - ERRORBAR_SE * sim.stderr)
    ax.set_xlabel(r"privacy loss $\varepsilon$")
    ax.set_ylabel(r"estimation error $\nu$ (variance of $\hat\pi$)")
    ax.set_title(rf"Fig. 5: $Q_{{2\times3}}$(p = {a.p:g}, q = {a.q:g}), $\pi$ = {a.pi:g}, "
                 rf"n = {a.n}")
    handles, _ = ax.get_legend_handles_labels()
    if path or shafer is not None:
        handles.append(_sim_handle(reps))
    ax.legend(handles=handles, fontsize=8)
    ax.grid(alpha=0.3)
    pad_e = 0.08 * (r.epsilon_high - r.epsilon_low)
    pad_v = 0.08 * (v_high - r.variance_low)
    lo_e = min(r.epsilon_low, a.epsilon_shafer) - pad_e
    hi_e = max(r.epsilon_high, a.epsilon_shafer) + pad_e
    lo_v = min(r.variance_low, a.variance_shafer, *bottoms) - pad_v
    hi_v = v_high if a.walley_degenerate else max(v_high, a.variance_shafer, *tops) + pad_v
    if np.isfinite([lo_e, hi_e, lo_v, hi_v]).all():
        ax.set_xlim(lo_e, hi_e)
        ax.set_ylim(max(lo_v, 0.0), hi_v)
    return fig


FIGURE_FILES = ("fig1.png", "fig2.png", "fig3.png", "fig4.png", "fig5.png")
"""The files :func:`write_figures` writes, in order."""


def make_figures(comparison: WarnerComparison) -> dict[str, Figure]:
    r"""The paper's Figs 1-5 of a comparison, by file name (:data:`FIGURE_FILES`, in order).

    ``comparison`` comes from
    :func:`~mechdesign.studies.warner_comparison.compare_warner`: Figs 1-2 from its
    (c, eps) grid, Fig. 3 from its (n, eps) grid, Fig. 4 from the trade-off curves of
    Q_2x3(p, q) at its WLDP epsilon, Fig. 5 from its analysis, Q_lambda path and Shafer
    simulation. Nothing is written (``mechdesign compare-warner`` writes them atomically).
    """
    c = comparison
    figs = (figure_1(c.fig12, c.pi), figure_2(c.fig12, c.pi), figure_3(c.fig3, c.pi),
            figure_4(figure_4_curves(c.p, c.q),
                     title=figure_4_title(c.p, c.q, c.analysis.epsilon_walley)),
            figure_5(c.analysis, c.path, c.shafer_simulated))
    return dict(zip(FIGURE_FILES, figs, strict=True))


def write_figures(comparison: WarnerComparison, out_dir: str | Path, *, dpi: int = 120
                  ) -> list[Path]:
    r"""Write the paper's Figs 1-5 of a comparison (:func:`make_figures`) as ``fig1.png``
    ... ``fig5.png``. ``out_dir`` is created if needed. Returns the paths written, in the
    order of :data:`FIGURE_FILES`.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, fig in make_figures(comparison).items():
        path = out / name
        fig.savefig(path, dpi=dpi)
        written.append(path)
    return written
