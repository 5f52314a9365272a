"""Pure LDP by cutting planes in the column floors
(:mod:`mechdesign.design.engines.cut_generation`):
the greedy fill is each row's knapsack optimum with a tight cut, the loop reaches the
optimum of the LP of pairs (:mod:`mechdesign.design.engines.working_set`, a second formulation)
and of scipy's LP over every entry, at every cost scale, and stops early with a feasible
point and an honest bound."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from mechdesign.design.engines.cut_generation import greedy_fill, solve_cut_generation
from mechdesign.design.engines.working_set import Envelope, solve_working_set


def _costs(k: int, m: int, kind: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(k, 0.5))
    prior[rng.random(k) < 0.2] = 0.0  # inputs that never occur
    if not prior.any():
        prior[0] = 1.0
    prior /= prior.sum()
    loss = {"random": rng.random((k, m)),
            "ties": rng.integers(0, 3, (k, m)).astype(float),  # many equal costs
            "wide": 10.0 ** rng.uniform(-6, 6, (k, m)),
            "signed": rng.normal(size=(k, m))}[kind]
    return prior[:, None] * loss


def _lp_optimum(c: np.ndarray, eps: float) -> float:
    """scipy's HiGHS on the textbook LP: every entry a variable, every ratio a row."""
    k, m = c.shape
    E = math.exp(eps)
    rows = []
    for y in range(m):
        for x in range(k):
            for x2 in range(k):
                if x != x2:
                    r = np.zeros(k * m)
                    r[x * m + y], r[x2 * m + y] = 1.0, -E
                    rows.append(r)
    eq = np.kron(np.eye(k), np.ones(m))
    res = linprog(c.ravel(), A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=eq,
                  b_eq=np.ones(k), bounds=(0, None), method="highs")
    assert res.status == 0
    return float(res.fun)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 9), st.floats(0.0, 20.0), st.floats(0.0, 1.0),
       st.integers(0, 10**6))
def test_the_greedy_fill_is_each_row_s_knapsack_optimum_with_a_tight_cut(k, n, cap, share,
                                                                           seed):
    # rows place 1 - T within the caps cap t_y; the value equals the cut at the marginal
    # cost (LP duality: phi = lambda (1 - T) - cap sum t (lambda - c)_+), and scipy's LP
    # of the same knapsack (a second method) finds no cheaper fill
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 4, (k, n)) * rng.random() + rng.normal(size=(k, n)) * (seed % 2)
    t = rng.random(n) * (rng.random(n) < 0.7)
    if not t.any():
        t[0] = 1.0
    total = float(t.sum())
    t /= total / (0.05 + 0.95 * share)  # T in (0, 1]
    total = float(t.sum())
    cap = max(cap, (1 - total) / total * (1 + 1e-9))  # the fill can complete
    value, marginal, U = greedy_fill(c, cap * t, total)
    np.testing.assert_allclose(U.sum(axis=1), 1 - total, atol=1e-12)
    assert (U >= 0).all() and (U <= cap * t * (1 + 1e-12) + 1e-15).all()
    np.testing.assert_allclose(value, (c * U).sum(axis=1), rtol=1e-12, atol=1e-12)
    cut = marginal * (1 - total) - cap * (np.maximum(marginal[:, None] - c, 0) * t).sum(axis=1)
    np.testing.assert_allclose(value, cut, rtol=1e-9, atol=1e-12)
    for x in range(k):
        ref = linprog(c[x], A_eq=np.ones((1, n)), b_eq=[1 - total],
                      bounds=list(zip(np.zeros(n), cap * t, strict=True)), method="highs")
        assert value[x] <= ref.fun + 1e-7 * max(1.0, abs(ref.fun))  # its tolerance 1e-7


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.integers(2, 40), st.floats(0.01, 8.0),
       st.sampled_from(["random", "ties", "wide", "signed"]), st.integers(0, 10**6),
       st.booleans())
def test_the_optimum_of_the_lp_of_pairs(k, m, eps, kind, seed, deletion):
    # a second formulation (a column and a cap row per pair, primal simplex): the same
    # value to 1e-9 of the cost scale, both certified within 1e-9 by their own bounds;
    # pure LDP and pure deletion LDP (column maxima when e^eps < min(k, m))
    c = _costs(k, m, kind, seed)
    envelope = Envelope.deletion(eps / 2, k, m) if deletion else Envelope.ldp(eps)
    ours = solve_cut_generation(c, envelope)
    ref = solve_working_set(c, envelope)
    assert ours.status == ref.status == "optimal"
    scale = float(np.abs(c).sum(axis=0).max())
    assert abs(ours.value - ref.value) <= 1e-9 * scale
    assert ours.bound <= ours.value + 1e-12 * scale
    assert ours.value - ours.bound <= 1e-9 * scale
    Q = ours.Q
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, atol=1e-12)
    used = Q.max(axis=0) > 0
    spread = Q[:, used].max(axis=0) / Q[:, used].min(axis=0)
    assert (spread <= (1 + envelope.cap) * (1 + 1e-9)).all()
    if deletion:  # the reference r = max_x Q / e^eps sums to at most 1 (within tolerance)
        assert Q.max(axis=0).sum() <= math.exp(eps / 2) * (1 + 1e-9)


@pytest.mark.parametrize("eps", [0.05, 1.0, 5.0])
@pytest.mark.parametrize("kind", ["random", "ties", "signed"])
def test_the_textbook_lp_s_optimum(eps, kind):
    # scipy's HiGHS on every entry and every ratio row (k^2 m rows), a third method
    c = _costs(7, 6, kind, seed=11)
    ours = solve_cut_generation(c, Envelope.ldp(eps))
    assert ours.status == "optimal"
    assert ours.value == pytest.approx(_lp_optimum(c, eps), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("scale", [1e-12, 1e-6, 1.0, 1e6, 1e12])
def test_every_cost_scale_gives_the_same_design(scale):
    # the master runs in costs of about 1 per row: value and gap scale with the costs
    c = _costs(60, 50, "random", seed=5)
    base = solve_cut_generation(c, Envelope.ldp(1.0))
    scaled = solve_cut_generation(c * scale, Envelope.ldp(1.0))
    assert scaled.status == "optimal"
    assert scaled.value == pytest.approx(base.value * scale, rel=1e-9)
    assert 0 <= scaled.value - scaled.bound <= 1e-9 * scaled.value


@pytest.mark.parametrize("eps", [0.3, 1.0, 2.0, 3.0])
def test_deletion_ldp_matches_the_lp_of_pairs_with_and_without_maxima(eps):
    # k = m = 6: column maxima (sum_y max_x Q <= e^eps) while e^eps < 6, none from eps = 2
    # (cap e^{2 eps} - 1 and floor e^-eps only)
    c = _costs(6, 6, "random", seed=3)
    envelope = Envelope.deletion(eps, 6, 6)
    assert (envelope.max_total is None) == (eps >= 2)
    ours = solve_cut_generation(c, envelope)
    ref = solve_working_set(c, envelope)
    assert ours.status == "optimal"
    assert ours.value == pytest.approx(ref.value, rel=1e-9)
    assert ours.value - ours.bound <= 1e-9 * ours.value


def test_an_entry_budget_stops_with_a_feasible_point_and_an_honest_bound():
    # the master may hold few entries: the loop stops early; the best greedy fill met is a
    # mechanism (rows sum to 1, ratios within e^eps), at least the optimum, and the bound
    # of its multipliers is at most the optimum
    c = _costs(120, 120, "random", seed=9)
    full = solve_cut_generation(c, Envelope.ldp(1.0))
    first = np.argmin(c.sum(axis=0))
    cuts = 120 + int((c.min(axis=1) < c[:, first]).sum())  # one or two a row
    first_master = 2 + 2 * cuts  # T and t_first in the link row; theta_x and T a cut
    early = solve_cut_generation(c, Envelope.ldp(1.0), max_nonzeros=first_master + 200)
    assert early.status == "memory limit"
    Q = early.Q
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, atol=1e-12)
    used = Q.max(axis=0) > 0
    assert (Q[:, used].max(axis=0) <= math.e * Q[:, used].min(axis=0) * (1 + 1e-12)).all()
    assert early.value >= full.value - 1e-12
    assert early.bound <= full.value + 1e-12
    assert early.value - early.bound > 1e-6 * full.value  # honest: not optimal yet


def test_a_failed_master_solve_is_retried_with_the_other_simplex(monkeypatch):
    # HiGHS's dual simplex can stop with a solve error after outputs with caps near
    # e^{2 eps} enter (fuzzing: deletion LDP at eps = 5.6, tied costs); the round is solved
    # again with the primal simplex and the loop goes on to the same optimum
    from mechdesign.design.engines import cut_generation
    from mechdesign.design.engines.working_set import run_highs

    c = _costs(80, 80, "random", seed=2)
    plain = solve_cut_generation(c, Envelope.ldp(1.0))
    strategies = []

    def dual_fails(h, stop):
        strategy = h.getOptionValue("simplex_strategy")
        strategies.append(strategy[1] if isinstance(strategy, tuple) else strategy)
        return "kSolveError" if strategies[-1] == 1 else run_highs(h, stop)

    monkeypatch.setattr(cut_generation, "run_highs", dual_fails)
    res = solve_cut_generation(c, Envelope.ldp(1.0))
    assert res.status == "optimal" and strategies[:2] == [1, 4]
    assert res.value == pytest.approx(plain.value, rel=1e-12)
    assert res.value - res.bound <= 1e-9 * res.value


@pytest.mark.parametrize("deletion", [False, True])
def test_the_memory_check_counts_the_entries_the_master_receives(deletion):
    # the cap is checked before cuts or outputs enter, on their exact entry counts (an
    # estimate of |Y| per cut stopped the deletion design at k = 3000 with a gap of 5e-3)
    from mechdesign.design.engines.cut_generation import _Master

    c = _costs(50, 40, "random", seed=6) * 50
    envelope = Envelope.deletion(0.5, 50, 40) if deletion else Envelope.ldp(1.0)
    master = _Master(c, envelope, {})
    rng = np.random.default_rng(0)
    for _ in range(3):
        ys = np.setdiff1d(rng.choice(40, 6, replace=False), master.outputs)
        expected = master.nonzeros + master.output_entries(ys)
        master.add_outputs(ys)
        _same_count(master, expected)
        xs = rng.choice(50, 20, replace=False)
        lams = c[xs, rng.integers(0, 40, 20)]
        expected = master.nonzeros + master.cut_entries(xs, lams)
        master.add_cuts(xs, lams)
        _same_count(master, expected)


def _same_count(master, expected: int) -> None:
    # HiGHS drops the T entry of a cut at lambda = 0 (a zero): the count is exact otherwise
    assert master.nonzeros == expected
    assert expected - int((master.cut_lam == 0).sum()) <= master.h.getNumNz() <= expected


def test_a_master_that_both_simplex_methods_fail_on_is_solved_from_scratch(monkeypatch):
    # both warm starts of a round fail (HiGHS ended kUnknown twice on the k = 3000 random
    # design with costs L / k): the basis is cleared and the round solved cold
    from mechdesign.design.engines import cut_generation
    from mechdesign.design.engines.working_set import run_highs

    c = _costs(80, 80, "random", seed=2)
    plain = solve_cut_generation(c, Envelope.ldp(1.0))
    calls = []

    def warm_fails(h, stop):  # the second round's two warm attempts fail
        calls.append(1)
        return "kUnknown" if len(calls) in (2, 3) else run_highs(h, stop)

    monkeypatch.setattr(cut_generation, "run_highs", warm_fails)
    res = solve_cut_generation(c, Envelope.ldp(1.0))
    assert res.status == "optimal" and len(calls) > 4
    assert res.value == pytest.approx(plain.value, rel=1e-12)
    assert res.value - res.bound <= 1e-9 * res.value
