r"""Privacy-accuracy frontiers: the optimal value of a design problem across epsilons.

:func:`frontier` compiles a convex design problem once with every epsilon-dependent
coefficient as a cvxpy Parameter (DPP) and re-solves it per epsilon (LPs: HiGHS dual
simplex warm-started from the previous epsilon's basis), certifying each mechanism like
:meth:`DesignProblem.solve`. Information objectives (staircase programs)
are re-solved per epsilon. Sweeps run in order, or spread over any
``concurrent.futures.Executor`` in contiguous chunks, each chunk compiling once.

:func:`family_frontier` evaluates catalog families (k-RR, subset selection with its best d,
unary encodings, Hadamard response) on an objective, for comparison.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import catalog
from ._validation import check_epsilon
from .design.objectives import Objective
from .design.problem import DesignProblem
from .design.result import DesignResult, Status
from .design.solvers import choose_solver
from .errors import InvalidParameterError, MechdesignError


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


def _epsilons(epsilons: Sequence[float]) -> np.ndarray:
    eps = np.array([check_epsilon(e) for e in epsilons], dtype=float)
    if eps.size == 0:
        raise InvalidParameterError("epsilons must not be empty")
    return eps


def _sweep(problem: DesignProblem, epsilons: Sequence[float], solver: str | None,
           options: dict, progress: bool) -> list[DesignResult]:
    """Solve ``problem`` at each epsilon, compiling once when the objective allows it."""
    notion = problem.privacy
    out: list[DesignResult] = []

    def tick(i: int) -> None:
        if progress:
            print(f"\rfrontier: {i}/{len(epsilons)}", end="", file=sys.stderr, flush=True)

    if problem.objective.family != "convex" or problem.semantics != "shafer":
        for i, e in enumerate(epsilons):
            out.append(problem.with_privacy(dataclasses.replace(notion, epsilon=e)).solve(
                solver, **options))
            tick(i + 1)
        if progress:
            print(file=sys.stderr)
        return out
    t0 = time.perf_counter()
    prob, Q, groups, context = problem._compile(parametric=True)
    build_time = time.perf_counter() - t0
    name = choose_solver(prob, solver)
    if name == "HIGHS" and solver is None:
        # neighbouring epsilons share most of the optimal basis: dual simplex warm-started
        # from the previous point beats interior point by 5x on a 50-point sweep at k = 50
        # (feasibility tolerances tightened from 1e-7: certification then needs no repair)
        options = {"warm_start": True, "highs_options": {
            "solver": "simplex", "primal_feasibility_tolerance": 1e-10,
            "dual_feasibility_tolerance": 1e-10}, **options}
    for i, e in enumerate(epsilons):
        for setter in context.get("setters", []):
            setter(e)
        twin = problem.with_privacy(dataclasses.replace(notion, epsilon=e))
        t1 = time.perf_counter()
        status, error = twin._run(prob, name, options)
        solve_time = time.perf_counter() - t1
        if status in (Status.OPTIMAL, Status.INACCURATE) and Q.value is not None:
            res = twin._certified(Q.value, float(prob.value), status, name, "global",
                                  twin.privacy_formulation() + " (parametric, compiled once)",
                                  build_time if i == 0 else 0.0, solve_time,
                                  twin._duals(groups), twin._context_notes(context))
        else:
            res = DesignResult(status=status, value=None, solver_value=None, optimum="global",
                               certificate=None, duals={}, solver=name,
                               formulation=twin.privacy_formulation(), build_time=0.0,
                               solve_time=solve_time, user_constraints=tuple(twin.constraints),
                               _unavailable=error)
        out.append(res)
        tick(i + 1)
    if progress:
        print(file=sys.stderr)
    return out


def frontier(problem: DesignProblem, epsilons: Sequence[float], *, solver: str | None = None,
             executor: Executor | None = None, chunks: int | None = None,
             progress: bool = False, **options: Any) -> Frontier:
    """Optimal value of ``problem`` at each epsilon (its notion's epsilon is replaced).

    Parameters
    ----------
    problem : DesignProblem
        Any problem whose notion has an ``epsilon`` (all of them).
    epsilons : sequence of float
    executor : concurrent.futures.Executor, optional
        Spread the sweep over it in ``chunks`` contiguous pieces (default: 2 per worker
        if the executor says how many it has, else 4). With a process pool the problem must
        be picklable (named functions, not lambdas, as constraints). A Dask cluster works
        through ``client.get_executor()`` (extra ``distributed``). Without an executor the
        sweep runs in this process: measured on 2 cores, a process pool did not beat the
        warm-started sequential sweep (120 points at k = 30: 1.10 s against 0.94 s), since
        each chunk compiles again and restarts the simplex cold.
    progress : bool
        Print ``i/n`` to stderr while sweeping (sequential sweeps).
    """
    eps = _epsilons(epsilons)
    if not hasattr(problem.privacy, "epsilon"):
        raise InvalidParameterError(f"{problem.privacy!r} has no epsilon to sweep")
    if executor is None:
        results = _sweep(problem, list(eps), solver, options, progress)
    else:
        n = chunks or 2 * int(getattr(executor, "_max_workers", 2) or 2)
        pieces = [list(c) for c in np.array_split(eps, min(n, eps.size)) if c.size]
        futures = [executor.submit(_sweep, problem, p, solver, options, False) for p in pieces]
        results = [r for f in futures for r in f.result()]
    values = np.array([np.nan if r.value is None else r.value for r in results])
    return Frontier(eps, values, tuple(results))


FAMILIES = ("randomized_response", "subset_selection", "unary_encoding",
            "optimized_unary_encoding", "hadamard_response")


def family_mechanism(family: str, k: int, epsilon: float, objective: Objective | None = None):
    """The catalog mechanism of ``family`` at (k, eps); subset selection takes the d that
    is best for ``objective`` (smallest for a minimised objective)."""
    if family == "randomized_response":
        return catalog.randomized_response(k, epsilon)
    if family == "unary_encoding":
        return catalog.unary_encoding(k, epsilon)
    if family == "optimized_unary_encoding":
        return catalog.unary_encoding(k, epsilon, optimized=True)
    if family == "hadamard_response":
        return catalog.hadamard_response(k, epsilon)
    if family == "subset_selection":
        cands = [catalog.subset_selection(k, d, epsilon) for d in range(1, k)
                 if k * math.comb(k, d) <= catalog.MAX_ENTRIES]
        if objective is None:
            return cands[0]
        sign = 1.0 if objective.sense == "minimize" else -1.0
        return min(cands, key=lambda m: sign * objective.evaluate(m.matrix))
    raise InvalidParameterError(f"unknown family {family!r}; choose from {FAMILIES}")


def family_frontier(family: str, objective: Objective, epsilons: Sequence[float]
                    ) -> np.ndarray:
    """``objective`` evaluated on the catalog ``family`` at each epsilon (the objective
    must accept the family's output alphabet: information objectives do)."""
    eps = _epsilons(epsilons)
    k = objective.n_inputs
    if k is None:
        raise InvalidParameterError("the objective must fix the number of inputs")
    return np.array([objective.evaluate(family_mechanism(family, k, e, objective).matrix)
                     for e in eps])
