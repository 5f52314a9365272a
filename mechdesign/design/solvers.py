"""Solver defaults, chosen by measurement (``benchmarks/design_scaling.py``, section 2,
numbers in ``benchmarks/README.md``).

* LPs above :data:`LP_CLARABEL_ABOVE` variables and conic programs: Clarabel with
  tolerances 1e-10 (several times faster than HiGHS interior point and simplex on the
  large metric and pure-LDP LPs).
* Smaller LPs: HiGHS interior point with crossover (a vertex solution with exact zeros;
  these solve in well under a second whatever the solver).
No banner is printed.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp
import numpy as np

from ..errors import InvalidParameterError, SizeLimitError, SolverFailedError

BYTES_PER_NONZERO = 1_000
"""Peak memory per nonzero of the constraint matrix, building and solving together.
Measured on pure-LDP LPs, k = 100..400, peak RSS above the imported baseline: cvxpy's
compile 132 B, Clarabel's solve 446 B, HiGHS interior point 533 B per nonzero (plus
3-4 MB); 1,000 leaves room for fill-in on other sparsity patterns."""

MEMORY_BUDGET = 12 * 2**30
"""Designs estimated to need more than this (half the 24 GB machine) are refused before
anything is built (:func:`check_memory`). Pure LDP: k = n up to about 1,600."""

LP_CLARABEL_ABOVE = 2_000
"""Number of scalar variables above which Clarabel replaces HiGHS for LPs."""


def check_memory(nnz: int, what: str) -> None:
    """A typed :class:`~mechdesign.errors.SizeLimitError` naming the size and the limit
    when ``nnz`` constraint nonzeros would need more than :data:`MEMORY_BUDGET`."""
    need = nnz * BYTES_PER_NONZERO
    if need > MEMORY_BUDGET:
        raise SizeLimitError(
            f"{what}: about {nnz:,} constraint nonzeros, an estimated "
            f"{need / 2**30:.1f} GiB to build and solve, above the "
            f"{MEMORY_BUDGET / 2**30:.0f} GiB limit ({BYTES_PER_NONZERO} bytes per nonzero, "
            "measured); reduce the number of inputs or outputs, use symmetry= or a spanner")


def choose_solver(problem: cp.Problem | None, solver: str | None) -> str:
    """The solver name to use; a typed error naming it when it is not installed."""
    installed = cp.installed_solvers()
    if solver is not None:
        name = solver.upper()
        if name not in installed:
            raise SolverFailedError(
                f"solver {solver!r} is not installed; installed: {', '.join(installed)}")
        return name
    if not is_lp(problem):
        return "CLARABEL"
    n_vars = sum(v.size for v in problem.variables())
    return "HIGHS" if n_vars <= LP_CLARABEL_ABOVE else "CLARABEL"


def is_lp(problem: cp.Problem) -> bool:
    """A linear objective under linear constraints only."""
    return problem.is_dcp() and all(
        type(c).__name__ in ("Inequality", "Equality", "Zero", "NonNeg", "NonPos")
        for c in problem.constraints) and problem.objective.expr.is_affine()


@functools.cache
def silence_highs_banner() -> None:
    """HiGHS prints a banner on stdout when the first Highs object of a process is made,
    before any option can be set: make that first object with stdout sent to /dev/null."""
    try:
        import highspy
    except ImportError:  # pragma: no cover (comes with cvxpy)
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def solver_options(name: str, options: dict, time_limit: float | None = None) -> dict:
    """Quiet defaults per solver, overridden by the user's options; ``time_limit``
    (seconds) goes to HiGHS's and Clarabel's ``time_limit`` and SCS's ``time_limit_secs``."""
    opts = dict(options)
    if name == "HIGHS":
        silence_highs_banner()
        highs = {"output_flag": False, "solver": "ipm"}
        highs.update(opts.pop("highs_options", {}))
        if time_limit is not None:
            highs.setdefault("time_limit", float(time_limit))
        opts["highs_options"] = highs
    if name == "CLARABEL":
        # measured: tight tolerances cost 0-10% more time and return the optimum with no
        # repair needed (at the default 1e-8 certification had to repair)
        for key in ("tol_gap_abs", "tol_gap_rel", "tol_feas"):
            opts.setdefault(key, 1e-10)
        if time_limit is not None:
            opts.setdefault("time_limit", float(time_limit))
    if name == "SCS" and time_limit is not None:
        opts.setdefault("time_limit_secs", float(time_limit))
    opts.setdefault("verbose", False)
    return opts


COMMON_OPTIONS = ("verbose",)
"""Options every solver takes (read by :func:`solve_compiled` itself)."""

CHECKED_SOLVERS = ("HIGHS", "CLARABEL")
"""Solvers whose options :func:`check_solver_options` checks: the default solvers, whose
option names (and value types) can be asked of the installed solver itself. Options of
other solvers (SCS, OSQP, ...) go to cvxpy unchecked: their interfaces publish no list."""


def _highs_option_problem(key: str, value: Any) -> str | None:
    """Why HiGHS refuses ``key = value`` (asked of a scratch ``highspy.Highs``), or None."""
    import highspy
    silence_highs_banner()
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)  # no "ERROR: unknown option" on the console
    if h.getOptionType(key)[0] == highspy.HighsStatus.kError:
        return "not a HiGHS option"
    try:
        bad = h.setOptionValue(key, value) == highspy.HighsStatus.kError
    except (TypeError, ValueError):
        bad = True
    return f"HiGHS refuses the value {value!r}" if bad else None


def _clarabel_option_problem(key: str, value: Any) -> str | None:
    """Why cvxpy's Clarabel interface refuses ``key = value`` (set on a scratch
    ``clarabel.DefaultSettings``, as cvxpy does), or None."""
    import clarabel
    if key in ("use_quad_obj", "accept_unknown"):  # read by cvxpy's interface itself
        return None
    settings = clarabel.DefaultSettings()
    if key.startswith("_") or not hasattr(settings, key) or callable(getattr(settings, key)):
        return "not a Clarabel setting (clarabel.DefaultSettings)"
    try:
        setattr(settings, key, value)
    except (TypeError, ValueError, OverflowError):
        return f"Clarabel refuses the value {value!r}"
    return None


def _option_problem(solver: str, key: str, value: Any) -> str | None:
    """Why ``solver`` refuses the option ``key = value``, or None."""
    if key in COMMON_OPTIONS:
        return None
    if solver == "CLARABEL":
        return _clarabel_option_problem(key, value)
    if key != "highs_options":
        return _highs_option_problem(key, value)
    if not isinstance(value, dict):
        return f"highs_options must be a dict of HiGHS options, got {type(value).__name__}"
    for k, v in value.items():
        problem = _highs_option_problem(k, v) if isinstance(k, str) else "not a string"
        if problem is not None:
            return f"highs_options[{k!r}]: {problem}"
    return None


def check_solver_options(solver: str | None, options: dict) -> None:
    """Refuse an option the solver does not know (or a value of the wrong type) before any
    work, with an :class:`~mechdesign.errors.InvalidParameterError` naming it.

    Checked for :data:`CHECKED_SOLVERS` only. With ``solver=None`` the default may be
    either of them, so an option is accepted when one of them knows it (name the solver to
    have the options checked against it alone).
    """
    names = [solver.upper()] if solver is not None else list(CHECKED_SOLVERS)
    if not all(n in CHECKED_SOLVERS for n in names):
        return
    for key, value in options.items():
        problems = [_option_problem(n, key, value) for n in names]
        if all(p is not None for p in problems):
            if solver is not None:
                raise InvalidParameterError(
                    f"solver option {key!r} refused for {names[0]}: {problems[0]}")
            raise InvalidParameterError(
                f"solver option {key!r} refused: {'; '.join(problems)} (with solver=None "
                "mechdesign chooses HIGHS or CLARABEL; name the solver to pass its options)")


class Deadline:
    """A wall-clock budget shared by the several solves of one design (the staircase
    column generation, the local method's steps): ``remaining()`` seconds for the next
    solve (None: no limit), ``expired`` once it is spent."""

    def __init__(self, limit: float | None) -> None:
        self.limit = limit
        self.start = time.monotonic()

    def remaining(self) -> float | None:
        if self.limit is None:
            return None
        return max(self.limit - (time.monotonic() - self.start), 1e-3)

    @property
    def expired(self) -> bool:
        return self.limit is not None and time.monotonic() - self.start >= self.limit

    def stopped(self, what: str) -> str:
        """``what`` stopped at the limit (the message of an error raised for it)."""
        return f"{what} stopped at the time limit of {self.limit:g} s"

    def note(self) -> str:
        """The note on a result returned when the limit stopped its program."""
        return self.stopped("the program") + ": the best point found so far, not the optimum"


INTERRUPT_POLL = 0.05
"""Seconds between checks of the main thread while a native solve runs."""

INTERRUPT_GRACE = 2.0
"""Seconds a native solve is given to stop after Ctrl-C before control returns anyway."""


def run_interruptible(target: Callable[[], Any], stop: threading.Event) -> Any:
    """``target()`` in a worker thread, the main thread waiting in short slices.

    The native solvers release the GIL while they iterate, but a signal handler runs only
    in the main thread between bytecodes: while the main thread sits in a native call,
    Ctrl-C waits for the call to return (seconds to minutes on a large LP). Here the main
    thread only waits, so ``KeyboardInterrupt`` is raised at once; ``stop`` is then set
    (the solvers' interrupt callbacks read it and stop within a fraction of a second), the
    worker is given
    :data:`INTERRUPT_GRACE` seconds, and the interrupt is re-raised.
    """
    done = threading.Event()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["result"] = target()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name="mechdesign-solve", daemon=True).start()
    try:
        while not done.wait(INTERRUPT_POLL):
            pass
    except KeyboardInterrupt:
        stop.set()
        done.wait(INTERRUPT_GRACE)
        raise
    if "error" in box:
        raise box["error"]
    return box["result"]


def highs_run(lp: Any, options: dict, stop: threading.Event, basis: Any = None) -> dict:
    """Solve a ``highspy.HighsLp`` with ``options`` (a bad option is a ValueError, as in
    cvxpy's interface), stopping when ``stop`` is set; the results dict cvxpy's HiGHS
    interface unpacks."""
    import highspy
    h = highspy.Highs()
    for key, value in options.items():
        if h.setOptionValue(key, value) == highspy.HighsStatus.kError:
            raise ValueError(f"HIGHS returned status kError for option (name, value): "
                             f"({key}, {value})")
    h.passModel(lp)
    if basis is not None:
        h.setBasis(basis)

    def check(event: Any) -> None:
        if stop.is_set():
            event.interrupt()

    h.cbSimplexInterrupt += check
    h.cbIpmInterrupt += check
    h.run()
    results = {"solution": h.getSolution(), "basis": h.getBasis(), "info": h.getInfo(),
               "model_status": h.getModelStatus().name, "run_time": h.getRunTime()}
    if results["model_status"] == "kInfeasible":
        results["dual_ray"] = h.getDualRay()
    if results["model_status"] == "kInterrupt":
        raise KeyboardInterrupt
    return results


def _native(prob: cp.Problem, name: str, data: dict, chain: Any, verbose: bool,
            opts: dict, stop: threading.Event, blocks: bool = False) -> Callable[[], Any]:
    """The solver call for ``solve_compiled``: HiGHS through :func:`highs_run`, Clarabel
    built as cvxpy builds it plus a termination callback reading ``stop`` (or, with
    ``blocks``, the block-angular interior point first when the LP has that structure,
    :func:`block_runner`); any other solver (or a data layout this code does not know)
    through cvxpy's own call."""
    from cvxpy import settings as s
    try:
        if name == "HIGHS" and not data.get(s.BOOL_IDX) and not data.get(s.INT_IDX):
            highs = {"log_to_console": verbose, **opts.get("highs_options", {}),
                     **{k: v for k, v in opts.items() if k != "highs_options"}}
            lp = _highs_lp(data)
            return lambda: highs_run(lp, highs, stop)
        if name == "CLARABEL" and s.P not in data:
            import clarabel
            import scipy.sparse as sp
            from cvxpy.reductions.solvers.conic_solvers.clarabel_conif import (
                dims_to_solver_cones,
            )
            from cvxpy.reductions.solvers.conic_solvers.conic_solver import ConicSolver
            q = data[s.C]
            cones = dims_to_solver_cones(data[ConicSolver.DIMS])
            settings = chain.solver.parse_solver_opts(verbose, dict(opts))

            def clarabel_run() -> Any:
                solver = clarabel.DefaultSolver(sp.csc_array((q.size, q.size)), q,
                                                data[s.A], data[s.B], cones, settings)
                solver.set_termination_callback(lambda info: stop.is_set())
                result = solver.solve()
                if stop.is_set():
                    raise KeyboardInterrupt
                return result
            if blocks:
                return block_runner(data, opts.get("time_limit"), stop, clarabel_run,
                                    settings)
            return clarabel_run
    except (ImportError, AttributeError, KeyError, TypeError):
        pass
    return lambda: chain.solve_via_data(prob, data, False, verbose, dict(opts))


BLOCK_IPM_MIN_VARS = 60_000
"""Block-angular LPs with at least this many variables go to the block interior point
(:mod:`mechdesign.design.block_ipm`) before Clarabel. Measured on the symmetry-reduced
1.1-spanner grids, end to end (``benchmarks/README.md``, "Grids at scale"): 20 x 20
(20,100 variables) 5.3 s against Clarabel's 3.8 s, 24 x 24 (41,616) 10.9 s against
11.1 s at twice the memory, 28 x 28 (77,028) 20 s against 30 s, 32 x 32 (131,328) 42 s
against 218 s."""

BLOCK_IPM_GAP = 1e-9
"""Certified relative gap at which the block interior point stops; its answer stands when
its best iterate's certified gap is within :data:`~mechdesign.design.outcome.GAP_TOL`
(else Clarabel solves)."""

BLOCK_IPM_OPTION = "_block_ipm"
"""A private option :meth:`Program.attempts` sets on a default solve: the block interior
point may run first (never when the user named the solver or gave options)."""


def block_runner(data: dict, time_limit: float | None, stop: threading.Event,
                 fallback: Callable[[], Any], settings: Any) -> Callable[[], Any]:
    """The call of :func:`_native` for Clarabel with ``blocks``: when the LP is large and
    block-angular (:func:`~mechdesign.design.block_ipm.find_blocks`), the block interior
    point, whose answer stands only when the rigorous bound of its own duals
    (:class:`~mechdesign.design.bound.LowerBound`, evaluated at its late iterates, the best
    certified one kept) certifies it within :data:`~mechdesign.design.outcome.GAP_TOL`;
    otherwise (or when the structure is absent) Clarabel, with what is left of
    ``time_limit``. The design's own certificate is computed afterwards as for any
    solver."""
    from cvxpy import settings as s
    from cvxpy.reductions.solvers.conic_solvers.conic_solver import dims_to_solver_dict

    from .block_ipm import find_blocks, solve_block_lp
    from .bound import LowerBound, relative_gap
    from .outcome import GAP_FLOOR, GAP_TOL

    dims = dims_to_solver_dict(data[s.DIMS])
    n_eq, n_leq = dims[s.EQ_DIM], dims[s.LEQ_DIM]
    A, b, c = data[s.A], data[s.B], data[s.C]
    if (any(dims.get(key) for key in (s.SOC_DIM, s.EXP_DIM, s.PSD_DIM, "p"))
            or A.shape[1] < BLOCK_IPM_MIN_VARS or n_eq + n_leq != A.shape[0]):
        return fallback
    import scipy.sparse as sp
    A = sp.csr_matrix(A)  # once, for the structure, the method and the bound
    structure = find_blocks(A[n_eq:], n_eq)
    if structure is None:
        return fallback

    def run() -> Any:
        t0 = time.perf_counter()
        deadline = None if time_limit is None else t0 + float(time_limit)
        offset = float(data[s.PARAM_PROB].apply_parameters()[1])
        bound = LowerBound(A, b, c, n_eq, n_leq)

        def certify(x: np.ndarray, z: np.ndarray) -> float:
            return relative_gap(offset + float(c @ x), offset + bound(z), GAP_FLOOR)

        sol = solve_block_lp(c, A, b, n_eq, structure, deadline=deadline, stop=stop.is_set,
                             certify=certify, tol=BLOCK_IPM_GAP)
        if stop.is_set():
            raise KeyboardInterrupt
        if sol.status == "MaxTime":
            return sol
        if sol.gap is not None and sol.gap <= GAP_TOL:
            return sol.certified(sol.gap)
        if time_limit is not None:
            settings.time_limit = max(0.0, float(time_limit) - (time.perf_counter() - t0))
        gap = "no certified iterate" if sol.gap is None else f"best certified gap {sol.gap:.2g}"
        return AfterBlocks(fallback(), (
            f"the block-angular interior point ended {sol.status} after {sol.iterations} "
            f"iterations and {sol.solve_time:.3g} s ({gap}, above the {GAP_TOL:g} "
            "tolerance): Clarabel solved instead"))
    return run


class AfterBlocks:
    """Clarabel's answer after the block interior point fell short: every attribute is
    the answer's (what cvxpy's Clarabel interface reads), plus ``block_note``, what the
    block method did (reported in the result's notes)."""

    def __init__(self, answer: Any, note: str) -> None:
        self._answer, self.block_note = answer, note

    def __getattr__(self, name: str) -> Any:
        return getattr(self._answer, name)


def solve_compiled(prob: cp.Problem, name: str, opts: dict) -> tuple[dict, Any]:
    """``prob.solve(solver=name, **opts)`` in its public steps (compile, solve, unpack),
    the solve interruptible by Ctrl-C (:func:`run_interruptible`); returns the solver's
    problem data and raw answer for :func:`dual_bound`. The private option
    :data:`BLOCK_IPM_OPTION` lets a default Clarabel solve try :func:`block_runner`."""
    opts = dict(opts)
    verbose = bool(opts.pop("verbose", False))
    blocks = bool(opts.pop(BLOCK_IPM_OPTION, False))
    data, chain, inverse = prob.get_problem_data(name, solver_opts=dict(opts))
    stop = threading.Event()
    raw = run_interruptible(_native(prob, name, data, chain, verbose, opts, stop, blocks),
                            stop)
    prob.unpack_results(raw, chain, inverse)
    return data, raw


def dual_bound(prob: cp.Problem, data: dict, raw: Any) -> float | None:
    """A rigorous bound on the optimum of the LP ``prob`` from the solver's raw duals
    (:func:`~mechdesign.design.bound.lp_lower_bound`): a lower bound when minimising, an
    upper bound when maximising. ``None`` when ``prob`` is not an LP, the raw answer
    carries no duals, or the data layout is not the expected one."""
    from cvxpy import settings as s
    from cvxpy.reductions.solvers.conic_solvers.conic_solver import dims_to_solver_dict

    from .bound import lp_lower_bound
    try:
        dims = dims_to_solver_dict(data[s.DIMS])
        if any(dims.get(key) for key in (s.SOC_DIM, s.EXP_DIM, s.PSD_DIM, "p")):
            return None
        if isinstance(raw, dict):  # HiGHS: the Lagrangian sign of cvxpy's own invert
            x = np.asarray(raw["solution"].col_value, dtype=float)
            y = -np.asarray(raw["solution"].row_dual, dtype=float)
        else:  # Clarabel: A x + s = b, s in K, dual z in K*
            x, y = np.asarray(raw.x, dtype=float), np.asarray(raw.z, dtype=float)
        c = np.asarray(data[s.C], dtype=float)
        if prob.value is None or len(x) != len(c) or len(y) != data[s.A].shape[0]:
            return None
        sign = 1.0 if isinstance(prob.objective, cp.Minimize) else -1.0
        # the objective's constant from the data, not prob.value - c x: HiGHS's reported
        # objective differed from c x by 2e-9 (relative) on a solution it had left 3e-9
        # infeasible, and the "bound" then sat above a verified better matrix
        offset = float(data[s.PARAM_PROB].apply_parameters()[1])
        bound = offset + lp_lower_bound(data[s.A], data[s.B], c, dims[s.EQ_DIM],
                                        dims[s.LEQ_DIM], y, data.get(s.LOWER_BOUNDS),
                                        data.get(s.UPPER_BOUNDS))
    except (KeyError, AttributeError, TypeError, ValueError):
        return None
    return sign * bound


# HiGHS simplex, each point of a sweep started from the previous point's optimal basis.
# cvxpy's own warm_start for HiGHS passes the previous *solution* (setSolution), which the
# simplex does not use as a start; the basis cuts the iterations about tenfold.
WARM_HIGHS_OPTIONS = {"solver": "simplex", "simplex_strategy": 4,
                      "primal_feasibility_tolerance": 1e-10,
                      "dual_feasibility_tolerance": 1e-10}
"""HiGHS options of the warm-started sweep: primal simplex (strategy 4), tolerances tightened
from 1e-7 so certification needs no repair."""

WARM_HIGHS_MAX_VARS = 3_000
"""Above this many variables *and* :data:`WARM_HIGHS_MAX_ROWS_PER_VAR` constraint rows per
variable, a default sweep uses Clarabel instead of the warm-started simplex (the simplex
wins on pure-LDP sweeps, Clarabel on metric LPs with many rows per variable;
``benchmarks/frontier_sweep.py``)."""

WARM_HIGHS_MAX_ROWS_PER_VAR = 1.5


def warm_highs_applies(prob: cp.Problem, solver: str | None, options: dict) -> bool:
    """The warm-started HiGHS path: an LP, no user options, solver unset or HiGHS; with the
    solver unset, not a large LP with many rows per variable."""
    if options or (solver is not None and solver.upper() != "HIGHS"):
        return False
    if "HIGHS" not in cp.installed_solvers() or not is_lp(prob):
        return False
    if solver is not None:
        return True
    n_vars = sum(v.size for v in prob.variables())
    n_rows = sum(c.size for c in prob.constraints)
    return n_vars <= WARM_HIGHS_MAX_VARS or n_rows <= WARM_HIGHS_MAX_ROWS_PER_VAR * n_vars


class WarmHighs:
    """Solve a compiled LP with HiGHS simplex from the previous call's optimal basis.

    Called as ``runner(prob)`` in place of ``prob.solve(...)`` (see :meth:`Program.run`).
    The LP data come from cvxpy (``get_problem_data``: with parameters only the parameter
    map is re-applied) and the answer goes back through ``unpack_results``, so values, duals
    and status are set as by ``Problem.solve``. A warm start that ends in any status but
    optimal is re-run cold (a warm start occasionally stops with ``kUnknown``). This uses
    cvxpy's solver-interface data layout; if a cvxpy release changes it, every call raises
    ``cp.SolverError`` and the caller's fallback solver takes over (never a wrong answer:
    values come only through ``unpack_results``).
    """

    def __init__(self) -> None:
        self.basis = None
        self.last: tuple[dict, dict] | None = None  # problem data and raw answer
        self.cold_retries = 0
        self.broken: str | None = None
        self.options = solver_options("HIGHS", {"highs_options": WARM_HIGHS_OPTIONS}
                                      )["highs_options"]  # also silences HiGHS's banner

    def _run(self, lp: object, basis: object) -> dict:
        stop = threading.Event()
        return run_interruptible(lambda: highs_run(lp, self.options, stop, basis), stop)

    def __call__(self, prob: cp.Problem) -> None:
        if self.broken:
            raise cp.SolverError(self.broken)
        try:
            data, chain, inverse = prob.get_problem_data("HIGHS")
            lp = _highs_lp(data)
            results = self._run(lp, self.basis)
            if self.basis is not None and results["model_status"] != "kOptimal":
                self.cold_retries += 1
                results = self._run(lp, None)
            self.basis = results["basis"] if results["model_status"] == "kOptimal" else None
            prob.unpack_results(results, chain, inverse)
            self.last = (data, results)
        except (cp.SolverError, ValueError):
            self.basis = None
            raise
        except (ImportError, KeyError, AttributeError, TypeError, IndexError) as exc:
            self.broken = (f"warm-started HiGHS does not fit this cvxpy "
                           f"{cp.__version__} ({type(exc).__name__}: {exc})")
            raise cp.SolverError(self.broken) from exc


def _highs_lp(data: dict) -> object:
    """cvxpy's HiGHS problem data as a ``highspy.HighsLp`` (as cvxpy's HiGHS interface
    builds it: equalities first, then ``A x <= b``)."""
    import highspy
    from cvxpy import settings as s
    from cvxpy.reductions.solvers.conic_solvers.conic_solver import dims_to_solver_dict
    inf = highspy.kHighsInf
    dims = dims_to_solver_dict(data[s.DIMS])
    A = data[s.A].tocsc()
    n_eq, n_leq = dims[s.EQ_DIM], dims[s.LEQ_DIM]
    upper = np.asarray(data[s.B], dtype=float)
    lower = np.concatenate([upper[:n_eq], np.full(n_leq, -inf)])
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = A.shape[1], A.shape[0]
    lp.offset_ = 0
    lp.col_cost_ = np.asarray(data[s.C], dtype=float)
    lp.row_lower_, lp.row_upper_ = lower, upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_ = A.indptr, A.indices
    lp.a_matrix_.value_ = A.data
    lb, ub = data.get(s.LOWER_BOUNDS), data.get(s.UPPER_BOUNDS)
    lp.col_lower_ = np.full(lp.num_col_, -inf) if lb is None else np.asarray(lb, float)
    lp.col_upper_ = np.full(lp.num_col_, inf) if ub is None else np.asarray(ub, float)
    return lp


@dataclass(frozen=True)
class Run:
    """One solve attempt of a design problem (see :meth:`Program.attempts`).

    ``Q`` is a copy of the solver's matrix (None without a solution), ``solver_value``
    the solver's objective and ``bound`` the independent dual bound, both in the
    objective's units; ``gap`` is the relative gap between them in the compiled units
    (None when no bound could be computed).
    """

    name: str
    status: Any
    error: str
    elapsed: float
    compile_time: float = 0.0
    options: dict = field(default_factory=dict, repr=False)
    Q: np.ndarray | None = field(default=None, repr=False)
    solver_value: float | None = None
    bound: float | None = None
    duals: dict = field(default_factory=dict, repr=False)
    warnings: tuple[str, ...] = ()
    gap: float | None = None
    timed_out: bool = False
    engine: str = ""
    """What actually solved when it is not ``name`` itself (``"BLOCK-IPM"``: the
    block-angular interior point of a default Clarabel solve)."""

    @property
    def label(self) -> str:
        """The solver's name, with the HiGHS algorithm when one was asked for."""
        algorithm = self.options.get("highs_options", {}).get("solver")
        return f"{self.name} {algorithm}" if algorithm else self.name

    def summary(self) -> str:
        gap = "" if self.gap is None else f" (certified gap {self.gap:.2g})"
        return f"{self.label} ended {self.status}{gap} after {self.elapsed:.3g} s"
