r"""An optimality certificate recomputed in numpy from the solver's duals.

cvxpy compiles a linear program to ``minimise c^T x + d`` subject to ``A x = b`` on the
first ``n_eq`` rows and ``A x <= b`` on the next ``n_leq`` rows, with optional column bounds
``lo <= x <= hi`` (HiGHS). For ANY multipliers ``y`` with ``y_i >= 0`` on the inequality
rows and any box ``[lo, hi]`` that contains every feasible x, weak duality gives

.. math::  c^T x + d \;\ge\; c^T x + d + y^T (A x - b)
           \;\ge\; d - b^T y + \sum_j \min(r_j lo_j,\ r_j hi_j), \qquad r = c + A^T y,

because ``y^T (A x - b) <= 0`` for feasible x. The solver's duals are only an
approximation of the optimal ``y``; the bound stays valid for them after the inequality
multipliers are clipped at 0 (Neumaier & Shcherbina, "Safe bounds in linear and
mixed-integer linear programming", Math. Program. 2004). The box comes from the column
bounds and is tightened by bound propagation on the rows themselves (a row with
non-negative variables and positive coefficients bounds each of them, e.g. ``sum_y
Q[x, y] = 1`` gives ``Q <= 1``); a column whose box stays infinite on the side its
reduced cost needs makes the bound ``-inf`` (no certificate). An interior-point answer
leaves small negative reduced costs on many columns, each costing ``|r_j| hi_j``; the bound
is also evaluated with each equality's multiplier raised just enough to lift the columns
only it holds to ``r_j >= 0`` (``y_eq`` is free, so this is another valid ``y``), and the
better of the two is kept: on the 20 x 20 grid LP the gap of Clarabel's answer went from
3.1e-7 to 8.5e-10. Nothing here trusts the solver's own optimality claim: the bound is a
number computed from the problem data.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["GAP_FLOOR", "GAP_TOL", "PROPAGATION_ROUNDS", "LowerBound", "lp_lower_bound",
           "pattern_lp_lower_bound", "propagate_bounds", "relative_gap"]

PROPAGATION_ROUNDS = 4
"""Rounds of row-wise bound propagation (each round can tighten a chain one step:
``sum Q = 1 -> Q <= 1 -> t <= 1`` needs two)."""

GAP_TOL = 1e-6
"""A result is labelled optimal only when its certified relative gap is at most this."""

GAP_FLOOR = 1e-12
"""Denominator floor of the relative gap, in the compiled units (losses scaled to [0, 1])."""



def lp_lower_bound(A: Any, b: np.ndarray, c: np.ndarray, n_eq: int, n_leq: int,
                   y: np.ndarray, lo: np.ndarray | None = None,
                   hi: np.ndarray | None = None) -> float:
    """A rigorous lower bound on ``min c^T x`` (without the constant ``d``) from ``y``.

    Parameters
    ----------
    A, b, c : the compiled LP (``A`` sparse, rows: ``n_eq`` equalities then ``n_leq``
        inequalities ``<=``; any further rows are ignored, so only call this for LPs).
    y : multipliers of the rows (``A x - b``), inequality part expected ``>= 0``.
    lo, hi : column bounds (``None``: unbounded).
    """
    return LowerBound(A, b, c, n_eq, n_leq, lo, hi)(y)


class LowerBound:
    """:func:`lp_lower_bound` of one LP prepared once (the rows and the propagated box) and
    evaluated at many multipliers ``y`` (an interior point's late iterates)."""

    def __init__(self, A: Any, b: np.ndarray, c: np.ndarray, n_eq: int, n_leq: int,
                 lo: np.ndarray | None = None, hi: np.ndarray | None = None) -> None:
        m = n_eq + n_leq
        self.A = sp.csr_matrix(A)[:m]
        self.AT = self.A.T.tocsr()
        self.A_eq = self.A[:n_eq].tocsc()
        self.b = np.asarray(b, dtype=float)[:m]
        self.c = np.asarray(c, dtype=float)
        self.n_eq = n_eq
        n = self.A.shape[1]
        low = np.full(n, -np.inf) if lo is None else np.asarray(lo, dtype=float).copy()
        high = np.full(n, np.inf) if hi is None else np.asarray(hi, dtype=float).copy()
        self.low, self.high = propagate_bounds(self.A, self.b, n_eq, low, high)

    def __call__(self, y: np.ndarray) -> float:
        y = np.asarray(y, dtype=float)[:self.A.shape[0]].copy()
        y[self.n_eq:] = np.maximum(y[self.n_eq:], 0.0)
        if not np.isfinite(y).all():
            return -math.inf
        r = self.c + self.AT @ y
        best = _bound_at(self.b, y, r, self.low, self.high)
        if self.n_eq:  # the same with the equalities' multipliers lifted (any free y_eq)
            lifted = _lift_equalities(self.A_eq, r, y, self.low)
            best = max(best, _bound_at(self.b, lifted, self.c + self.AT @ lifted, self.low,
                                       self.high))
        return best


def _bound_at(b: np.ndarray, y: np.ndarray, r: np.ndarray, low: np.ndarray,
              high: np.ndarray) -> float:
    """``-b^T y + sum_j min(r_j lo_j, r_j hi_j)`` with ``r = c + A^T y`` (``-inf`` if not
    finite)."""
    with np.errstate(invalid="ignore", over="ignore"):
        terms = np.where(r > 0, r * low, np.where(r < 0, r * high, 0.0))
    total = float(terms.sum()) - float(b @ y)
    return total if math.isfinite(total) else -math.inf


def _lift_equalities(A_eq: sp.csr_matrix, r: np.ndarray, y: np.ndarray, low: np.ndarray
                     ) -> np.ndarray:
    r"""Multipliers with each equality's ``y_i`` raised just enough that the columns only it
    holds (one nonzero among the equalities, positive, finite lower bound) get ``r_j >= 0``.

    An interior-point answer leaves tiny negative reduced costs (its tolerance) on many
    columns; each costs the bound ``|r_j| hi_j``, summed over every column (on a 28 x 28
    grid LP: 1.2e-6 of the optimum). Raising ``y_i`` by ``delta_i = max_j (-r_j / A_ij)``
    costs ``b_i delta_i`` instead, a maximum rather than a sum (a row sum
    ``sum_y Q[x, y] = 1`` is the typical row). The caller keeps the better of both bounds.
    """
    csc = A_eq.tocsc()
    single = np.diff(csc.indptr) == 1
    cols = np.flatnonzero(single & (r < 0) & np.isfinite(low))
    y = y.copy()
    if cols.size:
        rows, coef = csc.indices[csc.indptr[cols]], csc.data[csc.indptr[cols]]
        up = coef > 0
        delta = np.zeros(A_eq.shape[0])
        np.maximum.at(delta, rows[up], -r[cols[up]] / coef[up])
        y[:A_eq.shape[0]] += delta * (1 + 1e-12)
    return y


def propagate_bounds(A: sp.csr_matrix, b: np.ndarray, n_eq: int, low: np.ndarray,
                     high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tighten ``[low, high]`` with every row (``=`` rows read as ``<=`` both ways).

    For a row ``sum_j a_j x_j <= b`` and a column j with ``a_j > 0``:
    ``x_j <= (b - sum_{l != j} min(a_l lo_l, a_l hi_l)) / a_j`` (and symmetrically for
    ``a_j < 0``), valid for every feasible x. Rows whose other terms are unbounded below
    give nothing. Bounds are widened by a relative 1e-12 against rounding.
    """
    rows = sp.vstack([A, -A[:n_eq]], format="csr") if n_eq else A
    rhs = np.concatenate([b, -b[:n_eq]]) if n_eq else b
    coo = rows.tocoo()
    ri, cj, a = coo.row, coo.col, coo.data
    keep = a != 0
    ri, cj, a = ri[keep], cj[keep], a[keep]
    for _ in range(PROPAGATION_ROUNDS):
        with np.errstate(invalid="ignore", over="ignore"):
            contrib = np.where(a > 0, a * low[cj], a * high[cj])  # min of a x over the box
        inf_part = ~np.isfinite(contrib)
        n_inf = np.bincount(ri, weights=inf_part, minlength=rows.shape[0])
        finite_sum = np.bincount(ri, weights=np.where(inf_part, 0.0, contrib),
                                 minlength=rows.shape[0])
        # sum over the OTHER columns: finite when no other term is infinite
        others_inf = n_inf[ri] - inf_part
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            rest = finite_sum[ri] - np.where(inf_part, 0.0, contrib)
            limit = (rhs[ri] - rest) / a
        usable = (others_inf == 0) & np.isfinite(limit)
        slack = 1e-12 * (np.abs(limit) + 1.0)
        up = usable & (a > 0)
        dn = usable & (a < 0)
        new_high = high.copy()
        new_low = low.copy()
        np.minimum.at(new_high, cj[up], limit[up] + slack[up])
        np.maximum.at(new_low, cj[dn], limit[dn] - slack[dn])
        if np.array_equal(new_high, high) and np.array_equal(new_low, low):
            break
        low, high = new_low, new_high
    return low, high


def relative_gap(value: float, bound: float, floor: float) -> float:
    r"""``(value - bound) / max(|value|, |bound|, floor)``, at least 0; ``inf`` when the
    bound is ``-inf`` (no certificate)."""
    if not math.isfinite(bound):
        return math.inf
    return max(0.0, value - bound) / max(abs(value), abs(bound), floor)


def pattern_lp_lower_bound(g: np.ndarray, A: np.ndarray, y: np.ndarray) -> float:
    r"""A rigorous lower bound on ``min g^T w`` over ``{w >= 0 : A w = 1}`` from any ``y``.

    With ``A >= 0`` (m rows, positive column sums ``s_j``) and ``r = g - A^T y``:

    .. math:: g^T w = \mathbf 1^T y + r^T w \ge \mathbf 1^T y
              + m \min\big(0, \min_j r_j / s_j\big),

    because ``sum_j s_j w_j = sum_i (A w)_i = m`` on the feasible set. This is the
    certificate of the staircase programs, whose rows ``S w = 1`` have this form.
    """
    A = np.asarray(A, dtype=float)
    r = np.asarray(g, dtype=float) - A.T @ np.asarray(y, dtype=float)
    s = A.sum(axis=0)
    if not (np.isfinite(r).all() and (s > 0).all()):
        return -math.inf
    return float(np.sum(y)) + A.shape[0] * min(0.0, float((r / s).min()))
