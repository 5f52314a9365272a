"""The block-angular interior point (mechdesign.design.solvers.block_ipm) against HiGHS on the
same
LPs, and its place in DesignProblem.solve (default Clarabel solves of large block-angular
LPs, certified from its own duals, Clarabel when it falls short)."""

from __future__ import annotations

import time

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from mechdesign import MetricDP
from mechdesign.design import DesignProblem, ExpectedLoss
from mechdesign.design.bound import LowerBound, lp_lower_bound
from mechdesign.design.solvers import block_ipm, clarabel
from mechdesign.design.solvers.block_ipm import BlockSolution, find_blocks, solve_block_lp
from mechdesign.design.symmetry import grid_symmetries


def mechanism_lp(k: int, n: int, seed: int, cost_scale: float = 1.0
                 ) -> tuple[np.ndarray, sp.csr_matrix, np.ndarray, int]:
    """``min sum c[x, y] Q[x, y]`` over ``k x n`` row-stochastic Q whose every column obeys
    ``Q[a, y] <= e^w Q[b, y]`` on a random connected graph of the inputs (both
    directions), in Clarabel's layout: the ``k`` row sums, then the privacy rows, then
    ``-Q <= 0``. Variable ``x * n + y``; column y is one block."""
    rng = np.random.default_rng(seed)
    edges = {(i, i + 1) for i in range(k - 1)}
    edges |= {tuple(sorted(rng.choice(k, 2, replace=False))) for _ in range(k)}
    rows, cols, vals = [], [], []
    r = 0
    for a, b in sorted(edges):
        w = float(rng.uniform(0.1, 2.0))
        for y in range(n):
            for lo, hi in ((a, b), (b, a)):
                rows += [r, r]
                cols += [lo * n + y, hi * n + y]
                vals += [1.0, -np.exp(w)]
                r += 1
    G = sp.csr_matrix((vals, (rows, cols)), shape=(r, k * n))
    E = sp.kron(sp.eye(k), np.ones((1, n)), format="csr")
    A = sp.vstack([E, G, -sp.eye(k * n)], format="csr")
    b = np.concatenate([np.ones(k), np.zeros(r + k * n)])
    c = cost_scale * rng.uniform(0.0, 1.0, k * n)
    return c, A, b, k


def highs_value(c: np.ndarray, A: sp.csr_matrix, b: np.ndarray, n_eq: int) -> float:
    res = linprog(c, A_ub=A[n_eq:], b_ub=b[n_eq:], A_eq=A[:n_eq], b_eq=b[:n_eq],
                  bounds=(None, None), method="highs")
    assert res.status == 0
    return float(res.fun)


def test_find_blocks_splits_columns() -> None:
    _, A, _, n_eq = mechanism_lp(6, 10, seed=0)
    s = find_blocks(A[n_eq:], n_eq)
    assert s is not None and s.n_blocks == 10 and s.largest == 6
    for k in range(s.n_blocks):  # each block: one output column, all six inputs
        cols = s.order[s.var_starts[k]:s.var_starts[k + 1]]
        assert len(set(cols % 10)) == 1 and sorted(cols // 10) == list(range(6))


def test_find_blocks_refuses_what_it_cannot_use() -> None:
    _, A, _, n_eq = mechanism_lp(6, 4, seed=0)  # 4 blocks < MIN_BLOCKS
    assert find_blocks(A[n_eq:], n_eq) is None
    _, A, _, n_eq = mechanism_lp(6, 10, seed=0)
    G = A[n_eq:].tolil()
    G[:, 7] = 0  # a variable in no inequality row: its block matrix would be singular
    assert find_blocks(G.tocsr(), n_eq) is None
    dense = sp.random(40, 20, density=0.5, random_state=0, format="csr")  # 2 rows a var
    assert find_blocks(sp.vstack([dense] * 20, format="csr"), 3) is None  # > 32 rows a var


@settings(max_examples=25, deadline=None)
@given(k=st.integers(3, 12), n=st.integers(8, 20), seed=st.integers(0, 10_000))
def test_same_optimum_as_highs(k: int, n: int, seed: int) -> None:
    c, A, b, n_eq = mechanism_lp(k, n, seed)
    s = find_blocks(A[n_eq:], n_eq)
    bound = LowerBound(A, b, c, n_eq, A.shape[0] - n_eq)
    sol = solve_block_lp(c, A, b, n_eq, s, certify=lambda x, z: (c @ x - bound(z)) / max(
        1.0, abs(c @ x)), tol=1e-9)
    ref = highs_value(c, A, b, n_eq)
    assert sol.status in ("Solved", "AlmostSolved") and sol.gap <= 1e-7
    assert sol.obj_val == pytest.approx(ref, rel=1e-7, abs=1e-9)
    # the duals certify the optimum independently of the method's own claim
    assert lp_lower_bound(A, b, c, n_eq, A.shape[0] - n_eq, sol.z) == pytest.approx(
        ref, rel=1e-7, abs=1e-9)
    # the primal is feasible to the tolerance: rows sum to one, privacy rows hold
    assert np.abs(A[:n_eq] @ sol.x - 1).max() < 1e-7
    assert (A[n_eq:] @ sol.x).max() < 1e-7


@pytest.mark.parametrize("scale", [1e-12, 1e-6, 1e6, 1e12])
def test_cost_scales(scale: float) -> None:
    """Costs are scaled to unit size inside; the answer comes back in the caller's units
    (the optimum of c scaled by ``scale`` is ``scale`` times the optimum)."""
    c, A, b, n_eq = mechanism_lp(8, 12, seed=3)
    ref = highs_value(c, A, b, n_eq)
    sol = solve_block_lp(c * scale, A, b, n_eq, find_blocks(A[n_eq:], n_eq))
    assert sol.status in ("Solved", "AlmostSolved")
    assert sol.obj_val == pytest.approx(scale * ref, rel=1e-7)
    assert lp_lower_bound(A, b, c * scale, n_eq, A.shape[0] - n_eq, sol.z) == pytest.approx(
        scale * ref, rel=1e-6)


def test_deadline_and_interrupt() -> None:
    c, A, b, n_eq = mechanism_lp(8, 12, seed=4)
    s = find_blocks(A[n_eq:], n_eq)
    assert solve_block_lp(c, A, b, n_eq, s, deadline=time.perf_counter()).status == "MaxTime"
    with pytest.raises(KeyboardInterrupt):
        solve_block_lp(c, A, b, n_eq, s, stop=lambda: True)


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
