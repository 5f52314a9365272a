"""The objectives (:mod:`mechdesign.design.objectives`), their numpy and cvxpy faces.

Pinned: each ``evaluate`` against the definition computed here (expected and worst-case
loss by hand, mutual information from the joint law, the A criterion from the Fisher
information, a custom objective on the constant matrix, the minimax criteria and worst
prior); losses compiled in unit range (``unit_range``), so the design does not depend on
their units or offset; SublinearUtility (KL is maximised by Warner's mechanism, eps
tanh(eps / 2); the column utility of mutual information gives mutual information's optimum,
under the staircase theorem and locally; Bayes vulnerability's optimum is the capacity
bound / k); the leakage objectives against LPs written out for scipy's HiGHS
(PosteriorVulnerability under a utility budget and by hand, MinimaxLoss over a finite set
and over a box through its vertices, the whole simplex being the worst case); bad priors,
criteria, weights, gains and boxes are typed errors naming the value.
"""

from __future__ import annotations

import itertools
import math

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import linprog

import mechdesign as md
from mechdesign.design import (
    DesignProblem,
    EstimationVariance,
    ExpectedLoss,
    MinimaxEstimation,
    MinimaxLoss,
    MutualInformation,
    PosteriorVulnerability,
    Status,
    WorstCaseLoss,
)
from mechdesign.design.objectives import CustomObjective, unit_range
from mechdesign.errors import InvalidMechanismError, InvalidParameterError
from mechdesign.privacy import (
    LDP,
    DeletionLDP,
    bayes_vulnerability,
    epsilon_ldp,
    g_leakage,
    g_vulnerability,
)
from tests.design.references import GAP_TOL, Ref, a_criterion, expected_loss_row

PRIORS3 = np.array([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]])
Q34 = np.array([[0.5, 0.2, 0.2, 0.1], [0.1, 0.6, 0.1, 0.2], [0.25, 0.25, 0.25, 0.25]])
L34 = np.array([[0.0, 1.0, 2.0, 4.0], [3.0, 0.0, 1.0, 0.5], [2.0, 2.0, 0.0, 1.0]])


def test_the_loss_objectives_evaluate_their_definitions():
    prior = np.array([0.2, 0.5, 0.3])
    rows = [0.5 * 0 + 0.2 * 1 + 0.2 * 2 + 0.1 * 4, 0.1 * 3 + 0.6 * 0 + 0.1 * 1 + 0.2 * 0.5,
            0.25 * (2 + 2 + 0 + 1)]  # each input's expected loss, by hand
    assert ExpectedLoss(L34, prior).evaluate(Q34) == pytest.approx(
        0.2 * rows[0] + 0.5 * rows[1] + 0.3 * rows[2], rel=1e-15)
    assert ExpectedLoss(L34).evaluate(Q34) == pytest.approx(sum(rows) / 3, rel=1e-15)
    assert WorstCaseLoss(L34).evaluate(Q34) == pytest.approx(max(rows), rel=1e-15)
    assert (ExpectedLoss(L34).n_inputs, ExpectedLoss(L34).n_outputs) == (3, 4)


def test_losses_compile_in_unit_range():
    unit, a, b = unit_range(L34)
    assert (a, b) == (4.0, 0.0)
    np.testing.assert_array_equal(unit, L34 / 4)
    unit, a, b = unit_range(3 * L34 - 7)
    assert (a, b) == (12.0, -7.0) and unit.min() == 0.0 and unit.max() == 1.0
    unit, a, b = unit_range(np.full((2, 2), 5.0))  # constant: a = 1
    assert (a, b) == (1.0, 5.0) and not unit.any()
    assert ExpectedLoss(3 * L34 - 7).scaling() == (12.0, -7.0)


def test_mutual_information_is_the_joint_law_s():
    prior = np.array([0.2, 0.5, 0.3])
    joint = prior[:, None] * Q34
    outputs = joint.sum(axis=0)
    mi = sum(joint[x, y] * math.log(joint[x, y] / (prior[x] * outputs[y]))
             for x in range(3) for y in range(4))
    assert MutualInformation(prior).evaluate(Q34) == pytest.approx(mi, rel=1e-12)
    assert MutualInformation(prior).evaluate(np.full((3, 2), 0.5)) == 0.0  # independent
    assert MutualInformation(prior).sense == "maximize"


def test_the_estimation_criterion_is_the_definition_s():
    prior = np.array([0.2, 0.5, 0.3])
    assert EstimationVariance(prior).evaluate(Q34) == pytest.approx(
        a_criterion(Q34, prior), rel=1e-10)


def test_a_custom_objective_is_its_expression_at_the_matrix():
    target = np.full((3, 4), 0.25)
    objective = CustomObjective(lambda Q: cp.sum_squares(Q - target))
    assert objective.evaluate(Q34) == pytest.approx(float(((Q34 - target) ** 2).sum()),
                                                    rel=1e-12)
    assert objective.sense == "minimize"
    mine = CustomObjective(lambda Q: cp.sum(Q), "maximize", evaluate_fn=lambda Q: 42.0)
    assert mine.evaluate(Q34) == 42.0 and mine.sense == "maximize"
    with pytest.raises(InvalidParameterError, match="'sideways'"):
        CustomObjective(lambda Q: cp.sum(Q), "sideways")
    with pytest.raises(InvalidParameterError, match="not a cvxpy expression"):
        CustomObjective(lambda Q: 3.0).expression(cp.Variable((2, 2)))


def _kl_columns(S):
    """mu(q) = q_0 ln(q_0 / q_1): KL(row 0 || row 1), convex and positively homogeneous."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(S[0] > 0, S[0] * np.log(S[0] / S[1]), 0.0)


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.5])
def test_sublinear_utility_kl_is_maximised_by_warner(eps):
    # KL(Q[0] || Q[1]) under eps-LDP: Warner, with value (2p - 1) eps = eps tanh(eps / 2)
    res = DesignProblem(privacy=LDP(eps), objective=md.design.SublinearUtility(_kl_columns, k=2)
                        ).solve()
    assert res.optimum == "global"
    assert res.value == pytest.approx(eps * math.tanh(eps / 2), rel=1e-9)


def test_sublinear_utility_matches_mutual_information():
    prior = np.array([0.2, 0.3, 0.5])
    mi = MutualInformation(prior)
    custom = md.design.SublinearUtility(mi.column_utility, k=3)
    a = DesignProblem(privacy=LDP(1.0), objective=mi).solve()
    b = DesignProblem(privacy=LDP(1.0), objective=custom).solve()
    assert a.value == pytest.approx(b.value, rel=1e-12)
    # and locally, under a notion without the staircase theorem, the two agree too
    a = DesignProblem(privacy=DeletionLDP(1.0), objective=mi).solve()
    b = DesignProblem(privacy=DeletionLDP(1.0), objective=custom).solve()
    assert a.optimum == b.optimum == "local"
    assert a.value == pytest.approx(b.value, rel=1e-5)


@pytest.mark.parametrize("objective", [md.ExpectedLoss, md.WorstCaseLoss])
@pytest.mark.parametrize("scale", [1e-12, 1e-9, 1e9, 1e12])
def test_the_answer_does_not_depend_on_the_loss_units(objective, scale):
    # FINDING: a loss scaled by 1e-9 returned a constant mechanism, 43% (expected) and 91%
    # (worst-case) worse, labelled optimal: the solvers' absolute tolerances swallowed it.
    L = np.random.default_rng(3).random((3, 3))
    base = md.DesignProblem(md.LDP(1.0), objective(L)).solve()
    scaled = md.DesignProblem(md.LDP(1.0), objective(L * scale)).solve()
    assert scaled.status is Status.OPTIMAL and scaled.gap <= GAP_TOL
    assert scaled.value / scale == pytest.approx(base.value, rel=1e-9)
    np.testing.assert_allclose(scaled.mechanism.matrix, base.mechanism.matrix, atol=1e-9)
    # a shift changes nothing either (the loss is solved on its unit range)
    shifted = md.DesignProblem(md.LDP(1.0), objective(L + 1e6)).solve()
    assert shifted.value - 1e6 == pytest.approx(base.value, rel=1e-6)


def test_worst_prior_and_criteria() -> None:
    objective = MinimaxEstimation(PRIORS3)
    Q = md.catalog.randomized_response(3, 1.0).matrix
    crit = objective.criteria(Q)
    assert crit == pytest.approx([a_criterion(Q, p) for p in PRIORS3], rel=1e-10)
    assert np.array_equal(objective.worst_prior(Q), PRIORS3[int(np.argmax(crit))])


@pytest.mark.parametrize("priors", [
    [[0.5, 0.6]],                      # does not sum to 1
    [[0.5, 0.5, 0.0], [-0.1, 0.6, 0.5]],  # negative
    [[np.nan, 0.5, 0.5]],
    [0.5, 0.5],                        # one-dimensional
    np.zeros((0, 3)),
    [["a", "b"]],
])
def test_bad_priors(priors: object) -> None:
    with pytest.raises(InvalidParameterError):
        MinimaxEstimation(priors)


def test_bad_criterion_and_weights() -> None:
    with pytest.raises(InvalidParameterError, match="criterion"):
        MinimaxEstimation(PRIORS3, "B")
    with pytest.raises(InvalidParameterError, match="weights"):
        MinimaxEstimation(PRIORS3, "D", np.eye(3))
    with pytest.raises(InvalidParameterError, match="columns"):
        MinimaxEstimation(PRIORS3, "A", np.eye(2))


@pytest.mark.parametrize("seed", range(4))
def test_posterior_vulnerability_matches_an_independent_linprog(seed):
    rng = np.random.default_rng(seed)
    k, m, eps = 3, 4, [0.5, 1.0, 2.0, 4.0][seed]
    prior = rng.dirichlet(np.ones(k))
    gain = rng.normal(size=(4, k)) if seed % 2 else np.eye(k)  # negative gains too
    L = rng.random((k, m))
    budget = 0.5 * float(prior @ L.min(axis=1) + prior @ L.mean(axis=1))
    res = DesignProblem(LDP(eps), PosteriorVulnerability(prior, gain), n_outputs=m,
                        constraints={"utility": lambda Q: cp.sum(cp.multiply(
                            prior[:, None] * L, Q)) <= budget}).solve()
    ref = Ref(k, m, m, eps)
    ref.vulnerability_rows(prior, gain, k * m)
    ref.add_ub(expected_loss_row(k, m, ref.n, prior, L), budget)
    c = np.zeros(ref.n)
    c[k * m:] = 1.0
    want = ref.solve(c, [(0, None)] * (k * m) + [(None, None)] * m)
    assert res.status is Status.OPTIMAL and res.gap <= 1e-6
    assert res.value == pytest.approx(want, rel=1e-7, abs=1e-9)
    Q = res.mechanism.matrix
    assert res.value == pytest.approx(g_vulnerability(gain, prior, Q), rel=1e-12)
    assert epsilon_ldp(Q) <= eps
    assert float(prior @ (Q * L).sum(axis=1)) <= budget + 1e-7


def test_posterior_vulnerability_under_an_expected_hamming_budget_by_hand():
    # 1 - V(pi, Q) is the error of the adversary's MAP guess, at most the error of guessing
    # the output itself: sum_x pi_x (1 - Q[x, x]) <= b  =>  V(pi, Q) >= 1 - b. At eps = 2
    # the LDP constraint leaves room to attain it (k-RR at eps = 2 has expected Hamming
    # loss 2 / (e^2 + 2) = 0.213 < 0.3), so the optimum is exactly 0.7.
    pi = np.array([0.5, 0.3, 0.2])
    L = md.losses.hamming(3)
    res = DesignProblem(LDP(2.0), PosteriorVulnerability(pi), constraints={
        "utility": lambda Q: cp.sum(cp.multiply(pi[:, None] * L, Q)) <= 0.3}).solve()
    assert res.status is Status.OPTIMAL
    assert res.value == pytest.approx(0.7, abs=1e-8)
    assert bayes_vulnerability(pi, res.mechanism) == pytest.approx(0.7, abs=1e-8)


def test_without_a_utility_constraint_the_minimum_is_the_prior_vulnerability():
    pi = np.array([0.1, 0.6, 0.3])
    gain = np.array([[2.0, 0.0, 1.0], [0.0, 1.0, 0.5]])
    res = DesignProblem(LDP(1.0), PosteriorVulnerability(pi, gain)).solve()
    assert res.value == pytest.approx(g_vulnerability(gain, pi), abs=1e-9)
    assert g_leakage(gain, res.mechanism, pi) == pytest.approx(1.0, abs=1e-8)


def _box_vertices(lo: np.ndarray, hi: np.ndarray) -> list[np.ndarray]:
    """Vertices of {lo <= pi <= hi, sum pi = 1}: all coordinates but one at a bound."""
    k = len(lo)
    out = []
    for free in range(k):
        for at in itertools.product((0, 1), repeat=k - 1):
            pi = np.empty(k)
            others = [x for x in range(k) if x != free]
            for x, a in zip(others, at, strict=True):
                pi[x] = hi[x] if a else lo[x]
            pi[free] = 1 - pi[others].sum()
            if lo[free] - 1e-12 <= pi[free] <= hi[free] + 1e-12:
                out.append(pi)
    return out


def _minimax_linprog(L: np.ndarray, priors: list[np.ndarray], eps: float) -> float:
    k, m = L.shape
    ref = Ref(k, m, 1, eps)
    for pi in priors:  # sum_x pi_x sum_y L Q <= z
        row = expected_loss_row(k, m, ref.n, pi, L)
        row[-1] = -1.0
        ref.add_ub(row, 0.0)
    c = np.zeros(ref.n)
    c[-1] = 1.0
    return ref.solve(c, [(0, None)] * (k * m) + [(None, None)])


@pytest.mark.parametrize("seed", range(3))
def test_minimax_over_a_finite_set_matches_linprog(seed):
    rng = np.random.default_rng(20 + seed)
    k, eps = 4, [0.5, 1.0, 3.0][seed]
    L = rng.random((k, k)) * 5 - 1
    priors = rng.dirichlet(np.ones(k) * 0.7, size=3)
    priors /= priors.sum(axis=1, keepdims=True)
    res = DesignProblem(LDP(eps), MinimaxLoss(L, priors=priors)).solve()
    assert res.status is Status.OPTIMAL
    assert res.value == pytest.approx(_minimax_linprog(L, list(priors), eps), rel=1e-7)
    Q = res.mechanism.matrix
    assert res.value == pytest.approx(max(ExpectedLoss(L, p).evaluate(Q) for p in priors),
                                      rel=1e-12)
    # minimax >= maximin: at least the best design of each single prior
    for p in priors:
        single = DesignProblem(LDP(eps), ExpectedLoss(L, p)).solve().value
        assert res.value >= single - 1e-8


@pytest.mark.parametrize("seed", range(3))
def test_minimax_over_a_box_matches_linprog_over_its_vertices(seed):
    rng = np.random.default_rng(30 + seed)
    k, eps = 3, [0.3, 1.0, 2.0][seed]
    L = md.losses.absolute(k) if seed == 0 else rng.random((k, k))
    lo = rng.random(k) * 0.25
    hi = np.minimum(lo + 0.2 + rng.random(k) * 0.5, 1.0)
    hi[0] = 1.0 - lo[1:].sum()  # sum(hi) >= 1
    obj = MinimaxLoss(L, lower=lo, upper=hi)
    res = DesignProblem(LDP(eps), obj).solve()
    vertices = _box_vertices(lo, hi)
    assert res.status is Status.OPTIMAL
    assert res.value == pytest.approx(_minimax_linprog(L, vertices, eps), rel=1e-7)
    # evaluate (the greedy worst prior) against linprog's inner maximum on the matrix
    Q = res.mechanism.matrix
    r = (Q * L).sum(axis=1)
    inner = linprog(-r, A_eq=np.ones((1, k)), b_eq=[1.0], bounds=list(zip(lo, hi, strict=True)),
                    method="highs")
    assert obj.evaluate(Q) == pytest.approx(-inner.fun, rel=1e-12)
    worst = obj.worst_prior(Q)
    assert worst.sum() == pytest.approx(1.0) and (worst >= lo - 1e-15).all()


def test_minimax_over_the_whole_simplex_is_the_worst_case_loss():
    L = md.losses.squared(4)
    a = DesignProblem(LDP(1.0), MinimaxLoss(L, lower=0.0, upper=1.0)).solve()
    b = DesignProblem(LDP(1.0), WorstCaseLoss(L)).solve()
    assert a.value == pytest.approx(b.value, rel=1e-8)


@pytest.mark.parametrize(("k", "eps"), [(2, 0.5), (3, 1.0), (4, 2.0)])
def test_maximising_bayes_vulnerability_is_a_sublinear_utility(k, eps):
    # the adversary's best guessing probability over eps-LDP mechanisms at the uniform prior
    # is the capacity bound / k (k-RR): staircase LP of mu(q) = max_x q_x / k
    from mechdesign.design import SublinearUtility
    from mechdesign.privacy import ldp_capacity_bound

    res = DesignProblem(LDP(eps), SublinearUtility(lambda S: S.max(axis=0) / k, k)).solve()
    assert res.value == pytest.approx(ldp_capacity_bound(eps, k) / k, rel=1e-9)
    assert bayes_vulnerability(np.full(k, 1 / k), res.mechanism) == pytest.approx(
        res.value, rel=1e-12)



@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: PosteriorVulnerability([0.5, 0.5], gain=np.eye(3)), InvalidParameterError,
     r"shape \(3, 3\)"),
    (lambda: PosteriorVulnerability([0.5, 0.6]), InvalidParameterError, "sums to 1.1"),
    (lambda: PosteriorVulnerability([0.5, 0.5], gain=[[1, np.nan]]), InvalidMechanismError,
     "nan"),
    (lambda: MinimaxLoss(np.eye(2)), InvalidParameterError, "either priors"),
    (lambda: MinimaxLoss(np.eye(2), priors=[[0.5, 0.5]], lower=0.1), InvalidParameterError,
     "not both"),
    (lambda: MinimaxLoss(np.eye(2), priors=[[0.5, 0.5, 0.0]]), InvalidParameterError,
     r"\(r, 2\)"),
    (lambda: MinimaxLoss(np.eye(2), priors=[[0.5, 0.7]]), InvalidParameterError,
     r"priors\[0\]"),
    (lambda: MinimaxLoss(np.eye(2), lower=[0.7, 0.7]), InvalidParameterError, "empty"),
    (lambda: MinimaxLoss(np.eye(2), upper=[0.3, 0.3]), InvalidParameterError, "empty"),
    (lambda: MinimaxLoss(np.eye(2), lower=[0.5, 0.2], upper=[0.4, 1]), InvalidParameterError,
     "lower.0. = 0.5 exceeds"),
    (lambda: MinimaxLoss(np.eye(2), lower=-0.1), InvalidParameterError, "-0.1"),
])
def test_a_bad_leakage_objective_raises_a_typed_error_naming_the_value(call, error, match):
    with pytest.raises(error, match=match):
        call()
