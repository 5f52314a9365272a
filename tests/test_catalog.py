"""The catalog: each matrix against an independent construction and its nominal epsilon."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

from mechdesign import (
    EvidentialMechanism,
    Mechanism,
    deletion_counterexample,
    dont_know,
    epsilon_ldp,
    epsilon_metric,
    hadamard_response,
    line_distance,
    q_lambda,
    randomized_response,
    subset_selection,
    truncated_geometric,
    unary_encoding,
    warner,
)
from mechdesign.catalog import CATALOG, MAX_UNARY_K

EPS = st.floats(0.0, 8.0)


def assert_rows_sum_to_one(m: Mechanism) -> None:
    np.testing.assert_allclose(m.matrix.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert (m.matrix >= 0).all()


def test_catalog_lists_every_constructor():
    assert set(CATALOG) == {"warner", "randomized_response", "dont_know", "q_lambda",
                            "unary_encoding", "subset_selection", "hadamard_response",
                            "truncated_geometric", "deletion_counterexample"}


# --------------------------------------------------------------------------- warner / DK / Q_lambda


def test_warner_matrix_and_labels():
    w = warner(0.75)
    np.testing.assert_array_equal(w.matrix, [[0.75, 0.25], [0.25, 0.75]])
    assert w.inputs == ("P", "notP") and w.outputs == ("Yes", "No")
    assert epsilon_ldp(w) == pytest.approx(math.log(3), abs=1e-15)
    # p < 1/2 is the same mechanism with the answers swapped: eps = |ln(p/(1-p))|
    assert epsilon_ldp(warner(0.25)) == pytest.approx(math.log(3), abs=1e-15)
    assert epsilon_ldp(warner(0.5)) == 0.0


def test_dont_know_matrix():
    dk = dont_know(0.6, 0.2)
    assert isinstance(dk, EvidentialMechanism)
    # s.4: rows [p, q, 1-p-q] and [q, p, 1-p-q] over {Yes}, {No}, {Yes, No}
    np.testing.assert_allclose(dk.masses, [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2]], rtol=0,
                               atol=1e-15)
    assert dk.focal_sets == (frozenset({"Yes"}), frozenset({"No"}), frozenset({"Yes", "No"}))
    assert dk.inputs == ("P", "notP")


@settings(max_examples=80, deadline=None)
@given(st.floats(0.5, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_q_lambda_matrix_endpoints_and_epsilon(p, t, lam):
    q = t * (1 - p)
    d = 1 - p - q
    m = q_lambda(p, q, lam)
    assert_rows_sum_to_one(m)
    # s.4: Q_lambda = [[p + lam d, q + (1-lam) d], [q + (1-lam) d, p + lam d]]
    a, b = p + lam * d, q + (1 - lam) * d
    np.testing.assert_allclose(m.matrix, [[a, b], [b, a]], rtol=0, atol=1e-15)
    # endpoints: Q_0 = warner(p), Q_1 = warner(1 - q)
    np.testing.assert_allclose(q_lambda(p, q, 0.0).matrix, warner(p).matrix, rtol=0, atol=1e-15)
    np.testing.assert_allclose(q_lambda(p, q, 1.0).matrix, warner(1 - q).matrix, rtol=0,
                               atol=1e-15)
    # eps_lambda = ln((p + lam d) / (q + (1 - lam) d)), here a >= b since p >= 1/2 >= q + d
    if b > 1e-6:
        assert epsilon_ldp(m) == pytest.approx(math.log(a / b), abs=1e-9)


def test_q_lambda_reference_values():
    # s.4 sanity example p = .6, q = .2 (d = .2): eps^O = eps(Q_0) = ln 1.5,
    # eps^W = eps(Q_1) = ln((1-q)/q) = ln 4, and Q_.5 = warner(.7): ln(.7/.3)
    assert epsilon_ldp(q_lambda(0.6, 0.2, 0.0)) == pytest.approx(math.log(1.5), abs=1e-12)
    assert epsilon_ldp(q_lambda(0.6, 0.2, 1.0)) == pytest.approx(math.log(4), abs=1e-12)
    assert epsilon_ldp(q_lambda(0.6, 0.2, 0.5)) == pytest.approx(math.log(7 / 3), abs=1e-12)


# --------------------------------------------------------------------------- k-ary mechanisms


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 8), EPS)
def test_randomized_response(k, eps):
    m = randomized_response(k, eps)
    assert m.shape == (k, k)
    assert_rows_sum_to_one(m)
    # KOV16: e^eps / (e^eps + k - 1) on the diagonal, 1 / (e^eps + k - 1) elsewhere
    z = math.exp(eps) + k - 1
    expected = np.full((k, k), 1 / z)
    np.fill_diagonal(expected, math.exp(eps) / z)
    np.testing.assert_allclose(m.matrix, expected, rtol=1e-13)
    assert epsilon_ldp(m) == pytest.approx(eps, abs=1e-12)


def unary_brute(k: int, p: float, q: float) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """P(v | x) = prod_i Bernoulli(v_i; p if i == x else q), over all 2^k bit vectors."""
    outputs = list(itertools.product((0, 1), repeat=k))
    Q = np.empty((k, len(outputs)))
    for x in range(k):
        for j, v in enumerate(outputs):
            Q[x, j] = math.prod((p if i == x else q) if bit else (1 - (p if i == x else q))
                                for i, bit in enumerate(v))
    return Q, outputs


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), EPS, st.booleans())
def test_unary_encoding(k, eps, optimized):
    m = unary_encoding(k, eps, optimized=optimized)
    if optimized:  # OUE (Wang et al. 2017): p = 1/2, q = 1/(1 + e^eps)
        p, q = 0.5, 1 / (1 + math.exp(eps))
    else:  # symmetric: p = e^(eps/2) / (1 + e^(eps/2)), q = 1 - p
        p = math.exp(eps / 2) / (1 + math.exp(eps / 2))
        q = 1 - p
    Q, outputs = unary_brute(k, p, q)
    assert m.outputs == tuple(outputs)
    np.testing.assert_allclose(m.matrix, Q, rtol=1e-12, atol=1e-300)
    assert_rows_sum_to_one(m)
    # worst ratio: bit x on, bit x' off: (p/q) ((1-q)/(1-p)) = e^eps for both variants
    assert epsilon_ldp(m) == pytest.approx(eps, abs=1e-9)


def test_unary_encoding_size_limit_is_documented_k():
    m = unary_encoding(MAX_UNARY_K, 1.0, optimized=True)
    assert m.shape == (MAX_UNARY_K, 2 ** MAX_UNARY_K)
    assert epsilon_ldp(m) == pytest.approx(1.0, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 7), st.data(), EPS)
def test_subset_selection(k, data, eps):
    d = data.draw(st.integers(1, k - 1))
    m = subset_selection(k, d, eps)
    subsets = list(itertools.combinations(range(k), d))
    assert m.outputs == tuple(subsets)
    assert_rows_sum_to_one(m)
    # Ye & Barg 2018: e^eps [x in S] + [x not in S] over C(k-1, d-1) e^eps + C(k-1, d)
    z = math.comb(k - 1, d - 1) * math.exp(eps) + math.comb(k - 1, d)
    for x in range(k):
        for j, S in enumerate(subsets):
            expected = (math.exp(eps) if x in S else 1.0) / z
            assert m.matrix[x, j] == pytest.approx(expected, rel=1e-12)
    assert epsilon_ldp(m) == pytest.approx(eps, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 20), EPS)
def test_hadamard_response(k, eps):
    m = hadamard_response(k, epsilon=eps)
    K = 1
    while K <= k:  # smallest power of two > k
        K *= 2
    assert m.shape == (k, K)
    H = scipy.linalg.hadamard(K)
    C = H[1:k + 1] == 1  # row 0 (all ones) is skipped; |C_x| = K/2
    assert (C.sum(axis=1) == K // 2).all()
    hi = math.exp(eps) / ((K / 2) * (math.exp(eps) + 1))
    lo = 1 / ((K / 2) * (math.exp(eps) + 1))
    np.testing.assert_allclose(m.matrix, np.where(C, hi, lo), rtol=1e-12)
    assert_rows_sum_to_one(m)
    assert epsilon_ldp(m) == pytest.approx(eps, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 9), st.floats(0.0, 4.0))
def test_truncated_geometric(n, eps):
    m = truncated_geometric(n, eps)
    assert m.inputs == m.outputs == tuple(range(n))
    assert_rows_sum_to_one(m)
    a = math.exp(-eps)
    for x in range(n):  # Ghosh-Roughgarden-Sundararajan 2012
        for y in range(n):
            if y == 0:
                expected = a ** x / (1 + a)
            elif y == n - 1:
                expected = a ** (n - 1 - x) / (1 + a)
            else:
                expected = (1 - a) / (1 + a) * a ** abs(x - y)
            assert m.matrix[x, y] == pytest.approx(expected, rel=1e-12, abs=1e-300)
    # metric privacy with |x - x'|: exactly eps; over all inputs: (n - 1) eps
    assert epsilon_metric(m, line_distance(n)) == pytest.approx(eps, abs=1e-9)
    assert epsilon_metric(m, nx.path_graph(n)) == pytest.approx(eps, abs=1e-9)
    assert epsilon_ldp(m) == pytest.approx((n - 1) * eps, abs=1e-9)


def test_line_distance():
    np.testing.assert_array_equal(line_distance(3), [[0, 1, 2], [1, 0, 1], [2, 1, 0]])


def test_epsilon_zero_gives_uniform_rows():
    for m in (randomized_response(4, 0.0), hadamard_response(5, 0.0),
              subset_selection(5, 2, 0.0), unary_encoding(3, 0.0)):
        assert epsilon_ldp(m) == 0.0
        assert (m.matrix == m.matrix[0]).all()


def test_deletion_counterexample_rows():
    # Huang & Canonne Lemma 4.2: R(0) = [e^eps/3, e^-eps(1/3 - delta), rest],
    # R(1) = [e^-eps/3, e^eps/3 + delta, rest], eps = 1/4, delta = 1/6
    a, b = math.exp(0.25), math.exp(-0.25)
    R = deletion_counterexample()
    assert R.outputs == (1, 2, 3)
    np.testing.assert_allclose(R.matrix[0], [a / 3, b / 6, 1 - a / 3 - b / 6], rtol=1e-14)
    np.testing.assert_allclose(R.matrix[1], [b / 3, a / 3 + 1 / 6, 1 - b / 3 - a / 3 - 1 / 6],
                               rtol=1e-14)


def test_catalog_names_have_docstrings_with_a_source():
    for name, ctor in CATALOG.items():
        doc = ctor.__doc__ or ""
        assert any(ch.isdigit() for ch in doc), name  # a year, section or lemma number
