"""Tests of :mod:`mechdesign.oracles.randomized_response`: k-ary randomized response (direct
encoding) as a frequency oracle.

Pinned, each against a source other than the oracle: its support probabilities are the
k-RR closed form (Kairouz, Oh, Viswanath 2014); its matrix is the catalog's
``randomized_response``; its support estimator is the least-squares inverse estimator of the
matrix; it is unbiased for two respondents by exact enumeration; its variance at f = 0 is
Wang et al.'s (e^eps + k - 2)/(e^eps - 1)^2; its delta(eps') is the textbook closed form.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import mechdesign as md
from mechdesign import catalog
from mechdesign.oracles import RandomizedResponse


@pytest.mark.parametrize("k, eps", [(2, 1.0), (6, 0.3), (6, 2.0), (50, 0.1)])
def test_support_probabilities_are_the_k_rr_closed_form(k, eps):
    # k-RR keeps the value with probability e^eps/(e^eps + k - 1) and reports each other
    # value with probability 1/(e^eps + k - 1) (Kairouz et al. 2014); the oracle rounds its
    # noise up by at most 2^-128
    o = RandomizedResponse(k, eps)
    assert float(o.p_star) == pytest.approx(math.exp(eps) / (math.exp(eps) + k - 1), rel=1e-12)
    assert float(o.q_star) == pytest.approx(1 / (math.exp(eps) + k - 1), rel=1e-12)


@pytest.mark.parametrize("eps", [0.3, 2.0])
def test_matrix_equals_the_catalog(eps):
    mine = RandomizedResponse(6, eps).to_mechanism()
    ref = catalog.randomized_response(6, eps)
    col = {label: j for j, label in enumerate(mine.outputs)}
    order = [col[lab] for lab in ref.outputs]
    np.testing.assert_allclose(mine.matrix[:, order], ref.matrix, rtol=1e-12)


def test_k_rr_is_the_inverse_estimator():
    # k-RR is symmetric under every permutation of the values: the least-squares inverse
    # estimator of the matrix is the support estimator
    rng = np.random.default_rng(2)
    o = RandomizedResponse(6, 0.9)
    f = rng.dirichlet(np.ones(o.k))
    cov = md.estimation.covariance_inverse(o.to_mechanism(), f, 11)
    np.testing.assert_allclose(np.diag(cov), o.variance(f, 11), rtol=1e-10)


def test_unbiased_two_respondents_exact():
    o = RandomizedResponse(3, 0.5)
    M = o.to_mechanism()
    for x1, x2 in itertools.product(range(3), repeat=2):
        mean = sum(M.matrix[x1, i] * M.matrix[x2, j]
                   * o.estimate(np.array([M.outputs[i], M.outputs[j]]))
                   for i in range(M.n_outputs) for j in range(M.n_outputs))
        np.testing.assert_allclose(mean, (np.eye(3)[x1] + np.eye(3)[x2]) / 2, atol=1e-9)


def test_wang_et_al_variance_of_direct_encoding():
    # Wang et al. 2017: direct encoding (k-RR) at f_v = 0 ("fixed" model) has
    # n Var = (e^eps + k - 2)/(e^eps - 1)^2; at eps = ln 3, k = 8: 9/4
    eps, n, k = math.log(3.0), 1000, 8
    f = np.zeros(k)
    f[0] = 1.0
    value = RandomizedResponse(k, eps).variance(f, n, "fixed")[1] * n
    assert value == pytest.approx((3 + k - 2) / 4, rel=1e-12)


def test_delta_of_k_rr_is_the_textbook_closed_form():
    # k-RR at eps: delta(eps') = (e^eps - e^eps') / (e^eps + k - 1) for eps' < eps
    # (only the report y = x has P_x(y) > e^eps' P_x'(y)); the oracle's t is rounded up by
    # at most 2^-128, far below the tolerance
    o = RandomizedResponse(7, 2.0)
    for at in (0.0, 0.5, 1.5):
        want = (math.exp(2.0) - math.exp(at)) / (math.exp(2.0) + 6)
        assert md.delta_ldp(o, at) == pytest.approx(want, rel=1e-14)
