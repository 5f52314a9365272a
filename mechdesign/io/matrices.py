"""Reading and writing mechanisms as files: CSV, JSON and TOML. Data only, never code.

JSON and TOML hold a table with either ``matrix`` (an ordinary mechanism; optional
``inputs``, ``outputs``, ``name``) or ``masses`` and ``focal_sets`` (an evidential mechanism;
optional ``inputs``, ``outputs``). A JSON file may also be a bare list of rows, and the JSON
printed by ``mechdesign solve --json`` (a ``mechanism`` key) is accepted as is. CSV is a
plain numeric matrix, one row per input, with an optional header row of output labels.

Reading is bounded: a file must be a regular file (not a FIFO or a device) of at most
:data:`MAX_FILE_BYTES` (a TOML file :data:`MAX_TOML_BYTES`, checked before parsing), and
data nested too deeply is refused. Parse errors name the file, the row and the column (or
the key) and what was expected; they never contain the file's data (a cell, a key, a
value): they say what kind of text is wrong instead (a decimal comma, a non-ASCII digit, an
underscore, a byte-order mark inside the file, ...).

Strict reading (the same rules for every reader of the package: mechanism CSV/JSON/TOML,
the CSV files a problem file names, values and reports files, problem files):

* a UTF-8 byte-order mark at the start of a file is dropped (:func:`read_text_limited`);
  one anywhere else is an error that names it;
* a number is ASCII: an optional sign, digits ``0-9``, an optional decimal point and
  exponent, or ``inf``/``nan`` (:func:`parse_number`); no underscores (``1_0``), no other
  scripts' digits, no decimal commas, no fractions (``9/10``). Integers likewise, and they
  are range-checked (:func:`parse_integer`);
* CSV cells are separated by commas, semicolons or tabs: :func:`detect_delimiter` picks
  the one that splits every row into the same number of cells, and refuses the file when it
  cannot tell;
* a mechanism CSV's first row is a header of output labels only when no cell of it parses
  as a number or looks like a mistyped one (``9/10``, ``0,5``, ``1_0``; or with
  ``load_mechanism(path, header=True)``); a first row mixing numbers and text is refused
  naming the row and the column of the first non-number. The CSV files a problem file
  names hold numbers only (no header);
* a JSON object with a repeated key is refused (TOML refuses them itself);
* a file with no data (no rows, no values, no reports) is refused naming the file.

Positions in messages are 1-based and always written the same way,
``<file> row <r>, column <c>: <what was expected>`` (:func:`at`); line-oriented files
(values, reports) say ``line`` instead of ``row``.
"""

from __future__ import annotations

import csv
import json
import math
import numbers
import os
import re
import stat
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import ROW_SUM_TOL
from ..errors import FileFormatError, InvalidMechanismError, SizeLimitError
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism

__all__ = [
    "BOM",
    "CSV_FIELD_LIMIT",
    "DELIMITERS",
    "INT64_MAX",
    "INT64_MIN",
    "KNOWN_KEYS",
    "MAX_FILE_BYTES",
    "MAX_TOML_BYTES",
    "PSEUDO_FILESYSTEMS",
    "at",
    "csv_numbers",
    "csv_rows",
    "detect_delimiter",
    "digits_of",
    "load_mechanism",
    "loads_json",
    "loads_toml",
    "mechanism_from_dict",
    "mechanism_to_jsonable",
    "parse_integer",
    "parse_number",
    "read_text_limited",
    "save_mechanism",
    "toml_too_large",
    "why_not_a_number",
]

MAX_FILE_BYTES = 64 * 2**20
"""Largest file read (a mechanism file, a problem file or a CSV it names): 64 MiB."""

MAX_TOML_BYTES = 4 * 2**20
"""Largest TOML file read (a problem file or a mechanism file): 4 MiB, checked on the file
size before parsing. :mod:`tomllib` is slow on large arrays, slowest on one-digit entries
(measured on the development machine: ``benchmarks/README.md``, "Measurements behind the
library's constants"), so a file at the limit parses in seconds, where one at
:data:`MAX_FILE_BYTES` took minutes (a 1e7-entry array, refused after parsing by
:data:`~mechdesign.io.problems.MAX_ENTRIES`). 4 MiB holds every vector a problem file may
have (at most :data:`~mechdesign.io.problems.MAX_SIZE` entries, under 0.3 MiB in full
precision) and an inline matrix of about 150,000 full-precision entries; larger matrices go
in a CSV file (``{csv = "L.csv"}``, up to :data:`MAX_FILE_BYTES`) or, for a mechanism, JSON
or CSV."""

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
"""The range of the integers read from files (TOML's own range; the int64 arrays of
values and reports)."""

BOM = "\ufeff"
"""The byte-order mark (U+FEFF) some editors (Excel's "CSV UTF-8") put first in a file."""

DELIMITERS = (",", ";", "\t")
"""The CSV cell separators :func:`detect_delimiter` chooses from."""

CSV_FIELD_LIMIT = csv.field_size_limit()
"""Longest CSV field (characters) the reader accepts (Python's csv default, 128 KiB)."""

PSEUDO_FILESYSTEMS = ("/proc", "/sys", "/dev")
"""Kernel file systems whose "files" are live data (problem files never read them)."""


def read_text_limited(path: str | Path, label: str | None = None, *,
                      limit: int = MAX_FILE_BYTES, refuse_pseudo: bool = False) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes, without a leading
    byte-order mark.

    FIFOs, devices and directories are refused (opened without blocking and checked on the
    open descriptor); at most ``limit + 1`` bytes are ever read, so the size is refused
    before anything is parsed. With ``refuse_pseudo``, anything under /proc, /sys or /dev
    is refused before it is opened. A UTF-8 byte-order mark (:data:`BOM`) that starts the
    file is dropped (as the ``utf-8-sig`` codec does); a UTF-16 or UTF-32 one is refused
    by name. Messages name the file (``label``, default its quoted path) and never contain
    its data.

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
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise FileFormatError(f"{label} is not a UTF-8 text file (it starts with a UTF-16 or "
                              "UTF-32 byte-order mark: save it as UTF-8)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"{label} is not a UTF-8 text file (invalid byte at offset "
                              f"{exc.start})") from None
    return text.removeprefix(BOM)


def at(name: str, row: int, column: int | None = None, *, unit: str = "row") -> str:
    """The position of an error in a file, in the one style of the package's messages:
    ``"L.csv row 3, column 2"`` (1-based; ``unit="line"`` for line-oriented files)."""
    where = f"{name} {unit} {row}"
    return where if column is None else f"{where}, column {column}"


_NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                     r"|inf|infinity|nan)", re.IGNORECASE | re.ASCII)
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
_SPACES = " \t\r\n"
_INT_DIGITS = 19
"""An integer of more than this many digits is outside INT64_MIN..INT64_MAX unread."""


def parse_number(cell: str) -> float | None:
    """The number a CSV cell holds, or None when it holds something else.

    Strict: surrounding ASCII spaces and tabs are ignored; the rest must be an optional
    sign and ASCII digits with an optional decimal point and exponent (``0.5``, ``.5``,
    ``5e-3``), or ``inf``/``infinity``/``nan`` in any case. Python's ``float`` also takes
    ``1_0`` (as 10), other scripts' digits (``"\\u0661"`` as 1) and Unicode spaces;
    this does not. The caller decides whether inf and nan are allowed.

    Examples
    --------
    >>> parse_number(" 0.25"), parse_number("1_0"), parse_number("O.1")
    (0.25, None, None)
    """
    cell = cell.strip(_SPACES)
    return float(cell) if _NUMBER.fullmatch(cell) else None


def parse_integer(text: str) -> int | None:
    """The integer ``text`` holds (optional sign, ASCII digits; surrounding spaces and
    tabs ignored), or None when it holds something else.

    A magnitude of more than 19 digits is returned as ``+-10**19`` without converting the
    digits (it is outside :data:`INT64_MIN`..:data:`INT64_MAX`, so every range check
    refuses it, and a line of a million digits costs no quadratic conversion).

    Examples
    --------
    >>> parse_integer("12"), parse_integer("1_0"), parse_integer("\\u0661")
    (12, None, None)
    """
    text = text.strip(_SPACES)
    if not _INTEGER.fullmatch(text):
        return None
    digits = text.lstrip("+-")
    if len(digits) > _INT_DIGITS:
        return -(10**_INT_DIGITS) if text.startswith("-") else 10**_INT_DIGITS
    return int(text)


def digits_of(text: str) -> int:
    """How many digits an integer's text has (for messages that must not quote it)."""
    return sum(c.isdigit() for c in text)


def why_not_a_number(cell: str) -> str:
    """A hint saying what kind of text a cell that is not a number holds, without quoting
    it: ``" (a decimal comma: write 0.5, not 0,5)"``, or ``""`` when nothing is known.
    Used by every reader, so that the message names the problem but not the data."""
    text = cell.strip(_SPACES)
    if BOM in text:
        return (" (it holds a byte-order mark U+FEFF: the file was joined from files that "
                "each start with one)")
    if not text:
        return " (the cell is empty)"
    if re.fullmatch(r"[+-]?[0-9]+,[0-9]+", text, re.ASCII):
        return " (a decimal comma: write 0.5, not 0,5)"
    if re.fullmatch(r"[+-]?[0-9.]+/[0-9.]+", text, re.ASCII):
        return " (a fraction: write its decimal value)"
    if "_" in text and _NUMBER.fullmatch(text.replace("_", "")):
        return " (an underscore in a number: write the digits only)"
    if any(c.isdigit() and not c.isascii() for c in text) or (
            not text.isascii() and _NUMBER.fullmatch("".join(
                c for c in text if c.isascii() and not c.isspace()))):
        return " (non-ASCII characters: digits must be 0-9 and spaces ASCII)"
    if len(text.split()) > 1 and all(_NUMBER.fullmatch(t) for t in text.split()):
        return " (several numbers separated by spaces: separate them with commas)"
    return ""


def detect_delimiter(lines: list[tuple[int, str]], name: str) -> str:
    """The CSV delimiter of a file's non-blank ``(line number, text)`` lines: ``,``, ``;``
    or a tab (:data:`DELIMITERS`).

    Rule: when only one of them occurs in the file, that one (a comma when none does: one
    column). When several occur, the one that splits every line into the same number (at
    least 2) of cells, and, if that leaves more than one, the one under which every cell
    past the first line is a number (:func:`parse_number`): ``0.5,\\t0.5`` is comma
    separated, ``0,9;0,1`` is refused (decimal commas).

    Raises
    ------
    FileFormatError
        When the rule leaves no delimiter or several.
    """
    present = [d for d in DELIMITERS if any(d in text for _, text in lines)]
    if len(present) <= 1:
        return present[0] if present else ","
    even = []
    for d in present:
        widths = {len(cells) for _, cells in _split(lines, d, name)}
        if len(widths) == 1 and widths.pop() > 1:
            even.append(d)
    numeric = [d for d in even if all(parse_number(c) is not None
                                      for _, cells in _split(lines[1:], d, name)
                                      for c in cells)]
    if len(even) == 1 or len(numeric) == 1:
        return even[0] if len(even) == 1 else numeric[0]
    shown = " and ".join(repr(d) for d in (even or present))
    how = ("split every row evenly" if even else "occur, and none splits every row evenly")
    comma = (" (with decimal points: 0.5, not 0,5)"
             if re.search(r"[0-9],[0-9]", lines[-1][1]) else "")
    raise FileFormatError(f"{name}: cannot tell the CSV delimiter: {shown} {how}; write the "
                          f"cells separated by commas{comma}")


def _split(lines: Iterable[tuple[int, str]], delimiter: str, name: str
           ) -> list[tuple[int, list[str]]]:
    """Each line split into cells by the csv module (malformed quoting and overlong fields
    are a typed error naming the row and, when known, the column)."""
    rows = []
    for line_no, line in lines:
        try:
            cells = next(csv.reader([line], delimiter=delimiter), [])
        except csv.Error:
            long = [j for j, c in enumerate(line.split(delimiter), 1)
                    if len(c) > CSV_FIELD_LIMIT]
            if long:
                raise FileFormatError(
                    f"{at(name, line_no, long[0])}: a field longer than {CSV_FIELD_LIMIT} "
                    "characters (expected a number)") from None
            raise FileFormatError(f"{at(name, line_no)}: malformed CSV (expected values "
                                  f"separated by {_DELIMITER_NAMES[delimiter]})") from None
        rows.append((line_no, cells))
    return rows


_DELIMITER_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs"}


def csv_rows(text: str, name: str, delimiter: str | None = None
             ) -> list[tuple[int, list[str]]]:
    """The non-blank rows of CSV text as ``(line number, cells)``.

    ``delimiter`` None: detected (:func:`detect_delimiter`). A field longer than
    :data:`CSV_FIELD_LIMIT` characters or malformed quoting is a
    :class:`~mechdesign.errors.FileFormatError` naming ``name``, the row and (when known)
    the column, never the data.
    """
    lines = [(i, line) for i, line in enumerate(text.splitlines(), 1)
             if line.strip(_SPACES)]
    if delimiter is None:
        delimiter = detect_delimiter(lines, name)
    return [(i, cells) for i, cells in _split(lines, delimiter, name)
            if any(c.strip(_SPACES) for c in cells)]


def csv_numbers(rows: list[tuple[int, list[str]]], name: str, *, allow_inf: bool = False,
                first: bool = True) -> list[list[float]]:
    """The rows of :func:`csv_rows` as numbers (:func:`parse_number`), all of one width;
    errors name ``name``, the row and the column and what was expected, never the cell.

    ``first``: ``rows[0]`` is the file's first row (no header was taken off), so a text
    cell there is explained: a row mixing numbers and text is not a header, and a row of
    text is a header where none is read.
    """
    out: list[list[float]] = []
    for line_no, cells in rows:
        row = []
        for col, cell in enumerate(cells, 1):
            x = parse_number(cell)
            if x is None:
                hint = why_not_a_number(cell)
                if first and not out and not hint:
                    mixed = any(parse_number(c) is not None for c in cells)
                    hint = (" (the row's other cells are numbers, so it is not a header: a "
                            "header row has no number)" if mixed else
                            " (a header row of labels is not read here)")
                raise FileFormatError(f"{at(name, line_no, col)}: expected a number{hint}")
            if math.isnan(x) or (math.isinf(x) and not (allow_inf and x > 0)):
                raise FileFormatError(f"{at(name, line_no, col)}: expected a finite "
                                      f"number{' or inf' if allow_inf else ''}")
            row.append(x)
        if out and len(row) != len(out[0]):
            raise FileFormatError(f"{at(name, line_no)} has {len(row)} columns, expected "
                                  f"{len(out[0])} (as row {rows[0][0]})")
        out.append(row)
    return out


def _unique_keys(name: str) -> Any:
    """A JSON ``object_pairs_hook`` refusing a repeated key (naming it when it is one of
    the keys the package reads, never otherwise: keys are data)."""
    def hook(pairs: list[tuple[str, Any]]) -> dict:
        out: dict = {}
        for key, value in pairs:
            if key in out:
                shown = repr(key) if key in KNOWN_KEYS else "a key"
                raise FileFormatError(f"{name}: {shown} appears twice in one JSON object "
                                      "(duplicate keys are refused, not overwritten)")
            out[key] = value
        return out
    return hook


KNOWN_KEYS = frozenset({
    "matrix", "masses", "focal_sets", "inputs", "outputs", "name", "mechanism", "kind",
    "oracle", "family", "k", "epsilon", "d", "g", "optimized", "hash_bits", "status",
    "value"})
"""Keys the package reads from JSON files (a duplicate one is named in the message)."""


def _json_int(name: str) -> Any:
    """A JSON ``parse_int`` hook: ASCII digits (the json scanner's), range-checked."""
    def parse(text: str) -> int:
        value = parse_integer(text)
        if value is None or not INT64_MIN <= value <= INT64_MAX:
            raise FileFormatError(f"{name}: an integer of {digits_of(text)} digits, outside "
                                  f"the 64-bit range {INT64_MIN}..{INT64_MAX}")
        return value
    return parse


def loads_json(text: str, name: str) -> Any:
    """Parse JSON text of the file ``name`` strictly: a repeated key in an object and an
    integer outside the 64-bit range are refused; errors name the file and the position,
    never the data.

    Raises
    ------
    FileFormatError
    """
    try:
        return json.loads(text.removeprefix(BOM), object_pairs_hook=_unique_keys(name),
                          parse_int=_json_int(name))
    except json.JSONDecodeError as exc:
        raise FileFormatError(f"{name}: malformed JSON: {_position(exc)}") from None
    except RecursionError:
        raise FileFormatError(f"{name}: malformed JSON: nested too deeply to read") from None


def loads_toml(text: str, name: str, *, quote_keys: bool = False) -> dict:
    """Parse TOML text of the file ``name``: at most :data:`MAX_TOML_BYTES`, a leading
    byte-order mark dropped, integers range-checked (TOML's integers are 64-bit;
    :mod:`tomllib` reads any length). Errors name the file and never quote its data
    (``quote_keys``: they may name any key; else only the keys of :data:`KNOWN_KEYS`).

    Raises
    ------
    FileFormatError
        Malformed, or an integer outside the 64-bit range (naming its key).
    SizeLimitError
        Longer than :data:`MAX_TOML_BYTES` bytes.
    """
    if len(text) > MAX_TOML_BYTES or len(text.encode("utf-8", "surrogatepass")
                                         ) > MAX_TOML_BYTES:
        raise SizeLimitError(toml_too_large(name))
    try:
        data = tomllib.loads(text.removeprefix(BOM))
    except tomllib.TOMLDecodeError as exc:
        raise FileFormatError(f"{name}: malformed TOML: {exc}") from None
    except RecursionError:
        raise FileFormatError(f"{name}: malformed TOML: nested too deeply to read") from None
    except ValueError as exc:  # tomllib's int() of more than 4300 digits
        what = ("an integer of more than 4300 digits, outside the 64-bit range of TOML "
                "integers" if "integer" in str(exc) else "a value that cannot be converted")
        raise FileFormatError(f"{name}: malformed TOML: {what}") from None
    _check_toml_integers(data, name, quote_keys)
    return data


def toml_too_large(name: str) -> str:
    """The message of a TOML file above :data:`MAX_TOML_BYTES`."""
    return (f"{name} is larger than the limit of {MAX_TOML_BYTES / 2**20:g} MiB for TOML "
            "files (checked before parsing); put a large matrix in a CSV file "
            "({csv = \"file.csv\"} in a problem file) or save a mechanism as .json or .csv")


def _check_toml_integers(data: Any, name: str, quote_keys: bool) -> None:
    """Refuse an integer outside the 64-bit range anywhere in parsed TOML, naming its key
    path (list positions 1-based; a key outside :data:`KNOWN_KEYS` as ``?`` unless
    ``quote_keys``)."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            for k, v in value.items():
                key = str(k) if quote_keys or k in KNOWN_KEYS else "?"
                stack.append((v, f"{path}.{key}" if path else key))
        elif isinstance(value, list):
            stack.extend((v, f"{path} item {i}") for i, v in enumerate(value, 1))
        elif (isinstance(value, int) and not isinstance(value, bool)
              and not INT64_MIN <= value <= INT64_MAX):
            raise FileFormatError(f"{name}: {path}: an integer of {len(str(abs(value)))} "
                                  "digits, outside the 64-bit range of TOML integers")


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
            if isinstance(v, int) and not INT64_MIN <= v <= INT64_MAX:
                raise FileFormatError(f"{key!r} row {i}, column {j}: an integer of "
                                      f"{len(str(abs(v)))} digits, outside the 64-bit range")
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
        rows = _rows_of_numbers(data["matrix"], "matrix")
        try:
            return Mechanism(rows, _labels(data.get("inputs"), "inputs"),
                             _labels(data.get("outputs"), "outputs"),
                             "" if name is None else str(name))
        except InvalidMechanismError as exc:
            raise _located(exc, rows, lambda i, j: at("'matrix'", i + 1, j)) from None
    if "masses" in data:
        if "focal_sets" not in data:
            raise FileFormatError("an evidential mechanism needs 'focal_sets' next to 'masses'")
        rows = _rows_of_numbers(data["masses"], "masses")
        try:
            return EvidentialMechanism(rows, _focal_sets(data["focal_sets"]),
                                       _labels(data.get("inputs"), "inputs"),
                                       _labels(data.get("outputs"), "outputs"))
        except InvalidMechanismError as exc:
            raise _located(exc, rows, lambda i, j: at("'masses'", i + 1, j)) from None
    raise FileFormatError(
        f"no 'matrix' or 'masses' key among the table's {len(data)} keys")


def _number_like(cell: str) -> bool:
    """A cell that is no number but was meant as one (a fraction, a decimal comma, an
    underscore, other scripts' digits, a byte-order mark...): never a header label."""
    return bool(cell.strip(_SPACES)) and bool(why_not_a_number(cell))


def _read_csv(text: str, name: str = "CSV file", header: bool | None = None) -> Mechanism:
    """A mechanism from CSV text (delimiter detected, :func:`detect_delimiter`): numeric
    rows, the first row a header of output labels when no cell of it is a number or a
    mistyped one (``header`` None), or as ``header`` says. Parse errors name ``name``, the
    row and the column."""
    rows = csv_rows(text, name)
    if not rows:
        raise FileFormatError(f"{name}: CSV file has no rows")
    if header is None:
        header = all(parse_number(c) is None and not _number_like(c) for c in rows[0][1])
    labels = None
    if header:
        labels, rows = [c.strip(_SPACES) for c in rows[0][1]], rows[1:]
        if not rows:
            raise FileFormatError(f"{name}: CSV file has a header row and no numeric rows")
    matrix = csv_numbers(rows, name, first=not header)
    if labels is not None and len(labels) != len(matrix[0]):
        raise FileFormatError(f"{name} row 1 (the header) has {len(labels)} labels but the "
                              f"rows have {len(matrix[0])} columns")
    if labels is not None and len(set(labels)) != len(labels):
        first = next(j for j, c in enumerate(labels) if labels.index(c) != j)
        raise FileFormatError(f"{name} row 1 (the header), column {first + 1}: repeats "
                              f"column {labels.index(labels[first]) + 1}; labels must be "
                              "distinct")
    try:
        return Mechanism(matrix, outputs=labels)
    except InvalidMechanismError as exc:
        raise _located(exc, matrix, lambda i, j: at(name, rows[i][0], j)) from None


def _first_invalid(values: Any) -> tuple[int, int | None] | None:
    """Where :func:`~mechdesign._validation.check_stochastic` fails on ``values``, in its
    order (a non-finite entry, a negative entry, a row sum off 1): ``(i, j)`` of the
    entry, ``(i, None)`` of the row (0-based), or None (not a rectangular matrix, or
    nothing found)."""
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError, OverflowError):
        return None
    if arr.ndim != 2 or arr.size == 0:
        return None
    for bad in (~np.isfinite(arr), arr < 0):
        if bad.any():
            i, j = np.argwhere(bad)[0]
            return int(i), int(j)
    off = np.flatnonzero(np.abs(arr.sum(axis=1) - 1.0) > ROW_SUM_TOL)
    return (int(off[0]), None) if off.size else None


def _located(exc: InvalidMechanismError, values: Any,
             where: Any) -> InvalidMechanismError:
    """``exc`` (whose matrix indices count from 0) prefixed with the 1-based position in
    the file, ``where(i, column)`` (:func:`at`'s style), when it can be found."""
    found = _first_invalid(values)
    if found is None:
        return exc
    i, j = found
    return InvalidMechanismError(f"{where(i, None if j is None else j + 1)}: {exc} (the "
                                 "matrix's own indices count from 0)")


def load_mechanism(path: str | Path, *, header: bool | None = None
                   ) -> Mechanism | EvidentialMechanism:
    """Read a mechanism from a ``.csv``, ``.json`` or ``.toml`` file.

    The file must be a regular file of at most :data:`MAX_FILE_BYTES` (a TOML file
    :data:`MAX_TOML_BYTES`); a leading byte-order mark is dropped; parse errors name the
    file, the row and the column (or the key), never the file's data. The strict rules of
    the module docstring apply.

    Parameters
    ----------
    path : str or Path
    header : bool or None, default None
        CSV only: whether the first row is a header of output labels. None: it is when no
        cell of it is a number or a mistyped one (``9/10``, ``0,5``); a first row mixing
        numbers and text is refused.
    """
    p = Path(path)
    if not p.exists() or p.is_dir():
        raise FileFormatError(f"no such file: {str(p)!r}")
    suffix = p.suffix.lower()
    if suffix not in (".csv", ".json", ".toml"):
        raise FileFormatError(
            f"unknown file type {suffix!r} for {str(p)!r} (use .csv, .json, .toml)")
    if header is not None and suffix != ".csv":
        raise FileFormatError(f"header= applies to CSV files, not {suffix!r} ({str(p)!r})")
    if suffix == ".toml":
        try:
            text = read_text_limited(p, limit=MAX_TOML_BYTES)
        except SizeLimitError:
            raise SizeLimitError(toml_too_large(repr(str(p)))) from None
    else:
        text = read_text_limited(p)
    if suffix == ".csv":
        return _read_csv(text, p.name, header)
    data = (loads_json(text, p.name) if suffix == ".json"
            else loads_toml(text, p.name))
    try:
        return mechanism_from_dict(data)
    except RecursionError:
        raise FileFormatError(f"{p.name}: malformed {suffix[1:].upper()}: nested too deeply "
                              "to read") from None
    except (FileFormatError, InvalidMechanismError) as exc:
        raise type(exc)(f"{p.name}: {exc}") from None


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
                numeric = [c for c in header if parse_number(c) is not None]
                if numeric:
                    raise FileFormatError(
                        f"numeric output labels {numeric!r} cannot be in a CSV header (a "
                        "header row has no number); use .json")
                w.writerow(header)
            w.writerows(matrix.tolist())
    else:
        raise FileFormatError(f"cannot write {p.suffix!r}; use .json or .csv")
