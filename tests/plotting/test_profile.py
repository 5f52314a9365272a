"""plot_privacy_profile called from Python: exact and grid profiles, the KOV bound."""

from __future__ import annotations

import numpy as np
import pytest

import mechdesign as md
from mechdesign.accounting import compose, optimal_composition_delta
from mechdesign.errors import InvalidParameterError
from mechdesign.plotting import plot_privacy_profile, profile_epsilons


def test_exact_profile_meets_the_kov_bound_for_binary_rr():
    comp = compose(md.randomized_response(2, 1.0), 10)
    fig = plot_privacy_profile(comp, epsilon0=1.0)
    (ax,) = fig.axes
    assert ax.get_title() == "privacy profile of 10-fold composition"
    exact, kov = ax.get_lines()
    assert exact.get_label() == "delta(eps), exact"
    assert kov.get_label() == "optimal bound for 1-LDP (KOV)"
    # binary randomized response attains the optimal composition bound (Kairouz, Oh,
    # Viswanath 2015, Thm 3.3): the two curves coincide, drawn in distinct styles
    eps = exact.get_xdata()
    visible = eps < 9.5
    np.testing.assert_allclose(exact.get_ydata()[visible], kov.get_ydata()[visible],
                               rtol=1e-9)
    assert exact.get_linestyle() != kov.get_linestyle()
    np.testing.assert_allclose(kov.get_ydata()[3],
                               optimal_composition_delta(1.0, 10, float(eps[3])), rtol=1e-12)
    assert ax.get_yscale() == "log" and len(ax.collections) == 0


def test_profile_epsilons_span_to_the_floor():
    comp = compose(md.randomized_response(2, 1.0), 10)
    eps = profile_epsilons(comp, points=11)
    # pure 10-LDP: delta is 0 beyond eps = 10, so the span ends at 1.1 * 10
    assert eps[0] == 0 and eps.size == 11
    np.testing.assert_allclose(eps[-1], 11.0, rtol=1e-6)


def test_grid_profile_shades_its_bracket_and_takes_a_profile():
    comp = compose(md.randomized_response(3, 0.5), 4, method="grid")
    profile = comp.profile(np.linspace(0, 2, 21))
    fig = plot_privacy_profile(profile, title="grid")
    (ax,) = fig.axes
    assert ax.get_title() == "grid"
    assert [line.get_label() for line in ax.get_lines()] == ["delta(eps), grid (pessimistic)"]
    assert len(ax.collections) == 1  # the bracket
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(),
                               np.maximum(profile.upper, 1e-300))


def test_other_objects_are_refused():
    with pytest.raises(InvalidParameterError, match="Composition"):
        plot_privacy_profile([0.1, 0.2])


def test_marks_label_the_answers_on_the_curve(capsys, tmp_path, monkeypatch):
    # `mechdesign compose ... --delta 1e-6 --out` marks its answer, the exact epsilon of
    # 1000-fold RR(0.1) at delta = 1e-6 (19.3446714479934, tight with the KOV bound), and
    # the title names the mechanism and k
    from mechdesign.cli.main import main
    from tests.spies import spy_on

    drawn = spy_on(monkeypatch, "plot_privacy_profile")
    png = tmp_path / "p.png"
    assert main(["compose", "randomized_response", "k=2", "epsilon=0.1", "--k", "1000",
                 "--delta", "1e-6", "--out", str(png)]) == 0
    ((eps, delta),) = drawn["marks"]
    assert eps == pytest.approx(19.3446714479934, rel=1e-12) and delta == 1e-6
    ax = drawn["figure"].axes[0]
    assert ax.get_title() == "randomized_response(2, 0.1), 1000-fold: privacy profile"
    assert [t.get_text() for t in ax.texts] == ["(19.34, 1e-06)"]
    assert png.read_bytes()[:4] == b"\x89PNG"
