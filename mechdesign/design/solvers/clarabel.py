"""Clarabel as mechdesign runs it (tolerances 1e-10, a native call Ctrl-C stops, duals for
the independent bound), and the block-angular interior point
(:mod:`~mechdesign.design.solvers.block_ipm`), which runs first on a default solve of a
large block-angular LP and hands over to Clarabel when its own certificate falls short.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import cvxpy as cp
import numpy as np

from .base import SolverAdapter

__all__ = ["BLOCK_IPM", "BLOCK_IPM_GAP", "BLOCK_IPM_MIN_VARS", "CLARABEL", "AfterBlocks",
           "BlockIPMAdapter", "ClarabelAdapter", "block_runner"]

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


class ClarabelAdapter(SolverAdapter):
    """Clarabel: gap and feasibility tolerances 1e-10 unless the user sets them (measured
    little slower than the default 1e-8, and the optimum needs no repair, where at 1e-8
    certification had to repair: ``benchmarks/README.md``, "Measurements behind the
    library's constants"); settings checked against ``clarabel.DefaultSettings``."""

    checks_options = True

    def __init__(self) -> None:
        super().__init__("CLARABEL", time_limit_key="time_limit")

    def settings(self, options: dict, time_limit: float | None) -> dict:
        opts = super().settings(options, time_limit)
        for key in ("tol_gap_abs", "tol_gap_rel", "tol_feas"):
            opts.setdefault(key, 1e-10)
        return opts

    def option_problem(self, key: str, value: Any) -> str | None:
        return _clarabel_option_problem(key, value)

    def call(self, prob: cp.Problem, data: dict, chain: Any, verbose: bool, opts: dict,
             stop: threading.Event) -> Callable[[], Any] | None:
        built = self._native(data, chain, verbose, opts, stop)
        return None if built is None else built[0]

    @staticmethod
    def _native(data: dict, chain: Any, verbose: bool, opts: dict, stop: threading.Event
                ) -> tuple[Callable[[], Any], Any] | None:
        """Clarabel built as cvxpy builds it plus a termination callback reading ``stop``,
        and its settings object (None for a quadratic objective: cvxpy's own call)."""
        from cvxpy import settings as s
        if s.P in data:
            return None
        import clarabel
        import scipy.sparse as sp
        from cvxpy.reductions.solvers.conic_solvers.clarabel_conif import dims_to_solver_cones
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
        return clarabel_run, settings

    def primal_dual(self, raw: Any) -> tuple[np.ndarray, np.ndarray] | None:
        if isinstance(raw, dict) or not hasattr(raw, "x") or not hasattr(raw, "z"):
            return None
        return np.asarray(raw.x, dtype=float), np.asarray(raw.z, dtype=float)

    def fallback(self, lp: bool) -> str | None:
        return "HIGHS" if lp else "SCS"


class BlockIPMAdapter(ClarabelAdapter):
    """The block-angular interior point, with Clarabel behind it: on an LP of at least
    :data:`BLOCK_IPM_MIN_VARS` variables whose rows split into blocks
    (:func:`~mechdesign.design.solvers.block_ipm.find_blocks`), it runs first and its answer
    stands only when certified (:func:`block_runner`); otherwise Clarabel solves. Its
    problem data and options are Clarabel's, so it is used for a default (unnamed, option-
    free) Clarabel solve of an LP (:meth:`Program.attempts
    <mechdesign.design.program.Program.attempts>`)."""

    label = "BLOCK-IPM"

    def call(self, prob: cp.Problem, data: dict, chain: Any, verbose: bool, opts: dict,
             stop: threading.Event) -> Callable[[], Any] | None:
        built = self._native(data, chain, verbose, opts, stop)
        if built is None:
            return None
        return block_runner(data, opts.get("time_limit"), stop, *built)


CLARABEL = ClarabelAdapter()
"""The Clarabel adapter."""

BLOCK_IPM = BlockIPMAdapter()
"""The block interior point's adapter (Clarabel's data and options)."""


BLOCK_IPM_MIN_VARS = 60_000
"""Block-angular LPs with at least this many variables go to the block interior point
(:mod:`mechdesign.design.solvers.block_ipm`) before Clarabel. Measured on the symmetry-reduced
1.1-spanner grids, end to end (``benchmarks/design_scaling.py --only grids``; numbers in
``benchmarks/README.md``, "Grids at scale"): below this size, on the 20 x 20 (20,100
variables) and 24 x 24 (41,616) grids, Clarabel is as fast or faster and needs less memory;
above it, on 28 x 28 (77,028) and 32 x 32 (131,328), the block method is faster, by more on
the larger grid."""

BLOCK_IPM_GAP = 1e-9
"""Certified relative gap at which the block interior point stops; its answer stands when
its best iterate's certified gap is within :data:`~mechdesign.design.bound.GAP_TOL`
(else Clarabel solves)."""


def block_runner(data: dict, time_limit: float | None, stop: threading.Event,
                 fallback: Callable[[], Any], settings: Any) -> Callable[[], Any]:
    """The call of :class:`BlockIPMAdapter`: when the LP is large and
    block-angular (:func:`~mechdesign.design.solvers.block_ipm.find_blocks`), the block interior
    point, whose answer stands only when the rigorous bound of its own duals
    (:class:`~mechdesign.design.bound.LowerBound`, evaluated at its late iterates, the best
    certified one kept) certifies it within :data:`~mechdesign.design.bound.GAP_TOL`;
    otherwise (or when the structure is absent) Clarabel, with what is left of
    ``time_limit``. The design's own certificate is computed afterwards as for any
    solver."""
    from cvxpy import settings as s
    from cvxpy.reductions.solvers.conic_solvers.conic_solver import dims_to_solver_dict

    from ..bound import GAP_FLOOR, GAP_TOL, LowerBound, relative_gap
    from .block_ipm import find_blocks, solve_block_lp

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
