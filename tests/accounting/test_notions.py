"""Rényi LDP and the Composed target (``mechdesign.accounting.notions``).

Sources: the outward Rényi measure (``renyi_epsilon``) and 50-digit mpmath sums for the
exact check; the exact composition (``delta_composed``) and the optimal composition theorem
(``optimal_composition_delta``) for the budgets; the conversion ``rdp_to_dp`` for the Rényi
budget; closed forms of binary randomized response.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.accounting import delta_composed, rdp_to_dp, renyi_epsilon
from mechdesign.accounting.amplification import shuffle_delta
from mechdesign.accounting.bounds import optimal_composition_delta
from mechdesign.accounting.exact_shuffling import exact_shuffle_delta
from mechdesign.accounting.notions import (
    Composed,
    RenyiLDP,
    Shuffled,
    composed_delta,
    exact_renyi,
    pure_budget,
    renyi_budget,
    shuffle_budget,
)
from mechdesign.errors import InvalidParameterError
from mechdesign.privacy.notions import Notion
from mechdesign.privacy.verify import verify_exact


@pytest.mark.parametrize("alpha", [0.5, math.inf, float("nan"), -1.0])
def test_renyi_refuses_bad_orders(alpha: float) -> None:
    with pytest.raises(InvalidParameterError, match="alpha"):
        RenyiLDP(alpha, 1.0)


def test_renyi_refuses_pairs_and_graph_together() -> None:
    import networkx as nx

    with pytest.raises(InvalidParameterError, match="pairs or as a graph"):
        RenyiLDP(2.0, 1.0, pairs=[(0, 1)], graph=nx.path_graph(3))


def test_composed_refuses_bad_parameters() -> None:
    with pytest.raises(InvalidParameterError, match="uses"):
        Composed(0, 1.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="delta"):
        Composed(10, 1.0, 1.5)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        Composed(10, -1.0, 1e-6)


def test_names_are_found_without_importing_the_module_first() -> None:
    assert Notion.from_name("renyi_ldp", alpha=2.0, epsilon=0.5) == RenyiLDP(2.0, 0.5)
    assert Notion.from_name("composed", uses=3, epsilon=1.0, delta=1e-6) == Composed(3, 1.0,
                                                                                     1e-6)


def _mp_divergence(P: np.ndarray, R: np.ndarray, alpha: float) -> mp.mpf:
    mp.mp.dps = 50
    p = [mp.mpf(float(v)) for v in P]
    r = [mp.mpf(float(v)) for v in R]
    if alpha == 1:
        return mp.fsum(a * mp.log(a / b) for a, b in zip(p, r, strict=True) if a > 0)
    s = mp.fsum(a ** alpha * b ** (1 - alpha) for a, b in zip(p, r, strict=True) if a > 0)
    return mp.log(s) / (alpha - 1)


@pytest.mark.parametrize("alpha", [1.0, 1.01, 2.0, 2.5, 64.0, 65.0, 1000.0])
def test_exact_check_decides_at_the_divergence(alpha: float) -> None:
    # a non-symmetric 3 x 4 matrix: the worst pair's divergence by 50-digit mpmath, and the
    # check proves it 1e-12 above and disproves it 1e-12 below
    Q = np.array([[0.5, 0.2, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25], [0.1, 0.3, 0.4, 0.2]])
    worst = max(_mp_divergence(Q[x], Q[y], alpha) for x in range(3) for y in range(3)
                if x != y)
    m = md.Mechanism(Q)
    assert RenyiLDP(alpha, 1.0).measure(m) >= float(worst) * (1 - 1e-15)
    above = float(worst) * (1 + 1e-12)
    below = float(worst) * (1 - 1e-12)
    assert exact_renyi(m, RenyiLDP(alpha, above)).holds is True
    assert exact_renyi(m, RenyiLDP(alpha, below)).holds is False
    assert verify_exact(m, RenyiLDP(alpha, above)).holds is True


def test_exact_check_infinite_divergence_and_pairs() -> None:
    Q = np.array([[1.0, 0.0], [0.5, 0.5], [0.4, 0.6]])
    v = exact_renyi(md.Mechanism(Q), RenyiLDP(2.0, 10.0))
    assert v.holds is False and "infinite" in v.message
    # only the pair (1, 2) constrained: finite and small
    near = RenyiLDP(2.0, 0.05, pairs=[(1, 2)])
    assert near.measure(md.Mechanism(Q)) == pytest.approx(
        float(max(_mp_divergence(Q[1], Q[2], 2.0), _mp_divergence(Q[2], Q[1], 2.0))),
        rel=1e-12)
    assert exact_renyi(md.Mechanism(Q), near).holds is True


@settings(max_examples=15, deadline=None)
@given(alpha=st.floats(1.01, 1000.0), eps=st.floats(1e-6, 8.0))
def test_binary_rr_design_is_the_optimum(alpha: float, eps: float) -> None:
    # binary RR is optimal for the Hamming loss at the uniform prior (convexity and
    # symmetry): its p solves D_alpha(Ber(p) || Ber(1 - p)) = eps (mpmath bisection)
    mp.mp.dps = 40

    def excess(p: mp.mpf) -> mp.mpf:
        s = p ** alpha * (1 - p) ** (1 - alpha) + (1 - p) ** alpha * p ** (1 - alpha)
        return mp.log(s) / (alpha - 1) - eps

    p = mp.findroot(excess, (mp.mpf("0.5") + mp.mpf(10) ** -30, mp.mpf(1) - mp.mpf(10) ** -30),
                    solver="bisect", tol=mp.mpf(10) ** -35)
    best = float(1 - p)
    problem = md.DesignProblem(RenyiLDP(alpha, eps), md.ExpectedLoss(1 - np.eye(2)))
    res = problem.solve()
    assert res.certificate.met and res.certificate.exact is True
    assert RenyiLDP(alpha, eps).measure(res.mechanism) <= eps
    assert best * (1 - 1e-12) <= res.value <= best + 1e-5 * best + 1e-9


def test_renyi_budget_converts_to_the_target() -> None:
    for uses, eps, delta in ((365, 1.0, 1e-6), (10, 4.0, 1e-9)):
        for alpha in (34.0, 89.0, 200.0):
            r = renyi_budget(uses, eps, delta, alpha)
            assert r > 0
            got = rdp_to_dp([uses * r], [alpha], delta).epsilon
            assert got <= eps
            assert rdp_to_dp([uses * r * (1 + 1e-9)], [alpha], delta).epsilon > eps * (1 - 1e-9)
    assert renyi_budget(365, 1.0, 1e-6, 2.0) == 0.0  # the order cannot reach the target


def test_pure_budget_is_binary_rr_by_the_optimal_composition_theorem() -> None:
    eps0 = pure_budget(100, 1.0, 1e-6)
    assert optimal_composition_delta(eps0, 100, 1.0) <= 1e-6
    assert optimal_composition_delta(eps0 * (1 + 1e-9), 100, 1.0) > 1e-6


def test_composed_measure_is_the_exact_composition_or_above_it() -> None:
    krr = md.randomized_response(4, 0.1)
    exact = delta_composed(krr, 1.0, 30).delta
    _, upper, how = composed_delta(krr, 30, 1.0)
    assert how == "exact atoms" and upper == pytest.approx(exact, rel=1e-12)
    assert Composed(30, 1.0, 1e-3).measure(krr) == upper
    # a matrix with many distinct pairs and ratios: the Rényi bound, never below the grid
    # bracket's lower end (a second method)
    Q = np.random.default_rng(3).dirichlet(np.full(5, 60.0), size=5)
    lo, up, how = composed_delta(Q, 20, 1.0)
    assert how == "Rényi bound" and lo == 0.0 and 0 < up < 1
    bracket = delta_composed(md.Mechanism(Q), 1.0, 20, method="grid", grid=1e-3)
    assert up >= bracket.lower
    assert verify_exact(md.Mechanism(Q), Composed(20, 1.0, min(1.0, up * 1.01))).holds is True


def test_renyi_curve_bound_agrees_with_the_measure() -> None:
    m = md.randomized_response(3, 0.7)
    assert RenyiLDP(3.0, 1.0).measure(m) == renyi_epsilon(m, 3.0)


def test_shuffled_measure_is_the_clone_bound_at_the_exact_local_epsilon() -> None:
    m = md.randomized_response(3, 2.0)
    notion = Shuffled(20, 1.0, 1e-6)
    assert notion.measure(m) == shuffle_delta(md.epsilon_ldp(m), 20, 1.0).upper
    # the clone bound holds for every 2.0-LDP randomizer, so it is above the exact shuffle
    assert notion.measure(m) >= exact_shuffle_delta(m, 20, 1.0).delta
    assert verify_exact(m, Shuffled(20, 1.0, notion.measure(m))).holds is True
    with pytest.raises(InvalidParameterError, match="n"):
        Shuffled(0, 1.0, 1e-6)


def test_shuffle_budget_meets_the_target_at_its_edge() -> None:
    eps0 = shuffle_budget(1_000, 1.0, 1e-8)
    assert shuffle_delta(eps0, 1_000, 1.0).upper <= 1e-8
    assert shuffle_delta(eps0 * (1 + 1e-6), 1_000, 1.0).upper > 1e-8


def test_renyi_designs_carry_a_certified_gap_below_the_optimum() -> None:
    # the tangent-cut LP relaxation's dual bound: a lower bound on the optimum (checked
    # against binary RR's closed form) within GAP_TOL of the returned value
    res = md.DesignProblem(RenyiLDP(2.0, 0.5), md.ExpectedLoss(1 - np.eye(2))).solve()
    # D_2(Ber(p) || Ber(1 - p)) = ln(p^2/(1 - p) + (1 - p)^2/p) = 0.5, solved by mpmath
    mp.mp.dps = 40
    p = mp.findroot(lambda q: mp.log(q**2 / (1 - q) + (1 - q) ** 2 / q) - mp.mpf("0.5"),
                    (mp.mpf("0.5"), mp.mpf("0.99")), solver="bisect")
    best = float(1 - p)
    assert res.gap is not None and 0 <= res.gap <= 1e-6
    assert res.value * (1 - res.gap) <= best * (1 + 1e-12)
    assert res.optimum == "global"
