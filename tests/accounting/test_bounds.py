"""Closed-form composition bounds (:mod:`mechdesign.accounting.bounds`): the values of basic and
advanced composition, Kairouz-Oh-Viswanath and Murtagh-Vadhan against the exact composition of
(leaky) binary randomized response, and every bound never below the exact value.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.accounting.bounds import (
    advanced_composition,
    advanced_composition_delta,
    basic_composition,
    optimal_composition_delta,
    optimal_composition_epsilon,
    optimal_heterogeneous_delta,
    optimal_heterogeneous_epsilon,
)
from mechdesign.accounting.composition import delta_composed, epsilon_composed
from mechdesign.errors import InvalidParameterError, SizeLimitError
from tests.accounting.reference import close, mp_delta_tuples
from tests.accounting.reference import dense_mechanisms as mechanisms


def test_basic_and_advanced_values():
    b = basic_composition([0.1, 0.2, 0.3], [1e-6, 0.0, 1e-6])
    assert (b.epsilon, b.delta) == (pytest.approx(0.6), pytest.approx(2e-6))
    # DRV: sqrt(2000 ln 1e6) 0.1 + 1000 * 0.1 (e^0.1 - 1) = 16.6225.. + 10.5170.. = 27.1397..
    a = advanced_composition(0.1, 1e-7, 1000, 1e-6)
    assert a.epsilon == pytest.approx(27.13967317, rel=1e-9)
    assert a.delta == pytest.approx(1000 * 1e-7 + 1e-6)
    with pytest.raises(InvalidParameterError, match="delta_prime must be > 0"):
        advanced_composition(0.1, 0.0, 10, 0.0)
    with pytest.raises(InvalidParameterError, match="different lengths"):
        basic_composition([0.1, 0.2], [0.0])


@settings(max_examples=60, deadline=None)
@given(eps0=st.floats(0.01, 2.0), k=st.integers(1, 60), frac=st.floats(0.0, 1.0))
@example(eps0=1.0, k=1, frac=0.9999999999999999)
def test_kov_formula_equals_exact_binary_rr(eps0, k, frac):
    rr = md.randomized_response(2, eps0)
    eps0 = md.epsilon_ldp(rr)  # the matrix's own epsilon (a few ulps from the argument)
    e = frac * k * eps0
    exact = delta_composed(rr, e, k).delta
    kov = optimal_composition_delta(eps0, k, e)
    # eps0 is the float nearest ln(p/q): a few ulps from the matrix's own loss.  delta moves by
    # at most ~4k per unit of eps0 (each of the k losses and their masses), so near a breakpoint
    # the two may differ by 16 k ulp(eps0) absolutely (found at eps0 = 1, k = 1, frac = 1 - 1e-16:
    # the exact value is 0, KOV 8e-17)
    assert kov == pytest.approx(exact, rel=1e-9, abs=16 * k * eps0 * 2.2e-16)


def test_kov_log_space_no_overflow():
    # (1 + e)^1000 overflows doubles; the exact composition of RR(1) gives the same value
    rr = md.randomized_response(2, 1.0)
    for e in (30.0, 100.0, 400.0):
        assert optimal_composition_delta(md.epsilon_ldp(rr), 1000, e) == pytest.approx(
            delta_composed(rr, e, 1000).delta, rel=1e-9)
    assert optimal_composition_epsilon(1.0, 1000, 1e-10) == pytest.approx(
        epsilon_composed(rr, 1e-10, 1000).epsilon, rel=1e-9)


def test_kov_with_delta_and_mv_matches_exact_leaky_rr():
    # leaky RR: with probability delta reveal the input (an infinite loss)
    d, e = 1e-3, 0.7
    a = 1 / (1 + math.exp(-e))
    leaky = md.Mechanism([[(1 - d) * a, (1 - d) * (1 - a), d, 0.0],
                          [(1 - d) * (1 - a), (1 - d) * a, 0.0, d]])
    for et in (0.0, 1.5, 6.0):
        exact = delta_composed(leaky, et, 8).delta
        assert optimal_composition_delta(e, 8, et, delta=d) == pytest.approx(exact, rel=1e-9)
        assert optimal_heterogeneous_delta([e] * 8, et, [d] * 8) == pytest.approx(exact,
                                                                                   rel=1e-9)


def test_murtagh_vadhan_equals_exact_heterogeneous_rr():
    eps = [0.1, 0.5, 1.2, 0.3, 0.9]
    rrs = [md.randomized_response(2, e) for e in eps]
    eps_m = [md.epsilon_ldp(r) for r in rrs]
    for eg in (0.0, 0.8, 2.0):
        exact = delta_composed(rrs, eg).delta
        close(exact, mp_delta_tuples(rrs, eg))
        assert optimal_heterogeneous_delta(eps_m, eg) == pytest.approx(exact, rel=1e-10)
    t = optimal_heterogeneous_epsilon(eps_m, 1e-2)
    assert optimal_heterogeneous_delta(eps_m, t) == pytest.approx(1e-2, rel=1e-9)
    with pytest.raises(SizeLimitError, match="k = 21"):
        optimal_heterogeneous_delta([0.1] * 21, 1.0)


@settings(max_examples=60, deadline=None)
@given(m=mechanisms(), k=st.integers(1, 8), frac=st.floats(0.0, 1.0),
       dp=st.sampled_from([1e-2, 1e-5, 1e-9]))
def test_closed_form_bounds_never_below_exact(m, k, frac, dp):
    eps0 = md.epsilon_ldp(m)
    e = frac * k * eps0
    assert delta_composed(m, e, k).delta <= optimal_composition_delta(eps0, k, e) + 1e-12
    eps_exact = epsilon_composed(m, dp, k).epsilon
    assert eps_exact <= optimal_composition_epsilon(eps0, k, dp) + 1e-9
    assert eps_exact <= advanced_composition(eps0, 0.0, k, dp).epsilon + 1e-9
    assert eps_exact <= basic_composition([eps0] * k).epsilon + 1e-9
    assert delta_composed(m, e, k).delta <= advanced_composition_delta(eps0, k, e) + 1e-12


def test_advanced_composition_delta_inverts_drv():
    # round trip through the DRV formula, and its caps (basic composition; the drift term)
    for eps0, k, dp in [(0.1, 1000, 1e-6), (0.05, 200, 1e-3), (0.5, 30, 0.2)]:
        total = advanced_composition(eps0, 0.0, k, dp).epsilon
        if total < k * eps0:
            assert advanced_composition_delta(eps0, k, total) == pytest.approx(dp, rel=1e-9)
    # >= k eps0: basic composition. The comparison is exact: 1000 * 0.1 is
    # 100.0000000000000055.. for the double 0.1, so 100.0 is BELOW k eps0 (the float product
    # rounds to 100.0, which used to return 0) and the DRV value exp(-400.3..) applies
    assert advanced_composition_delta(0.1, 1000, 100.00000000000001) == 0.0
    assert advanced_composition_delta(0.1, 1000, 100.0) == pytest.approx(
        math.exp(-((100.0 - 1000 * 0.1 * math.expm1(0.1)) / 0.1) ** 2 / 2000), rel=1e-12)
    assert advanced_composition_delta(0.1, 1000, 10.0) == 1.0  # below 1000 * 0.1 (e^0.1 - 1)
    assert advanced_composition_delta(0.0, 5, 0.0) == 0.0


@settings(max_examples=40, deadline=None)
@given(data=st.data(), r=st.integers(2, 4), frac=st.floats(0.0, 1.0))
def test_murtagh_vadhan_never_below_exact_heterogeneous(data, r, frac):
    mechs = [data.draw(mechanisms(n_inputs=2)) for _ in range(r)]
    eps = [md.epsilon_ldp(m) for m in mechs]
    eg = frac * sum(eps)
    assert delta_composed(mechs, eg).delta <= optimal_heterogeneous_delta(eps, eg) + 1e-12


