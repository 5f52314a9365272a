r"""Privacy-accuracy frontiers: the optimal value of a design problem across epsilons.

:func:`frontier` plans every point as :meth:`DesignProblem.solve` does
(:mod:`~mechdesign.design.planner`). The points the planner gives to the global program
share one compile with every epsilon-dependent coefficient as a cvxpy Parameter (DPP),
re-solved per epsilon (LPs: HiGHS primal simplex warm-started from the previous epsilon's
basis, except large LPs with many rows per variable: Clarabel), certifying each mechanism
like :meth:`DesignProblem.solve`; every other point (working set, closed forms, staircase
programs, row generation) is solved by its own method. Sweeps run in order,
on a process pool (``workers``; automatic when a timed probe says it pays), or over any
``concurrent.futures.Executor``, in contiguous chunks, each chunk compiling once.

:mod:`mechdesign.frontier.families` evaluates catalog families (k-RR, subset selection with its
best d, unary encodings, Hadamard response, Warner and the "don't know" mechanisms) for
comparison.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._progress import Progress, ProgressArg
from .._validation import check_epsilon
from ..design import planner
from ..design.problem import DesignProblem
from ..design.result import DesignResult
from ..design.solvers import WarmHighs, warm_highs_applies
from ..errors import InvalidParameterError, MechdesignError

__all__ = [
    "MAX_AUTO_WORKERS",
    "PARENT_POLL",
    "POOL_OVERHEAD",
    "PROBE_POINTS",
    "Frontier",
    "check_epsilons",
    "frontier",
    "pool_pays",
    "pool_workers",
    "process_pool",
]


@dataclass(frozen=True)
class Frontier:
    """Optimal values against epsilon, with every certified result."""

    epsilons: np.ndarray
    values: np.ndarray
    results: tuple[DesignResult, ...]

    @property
    def mechanisms(self) -> list:
        """The designed mechanisms (None where a point has no mechanism)."""
        out = []
        for r in self.results:
            try:
                out.append(r.mechanism)
            except MechdesignError:
                out.append(None)
        return out

    @property
    def certificates(self) -> list:
        return [r.certificate for r in self.results]

    def to_dict(self) -> dict:
        return {"epsilons": self.epsilons.tolist(),
                "values": [None if not np.isfinite(v) else float(v) for v in self.values],
                "results": [r.summary() for r in self.results]}

    def __repr__(self) -> str:
        from .._html import numbers_text, short_repr
        met = sum(c is not None and c.met for c in self.certificates)
        optimal = sum(str(r.status) == "optimal" for r in self.results)
        return short_repr("Frontier", f"{len(self.epsilons)} points, epsilons="
                          f"{numbers_text(self.epsilons, 48)}, values="
                          f"{numbers_text(self.values, 64)}; {optimal} optimal, {met} certified")

    def _repr_html_(self) -> str:
        """The frontier drawn by :func:`~mechdesign.plotting.plot_frontier` (a table of
        the points when matplotlib is not installed)."""
        from .._html import figure_html, series_table, wrap

        def draw() -> Any:
            from ..plotting.frontier import plot_frontier
            return plot_frontier(self)

        def table() -> str:
            return series_table([("epsilon", self.epsilons), ("value", self.values),
                                 ("status", [str(r.status) for r in self.results]),
                                 ("certified gap", [r.gap for r in self.results])], "Frontier")

        return wrap(figure_html(draw, table, "frontier: optimal value against epsilon"))


def check_epsilons(epsilons: Sequence[float]) -> np.ndarray:
    """A non-empty grid of privacy levels as a float array (each checked: finite, >= 0)."""
    eps = np.array([check_epsilon(e) for e in epsilons], dtype=float)
    if eps.size == 0:
        raise InvalidParameterError("epsilons must not be empty")
    return eps


PROBE_POINTS = 3
"""Automatic mode solves this many points here first, timing the cold and warm solves."""

POOL_OVERHEAD = 0.3
"""Seconds to start, feed and stop a process pool (twice the cost measured for 2 workers
with trivial chunks by ``benchmarks/frontier_sweep.py``)."""

MAX_AUTO_WORKERS = 4


class _Sweep:
    """One process's sweep: every point planned as :meth:`DesignProblem.solve` plans it
    (:mod:`~mechdesign.design.planner`); points the planner gives to the global program
    share one parametric compile (when the objective allows) and the warm start carried
    from point to point; every other point is solved by its own method."""

    def __init__(self, problem: DesignProblem, solver: str | None, options: dict) -> None:
        problem._check_solve_arguments(solver, None, options)  # as solve() checks them
        self.problem, self.solver, self.options = problem, solver, options
        self.program = None
        self.warm = None
        self.compilable = problem.objective.family == "convex" and problem.semantics == "shafer"

    def _compiled(self) -> Any:
        if self.program is None:
            self.program = self.problem.compile(parametric=True)
            prob = self.program.prob
            self.warm = (WarmHighs() if warm_highs_applies(prob, self.solver, self.options)
                         else None)
            # re-solves as in DesignProblem.solve (Program.attempts)
            self.name = "HIGHS" if self.warm else self.program.default_solver(self.solver)
        return self.program

    def solve(self, e: float) -> DesignResult:
        problem = self.problem
        twin = problem.with_privacy(dataclasses.replace(problem.privacy, epsilon=e))
        the_plan = planner.plan(twin, self.solver, self.options, estimate_memory=False)
        if the_plan.method is not planner.Method.PROGRAM or not self.compilable:
            # the point's own method, from the plan just made (a row-generation plan
            # carries its skeleton), finished as DesignProblem.solve finishes it
            return twin._conclude(planner.run(the_plan, twin, self.solver, self.options, None))
        first = self.program is None
        program = self._compiled()
        program.set_epsilon(e)
        t1 = time.perf_counter()
        runs = program.attempts(self.name, explicit=bool(self.solver or self.options),
                                options={} if self.warm else self.options, time_limit=None,
                                runner=self.warm, spec=twin)
        solve_time = time.perf_counter() - t1
        build_time = program.build_time if first else 0.0
        formulation = twin.privacy_formulation() + " (parametric, compiled once" + (
            "; HiGHS simplex warm-started from the previous basis)" if self.warm else ")")
        res = program.conclude(runs, formulation, build_time, solve_time, spec=twin)
        return twin._conclude(dataclasses.replace(res, method=the_plan.method))


def _tick(progress: Progress | None, done: int, total: int) -> None:
    """Report ``done`` of ``total`` points (``None``: a pool worker, which reports nothing)."""
    if progress is not None:
        progress.update(done)


def _sweep(problem: DesignProblem, epsilons: Sequence[float], solver: str | None,
           options: dict, progress: Progress | None) -> list[DesignResult]:
    """Solve ``problem`` at each epsilon in order, compiling once when the objective
    allows it (the unit of work of a pool: one contiguous chunk)."""
    sweep = _Sweep(problem, solver, options)
    out = []
    for i, e in enumerate(epsilons):
        out.append(sweep.solve(e))
        _tick(progress, i + 1, len(epsilons))
    return out


def pool_pays(n_rest: int, warm_time: float, build_time: float, cold_time: float,
              workers: int) -> bool:
    """Whether spreading ``n_rest`` more points over ``workers`` processes (this one
    keeps a piece, warm) beats solving them here, from the probe's timings.

    Here: ``n_rest * warm_time``. Spread: each of the other ``workers - 1`` pieces compiles
    and starts cold, the pieces run side by side, plus :data:`POOL_OVERHEAD`; the saving
    is halved for safety (workers share the machine with other work):
    ``n_rest * warm_time * (1 - 1/workers) / 2``."""
    if workers < 2 or n_rest < 2 * workers:
        return False
    saving = n_rest * warm_time * (1 - 1 / workers) / 2
    return saving > POOL_OVERHEAD + build_time + cold_time


def _picklable(problem: DesignProblem) -> Exception | None:
    """None if ``problem`` pickles (a process pool can take it), else the error."""
    try:
        pickle.dumps(problem)
    except Exception as exc:  # PicklingError, AttributeError, TypeError: all mean "no"
        return exc
    return None


def pool_workers(problem: DesignProblem, n_points: int, workers: int | None = None) -> int:
    """How many processes :func:`frontier` may use (1: this one only).

    ``workers=None`` (automatic): ``min(os.cpu_count(), 4)`` candidates when the problem
    pickles and the sweep has at least ``PROBE_POINTS + 2`` points per candidate, else 1
    (whether the pool is then used is :func:`pool_pays`'s call, after the probe). An
    explicit ``workers > 1`` with a problem that does not pickle is an error.
    """
    if workers is None:
        n = min(os.cpu_count() or 1, MAX_AUTO_WORKERS)
        if n < 2 or n_points < PROBE_POINTS + 2 * n or _picklable(problem) is not None:
            return 1
        return n
    if isinstance(workers, bool) or not isinstance(workers, int | np.integer) or workers < 1:
        raise InvalidParameterError(f"workers must be a positive integer or None, got "
                                    f"{workers!r}")
    if workers > 1:
        exc = _picklable(problem)
        if exc is not None:
            raise InvalidParameterError(
                f"workers={workers} runs the sweep in other processes, which needs a "
                f"picklable problem, but pickling it failed ({type(exc).__name__}: {exc}); "
                "use named module-level functions as constraints, not lambdas, or "
                "workers=1") from None
    return int(workers)


PARENT_POLL = 0.25
"""Seconds between a pool worker's checks that the process that started it is alive."""

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def _die_with_parent() -> None:
    """Linux: ask the kernel to SIGKILL this process when its parent dies (first line of
    defence; the parent watch of :func:`_init_worker` covers other systems)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # no libc symbol: the watch thread still works
        pass


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(PARENT_POLL)
        if os.getppid() != parent:  # re-parented: the process that started us is gone
            os._exit(1)


def _init_worker(parent: int) -> None:
    """Pool initializer: the worker ends when its parent dies, whichever signal ended it
    (prctl on Linux, and a daemon thread polling ``os.getppid()``). Ctrl-C goes to the whole
    foreground process group: the worker ignores it and the parent stops the pool; SIGTERM
    gets its default action back (the CLI's handler, inherited by fork, is the parent's)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                     name="mechdesign-parent-watch").start()


@contextmanager
def process_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A process pool whose workers die with this process, and which is stopped at once
    (queued futures cancelled, running workers terminated) when the block ends by an
    exception or an interrupt; on normal exit it is shut down and joined."""
    pool = ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(os.getpid(),))
    try:
        yield pool
    except BaseException:
        _stop_pool(pool)
        raise
    pool.shutdown(wait=True)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel what is queued and end the workers now (SIGTERM, then SIGKILL after 2 s)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        with suppress(Exception):
            proc.terminate()
    deadline = time.monotonic() + 2.0
    for proc in procs:
        with suppress(Exception):
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.is_alive():
                proc.kill()
                proc.join(1.0)


def _spread(executor: Executor, problem: DesignProblem, pieces: list[list[float]],
            solver: str | None, options: dict) -> list[Future]:
    return [executor.submit(_sweep, problem, p, solver, options, None) for p in pieces]


def _gather(futures: list[Future], sizes: list[int], done: int, total: int,
            progress: Progress) -> list[DesignResult]:
    """The chunks' results in order, ticking progress as chunks complete."""
    size = dict(zip(futures, sizes, strict=True))
    try:
        for f in as_completed(futures):
            f.result()  # an error in a worker surfaces here
            done += size[f]
            _tick(progress, done, total)
    except BaseException:
        for f in futures:  # an error or an interrupt: nothing more is started
            f.cancel()
        raise
    return [r for f in futures for r in f.result()]


def _pieces(eps: Sequence[float], n: int) -> list[list[float]]:
    return [[float(e) for e in c] for c in np.array_split(np.asarray(eps), min(n, len(eps)))
            if c.size]


def _automatic(problem: DesignProblem, eps: np.ndarray, solver: str | None, options: dict,
               workers: int, progress: Progress) -> list[DesignResult]:
    """Probe, then decide: solve the first points here (timing the cold and the warm
    solves); if :func:`pool_pays`, this process keeps the next piece (its warm start
    intact) and ``workers - 1`` pool processes take the others."""
    n = eps.size
    sweep = _Sweep(problem, solver, options)
    out, times = [], []
    for e in eps[:PROBE_POINTS]:
        t0 = time.perf_counter()
        out.append(sweep.solve(float(e)))
        times.append(time.perf_counter() - t0)
        _tick(progress, len(out), n)
    rest = [float(e) for e in eps[PROBE_POINTS:]]
    build_time = sweep.program.build_time if sweep.program is not None else 0.0
    if not pool_pays(len(rest), float(np.mean(times[1:])), build_time, times[0],
                     workers):
        for e in rest:
            out.append(sweep.solve(e))
            _tick(progress, len(out), n)
        return out
    mine, *others = _pieces(rest, workers)
    with process_pool(len(others)) as pool:
        futures = _spread(pool, problem, others, solver, options)
        for e in mine:
            out.append(sweep.solve(e))
            _tick(progress, len(out) + sum(len(p) for p, f in zip(others, futures,
                                                                  strict=True) if f.done()), n)
        return out + _gather(futures, [len(p) for p in others], len(out), n, progress)


def frontier(problem: DesignProblem, epsilons: Sequence[float], *, solver: str | None = None,
             executor: Executor | None = None, workers: int | None = None,
             chunks: int | None = None, progress: ProgressArg = False,
             **options: Any) -> Frontier:
    """Optimal value of ``problem`` at each epsilon (its notion's epsilon is replaced).

    LPs are solved by HiGHS simplex (primal, tolerances 1e-10) started from the previous
    epsilon's optimal basis, unless a large LP has many rows per variable
    (> :data:`WARM_HIGHS_MAX_VARS` variables and > 1.5 rows per variable: Clarabel, with the
    fallback of :meth:`DesignProblem.solve`); ``benchmarks/frontier_sweep.py`` measures
    the two side by side. The warm start passes the previous optimal basis (cvxpy's own
    HiGHS warm start passes the previous solution, which saves few simplex iterations). A
    warm start that stops short is re-run cold.

    Parameters
    ----------
    problem : DesignProblem
        Any problem whose notion has an ``epsilon`` (all of them).
    epsilons : sequence of float
    solver : str, optional
        As in :meth:`DesignProblem.solve`. ``"HIGHS"`` without options takes the
        warm-started simplex; any other solver, or any option, is passed to cvxpy as given.
    executor : concurrent.futures.Executor, optional
        Spread the sweep over it in ``chunks`` contiguous pieces (default: 2 per worker
        if the executor says how many it has, else 4), each compiling once. With a process
        pool the problem must be picklable (named functions, not lambdas, as constraints).
        A Dask cluster works through ``client.get_executor()`` (extra ``distributed``).
        Overrides ``workers``.
    workers : int, optional
        ``1``: this process. ``N > 1``: a process pool of N, created and shut down here, over
        ``chunks`` (default N) contiguous pieces; a problem that does not pickle is an
        :class:`InvalidParameterError`. ``None`` (default, automatic): the first
        :data:`PROBE_POINTS` points are solved here and timed; when :func:`pool_pays` (the
        remaining points' warm time, halved for a shared machine, exceeds pool start-up
        plus one more compile and cold solve), this process keeps the next piece and a pool
        of ``min(os.cpu_count(), 4) - 1`` takes the rest; a problem that does not pickle
        stays here. Measured on 2 shared cores, the pool rarely pays for warm-started LP
        sweeps, whose chunks each restart cold (``benchmarks/frontier_sweep.py``; numbers
        in ``benchmarks/README.md``, "Frontier sweeps"). Results agree whatever
        ``workers`` (to ~1e-9: a chunk's first point is solved cold, so it may land on
        another optimal vertex).
    progress : bool or callable
        ``True``: ``frontier: i/n points`` on stderr while sweeping (one line rewritten on a
        terminal, plain lines at most once a second otherwise; pool chunks count as they
        complete); a callable is called as ``progress(i, n)``.
    """
    eps = check_epsilons(epsilons)
    if not hasattr(problem.privacy, "epsilon"):
        raise InvalidParameterError(f"{problem.privacy!r} has no epsilon to sweep")
    with Progress("frontier", eps.size, progress, unit="points") as bar:
        results = _run(problem, eps, solver, executor, workers, chunks, bar, options)
    values = np.array([np.nan if r.value is None else r.value for r in results])
    return Frontier(eps, values, tuple(results))


def _run(problem: DesignProblem, eps: np.ndarray, solver: str | None,
         executor: Executor | None, workers: int | None, chunks: int | None,
         progress: Progress, options: dict) -> list[DesignResult]:
    """The sweep of :func:`frontier`: on ``executor``, in this process, or on a pool."""
    if executor is not None:
        pieces = _pieces(eps, chunks or 2 * int(getattr(executor, "_max_workers", 2) or 2))
        results = _gather(_spread(executor, problem, pieces, solver, options),
                          [len(p) for p in pieces], 0, eps.size, progress)
    else:
        n_workers = pool_workers(problem, eps.size, workers)
        if n_workers == 1:
            results = _sweep(problem, eps.tolist(), solver, options, progress)
        elif workers is None:
            results = _automatic(problem, eps, solver, options, n_workers, progress)
        else:
            pieces = _pieces(eps, chunks or n_workers)
            with process_pool(n_workers) as pool:
                results = _gather(_spread(pool, problem, pieces, solver, options),
                                  [len(p) for p in pieces], 0, eps.size, progress)
    return results
