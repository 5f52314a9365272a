"""Approximate LDP on a neighbour relation (Huang & Canonne Def. 2.1 with delta > 0): the
measures, the exact verifier, the design formulation and problem files, each held against
a second method written from the definition (every event S of the outputs, enumerated)."""

from __future__ import annotations

import dataclasses
import itertools
import math
from fractions import Fraction

import mpmath as mp
import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import mechdesign as md
from mechdesign.design.formulations import estimated_nonzeros
from mechdesign.errors import FileFormatError, InvalidParameterError
from mechdesign.io.problems import loads_problem
from mechdesign.neighbors import neighbour_pairs
from mechdesign.privacy import ApproxLDP
from mechdesign.privacy.measures import delta_ldp, epsilon_ldp
from tests.strategies import stochastic_matrices

mp.mp.dps = 50


# ------------------------------------------------------------------------------ references
def events(m: int) -> list[tuple[int, ...]]:
    """Every event S of m outputs (the empty one included: it contributes 0)."""
    return [S for r in range(m + 1) for S in itertools.combinations(range(m), r)]


def brute_delta(Q: np.ndarray, eps: float, ordered: list[tuple[int, int]]) -> mp.mpf:
    """Def. 2.1 literally: max over ordered neighbouring pairs and all 2^m events S of
    Q[x](S) - e^eps Q[x'](S), in 50-digit arithmetic on the exact stored entries."""
    e = mp.exp(mp.mpf(eps))
    best = mp.mpf(0)
    for x, xp in ordered:
        for S in events(Q.shape[1]):
            v = (mp.fsum(mp.mpf(float(Q[x, y])) for y in S)
                 - e * mp.fsum(mp.mpf(float(Q[xp, y])) for y in S))
            best = max(best, v)
    return best


def brute_epsilon(Q: np.ndarray, ordered: list[tuple[int, int]]) -> float:
    """max over ordered neighbouring pairs and outputs of ln(Q[x, y] / Q[x', y])."""
    best = mp.mpf(0)
    for x, xp in ordered:
        for y in range(Q.shape[1]):
            a, b = Fraction(float(Q[x, y])), Fraction(float(Q[xp, y]))
            if a == 0:
                continue
            if b == 0:
                return math.inf
            best = max(best, mp.log(mp.mpf(a.numerator) / a.denominator
                                    * b.denominator / b.numerator))
    return float(best)


def both_orders(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return sorted({(a, b) for a, b in pairs if a != b} | {(b, a) for a, b in pairs if a != b})


def all_events_lp(L: np.ndarray, prior: np.ndarray, eps: float, delta: float,
                  pairs: list[tuple[int, int]]) -> float:
    """The design problem written from the definition for scipy: minimise the expected
    loss sum_x prior_x sum_y Q[x, y] L[x, y] over row-stochastic Q with
    Q[x](S) - e^eps Q[x'](S) <= delta for every ordered neighbouring pair and every event
    S (no slack variables: the 2^m event constraints themselves)."""
    k, m = L.shape
    e = math.exp(eps)
    rows, rhs = [], []
    for x, xp in both_orders(pairs):
        for S in events(m)[1:]:
            r = np.zeros(k * m)
            for y in S:
                r[x * m + y] += 1.0
                r[xp * m + y] -= e
            rows.append(r)
            rhs.append(delta)
    res = linprog((prior[:, None] * L).ravel(), A_ub=np.array(rows), b_ub=np.array(rhs),
                  A_eq=np.kron(np.eye(k), np.ones(m)), b_eq=np.ones(k), bounds=(0, None),
                  method="highs-ds", options={"primal_feasibility_tolerance": 1e-10,
                                              "dual_feasibility_tolerance": 1e-10})
    assert res.status == 0
    return float(res.fun)


@st.composite
def relations(draw, k: int) -> list[tuple[int, int]]:
    """A non-empty set of unordered pairs of 0..k-1 (some given in reverse order)."""
    every = list(itertools.combinations(range(k), 2))
    chosen = draw(st.lists(st.sampled_from(every), min_size=1, max_size=len(every),
                           unique=True))
    flip = draw(st.lists(st.booleans(), min_size=len(chosen), max_size=len(chosen)))
    return [(b, a) if f else (a, b) for (a, b), f in zip(chosen, flip, strict=True)]


EPSILONS = st.one_of(st.sampled_from([0.0, 1e-12, 1e-6, 0.1, 1.0, 5.0, 30.0]),
                     st.floats(0.0, 10.0))


# ------------------------------------------------------------------------------ measures
@pytest.mark.slow  # 2-3 s: left out of the quick and the floors runs
@settings(max_examples=150, deadline=None)
@given(data=st.data(), Q=stochastic_matrices(rows=(2, 4), cols=(1, 4)), eps=EPSILONS)
def test_pair_delta_is_the_worst_event_over_neighbouring_pairs(data, Q, eps):
    pairs = data.draw(relations(Q.shape[0]))
    ref = brute_delta(Q, eps, both_orders(pairs))
    got = delta_ldp(Q, eps, pairs=pairs)
    # a float sum of at most 4 terms <= 1 against the 50-digit value
    assert abs(got - float(ref)) <= 1e-15
    # fewer pairs constrain less; every pair is today's measure, bit for bit
    assert got <= delta_ldp(Q, eps)
    every = list(itertools.combinations(range(Q.shape[0]), 2))
    assert delta_ldp(Q, eps, pairs=every) == delta_ldp(Q, eps)
    assert ApproxLDP(eps, 0.5, pairs=pairs).measure(Q) == got
    assert ApproxLDP(eps, 0.5, pairs=every).measure(Q) == ApproxLDP(eps, 0.5).measure(Q)


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
@settings(max_examples=150, deadline=None)
@given(data=st.data(), Q=stochastic_matrices(rows=(2, 4), cols=(1, 4)))
def test_pair_epsilon_is_the_worst_ratio_over_neighbouring_pairs(data, Q):
    pairs = data.draw(relations(Q.shape[0]))
    ref = brute_epsilon(Q, both_orders(pairs))
    got = epsilon_ldp(Q, pairs=pairs)
    if math.isinf(ref):
        assert math.isinf(got)
    else:  # an upper bound within 8 ulps (the measures' contract)
        assert ref <= got <= ref + 16 * np.spacing(max(ref, 1e-300)) + 1e-300
    assert got <= epsilon_ldp(Q)
    # delta = 0 is pure LDP on the pairs, measured as an epsilon
    assert ApproxLDP(1.0, 0.0, pairs=pairs).measure(Q) == got


def test_labels_and_indices_name_the_same_pairs():
    Q = md.Mechanism(md.randomized_response(4, 1.0).matrix * 0.5
                     + 0.5 * np.array([[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1],
                                       [0, 0, 1, 0]]), inputs=("a", "b", "c", "d"))
    by_label = delta_ldp(Q, 0.5, pairs=[("a", "b"), ("c", "d")])
    by_index = delta_ldp(Q, 0.5, pairs=[(0, 1), (2, 3)])
    by_graph = delta_ldp(Q, 0.5, graph=nx.Graph([("a", "b"), ("d", "c")]))
    assert by_label == by_index == by_graph
    ref = brute_delta(Q.matrix, 0.5, both_orders([(0, 1), (2, 3)]))
    assert abs(by_label - float(ref)) <= 1e-15
    # a and b send the same first output: (a, b) is much closer than (a, d)
    assert delta_ldp(Q, 0.5, pairs=[("a", "d")]) > by_label


def test_integer_labels_are_read_as_labels_and_ambiguity_is_refused():
    Q = md.Mechanism(md.randomized_response(3, 1.0).matrix, inputs=(5, 0, 1))
    u, v = neighbour_pairs(Q.inputs, [(0, 1)])  # labels 0 and 1 are rows 1 and 2
    assert (u.tolist(), v.tolist()) == ([1], [2])
    with pytest.raises(InvalidParameterError, match=r"ambiguous: 0 is the label of row 1"):
        neighbour_pairs(Q.inputs, [(0, 1), (2, 1)])  # 2 is no label: indices, but 0 is one
    M = md.Mechanism(Q.matrix, inputs=("a", "b", "c"))
    with pytest.raises(InvalidParameterError, match=r"ambiguous: 'a' is the label of row 0"):
        neighbour_pairs(M.inputs, [("a", 2)])


@pytest.mark.parametrize("kwargs, match", [
    ({"pairs": []}, r"pairs is empty"),
    ({"pairs": "ab"}, r"sequence of pairs"),
    ({"pairs": 3}, r"sequence of pairs"),
    ({"pairs": [(0, 1, 2)]}, r"item \(0, 1, 2\) is not a pair"),
    ({"pairs": [(0, [1])]}, r"item \(0, \[1\]\) is not a pair"),
    ({"pairs": [(0, 0)]}, r"no pair of different inputs"),
    ({"pairs": [(0, 7)]}, r"pairs value 7 is neither an input label nor a row index 0..2"),
    ({"pairs": [(0, -1)]}, r"pairs value -1 is neither"),
    ({"pairs": [(0, 1.5)]}, r"pairs value 1.5 is neither"),
    ({"pairs": [(0, True)]}, r"item \(0, True\) is not a pair"),
    ({"graph": nx.Graph([(0, 0)])}, r"graph has no edge between two different nodes"),
    ({"graph": nx.Graph([(0, "z")])}, r"graph node 'z' \(edge \(0, 'z'\)\) is not an input"),
    ({"graph": [(0, 1)]}, r"graph must be a networkx graph"),
    ({"pairs": [(0, 1)], "graph": nx.path_graph(3)}, r"as pairs or as a graph, not both"),
])
def test_bad_relations_are_refused_naming_the_value(kwargs, match):
    Q = md.randomized_response(3, 1.0)
    with pytest.raises(InvalidParameterError, match=match):
        delta_ldp(Q, 1.0, **kwargs)
    with pytest.raises(InvalidParameterError, match=match):
        md.verify_exact(Q, "approx_ldp", 1.0, 0.1, **kwargs)


def test_the_notion_refuses_bad_relations_when_built():
    for kwargs, match in [({"pairs": []}, "pairs is empty"),
                          ({"pairs": [(0, 1)], "graph": nx.path_graph(2)}, "not both"),
                          ({"graph": nx.empty_graph(3)}, "no edge"),
                          ({"pairs": [[0, 1, 2]]}, "not a pair")]:
        with pytest.raises(InvalidParameterError, match=match):
            ApproxLDP(1.0, 0.1, **kwargs)
    with pytest.raises(InvalidParameterError, match=r"delta must lie in \[0, 1\], got 2.0"):
        ApproxLDP(1.0, 2.0, pairs=[(0, 1)])
    # labels that name no input are refused by the design, before anything is built
    with pytest.raises(InvalidParameterError, match=r"pairs value 'q' is neither"):
        md.DesignProblem(ApproxLDP(1.0, 0.1, pairs=[("a", "q")]),
                         md.ExpectedLoss(md.losses.hamming(2)), inputs=("a", "b"))


def test_the_notion_is_a_frozen_hashable_value():
    a = ApproxLDP(1.0, 0.1, pairs=[[0, 1], (1, np.int64(2))])
    assert a.pairs == ((0, 1), (1, 2)) and isinstance(a.pairs[1][1], int)
    assert a == ApproxLDP(1.0, 0.1, pairs=((0, 1), (1, 2))) and hash(a) == hash(
        ApproxLDP(1.0, 0.1, pairs=((0, 1), (1, 2))))
    assert a != ApproxLDP(1.0, 0.1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.pairs = None
    # today's repr and description are unchanged without a relation
    assert repr(ApproxLDP(1.0, 0.1)) == "ApproxLDP(epsilon=1.0, delta=0.1)"
    assert repr(a) == "ApproxLDP(epsilon=1.0, delta=0.1, pairs=((0, 1), (1, 2)))"
    assert a.describe() == ("approximate LDP, epsilon = 1, delta = 0.1, on 2 neighbouring "
                            "pairs")
    g = ApproxLDP(1.0, 0.1, graph=nx.path_graph(4))
    assert repr(g) == "ApproxLDP(epsilon=1.0, delta=0.1, graph=<Graph with 4 nodes and 3 edges>)"
    assert g.describe().endswith("on the 3 edges of a graph")
    # the frontier replaces epsilon: the relation survives
    assert dataclasses.replace(a, epsilon=2.0).pairs == a.pairs
    assert dataclasses.replace(g, epsilon=2.0).graph is g.graph
    # the vocabulary: from_name takes the relation, other notions refuse it
    assert md.privacy.Notion.from_name("approx_ldp", epsilon=1.0, delta=0.1,
                                       pairs=[(0, 1), (1, 2)]) == a
    with pytest.raises(InvalidParameterError, match=r"pairs does not apply to notion 'ldp'"):
        md.privacy.Notion.from_name("ldp", epsilon=1.0, pairs=[(0, 1)])


# ------------------------------------------------------------------------------ verify_exact
@settings(max_examples=60, deadline=None)
@given(data=st.data(), Q=stochastic_matrices(rows=(2, 4), cols=(1, 4)),
       eps=st.sampled_from([0.0, 0.1, 1.0, 3.0]))
def test_verify_exact_with_pairs_brackets_the_event_maximum(data, Q, eps):
    pairs = data.draw(relations(Q.shape[0]))
    ref = brute_delta(Q, eps, both_orders(pairs))
    v = md.verify_exact(Q, "approx_ldp", eps, 0.5, pairs=pairs)
    lo, hi = v.achieved_delta
    # the bracket comes from a rigorous bracket of e^eps at 30 digits
    assert mp.mpf(lo.numerator) / lo.denominator <= ref + mp.mpf(10) ** -25
    assert ref <= mp.mpf(hi.numerator) / hi.denominator + mp.mpf(10) ** -25
    # at the measured delta (exact, plus a hair) the target holds; clearly below it fails
    d = float(hi) + 1e-12
    if d <= 1:
        assert md.verify_exact(Q, ApproxLDP(eps, d, pairs=pairs)).holds is True
    if float(lo) > 1e-9:
        assert md.verify_exact(Q, ApproxLDP(eps, float(lo) / 2, pairs=pairs)).holds is False


def test_verify_exact_checks_only_neighbouring_pairs():
    # rows 0 and 1 equal, row 2 far: private on the pair (0, 1) at any (eps, delta)
    Q = md.Mechanism([[0.5, 0.5], [0.5, 0.5], [1.0, 0.0]])
    assert md.verify_exact(Q, "approx_ldp", 0.0, 0.0, pairs=[(0, 1)]).holds is True
    assert md.verify_exact(Q, "approx_ldp", 0.0, 0.0).holds is False
    far = md.verify_exact(Q, ApproxLDP(0.0, 0.25, pairs=[(1, 2)]))
    # H(Q_2 || Q_1) at e^0 = TV = 1/2 exactly (the event {output 0})
    assert far.holds is False and far.achieved_delta == (Fraction(1, 2), Fraction(1, 2))
    assert "on 1 neighbouring pair does NOT hold" in far.message
    with pytest.raises(InvalidParameterError, match=r"carries its own parameters"):
        md.verify_exact(Q, ApproxLDP(0.0, 0.25), pairs=[(0, 1)])


# ------------------------------------------------------------------------------ design
def path(k: int) -> list[tuple[int, int]]:
    return [(i, i + 1) for i in range(k - 1)]


@pytest.mark.parametrize("seed", range(6))
def test_design_equals_the_all_events_lp_on_the_neighbouring_pairs(seed):
    rng = np.random.default_rng(seed)
    k, m = 4, int(rng.integers(2, 4))
    every = list(itertools.combinations(range(k), 2))
    pairs = [every[i] for i in rng.choice(len(every), size=int(rng.integers(1, 5)),
                                          replace=False)]
    eps = float(rng.choice([0.2, 1.0, 2.5]))
    delta = float(rng.choice([0.01, 0.1, 0.3]))
    L = rng.random((k, m))
    prior = rng.dirichlet(np.ones(k))
    res = md.DesignProblem(ApproxLDP(eps, delta, pairs=pairs),
                           md.ExpectedLoss(L, prior)).solve()
    ref = all_events_lp(L, prior, eps, delta, pairs)
    assert res.status.value == "optimal" and res.certificate.met and res.certificate.exact
    assert res.value == pytest.approx(ref, rel=1e-7, abs=1e-9)
    # the returned matrix meets the relation's target by the definition itself
    assert brute_delta(res.mechanism.matrix, eps, both_orders(pairs)) <= delta + 1e-12
    assert md.verify_exact(res.mechanism, ApproxLDP(eps, delta, pairs=pairs)).holds is True


def test_every_pair_as_a_relation_is_todays_notion():
    rng = np.random.default_rng(7)
    L, prior = rng.random((4, 4)), rng.dirichlet(np.ones(4))
    every = list(itertools.combinations(range(4), 2))
    for delta in (0.0, 0.05):
        today = md.DesignProblem(ApproxLDP(0.7, delta), md.ExpectedLoss(L, prior)).solve()
        listed = md.DesignProblem(ApproxLDP(0.7, delta, pairs=every),
                                  md.ExpectedLoss(L, prior)).solve()
        assert listed.value == pytest.approx(today.value, rel=1e-9, abs=1e-12)
        assert listed.value == pytest.approx(all_events_lp(L, prior, 0.7, delta, every),
                                             rel=1e-7)


def test_a_path_graph_is_no_worse_than_every_pair():
    # k = 4 ordered inputs, absolute loss: neighbours are adjacent values only
    L = md.losses.absolute(4)
    for eps, delta in [(0.5, 0.0), (0.5, 0.05), (1.0, 0.2)]:
        every = md.DesignProblem(ApproxLDP(eps, delta), md.ExpectedLoss(L)).solve().value
        on_path = md.DesignProblem(ApproxLDP(eps, delta, graph=nx.path_graph(4)),
                                   md.ExpectedLoss(L)).solve()
        assert on_path.value <= every + 1e-9
        assert on_path.value == pytest.approx(
            all_events_lp(L, np.full(4, 0.25), eps, delta, path(4)), rel=1e-7)
        assert any("3 neighbouring pairs" in n for n in on_path.notes)
    # strictly better somewhere (0.7300 against 0.8337 by the LP above)
    assert (md.DesignProblem(ApproxLDP(0.5, 0.05, pairs=path(4)), md.ExpectedLoss(L))
            .solve().value < md.DesignProblem(ApproxLDP(0.5, 0.05), md.ExpectedLoss(L))
            .solve().value - 0.05)


def test_pure_ldp_on_a_path_is_metric_privacy_on_the_line():
    # delta = 0: the edge bounds chain to e^{eps |x - x'|} for every pair (MetricDP's
    # exactness by chaining), so the optima agree
    L = md.losses.absolute(5)
    on_path = md.DesignProblem(ApproxLDP(0.8, 0.0, pairs=path(5)), md.ExpectedLoss(L)).solve()
    line = md.DesignProblem(md.MetricDP(0.8, md.neighbors.line_distance(5)),
                            md.ExpectedLoss(L)).solve()
    assert on_path.value == pytest.approx(line.value, rel=1e-8)
    assert on_path.certificate.met and on_path.certificate.exact


def test_the_frontier_keeps_the_relation():
    L = md.losses.absolute(4)
    problem = md.DesignProblem(ApproxLDP(1.0, 0.05, pairs=path(4)), md.ExpectedLoss(L))
    fr = md.frontier.frontier(problem, [0.3, 1.0])
    for eps, value in zip([0.3, 1.0], fr.values, strict=True):
        assert value == pytest.approx(all_events_lp(L, np.full(4, 0.25), eps, 0.05, path(4)),
                                      rel=1e-7)


def test_the_nonzero_estimate_follows_cvxpys_compiled_matrix():
    from cvxpy import settings as s
    rng = np.random.default_rng(0)
    k = 8
    for notion in (ApproxLDP(1, 1e-3, pairs=path(k)), ApproxLDP(1, 0.0, pairs=path(k)),
                   ApproxLDP(1, 1e-3, graph=nx.cycle_graph(k))):
        p = md.DesignProblem(notion, md.ExpectedLoss(rng.random((k, k))))
        prob = p.compile().prob
        for solver in ("HIGHS", "CLARABEL"):
            data, _, _ = prob.get_problem_data(solver, solver_opts={})
            estimate = estimated_nonzeros(notion, p.build_context()) + k * k
            assert 0.5 <= estimate / data[s.A].nnz <= 2.0, (notion, solver)


# ------------------------------------------------------------------------------ problem files
PROBLEM = """
[privacy]
notion = "approx_ldp"
epsilon = 0.5
delta = 0.05
{relation}

[objective]
kind = "expected_loss"
loss = "absolute"
k = 4
{inputs}
"""


def test_a_problem_file_with_pairs_or_a_named_graph():
    ref = all_events_lp(md.losses.absolute(4), np.full(4, 0.25), 0.5, 0.05, path(4))
    for relation, inputs in [("pairs = [[0, 1], [1, 2], [3, 2]]", ""),
                             ('pairs = [["a", "b"], ["b", "c"], ["c", "d"]]',
                              '[inputs]\nlabels = ["a", "b", "c", "d"]'),
                             ('graph = "line"', ""), ('graph = "grid:1:4"', "")]:
        pf = loads_problem(PROBLEM.format(relation=relation, inputs=inputs))
        assert "neighbouring pairs" in pf.privacy or "edges of a graph" in pf.privacy
        assert pf.problem.solve().value == pytest.approx(ref, rel=1e-7)
    # a 2 x 2 grid: the 4-cycle 0-1-3-2-0, pairs (0, 3) and (1, 2) unconstrained
    pf = loads_problem(PROBLEM.format(relation='graph = "grid:2:2"', inputs=""))
    cycle = [(0, 1), (1, 3), (3, 2), (2, 0)]
    assert pf.problem.privacy.neighbours(tuple(range(4)))[0].tolist() == [0, 0, 1, 2]
    assert pf.problem.solve().value == pytest.approx(
        all_events_lp(md.losses.absolute(4), np.full(4, 0.25), 0.5, 0.05, cycle), rel=1e-7)


@pytest.mark.parametrize("relation, match", [
    ("pairs = []", r"\[privacy\] pairs: must be a non-empty list of pairs"),
    ("pairs = [[0]]", r"\[privacy\] pairs: each item must be a pair"),
    ("pairs = [[0, 1.5]]", r"\[privacy\] pairs: each item must be a pair"),
    ("pairs = [[0, 9]]", r"pairs value 9 is neither an input label nor a row index 0..3"),
    ('graph = "euclidean-grid:2:2"', r"\[privacy\] graph = 'euclidean-grid:2:2': unknown"),
    ('graph = "grid:2:3"', r"6 cells but there are 4 inputs"),
    ("graph = 3", r"\[privacy\] graph = 3: unknown graph"),
    ('pairs = [[0, 1]]\ngraph = "line"', r"as pairs or as a graph, not both"),
])
def test_bad_relations_in_a_problem_file(relation, match):
    with pytest.raises(FileFormatError, match=match):
        loads_problem(PROBLEM.format(relation=relation, inputs=""))


def test_other_notions_refuse_the_relation_keys():
    text = PROBLEM.format(relation="pairs = [[0, 1]]", inputs="").replace(
        '"approx_ldp"', '"ldp"').replace("delta = 0.05\n", "")
    with pytest.raises(FileFormatError, match=r"unknown key 'pairs' for notion 'ldp'"):
        loads_problem(text)
