"""``mechdesign calibrate``: the parameter that meets a central (epsilon, delta) target
after composition, shuffling or subsampling (:mod:`mechdesign.accounting.calibration`)."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from functools import partial
from typing import TYPE_CHECKING, Any

from ..errors import InvalidParameterError
from .mechanisms import add_source_arguments, catalog_help, is_file_source, parse_parameters
from .output import jsonable, positive_int, print_table

__all__ = [
    "cmd_compose",
    "cmd_shuffle",
    "cmd_subsample",
    "register",
]

if TYPE_CHECKING:
    from ..accounting.calibration import Calibration


def _number(x: Any) -> str:
    """A value as Python writes it (every digit: the two ends of a step are adjacent
    doubles, which 10 significant digits would print alike)."""
    return repr(float(x)) if isinstance(x, float) else str(x)


def _print(c: Calibration, as_json: bool) -> int:
    if as_json:
        record = asdict(c)
        record["bracket"] = list(c.bracket)
        print(json.dumps(jsonable(record), indent=2))
        return 0
    print(f"{c.direction} {c.parameter} meeting (epsilon, delta) = "
          f"({_number(c.target_epsilon)}, {_number(c.target_delta)}): {c.question}")
    rows = [("calibrated", _number(c.value), _number(c.achieved[0]), _number(c.achieved[1]),
             "yes")]
    if c.infeasible is not None and c.missed is not None:
        nxt = "next double" if isinstance(c.value, float) else "next integer"
        rows.append((nxt, _number(c.infeasible), _number(c.missed[0]), _number(c.missed[1]),
                     "no"))
    print_table(rows, ("point", c.parameter, "epsilon", "delta", "target met"))
    if c.infeasible is None:
        print(f"the whole searched range meets the target{': ' + c.note if c.note else ''}")
    elif c.note:
        print(f"note: {c.note}")
    kind = "exact" if c.exact else "grid bracket (pessimistic end; 'no' is not certain)"
    print(f"method: {c.method}; {kind}; {c.evaluations} forward computations")
    return 0


def _integer_bounds(bounds: list[float] | None) -> tuple[int, int] | None:
    """``--bounds`` of an integer parameter (k, n) as integers."""
    if bounds is None:
        return None
    if not all(float(b).is_integer() for b in bounds):
        raise InvalidParameterError(f"--bounds of an integer parameter must be integers, got "
                                    f"{bounds!r}")
    return int(bounds[0]), int(bounds[1])


def cmd_compose(args: argparse.Namespace) -> int:
    from ..accounting.calibration import calibrate_composition

    targets = {"target_epsilon": args.epsilon, "target_delta": args.delta}
    free = args.free
    if free == "k":
        if args.k is not None:
            raise InvalidParameterError("--free k calibrates the number of uses: leave out --k")
        if is_file_source(args.source):
            from ..io import load_mechanism
            from .mechanisms import ordinary

            if args.params:
                raise InvalidParameterError(
                    f"parameters {list(args.params)!r} make no sense for a file")
            c = calibrate_composition(ordinary(load_mechanism(args.source)), "k",
                                      bounds=_integer_bounds(args.bounds), method=args.method,
                                      **targets)
        else:
            c = calibrate_composition(args.source, "k", params=parse_parameters(args.params),
                                      bounds=_integer_bounds(args.bounds), method=args.method,
                                      **targets)
        return _print(c, args.json)
    if args.k is None:
        raise InvalidParameterError(f"give --k, the number of uses (calibrating {free!r})")
    if is_file_source(args.source):
        raise InvalidParameterError(
            f"a mechanism file has no parameter {free!r} to calibrate: use a catalog name, or "
            "--free k for the number of uses")
    c = calibrate_composition(args.source, free, k=args.k, params=parse_parameters(args.params),
                              bounds=args.bounds, method=args.method, **targets)
    return _print(c, args.json)


def cmd_shuffle(args: argparse.Namespace) -> int:
    from ..accounting.calibration import calibrate_shuffle

    if (args.n is None) == (args.epsilon0 is None):
        raise InvalidParameterError(
            "give --n (to calibrate epsilon0) or --epsilon0 (to calibrate n), not both")
    free = "epsilon0" if args.n is not None else "n"
    c = calibrate_shuffle(free, target_epsilon=args.epsilon, target_delta=args.delta,
                          n=args.n, epsilon0=args.epsilon0,
                          bounds=_integer_bounds(args.bounds) if free == "n" else args.bounds)
    return _print(c, args.json)


def cmd_subsample(args: argparse.Namespace) -> int:
    from ..accounting.calibration import calibrate_subsampling

    if (args.p is None) == (args.epsilon0 is None):
        raise InvalidParameterError(
            "give --epsilon0 (to calibrate p) or --p (to calibrate epsilon0), not both")
    free = "p" if args.epsilon0 is not None else "epsilon0"
    c = calibrate_subsampling(free, target_epsilon=args.epsilon, target_delta=args.delta,
                              epsilon0=args.epsilon0, delta0=args.delta0, p=args.p,
                              bounds=args.bounds)
    return _print(c, args.json)


def _add_common(p: argparse.ArgumentParser, bounds_help: str) -> None:
    p.add_argument("--epsilon", type=float, required=True, help="target (central) epsilon")
    p.add_argument("--delta", type=float, required=True, help="target (central) delta")
    p.add_argument("--bounds", type=float, nargs=2, metavar=("LOW", "HIGH"),
                   help=f"searched range ({bounds_help})")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "calibrate", help="the parameter that meets an (epsilon, delta) target",
        description="Calibration, the inverse of compose and amplify: the largest per-use "
                    "epsilon (or number of uses k) of a composition, the largest epsilon0 "
                    "or smallest n of a shuffle, the largest p or epsilon0 of a subsample "
                    "that meets a central (epsilon, delta) target. Exact: the value meets the "
                    "target and the next one (double or integer) does not; both are printed.")
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)

    c = kinds.add_parser(
        "compose", help="per-use parameter or number of uses of a composition",
        description=partial(
            catalog_help, "The largest value of a catalog mechanism's parameter (--free, "
            "default epsilon) such that its --k-fold composition meets the target, or the "
            "largest number of uses (--free k; a matrix file too), from the exact "
            "privacy-loss atoms."))
    add_source_arguments(c)
    c.add_argument("--free", default="epsilon", metavar="NAME",
                   help="the calibrated parameter: a parameter of the mechanism (default "
                        "epsilon) or k, the number of uses")
    c.add_argument("--k", type=positive_int, help="number of uses (1e3 accepted)")
    c.add_argument("--method", choices=("auto", "exact", "grid"), default="auto",
                   help="composition method (auto: exact unless too many atoms)")
    _add_common(c, "default: 0 to the largest epsilon the catalog builds; 1 to 1e6 for k")
    c.set_defaults(func=cmd_compose)

    s = kinds.add_parser(
        "shuffle", help="largest epsilon0 for n users, or smallest n for epsilon0",
        description="The largest local epsilon0 for --n users, or the smallest number of "
                    "users for --epsilon0, at which the FMT21 clone bound (computed exactly) "
                    "certifies the central target.")
    s.add_argument("--n", type=positive_int, help="number of users: calibrate epsilon0")
    s.add_argument("--epsilon0", type=float, help="local epsilon: calibrate n")
    _add_common(s, "default: epsilon0 in [0, 300], n in [1, 1e9]")
    s.set_defaults(func=cmd_shuffle)

    u = kinds.add_parser(
        "subsample", help="largest sampling probability p, or largest epsilon0",
        description="The largest inclusion probability p for an (epsilon0, delta0)-DP "
                    "mechanism, or the largest epsilon0 for --p, such that subsampling "
                    "(Thm 6.1: ln(1 + p(e^epsilon0 - 1)), p delta0) meets the target.")
    u.add_argument("--epsilon0", type=float, help="the mechanism's epsilon: calibrate p")
    u.add_argument("--p", type=float, help="inclusion probability: calibrate epsilon0")
    u.add_argument("--delta0", type=float, default=0.0, help="the mechanism's delta (default 0)")
    _add_common(u, "default: p in [0, 1], epsilon0 in [0, inf]")
    u.set_defaults(func=cmd_subsample)
