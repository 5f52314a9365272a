"""Reading and writing mechanisms as files: CSV, JSON and TOML. Data only, never code.

JSON and TOML hold a table with either ``matrix`` (an ordinary mechanism; optional
``inputs``, ``outputs``, ``name``) or ``masses`` and ``focal_sets`` (an evidential mechanism;
optional ``inputs``, ``outputs``). A JSON file may also be a bare list of rows, and the JSON
printed by ``mechdesign solve --json`` (a ``mechanism`` key) is accepted as is. CSV is a
plain numeric matrix, one row per input, with an optional header row of output labels.
"""

from __future__ import annotations

import csv
import json
import tomllib
from pathlib import Path
from typing import Any

import numpy as np

from .errors import FileFormatError
from .evidential import EvidentialMechanism
from .mechanism import Mechanism


def _labels(values: Any, key: str) -> list | None:
    """JSON and TOML have no tuples: list labels become hashable tuples."""
    if values is None:
        return None
    if not isinstance(values, list):
        raise FileFormatError(f"{key!r} must be a list, got {values!r}")
    return [_label(v) for v in values]


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
    """Build a mechanism from parsed JSON/TOML data (see the module docstring)."""
    if isinstance(data, list):
        return Mechanism(data)
    if not isinstance(data, dict):
        raise FileFormatError(f"expected a table or a list of rows, got {type(data).__name__}")
    if "mechanism" in data and isinstance(data["mechanism"], dict):
        return mechanism_from_dict(data["mechanism"])
    if "matrix" in data:
        name = data.get("name")  # JSON null / absent: no name
        return Mechanism(data["matrix"], _labels(data.get("inputs"), "inputs"),
                         _labels(data.get("outputs"), "outputs"),
                         "" if name is None else str(name))
    if "masses" in data:
        if "focal_sets" not in data:
            raise FileFormatError("an evidential mechanism needs 'focal_sets' next to 'masses'")
        return EvidentialMechanism(data["masses"], _focal_sets(data["focal_sets"]),
                                   _labels(data.get("inputs"), "inputs"),
                                   _labels(data.get("outputs"), "outputs"))
    raise FileFormatError(
        f"no 'matrix' or 'masses' key; found keys {sorted(data)!r}")


def _all_numeric(cells: list[str]) -> bool:
    try:
        [float(c) for c in cells]
    except ValueError:
        return False
    return True


def _read_csv(text: str) -> Mechanism:
    rows = [r for r in csv.reader(text.splitlines()) if any(c.strip() for c in r)]
    if not rows:
        raise FileFormatError("CSV file has no rows")
    header = None
    if not _all_numeric(rows[0]):
        header, rows = [c.strip() for c in rows[0]], rows[1:]
    try:
        matrix = [[float(c) for c in r] for r in rows]
    except ValueError as exc:
        raise FileFormatError(f"CSV has a non-numeric entry: {exc}") from None
    widths = {len(r) for r in matrix}
    if len(widths) > 1:
        raise FileFormatError(f"CSV rows have different lengths: {sorted(widths)}")
    return Mechanism(matrix, outputs=header)


def load_mechanism(path: str | Path) -> Mechanism | EvidentialMechanism:
    """Read a mechanism from a ``.csv``, ``.json`` or ``.toml`` file."""
    p = Path(path)
    if not p.is_file():
        raise FileFormatError(f"no such file: {str(p)!r}")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise FileFormatError(
            f"{str(p)!r} is not a UTF-8 text file (byte {exc.object[exc.start:exc.start + 1]!r}"
            f" at offset {exc.start}); mechanism files are CSV, JSON or TOML text") from None
    except OSError as exc:
        raise FileFormatError(f"cannot read {str(p)!r}: {exc.strerror or exc}") from None
    suffix = p.suffix.lower()
    try:
        if suffix == ".csv":
            return _read_csv(text)
        if suffix == ".json":
            return mechanism_from_dict(json.loads(text))
        if suffix == ".toml":
            return mechanism_from_dict(tomllib.loads(text))
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise FileFormatError(f"{p.name}: malformed {suffix[1:].upper()}: {exc}") from None
    raise FileFormatError(f"unknown file type {suffix!r} for {str(p)!r} (use .csv, .json, .toml)")


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
