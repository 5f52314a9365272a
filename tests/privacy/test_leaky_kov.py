"""Lemma 3.3 of Huang & Canonne with delta > 0 (Kairouz, Oh, Viswanath 2015, Thm 2.2): every
(eps, delta)-indistinguishable pair of rows is leaky randomized response followed by a
post-processing. Each decomposition is re-multiplied here, and existence is held against an
independent feasibility LP."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.privacy.conversions import (
    kov_decomposition,
    leaky_kov_decomposition,
    leaky_randomized_response,
)
from mechdesign.privacy.measures import hockey_stick
from tests.strategies import stochastic_matrices

TOL = 1e-9


def pair_delta(P: np.ndarray, Pp: np.ndarray, eps: float) -> float:
    """max(H(P || P'), H(P' || P)) at e^eps, in 50-digit arithmetic."""
    with mp.workdps(50):
        e = mp.exp(mp.mpf(eps)) if math.isfinite(eps) else mp.inf
        def h(a: np.ndarray, b: np.ndarray) -> mp.mpf:
            return mp.fsum(max(mp.mpf(0), mp.mpf(float(x)) - (e * float(y) if y > 0 else 0))
                           for x, y in zip(a, b, strict=True))
        return float(max(h(P, Pp), h(Pp, P)))


def check(Q: np.ndarray, dec, x: int, xp: int) -> None:
    """The decomposition as the lemma states it, recomputed from its parts."""
    G, L = dec.G.matrix, dec.lrr.matrix
    assert G.shape == (4, Q.shape[1]) and L.shape == (2, 4)
    assert (G >= 0).all() and np.abs(G.sum(axis=1) - 1).max() <= 1e-12
    np.testing.assert_allclose(L, leaky_randomized_response(dec.epsilon, dec.delta), atol=0)
    assert np.abs(L @ G - Q[[x, xp]]).max() <= TOL


def lp_feasible(P: np.ndarray, Pp: np.ndarray, eps: float, delta: float) -> bool:
    """Is there a row-stochastic G (4 x m, G >= 0) with LRR(eps, delta) @ G = [P; P']?
    Written out for scipy from the 2 x 4 matrix, feasibility only."""
    m = len(P)
    L = leaky_randomized_response(eps, delta)
    A_eq = np.vstack([np.kron(L, np.eye(m)), np.kron(np.eye(4), np.ones(m))])
    b_eq = np.concatenate([P, Pp, np.ones(4)])
    res = linprog(np.zeros(4 * m), A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs",
                  options={"primal_feasibility_tolerance": 1e-10})
    return res.status == 0


# ------------------------------------------------------------------------------ round trips
EPSILONS = st.one_of(st.sampled_from([0.0, 1e-12, 1e-9, 1e-3, 0.5, 2.0, 30.0, 800.0, math.inf]),
                     st.floats(0.0, 20.0))


@pytest.mark.slow  # 2.5-11 s: left out of the quick and the floors runs
@settings(max_examples=300, deadline=None)
@given(Q=stochastic_matrices(rows=(2, 4), cols=(1, 5)), eps=EPSILONS, data=st.data())
def test_every_pair_is_leaky_rr_then_post_processing(Q, eps, data):
    k = Q.shape[0]
    x = data.draw(st.integers(0, k - 1))
    xp = data.draw(st.integers(0, k - 1).filter(lambda v: v != x))
    own = pair_delta(Q[x], Q[xp], eps)
    extra = data.draw(st.sampled_from([None, 0.0, 1e-12, 1e-3, 0.5]))
    delta = None if extra is None else min(1.0, own + extra)
    dec = leaky_kov_decomposition(Q, x, xp, epsilon=eps, delta=delta)
    check(Q, dec, x, xp)
    assert dec.pair == (x, xp) and dec.epsilon == eps
    # the library's delta is an upper bound (its float sum raised by its rounding bound)
    assert own - 1e-16 <= dec.pair_delta <= own + 4e-15
    assert dec.delta == (dec.pair_delta if delta is None else delta)


CATALOG = [md.randomized_response(5, 1.0), md.warner(0.8),
           md.catalog.unary_encoding(4, 1.5), md.catalog.unary_encoding(4, 1.5, optimized=True),
           md.catalog.subset_selection(5, 2, 1.0), md.catalog.hadamard_response(4, 2.0),
           md.catalog.truncated_geometric(6, 0.7), md.catalog.deletion_counterexample()]


@pytest.mark.parametrize("mech", CATALOG, ids=lambda m: m.name or "mechanism")
@pytest.mark.parametrize("fraction", [0.0, 0.3, 0.8, 1.0])
def test_catalog_mechanisms_decompose_at_a_smaller_epsilon(mech, fraction):
    # below its own epsilon a mechanism needs delta > 0 (its delta at that epsilon)
    Q = mech.matrix
    eps = fraction * md.epsilon_ldp(mech)
    for x, xp in [(0, 1), (1, 0), (0, Q.shape[0] - 1)]:
        dec = leaky_kov_decomposition(mech, x, xp, epsilon=eps)
        check(Q, dec, x, xp)
        assert dec.delta == pytest.approx(pair_delta(Q[x], Q[xp], eps), abs=1e-15)
        # delta > 0 exactly below the pair's own epsilon (measured on the two rows)
        own_eps = md.epsilon_ldp(Q[[x, xp]])
        if eps < own_eps * (1 - 1e-9):
            assert dec.delta > 0
        elif eps >= own_eps:
            assert dec.delta <= 1e-15


def test_leaky_rr_is_its_own_decomposition():
    # the lemma's mechanism itself: G is the identity (each output read as itself)
    for eps, delta in [(0.7, 0.1), (0.0, 0.3), (5.0, 1e-12), (1.0, 1.0)]:
        L = leaky_randomized_response(eps, delta)
        dec = leaky_kov_decomposition(L, epsilon=eps, delta=delta)
        if 0 < delta < 1 and eps > 0:
            np.testing.assert_allclose(dec.G.matrix[:2], np.eye(4)[:2], atol=1e-12)
            # the leak rows carry weight delta: their rounding counts at that weight (at
            # delta = 1e-12 a 1e-16 remainder is 1e-4 of the row)
            np.testing.assert_allclose(delta * dec.G.matrix[2:], delta * np.eye(4)[2:],
                                       atol=1e-15)
        check(L, dec, 0, 1)


def test_leaky_rr_has_exactly_the_advertised_privacy():
    # both hockey-stick divergences at e^eps are delta, and larger at any smaller epsilon
    for eps, delta in [(0.5, 0.01), (2.0, 0.2), (1e-6, 1e-9)]:
        L = leaky_randomized_response(eps, delta)
        assert md.delta_ldp(L, eps) == pytest.approx(delta, rel=1e-12)
        assert md.delta_ldp(L, eps * 0.9) > delta
        # the closed form: rows sum to 1, RR part in ratio e^eps
        assert L.sum(axis=1) == pytest.approx([1, 1], abs=1e-15)
        assert L[0, 0] / L[0, 1] == pytest.approx(math.exp(eps), rel=1e-12)


def test_pure_pairs_agree_with_the_binary_rr_decomposition():
    # delta = 0: rows 0 and 1 of G are Cor 3.1's post-processing (kov_decomposition), the
    # only one there is (the 2 x 2 RR matrix is invertible)
    rng = np.random.default_rng(3)
    for _ in range(50):
        Q = rng.dirichlet(np.ones(4), size=3)
        own = kov_decomposition(Q, 0, 2)
        dec = leaky_kov_decomposition(Q, 0, 2, epsilon=own.epsilon, delta=0.0)
        np.testing.assert_allclose(dec.G.matrix[:2], own.G.matrix, atol=1e-9)
        check(Q, dec, 0, 2)


@pytest.mark.parametrize("seed", range(40))
def test_existence_agrees_with_an_independent_lp(seed):
    # the decomposition exists iff both hockey-stick divergences are at most delta
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 5))
    Q = rng.dirichlet(np.ones(m) * rng.choice([0.3, 1.0, 3.0]), size=2)
    eps = float(rng.choice([0.0, 0.3, 1.0, 2.0]))
    own = pair_delta(Q[0], Q[1], eps)
    for delta in (own * 0.9 - 1e-6, own + 1e-6, min(1.0, own + 0.2)):
        if delta < 0:
            continue
        feasible = lp_feasible(Q[0], Q[1], eps, delta)
        if delta >= own:
            assert feasible
            check(Q, leaky_kov_decomposition(Q, epsilon=eps, delta=delta), 0, 1)
        else:
            assert not feasible
            with pytest.raises(InvalidParameterError, match=r"their delta at epsilon"):
                leaky_kov_decomposition(Q, epsilon=eps, delta=delta)


# ------------------------------------------------------------------------------ bad input
def test_a_pair_above_delta_is_refused_naming_its_delta():
    rr = md.randomized_response(3, 1.0)
    own = float(max(hockey_stick(rr.matrix[0], rr.matrix[2], 0.5),
                    hockey_stick(rr.matrix[2], rr.matrix[0], 0.5)))
    assert own == pytest.approx(pair_delta(rr.matrix[0], rr.matrix[2], 0.5), abs=1e-15)
    with pytest.raises(InvalidParameterError,
                       match=rf"inputs 0 and 2 are not \(0.5, 0.1\)-indistinguishable: their "
                             rf"delta at epsilon = 0.5 is {own!r} > 0.1"):
        leaky_kov_decomposition(rr, 0, 2, epsilon=0.5, delta=0.1)


@pytest.mark.parametrize("kwargs, match", [
    ({"epsilon": -1.0}, r"epsilon must be >= 0, got -1.0"),
    ({"epsilon": math.nan}, r"epsilon must not be NaN"),
    ({"epsilon": 1.0, "delta": 1.5}, r"delta must lie in \[0, 1\], got 1.5"),
    ({"epsilon": 1.0, "delta": -0.1}, r"delta must lie in \[0, 1\], got -0.1"),
    ({"epsilon": 1.0, "x": 3}, r"x = 3 is outside 0..2"),
    ({"epsilon": 1.0, "x_prime": 0}, r"two different inputs, got both = 0"),
    ({"epsilon": 1.0, "x": 1.0}, r"x must be an integer, got 1.0"),
])
def test_bad_input_is_refused_naming_the_value(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        leaky_kov_decomposition(md.randomized_response(3, 1.0), **kwargs)
    if "x" not in kwargs and "x_prime" not in kwargs:
        with pytest.raises(InvalidParameterError, match=match):
            leaky_randomized_response(kwargs["epsilon"], kwargs.get("delta", 0.1))
