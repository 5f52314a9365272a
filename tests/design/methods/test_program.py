"""The global program as a method (:mod:`mechdesign.design.methods.program`).

Pinned: ``solve_program`` reaches the optimum of the naive pairwise LP (scipy's HiGHS over
every entry, a second method) for pure LDP across loss units, with either solver named,
and the closed forms of the small programs the planner sends it: approximate LDP and
deletion LDP with a Hamming loss (docs/formulations.md), the truncated geometric mechanism
with its best remap for counts under metric privacy (Ghosh, Roughgarden & Sundararajan
2012, the remap an independent LP); the optimum never worsens as epsilon grows.
"""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
import mechdesign.losses as losses
from mechdesign.design import DesignProblem, ExpectedLoss, Status
from mechdesign.design.methods.program import solve_program
from mechdesign.privacy import LDP, ApproxLDP, DeletionLDP, MetricDP
from tests.design.references import pairwise_ldp_optimum


@pytest.mark.parametrize("solver", [None, "HIGHS", "CLARABEL"])
@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
def test_solve_program_reaches_the_naive_pairwise_lp(solver, eps):
    rng = np.random.default_rng(int(10 * eps))
    L = rng.random((4, 5))
    prior = rng.dirichlet(np.ones(4))
    spec = DesignProblem(LDP(eps), ExpectedLoss(L, prior))
    res = solve_program(spec, solver, {}, None)
    assert res.status is Status.OPTIMAL and res.optimum == "global"
    assert res.gap is not None and res.gap <= 1e-6 and res.certificate.met
    assert res.solver == (solver or "HIGHS")  # 20 variables: HiGHS by default
    assert res.value == pytest.approx(pairwise_ldp_optimum(L, prior, eps), rel=1e-7)
    assert md.epsilon_ldp(res.mechanism) <= eps


@pytest.mark.parametrize("k,eps,delta", [(2, 0.5, 0.1), (4, 1.0, 0.05), (6, 0.3, 0.2)])
def test_approximate_ldp_closed_form(k, eps, delta):
    res = DesignProblem(privacy=ApproxLDP(eps, delta),
                        objective=ExpectedLoss(losses.hamming(k))).solve()
    truth = (math.exp(eps) + (k - 1) * delta) / (math.exp(eps) + k - 1)  # docs/formulations.md
    assert 1 - res.value == pytest.approx(truth, rel=1e-8)
    assert md.delta_ldp(res.mechanism, eps) <= delta + 1e-9


@pytest.mark.parametrize("k,eps", [(3, 0.5), (4, 2.0), (5, 1.0)])
def test_deletion_ldp_closed_form(k, eps):
    res = DesignProblem(privacy=DeletionLDP(eps), objective=ExpectedLoss(losses.hamming(k))
                        ).solve()
    truth = min(math.exp(eps) / k, 1 - (k - 1) * math.exp(-eps) / k)
    assert 1 - res.value == pytest.approx(truth, rel=1e-8)
    assert md.epsilon_deletion(res.mechanism).epsilon <= eps + 1e-9


def test_geometric_mechanism_is_optimal_for_counts():
    # Ghosh, Roughgarden, Sundararajan 2012: the truncated geometric mechanism followed by
    # the best remap is optimal for a count under metric privacy on the path.
    n, eps = 6, 0.5
    prior = np.array([0.1, 0.3, 0.2, 0.15, 0.15, 0.1])
    L = losses.absolute(n)
    res = DesignProblem(privacy=MetricDP(eps, md.neighbors.line_distance(n)),
                        objective=ExpectedLoss(L, prior)).solve()
    TG = md.catalog.truncated_geometric(n, eps).matrix
    G = cp.Variable((n, n), nonneg=True)  # the remap, an independent small LP
    remap = cp.Problem(cp.Minimize(cp.sum(cp.multiply(prior[:, None] * L, TG @ G))),
                       [cp.sum(G, axis=1) == 1])
    remap.solve(solver="CLARABEL")
    assert res.value == pytest.approx(remap.value, rel=1e-6)


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 4), st.integers(0, 1000), st.floats(0.1, 3.0))
def test_optimum_is_monotone_in_epsilon(k, seed, eps):
    L = np.random.default_rng(seed).random((k, k))
    lo = DesignProblem(privacy=LDP(eps), objective=ExpectedLoss(L)).solve().value
    hi = DesignProblem(privacy=LDP(eps * 1.5), objective=ExpectedLoss(L)).solve().value
    assert hi <= lo + 1e-9


def test_expected_loss_matches_the_pairwise_lp_across_units():
    rng = np.random.default_rng(11)
    for scale in (1e-9, 1.0, 1e9):
        L = rng.random((4, 4)) * scale
        prior = rng.dirichlet(np.ones(4))
        res = md.DesignProblem(md.LDP(0.7), md.ExpectedLoss(L, prior)).solve()
        ref = pairwise_ldp_optimum(L / scale, prior, 0.7) * scale
        assert res.status is Status.OPTIMAL
        # the pairwise LP's answer is a witness: never better than an optimal result
        # beyond its certified gap (plus the witness's own solver tolerance)
        assert res.value <= ref * (1 + res.gap) + 1e-9 * scale
        assert res.value == pytest.approx(ref, rel=1e-7)
