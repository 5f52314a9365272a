"""Clarabel and the block-angular interior point behind it
(:mod:`mechdesign.design.solvers.clarabel`).

Pinned: Clarabel's settings (gap and feasibility tolerances 1e-10 unless the user sets
them, the time limit under ``time_limit``, the user's value winning); its options checked
against ``clarabel.DefaultSettings``, refused by name or accepted; ``primal_dual`` gives
``dual_bound`` the optimum of an LP solved by hand within 1e-9; its fallbacks (HiGHS for
LPs, SCS for cones), shared by the block adapter, which is labelled BLOCK-IPM;
``block_runner`` hands the solve straight to Clarabel for a small LP, a cone or an LP
without blocks, and ``AfterBlocks`` is Clarabel's answer plus the block method's note.
Through a design: a symmetric spanner grid goes to the block method with HiGHS simplex's
optimum (a second method) across epsilons, loss scales and priors, a named solver is never
replaced, and an answer the block method cannot certify is Clarabel's.
"""

from __future__ import annotations

import threading
import types

import cvxpy as cp
import numpy as np
import pytest

from mechdesign import MetricDP
from mechdesign.design import DesignProblem, ExpectedLoss
from mechdesign.design.solvers import block_ipm, clarabel, dual_bound, solve_compiled
from mechdesign.design.solvers.block_ipm import BlockSolution, solve_block_lp
from mechdesign.design.solvers.clarabel import (
    BLOCK_IPM,
    CLARABEL,
    AfterBlocks,
    BlockIPMAdapter,
    block_runner,
)
from mechdesign.design.symmetry import grid_symmetries


def test_the_settings_are_tight_and_the_user_s_options_win():
    assert CLARABEL.settings({}, None) == {"verbose": False, "tol_gap_abs": 1e-10,
                                           "tol_gap_rel": 1e-10, "tol_feas": 1e-10}
    assert CLARABEL.settings({}, 4)["time_limit"] == 4.0
    mine = CLARABEL.settings({"tol_gap_abs": 1e-6, "time_limit": 9, "verbose": True}, 4)
    assert mine == {"tol_gap_abs": 1e-6, "time_limit": 9, "verbose": True,
                    "tol_gap_rel": 1e-10, "tol_feas": 1e-10}
    assert BLOCK_IPM.settings({}, 4) == CLARABEL.settings({}, 4)  # Clarabel's data and options


@pytest.mark.parametrize(("key", "value", "problem"), [
    ("bogus", 1, "not a Clarabel setting (clarabel.DefaultSettings)"),
    ("_private", 1, "not a Clarabel setting (clarabel.DefaultSettings)"),
    ("max_iter", "abc", "Clarabel refuses the value 'abc'"),
    ("max_iter", -1, "Clarabel refuses the value -1"),
    ("max_iter", 50, None), ("tol_feas", 1e-9, None),
    ("use_quad_obj", True, None),  # read by cvxpy's interface itself
])
def test_options_are_checked_against_clarabel_s_settings(key, value, problem):
    assert CLARABEL.option_problem(key, value) == problem


def test_primal_dual_gives_the_bound_of_an_lp_solved_by_hand():
    # max x0 + 2 x1 + 3 x2 over the simplex with x2 <= 1/4: 2 * 3/4 + 3 / 4 = 2.25
    x = cp.Variable(3, nonneg=True)
    prob = cp.Problem(cp.Maximize(np.array([1.0, 2.0, 3.0]) @ x),
                      [cp.sum(x) == 1, x[2] <= 0.25])
    data, raw = solve_compiled(prob, "CLARABEL", CLARABEL.settings({}, None))
    primal, dual = CLARABEL.primal_dual(raw)
    assert len(primal) == 3 and len(dual) == data["A"].shape[0]
    bound = dual_bound(prob, data, raw, "CLARABEL")
    assert bound == pytest.approx(2.25, rel=1e-9) and bound >= 2.25 - 1e-12  # upper bound
    assert CLARABEL.primal_dual({"x": 1}) is None  # HiGHS's dict, not Clarabel's answer


def test_the_fallbacks_and_the_block_adapter():
    assert (CLARABEL.fallback(True), CLARABEL.fallback(False)) == ("HIGHS", "SCS")
    assert isinstance(BLOCK_IPM, BlockIPMAdapter) and BLOCK_IPM.name == "CLARABEL"
    assert BLOCK_IPM.label == "BLOCK-IPM" and CLARABEL.label == ""
    assert (BLOCK_IPM.fallback(True), BLOCK_IPM.fallback(False)) == ("HIGHS", "SCS")


def _data(prob: cp.Problem) -> dict:
    return prob.get_problem_data("CLARABEL")[0]


def test_the_block_runner_hands_small_conic_or_unstructured_lps_to_clarabel(monkeypatch):
    def fallback():
        return "clarabel"

    stop = threading.Event()
    x = cp.Variable((4, 12), nonneg=True)
    rows = [cp.sum(x, axis=1) == 1]
    ratios = [x[0] <= 2 * x[1], x[1] <= 2 * x[0], x[2] <= 2 * x[3], x[3] <= 2 * x[2]]
    blocks = cp.Problem(cp.Minimize(cp.sum(x[:, :3])), rows + ratios)
    assert block_runner(_data(blocks), None, stop, fallback, None) is fallback  # small
    monkeypatch.setattr(clarabel, "BLOCK_IPM_MIN_VARS", 0)
    assert block_runner(_data(blocks), None, stop, fallback, None) is not fallback
    cone = cp.Problem(cp.Minimize(cp.norm(x[0] - 1)), rows + ratios)
    assert block_runner(_data(cone), None, stop, fallback, None) is fallback
    dense = cp.Problem(cp.Minimize(cp.sum(x[:, :3])), [*rows, cp.sum(x) <= 10])
    assert block_runner(_data(dense), None, stop, fallback, None) is fallback  # no blocks


def test_after_blocks_is_clarabel_s_answer_with_the_block_note():
    answer = types.SimpleNamespace(x=[1.0], z=[2.0], status="Solved")
    after = AfterBlocks(answer, "the block method fell short")
    assert (after.x, after.z, after.status) == ([1.0], [2.0], "Solved")
    assert after.block_note == "the block method fell short"
    assert CLARABEL.primal_dual(after) is not None


def grid(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The points of an n x n grid and their Euclidean distances."""
    pts = np.array([(i, j) for i in range(n) for j in range(n)], dtype=float)
    return pts, np.linalg.norm(pts[:, None] - pts[None, :], axis=-1)


def grid_problem(n: int = 12) -> DesignProblem:
    _, D = grid(n)
    return DesignProblem(privacy=MetricDP(1.0, D, spanner=1.1),
                         objective=ExpectedLoss(D, np.full(n * n, 1 / (n * n))),
                         symmetry=grid_symmetries(n, n))


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clarabel, "BLOCK_IPM_MIN_VARS", 0)


def test_design_through_the_block_method(small_blocks: None) -> None:
    """A default solve of a symmetric spanner grid goes to the block method (the 12 x 12
    grid: 2,628 orbit variables, so Clarabel by default, in 21 blocks, one per output
    orbit); HiGHS simplex, named explicitly, is the second method: the same optimum, and
    the returned matrix passes the independent privacy measurement of the certificate."""
    res = grid_problem().solve()
    ref = grid_problem().solve(solver="HIGHS", highs_options={"solver": "simplex"})
    assert res.solver == "BLOCK-IPM" and ref.solver == "HIGHS"
    assert res.status.value == "optimal" and res.gap is not None and res.gap <= 1e-6
    assert res.value == pytest.approx(ref.value, rel=1e-6)
    assert any("block-angular interior point" in note for note in res.notes)
    assert res.certificate.met


def test_named_solver_is_not_replaced(small_blocks: None) -> None:
    res = grid_problem().solve(solver="CLARABEL")
    assert res.solver == "CLARABEL"


def test_clarabel_when_the_block_method_falls_short(
        small_blocks: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """An answer the block method cannot certify within the tolerance is not returned:
    Clarabel solves instead (here the method is made to stop after two iterations)."""
    calls = []

    def short(*args: object, **kwargs: object) -> BlockSolution:
        calls.append(1)
        return solve_block_lp(*args, **{**kwargs, "max_iter": 2})  # type: ignore[arg-type]

    monkeypatch.setattr(block_ipm, "solve_block_lp", short)
    res = grid_problem().solve()
    assert calls and res.solver == "CLARABEL" and res.status.value == "optimal"
    assert any("ended MaxIterations after 2 iterations" in note and "Clarabel solved instead"
               in note for note in res.notes)


@pytest.mark.parametrize(("eps", "scale", "skew"), [
    (0.05, 1.0, False), (0.3, 1e-6, True), (1.0, 1e6, False), (3.0, 1.0, True),
    (6.0, 1e-12, False)])
def test_design_range(small_blocks: None, eps: float, scale: float, skew: bool) -> None:
    """Across eps (0.05..6), loss scales (1e-12..1e6) and a prior that is symmetric but not
    uniform (weights falling with the distance to the centre): the block method's
    certified value equals HiGHS simplex's on the same 12 x 12 spanner grid."""
    n = 12
    pts, D = grid(n)
    prior = np.ones(n * n)
    if skew:
        prior = np.exp(-np.linalg.norm(pts - (n - 1) / 2, axis=1))
    prior /= prior.sum()

    def problem() -> DesignProblem:
        return DesignProblem(privacy=MetricDP(eps, D, spanner=1.1),
                             objective=ExpectedLoss(scale * D, prior),
                             symmetry=grid_symmetries(n, n))

    res = problem().solve()
    ref = problem().solve(solver="HIGHS", highs_options={"solver": "simplex"})
    assert ref.status.value == "optimal"
    assert res.solver == "BLOCK-IPM" and res.status.value == "optimal" and res.certificate.met
    assert res.value == pytest.approx(ref.value, rel=2e-6)
