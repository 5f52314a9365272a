"""The minimax estimation program of :mod:`mechdesign.design.engines.minimax_staircase`.

``MinimaxEstimation``: the Cramer-Rao criterion at the worst prior of a finite set, designed
under pure LDP by the staircase epigraph program and certified by the dual Frank-Wolfe
bound. Pinned against second methods: the single-prior designs (EstimationVariance: one
prior, or twice the same, is that design; two priors lie between the single-prior bounds),
the criterion computed here from the definition, a general-Q local solve (scipy SLSQP),
random LDP matrices and the mirror symmetry of mirrored priors; more than
``MAX_MINIMAX_K`` inputs is a typed size error.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

import mechdesign as md
from mechdesign.design import DesignProblem, EstimationVariance, MinimaxEstimation, Status
from mechdesign.design.engines.minimax_staircase import MAX_MINIMAX_K, solve_minimax_estimation
from mechdesign.errors import SizeLimitError
from tests.design.references import _sum_zero_basis, a_criterion

PRIORS3 = np.array([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]])


def solve(objective: object, eps: float) -> md.design.DesignResult:
    return DesignProblem(md.LDP(eps), objective).solve()


@pytest.mark.parametrize("criterion", ["A", "D", "E"])
@pytest.mark.parametrize("eps", [0.1, 1.0, 5.0])
def test_one_prior_is_estimation_variance(criterion: str, eps: float) -> None:
    prior = np.array([0.5, 0.3, 0.15, 0.05])
    own = solve(EstimationVariance(prior, criterion), eps)
    for priors in ([prior], [prior, prior]):  # one prior, or the same prior twice
        res = solve(MinimaxEstimation(priors, criterion), eps)
        assert res.status is Status.OPTIMAL
        assert res.value == pytest.approx(own.value, rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("k,seed", [(3, 0), (4, 1), (5, 2), (6, 3)])
@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 3.0])
def test_two_priors_between_the_single_prior_bounds(k: int, seed: int, eps: float) -> None:
    priors = np.random.default_rng(seed).dirichlet(np.ones(k), size=2)
    objective = MinimaxEstimation(priors)
    res = solve(objective, eps)
    assert res.status is Status.OPTIMAL and res.optimum == "global"
    assert res.gap is not None and res.gap <= 1e-6
    singles = [solve(EstimationVariance(p), eps) for p in priors]
    # lower: min max_j f_j >= max_j min f_j; upper: each single design is feasible
    lower = max(s.value for s in singles)
    upper = min(objective.evaluate(s.mechanism.matrix) for s in singles)
    assert lower * (1 - 1e-6) <= res.value <= upper * (1 + 1e-6)
    # the value re-measured from the definition at each prior
    Q = res.mechanism.matrix
    assert res.value == pytest.approx(max(a_criterion(Q, p) for p in priors), rel=1e-9)
    assert md.epsilon_ldp(res.mechanism) <= eps * (1 + 1e-12)


def test_strictly_between_when_no_prior_decides() -> None:
    # eps = 0.1 at k = 3: neither prior's own design is minimax optimal (measured gap)
    priors = np.random.default_rng(3).dirichlet(np.ones(3), size=2)
    objective = MinimaxEstimation(priors)
    res = solve(objective, 0.1)
    singles = [solve(EstimationVariance(p), 0.1) for p in priors]
    lower = max(s.value for s in singles)
    upper = min(objective.evaluate(s.mechanism.matrix) for s in singles)
    assert lower < res.value * (1 - 1e-7) and res.value < upper * (1 - 1e-7)
    crit = objective.criteria(res.mechanism.matrix)
    assert crit[0] == pytest.approx(crit[1], rel=1e-5)  # both priors active


@pytest.mark.parametrize("eps", [0.3, 1.0, 2.0])
def test_mirror_priors_give_a_symmetric_optimum(eps: float) -> None:
    p = np.array([0.55, 0.25, 0.15, 0.05])
    objective = MinimaxEstimation([p, p[::-1]])
    res = solve(objective, eps)
    Q = res.mechanism.matrix
    # the mirror of any design is as good (criteria swap), and the mixture of Q and its
    # mirror (half of each column set) is eps-LDP and no worse by convexity in the
    # staircase weights: it attains the optimum with equal criteria at both priors
    sym = np.hstack([Q / 2, Q[::-1] / 2])
    assert objective.evaluate(Q[::-1]) == pytest.approx(res.value, rel=1e-9)
    crit = objective.criteria(sym)
    assert crit[0] == pytest.approx(crit[1], rel=1e-9)
    assert crit.max() == pytest.approx(res.value, rel=2e-6)


def _slsqp_minimax(priors: np.ndarray, eps: float, n: int, seed: int) -> float:
    """A local solve over general k x n eps-LDP matrices: min t s.t. t >= A_j(Q)."""
    k = priors.shape[1]
    rng = np.random.default_rng(seed)
    Q0 = rng.dirichlet(np.ones(n), size=k) * 0.2 + 0.8 / n
    e = math.exp(eps)
    # the linear constraints with their constant Jacobians (finite differences over every
    # entry made this test take a minute): rows sum to 1, e Q[x2] - Q[x] >= 0
    rows = np.zeros((k, k * n + 1))
    for x in range(k):
        rows[x, x * n:(x + 1) * n] = 1.0
    ratio = []
    for x in range(k):
        for x2 in range(k):
            if x != x2:
                block = np.zeros((n, k * n + 1))
                block[:, x2 * n:(x2 + 1) * n] += e * np.eye(n)
                block[:, x * n:(x + 1) * n] -= np.eye(n)
                ratio.append(block)
    A = np.vstack(ratio)
    cons = [{"type": "eq", "fun": lambda z: rows @ z - 1, "jac": lambda z: rows},
            {"type": "ineq", "fun": lambda z: A @ z, "jac": lambda z: A}]
    # the criterion constraints t - A_j(Q) >= 0 with their analytical Jacobians (finite
    # differences over every entry were most of this test's time)
    for p in priors:
        cons.append({"type": "ineq",
                     "fun": lambda z, p=p: z[-1] - a_criterion(z[:-1].reshape(k, n), p),
                     "jac": lambda z, p=p: np.append(
                         -_a_criterion_gradient(z[:-1].reshape(k, n), p).ravel(), 1.0)})
    z0 = np.append(Q0.ravel(), 1.01 * max(a_criterion(Q0, p) for p in priors))
    out = minimize(lambda z: z[-1], z0, method="SLSQP", constraints=cons,
                   bounds=[(1e-9, 1)] * (k * n) + [(0, None)],
                   options={"maxiter": 500, "ftol": 1e-12})
    Q = np.clip(out.x[:-1].reshape(k, n), 0, None)
    Q /= Q.sum(axis=1, keepdims=True)
    # where the local solve ends slightly infeasible (it depends on the floating point of
    # the platform), mix it with the uniform row until it is eps-LDP: still a general
    # eps-LDP mechanism to compare with
    Q = _into_ldp(Q, eps)
    return max(a_criterion(Q, p) for p in priors)


def _a_criterion_gradient(Q: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """The gradient in Q of ``a_criterion(Q, prior) = tr(S^-1)``, ``S = U^T I U``,
    ``I = Q diag(1/lam) Q^T``, ``lam = prior @ Q`` (over the outputs with lam > 0):
    ``dA = -tr(B dI)`` with ``B = U S^-2 U^T``, and ``dI/dQ[a, y]`` gives
    ``dA/dQ[a, y] = -(2 (B Q)[a, y] / lam_y - prior_a (Q^T B Q)[y, y] / lam_y^2)``."""
    lam = prior @ Q
    keep = lam > 0
    Qk, lk = Q[:, keep], lam[keep]
    U = _sum_zero_basis(Q.shape[0])
    Sinv = np.linalg.inv(U.T @ ((Qk / lk) @ Qk.T) @ U)
    B = U @ Sinv @ Sinv @ U.T
    BQ = B @ Qk
    grad = np.zeros_like(Q)
    grad[:, keep] = -(2 * BQ / lk - np.outer(prior, np.einsum("xy,xy->y", Qk, BQ)) / lk ** 2)
    return grad


def _into_ldp(Q: np.ndarray, eps: float) -> np.ndarray:
    """``(1 - g) Q + g / n`` at the smallest g (bisection) that makes it eps-LDP."""
    n = Q.shape[1]
    if md.epsilon_ldp(md.Mechanism(Q)) <= eps:
        return Q
    lo, hi = 0.0, 1.0
    for _ in range(60):
        g = (lo + hi) / 2
        lo, hi = (lo, g) if md.epsilon_ldp(md.Mechanism((1 - g) * Q + g / n)) <= eps else (g, hi)
    return (1 - hi) * Q + hi / n


@pytest.mark.slow
@pytest.mark.parametrize("k,eps", [(3, 0.5), (3, 1.5), (4, 1.0)])
def test_general_mechanisms_do_no_better(k: int, eps: float) -> None:
    # the staircase reduction: a general-Q local solve (more outputs than the staircase
    # optimum uses) never finds a smaller worst-prior criterion
    priors = np.random.default_rng(10 + k).dirichlet(np.ones(k), size=2)
    res = solve(MinimaxEstimation(priors), eps)
    found = [_slsqp_minimax(priors, eps, 2 ** k - 1, seed) for seed in range(3)]
    assert min(found) >= res.value * (1 - 1e-6)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.3, 1.0, 2.5]))
def test_random_ldp_mechanisms_do_no_better(seed: int, eps: float) -> None:
    rng = np.random.default_rng(seed)
    k, n = 3, int(rng.integers(2, 8))
    M = _into_ldp(rng.dirichlet(np.ones(n), size=k), eps)
    objective = MinimaxEstimation(PRIORS3)
    best = _optimum(eps)
    assert objective.evaluate(M) >= best * (1 - 1e-7)


_OPTIMA: dict[float, float] = {}


def _optimum(eps: float) -> float:
    if eps not in _OPTIMA:
        _OPTIMA[eps] = solve(MinimaxEstimation(PRIORS3), eps).value
    return _OPTIMA[eps]


@pytest.mark.parametrize("criterion", ["D", "E"])
def test_other_criteria_and_weights(criterion: str) -> None:
    priors = np.random.default_rng(7).dirichlet(np.ones(4), size=3)
    objective = MinimaxEstimation(priors, criterion)
    res = solve(objective, 1.0)
    singles = [solve(EstimationVariance(p, criterion), 1.0) for p in priors]
    assert res.value >= max(s.value for s in singles) - 1e-6 * abs(res.value) - 1e-9
    assert res.value <= min(objective.evaluate(s.mechanism.matrix) for s in singles) + 1e-6
    if criterion == "D":
        assert res.gap is not None and res.gap <= 1e-6
    W = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0], [1.0, 0.0, 0.0, 0.0]])
    weighted = solve(MinimaxEstimation(priors, "A", W), 1.0)
    assert weighted.status is Status.OPTIMAL and weighted.gap <= 1e-6
    assert weighted.value == pytest.approx(
        max(EstimationVariance(p, "A", W).evaluate(weighted.mechanism.matrix)
            for p in priors), rel=1e-12)


def test_the_engine_s_answer_is_certified_by_its_own_bound() -> None:
    # called directly: the matrix's worst-prior criterion (from the definition) is the
    # value, and the Frank-Wolfe bound sits below it within the gap tolerance
    objective = MinimaxEstimation(PRIORS3)
    sol = solve_minimax_estimation(objective, 1.0)
    Q = sol.Q / sol.Q.sum(axis=1, keepdims=True)
    assert sol.accurate and sol.n_patterns == 2**3 - 1
    assert sol.value == pytest.approx(max(a_criterion(Q, p) for p in PRIORS3), rel=1e-9)
    assert sol.bound is not None and sol.bound <= sol.value
    assert sol.value - sol.bound <= 1e-6 * sol.value
    assert md.epsilon_ldp(md.Mechanism(Q)) <= 1.0 * (1 + 1e-12)


def test_more_inputs_than_the_limit_and_epsilon_zero_are_refused() -> None:
    big = np.random.default_rng(1).dirichlet(np.ones(MAX_MINIMAX_K + 1), size=2)
    with pytest.raises(SizeLimitError, match=rf"k = {MAX_MINIMAX_K + 1} exceeds MAX_MINIMAX_K"):
        solve_minimax_estimation(MinimaxEstimation(big), 1.0)
    with pytest.raises(SizeLimitError, match="MAX_MINIMAX_K"):  # the same through solve()
        DesignProblem(md.LDP(1.0), MinimaxEstimation(big)).solve()
    with pytest.raises(md.SolverFailedError, match="epsilon = 0"):
        solve_minimax_estimation(MinimaxEstimation(PRIORS3), 0.0)
