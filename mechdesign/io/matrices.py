"""Reading and writing mechanisms as files: CSV, JSON and TOML. Data only, never code.

JSON and TOML hold a table with either ``matrix`` (an ordinary mechanism; optional
``inputs``, ``outputs``, ``name``) or ``masses`` and ``focal_sets`` (an evidential mechanism;
optional ``inputs``, ``outputs``). A JSON file may also be a bare list of rows, and the JSON
printed by ``mechdesign solve --json`` (a ``mechanism`` key) is accepted as is. CSV is a
plain numeric matrix, one row per input, with an optional header row of output labels.

Reading is bounded: a file must be a regular file (not a FIFO or a device) of at most
:data:`MAX_FILE_BYTES`, and data nested too deeply is refused. Parse errors name the file,
the row and the column (or the key) and what was expected; they never contain the file's
data (a cell, a key, a value).
"""

from __future__ import annotations

import csv
import json
import math
import numbers
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import FileFormatError, SizeLimitError
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism

MAX_FILE_BYTES = 64 * 2**20
"""Largest file read (a mechanism file, a problem file or a CSV it names): 64 MiB."""

CSV_FIELD_LIMIT = csv.field_size_limit()
"""Longest CSV field (characters) the reader accepts (Python's csv default, 128 KiB)."""

PSEUDO_FILESYSTEMS = ("/proc", "/sys", "/dev")
"""Kernel file systems whose "files" are live data (problem files never read them)."""


def read_text_limited(path: str | Path, label: str | None = None, *,
                      limit: int = MAX_FILE_BYTES, refuse_pseudo: bool = False) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes.

    FIFOs, devices and directories are refused (opened without blocking and checked on the
    open descriptor); at most ``limit + 1`` bytes are ever read. With ``refuse_pseudo``,
    anything under /proc, /sys or /dev is refused before it is opened. Messages name the
    file (``label``, default its quoted path) and never contain its data.

    Raises
    ------
    FileFormatError
        Missing, not a regular file, unreadable or not UTF-8.
    SizeLimitError
        Larger than ``limit`` bytes.
    """
    p = Path(path)
    label = repr(str(p)) if label is None else label
    real = Path(os.path.realpath(p))
    if refuse_pseudo and any(real.is_relative_to(d) for d in PSEUDO_FILESYSTEMS):
        raise FileFormatError(f"{label} is under /proc, /sys or /dev: not a data file")
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise FileFormatError(f"no such file: {label}") from None
    except OSError as exc:
        raise FileFormatError(f"cannot read {label}: {exc.strerror or type(exc).__name__}"
                              ) from None
    with os.fdopen(fd, "rb") as fh:
        mode = os.fstat(fh.fileno()).st_mode
        if not stat.S_ISREG(mode):
            kind = "a directory" if stat.S_ISDIR(mode) else "a special file (FIFO, device, ...)"
            raise FileFormatError(f"{label} is {kind}, not a regular file")
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise FileFormatError(f"cannot read {label}: {exc.strerror or type(exc).__name__}"
                                  ) from None
    if len(data) > limit:
        raise SizeLimitError(f"{label} is larger than the limit of {limit / 2**20:g} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"{label} is not a UTF-8 text file (invalid byte at offset "
                              f"{exc.start})") from None


def csv_rows(text: str, name: str) -> list[tuple[int, list[str]]]:
    """The non-blank rows of CSV text as ``(line number, cells)``.

    A field longer than :data:`CSV_FIELD_LIMIT` characters or malformed quoting is a
    :class:`~mechdesign.errors.FileFormatError` naming ``name``, the row and (when known)
    the column, never the data.
    """
    rows = []
    for line_no, line in enumerate(text.splitlines(), 1):
        try:
            cells = next(csv.reader([line]), [])
        except csv.Error:
            long = [j for j, c in enumerate(line.split(","), 1) if len(c) > CSV_FIELD_LIMIT]
            if long:
                raise FileFormatError(
                    f"{name} row {line_no}, column {long[0]}: a field longer than "
                    f"{CSV_FIELD_LIMIT} characters (expected a number)") from None
            raise FileFormatError(f"{name} row {line_no}: malformed CSV (expected values "
                                  "separated by commas)") from None
        if any(c.strip() for c in cells):
            rows.append((line_no, cells))
    return rows


def csv_numbers(rows: list[tuple[int, list[str]]], name: str, *, allow_inf: bool = False
                ) -> list[list[float]]:
    """The rows of :func:`csv_rows` as numbers, all of one width; errors name ``name``, the
    row and the column and what was expected, never the cell."""
    out: list[list[float]] = []
    for line_no, cells in rows:
        row = []
        for col, cell in enumerate(cells, 1):
            try:
                x = float(cell)
            except ValueError:
                raise FileFormatError(f"{name} row {line_no}, column {col}: expected a "
                                      "number") from None
            if math.isnan(x) or (math.isinf(x) and not (allow_inf and x > 0)):
                raise FileFormatError(f"{name} row {line_no}, column {col}: expected a finite "
                                      f"number{' or inf' if allow_inf else ''}")
            row.append(x)
        if out and len(row) != len(out[0]):
            raise FileFormatError(f"{name} row {line_no} has {len(row)} columns, expected "
                                  f"{len(out[0])} (as row {rows[0][0]})")
        out.append(row)
    return out


def _labels(values: Any, key: str) -> list | None:
    """JSON and TOML have no tuples: list labels become hashable tuples."""
    if values is None:
        return None
    if not isinstance(values, list):
        raise FileFormatError(f"{key!r} must be a list, got {type(values).__name__}")
    return [_label(v) for v in values]


def _rows_of_numbers(values: Any, key: str) -> Any:
    """``values`` if it is a list of lists of real numbers (bools refused); else a typed
    error naming the key, the row and the column, not the value."""
    if not isinstance(values, list):
        raise FileFormatError(f"{key!r} must be a list of rows, got {type(values).__name__}")
    for i, row in enumerate(values, 1):
        if not isinstance(row, list):
            raise FileFormatError(f"{key!r} row {i}: expected a list of numbers, got "
                                  f"{type(row).__name__}")
        for j, v in enumerate(row, 1):
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise FileFormatError(f"{key!r} row {i}, column {j}: expected a number, got "
                                      f"{type(v).__name__}")
    return values


def _label(v: Any) -> Any:
    return tuple(_label(u) for u in v) if isinstance(v, list) else v


def _focal_sets(values: Any) -> list[list]:
    if not isinstance(values, list):
        raise FileFormatError(f"'focal_sets' must be a list of lists of labels, got {values!r}")
    out = []
    for B in values:
        if not isinstance(B, list):
            raise FileFormatError(
                f"each focal set must be a list of output labels, got {B!r} "
                "(write a singleton as [\"Yes\"], not \"Yes\")")
        # a list, not a frozenset: EvidentialMechanism names an unhashable label
        out.append([_label(v) for v in B])
    return out


def mechanism_from_dict(data: Any) -> Mechanism | EvidentialMechanism:
    """Build a mechanism from parsed JSON/TOML data (see the module docstring).

    Structural errors name the key, row and column and the expected type, never a value
    of the data.
    """
    if isinstance(data, list):
        return Mechanism(_rows_of_numbers(data, "rows"))
    if not isinstance(data, dict):
        raise FileFormatError(f"expected a table or a list of rows, got {type(data).__name__}")
    if "mechanism" in data and isinstance(data["mechanism"], dict):
        return mechanism_from_dict(data["mechanism"])
    if "matrix" in data:
        name = data.get("name")  # JSON null / absent: no name
        return Mechanism(_rows_of_numbers(data["matrix"], "matrix"),
                         _labels(data.get("inputs"), "inputs"),
                         _labels(data.get("outputs"), "outputs"),
                         "" if name is None else str(name))
    if "masses" in data:
        if "focal_sets" not in data:
            raise FileFormatError("an evidential mechanism needs 'focal_sets' next to 'masses'")
        return EvidentialMechanism(_rows_of_numbers(data["masses"], "masses"),
                                   _focal_sets(data["focal_sets"]),
                                   _labels(data.get("inputs"), "inputs"),
                                   _labels(data.get("outputs"), "outputs"))
    raise FileFormatError(
        f"no 'matrix' or 'masses' key among the table's {len(data)} keys")


def _all_numeric(cells: list[str]) -> bool:
    try:
        [float(c) for c in cells]
    except ValueError:
        return False
    return True


def _read_csv(text: str, name: str = "CSV file") -> Mechanism:
    """A mechanism from CSV text: numeric rows, the first row a header of output labels
    when it is not numeric. Parse errors name ``name``, the row and the column."""
    rows = csv_rows(text, name)
    if not rows:
        raise FileFormatError(f"{name}: CSV file has no rows")
    header = None
    if not _all_numeric(rows[0][1]):
        header, rows = [c.strip() for c in rows[0][1]], rows[1:]
        if not rows:
            raise FileFormatError(f"{name}: CSV file has a header row and no numeric rows")
    matrix = csv_numbers(rows, name)
    if header is not None and len(header) != len(matrix[0]):
        raise FileFormatError(f"{name} row 1 (the header) has {len(header)} labels but the "
                              f"rows have {len(matrix[0])} columns")
    if header is not None and len(set(header)) != len(header):
        first = next(j for j, c in enumerate(header) if header.index(c) != j)
        raise FileFormatError(f"{name} row 1 (the header), column {first + 1}: repeats "
                              f"column {header.index(header[first]) + 1}; labels must be "
                              "distinct")
    return Mechanism(matrix, outputs=header)


def load_mechanism(path: str | Path) -> Mechanism | EvidentialMechanism:
    """Read a mechanism from a ``.csv``, ``.json`` or ``.toml`` file.

    The file must be a regular file of at most :data:`MAX_FILE_BYTES`; parse errors name
    the file, the row and the column (or the key), never the file's data.
    """
    p = Path(path)
    if not p.exists() or p.is_dir():
        raise FileFormatError(f"no such file: {str(p)!r}")
    suffix = p.suffix.lower()
    if suffix not in (".csv", ".json", ".toml"):
        raise FileFormatError(
            f"unknown file type {suffix!r} for {str(p)!r} (use .csv, .json, .toml)")
    text = read_text_limited(p)
    try:
        if suffix == ".csv":
            return _read_csv(text, p.name)
        if suffix == ".json":
            return mechanism_from_dict(json.loads(text))
        return mechanism_from_dict(tomllib.loads(text))
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise FileFormatError(f"{p.name}: malformed {suffix[1:].upper()}: "
                              f"{_position(exc)}") from None
    except RecursionError:
        raise FileFormatError(f"{p.name}: malformed {suffix[1:].upper()}: nested too deeply "
                              "to read") from None


def _position(exc: ValueError) -> str:
    """A decoder error's message without any quoted data: its text up to the position."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    return str(exc)


def _jsonable(label: Any) -> Any:
    if isinstance(label, tuple | list):
        return [_jsonable(v) for v in label]
    if isinstance(label, frozenset | set):
        return [_jsonable(v) for v in sorted(label, key=repr)]
    if isinstance(label, np.generic):
        return label.item()
    return label if isinstance(label, int | float | str | bool) or label is None else str(label)


def mechanism_to_jsonable(m: Mechanism | EvidentialMechanism) -> dict:
    """``m.to_dict()`` with labels made JSON-safe (tuples and sets become lists)."""
    d = m.to_dict()
    for key in ("inputs", "outputs", "focal_sets"):
        if key in d:
            d[key] = [_jsonable(v) for v in d[key]]
    return d


def save_mechanism(m: Mechanism | EvidentialMechanism, path: str | Path) -> None:
    """Write ``m`` as JSON (``.json``) or CSV with an output header (``.csv``)."""
    p = Path(path)
    if p.suffix.lower() == ".json":
        p.write_text(json.dumps(mechanism_to_jsonable(m), indent=2))
    elif p.suffix.lower() == ".csv":
        matrix = m.matrix if isinstance(m, Mechanism) else m.masses
        cols = m.outputs if isinstance(m, Mechanism) else m.focal_sets
        if isinstance(m, EvidentialMechanism):
            raise FileFormatError("an evidential mechanism needs focal sets: save it as .json")
        with p.open("w", newline="") as fh:
            w = csv.writer(fh)
            if tuple(cols) != tuple(range(len(cols))):
                header = [str(c) for c in cols]
                if _all_numeric(header):
                    raise FileFormatError(
                        f"numeric output labels {header!r} cannot be a CSV header; use .json")
                w.writerow(header)
            w.writerows(matrix.tolist())
    else:
        raise FileFormatError(f"cannot write {p.suffix!r}; use .json or .csv")
