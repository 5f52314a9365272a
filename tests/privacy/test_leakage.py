"""Leakage measures of quantitative information flow (mechdesign/privacy/leakage.py).

References: Alvim, Chatzikokolakis, McIver, Morgan, Palamidessi, Smith, "The Science of
Quantitative Information Flow" (2020); Smith (FoSSaCS 2009). Hand computations are written
next to each value; invariants are checked on random mechanisms (hypothesis).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.errors import InvalidMechanismError, InvalidParameterError, SizeLimitError
from mechdesign.privacy import (
    bayes_capacity,
    bayes_leakage,
    bayes_vulnerability,
    epsilon_ldp,
    g_leakage,
    g_vulnerability,
    ldp_capacity_bound,
    min_entropy_capacity,
    min_entropy_leakage,
)
from tests.strategies import stochastic_matrices

WARNER = [[F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]]
PRIOR = [F(1, 3), F(2, 3)]


# ---------------------------------------------------------------------------- by hand
def test_warner_at_three_quarters_by_hand():
    # Warner p = 3/4, prior (1/3, 2/3). Joint pi_x C[x, y]:
    #   x = 0: (1/3 * 3/4, 1/3 * 1/4) = (1/4, 1/12)
    #   x = 1: (2/3 * 1/4, 2/3 * 3/4) = (1/6, 1/2)
    # column maxima 1/4 and 1/2: V(pi, C) = 3/4; V(pi) = max(1/3, 2/3) = 2/3;
    # multiplicative leakage (3/4) / (2/3) = 9/8, additive 3/4 - 2/3 = 1/12;
    # capacity = column maxima of C = 3/4 + 3/4 = 3/2 (uniform prior: V = 3/4, 3/4 / (1/2));
    # additive capacity: S = {0, 1}: (3/2 - 1) / 2 = 1/4; singletons: (1 - 1) / 1 = 0.
    assert bayes_vulnerability(PRIOR) == F(2, 3)
    assert bayes_vulnerability(PRIOR, WARNER) == F(3, 4)
    assert bayes_leakage(WARNER, PRIOR) == F(9, 8)
    assert bayes_leakage(WARNER, PRIOR, kind="additive") == F(1, 12)
    assert bayes_capacity(WARNER) == F(3, 2)
    assert bayes_capacity(WARNER, kind="additive") == F(1, 4)
    assert min_entropy_leakage(WARNER, PRIOR) == pytest.approx(math.log2(9 / 8), rel=1e-15)
    assert min_entropy_capacity(WARNER) == pytest.approx(math.log2(1.5), rel=1e-15)
    # the float path on the catalog's Warner mechanism (entries 0.75, 0.25 are exact)
    w = md.warner(0.75)
    assert bayes_vulnerability([1 / 3, 2 / 3], w) == pytest.approx(0.75, rel=1e-15)
    assert bayes_leakage(w, [1 / 3, 2 / 3]) == pytest.approx(9 / 8, rel=1e-15)
    assert bayes_capacity(w) == 1.5
    assert bayes_capacity(w, "additive") == 0.25


def test_exact_results_are_fractions_and_float_results_floats():
    assert isinstance(bayes_vulnerability(PRIOR, WARNER), F)
    assert isinstance(bayes_vulnerability([1 / 3, 2 / 3], WARNER), float)  # a float prior
    assert isinstance(bayes_vulnerability(PRIOR, md.warner(0.75)), float)  # a Mechanism
    assert isinstance(bayes_capacity(md.warner(0.75)), float)


def test_two_tries_gain_by_hand():
    # secrets 0, 1, 2 with prior (1/2, 1/4, 1/4); the adversary may guess two secrets
    # (actions {0,1}, {0,2}, {1,2}; gain 1 when the secret is among them): V_g(pi) = 3/4.
    # C: x=0 -> y0, x=2 -> y1, x=1 -> either with 1/2. Joint: (1/2, 0), (1/8, 1/8), (0, 1/4).
    # y0: {0,1} 5/8, {0,2} 1/2, {1,2} 1/8 -> 5/8; y1: {0,1} 1/8, {0,2} 1/4, {1,2} 3/8 -> 3/8.
    # V_g(pi, C) = 1 (two guesses always win after the output); leakage 4/3, additive 1/4.
    gain = [[1, 1, 0], [1, 0, 1], [0, 1, 1]]
    prior = [F(1, 2), F(1, 4), F(1, 4)]
    C = [[1, 0], [F(1, 2), F(1, 2)], [0, 1]]
    assert g_vulnerability(gain, prior) == F(3, 4)
    assert g_vulnerability(gain, prior, C) == 1
    assert g_leakage(gain, C, prior) == F(4, 3)
    assert g_leakage(gain, C, prior, "additive") == F(1, 4)


def test_negative_gains_have_additive_leakage_only():
    # g = [[1, -1], [0, 0]]: guess "0" (win 1 / lose 1) or abstain (0). Uniform prior:
    # V_g(pi) = max(0, 0) = 0. After Warner 3/4: y0 joint (3/8, 1/8): guess -> 1/4;
    # y1 joint (1/8, 3/8): abstain -> 0. V_g(pi, C) = 1/4, additive leakage 1/4.
    gain = [[1, -1], [0, 0]]
    half = [F(1, 2), F(1, 2)]
    assert g_leakage(gain, WARNER, half, "additive") == F(1, 4)
    with pytest.raises(InvalidParameterError, match=r"gain\[0, 1\] = -1"):
        g_leakage(gain, WARNER, half)
    # non-negative gains but V_g(pi) = 0: multiplicative leakage undefined
    with pytest.raises(InvalidParameterError, match="prior g-vulnerability is 0"):
        g_leakage([[0, 1]], WARNER, [1, 0])


def test_krr_attains_the_ldp_capacity_bound():
    # k-RR: every column maximum is e^eps / (e^eps + k - 1), k columns:
    # capacity k e^eps / (e^eps + k - 1), the bound (equality case of the proof)
    for k in (2, 3, 10, 50):
        for eps in (1e-9, 1e-3, 0.5, 1.0, 5.0, 30.0):
            C = md.randomized_response(k, eps)
            bound = ldp_capacity_bound(eps, k)
            assert bayes_capacity(C) == pytest.approx(bound, rel=1e-12)
            closed = k * math.exp(eps) / (math.exp(eps) + k - 1)
            assert bound == pytest.approx(closed, rel=1e-13)
            assert bound <= math.exp(eps) * (1 + 1e-15)
    assert ldp_capacity_bound(math.inf, 7) == 7
    assert ldp_capacity_bound(math.inf, 7, 3) == 3
    assert ldp_capacity_bound(0.0, 5) == 1.0
    assert ldp_capacity_bound(1e6, 5) == 5.0


# ---------------------------------------------------------------------------- invariants
@settings(max_examples=60, deadline=None)
@given(stochastic_matrices(rows=(1, 4), cols=(1, 5)))
def test_ldp_mechanisms_leak_at_most_the_bound(C):
    eps = epsilon_ldp(C)
    k, m = C.shape
    capacity = bayes_capacity(C)
    assert capacity <= ldp_capacity_bound(eps, k, m) * (1 + 1e-12)
    if math.isfinite(eps):
        assert capacity <= math.exp(eps) * (1 + 1e-12)
    assert 1 - 1e-12 <= capacity <= min(k, m) + 1e-12


def _priors(k: int, denominator: int):
    """Every prior with entries in multiples of 1 / denominator (Fractions)."""
    for head in itertools.product(range(denominator + 1), repeat=k - 1):
        if sum(head) <= denominator:
            yield [F(h, denominator) for h in (*head, denominator - sum(head))]


@settings(max_examples=25, deadline=None)
@given(stochastic_matrices(rows=(2, 3), cols=(2, 4)))
def test_capacities_are_the_maxima_over_priors(C):
    # exact leakage of the exact (dyadic) entries at every prior of a grid with denominator
    # 12: no grid prior exceeds the capacities, and some grid prior (the uniform prior, or
    # uniform on a subset: denominators 1, 2, 3 divide 12) attains each one exactly
    exact = [[F(v) for v in row] for row in C]
    k = len(exact)
    mult = [bayes_leakage(exact, p) for p in _priors(k, 12)]
    add = [bayes_leakage(exact, p, "additive") for p in _priors(k, 12)]
    assert max(mult) == bayes_capacity(exact)
    assert max(add) == bayes_capacity(exact, "additive")
    # floats agree with the exact values
    assert bayes_capacity(C) == pytest.approx(float(bayes_capacity(exact)), rel=1e-12)
    assert bayes_capacity(C, "additive") == pytest.approx(
        float(bayes_capacity(exact, "additive")), rel=1e-12, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(stochastic_matrices(rows=(2, 4), cols=(2, 4)), st.integers(0, 2 ** 32 - 1))
def test_random_priors_never_exceed_the_capacities(C, seed):
    rng = np.random.default_rng(seed)
    ml, ml_add = bayes_capacity(C), bayes_capacity(C, "additive")
    for prior in rng.dirichlet(np.full(C.shape[0], 0.5), size=50):
        prior = prior / prior.sum()
        assert bayes_leakage(C, prior) <= ml * (1 + 1e-12)
        assert bayes_leakage(C, prior, "additive") <= ml_add + 1e-12


@settings(max_examples=40, deadline=None)
@given(stochastic_matrices(rows=(2, 4), cols=(2, 4)), st.integers(0, 2 ** 32 - 1))
def test_identity_gain_is_bayes_and_the_miracle_theorem(C, seed):
    rng = np.random.default_rng(seed)
    k = C.shape[0]
    prior = rng.dirichlet(np.ones(k))
    prior = prior / prior.sum()
    eye = np.eye(k)
    assert g_vulnerability(eye, prior) == pytest.approx(bayes_vulnerability(prior), rel=1e-14)
    assert g_vulnerability(eye, prior, C) == pytest.approx(
        bayes_vulnerability(prior, C), rel=1e-14)
    assert g_leakage(eye, C, prior) == pytest.approx(bayes_leakage(C, prior), rel=1e-14)
    # the "miracle" theorem (Alvim et al. 2012; 2020, chapter 7): for every non-negative
    # gain and every prior the multiplicative g-leakage is at most the Bayes capacity
    gain = rng.exponential(size=(rng.integers(1, 6), k)) * (rng.random((1, k)) < 0.8)
    gain[0] += 0.1  # V_g(pi) > 0
    assert g_leakage(gain, C, prior) <= bayes_capacity(C) * (1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(stochastic_matrices(rows=(2, 4), cols=(2, 4)), stochastic_matrices(rows=(4, 4)),
       st.integers(0, 2 ** 32 - 1))
def test_post_processing_never_increases_leakage(C, G, seed):
    rng = np.random.default_rng(seed)
    G = G[: C.shape[1]] if G.shape[0] >= C.shape[1] else np.vstack(
        [G, np.tile(G[-1], (C.shape[1] - G.shape[0], 1))])
    CG = C @ G
    CG = CG / CG.sum(axis=1, keepdims=True)
    prior = rng.dirichlet(np.ones(C.shape[0]))
    prior = prior / prior.sum()
    gain = rng.normal(size=(3, C.shape[0]))
    tol = 1e-12
    assert bayes_vulnerability(prior, CG) <= bayes_vulnerability(prior, C) + tol
    assert bayes_capacity(CG) <= bayes_capacity(C) + tol
    assert bayes_capacity(CG, "additive") <= bayes_capacity(C, "additive") + tol
    assert g_vulnerability(gain, prior, CG) <= g_vulnerability(gain, prior, C) + tol
    # and never below the prior: V_g(pi, C) >= V_g(pi) (the constant mechanism's value)
    assert g_vulnerability(gain, prior, CG) >= g_vulnerability(gain, prior) - tol


def test_constant_mechanism_leaks_nothing():
    C = md.Mechanism(np.tile([0.2, 0.5, 0.3], (4, 1)))
    prior = [0.1, 0.2, 0.3, 0.4]
    assert bayes_leakage(C, prior) == pytest.approx(1.0, rel=1e-15)
    assert bayes_capacity(C) == pytest.approx(1.0, rel=1e-15)
    assert bayes_capacity(C, "additive") == pytest.approx(0.0, abs=1e-15)
    assert min_entropy_capacity(C) == pytest.approx(0.0, abs=1e-15)


def test_evidential_mechanisms_are_read_over_their_messages():
    dk = md.dont_know(0.6, 0.2)
    # messages {0}, {1}, {0,1}: rows (0.6, 0.2, 0.2) and (0.2, 0.6, 0.2); capacity
    # 0.6 + 0.6 + 0.2 = 1.4
    assert bayes_capacity(dk) == pytest.approx(1.4, rel=1e-15)
    assert bayes_capacity(dk) == bayes_capacity(dk.to_mechanism())


def test_additive_capacity_at_larger_k_matches_the_exact_enumeration():
    # k = 14 crosses the low/high split of the subset table (12 low inputs)
    rng = np.random.default_rng(7)
    C = rng.dirichlet(np.full(5, 0.3), size=14)
    C = C / C.sum(axis=1, keepdims=True)
    best = max((C[list(S)].max(axis=0).sum() - 1) / len(S)
               for r in range(1, 15) for S in itertools.combinations(range(14), r))
    assert bayes_capacity(C, "additive") == pytest.approx(best, rel=1e-13, abs=1e-15)


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: bayes_vulnerability([0.5, float("nan")]), InvalidParameterError, "nan"),
    (lambda: bayes_vulnerability([0.7, 0.7]), InvalidParameterError, "sums to 1.4"),
    (lambda: bayes_vulnerability([-0.5, 1.5]), InvalidParameterError, "-0.5"),
    (lambda: bayes_vulnerability([0.5, 0.5], np.eye(3)), InvalidParameterError, r"\(3,\)"),
    (lambda: bayes_vulnerability([F(1, 3), F(1, 3)], WARNER), InvalidParameterError,
     "sums to 0.666"),
    (lambda: bayes_vulnerability(PRIOR, [[F(1, 2), F(1, 3)], [0, 1]]), InvalidMechanismError,
     "row 0 of matrix sums to 0.833"),
    (lambda: bayes_vulnerability(PRIOR, [[0.5, 0.6], [0, 1]]), InvalidMechanismError,
     "row 0"),
    (lambda: bayes_leakage(WARNER, PRIOR, kind="log"), InvalidParameterError, "'log'"),
    (lambda: bayes_capacity(WARNER, kind="max"), InvalidParameterError, "'max'"),
    (lambda: g_vulnerability(np.eye(3), PRIOR), InvalidParameterError, r"shape \(3, 3\)"),
    (lambda: g_vulnerability([[1, float("inf")]], PRIOR), InvalidMechanismError, "inf"),
    (lambda: bayes_capacity(np.full((27, 4), 0.25), "additive"), SizeLimitError, "k = 27"),
    (lambda: ldp_capacity_bound(-1.0, 3), InvalidParameterError, "-1.0"),
    (lambda: ldp_capacity_bound(1.0, 0), InvalidParameterError, "n_inputs"),
    (lambda: ldp_capacity_bound(1.0, 3, 0), InvalidParameterError, "n_outputs"),
])
def test_bad_input_raises_a_typed_error_naming_the_value(call, error, match):
    with pytest.raises(error, match=match):
        call()
