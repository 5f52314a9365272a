"""``mechdesign amplify``: privacy amplification by shuffling and subsampling, shuffle -> LDP."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Any

from ..errors import InvalidParameterError
from .mechanisms import add_source_arguments, ordinary, resolve_mechanism
from .output import fmt, jsonable, positive_int, print_table

__all__ = [
    "SHUFFLE_METHODS",
    "cmd_shuffle",
    "cmd_shuffle_to_ldp",
    "cmd_subsample",
    "register",
]

SHUFFLE_METHODS = ("numeric", "closed_form", "closed_form_fmt21")
"""The ``method`` values of :func:`mechdesign.accounting.shuffle_epsilon`."""


def _dump(records: list[dict]) -> None:
    print(json.dumps(jsonable(records), indent=2))


def cmd_shuffle(args: argparse.Namespace) -> int:
    from ..accounting import exact_shuffle_epsilon, robust_shuffle_epsilon
    from ..privacy import epsilon_ldp

    if (args.source is None) == (args.epsilon0 is None):
        raise InvalidParameterError("give either a mechanism (NAME key=value ... or a file) "
                                    "or --epsilon0, not both")
    if args.exact and args.source is None:
        raise InvalidParameterError("--exact needs a mechanism (NAME key=value ... or a file): "
                                    "the exact shuffle is of a finite randomizer")
    mech = None
    if args.source is not None:
        mech = ordinary(resolve_mechanism(args.source, args.params))
        eps0 = epsilon_ldp(mech)
    else:
        if args.params:
            raise InvalidParameterError(f"parameters {args.params!r} need a mechanism name")
        eps0 = args.epsilon0
    methods = SHUFFLE_METHODS if args.method == "all" else (args.method,)
    results = [robust_shuffle_epsilon(eps0, args.n, args.delta, args.gamma, method)
               for method in methods]
    exact = (exact_shuffle_epsilon(mech, args.n, args.delta, gamma=args.gamma)
             if args.exact else None)
    if args.json:
        records = [asdict(r) for r in results]
        if exact is not None:
            records.append({"method": "exact", **asdict(exact)})
        _dump(records)
        return 0
    honest = results[0].n
    who = f"{args.n} users" if honest == args.n else f"{honest} honest users of {args.n}"
    print(f"{who}, each {fmt(eps0)}-LDP, reports shuffled; delta = {fmt(args.delta)}")
    rows = []
    if exact is not None:
        rows.append(("exact", fmt(exact.epsilon), "", "", "this randomizer, worst datasets"))
    for r in results:
        bracket = f"[{fmt(r.lower)}, {fmt(r.upper)}]" if r.method == "numeric" else ""
        flags = []
        if not r.valid:
            flags.append("outside validity range")
        if r.restricted:
            flags.append("restricted class (erratum)")
        rows.append((r.method, fmt(r.epsilon), bracket, fmt(r.formula), "; ".join(flags)))
    print_table(rows, ("method", "epsilon", "bracket", "formula", "caveats"))
    for r in results:
        if r.restricted or not r.valid:
            print(f"note ({r.method}): {r.note}")
    return 0


def _report(args: argparse.Namespace, g: Any, inputs: tuple[str, ...],
            header: tuple[str, ...]) -> int:
    """One guarantee as JSON or as a one-row table (inputs, then epsilon and delta)."""
    if args.json:
        _dump([asdict(g)])
    else:
        print_table([(*inputs, fmt(g.epsilon), fmt(g.delta))], header)
    return 0


def cmd_subsample(args: argparse.Namespace) -> int:
    from ..accounting import subsampling_bound

    if (args.source is None) == (args.epsilon is None):
        raise InvalidParameterError("give either a mechanism (NAME key=value ... or a file), "
                                    "for its exact subsampled matrix, or --epsilon, not both")
    if args.source is not None:
        return _exact_subsample(args)
    if args.reference is not None:
        raise InvalidParameterError("--reference needs a mechanism (the subsampled matrix)")
    g = subsampling_bound(args.epsilon, args.delta, args.p)
    return _report(args, g, (fmt(args.epsilon), fmt(args.delta), fmt(args.p)),
                   ("epsilon", "delta", "p", "amplified epsilon", "amplified delta"))


def _subsampling_reference(mech: Any, text: str) -> Any:
    """``--reference``: ``null`` (a new output), ``uniform`` (over the outputs) or ``row:X``
    (the row of input X, by label or index: report as if the value were X)."""
    import numpy as np

    if text in ("null", "uniform"):
        return "null" if text == "null" else np.full(mech.n_outputs, 1.0 / mech.n_outputs)
    if text.startswith("row:"):
        key = text[4:]
        labels = [str(x) for x in mech.inputs]
        if key in labels:
            return mech.matrix[labels.index(key)]
        if key.isdigit() and int(key) < mech.n_inputs:
            return mech.matrix[int(key)]
    raise InvalidParameterError(f"--reference must be null, uniform or row:X with X an input "
                                f"of {list(mech.inputs)!r}, got {text!r}")


def _exact_subsample(args: argparse.Namespace) -> int:
    from ..accounting import exact_subsampling_epsilon

    mech = ordinary(resolve_mechanism(args.source, args.params))
    sp = exact_subsampling_epsilon(mech, args.p,
                                   _subsampling_reference(mech, args.reference or "null"))
    if args.json:
        _dump([{"p": sp.p, "epsilon": sp.epsilon,
                "epsilon_replacement": sp.epsilon_replacement,
                "epsilon_input": sp.epsilon_input, "bound": sp.bound,
                "outputs": list(sp.mechanism.outputs)}])
        return 0
    print(f"subsampled with p = {fmt(sp.p)}, reference {args.reference or 'null'}: "
          f"{sp.mechanism.n_inputs - 1} inputs and the absent user x "
          f"{sp.mechanism.n_outputs} outputs")
    print_table([("exact, every pair (replacement and absent)", fmt(sp.epsilon)),
                 ("exact, present users only (replacement)", fmt(sp.epsilon_replacement)),
                 ("theorem: ln(1 + p(e^eps_in - 1)), eps_in = " + fmt(sp.epsilon_input),
                  fmt(sp.bound))], ("epsilon", "value"))
    return 0


def cmd_shuffle_to_ldp(args: argparse.Namespace) -> int:
    from ..accounting import shuffle_to_ldp

    g = shuffle_to_ldp(args.epsilon, args.delta, args.n)
    return _report(args, g, (fmt(args.epsilon), fmt(args.delta), str(args.n)),
                   ("shuffle epsilon", "shuffle delta", "n", "LDP epsilon", "LDP delta"))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "amplify", help="privacy amplification by shuffling or subsampling",
        description="Amplification by shuffling (FMT21 clone bound computed exactly, or the "
                    "closed forms), by subsampling (Thm 6.1), and one-message shuffle -> LDP "
                    "(Thm 5.1).")
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)

    s = kinds.add_parser("shuffle", help="n shuffled eps0-LDP reports",
                         description="Epsilon of n shuffled reports of an eps0-LDP randomizer "
                                     "(a catalog mechanism, a matrix file, or --epsilon0).")
    add_source_arguments(s, optional=True)
    s.add_argument("--epsilon0", type=float, help="the local epsilon (instead of a mechanism)")
    s.add_argument("--n", type=positive_int, required=True, help="number of users (1e5 accepted)")
    s.add_argument("--delta", type=float, required=True, help="target delta")
    s.add_argument("--method", choices=(*SHUFFLE_METHODS, "all"), default="numeric")
    s.add_argument("--gamma", type=float, default=1.0,
                   help="robust shuffle privacy: at least this fraction of the users is honest "
                        "(the reports of ceil(gamma n) users are shuffled; default 1)")
    s.add_argument("--exact", action="store_true",
                   help="also the exact epsilon of this randomizer's shuffled histogram "
                        "(small n; needs a mechanism)")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=cmd_shuffle)

    u = kinds.add_parser("subsample", help="Poisson/uniform subsampling with probability p",
                         description="The subsampling theorem for an (eps, delta)-DP mechanism "
                                     "(--epsilon), or the exact epsilon of a finite "
                                     "randomizer's subsampled matrix (a catalog mechanism or "
                                     "a matrix file) beside the theorem.")
    add_source_arguments(u, optional=True)
    u.add_argument("--epsilon", type=float, help="the mechanism's epsilon (theorem only)")
    u.add_argument("--delta", type=float, default=0.0)
    u.add_argument("--p", type=float, required=True, help="inclusion probability")
    u.add_argument("--reference", metavar="null|uniform|row:X",
                   help="with a mechanism: what an unsampled user reports (default null, a "
                        "new output; uniform over the outputs; row:X as if the value were X)")
    u.add_argument("--json", action="store_true")
    u.set_defaults(func=cmd_subsample)

    t = kinds.add_parser("shuffle-to-ldp", help="one-message shuffle DP -> LDP of the randomizer")
    t.add_argument("--epsilon", type=float, required=True, help="shuffle-model epsilon")
    t.add_argument("--delta", type=float, default=0.0, help="shuffle-model delta")
    t.add_argument("--n", type=positive_int, required=True, help="number of users")
    t.add_argument("--json", action="store_true")
    t.set_defaults(func=cmd_shuffle_to_ldp)
