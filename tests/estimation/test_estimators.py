"""Estimators (mechdesign.estimation.estimators): the binary survey estimators of Li et al.
2022, the inverse and projected estimators and the maximum-likelihood estimator by EM.

References: exact enumeration over every count vector with fractions.Fraction, the closed
forms of docs/belief_functions.md s.4, and for the MLE the likelihood itself (no other point
of the simplex may do better).
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
from mechdesign.errors import InvalidMechanismError, InvalidParameterError
from mechdesign.estimation.estimators import (
    estimate_dont_know,
    estimate_inverse,
    estimate_mle,
    estimate_projected,
    estimate_q_lambda,
    estimate_warner,
    inverse_matrix,
    project_simplex,
)
from tests.estimation.exact import compositions
from tests.strategies import stochastic_matrices


# ----------------------------------------------------------------------------- binary estimators
def test_dont_know_estimator_matches_fraction_formula_on_every_count_vector():
    p, q = F(3, 5), F(1, 5)
    counts = np.array(list(compositions(10, 3)))
    got = estimate_dont_know(counts, 0.6, 0.2)
    for row, value in zip(counts, got, strict=True):
        n1, n2, _ = (int(v) for v in row)
        if n1 + n2 == 0:
            assert np.isnan(value)  # undefined, never a silent 0
        else:
            assert value == pytest.approx(float((p * n1 - q * n2) / ((p - q) * (n1 + n2))),
                                          rel=1e-14, abs=1e-15)


def test_binary_estimators_return_nan_when_undefined():
    assert np.isnan(estimate_warner([0, 0], 0.75))
    assert np.isnan(estimate_q_lambda([[0, 0]], 0.6, 0.2, 0.5)[0])
    out = estimate_dont_know([[0, 0, 5], [3, 1, 1]], 0.6, 0.2)
    assert np.isnan(out[0]) and out[1] == pytest.approx((0.6 * 3 - 0.2) / (0.4 * 4))


def test_k_ary_estimators_on_uninformative_counts_give_the_unconditional_value():
    # Documented in estimate_inverse / estimate_projected / estimate_mle: counts only on the
    # "don't know" message (column (0.2, 0.2), no information) are NOT NaN for the k-ary
    # estimators. Inverse: L = pinv(Q) (Q Q^T symmetric under swapping the inputs) has
    # "don't know" row (0.5, 0.5) (inverse_matrix prints [[1.75, -.75], [-.75, 1.75],
    # [.5, .5]]); MLE: the likelihood is constant in pi, EM stays at its uniform start.
    # Only n = 0 is NaN; the paper's conditional estimator is NaN on both.
    dk = md.dont_know(0.6, 0.2)
    counts = [[0, 0, 5], [0, 0, 0]]
    for est in (estimate_inverse, estimate_projected, estimate_mle):
        out = est(dk, counts)
        np.testing.assert_allclose(out[0], [0.5, 0.5], rtol=0, atol=1e-15)
        assert np.isnan(out[1]).all()
    np.testing.assert_allclose(inverse_matrix(dk)[2], [0.5, 0.5], atol=1e-15)
    assert np.isnan(estimate_dont_know(counts, 0.6, 0.2)).all()
    # with n1 + n2 > 0 the 2-input MLE is the paper's estimator clipped to [0, 1]
    some = np.array(list(compositions(6, 3)))
    some = some[some[:, 0] + some[:, 1] > 0]
    np.testing.assert_allclose(estimate_mle(dk, some)[:, 0],
                               np.clip(estimate_dont_know(some, 0.6, 0.2), 0, 1), atol=1e-9)


# ----------------------------------------------------------------------------- k-ary estimators
def test_inverse_estimator_is_warner_for_warner():
    counts = np.array([[7, 3], [0, 10], [10, 0]])
    np.testing.assert_allclose(estimate_inverse(md.warner(0.75), counts)[:, 0],
                               estimate_warner(counts, 0.75), rtol=1e-13)
    # and the exact solve pi Q = f for a square Q
    Q = md.randomized_response(3, 0.7).matrix
    np.testing.assert_allclose(inverse_matrix(md.randomized_response(3, 0.7)), np.linalg.inv(Q),
                               rtol=1e-12)


def test_inverse_estimator_needs_full_row_rank():
    rank1 = md.Mechanism([[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(InvalidMechanismError, match="rank 1"):
        estimate_inverse(rank1, [[3, 4]])


def test_estimators_are_vectorised_over_leading_axes():
    mech = md.randomized_response(3, 1.0)
    counts = np.arange(24).reshape(2, 4, 3)
    out = estimate_inverse(mech, counts)
    assert out.shape == (2, 4, 3)
    np.testing.assert_allclose(out[1, 2], estimate_inverse(mech, counts[1, 2]), rtol=1e-14)
    assert estimate_mle(mech, counts).shape == (2, 4, 3)
    assert estimate_projected(mech, counts).shape == (2, 4, 3)
    nan_row = estimate_mle(mech, np.zeros((1, 3)))
    assert np.isnan(nan_row).all()


@settings(max_examples=80, deadline=None)
@given(v=st.lists(st.floats(-5, 5), min_size=1, max_size=6),
       z=st.lists(st.floats(0, 1), min_size=6, max_size=6))
def test_projection_onto_simplex_is_the_euclidean_projection(v, z):
    v = np.array(v)
    x = project_simplex(v)
    assert (x >= 0).all() and abs(x.sum() - 1) < 1e-12
    # variational inequality: (v - x) . (y - x) <= 0 for every y in the simplex
    y = np.array(z[: len(v)]) + 1e-3
    y /= y.sum()
    assert (v - x) @ (y - x) <= 1e-10
    np.testing.assert_allclose(project_simplex(x), x, atol=1e-14)  # idempotent


def test_projection_known_values():
    np.testing.assert_allclose(project_simplex([2.0, 0.0]), [1.0, 0.0])
    np.testing.assert_allclose(project_simplex([0.5, 0.5, 0.5]), [1 / 3] * 3)
    np.testing.assert_allclose(project_simplex([[0.6, 0.6, -1.0]]), [[0.5, 0.5, 0.0]])
    assert np.isnan(project_simplex([[np.nan, 1.0]])).all()


# ----------------------------------------------------------------------------- MLE
@pytest.mark.parametrize("n", [10])
def test_mle_by_em_is_clipped_closed_form_for_two_inputs(n):
    # two inputs: the log-likelihood is concave in pi, so the MLE on [0, 1] is the
    # unconstrained MLE clipped (Warner: n1/q1 = n2/q2; Q_2x3: docs/belief_functions.md s.4)
    counts = np.array([[k, n - k] for k in range(n + 1)])
    em = estimate_mle(md.warner(0.75), counts)[:, 0]
    np.testing.assert_allclose(em, np.clip(estimate_warner(counts, 0.75), 0, 1), atol=1e-8)
    c3 = np.array(list(compositions(n, 3)))
    c3 = c3[c3[:, 0] + c3[:, 1] > 0]
    em3 = estimate_mle(md.dont_know(0.6, 0.2).to_mechanism(), c3)[:, 0]
    np.testing.assert_allclose(em3, np.clip(estimate_dont_know(c3, 0.6, 0.2), 0, 1), atol=1e-8)


def _loglik(pi, counts, Q):
    lam = pi @ Q
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.where(counts > 0, counts * np.log(lam), 0.0).sum())


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
@settings(max_examples=60, deadline=None)
@given(Q=stochastic_matrices(rows=(2, 4), cols=(2, 5), tiny=False), data=st.data())
def test_mle_beats_every_other_distribution(Q, data):
    # the MLE maximises the likelihood over the simplex: no other point (the projected
    # inverse, the uniform prior, random points, the vertices) may do better
    mech = md.Mechanism(Q)
    k, m = Q.shape
    counts = np.array(data.draw(st.lists(st.integers(0, 40), min_size=m, max_size=m)))
    counts[Q.max(axis=0) == 0] = 0  # outputs no input produces (tested separately)
    if counts.sum() == 0:
        return
    mle = estimate_mle(mech, counts)
    assert (mle >= 0).all() and abs(mle.sum() - 1) < 1e-12
    best = _loglik(mle, counts, Q)
    rng = np.random.default_rng(0)
    others = [np.full(k, 1 / k), *np.eye(k), *rng.dirichlet(np.ones(k), size=20)]
    if np.linalg.matrix_rank(Q) == k:
        others.append(estimate_projected(mech, counts))
    for z in others:
        assert best >= _loglik(z, counts, Q) - 1e-9 * max(1.0, abs(best))


def test_mle_equals_inverse_when_the_inverse_is_a_distribution():
    # square invertible Q and an interior inverse estimate: pi Q = f is attainable, so the
    # likelihood is maximised there
    mech = md.randomized_response(3, 1.5)
    counts = np.array([[30, 50, 20], [40, 35, 25]])
    inv = estimate_inverse(mech, counts)
    assert (inv > 0).all()
    np.testing.assert_allclose(estimate_mle(mech, counts), inv, atol=1e-9)


def test_mle_accepts_weighted_counts():
    # survey weights give non-integer counts; only f = counts / n enters the likelihood, so
    # halving every count changes nothing, and the interior case still equals the inverse
    mech = md.randomized_response(3, 1.5)
    counts = np.array([30.5, 49.25, 20.25])
    np.testing.assert_allclose(estimate_mle(mech, counts / 2), estimate_mle(mech, counts),
                               atol=1e-12)
    np.testing.assert_allclose(estimate_mle(mech, counts), estimate_inverse(mech, counts),
                               atol=1e-9)


def test_mle_newton_polish_reaches_the_optimum_after_few_em_steps():
    # 3 EM steps alone are far off (rate about 1 - (2p-1)^2 at p = .55); the polish finishes
    ref = np.clip(estimate_warner([[30, 70]], 0.55), 0, 1)
    assert estimate_mle(md.warner(0.55), [[30, 70]], max_iter=3)[0, 0] == pytest.approx(
        ref, abs=1e-12)


def test_mle_warns_when_the_gap_cannot_be_certified():
    # the certified gap ln max g is >= 0 (sum_x pi_x g_x = 1), so tol < 0 cannot be met
    with pytest.warns(RuntimeWarning, match="certified gap"):
        estimate_mle(md.warner(0.75), [[30, 70]], tol=-1.0)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("call", "needle"), [
    (lambda: estimate_warner([[1, 2]], 0.5), "0.5"),
    (lambda: estimate_warner([[1, 2, 3]], 0.7), "(1, 3)"),
    (lambda: estimate_dont_know([[1, -2, 3]], 0.6, 0.2), "-2"),
    (lambda: estimate_dont_know([[1, 2, 3]], 0.3, 0.3), "0.3"),
    (lambda: estimate_q_lambda([[1, 2]], 0.4, 0.4, 0.5), "lam = 0.5"),
    (lambda: estimate_mle(md.Mechanism([[0.0, 1.0], [0.0, 1.0]]), [[1, 3]]), "column 0"),
])
def test_bad_input_raises_typed_error_naming_the_value(call, needle):
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert needle in str(info.value)


def test_all_count_vectors_helper_is_complete():
    # guard for the enumeration helper itself: C(n + 2, 2) vectors, each summing to n
    vecs = list(compositions(30, 3))
    assert len(vecs) == math.comb(32, 2) == len(set(vecs))
    assert all(sum(v) == 30 for v in vecs)
    assert set(itertools.islice(compositions(2, 2), 10)) == {(0, 2), (1, 1), (2, 0)}
