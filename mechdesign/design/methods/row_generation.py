r"""Exact metric privacy by row generation: constrain only the triples that bind.

Metric privacy over a distance matrix is exact on the pairs of its skeleton
(:func:`~mechdesign.neighbors.metric_skeleton`): ``Q[a, y] <= e^{eps D[a, b]} Q[b, y]`` for
both directions of every skeleton pair and every output, ``2 |skeleton| n`` rows (61% of all
pairs on a Euclidean grid: 39 million rows for the 20 x 20 grid before the symmetry
reduction). At a vertex of the LP each column is pinned down by about ``k`` tight rows, so
almost all of them are slack. The program is solved on a subset of the triples
``(a, b, y)``, starting with the directions of a greedy 1.1-spanner's edges (at the TRUE
distance ``D[a, b]``, not divided by a dilation: each is a row of the exact program, so the
subset is a relaxation); the solution's violated triples over the whole skeleton
(``Q[a, y] - e^{eps D[a, b]} Q[b, y] > VIOLATION_TOL``) enter, the most violated first and
at most :data:`NEW_PER_ROUND` of the starting triples a round, and the program is solved
again, until none is violated.

Every round's program is a relaxation of the exact one: its certified dual bound
(:func:`~mechdesign.design.bound.lp_lower_bound`) bounds the exact optimum from below, and
the last round's matrix, which violates no skeleton triple by more than the tolerance, is
certified against the notion itself (its independent measure, and the envelope repair of
what rounding leaves). Under a symmetry group the triples enter by orbits, one row per
orbit (:mod:`~mechdesign.design.symmetry`).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from typing import TYPE_CHECKING

import numpy as np

from ...errors import SizeLimitError
from ...neighbors import greedy_spanner, is_graph, metric_skeleton
from ...privacy.notions import MetricDP
from ..formulations import Coefficients, Formulation, orbit_ratio_rows
from ..outcome import GAP_TOL
from ..program import best_run
from ..result import DesignResult
from ..solvers import Deadline, check_memory
from ..symmetry import Symmetry, check_invariant
from .program import solve_program

if TYPE_CHECKING:
    from ..spec import ProblemSpec

log = logging.getLogger("mechdesign.design")

VIOLATION_TOL = 1e-9
"""A triple enters when ``Q[a, y] - e^{eps D[a, b]} Q[b, y]`` exceeds this (entries of Q lie
in [0, 1]; the solvers' feasibility tolerance is about 1e-8, so smaller violations are left
to the certificate's envelope repair)."""

START_SPANNER = 1.1
"""Stretch of the greedy spanner whose edges (at their true distances) start the rows."""

MIN_TRIPLES = 200_000
"""Row generation from this many skeleton triples ``2 |skeleton| n`` (Euclidean grids from
9 x 9: 330,480; the 8 x 8 grid has 164,096 and keeps the whole program)."""

FEW_ROWS = 1e-3
"""When a round leaves at most this fraction of its rows violated, by at most
:data:`SMALL_EXCESS`, its matrix is certified before another round: violations at the
solver's rounding cost the envelope repair less than the gap tolerance, and another solve
would cost as much as the last."""

SMALL_EXCESS = 1e-7
"""See :data:`FEW_ROWS`."""

SPARSE_SKELETON = 8
"""A skeleton of at most this many pairs per input (a line: 1; a graph-like metric) is
built whole: a 1.1-spanner would start with most of it, so rounds would gain nothing."""

NEW_PER_ROUND = 1 / 3
"""A round adds at most this fraction of the starting triples, the most violated first
(ties within an orbit share their excess, so whole orbits enter). Adding every violated
triple was a little faster at 20 x 20 but made the 24 x 24 grid's second round a 1.01
million-row program that Clarabel did not finish within the benchmark's limit; with the cap
the rounds are more (7 solves at 20 x 20 instead of 4) but each program smaller (254,564
rows at the end instead of 404,555), and 24 x 24 finishes (``benchmarks/metric_rows.py``;
times in ``benchmarks/README.md``, "Exact grids by row generation")."""

MAX_ROUNDS = 50
"""A safety stop (measured: 6 or 7 solves for the 12 x 12 to 24 x 24 grids)."""

CHUNK_ENTRIES = 4_000_000
"""Entries of the ``pairs x n`` violation matrix scanned at once (32 MB)."""


def plan(spec: ProblemSpec) -> list[tuple[int, int, float]] | None:
    """The skeleton of the distance when row generation solves ``spec``: exact metric
    privacy over a distance matrix (no spanner, not a graph; the caller has routed
    information objectives elsewhere), more than
    :data:`SPARSE_SKELETON` pairs per input and at least :data:`MIN_TRIPLES` skeleton
    triples; else None. (The skeleton is O(k^3) in blocks, measured cheap next to the
    program it avoids: ``benchmarks/README.md``, "Exact grids by row generation".)"""
    notion = spec.privacy
    if (not isinstance(notion, MetricDP) or notion.spanner is not None
            or is_graph(notion.distance) or spec.focal_sets is not None):
        return None
    edges = metric_skeleton(notion.distances(spec.inputs))
    dense = len(edges) > SPARSE_SKELETON * spec.k
    return edges if dense and 2 * len(edges) * spec.n >= MIN_TRIPLES else None


def directed(spec: ProblemSpec, edges: list[tuple[int, int, float]]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(a, b, d)``: both directions of ``edges`` at their own true distances (infinite
    ones left out), as :meth:`MetricDP.directed_pairs` gives them for the exact notion."""
    notion: MetricDP = spec.privacy  # type: ignore[assignment]
    return notion.directed_pairs(spec.inputs, edges, 1.0)


def start_pairs(spec: ProblemSpec, D: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The directed edges of a greedy :data:`START_SPANNER`-spanner of the distances ``D``,
    at their true distances."""
    edges, _ = greedy_spanner(np.minimum(D, D.T), START_SPANNER)
    return directed(spec, [(u, v, float(D[u, v])) for u, v, _ in edges])


def codes(sym: Symmetry | None, k: int, n: int, a: np.ndarray, b: np.ndarray,
          y: np.ndarray) -> np.ndarray:
    """One integer per orbit of the triples ``(a, b, y)`` (:meth:`Symmetry.triple_codes`;
    ``(a * k + b) * n + y`` without a group), sorted and unique."""
    if sym is None:
        a, b, y = (np.asarray(v, dtype=np.int64) for v in (a, b, y))
        return np.unique((a * k + b) * n + y)
    return np.unique(sym.triple_codes(a, b, y))


def all_columns(a: np.ndarray, b: np.ndarray, n: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The triples ``(a_i, b_i, y)`` for every directed pair i and every output y."""
    return np.repeat(a, n), np.repeat(b, n), np.tile(np.arange(n), len(a))


def violated(Q: np.ndarray, a: np.ndarray, b: np.ndarray, d: np.ndarray, epsilon: float,
             tol: float = VIOLATION_TOL
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The triples with ``Q[a_i, y] - e^{eps d_i} Q[b_i, y] > tol`` and that excess, scanned
    in chunks of :data:`CHUNK_ENTRIES` entries (factors above e^700 read as infinite: such
    a row only binds where ``Q[b, y] = 0``)."""
    n = Q.shape[1]
    step = max(1, CHUNK_ENTRIES // max(1, n))
    out: list[list[np.ndarray]] = [[], [], [], []]
    factor = np.exp(np.minimum(epsilon * d, 700.0))
    for s in range(0, len(a), step):
        qa, qb = Q[a[s:s + step]], Q[b[s:s + step]]
        with np.errstate(invalid="ignore", over="ignore"):
            excess = qa - factor[s:s + step, None] * qb
        i, y = np.nonzero(excess > tol)
        for part, values in zip(out, (a[s:s + step][i], b[s:s + step][i], y, excess[i, y]),
                                strict=True):
            part.append(values)
    if not out[0]:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, np.zeros(0)
    va, vb, vy, ve = (np.concatenate(part) for part in out)
    return va, vb, vy, ve


def largest(excess: np.ndarray, cap: int) -> np.ndarray:
    """Indices of the ``cap`` largest entries of ``excess`` (all when there are fewer)."""
    if excess.size <= cap:
        return np.arange(excess.size)
    return np.argpartition(-excess, cap - 1)[:cap]


def formulate_rows(spec: ProblemSpec, row_codes: np.ndarray, D: np.ndarray
                   ) -> Formulation:
    """The metric rows of ``row_codes`` (see :func:`codes`) at the distances ``D``, on one
    variable per orbit of entries (per entry without a symmetry):
    :func:`~mechdesign.design.formulations.orbit_ratio_rows`."""
    k, n = spec.k, spec.n
    y = row_codes % n
    ab = row_codes // n
    a, b = ab // k, ab % k
    orbit = np.arange(k * n).reshape(k, n) if spec.symmetry is None else spec.symmetry.orbit
    coef = Coefficients(spec.privacy.epsilon, False)  # type: ignore[union-attr]
    return orbit_ratio_rows(k, n, spec.symmetry, orbit[a, y], orbit[b, y], D[a, b], coef)


def estimated_nonzeros(spec: ProblemSpec, n_rows: int) -> int:
    """Constraint nonzeros of a round with ``n_rows`` metric rows (two each, and the row
    sums)."""
    return 2 * n_rows + spec.k * spec.n


__all__ = ["FEW_ROWS", "MAX_ROUNDS", "MIN_TRIPLES", "NEW_PER_ROUND", "SMALL_EXCESS",
           "SPARSE_SKELETON", "START_SPANNER", "VIOLATION_TOL", "all_columns", "codes",
           "directed", "estimated_nonzeros", "formulate_rows", "largest", "plan",
           "start_pairs", "violated"]


def solve_row_generation(spec: ProblemSpec, skeleton: list, solver: str | None,
                         options: dict, time_limit: float | None) -> DesignResult:
    """Exact metric privacy on the triples that bind (this module's helpers):
    each round builds and solves the program on the current triples (a relaxation, with its
    certified dual bound); the skeleton's violated triples enter and the next round solves
    again (the most violated first, at most :data:`NEW_PER_ROUND` of the
    starting triples a round), until none is violated, the time limit or
    :data:`MAX_ROUNDS`. The
    last round's matrix is certified against the notion itself, its gap against the last
    round's bound (every round's bound is a bound on the exact optimum). A round that leaves
    at most :data:`FEW_ROWS` of its rows violated, by at most
    :data:`SMALL_EXCESS`, is certified first, and stands when its repaired
    matrix meets the notion within the gap tolerance."""
    t0 = time.perf_counter()
    notion = spec.privacy
    D = notion.distances(spec.inputs)  # type: ignore[union-attr]
    if spec.symmetry is not None:
        check_invariant("distance", D, spec.symmetry, "ii")
    deadline = Deadline(time_limit)
    k, n, eps = spec.k, spec.n, notion.epsilon  # type: ignore[union-attr]
    a, b, d = directed(spec, skeleton)
    start_a, start_b, _ = start_pairs(spec, D)
    cap = max(1, int(NEW_PER_ROUND * len(start_a) * n))  # triples a round
    rows = codes(spec.symmetry, k, n,
                                *all_columns(start_a, start_b, n))
    what = f"MetricDP design with {k} inputs and {n} outputs (row generation)"
    times = [time.perf_counter() - t0, 0.0]  # build (skeleton, starting rows), solve
    program, runs, rounds, left, solved_rows = None, [], 0, 0, 0  # rounds: solved ones

    def conclude() -> DesignResult:
        assert program is not None
        res = program.conclude(runs, "MetricDP by row generation on the skeleton's triples "
                               "(docs/formulations.md)", times[0], times[1], spec=spec)
        note = (f"row generation: {rounds} rounds, {solved_rows:,} "
                + ("orbit rows" if spec.symmetry is not None else "rows")
                + f" of the {2 * len(skeleton) * n:,} skeleton rows"
                + ("" if not left else f"; {left:,} rows still violated (by more than "
                   f"{VIOLATION_TOL:g}) when it stopped: the envelope repair "
                   "restores privacy and the gap says what that cost"))
        return dataclasses.replace(res, notes=(*res.notes, note),
                                   counts={"rounds": rounds, "rows": solved_rows})

    while True:
        try:
            check_memory(estimated_nonzeros(spec, rows.size), what)
        except SizeLimitError:
            if program is None:
                raise
            break  # the last finished round stands
        t1 = time.perf_counter()
        trial = spec.compile(form=formulate_rows(spec, rows, D))
        t2 = time.perf_counter()
        name = trial.default_solver(solver)
        # one solve; the rescues of a failed one and, for the final round, the re-solves of
        # a gap above tolerance (an intermediate round only finds violations; a final one
        # certified within the tolerance stands, whatever the solver's own status)
        again = {"explicit": bool(solver or options), "options": options}
        first = trial.run(name, options, None, deadline.remaining())
        trial_runs = [first] if first.Q is not None else trial.attempts(
            name, time_limit=deadline.remaining(), first=first, **again)
        best = best_run(trial_runs)
        new, excess = np.zeros(0, dtype=np.int64), 0.0
        if best is not None:
            va, vb, vy, ve = violated(best.Q, a, b, d, eps)
            excess = float(ve.max()) if ve.size else 0.0
            keep = largest(ve, cap)
            new = np.setdiff1d(codes(spec.symmetry, k, n, va[keep], vb[keep],
                                                    vy[keep]), rows, assume_unique=True)
            if not new.size and first.Q is not None and not (
                    first.gap is not None and first.gap <= GAP_TOL):
                trial_runs = trial.attempts(name, time_limit=deadline.remaining(),
                                            first=first, **again)
                best = best_run(trial_runs)
        compile_time = sum(r.compile_time for r in trial_runs)
        times[0] += t2 - t1 + compile_time
        times[1] += time.perf_counter() - t2 - compile_time
        if best is None and program is not None:
            break  # the last solved round stands
        program, runs, solved_rows = trial, trial_runs, rows.size
        if best is None:
            break
        rounds += 1
        left = new.size
        log.info("row generation round %d: %d rows, %.1f s; %d violated rows (by up to %.2g)",
                 rounds, rows.size, time.perf_counter() - t1, left, excess)
        if not left or deadline.expired or rounds >= MAX_ROUNDS:
            break
        if (left <= FEW_ROWS * rows.size
                and excess <= SMALL_EXCESS):
            res = conclude()
            if _certified(res):
                return res
        rows = np.union1d(rows, new)
    res = conclude() if rounds else None
    if (res is not None and _certified(res)) or deadline.expired:
        return res if res is not None else conclude()
    # no round solved, or one failed before the rows were complete (fuzzing: both solvers
    # failed on a round at eps = 2.5..3.5): the whole program, whose rescues may fare better
    try:
        whole = solve_program(spec, solver, options, deadline.remaining())
    except SizeLimitError:
        return res if res is not None else conclude()
    if res is not None and _gap_key(res) <= _gap_key(whole):
        return res
    return dataclasses.replace(whole, notes=(
        *whole.notes, f"row generation stopped after {rounds} solved rounds ("
        + (runs[-1].error or "rows still violated" if runs else "not run")
        + "): the whole program was solved"))


def _gap_key(res: DesignResult) -> float:
    return math.inf if res.gap is None else res.gap


def _certified(res: DesignResult) -> bool:
    """The result meets its notion with a certified gap within the tolerance."""
    return (res.certificate is not None and res.certificate.met and res.gap is not None
            and res.gap <= GAP_TOL)
