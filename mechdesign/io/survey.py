"""Survey files: respondents' values, their reports, and the randomizer that links them.

Text files, one respondent per line; blank lines and lines starting with ``#`` are skipped.

* **Values**: one value per line: an integer ``0..k-1`` for a frequency oracle; an input
  label of a mechanism (as written in its file; an index when its inputs are ``0..k-1``).
* **Reports** (what ``mechdesign sample`` writes, one line per respondent, in the order of
  the values): an output label for a mechanism; for the oracles, k-RR and Hadamard
  response one integer, subset selection the d integers of the subset (when ``16 d <= k``),
  local hashing the three integers ``a b y`` (seed and bucket); unary encoding and subset
  selection with ``16 d > k`` the ``ceil(k/8)`` bytes of the bit vector in hexadecimal (bit
  v is bit ``v % 8`` of byte ``v // 8``).
  The first line is ``# randomizer: <description>``; reading reports for another randomizer
  is refused.

Reading is bounded (:data:`MAX_SURVEY_BYTES`, regular files only) and strict, by the rules
of :mod:`mechdesign.io.matrices`: a leading byte-order mark is dropped; integers are ASCII
digits with an optional sign (no ``1_0``, no other scripts' digits) and range-checked; hex
is ASCII hex digits only, and a bit vector's padding bits past k must be 0; a file with no
value or report is refused. Errors name the file and the line (1-based), never its data
(respondents' values are the data a survey protects).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import FileFormatError
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from ..oracles import FrequencyOracle, oracle_from_dict
from .matrices import (
    BOM,
    INT64_MAX,
    INT64_MIN,
    at,
    digits_of,
    load_mechanism,
    loads_json,
    mechanism_from_dict,
    parse_integer,
    read_text_limited,
)

__all__ = [
    "HEADER",
    "MAX_SURVEY_BYTES",
    "describe",
    "format_reports",
    "load_randomizer",
    "read_reports",
    "read_values",
]

MAX_SURVEY_BYTES = 512 * 2**20
"""Largest values or reports file read: 512 MiB."""

HEADER = "# randomizer: "
"""First line of a reports file, followed by :func:`describe`."""


def describe(randomizer: FrequencyOracle | Mechanism) -> str:
    """One line identifying a randomizer (written in and checked against reports files)."""
    if isinstance(randomizer, FrequencyOracle):
        return repr(randomizer)
    return (f"mechanism {randomizer.name or 'unnamed'} {randomizer.n_inputs}x"
            f"{randomizer.n_outputs}")


def load_randomizer(path: str | Path) -> FrequencyOracle | Mechanism:
    """A mechanism file (``.csv``, ``.json``, ``.toml``), an oracle description (JSON
    ``{"kind": "oracle", ...}``) or the JSON of ``mechdesign solve --json`` (its matrix when
    it has one, else its structured ``oracle``)."""
    p = Path(path)
    if p.suffix.lower() == ".json" and p.is_file():
        data = loads_json(read_text_limited(p), p.name)
        if isinstance(data, dict):
            if data.get("kind") == "oracle":
                return oracle_from_dict(data)
            if data.get("mechanism") is None and isinstance(data.get("oracle"), dict):
                return oracle_from_dict(data["oracle"])
        try:
            mech = mechanism_from_dict(data)
        except FileFormatError as exc:
            raise FileFormatError(f"{p.name}: {exc}") from None
    else:
        mech = load_mechanism(p)
    if isinstance(mech, EvidentialMechanism):
        return mech.to_mechanism()
    return mech


def _lines(path: str | Path, what: str) -> tuple[str, str, list[tuple[int, str]]]:
    """The file's name, its first line and its (line number, text) pairs that are not blank
    or comments; a file without such a line is refused."""
    p = Path(path)
    if not p.is_file():
        raise FileFormatError(f"no such {what} file: {str(p)!r}")
    text = read_text_limited(p, limit=MAX_SURVEY_BYTES)
    rows = [(i, line.strip()) for i, line in enumerate(text.splitlines(), 1)]
    first = rows[0][1] if rows else ""
    kept = [(i, s) for i, s in rows if s and not s.startswith("#")]
    if not kept:
        raise FileFormatError(f"{p.name}: no {what} (the file is empty, or only blank lines "
                              "and # comments)")
    return p.name, first, kept


def _bom_hint(text: str) -> str:
    """Why a line does not read, when a byte-order mark inside the file is the reason."""
    return (" (it holds a byte-order mark U+FEFF: the file was joined from files that each "
            "start with one)" if BOM in text else "")


def _label_indices(name: str, rows: list[tuple[int, str]], labels: tuple, what: str
                   ) -> np.ndarray:
    """The index of each row's label among ``labels`` (matched as written, ``str``)."""
    index = {str(label): j for j, label in enumerate(labels)}
    try:
        return np.array([index[s] for _, s in rows], dtype=np.int64)
    except KeyError:
        line, text = next((i, s) for i, s in rows if s not in index)
        raise FileFormatError(f"{at(name, line, unit='line')}: not one of the mechanism's "
                              f"{len(labels)} {what} labels{_bom_hint(text)}") from None


def read_values(path: str | Path, randomizer: FrequencyOracle | Mechanism) -> np.ndarray:
    """Respondents' values as input indices (int64).

    For a frequency oracle each line is an integer in ``0..k-1`` (ASCII digits,
    :func:`~mechdesign.io.matrices.parse_integer`); for a mechanism an input label.

    Raises
    ------
    FileFormatError
        No values, or a line that is not one, naming the file and the line (never the
        value: an out-of-range integer is described by its number of digits).
    """
    name, _, rows = _lines(path, "values")
    if isinstance(randomizer, FrequencyOracle):
        out = np.empty(len(rows), dtype=np.int64)
        for j, (i, s) in enumerate(rows):
            v = parse_integer(s)
            if v is None:
                raise FileFormatError(f"{at(name, i, unit='line')}: not an integer value "
                                      f"(ASCII digits 0-9 only){_bom_hint(s)}")
            if not 0 <= v < randomizer.k:
                size = f" (an integer of {digits_of(s)} digits)" if digits_of(s) > 9 else ""
                raise FileFormatError(
                    f"{at(name, i, unit='line')}: value outside 0..{randomizer.k - 1}{size}")
            out[j] = v
        return out
    return _label_indices(name, rows, randomizer.inputs, "input")


def format_reports(randomizer: FrequencyOracle | Mechanism, reports: np.ndarray) -> str:
    """The text of a reports file (header line included)."""
    head = HEADER + describe(randomizer)
    if isinstance(randomizer, FrequencyOracle) and randomizer.packed:
        body = [row.tobytes().hex() for row in reports]
    elif isinstance(randomizer, Mechanism):
        body = [str(randomizer.outputs[int(y)]) for y in reports]
    elif reports.ndim == 1:
        body = [str(int(v)) for v in reports]
    else:
        body = [" ".join(map(str, row.tolist())) for row in reports]
    return "\n".join([head, *body]) + "\n"


def read_reports(path: str | Path, randomizer: FrequencyOracle | Mechanism) -> np.ndarray:
    """Reports in the array form the estimators take (:func:`format_reports`' inverse).

    Checked here, naming the file and the line: the header line, the number of fields,
    integers (ASCII, 64-bit), hexadecimal (ASCII hex digits, the right number of bytes, no
    bit set past k: the padding bits of the last byte are 0). Report ``j`` in a message is
    row ``j`` of the returned array. What depends on the randomizer's parameters beyond k
    (a value's range, a subset's size) is checked by its estimator.

    Raises
    ------
    FileFormatError
        No reports, or a line that is not a report of ``randomizer``.
    """
    name, first, rows = _lines(path, "reports")
    if first.startswith(HEADER) and first[len(HEADER):] != describe(randomizer):
        raise FileFormatError(
            f"{name} line 1: the reports were written for another randomizer than "
            f"{describe(randomizer)}")
    if isinstance(randomizer, Mechanism):
        return _label_indices(name, rows, randomizer.outputs, "output")
    width = randomizer.report_width
    if randomizer.packed:
        out = np.zeros((len(rows), width), dtype=np.uint8)
        for j, (i, s) in enumerate(rows):
            if not _HEX.fullmatch(s):
                raise FileFormatError(f"{at(name, i, unit='line')}: not hexadecimal (ASCII "
                                      f"0-9, a-f, an even number of them){_bom_hint(s)}")
            raw = bytes.fromhex(s)
            if len(raw) != width:
                raise FileFormatError(f"{at(name, i, unit='line')}: {len(raw)} bytes, "
                                      f"expected {width}")
            out[j] = np.frombuffer(raw, dtype=np.uint8)
        pad = randomizer.k % 8
        if pad and len(out):
            high = np.flatnonzero(out[:, -1] >> pad)
            if high.size:
                j = int(high[0])
                raise FileFormatError(
                    f"{at(name, rows[j][0], unit='line')}: report {j} sets a bit at or above "
                    f"k = {randomizer.k} (bits {randomizer.k}..{8 * width - 1} are padding "
                    "and must be 0)")
        return out
    return _integer_rows(name, rows, width)


_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+", re.ASCII)


def _integer_rows(name: str, rows: list[tuple[int, str]], width: int) -> Any:
    """Rows of ``max(width, 1)`` non-negative integers (a 1-D array when width is 0)."""
    count = max(width, 1)
    out = np.empty((len(rows), count), dtype=np.int64)
    for j, (i, s) in enumerate(rows):
        parts = s.split()
        if len(parts) != count:
            raise FileFormatError(f"{at(name, i, unit='line')}: {len(parts)} fields, "
                                  f"expected {count}")
        values = [parse_integer(v) for v in parts]
        for col, (v, text) in enumerate(zip(values, parts, strict=True), 1):
            if v is None:
                raise FileFormatError(f"{at(name, i, unit='line')}: not {count} integers "
                                      f"(field {col} is not ASCII digits){_bom_hint(text)}")
            if not INT64_MIN <= v <= INT64_MAX:
                raise FileFormatError(f"{at(name, i, unit='line')}: not {count} integers "
                                      f"(field {col}, of {digits_of(text)} digits, is outside "
                                      "the 64-bit range)")
        out[j] = values
    return out[:, 0] if width == 0 else out
