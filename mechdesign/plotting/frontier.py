r"""The privacy-utility frontier: the optimal value of a design problem against epsilon, with
the catalog families that fit the problem for comparison.

Object-oriented matplotlib only (no pyplot, no global backend switch): :func:`plot_frontier`
returns a :class:`matplotlib.figure.Figure`, and ``fig.savefig("f.png")`` renders with Agg.

Families often coincide with the optimum (k-ary randomized response is optimal for Hamming
loss, Kairouz et al. 2016; subset selection for frequency estimation, Ye and Barg 2018), so
every curve has its own line style and marker, and the markers of different curves fall at
different epsilons: coinciding curves stay visible.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from ..errors import InvalidParameterError

__all__ = [
    "FAMILY_LABELS",
    "FAMILY_MARKERS",
    "FAMILY_STYLES",
    "MARKERS_PER_CURVE",
    "family_label",
    "frontier_labels",
    "plot_frontier",
    "swept_notion",
]

if TYPE_CHECKING:
    from ..design.problem import DesignProblem
    from ..frontier.sweep import Frontier
    from ..io.problems import ProblemFile

FAMILY_LABELS = {
    "randomized_response": "k-ary randomized response",
    "subset_selection": "subset selection",
    "unary_encoding": "symmetric unary encoding",
    "optimized_unary_encoding": "optimized unary encoding",
    "hadamard_response": "Hadamard response",
    "local_hashing": "optimised local hashing",
}
"""Legend labels of the catalog families of :func:`mechdesign.frontier.comparison_families`
(other keys, such as the "don't know" families' own labels, are shown as given)."""

FAMILY_STYLES = ("--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (8, 2)), (0, (1, 3)))
"""Line styles of the comparison curves, in order (the optimum is solid)."""

FAMILY_MARKERS = ("s", "^", "v", "D", "x", "+", "<", ">")
"""Markers of the comparison curves, in order (the optimum has filled circles)."""

MARKERS_PER_CURVE = 8
"""About this many markers per curve (fewer when many curves share few epsilons), at
epsilons staggered between curves: no two curves have a marker at the same epsilon."""

_EPSILON_SETTING = re.compile(r"epsilon\s*=\s*[-+0-9.eE]+|epsilon\s*=\s*inf")


def family_label(key: str) -> str:
    """The legend label of a comparison family: its :data:`FAMILY_LABELS` entry, else an
    identifier key with underscores read as spaces, else ``key`` as given."""
    if key in FAMILY_LABELS:
        return FAMILY_LABELS[key]
    return key.replace("_", " ") if key.isidentifier() else key


def swept_notion(text: str) -> str:
    """A notion's description with its epsilon setting replaced by ``epsilon swept``: on a
    frontier epsilon is the x axis (``"approximate LDP, epsilon = 0.5, delta = 0.01"`` ->
    ``"approximate LDP, epsilon swept, delta = 0.01"``)."""
    return _EPSILON_SETTING.sub("epsilon swept", text)


def _words(name: str) -> str:
    """``"ExpectedLoss"`` -> ``"expected loss"``."""
    return re.sub(r"(?<!^)(?=[A-Z])", " ", name).lower()


def frontier_labels(problem: DesignProblem | ProblemFile) -> tuple[str, str]:
    """The title and the y label of a frontier of ``problem``: its notion (epsilon swept)
    and its objective, as a problem file describes them, or from the notion's
    ``describe()`` and the objective's type for a :class:`~mechdesign.design.DesignProblem`.
    """
    if hasattr(problem, "problem"):  # a ProblemFile: the file's own descriptions
        design, notion, objective = problem.problem, problem.privacy, problem.objective
        what = _words(type(design.objective).__name__)
    else:
        design, notion = problem, problem.privacy.describe()
        objective = what = _words(type(design.objective).__name__)
    better = "lower" if design.objective.sense == "minimize" else "higher"
    return (f"optimal {objective}\n{swept_notion(notion)}", f"{what} ({better} is better)")


def _curves(families: Mapping[str, Sequence[float]] | None, n: int
            ) -> list[tuple[str, np.ndarray]]:
    out = []
    for key, values in (families or {}).items():
        v = np.asarray(values, dtype=float)
        if v.shape != (n,):
            raise InvalidParameterError(
                f"family {key!r} has {v.size} values; the frontier has {n} epsilons")
        out.append((family_label(key), v))
    return out


def plot_frontier(result: Frontier, families: Mapping[str, Sequence[float]] | None = None, *,
                  problem: DesignProblem | ProblemFile | None = None,
                  title: str | None = None, ylabel: str | None = None) -> Figure:
    r"""Draw the optimal value ``v*(eps)`` of a design problem against epsilon, with catalog
    families for comparison.

    The y axis is logarithmic when every finite value is positive. Each family has its own
    line style (:data:`FAMILY_STYLES`) and marker (:data:`FAMILY_MARKERS`), markers placed
    at epsilons staggered from curve to curve, so a family that coincides with the optimum
    (or with another family) stays visible.

    Parameters
    ----------
    result : Frontier
        From :func:`mechdesign.frontier.frontier` (``epsilons`` and ``values``).
    families : mapping of str to sequence of float, optional
        ``{family: values at result.epsilons}``, as
        :func:`mechdesign.frontier.comparison_families` returns; catalog keys are labelled
        with :func:`family_label`.
    problem : DesignProblem or ProblemFile, optional
        Gives the default title (objective and notion, :func:`frontier_labels`) and y label.
    title, ylabel : str, optional
        Override the defaults (without a problem: ``"optimal value across epsilon"`` and
        ``"optimal value"``).

    Returns
    -------
    matplotlib.figure.Figure
    """
    eps = np.asarray(result.epsilons, dtype=float)
    values = np.asarray(result.values, dtype=float)
    curves = _curves(families, eps.size)
    auto_title, auto_ylabel = (frontier_labels(problem) if problem is not None
                               else ("optimal value across epsilon", "optimal value"))
    fig = Figure(figsize=(6.4, 4.6), layout="constrained")
    ax = fig.add_subplot()
    every = max(len(curves) + 1, eps.size // MARKERS_PER_CURVE)  # one marker slot per curve
    ax.plot(eps, values, "o-", color="black", lw=2.2, ms=4, markevery=every,
            label="designed optimum", zorder=3)
    for i, (label, v) in enumerate(curves):
        ax.plot(eps, v, ls=FAMILY_STYLES[i % len(FAMILY_STYLES)], lw=1.4,
                marker=FAMILY_MARKERS[i % len(FAMILY_MARKERS)], ms=5, mfc="none",
                markevery=(((i + 1) * every) // (len(curves) + 1), every), label=label,
                zorder=4)
    ax.set_xlabel(r"privacy level $\varepsilon$")
    ax.set_ylabel(auto_ylabel if ylabel is None else ylabel)
    finite = values[np.isfinite(values)]
    if finite.size and np.all(finite > 0):
        ax.set_yscale("log")
    text = auto_title if title is None else title
    ax.set_title("\n".join(textwrap.fill(line, 70) for line in text.splitlines()), fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig
