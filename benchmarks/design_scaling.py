"""Design scaling: mechdesign's design layer against the naive formulation, side by side.

Five sections, the first four measured in this one process (formulations
in ``docs/formulations.md``), the fifth in one fresh subprocess per run:

1. ``ldp``: pure eps-LDP with an arbitrary loss (uniform random k x k loss, seed 0, uniform
   prior, eps = 1). Ours, ``DesignProblem(LDP, ExpectedLoss).solve()`` end to end (build,
   solve, clean, re-measure, repair), against the NAIVE pairwise cvxpy LP written below
   (``Q[x, :] <= e^eps Q[x', :]`` for every ordered pair, rows sum to 1, same objective),
   solved by HiGHS with its default algorithm (what a user calling ``solve(solver="HIGHS")``
   gets) and, to separate formulation from algorithm, with HiGHS interior point. Then ours
   alone at larger k.
2. ``solvers``: the pure-LDP LP of section 1 through ``DesignProblem.solve(solver=...)``
   with each solver (the measurement behind ``mechdesign/design/solvers/__init__.py``), and the
   same for a metric privacy LP (10 x 10 grid, 1.1-spanner).
3. ``metric``: geo-indistinguishability on n x n grids (Euclidean distance, eps = 1 per
   unit, uniform prior, loss = Euclidean distance, outputs = the grid points): all pairs
   (exact), greedy t-spanners (t = 1.05, 1.1, 1.2), and the grid as a networkx graph with
   unit edges (Manhattan metric, exact on its edges); then the same problems reduced by
   the grid's 8 symmetries (``symmetry=grid_symmetries(n, n)``), side by side.
4. ``estimation``: ``EstimationVariance`` (A-criterion, eps = 1) with a non-uniform prior
   (pi_i proportional to 1/i: the general staircase convex program over 2^k - 1 patterns,
   by column generation from k = 9, beside the full program up to k = 11)
   and with a uniform prior (the symmetric closed form, subset selection), with the
   reference values of the formula sheet.
5. ``memory``: the measurement behind ``BYTES_PER_NONZERO`` and ``MEMORY_BUDGET`` in
   ``mechdesign/design/solvers/run.py`` (the estimate ``check_memory`` uses to refuse designs
   before building). Pure LDP with ExpectedLoss on section 1's random loss, solved with
   HiGHS and with Clarabel, each run in a fresh ``python -c`` subprocess: its peak RSS
   after the solve minus its peak RSS after the imports and a k = 5 warm-up solve of the
   same solver, per estimated constraint nonzero (the library's own estimate,
   ``estimated_nonzeros(LDP, k x k) + k k``), beside the library's constant; then the largest k the
   budget admits and the peak extrapolated to it.

Times are wall-clock seconds (``time.perf_counter``). Tables go to stdout, progress to
stderr. HiGHS prints a banner on stdout at the first ``Highs()`` of a process whatever its
``output_flag``; a warm-up solve (which also pays the import and first-call costs of cvxpy
and the solvers) runs with stdout sent to stderr so that the tables stay clean.

    python benchmarks/design_scaling.py            # full run (about 45 minutes on 2 cores)
    python benchmarks/design_scaling.py --quick    # smoke run, under a minute
    python benchmarks/design_scaling.py --only metric
    python benchmarks/design_scaling.py --only memory   # section 5 alone (a few minutes)
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from importlib.metadata import version

import cvxpy as cp
import networkx as nx
import numpy as np

from mechdesign.design import DesignProblem, EstimationVariance, ExpectedLoss
from mechdesign.design.engines import staircase
from mechdesign.design.engines.staircase import solve_estimation
from mechdesign.design.formulations import BuildContext, estimated_nonzeros
from mechdesign.design.result import DesignResult
from mechdesign.design.solvers import (
    BYTES_PER_NONZERO,
    LP_CLARABEL_ABOVE,
    MEMORY_BUDGET,
    check_memory,
)
from mechdesign.design.symmetry import grid_symmetries
from mechdesign.errors import MechdesignError, SizeLimitError
from mechdesign.neighbors import greedy_spanner
from mechdesign.privacy import LDP, MetricDP

EPS = 1.0
NAIVE_TIME_LIMIT = 600.0
"""Seconds; the naive LP is stopped (and reported as capped) beyond this."""
VALUE_RTOL = 1e-6
"""Largest relative |value difference| accepted between ours and the naive optimum."""

_T0 = time.perf_counter()


# ---------------------------------------------------------------------------- helpers
def progress(msg: str) -> None:
    print(f"[{time.perf_counter() - _T0:7.1f} s] {msg}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send file descriptor 1 to 2 (C-level prints such as the HiGHS banner)."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def table(title: str, headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    cells = [[str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h)
              for i, h in enumerate(headers)]
    print(f"\n{title}")
    print("  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for r in cells:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    sys.stdout.flush()


def fs(x: float | None) -> str:
    """Seconds, 3 significant digits."""
    return "-" if x is None else f"{x:.3g}"


def fv(x: float | None, digits: int = 10) -> str:
    return "-" if x is None else f"{x:.{digits}g}"


def fe(x: float | None) -> str:
    return "-" if x is None else f"{x:.1e}"


def uniform(k: int) -> np.ndarray:
    return np.full(k, 1.0 / k)


def timed(fn: Callable[[], DesignResult]) -> tuple[float, DesignResult]:
    t = time.perf_counter()
    res = fn()
    return time.perf_counter() - t, res


def certify_time(total: float, res: DesignResult) -> float:
    """End-to-end time minus the build and the (cvxpy + solver) solve: certification."""
    return max(total - res.build_time - res.solve_time, 0.0)


def repair(res: DesignResult) -> str:
    """How the certificate mended the cleaned matrix, and by how much."""
    cert = res.certificate
    if cert is None:
        return "-"
    return cert.repair if cert.repair == "none" else f"{cert.repair} {cert.repair_weight:.1e}"


def rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-300)


# ---------------------------------------------------------------------------- section 1
def random_loss(k: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(size=(k, k))


def ours_ldp(L: np.ndarray, solver: str | None = None, **options: object
             ) -> tuple[float, DesignResult]:
    k = L.shape[0]
    return timed(lambda: DesignProblem(privacy=LDP(EPS), objective=ExpectedLoss(L, uniform(k))
                                       ).solve(solver=solver, **options))


def naive_ldp(L: np.ndarray, highs_options: dict | None = None,
              time_limit: float = NAIVE_TIME_LIMIT, solver: str = "HIGHS"
              ) -> tuple[float, float | None, str]:
    """The hand-written pairwise LP: k (k - 1) vector constraints, one per ordered pair,
    solved by HiGHS (with ``highs_options``) or by Clarabel.

    Returns (seconds including cvxpy's compilation, optimal value or None, status).
    """
    t = time.perf_counter()
    k, m = L.shape
    prior = uniform(k)
    e = math.exp(EPS)
    Q = cp.Variable((k, m), nonneg=True)
    cons = [cp.sum(Q, axis=1) == 1]
    for x in range(k):
        for x2 in range(k):
            if x != x2:
                cons.append(Q[x, :] <= e * Q[x2, :])
    prob = cp.Problem(cp.Minimize(cp.sum(cp.multiply(prior[:, None] * L, Q))), cons)
    opts = {"output_flag": False, "time_limit": time_limit, **(highs_options or {})}
    try:
        if solver == "CLARABEL":
            prob.solve(solver="CLARABEL", time_limit=time_limit)
        else:
            prob.solve(solver="HIGHS", highs_options=opts)
        status = prob.status
    except cp.SolverError as exc:
        status = f"solver error ({exc})"
    elapsed = time.perf_counter() - t
    if elapsed >= time_limit:
        status = f"capped at {time_limit:g} s ({status})"
    value = float(prob.value) if status == cp.OPTIMAL else None
    return elapsed, value, status


def section_ldp(quick: bool) -> None:
    print("\n== 1. Pure LDP, arbitrary loss: ours vs the naive pairwise cvxpy LP ==")
    print(f"eps = {EPS:g}, k x k uniform(0, 1) loss (seed 0), uniform prior. 'ours' is "
          "DesignProblem(LDP, ExpectedLoss).solve() end to end\n(build, solve, certify); "
          "'naive' is the pairwise LP (k(k-1) vector constraints) including cvxpy's "
          "compilation,\nsolved by HiGHS with its default algorithm, by HiGHS ipm, and by the "
          "solver ours used (like for like). "
          f"Naive runs are capped at {NAIVE_TIME_LIMIT:g} s.")
    ks = [10, 20, 30] if quick else [10, 20, 30, 45, 60]
    rows = []
    for k in ks:
        L = random_loss(k)
        progress(f"ldp k={k}: ours")
        t_ours, res = ours_ldp(L)
        progress(f"ldp k={k}: naive, HiGHS default")
        t_nd, v_nd, s_nd = naive_ldp(L)
        progress(f"ldp k={k}: naive, HiGHS ipm")
        t_ni, v_ni, s_ni = naive_ldp(L, {"solver": "ipm"})
        # like for like: the naive LP with the solver ours used
        if res.solver == "CLARABEL":
            progress(f"ldp k={k}: naive, Clarabel")
            t_ns, _, _ = naive_ldp(L, solver="CLARABEL")
        else:
            t_ns = t_ni  # ours used HiGHS ipm (the default below 2,000 variables)
        diff = None if v_nd is None else rel(res.value, v_nd)
        diff_i = None if v_ni is None else rel(res.value, v_ni)
        worst = max(d for d in (diff, diff_i) if d is not None) if (
            diff is not None or diff_i is not None) else None
        rows.append([k, fs(t_ours), res.solver, fs(t_nd), f"{t_nd / t_ours:.0f}x",
                     fs(t_ni), f"{t_ni / t_ours:.0f}x", fs(t_ns), f"{t_ns / t_ours:.0f}x",
                     fv(res.value), fe(worst),
                     "yes" if worst is not None and worst < VALUE_RTOL else "NO",
                     # blank when both naive runs are optimal
                     "" if s_nd == cp.OPTIMAL and s_ni == cp.OPTIMAL else f"{s_nd}; {s_ni}"])
    table("1a. side by side (seconds; ratio = naive / ours)",
          ["k", "ours s", "ours solver", "naive HiGHS s", "ratio", "naive HiGHS-ipm s",
           "ratio", "naive, ours' solver s", "ratio", "value (ours)", "|rel diff|", "< 1e-6",
           "naive status"], rows)

    rows = []
    for k in ([100, 200] if quick else [100, 200, 400]):
        progress(f"ldp k={k}: ours alone")
        total, res = ours_ldp(random_loss(k))
        cert = res.certificate
        rows.append([k, k * k + k, fs(total), fs(res.build_time), fs(res.solve_time),
                     fs(certify_time(total, res)), res.solver, fv(res.value),
                     fv(res.solver_value), fe(rel(res.value, res.solver_value)),
                     repair(res), fe(cert.achieved - EPS), str(res.status)])
    table("1b. ours alone (value = objective of the returned, certified matrix; "
          "solver value = the LP optimum the solver reported)",
          ["k", "variables", "total s", "build s", "solve s", "certify s", "solver", "value",
           "solver value", "|value/solver - 1|", "repair", "eps achieved - eps",
           "status"], rows)


# ---------------------------------------------------------------------------- section 2
TIGHT = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}
SOLVER_CONFIGS: list[tuple[str, str | None, dict]] = [
    ("default (solver=None)", None, {}),
    ("HiGHS ipm + crossover", "HIGHS", {"highs_options": {"solver": "ipm"}}),
    ("HiGHS ipm, no crossover", "HIGHS",
     {"highs_options": {"solver": "ipm", "run_crossover": "off"}}),
    ("HiGHS simplex", "HIGHS", {"highs_options": {"solver": "simplex"}}),
    ("Clarabel", "CLARABEL", {}),
    ("Clarabel tol 1e-10", "CLARABEL", TIGHT),
]


def solver_rows(label: str, make: Callable[[], DesignProblem],
                configs: Sequence[tuple[str, str | None, dict]]) -> list[list[str]]:
    results = []
    for name, solver, opts in configs:
        progress(f"solvers {label}: {name}")
        total, res = timed(lambda s=solver, o=opts: make().solve(solver=s, **o))
        results.append((name, total, res))
    best = min(r.value for _, _, r in results if r.value is not None)
    rows = []
    for name, total, res in results:
        cert = res.certificate
        rows.append([label, name, res.solver, fs(total), fs(res.solve_time), fv(res.value),
                     "-" if res.value is None else fe((res.value - best) / best),
                     repair(res), "-" if cert is None else fe(cert.achieved - cert.target),
                     str(res.status)])
    return rows


def grid_points(n: int) -> np.ndarray:
    return np.array([(i, j) for i in range(n) for j in range(n)], dtype=float)


def euclid(n: int) -> np.ndarray:
    P = grid_points(n)
    return np.sqrt(((P[:, None, :] - P[None, :, :]) ** 2).sum(-1))


def section_solvers(quick: bool) -> None:
    print("\n== 2. Solver choice on the pure-LDP design LP (section 1's problem) ==")
    print(f"DesignProblem(LDP({EPS:g}), ExpectedLoss(random k x k loss)).solve(solver=...); "
          f"variables = k^2 + k (offset form). Current rule: HiGHS ipm up to "
          f"LP_CLARABEL_ABOVE = {LP_CLARABEL_ABOVE} variables, Clarabel above.\n"
          "gap to best = value / (smallest certified value in the group) - 1; "
          "'Clarabel tol 1e-10' passes tol_gap_abs = tol_gap_rel = tol_feas = 1e-10.")
    rows = []
    for k in ([60] if quick else [60, 100, 200]):
        L = random_loss(k)
        rows += solver_rows(f"LDP k={k} ({k * k + k} vars)", lambda L=L: DesignProblem(
            privacy=LDP(EPS), objective=ExpectedLoss(L, uniform(len(L)))), SOLVER_CONFIGS)
    n = 6 if quick else 10
    D = euclid(n)
    rows += solver_rows(f"metric {n}x{n} 1.1-spanner ({n ** 4} vars)", lambda: DesignProblem(
        privacy=MetricDP(EPS, D, spanner=1.1), objective=ExpectedLoss(D, uniform(n * n))),
        SOLVER_CONFIGS)
    table("2. solver choice (seconds: total end to end, and the cvxpy + solver part)",
          ["problem", "configuration", "solver", "total s", "solve s", "value",
           "gap to best", "repair", "achieved - target", "status"], rows)


# ---------------------------------------------------------------------------- section 3
def parse_notes(res: DesignResult) -> tuple[str, str]:
    text = " ".join(res.notes)
    pairs = re.search(r"(\d+) (?:constrained )?pairs", text)
    dil = re.search(r"dilation ([0-9.]+)", text)
    return (pairs.group(1) if pairs else "-"), (dil.group(1) if dil else "1")


def metric_problem(n: int, mode: str, sym: bool = False) -> DesignProblem:
    D = euclid(n)
    k = n * n
    obj = ExpectedLoss(D, uniform(k))
    symmetry = grid_symmetries(n, n) if sym else None
    if mode == "exact":
        return DesignProblem(privacy=MetricDP(EPS, D), objective=obj, symmetry=symmetry)
    if mode == "graph":
        G = nx.grid_2d_graph(n, n)
        nodes = [(i, j) for i in range(n) for j in range(n)]
        return DesignProblem(privacy=MetricDP(EPS, G), objective=obj, inputs=nodes,
                             symmetry=symmetry)
    return DesignProblem(privacy=MetricDP(EPS, D, spanner=float(mode)), objective=obj,
                         symmetry=symmetry)


def section_metric(quick: bool) -> None:
    print("\n== 3. Metric privacy (geo-indistinguishability) on n x n grids ==")
    print(f"eps = {EPS:g} per unit, Euclidean distance between grid points, uniform prior, "
          "loss = Euclidean distance (outputs = the grid points), default solver.\n"
          "exact = every pair constrained; t = greedy t-spanner (eps divided by its measured "
          "dilation); graph = nx.grid_2d_graph with unit edges\n(the Manhattan metric, exact "
          "on its edges: a different, weaker privacy notion than Euclidean, so its value is "
          "not an approximation of 'exact').\ngap vs exact = value / exact value - 1 at the "
          "same n.")
    if quick:
        plan = {"exact": [3, 4, 5], "1.1": [3, 4, 5, 6], "1.05": [4, 5], "1.2": [4],
                "graph": [3, 4, 5, 6]}
    else:
        plan = {"exact": [3, 4, 5, 6, 7, 8, 10, 12], "1.1": [3, 4, 5, 6, 7, 8, 10, 12, 16, 20],
                "1.05": [3, 4, 5, 6, 7, 8, 10, 12], "1.2": [4, 6, 8],
                "graph": [3, 4, 5, 6, 7, 8, 12, 16, 20]}
    sizes = sorted({n for ns in plan.values() for n in ns})
    rows = []
    for n in sizes:
        D = euclid(n)
        row: list[object] = [f"{n}x{n}", n * n, n * n * (n * n - 1) // 2]
        for t in (1.05, 1.1, 1.2, 1.5):
            es, dil = greedy_spanner(D, t)
            row.append(f"{len(es)} ({dil:.4f})")
        rows.append(row)
    table("3a. constrained pairs: all pairs, and greedy t-spanners (pairs (measured dilation))",
          ["grid", "k", "all pairs", "t=1.05", "t=1.1", "t=1.2", "t=1.5"], rows)

    exact: dict[int, float] = {}
    full: dict[tuple[int, str], tuple[float, float]] = {}
    rows = []
    for mode in ("exact", "1.05", "1.1", "1.2", "graph"):
        for n in plan[mode]:
            progress(f"metric {n}x{n}: {mode}")
            total, res = timed(lambda n=n, mode=mode: metric_problem(n, mode).solve())
            full[n, mode] = (total, res.value)
            if mode == "exact":
                exact[n] = res.value
            pairs, dil = parse_notes(res)
            gap = f"{100 * (res.value / exact[n] - 1):+.2f}%" if n in exact else "-"
            rows.append([f"{n}x{n}", mode, pairs, dil, fs(total), fs(res.solve_time),
                         fs(certify_time(total, res)), res.solver, fv(res.value, 8), gap,
                         repair(res), str(res.status)])
    table("3b. metric privacy designs (seconds)",
          ["grid", "mode", "pairs", "dilation", "total s", "solve s", "certify s", "solver",
           "value", "gap vs exact", "repair", "status"], rows)

    # 3c: the same problems with symmetry=grid_symmetries(n, n) (the 8 symmetries of the
    # square): one variable per orbit of entries; side by side with 3b's unreduced run
    sym_plan = ({"exact": [5], "1.1": [6], "graph": [6]} if quick else
                {"exact": [8, 10, 12], "1.05": [12, 16, 20], "1.1": [10, 12, 16, 20],
                 "graph": [12, 16, 20]})
    rows = []
    for mode, ns in sym_plan.items():
        for n in ns:
            progress(f"metric {n}x{n}: {mode}, symmetry-reduced")
            total, res = timed(lambda n=n, mode=mode: metric_problem(n, mode, True).solve())
            note = " ".join(res.notes)
            orbits = re.search(r"(\d+) orbit variables", note)
            prow = re.search(r"(\d+) privacy rows", note)
            base = full.get((n, mode))
            rows.append([f"{n}x{n}", mode, orbits.group(1) if orbits else "-",
                         prow.group(1) if prow else "-", fs(total), fs(res.solve_time),
                         res.solver, fv(res.value, 8),
                         fs(base[0]) if base else "-",
                         f"{base[0] / total:.0f}x" if base else "-",
                         fe(abs(res.value / base[1] - 1)) if base else "-",
                         repair(res), str(res.status)])
    table("3c. symmetry reduction (8 grid symmetries; seconds; full = the unreduced run of 3b)",
          ["grid", "mode", "orbit vars", "privacy rows", "total s", "solve s", "solver",
           "value", "full s", "ratio", "|rel diff|", "repair", "status"], rows)


# ---------------------------------------------------------------------------- section 4
def zipf_prior(k: int) -> np.ndarray:
    p = 1.0 / np.arange(1, k + 1)
    return p / p.sum()


def n_outputs(res: DesignResult) -> str:
    try:
        return str(res.mechanism.n_outputs)
    except MechdesignError as exc:
        return f"no mechanism ({exc})"


def section_estimation(quick: bool) -> None:
    print("\n== 4. Estimation design: EstimationVariance (A-criterion: trace of the "
          "Cramer-Rao bound per report), pure LDP ==")
    rows = []
    for k in (range(4, 10) if quick else range(4, 15)):
        progress(f"estimation general k={k}")
        obj = EstimationVariance(zipf_prior(k))
        total, res = timed(lambda obj=obj: DesignProblem(privacy=LDP(EPS), objective=obj)
                           .solve())
        cg = re.search(r"column generation: (\d+) of \d+ patterns in (\d+) rounds",
                       res.formulation)
        full_s, ratio, diff = "-", "-", "-"
        if cg and k <= (9 if quick else 11):
            # the full program over every pattern, side by side (column generation off)
            progress(f"estimation general k={k}: full program")
            saved = staircase.COLUMN_GENERATION_ABOVE
            staircase.COLUMN_GENERATION_ABOVE = 1 << 30
            try:
                t_full, full = timed(lambda obj=obj: DesignProblem(
                    privacy=LDP(EPS), objective=obj).solve())
            finally:
                staircase.COLUMN_GENERATION_ABOVE = saved
            full_s, ratio = fs(t_full), f"{t_full / total:.1f}x"
            diff = f"{res.value / full.value - 1:+.1e}"
        rows.append([k, (1 << k) - 1, cg.group(1) if cg else "all",
                     cg.group(2) if cg else "1", fs(total), fv(res.value),
                     fe(rel(res.value, res.solver_value)), n_outputs(res), repair(res),
                     str(res.status), full_s, ratio, diff])
    table(f"4a. non-uniform prior pi_i ~ 1/i, eps = {EPS:g}: general staircase convex program "
          f"(column generation above {staircase.COLUMN_GENERATION_ABOVE} patterns; 'full' = "
          "every pattern, side by side; value diff = ours / full - 1 on the returned "
          "matrices)",
          ["k", "patterns", "used", "rounds", "total s", "value", "|value/solver - 1|",
           "outputs", "repair", "status", "full s", "ratio", "value diff"], rows)

    rows = []
    for k in (4, 6, 8):
        progress(f"estimation cross-check k={k}")
        t = time.perf_counter()
        general = solve_estimation(EstimationVariance(uniform(k)), EPS).value
        t_general = time.perf_counter() - t
        total, res = timed(lambda k=k: DesignProblem(
            privacy=LDP(EPS), objective=EstimationVariance(uniform(k))).solve())
        rows.append([k, fs(t_general), fv(general), fs(total), fv(res.value),
                     res.structure.get("d"), fe(rel(general, res.value))])
    table("4b. uniform prior, cross-check: general staircase program (staircase."
          "solve_estimation, forced) vs symmetric closed form",
          ["k", "general s", "general value", "closed form s", "closed form value", "d",
           "|rel diff|"], rows)

    cases = [(2, EPS), (10, 0.5), (20, 1.0), (50, EPS), (100, EPS), (200, EPS), (500, EPS),
             (1000, EPS), (1000, 0.5)]
    refs = {(2, 1.0): 2.341347, (10, 0.5): 127.2172, (20, 1.0): 66.6344}
    rows = []
    for k, eps in cases:
        progress(f"estimation symmetric k={k}, eps={eps:g}")
        total, res = timed(lambda k=k, eps=eps: DesignProblem(
            privacy=LDP(eps), objective=EstimationVariance(uniform(k))).solve())
        try:
            built = f"{res.mechanism.n_outputs} outputs"
        except MechdesignError:
            built = f"value only (C({k}, {res.structure['d']}) outputs)"
        ref = refs.get((k, eps))
        check = "-" if ref is None else (
            f"{ref} {'ok' if round(res.value, 6 if k == 2 else 4) == ref else 'MISMATCH'}")
        rows.append([k, f"{eps:g}", fs(total), res.structure.get("d"), fv(res.value), check,
                     built, res.solver])
    table("4c. uniform prior: symmetric reduction (d-subset selection, closed form over d)",
          ["k", "eps", "total s", "d", "value", "reference (docs/formulations.md)",
           "matrix", "solver"], rows)


# ---------------------------------------------------------------------------- section 5
MEMORY_MARK = "MEMORY_RESULT "
"""Prefix of the one JSON line a memory child prints (HiGHS may print on stdout too)."""
MEMORY_TIMEOUT = 3600.0
"""Seconds; a memory child still running after this is stopped and reported as failed."""

# Run as ``python -c MEMORY_CHILD <benchmarks dir> <solver> <k>``. ru_maxrss is the
# process's high-water mark (KiB on Linux): the baseline is taken after the imports, the
# loss matrix (the user's input, k^2 floats) and a k = 5 warm-up solve of the same solver;
# the peak right after the measured solve (build, compile, solve, certify). cvxpy's
# constraint matrix is compiled again only after the peak has been read.
MEMORY_CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
import cvxpy as cp
import numpy as np
import mechdesign as md
from design_scaling import MEMORY_MARK, random_loss
solver, k = sys.argv[2], int(sys.argv[3])
def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(random_loss(5))).solve(solver=solver)
L = random_loss(k)
base = peak()
t = time.perf_counter()
res = md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(L)).solve(solver=solver)
seconds = time.perf_counter() - t
top = peak()
prob = md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(L)).compile().prob
nnz = int(prob.get_problem_data(solver)[0]["A"].nnz)
print(MEMORY_MARK + json.dumps({"k": k, "solver": solver, "base": base, "peak": top,
      "seconds": seconds, "nnz": nnz, "used": res.solver, "status": str(res.status),
      "numpy": np.__version__, "cvxpy": cp.__version__}), flush=True)
"""


def estimated_nnz(k: int) -> int:
    """The library's estimate for a k x k pure-LDP design (as ``DesignProblem.feasible_set``
    forms it: the notion's privacy nonzeros plus k n for the rows)."""
    return estimated_nonzeros(LDP(EPS), BuildContext(k, k, tuple(range(k)))) + k * k


def memory_child(solver: str, k: int) -> dict:
    """One fresh process: the result line it printed, or ``{"error": ...}``."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        proc = subprocess.run([sys.executable, "-c", MEMORY_CHILD, here, solver, str(k)],
                              capture_output=True, text=True, timeout=MEMORY_TIMEOUT)
    except subprocess.TimeoutExpired:
        return {"error": f"stopped after {MEMORY_TIMEOUT:g} s"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(MEMORY_MARK)]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"exit {proc.returncode}: {tail}"}
    return json.loads(lines[-1][len(MEMORY_MARK):])


def largest_admitted_k(limit: int = 1 << 20) -> int:
    """The largest k whose k x k pure-LDP design ``check_memory`` lets through (bisection;
    the estimate grows with k)."""
    lo, hi = 1, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        try:
            check_memory(estimated_nnz(mid), "probe")
            lo = mid
        except SizeLimitError:
            hi = mid - 1
    return lo


def section_memory(quick: bool) -> None:
    print("\n== 5. Memory per constraint nonzero: the constants of "
          "mechdesign/design/solvers/run.py ==")
    print(f"DesignProblem(LDP({EPS:g}), ExpectedLoss(random k x k loss)).solve(solver=...), "
          "each run in a fresh subprocess. peak = the child's ru_maxrss after the solve minus "
          "its ru_maxrss after\nthe imports, the loss and a k = 5 warm-up solve of the same "
          "solver (MiB = 2^20 B). est. nnz = estimated_nonzeros(LDP, k x k) + k^2 (what "
          "check_memory "
          "is given);\ncvxpy nnz = nonzeros of cvxpy's compiled constraint matrix for that "
          f"solver. margin = BYTES_PER_NONZERO ({BYTES_PER_NONZERO:,} B) / measured B per "
          "est. nnz (> 1: the constant\ncovers the run); constant B = that constant, side by side.")
    rows = []
    worst, base_max = 0.0, 0
    measured: dict[str, list[tuple[int, int]]] = {}
    for k in ([60, 100] if quick else [100, 200, 300, 400]):
        for solver in ("HIGHS", "CLARABEL"):
            progress(f"memory k={k}: {solver} (fresh process)")
            r = memory_child(solver, k)
            est = estimated_nnz(k)
            if "error" in r:
                rows.append([k, solver, f"{est:,}", "-", "-", "-", "-", f"{BYTES_PER_NONZERO:,}",
                             "-", "-", r["error"]])
                continue
            above = max(r["peak"] - r["base"], 0)
            per = above / est
            worst = max(worst, per)
            if above > 0:
                measured.setdefault(solver, []).append((est, above))
            used = r["status"] if r["used"] == solver else f"{r['status']} ({r['used']})"
            base_max = max(base_max, r["base"])
            rows.append([k, solver, f"{est:,}", f"{r['nnz']:,}", f"{r['base'] / 2**20:.0f}",
                         f"{above / 2**20:.1f}", f"{per:.0f}", f"{BYTES_PER_NONZERO:,}",
                         f"{BYTES_PER_NONZERO / per:.1f}x" if per > 0 else "inf",
                         fs(r["seconds"]), used])
    table("5a. peak memory above the warmed-up baseline, per estimated nonzero",
          ["k", "solver", "est. nnz", "cvxpy nnz", "baseline MiB", "above baseline MiB",
           "B / est. nnz", "constant B", "margin", "solve s", "status"], rows)
    k_max = largest_admitted_k()
    est = estimated_nnz(k_max)
    print(f"\n5b. MEMORY_BUDGET = {MEMORY_BUDGET / 2**30:g} GiB at BYTES_PER_NONZERO = "
          f"{BYTES_PER_NONZERO:,} B admits pure LDP up to k = m = {k_max:,} "
          f"({est:,} estimated nonzeros, {est * BYTES_PER_NONZERO / 2**30:.2f} GiB by the "
          "constant).")
    if worst > 0:
        print(f"    Extrapolated at k = {k_max:,} from the largest measured "
              f"{worst:.0f} B / est. nnz: {est * worst / 2**30:.2f} GiB above the baseline "
              f"({est * worst / MEMORY_BUDGET:.0%} of MEMORY_BUDGET), "
              f"{(est * worst + base_max) / 2**30:.2f} GiB with the largest baseline.")
    # B / nnz grows with k (fill-in): also a power law through each solver's two largest runs
    for solver, points in measured.items():
        if len(points) < 2:
            continue
        (e1, a1), (e2, a2) = points[-2:]
        power = math.log(a2 / a1) / math.log(e2 / e1)
        need = a2 * (est / e2) ** power
        print(f"    {solver}: peak ~ nnz^{power:.2f} through its two largest runs; at k = "
              f"{k_max:,}: {need / 2**30:.2f} GiB above the baseline, {need / est:.0f} B / "
              f"est. nnz (margin {BYTES_PER_NONZERO * est / need:.1f}x).")
    sys.stdout.flush()


# ---------------------------------------------------------------------------- section 6
GRID_CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[4])
import mechdesign as md
from design_scaling import euclid, metric_problem
from mechdesign.neighbors import greedy_spanner
n, sym, limit = int(sys.argv[1]), sys.argv[2] == "1", float(sys.argv[3])
solver = sys.argv[5] or None
prob = metric_problem(n, "1.1", sym)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
edges, dil = greedy_spanner(euclid(n), 1.1)
spanner_s = time.perf_counter() - t
t = time.perf_counter()
try:
    res = prob.solve(solver, time_limit=limit)
    out = {"status": res.status.value, "value": res.value, "gap": res.gap,
           "solver": res.solver, "solve_s": res.solve_time,
           "notes": " ".join(res.notes)}
except md.MechdesignError as exc:
    out = {"status": type(exc).__name__, "error": str(exc)[:160]}
out.update(total_s=time.perf_counter() - t, spanner_s=spanner_s, pairs=len(edges),
           peak_mib=(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024)
print(json.dumps(out))
"""


def grid_cell(n: int, sym: bool, limit: float, solver: str = "") -> dict:
    """One grid design in a fresh subprocess; ``solver`` "" is the default path."""
    try:
        out = subprocess.run([sys.executable, "-c", GRID_CHILD, str(n), "1" if sym else "0",
                              str(limit), os.path.dirname(os.path.abspath(__file__)), solver],
                             capture_output=True, text=True, timeout=limit + 600)
    except subprocess.TimeoutExpired:
        return {"status": "killed (no answer within the limit + 600 s)"}
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        return {"status": f"exit {out.returncode}: {out.stderr.strip()[-120:]}"}
    return json.loads(lines[-1])


def section_grids(quick: bool, sizes: Sequence[int] | None = None,
                  baseline_max: int = 32) -> None:
    """Section 6; ``sizes`` (``--grids N ...``): these symmetry-reduced grids only (default
    20 to 48, and the unreduced 20 x 20). Up to ``baseline_max`` (``--grid-baseline-max``)
    each grid is also solved with ``solver="CLARABEL"`` (the path every default solve took
    before the block interior point), side by side in the same run."""
    print("\n== 6. Geo-indistinguishability at scale: 1.1-spanner + the 8 grid symmetries ==")
    print("eps = 1 per unit, Euclidean grid, uniform prior, loss = distance; each cell a fresh "
          "subprocess, DesignProblem(...).solve(time_limit=...) end to end (spanner "
          "included); 'default' = solver left to mechdesign (the block interior point on "
          "these LPs, Clarabel when it cannot certify its answer), 'CLARABEL' = named. "
          "peak = ru_maxrss above the child's imported baseline.")
    limit = 120.0 if quick else 900.0
    plan = ([(8, True), (8, False)] if quick else
            [(20, False), (20, True), (24, True), (28, True), (32, True), (40, True),
             (48, True)])
    if sizes:
        plan = [(n, True) for n in sizes]
    rows = []
    for n, sym in plan:
        default = None
        for solver in ("", "CLARABEL") if n <= baseline_max else ("",):
            progress(f"grid {n}x{n} {'symmetry' if sym else 'unreduced'} "
                     f"{solver or 'default'}")
            r = grid_cell(n, sym, limit, solver)
            notes = r.get("notes", "")
            orbits = re.search(r"(\d+) orbit variables", notes)
            prow = re.search(r"(\d+) privacy rows", notes)
            gap = r.get("gap")
            ratio = diff = "-"
            if solver and default is not None and "total_s" in r and "total_s" in default:
                ratio = f"{r['total_s'] / default['total_s']:.1f}x"
                if r.get("value") is not None and default.get("value") is not None:
                    diff = fe(rel(default["value"], r["value"]))
            rows.append([f"{n}x{n}", "8 symmetries" if sym else "unreduced",
                         solver or "default", r.get("pairs", "-"),
                         orbits.group(1) if orbits else "-", prow.group(1) if prow else "-",
                         fs(r.get("total_s")), r.get("solver", "-"),
                         fv(r.get("value"), 9), fe(gap) if gap is not None else "-",
                         f"{r['peak_mib']:.0f}" if "peak_mib" in r else "-", ratio, diff,
                         r["status"] if "error" not in r else f"{r['status']}: {r['error']}"])
            print("   ", rows[-1], file=sys.stderr, flush=True)
            default = default or r
    table(f"6. grids (seconds; time_limit = {limit:g} s per design; 'time / default' and "
          "'|rel diff|' compare the named Clarabel run with the default run above it)",
          ["grid", "reduction", "path", "spanner pairs", "orbit vars", "privacy rows",
           "total s", "solver", "value", "gap", "peak MiB", "time / default", "|rel diff|",
           "status"], rows)


# ---------------------------------------------------------------------------- main
SECTIONS = {"ldp": section_ldp, "solvers": section_solvers, "metric": section_metric,
            "estimation": section_estimation, "memory": section_memory, "grids": section_grids}
ALIASES = {"1": "ldp", "2": "solvers", "3": "metric", "4": "estimation", "5": "memory",
           "6": "grids"}


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load() -> str:
    """The system load average: other processes on the machine inflate the times."""
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def code_version() -> str:
    """The commit of the working tree, and whether mechdesign/design differs from it."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here,
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "../mechdesign/design"],
                               cwd=here, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown commit"
    return f"commit {head}" + (" + uncommitted changes in mechdesign/design" if dirty else "")


def warm_up() -> None:
    """Pay imports and first calls (and send the HiGHS banner to stderr) before timing."""
    progress("warm-up")
    with stdout_to_stderr():
        L = random_loss(5)
        ours_ldp(L)
        ours_ldp(L, "CLARABEL")
        naive_ldp(L)
        DesignProblem(privacy=LDP(EPS), objective=EstimationVariance(zipf_prior(3))).solve()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="smoke run, under a minute")
    parser.add_argument("--only", choices=[*SECTIONS, *ALIASES], default=None,
                        help="run one section (name or number)")
    parser.add_argument("--grids", type=int, nargs="+", default=None,
                        help="section 6: these n x n grids only (symmetry-reduced)")
    parser.add_argument("--grid-baseline-max", type=int, default=32,
                        help="section 6: solve grids up to this n with solver='CLARABEL' too")
    args = parser.parse_args(argv)
    names = list(SECTIONS) if args.only is None else [ALIASES.get(args.only, args.only)]
    print(f"design_scaling.py {'--quick' if args.quick else '(full run)'}, "
          f"{datetime.date.today().isoformat()}")
    print(f"machine: {os.cpu_count()} cores (nproc), {cpu_model()}; Python "
          f"{platform.python_version()}, numpy {np.__version__}, cvxpy {cp.__version__}, "
          f"highspy {version('highspy')}, clarabel {version('clarabel')}, "
          f"networkx {nx.__version__}; mechdesign at {code_version()}")
    print(f"load average at start (1, 5, 15 min): {load()}")
    warm_up()
    start = time.perf_counter()
    for name in names:
        if name == "grids":
            section_grids(args.quick, args.grids, args.grid_baseline_max)
        else:
            SECTIONS[name](args.quick)
    print(f"\ntotal wall time: {time.perf_counter() - start:.0f} s; load average at end "
          f"(1, 5, 15 min): {load()}")


if __name__ == "__main__":
    main()
