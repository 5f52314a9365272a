"""The mechanism a command names: a catalog constructor with ``key=value`` parameters, or a
matrix file (``.csv``, ``.json``, ``.toml``). Shared by ``check``, ``tradeoff``, ``compose``
and ``amplify``; also the positional arguments that name what a command reads (a mechanism,
or the problem file of ``solve`` and ``frontier``).

The catalog is imported when a mechanism is built or a command's help is shown, not when
the parser is built, so ``mechdesign --help`` stays fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidParameterError

__all__ = [
    "MECHANISM_SUFFIXES",
    "add_problem_file_arguments",
    "add_source_arguments",
    "build_from_catalog",
    "catalog_help",
    "catalog_names",
    "describe_mechanism",
    "is_file_source",
    "load_problem_argument",
    "ordinary",
    "parse_parameters",
    "parse_value",
    "resolve_mechanism",
    "source_inputs",
]

if TYPE_CHECKING:
    from ..evidential import EvidentialMechanism
    from ..mechanism import Mechanism

MECHANISM_SUFFIXES = (".csv", ".json", ".toml")
"""Suffixes read as mechanism files (anything else that exists is tried as one too)."""


def add_source_arguments(parser: argparse.ArgumentParser, optional: bool = False) -> None:
    """The positional ``SOURCE [key=value ...]`` of the commands that read one mechanism: a
    catalog name with its parameters, or a matrix file (``optional``: may be left out)."""
    parser.add_argument("source", nargs="?" if optional else None,
                        help="catalog name or mechanism file" + (" (optional)" if optional
                                                                   else ""))
    parser.add_argument("params", nargs="*", help="catalog parameters as key=value")


def add_problem_file_arguments(parser: argparse.ArgumentParser) -> None:
    """The problem file (positional ``file``, or ``--example NAME`` for a built-in one) and
    the file policy's opt-in, as ``solve`` and ``frontier`` take them."""
    parser.add_argument("file", nargs="?", help="problem file (.toml)")
    parser.add_argument("--example", metavar="NAME",
                        help="a built-in problem file instead of FILE (list them with "
                             "'mechdesign examples'), e.g. krr_hamming")
    parser.add_argument("--allow-outside-paths", action="store_true",
                        help="let the problem file name files outside its folder (absolute "
                             "paths, '..', symbolic links); refused by default")


def load_problem_argument(args: argparse.Namespace) -> Any:
    """The :class:`~mechdesign.io.ProblemFile` named by ``file`` or ``--example`` (exactly
    one of them)."""
    from ..io import example_path, load_problem

    if (args.file is None) == (args.example is None):
        raise InvalidParameterError(
            "give a problem file or --example NAME (one of them, not both)"
            if args.file is not None else
            "no problem file: give FILE.toml or --example NAME ('mechdesign examples' "
            "lists the built-in ones)")
    path = args.file if args.example is None else example_path(args.example)
    return load_problem(path, allow_outside=args.allow_outside_paths)


def catalog_names() -> list[str]:
    """The names of the catalog constructors (:data:`mechdesign.catalog.CATALOG`)."""
    from .. import catalog

    return list(catalog.CATALOG)


def catalog_help(text: str) -> str:
    """``text`` followed by the catalog names, for a command's description."""
    return f"{text} Catalog names: {', '.join(catalog_names())}"


def parse_value(text: str) -> bool | int | float:
    """A catalog parameter's value: ``true``/``false`` (any case), an int, or a float.

    Raises
    ------
    InvalidParameterError
        Naming the value when it is none of these.
    """
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


def parse_parameters(params: Sequence[str]) -> dict[str, Any]:
    """``key=value`` words as a dict (values by :func:`parse_value`); a key given twice is
    refused."""
    kwargs: dict[str, Any] = {}
    for item in params:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InvalidParameterError(f"parameters are key=value, got {item!r}")
        key = key.strip()
        if key in kwargs:
            raise InvalidParameterError(f"parameter {key!r} is given twice; give it once")
        kwargs[key] = parse_value(value.strip())
    return kwargs


def build_from_catalog(name: str, params: Sequence[str]) -> Mechanism | EvidentialMechanism:
    """Call catalog constructor ``name`` with ``key=value`` parameters, checked against its
    signature (an unknown or missing parameter names the signature)."""
    import inspect

    from .. import catalog

    ctor = catalog.CATALOG.get(name)
    if ctor is None:
        raise InvalidParameterError(
            f"unknown mechanism {name!r}; catalog names: {', '.join(catalog.CATALOG)} "
            "(or give a .csv/.json/.toml file)")
    kwargs = parse_parameters(params)
    sig = inspect.signature(ctor)
    unknown = [k for k in kwargs if k not in sig.parameters]
    if unknown:
        raise InvalidParameterError(
            f"{name} has no parameter {unknown[0]!r}; signature {name}{sig}")
    try:
        sig.bind(**kwargs)
    except TypeError as exc:
        raise InvalidParameterError(f"{name}{sig}: {exc}") from None
    return ctor(**kwargs)


def is_file_source(source: str) -> bool:
    """True when ``source`` names a mechanism file rather than a catalog constructor."""
    if source in catalog_names():
        return False
    return Path(source).suffix.lower() in MECHANISM_SUFFIXES or Path(source).exists()


def source_inputs(source: str) -> list[str]:
    """The files a command reads for ``source`` (never overwritten by its outputs)."""
    return [] if source in catalog_names() else [source]


def resolve_mechanism(source: str, params: Sequence[str]) -> Mechanism | EvidentialMechanism:
    """A catalog name with ``key=value`` parameters, or a mechanism file (parameters are
    refused for a file)."""
    if is_file_source(source):
        from ..io import load_mechanism

        if params:
            raise InvalidParameterError(f"parameters {list(params)!r} make no sense for a file")
        return load_mechanism(source)
    return build_from_catalog(source, params)


def ordinary(m: Mechanism | EvidentialMechanism) -> Mechanism:
    """The ordinary mechanism of ``m`` (an evidential one over its messages)."""
    from ..evidential import EvidentialMechanism

    return m.to_mechanism() if isinstance(m, EvidentialMechanism) else m


def describe_mechanism(m: Mechanism | EvidentialMechanism) -> str:
    """One line naming the mechanism and its shape, as the commands print it first."""
    from ..evidential import EvidentialMechanism

    if isinstance(m, EvidentialMechanism):
        return (f"evidential mechanism: {m.n_inputs} inputs, {len(m.focal_sets)} focal sets "
                f"over outputs {list(m.outputs)!r}")
    name = f" {m.name}" if m.name else ""
    return f"mechanism{name}: {m.n_inputs} inputs x {m.n_outputs} outputs"
