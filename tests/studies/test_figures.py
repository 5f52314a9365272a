"""The paper's Figs 1-5 (mechdesign.studies.figures): one figure per file name, drawn from a
comparison, and the grids each figure needs (the drawing itself is checked through the command
in tests/cli/test_compare_warner.py)."""

from __future__ import annotations

import numpy as np
import pytest

from mechdesign.errors import InvalidParameterError
from mechdesign.studies.figure_data import shafer_grid
from mechdesign.studies.figures import (
    FIGURE_FILES,
    figure_1,
    figure_2,
    figure_3,
    make_figures,
)
from mechdesign.studies.warner_comparison import compare_warner


def test_make_figures_gives_one_figure_per_file_in_order():
    pytest.importorskip("matplotlib")
    c = compare_warner(cs=[1.0, 0.8], epsilons=[1.0, 2.0], fig3_n=[10, 100], reps=0)
    figs = make_figures(c)
    assert tuple(figs) == FIGURE_FILES == ("fig1.png", "fig2.png", "fig3.png", "fig4.png",
                                           "fig5.png")
    assert [len(fig.axes) for fig in figs.values()] == [1, 3, 2, 1, 1]  # fig2: a colour bar


def test_figures_refuse_points_from_mixed_grids():
    pytest.importorskip("matplotlib")
    two_n = shafer_grid([1.0], [1.0], 0.3, [10, 100], reps=0)
    with pytest.raises(InvalidParameterError, match=r"one n, got \[10, 100\]"):
        figure_1(two_n, 0.3)
    two_c = shafer_grid([1.0, 0.8], [1.0], 0.3, 10, reps=0)
    with pytest.raises(InvalidParameterError, match=r"one c, got \[0.8, 1.0\]"):
        figure_3(two_c, 0.3)


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
def test_figure_5_at_p_below_half_flags_the_degenerate_readings():
    # nu^W = inf at p <= 1/2: the axis stops at finite values and the labels say so
    pytest.importorskip("matplotlib")
    for p, q in ((0.4, 0.1), (0.5, 0.2)):
        c = compare_warner(p, q, cs=[1.0], epsilons=[1.0], fig3_n=[10], reps=0)
        ax = make_figures(c)["fig5.png"].axes[0]
        low, high = ax.get_ylim()
        assert 0 <= low < high < 10
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert sum("degenerate (p <= 1/2)" in t for t in labels) == 2


def test_figure_2_takes_rng_and_seed_still_works_with_a_warning():
    # the random cloud of Q_2x3 mechanisms: rng=0 by default (the same cloud every time);
    # seed=, the former name, is kept for one release with a warning naming rng
    pytest.importorskip("matplotlib")
    points = shafer_grid([1.0, 0.8], [1.0], 0.3, 10, reps=0)

    def cloud(fig):
        return fig.axes[0].collections[0].get_offsets()

    default = cloud(figure_2(points, 0.3, cloud=50))
    assert np.array_equal(cloud(figure_2(points, 0.3, cloud=50, rng=0)), default)
    new = cloud(figure_2(points, 0.3, cloud=50, rng=3))
    with pytest.warns(DeprecationWarning, match=r"figure_2\(seed=\.\.\.\).*use rng=") as w:
        old = cloud(figure_2(points, 0.3, cloud=50, seed=3))
    assert len(w) == 1
    assert np.array_equal(old, new) and not np.array_equal(new, default)
    gen = cloud(figure_2(points, 0.3, cloud=50, rng=np.random.default_rng(3)))
    assert np.array_equal(gen, new)  # an int seed and a Generator from it: the same cloud
    with pytest.raises(InvalidParameterError, match="rng=1 and seed=2"):
        figure_2(points, 0.3, cloud=50, rng=1, seed=2)
