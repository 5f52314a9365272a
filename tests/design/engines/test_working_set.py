"""The LP of pairs on a working set of outputs (:mod:`mechdesign.design.engines.working_set`).

Pinned: its optimum equals the naive pairwise LP's over every entry (scipy's HiGHS, a
second method) for pure LDP; the offset form's envelopes (caps ``e^eps - 1`` and, for
deletion LDP, ``e^{2 eps} - 1`` with floor ``e^-eps`` and column maxima only while
``e^eps < min(k, m)``); the dual function bounds the optimum of the global program for ANY
multipliers (pure and deletion LDP); at the loop's own multipliers it is tight, and the
optimum uses few outputs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.design.engines.working_set import Envelope, dual_lower_bound, solve_working_set
from mechdesign.design.methods import program as program_method
from tests.design.references import pairwise_ldp_optimum


def test_the_envelopes_of_pure_and_deletion_ldp():
    # pure: t_y <= Q[x, y] <= e^eps t_y; deletion: e^-eps r <= Q[x] <= e^eps r, so
    # Q[x, y] / Q[x', y] <= e^{2 eps} with T >= e^-eps, and the maxima sum to e^eps
    ldp = Envelope.ldp(0.7)
    assert ldp.cap == pytest.approx(math.exp(0.7) - 1, rel=1e-15)
    assert ldp.floor == 0.0 and ldp.max_total is None
    assert ldp.t_lower == pytest.approx(math.exp(-0.7), rel=1e-15)
    deletion = Envelope.deletion(0.7, 5, 4)
    assert deletion.cap == pytest.approx(math.exp(1.4) - 1, rel=1e-15)
    assert deletion.floor == pytest.approx(math.exp(-0.7), rel=1e-15)
    assert deletion.max_total == pytest.approx(math.exp(0.7), rel=1e-15)
    assert Envelope.deletion(1.5, 5, 4).max_total is None  # e^1.5 = 4.48 >= min(5, 4)


@pytest.mark.parametrize("k,m", [(3, 3), (5, 4), (6, 9)])
@pytest.mark.parametrize("eps", [0.2, 1.0, 3.0])
def test_the_optimum_of_the_naive_pairwise_lp(k, m, eps):
    rng = np.random.default_rng(10 * k + m)
    L = rng.random((k, m))
    prior = rng.dirichlet(np.ones(k))
    sol = solve_working_set(prior[:, None] * L, Envelope.ldp(eps))
    ref = pairwise_ldp_optimum(L, prior, eps)
    assert sol.status == "optimal"
    assert sol.value == pytest.approx(ref, rel=1e-9, abs=1e-12)
    assert sol.bound <= ref + 1e-12
    Q = sol.Q
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, atol=1e-12)
    assert md.epsilon_ldp(md.Mechanism(Q / Q.sum(axis=1, keepdims=True))) <= eps * (1 + 1e-9)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 8), st.integers(2, 8), st.floats(0.05, 5.0), st.integers(0, 10**6),
       st.floats(-2.0, 2.0))
def test_the_dual_function_bounds_the_optimum_for_any_multipliers(k, m, eps, seed, shift):
    # G(lambda) <= optimum whatever lambda is (not only at the LP's duals)
    rng = np.random.default_rng(seed)
    L = rng.random((k, m))
    prob = md.DesignProblem(md.LDP(eps), md.ExpectedLoss(L))
    optimum = program_method.solve_program(prob, None, {}, None).value
    lam = rng.normal(shift, 1.0, k) / k
    assert dual_lower_bound(L / k, lam, Envelope.ldp(eps)) <= optimum + 1e-12


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 8), st.integers(2, 8), st.floats(0.05, 3.0), st.integers(0, 10**6),
       st.floats(-2.0, 2.0), st.floats(0.0, 3.0))
def test_the_deletion_bound_holds_for_any_multipliers(k, m, eps, seed, shift, mu):
    # deletion LDP: any lambda and any mu >= 0 (the column maxima's multiplier) bound the
    # optimum of the global program (formulate_pure_deletion, a second formulation)
    rng = np.random.default_rng(seed)
    L = rng.random((k, m))
    prob = md.DesignProblem(md.DeletionLDP(eps), md.ExpectedLoss(L))
    optimum = program_method.solve_program(prob, None, {}, None).value
    lam = rng.normal(shift, 1.0, k) / k
    envelope = Envelope.deletion(eps, k, m)
    assert (envelope.max_total is not None) == (math.exp(eps) < min(k, m))
    assert dual_lower_bound(L / k, lam, envelope, mu / k) <= optimum + 1e-12


def test_the_dual_bound_is_tight_at_the_loop_s_multipliers():
    L = np.random.default_rng(3).random((80, 80))
    sol = solve_working_set(L / 80, Envelope.ldp(1.0))
    assert sol.status == "optimal"
    assert 0 <= sol.value - sol.bound <= 1e-9 * sol.value
    assert len(sol.outputs) < 40  # the optimum uses few outputs
    np.testing.assert_allclose(sol.Q.sum(axis=1), 1.0, atol=1e-9)
