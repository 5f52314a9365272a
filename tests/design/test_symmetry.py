"""Exact symmetry reduction (mechdesign.design.symmetry): the reduced LP has the optimum of
the full LP (a second method: the same problem solved without the reduction), orbit counts
follow Burnside's lemma, and a problem that is not invariant is refused naming the entry."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechdesign import losses
from mechdesign.design import DesignProblem, EstimationVariance, ExpectedLoss, WorstCaseLoss
from mechdesign.design.formulations import BuildContext, metric_edges
from mechdesign.design.symmetry import close_group, grid_symmetries
from mechdesign.errors import InvalidParameterError, SizeLimitError
from mechdesign.frontier.sweep import frontier
from mechdesign.io.problems import euclidean_grid
from mechdesign.neighbors import graph_dilation, greedy_spanner, line_distance
from mechdesign.privacy import LDP, MetricDP

D4_GRID_3 = grid_symmetries(3, 3)


def _both(make):
    """Values of the problem without and with the reduction, and the reduced result."""
    full = make(None).solve()
    reduced = make("sym").solve()
    assert full.certificate.met and reduced.certificate.met
    return full.value, reduced.value, reduced


def test_group_orders_and_burnside_orbit_count():
    # square grid: dihedral group of order 8; rectangle: order 4 (no quarter turn)
    assert close_group(grid_symmetries(4, 4), 16, 16).order == 8
    assert close_group(grid_symmetries(3, 5), 15, 15).order == 4
    # Burnside on pairs (x, y) of the 3 x 3 grid acted on diagonally: the number of orbits
    # is the mean over g of fix(g)^2 = (81 + 3 * 1 + 4 * 9) / 8 = 15 (identity fixes 9
    # points; the three turns fix the centre; the four mirrors fix a line of 3)
    sym = close_group(D4_GRID_3, 9, 9)
    assert sym.n_orbits == 15
    # orbits of the inputs: corners, edge midpoints, centre
    assert len(sym.input_representatives) == 3


@pytest.mark.parametrize("n,spanner", [(5, None), (5, 1.1), (6, 1.05), (4, 1.5)])
def test_grid_reduction_has_the_full_optimum(n, spanner):
    D = euclidean_grid(n, n)

    def make(sym):
        return DesignProblem(MetricDP(1.0, D, spanner=spanner), ExpectedLoss(D),
                             symmetry=None if sym is None else grid_symmetries(n, n))

    full, reduced, res = _both(make)
    assert reduced == pytest.approx(full, rel=1e-7)
    assert MetricDP(1.0, D).measure(res.mechanism) <= 1.0 + 1e-9
    assert any("symmetry reduction: group of order 8" in note for note in res.notes)


def test_worst_case_loss_on_a_rectangle_and_a_graph():
    D = euclidean_grid(3, 4)

    def make(sym):
        return DesignProblem(MetricDP(0.7, D), WorstCaseLoss(D),
                             symmetry=None if sym is None else grid_symmetries(3, 4))

    full, reduced, _ = _both(make)
    assert reduced == pytest.approx(full, rel=1e-7)
    # the grid as a networkx graph (Manhattan metric on its edges), labels (i, j)
    G = nx.grid_2d_graph(3, 3)
    nodes = [(i, j) for i in range(3) for j in range(3)]
    L = np.array([[abs(a - c) + abs(b - d) for c, d in nodes] for a, b in nodes], float)

    def make_graph(sym):
        return DesignProblem(MetricDP(1.0, G), ExpectedLoss(L), inputs=nodes,
                             symmetry=None if sym is None else D4_GRID_3)

    full, reduced, _ = _both(make_graph)
    assert reduced == pytest.approx(full, rel=1e-7)


@pytest.mark.slow  # 2.5-11 s: left out of the quick and the floors runs
@settings(max_examples=15, deadline=None)
@given(k=st.integers(3, 9), eps=st.floats(0.1, 3.0),
       w=st.lists(st.floats(0.05, 1.0), min_size=5, max_size=5))
def test_line_reflection_reduction_is_exact(k, eps, w):
    # the line metric |x - x'| with a prior symmetric under x -> k - 1 - x, loss |x - y|:
    # invariant under the reflection, so the reduced optimum equals the full one
    half = np.array([w[i % 5] for i in range(k)])
    prior = (half + half[::-1]) / (half + half[::-1]).sum()
    D = line_distance(k)
    flip = np.arange(k)[::-1]

    def make(sym):
        return DesignProblem(MetricDP(eps, D), ExpectedLoss(D, prior),
                             symmetry=None if sym is None else [flip])

    full, reduced, _ = _both(make)
    assert reduced == pytest.approx(full, rel=1e-6, abs=1e-10)


def test_spanner_is_closed_under_the_group_and_its_dilation_remeasured():
    # with t = 3 the greedy spanner of the 2 x 5 grid is a tree (9 edges, dilation 3), not
    # mirror-symmetric: the closure has 13 edges and a re-measured dilation of sqrt(2)
    D = euclidean_grid(2, 5)
    sym = close_group(grid_symmetries(2, 5), 10, 10)
    es, dil = greedy_spanner(D, 3.0)
    closed, dil_closed = metric_edges(MetricDP(1.0, D, spanner=3.0),
                                      BuildContext(10, 10, tuple(range(10)), symmetry=sym))
    assert (len(es), len(closed)) == (9, 13)
    assert dil == pytest.approx(3.0) and dil_closed == pytest.approx(np.sqrt(2))
    pairs = {(u, v) for u, v, _ in closed}
    for g in sym.G_in:
        assert {tuple(sorted((int(g[u]), int(g[v])))) for u, v in pairs} == pairs
    assert {(u, v) for u, v, _ in es} <= pairs
    assert dil_closed == pytest.approx(graph_dilation(D, closed))


def test_frontier_of_a_reduced_problem_matches_direct_solves():
    D = euclidean_grid(4, 4)
    prob = DesignProblem(MetricDP(1.0, D, spanner=1.1), ExpectedLoss(D),
                         symmetry=grid_symmetries(4, 4))
    fr = frontier(prob, [0.5, 2.0])
    for eps, value in zip(fr.epsilons, fr.values, strict=True):
        direct = DesignProblem(MetricDP(eps, D, spanner=1.1), ExpectedLoss(D)).solve()
        assert value == pytest.approx(direct.value, rel=1e-6)


@pytest.mark.parametrize("make,pattern", [
    (lambda D: DesignProblem(MetricDP(1.0, D), ExpectedLoss(D, np.arange(1, 10) / 45),
                             symmetry=D4_GRID_3), r"prior\[\d\] = "),
    (lambda D: DesignProblem(MetricDP(1.0, D), ExpectedLoss(np.triu(D)),
                             symmetry=D4_GRID_3), r"loss\[\d, \d\] = "),
    (lambda D: DesignProblem(MetricDP(1.0, D * np.arange(1, 10)[:, None]
                                      * np.arange(1, 10)[None, :]),
                             ExpectedLoss(D), symmetry=D4_GRID_3).solve(), r"distance\["),
    (lambda D: DesignProblem(LDP(1.0), ExpectedLoss(D), symmetry=D4_GRID_3),
     r"implemented for MetricDP .* got LDP"),
    (lambda D: DesignProblem(MetricDP(1.0, D), EstimationVariance(np.full(9, 1 / 9)),
                             n_outputs=9, symmetry=D4_GRID_3), r"got EstimationVariance"),
    (lambda D: DesignProblem(MetricDP(1.0, D), ExpectedLoss(D), symmetry=D4_GRID_3,
                             constraints={"c": lambda Q: Q[0, 0] <= 0.5}), r"\['c'\]"),
    (lambda D: DesignProblem(MetricDP(1.0, D), ExpectedLoss(D), symmetry=[[0, 1, 2]]),
     r"permutation of the 9 inputs .* got \[0, 1, 2\]"),
    (lambda D: DesignProblem(MetricDP(1.0, D), ExpectedLoss(D), symmetry=[[0] * 9]),
     r"permutation of the 9 inputs"),
])
def test_asymmetric_or_unsupported_problems_are_refused(make, pattern):
    with pytest.raises(InvalidParameterError, match=pattern):
        make(euclidean_grid(3, 3))


def test_group_too_large_is_a_size_limit():
    # the symmetric group on 8 points (order 40320) from a transposition and a cycle
    D = np.ones((8, 8)) - np.eye(8)
    swap, cycle = [1, 0, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7, 0]
    with pytest.raises(SizeLimitError, match="more than 10000 elements"):
        DesignProblem(MetricDP(1.0, D), ExpectedLoss(losses.hamming(8)),
                      symmetry=[swap, cycle])
