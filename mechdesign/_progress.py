"""Progress of long loops (sweeps, simulations) and of long solves, on stderr.

One reporter serves every loop: on a terminal one line rewritten in place (carriage
return); otherwise (a log file, a pipe, CI) plain lines, at most one per
:data:`LOG_INTERVAL` seconds and always the last, so a log holds readable lines instead of
one line of carriage returns. ``progress=`` arguments of the library take ``False``
(silent), ``True`` (this reporter on stderr) or a callable ``f(done, total)`` (a notebook
progress bar, a GUI, a test).

Long solves report through the logger ``mechdesign.design`` instead (rounds of column
generation, bounds): :func:`log_to_stderr` attaches a handler for the duration of a call.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import IO, Any

from .errors import InvalidParameterError

LOG_INTERVAL = 1.0
"""Seconds between two plain progress lines when stderr is not a terminal."""

ProgressArg = bool | Callable[[int, int], Any] | None
"""What a ``progress=`` argument takes."""


class Progress:
    """``label: done/total`` on ``stream`` (default stderr), or a callable's reports.

    Use as a context manager (the line is ended on exit, also after an error) or call
    :meth:`close`.

    Parameters
    ----------
    label : str
        What is counted, e.g. ``"frontier"`` or ``"simulate"``.
    total : int
    progress : bool, callable or None
        ``False``/``None``: nothing; ``True``: lines on ``stream``; a callable: called as
        ``progress(done, total)`` at each update.
    unit : str
        Printed after the count (``"5/86 points"``).
    stream : file, optional
        Default ``sys.stderr`` (looked up when the reporter is made).
    """

    def __init__(self, label: str, total: int, progress: ProgressArg = True, unit: str = "",
                 stream: IO[str] | None = None) -> None:
        if not (progress is None or isinstance(progress, bool) or callable(progress)):
            raise InvalidParameterError(
                f"progress must be True, False or a callable f(done, total), got {progress!r}")
        self.label, self.total, self.unit = label, int(total), f" {unit}" if unit else ""
        self.callback = progress if callable(progress) and not isinstance(progress, bool) \
            else None
        self.enabled = progress is True
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.enabled and _isatty(self.stream)
        self.done = 0
        self._open = False  # a terminal line without its newline yet
        self._last = -float("inf")

    def update(self, done: int | None = None) -> None:
        """Report ``done`` items (default: one more than before)."""
        self.done = self.done + 1 if done is None else int(done)
        if self.callback is not None:
            self.callback(self.done, self.total)
        if not self.enabled:
            return
        text = f"{self.label}: {self.done}/{self.total}{self.unit}"
        final = self.done >= self.total
        if self.tty:
            self.stream.write(f"\r{text}" + ("\n" if final else ""))
            self._open = not final
        else:
            now = time.monotonic()
            if not final and now - self._last < LOG_INTERVAL:
                return
            self._last = now
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        """End a pending terminal line (after an error or an interrupt), so what follows
        on stderr starts on its own line."""
        if self._open:
            self._open = False
            with suppress(Exception):
                self.stream.write("\n")
                self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _isatty(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


@contextmanager
def log_to_stderr(level: int = logging.INFO, name: str = "mechdesign",
                  stream: IO[str] | None = None) -> Iterator[None]:
    """Send the library's log messages (logger ``name`` and its children) at ``level`` and
    above to stderr, as ``mechdesign: message`` lines, for the duration of the block."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(logging.Formatter("mechdesign: %(message)s"))
    handler.setLevel(level)
    log = logging.getLogger(name)
    previous = log.level
    log.addHandler(handler)
    if log.getEffectiveLevel() > level:
        log.setLevel(level)
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.setLevel(previous)
