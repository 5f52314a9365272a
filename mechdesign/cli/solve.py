"""``mechdesign solve FILE``: solve a design problem file and print the certified optimum.

The file format is documented in :mod:`mechdesign.io.problems`. The command prints the result,
the certificate (the privacy measured on the returned matrix by mechdesign.privacy) and the
mechanism as tables; ``--json`` prints one JSON object whose ``mechanism`` key is read back
by ``mechdesign check``; ``--out FILE.csv|FILE.json`` writes the matrix and a heatmap PNG next
to it (same stem, ``.png``).

Exit status: 0 when a certified mechanism is returned and the file's ``[expected]`` value
(if any) is met; 1 when the solve gives no certified mechanism or misses ``[expected]``;
2 for bad input (the file, the options), with one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InvalidParameterError, MechdesignError
from .mechanisms import add_problem_file_arguments, load_problem_argument
from .output import (
    add_force_argument,
    check_suffix,
    fmt,
    jsonable,
    plan_outputs,
    print_table,
    problem_inputs,
    save_figure,
    show_progress,
    write_planned,
)

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "MAX_LISTED_COLUMNS",
    "MAX_NAMED_ZERO_COLUMNS",
    "MAX_TABLE_COLUMNS",
    "cmd_solve",
    "register",
]


if TYPE_CHECKING:
    from ..design import DesignResult
    from ..evidential import EvidentialMechanism
    from ..io.problems import ProblemFile
    from ..mechanism import Mechanism
    from ..oracles import FrequencyOracle

MAX_TABLE_COLUMNS = 12
"""The printed mechanism shows at most this many outputs (``--out``/``--json`` have all)."""


def _plan_out(args: argparse.Namespace, pf: ProblemFile) -> tuple[Path, Path] | None:
    """The matrix file and its heatmap, validated before solving (None without --out)."""
    if not args.out:
        return None
    out = check_suffix(args.out, (".csv", ".json"),
                       hint=" (the heatmap goes next to it as .png)")
    if out.suffix.lower() == ".csv" and pf.problem.privacy.evidential:
        raise InvalidParameterError(
            f"--out {str(out)!r}: {type(pf.problem.privacy).__name__} designs an evidential "
            "mechanism, whose focal sets need .json")
    matrix, png = plan_outputs([out, out.with_suffix(".png")], force=args.force,
                               inputs=problem_inputs(pf))
    return matrix, png


def _record(pf: ProblemFile, res: DesignResult, mech: Any, unavailable: str,
            files: dict | None) -> dict:
    from ..io import mechanism_to_jsonable

    out = {"file": str(pf.path) if pf.path else None, "title": pf.title,
           "privacy": pf.privacy, "objective": pf.objective, **res.summary()}
    if out.get("certificate"):
        out["certificate"]["notion"] = pf.privacy  # the notion's repr may hold a matrix
    exp = pf.expected
    out["expected"] = None if exp is None else {
        **exp.to_dict(), "bounds": list(exp.bounds()), "met": exp.check(res.value)}
    out["mechanism"] = None if mech is None else mechanism_to_jsonable(mech)
    out["mechanism_unavailable"] = unavailable or None
    out["files"] = files
    return jsonable(out)


def _print_report(pf: ProblemFile, res: DesignResult, mech: Any, unavailable: str,
                  files: dict | None) -> None:
    print(pf.title)
    print_table([("privacy", pf.privacy), ("objective", pf.objective)], ("problem", ""))
    print()
    rows = [("status", str(res.status)),
            ("value", "-" if res.value is None else fmt(res.value)),
            ("solver value", "-" if res.solver_value is None else fmt(res.solver_value)),
            ("optimum", str(res.optimum)),
            ("method", "-" if res.method is None else str(res.method)),
            ("certified gap", "-" if res.gap is None else f"{res.gap:.3g} (relative)"),
            ("solver", res.solver or "-"),
            ("formulation", res.formulation),
            ("time", f"build {res.build_time:.3g} s, solve {res.solve_time:.3g} s")]
    if pf.expected is not None:
        exp = pf.expected
        lo, hi = exp.bounds()
        verdict = "met" if exp.check(res.value) else "NOT MET"
        rows.append(("expected", f"{fmt(exp.value)} ({exp.relation}, in [{fmt(lo)}, "
                                 f"{fmt(hi)}]): {verdict}"))
        if exp.source:
            rows.append(("source", exp.source))
    print_table(rows, ("result", ""))
    if res.user_constraints:
        print()
        print_table([(name, _dual_text(res.duals.get(name)))
                     for name in res.user_constraints], ("constraint", "dual value"))
    cert = res.certificate
    if cert is not None:
        print()
        print_table([
            ("notion", pf.privacy), ("target", fmt(cert.target)),
            ("achieved (measured)", fmt(cert.achieved)), ("met", "yes" if cert.met else "NO"),
            ("tolerance", fmt(cert.tolerance)), ("repair", cert.repair),
            ("repair weight", fmt(cert.repair_weight)),
            ("value gap", "-" if math.isnan(cert.value_gap) else fmt(cert.value_gap)),
            ("method", cert.method)], ("certificate", ""))
    for note in res.notes:
        print(f"note: {note}")
    print()
    if mech is None and _structured(res) is not None:
        print(f"mechanism: structured, {_structured(res)!r} (too many outputs for a matrix; "
              "--out FILE.json writes it for 'mechdesign sample' and 'mechdesign estimate')")
    elif mech is None:
        print(f"mechanism: none ({unavailable})")
    else:
        _print_mechanism(mech)


def _dual_text(dual: Any) -> str:
    """A user constraint's dual in a table cell: a number, or the values of a vector
    constraint (at most 8 shown), or '-' when the solver gave none."""
    if dual is None:
        return "-"
    parts = dual if isinstance(dual, list | tuple) else [dual]
    values = np.concatenate([np.ravel(np.asarray(d, dtype=float)) for d in parts])
    shown = ", ".join(f"{v:.6g}" for v in values[:8])
    more = f", ... ({values.size} values)" if values.size > 8 else ""
    return shown + more if values.size > 1 else f"{values[0]:.6g}"


def _structured(res: DesignResult) -> FrequencyOracle | None:
    """The optimum in structured form (a frequency oracle), or None."""
    try:
        return res.oracle
    except MechdesignError:
        return None


MAX_LISTED_COLUMNS = 20
"""The line naming the outputs in use lists at most this many labels."""

MAX_NAMED_ZERO_COLUMNS = 6
"""The all-zero columns left out of the table are named when at most this many (an
evidential design that gives the "don't know" set no mass says so)."""


def _columns_in_use(Q: np.ndarray) -> np.ndarray:
    """Indices of the columns with a positive entry (an all-zero column is an output the
    mechanism never reports: leaving it out of the table loses nothing)."""
    return np.flatnonzero((Q > 0).any(axis=0))


def _listed(labels: list[str], limit: int = MAX_LISTED_COLUMNS) -> str:
    """``a, b, c`` or, past ``limit`` labels, the first ``limit``, ``...`` and the last."""
    if len(labels) <= limit:
        return ", ".join(labels)
    return ", ".join(labels[:limit - 1]) + f", ..., {labels[-1]}"


def _print_mechanism(mech: Mechanism | EvidentialMechanism) -> None:
    """The matrix (or the masses) as a table of the columns in use, at most
    :data:`MAX_TABLE_COLUMNS` of them.

    All-zero columns (outputs never reported, focal sets of mass 0) are left out and a line
    names the columns in use (``uses 4 of 50 outputs: 16, 17, 32, 33``): a k = 50
    absolute-loss optimum uses 4 outputs, and a table of the first 12 columns showed only
    zeros. ``--json`` and ``--out`` keep every column."""
    from ..evidential import EvidentialMechanism
    from ..plotting import labelled_matrix

    evidential = isinstance(mech, EvidentialMechanism)
    Q, rows_l, cols = labelled_matrix(mech)
    what = "masses m_x(B)" if evidential else "Q[x, y] = P(y | x)"
    kind = "focal sets" if evidential else "outputs"
    print(f"mechanism {what}: {Q.shape[0]} inputs x {Q.shape[1]} {kind}")
    used = _columns_in_use(Q)
    if used.size < Q.shape[1]:
        unused = np.setdiff1d(np.arange(Q.shape[1]), used)
        zero = (f"all zero: {', '.join(cols[j] for j in unused)}"
                if unused.size <= MAX_NAMED_ZERO_COLUMNS else f"the other {unused.size} are "
                "all zero")
        print(f"uses {used.size} of {Q.shape[1]} {kind}: "
              f"{_listed([cols[j] for j in used])} ({zero})")
    shown = used[:MAX_TABLE_COLUMNS]
    table = [(r, *(f"{v:.6g}" for v in Q[i, shown])) for i, r in enumerate(rows_l)]
    print_table(table, ("x", *(cols[j] for j in shown)))
    if shown.size < used.size:
        more = used.size - shown.size
        print(f"... {more} more column{'s' if more > 1 else ''}"
              f"{' in use' if used.size < Q.shape[1] else ''} "
              "(--json or --out FILE has them all)")


def _write(planned: tuple[Path, Path], mech: Mechanism | EvidentialMechanism, title: str,
           json_mode: bool, *, force: bool) -> None:
    """The matrix and its heatmap, each written atomically, after the report is printed."""
    from ..io import save_mechanism
    from ..plotting import plot_heatmap

    matrix, png = planned
    fig = plot_heatmap(mech, title)
    write_planned([(matrix, lambda tmp: save_mechanism(mech, tmp)),
                   (png, save_figure(fig, 120))], force=force, to_stderr=json_mode)


DEFAULT_TIME_LIMIT = 600.0
"""Seconds per solver attempt for ``mechdesign solve`` (the library's default is none)."""


def cmd_solve(args: argparse.Namespace) -> int:
    from ..design import Status

    pf = load_problem_argument(args)
    if args.plan:
        the_plan = pf.problem.plan(solver=args.solver)
        if args.json:
            print(json.dumps({"file": str(pf.path) if pf.path else None, "title": pf.title,
                              **the_plan.to_dict()}, indent=2))
        else:
            print(f"{pf.title}: the plan (nothing solved)")
            print(the_plan)
        return 0
    planned = _plan_out(args, pf)
    out = planned[0] if planned else None
    # --verbose already sends every log message to stderr (cli.main)
    progress = (show_progress(args, args.progress or not args.json)
                and not args.verbose)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = pf.problem.solve(solver=args.solver, time_limit=args.time_limit,
                               progress=progress)
    solver_warnings = list(dict.fromkeys(f"{w.category.__name__}: {w.message}"
                                         for w in caught))
    mech, unavailable = None, ""
    try:
        mech = res.mechanism
    except MechdesignError as exc:  # a DesignError, or SizeLimitError when too large to build
        unavailable = str(exc)
    oracle = _structured(res) if mech is None else None
    files = None
    if planned is not None and mech is not None:
        files = {"matrix": str(planned[0]), "heatmap": str(planned[1])}
    oracle_out = (planned is not None and oracle is not None
                  and planned[0].suffix.lower() == ".json")
    if oracle_out:
        files = {"oracle": str(planned[0])}
    if args.json:
        record = _record(pf, res, mech, unavailable, files)
        record["warnings"] = solver_warnings
        print(json.dumps(record, indent=2))
    else:
        _print_report(pf, res, mech, unavailable, files)
        for w in solver_warnings:
            print(f"solver warning: {w}")
    if planned is not None and mech is not None:
        _write(planned, mech, f"{pf.title}: value {res.value:.6g}", args.json,
               force=args.force)
    if oracle_out:
        text = json.dumps(oracle.to_dict(), indent=2)
        write_planned([(planned[0], lambda tmp: tmp.write_text(text))], force=args.force,
                      to_stderr=args.json)
    problems = []
    certified = res.certificate is not None and res.certificate.met
    if mech is None and not (certified and res.status is Status.OPTIMAL):
        problems.append(f"no certified mechanism: {unavailable}")
    elif res.status is not Status.OPTIMAL:
        gap = "no certified gap" if res.gap is None else f"certified gap {res.gap:.3g}"
        problems.append(f"the result is not certified optimal (status {res.status}, {gap}; "
                        f"optimum: {res.optimum}): see the notes")
    if out is not None and mech is None and not oracle_out:
        hint = ("; the optimum is a structured mechanism: --out FILE.json writes it for "
                "'mechdesign sample' and 'mechdesign estimate'") if oracle else ""
        problems.append(f"--out {str(out)!r} not written: {unavailable}{hint}")
    if pf.expected is not None and not pf.expected.check(res.value):
        lo, hi = pf.expected.bounds()
        problems.append(f"value {res.value!r} misses [expected] value "
                        f"{pf.expected.value!r} (allowed [{lo!r}, {hi!r}])")
    for p in problems:
        print(f"mechdesign: {p}", file=sys.stderr)
    return 1 if problems else 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "solve", help="solve a design problem file (TOML) and print the certified optimum",
        description="Solve a design problem file (format: mechdesign.io.problems; built-in "
                    "examples: 'mechdesign examples') and print the optimal mechanism and its "
                    "certificate: the privacy measured on the returned matrix. Exit status 1 "
                    "when the result is not certified optimal (no mechanism, or a design "
                    "stopped before its gap closed) or the file's [expected] value is "
                    "missed.")
    add_problem_file_arguments(p)
    p.add_argument("--json", action="store_true",
                   help="machine-readable output; its 'mechanism' key is read back by "
                        "'mechdesign check'")
    p.add_argument("--out", metavar="FILE.csv|FILE.json",
                   help="write the matrix (CSV or JSON by suffix) and a heatmap FILE.png "
                        "(checked before solving; an existing file needs --force; an input "
                        "of the problem is never replaced); an optimum too large for a "
                        "matrix (a structured mechanism) is written as FILE.json alone")
    p.add_argument("--plan", action="store_true",
                   help="print what the solve would do (method, why, solver policy, "
                        "reductions, memory estimate, fallbacks) and exit without solving")
    p.add_argument("--solver", metavar="NAME",
                   help="cvxpy solver name (default: HiGHS for LPs, Clarabel for conic "
                        "programs)")
    p.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT, metavar="SECONDS",
                   help=f"wall-clock limit of each solver attempt (default "
                        f"{DEFAULT_TIME_LIMIT:g}); a design stopped by it returns its best "
                        "certified-private point so far, or the best catalog mechanism at "
                        "the same prior when that is better on the objective, labelled "
                        "inaccurate with its certified gap (exit status 1); a solver "
                        "stopped before any point reports no mechanism and names the limit")
    p.add_argument("--progress", action="store_true",
                   help="the progress of long designs on stderr also with --json (shown by "
                        "default otherwise; column generation: one line per round with the "
                        "best value so far; --quiet turns it off)")
    add_force_argument(p)
    p.set_defaults(func=cmd_solve)
