"""The planner (:mod:`mechdesign.design.planner`): one table of routing rules that solve(),
plan(), ``mechdesign solve --plan`` and every frontier point follow.

Pinned: the rules are tried in order and the last always applies; each plan names why the
other methods were left out; a plan prints and serialises without solving, for every
shipped problem file too; solve() reports the method it ran and the frontier takes the same
one; the working set is routed by size, notion, objective, options, epsilon and the memory
budget (its pairs and entries capped by what the dense arrays leave of MEMORY_BUDGET).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import mechdesign as md
from mechdesign.cli.main import main
from mechdesign.design import DesignProblem, planner
from mechdesign.design.objectives import ExpectedLoss
from mechdesign.design.planner import (
    MEMORY_BUDGET,
    WORKING_SET_BYTES_PER_CUT_ENTRY,
    WORKING_SET_BYTES_PER_ENTRY,
    WORKING_SET_BYTES_PER_PAIR,
    WORKING_SET_MAX_EPSILON,
    WORKING_SET_MIN_ENTRIES,
)
from mechdesign.design.solvers import run as solvers
from mechdesign.errors import MechdesignError
from mechdesign.frontier import frontier
from mechdesign.privacy.notions import LDP, MetricDP
from mechdesign.testing.cases import build, case_from_seed
from tests.paths import PROBLEMS


def absolute_loss(k: int) -> np.ndarray:
    i = np.arange(k)
    return np.abs(i[:, None] - i[None, :]).astype(float)


def reasons_of(p: planner.Plan) -> dict[str, str]:
    """Rule name -> its line (``name: yes|no: why``)."""
    return {line.split(":", 1)[0]: line for line in p.reasons}


def test_the_rules_are_tried_in_order_and_the_last_always_applies():
    assert [r.method for r in planner.RULES] == list(planner.Method)
    p = DesignProblem(LDP(1.0), ExpectedLoss(absolute_loss(4))).plan()
    assert p.method is planner.Method.PROGRAM
    assert [line.split(":")[0] for line in p.reasons] == [m.value for m in planner.Method]
    assert all(r.endswith(("no", "yes")) for r in
               (line.split(":", 2)[1].strip() for line in p.reasons))
    assert p.reasons[-1].startswith("program: yes")


def test_the_reasons_name_what_kept_the_working_set_out():
    k = 100  # k x n = 10,000 entries: the working set's threshold
    loss = ExpectedLoss(absolute_loss(k))
    assert DesignProblem(LDP(1.0), loss).plan().method is planner.Method.WORKING_SET
    below = DesignProblem(LDP(1.0), ExpectedLoss(absolute_loss(99))).plan()
    assert below.method is planner.Method.PROGRAM
    assert "99 x 99 below 10,000 entries" in reasons_of(below)["working_set"]
    with_constraint = DesignProblem(LDP(1.0), loss,
                                    constraints={"floor": lambda Q: [Q[0, 0] >= 0.01]}).plan()
    assert "no: user constraints present" in reasons_of(with_constraint)["working_set"]
    named = DesignProblem(LDP(1.0), loss).plan(solver="CLARABEL")
    assert named.method is planner.Method.PROGRAM
    assert "solver other than HiGHS" in reasons_of(named)["working_set"]
    high = DesignProblem(LDP(13.0), loss).plan()
    assert "above the working set's 12" in reasons_of(high)["working_set"]


def test_a_plan_prints_and_serialises_without_solving(monkeypatch):
    def no_run(*args, **kwargs):
        raise AssertionError("plan() must not solve")

    monkeypatch.setattr(planner, "run", no_run)
    p = DesignProblem(LDP(1.0), ExpectedLoss(absolute_loss(5))).plan()
    text = str(p)
    for key in ("method: program", "solver:", "memory: about", "why:"):
        assert key in text
    d = json.loads(json.dumps(p.to_dict()))
    assert d["method"] == "program" and d["memory_bytes"] == p.memory_bytes > 0
    with pytest.raises(AttributeError):
        p.method = planner.Method.LOCAL  # type: ignore[misc]


def test_solve_reports_the_method_it_ran():
    res = DesignProblem(LDP(1.0), ExpectedLoss(absolute_loss(4))).solve()
    assert res.method == "program" and res.summary()["method"] == "program"
    ham = DesignProblem(LDP(1.0), ExpectedLoss(1.0 - np.eye(4))).solve()
    assert ham.method == "closed_form_krr"
    # k-RR: value (k - 1)/(e^eps + k - 1) under a uniform prior (the closed form's reference)
    assert ham.value == pytest.approx(3 / (np.e + 3), rel=1e-12)


@pytest.mark.parametrize("path", sorted(PROBLEMS.glob("*.toml")), ids=lambda p: p.stem)
def test_solve_plan_prints_the_plan_of_every_shipped_file(path, monkeypatch, capsys):
    monkeypatch.setattr(planner, "run", lambda *a, **k: pytest.fail("--plan solved"))
    assert main(["solve", str(path), "--plan"]) == 0
    out = capsys.readouterr().out
    assert "the plan (nothing solved)" in out
    assert "method: " in out and "solver: " in out and "why:" in out
    assert main(["solve", str(path), "--plan", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["method"] in {m.value for m in planner.Method}
    assert len(d["reasons"]) >= 1 and d["reasons"][-1].startswith(d["method"] + ": yes")


def _method_of(run):
    try:
        res = run()
    except MechdesignError as exc:
        return type(exc).__name__, None
    return res.method, res.value


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
def test_frontier_and_solve_choose_the_same_method_on_the_fuzz_corpus(seed):
    try:
        problem = build(case_from_seed(seed)).problem
    except MechdesignError as exc:  # the fuzz's refused cases (documented limits)
        pytest.skip(f"case refused when built: {type(exc).__name__}")
    eps = problem.privacy.epsilon
    alone, value = _method_of(problem.solve)
    swept, swept_value = _method_of(lambda: frontier(problem, [eps], workers=1).results[0])
    assert swept == alone
    if value is not None and swept_value is not None:
        assert swept_value == pytest.approx(value, rel=1e-6, abs=1e-9)


def test_frontier_follows_the_planner_where_the_whole_program_does_not_fit(monkeypatch):
    # pure LDP, expected loss, k = 120: the planner's working set needs its dense arrays
    # (k^2 x 250 B = 3.6 MB) but the whole program (about k^3 nonzeros) is refused under a
    # budget of 40 MB. The sweep used to compile the whole program for every convex
    # objective: SizeLimitError at k = 1700 under the real budget, where solve() answered.
    budget = 40 * 2**20
    monkeypatch.setattr(solvers, "MEMORY_BUDGET", budget)
    monkeypatch.setattr(planner, "MEMORY_BUDGET", budget)
    k = 120
    problem = DesignProblem(LDP(1.0), ExpectedLoss(absolute_loss(k)))
    assert problem.plan().method is planner.Method.WORKING_SET
    with pytest.raises(MechdesignError, match="limit"):
        problem.compile()  # what the old sweep did
    alone = problem.solve()
    f = frontier(problem, [1.0], workers=1)
    assert f.results[0].method == alone.method == "working_set"
    assert f.values[0] == pytest.approx(alone.value, rel=1e-7)


def test_metric_privacy_rows_are_generated_in_the_sweep_too(monkeypatch):
    # row generation's size thresholds lowered so that a 12-point problem takes it: the
    # planner sends solve() there, and the sweep follows (it used to compile it whole)
    from mechdesign.design.methods import row_generation

    monkeypatch.setattr(row_generation, "MIN_TRIPLES", 0)
    monkeypatch.setattr(row_generation, "SPARSE_SKELETON", 0)
    P = np.random.default_rng(0).random((12, 2)) * 4
    D = np.sqrt(((P[:, None] - P[None]) ** 2).sum(-1))
    problem = DesignProblem(MetricDP(0.5, D), ExpectedLoss(D))
    assert problem.plan().method is planner.Method.ROW_GENERATION
    alone = problem.solve()
    swept = frontier(problem, [0.5], workers=1).results[0]
    assert swept.method == alone.method == "row_generation"
    assert swept.value == pytest.approx(alone.value, rel=1e-7)


@pytest.mark.slow
def test_frontier_at_k_1700_takes_the_working_set_like_solve():
    # pure LDP, absolute loss, k = 1700: the whole program needs about 13.5 GiB (refused
    # up front); solve() and now every frontier point take the working set (3 s, 530 MiB)
    problem = DesignProblem(LDP(1.0), ExpectedLoss(absolute_loss(1700)))
    with pytest.raises(MechdesignError, match="limit"):
        problem.compile()
    res = frontier(problem, [1.0], workers=1).results[0]
    assert res.method == "working_set" and res.status.value == "optimal"
    assert res.gap <= 1e-6 and res.certificate.met


def test_dispatch_by_size_notion_objective_and_options():
    L = np.random.default_rng(0).random((100, 100))
    assert 100 * 100 >= WORKING_SET_MIN_ENTRIES
    big = md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(L))
    assert big.working_set_applies(None, {})
    assert big.working_set_applies("HIGHS", {"highs_options": {}})
    assert md.DesignProblem(md.ApproxLDP(1.0, 0.0), md.ExpectedLoss(L)).working_set_applies(
        None, {})
    # kept on the global program: small, another solver or options, other notions,
    # objectives, user constraints, eps beyond the unscaled caps
    small = np.random.default_rng(0).random((20, 20))
    assert not md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(small)).working_set_applies(
        None, {})
    assert not big.working_set_applies("CLARABEL", {})
    assert not big.working_set_applies(None, {"verbose": True})
    assert not md.DesignProblem(md.ApproxLDP(1.0, 1e-6), md.ExpectedLoss(L)
                                ).working_set_applies(None, {})
    assert not md.DesignProblem(md.LDP(1.0), md.WorstCaseLoss(L)).working_set_applies(
        None, {})
    assert not md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(L),
                                constraints={"c": lambda Q: Q[0, 0] >= 0.1}
                                ).working_set_applies(None, {})
    assert not md.DesignProblem(md.LDP(WORKING_SET_MAX_EPSILON + 1), md.ExpectedLoss(L)
                                ).working_set_applies(None, {})
    # pure deletion LDP too, up to half the epsilon (its caps are e^{2 eps} - 1)
    assert md.DesignProblem(md.DeletionLDP(WORKING_SET_MAX_EPSILON / 2), md.ExpectedLoss(L)
                            ).working_set_applies(None, {})
    assert not md.DesignProblem(md.DeletionLDP(WORKING_SET_MAX_EPSILON / 2 + 0.1),
                                md.ExpectedLoss(L)).working_set_applies(None, {})
    assert not md.DesignProblem(md.DeletionLDP(1.0, 0.01), md.ExpectedLoss(L)
                                ).working_set_applies(None, {})
    # the dense k x m arrays must fit the memory budget, the LP's pairs are capped by what
    # is left: at the file limit (1e7 entries) 2.3 GiB of arrays leave 5.0 million pairs
    at_limit = md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(md.losses.hamming(3000)))
    assert at_limit.working_set_applies(None, {})
    assert at_limit.working_set_max_pairs() == (
        (MEMORY_BUDGET - 3000 * 3000 * WORKING_SET_BYTES_PER_ENTRY) // WORKING_SET_BYTES_PER_PAIR)
    assert at_limit.working_set_max_pairs() > 5_000_000
    assert at_limit.working_set_max_entries() == (
        (MEMORY_BUDGET - 3000 * 3000 * WORKING_SET_BYTES_PER_ENTRY)
        // WORKING_SET_BYTES_PER_CUT_ENTRY)


def test_arrays_beyond_the_budget_keep_the_global_program(monkeypatch):
    monkeypatch.setattr(planner, "WORKING_SET_BYTES_PER_ENTRY", MEMORY_BUDGET // 10_000 + 1)
    too_big = md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(md.losses.hamming(100)))
    assert too_big.working_set_max_pairs() == 0
    assert not too_big.working_set_applies(None, {})
    res = too_big.solve()  # the global program (whose own memory check applies)
    assert not any("working set" in n for n in res.notes)
    assert res.value == pytest.approx(1 - math.e / (math.e + 99), rel=1e-9)  # k-RR
