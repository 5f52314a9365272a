"""Sequential composition and (advanced) grouposition (:mod:`mechdesign.accounting.sequential`),
checked against the exact composition of (leaky) randomized response."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.accounting.composition import delta_composed
from mechdesign.accounting.sequential import (
    advanced_grouposition,
    advanced_grouposition_approx,
    sequential_composition,
    sequential_epsilon,
)
from mechdesign.errors import InvalidMechanismError
from tests.accounting.reference import dense_mechanisms as mechanisms


def test_sequential_epsilon_value_and_tightness_for_binary_rr():
    # ln((e^3 + 1) / (e + e^2)) = 0.7353..; RR(1) then RR(2) attains it (Cor 4.1 is tight)
    assert sequential_epsilon(1.0, 2.0) == pytest.approx(
        math.log((math.exp(3) + 1) / (math.exp(1) + math.exp(2))), rel=1e-15)
    s = sequential_composition(md.randomized_response(2, 1.0), md.randomized_response(2, 2.0))
    assert s.epsilon == pytest.approx(s.bound, rel=1e-12)
    assert s.bound == pytest.approx(0.73533, abs=1e-5)
    assert s.bound <= s.weak_bound == pytest.approx(1.0, rel=1e-15)
    assert sequential_epsilon(math.inf, 0.3) == 0.3
    assert sequential_epsilon(2.0, 0.0) == 0.0


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_sequential_exact_never_above_bound(data):
    m1 = data.draw(mechanisms())
    m2 = data.draw(mechanisms(n_inputs=m1.n_outputs))
    s = sequential_composition(m1, m2)
    assert s.epsilon <= s.bound + 1e-12
    assert s.bound <= min(s.epsilon1, s.epsilon2) + 1e-12
    assert s.bound <= s.weak_bound + 1e-12
    assert s.deletion_epsilon <= s.deletion_bound + 1e-12
    np.testing.assert_allclose(s.mechanism.matrix, m1.matrix @ m2.matrix, rtol=1e-15)


def test_sequential_shape_mismatch():
    with pytest.raises(InvalidMechanismError, match="2 inputs but first has 3 outputs"):
        sequential_composition(md.randomized_response(3, 1.0), md.warner(0.7))


def test_advanced_grouposition_values_and_min():
    # eps = 0.1, k = 100, delta = 1e-6: 100 * 0.01 / 2 + 0.1 sqrt(200 ln 1e6) = 5.7565.. < 10
    g = advanced_grouposition(0.1, 100, 1e-6)
    assert g.used == "formula" and g.epsilon == pytest.approx(0.5 + 0.1 * math.sqrt(
        200 * math.log(1e6)), rel=1e-14) and g.delta == 1e-6
    # eps = 1, k = 10: the formula (21.6..) exceeds group privacy k eps = 10 (delta 0)
    g = advanced_grouposition(1.0, 10, 1e-6)
    assert g.used == "group" and g.epsilon == 10.0 and g.delta == 0.0 and g.formula > 21
    # Thm 4.2 with the corrected total k delta + delta' = 100 * 1e-8 + 1e-7 = 1.1e-6
    a = advanced_grouposition_approx(0.1, 1e-8, 100, 1e-7)
    assert a.used == "formula" and a.delta == pytest.approx(100 * 1e-8 + 1e-7, rel=1e-14)
    assert a.group_delta == pytest.approx(100 * 1e-8)
    # at delta = 0, Thm 4.2 is Thm 4.1
    b, c = advanced_grouposition_approx(0.1, 0.0, 100, 1e-6), advanced_grouposition(0.1, 100,
                                                                                      1e-6)
    assert (b.epsilon, b.delta, b.used) == (c.epsilon, c.delta, c.used)


def _leaky_rr(eps, delta):
    """Leaky RR(eps, delta) (KOV15): with probability delta output the input in the clear (two
    leak outputs, an infinite privacy loss), otherwise binary RR(eps). Every
    (eps, delta)-LDP pair of inputs is a post-processing of it, so it is the worst case for
    grouposition. Returns the mechanism and the exact epsilon of its non-leaking part as the
    floats stand (a few ulps from the argument)."""
    a = 1 / (1 + math.exp(-eps))
    m = md.Mechanism([[(1 - delta) * a, (1 - delta) * (1 - a), delta, 0.0],
                      [(1 - delta) * (1 - a), (1 - delta) * a, 0.0, delta]])
    Q = m.matrix
    return m, max(math.log(Q[0, 0] / Q[1, 0]), math.log(Q[1, 1] / Q[0, 1]))


@pytest.mark.parametrize(("eps", "k", "d"), [
    (0.2, 50, 1e-4), (0.1, 1000, 1e-6), (0.05, 400, 1e-9), (0.5, 8, 1e-2), (1.0, 10, 1e-6),
])
def test_grouposition_holds_for_rr(eps, k, d):
    # Thm 4.1: k users differ, each RR(eps) (delta = 0 randomizers); the exact delta of the
    # k-fold composition at the reported epsilon is at most the reported delta
    rr = md.randomized_response(2, eps)
    g = advanced_grouposition(md.epsilon_ldp(rr), k, d)
    # (the exact composition's outward bound: at a pure target it may read a few ulps of
    # loss above 0, as the k summed losses are each rounded up)
    assert delta_composed(rr, g.epsilon, k).delta <= g.delta + 1e-15


@pytest.mark.parametrize(("eps", "delta", "k", "delta_prime"), [
    (0.1, 1e-3, 1000, 1e-6),   # the counterexample to the printed total (capped at 1)
    (0.1, 1e-5, 1000, 1e-6),   # corrected total 0.010001, exact 0.00995
    (0.05, 1e-7, 400, 1e-9),   # corrected total 4.0001e-5, exact 3.99992e-5
    (0.2, 1e-6, 100, 1e-6),
    (0.2, 0.0, 50, 1e-4),      # delta = 0: Thm 4.1
    (0.5, 1e-4, 20, 1e-3),     # group privacy (k eps, k delta) is the smaller epsilon
    (1.0, 1e-3, 10, 1e-6),
])
def test_approx_grouposition_holds_for_leaky_rr(eps, delta, k, delta_prime):
    # Thm 4.2 against the exact composition of k leaky RR(eps, delta): at the reported epsilon
    # the exact delta, 1 - (1 - delta)^k + (1 - delta)^k delta_RR(eps'), is at most the
    # reported k delta + delta' (or k delta when group privacy is used)
    m, eps_m = _leaky_rr(eps, delta)
    g = advanced_grouposition_approx(eps_m, delta, k, delta_prime)
    exact = delta_composed(m, g.epsilon, k)
    assert exact.exact and exact.delta <= g.delta


@pytest.mark.parametrize(("eps", "delta", "k", "delta_prime"), [
    (0.1, 1e-3, 1000, 1e-6), (0.1, 1e-5, 1000, 1e-6), (0.05, 1e-7, 400, 1e-9),
])
def test_printed_grouposition_total_is_false(eps, delta, k, delta_prime):
    # the total delta + k delta' printed by Huang & Canonne (Thm 4.2) is below the exact delta
    # of k leaky RR at the formula's epsilon: 1000 x RR(0.1), delta = 1e-3, delta' = 1e-6
    # would claim (21.62, 0.002) where the exact composition has 0.632 = 1 - (1 - 1e-3)^1000
    # (+ the RR part, 1e-12 here), the chance that one of the 1000 leaks
    m, eps_m = _leaky_rr(eps, delta)
    g = advanced_grouposition_approx(eps_m, delta, k, delta_prime)
    assert g.used == "formula"
    exact = delta_composed(m, g.epsilon, k).delta
    assert exact > delta + k * delta_prime
    if (eps, delta, k) == (0.1, 1e-3, 1000):
        assert g.epsilon == pytest.approx(21.6226, abs=1e-4) and g.delta == 1.0
        assert exact == pytest.approx(-math.expm1(1000 * math.log1p(-1e-3)), rel=1e-6)


