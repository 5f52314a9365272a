"""``mechdesign check``: every applicable privacy measure of a mechanism."""

from __future__ import annotations

import argparse
import inspect
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import catalog
from ..errors import InvalidParameterError
from ..evidential import EvidentialMechanism
from ..io.matrices import load_mechanism
from ..mechanism import Mechanism
from ..neighbors import line_distance
from ..privacy.report import privacy_report, ratio, skipped_measures
from .output import fmt, print_table


def _parse_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise InvalidParameterError(f"parameter value {text!r} is not a number or true/false"
                                    ) from None


def build_from_catalog(name: str, params: Sequence[str]) -> Mechanism | EvidentialMechanism:
    """Call catalog constructor ``name`` with ``key=value`` parameters."""
    ctor = catalog.CATALOG.get(name)
    if ctor is None:
        raise InvalidParameterError(
            f"unknown mechanism {name!r}; catalog names: {', '.join(catalog.CATALOG)} "
            "(or give a .csv/.json/.toml file)")
    kwargs: dict[str, Any] = {}
    for item in params:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InvalidParameterError(f"parameters are key=value, got {item!r}")
        key = key.strip()
        if key in kwargs:
            raise InvalidParameterError(f"parameter {key!r} is given twice; give it once")
        kwargs[key] = _parse_value(value.strip())
    sig = inspect.signature(ctor)
    unknown = [k for k in kwargs if k not in sig.parameters]
    if unknown:
        raise InvalidParameterError(
            f"{name} has no parameter {unknown[0]!r}; signature {name}{sig}")
    try:
        sig.bind(**kwargs)
    except TypeError as exc:
        raise InvalidParameterError(
            f"{name}{sig}: {exc}") from None
    return ctor(**kwargs)


def resolve_mechanism(source: str, params: Sequence[str]) -> Mechanism | EvidentialMechanism:
    """A catalog name with parameters, or a mechanism file."""
    if source in catalog.CATALOG:
        return build_from_catalog(source, params)
    if Path(source).suffix.lower() in (".csv", ".json", ".toml") or Path(source).exists():
        if params:
            raise InvalidParameterError(f"parameters {list(params)!r} make no sense for a file")
        return load_mechanism(source)
    return build_from_catalog(source, params)


def _describe(m: Mechanism | EvidentialMechanism) -> str:
    if isinstance(m, EvidentialMechanism):
        return (f"evidential mechanism: {m.n_inputs} inputs, {len(m.focal_sets)} focal sets "
                f"over outputs {list(m.outputs)!r}")
    name = f" {m.name}" if m.name else ""
    return f"mechanism{name}: {m.n_inputs} inputs x {m.n_outputs} outputs"


def cmd_check(args: argparse.Namespace) -> int:
    m = resolve_mechanism(args.source, args.params)
    distance = None
    if args.metric == "line":
        distance = line_distance(m.n_inputs)
    elif args.metric:
        try:
            distance = np.loadtxt(args.metric, delimiter=",", ndmin=2)
        except (OSError, ValueError) as exc:
            raise InvalidParameterError(f"cannot read distance matrix {args.metric!r}: {exc}"
                                        ) from None
    report = privacy_report(m, epsilons=args.epsilon or (), distance=distance)
    skipped = skipped_measures(m)
    if args.json:
        print(json.dumps({"mechanism": _describe(m),
                          "measures": {k: (None if math.isinf(v) else v)
                                       for k, v in report.items()},
                          "infinite": [k for k, v in report.items() if math.isinf(v)],
                          "skipped": skipped},
                         indent=2))
        return 0
    print(_describe(m))
    rows = []
    for key, value in report.items():
        if key.startswith("delta"):
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
        description="Measure a catalog mechanism (NAME key=value ...) or a matrix file "
                    "(.csv, .json, .toml) exactly. Catalog names: " + ", ".join(catalog.CATALOG))
    check.add_argument("source", help="catalog name or mechanism file")
    check.add_argument("params", nargs="*", help="catalog parameters as key=value")
    check.add_argument("--epsilon", type=float, action="append", metavar="EPS",
                       help="also report delta_ldp at this epsilon (repeatable)")
    check.add_argument("--metric", metavar="line|FILE",
                       help="also report metric privacy: 'line' for |x - x'|, or a CSV matrix")
    check.add_argument("--json", action="store_true", help="machine-readable output")
    check.set_defaults(func=cmd_check)
