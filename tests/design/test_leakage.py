"""Leakage budgets in design (:mod:`mechdesign.design.leakage`): ``leakage_constraint``.

Pinned against second methods: a Bayes-capacity budget with the Hamming loss at the
uniform prior has the optimum max(1 - c / k, k-RR's value) (derived in the test); a
multiplicative or additive g-leakage budget binds at the LP optimum written out
independently for scipy's HiGHS (pairwise LDP rows, no epigraph tricks of the library),
re-measured by :mod:`mechdesign.privacy.leakage`; a budget of one leaks nothing and answers
the prior's mode; bad budgets, kinds and gains are typed errors naming the value, and a
prior of the wrong size is refused when the design is built. The leakage objectives
(PosteriorVulnerability, MinimaxLoss) are in test_objectives.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechdesign as md
from mechdesign.design import DesignProblem, ExpectedLoss, Status, leakage_constraint
from mechdesign.errors import InvalidParameterError
from mechdesign.privacy import LDP, bayes_capacity, bayes_leakage, g_leakage, g_vulnerability
from tests.design.references import Ref, expected_loss_row


@pytest.mark.parametrize(("k", "eps", "c"), [(3, 2.0, 1.5), (4, 1.0, 1.2), (5, 3.0, 2.5),
                                             (4, 0.5, 3.0)])
def test_capacity_budget_with_hamming_loss_by_hand(k, eps, c):
    # uniform prior, Hamming loss: expected loss = 1 - (1/k) sum_x Q[x, x]
    # >= 1 - (1/k) sum_y max_x Q[x, y] >= 1 - c / k; also >= k-RR's (k - 1)/(e^eps + k - 1).
    # The optimum is the larger: capacity budget c (when below the LDP bound) is met by
    # mixing k-RR with a constant row, which attains 1 - c / k.
    res = DesignProblem(LDP(eps), ExpectedLoss(md.losses.hamming(k)),
                        constraints={"capacity": leakage_constraint(c)}).solve()
    krr = (k - 1) / (math.exp(eps) + k - 1)
    assert res.status is Status.OPTIMAL
    assert res.value == pytest.approx(max(1 - c / k, krr), abs=1e-8)
    assert bayes_capacity(res.mechanism) <= c * (1 + 1e-7)


@pytest.mark.parametrize("kind", ["multiplicative", "additive"])
@pytest.mark.parametrize("seed", range(3))
def test_leakage_budget_matches_linprog_and_the_measure(kind, seed):
    rng = np.random.default_rng(10 + seed)
    k, m, eps = 3, 3, 3.0
    prior = rng.dirichlet(np.ones(k))
    gain = rng.random((3, k)) + np.eye(k)
    L = md.losses.absolute(k)
    before = g_vulnerability(gain, prior)
    # a budget halfway between no leakage and the unconstrained optimum's leakage
    free = DesignProblem(LDP(eps), ExpectedLoss(L, prior)).solve()
    free_leak = g_leakage(gain, free.mechanism, prior, kind)
    bound = (1 + free_leak) / 2 if kind == "multiplicative" else free_leak / 2
    res = DesignProblem(LDP(eps), ExpectedLoss(L, prior), constraints={
        "leakage": leakage_constraint(bound, prior, kind=kind, gain=gain)}).solve()
    assert res.status is Status.OPTIMAL
    measured = g_leakage(gain, res.mechanism, prior, kind)
    assert measured <= bound + 1e-7 * max(1.0, bound)
    # a budget that costs utility binds (an LP optimum strictly inside it would be a local,
    # hence global, optimum of the free problem)
    assert res.value > free.value + 1e-6
    assert measured == pytest.approx(bound, rel=1e-6)
    ref = Ref(k, m, m, eps)
    ref.vulnerability_rows(prior, gain, k * m)
    row = np.zeros(ref.n)
    row[k * m:] = 1.0
    ref.add_ub(row, bound * before if kind == "multiplicative" else bound + before)
    c = np.zeros(ref.n)
    c[:k * m] = expected_loss_row(k, m, ref.n, prior, L)[:k * m]
    want = ref.solve(c, [(0, None)] * (k * m) + [(None, None)] * m)
    assert res.value == pytest.approx(want, rel=1e-7, abs=1e-9)


def test_budget_of_one_forces_a_mechanism_that_leaks_nothing():
    prior = np.array([0.2, 0.3, 0.5])
    res = DesignProblem(LDP(5.0), ExpectedLoss(md.losses.hamming(3), prior), constraints={
        "leakage": leakage_constraint(1.0, prior)}).solve()
    assert bayes_leakage(res.mechanism, prior) == pytest.approx(1.0, abs=1e-7)
    # the best such mechanism always reports the prior's mode: expected loss 1 - 0.5
    assert res.value == pytest.approx(0.5, abs=1e-8)


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: leakage_constraint(0.9), InvalidParameterError, "0.9"),
    (lambda: leakage_constraint(-0.1, [0.5, 0.5], kind="additive"), InvalidParameterError,
     "-0.1"),
    (lambda: leakage_constraint(float("nan")), InvalidParameterError, "NaN"),
    (lambda: leakage_constraint(float("inf")), InvalidParameterError, "inf"),
    (lambda: leakage_constraint(1.5, kind="odd"), InvalidParameterError, "'odd'"),
    (lambda: leakage_constraint(0.5, kind="additive"), InvalidParameterError, "capacity"),
    (lambda: leakage_constraint(1.5, [0.5, 0.5], gain=[[1, -1]]), InvalidParameterError,
     r"gain\[0, 1\] = -1"),
    (lambda: leakage_constraint(1.5, [1.0, 0.0], gain=[[0, 1]]), InvalidParameterError,
     "prior g-vulnerability is 0"),
])
def test_a_bad_budget_raises_a_typed_error_naming_the_value(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_budget_whose_prior_does_not_fit_the_design_is_refused():
    problem = DesignProblem(LDP(1.0), ExpectedLoss(md.losses.hamming(3)),
                            constraints={"leakage": leakage_constraint(1.2, [0.5, 0.5])})
    with pytest.raises(InvalidParameterError, match="2 entries for 3 inputs"):
        problem.solve()
