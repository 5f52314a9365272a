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
