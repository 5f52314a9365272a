r"""Pure LDP and pure deletion LDP with a linear objective at large k: the offset form, its
dual bound, and the LP of pairs on a working set of outputs.

The design path is :mod:`~mechdesign.design.cut_generation` (cutting planes in the column
floors, which uses :class:`Envelope`, :func:`dual_lower_bound` and the HiGHS helpers here);
the LP of pairs below is its second method when HiGHS fails on the master.

The problem is ``min sum_{x,y} c[x, y] Q[x, y]`` over row-stochastic ``Q`` with
``Q[x, y] <= e^eps Q[x', y]`` (``c = prior x loss``). In the offset form
``Q[x, y] = t_y + U[x, y]``, ``0 <= U[x, y] <= a t_y`` (``a = e^eps - 1``), with
``T = sum_y t_y``, every row reads ``T + sum_y U[x, y] = 1``. Its dual is

.. math:: \max_\lambda \textstyle\sum_x \lambda_x \quad\text{s.t.}\quad
          \sum_x \lambda_x \le C_y - a \sum_x (\lambda_x - c_{xy})_+ =: h_y(\lambda)
          \quad \forall y, \qquad C_y = \sum_x c_{xy},

and for ANY ``lambda`` (feasible or not) the dual function
``G(lambda) = min(D, (1 - 1/E) Lambda + D / E)`` with ``D = min_y h_y(lambda)``,
``Lambda = sum lambda``, ``E = e^eps`` is a lower bound on the optimum (the primal value
for ``T`` in ``[1/E, 1]``, minimised over the endpoints; ``docs/formulations.md``).

Pure deletion LDP has the same offset form with ``a = e^{2 eps} - 1``, ``T >= e^-eps`` and
column maxima ``u_y >= Q[x, y]``, ``sum_y u_y <= e^eps`` (:class:`Envelope`); the maxima's
total gets a multiplier ``mu >= 0`` and the bound and pricing take the better of
``u_y = t_y`` and ``u_y = e^{2 eps} t_y`` per output (:func:`dual_lower_bound`).

Optimal mechanisms use few outputs (7 of 60, 12 of 120, 37 of 600, 66 of 1000 on uniform
random losses), and
few pairs ``U[x, y] > 0`` (k-RR for a Hamming loss uses every output but one pair per row),
so the program is solved on a working set: outputs ``Y`` and, for each, the pairs that
price profitably, ``c[x, y] < lambda_x - tol / e^eps`` (a pair outside prices at
``c[x, y] - lambda_x``, its cap row being absent; pairs at a tie, which a Hamming loss has
by the thousand, stay out: entering them all made k-RR at k = 1000 many times slower and
larger: ``benchmarks/README.md``, "Pure LDP at large k"). The LP in ``(T, t_Y, U_W)`` (one
cap row per pair) is
warm-started by HiGHS's primal simplex as columns are added. Missing pairs of outputs
already in enter first; when there are none, an output ``y`` outside ``Y`` prices at
``h_y(lambda) + nu`` with the LP's row duals ``lambda`` and the T row's dual ``nu``
(``-Lambda`` while ``T`` is basic) and the most negative enter with
their profitable pairs (:data:`OUTPUTS_PER_ROUND`). The loop ends when no pair and no
output prices below ``-PRICING_TOL`` (relative; a pair left out at a gain ``g`` costs the
bound ``(e^eps - 1) g`` per output, hence its threshold). A time limit, or a pair budget (memory),
returns the last finished round's optimum, which is feasible for the full problem, with the
bound of that round's duals. The lower bound ``G`` is evaluated over ALL outputs, so the
reported gap does not rely on the loop's stopping rule. Memory is ``O(k m)`` for the cost
matrix and ``O(|W|)`` for the LP (at most ``k m`` pairs; ``max_pairs`` caps it).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..solvers.highs import silence_highs_banner
from ..solvers.run import Deadline, run_interruptible

__all__ = ["LP_OPTIONS", "MAX_ROUNDS", "OUTPUTS_PER_ROUND", "PRICING_TOL", "Envelope",
           "WorkingSetSolution", "dual_lower_bound", "new_highs", "run_highs", "scaled_costs",
           "solve_round", "solve_working_set"]

PRICING_TOL = 1e-10
"""Relative reduced cost below which an output enters (in the cost's units)."""

OUTPUTS_PER_ROUND = 10
"""Outputs added per round at least (the most negative reduced costs first); up to half the
working set when more price negative, so that a design using every output (k-RR for a
Hamming loss) is reached in a logarithmic number of rounds."""

LP_OPTIONS = {"solver": "simplex", "simplex_strategy": 4,
              "primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
"""HiGHS options of the working-set LPs: primal simplex (the basis stays primal feasible as
outputs enter) at tight tolerances (the dual bound is only as good as the duals: at the
default 1e-7 a design at eps = 4 whose optimum is 1% of the constant mechanism's cost
ended with a gap of 1e-5)."""

MAX_ROUNDS = 100_000
"""A safety stop (each round adds a pair or an output, so the loop ends by itself; measured:
up to 300 rounds at k = 1000)."""


@dataclass(frozen=True)
class WorkingSetSolution:
    """The design on the working set: ``Q`` (k x m, zero outside ``outputs``; None when the
    first LP did not finish), its value and the lower bound ``G(lambda)`` (both in the units
    of ``c``), the rounds and outputs, and the cuts of the master (cut generation, 0 for
    the working set of pairs)."""

    Q: np.ndarray | None
    value: float
    bound: float
    rounds: int
    outputs: tuple[int, ...]
    status: str
    cuts: int = 0


@dataclass(frozen=True)
class Envelope:
    r"""The notion in the offset form: ``t_y <= Q[x, y] <= (1 + cap) t_y``,
    ``T = sum_y t_y >= floor`` and, when ``max_total`` is set, column maxima
    ``u_y >= Q[x, y]`` with ``sum_y u_y <= max_total``.

    Pure eps-LDP: ``cap = e^eps - 1``. Pure deletion eps-LDP (a reference distribution r
    with ``e^-eps r <= Q[x] <= e^eps r``): ``cap = e^{2 eps} - 1``, ``floor = e^-eps`` and
    ``max_total = e^eps`` (omitted when ``e^eps >= min(k, m)``, where it cannot bind), the
    conditions of ``formulate_pure_deletion``.
    """

    cap: float
    floor: float = 0.0
    max_total: float | None = None

    @classmethod
    def ldp(cls, epsilon: float) -> Envelope:
        return cls(math.expm1(epsilon))

    @classmethod
    def deletion(cls, epsilon: float, k: int, m: int) -> Envelope:
        binds = math.exp(epsilon) < min(k, m)
        return cls(math.expm1(2 * epsilon), math.exp(-epsilon),
                   math.exp(epsilon) if binds else None)

    @property
    def t_lower(self) -> float:
        """A lower bound on ``T`` of every feasible point: the floor, and ``1 / (1 + cap)``
        (a row sums to 1 and is at most ``(1 + cap) T``)."""
        return max(self.floor, 1 / (1 + self.cap))


def dual_lower_bound(c: np.ndarray, lam: np.ndarray, envelope: Envelope,
                     mu: float = 0.0) -> float:
    r"""A lower bound on the optimum for any row multipliers ``lambda`` and any
    ``mu >= 0`` (the multiplier of ``sum_y u_y <= max_total``), less the rounding of its
    float sums (``k`` terms per column, ``2^-52`` each, relative to their magnitudes).

    Relaxing the row sums and the maxima's total, the Lagrangian splits by column; with
    ``u_y = s t_y`` it is linear in ``s`` on ``[1, 1 + cap]``, so each column costs ``t_y g_y``,
    ``g_y = min(C_y - Lambda + mu, C_y - Lambda + (1 + cap) mu - cap P_y)`` with
    ``P_y = sum_x (lambda_x - c[x, y])_+`` (only the second term without maxima, ``mu = 0``),
    and ``T`` in ``[t_lower, 1]``:
    ``G = Lambda - mu max_total + min(t_lower D, D)``, ``D = min_y g_y``.
    For pure LDP this is ``min(D', (1 - 1/E) Lambda + D'/E)`` with ``D' = D + Lambda``.
    """
    a = envelope.cap
    mu = max(0.0, float(mu)) if envelope.max_total is not None else 0.0
    excess = np.maximum(lam[:, None] - c, 0.0).sum(axis=0)
    Lam = float(lam.sum())
    C = c.sum(axis=0)
    g = C - Lam + (1 + a) * mu - a * excess
    if envelope.max_total is not None:
        g = np.minimum(g, C - Lam + mu)
    D = float(g.min())
    k = c.shape[0]
    magnitude = float(np.abs(c).sum(axis=0).max() + a * excess.max() + 2 * np.abs(lam).sum()
                      + (2 + a + (envelope.max_total or 0.0)) * mu)
    rounding = 4 * (k + 2) * 2.0**-52 * magnitude
    return (Lam - mu * (envelope.max_total or 0.0) + min(envelope.t_lower * D, D)
            - rounding)


def new_highs(options: dict) -> tuple[Any, threading.Event]:
    """A silent ``highspy.Highs`` with ``options`` and an interrupt callback that stops
    it within a second once the returned event is set (by :func:`run_highs` on Ctrl-C)."""
    import highspy

    silence_highs_banner()
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    for key, value in options.items():
        h.setOptionValue(key, value)
    stop = threading.Event()

    def check(event: Any) -> None:  # Ctrl-C: run_interruptible sets stop
        if stop.is_set():
            event.interrupt()

    h.cbSimplexInterrupt += check
    h.cbIpmInterrupt += check
    return h, stop


def run_highs(h: Any, stop: threading.Event) -> str:
    """Solve from the current basis (Ctrl-C stops it within a second and raises
    ``KeyboardInterrupt``); HiGHS's model status name."""
    run_interruptible(h.run, stop)
    if h.getModelStatus().name == "kInterrupt":
        raise KeyboardInterrupt
    return h.getModelStatus().name


def scaled_costs(c: Any, per: int = 1) -> tuple[np.ndarray, float]:
    """``c / sigma`` and ``sigma``: the costs in units of the best constant mechanism's cost
    (its least column sum) over ``per`` (the cutting planes take ``per = k``: costs of
    about 1 per row), or of the largest ``|c|`` when that is not positive. HiGHS's
    tolerances are absolute: costs of 1e-12 would leave its duals, and so the bound, at
    noise level."""
    c = np.ascontiguousarray(c, dtype=float)
    sigma = float(c.sum(axis=0).min()) / per
    if not (sigma > 0 and math.isfinite(sigma)):
        sigma = float(np.abs(c).max()) or 1.0
    return c / sigma, sigma


def solve_round(h: Any, run: Any, deadline: Deadline, first: bool) -> str | None:
    """One round's solve under the shared ``deadline`` (HiGHS ``h`` gets what remains;
    ``run()`` solves and returns HiGHS's model status name): None when it ended optimal,
    else why the loop stops (``"time limit"``, also when the deadline passed before a round
    other than the first, or HiGHS's status)."""
    if not first and deadline.expired:
        return "time limit"
    remaining = deadline.remaining()
    if remaining is not None:
        h.setOptionValue("time_limit", float(remaining))
    model = run()
    if model == "kOptimal":
        return None
    return "time limit" if model == "kTimeLimit" else model


class _WorkingSetLP:
    """The LP on the working set, kept in one ``highspy.Highs`` object and grown in place.

    Columns: ``T`` (bounds ``[floor, 1]``), then ``t_y`` (and ``u_y``) and ``U[:, y]`` as
    outputs enter. Rows: the k row sums (``T + sum_y U[x, y] = 1``), ``T - sum_y t_y = 0``,
    one cap row per pair (``U[x, y] - cap t_y <= 0``) and, with column maxima,
    ``sum_y u_y <= max_total``, ``t_y - u_y <= 0`` per output and ``t_y + U[x, y] - u_y <= 0``
    per pair.
    """

    def __init__(self, c: np.ndarray, envelope: Envelope, options: dict) -> None:
        import highspy

        self.c = c
        self.k, self.m = c.shape
        self.a = envelope.cap
        self.maxima = envelope.max_total is not None
        self.inf = highspy.kHighsInf
        h, self.stop = new_highs({**LP_OPTIONS, **options})
        i32 = np.int32
        h.addCols(1, np.zeros(1), np.full(1, envelope.floor), np.ones(1), 0,
                  np.zeros(1, i32), np.zeros(0, i32), np.zeros(0))
        k = self.k
        h.addRows(k, np.ones(k), np.ones(k), k, np.arange(k, dtype=i32), np.zeros(k, i32),
                  np.ones(k))
        h.addRows(1, np.zeros(1), np.zeros(1), 1, np.zeros(1, i32), np.zeros(1, i32),
                  np.ones(1))
        if self.maxima:  # row k + 1: sum_y u_y <= max_total
            h.addRows(1, np.full(1, -self.inf), np.full(1, envelope.max_total), 0,
                      np.zeros(1, i32), np.zeros(0, i32), np.zeros(0))
        self.h = h
        self.t_col = np.full(self.m, -1, dtype=np.int64)       # column of t_y, -1: absent
        self.max_col = np.full(self.m, -1, dtype=np.int64)     # column of u_y
        self.u_col = np.full((self.k, self.m), -1, dtype=np.int64)  # column of U[x, y]
        self.n_cols = 1
        self.n_pairs = 0

    def _rows(self, cols: list[np.ndarray], values: list[float]) -> None:
        """Rows ``sum_j values[j] * column cols[j][i] <= 0``, one per ``i``."""
        n, width, i32 = cols[0].size, len(cols), np.int32
        index = np.stack(cols, axis=1).astype(i32).ravel()
        value = np.tile(np.asarray(values, dtype=float), n)
        self.h.addRows(n, np.full(n, -self.inf), np.zeros(n), width * n,
                       (width * np.arange(n)).astype(i32), index, value)

    def add_outputs(self, ys: np.ndarray) -> None:
        """Enter outputs ``ys``: ``t_y`` (cost ``C_y``, -1 in the T row) and, with maxima,
        ``u_y`` (1 in the total row) with ``t_y - u_y <= 0``."""
        ys = np.asarray(ys, dtype=np.int64)
        n, i32 = ys.size, np.int32
        if not n:
            return
        self.h.addCols(n, self.c[:, ys].sum(axis=0), np.zeros(n), np.full(n, self.inf), n,
                       np.arange(n, dtype=i32), np.full(n, self.k, i32), -np.ones(n))
        self.t_col[ys] = self.n_cols + np.arange(n)
        self.n_cols += n
        if self.maxima:
            self.h.addCols(n, np.zeros(n), np.zeros(n), np.full(n, self.inf), n,
                           np.arange(n, dtype=i32), np.full(n, self.k + 1, i32), np.ones(n))
            self.max_col[ys] = self.n_cols + np.arange(n)
            self.n_cols += n
            self._rows([self.t_col[ys], self.max_col[ys]], [1.0, -1.0])

    def add_pairs(self, xs: np.ndarray, ys: np.ndarray) -> None:
        """Enter pairs ``(x, y)`` of outputs already in: ``U[x, y]`` (cost ``c[x, y]``, 1 in
        row sum x), its cap row ``U[x, y] - cap t_y <= 0`` and, with maxima,
        ``t_y + U[x, y] - u_y <= 0``."""
        n, i32 = xs.size, np.int32
        if not n:
            return
        first = self.n_cols
        self.h.addCols(n, self.c[xs, ys], np.zeros(n), np.full(n, self.inf), n,
                       np.arange(n, dtype=i32), xs.astype(i32), np.ones(n))
        cols = first + np.arange(n)
        self._rows([cols, self.t_col[ys]], [1.0, -self.a])
        if self.maxima:
            self._rows([self.t_col[ys], cols, self.max_col[ys]], [1.0, 1.0, -1.0])
        self.u_col[xs, ys] = cols
        self.n_cols += n
        self.n_pairs += n

    def fits(self, n: int, max_pairs: int | None) -> bool:
        """True when ``n`` more pairs keep the LP within ``max_pairs`` (None: no cap)."""
        return max_pairs is None or self.n_pairs + n <= max_pairs

    def run(self) -> str:
        """Solve from the current basis (:func:`run_highs`)."""
        return run_highs(self.h, self.stop)

    def duals(self) -> tuple[np.ndarray, float, float]:
        """``lambda`` (the row sums' duals), ``nu`` (the T row's: ``-Lambda`` while ``T`` is
        basic) and ``mu >= 0`` (minus the maxima total's, 0 without maxima)."""
        row = np.asarray(self.h.getSolution().row_dual, dtype=float)
        mu = max(0.0, -float(row[self.k + 1])) if self.maxima else 0.0
        return row[:self.k], float(row[self.k]), mu

    def solution(self) -> np.ndarray:
        """The LP's column values (columns are only ever appended, so a later
        :meth:`mechanism` can read them)."""
        return np.maximum(np.asarray(self.h.getSolution().col_value, dtype=float), 0.0)

    def mechanism(self, col: np.ndarray) -> np.ndarray:
        """``Q`` from the column values ``col`` of a solve: ``t_y + U[x, y]`` on the working
        set then, 0 elsewhere (columns added after it count 0)."""
        col = np.append(col, np.zeros(self.n_cols - col.size))
        t = np.where(self.t_col >= 0, col[np.maximum(self.t_col, 0)], 0.0)
        U = np.where(self.u_col >= 0, col[np.maximum(self.u_col, 0)], 0.0)
        return t[None, :] + U


def solve_working_set(c: Any, envelope: Envelope, deadline: Deadline | None = None,
                      options: dict | None = None, max_pairs: int | None = None
                      ) -> WorkingSetSolution:
    """Minimise ``sum c Q`` over the mechanisms of ``envelope`` (pure LDP, pure deletion
    LDP) by the working set of outputs.

    Parameters
    ----------
    c : array_like, shape (k, m)
        Costs ``prior[x] * loss[x, y]``, finite (unit range recommended).
    envelope : Envelope
        ``Envelope.ldp(eps)`` or ``Envelope.deletion(eps, k, m)``.
    deadline : Deadline, optional
        A shared time budget; each LP solve gets what remains (HiGHS ``time_limit``).
    options : dict, optional
        HiGHS options for the LPs (default: primal simplex, which keeps the basis primal
        feasible as outputs enter).
    max_pairs : int, optional
        The most pairs the LP may hold (its memory); a round that would pass it ends the
        loop with status ``"memory limit"`` and the last round's optimum.

    Returns
    -------
    WorkingSetSolution
        ``status`` is ``"optimal"`` when no output prices below the tolerance, else the
        reason the loop stopped (``"time limit"``, ``"memory limit"``, ``"rounds"``, or
        HiGHS's status).
    """
    c, sigma = scaled_costs(c)
    deadline = deadline or Deadline(None)
    lp = _WorkingSetLP(c, envelope, dict(options or {}))
    a = envelope.cap
    col_sums = c.sum(axis=0)
    first = np.array([int(np.argmin(col_sums))])
    lp.add_outputs(first)
    lp.add_pairs(np.arange(c.shape[0]), np.repeat(first, c.shape[0]))
    status, rounds, lam, mu, solved = "rounds", 0, np.zeros(c.shape[0]), 0.0, None
    while rounds < MAX_ROUNDS:
        rounds += 1
        stop = solve_round(lp.h, lp.run, deadline, rounds == 1)
        if stop:
            status = stop
            break
        solved = lp.solution()  # this round's optimum: feasible for the full problem
        lam, nu, mu = lp.duals()
        tol = PRICING_TOL * max(1.0, abs(lp.h.getInfo().objective_function_value))
        # a pair left out with gain g costs the bound a * g per column: pairs need g <= tol / E
        pair_tol = tol / (1 + a)
        inside = lp.t_col >= 0
        held = np.flatnonzero(inside)  # pairs of outputs already in first: k x |held| gains
        xs, js = np.nonzero((lam[:, None] - c[:, held] > pair_tol) & (lp.u_col[:, held] < 0))
        if xs.size:
            if not lp.fits(xs.size, max_pairs):
                status = "memory limit"
                break
            lp.add_pairs(xs, held[js])
            continue
        # the best ray of an output outside (u_y = t_y or u_y = (1 + a) t_y with maxima)
        gain = lam[:, None] - c  # k x m: only in the rounds that price outputs
        reduced = col_sums + nu + (1 + a) * mu - a * np.maximum(gain, 0.0).sum(axis=0)
        if lp.maxima:
            reduced = np.minimum(reduced, col_sums + nu + mu)
        reduced[inside] = np.inf
        entering = np.flatnonzero(reduced < -tol)
        if entering.size == 0:
            status = "optimal"
            break
        # the most negative first; as many as half the working set (geometric growth when
        # the optimum uses most outputs, as k-RR does for a Hamming loss)
        size = max(OUTPUTS_PER_ROUND, int(inside.sum()) // 2)
        entering = entering[np.argsort(reduced[entering])[:size]]
        xs, js = np.nonzero(gain[:, entering] > pair_tol)
        if not lp.fits(xs.size, max_pairs):
            status = "memory limit"
            break
        lp.add_outputs(entering)
        lp.add_pairs(xs, entering[js])
    if solved is None:  # the first LP did not finish
        return WorkingSetSolution(None, math.nan, -math.inf, rounds, (), status)
    # k x m: built once, not every round (each build's cost at large k: benchmarks/README.md,
    # "Pure LDP at large k", fourth run)
    Q = lp.mechanism(solved)
    return WorkingSetSolution(Q, sigma * float((c * Q).sum()),
                              sigma * dual_lower_bound(c, lam, envelope, mu), rounds,
                              tuple(int(y) for y in np.flatnonzero(Q.sum(axis=0) > 0)),
                              status)
