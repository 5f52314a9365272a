"""Tests of :mod:`mechdesign.oracles.hadamard`: Hadamard response (Acharya, Sun, Zhang 2019)
as a frequency oracle.

Pinned, each against a source other than the oracle: the fast Walsh-Hadamard transform is
the product with scipy's Sylvester-Hadamard matrix; the support probabilities are
p* = e^eps/(e^eps + 1), q* = 1/2 (the paper's closed form: t = 2/(e^eps + 1)); the matrix is
the catalog's ``hadamard_response``; the estimator is unbiased for two respondents by exact
enumeration; a report outside 0..K-1 is refused.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.linalg import hadamard

from mechdesign import catalog
from mechdesign.errors import InvalidParameterError
from mechdesign.oracles import HadamardResponse
from mechdesign.oracles.hadamard import walsh_hadamard


@pytest.mark.parametrize("size", [1, 2, 8, 64])
def test_walsh_hadamard_is_the_sylvester_product(size):
    values = np.random.default_rng(size).integers(-50, 50, size)
    np.testing.assert_array_equal(walsh_hadamard(values), hadamard(size) @ values)


@pytest.mark.parametrize("k, eps", [(2, 1.0), (5, 0.3), (30, 2.5)])
def test_support_probabilities_are_the_closed_form(k, eps):
    o = HadamardResponse(k, eps)
    assert o.K == 1 << k.bit_length()  # the smallest power of two above k
    assert float(o.p_star) == pytest.approx(math.exp(eps) / (math.exp(eps) + 1), rel=1e-12)
    assert o.q_star == 0.5


@pytest.mark.parametrize("eps", [0.3, 2.0])
def test_matrix_equals_the_catalog(eps):
    mine = HadamardResponse(6, eps).to_mechanism()
    ref = catalog.hadamard_response(6, eps)
    col = {label: j for j, label in enumerate(mine.outputs)}
    order = [col[lab] for lab in ref.outputs]
    np.testing.assert_allclose(mine.matrix[:, order], ref.matrix, rtol=1e-12)


def test_unbiased_two_respondents_exact():
    o = HadamardResponse(3, 0.5)
    M = o.to_mechanism()
    for x1, x2 in itertools.product(range(3), repeat=2):
        mean = sum(M.matrix[x1, i] * M.matrix[x2, j]
                   * o.estimate(np.array([M.outputs[i], M.outputs[j]]))
                   for i in range(M.n_outputs) for j in range(M.n_outputs))
        np.testing.assert_allclose(mean, (np.eye(3)[x1] + np.eye(3)[x2]) / 2, atol=1e-9)


def test_a_report_outside_the_code_is_refused():
    with pytest.raises(InvalidParameterError, match=r"report value 8 is outside 0\.\.7"):
        HadamardResponse(5, 1.0).support_counts(np.array([8]))
