"""Pessimistic and optimistic trade-off functions of evidential mechanisms (Li et al. 2022).

References: ``docs/belief_functions.md`` s.3 (definitions, Thm 3.5, Cor 3.6, Thm 3.18,
Cor 3.19, the Q_2x3 closed forms and the warning on the tight 2-fold optimistic bound).
Each exact method is checked against a second, independent one: the LP over tests
(pessimistic), and brute force over every extreme point of the credal sets (optimistic).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechdesign import (
    EvidentialMechanism,
    InvalidMechanismError,
    InvalidParameterError,
    SizeLimitError,
    dont_know,
    epsilon_sldp,
    epsilon_wldp,
    randomized_response,
    warner,
)
from mechdesign.accounting.belief_tradeoff import (
    holds_theorem,
    optimistic_function,
    pessimistic_function,
    tradeoff_optimistic,
    tradeoff_pessimistic,
    tradeoff_sldp,
)
from mechdesign.accounting.tradeoff import (
    epsilon_of_tradeoff,
    lower_envelope,
    tensor_product,
    tradeoff_curve,
    tradeoff_dp,
    tradeoff_function,
    tradeoff_function_dp,
)
from tests.strategies import evidential_mechanisms, mechanisms

GRID = np.linspace(0.0, 1.0, 401)


def power(m: EvidentialMechanism, k: int) -> EvidentialMechanism:
    out = m
    for _ in range(k - 1):
        out = out.product(m)
    return out


def selections(ev: EvidentialMechanism, row: int) -> list[np.ndarray]:
    """Every Bayesian distribution obtained by giving each focal set's mass to one of its
    elements: the extreme points of the credal set of a belief function."""
    index = {y: i for i, y in enumerate(ev.outputs)}
    choices = [sorted(B, key=repr) for B in ev.focal_sets]
    out = []
    for sel in itertools.product(*choices):
        pr = np.zeros(ev.n_outputs)
        for j, y in enumerate(sel):
            pr[index[y]] += ev.masses[row, j]
        out.append(pr)
    return out


def neyman_pearson(P: np.ndarray, Q: np.ndarray, alpha: float) -> float:
    """T(P, Q)(alpha) written out: reject outputs by decreasing Q/P, randomise at the last."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(P > 0, Q / np.where(P > 0, P, 1.0), np.inf)
    power, budget = 0.0, alpha
    for y in np.argsort(-ratio, kind="stable"):
        take = 1.0 if P[y] <= budget else budget / P[y]
        power += take * Q[y]
        budget -= take * P[y]
        if take < 1.0:
            break
    return 1.0 - power


def brute_optimistic(ev: EvidentialMechanism, x: int, xp: int):
    """T^op = inf over credal pairs of T(pr, pr') (docs/belief_functions.md s.3), the inf taken over
    all extreme points (no chain argument): the definition by brute force."""
    curves = [tradeoff_function(p, q) for p in selections(ev, x) for q in selections(ev, xp)]
    return lower_envelope(curves)


def random_credal_member(ev: EvidentialMechanism, row: int, rng) -> np.ndarray:
    """A random element of P_x: split each focal set's mass at random among its elements."""
    index = {y: i for i, y in enumerate(ev.outputs)}
    pr = np.zeros(ev.n_outputs)
    for j, B in enumerate(ev.focal_sets):
        w = rng.dirichlet(np.ones(len(B)))
        for y, share in zip(sorted(B, key=repr), w, strict=True):
            pr[index[y]] += ev.masses[row, j] * share
    return pr


# --------------------------------------------------------------------------- Q_2x3 closed forms


@pytest.mark.parametrize("p,q", [(0.6, 0.2), (0.7, 0.1), (0.9, 0.05), (0.55, 0.45),
                                 (0.8, 0.0)])
def test_dont_know_pessimistic_is_f_of_q0_and_optimistic_is_f_of_q1(p, q):
    # s.3: for Q_2x3(p, q), p > 1/2: T^pe = f_{ln(p/(1-p))} (the curve of Q_0 = warner(p)),
    # T^op = f_{ln((1-q)/q)} (the curve of Q_1 = warner(1 - q))
    dk = dont_know(p, q)
    want_pe = tradeoff_dp(math.log(p / (1 - p)), GRID)
    want_op = tradeoff_dp(math.log((1 - q) / q), GRID) if q > 0 else np.where(GRID > 0, 0, 1.0)
    np.testing.assert_allclose(tradeoff_pessimistic(dk, GRID), want_pe, atol=1e-14)
    np.testing.assert_allclose(tradeoff_pessimistic(dk, GRID[::20], method="lp"),
                               want_pe[::20], atol=1e-8)
    np.testing.assert_allclose(tradeoff_sldp(dk, GRID), want_pe, atol=1e-14)
    if q > 0:
        np.testing.assert_allclose(tradeoff_optimistic(dk, GRID), want_op, atol=1e-14)
        np.testing.assert_allclose(tradeoff_optimistic(dk, GRID, method="credal"), want_op,
                                   atol=1e-14)
    # the same curves as the Bayesian completions Q_0 and Q_1 (and both orders of the pair)
    np.testing.assert_allclose(tradeoff_pessimistic(dk, GRID, pair=(1, 0)),
                               tradeoff_curve(warner(p), GRID, pair=(1, 0)), atol=1e-14)


@pytest.mark.parametrize("p,q", [(0.5, 0.3), (0.3, 0.2), (0.45, 0.45), (0.25, 0.25)])
def test_dont_know_with_p_at_most_half_is_perfectly_private_pessimistically(p, q):
    # s.3: if p <= 1/2, T^pe = 1 - alpha
    dk = dont_know(p, q)
    np.testing.assert_allclose(tradeoff_pessimistic(dk, GRID), 1 - GRID, atol=1e-14)
    np.testing.assert_allclose(tradeoff_pessimistic(dk, GRID[::40], method="lp"),
                               1 - GRID[::40], atol=1e-8)


def test_dont_know_hand_computed_points():
    # Q_2x3(0.6, 0.2), H0 = P, H1 = notP. Rejecting on E = {No}:
    #   alpha^pe = pl_P(No) = q + d = 0.4, beta^pe = pl_notP(Yes) = q + d = 0.4;
    # rejecting on {No} optimistically: alpha^op = bel_P(No) = 0.2, beta^op = bel_notP(Yes)
    # = 0.2; both are the kinks of f_{ln 1.5} and f_{ln 4}
    dk = dont_know(0.6, 0.2)
    np.testing.assert_allclose(pessimistic_function(dk).as_rows(),
                               [(0, 1), (0.4, 0.4), (1, 0)], atol=1e-15)
    np.testing.assert_allclose(optimistic_function(dk).as_rows(),
                               [(0, 1), (0.2, 0.2), (1, 0)], atol=1e-15)


def test_bayesian_mechanisms_have_one_curve():
    # a Bayesian mechanism has singleton credal sets: T^pe = T^op = T
    m = randomized_response(3, 1.2)
    ev = EvidentialMechanism.from_mechanism(m)
    want = tradeoff_curve(m, GRID, pair=(0, 2))
    np.testing.assert_allclose(tradeoff_pessimistic(ev, GRID, pair=(0, 2)), want, atol=1e-14)
    np.testing.assert_allclose(tradeoff_optimistic(ev, GRID, pair=(0, 2)), want, atol=1e-14)
    np.testing.assert_allclose(tradeoff_optimistic(m, GRID, pair=(0, 2)), want, atol=1e-14)


# --------------------------------------------------------------------------- two methods each


@settings(max_examples=30, deadline=None)
@given(evidential_mechanisms(rows=(2, 2), outputs=(2, 3), tiny=False),
       st.lists(st.floats(0, 1), min_size=4, max_size=4))
def test_pessimistic_hull_against_the_lp_over_tests(ev, alphas):
    # event hull (exact breakpoints) vs one HiGHS LP per alpha over the Choquet forms
    a = np.array(alphas)
    np.testing.assert_allclose(tradeoff_pessimistic(ev, a, pair=(0, 1)),
                               tradeoff_pessimistic(ev, a, pair=(0, 1), method="lp"),
                               atol=1e-7)


@settings(max_examples=40, deadline=None)
@given(evidential_mechanisms(rows=(2, 2), outputs=(2, 3), max_focal=5))
def test_optimistic_three_ways(ev):
    # chain hulls, Neyman-Pearson curves of the chain-extreme Bayesian pairs, and brute force
    # over every pair of extreme points of the credal sets
    chains = optimistic_function(ev, pair=(0, 1))
    credal = optimistic_function(ev, pair=(0, 1), method="credal")
    brute = brute_optimistic(ev, 0, 1)
    np.testing.assert_allclose(chains(GRID), brute(GRID), atol=1e-12)
    np.testing.assert_allclose(credal(GRID), brute(GRID), atol=1e-12)
    np.testing.assert_allclose(chains(brute.alphas), brute.betas, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(evidential_mechanisms(rows=(2, 2), outputs=(2, 3)), st.integers(0, 2 ** 32 - 1))
def test_credal_sandwich(ev, seed):
    # T^op = inf over credal pairs, T^pe = max over credal pairs (minimax): any pair of
    # members (pr, pr') of the credal sets has T^op <= T(pr, pr') <= T^pe
    rng = np.random.default_rng(seed)
    op = optimistic_function(ev, pair=(0, 1))
    pe = pessimistic_function(ev, pair=(0, 1))
    assert (op(GRID) <= pe(GRID) + 1e-12).all()
    assert pe.is_convex  # an LP value function
    for _ in range(5):
        t = tradeoff_function(random_credal_member(ev, 0, rng), random_credal_member(ev, 1, rng))
        assert (op(GRID) <= t(GRID) + 1e-12).all()
        assert (t(GRID) <= pe(GRID) + 1e-12).all()


# --------------------------------------------------------------------------- the theorems


@settings(max_examples=40, deadline=None)
@given(evidential_mechanisms(rows=(2, 3), outputs=(2, 3)))
def test_theorem_3_18_with_solver_noise_sized_masses(ev):
    assert holds_theorem(ev, epsilon_wldp(ev), "3.18")


@settings(max_examples=60, deadline=None)
@given(evidential_mechanisms(rows=(2, 3), outputs=(2, 4)))
def test_theorem_3_5_sldp_bounds_the_pessimistic_curve(ev):
    # Thm 3.5: eps-SLDP (mass) => T >= f_eps for every pair
    assert holds_theorem(ev, epsilon_sldp(ev), "3.5")


@settings(max_examples=40, deadline=None)
@given(evidential_mechanisms(rows=(2, 3), outputs=(2, 4), tiny=False))
def test_sharp_epsilon_of_the_pessimistic_curve_is_at_most_eps_sldp(ev):
    # (no 1e-12 masses: 1 - beta near 1 is read from doubles, see epsilon_of_tradeoff)
    assert epsilon_of_tradeoff(pessimistic_function(ev, None)) <= epsilon_sldp(ev) + 1e-9


@settings(max_examples=60, deadline=None)
@given(evidential_mechanisms(rows=(2, 3), outputs=(2, 3), tiny=False))
def test_theorem_3_18_wldp_iff_optimistic_curve_above_f_eps(ev):
    # Thm 3.18: eps-WLDP <=> T^op >= f_eps for all pairs (x = x' included): the smallest eps
    # for which the optimistic curves clear f_eps is exactly eps_W
    eps = epsilon_wldp(ev)
    assert holds_theorem(ev, eps, "3.18")
    op_all = optimistic_function(ev, None)
    if math.isfinite(eps):
        assert epsilon_of_tradeoff(op_all) == pytest.approx(eps, rel=1e-9, abs=1e-12)
        if eps > 1e-3:
            assert not holds_theorem(ev, eps * 0.99, "3.18")
    # f_eps <= T^op <= T^pe for every pair
    pe_all = pessimistic_function(ev, None)
    assert (op_all(GRID) <= pe_all(GRID) + 1e-12).all()


@settings(max_examples=40, deadline=None)
@given(evidential_mechanisms(rows=(2, 2), outputs=(2, 3)))
def test_corollary_3_6_two_fold_sldp_tight_bound(ev):
    # Cor 3.6: T_2 >= f_eps (x) f_eps >= f_{2 eps} for eps-SLDP (pessimistic curve = SLDP T)
    eps = epsilon_sldp(ev)
    assert holds_theorem(ev, eps, "3.6")
    if math.isfinite(eps):
        f = tradeoff_function_dp(eps)
        tight = tensor_product(f, f)
        assert (tight(GRID) >= tradeoff_dp(2 * eps, GRID) - 1e-12).all()


@settings(max_examples=40, deadline=None)
@given(evidential_mechanisms(rows=(2, 2), outputs=(2, 2), max_focal=3))
def test_corollary_3_19_two_fold_wldp_bound(ev):
    # Cor 3.19: T^pe_2 >= T^op_2 >= f_{2 eps_W}
    eps = epsilon_wldp(ev)
    assert holds_theorem(ev, eps, "3.19")
    op2 = optimistic_function(ev, None, k=2)
    pe2 = pessimistic_function(ev, None, k=2)
    assert (op2(GRID) <= pe2(GRID) + 1e-12).all()


def test_tight_two_fold_bound_fails_for_the_optimistic_curve():
    # docs/belief_functions.md s.3 WARNING, with a concrete counterexample: Q_2x3(0.3, 0.2) has
    # eps_W = ln((1-q)/q) = ln 4. Reject H0 = (P, P) when the two answers differ,
    # E = {(Yes, No), (No, Yes)}:
    #   alpha^op = bel_(P,P)(E) = 2 p q = 0.12,
    #   beta^op = bel_(notP,notP)(complement) = q^2 + p^2 = 0.13,
    # while (f_ln4 (x) f_ln4)(0.12) = max{0, 1 - 16 (0.12), 2/5 - 0.12, (1 - 0.12)/16} = 0.28.
    dk = dont_know(0.3, 0.2)
    eps = epsilon_wldp(dk)
    assert eps == pytest.approx(math.log(4), abs=1e-12)
    op2 = optimistic_function(dk, pair=(0, 1), k=2)
    assert op2(0.12) == pytest.approx(0.13, abs=1e-14)
    f = tradeoff_function_dp(eps)
    assert tensor_product(f, f)(0.12) == pytest.approx(0.28, abs=1e-14)
    # brute force over every pair of extreme points of the 2-fold credal sets agrees
    dk2 = power(dk, 2)
    brute = min(neyman_pearson(p, q, 0.12) for p in selections(dk2, 0)
                for q in selections(dk2, 3))
    assert brute == pytest.approx(0.13, abs=1e-14)
    # the weaker Cor 3.19 bound f_{2 eps} = f_{ln 16} does hold: (1 - 0.12)/16 = 0.055
    assert tradeoff_dp(2 * eps, 0.12) == pytest.approx(0.055, abs=1e-14)
    assert holds_theorem(dk, eps, "3.19")
    # the pessimistic 2-fold curve, for contrast, clears the tight SLDP bound (Cor 3.6)
    assert holds_theorem(dk, epsilon_sldp(dk), "3.6")


def test_tight_bound_also_fails_on_a_single_input_pair():
    # Q_2x3(1/4, 1/4) has identical rows (0.25, 0.25, 0.5): eps_W = ln 3 comes from x = x'
    # (pl(Yes) / bel(Yes) = 0.75 / 0.25). E = {(Yes, Yes), (No, No)}:
    # alpha^op = 1/16 + 1/16 = 0.125, beta^op = bel(complement) = 0.125, while
    # (f_ln3 (x) f_ln3)(0.125) = 2/4 - 0.125 = 0.375
    dk = dont_know(0.25, 0.25)
    op2 = optimistic_function(dk, pair=(0, 0), k=2)
    assert op2(0.125) == pytest.approx(0.125, abs=1e-14)
    f = tradeoff_function_dp(math.log(3))
    assert tensor_product(f, f)(0.125) == pytest.approx(0.375, abs=1e-14)


def test_two_fold_pessimistic_dont_know_by_hand():
    # Q_2x3(0.6, 0.2) twice: E = {(No, No)} gives alpha = pl_(P,P)(E) = (q + d)^2 = 0.16 and
    # beta = 1 - bel_(notP,notP)(E) = 1 - p^2 = 0.64: the curve of warner(0.6) twice
    dk = dont_know(0.6, 0.2)
    pe2 = pessimistic_function(dk, pair=(0, 1), k=2)
    # the polyline through these breakpoints; a breakpoint on a segment up to rounding is
    # kept when dropping it would raise the curve (curve_from_points never raises a curve:
    # outward rounding), here (0.4, 0.4), so compare the curve at every breakpoint of both
    want = [(0, 1), (0.16, 0.64), (0.64, 0.16), (1, 0)]
    wa, wb = np.array(want, dtype=float).T
    both = np.union1d(pe2.alphas, wa)
    np.testing.assert_allclose(pe2(both), np.interp(both, wa, wb), atol=1e-15)
    for a, b in want:  # each breakpoint by hand is one of the curve's (within 1e-15)
        assert np.min(np.abs(pe2.alphas - a) + np.abs(pe2.betas - b)) <= 1e-15
    np.testing.assert_allclose(pe2(GRID), tradeoff_curve(warner(0.6), GRID, pair=(0, 1), k=2),
                               atol=1e-14)


def test_holds_theorem_false_when_epsilon_too_small():
    dk = dont_know(0.6, 0.2)
    assert holds_theorem(dk, math.log(1.5), "3.5")       # T^pe = f_{ln 1.5} exactly
    assert not holds_theorem(dk, math.log(1.4), "3.5")
    assert holds_theorem(dk, math.log(4), "3.18")        # eps_W = ln 4
    assert not holds_theorem(dk, math.log(3.9), "3.18")
    assert holds_theorem(dk, math.inf, "3.19")


def test_works_on_ordinary_mechanisms():
    m = randomized_response(2, 1.0)
    assert holds_theorem(m, 1.0, "3.5") and holds_theorem(m, 1.0, "3.18")
    assert not holds_theorem(m, 0.99, "3.18")


@settings(max_examples=30, deadline=None)
@given(mechanisms(rows=(2, 3), cols=(2, 3)))
def test_bayesian_theorems_reduce_to_ldp(m):
    # for an ordinary mechanism eps_S = eps_W = eps_LDP and both curves are T
    from mechdesign import epsilon_ldp

    eps = epsilon_ldp(m)
    assert holds_theorem(m, eps, "3.5") and holds_theorem(m, eps, "3.18")


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("call,exc,match", [
    (lambda: tradeoff_pessimistic(dont_know(0.6, 0.2), GRID, method="exact"),
     InvalidParameterError, "'exact'"),
    (lambda: tradeoff_optimistic(dont_know(0.6, 0.2), GRID, method="lp"),
     InvalidParameterError, "'lp'"),
    (lambda: tradeoff_pessimistic(dont_know(0.6, 0.2), GRID, pair=(0, 2)),
     InvalidParameterError, "index 2"),
    (lambda: tradeoff_optimistic(dont_know(0.6, 0.2), [1.2]), InvalidParameterError, "1.2"),
    (lambda: tradeoff_pessimistic(dont_know(0.6, 0.2), GRID, k=0), InvalidParameterError,
     "k must be >= 1"),
    (lambda: holds_theorem(dont_know(0.6, 0.2), 1.0, "3.7"), InvalidParameterError, "'3.7'"),
    (lambda: holds_theorem(dont_know(0.6, 0.2), -1.0), InvalidParameterError, "-1.0"),
    (lambda: optimistic_function(dont_know(0.6, 0.2), k=4), SizeLimitError, "16 outputs"),
    (lambda: tradeoff_optimistic([[0.5, 0.6]], GRID), InvalidMechanismError, "sums to 1.1"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
