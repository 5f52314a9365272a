"""The ``mechdesign`` command line. Errors are one line on stderr and a non-zero exit."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from .commands import MODULES
from .errors import MechdesignError


class OneLineParser(argparse.ArgumentParser):
    """argparse with the CLI's error contract: one line on stderr, exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"mechdesign: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="mechdesign",
        description="Design privacy mechanisms by LP and convex programming and measure "
                    "exactly what they guarantee.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND",
                                parser_class=OneLineParser)
    for module in MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 2 bad input, 1 other failure)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)  # may print --help and exit
    except SystemExit:
        _flush_quietly()
        raise
    if not getattr(args, "command", None):
        parser.print_help()
        _flush_quietly()
        return 2
    try:
        status = args.func(args)
        sys.stdout.flush()  # a closed pipe shows up here, not at interpreter exit
        return status
    except BrokenPipeError:
        # the reader went away (``mechdesign ... | head``): stop quietly. Point stdout at
        # devnull so the interpreter's final flush does not raise again (Python docs,
        # "Note on SIGPIPE").
        _stdout_to_devnull()
        return 1
    except MechdesignError as exc:
        print(f"mechdesign: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, MemoryError) as exc:
        print(f"mechdesign: error: {exc}", file=sys.stderr)
        return 1


def _flush_quietly() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()


def _stdout_to_devnull() -> None:
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (e.g. captured)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
