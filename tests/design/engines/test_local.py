"""The minorise-maximise engine of :mod:`mechdesign.design.engines.local`.

Pinned: its starts are reproducible row-stochastic matrices (the first one
randomized-response-like); a local optimum of mutual information under pure LDP is a
private matrix whose value is the objective's own evaluation, never above the exact
staircase optimum (a second method: the staircase LP) and, on a small problem, equal to it;
a budget spent stops it before the next start or step with the best point so far.
"""

from __future__ import annotations

import numpy as np
import pytest

import mechdesign as md
from mechdesign.design.engines import local


def test_the_starts_are_reproducible_stochastic_matrices():
    first, *others = local.starts(4, 6, seed=3, count=4)
    assert len(others) == 3
    for Q in (first, *others):
        assert Q.shape == (4, 6) and (Q > 0).all()
        np.testing.assert_allclose(Q.sum(axis=1), 1.0, rtol=1e-15)
    # randomized-response-like: three times the weight on the diagonal
    np.testing.assert_allclose(first[:, :4], (2 * np.eye(4) + 1) / 8, rtol=1e-15)
    again = local.starts(4, 6, seed=3, count=4)
    for a, b in zip(again, (first, *others), strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(local.starts(4, 6, seed=4, count=2)[1], others[0])


@pytest.mark.parametrize("eps", [0.5, 1.5])
def test_a_local_optimum_is_private_and_never_above_the_staircase_optimum(eps):
    prior = np.array([0.5, 0.3, 0.2])
    objective = md.MutualInformation(prior)
    exact = md.DesignProblem(md.LDP(eps), objective).solve()  # the staircase LP
    assert "staircase" in exact.formulation
    prob = md.DesignProblem(md.LDP(eps), objective, n_outputs=3)

    def feasible():
        fs = prob.feasible_set()
        return fs.Q, fs.constraints

    Q, value, iters, stopped = local.solve_local(
        objective, feasible, lambda p: p.solve(solver="CLARABEL"), 3, 3)
    assert not stopped and iters >= 1
    assert value == pytest.approx(objective.evaluate(Q), rel=1e-12)
    assert value <= exact.value * (1 + 1e-9)  # maximised: a local optimum is no better
    # on this small problem it reaches the global optimum from its starts (measured: to
    # 1e-9); a worse local optimum here would be a regression of the steps
    assert value == pytest.approx(exact.value, rel=1e-6)
    assert md.epsilon_ldp(md.Mechanism(Q)) <= eps * (1 + 1e-6)


def test_local_method_stops_when_its_budget_is_spent():
    # solve_local checks the budget before every start and step and keeps the best point
    from mechdesign.design.engines import local

    prob = md.DesignProblem(md.SLDP(1.0, "pl"), md.MutualInformation([0.5, 0.3, 0.2]),
                            outputs=("a", "b"))
    solves = []

    def feasible():
        fs = prob.feasible_set()
        return fs.Q, fs.constraints

    def run(p):
        solves.append(1)
        p.solve(solver="CLARABEL")

    Q, value, iters, stopped = local.solve_local(prob.objective, feasible, run, prob.k,
                                                 prob.n, expired=lambda: len(solves) >= 2)
    assert stopped and len(solves) == 2 and iters == 1  # one projection, one step
    assert value == pytest.approx(prob.objective.evaluate(Q), rel=1e-12)
    _, _, _, free = local.solve_local(prob.objective, feasible, run, prob.k, prob.n)
    assert not free
