"""The block-angular interior point (:mod:`mechdesign.design.solvers.block_ipm`).

Pinned: ``find_blocks`` splits a mechanism LP into one block per output column and refuses
what it cannot use (too few blocks, a variable in no row, too many rows per variable); the
method reaches HiGHS's optimum on the same LPs (a second method) with duals whose
independent Lagrangian bound certifies it, primal feasible to the tolerance, at every cost
scale (the answer in the caller's units); a deadline and a stop request end it. Its place
in a design (the block adapter and its Clarabel fallback) is tested in test_clarabel.py.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from mechdesign.design.bound import LowerBound, lp_lower_bound
from mechdesign.design.solvers.block_ipm import find_blocks, solve_block_lp


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
