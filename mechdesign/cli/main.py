"""The ``mechdesign`` command line. Errors are one line on stderr and a non-zero exit."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from types import FrameType
from typing import Any, NoReturn, TextIO

from .. import __version__
from ..errors import MechdesignError
from .commands import MODULES

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_TERMINATED",
    "OneLineParser",
    "Terminated",
    "add_verbosity_arguments",
    "build_parser",
    "main",
]


class _NegativeNumber:
    """What argparse asks of its ``_negative_number_matcher``: ``match(text)``, true when
    ``text`` is a negative number, to be read as an option's value. argparse's own pattern
    (``^-\\d+$|^-\\d*\\.\\d+$``) misses the scientific notation and the infinities
    that ``float`` reads, so ``--delta -1e-6`` was taken for an unknown option and failed
    with "expected one argument" before the option's range check could name the value.

    Here a text is a negative number when it is ``-`` followed by a digit or by ``.`` and
    a digit (``-1e-6``, ``-.5``, ``-1_000``, and the number lists ``--eps -1,2`` and ranges
    ``-1:4:40``, whose own parser then names the value), or any text ``float`` reads
    (``-inf``, ``-nan``). No option of the CLI starts with ``-`` and a digit, so such a
    text is always a value."""

    @staticmethod
    def match(text: str) -> bool:
        if not text.startswith("-") or text.startswith("--"):
            return False
        rest = text[1:]
        if rest[:1].isdigit() or (rest[:1] == "." and rest[1:2].isdigit()):
            return True
        try:
            float(text)
        except ValueError:
            return False
        return True


class OneLineParser(argparse.ArgumentParser):
    """argparse with the CLI's error contract (one line on stderr, exit status 2), negative
    numbers as option values in every notation ``float`` reads (:class:`_NegativeNumber`)
    and lazy descriptions: a ``description`` given as a callable (``functools.partial``) is
    called when the help is formatted, so a command whose description lists the catalog
    names does not import the catalog for ``mechdesign --help`` or for a run.

    Every command's parser is one of these (``parser_class`` of the subcommands), so the
    negative-number rule is set here once for all commands."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NegativeNumber()

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"mechdesign: error: {message}\n")

    def format_help(self) -> str:
        if callable(self.description):
            self.description = self.description()
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="mechdesign",
        description="Design privacy mechanisms by LP and convex programming and measure "
                    "exactly what they guarantee.")
    parser.add_argument("--version", action="version", version=f"mechdesign {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND",
                                parser_class=OneLineParser)
    for module in MODULES:
        module.register(sub)
    for leaf in _leaf_parsers(sub):
        add_verbosity_arguments(leaf)
    return parser


def _leaf_parsers(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    """The parsers that run a command (``amplify shuffle``, not ``amplify``): the options
    every command takes are added to these, so they parse after the command's name."""
    out = []
    for parser in dict.fromkeys(sub.choices.values()):
        nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        out.extend(_leaf_parsers(nested[0]) if nested else [parser])
    return out


def add_verbosity_arguments(parser: argparse.ArgumentParser) -> None:
    """``-q/--quiet`` and ``-v/--verbose``, taken by every command."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", action="store_true",
                       help="nothing on stderr but errors: no progress, no log messages")
    group.add_argument("-v", "--verbose", action="store_true",
                       help="progress (also with --json) and the library's log messages "
                            "(design strategy, solver attempts and their times) on stderr")


EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (SIGINT): 128 + 2, as a shell reports it."""

EXIT_TERMINATED = 143
"""Exit status after SIGTERM: 128 + 15."""


class Terminated(BaseException):
    """Raised in the main thread by the CLI's SIGTERM handler. A BaseException, like
    KeyboardInterrupt, so that no ``except Exception`` swallows it: it unwinds the stack
    (process pools are shut down on the way) to :func:`main`."""


def _raise_terminated(signum: int, frame: FrameType | None) -> NoReturn:
    raise Terminated(signum)


def _install_sigterm_handler() -> Callable[[], None]:
    """Turn SIGTERM into :class:`Terminated` while the CLI runs; returns the undo. Only in
    the main thread (signal handlers can only be set there); a no-op elsewhere."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    return lambda: signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 2 bad input, 1 other failure, 130 after
    Ctrl-C, 143 after SIGTERM; an interrupt prints one line, ``mechdesign: interrupted``)."""
    restore = _install_sigterm_handler()
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return _stopped("interrupted", EXIT_INTERRUPTED)
    except Terminated:
        return _stopped("terminated", EXIT_TERMINATED)
    finally:
        restore()


def _stopped(what: str, status: int) -> int:
    """One line on stderr after an interrupt; a second Ctrl-C while printing it is
    ignored (the exit status is the same)."""
    try:
        sys.stderr.write(f"mechdesign: {what}\n")
        sys.stderr.flush()
    except (KeyboardInterrupt, Terminated, OSError):
        pass
    _stdout_to_devnull_if_broken()
    return status


def _stdout_to_devnull_if_broken() -> None:
    """Flush stdout; if the reader is gone, point it at devnull (no second error at exit)."""
    try:
        sys.stdout.flush()
    except (BrokenPipeError, KeyboardInterrupt, Terminated):
        _stdout_to_devnull()
    except (OSError, ValueError):
        pass


def _main(argv: Sequence[str] | None) -> int:
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
        with _logging(args), _notes_on_stderr():
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


@contextmanager
def _notes_on_stderr() -> Iterator[None]:
    """While a command runs, the library's notes (a warning that says what it corrected in
    an input: :class:`~mechdesign._validation.PriorNormalisedWarning`, a prior within 1e-6
    per value of summing to 1 divided by its sum) as one line each on stderr,
    ``mechdesign: note: ...``, every time (even with ``-q``: they say what was computed);
    other warnings as Python shows them."""
    from .._validation import PriorNormalisedWarning  # the command loads numpy anyway

    with warnings.catch_warnings():
        shown = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], filename: str,
                 lineno: int, file: TextIO | None = None, line: str | None = None) -> None:
            if issubclass(category, PriorNormalisedWarning):
                sys.stderr.write(f"mechdesign: note: {message}\n")
            else:
                shown(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        warnings.simplefilter("always", PriorNormalisedWarning)
        yield


def _logging(args: argparse.Namespace) -> AbstractContextManager:
    """``--verbose``: the library's log messages (logger ``mechdesign``, DEBUG and up) on
    stderr while the command runs; otherwise nothing here (a command shows its own
    progress, see :func:`~mechdesign.cli.output.show_progress`)."""
    if getattr(args, "verbose", False):
        from .._progress import log_to_stderr

        return log_to_stderr(logging.DEBUG)
    return nullcontext()


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
