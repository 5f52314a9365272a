"""Conversions between privacy notions (Huang & Canonne, Lemmas 3.1-4.3, Cor 3.1, Thm 4.3)."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.errors import InvalidMechanismError, InvalidParameterError
from mechdesign.privacy.conversions import (
    approx_to_pure,
    approx_to_pure_epsilon,
    approx_to_pure_protocol,
    deletion_reference,
    deletion_to_replacement,
    delta_deletion_at,
    kov_decomposition,
    mix_with_uniform,
    pure_to_approx_epsilon,
    replacement_to_deletion,
    to_pure_deletion,
)


@st.composite
def mechanisms(draw, zeros=False):
    n = draw(st.integers(2, 4))
    m = draw(st.integers(2, 4))
    lo = 0.0 if zeros else 0.05
    rows = []
    for _ in range(n):
        row = draw(st.lists(st.floats(lo, 1.0), min_size=m, max_size=m))
        if sum(row) == 0:
            row[0] = 1.0
        rows.append(row)
    Q = np.array(rows)
    return md.Mechanism(Q / Q.sum(axis=1, keepdims=True))


# --------------------------------------------------------------------------- Lemma 3.1
def test_lemma_3_1_values():
    assert pure_to_approx_epsilon(1.0, 0.3) == pytest.approx(0.7)
    assert pure_to_approx_epsilon(0.2, 0.5) == 0.0
    with pytest.raises(InvalidParameterError, match="delta must lie in"):
        pure_to_approx_epsilon(1.0, 2.0)


@settings(max_examples=60, deadline=None)
@given(m=mechanisms(), frac=st.floats(0.0, 1.0))
def test_lemma_3_1_holds_on_mechanisms(m, frac):
    eps = md.epsilon_ldp(m)
    d = frac * min(eps, 1.0)
    assert md.delta_ldp(m, pure_to_approx_epsilon(eps, d)) <= d + 1e-12


# --------------------------------------------------------------------------- Lemma 3.2
def test_lemma_3_2_formula():
    # eps + ln(1 + k delta e^-eps / eta), and the binary simplification <= eps + 2 delta / eta
    v = approx_to_pure_epsilon(0.5, 0.01, 2, 0.1)
    assert v == pytest.approx(0.5 + math.log(1 + 2 * 0.01 * math.exp(-0.5) / 0.1), rel=1e-15)
    assert v <= 0.5 + 2 * 0.01 / 0.1
    with pytest.raises(InvalidParameterError, match="eta must be in"):
        approx_to_pure_epsilon(0.5, 0.01, 2, 0.0)


@settings(max_examples=60, deadline=None)
@given(m=mechanisms(zeros=True), eps=st.floats(0.0, 3.0), eta=st.floats(0.01, 1.0))
def test_lemma_3_2_transform_meets_its_bound(m, eps, eta):
    r = approx_to_pure(m, eps, eta)
    assert r.delta_in == pytest.approx(md.delta_ldp(m, eps))
    assert r.epsilon <= r.bound + 1e-9
    assert r.tv <= eta + 1e-12
    np.testing.assert_allclose(r.mechanism.matrix.sum(axis=1), 1.0, atol=1e-12)


def test_mix_with_uniform_matrix():
    m = md.Mechanism([[1.0, 0.0], [0.0, 1.0]])
    mixed = mix_with_uniform(m, 0.2)
    np.testing.assert_allclose(mixed.matrix, [[0.9, 0.1], [0.1, 0.9]], rtol=1e-15)
    assert md.epsilon_ldp(mixed) == pytest.approx(math.log(9))
    # (0, 1)-DP in the lemma's terms: eps' = ln(1 + 2 / 0.2) = ln 11 >= ln 9
    assert approx_to_pure_epsilon(0.0, 1.0, 2, 0.2) == pytest.approx(math.log(11))


# --------------------------------------------------------------------------- Lemmas 4.1-4.3
@settings(max_examples=60, deadline=None)
@given(m=mechanisms(zeros=True), eps=st.floats(0.0, 3.0), x0=st.integers(0, 3))
def test_lemma_4_1_replacement_implies_deletion(m, eps, x0):
    x0 = x0 % m.n_inputs
    ref = deletion_reference(m, x0)
    assert delta_deletion_at(m, eps, ref) <= md.delta_ldp(m, eps) + 1e-12
    g = replacement_to_deletion(eps, 0.1)
    assert (g.epsilon, g.delta, g.notion) == (eps, 0.1, "deletion")


def test_lemma_4_2_counterexample_is_tight():
    eps, delta = 0.25, 1 / 6
    cx = md.catalog.deletion_counterexample(eps, delta)
    uniform = np.full(3, 1 / 3)
    assert delta_deletion_at(cx, eps, uniform) <= delta + 1e-15
    g = deletion_to_replacement(eps, delta)
    assert g.epsilon == 0.5
    ref = float((mp.e ** mp.mpf(0.25) + 1) / 6)  # (e^eps + 1) delta, > 2 delta
    assert g.delta == pytest.approx(ref, rel=1e-15)
    assert md.delta_ldp(cx, 2 * eps) == pytest.approx(ref, rel=1e-12)
    assert md.delta_ldp(cx, 2 * eps) > 2 * delta + 0.01


@settings(max_examples=60, deadline=None)
@given(m=mechanisms(), eps=st.floats(0.0, 2.0), w=st.lists(st.floats(0.1, 1.0), min_size=4,
                                                            max_size=4))
def test_lemma_4_2_holds(m, eps, w):
    r = np.array(w[:m.n_outputs])
    r /= r.sum()
    d = delta_deletion_at(m, eps, r)
    g = deletion_to_replacement(eps, d)
    assert md.delta_ldp(m, g.epsilon) <= g.delta + 1e-12


def test_lemma_4_3_repairs_the_counterexample():
    eps = 0.25
    cx = md.catalog.deletion_counterexample(eps, 1 / 6)
    uniform = np.full(3, 1 / 3)
    rep = to_pure_deletion(cx, eps, uniform)
    Q = rep.mechanism.matrix
    assert (Q >= math.exp(-eps) / 3 - 1e-15).all() and (Q <= math.exp(eps) / 3 + 1e-15).all()
    assert delta_deletion_at(rep.mechanism, eps, uniform) <= 1e-15
    assert rep.tv <= rep.delta_in + 1e-15 and rep.delta_in <= 1 / 6 + 1e-15
    assert md.epsilon_ldp(rep.mechanism) <= 2 * eps + 1e-12  # Lemma 4.2 with delta = 0


@settings(max_examples=60, deadline=None)
@given(m=mechanisms(zeros=True), eps=st.floats(0.01, 2.0),
       w=st.lists(st.floats(0.05, 1.0), min_size=4, max_size=4))
def test_lemma_4_3_transform(m, eps, w):
    r = np.array(w[:m.n_outputs])
    r /= r.sum()
    rep = to_pure_deletion(m, eps, r)
    assert delta_deletion_at(rep.mechanism, eps, r) <= 1e-12
    assert rep.tv <= rep.delta_in + 1e-12
    assert md.epsilon_ldp(rep.mechanism) <= 2 * eps + 1e-9


def test_deletion_errors():
    cx = md.catalog.deletion_counterexample()
    with pytest.raises(InvalidParameterError, match="one probability per output"):
        delta_deletion_at(cx, 0.1, [0.5, 0.5])
    with pytest.raises(InvalidParameterError, match="probability vector"):
        to_pure_deletion(cx, 0.1, [0.5, 0.5, 0.5])
    with pytest.raises(InvalidParameterError, match="x0 = 7"):
        deletion_reference(cx, 7)


# --------------------------------------------------------------------------- Cor 3.1
@settings(max_examples=60, deadline=None)
@given(m=mechanisms(), extra=st.floats(0.0, 1.0))
def test_kov_decomposition(m, extra):
    x, xp = 0, m.n_inputs - 1
    dec = kov_decomposition(m, x, xp)
    G = dec.G.matrix
    assert (G >= 0).all() and dec.G.n_inputs == 2
    a = math.exp(dec.epsilon) / (1 + math.exp(dec.epsilon))
    np.testing.assert_allclose(dec.rr.matrix, [[a, 1 - a], [1 - a, a]], rtol=1e-14)
    np.testing.assert_allclose(dec.rr.matrix @ G, m.matrix[[x, xp]], atol=1e-12)
    assert dec.residual <= 1e-9
    looser = kov_decomposition(m, x, xp, epsilon=dec.epsilon + extra)
    np.testing.assert_allclose(looser.rr.matrix @ looser.G.matrix, m.matrix[[x, xp]],
                               atol=1e-12)


def test_kov_decomposition_of_rr_is_identity():
    # binary RR(eps) is RR(eps) followed by the identity
    dec = kov_decomposition(md.randomized_response(2, 1.3))
    np.testing.assert_allclose(dec.G.matrix, np.eye(2), atol=1e-12)


def test_kov_decomposition_errors():
    with pytest.raises(InvalidParameterError, match="below the pair's own epsilon"):
        kov_decomposition(md.randomized_response(2, 1.0), epsilon=0.5)
    with pytest.raises(InvalidParameterError, match="not eps-LDP for any finite eps"):
        kov_decomposition(md.Mechanism([[0.5, 0.5], [0.0, 1.0]]))
    with pytest.raises(InvalidParameterError, match="x_prime = 5"):
        kov_decomposition(md.warner(0.7), 0, 5)


# --------------------------------------------------------------------------- Thm 4.3
def test_bns_approx_to_pure_protocol():
    eps, d, n = 0.2, 1e-12, 100
    T = 20
    p = approx_to_pure_protocol(eps, d, n, T)
    assert p.epsilon == pytest.approx(2.0)
    assert p.bits == pytest.approx(math.log2(20))
    assert p.t_min == pytest.approx(5 * math.log(5))
    assert p.valid
    expected = n * (0.7 ** 20 + 6 * 20 * d * math.exp(eps) / (1 - math.exp(-eps)))
    assert p.tv_bound == pytest.approx(expected, rel=1e-14)
    assert not approx_to_pure_protocol(0.5, d, n, T).valid  # eps > 1/4
    assert not approx_to_pure_protocol(eps, d, n, 3).valid  # T below 5 ln(1/eps)
    with pytest.raises(InvalidParameterError, match="epsilon must be > 0"):
        approx_to_pure_protocol(0.0, d, n, T)


def test_bad_mechanism_input():
    with pytest.raises(InvalidMechanismError, match="row 0"):
        mix_with_uniform([[0.5, 0.6], [0.5, 0.5]], 0.1)


def test_kov_decomposition_of_nearly_equal_rows():
    # CI found a pair at eps ~ 1e-16 whose G row summed to 0.5: the rows' rounding divided
    # by e^eps - 1. Decomposed at max(own eps, 1e-6), G's rows sum to the pair's rows.
    rng = np.random.default_rng(0)
    for _ in range(300):
        row = rng.dirichlet(np.ones(3))
        Q = np.vstack([row, row * (1 + rng.normal(0, 1e-15, 3))])
        Q[1] /= Q[1].sum()
        dec = kov_decomposition(md.Mechanism(Q))
        assert dec.epsilon >= 1e-6
        np.testing.assert_allclose(dec.G.matrix.sum(axis=1), Q.sum(axis=1), atol=1e-12)
        np.testing.assert_allclose(dec.rr.matrix @ dec.G.matrix, Q, atol=1e-12)
