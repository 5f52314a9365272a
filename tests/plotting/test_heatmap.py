"""plot_heatmap and labelled_matrix called from Python: a mechanism, an evidential mechanism
and a design result."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.io import load_problem
from mechdesign.plotting import labelled_matrix, plot_heatmap
from tests.paths import PROBLEMS


def test_mechanism_heatmap_axes_cells_and_title():
    m = md.randomized_response(3, 1.0)
    fig = plot_heatmap(m)
    assert isinstance(fig, Figure)
    ax, bar = fig.axes  # the heatmap and its colour bar
    assert ax.get_title() == "randomized_response(3, 1)"  # the mechanism's name
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("output y", "input x")
    assert bar.get_ylabel() == "$P(y \\mid x)$"
    # k-RR: e^eps / (e^eps + k - 1) on the diagonal, 1 / (e^eps + k - 1) off it
    diag, off = np.e / (np.e + 2), 1 / (np.e + 2)
    cells = [t.get_text() for t in ax.texts]
    assert len(cells) == 9
    assert cells.count(f"{diag:.3g}") == 3 and cells.count(f"{off:.3g}") == 6
    np.testing.assert_allclose(ax.images[0].get_array(), m.matrix)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1", "2"]


def test_title_overrides_and_large_matrix_is_not_annotated():
    m = md.randomized_response(12, 1.0)  # 144 cells > MAX_ANNOTATED_CELLS
    ax = plot_heatmap(m, "twelve").axes[0]
    assert ax.get_title() == "twelve" and len(ax.texts) == 0


def test_evidential_heatmap_labels_focal_sets():
    m = md.dont_know(0.6, 0.2)  # Q_2x3(p, q), Li et al. 2022 s.3: masses p, q, 1 - p - q
    Q, rows, cols = labelled_matrix(m)
    np.testing.assert_allclose(Q, [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2]])
    assert rows == ["P", "notP"] and cols == ["{Yes}", "{No}", "{Yes,No}"]
    ax, bar = plot_heatmap(m).axes
    assert ax.get_xlabel() == "focal set B" and bar.get_ylabel() == "mass $m_x(B)$"
    assert [t.get_text() for t in ax.get_xticklabels()] == cols


def test_design_result_heatmap_shows_its_mechanism_and_value():
    res = load_problem(PROBLEMS / "krr_hamming.toml").problem.solve()
    fig = plot_heatmap(res)
    ax = fig.axes[0]
    # k-RR is optimal for Hamming loss: value (k - 1) / (e^eps + k - 1) at k = 3, eps = 1
    assert ax.get_title() == f"designed mechanism: value {2 / (np.e + 2):.6g}"
    np.testing.assert_allclose(ax.images[0].get_array(), res.mechanism.matrix)


def test_other_objects_are_refused():
    with pytest.raises(InvalidParameterError, match="Mechanism"):
        plot_heatmap(np.eye(2))
    with pytest.raises(InvalidParameterError, match="Mechanism"):
        labelled_matrix(np.eye(2))
