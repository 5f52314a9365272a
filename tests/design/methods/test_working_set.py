"""The working-set method of :mod:`mechdesign.design.methods.working_set`: pure (or pure
deletion) LDP with an expected loss at large k, by cutting planes over a working set of
outputs, the LP of pairs as its second method.

Pinned: the same optimum as the global program (:mod:`~mechdesign.design.methods.program`,
a second method) across sizes, epsilons and loss shapes, for pure and deletion LDP, each
matrix passing the independent measure; the k-RR closed form for a Hamming loss (Kairouz,
Oh & Viswanath 2016); an entry budget or a time limit (a FakeClock) stops the loop with the
best point so far and its honest gap, a limit before the first round names it; a HiGHS
failure on the master hands over to the LP of pairs, which gets what is left of the limit
and at most the cutting planes' own time.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechdesign as md
from mechdesign.design.methods import program as program_method
from mechdesign.design.methods import working_set as working_set_method
from mechdesign.design.outcome import GAP_TOL
from mechdesign.design.planner import WORKING_SET_MAX_EPSILON
from mechdesign.design.result import Status
from mechdesign.design.solvers import MEMORY_BUDGET


def _losses(k: int, m: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    x, y = np.arange(k)[:, None], np.arange(m)[None, :]
    return {"random": rng.random((k, m)),
            "absolute": np.abs(x * (m - 1) / max(k - 1, 1) - y),
            "wide": 10.0 ** rng.uniform(-6, 6, (k, m)),
            "signed": rng.normal(size=(k, m))}


@pytest.mark.parametrize("k,m", [(5, 5), (12, 20), (40, 40), (60, 45)])
@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
@pytest.mark.parametrize("loss", ["random", "absolute", "wide", "signed"])
def test_same_optimum_as_the_global_program(k, m, eps, loss):
    # a second method: the offset-form LP over every entry (methods.program.solve_program); the
    # same value within 1e-7 of the loss range when both are certified optimal, and never
    # worse (on losses spanning 1e-6..1e6 the global program can end 'inaccurate')
    L = _losses(k, m, seed=k + m)[loss]
    prior = np.random.default_rng(k).dirichlet(np.ones(k))
    _same_as_global(md.DesignProblem(md.LDP(eps), md.ExpectedLoss(L, prior)), L,
                    lambda Q: md.epsilon_ldp(Q) <= eps)  # the independent float measure


def _same_as_global(prob: md.DesignProblem, L: np.ndarray, private) -> None:
    """The working set and the global program: both certified and ``private`` (an
    independent measure), the working set optimal, never worse, and equal to 1e-7 of the
    loss range when the global program is optimal too."""
    ours = working_set_method.solve_working_set(prob, {}, None)
    ref = program_method.solve_program(prob, None, {}, None)
    assert ours.status is Status.OPTIMAL and ours.gap <= GAP_TOL
    for res in (ours, ref):
        assert res.certificate.met and private(res.mechanism)
    span = float(L.max() - L.min())
    assert ours.value <= ref.value + 1e-7 * span
    if ref.status is Status.OPTIMAL:
        assert abs(ours.value - ref.value) <= 1e-7 * span


@pytest.mark.parametrize("k", [100, 300, 1000, pytest.param(3000, marks=pytest.mark.slow)])
def test_hamming_loss_gives_randomized_response(k):
    # Kairouz, Oh & Viswanath 2016: k-RR is optimal for the Hamming loss at the uniform
    # prior, value (k - 1) / (e^eps + k - 1). The default answers it in closed form; a named
    # solver runs the working set, which must find the same optimum
    res = md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(md.losses.hamming(k))).solve(
        solver="HIGHS")
    assert any("working set" in n for n in res.notes)
    assert res.status is Status.OPTIMAL and res.gap <= GAP_TOL
    assert res.value == pytest.approx((k - 1) / (math.e + k - 1), rel=1e-9)
    np.testing.assert_allclose(res.mechanism.matrix,
                               md.randomized_response(k, 1.0).matrix, atol=1e-9)
    # the work, as numbers (res.counts) and as the note says it: rounds and cuts of the
    # cutting planes; k-RR uses every output, all of them in the working set
    note = next(n for n in res.notes if n.startswith("working set:"))
    assert f"after {res.counts['rounds']} rounds" in note
    assert f"({res.counts['cuts']:,} cuts" in note and res.counts["rounds"] >= 1
    assert len(res.structure["working_set"]) == k and res.summary()["counts"] == res.counts


@pytest.mark.parametrize("k,m", [(6, 6), (12, 20), (40, 40), (60, 45)])
@pytest.mark.parametrize("eps", [0.1, 0.7, 2.0, 4.0])
@pytest.mark.parametrize("loss", ["random", "absolute", "wide"])
def test_deletion_ldp_has_the_global_program_s_optimum(k, m, eps, loss):
    # pure deletion LDP (a reference distribution r with e^-eps r <= Q[x] <= e^eps r):
    # the working set against formulate_pure_deletion's program; the matrix passes the
    # independent deletion measure. eps = 2 and 4 at k = 6: e^eps >= min(k, m), no maxima
    L = _losses(k, m, seed=k + m + 1)[loss]
    prior = np.random.default_rng(k + 1).dirichlet(np.ones(k))
    _same_as_global(md.DesignProblem(md.DeletionLDP(eps), md.ExpectedLoss(L, prior)), L,
                    lambda Q: md.epsilon_deletion(Q).epsilon <= eps)


def test_an_entry_budget_stops_the_loop_with_the_best_point_and_its_gap(monkeypatch):
    # a budget of the first master's entries plus a few: the loop stops before the master
    # passes it and returns the best point so far, private, certified, with its honest gap
    from mechdesign.design import planner  # the routing budgets live in the planner

    L = np.random.default_rng(1).random((150, 150))
    spec = md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(L))
    full = spec.solve()
    monkeypatch.setattr(planner, "WORKING_SET_BYTES_PER_CUT_ENTRY", MEMORY_BUDGET // 800)
    assert spec.working_set_max_entries() < 800  # the first master holds about 600
    res = spec.solve()
    assert res.status is Status.INACCURATE and res.certificate.met
    assert md.epsilon_ldp(res.mechanism) <= 1.0
    assert any("memory limit" in n for n in res.notes)
    assert res.value >= full.value and res.gap > GAP_TOL
    assert res.value * (1 - res.gap) <= full.value * (1 + 1e-6)  # the bound holds


def test_a_time_limit_returns_the_best_point_with_its_gap(monkeypatch):
    # k = 1000 takes about 5 s; stopped by the time limit after its first round, the best
    # point so far is returned, private and certified, with its (honest, positive) gap. The
    # clock the limit reads (mechdesign.design.solvers.run.time) is a FakeClock that passes the
    # 60 s limit as the first round's solve returns: the same on an idle or a busy machine
    from mechdesign.design.engines import cut_generation, working_set
    from mechdesign.design.solvers import run as solvers
    from mechdesign.testing.timing import FakeClock

    clock = FakeClock()
    rounds = []

    def round_then_late(real):
        def run(h, stop):
            model = real(h, stop)
            rounds.append(model)
            clock.advance(61.0)
            return model
        return run

    monkeypatch.setattr(solvers, "time", clock.time_module())
    monkeypatch.setattr(working_set, "run_highs", round_then_late(working_set.run_highs))
    monkeypatch.setattr(cut_generation, "run_highs", round_then_late(cut_generation.run_highs))
    L = np.random.default_rng(1).random((1000, 1000))
    res = md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(L)).solve(time_limit=60.0)
    assert rounds == ["kOptimal"]  # one round's solve, then the limit (counted, not timed)
    assert res.certificate.met and md.epsilon_ldp(res.mechanism) <= 1.0
    assert res.status is Status.INACCURATE and res.gap is not None and res.gap > GAP_TOL
    assert any("stopped early (time limit)" in n for n in res.notes)


@pytest.mark.parametrize("notion", [md.LDP(1.0), md.DeletionLDP(1.0)])
def test_a_time_limit_before_the_first_round_names_the_limit(monkeypatch, notion):
    # pure LDP (cut generation's master) and deletion LDP with maxima (the LP of pairs)
    from mechdesign.design.engines import cut_generation, working_set

    def never_finishes(h, stop):
        return "kTimeLimit"

    monkeypatch.setattr(working_set, "run_highs", never_finishes)
    monkeypatch.setattr(cut_generation, "run_highs", never_finishes)
    L = np.random.default_rng(1).random((100, 100))
    res = md.DesignProblem(notion, md.ExpectedLoss(L)).solve(time_limit=5.0)
    assert res.status is Status.SOLVER_ERROR and res.value is None
    with pytest.raises(md.SolverFailedError, match="time limit of 5 s"):
        res.mechanism  # noqa: B018


@pytest.mark.slow
@pytest.mark.parametrize("eps", [0.01, 1.0, 10.0, WORKING_SET_MAX_EPSILON])
@pytest.mark.parametrize("loss", ["random", "absolute", "signed"])
def test_dispatched_designs_match_the_global_program_at_k_100(eps, loss):
    # the sizes the working set is dispatched at, the whole epsilon range it takes; skewed
    # prior with zeros (inputs that never occur still get private rows)
    k = m = 100
    L = _losses(k, m, seed=7)[loss]
    prior = np.random.default_rng(7).dirichlet(np.full(k, 0.3))
    prior[:5] = 0.0
    prior /= prior.sum()
    prob = md.DesignProblem(md.LDP(eps), md.ExpectedLoss(L, prior))
    ours = prob.solve()
    assert any("working set" in n for n in ours.notes)
    assert ours.status is Status.OPTIMAL and ours.gap <= GAP_TOL and ours.certificate.met
    assert md.epsilon_ldp(ours.mechanism) <= eps
    ref = program_method.solve_program(prob, None, {}, None)
    span = float(L.max() - L.min())
    assert ours.value <= ref.value + 1e-7 * span
    if ref.status is Status.OPTIMAL:
        assert abs(ours.value - ref.value) <= 1e-7 * span


def test_a_failed_master_hands_over_to_the_lp_of_pairs(monkeypatch):
    # HiGHS failing on the master (not a time or memory stop): the LP of pairs solves the
    # design as a second method, with the same optimum as the cutting planes
    from mechdesign.design.engines import cut_generation

    L = np.random.default_rng(4).random((100, 100))
    spec = md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(L))
    ours = spec.solve()
    assert "cutting planes" in ours.formulation
    monkeypatch.setattr(cut_generation, "run_highs", lambda h, stop: "kSolveError")
    res = spec.solve()
    assert res.status is Status.OPTIMAL and res.certificate.met
    assert "LP of pairs" in res.formulation
    assert any("kSolveError" in n and "second method" in n for n in res.notes)
    assert res.value == pytest.approx(ours.value, rel=1e-9)


@pytest.mark.parametrize("answered", [True, False])
def test_the_second_method_s_time_after_a_failed_master(monkeypatch, answered):
    # the LP of pairs after a HiGHS failure gets what remains of the limit and, when the
    # cutting planes left a feasible point, at most their time (SECOND_METHOD_MIN_SECONDS
    # at least): it took minutes on designs the cutting planes solve in 0.1 s (fuzzing)
    from mechdesign.design.engines import cut_generation, working_set
    from mechdesign.design.engines.working_set import run_highs
    from mechdesign.design.program import SECOND_METHOD_MIN_SECONDS

    calls, given = [], []

    def fails_late(h, stop):  # the first round solves, then HiGHS fails
        calls.append(1)
        return run_highs(h, stop) if answered and len(calls) == 1 else "kSolveError"

    real = working_set.solve_working_set

    def recorded(c, envelope, deadline, *args):
        given.append(deadline.remaining())
        return real(c, envelope, deadline, *args)

    monkeypatch.setattr(cut_generation, "run_highs", fails_late)
    monkeypatch.setattr(working_set, "solve_working_set", recorded)
    L = np.random.default_rng(4).random((100, 100))
    for limit in (None, 500.0):
        calls.clear()
        res = md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(L)).solve(time_limit=limit)
        assert res.status is md.design.result.Status.OPTIMAL
    capped = SECOND_METHOD_MIN_SECONDS  # the cutting planes took well under that
    if answered:
        assert capped - 5 < given[0] <= capped and capped - 5 < given[1] <= capped
    else:
        assert given[0] is None and 490 < given[1] <= 500
