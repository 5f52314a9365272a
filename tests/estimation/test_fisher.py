"""Fisher information and the Cramer-Rao bound (mechdesign.estimation.fisher).

References: the values of docs/formulations.md ("Estimation"), Warner's Eq. (1) (Li et al.
2022), the large-n limit of Thm 3.10 (docs/belief_functions.md s.6), a second
parametrisation of the simplex, and the exact covariance of the inverse estimator (a bound
must lie below it).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.estimation.fisher import cramer_rao
from mechdesign.estimation.variances import covariance_inverse, variance_dont_know, variance_warner
from tests.estimation.exact import MECHS


def test_cramer_rao_reference_values():
    # docs/formulations.md "Estimation": uniform prior, trace CR
    eps1 = md.warner(math.e / (1 + math.e))
    assert cramer_rao(eps1, [0.5, 0.5]).trace == pytest.approx(2.341347, abs=5e-7)
    ss = md.catalog.subset_selection(10, 4, 0.5)
    assert cramer_rao(ss, np.full(10, 0.1)).trace == pytest.approx(127.2172, abs=5e-5)


@pytest.mark.parametrize(("p", "pi"), [(0.75, 0.3), (0.9, 0.5), (0.3, 0.0)])
def test_cramer_rao_of_warner_is_n_times_eq_1(p, pi):
    cr = cramer_rao(md.warner(p), pi)
    assert cr.matrix[0, 0] == pytest.approx(variance_warner(p, pi, 1), rel=1e-12)
    assert cr.trace == pytest.approx(2 * variance_warner(p, pi, 1), rel=1e-12)
    assert cr.identifiable


def test_cramer_rao_of_dont_know_is_the_large_n_limit_of_thm_3_10():
    # per report: q1 q2 / (c (p-q)^2) = [-(pi-1/2)^2 + c^2/(4(p-q)^2)] / c; n nu^S -> that
    cr = cramer_rao(md.dont_know(0.6, 0.2), 0.3).matrix[0, 0]
    assert cr == pytest.approx((-(0.2 ** 2) + 0.64 / (4 * 0.16)) / 0.8, rel=1e-12)
    assert 10**6 * variance_dont_know(0.6, 0.2, 0.3, 10**6) == pytest.approx(cr, rel=1e-5)


def test_cramer_rao_matches_reduced_parametrisation():
    # second method: parametrise by the first k-1 frequencies, J = [I; -1^T],
    # Cov(first k-1) >= (J^T I J)^{-1}
    mech = MECHS[1]
    prior = np.array([0.2, 0.3, 0.5])
    cr = cramer_rao(mech, prior)
    J = np.vstack([np.eye(2), -np.ones((1, 2))])
    ref = np.linalg.inv(J.T @ cr.fisher @ J)
    np.testing.assert_allclose(cr.matrix[:2, :2], ref, rtol=1e-12)
    np.testing.assert_allclose(cr.matrix.sum(axis=1), 0, atol=1e-12)


@settings(max_examples=50, deadline=None)
@given(eps=st.floats(0.1, 3.0), a=st.floats(0.05, 0.9))
def test_cramer_rao_below_inverse_estimator_covariance(eps, a):
    mech = md.randomized_response(3, eps)
    prior = np.array([a, (1 - a) / 2, (1 - a) / 2])
    cr = cramer_rao(mech, prior)
    cov = covariance_inverse(mech, prior, 1)
    # CR is a lower bound in the Loewner order on the tangent space
    assert np.linalg.eigvalsh(cov - cr.matrix).min() >= -1e-10


def test_cramer_rao_not_identifiable_and_boundary():
    out = cramer_rao(md.Mechanism([[0.5, 0.5], [0.5, 0.5]]), 0.5)
    assert not out.identifiable and out.trace == math.inf and np.isnan(out.matrix).all()
    with pytest.raises(InvalidParameterError, match="infinite"):
        cramer_rao(md.Mechanism([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]), [1.0, 0.0])


def test_cramer_rao_records_compare_by_value():
    a = cramer_rao(md.warner(0.75), 0.3)
    assert a == cramer_rao(md.warner(0.75), [0.3, 0.7])
    assert a != cramer_rao(md.warner(0.75), 0.4)
    nan = cramer_rao(md.Mechanism([[0.5, 0.5], [0.5, 0.5]]), 0.5)
    assert nan == cramer_rao(md.Mechanism([[0.5, 0.5], [0.5, 0.5]]), 0.5)  # NaN == NaN


@pytest.mark.parametrize(("call", "needle"), [
    (lambda: cramer_rao(md.randomized_response(3, 1.0), [0.5, 0.6, -0.1]), "-0.1"),
    (lambda: cramer_rao(md.randomized_response(3, 1.0), [0.5, 0.6, 0.1]), "1.2"),
    (lambda: cramer_rao(md.randomized_response(3, 1.0), 0.5), "0.5"),
])
def test_bad_input_raises_typed_error_naming_the_value(call, needle):
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert needle in str(info.value)
