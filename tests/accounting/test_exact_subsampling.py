"""Tests of :mod:`mechdesign.accounting.exact_subsampling`: the exact subsampled finite
randomizer ``Q_p = p Q + (1 - p) r`` and its privacy (docs/accounting.md s.7).

Pinned: k-RR mixed with one of its own rows meets Huang & Canonne's Thm 6.1,
ln(1 + p (e^eps - 1)), exactly, and mixed with the uniform row is strictly below it (closed
form); the null output scales the replacement delta by p and does not amplify pure epsilon;
the exact epsilon is under the theorem, tight when the reference is a worst denominator,
monotone in p; the approximate theorem holds on the matrix; a subsampled RR composes
exactly under the per-step bound (against the optimal composition theorem); bad input is a
typed error and labels stay unique.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.accounting import (
    compose,
    exact_subsampling_epsilon,
    optimal_composition_delta,
    subsampled_mechanism,
    subsampling_bound,
)
from mechdesign.errors import InvalidParameterError
from mechdesign.privacy import (
    deletion_delta_at,
    delta_ldp,
    epsilon_deletion,
    epsilon_ldp,
    worst_log_ratio,
)
from tests.strategies import mechanisms


def closed_form(eps, p):
    """Huang & Canonne Thm 6.1: ln(1 + p (e^eps - 1))."""
    return math.log1p(p * math.expm1(eps))


# =========================================================================== subsampling
@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("eps", [1e-3, 0.1, 1.0, 5.0, 10.0])
@pytest.mark.parametrize("p", [1e-6, 0.01, 0.5, 1.0])
def test_krr_mixed_with_a_row_meets_the_theorem_exactly(k, eps, p):
    # r = Q[x0]: the column y = x (x != x0) has Q[x, y] / r_y = e^eps, so the theorem is an
    # equality (derivation in docs/accounting.md s.7); the row x0 of Q_p is r itself
    rr = md.randomized_response(k, eps)
    s = exact_subsampling_epsilon(rr, p, rr.matrix[0])
    assert s.epsilon_input == pytest.approx(eps, rel=1e-13)
    assert s.bound == pytest.approx(closed_form(eps, p), rel=1e-13)
    assert s.epsilon == pytest.approx(closed_form(eps, p), rel=1e-11)
    assert s.epsilon_replacement == pytest.approx(closed_form(eps, p), rel=1e-11)
    Qp = subsampled_mechanism(rr, p, rr.matrix[0])
    assert Qp.shape == (k, k) and (Qp.matrix[0] == rr.matrix[0]).all()


@pytest.mark.parametrize("k, eps, p", [(2, 1.0, 0.5), (3, 0.1, 0.01), (4, 5.0, 0.3)])
def test_krr_mixed_with_uniform_is_strictly_below_the_theorem(k, eps, p):
    # column y: max_x Q_p = p alpha + (1-p)/k, min_x = p beta + (1-p)/k, absent row 1/k
    a = math.exp(eps)
    alpha, beta = a / (a + k - 1), 1 / (a + k - 1)
    exact = math.log((p * alpha + (1 - p) / k) / (p * beta + (1 - p) / k))
    s = exact_subsampling_epsilon(md.randomized_response(k, eps), p, np.full(k, 1 / k))
    assert s.epsilon == pytest.approx(exact, rel=1e-12)
    assert s.epsilon < s.bound - 1e-3 * s.bound
    assert s.epsilon_input == pytest.approx(eps, rel=1e-13)  # Q/r = k alpha < e^eps


def test_null_output_does_not_amplify_pure_epsilon():
    rr = md.randomized_response(3, 1.0)
    s = exact_subsampling_epsilon(rr, 0.1)  # reference "null"
    assert s.epsilon == math.inf and s.epsilon_input == math.inf and s.bound == math.inf
    assert s.epsilon_replacement == pytest.approx(epsilon_ldp(rr), rel=1e-15)
    Qp = subsampled_mechanism(rr, 0.1)
    assert Qp.outputs == (0, 1, 2, "null")
    assert Qp.matrix[:, -1] == pytest.approx([0.9] * 3)


@settings(max_examples=60, deadline=None)
@given(m=mechanisms(zeros=True, tiny=False), p=st.floats(0.0, 1.0),
       eps=st.floats(0.0, 3.0))
def test_null_output_scales_the_replacement_delta_by_p(m, p, eps):
    # H(p P + (1-p) e_null || p P' + (1-p) e_null) = p H(P || P')  (the null terms cancel)
    assert delta_ldp(subsampled_mechanism(m, p), eps) == pytest.approx(p * delta_ldp(m, eps),
                                                             rel=1e-12, abs=1e-15)


@settings(max_examples=80, deadline=None)
@given(m=mechanisms(zeros=False, tiny=False), p=st.floats(0.0, 1.0),
       which=st.sampled_from(["row", "mean", "deletion"]))
def test_exact_subsampled_epsilon_under_the_theorem(m, p, which):
    Q = m.matrix
    r = {"row": Q[0], "mean": Q.mean(axis=0),
         "deletion": epsilon_deletion(m).reference}[which]
    s = exact_subsampling_epsilon(m, p, r)
    # eps_in by its definition, from the entries
    eps_in = max(epsilon_ldp(m), float(np.max(np.abs(np.log(Q / r[None, :])))))
    assert s.epsilon_input == pytest.approx(eps_in, rel=1e-9, abs=1e-15)
    assert s.epsilon <= s.bound * (1 + 1e-9) + 1e-15
    assert s.epsilon_replacement <= s.epsilon + 1e-15
    # also the exact deletion epsilon (best reference) of the mixture
    assert epsilon_deletion(subsampled_mechanism(m, p, r)).epsilon <= s.bound * (1 + 1e-9) + 1e-15


@settings(max_examples=60, deadline=None)
@given(m=mechanisms(zeros=False, tiny=False), p=st.floats(0.0, 1.0))
def test_theorem_tight_when_the_reference_is_a_worst_denominator(m, p):
    # a worst ratio Q[x, y] / Q[x', y] = e^eps: with r = Q[x'] the column y reaches
    # 1 + p(e^eps - 1) on the pair (x, x')
    w = worst_log_ratio(m.matrix, m.matrix)
    s = exact_subsampling_epsilon(m, p, m.matrix[w.x_prime])
    assert s.epsilon == pytest.approx(s.bound, rel=1e-9, abs=1e-14)


@settings(max_examples=50, deadline=None)
@given(m=mechanisms(zeros=False, tiny=False), p1=st.floats(0.0, 1.0), p2=st.floats(0.0, 1.0),
       eps=st.floats(0.0, 2.0))
def test_subsampled_privacy_monotone_in_p(m, p1, p2, eps):
    lo, hi = sorted((p1, p2))
    r = m.matrix.mean(axis=0)
    assert exact_subsampling_epsilon(m, lo, r).epsilon \
        <= exact_subsampling_epsilon(m, hi, r).epsilon * (1 + 1e-12) + 1e-15
    a = subsampled_mechanism(m, lo, r, absent=True)
    b = subsampled_mechanism(m, hi, r, absent=True)
    assert delta_ldp(a, eps) <= delta_ldp(b, eps) + 1e-14


@settings(max_examples=50, deadline=None)
@given(m=mechanisms(zeros=False, tiny=False), p=st.floats(0.0, 1.0), eps=st.floats(0.0, 2.0))
def test_approximate_subsampling_theorem_on_the_matrix(m, p, eps):
    # Q is (eps, d)-LDP and (eps, d)-deletion w.r.t. r  =>  Q_p (with r as the absent row)
    # is (ln(1 + p(e^eps - 1)), p d)-LDP  (Thm 6.1, docs/accounting.md s.7)
    r = m.matrix.mean(axis=0)
    d = max(delta_ldp(m, eps), deletion_delta_at(m.matrix, r, eps))
    ext = subsampled_mechanism(m, p, r, absent=True)
    assert delta_ldp(ext, closed_form(eps, p)) <= p * d + 1e-13


@pytest.mark.parametrize("k_fold", [1, 10, 100])
def test_subsampled_rr_composes_exactly_under_the_per_step_bound(k_fold):
    rr = md.randomized_response(2, 1.0)
    p = 0.1
    Qp = subsampled_mechanism(rr, p, rr.matrix[0])
    eps_step = closed_form(1.0, p)
    assert epsilon_ldp(Qp) == pytest.approx(eps_step, rel=1e-12)
    comp = compose(Qp, k_fold)
    assert comp.exact
    for eps in (0.0, 0.5 * eps_step * math.sqrt(k_fold), eps_step * k_fold / 2):
        exact = comp.delta(eps).delta
        kov = optimal_composition_delta(eps_step, k_fold, eps)  # optimal for eps_step-DP
        assert exact <= kov + 1e-14
    # the subsampled pair is not RR(eps_step) (its lower ratio is smaller), so strictly below
    eps = 0.2 * eps_step * k_fold
    assert comp.delta(eps).delta < optimal_composition_delta(eps_step, k_fold, eps) - 1e-6


def test_subsampling_bad_input():
    rr = md.randomized_response(2, 1.0)
    with pytest.raises(InvalidParameterError, match="p must lie in"):
        subsampled_mechanism(rr, 1.5)
    with pytest.raises(InvalidParameterError, match="nan"):
        subsampled_mechanism(rr, math.nan)
    with pytest.raises(InvalidParameterError, match="'bogus'"):
        subsampled_mechanism(rr, 0.5, "bogus")
    with pytest.raises(InvalidParameterError, match="shape"):
        subsampled_mechanism(rr, 0.5, [1.0])
    with pytest.raises(InvalidParameterError, match="sums to"):
        subsampled_mechanism(rr, 0.5, [0.5, 0.6])
    with pytest.raises(InvalidParameterError, match=r"-0\.5"):
        exact_subsampling_epsilon(rr, 0.5, [1.5, -0.5])


def test_subsample_labels_stay_unique():
    m = md.Mechanism([[0.5, 0.5], [0.25, 0.75]], inputs=["absent", "b"], outputs=["null", 1])
    Qp = subsampled_mechanism(m, 0.5, absent=True)
    assert Qp.outputs == ("null", 1, "null'") and Qp.inputs == ("absent", "b", "absent'")


def test_subsampling_closed_form_still_matches():  # the bound used above is the library's
    assert subsampling_bound(1.0, 0.0, 0.1).epsilon == pytest.approx(closed_form(1.0, 0.1),
                                                                     rel=1e-15)
