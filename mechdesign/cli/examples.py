"""``mechdesign examples``: list the built-in problem files (``--example NAME`` of ``solve``
and ``frontier``), or print one (``mechdesign examples NAME``) to copy and edit."""

from __future__ import annotations

import argparse

from .output import print_table

__all__ = [
    "cmd_examples",
    "register",
]


def cmd_examples(args: argparse.Namespace) -> int:
    from ..io import example_path, example_titles

    if args.name is not None:
        print(example_path(args.name).read_text(encoding="utf-8"), end="")
        return 0
    print_table(list(example_titles().items()), ("name", "title"))
    print("\nrun one with 'mechdesign solve --example NAME'; 'mechdesign examples NAME' prints "
          "its file")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "examples", help="list the built-in problem files, or print one",
        description="List the built-in problem files (literature instances with their "
                    "reference values), or print the file NAME to start your own from it "
                    "('mechdesign examples krr_hamming > mine.toml').")
    p.add_argument("name", nargs="?", help="print this built-in problem file")
    p.set_defaults(func=cmd_examples)
