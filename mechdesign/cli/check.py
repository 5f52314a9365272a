"""``mechdesign check``: every applicable privacy measure of a mechanism."""

from __future__ import annotations

import argparse
import json
import math
from functools import partial
from typing import TYPE_CHECKING

from ..errors import InvalidParameterError
from .mechanisms import (
    add_source_arguments,
    catalog_help,
    describe_mechanism,
    resolve_mechanism,
)
from .output import fmt, jsonable, print_table

__all__ = [
    "cmd_check",
    "register",
]

if TYPE_CHECKING:
    import numpy as np


def _distance(metric: str | None, k: int) -> np.ndarray | None:
    """The distance of ``--metric``: None, the line ``|x - x'|``, or a CSV matrix."""
    if not metric:
        return None
    if metric == "line":
        from ..neighbors import line_distance

        return line_distance(k)
    import numpy as np

    try:
        return np.loadtxt(metric, delimiter=",", ndmin=2)
    except (OSError, ValueError) as exc:
        raise InvalidParameterError(f"cannot read distance matrix {metric!r}: {exc}") from None


def _other_views(m: object, args: argparse.Namespace) -> dict[str, float]:
    """The Rényi curve at ``--renyi`` orders, zCDP's rho (``--zcdp``) and the Bayes capacity
    (``--leakage``) of the mechanism (of its messages, for an evidential one)."""
    from ..evidential import EvidentialMechanism

    plain = m.to_mechanism() if isinstance(m, EvidentialMechanism) else m
    out: dict[str, float] = {}
    if args.renyi:
        from ..accounting import renyi_epsilon

        for alpha in args.renyi:
            if not alpha >= 0:
                raise InvalidParameterError(f"--renyi orders must be >= 0, got {alpha!r}")
            out[f"renyi_epsilon@{alpha:g}"] = float(renyi_epsilon(plain, alpha))
    if args.zcdp:
        from ..accounting import zcdp_rho

        out["zcdp_rho"] = zcdp_rho(plain).rho
    if args.leakage:
        from ..privacy import bayes_capacity, min_entropy_capacity

        out["bayes_capacity"] = float(bayes_capacity(plain))
        out["min_entropy_capacity_bits"] = min_entropy_capacity(plain)
    return out


def cmd_check(args: argparse.Namespace) -> int:
    from ..privacy.report import privacy_report, ratio, skipped_measures

    m = resolve_mechanism(args.source, args.params)
    distance = _distance(args.metric, m.n_inputs)
    report = privacy_report(m, epsilons=args.epsilon or (), distance=distance)
    epsilons = set(report)  # the measures in epsilon units (an e^value column)
    report.update(_other_views(m, args))
    skipped = skipped_measures(m)
    if args.json:
        print(json.dumps({"mechanism": describe_mechanism(m),
                          "measures": jsonable(report),
                          "infinite": [k for k, v in report.items() if math.isinf(v)],
                          "skipped": skipped},
                         indent=2))
        return 0
    print(describe_mechanism(m))
    rows = []
    for key, value in report.items():
        if key.startswith("delta") or key not in epsilons:
            rows.append((key, fmt(value), ""))
        else:
            rows.append((key, fmt(value), fmt(ratio(value))))
    print_table(rows, ("measure", "value", "e^value"))
    if skipped:
        reasons = set(skipped.values())
        why = reasons.pop() if len(reasons) == 1 else "; ".join(
            f"{k}: {v}" for k, v in skipped.items())
        print(f"skipped: {', '.join(skipped)} ({why})")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    check = sub.add_parser(
        "check", help="print every applicable privacy measure of a mechanism",
        description=partial(catalog_help, "Measure a catalog mechanism (NAME key=value ...) "
                            "or a matrix file (.csv, .json, .toml) exactly."))
    add_source_arguments(check)
    check.add_argument("--epsilon", type=float, action="append", metavar="EPS",
                       help="also report delta_ldp at this epsilon (repeatable)")
    check.add_argument("--metric", metavar="line|FILE",
                       help="also report metric privacy: 'line' for |x - x'|, or a CSV matrix")
    check.add_argument("--renyi", type=float, action="append", metavar="ALPHA",
                       help="also report the Rényi DP epsilon at this order (repeatable; "
                            "inf is epsilon_ldp)")
    check.add_argument("--zcdp", action="store_true",
                       help="also report zCDP's rho = sup eps(alpha)/alpha")
    check.add_argument("--leakage", action="store_true",
                       help="also report the Bayes capacity sum_y max_x Q[x, y] (the largest "
                            "multiplicative Bayes leakage) and its log2, the min-entropy "
                            "capacity in bits")
    check.add_argument("--json", action="store_true", help="machine-readable output")
    check.set_defaults(func=cmd_check)
