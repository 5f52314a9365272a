"""``mechdesign frontier``: the optimal value of a problem file across privacy levels."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from ..errors import InvalidParameterError
from .mechanisms import add_problem_file_arguments, load_problem_argument
from .output import (
    add_force_argument,
    fmt,
    jsonable,
    plan_plot,
    print_table,
    problem_inputs,
    save_figure,
    show_progress,
    write_planned,
)

__all__ = [
    "cmd_frontier",
    "parse_grid",
    "register",
]

if TYPE_CHECKING:
    import numpy as np


def parse_grid(text: str) -> np.ndarray:
    """``"a:b:n"`` (n points from a to b) or a comma-separated list of epsilons."""
    import numpy as np

    try:
        if ":" in text:
            a, b, n = text.split(":")
            count = int(n)
            if count < 1:
                raise ValueError(f"{count} points")
            return np.linspace(float(a), float(b), count)
        return np.array([float(v) for v in text.split(",")])
    except ValueError as exc:
        raise InvalidParameterError(
            f"--eps must be 'START:STOP:COUNT' or 'e1,e2,...', got {text!r} ({exc})") from None


def cmd_frontier(args: argparse.Namespace) -> int:
    from ..frontier import compare_families, frontier

    pf = load_problem_argument(args)
    eps = parse_grid(args.eps)
    if args.workers is not None and args.workers < 1:
        raise InvalidParameterError(f"--workers must be >= 1, got {args.workers}")
    out = plan_plot(args.out, args.force, problem_inputs(pf)) if args.out else None
    f = frontier(pf.problem, eps, solver=args.solver,
                 progress=show_progress(args, not args.json),
                 workers=args.workers)
    compared = None if args.no_families else compare_families(pf.problem, eps)
    families = {} if compared is None else compared.values
    notes = {} if compared is None else compared.notes
    if args.json:
        record = {"file": str(pf.path) if pf.path else None, "title": pf.title,
                  **f.to_dict(),
                  "families": jsonable(families), "family_notes": notes}
        print(json.dumps(record, indent=2, default=lambda o: None if o != o else str(o)))
    else:
        print(f"{pf.title}: {len(eps)} privacy levels")
        rows = []
        for i, (e, r) in enumerate(zip(f.epsilons, f.results, strict=True)):
            cert = r.certificate
            rows.append((fmt(float(e)), "-" if r.value is None else fmt(r.value),
                         str(r.status), "-" if cert is None else fmt(cert.achieved),
                         "-" if cert is None else str(cert.met),
                         *(fmt(float(v[i])) for v in families.values())))
        print_table(rows, ("epsilon", "value", "status", "achieved", "met", *families))
        for fam, note in notes.items():
            print(f"note: {fam}: {note}")
    if out is not None:
        from ..plotting import plot_frontier

        fig = plot_frontier(f, families, problem=pf)
        write_planned([(out, save_figure(fig, 120))], force=args.force, to_stderr=args.json)
    bad = [float(e) for e, r in zip(f.epsilons, f.results, strict=True)
           if r.certificate is None or not r.certificate.met]
    if bad:
        print(f"mechdesign: error: no certified mechanism at epsilon {bad}", file=sys.stderr)
        return 1
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "frontier", help="optimal value of a problem file across privacy levels",
        description="Re-solve a problem file (see `mechdesign solve`) at each epsilon, "
                    "compiling it once; the catalog families that fit the problem are "
                    "shown beside it (k-RR, subset selection, unary encodings, Hadamard "
                    "response, local hashing; past the matrix limit an estimation "
                    "problem gets their estimators' exact variances, other families are "
                    "left out with a note; for a yes/no evidential problem, the \"don't know\" "
                    "mechanisms Q_2x3 at c = 1 (Warner), .9, .7, .5 at the same privacy).")
    add_problem_file_arguments(p)
    p.add_argument("--eps", default="0.1:4:40", help="START:STOP:COUNT or e1,e2,... "
                   "(default 0.1:4:40)")
    p.add_argument("--solver", help="solver name (default: chosen by measurement)")
    p.add_argument("--out", metavar="PNG", help="write the frontier plot here (.png, .pdf or "
                   ".svg; checked before solving; an existing file needs --force)")
    add_force_argument(p)
    p.add_argument("--workers", type=int, default=None,
                   help="processes for the sweep (default: a local pool for large sweeps, "
                        "else this process; 1: this process)")
    p.add_argument("--no-families", action="store_true",
                   help="do not evaluate the catalog families")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_frontier)
