"""The greedy spanner: the Dijkstra-on-demand scan keeps exactly the greedy edges.

Second method: the dense scan (exact graph distances updated after every kept edge), on
grids, random Euclidean points, random metrics with ties, graphs with unreachable pairs,
and the definition itself (every pair within t of its distance, every kept edge needed).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechdesign.errors import InvalidParameterError
from mechdesign.neighbors import (
    _greedy_spanner_dense,
    graph_dilation,
    greedy_spanner,
    line_distance,
)


def dense(D: np.ndarray, t: float):
    iu, ju = np.triu_indices(len(D), 1)
    d = D[iu, ju]
    order = np.argsort(d, kind="stable")
    finite = np.isfinite(d[order])
    return _greedy_spanner_dense(D, t, iu[order][finite], ju[order][finite], d[order][finite])


def grid(n: int) -> np.ndarray:
    P = np.array([(i, j) for i in range(n) for j in range(n)], dtype=float)
    return np.sqrt(((P[:, None] - P[None]) ** 2).sum(-1))


def points(seed: int, k: int) -> np.ndarray:
    P = np.random.default_rng(seed).uniform(0, 10, (k, 2))
    return np.sqrt(((P[:, None] - P[None]) ** 2).sum(-1))


@pytest.mark.parametrize("n, t", [(6, 1.05), (10, 1.1), (12, 1.1), (9, 1.5), (7, 1.0)])
def test_grid_spanner_has_the_dense_scans_edges(n, t):
    D = grid(n)
    edges, dil = greedy_spanner(D, t)
    ref_edges, ref_dil = dense(D, t)
    assert edges == ref_edges
    assert dil == pytest.approx(ref_dil, rel=1e-12)
    assert dil <= t * (1 + 1e-12)


@pytest.mark.slow  # 2.5-11 s: left out of the quick and the floors runs
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 40),
       t=st.sampled_from([1.0, 1.01, 1.2, 2.0, 5.0]))
def test_random_points_and_metrics(seed, k, t):
    D = points(seed, k)
    if seed % 3 == 0:  # integer distances: many ties, scanned in index order
        D = np.ceil(D)
        np.fill_diagonal(D, 0.0)
    edges, dil = greedy_spanner(D, t)
    assert edges == dense(D, t)[0]
    # the definition: every pair within t of its distance (remeasured by Dijkstra) ...
    if edges:
        assert graph_dilation(D, edges) <= t * (1 + 1e-12)
        assert dil == pytest.approx(graph_dilation(D, edges), rel=1e-12)


def test_infinite_distances_and_duplicate_points():
    D = line_distance(5)
    D[0, 4] = D[4, 0] = np.inf  # no constraint between 0 and 4
    edges, _ = greedy_spanner(D, 1.0)
    assert edges == dense(D, 1.0)[0] == [(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0), (3, 4, 1.0)]
    P = np.array([0.0, 0.0, 1.0, 3.0])  # points 0 and 1 coincide: a zero-length edge
    Dz = np.abs(P[:, None] - P[None])
    edges, dil = greedy_spanner(Dz, 1.0)
    assert edges == [(0, 1, 0.0), (0, 2, 1.0), (2, 3, 2.0)]
    assert dil == 1.0


def test_stretch_below_one_is_refused():
    with pytest.raises(InvalidParameterError, match=r"0\.9"):
        greedy_spanner(grid(3), 0.9)
