r"""Heatmap of a mechanism: ``Q[x, y] = P(y | x)`` (rows inputs, columns outputs), or the
masses ``m_x(B)`` of an evidential mechanism over its focal sets B.

Object-oriented matplotlib only (no pyplot, no global backend switch): :func:`plot_heatmap`
returns a :class:`matplotlib.figure.Figure`, and ``fig.savefig("q.png")`` renders with Agg.
matplotlib is imported when a figure is drawn, so :func:`labelled_matrix` (the cells and
labels the heatmap shows, which the command line also prints as a table) does not load it.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InvalidParameterError
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism

__all__ = [
    "MAX_ANNOTATED_CELLS",
    "MAX_TICK_LABELS",
    "labelled_matrix",
    "plot_heatmap",
]

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..design.result import DesignResult

MAX_ANNOTATED_CELLS = 100
"""The heatmap writes the probabilities in the cells up to this many cells."""

MAX_TICK_LABELS = 40
"""Rows (columns) are labelled one by one up to this many."""


def _label(value: Any) -> str:
    if isinstance(value, frozenset):
        return "{" + ",".join(sorted(str(u) for u in value)) + "}"
    return str(value)


def labelled_matrix(mechanism: Mechanism | EvidentialMechanism
                    ) -> tuple[np.ndarray, list[str], list[str]]:
    """The matrix a heatmap (or a table) shows, with its row and column labels.

    Parameters
    ----------
    mechanism : Mechanism or EvidentialMechanism
        An ordinary mechanism (``Q[x, y] = P(y | x)``) or an evidential one (masses
        ``m_x(B)``, Li et al. 2022, s.1 of ``docs/belief_functions.md``).

    Returns
    -------
    (matrix, rows, columns)
        ``Q`` (or the masses), the input labels, and the output labels (focal sets written
        ``{a,b}`` in the order of the mechanism's outputs for an evidential mechanism).
    """
    m = mechanism
    if isinstance(m, EvidentialMechanism):
        order = {y: i for i, y in enumerate(m.outputs)}
        cols = ["{" + ",".join(str(y) for y in sorted(B, key=order.__getitem__)) + "}"
                for B in m.focal_sets]
        return m.masses, [_label(x) for x in m.inputs], cols
    if not isinstance(m, Mechanism):
        raise InvalidParameterError(
            f"expected a Mechanism or an EvidentialMechanism, got {type(m).__name__}")
    return m.matrix, [_label(x) for x in m.inputs], [_label(y) for y in m.outputs]


def _as_mechanism(source: Any) -> tuple[Mechanism | EvidentialMechanism, str]:
    """The mechanism to draw and a default title (a design result's value)."""
    if isinstance(source, Mechanism):
        return source, source.name
    if isinstance(source, EvidentialMechanism):
        return source, ""
    mechanism = getattr(source, "mechanism", None)  # a DesignResult raises a DesignError
    if not isinstance(mechanism, Mechanism | EvidentialMechanism):
        raise InvalidParameterError(
            "plot_heatmap needs a Mechanism, an EvidentialMechanism or a DesignResult, got "
            f"{type(source).__name__}")
    value = getattr(source, "value", None)
    return mechanism, "" if value is None else f"designed mechanism: value {value:.6g}"


def plot_heatmap(source: Mechanism | EvidentialMechanism | DesignResult,
                 title: str | None = None) -> Figure:
    r"""Draw ``Q[x, y] = P(y | x)`` (rows inputs x, columns outputs y), or the masses
    ``m_x(B)`` of an evidential mechanism, as a heatmap with a colour bar.

    Cells are annotated with their values up to :data:`MAX_ANNOTATED_CELLS` cells; axes are
    labelled one by one up to :data:`MAX_TICK_LABELS` rows or columns.

    Parameters
    ----------
    source : Mechanism, EvidentialMechanism or DesignResult
        The mechanism, or a design result whose mechanism is drawn (a result without a
        mechanism raises its :class:`~mechdesign.errors.DesignError`).
    title : str, optional
        Default: the mechanism's name, or the design result's value.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    mechanism, default_title = _as_mechanism(source)
    title = default_title if title is None else title
    evidential = isinstance(mechanism, EvidentialMechanism)
    Q, rows, cols = labelled_matrix(mechanism)
    k, n = Q.shape
    width = min(14.0, max(4.5, 0.55 * n + 2.5))
    height = min(10.0, max(3.2, 0.45 * k + 2.0))
    fig = Figure(figsize=(width, height), layout="constrained")
    ax = fig.add_subplot()
    top = float(Q.max())
    im = ax.imshow(Q, cmap="viridis", vmin=0.0, vmax=max(top, 1e-12), aspect="auto",
                   interpolation="nearest")
    fig.colorbar(im, ax=ax, label="mass $m_x(B)$" if evidential else "$P(y \\mid x)$")
    if n <= MAX_TICK_LABELS:
        crowded = n * max(map(len, cols)) > 9 * width
        ax.set_xticks(range(n), cols, rotation=90 if crowded else 0, fontsize=8)
    if k <= MAX_TICK_LABELS:
        ax.set_yticks(range(k), rows, fontsize=8)
    if k * n <= MAX_ANNOTATED_CELLS:
        for x in range(k):
            for y in range(n):
                ax.text(y, x, f"{Q[x, y]:.3g}", ha="center", va="center", fontsize=7,
                        color="black" if Q[x, y] > 0.6 * top else "white")
    ax.set_xlabel("focal set B" if evidential else "output y")
    ax.set_ylabel("input x")
    ax.set_title("\n".join(textwrap.wrap(title, int(9 * width))), fontsize=9)
    return fig
