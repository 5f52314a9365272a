"""Leakage in design: PosteriorVulnerability (objective), leakage_constraint (budget) and
MinimaxLoss (worst prior of a set). Second method: the same LPs written out independently
for scipy's HiGHS (``linprog``), pairwise LDP rows, no epigraph tricks of the library; every
returned matrix is re-measured by the analysis functions of mechdesign.privacy.leakage."""

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
    ExpectedLoss,
    MinimaxLoss,
    PosteriorVulnerability,
    Status,
    WorstCaseLoss,
    leakage_constraint,
)
from mechdesign.errors import InvalidMechanismError, InvalidParameterError
from mechdesign.privacy import (
    LDP,
    bayes_capacity,
    bayes_leakage,
    bayes_vulnerability,
    epsilon_ldp,
    g_leakage,
    g_vulnerability,
)


# ---------------------------------------------------------------------------- reference LP
class Ref:
    """An LP over x = (vec Q row-major, extra variables) for scipy's linprog."""

    def __init__(self, k: int, m: int, n_extra: int, eps: float):
        self.k, self.m, self.n = k, m, k * m + n_extra
        self.ub, self.rhs_ub, self.eq, self.rhs_eq = [], [], [], []
        for x in range(k):  # rows sum to 1
            row = np.zeros(self.n)
            row[x * m:(x + 1) * m] = 1
            self.eq.append(row)
            self.rhs_eq.append(1.0)
        for x, z in itertools.permutations(range(k), 2):  # Q[x, y] <= e^eps Q[z, y]
            for y in range(m):
                row = np.zeros(self.n)
                row[x * m + y], row[z * m + y] = 1.0, -math.exp(eps)
                self.add_ub(row, 0.0)

    def q(self, x: int, y: int) -> int:
        return x * self.m + y

    def add_ub(self, row: np.ndarray, rhs: float) -> None:
        self.ub.append(row)
        self.rhs_ub.append(rhs)

    def vulnerability_rows(self, prior: np.ndarray, gain: np.ndarray, t0: int) -> None:
        """t_y (variables t0 + y) >= sum_x g[w, x] prior_x Q[x, y] for all w, y."""
        for w in range(gain.shape[0]):
            for y in range(self.m):
                row = np.zeros(self.n)
                for x in range(self.k):
                    row[self.q(x, y)] = gain[w, x] * prior[x]
                row[t0 + y] = -1.0
                self.add_ub(row, 0.0)

    def solve(self, c: np.ndarray, bounds: list | None = None) -> float:
        res = linprog(c, A_ub=np.array(self.ub), b_ub=np.array(self.rhs_ub),
                      A_eq=np.array(self.eq), b_eq=np.array(self.rhs_eq),
                      bounds=bounds or [(0, None)] * self.n, method="highs")
        assert res.status == 0, res.message
        return float(res.fun)


def _expected_loss_row(k: int, m: int, n: int, prior: np.ndarray, L: np.ndarray) -> np.ndarray:
    row = np.zeros(n)
    for x in range(k):
        row[x * m:(x + 1) * m] = prior[x] * L[x]
    return row


# ---------------------------------------------------------------------------- objective
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
    ref.add_ub(_expected_loss_row(k, m, ref.n, prior, L), budget)
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


# ---------------------------------------------------------------------------- constraint
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
    c[:k * m] = _expected_loss_row(k, m, ref.n, prior, L)[:k * m]
    want = ref.solve(c, [(0, None)] * (k * m) + [(None, None)] * m)
    assert res.value == pytest.approx(want, rel=1e-7, abs=1e-9)


def test_budget_of_one_forces_a_mechanism_that_leaks_nothing():
    prior = np.array([0.2, 0.3, 0.5])
    res = DesignProblem(LDP(5.0), ExpectedLoss(md.losses.hamming(3), prior), constraints={
        "leakage": leakage_constraint(1.0, prior)}).solve()
    assert bayes_leakage(res.mechanism, prior) == pytest.approx(1.0, abs=1e-7)
    # the best such mechanism always reports the prior's mode: expected loss 1 - 0.5
    assert res.value == pytest.approx(0.5, abs=1e-8)


# ---------------------------------------------------------------------------- minimax
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
        row = _expected_loss_row(k, m, ref.n, pi, L)
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


# ---------------------------------------------------------------------------- bad input
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
def test_bad_input_raises_a_typed_error_naming_the_value(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_budget_whose_prior_does_not_fit_the_design_is_refused():
    problem = DesignProblem(LDP(1.0), ExpectedLoss(md.losses.hamming(3)),
                            constraints={"leakage": leakage_constraint(1.2, [0.5, 0.5])})
    with pytest.raises(InvalidParameterError, match="2 entries for 3 inputs"):
        problem.solve()


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
