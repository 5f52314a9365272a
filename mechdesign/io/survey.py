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

Reading is bounded (:data:`MAX_SURVEY_BYTES`, regular files only) and errors name the file
and the line, never its data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import FileFormatError
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from ..oracles import FrequencyOracle, oracle_from_dict
from .matrices import load_mechanism, mechanism_from_dict, read_text_limited

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
        text = read_text_limited(p)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FileFormatError(f"{p.name}: malformed JSON at line {exc.lineno}, column "
                                  f"{exc.colno}") from None
        if isinstance(data, dict):
            if data.get("kind") == "oracle":
                return oracle_from_dict(data)
            if data.get("mechanism") is None and isinstance(data.get("oracle"), dict):
                return oracle_from_dict(data["oracle"])
        mech = mechanism_from_dict(data)
    else:
        mech = load_mechanism(p)
    if isinstance(mech, EvidentialMechanism):
        return mech.to_mechanism()
    return mech


def _lines(path: str | Path, what: str) -> tuple[str, str, list[tuple[int, str]]]:
    """The file's name, its first line and its (line number, text) pairs that are not blank
    or comments."""
    p = Path(path)
    if not p.is_file():
        raise FileFormatError(f"no such {what} file: {str(p)!r}")
    text = read_text_limited(p, limit=MAX_SURVEY_BYTES)
    rows = [(i, line.strip()) for i, line in enumerate(text.splitlines(), 1)]
    first = rows[0][1] if rows else ""
    return p.name, first, [(i, s) for i, s in rows if s and not s.startswith("#")]


def _label_indices(name: str, rows: list[tuple[int, str]], labels: tuple, what: str
                   ) -> np.ndarray:
    """The index of each row's label among ``labels`` (matched as written, ``str``)."""
    index = {str(label): j for j, label in enumerate(labels)}
    try:
        return np.array([index[s] for _, s in rows], dtype=np.int64)
    except KeyError:
        line = next(i for i, s in rows if s not in index)
        raise FileFormatError(f"{name} line {line}: not one of the mechanism's "
                              f"{len(labels)} {what} labels") from None


def read_values(path: str | Path, randomizer: FrequencyOracle | Mechanism) -> np.ndarray:
    """Respondents' values as input indices (int64)."""
    name, _, rows = _lines(path, "values")
    if isinstance(randomizer, FrequencyOracle):
        out = np.empty(len(rows), dtype=np.int64)
        for j, (i, s) in enumerate(rows):
            try:
                out[j] = int(s)
            except ValueError:
                raise FileFormatError(f"{name} line {i}: not an integer value") from None
            if not 0 <= out[j] < randomizer.k:
                raise FileFormatError(
                    f"{name} line {i}: value outside 0..{randomizer.k - 1}")
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
    """Reports in the array form the estimators take (:func:`format_reports`' inverse)."""
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
            try:
                raw = bytes.fromhex(s)
            except ValueError:
                raise FileFormatError(f"{name} line {i}: not hexadecimal") from None
            if len(raw) != width:
                raise FileFormatError(f"{name} line {i}: {len(raw)} bytes, expected {width}")
            out[j] = np.frombuffer(raw, dtype=np.uint8)
        return out
    return _integer_rows(name, rows, width)


def _integer_rows(name: str, rows: list[tuple[int, str]], width: int) -> Any:
    """Rows of ``max(width, 1)`` non-negative integers (a 1-D array when width is 0)."""
    count = max(width, 1)
    out = np.empty((len(rows), count), dtype=np.int64)
    for j, (i, s) in enumerate(rows):
        parts = s.split()
        if len(parts) != count:
            raise FileFormatError(f"{name} line {i}: {len(parts)} fields, expected {count}")
        try:
            out[j] = [int(v) for v in parts]
        except (ValueError, OverflowError):
            raise FileFormatError(f"{name} line {i}: not {count} integers") from None
    return out[:, 0] if width == 0 else out
