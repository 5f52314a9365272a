"""The Blackwell order: garblings (post-processings) found by LP feasibility.

The "don't know" facts below are derived by hand in each test. Q_2x3(p, q) keeps Warner's
answer with probability c = p + q and says "don't know" otherwise:
``[p, q, d] = c * [w, 1 - w, 0] + (1 - c) * [0, 0, 1]`` with ``w = p / (p + q)``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mechdesign import (
    InvalidMechanismError,
    Mechanism,
    dont_know,
    epsilon_ldp,
    q_lambda,
    randomized_response,
    warner,
)
from mechdesign.accounting.tradeoff import tradeoff_function
from mechdesign.privacy.blackwell import GARBLING_TOL, garbling, is_garbling_of
from tests.strategies import mechanisms, stochastic_matrices

GRID = np.linspace(0.0, 1.0, 2001)


def test_dont_know_is_warner_p_over_p_plus_q_with_extra_noise():
    # DESIGN.md example: dk = dont_know(0.6, 0.2) is warner(0.75) (w = 0.6/0.8) followed by
    # G = "keep the answer with probability c = 0.8, else say don't know"
    dk, w = dont_know(0.6, 0.2), warner(0.75)
    assert is_garbling_of(dk.to_mechanism(), w)
    assert is_garbling_of(dk, w)  # evidential mechanisms are read over their messages
    G = garbling(dk.to_mechanism(), w)
    np.testing.assert_allclose(G.matrix, [[0.8, 0.0, 0.2], [0.0, 0.8, 0.2]], atol=1e-9)
    assert G.inputs == w.outputs and G.outputs == dk.focal_sets
    np.testing.assert_allclose(w.then(G).matrix, dk.masses, atol=GARBLING_TOL)
    # ...and not the other way: the don't-know answer cannot be undone
    assert not is_garbling_of(w, dk)


@pytest.mark.parametrize("p,q", [(0.6, 0.2), (0.7, 0.1), (0.5, 0.3), (0.9, 0.05)])
def test_threshold_warner_mechanisms_around_dont_know(p, q):
    # Q_2x3(p, q) = warner(w) G needs (2w - 1)(g - h) = (p - q, q - p, 0) and
    # g + h = (p + q, p + q, 2d), with g, h >= 0: possible iff 2w - 1 >= (p - q)/(p + q),
    # i.e. w >= p / (p + q). The least informative Warner it garbles is warner(p / (p + q)).
    # Conversely warner(w) = Q_2x3 G' needs g1 - g2 = (2w - 1)/(p - q) <= 1, i.e.
    # w <= p + d/2 = (1 + p - q)/2: the most informative Warner obtainable from it.
    dk = dont_know(p, q).to_mechanism()
    w_low, w_high = (1 + p - q) / 2, p / (p + q)
    assert w_low <= w_high
    assert is_garbling_of(dk, warner(w_high))
    assert not is_garbling_of(dk, warner(w_high - 0.01))
    assert is_garbling_of(warner(w_low), dk)
    assert not is_garbling_of(warner(w_low + 0.01), dk)
    # warner(w) and warner(1 - w) differ by relabelling the answers (a post-processing), so
    # the picture is symmetric about 1/2
    assert is_garbling_of(dk, warner(1 - w_high))
    assert not is_garbling_of(dk, warner(1 - w_high + 0.01))
    assert is_garbling_of(warner(1 - w_low), dk)
    assert not is_garbling_of(warner(1 - w_low - 0.01), dk)


@pytest.mark.parametrize("lam,below,above", [(0.0, True, False), (0.25, True, False),
                                             (0.5, True, False), (0.6, False, False),
                                             (0.75, False, True), (1.0, False, True)])
def test_bayesian_completions_q_lambda_against_dont_know(lam, below, above):
    # Q_lambda(0.6, 0.2) = warner(0.6 + 0.2 lam): it is a garbling of Q_2x3 iff
    # 0.6 + 0.2 lam <= p + d/2 = 0.7 (lam <= 1/2), and Q_2x3 is a garbling of it iff
    # 0.6 + 0.2 lam >= p/(p + q) = 0.75 (lam >= 3/4); in between they are incomparable.
    dk = dont_know(0.6, 0.2)
    ql = q_lambda(0.6, 0.2, lam)
    assert is_garbling_of(ql, dk) is below
    assert is_garbling_of(dk, ql) is above


def test_randomized_response_order():
    # RR(1) is RR(2) plus noise; RR(2) is not a garbling of RR(1) (it would lower eps)
    for k in (2, 3):
        strong, weak = randomized_response(k, 2.0), randomized_response(k, 1.0)
        assert is_garbling_of(weak, strong)
        assert not is_garbling_of(strong, weak)
        assert garbling(strong, weak) is None
    # binary: the garbling is itself a binary RR(t), and by the sequential composition rule
    # (Huang & Canonne Lemma 4.5, tight for binary) RR(2) then RR(t) is RR(1) iff
    # (e^{2+t} + 1)/(e^2 + e^t) = e
    G = garbling(randomized_response(2, 1.0), randomized_response(2, 2.0)).matrix
    t = math.log(G[0, 0] / G[0, 1])
    assert (math.exp(2 + t) + 1) / (math.exp(2) + math.exp(t)) == pytest.approx(math.e,
                                                                               rel=1e-8)


def test_trivial_garblings():
    w = warner(0.8)
    assert is_garbling_of(w, w)
    np.testing.assert_allclose(garbling(w, w).matrix, np.eye(2), atol=1e-9)
    constant = Mechanism([[0.3, 0.7], [0.3, 0.7]])
    assert is_garbling_of(constant, w)  # a constant is a garbling of anything
    assert not is_garbling_of(w, constant)


@settings(max_examples=50, deadline=None)
@given(stochastic_matrices(rows=(2, 4), cols=(2, 4)), st.data())
def test_any_post_processing_is_found(B, data):
    # a = b @ G for a random G: the LP finds some G' with b G' = a (G' need not equal G)
    m = data.draw(st.integers(1, 4))
    G = data.draw(stochastic_matrices(rows=(B.shape[1], B.shape[1]), cols=(m, m)))
    a, b = Mechanism(B @ G), Mechanism(B)
    found = garbling(a, b)
    assert found is not None
    assert np.abs(B @ found.matrix - a.matrix).max() <= GARBLING_TOL
    assert epsilon_ldp(a) <= epsilon_ldp(b) + 1e-9  # data processing


@settings(max_examples=50, deadline=None)
@given(mechanisms(rows=(2, 2), cols=(2, 4), tiny=False),
       mechanisms(rows=(2, 2), cols=(2, 4), tiny=False))
def test_blackwell_equals_tradeoff_dominance_for_two_inputs(a, b):
    # Blackwell (1953): for two inputs, a is a garbling of b iff T_a >= T_b for both orders
    # of the pair. Compared where the margin is clear of the LP tolerance.
    gaps = [tradeoff_function(a, pair=pr)(GRID) - tradeoff_function(b, pair=pr)(GRID)
            for pr in ((0, 1), (1, 0))]
    worst = min(g.min() for g in gaps)
    assume(abs(worst) > 1e-6)
    assert is_garbling_of(a, b) == (worst > 0)


@settings(max_examples=40, deadline=None)
@given(mechanisms(rows=(2, 4), cols=(2, 4), zeros=False, tiny=False), st.data())
def test_every_ldp_pair_is_a_garbling_of_binary_rr(m, data):
    # Kairouz-Oh-Viswanath (Huang & Canonne Lemma 3.3): for any two inputs, an eps-LDP
    # randomizer restricted to them is a post-processing of binary RR(eps)
    x, xp = data.draw(st.lists(st.integers(0, m.n_inputs - 1), min_size=2, max_size=2,
                               unique=True))
    eps = epsilon_ldp(m)
    pair = Mechanism(m.matrix[[x, xp]])
    assert is_garbling_of(pair, randomized_response(2, eps))
    # and RR(eps) is never obtained from a pair that is strictly more private
    if epsilon_ldp(pair) < eps - 1e-6:
        assert not is_garbling_of(randomized_response(2, eps), pair)


def test_bad_input():
    with pytest.raises(InvalidMechanismError, match="3 inputs"):
        is_garbling_of(randomized_response(3, 1.0), warner(0.7))
    with pytest.raises(InvalidMechanismError, match=r"a: .*sums to"):
        garbling([[0.5, 0.6], [0.5, 0.5]], warner(0.7))
