"""``mechdesign tradeoff``: the exact hypothesis-testing trade-off curve of a mechanism."""

from __future__ import annotations

import argparse
import json
import math
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from .._exact import linear_up
from ..errors import InvalidParameterError
from .mechanisms import (
    add_source_arguments,
    catalog_help,
    describe_mechanism,
    ordinary,
    resolve_mechanism,
    source_inputs,
)
from .output import (
    add_force_argument,
    fmt,
    jsonable,
    plan_plot,
    print_table,
    save_figure,
    write_planned,
)

__all__ = [
    "MAX_ROWS",
    "REFERENCE_DELTA",
    "cmd_tradeoff",
    "register",
]

if TYPE_CHECKING:
    import numpy as np

    from ..accounting import TradeoffCurve
    from ..evidential import EvidentialMechanism
    from ..mechanism import Mechanism

KINDS = ("auto", "ordinary", "pessimistic", "optimistic")


MAX_ROWS = 20
"""Breakpoints printed without ``--table``: all up to this many, else this many spread over
alpha (the nearest breakpoint to each of as many evenly spaced alphas)."""

REFERENCE_DELTA = 1e-6
"""delta of the default reference ``f_{eps, delta}`` of a composed ordinary curve."""


def _curve(m: Mechanism | EvidentialMechanism, kind: str, pair: tuple[int, int] | None,
           k: int) -> tuple[TradeoffCurve, float]:
    """The curve and the epsilon of its reference ``f_{k eps}`` (basic composition)."""
    from ..accounting import optimistic_function, pessimistic_function, tradeoff_function
    from ..privacy import epsilon_ldp, epsilon_sldp, epsilon_wldp

    if kind == "ordinary":
        return tradeoff_function(m, pair=pair, k=k), linear_up(k, epsilon_ldp(m))
    if kind == "pessimistic":
        return pessimistic_function(m, pair, k), linear_up(k, epsilon_sldp(m))
    return optimistic_function(m, pair, k), linear_up(k, epsilon_wldp(m))


def _pure_epsilon(m: Mechanism | EvidentialMechanism, pair: tuple[int, int] | None,
                  k: int) -> float:
    """Exact smallest eps with ``T >= f_eps`` for the ordinary curve: k times the pure
    epsilon of the pair (both directions) or of the mechanism (pure losses add under
    composition). Read off the breakpoints instead, a k-fold curve's ``T(0) = 1`` carries
    rounding of ~1e-15 and would give inf."""
    from ..mechanism import Mechanism
    from ..privacy import epsilon_ldp

    plain = ordinary(m)
    if pair is not None:
        plain = Mechanism(plain.matrix[list(pair)])
    return linear_up(k, epsilon_ldp(plain))


def cmd_tradeoff(args: argparse.Namespace) -> int:
    from ..accounting import (
        epsilon_composed,
        epsilon_of_tradeoff,
        gaussian_approximation,
        tradeoff_dp,
    )
    from ..evidential import EvidentialMechanism

    out = plan_plot(args.out, args.force, source_inputs(args.source)) if args.out else None
    m = resolve_mechanism(args.source, args.params)
    kind = args.kind
    if kind == "auto":
        kind = "pessimistic" if isinstance(m, EvidentialMechanism) else "ordinary"
    if args.k < 1:
        raise InvalidParameterError(f"--k must be >= 1, got {args.k}")
    pair = tuple(args.pair) if args.pair is not None else None
    curve, ref_eps = _curve(m, kind, pair, args.k)
    ref_delta = 0.0 if args.delta is None else args.delta
    if not 0 <= ref_delta <= 1:
        raise InvalidParameterError(f"--delta must lie in [0, 1], got {ref_delta!r}")
    if args.epsilon is not None:
        if not args.epsilon >= 0:
            raise InvalidParameterError(f"--epsilon must be >= 0, got {args.epsilon!r}")
        ref_eps = args.epsilon
    elif kind == "ordinary" and (args.k > 1 or ref_delta > 0):
        # k eps is exact but uninformative for large k (1000-fold RR(0.5): f_500 hugs the
        # axes); the exact epsilon of the composition at delta touches the curve instead
        if args.delta is None:
            ref_delta = REFERENCE_DELTA
        ref_eps = epsilon_composed(m, ref_delta, args.k,
                                   pairs=None if pair is None else [pair]).epsilon
    own_eps = (_pure_epsilon(m, pair, args.k) if kind == "ordinary"
               else epsilon_of_tradeoff(curve))
    ref = tradeoff_dp(ref_eps, curve.alphas, ref_delta) if math.isfinite(ref_eps) else None
    ref_name = "f_eps" if ref_delta == 0 else f"f_eps,delta (delta={fmt(ref_delta)})"
    # a composed ordinary curve touches f_{eps,delta} where its slope is -e^eps, at a tiny
    # alpha and a beta near 1 (on the axes of a linear plot): the figure adds a log-log
    # panel of the power 1 - beta and the CLT approximation G_mu
    composed = kind == "ordinary" and args.k > 1 and out is not None  # (for the figure)
    mu = gaussian_approximation(m, k=args.k, pair=pair).mu if composed else None
    times = "" if args.k == 1 else f", {args.k}-fold"
    title = f"{getattr(m, 'name', '') or 'mechanism'}{times}: {kind} trade-off"
    if args.json:
        print(json.dumps({
            "mechanism": describe_mechanism(m), "kind": kind, "label": curve.label,
            "pair": list(pair) if pair else None, "k": args.k,
            "reference_epsilon": jsonable(ref_eps), "reference_delta": ref_delta,
            "curve_epsilon": jsonable(own_eps),
            "convex": curve.is_convex,
            "breakpoints": [{"alpha": a, "beta": b} for a, b in curve.as_rows()],
            "png": str(out) if out else None}, indent=2))
        _write(out, curve, ref_eps, ref_delta, title, True, mu, force=args.force)
        return 0
    print(describe_mechanism(m))
    print(f"{kind} trade-off {curve.label}, k = {args.k}: {len(curve)} breakpoints"
          + ("" if curve.is_convex else " (not convex: no single pair has this curve)"))
    print(f"smallest eps with curve >= f_eps: {fmt(own_eps)}; reference {ref_name} at eps = "
          f"{fmt(ref_eps)}")
    header = ("alpha", "beta", f"{ref_name.split(' ')[0]} (eps={fmt(ref_eps)})")
    rows = [(fmt(a), fmt(b), fmt(float(r)) if ref is not None else "-")
            for (a, b), r in zip(curve.as_rows(),
                                 ref if ref is not None else [None] * len(curve), strict=True)]
    if args.table or len(rows) <= MAX_ROWS:
        print_table(rows, header)
    else:
        shown = _spread(curve.alphas, MAX_ROWS)
        print_table([rows[i] for i in shown], header)
        print(f"{len(shown)} of {len(rows)} breakpoints, spread over alpha (--table prints "
              "all, --json gives them as numbers)")
    _write(out, curve, ref_eps, ref_delta, title, False, mu, force=args.force)
    return 0


def _spread(alphas: np.ndarray, count: int) -> list[int]:
    """Indices of the breakpoints nearest to ``count`` evenly spaced alphas in [0, 1] (the
    ends included), without repeats, in order."""
    import numpy as np

    targets = np.linspace(0.0, 1.0, count)
    return sorted({int(np.abs(alphas - t).argmin()) for t in targets})


def _write(out: Path | None, curve: TradeoffCurve, ref_eps: float, ref_delta: float,
           title: str, json_mode: bool, mu: float | None, *, force: bool) -> None:
    """The PNG of the curve (when asked), written atomically after the results print; a
    composed curve (``mu`` given) with its CLT approximation and a log-alpha panel."""
    if out is None:
        return
    from ..plotting import plot_tradeoff

    fig = plot_tradeoff({curve.label: curve}, ref_eps, reference_delta=ref_delta, title=title,
                        gaussian_mu=mu, log_panel=mu is not None)
    write_planned([(out, save_figure(fig, 120))], force=force, to_stderr=json_mode)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tradeoff", help="exact hypothesis-testing trade-off curve of a mechanism",
        description=partial(
            catalog_help, "Print the exact breakpoints (alpha, beta) of the trade-off function "
            "of a catalog mechanism (NAME key=value ...) or a mechanism file, with f_eps for "
            "reference. Kinds: ordinary T(Q[x], Q[x']) (evidential mechanisms over their "
            "messages), pessimistic T^pe and optimistic T^op (Li et al. 2022)."))
    add_source_arguments(p)
    p.add_argument("--kind", choices=KINDS, default="auto",
                   help="auto: pessimistic for evidential mechanisms, ordinary otherwise")
    p.add_argument("--pair", type=int, nargs=2, metavar=("X", "XP"),
                   help="input rows (H0: X, H1: XP); default: pointwise minimum over all "
                        "ordered pairs")
    p.add_argument("--k", type=int, default=1, help="number of self-compositions (default 1)")
    p.add_argument("--epsilon", type=float, metavar="EPS",
                   help="epsilon of the reference f_eps (default: k times the mechanism's "
                        "LDP / SLDP / WLDP epsilon, matching --kind; for an ordinary curve "
                        "with --k > 1 or --delta, the exact epsilon of the composition at "
                        "delta)")
    p.add_argument("--delta", type=float, metavar="DELTA",
                   help="delta of the reference f_{eps,delta} (default 0; 1e-6 for an "
                        "ordinary curve with --k > 1)")
    p.add_argument("--table", action="store_true",
                   help=f"print every breakpoint (default: all up to {MAX_ROWS}, else "
                        f"{MAX_ROWS} spread over alpha)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--out", metavar="FILE.png", help="also write a PNG of beta against alpha "
                   "(.png, .pdf or .svg; an existing file needs --force); a composed "
                   "ordinary curve (--k > 1) gets its CLT approximation G_mu and a second "
                   "panel, the power 1 - beta on log-log axes, where f_eps,delta meets it")
    add_force_argument(p)
    p.set_defaults(func=cmd_tradeoff)
