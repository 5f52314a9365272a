r"""Design problems as TOML files: data only, never code.

A problem file is read with :mod:`tomllib` and every key is validated; nothing in a file is
ever evaluated (a string such as ``"__import__('os')"`` is a string, and it is refused
wherever a number, a name from a fixed list, or a CSV path is expected). Errors are
:class:`~mechdesign.errors.FileFormatError` (or :class:`~mechdesign.errors.SizeLimitError`
for sizes above :data:`MAX_SIZE`) whose message names the file, the key and the value.

Format
------
.. code-block:: toml

    title = "k-RR is optimal for Hamming loss"      # optional, default: the file's stem
    description = "..."                             # optional

    [privacy]                                       # required
    notion = "ldp"       # "ldp" | "approx_ldp" | "deletion_ldp" | "metric" | "sldp" | "wldp"
    epsilon = 1.0        # required, a real number >= 0
    # delta = 1e-3       # approx_ldp (required), deletion_ldp (optional, default 0)
    # kind = "mass"      # sldp only: "mass" | "pl" | "bel"
    # distance = "line"  # metric only (required), see below
    # spanner = 1.1      # metric only, with a distance matrix: greedy t-spanner (t >= 1)
    # symmetry = true    # metric only, named distances: exact reduction by the grid's
                         # mirror images and quarter turn (or the line's reflection)
    # pairs = [[0, 1], [1, 2]]  # approx_ldp only: the neighbouring inputs (labels or row
                                # indices; both orders constrained), default every pair
    # graph = "line"     # approx_ldp only, instead of pairs: the edges of "line" (the path
                         # 0 - 1 - ... - k-1) or "grid:R:C" (the R x C grid graph)

    [objective]                                     # required
    kind = "expected_loss"  # "expected_loss" | "worst_case_loss" | "mutual_information"
                            # | "estimation" | "minimax_loss" | "posterior_vulnerability"
                            # | "linear" (coefficients = a matrix or {csv = ...}: the sum of
                            #   C[x, y] Q[x, y]; sense = "minimize" (default) | "maximize")
    loss = "hamming"        # the two loss objectives: see below
    k = 3                   # number of inputs (sizes named losses and a "uniform" prior)
    # m = 3                 # number of outputs of a named loss (default: k)
    prior = "uniform"       # "uniform" (default), a list of k numbers, or one number
                            # pi for two inputs, meaning (pi, 1 - pi)
    # criterion = "A"       # estimation only: "A" | "D" | "E"
    # weights = [[1, 0, 0]] # estimation only, criterion A: a workload of linear queries
    # priors = [[...], ...] # minimax_loss: the expected loss at the worst of these priors,
    # lower = [...]         #   or of the priors in the box lower <= prior <= upper
    # upper = [...]         #   (neither: the whole simplex, i.e. the worst-case loss)
    # gain = [[...], ...]   # posterior_vulnerability: a gain matrix (rows actions, columns
                            #   inputs; default the identity: Bayes vulnerability)

    [inputs]                # optional: n = 3, or labels = ["a", "b", "c"]
    [outputs]               # optional: n = 4, or labels = [...]; sldp / wldp need the
                            # labels (or n) and may restrict the messages with
                            # focal_sets = [["Yes"], ["No"], ["Yes", "No"]]

    [[constraints]]         # optional, any number: named user constraints, linear or
    name = "floor"          # convex in Q ("entry", "sum", "rows", "hockey_stick",
    kind = "entry"          # "blanket", "leakage", "loss"; see mechdesign.io.constraints);
    input = 0               # their duals come back under their names, and an infeasible
    output = 0              # file names a minimal conflicting set of them
    op = ">="
    value = 0.4

    [expected]              # optional: a reference value and where it comes from
    value = 0.4238831152341709
    rtol = 1e-7             # default 1e-6
    atol = 0.0              # default 0
    relation = "equal"      # "equal" (default): |v - value| <= atol + rtol |value|;
                            # "at_least": value - atol <= v <= value + atol + rtol |value|;
                            # "at_most":  value - atol - rtol |value| <= v <= value + atol
    source = "Kairouz, Oh, Viswanath 2016"          # optional: where the value comes from
    derivation = "(k-1)/(e^eps+k-1): ..."           # optional one-line derivation

Losses (``[objective] loss``): a name of :data:`mechdesign.losses.BUILDERS` (``"hamming"``,
``"absolute"``, ``"squared"``; built with ``k`` and ``m``), ``"distance"`` (the metric of
``[privacy] distance``: geo-indistinguishability), an inline matrix ``[[...], ...]``
(rows inputs, columns outputs), or a CSV file: ``{csv = "loss.csv"}`` or a string ending in
``.csv``, relative to the problem file.

Distances (``[privacy] distance``, metric privacy ``Q[x,y] <= e^{eps d(x,x')} Q[x',y]``):

* ``"line"``: ``|x - x'|`` on the ``k`` inputs, as the path graph (constraints on its
  ``k - 1`` edges are exact; Ghosh, Roughgarden, Sundararajan 2012);
* ``"grid:R:C"``: the Manhattan distance on an R x C grid, as the grid graph with unit
  edges (exact on edges); input ``r*C + c`` is cell (r, c);
* ``"euclidean-grid:R:C"``: the Euclidean distance between the cells of an R x C grid with
  unit spacing, as a matrix (every pair, or a spanner with ``spanner = t``;
  Andres et al. 2013, Bordenabe et al. 2014);
* an inline matrix, ``{csv = "d.csv"}`` or a string ending in ``.csv``.

Neighbour relations (``[privacy] pairs`` or ``graph``, approximate LDP
``sum_y max(0, Q[x,y] - e^eps Q[x',y]) <= delta`` required only for neighbouring x, x'): a
list of pairs ``[x, x']`` of input labels (strings or integers) or row indices, read by
:func:`~mechdesign.neighbors.neighbour_pairs`, or a named graph on the inputs, ``"line"``
or ``"grid:R:C"`` (input ``r*C + c`` is cell (r, c), as for distances).

Sizes come from, in order: ``[objective] k``, ``[inputs]``, the prior, the loss matrix and
the distance; they must agree. The public entry points are :func:`load_problem` (a path),
:func:`loads_problem` (TOML text) and :func:`problem_from_dict` (parsed data); each returns a
:class:`ProblemFile` whose ``problem`` is a ready :class:`~mechdesign.design.DesignProblem`.
"""

from __future__ import annotations

import itertools
import math
import numbers
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cvxpy as cp
import networkx as nx
import numpy as np

from .. import losses
from .._html import clip, kv_table, number, short_repr, value_view, wrap
from ..accounting import notions as _accounting_notions  # noqa: F401  (registers renyi_ldp, composed, shuffled)
from ..design.objectives import (
    CustomObjective,
    EstimationVariance,
    ExpectedLoss,
    MinimaxLoss,
    MutualInformation,
    Objective,
    PosteriorVulnerability,
    WorstCaseLoss,
)
from ..design.problem import DesignProblem
from ..design.symmetry import grid_symmetries
from ..errors import FileFormatError, SizeLimitError, ValidationError
from ..neighbors import distance_matrix
from ..privacy.notions import REGISTRY, Notion, register_readable
from .constraints import read_constraints
from .matrices import (
    INT64_MAX,
    INT64_MIN,
    MAX_TOML_BYTES,
    PSEUDO_FILESYSTEMS,
    csv_numbers,
    csv_rows,
    loads_toml,
    read_text_limited,
    toml_too_large,
)

__all__ = [
    "DESIGN_KEYS",
    "MAX_COUNT",
    "MAX_ENTRIES",
    "MAX_SIZE",
    "NOTION_KEYS",
    "NOTION_PARAMETERS",
    "OBJECTIVE_KEYS",
    "PRIOR_SHOWN",
    "PRIOR_TEXT_CHARS",
    "READABLE_PARAMETERS",
    "Expected",
    "ProblemFile",
    "euclidean_grid",
    "grid_graph",
    "load_problem",
    "loads_problem",
    "notion_keys",
    "path_graph",
    "problem_from_dict",
]

MAX_SIZE = 10_000
"""Largest number of inputs, outputs or grid cells a problem file may ask for."""

MAX_COUNT = 10**12
"""Largest number of uses (``Composed``) or users (``Shuffled``) a problem file may give:
they size no array (the accounting is in closed form or by atoms)."""

MAX_ENTRIES = 10_000_000
"""Largest matrix (loss or distance) a problem file may build or read."""

OPT_IN = "opt in with allow_outside=True (Python) or --allow-outside-paths (command line)"

SECTIONS = ("title", "description", "privacy", "objective", "inputs", "outputs", "expected",
            "constraints")

DESIGN_KEYS: dict[str, tuple[str, ...]] = {"metric": ("symmetry",)}
"""Keys of ``[privacy]`` read by the design rather than the notion."""

def notion_keys() -> dict[str, tuple[str, ...]]:
    """Allowed keys of ``[privacy]`` (besides ``notion``) for each registered notion (read
    at call time, so a notion registered later is readable too): its parameters
    (:meth:`~mechdesign.privacy.notions.Notion.parameter_names`) and the design's."""
    return {name: (*cls.parameter_names(), *DESIGN_KEYS.get(name, ()))
            for name, cls in REGISTRY.items()}


NOTION_KEYS: dict[str, tuple[str, ...]] = notion_keys()
""":func:`notion_keys` of the notions built in (at import)."""

READABLE_PARAMETERS = ("epsilon", "delta", "spanner", "distance", "graph", "pairs", "kind",
                       "alpha", "uses", "n")
"""The notion parameters a ``[privacy]`` table can give (:func:`_notion` reads each)."""
register_readable(*READABLE_PARAMETERS)

OBJECTIVE_KEYS: dict[str, tuple[str, ...]] = {
    "expected_loss": ("loss", "k", "m", "prior"),
    "worst_case_loss": ("loss", "k", "m"),
    "mutual_information": ("prior", "k"),
    "estimation": ("prior", "k", "criterion", "weights"),
    "minimax_loss": ("loss", "k", "m", "priors", "lower", "upper"),
    "posterior_vulnerability": ("prior", "k", "gain"),
    "linear": ("coefficients", "sense"),
}
"""Allowed keys of ``[objective]`` (besides ``kind``) for each objective."""

INPUT_KEYS = ("n", "labels")
OUTPUT_KEYS = ("n", "labels", "focal_sets")
EXPECTED_KEYS = ("value", "rtol", "atol", "relation", "source", "derivation")
RELATIONS = ("equal", "at_least", "at_most")
DEFAULT_RTOL = 1e-6

_GRID = re.compile(r"^(grid|euclidean-grid):(\d+):(\d+)$")


# ------------------------------------------------------------------------------ values
@value_view
@dataclass(frozen=True)
class Expected:
    """The ``[expected]`` section: a reference value, its tolerance and its source."""

    value: float
    rtol: float = DEFAULT_RTOL
    atol: float = 0.0
    relation: str = "equal"
    source: str = ""
    derivation: str = ""

    def bounds(self) -> tuple[float, float]:
        """The interval a solved value must lie in (see the module docstring)."""
        slack = self.atol + self.rtol * abs(self.value)
        if self.relation == "at_least":
            return self.value - self.atol, self.value + slack
        if self.relation == "at_most":
            return self.value - slack, self.value + self.atol
        return self.value - slack, self.value + slack

    def check(self, value: float | None) -> bool:
        """Does a solved ``value`` meet the reference?"""
        if value is None or not math.isfinite(value):
            return False
        lo, hi = self.bounds()
        return lo <= value <= hi

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "rtol": self.rtol, "atol": self.atol,
                "relation": self.relation, "source": self.source,
                "derivation": self.derivation}


@dataclass(frozen=True)
class ProblemFile:
    """A parsed problem file.

    Attributes
    ----------
    title, description : str
    problem : DesignProblem
        Ready to ``.solve()``.
    expected : Expected or None
    privacy, objective : str
        One-line human descriptions of the notion and the objective (for reports).
    path : Path or None
    data : dict
        The parsed TOML (plain data).
    files_read : tuple of Path
        Every file the problem names and the reader opened (CSV tables), as resolved.
    """

    title: str
    problem: DesignProblem = field(repr=False)
    expected: Expected | None
    privacy: str
    objective: str
    description: str = ""
    path: Path | None = None
    data: dict = field(default_factory=dict, repr=False)
    files_read: tuple[Path, ...] = ()

    def __repr__(self) -> str:
        """One line: the file's name, its title, the notion and the objective."""
        where = f"{clip(self.path.name, 40)} " if self.path is not None else ""
        expected = ("" if self.expected is None
                    else f"; expected {number(self.expected.value)}")
        return short_repr("ProblemFile", f"{where}{clip(repr(self.title), 60)}: "
                          f"{clip(self.privacy, 40)}; {clip(self.objective, 60)}{expected}")

    def _repr_html_(self) -> str:
        """The file's title and description, the problem as a table, and the reference
        value it states (notebooks)."""
        rows: list[tuple[str, Any]] = [
            ("file", None if self.path is None else str(self.path)),
            ("description", self.description or None),
            ("privacy", self.privacy), ("objective", self.objective)]
        exp = self.expected
        if exp is not None:
            lo, hi = exp.bounds()
            rows += [("expected", f"{number(exp.value)} ({exp.relation}, in "
                                  f"[{number(lo)}, {number(hi)}])"),
                     ("source", exp.source or None), ("derivation", exp.derivation or None)]
        if self.files_read:
            rows.append(("files read", [str(f) for f in self.files_read]))
        return wrap(kv_table(rows, self.title), self.problem._repr_html_())


# ------------------------------------------------------------------------------ helpers
class _Reader:
    """Validation helpers that prefix every message with the file name and the key."""

    def __init__(self, name: str, base: Path | None, allow_outside: bool = False) -> None:
        self.name = name
        self.base = base
        self.allow_outside = allow_outside
        self.files_read: list[Path] = []

    def fail(self, where: str, message: str, cls: type[ValidationError] = FileFormatError
             ) -> ValidationError:
        return cls(f"{self.name}: {where}: {message}")

    def call(self, where: str, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` with a library ValidationError re-raised naming the file and key."""
        try:
            return fn(*args)
        except ValidationError as exc:
            raise self.relay(where, exc) from None

    def relay(self, where: str, exc: ValidationError) -> ValidationError:
        """A library error re-raised naming the file: a size limit stays a
        :class:`SizeLimitError`, anything else becomes a :class:`FileFormatError`."""
        cls = SizeLimitError if isinstance(exc, SizeLimitError) else FileFormatError
        return self.fail(where, str(exc), cls)

    def table(self, data: dict, key: str, required: bool) -> dict | None:
        value = data.get(key)
        if value is None:
            if required:
                raise self.fail(f"[{key}]", "missing section")
            return None
        if not isinstance(value, dict):
            raise self.fail(key, f"must be a [{key}] table, got {value!r}")
        return value

    def keys(self, table: dict, section: str, allowed: tuple[str, ...], what: str) -> None:
        for key in table:
            if key not in allowed:
                raise self.fail(f"[{section}] {key}",
                                f"unknown key {key!r} for {what}; allowed: "
                                f"{', '.join(allowed)}")

    def real(self, table: dict, section: str, key: str, *, minimum: float | None = None,
             maximum: float | None = None, default: float | None = None,
             finite: bool = True) -> float:
        if key not in table:
            if default is None:
                raise self.fail(f"[{section}] {key}", "missing (a number is required)")
            return default
        v = table[key]
        where = f"[{section}] {key} = {v!r}"
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise self.fail(where, f"must be a number, got {type(v).__name__} {v!r}")
        _in_range(self, v, where)
        x = float(v)
        if math.isnan(x) or (finite and math.isinf(x)):
            raise self.fail(where, "must be a finite number")
        if minimum is not None and x < minimum:
            raise self.fail(where, f"must be >= {minimum:g}")
        if maximum is not None and x > maximum:
            raise self.fail(where, f"must be <= {maximum:g}")
        return x

    def integer(self, table: dict, section: str, key: str, minimum: int,
                maximum: int = MAX_SIZE) -> int | None:
        if key not in table:
            return None
        v = table[key]
        where = f"[{section}] {key} = {v!r}"
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(where, f"must be an integer, got {type(v).__name__} {v!r}")
        if v < minimum:
            raise self.fail(where, f"must be >= {minimum}")
        if v > maximum:
            raise self.fail(where, f"exceeds the limit of {maximum}", SizeLimitError)
        return v

    def string(self, table: dict, section: str, key: str, choices: tuple[str, ...] | None,
               default: str | None = None) -> str:
        """A string key (``section=""`` for a top-level key), from ``choices`` if given."""
        name = f"[{section}] {key}" if section else key
        if key not in table:
            if default is None:
                hint = f" (one of {', '.join(choices)})" if choices else ""
                raise self.fail(name, f"missing{hint}")
            return default
        v = table[key]
        if not isinstance(v, str):
            raise self.fail(f"{name} = {v!r}", f"must be a string, got {type(v).__name__}")
        if choices is not None and v not in choices:
            raise self.fail(f"{name} = {v!r}",
                            f"unknown value; expected one of {', '.join(choices)}")
        return v

    def labels(self, value: Any, where: str, n: int | None = None) -> list:
        if not isinstance(value, list) or not value:
            raise self.fail(where, f"must be a non-empty list of labels, got {value!r}")
        if len(value) > MAX_SIZE:
            raise self.fail(where, f"{len(value)} labels exceed the limit of {MAX_SIZE}",
                            SizeLimitError)
        for v in value:
            if isinstance(v, bool) or not isinstance(v, str | int):
                raise self.fail(where, f"labels must be strings or integers, got {v!r}")
        if len(set(value)) != len(value):
            raise self.fail(where, f"labels must be distinct, got {value!r}")
        if n is not None and len(value) != n:
            raise self.fail(where, f"{len(value)} labels but n = {n}")
        return list(value)

    def matrix(self, value: Any, where: str, *, allow_inf: bool = False) -> np.ndarray:
        """An inline matrix (list of equal-length lists of numbers) or a CSV reference."""
        if isinstance(value, str) and value.lower().endswith(".csv"):
            return self.csv(value, where, allow_inf=allow_inf)
        if isinstance(value, dict):
            if set(value) != {"csv"} or not isinstance(value["csv"], str):
                raise self.fail(where, f"a table here must be {{csv = \"file.csv\"}}, got "
                                       f"{value!r}")
            return self.csv(value["csv"], where, allow_inf=allow_inf)
        if not isinstance(value, list) or not value or not all(
                isinstance(r, list) for r in value):
            raise self.fail(where, f"must be a matrix [[...], ...] or {{csv = \"file.csv\"}}, "
                                   f"got {value!r}")
        widths = {len(r) for r in value}
        if len(widths) != 1 or 0 in widths:
            raise self.fail(where, f"rows have lengths {sorted(widths)}; need equal, non-zero")
        if len(value) * len(value[0]) > MAX_ENTRIES:
            raise self.fail(where, f"more than {MAX_ENTRIES} entries", SizeLimitError)
        for i, row in enumerate(value):
            for j, v in enumerate(row):
                if isinstance(v, bool) or not isinstance(v, numbers.Real):
                    raise self.fail(where, f"entry [{i}][{j}] = {v!r} is not a number")
                _in_range(self, v, f"{where}: entry [{i}][{j}]")
        return self._finite(np.array(value, dtype=float), where, allow_inf)

    def _finite(self, A: np.ndarray, where: str, allow_inf: bool) -> np.ndarray:
        bad = np.isnan(A) if allow_inf else ~np.isfinite(A)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise self.fail(where, f"entry [{i}][{j}] = {float(A[i, j])!r} is not finite")
        return A

    def csv(self, name: str, where: str, *, allow_inf: bool) -> np.ndarray:
        """A numeric CSV file named by the problem file (see :meth:`resolve` for the file
        policy). Errors name the file, the row (its line) and the column and say what was
        expected; they never contain the file's data."""
        path = self.resolve(name, where)
        if not path.exists():
            raise self.fail(where, f"no such CSV file: {str(path)!r}")
        try:
            rows = csv_rows(read_text_limited(path, repr(name), refuse_pseudo=True), name)
            if not rows:
                raise FileFormatError(f"{name} has no rows")
            if len(rows) * len(rows[0][1]) > MAX_ENTRIES:
                raise SizeLimitError(f"{name} has more than {MAX_ENTRIES} entries")
            return np.array(csv_numbers(rows, name, allow_inf=allow_inf), dtype=float)
        except ValidationError as exc:
            raise self.relay(where, exc) from None

    def resolve(self, name: str, where: str) -> Path:
        """The path a problem file names, under the file policy: relative to the problem
        file's folder (the working directory for text without a file), and inside it once
        resolved; absolute paths, ``..`` escapes and symbolic links out of the folder are
        refused unless ``allow_outside``. Files under /proc, /sys and /dev never."""
        raw = Path(name)
        folder = self.base if self.base is not None else Path.cwd()
        path = raw if raw.is_absolute() else folder / raw
        real = Path(os.path.realpath(path))
        for pseudo in PSEUDO_FILESYSTEMS:
            if real.is_relative_to(pseudo):
                raise self.fail(where, f"{name!r} is a file of {pseudo}, which problem files "
                                       "may never read")
        if self.allow_outside:
            self.files_read.append(path)
            return path
        rule = (f"paths in a problem file are relative to its folder and may not leave it; "
                f"{OPT_IN}")
        if raw.is_absolute():
            raise self.fail(where, f"absolute path {name!r} refused: {rule}")
        real_folder = Path(os.path.realpath(folder))
        if not real.is_relative_to(real_folder):
            lexical = Path(os.path.abspath(path)).is_relative_to(os.path.abspath(folder))
            how = "a symbolic link leads" if lexical else "'..' leads"
            raise self.fail(where, f"{name!r} refused: {how} outside the problem file's folder "
                                   f"{str(folder)!r}; {rule}")
        self.files_read.append(path)
        return path


def _in_range(rd: _Reader, v: Any, where: str) -> None:
    """Refuse an integer outside the 64-bit range (TOML's; larger ones overflow float)."""
    if isinstance(v, int) and not INT64_MIN <= v <= INT64_MAX:
        raise rd.fail(where, f"an integer of {len(str(abs(v)))} digits, outside the 64-bit "
                             "range")


def path_graph(labels: list) -> nx.Graph:
    """The path ``labels[0] - labels[1] - ...`` with unit edges: ``d(x, x') = |i - i'|``."""
    G = nx.Graph()
    G.add_nodes_from(labels)
    G.add_edges_from(itertools.pairwise(labels), weight=1.0)
    return G


def grid_graph(rows: int, cols: int, labels: list | None = None) -> nx.Graph:
    """The R x C grid graph with unit edges (its shortest paths are the Manhattan distance).

    Node ``labels[r * cols + c]`` (default ``r * cols + c``) is cell (r, c).
    """
    labels = list(range(rows * cols)) if labels is None else labels
    G = nx.Graph()
    G.add_nodes_from(labels)
    for r in range(rows):
        for c in range(cols):
            i = r * cols + c
            if c + 1 < cols:
                G.add_edge(labels[i], labels[i + 1], weight=1.0)
            if r + 1 < rows:
                G.add_edge(labels[i], labels[i + cols], weight=1.0)
    return G


def euclidean_grid(rows: int, cols: int) -> np.ndarray:
    r"""Euclidean distances between the cells of an R x C grid with unit spacing,
    ``d((r, c), (r', c')) = sqrt((r - r')^2 + (c - c')^2)``; cell (r, c) is index ``r*C + c``
    (geo-indistinguishability, Andres et al. 2013)."""
    r, c = np.divmod(np.arange(rows * cols), cols)
    return np.hypot(r[:, None] - r[None, :], c[:, None] - c[None, :])


# ------------------------------------------------------------------------------ parsing
def load_problem(path: str | Path, *, allow_outside: bool = False) -> ProblemFile:
    """Read a problem file (TOML).

    Paths inside it (CSV matrices) are relative to its folder and may not leave it: an
    absolute path, a ``..`` escape or a symbolic link whose target is outside the folder is
    refused with :class:`~mechdesign.errors.FileFormatError` unless ``allow_outside=True``.
    Every file read must be a regular file of at most
    :data:`mechdesign.io.matrices.MAX_FILE_BYTES` (64 MiB), the problem file itself of at
    most :data:`mechdesign.io.matrices.MAX_TOML_BYTES` (4 MiB, checked on its size before
    it is parsed) (:class:`~mechdesign.errors.SizeLimitError` above); nothing under
    /proc, /sys or /dev is read. A leading byte-order mark is dropped, and the strict rules
    of :mod:`mechdesign.io.matrices` apply (the CSV files it names hold numbers only: no
    header row). No error message contains data read from a CSV file.

    Parameters
    ----------
    path : str or Path
        The problem file.
    allow_outside : bool, default False
        Let the file name paths outside its folder (absolute, ``..``, symbolic links).
    """
    p = Path(path)
    if not p.exists() or p.is_dir():
        raise FileFormatError(f"no such problem file: {str(p)!r}")
    try:
        text = read_text_limited(p, repr(str(p)), refuse_pseudo=True, limit=MAX_TOML_BYTES)
    except SizeLimitError:
        raise SizeLimitError(toml_too_large(repr(str(p)))) from None
    return loads_problem(text, base=p.parent, name=p.name, path=p, allow_outside=allow_outside)


def loads_problem(text: str, base: str | Path | None = None, name: str = "<problem>",
                  path: Path | None = None, *, allow_outside: bool = False) -> ProblemFile:
    """Parse TOML text into a :class:`ProblemFile` (see the module docstring).

    At most :data:`~mechdesign.io.matrices.MAX_TOML_BYTES`, checked before parsing; a
    leading byte-order mark is dropped; an integer outside the 64-bit range is refused.

    CSV paths resolve against ``base`` (default: the working directory) and may not leave
    it unless ``allow_outside`` (see :func:`load_problem`).
    """
    data = loads_toml(text, name, quote_keys=True)
    return problem_from_dict(data, base=base, name=name, path=path,
                             allow_outside=allow_outside)


def problem_from_dict(data: dict, base: str | Path | None = None, name: str = "<problem>",
                      path: Path | None = None, *, allow_outside: bool = False
                      ) -> ProblemFile:
    """Build a :class:`ProblemFile` from parsed TOML data (plain dicts, lists, numbers).

    ``base`` and ``allow_outside`` are the file policy of :func:`load_problem`. Data nested
    too deeply to validate is refused with :class:`~mechdesign.errors.FileFormatError`.
    """
    rd = _Reader(name, None if base is None else Path(base), allow_outside)
    try:
        return _problem(rd, data, path)
    except RecursionError:
        raise rd.fail("file", "nested too deeply to read") from None


def _problem(rd: _Reader, data: dict, path: Path | None) -> ProblemFile:
    """The body of :func:`problem_from_dict`."""
    name = rd.name
    if not isinstance(data, dict):
        raise rd.fail("file", f"expected a TOML table, got {type(data).__name__}")
    for key in data:
        if key not in SECTIONS:
            raise rd.fail(key, f"unknown section or key {key!r}; allowed: {', '.join(SECTIONS)}")
    title = rd.string(data, "", "title", None, default=path.stem if path else name)
    description = rd.string(data, "", "description", None, default="")
    priv = rd.table(data, "privacy", True)
    obj = rd.table(data, "objective", True)
    ins = rd.table(data, "inputs", False) or {}
    outs = rd.table(data, "outputs", False) or {}
    exp = rd.table(data, "expected", False)
    assert priv is not None and obj is not None

    keys = notion_keys()
    notion_name = rd.string(priv, "privacy", "notion", tuple(keys))
    rd.keys(priv, "privacy", ("notion", *keys[notion_name]), f"notion {notion_name!r}")
    kind = rd.string(obj, "objective", "kind", tuple(OBJECTIVE_KEYS))
    rd.keys(obj, "objective", ("kind", *OBJECTIVE_KEYS[kind]), f"objective {kind!r}")
    rd.keys(ins, "inputs", INPUT_KEYS, "[inputs]")
    rd.keys(outs, "outputs", OUTPUT_KEYS, "[outputs]")

    input_labels, k_inputs = _sized(rd, ins, "inputs", 2)
    output_labels, n_outputs = _sized(rd, outs, "outputs", 1)
    k = rd.integer(obj, "objective", "k", 2) or k_inputs
    if k is None and isinstance(obj.get("prior"), list):
        k = len(obj["prior"])
    if k is None and isinstance(obj.get("loss"), list):
        k = len(obj["loss"])

    distance, dist_desc, symmetry = None, "", None
    if notion_name == "metric":
        distance, dist_desc, k = _distance(rd, priv, k, input_labels)
        symmetry = _symmetry(rd, priv, k)
    graph = None
    if notion_name == "approx_ldp" and "graph" in priv:
        graph, k = _neighbour_graph(rd, priv["graph"], k, input_labels)
    objective, obj_desc = _objective(rd, kind, obj, k, n_outputs, distance)
    if isinstance(objective, CustomObjective):  # kind = "linear": sized by its matrix
        k_inputs, n_outputs = objective.coefficients.shape
    notion, notion_desc = _notion(rd, notion_name, priv, distance, dist_desc, graph)

    focal_sets = outs.get("focal_sets")
    if focal_sets is not None:
        if not notion.evidential:
            raise rd.fail("[outputs] focal_sets",
                          f"only the evidential notions sldp and wldp take focal sets, not "
                          f"{notion_name!r}")
        focal_sets = _focal_sets(rd, focal_sets, output_labels, n_outputs)
    spec = {"privacy": notion, "objective": objective, "inputs": input_labels,
            "n_inputs": None if input_labels else k_inputs, "outputs": output_labels,
            "n_outputs": None if output_labels else n_outputs, "focal_sets": focal_sets,
            "symmetry": symmetry}
    try:
        problem = DesignProblem(**spec)
        if "constraints" in data:  # resolved against the problem's own labels
            columns = (tuple(problem.focal_sets) if problem.focal_sets is not None
                       else problem.outputs)  # the columns of Q
            spec["constraints"] = read_constraints(
                rd, data["constraints"], problem.inputs, columns,
                lambda t, where: _loss(rd, t, problem.k, problem.n, distance, where)[0],
                lambda t, where, n: _prior(rd, t, n, where)[0])
            problem = DesignProblem(**spec)
    except ValidationError as exc:
        if isinstance(exc, FileFormatError) and str(exc).startswith(f"{rd.name}:"):
            raise
        raise rd.relay("the problem", exc) from None
    expected = None if exp is None else _expected(rd, exp)
    return ProblemFile(title=title, problem=problem, expected=expected, privacy=notion_desc,
                       objective=obj_desc, description=description, path=path, data=data,
                       files_read=tuple(rd.files_read))


def _sized(rd: _Reader, table: dict, section: str, minimum: int) -> tuple[list | None,
                                                                          int | None]:
    n = rd.integer(table, section, "n", minimum)
    labels = None
    if "labels" in table:
        labels = rd.labels(table["labels"], f"[{section}] labels", n)
        if len(labels) < minimum:
            raise rd.fail(f"[{section}] labels", f"need at least {minimum} labels")
        n = len(labels)
    return labels, n


def _distance(rd: _Reader, priv: dict, k: int | None, labels: list | None
              ) -> tuple[Any, str, int]:
    if "distance" not in priv:
        raise rd.fail("[privacy] distance", "missing (metric privacy needs a distance: "
                                            "\"line\", \"grid:R:C\", \"euclidean-grid:R:C\", "
                                            "a matrix or {csv = \"file.csv\"})")
    value = priv["distance"]
    where = f"[privacy] distance = {value!r}"
    spanner = priv.get("spanner")
    if isinstance(value, str) and not value.lower().endswith(".csv"):
        if value == "line":
            if k is None:
                raise rd.fail(where, "the number of inputs is unknown: give [objective] k "
                                     "or [inputs]")
            graph_labels = labels or list(range(k))
            D: Any = path_graph(graph_labels)
            desc = "line |x - x'| (path graph)"
        else:
            m = _GRID.match(value)
            if m is None:
                raise rd.fail(where, "unknown distance; use \"line\", \"grid:R:C\", "
                                     "\"euclidean-grid:R:C\", a matrix or {csv = \"file.csv\"}")
            R, C = int(m.group(2)), int(m.group(3))
            if R < 1 or C < 1 or R * C < 2:
                raise rd.fail(where, "a grid needs at least 2 cells")
            limit = MAX_SIZE if m.group(1) == "grid" else math.isqrt(MAX_ENTRIES)
            if R * C > limit:
                raise rd.fail(where, f"{R * C} cells exceed the limit of {limit}",
                              SizeLimitError)
            if labels is not None and len(labels) != R * C:
                raise rd.fail(where, f"{R * C} cells but [inputs] has {len(labels)} labels")
            if m.group(1) == "grid":
                D = grid_graph(R, C, labels)
                desc = f"Manhattan on a {R} x {C} grid (grid graph)"
            else:
                D = euclidean_grid(R, C)
                desc = f"Euclidean on a {R} x {C} grid"
        if isinstance(D, nx.Graph) and spanner is not None:
            raise rd.fail(f"[privacy] spanner = {spanner!r}",
                          f"a spanner applies to a distance matrix; {value!r} is a graph "
                          "whose edge constraints are already exact")
    else:
        D = rd.matrix(value, "[privacy] distance", allow_inf=True)
        desc = f"a {D.shape[0]} x {D.shape[1]} matrix"
    size = D.number_of_nodes() if isinstance(D, nx.Graph) else D.shape[0]
    if not isinstance(D, nx.Graph):
        rd.call("[privacy] distance", distance_matrix, D, list(range(size)))
    if k is not None and size != k:
        raise rd.fail(where, f"has {size} points but there are {k} inputs")
    return D, desc, size


def _symmetry(rd: _Reader, priv: dict, k: int) -> list | None:
    """``symmetry = true``: the named distance's own symmetries (the grid's mirror images and
    quarter turn, the line's reflection); the loss and prior are checked against them."""
    if "symmetry" not in priv:
        return None
    v, dist = priv["symmetry"], priv.get("distance")
    where = f"[privacy] symmetry = {v!r}"
    if not isinstance(v, bool):
        raise rd.fail(where, f"must be true or false, got {type(v).__name__}")
    if not v:
        return None
    m = _GRID.match(dist) if isinstance(dist, str) else None
    if m is not None:
        return grid_symmetries(int(m.group(2)), int(m.group(3)))
    if dist == "line":
        return [np.arange(k)[::-1]]
    raise rd.fail(where, "needs a named distance (\"line\", \"grid:R:C\", "
                         f"\"euclidean-grid:R:C\"), got {dist!r}; for other distances pass "
                         "symmetry= to DesignProblem in Python")


def _loss(rd: _Reader, obj: dict, k: int | None, n_outputs: int | None,
          distance: Any, section: str = "[objective]") -> tuple[np.ndarray, str]:
    if "loss" not in obj:
        raise rd.fail(f"{section} loss", "missing (a named loss, \"distance\", a matrix or "
                                          "{csv = \"file.csv\"})")
    value = obj["loss"]
    where = f"{section} loss = {value!r}"
    if isinstance(value, str) and not value.lower().endswith(".csv"):
        if value == "distance":
            if distance is None:
                raise rd.fail(where, "\"distance\" needs metric privacy with a distance")
            size = (distance.number_of_nodes() if isinstance(distance, nx.Graph)
                    else distance.shape[0])
            nodes = list(distance.nodes) if isinstance(distance, nx.Graph) else range(size)
            D = rd.call(where, distance_matrix, distance, list(nodes))
            if not np.isfinite(D).all():
                raise rd.fail(where, "the distance has infinite entries; a loss must be "
                                     "finite")
            return rd.call(where, losses.from_distance, D), "the privacy distance"
        builder: Callable | None = losses.BUILDERS.get(value)
        if builder is None:
            raise rd.fail(where, f"unknown loss; named losses: "
                                 f"{', '.join([*losses.BUILDERS, 'distance'])}, or a "
                                 "matrix or {csv = \"file.csv\"}")
        if k is None:
            raise rd.fail(where, "the number of inputs is unknown: give [objective] k")
        m = rd.integer(obj, section.strip("[]"), "m", 1) or n_outputs or k
        if k * m > MAX_ENTRIES:
            raise rd.fail(where, f"k * m = {k * m} exceeds {MAX_ENTRIES}", SizeLimitError)
        return rd.call(where, builder, k, m), f"{value} ({k} x {m})"
    if "m" in obj:
        raise rd.fail(f"{section} m = {obj['m']!r}", "m sizes a named loss only")
    L = rd.matrix(value, f"{section} loss")
    if k is not None and L.shape[0] != k:
        raise rd.fail(f"{section} loss", f"has {L.shape[0]} rows but there are {k} inputs")
    return L, f"a {L.shape[0]} x {L.shape[1]} matrix"


PRIOR_TEXT_CHARS = 60
"""A prior list whose text is at most this long (or of at most :data:`PRIOR_SHOWN` values)
is described as written in the file."""

PRIOR_SHOWN = 4
"""A longer prior is described by its first values, at 4 significant digits, and its size."""


def _prior_text(values: list) -> str:
    """A prior list for the printed objective: as written when short, else abbreviated,
    ``[0.0432, 0.0288, 0.0219, 0.01798, ..., 40 values]`` (a 40-value prior written to 17
    digits was printed whole)."""
    text = str(values)
    if len(text) <= PRIOR_TEXT_CHARS or len(values) <= PRIOR_SHOWN:
        return text
    head = ", ".join(f"{float(v):.4g}" for v in values[:PRIOR_SHOWN])
    return f"[{head}, ..., {len(values)} values]"


def _prior(rd: _Reader, obj: dict, k: int | None, section: str = "[objective]"
           ) -> tuple[np.ndarray, str]:
    """The prior as a vector (validated by the objective: finite, >= 0, sums to 1) and its
    description for the printed objective (:func:`_prior_text`)."""
    value = obj.get("prior", "uniform")
    where = f"{section} prior = {value!r}"
    if value == "uniform":
        if k is None:
            raise rd.fail(where, "the number of inputs is unknown: give [objective] k")
        return np.full(k, 1.0 / k), "uniform"
    if isinstance(value, bool) or not isinstance(value, numbers.Real | list):
        raise rd.fail(where, "must be \"uniform\", a list of k numbers, or one number pi "
                             "for two inputs")
    if isinstance(value, numbers.Real):
        if k not in (None, 2):
            raise rd.fail(where, f"one number means (pi, 1 - pi) for 2 inputs; there are {k}")
        pi = float(value)
        if not 0.0 <= pi <= 1.0:
            raise rd.fail(where, "must lie in [0, 1]")
        return np.array([pi, 1.0 - pi]), f"({pi:g}, {1 - pi:g})"
    for v in value:
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise rd.fail(where, f"entry {v!r} is not a number")
        _in_range(rd, v, where)
    if k is not None and len(value) != k:
        raise rd.fail(where, f"has {len(value)} entries but there are {k} inputs")
    return np.array(value, dtype=float), _prior_text(value)


@dataclass(frozen=True, repr=False)
class _Linear(CustomObjective):
    """The ``linear`` objective of a file: a custom objective that keeps its matrix (the
    problem's sizes come from it)."""

    coefficients: np.ndarray = field(default=None, compare=False)  # type: ignore[assignment]


def _linear(rd: _Reader, obj: dict, k: int | None, n_outputs: int | None
            ) -> tuple[Objective, str]:
    """``kind = "linear"``: minimise (or maximise) ``sum_{x,y} C[x, y] Q[x, y]`` for a
    coefficient matrix ``C`` given inline or as ``{csv = "file.csv"}``."""
    if "coefficients" not in obj:
        raise rd.fail("[objective] coefficients", "missing (a matrix or {csv = \"file.csv\"})")
    C = rd.matrix(obj["coefficients"], "[objective] coefficients")
    if k is not None and C.shape[0] != k:
        raise rd.fail("[objective] coefficients",
                      f"has {C.shape[0]} rows but there are {k} inputs")
    if n_outputs is not None and C.shape[1] != n_outputs:
        raise rd.fail("[objective] coefficients",
                      f"has {C.shape[1]} columns but there are {n_outputs} outputs")
    sense = rd.string(obj, "objective", "sense", ("minimize", "maximize"), default="minimize")
    C = rd.call("[objective] coefficients", losses.check_loss, C)  # finite, finite range
    objective = _Linear(fn=lambda Q: cp.sum(cp.multiply(C, Q)), sense_=sense,
                        evaluate_fn=lambda Q: float((C * Q).sum()), coefficients=C)
    return objective, f"linear: {sense} sum C[x, y] Q[x, y] ({C.shape[0]} x {C.shape[1]})"


def _objective(rd: _Reader, kind: str, obj: dict, k: int | None, n_outputs: int | None,
               distance: Any) -> tuple[Objective, str]:
    where = f"[objective] kind = {kind!r}"
    if kind == "linear":
        return _linear(rd, obj, k, n_outputs)
    if kind in ("expected_loss", "worst_case_loss", "minimax_loss"):
        L, loss_desc = _loss(rd, obj, k, n_outputs, distance)
        if kind == "worst_case_loss":
            return rd.call(where, WorstCaseLoss, L), f"worst-case loss, {loss_desc}"
        if kind == "minimax_loss":
            sets = {key: rd.matrix(obj[key] if key == "priors" else [obj[key]],
                                   f"[objective] {key}")
                    for key in ("priors", "lower", "upper") if key in obj}
            if "lower" in sets or "upper" in sets:
                sets = {key: v[0] if key != "priors" else v for key, v in sets.items()}
            over = (f"of {len(sets['priors'])} priors" if "priors" in sets else
                    "in the box lower <= prior <= upper" if sets else "(any prior)")
            return (rd.call(where, lambda: MinimaxLoss(L, **sets)),
                    f"expected loss at the worst prior {over}, {loss_desc}")
        prior, prior_desc = _prior(rd, obj, L.shape[0])
        return (rd.call(f"[objective] prior = {obj.get('prior', 'uniform')!r}", ExpectedLoss,
                        L, prior),
                f"expected loss, {loss_desc}, prior {prior_desc}")
    prior, prior_desc = _prior(rd, obj, k)
    prior_where = f"[objective] prior = {obj.get('prior', 'uniform')!r}"
    if kind == "mutual_information":
        return (rd.call(prior_where, MutualInformation, prior),
                f"mutual information (nats), prior {prior_desc}")
    if kind == "posterior_vulnerability":
        gain = rd.matrix(obj["gain"], "[objective] gain") if "gain" in obj else None
        return (rd.call(where, PosteriorVulnerability, prior, gain),
                f"posterior {'g-' if gain is not None else 'Bayes '}vulnerability, prior "
                f"{prior_desc}")
    criterion = rd.string(obj, "objective", "criterion", ("A", "D", "E"), default="A")
    weights = None
    if "weights" in obj:
        weights = rd.matrix(obj["weights"], "[objective] weights")
    return (rd.call(where, EstimationVariance, prior, criterion, weights),
            f"estimation, criterion {criterion}, prior {prior_desc}")


NOTION_PARAMETERS: dict[str, dict[str, Any]] = {
    "delta": {"minimum": 0.0, "maximum": 1.0},
    "spanner": {"minimum": 1.0},
    "alpha": {"minimum": 1.0},
}
"""How ``[privacy]`` numbers other than epsilon are read (``rd.real`` bounds)."""


def _notion(rd: _Reader, name: str, priv: dict, distance: Any, dist_desc: str,
            graph: Any = None) -> tuple[Notion, str]:
    """The notion ``name`` from its ``[privacy]`` keys, and its one-line description."""
    params: dict[str, Any] = {"epsilon": rd.real(priv, "privacy", "epsilon", minimum=0.0)}
    for key in REGISTRY[name].parameter_names():
        if key == "distance":
            params[key] = distance
        elif key == "graph":
            params[key] = graph
        elif key == "pairs" and key in priv:
            params[key] = _pairs(rd, priv[key])
        elif key == "kind":
            if key in priv:
                params[key] = rd.string(priv, "privacy", key, ("mass", "pl", "bel"))
        elif key in ("uses", "n") and key in priv:
            # counts of uses and of users, not sizes of anything built: up to MAX_COUNT
            params[key] = rd.integer(priv, "privacy", key, 1, MAX_COUNT)
        elif key in NOTION_PARAMETERS and key in priv:
            params[key] = rd.real(priv, "privacy", key, **NOTION_PARAMETERS[key])
    if name in ("approx_ldp", "composed", "shuffled") and "delta" not in params:
        params["delta"] = rd.real(priv, "privacy", "delta", **NOTION_PARAMETERS["delta"])
    notion = rd.call(f"[privacy] notion = {name!r}", lambda: Notion.from_name(name, **params))
    desc = notion.describe()
    if name == "metric":
        desc = desc.replace("per unit of distance", f"per unit of {dist_desc}")
    return notion, desc


def _pairs(rd: _Reader, value: Any) -> list[tuple]:
    """``[privacy] pairs``: a non-empty list of pairs of labels or indices (strings or
    integers); which they name is decided against the inputs by the notion."""
    where = "[privacy] pairs"
    if not isinstance(value, list) or not value:
        raise rd.fail(where, f"must be a non-empty list of pairs [x, x'], got {value!r}")
    if len(value) > MAX_ENTRIES:
        raise rd.fail(where, f"{len(value)} pairs exceed the limit of {MAX_ENTRIES}",
                      SizeLimitError)
    for p in value:
        if (not isinstance(p, list) or len(p) != 2
                or any(isinstance(v, bool) or not isinstance(v, str | int) for v in p)):
            raise rd.fail(where, f"each item must be a pair [x, x'] of input labels or row "
                                 f"indices (strings or integers), got {p!r}")
    return [tuple(p) for p in value]


def _neighbour_graph(rd: _Reader, value: Any, k: int | None, labels: list | None
                     ) -> tuple[nx.Graph, int]:
    """``[privacy] graph`` of approximate LDP: ``"line"`` or ``"grid:R:C"`` on the inputs,
    and the number of inputs."""
    where = f"[privacy] graph = {value!r}"
    m = _GRID.match(value) if isinstance(value, str) else None
    if value == "line":
        if k is None:
            raise rd.fail(where, "the number of inputs is unknown: give [objective] k or "
                                 "[inputs]")
        return path_graph(labels or list(range(k))), k
    if m is None or m.group(1) != "grid":
        raise rd.fail(where, "unknown graph; use \"line\" or \"grid:R:C\" (or list the "
                             "neighbouring inputs with pairs = [[x, x'], ...])")
    R, C = int(m.group(2)), int(m.group(3))
    if R * C < 2:
        raise rd.fail(where, "a grid needs at least 2 cells")
    if R * C > MAX_SIZE:
        raise rd.fail(where, f"{R * C} cells exceed the limit of {MAX_SIZE}", SizeLimitError)
    for size, what in ((k, "inputs"), (None if labels is None else len(labels), "labels")):
        if size is not None and size != R * C:
            raise rd.fail(where, f"{R * C} cells but there are {size} {what}")
    return grid_graph(R, C, labels), R * C


def _focal_sets(rd: _Reader, value: Any, labels: list | None, n: int | None
                ) -> list[frozenset]:
    where = "[outputs] focal_sets"
    if labels is None:
        if n is None:
            raise rd.fail(where, "focal sets need [outputs] labels (or n)")
        labels = list(range(n))
    if not isinstance(value, list) or not value:
        raise rd.fail(where, f"must be a non-empty list of lists of output labels, got "
                             f"{value!r}")
    out = []
    for B in value:
        if not isinstance(B, list) or not B:
            raise rd.fail(where, f"each focal set is a non-empty list of output labels, got "
                                 f"{B!r} (write a singleton as [\"Yes\"])")
        for v in B:
            if isinstance(v, bool) or not isinstance(v, str | int) or v not in labels:
                raise rd.fail(where, f"{v!r} is not an output label {labels!r}")
        out.append(frozenset(B))
    if len(set(out)) != len(out):
        raise rd.fail(where, f"focal sets must be distinct, got {value!r}")
    return out


def _expected(rd: _Reader, exp: dict) -> Expected:
    rd.keys(exp, "expected", EXPECTED_KEYS, "[expected]")
    value = rd.real(exp, "expected", "value")
    rtol = rd.real(exp, "expected", "rtol", minimum=0.0, default=DEFAULT_RTOL)
    atol = rd.real(exp, "expected", "atol", minimum=0.0, default=0.0)
    relation = rd.string(exp, "expected", "relation", RELATIONS, default="equal")
    source = rd.string(exp, "expected", "source", None, default="")
    derivation = rd.string(exp, "expected", "derivation", None, default="")
    return Expected(value, rtol, atol, relation, source, derivation)
