"""Frontiers agree point by point with independent solves (issue 5, item 4)."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

import mechdesign as md
from mechdesign.frontier import family_frontier, family_mechanism, frontier

EPS = np.linspace(0.2, 3.0, 8)


def _independent(problem, notion_of, eps):
    return np.array([problem.with_privacy(notion_of(e)).solve().value for e in eps])


@pytest.mark.parametrize("notion_of", [
    lambda e: md.LDP(e),
    lambda e: md.ApproxLDP(e, 0.05),
    lambda e: md.DeletionLDP(e),
    lambda e: md.MetricDP(e, md.line_distance(5)),
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
