"""``mechdesign sample`` and ``mechdesign estimate``: run a survey with a randomizer.

``sample SOURCE --values FILE`` is the respondents' side: one report per value, drawn
exactly from the operating system's secure source (``--seed`` makes them reproducible, for
experiments only). ``estimate SOURCE --reports FILE`` is the analyst's side: unbiased
frequency estimates, standard errors and confidence intervals.

SOURCE is a frequency oracle (``local_hashing k=1000 epsilon=1``; names and aliases in
:data:`ORACLE_ALIASES`), a catalog mechanism with its parameters, or a file: a mechanism
matrix (``.csv``, ``.json``, ``.toml``), an oracle description, or the JSON written by
``mechdesign solve --json`` / ``--out FILE.json``. File formats: :mod:`mechdesign.io.survey`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from ..errors import InvalidParameterError
from .mechanisms import (
    add_source_arguments,
    catalog_names,
    is_file_source,
    ordinary,
    parse_parameters,
    resolve_mechanism,
    source_inputs,
)
from .output import (
    add_force_argument,
    check_suffix,
    fmt,
    jsonable,
    non_negative_int,
    open_unit_interval,
    plan_outputs,
    print_table,
    write_planned,
)

__all__ = [
    "ORACLE_ALIASES",
    "ORACLE_PREFIX",
    "cmd_estimate",
    "cmd_sample",
    "register",
    "resolve_randomizer",
]

if TYPE_CHECKING:
    from ..mechanism import Mechanism
    from ..oracles import FrequencyOracle

ORACLE_ALIASES = {"krr": ("randomized_response", {}), "grr": ("randomized_response", {}),
                  "sue": ("unary_encoding", {}), "rappor": ("unary_encoding", {}),
                  "oue": ("unary_encoding", {"optimized": True}),
                  "ss": ("subset_selection", {}), "hr": ("hadamard_response", {}),
                  "olh": ("local_hashing", {})}
"""Short names of the oracles (with the parameters they imply)."""

ORACLE_PREFIX = "oracle:"
"""``oracle:NAME`` picks the oracle where a catalog mechanism has the same name
(``randomized_response``, ``unary_encoding``, ``subset_selection``, ``hadamard_response``)."""


def resolve_randomizer(source: str, params: list[str]) -> FrequencyOracle | Mechanism:
    """The randomizer a survey command names (module docstring)."""
    from ..oracles import ORACLES, oracle

    prefixed = source.startswith(ORACLE_PREFIX)
    name = source[len(ORACLE_PREFIX):] if prefixed else source
    if name in ORACLE_ALIASES or (name in ORACLES and (
            prefixed or name not in catalog_names())):
        family, implied = ORACLE_ALIASES.get(name, (name, {}))
        return oracle(family, **{**implied, **parse_parameters(params)})
    if prefixed:
        raise InvalidParameterError(
            f"unknown oracle {name!r}; choose from {sorted(ORACLES)} or the aliases "
            f"{sorted(ORACLE_ALIASES)}")
    if is_file_source(source):
        from ..io.survey import load_randomizer

        if params:
            raise InvalidParameterError(f"parameters {params!r} make no sense for a file")
        return load_randomizer(source)
    return ordinary(resolve_mechanism(source, params))


def _describe(randomizer: Any) -> str:
    from ..io.survey import describe

    return describe(randomizer)


def cmd_sample(args: argparse.Namespace) -> int:
    from ..io.survey import format_reports, read_values

    inputs = [*source_inputs(args.source), args.values]
    out = None
    if args.out:
        out = plan_outputs([check_suffix(args.out, (".txt",))], force=args.force,
                           inputs=inputs)[0]
    randomizer = resolve_randomizer(args.source, args.params)
    values = read_values(args.values, randomizer)
    reports = randomizer.sample(values, rng=args.seed)
    text = format_reports(randomizer, reports)
    if args.seed is not None:
        print("mechdesign: --seed makes the reports reproducible: for experiments, never for "
              "deployment", file=sys.stderr)
    if out is None:
        sys.stdout.write(text)
        return 0
    print(f"{_describe(randomizer)}: {len(values)} reports")
    write_planned([(out, lambda tmp: tmp.write_text(text))], force=args.force)
    return 0


def cmd_estimate(args: argparse.Namespace) -> int:
    from ..io.survey import read_reports
    from ..oracles.survey import estimate_survey

    inputs = [*source_inputs(args.source), args.reports]
    out = None
    if args.out:
        out = plan_outputs([check_suffix(args.out, (".csv", ".json"))], force=args.force,
                           inputs=inputs)[0]
    randomizer = resolve_randomizer(args.source, args.params)
    reports = read_reports(args.reports, randomizer)
    res = estimate_survey(randomizer, reports, confidence=args.confidence, post=args.post,
                          estimator=args.estimator)
    record = {"randomizer": _describe(randomizer), **res.to_dict(),
              "values": [str(v) for v in res.values]}
    if args.json:
        print(json.dumps(jsonable(record), indent=2))
    else:
        pct = f"{100 * res.confidence:g}%"
        basis = ("the Cramer-Rao bound at the maximum-likelihood estimate"
                 if res.estimator == "mle" else "the exact variance at the plug-in frequencies")
        print(f"{record['randomizer']}: {res.n} reports; {pct} normal intervals from {basis}")
        rows = [(str(v), fmt(e), fmt(s), fmt(lo), fmt(hi), fmt(a))
                for v, e, s, lo, hi, a in zip(res.values, res.estimate, res.standard_error,
                                              res.lower, res.upper, res.adjusted,
                                              strict=True)]
        shown = rows if args.all or len(rows) <= 40 else rows[:40]
        print_table(shown, ("value", "estimate", "std error", f"{pct} low", f"{pct} high",
                            f"post={res.post}"))
        if len(shown) < len(rows):
            print(f"... {len(rows) - len(shown)} more values (--all, --json or --out FILE "
                  "has them all)")
    if out is not None:
        write_planned([(out, lambda tmp: _write_table(tmp, record))], force=args.force,
                      to_stderr=args.json)
    return 0


def _write_table(path: Any, record: dict) -> None:
    if path.suffix.lower() == ".json":
        path.write_text(json.dumps(jsonable(record), indent=2))
        return
    lines = ["value,estimate,standard_error,lower,upper,adjusted"]
    lines += [",".join([json.dumps(v), *(repr(float(x)) for x in row)])
              for v, *row in zip(record["values"], record["estimate"],
                                 record["standard_error"], record["lower"], record["upper"],
                                 record["adjusted"], strict=True)]
    path.write_text("\n".join(lines) + "\n")


SOURCE_HELP = ("a frequency oracle (randomized_response is the catalog matrix; write "
               "oracle:randomized_response for the oracle) or alias "
               f"({', '.join(sorted(ORACLE_ALIASES))}) with key=value parameters, a catalog "
               "mechanism, or a file: mechanism matrix, oracle JSON, or 'mechdesign solve' "
               "JSON output")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sample", help="respondents' side: turn true values into randomized reports",
        description="Randomize each value of --values (one per line) and print the reports "
                    "(one per line, in order), exactly and from the operating system's "
                    "secure random source. SOURCE: " + SOURCE_HELP + ".")
    add_source_arguments(p)
    p.add_argument("--values", required=True, metavar="FILE",
                   help="respondents' values, one per line (integers 0..k-1 for an oracle, "
                        "input labels for a mechanism)")
    p.add_argument("--out", metavar="FILE.txt", help="write the reports here, not to stdout")
    p.add_argument("--seed", type=non_negative_int, metavar="N",
                   help="reproducible reports from a seeded generator (experiments only; "
                        "never for deployment)")
    add_force_argument(p)
    p.set_defaults(func=cmd_sample)

    e = sub.add_parser(
        "estimate", help="analyst's side: frequency estimates with standard errors and "
                         "confidence intervals from reports",
        description="Estimate the frequency of every value from the reports of --reports "
                    "(as 'mechdesign sample' writes them): unbiased estimates, standard "
                    "errors from the exact variance at the plug-in frequencies, normal "
                    "confidence intervals. SOURCE: " + SOURCE_HELP + ".")
    add_source_arguments(e)
    e.add_argument("--reports", required=True, metavar="FILE",
                   help="the reports, one per line")
    e.add_argument("--confidence", type=open_unit_interval, default=0.95,
                   help="confidence level of the intervals (default 0.95)")
    e.add_argument("--post", choices=("none", "project", "norm-sub"), default="none",
                   help="also report post-processed estimates: projected onto the simplex "
                        "or Norm-Sub (both distributions, biased)")
    e.add_argument("--estimator", choices=("inverse", "mle", "unbiased"), default="inverse",
                   help="inverse (the unbiased inverse estimator: support counts for an "
                        "oracle; 'unbiased' is its former name) or mle (a matrix only: "
                        "maximum likelihood, Cramer-Rao standard errors; use it for designed "
                        "mechanisms, whose design minimises the Cramer-Rao value)")
    e.add_argument("--json", action="store_true", help="machine-readable output")
    e.add_argument("--all", action="store_true", help="print every value (default: 40)")
    e.add_argument("--out", metavar="FILE.csv|FILE.json", help="write the table to a file")
    add_force_argument(e)
    e.set_defaults(func=cmd_estimate)
