"""Frontiers (mechdesign.frontier.sweep) agree point by point with independent solves."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

import mechdesign as md
from mechdesign.frontier.families import family_frontier, family_mechanism
from mechdesign.frontier.sweep import frontier

EPS = np.linspace(0.2, 3.0, 8)


def _independent(problem, notion_of, eps):
    return np.array([problem.with_privacy(notion_of(e)).solve().value for e in eps])


@pytest.mark.parametrize("notion_of", [
    lambda e: md.LDP(e),
    lambda e: md.ApproxLDP(e, 0.05),
    lambda e: md.DeletionLDP(e),
    lambda e: md.MetricDP(e, md.neighbors.line_distance(5)),
])
def test_frontier_matches_independent_solves(notion_of):
    L = np.random.default_rng(3).random((5, 5))
    prob = md.DesignProblem(privacy=notion_of(1.0), objective=md.ExpectedLoss(L))
    f = frontier(prob, EPS)
    np.testing.assert_allclose(f.values, _independent(prob, notion_of, EPS), rtol=1e-7,
                               atol=1e-10)
    assert all(c.met for c in f.certificates)
    assert np.all(np.diff(f.values) <= 1e-9)  # more privacy budget never hurts
    for e, m in zip(EPS, f.mechanisms, strict=True):
        assert notion_of(e).holds(m)


def test_information_frontier_and_families():
    obj = md.EstimationVariance(np.full(4, 0.25))
    prob = md.DesignProblem(privacy=md.LDP(1.0), objective=obj)
    f = frontier(prob, EPS)
    for fam in ("randomized_response", "subset_selection", "optimized_unary_encoding",
                "hadamard_response"):
        # no catalog family beats the designed optimum
        assert np.all(family_frontier(fam, obj, EPS) >= f.values * (1 - 1e-9))
    # subset selection with its best d IS the optimum for a uniform prior
    np.testing.assert_allclose(family_frontier("subset_selection", obj, EPS), f.values,
                               rtol=1e-9)


def test_frontier_over_executors_is_identical():
    prob = md.DesignProblem(privacy=md.LDP(1.0), objective=md.ExpectedLoss(
        md.losses.hamming(4)))
    base = frontier(prob, EPS).values
    np.testing.assert_allclose(base, 3 / (np.exp(EPS) + 3), rtol=1e-9)  # k-RR at each eps
    with ThreadPoolExecutor(2) as ex:
        np.testing.assert_allclose(frontier(prob, EPS, executor=ex).values, base, rtol=1e-9)
    with ProcessPoolExecutor(2) as ex:
        np.testing.assert_allclose(frontier(prob, EPS, executor=ex).values, base, rtol=1e-9)


def test_bad_frontier_inputs():
    prob = md.DesignProblem(privacy=md.LDP(1.0), objective=md.ExpectedLoss(np.eye(2)))
    with pytest.raises(md.InvalidParameterError, match="-1"):
        frontier(prob, [0.5, -1.0])
    with pytest.raises(md.InvalidParameterError, match="empty"):
        frontier(prob, [])
    with pytest.raises(md.InvalidParameterError, match="nope"):
        family_mechanism("nope", 3, 1.0)


def test_frontier_on_a_local_dask_cluster():
    # the optional `distributed` extra: a Dask client's executor is an Executor
    import distributed  # in the test extra: a missing package fails, never skips
    prob = md.DesignProblem(privacy=md.LDP(1.0), objective=md.ExpectedLoss(
        md.losses.hamming(3)))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        f = frontier(prob, EPS, executor=client.get_executor(), chunks=2)
    np.testing.assert_allclose(f.values, 2 / (np.exp(EPS) + 2), rtol=1e-9)


# ---------------------------------------------------------------- solver path and workers
def _random_ldp(k=5, seed=3):
    L = np.random.default_rng(seed).random((k, k))
    return md.DesignProblem(privacy=md.LDP(1.0), objective=md.ExpectedLoss(L))


def _floor(Q):  # a named, module-level constraint pickles
    return Q[0, 0] >= 0.3


def test_lp_sweeps_take_warm_started_highs_unless_told_otherwise():
    prob = _random_ldp()
    for f in (frontier(prob, EPS), frontier(prob, EPS, solver="HIGHS")):
        assert {r.solver for r in f.results} == {"HIGHS"}
        assert all("warm-started" in r.formulation for r in f.results)
        # met with no slack: at most a repair of solver-tolerance size
        assert all(c.met and c.repair_weight < 1e-9 for c in f.certificates)
    # an explicit solver, or any option, goes through cvxpy as asked
    clar = frontier(prob, EPS, solver="CLARABEL")
    assert {r.solver for r in clar.results} == {"CLARABEL"}
    ipm = frontier(prob, EPS, solver="HIGHS", highs_options={"solver": "ipm"})
    assert not any("warm-started" in r.formulation for r in ipm.results)
    warm = frontier(prob, EPS).values
    np.testing.assert_allclose(clar.values, warm, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ipm.values, warm, rtol=1e-9, atol=1e-12)


def test_a_failed_warm_start_is_rerun_cold_then_falls_back(monkeypatch):
    from mechdesign.design.solvers import WarmHighs
    prob = _random_ldp()
    good = frontier(prob, EPS).values
    real = WarmHighs._run

    def warm_fails(self, lp, basis):  # every start from a basis stops short
        out = real(self, lp, basis)
        return {**out, "model_status": "kUnknown"} if basis is not None else out

    monkeypatch.setattr(WarmHighs, "_run", warm_fails)
    f = frontier(prob, EPS)
    np.testing.assert_allclose(f.values, good, rtol=1e-9)
    assert f.results[-1].solver == "HIGHS"
    assert not any("re-solved" in n for n in f.results[-1].notes)

    def always_fails(self, lp, basis):
        return {**real(self, lp, basis), "model_status": "kUnknown"}

    monkeypatch.setattr(WarmHighs, "_run", always_fails)
    f = frontier(prob, EPS[:2])
    np.testing.assert_allclose(f.values, good[:2], rtol=1e-8)
    # the default solver of an independent solve (HiGHS interior point at this size)
    assert all("re-solved with HIGHS" in " ".join(r.notes) for r in f.results)


def test_warm_highs_outside_cvxpys_data_layout_falls_back(monkeypatch):
    # if a cvxpy release changes its HiGHS data layout, the warm path raises SolverError
    # (never unpacks a wrong answer) and every point is re-solved by the default solver
    from mechdesign.design.solvers import highs as solvers
    prob = _random_ldp()
    good = frontier(prob, EPS).values

    def layout_changed(data):
        raise KeyError("dims")

    monkeypatch.setattr(solvers, "_highs_lp", layout_changed)
    f = frontier(prob, EPS)
    np.testing.assert_allclose(f.values, good, rtol=1e-8)
    assert all(c.met for c in f.certificates)
    assert all("re-solved with" in " ".join(r.notes) for r in f.results)


def test_workers_2_equals_workers_1_point_by_point(capsys):
    prob = md.DesignProblem(privacy=md.MetricDP(1.0, md.neighbors.line_distance(6)),
                            objective=md.ExpectedLoss(np.random.default_rng(1).random((6, 6))),
                            constraints={"floor": _floor})
    one = frontier(prob, EPS, workers=1)
    two = frontier(prob, EPS, workers=2, progress=True)
    assert "frontier: 8/8" in capsys.readouterr().err  # ticks as chunks complete
    np.testing.assert_allclose(two.values, one.values, rtol=1e-9, atol=1e-12)
    assert [r.status for r in two.results] == [r.status for r in one.results]
    for a, b in zip(one.mechanisms, two.mechanisms, strict=True):
        np.testing.assert_allclose(a.matrix, b.matrix, atol=1e-7)


def test_automatic_workers_decision(monkeypatch):
    import mechdesign.frontier.sweep as fr
    monkeypatch.setattr(fr.os, "cpu_count", lambda: 8)
    small = _random_ldp(5)
    assert fr.pool_workers(small, 50) == fr.MAX_AUTO_WORKERS  # candidates; the probe decides
    assert fr.pool_workers(small, 5) == 1                     # too few points to split
    monkeypatch.setattr(fr.os, "cpu_count", lambda: 1)
    assert fr.pool_workers(small, 50) == 1
    # probe timings (s) as measured on 2 cores, 50 points (47 after the probe):
    assert not fr.pool_pays(47, 0.003, 0.03, 0.005, 2)   # k = 5: milliseconds per point
    assert not fr.pool_pays(47, 0.012, 0.15, 0.04, 2)    # LDP k = 50: the pool lost
    assert not fr.pool_pays(47, 0.04, 0.3, 0.5, 2)       # LDP k = 80: the pool lost
    assert fr.pool_pays(47, 0.06, 0.15, 0.13, 2)         # metric line k = 50: it won
    assert not fr.pool_pays(3, 10.0, 0.1, 0.1, 2)        # fewer than 2 points per worker
    for bad in (0, -2, 1.5, True, "2"):
        with pytest.raises(md.InvalidParameterError, match="workers"):
            fr.pool_workers(small, 8, workers=bad)


def test_automatic_mode_small_sweep_stays_here_and_large_spreads(monkeypatch):
    import mechdesign.frontier.sweep as fr
    prob = _random_ldp()
    one = frontier(prob, EPS, workers=1)

    def no_pool(*a, **k):
        raise AssertionError("a small sweep started a process pool")

    monkeypatch.setattr(fr.os, "cpu_count", lambda: 2)
    with monkeypatch.context() as m:
        m.setattr(fr, "ProcessPoolExecutor", no_pool)
        np.testing.assert_allclose(frontier(prob, EPS).values, one.values, rtol=1e-12)
    monkeypatch.setattr(fr, "pool_pays", lambda *a: True)  # as if the points were slow
    auto = frontier(prob, EPS)
    np.testing.assert_allclose(auto.values, one.values, rtol=1e-9, atol=1e-12)
    assert [r.status for r in auto.results] == [r.status for r in one.results]


def test_lambda_constraint_with_workers(monkeypatch):
    import mechdesign.frontier.sweep as fr
    prob = md.DesignProblem(privacy=md.LDP(1.0), objective=md.ExpectedLoss(
        md.losses.hamming(3)), constraints={"floor": lambda Q: Q[0, 0] >= 0.5})
    with pytest.raises(md.InvalidParameterError, match=r"workers=2.*pickl.*lambda"):
        frontier(prob, EPS, workers=2)

    def no_pool(*a, **k):
        raise AssertionError("an unpicklable problem went to a process pool")

    monkeypatch.setattr(fr.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(fr, "pool_pays", lambda *a: True)  # automatic mode would spread
    monkeypatch.setattr(fr, "ProcessPoolExecutor", no_pool)
    f = frontier(prob, EPS)                                # ... and runs here instead
    assert all(c.met for c in f.certificates)
    assert all(m.matrix[0, 0] >= 0.5 - 1e-9 for m in f.mechanisms)
