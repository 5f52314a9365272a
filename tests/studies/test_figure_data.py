"""The data of the paper's figures (mechdesign.studies.figure_data): the (c, n, eps) grids of
Figs 1-3 and the simulated Q_lambda path of Fig. 5, checked against the closed forms of
docs/belief_functions.md s.4 (Thm 3.10, Eq. (1)) within four standard errors."""

from __future__ import annotations

import numpy as np
import pytest

from mechdesign.errors import InvalidParameterError
from mechdesign.estimation.dont_know import dont_know_analysis
from mechdesign.estimation.variances import variance_dont_know, variance_warner
from mechdesign.studies.figure_data import figure_4_curves, shafer_grid, simulate_path


def test_shafer_grid_points_and_reproducibility():
    g1 = shafer_grid([1.0, 0.5], [1.0, 2.0], 0.3, [10, 100], reps=50, rng=7)
    g2 = shafer_grid([1.0, 0.5], [1.0, 2.0], 0.3, [10, 100], reps=50, rng=7)
    assert [(pt.c, pt.n, pt.epsilon) for pt in g1] == [
        (c, n, e) for c in (1.0, 0.5) for n in (10, 100) for e in (1.0, 2.0)]
    assert [pt.simulated.mse for pt in g1] == [pt.simulated.mse for pt in g2]
    for pt in g1:
        assert pt.variance == variance_dont_know(pt.p, pt.q, 0.3, pt.n)
        assert pt.variance_approx == variance_dont_know(pt.p, pt.q, 0.3, pt.n, exact=False)
    closed = shafer_grid([0.9], [1.0], 0.3, 100, reps=0)
    assert closed[0].simulated is None


def test_simulated_path_agrees_with_closed_form():
    a = dont_know_analysis(0.6, 0.2, 0.3, 100)
    for pt in simulate_path(a, [0.0, 0.5, 1.0], reps=4000, rng=11):
        assert pt.variance == pytest.approx(
            float(variance_warner(0.6 + pt.lam * 0.2, 0.3, 100)), rel=1e-13)
        assert abs(pt.simulated.mse - pt.variance) <= 4 * pt.simulated.stderr


def test_simulated_path_below_half_skips_the_uninformative_completion():
    # Q_2x3(1/2, 0.2): lambda* = (1 - 2p)/(2d) = 0, Q_0 = warner(1/2) has no estimator
    # (nu_0 = inf); Q_2x3(0.4, 0.1): Q_0 = warner(0.4) flips the answers and is simulated
    ticks = []
    a = dont_know_analysis(0.5, 0.2, 0.3, 100)
    pts = simulate_path(a, [0.0, 0.5, 1.0], reps=400, rng=3, on_point=lambda: ticks.append(1))
    assert [pt.lam for pt in pts] == [0.5, 1.0] and len(ticks) == 3
    b = dont_know_analysis(0.4, 0.1, 0.3, 100)
    (pt,) = simulate_path(b, [0.0], reps=4000, rng=5)
    # eps = |ln(0.4/0.6)| = ln 1.5; Eq. (1) at p = 0.4: (-(0.04) + 1/(4 * 0.04))/100 = 0.0621
    assert pt.epsilon == pytest.approx(np.log(1.5), rel=1e-14)
    assert pt.variance == pytest.approx(0.0621, rel=1e-13)
    assert abs(pt.simulated.mse - pt.variance) <= 4 * pt.simulated.stderr


def test_figure_4_curves_are_the_six_trade_off_functions_of_q_2x3():
    # dont_know(0.6, 0.2) has WLDP epsilon ln 4, so f_eps has its kink at
    # alpha = beta = 1/(1 + 4) and f_2eps at 1/(1 + 16); T^op coincides with f_eps
    # (Li et al. 2022, Thm 3.18; docs/belief_functions.md s.3)
    curves = figure_4_curves(0.6, 0.2)
    assert list(curves) == ["f_eps", "f_2eps", "T^pe", "T^op", "T^pe_2", "T^op_2"]
    np.testing.assert_allclose(curves["f_eps"], [[0, 0.2, 1], [1, 0.2, 0]], atol=1e-15)
    np.testing.assert_allclose(curves["f_2eps"], [[0, 1 / 17, 1], [1, 1 / 17, 0]], atol=1e-15)
    np.testing.assert_allclose(curves["T^op"], curves["f_eps"], atol=1e-15)
    for alpha, beta in curves.values():
        assert alpha[0] == 0.0 and alpha[-1] == 1.0
        assert beta[0] == pytest.approx(1.0) and beta[-1] == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize(("call", "needle"), [
    (lambda: shafer_grid([1.2], [1.0], 0.3, 10, reps=0), "1.2"),
    (lambda: shafer_grid([0.8], [0.0], 0.3, 10, reps=0), "0.0"),
    (lambda: shafer_grid([0.8], [1.0], 0.3, 10, reps=1), "1"),
    (lambda: simulate_path(dont_know_analysis(0.6, 0.2, 0.3, 10), [1.5], reps=2), "1.5"),
])
def test_grid_bad_input(call, needle):
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert needle in str(info.value)


def test_figure_4_at_q_zero_has_no_reference_curve():
    # q = 0: the WLDP epsilon ln((1-q)/q) is inf, so f_eps would be the axes and is left
    # out; the four curves of Q_2x3 remain: T^pe = f_{ln(p/(1-p))} with its kink at
    # (1 - p, 1 - p) (Li et al. 2022 Thm 3.18), T^op = f_inf, the axes (0, 0) -> (1, 0)
    curves = figure_4_curves(0.7, 0.0)
    assert list(curves) == ["T^pe", "T^op", "T^pe_2", "T^op_2"]
    np.testing.assert_allclose(np.column_stack(curves["T^pe"]),
                               [[0, 1], [0.3, 0.3], [1, 0]], atol=1e-15)
    np.testing.assert_array_equal(np.column_stack(curves["T^op"]), [[0, 0], [1, 0]])


# ------------------------------------------------------------------ one name for the random source
def test_rng_is_the_name_and_seed_still_works_with_a_warning():
    # the library names its random source rng (simulate, Mechanism.sample); seed= is the
    # deprecated name, kept for one release: the same draws, one warning naming rng per call
    new = shafer_grid([0.9], [1.0, 2.0], 0.3, 20, reps=30, rng=7)
    with pytest.warns(DeprecationWarning, match=r"shafer_grid\(seed=\.\.\.\).*use rng=") as w:
        old = shafer_grid([0.9], [1.0, 2.0], 0.3, 20, reps=30, seed=7)
    assert len(w) == 1
    assert [p.simulated.mse for p in old] == [p.simulated.mse for p in new]
    a = dont_know_analysis(0.6, 0.2, 0.3, 20)
    new_path = simulate_path(a, [0.0, 1.0], reps=30, rng=3)
    with pytest.warns(DeprecationWarning, match=r"simulate_path\(seed=\.\.\.\).*use rng=") as w:
        old_path = simulate_path(a, [0.0, 1.0], reps=30, seed=3)
    assert len(w) == 1
    assert [p.simulated.mse for p in old_path] == [p.simulated.mse for p in new_path]
    with pytest.raises(InvalidParameterError, match="rng=1 and seed=2"):
        shafer_grid([0.9], [1.0], 0.3, 20, reps=30, rng=1, seed=2)
    with pytest.raises(InvalidParameterError, match="rng=1 and seed=2"):
        simulate_path(a, [0.0], reps=30, rng=1, seed=2)


def test_a_generator_roots_a_reproducible_grid():
    a = shafer_grid([0.9], [1.0], 0.3, 20, reps=30, rng=np.random.default_rng(8))
    b = shafer_grid([0.9], [1.0], 0.3, 20, reps=30, rng=np.random.default_rng(8))
    assert a[0].simulated.mse == b[0].simulated.mse
