"""plot_tradeoff called from Python: curves, the reference f_eps, coinciding curves."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechdesign as md
from mechdesign.accounting import optimistic_function, pessimistic_function, tradeoff_function
from mechdesign.errors import InvalidParameterError
from mechdesign.plotting import plot_tradeoff


def test_curve_reference_and_diagonal():
    curve = tradeoff_function(md.warner(0.75))
    fig = plot_tradeoff(curve, math.log(3), title="Warner")
    (ax,) = fig.axes
    assert ax.get_title() == "Warner"
    labels = [line.get_label() for line in ax.get_lines()]
    assert len(labels) == 3 and labels[0].startswith("$1 - \\alpha$")
    assert labels[1].startswith("$f_\\varepsilon$") and labels[2] == curve.label
    # Warner(p) is ln(p/(1-p))-DP and attains the privacy region of (eps, 0)-DP (Kairouz,
    # Oh, Viswanath 2015): its curve is f_eps, breakpoints (0, 1), (1 - p, 1 - p), (1, 0)
    drawn = ax.get_lines()[2]
    np.testing.assert_allclose(drawn.get_xdata(), [0, 0.25, 1])
    np.testing.assert_allclose(drawn.get_ydata(), [1, 0.25, 0])


def test_coinciding_curves_keep_distinct_styles():
    # Q_2x3 with no "don't know" mass is Warner: T^pe = T^op (Li et al. 2022, s.4)
    m = md.dont_know(0.75, 0.25)
    pe, op = pessimistic_function(m), optimistic_function(m)
    np.testing.assert_array_equal(pe.betas, op.betas)
    ax = plot_tradeoff({"T^pe": pe, "T^op": op}).axes[0]
    a, b = ax.get_lines()[1:]
    assert (a.get_label(), b.get_label()) == ("T^pe", "T^op")
    assert a.get_linestyle() != b.get_linestyle()


def test_not_a_curve_is_refused():
    with pytest.raises(InvalidParameterError, match="TradeoffCurve"):
        plot_tradeoff([np.array([0.0, 1.0])])


def test_log_panel_shows_the_curve_touching_f_eps_delta():
    # 1000-fold RR(0.05) at delta = 1e-6: the exact composed epsilon eps* makes
    # f_{eps*, delta} a supporting curve of T (Dong, Roth & Su 2022, Prop. 2.5), so in the
    # log-log panel of the power 1 - beta the curve lies under the line delta + e^eps alpha
    # and comes within rounding of it somewhere
    from mechdesign.accounting import epsilon_composed, gaussian_approximation, tradeoff_dp

    rr = md.randomized_response(2, 0.05)
    curve = tradeoff_function(rr, k=1000)
    eps = epsilon_composed(rr, 1e-6, 1000).epsilon
    mu = gaussian_approximation(rr, k=1000).mu
    fig = plot_tradeoff(curve, eps, reference_delta=1e-6, gaussian_mu=mu, log_panel=True)
    linear, log = fig.axes
    assert log.get_xscale() == "log" and log.get_yscale() == "log"
    lines = {line.get_label(): line for line in log.get_lines()}
    ref = next(v for k, v in lines.items() if k.startswith("$f_{\\varepsilon,\\delta}"))
    drawn = lines[curve.label]
    x = np.asarray(ref.get_xdata())
    small = x < 1e-11
    np.testing.assert_allclose(np.asarray(ref.get_ydata())[small],
                               1e-6 + math.exp(eps) * x[small], rtol=1e-9)
    power = np.interp(x, drawn.get_xdata(), drawn.get_ydata())
    reference_power = np.asarray(ref.get_ydata())
    assert np.all(power <= reference_power * (1 + 1e-6) + 1e-15)
    assert np.min(reference_power / np.maximum(power, 1e-300)) < 1.05  # it touches
    # where (the README's numbers): alpha about 9e-10, beta within 1e-5 of 1
    a = np.logspace(-14, -2, 20001)
    gap = np.asarray(curve(a)) - tradeoff_dp(eps, a, 1e-6)
    at = int(np.argmin(gap))
    assert 5e-10 < a[at] < 2e-9 and 1 - float(curve(a[at])) < 1e-5
    gauss = next(k for k in lines if k.startswith("$G_\\mu$"))
    assert "CLT approximation, not a bound" in gauss and f"{mu:.4g}" in gauss
    assert len(linear.get_lines()) == len(log.get_lines()) == 4
