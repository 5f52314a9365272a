"""The Lagrangian certificate of :mod:`mechdesign.design.bound` on random design LPs.

Second method: the LP's optimum from scipy's HiGHS (``linprog``). Whatever the multipliers,
the bound must stay below the optimum; at the optimal duals blurred by an interior-point's
tolerance, lifting the row sums' multipliers must recover the optimum to about the blur
(not the blur summed over every column).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from mechdesign.design.bound import _bound_at, lp_lower_bound, propagate_bounds


def _ldp_lp(k: int, n: int, eps: float, seed: int):
    """``min c . Q`` over row-stochastic ``Q >= 0`` with ``Q[x, y] <= e^eps Q[x', y]`` on
    random ordered pairs: (A, b, c, n_eq, n_leq), equalities first."""
    rng = np.random.default_rng(seed)
    c = rng.random(k * n)
    eq = sp.kron(sp.identity(k), np.ones((1, n)))  # row sums
    rows = []
    for x in range(k):
        for x2 in range(k):
            if x != x2 and rng.random() < 0.6:
                for y in range(n):
                    row = np.zeros(k * n)
                    row[x * n + y], row[x2 * n + y] = 1.0, -math.exp(eps)
                    rows.append(row)
    ineq = sp.csr_matrix(np.array(rows)) if rows else sp.csr_matrix((0, k * n))
    A = sp.vstack([eq, ineq], format="csr")
    b = np.concatenate([np.ones(k), np.zeros(ineq.shape[0])])
    return A, b, c, k, ineq.shape[0]


def _optimum(A, b, c, n_eq):
    res = linprog(c, A_ub=A[n_eq:] if A.shape[0] > n_eq else None,
                  b_ub=b[n_eq:] if A.shape[0] > n_eq else None, A_eq=A[:n_eq], b_eq=b[:n_eq],
                  bounds=(0, None), method="highs")
    assert res.status == 0
    y = np.concatenate([-res.eqlin.marginals,
                        -res.ineqlin.marginals if A.shape[0] > n_eq else []])
    return res.fun, y


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(2, 6), st.floats(0.1, 3.0), st.integers(0, 10**6),
       st.floats(1e-12, 1.0))
def test_the_bound_never_passes_the_optimum(k, n, eps, seed, blur):
    A, b, c, n_eq, n_leq = _ldp_lp(k, n, eps, seed)
    optimum, y = _optimum(A, b, c, n_eq)
    noisy = y + np.random.default_rng(seed + 1).normal(0.0, blur, y.size)
    bound = lp_lower_bound(A, b, c, n_eq, n_leq, noisy, np.zeros(k * n), None)
    assert bound <= optimum + 1e-12 * max(1.0, abs(optimum))


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 6), st.integers(20, 60), st.floats(0.2, 2.0), st.integers(0, 10**6))
def test_lifting_the_row_sums_keeps_the_blur_from_adding_up(k, n, eps, seed):
    # an interior point's duals leave reduced costs off by about its tolerance on every
    # column: here the exact duals of the LP with costs c, used for costs c + delta,
    # |delta| <= 1e-9. Without lifting, each slightly negative reduced cost costs |r| hi
    # (hi = 1 by propagation), summed over k n columns; lifted, each row sum pays its
    # largest one only
    A, b, c, n_eq, n_leq = _ldp_lp(k, n, eps, seed)
    optimum, y = _optimum(A, b, c, n_eq)
    blur = 1e-9
    cost = c + np.random.default_rng(seed + 2).uniform(-blur, blur, k * n)
    # the optimum for `cost` is within k blur of `optimum` (the k rows of Q sum to k)
    low, high = propagate_bounds(A, b, n_eq, np.zeros(k * n), np.full(k * n, np.inf))
    plain = _bound_at(b, y, cost + A.T @ y, low, high)
    lifted = lp_lower_bound(A, b, cost, n_eq, n_leq, y, np.zeros(k * n), None)
    assert lifted >= plain
    assert lifted <= optimum + k * blur * (1 + 1e-6)  # still a bound
    assert optimum - lifted <= 2 * k * blur  # k blur of cost, k row maxima of |r|
