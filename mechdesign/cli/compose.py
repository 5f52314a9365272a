"""``mechdesign compose``: exact privacy of a k-fold composition, with the closed-form bounds."""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import catalog
from ..accounting.composition import (
    DEFAULT_GRID,
    Composition,
    CompositionResult,
    advanced_composition,
    advanced_composition_delta,
    compose,
    optimal_composition_delta,
    optimal_composition_epsilon,
)
from ..errors import InvalidParameterError
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from ..privacy.measures import epsilon_ldp
from .check import resolve_mechanism
from .output import add_force_argument, fmt, plan_plot, print_table, save_figure, write_planned

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PROFILE_POINTS = 256
PROFILE_FLOOR = 1e-15
"""The plot spans epsilon from 0 to where delta falls to this value."""


def _json_number(x: Any) -> Any:
    if isinstance(x, float) and math.isinf(x):
        return None
    if isinstance(x, tuple):
        return list(x)
    return x


def _describe(m: Mechanism, k: int, eps0: float) -> str:
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


def _bounds(eps0: float, k: int, r: CompositionResult) -> list[tuple[str, str, str, float]]:
    """Closed-form bounds for k uses of an eps0-LDP mechanism, at the same query."""
    if math.isinf(eps0):
        return []
    kov = "optimal for eps0-LDP (Kairouz-Oh-Viswanath)"
    if r.solved_for == "delta":
        given = f"epsilon = {fmt(r.epsilon)}"
        return [("basic composition", given, "delta", 0.0 if r.epsilon >= k * eps0 else 1.0),
                ("advanced (Dwork-Rothblum-Vadhan)", given, "delta",
                 advanced_composition_delta(eps0, k, r.epsilon)),
                (kov, given, "delta", optimal_composition_delta(eps0, k, r.epsilon))]
    d = r.delta
    rows = [("basic composition", f"delta = {fmt(d)}", "epsilon", k * eps0)]
    if d > 0:
        rows.append(("advanced (Dwork-Rothblum-Vadhan)", f"delta = {fmt(d)}", "epsilon",
                     advanced_composition(eps0, 0.0, k, d).epsilon))
    rows.append((kov, f"delta = {fmt(d)}", "epsilon", optimal_composition_epsilon(eps0, k, d)))
    return rows


def _bound_dicts(eps0: float, k: int, r: CompositionResult) -> list[dict]:
    return [{"bound": name, "given": given, "solved_for": what, "value": _json_number(value)}
            for name, given, what, value in _bounds(eps0, k, r)]


def _plot(comp: Composition, eps0: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    k = comp.k
    reach = comp.epsilon(PROFILE_FLOOR).upper
    top = reach if math.isfinite(reach) else comp.profile([0.0]).max_loss
    if not top > 0:
        top = 1.0
    eps = np.linspace(0.0, 1.1 * top, PROFILE_POINTS)
    prof = comp.profile(eps)
    fig = Figure(figsize=(6.4, 4.4))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    floor = 1e-300
    label = "exact" if prof.exact else "grid (pessimistic)"
    ax.semilogy(eps, np.maximum(prof.upper, floor), label=f"delta(eps), {label}")
    if not prof.exact:
        ax.fill_between(eps, np.maximum(prof.lower, floor), np.maximum(prof.upper, floor),
                        alpha=0.3, label="grid bracket")
    if math.isfinite(eps0):
        kov = [optimal_composition_delta(eps0, k, float(e)) for e in eps]
        ax.semilogy(eps, np.maximum(kov, floor), "--",
                    label=f"optimal bound for {fmt(eps0)}-LDP (KOV)")
    ax.set_ylim(PROFILE_FLOOR / 10, 1.5)
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta")
    ax.set_title(f"privacy profile of {k}-fold composition")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def cmd_compose(args: argparse.Namespace) -> int:
    if not (args.epsilon or args.delta or args.out):
        raise InvalidParameterError("give --epsilon, --delta and/or --out")
    inputs = [] if args.source in catalog.CATALOG else [args.source]
    out = plan_plot(args.out, args.force, inputs) if args.out else None
    source = resolve_mechanism(args.source, args.params)
    m = source.to_mechanism() if isinstance(source, EvidentialMechanism) else source
    k = args.k
    eps0 = epsilon_ldp(m)
    comp = compose(m, k, method=args.method, grid=args.grid)
    results = [comp.delta(e) for e in args.epsilon or ()]
    results += [comp.epsilon(d) for d in args.delta or ()]
    if args.json:
        print(json.dumps({
            "mechanism": _describe(m, k, eps0), "k": k,
            "epsilon_ldp": _json_number(eps0),
            "results": [{key: _json_number(v) for key, v in asdict(r).items()}
                        for r in results],
            "bounds": [b for r in results for b in _bound_dicts(eps0, k, r)],
            "plot": None if out is None else str(out)}, indent=2))
        _write(comp, eps0, out, True)
        return 0
    print(_describe(m, k, eps0))
    if results:
        rows = []
        for r in results:
            rows.append(_result_row(r))
            rows.extend((name, given, what, fmt(v), "")
                        for name, given, what, v in _bounds(eps0, k, r))
        print_table(rows, ("analysis", "given", "solves", "value", "bracket"))
        worst = results[0]
        print(f"worst input pair {worst.worst_pair}; {worst.n_pairs} distinct pair "
              f"distribution(s); {worst.n_atoms} atoms")
    _write(comp, eps0, out, False)
    return 0


def _write(comp: Composition, eps0: float, out: Path | None, json_mode: bool) -> None:
    """The privacy profile plot (when asked), written atomically after the results print."""
    if out is not None:
        write_planned([(out, save_figure(_plot(comp, eps0), 110))], to_stderr=json_mode)


def _positive_int(text: str) -> int:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not v.is_integer() or v < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return int(v)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compose", help="exact privacy of a mechanism used k times (composition)",
        description="Exact (epsilon, delta) of the k-fold composition of a catalog mechanism "
                    "(NAME key=value ...) or a matrix file, from its privacy-loss atoms; a "
                    "grid bracket when the atoms are too many. Closed-form bounds "
                    "(basic, advanced, optimal KOV) for comparison. Catalog names: "
                    + ", ".join(catalog.CATALOG))
    p.add_argument("source", help="catalog name or mechanism file")
    p.add_argument("params", nargs="*", help="catalog parameters as key=value")
    p.add_argument("--k", type=_positive_int, default=1, help="number of uses (default 1)")
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
