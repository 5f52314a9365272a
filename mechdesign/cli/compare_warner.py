"""``mechdesign compare-warner``: Warner versus "don't know", closed form against simulation.

Prints, for one Q_2x3(p, q), the Shafer, Walley and optimal trade-offs (Li et al. 2022, s.4 of
``docs/belief_functions.md``) with the exact and the approximate A of Thm 3.10 and simulated
MSEs with standard errors; then the same on the (c, eps) grid of Figs 1-2 and the (n, eps)
grid of Fig. 3. With ``--out DIR`` it writes fig1.png ... fig5.png (Fig. 4: the trade-off
curves of Q_2x3). The numbers come from
:func:`~mechdesign.studies.warner_comparison.compare_warner` and the figures from
:func:`~mechdesign.studies.figures.write_figures`; this module parses and formats.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InvalidParameterError
from .output import (
    add_force_argument,
    fmt,
    jsonable,
    make_folder,
    plan_folder_outputs,
    print_table,
    save_figure,
    show_progress,
    write_planned,
)

__all__ = [
    "cmd_compare_warner",
    "print_comparison",
    "register",
]

if TYPE_CHECKING:
    from ..estimation.dont_know import DontKnowAnalysis
    from ..estimation.simulation import SimulationResult
    from ..studies.figure_data import ShaferPoint
    from ..studies.warner_comparison import ComparisonRow, WarnerComparison

# The options' defaults: the settings of the paper's figures, as in
# mechdesign.studies.figure_data (same names), repeated here so that
# `mechdesign compare-warner --help` does not import the library (tests/cli/test_help.py
# checks that the two agree).
FIGURE_PI, FIGURE_N = 0.3, 100
FIGURE_C = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5)
FIGURE_EPSILONS = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
FIGURE3_N = (10, 100, 500, 1000)
FIGURE3_DONT_KNOW = 0.1


def _fmt(x: float, digits: int = 6) -> str:
    if math.isnan(x):
        return "nan"
    return fmt(x) if math.isinf(x) else f"{x:.{digits}g}"


def _z(sim: SimulationResult | None, exact: float) -> float:
    if sim is None or sim.stderr == 0:
        return math.nan
    return (sim.mse - exact) / sim.stderr


def _sim_dict(sim: SimulationResult | None) -> dict | None:
    if sim is None:
        return None
    return {"mse": sim.mse, "stderr": sim.stderr, "variance": sim.variance,
            "bias": sim.bias, "reps": sim.reps, "redrawn": sim.redrawn}


def _clean(row: dict) -> dict:
    """A table row as JSON: the simulation as a dict, non-finite numbers as None."""
    return jsonable({k: (_sim_dict(v) if k == "simulated" else v) for k, v in row.items()})


def _check_args(args: argparse.Namespace) -> None:
    for name in ("c",):
        for v in getattr(args, name):
            if not 0 < v <= 1:
                raise InvalidParameterError(f"--c values must lie in (0, 1], got {v!r}")
    for v in args.eps:
        if not 0 < v <= 50:
            raise InvalidParameterError(f"--eps values must lie in (0, 50], got {v!r}")
    for v in [args.n, *args.fig3_n]:
        if v < 1:
            raise InvalidParameterError(f"survey sizes must be >= 1, got {v!r}")
    if not 0 <= args.fig3_dont_know < 1:
        raise InvalidParameterError(
            f"--fig3-dont-know must lie in [0, 1), got {args.fig3_dont_know!r}")
    if args.reps != 0 and args.reps < 2:
        raise InvalidParameterError(f"--reps must be 0 (no simulation) or >= 2, got {args.reps}")
    if args.workers < 1:
        raise InvalidParameterError(f"--workers must be >= 1, got {args.workers}")
    if args.seed is not None and args.seed < 0:
        raise InvalidParameterError(f"--seed must be >= 0, got {args.seed}")


def _mechanism_rows(rows: tuple[ComparisonRow, ...], analysis: DontKnowAnalysis
                    ) -> list[dict]:
    """The table rows as dicts; at p <= 1/2 the Q_0 row no longer carries nu^W and eps^O
    (``analysis.walley_degenerate``), and its label says so."""
    out = [dict(r.__dict__) for r in rows]
    if analysis.walley_degenerate:
        for row in out:
            if row["mechanism"].startswith("Q_0"):
                row["semantics"] = ("uninformative: nu^W = inf, eps^O = 0 (degenerate)"
                                    if analysis.p == 0.5 else
                                    "flips Yes/No; not nu^W, eps^O (degenerate at p <= 1/2)")
    return out


def _grid_rows(points: tuple[ShaferPoint, ...], figure: str) -> list[dict]:
    return [{"figure": figure, "c": pt.c, "n": pt.n, "epsilon": pt.epsilon, "p": pt.p,
             "q": pt.q, "variance_exact_A": pt.variance, "variance_approx_A": pt.variance_approx,
             "simulated": pt.simulated} for pt in points]


def _table_cells(row: dict) -> tuple[str, ...]:
    sim = row["simulated"]
    ex, ap = row["variance_exact_A"], row["variance_approx_A"]
    rel = (ap / ex - 1.0) if ex and math.isfinite(ex) and math.isfinite(ap) else math.nan
    return (_fmt(ex), _fmt(ap), f"{rel:+.2e}" if math.isfinite(rel) else "nan",
            _fmt(sim.mse) if sim else "-", _fmt(sim.stderr, 3) if sim else "-",
            f"{_z(sim, ex):+.2f}" if sim else "-")


def print_comparison(comparison: WarnerComparison) -> None:
    """The tables of ``compare-warner``: the one-mechanism table, the Fig. 5 rectangle, and
    the Figs 1-3 grid (exact A, approximate A, simulated MSE with s.e. and z-score)."""
    c = comparison
    print(f"Warner versus \"don't know\": pi = {c.pi:g}, n = {c.n}, reps = {c.reps}, "
          f"seed = {c.seed}")
    print("variance: exact A = E[1/M | M > 0] (Thm 3.10) and Li et al.'s A ~ 1/((n+1)c - 1); "
          "simulated: MSE over the surveys, s.e. of the MSE, z = (MSE - exact)/s.e.")
    print()
    hdr = ("mechanism", "semantics", "epsilon", "exact A", "approx A", "approx/exact-1",
           "simulated", "s.e.", "z")
    print_table([(r["mechanism"], r["semantics"], _fmt(r["epsilon"]), *_table_cells(r))
                 for r in _mechanism_rows(c.rows, c.analysis)], hdr)
    a = c.analysis
    r = a.rectangle
    print(f"Fig. 5 rectangle: eps in [{_fmt(r.epsilon_low)}, {_fmt(r.epsilon_high)}], "
          f"nu in [{_fmt(r.variance_low)}, {_fmt(r.variance_high)}]")
    print(f"Walley: eps^W = {_fmt(a.epsilon_walley)}, nu^W = {_fmt(a.variance_walley)}; "
          f"optimal: eps^O = {_fmt(a.epsilon_optimal)}, nu^O = {_fmt(a.variance_optimal)}")
    if a.note:
        print(f"DEGENERATE: {a.note}")
    print()
    hdr = ("fig", "c", "n", "epsilon", "p", "q", "exact A", "approx A", "approx/exact-1",
           "simulated", "s.e.", "z")
    grid = _grid_rows(c.fig12, "1-2") + _grid_rows(c.fig3, "3")
    print_table([(g["figure"], f"{g['c']:g}", str(g["n"]), f"{g['epsilon']:g}",
                  _fmt(g["p"], 5), _fmt(g["q"], 5), *_table_cells(g)) for g in grid], hdr)


def cmd_compare_warner(args: argparse.Namespace) -> int:
    from ..studies.figures import FIGURE_FILES
    from ..studies.warner_comparison import compare_warner

    _check_args(args)

    planned = (plan_folder_outputs(args.out, FIGURE_FILES, force=args.force) if args.out
               else [])
    c = compare_warner(args.p, args.q, args.pi, args.n, args.c, args.eps, args.fig3_n,
                       args.fig3_dont_know, args.reps, rng=args.seed, workers=args.workers,
                       progress=show_progress(args, not (args.json or args.no_progress)))
    written = [str(path) for path in planned]

    if args.json:
        a = c.analysis
        print(json.dumps({
            "parameters": {"p": c.p, "q": c.q, "pi": c.pi, "n": c.n,
                           "c": list(args.c), "eps": list(args.eps),
                           "fig3_n": list(args.fig3_n), "fig3_dont_know": args.fig3_dont_know,
                           "reps": c.reps, "seed": c.seed},
            "analysis": jsonable({k: v for k, v in a.as_dict().items()
                                  if k not in ("lambdas", "epsilon_lambda", "variance_lambda",
                                               "rectangle")}),
            "rectangle": jsonable(a.rectangle.__dict__),
            "mechanism": [_clean(r) for r in _mechanism_rows(c.rows, a)],
            "grid": [_clean(r) for r in _grid_rows(c.fig12, "1-2") + _grid_rows(c.fig3, "3")],
            "figures": written}, indent=2))
        _write(c, args.out, planned, True, force=args.force)
        return 0

    print_comparison(c)
    _write(c, args.out, planned, False, force=args.force)
    return 0


def _write(c: WarnerComparison, folder: str | None, planned: list[Path],
           json_mode: bool, *, force: bool) -> None:
    """Figs 1-5, each written atomically after the results print (the folder is made if
    needed)."""
    if not planned:
        return
    from ..studies.figures import make_figures

    make_folder(folder)
    figs = make_figures(c)
    write_planned([(path, save_figure(figs[path.name], 120)) for path in planned],
                  force=force, to_stderr=json_mode)


def register(sub: argparse._SubParsersAction) -> None:
    cmd = sub.add_parser(
        "compare-warner", help="Warner versus \"don't know\": exact variances, simulation, "
                               "the paper's figures",
        description="Compare Warner's randomized response with the \"don't know\" mechanism "
                    "Q_2x3(p, q) of Li et al. 2022: Shafer, Walley and optimal privacy losses, "
                    "Thm 3.10 with the exact and the approximate A, simulated MSEs with "
                    "standard errors, and (with --out) PNGs of the paper's Figs 1 to 5 "
                    "(Fig. 4: the trade-off curves of Q_2x3). Progress of the simulations "
                    "goes to stderr unless --json, --quiet or --no-progress. "
                    "Defaults where the paper is silent: pi = 0.3, n = 100, "
                    "c in {1, .9, .8, .7, .6, .5}, eps in (0, 4].")
    cmd.add_argument("--p", type=float, default=0.6,
                     help="truth probability of the single mechanism (> q, p + q <= 1; at "
                          "p <= 1/2 the Walley and optimal readings are flagged degenerate; "
                          "default 0.6)")
    cmd.add_argument("--q", type=float, default=0.2,
                     help="lie probability of the single mechanism (default 0.2)")
    cmd.add_argument("--pi", type=float, default=FIGURE_PI,
                     help=f"true proportion (default {FIGURE_PI})")
    cmd.add_argument("--n", type=int, default=FIGURE_N,
                     help=f"respondents per survey (default {FIGURE_N})")
    cmd.add_argument("--c", type=float, nargs="+", default=list(FIGURE_C), metavar="C",
                     help="grid of c = p + q for Figs 1-2 (default 1 .9 .8 .7 .6 .5)")
    cmd.add_argument("--eps", type=float, nargs="+", default=list(FIGURE_EPSILONS),
                     metavar="EPS", help="Shafer losses of the simulated points "
                                         "(default 0.5 1 ... 4)")
    cmd.add_argument("--fig3-n", type=int, nargs="+", default=list(FIGURE3_N), metavar="N",
                     help="survey sizes of Fig. 3 (default 10 100 500 1000)")
    cmd.add_argument("--fig3-dont-know", type=float, default=FIGURE3_DONT_KNOW, metavar="D",
                     help="\"don't know\" probability 1 - p - q of Fig. 3 (default 0.1)")
    cmd.add_argument("--reps", type=int, default=1000,
                     help="simulated surveys per point (0: closed forms only; default 1000)")
    cmd.add_argument("--seed", type=int, default=None,
                     help="root seed (default: fresh entropy, printed so a run can be repeated)")
    cmd.add_argument("--workers", type=int, default=1,
                     help="processes for the simulations (results do not depend on it)")
    cmd.add_argument("--out", metavar="DIR",
                     help="write fig1.png, fig2.png, fig3.png, fig4.png and fig5.png there "
                          "(created if needed; existing figures need --force)")
    add_force_argument(cmd)
    cmd.add_argument("--json", action="store_true",
                     help="machine-readable output (no progress line)")
    cmd.add_argument("--no-progress", action="store_true",
                     help="do not write 'compare-warner: i/N simulated points' progress to "
                          "stderr (shown by default without --json; the same as --quiet)")
    cmd.set_defaults(func=cmd_compare_warner)
