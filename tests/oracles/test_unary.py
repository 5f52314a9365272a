"""Tests of :mod:`mechdesign.oracles.unary`: symmetric (SUE) and optimised (OUE) unary
encoding as frequency oracles.

Pinned, each against a source other than the oracle: the bit probabilities are Wang et
al.'s (2017, s.4.2): SUE p = e^(eps/2)/(e^(eps/2) + 1), q = 1 - p; OUE p = 1/2,
q = 1/(e^eps + 1); the matrices are the catalog's ``unary_encoding``; the variances at f = 0
are Wang et al.'s closed forms; a report with a bit at or above k is refused.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mechdesign import catalog
from mechdesign.errors import InvalidParameterError
from mechdesign.oracles import UnaryEncoding


@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
def test_bit_probabilities_are_wang_et_al(eps):
    sue, oue = UnaryEncoding(9, eps), UnaryEncoding(9, eps, optimized=True)
    half = math.exp(eps / 2)
    assert float(sue.p_star) == pytest.approx(half / (half + 1), rel=1e-12)
    assert float(sue.q_star) == pytest.approx(1 / (half + 1), rel=1e-12)
    assert oue.p_star == 0.5
    assert float(oue.q_star) == pytest.approx(1 / (math.exp(eps) + 1), rel=1e-12)


@pytest.mark.parametrize("optimized", [False, True])
@pytest.mark.parametrize("eps", [0.3, 2.0])
def test_matrix_equals_the_catalog(eps, optimized):
    mine = UnaryEncoding(5, eps, optimized=optimized).to_mechanism()
    ref = catalog.unary_encoding(5, eps, optimized=optimized)
    col = {label: j for j, label in enumerate(mine.outputs)}
    order = [col[tuple(lab)] for lab in ref.outputs]
    np.testing.assert_allclose(mine.matrix[:, order], ref.matrix, rtol=1e-12)


def test_wang_et_al_variances():
    # Wang et al. 2017: Var* = q*(1 - q*)/(n (p* - q*)^2) at f = 0 (the "fixed" model);
    # OUE: 4 e^eps/(e^eps - 1)^2 (= 3 at eps = ln 3); SUE: e^(eps/2)/(e^(eps/2) - 1)^2
    eps, n, k = math.log(3.0), 1000, 8
    f = np.zeros(k)
    f[0] = 1.0
    oue = UnaryEncoding(k, eps, optimized=True).variance(f, n, "fixed")[1] * n
    sue = UnaryEncoding(k, eps).variance(f, n, "fixed")[1] * n
    assert oue == pytest.approx(3.0, rel=1e-12)
    assert sue == pytest.approx(math.sqrt(3) / (math.sqrt(3) - 1) ** 2, rel=1e-12)


def test_a_bit_above_k_is_refused():
    with pytest.raises(InvalidParameterError, match="report 0 sets a bit at or above k = 5"):
        UnaryEncoding(5, 1.0).support_counts(np.array([[0b100000]], dtype=np.uint8))
