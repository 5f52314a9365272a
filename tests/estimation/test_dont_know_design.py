"""The "don't know" design rule (:func:`mechdesign.estimation.dont_know_design`), Li et al.
2022 s.4 (``docs/belief_functions.md`` s.4, "The don't know design rule").

Given the answer rate c and a Shafer budget eps the rule prescribes
``p = c e^eps / (1 + e^eps)``, ``q = c / (1 + e^eps)``. Stated properties, each checked
against an exact computation:

* ``p + q = c`` ("don't know" probability ``1 - c``);
* ``eps_S = ln(p/q) = eps``: the stored matrix is exactly within the budget (exact verifier)
  and the measured epsilon is eps to rounding;
* ``eps_W = ln((1 - q)/q) = ln(e^eps + 1 - c) - ln c >= eps``, equality only at c = 1;
* the most accurate Q_2x3 at answer rate c within the budget: the variance factor
  ``(p + q)^2/(p - q)^2 = coth^2(eps/2)`` is the smallest on ``p + q = c``, ``p/q <= e^eps``.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign._exact import exp_bracket
from mechdesign.errors import InvalidParameterError
from mechdesign.estimation import (
    DontKnowDesign,
    dont_know_design,
    shafer_variance_curve,
    variance_dont_know,
)


def test_worked_example():
    # c = 0.8, e^eps = 3: p = 0.8 * 3/4 = 0.6, q = 0.8/4 = 0.2, the sheet's sanity example:
    # eps_S = ln 3, eps_W = ln(0.8/0.2) = ln 4 = ln(3 + 1 - 0.8) - ln 0.8 = ln(3.2/0.8).
    d = dont_know_design(0.8, math.log(3))
    assert d.p == pytest.approx(0.6, rel=1e-15) and d.q == pytest.approx(0.2, rel=1e-15)
    assert d.epsilon_shafer == pytest.approx(math.log(3), rel=1e-14)
    assert d.epsilon_walley == pytest.approx(math.log(4), rel=1e-14)
    assert d.walley_formula == pytest.approx(math.log(4), rel=1e-15)
    assert d.variance_factor == pytest.approx(4.0, rel=1e-14)  # coth^2(ln 3 / 2) = (4/2)^2
    assert d.paper_regime  # p = 0.6 > 1/2
    assert isinstance(d, DontKnowDesign) and len(repr(d)) <= 200
    assert "<table" in d._repr_html_()


def test_warner_at_full_answer_rate():
    # c = 1: no "don't know"; the design is Warner's p = e^eps/(1 + e^eps), and both readings
    # agree: eps_W = ln(e^eps / 1) = eps
    d = dont_know_design(1.0, 1.0)
    assert d.epsilon_walley == pytest.approx(1.0, rel=1e-13)
    assert d.mechanism.masses[0, 2] == 0.0


@settings(max_examples=150, deadline=None)
@given(c=st.floats(0.05, 1.0), eps=st.floats(0.0, 30.0))
def test_stated_privacy_and_answer_rate(c, eps):
    d = dont_know_design(c, eps)
    dk = d.mechanism
    # the answer rate: p + q = c, don't-know mass 1 - c (to rounding)
    assert d.p + d.q == pytest.approx(c, rel=4e-16)
    assert dk.masses[0, 2] == pytest.approx(1.0 - c, abs=4e-16)
    # exactly within the budget: the stored ratio p/q is at most e^eps (as rationals, against
    # the upper end of a 60-digit bracket) and within 2^-50 of it
    ratio = F(d.p) / F(d.q)
    lo, hi = exp_bracket(eps)
    assert ratio <= hi and ratio >= lo * (1 - F(1, 2**50))
    assert md.verify_exact(dk, "sldp_mass", eps).holds is True
    assert md.epsilon_sldp(dk, "mass") == pytest.approx(eps, rel=1e-13, abs=1e-15)
    # Walley: ln((1 - q)/q) = ln(e^eps + 1 - c) - ln c, never below eps
    assert md.epsilon_wldp(dk) == pytest.approx(d.walley_formula, rel=1e-12, abs=1e-15)
    assert d.epsilon_walley >= eps - 1e-12
    assert d.paper_regime == (d.p > 0.5)


@settings(max_examples=60, deadline=None)
@given(c=st.floats(0.2, 1.0), eps=st.floats(0.05, 5.0), pi=st.floats(0.0, 1.0),
       n=st.integers(1, 200))
def test_variance_is_warner_scaled(c, eps, pi, n):
    # nu^S(eps; c) = [-(pi - 1/2)^2 + coth^2(eps/2)/4] A(n, c): the design's variance
    d = dont_know_design(c, eps)
    v = float(variance_dont_know(d.p, d.q, pi, n))
    A = float(md.estimation.binomial_inverse_moment(n, c))
    assert v == pytest.approx((-(pi - 0.5) ** 2 + d.variance_factor / 4) * A, rel=1e-9)
    assert v == pytest.approx(float(shafer_variance_curve(c, eps, pi, n)), rel=1e-9)


def test_most_accurate_at_the_answer_rate_exact():
    # On p + q = c the variance is [-(pi-1/2)^2 + K/4] A(n, c) with K = (p+q)^2/(p-q)^2, so
    # the most accurate mechanism has the smallest K. Exact rationals: c = 4/5, e^eps = 3;
    # every p' = j/1000 with q' = c - p' and p'/q' <= 3 (the budget) has K >= 4, the
    # design's K = coth^2(ln 3 / 2) = 4, attained at p' = 3/5 only.
    c, r = F(4, 5), F(3)
    Ks = {}
    for j in range(1, 800):
        p = F(j, 1000)
        q = c - p
        if q <= 0 or p <= q or p > r * q:
            continue
        Ks[p] = (p + q) ** 2 / (p - q) ** 2
    assert min(Ks.values()) == 4 and [p for p, K in Ks.items() if K == 4] == [F(3, 5)]
    # and the library's variances agree on a float grid of the same line
    d = dont_know_design(0.8, math.log(3))
    best = float(variance_dont_know(d.p, d.q, 0.3, 100))
    for p in np.linspace(0.41, 0.6, 20):
        assert float(variance_dont_know(p, 0.8 - p, 0.3, 100)) >= best * (1 - 1e-12)


@pytest.mark.parametrize(("c", "eps", "match"), [
    (0.0, 1.0, "0.0"), (1.5, 1.0, "1.5"), (0.5, -1.0, "-1.0"), (0.5, math.nan, "nan"),
])
def test_bad_input(c, eps, match):
    with pytest.raises(InvalidParameterError, match=match):
        dont_know_design(c, eps)
