"""Shared terminal formatting and output files for the commands.

Output files follow one policy (:func:`plan_outputs` before computing, :func:`write_atomic`
after printing): validated up front, never replacing an input of the run, replacing an
existing file only with ``--force``, written to a temporary name and moved into place. Without
``--force`` the move is an atomic create-if-absent, so of two runs racing for one name exactly
one publishes it and the other raises :class:`OutputExistsError`, its result kept beside.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import math
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import FileFormatError, InvalidParameterError, MechdesignError

__all__ = [
    "PLOT_SUFFIXES",
    "OutputExistsError",
    "add_force_argument",
    "check_suffix",
    "fmt",
    "jsonable",
    "kept_name",
    "make_folder",
    "non_negative_int",
    "open_unit_interval",
    "plan_folder_outputs",
    "plan_outputs",
    "plan_plot",
    "positive_int",
    "print_table",
    "problem_inputs",
    "save_figure",
    "show_progress",
    "write_atomic",
    "write_planned",
]

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..io.problems import ProblemFile


def fmt(x: float) -> str:
    """A number with 10 significant digits; ``inf`` for non-private."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.10g}"


def jsonable(value: Any) -> Any:
    """A JSON-safe copy of ``value``: NaN and infinities become None, numpy scalars and
    arrays plain numbers and lists, tuples lists, dict keys strings (recursively)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if hasattr(value, "tolist"):  # a numpy scalar or array
        return jsonable(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _argument(text: str, convert: Callable[[str], Any], accept: Callable[[Any], bool],
              wanted: str) -> Any:
    """``convert(text)`` if it succeeds and is accepted, else argparse's one-line error
    naming ``wanted`` and the text."""
    try:
        value = convert(text)
    except ValueError:
        value = None
    if value is None or not accept(value):
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    """An argparse type: an integer >= 0 (a seed)."""
    return _argument(text, int, lambda v: v >= 0, "a non-negative integer")


def open_unit_interval(text: str) -> float:
    """An argparse type: a number strictly between 0 and 1 (a confidence level)."""
    return _argument(text, float, lambda v: 0.0 < v < 1.0, "a number in (0, 1)")


def positive_int(text: str) -> int:
    """An argparse type: a positive integer, also written as a float (``1e5``)."""
    value = _argument(text, float, lambda v: v.is_integer() and v >= 1,
                      "a positive integer")
    return int(value)


def print_table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> None:
    """Left-aligned columns under a header and a rule."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())


# ------------------------------------------------------------------------------ output files
PLOT_SUFFIXES = (".png", ".pdf", ".svg")
"""Plot formats the commands write (rendered by matplotlib from the suffix)."""


def plan_plot(path: str | os.PathLike[str], force: bool,
              inputs: Iterable[str | os.PathLike[str]] = ()) -> Path:
    """A plot file checked before computing: suffix, folder, existing file, inputs."""
    return plan_outputs([check_suffix(path, PLOT_SUFFIXES)], force=force, inputs=inputs)[0]


def _real(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.path.abspath(path))


def _same_file(a: str, b: str) -> bool:
    """Same resolved path, or (both existing) the same inode: catches hard links too."""
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_suffix(path: str | os.PathLike[str], allowed: Sequence[str],
                 option: str = "--out", hint: str = "") -> Path:
    """``path`` as a Path if its suffix (case-insensitive) is one of ``allowed``.

    Raises
    ------
    InvalidParameterError
        Naming the suffix and the supported ones.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in allowed:
        got = repr(p.suffix) if p.suffix else "no suffix"
        raise InvalidParameterError(
            f"{option} {str(p)!r}: unsupported suffix {got}; use "
            f"{' or '.join(allowed)}{hint}")
    return p


def _check_folder(folder: Path, shown: str, option: str) -> None:
    if not folder.is_dir():
        raise FileFormatError(f"{option} {shown!r}: no such directory {str(folder)!r}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InvalidParameterError(
            f"{option} {shown!r}: the directory {str(folder)!r} is not writable")


def plan_outputs(paths: Sequence[str | os.PathLike[str]], *, force: bool = False,
                 inputs: Iterable[str | os.PathLike[str]] = (), option: str = "--out"
                 ) -> list[Path]:
    """Validate the files a command will write, before it computes anything.

    Each path's folder must exist and be writable; a path may not be a directory, may not
    appear twice, and may not be any of ``inputs`` (the files the run reads, compared by
    resolved real path and inode), even with ``force``; an existing file is refused unless
    ``force``. Suffixes are checked by the caller (:func:`check_suffix`), which knows them.

    Parameters
    ----------
    paths : sequence of path-like
        Every file the command will write (a companion PNG too).
    force : bool
        Allow replacing existing files (``--force``).
    inputs : iterable of path-like
        Files the same run reads.
    option : str
        The option named in messages.

    Returns
    -------
    list of Path
        ``paths`` as Paths, in order.

    Raises
    ------
    InvalidParameterError
        An input, a directory, a duplicate, a read-only folder, or an existing file
        without ``force``.
    FileFormatError
        A folder that does not exist.
    """
    read = [_real(p) for p in inputs]
    planned: list[Path] = []
    seen: list[str] = []
    for raw in paths:
        p = Path(raw)
        shown = str(p)
        real = _real(p)
        if any(_same_file(real, r) for r in read):
            raise InvalidParameterError(
                f"{option} {shown!r} is an input of this run; it is never overwritten "
                "(not even with --force): choose another name")
        if real in seen:
            raise InvalidParameterError(f"{option} {shown!r} would be written twice")
        if p.is_dir():
            raise InvalidParameterError(f"{option} {shown!r} is a directory, not a file")
        _check_folder(p.parent if str(p.parent) else Path("."), shown, option)
        if (p.exists() or p.is_symlink()) and not force:
            raise InvalidParameterError(
                f"{option} {shown!r} exists; pass --force to replace it")
        seen.append(real)
        planned.append(p)
    return planned


def plan_folder_outputs(folder: str | os.PathLike[str], names: Sequence[str], *,
                        force: bool = False, option: str = "--out") -> list[Path]:
    """Files ``names`` in ``folder``, checked like :func:`plan_outputs`. A folder that does
    not exist yet is allowed when its nearest existing ancestor is a writable directory
    (create it with :func:`make_folder` just before writing)."""
    d = Path(folder)
    if d.exists() and not d.is_dir():
        raise InvalidParameterError(f"{option} {str(d)!r} is not a directory")
    if d.is_dir():
        return plan_outputs([d / n for n in names], force=force, option=option)
    ancestor = d.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    _check_folder(ancestor, str(d), option)
    return [d / n for n in names]


def make_folder(folder: str | os.PathLike[str]) -> None:
    """Create a planned output folder (and its missing parents) if needed."""
    Path(folder).mkdir(parents=True, exist_ok=True)


def _umask_mode() -> int:
    """``0o666`` less the process umask: the mode an ordinary ``open(path, "w")`` gives."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


class OutputExistsError(MechdesignError, FileExistsError):
    """An output file appeared between the run's early check and its publishing (another run
    wrote the same ``--out``); this run's files are kept under other names, never dropped.

    Parameters
    ----------
    kept : sequence of (Path, Path)
        ``(destination, kept_as)`` for each file this run did not publish.

    Attributes
    ----------
    path : Path
        The first destination that was taken.
    kept : tuple of (Path, Path)
        As given.
    """

    def __init__(self, kept: Sequence[tuple[Path, Path]]) -> None:
        self.kept = tuple((Path(d), Path(k)) for d, k in kept)
        self.path = self.kept[0][0]
        taken, saved = self.kept[0]
        text = (f"{str(taken)!r} was created by another writer while this run computed; this "
                f"run's file is kept as {str(saved)!r}")
        for d, k in self.kept[1:]:
            text += f", {str(d)!r} as {str(k)!r}"
        super().__init__(text + " (pass --force to replace)")


_LINK_UNSUPPORTED = frozenset(
    e for e in (getattr(errno, name, None) for name in
                ("EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV"))
    if e is not None)
"""Errors of :func:`os.link` that mean "no hard links on this file system" (FAT, some network
and FUSE file systems): publishing falls back to ``O_EXCL``."""


def _create_if_absent(tmp: Path, dest: Path) -> bool:
    """Give the finished ``tmp`` the name ``dest`` only if no file (or link) has that name,
    atomically; False (``tmp`` untouched) if it has one.

    :func:`os.link` creates ``dest`` or fails with EEXIST in one system call, and the file is
    complete when its name appears; ``tmp`` is then unlinked. Where hard links are
    unsupported, the name is reserved with ``os.open(dest, O_CREAT | O_EXCL)`` and ``tmp``
    renamed onto the (empty) placeholder; a failure in between removes the placeholder.
    """
    if not hasattr(os, "link"):
        return _reserve_and_rename(tmp, dest)
    try:
        os.link(tmp, dest)
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in _LINK_UNSUPPORTED:
            raise
        return _reserve_and_rename(tmp, dest)
    with contextlib.suppress(OSError):  # dest is published; a stray temporary is harmless
        tmp.unlink()
    return True


def _reserve_and_rename(tmp: Path, dest: Path) -> bool:
    """The ``O_EXCL`` fallback of :func:`_create_if_absent`."""
    try:
        fd = os.open(dest, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return False
    try:
        mine = os.fstat(fd)
        os.close(fd)
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            now = os.lstat(dest)
            if (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino):
                os.unlink(dest)  # only our empty placeholder, never another writer's file
        raise
    return True


def kept_name(dest: Path, n: int) -> Path:
    """The name under which a result that lost ``dest`` is kept: ``STEM.PID.N.SUFFIX`` beside
    it (the suffix last, so the file still opens as what it is)."""
    return dest.with_name(f"{dest.stem}.{os.getpid()}.{n}{dest.suffix}")


def _keep(tmp: Path, dest: Path) -> Path:
    """Publish ``tmp`` beside ``dest`` under the first free :func:`kept_name`."""
    n = 1
    while not _create_if_absent(tmp, kept_name(dest, n)):
        n += 1
    return kept_name(dest, n)


def write_atomic(path: str | os.PathLike[str], writer: Callable[[Path], object], *,
                 force: bool = False, keep_only: bool = False) -> Path:
    """Write ``path`` all at once: ``writer(tmp)`` writes a temporary file in the same
    folder (same suffix, so writers that dispatch on it work), which is flushed to disk and
    published under ``path``. On any failure (or an interrupt) the temporary file is removed
    and ``path`` is left as it was (absent, or the old file): never a partial file.

    Publishing is :func:`os.replace` with ``force``; without it an atomic create-if-absent
    (:func:`os.link`, or ``O_EXCL`` where links are unsupported): if ``path`` exists by
    then (another run published it after this run's early check), the finished file is kept
    beside it under :func:`kept_name` and :class:`OutputExistsError` names both.

    Parameters
    ----------
    path : path-like
        The destination.
    writer : callable
        Called with the temporary path; writes the whole file there.
    force : bool
        Replace an existing ``path`` (``--force``).
    keep_only : bool
        Do not try ``path``: keep the file under :func:`kept_name` and raise (the rest of a
        run whose earlier file was taken, see :func:`write_planned`).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OutputExistsError
        ``path`` exists (without ``force``); the message names the kept file.
    OSError
        Naming ``path`` when the write fails (disk full, permissions, ...).
    """
    dest = Path(path)
    folder = dest.parent if str(dest.parent) else Path(".")
    tmp: Path | None = None
    try:
        fd, name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=f".tmp{dest.suffix}",
                                    dir=folder)
        os.close(fd)
        tmp = Path(name)
        writer(tmp)
        os.chmod(tmp, _umask_mode())
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        if force and not keep_only:
            os.replace(tmp, dest)
        elif keep_only or not _create_if_absent(tmp, dest):
            raise OutputExistsError([(dest, _keep(tmp, dest))])
    except OutputExistsError:
        raise
    except OSError as exc:
        _remove(tmp)
        reason = exc.strerror or str(exc)
        raise OSError(exc.errno, f"{str(dest)!r} not written ({reason}); an existing file "
                                 "is unchanged") from None
    except BaseException:
        _remove(tmp)
        raise
    return dest


def _remove(path: Path | None) -> None:
    if path is None:
        return
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def write_planned(writers: Sequence[tuple[Path, Callable[[Path], object]]], *, force: bool,
                  to_stderr: bool = False) -> list[Path]:
    """Write each ``(path, writer)`` with :func:`write_atomic`, in order, printing
    ``wrote PATH`` after each (to stderr when stdout holds JSON). Call it after the results
    are printed: stdout is flushed first, so the results are out even if a write fails.

    Without ``force``, once one path turns out taken (another run published it since the
    early check), this run's remaining files are kept beside theirs too, so the published
    set never mixes two runs; one :class:`OutputExistsError` then names every kept file.

    Parameters
    ----------
    writers : sequence of (Path, callable)
        Destinations and their writers, as :func:`write_atomic` takes them.
    force : bool
        Replace existing files (``--force``); the caller passes its ``args.force``.
    to_stderr : bool
        Print the ``wrote`` lines on stderr.

    Returns
    -------
    list of Path
        The paths written.

    Raises
    ------
    OutputExistsError
        Some path was taken; every file of this run is on disk, under the names it lists.
    """
    sys.stdout.flush()
    done: list[Path] = []
    kept: list[tuple[Path, Path]] = []
    for path, writer in writers:
        try:
            done.append(write_atomic(path, writer, force=force, keep_only=bool(kept)))
        except OutputExistsError as exc:
            kept.extend(exc.kept)
            continue
        print(f"wrote {path}", file=sys.stderr if to_stderr else sys.stdout, flush=True)
    if kept:
        raise OutputExistsError(kept)
    return done


def save_figure(fig: Figure, dpi: int) -> Callable[[Path], object]:
    """A writer for :func:`write_atomic` that renders ``fig`` (format from the suffix)."""
    return lambda tmp: fig.savefig(tmp, dpi=dpi)


def add_force_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--force`` flag of every command that writes files."""
    parser.add_argument("--force", action="store_true",
                        help="replace existing output files (never an input of the run)")


def problem_inputs(pf: ProblemFile) -> list[Path]:
    """The files a loaded problem file read: the file itself and the files it named."""
    return ([pf.path] if pf.path is not None else []) + list(pf.files_read)


def show_progress(args: argparse.Namespace, default: bool = True) -> bool:
    """Whether a command shows progress on stderr: never with ``--quiet``, always with
    ``--verbose``, else ``default`` (commands pass ``not args.json``: a machine reader of
    the JSON output gets no progress lines unless it asks)."""
    if getattr(args, "quiet", False):
        return False
    if getattr(args, "verbose", False):
        return True
    return default
