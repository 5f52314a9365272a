"""The seeded case generator (:mod:`mechdesign.testing.cases`): reproducible, covering every
notion, objective, loss, distance and range it promises, the widened draws reaching the
problem as drawn, and approximate-LDP relations that are connected and carried by the
notion."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from mechdesign import catalog
from mechdesign.testing.cases import (
    LOSS_KINDS,
    MATRIX_DISTANCES,
    NOTION_KINDS,
    OBJECTIVE_KINDS,
    Case,
    build,
    case_from_seed,
)


def test_case_generator_is_reproducible_and_covers_everything():
    a = [case_from_seed(s) for s in range(600)]
    assert a == [case_from_seed(s) for s in range(600)]
    assert {c.notion for c in a} == set(NOTION_KINDS)
    assert {c.objective for c in a} == set(OBJECTIVE_KINDS)
    assert {c.loss for c in a} == {*LOSS_KINDS, "none"}
    assert {c.distance for c in a} == {*MATRIX_DISTANCES, "graph", "pairs", "none"}
    # a neighbour relation only for approx_ldp, and drawn last: the case without it is the
    # same case (every other field, every array of the objective)
    assert {c.notion for c in a if c.distance == "pairs"} == {"approx_ldp"}
    rng_eps = [c.eps for c in a if c.eps_kind == "range"]
    assert min(rng_eps) < 2e-3 and max(rng_eps) > 15
    near = [c for c in a if c.eps_kind == "near_max"]
    assert near and all(
        0 <= catalog.max_epsilon("randomized_response", k=c.k) - c.eps <= 10 for c in near)
    assert {c.k for c in a} == {2, 3, 4, 5}
    deltas = [c.delta for c in a]
    assert 0.0 in deltas and min(d for d in deltas if d) < 1e-11 and max(deltas) > 0.4
    scales = [c.loss_scale for c in a if c.loss == "scaled"]
    assert min(scales) < 1e-10 and max(scales) > 1e10
    assert any(c.prior_zeros for c in a)

def test_new_ranges_reach_the_problem():
    # the widened draws arrive in the problem as drawn (not clipped by the harness)
    c = Case("metric_matrix", "expected_loss", 4, 4, 1.0, 0.0, 3, loss="signed_wide",
             prior_zeros=2, distance="asymmetric")
    b = build(c)
    assert (b.loss < 0).any() and np.abs(b.loss).max() / np.abs(b.loss).min() > 1e6
    assert (b.prior == 0).sum() == 2 and b.prior.sum() == pytest.approx(1.0)
    D = np.asarray(b.notion.distance)
    assert not np.allclose(D, D.T) and (np.diag(D) == 0).all()
    t = build(Case("metric_spanner", "worst_case_loss", 5, 3, 1.0, 0.0, 4,
                   distance="triangle"))
    D = np.asarray(t.notion.distance)
    assert any(D[a, b] > D[a, w] + D[w, b] for a, b, w in itertools.permutations(range(5), 3))
    s = build(Case("ldp", "worst_case_loss", 3, 3, 1.0, 0.0, 5, loss="scaled",
                   loss_scale=1e-12))
    assert np.abs(s.loss).max() <= 1e-9

def test_relation_cases_are_connected_and_checked_on_their_pairs():
    # the relation of an approx_ldp "pairs" case: a path through every input (connected)
    # plus random pairs, as row indices; the design's notion carries it
    import networkx as nx

    from mechdesign.testing.cases import relation_pairs

    cases = [c for c in (case_from_seed(s) for s in range(2000)) if c.distance == "pairs"]
    assert len(cases) > 20
    for c in cases:
        pairs = relation_pairs(c)
        assert all(0 <= x < xp < c.k for x, xp in pairs)
        g = nx.Graph(pairs)
        g.add_nodes_from(range(c.k))
        assert nx.is_connected(g)
        if c.objective == "expected_loss":  # (estimation at zero priors is refused)
            assert build(c).notion.pairs == pairs
    assert all(relation_pairs(case_from_seed(s)) is None
               for s in range(200) if case_from_seed(s).distance != "pairs")
