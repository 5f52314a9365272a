r"""Pure (deletion) LDP with a linear objective at large k: cutting planes in the column
floors.

The problem is ``min sum_{x,y} c[x, y] Q[x, y]`` over row-stochastic ``Q`` with
``Q[x, y] <= e^eps Q[x', y]``. In the offset form (:mod:`~mechdesign.design.working_set`)
``Q[x, y] = t_y + U[x, y]``, ``0 <= U[x, y] <= a t_y`` (``a = e^eps - 1``),
``T = sum_y t_y``, each row ``x`` asks ``sum_y U[x, y] = 1 - T``. Once ``t`` is fixed the rows
are independent fractional knapsacks: fill the cheapest outputs of row ``x`` to their caps
``a t_y`` until ``1 - T`` is placed. Its value is, by LP duality,

.. math:: \phi_x(t) = \max_\lambda\; \lambda (1 - T) - a \textstyle\sum_y t_y
          (\lambda - c_{xy})_+ ,

a maximum of functions linear in ``(t, T)``, attained at a breakpoint ``lambda = c[x, y]``
(the marginal output of the greedy fill). The design is the convex program
``min_t sum_y C_y t_y + sum_x phi_x(t)`` (``C_y = sum_x c[x, y]``, ``T`` in
``[1/e^eps, 1]``), solved by Kelley's cutting planes, disaggregated by row: the master LP
in ``(T, theta, t_Y)`` over a working set of outputs ``Y``

.. math:: \min \textstyle\sum_{y \in Y} C_y t_y + \sum_x \theta_x \quad\text{s.t.}\quad
          \theta_x + \lambda T + a \textstyle\sum_{y \in Y} (\lambda - c_{xy})_+ t_y
          \ge \lambda \ \ \text{(cut } (x, \lambda)\text{)}, \quad T = \textstyle\sum_Y t_y,

whose cut rows have one entry per output cheaper than ``lambda`` (about 26 at k = 1000
on a uniform random loss, against one column and one cap row per such pair in the
working-set LP). Each round solves the master (HiGHS dual simplex: the basis stays dual
feasible as cuts enter), fills every row greedily at the master's ``t`` and adds the cut
``(x, lambda*)`` of each row whose ``theta_x`` is below ``phi_x(t)``; when no row is
violated, an output ``y`` outside ``Y`` prices at
``C_y + nu - a sum_cuts pi (lambda - c[x, y])_+`` (``pi`` the cuts' duals, ``nu`` the T
row's) and the most negative enter (:data:`OUTPUTS_PER_ROUND`, up to half the working
set). Each row starts with two cuts valid for every ``t``: at the first output's cost and
at its cheapest cost (``theta_x >= min_y c[x, y] (1 - T)``; without it a Hamming loss
zig-zags one row a round).

Every round's greedy fill is a feasible mechanism (``t_y <= Q[x, y] <= e^eps t_y``, rows
summing to 1) whose value is exact, and the row multipliers ``lambda_x = sum pi lambda``
(the cuts' convex weights) give the dual function's bound
:func:`~mechdesign.design.working_set.dual_lower_bound` over ALL outputs: the gap needs no
trust in the master or the stopping rule.

Pure deletion LDP has the same form with ``a = e^{2 eps} - 1`` and ``T >= e^-eps``; its
column maxima (``u_y >= Q[x, y]``, ``sum_y u_y <= e^eps``, when ``e^eps < min(k, m)``)
enter through a cap column per output, ``w_y <= a t_y`` and ``t_y + w_y <= u_y``, on which
the cuts sit (``(lambda - c[x, y])_+ w_y``), with the fill row ``T + sum_Y w_y >= 1``. An
output then prices at the better of its rays ``w = 0, u = t`` and ``w = a t, u = (1 + a) t``
(the two terms of :func:`~mechdesign.design.working_set.dual_lower_bound`), and the fill
row's dual ``rho`` joins one row's multiplier (any row sum implies the fill row, and
``(lambda + rho - c)_+ <= (lambda - c)_+ + rho``).

Measured side by side with the LP of pairs (``benchmarks/ldp_working_set.py``; numbers in
``benchmarks/README.md``, "Pure LDP at large k", fifth run): faster at k = 1000 on a uniform
random loss, and by far more on the absolute loss, whose optimum uses 2 outputs but whose
LP of pairs passes through 100,000 pairs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..solvers.run import Deadline
from .working_set import (
    Envelope,
    WorkingSetSolution,
    dual_lower_bound,
    new_highs,
    run_highs,
    scaled_costs,
    solve_round,
)

__all__ = ["CHUNK_ENTRIES", "CUT_TOL", "LP_OPTIONS", "MAX_ROUNDS", "OUTPUTS_PER_ROUND",
           "PRICING_TOL", "SortedRows", "greedy_fill", "solve_cut_generation"]

CUT_TOL = 1e-9
"""A row's cut enters when ``theta_x < phi_x(t) - CUT_TOL max(1, |phi_x(t)|)`` (costs scaled
to about 1 per row; HiGHS's feasibility tolerance is 1e-10)."""

PRICING_TOL = 1e-10
"""Relative reduced cost below which an output enters."""

OUTPUTS_PER_ROUND = 10
"""Outputs entering a round at least (the most negative first); up to half the working set
when more price negative, so that k-RR (every output) is reached in a logarithmic number of
rounds."""

LP_OPTIONS = {"solver": "simplex", "simplex_strategy": 1,
              "primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
"""HiGHS options of the master: dual simplex (measured at k = 1000 on a uniform random
loss: faster than primal simplex and on a par with HiGHS's own choice; ``benchmarks/README.md``,
"Measurements behind the library's constants") at tight tolerances."""

CHUNK_ENTRIES = 4_000_000
"""Entries of a k x |Y| (greedy fill) or cuts x outputs (pricing) block processed at once."""

MAX_ROUNDS = 100_000
"""A safety stop (each round adds a cut or an output, so the loop ends by itself)."""


class SortedRows:
    """The rows of ``c`` (k x n, on the working set's outputs) sorted once, for the greedy
    fills of the rounds that share these outputs (the cut rounds change only ``t``)."""

    def __init__(self, c: np.ndarray) -> None:
        self.k, self.n = c.shape
        self.order = np.argsort(c, axis=1).astype(np.int32)  # ties in any order: all optimal
        self.cost = np.take_along_axis(c, self.order, axis=1)

    def fill(self, caps: np.ndarray, total: float, offsets: bool = False
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Each row's fractional knapsack: the cheapest outputs filled to their caps until
        ``1 - total`` is placed.

        Parameters
        ----------
        caps : ndarray, shape (n,)
            Caps ``w_y >= 0`` of the offsets (``a t_y`` for pure LDP); ``caps.sum() >=
            1 - total`` for the fill to complete (else the last output takes the rest).
        total : float
            ``T``.
        offsets : bool
            Also return the offsets ``U`` (k x n; ``t + U`` is the mechanism on these
            outputs).

        Returns
        -------
        value, marginal, U : ndarray
            ``phi_x`` (shape (k,)), the marginal cost ``lambda*_x`` (the cut's breakpoint)
            and ``U`` (None unless ``offsets``).
        """
        k, n = self.k, self.n
        need = max(1.0 - total, 0.0)
        value, marginal = np.empty(k), np.empty(k)
        U = np.empty((k, n)) if offsets else None
        step = max(1, CHUNK_ENTRIES // max(n, 1))
        for s in range(0, k, step):
            order, cost = self.order[s:s + step], self.cost[s:s + step]
            rows = np.arange(order.shape[0])
            cap = caps[order]
            filled = np.cumsum(cap, axis=1)
            j = np.minimum((filled < need).sum(axis=1), n - 1)  # the marginal output's rank
            last = np.maximum(j - 1, 0)
            before = np.where(j > 0, filled[rows, last], 0.0)
            paid = np.cumsum(cost * cap, axis=1)
            marginal[s:s + step] = cost[rows, j]
            value[s:s + step] = (np.where(j > 0, paid[rows, last], 0.0)
                                 + cost[rows, j] * (need - before))
            if U is not None:
                full = np.where(np.arange(n)[None, :] < j[:, None], cap, 0.0)
                full[rows, j] = need - before
                np.put_along_axis(U[s:s + step], order, full, axis=1)
        return value, marginal, U


def greedy_fill(c: np.ndarray, caps: np.ndarray, total: float
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:meth:`SortedRows.fill` of ``c`` (k x n) with the offsets: ``phi_x``, the marginal
    costs and ``U``."""
    value, marginal, U = SortedRows(c).fill(caps, total, offsets=True)
    assert U is not None
    return value, marginal, U


def _after_leading(major: np.ndarray, minor: np.ndarray, value: np.ndarray, n: int,
                   lead: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Compressed arrays (CSR or CSC) of ``n`` vectors: ``lead`` slots at the start of each,
    left for the caller to set (at ``starts + j``), then the entries ``(major_i, minor_i,
    value_i)``, ``major`` sorted (as ``np.nonzero`` gives them)."""
    counts = np.bincount(major, minlength=n) + lead
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    index, values = np.empty(int(counts.sum()), np.int64), np.empty(int(counts.sum()))
    rest = np.ones(index.size, bool)
    for j in range(lead):
        rest[starts + j] = False
    index[rest], values[rest] = minor, value
    return starts, index, values


class _Master:
    """The master LP in one ``highspy.Highs``, grown in place.

    Columns: ``T``, ``theta_x`` (x < k), then per entering output ``t_y`` and, with column
    maxima, ``w_y`` (the offsets' cap) and ``u_y`` (the column maximum). Rows: 0 is
    ``T - sum_Y t_y = 0``; with maxima 1 is ``T + sum_Y w_y >= 1`` (the rows can be filled)
    and 2 is ``sum_Y u_y <= max_total``, and each output adds ``w_y - a t_y <= 0`` and
    ``t_y + w_y - u_y <= 0``; then the cuts. A cut's entries sit on the cap column
    (``t_y`` with coefficient ``a (lambda - c)_+`` without maxima, ``w_y`` with
    ``(lambda - c)_+`` with them).
    """

    def __init__(self, c: np.ndarray, envelope: Envelope, options: dict) -> None:
        import highspy

        self.c = c
        self.C = c.sum(axis=0)
        self.k, self.m = c.shape
        self.a = envelope.cap
        self.t_lower = envelope.t_lower
        self.maxima = envelope.max_total is not None
        self.weight = 1.0 if self.maxima else self.a  # a cut's factor on its cap column
        options = {**LP_OPTIONS, **options}
        self.strategy = int(options.get("simplex_strategy", 1))
        self.h, self.stop = new_highs(options)
        self.inf = inf = highspy.kHighsInf
        k, i32 = self.k, np.int32
        empty_i, empty_v = np.zeros(0, i32), np.zeros(0)
        self.h.addCols(1, np.zeros(1), np.full(1, envelope.t_lower), np.ones(1), 0,
                       np.zeros(1, i32), empty_i, empty_v)
        self.h.addCols(k, np.ones(k), np.full(k, -inf), np.full(k, inf), 0,
                       np.zeros(k, i32), empty_i, empty_v)
        self.h.addRows(1, np.zeros(1), np.zeros(1), 1, np.zeros(1, i32), np.zeros(1, i32),
                       np.ones(1))
        if self.maxima:
            self.h.addRows(1, np.ones(1), np.full(1, inf), 1, np.zeros(1, i32),
                           np.zeros(1, i32), np.ones(1))
            self.h.addRows(1, np.full(1, -inf), np.full(1, envelope.max_total), 0,
                           np.zeros(1, i32), empty_i, empty_v)
        self.n_rows = 3 if self.maxima else 1
        self.n_cols = 1 + k
        self.outputs = np.zeros(0, dtype=np.int64)      # Y, in the order they entered
        self.t_col = np.zeros(0, dtype=np.int64)        # per output of Y
        self.cap_col = np.zeros(0, dtype=np.int64)      # t_y or w_y
        self.cut_x = np.zeros(0, dtype=np.int64)
        self.cut_lam = np.zeros(0)
        self.cut_row = np.zeros(0, dtype=np.int64)
        self.seen: set[tuple[int, float]] = set()
        self.nonzeros = 2 if self.maxima else 1  # T in row 0 (and row 1)

    def _columns(self, cost: np.ndarray, lower: np.ndarray, starts: np.ndarray,
                 index: np.ndarray, value: np.ndarray) -> np.ndarray:
        """Append columns (CSC) and return their indices."""
        n = cost.size
        self.h.addCols(n, cost, lower, np.full(n, self.inf), index.size,
                       starts.astype(np.int32), index.astype(np.int32), value)
        self.nonzeros += index.size
        self.n_cols += n
        return self.n_cols - n + np.arange(n)

    def _rows(self, lower: np.ndarray, upper: np.ndarray, starts: np.ndarray,
              index: np.ndarray, value: np.ndarray) -> np.ndarray:
        """Append rows (CSR) and return their indices."""
        n = lower.size
        self.h.addRows(n, lower, upper, index.size, starts.astype(np.int32),
                       index.astype(np.int32), value)
        self.nonzeros += index.size
        self.n_rows += n
        return self.n_rows - n + np.arange(n)

    def _cap_entries(self, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The entries of the cap columns of outputs ``ys`` in the cuts, the positive
        ``weight (lambda - c[x, y])_+``: their output's position in ``ys`` (sorted), row
        and value."""
        below = self.cut_lam[:, None] - self.c[np.ix_(self.cut_x, ys)]
        coef = self.weight * np.maximum(below, 0.0).T  # outputs x cuts
        out, cut = np.nonzero(coef)
        return out, self.cut_row[cut], coef[out, cut]

    def add_outputs(self, ys: np.ndarray) -> None:
        """Enter outputs: ``t_y`` (cost ``C_y``, -1 in row 0) and, with maxima, ``w_y``
        (1 in row 1) and ``u_y`` (1 in row 2) with their two rows; the cap column's
        entries in every cut."""
        step = max(1, CHUNK_ENTRIES // max(self.cut_x.size, 1))
        for s in range(0, ys.size, step):
            self._add_outputs(ys[s:s + step])

    def _add_outputs(self, ys: np.ndarray) -> None:
        n = ys.size
        zeros, ones, ar = np.zeros(n), np.ones(n), np.arange(n)
        # row 0 (t_y) or row 1 (w_y) first in each column, then the cuts
        starts, index, value = _after_leading(*self._cap_entries(ys), n, 1)
        if not self.maxima:
            index[starts], value[starts] = 0, -1.0
            cap = t = self._columns(self.C[ys], zeros, starts, index, value)
        else:
            t = self._columns(self.C[ys], zeros, ar, np.zeros(n), -ones)
            index[starts], value[starts] = 1, 1.0
            cap = self._columns(zeros, zeros, starts, index, value)
            top = self._columns(zeros, zeros, ar, np.full(n, 2), ones)
            # w_y - a t_y <= 0 and t_y + w_y - u_y <= 0
            self._rows(np.full(n, -self.inf), zeros, 2 * ar,
                       np.stack([cap, t], axis=1).ravel(),
                       np.tile([1.0, -self.a], n))
            self._rows(np.full(n, -self.inf), zeros, 3 * ar,
                       np.stack([t, cap, top], axis=1).ravel(), np.tile([1.0, 1.0, -1.0], n))
        self.outputs = np.concatenate([self.outputs, ys])
        self.t_col = np.concatenate([self.t_col, t])
        self.cap_col = np.concatenate([self.cap_col, cap])

    def add_cuts(self, xs: np.ndarray, lams: np.ndarray) -> None:
        """Cuts ``theta_x + lambda T + weight sum_Y (lambda - c[x, y])_+ cap_y >= lambda``."""
        step = max(1, CHUNK_ENTRIES // max(self.outputs.size, 1))
        for s in range(0, xs.size, step):
            x, lam = xs[s:s + step], lams[s:s + step]
            coef = self.weight * np.maximum(lam[:, None] - self.c[np.ix_(x, self.outputs)], 0.0)
            rows, cols = np.nonzero(coef)
            starts, index, value = _after_leading(rows, self.cap_col[cols], coef[rows, cols],
                                                  x.size, 2)
            index[starts], value[starts] = 1 + x, 1.0           # theta_x
            index[starts + 1], value[starts + 1] = 0, lam        # T
            new = self._rows(lam, np.full(x.size, self.inf), starts, index, value)
            self.cut_row = np.concatenate([self.cut_row, new])
        self.cut_x = np.concatenate([self.cut_x, xs])
        self.cut_lam = np.concatenate([self.cut_lam, lams])
        self.seen.update(zip(xs.tolist(), lams.tolist(), strict=True))

    def run(self) -> str:
        """Solve from the current basis; when HiGHS fails (not a time limit), once more with
        the other simplex (its dual simplex can stop on "excessive dual values" after
        outputs with large caps entered, eps near the path's limit; the primal one starts
        feasible after columns enter), and then from scratch (the basis cleared: the
        uniform random loss at k = 3000 with costs L / k ended ``kUnknown`` after both warm
        starts on a late master, 69 outputs and 24,697 rows, and solved cold: optimal,
        gap 1e-11); HiGHS's model status name."""
        model = run_highs(self.h, self.stop)
        if model in ("kOptimal", "kTimeLimit"):
            return model
        self.h.setOptionValue("simplex_strategy", 4 if self.strategy != 4 else 1)
        try:
            model = run_highs(self.h, self.stop)
        finally:
            self.h.setOptionValue("simplex_strategy", self.strategy)
        if model in ("kOptimal", "kTimeLimit"):
            return model
        self.h.clearSolver()
        return run_highs(self.h, self.stop)

    def cut_entries(self, xs: np.ndarray, lams: np.ndarray) -> int:
        """The constraint entries cuts ``(xs, lams)`` would add: ``theta_x``, ``T`` and one
        per output of Y cheaper than ``lambda``."""
        step = max(1, CHUNK_ENTRIES // max(self.outputs.size, 1))
        return 2 * xs.size + sum(
            int(np.count_nonzero(self.c[np.ix_(xs[s:s + step], self.outputs)]
                                 < lams[s:s + step, None]))
            for s in range(0, xs.size, step))

    def output_entries(self, ys: np.ndarray) -> int:
        """The constraint entries outputs ``ys`` would add: one per cut whose ``lambda``
        is above ``c[x, y]``, plus their own (1 without maxima; 8 with them: t_y, w_y and
        u_y in rows 0-2, and their two rows)."""
        step = max(1, CHUNK_ENTRIES // max(self.cut_x.size, 1))
        return (8 if self.maxima else 1) * ys.size + sum(
            int(np.count_nonzero(self.c[np.ix_(self.cut_x, ys[s:s + step])]
                                 < self.cut_lam[:, None]))
            for s in range(0, ys.size, step))

    def fits(self, entries: int, max_nonzeros: int | None) -> bool:
        """True when ``entries`` more keep the master within ``max_nonzeros``."""
        return max_nonzeros is None or self.nonzeros + entries <= max_nonzeros

    def new_cuts(self, xs: np.ndarray, lams: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The cuts among ``(xs, lams)`` the master does not hold yet."""
        pairs = zip(xs.tolist(), lams.tolist(), strict=True)
        keep = np.array([pair not in self.seen for pair in pairs], bool)
        return xs[keep], lams[keep]

    def point(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``theta``, ``t_Y`` and the caps of the last solve, ``t`` scaled into
        ``[t_lower, 1]`` (which the master meets up to its feasibility tolerance) and the caps
        at most ``a t`` (the caps' total may then miss ``1 - T`` by the tolerance: the last
        entry filled absorbs it, and the certification measures the matrix)."""
        col = np.asarray(self.h.getSolution().col_value, dtype=float)
        t = np.maximum(col[self.t_col], 0.0)
        total = float(t.sum())
        if total > 1.0 or total < self.t_lower:
            t *= min(max(total, self.t_lower), 1.0) / total
        caps = (self.a * t if not self.maxima
                else np.clip(col[self.cap_col], 0.0, self.a * t))
        return col[1:1 + self.k], t, caps

    def duals(self) -> dict[str, Any]:
        """The duals of the last solve: ``nu`` (row 0), ``rho >= 0`` (row 1, the fill),
        ``mu >= 0`` (minus row 2's, the maxima's total), the cuts with a positive dual
        (``active``) and their duals ``pi``."""
        row = np.asarray(self.h.getSolution().row_dual, dtype=float)
        pi = row[self.cut_row]
        active = np.flatnonzero(pi > 0)
        return {"nu": float(row[0]), "rho": max(0.0, float(row[1])) if self.maxima else 0.0,
                "mu": max(0.0, -float(row[2])) if self.maxima else 0.0,
                "active": active, "pi": pi[active]}

    def multipliers(self) -> tuple[np.ndarray, float]:
        """Row multipliers ``lambda_x = sum_(cuts of x) pi lambda`` (a row's cuts weigh 1 in
        all: the dual of ``theta_x``'s column), with the fill row's ``rho`` added to one
        row (the fill row is implied by any row sum), and ``mu``."""
        d = self.duals()
        lam = np.bincount(self.cut_x[d["active"]], weights=d["pi"] * self.cut_lam[d["active"]],
                          minlength=self.k)
        lam[int(np.argmax(lam))] += d["rho"]
        return lam, d["mu"]

    def prices(self) -> np.ndarray:
        """Reduced costs of every output's best ray (``inf`` on ``Y``): per unit of
        ``t_y``, ``C_y + nu + (1 + a) mu - a (S_y + rho)`` with ``S_y = sum_cuts pi
        (lambda - c[x, y])_+`` (``w_y = a t_y``, ``u_y = (1 + a) t_y``), or with maxima
        ``C_y + nu + mu`` if less (``w_y = 0``, ``u_y = t_y``)."""
        d = self.duals()
        x, lam, p = self.cut_x[d["active"]], self.cut_lam[d["active"]], d["pi"]
        S = np.zeros(self.m)
        step = max(1, CHUNK_ENTRIES // self.m)
        for s in range(0, x.size, step):
            sl = slice(s, s + step)
            S += p[sl] @ np.maximum(lam[sl, None] - self.c[x[sl]], 0.0)
        C = self.C
        reduced = C + d["nu"] + (1 + self.a) * d["mu"] - self.a * (S + d["rho"])
        if self.maxima:
            reduced = np.minimum(reduced, C + d["nu"] + d["mu"])
        reduced[self.outputs] = np.inf
        return reduced


def solve_cut_generation(c: Any, envelope: Envelope, deadline: Deadline | None = None,
                         options: dict | None = None, max_nonzeros: int | None = None
                         ) -> WorkingSetSolution:
    """Minimise ``sum c Q`` over the mechanisms of ``envelope`` (pure LDP, pure deletion
    LDP) by cutting planes in the column floors (and, with maxima, the caps).

    Parameters
    ----------
    c : array_like, shape (k, m)
        Costs ``prior[x] * loss[x, y]``, finite.
    envelope : Envelope
        ``Envelope.ldp(eps)`` or ``Envelope.deletion(eps, k, m)``.
    deadline : Deadline, optional
        A shared time budget; each master solve gets what remains.
    options : dict, optional
        HiGHS options for the master (default :data:`LP_OPTIONS`).
    max_nonzeros : int, optional
        The most constraint entries the master may hold (its memory); a round that would
        pass it ends the loop with status ``"memory limit"``.

    Returns
    -------
    WorkingSetSolution
        The best greedy fill met (feasible), its value, the bound of the last solved
        master's multipliers; ``status`` ``"optimal"`` when no cut and no output is
        missing, else why the loop stopped.
    """
    k, m = np.shape(c)
    c, sigma = scaled_costs(c, k)  # about 1 per row: the cut tolerance is absolute too
    deadline = deadline or Deadline(None)
    master = _Master(c, envelope, dict(options or {}))
    column_sums = master.C
    first = int(np.argmin(column_sums))
    master.add_outputs(np.array([first]))
    cheapest = c.min(axis=1)
    lower = np.flatnonzero(cheapest < c[:, first])
    master.add_cuts(np.concatenate([np.arange(k), lower]),
                    np.concatenate([c[:, first], cheapest[lower]]))
    rows: SortedRows | None = None  # c on the outputs of the working set, sorted by row
    best: tuple[float, np.ndarray, np.ndarray, np.ndarray] | None = None  # value, Y, t, caps
    multipliers, mu, status, rounds = None, 0.0, "rounds", 0
    while rounds < MAX_ROUNDS:
        rounds += 1
        stop = solve_round(master.h, master.run, deadline, rounds == 1)
        if stop:
            status = stop
            break
        theta, t, caps = master.point()
        multipliers, mu = master.multipliers()
        Y = master.outputs
        if rows is None or rows.n != Y.size:  # outputs entered: sort again
            rows = SortedRows(c[:, Y])
        value, marginal, _ = rows.fill(caps, float(t.sum()))
        primal = float(column_sums[Y] @ t + value.sum())
        if best is None or primal < best[0]:
            best = (primal, Y.copy(), t, caps)
        short = np.flatnonzero(theta < value - CUT_TOL * np.maximum(1.0, np.abs(value)))
        xs, lams = master.new_cuts(short, marginal[short])
        if xs.size:
            if not master.fits(master.cut_entries(xs, lams), max_nonzeros):
                status = "memory limit"
                break
            master.add_cuts(xs, lams)
            continue
        reduced = master.prices()
        objective = master.h.getInfo().objective_function_value
        entering = np.flatnonzero(reduced < -PRICING_TOL * max(1.0, abs(objective)))
        if entering.size == 0:
            status = "optimal"
            break
        size = max(OUTPUTS_PER_ROUND, Y.size // 2)
        entering = entering[np.argsort(reduced[entering])[:size]]
        if not master.fits(master.output_entries(entering), max_nonzeros):
            status = "memory limit"
            break
        master.add_outputs(entering)
    if best is None:  # the first master did not finish
        return WorkingSetSolution(None, math.nan, -math.inf, rounds, (), status)
    _, Y, t, caps = best
    _, _, U = greedy_fill(c[:, Y], caps, float(t.sum()))  # Y: the best round's outputs
    Q = np.zeros((k, m))
    Q[:, Y] = t[None, :] + U
    assert multipliers is not None  # set with best: any multipliers give a bound
    return WorkingSetSolution(Q, sigma * float((c * Q).sum()),
                              sigma * dual_lower_bound(c, multipliers, envelope, mu), rounds,
                              tuple(int(y) for y in np.flatnonzero(Q.sum(axis=0) > 0)),
                              status, int(master.cut_x.size))
