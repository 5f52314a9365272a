"""``mechdesign compose``: exact privacy of a k-fold composition, with the closed-form bounds."""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._exact import outward
from ..errors import InvalidParameterError, SizeLimitError
from .mechanisms import (
    add_source_arguments,
    catalog_help,
    ordinary,
    resolve_mechanism,
    source_inputs,
)
from .output import (
    add_force_argument,
    fmt,
    jsonable,
    plan_plot,
    positive_int,
    print_table,
    save_figure,
    write_planned,
)

__all__ = [
    "DEFAULT_GRID",
    "cmd_compose",
    "register",
]

if TYPE_CHECKING:
    from ..accounting import Composition, CompositionResult
    from ..mechanism import Mechanism

DEFAULT_GRID = 1e-4
"""Default ``--grid``: the grid step of :func:`mechdesign.accounting.compose` (its
``DEFAULT_GRID``), repeated here so that ``mechdesign compose --help`` does not import the
accounting layer; ``tests/cli/test_help.py`` checks that the two agree."""


def _header(m: Mechanism, k: int, eps0: float) -> str:
    name = f" {m.name}" if m.name else ""
    return (f"mechanism{name}: {m.n_inputs} inputs x {m.n_outputs} outputs, "
            f"pure epsilon {fmt(eps0)} per use; composed k = {k} times")


def _result_row(r: CompositionResult) -> tuple[str, ...]:
    label = "exact (privacy-loss atoms)" if r.exact else \
        f"grid {r.grid_step:.3g} (pessimistic; bracket)"
    given = f"epsilon = {fmt(r.epsilon)}" if r.solved_for == "delta" else \
        f"delta = {fmt(r.delta)}"
    bracket = "" if r.exact else f"[{fmt(r.lower)}, {fmt(r.upper)}]"
    return (label, given, r.solved_for, fmt(r.value), bracket)


def _bounds(eps0: float, k: int, r: CompositionResult
            ) -> list[tuple[str, str, str, float | str]]:
    """Closed-form bounds for k uses of an eps0-LDP mechanism, at the same query."""
    from ..accounting import (
        advanced_composition,
        advanced_composition_delta,
        optimal_composition_delta,
        optimal_composition_epsilon,
    )

    if math.isinf(eps0):
        return []
    kov = "optimal for eps0-LDP (Kairouz-Oh-Viswanath)"
    basic = outward(lambda e, n: e * n, eps0, float(k))  # k eps0, rounded up

    def optimal(f: Any, *args: Any) -> float | str:
        try:
            return f(*args)
        except SizeLimitError:  # k + 1 atoms: not formed for a huge k
            return "not computed (k too large)"

    if r.solved_for == "delta":
        given = f"epsilon = {fmt(r.epsilon)}"
        return [("basic composition", given, "delta", 0.0 if r.epsilon >= basic else 1.0),
                ("advanced (Dwork-Rothblum-Vadhan)", given, "delta",
                 advanced_composition_delta(eps0, k, r.epsilon)),
                (kov, given, "delta", optimal(optimal_composition_delta, eps0, k, r.epsilon))]
    d = r.delta
    rows = [("basic composition", f"delta = {fmt(d)}", "epsilon", basic)]
    if d > 0:
        rows.append(("advanced (Dwork-Rothblum-Vadhan)", f"delta = {fmt(d)}", "epsilon",
                     advanced_composition(eps0, 0.0, k, d).epsilon))
    rows.append((kov, f"delta = {fmt(d)}", "epsilon",
                 optimal(optimal_composition_epsilon, eps0, k, d)))
    return rows


def _bound_dicts(eps0: float, k: int, r: CompositionResult) -> list[dict]:
    return [{"bound": name, "given": given, "solved_for": what, "value": jsonable(value)}
            for name, given, what, value in _bounds(eps0, k, r)]


def cmd_compose(args: argparse.Namespace) -> int:
    if not (args.epsilon or args.delta or args.out):
        raise InvalidParameterError("give --epsilon, --delta and/or --out")
    from ..accounting import compose
    from ..privacy import epsilon_ldp

    out = plan_plot(args.out, args.force, source_inputs(args.source)) if args.out else None
    m = ordinary(resolve_mechanism(args.source, args.params))
    k = args.k
    eps0 = epsilon_ldp(m)
    comp = compose(m, k, method=args.method, grid=args.grid)
    results = [comp.delta(e) for e in args.epsilon or ()]
    results += [comp.epsilon(d) for d in args.delta or ()]
    marks = [(r.epsilon, r.delta) for r in results]
    if args.json:
        print(json.dumps({
            "mechanism": _header(m, k, eps0), "k": k,
            "epsilon_ldp": jsonable(eps0),
            "results": [jsonable(asdict(r)) for r in results],
            "bounds": [b for r in results for b in _bound_dicts(eps0, k, r)],
            "plot": None if out is None else str(out)}, indent=2))
        _write(comp, eps0, out, True, m.name or "mechanism", marks, force=args.force)
        return 0
    print(_header(m, k, eps0))
    if results:
        rows = []
        for r in results:
            rows.append(_result_row(r))
            rows.extend((name, given, what, v if isinstance(v, str) else fmt(v), "")
                        for name, given, what, v in _bounds(eps0, k, r))
        print_table(rows, ("analysis", "given", "solves", "value", "bracket"))
        worst = results[0]
        print(f"worst input pair {worst.worst_pair}; {worst.n_pairs} distinct pair "
              f"distribution(s); {worst.n_atoms} atoms")
    _write(comp, eps0, out, False, m.name or "mechanism", marks, force=args.force)
    return 0


def _write(comp: Composition, eps0: float, out: Path | None, json_mode: bool, title: str,
           marks: list[tuple[float, float]], *, force: bool) -> None:
    """The privacy profile plot (when asked), written atomically after the results print."""
    if out is None:
        return
    from ..plotting import plot_privacy_profile

    fig = plot_privacy_profile(comp, epsilon0=eps0, marks=marks,
                               title=f"{title}, {comp.k}-fold: privacy profile")
    write_planned([(out, save_figure(fig, 110))], force=force, to_stderr=json_mode)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compose", help="exact privacy of a mechanism used k times (composition)",
        description=partial(
            catalog_help, "Exact (epsilon, delta) of the k-fold composition of a catalog "
            "mechanism (NAME key=value ...) or a matrix file, from its privacy-loss atoms; a "
            "grid bracket when the atoms are too many. Closed-form bounds (basic, advanced, "
            "optimal KOV) for comparison."))
    add_source_arguments(p)
    p.add_argument("--k", type=positive_int, default=1, help="number of uses (default 1)")
    p.add_argument("--epsilon", type=float, action="append", metavar="EPS",
                   help="report delta at this epsilon (repeatable)")
    p.add_argument("--delta", type=float, action="append", metavar="DELTA",
                   help="report epsilon at this delta (repeatable)")
    p.add_argument("--method", choices=("auto", "exact", "grid"), default="auto",
                   help="auto: exact unless too many atoms (default)")
    p.add_argument("--grid", type=float, default=DEFAULT_GRID,
                   help=f"grid step of the fallback (default {DEFAULT_GRID:g})")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--out", metavar="PNG", help="write the privacy profile delta(eps) here "
                   "(.png, .pdf or .svg; an existing file needs --force)")
    add_force_argument(p)
    p.set_defaults(func=cmd_compose)
