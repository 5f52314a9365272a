"""plot_frontier called from Python on a real frontier: title and labels from the problem,
family names in the legend, coinciding curves in distinct styles."""

from __future__ import annotations

import numpy as np
import pytest

from mechdesign.errors import InvalidParameterError
from mechdesign.frontier import comparison_families, frontier
from mechdesign.io import load_problem
from mechdesign.plotting import family_label, frontier_labels, plot_frontier, swept_notion
from tests.paths import PROBLEMS

EPS = np.linspace(0.25, 3.0, 12)


@pytest.fixture(scope="module")
def krr():
    pf = load_problem(PROBLEMS / "krr_hamming.toml")
    f = frontier(pf.problem, EPS)
    return pf, f, comparison_families(pf.problem, EPS)


def test_title_labels_and_curves(krr):
    pf, f, families = krr
    fig = plot_frontier(f, families, problem=pf)
    (ax,) = fig.axes
    assert ax.get_title() == ("optimal expected loss, hamming (3 x 3), prior uniform\n"
                              "LDP, epsilon swept")
    assert ax.get_ylabel() == "expected loss (lower is better)"
    assert ax.get_xlabel() == r"privacy level $\varepsilon$"
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == [
        "designed optimum", "k-ary randomized response", "subset selection"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        line.get_label() for line in lines]
    # k-RR is optimal for Hamming loss (Kairouz, Oh, Viswanath 2016): (k-1)/(e^eps + k - 1)
    np.testing.assert_allclose(lines[0].get_ydata(), 2 / (np.exp(EPS) + 2), rtol=1e-9)
    assert ax.get_yscale() == "log"


def test_coinciding_curves_stay_visible(krr):
    pf, f, families = krr
    # at k = 3 k-RR and subset selection (d = 1) are the same mechanism, and optimal
    np.testing.assert_allclose(families["randomized_response"], f.values, rtol=1e-9)
    np.testing.assert_allclose(families["subset_selection"], f.values, rtol=1e-9)
    lines = plot_frontier(f, families, problem=pf.problem).axes[0].get_lines()
    styles = {(line.get_linestyle(), line.get_marker()) for line in lines}
    assert len(styles) == len(lines) == 3
    # the markers of different curves fall at different epsilons
    marked = []
    for line in lines:
        start, step = line.get_markevery() if isinstance(line.get_markevery(), tuple) \
            else (0, line.get_markevery())
        marked.append(set(range(start, EPS.size, step)))
    assert all(marked) and not set.intersection(*marked)
    assert not marked[0] & marked[1] and not marked[1] & marked[2]


def test_labels_from_a_design_problem(krr):
    pf, _, _ = krr
    title, ylabel = frontier_labels(pf.problem)
    assert title == "optimal expected loss\n" + swept_notion(pf.problem.privacy.describe())
    assert "epsilon swept" in title and "epsilon =" not in title
    assert ylabel == "expected loss (lower is better)"


def test_defaults_without_a_problem_and_overrides(krr):
    _, f, _ = krr
    ax = plot_frontier(f).axes[0]
    assert ax.get_title() == "optimal value across epsilon"
    assert ax.get_ylabel() == "optimal value" and len(ax.get_lines()) == 1
    ax = plot_frontier(f, title="t", ylabel="y").axes[0]
    assert (ax.get_title(), ax.get_ylabel()) == ("t", "y")


def test_families_must_match_the_grid(krr):
    _, f, _ = krr
    with pytest.raises(InvalidParameterError, match="'x' has 2 values"):
        plot_frontier(f, {"x": [1.0, 2.0]})


def test_swept_notion_and_family_label():
    assert swept_notion("approximate LDP, epsilon = 0.5, delta = 0.01") == \
        "approximate LDP, epsilon swept, delta = 0.01"
    assert swept_notion("metric privacy, epsilon = 1e-05 per unit of line") == \
        "metric privacy, epsilon swept per unit of line"
    assert swept_notion("LDP(epsilon=1.0)") == "LDP(epsilon swept)"
    assert family_label("hadamard_response") == "Hadamard response"
    assert family_label("Warner (Q_2x3, c = 1)") == "Warner (Q_2x3, c = 1)"
    assert family_label("new_family") == "new family"
