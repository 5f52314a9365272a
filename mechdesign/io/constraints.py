r"""User constraints of a problem file: the ``[[constraints]]`` array, data only.

Each entry is a table with a ``name`` (the key its dual value comes back under) and a
``kind``; every kind is linear or convex in Q, so the problem stays an LP or a convex
program. Inputs and outputs are named by their labels, or by their 0-based index when no
label matches (the default labels are the indices).

.. code-block:: toml

    [[constraints]]            # one entry:  Q[x, y] (op) value
    name = "floor"
    kind = "entry"
    input = 0
    output = 0
    op = ">="                  # ">=" | "<=" | "=="
    value = 0.4

    [[constraints]]            # a sum of entries over listed inputs and outputs
    name = "mass"              # (either list omitted: all of them)
    kind = "sum"
    inputs = [0, 1]
    outputs = [0]
    op = "<="
    value = 0.9

    [[constraints]]            # a linear relation between rows, at every listed output:
    name = "ordered"           # sum_i coefficient_i Q[input_i, y] (op) value
    kind = "rows"
    terms = [[1.0, 0], [-1.0, 1]]     # [coefficient, input] pairs
    # outputs = [0, 1]                # default: every output
    op = ">="
    value = 0.0

    [[constraints]]            # hockey-stick delta of listed ordered pairs:
    name = "hs"                # sum_y max(0, Q[x, y] - e^eps Q[x', y]) <= delta
    kind = "hockey_stick"
    epsilon = 0.5
    delta = 1e-3
    # pairs = [[0, 1], [1, 0]]        # default: every ordered pair

    [[constraints]]            # privacy blanket: sum_y min_x Q[x, y] >= gamma
    name = "blanket"
    kind = "blanket"
    gamma = 0.3

    [[constraints]]            # a g-leakage budget (mechdesign.design.leakage_constraint)
    name = "leak"
    kind = "leakage"
    bound = 2.0
    # prior = [0.5, 0.5]              # default: the capacity over every prior
    # leakage = "multiplicative"      # or "additive"
    # gain = [[1, 0], [0, 1]]

    [[constraints]]            # a cap on a loss: expected (at a prior) or worst case
    name = "accuracy"
    kind = "loss"
    loss = "absolute"          # as [objective] loss: a name, a matrix or {csv = "..."}
    # prior = "uniform"
    # worst_case = false
    value = 1.2                # the loss is at most this
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import cvxpy as cp
import numpy as np

KINDS = ("entry", "sum", "rows", "hockey_stick", "blanket", "leakage", "loss")
"""The constraint kinds a problem file may use."""

KEYS: dict[str, tuple[str, ...]] = {
    "entry": ("input", "output", "op", "value"),
    "sum": ("inputs", "outputs", "op", "value"),
    "rows": ("terms", "outputs", "op", "value"),
    "hockey_stick": ("epsilon", "delta", "pairs"),
    "blanket": ("gamma",),
    "leakage": ("bound", "prior", "leakage", "gain"),
    "loss": ("loss", "prior", "worst_case", "value", "m"),
}
"""Keys of each kind (besides ``name`` and ``kind``)."""

OPS = (">=", "<=", "==")

MAX_CONSTRAINTS = 1000
"""Most entries a ``[[constraints]]`` array may have."""


def _compare(lhs: cp.Expression, op: str, value: float) -> cp.Constraint:
    if op == ">=":
        return lhs >= value
    if op == "<=":
        return lhs <= value
    return lhs == value


class _Index:
    """Resolves input or output names: a label, else a 0-based index."""

    def __init__(self, rd: Any, labels: tuple, what: str) -> None:
        self.rd, self.labels, self.what = rd, labels, what
        self.lookup = {lab: i for i, lab in enumerate(labels)}

    def one(self, value: Any, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise self.rd.fail(where, f"an {self.what} is a label or an index, got {value!r}")
        if value in self.lookup:
            return self.lookup[value]
        if isinstance(value, int) and 0 <= value < len(self.labels):
            return value
        raise self.rd.fail(where, f"unknown {self.what} {value!r}; the {self.what}s are "
                                  f"{list(self.labels)[:20]} (or indices 0.."
                                  f"{len(self.labels) - 1})")

    def many(self, table: dict, key: str, where: str) -> list[int]:
        if key not in table:
            return list(range(len(self.labels)))
        value = table[key]
        if not isinstance(value, list) or not value:
            raise self.rd.fail(f"{where} {key} = {value!r}", "must be a non-empty list")
        out = [self.one(v, f"{where} {key}") for v in value]
        if len(set(out)) != len(out):
            raise self.rd.fail(f"{where} {key} = {value!r}", "names an entry twice")
        return out


def _op(rd: Any, table: dict, where: str) -> str:
    op = table.get("op")
    if op not in OPS:
        raise rd.fail(f"{where} op = {op!r}", f"must be one of {', '.join(OPS)}")
    return op


def _number(rd: Any, table: dict, key: str, where: str, minimum: float | None = None
            ) -> float:
    if key not in table:
        raise rd.fail(f"{where} {key}", "missing (a number is required)")
    v = table[key]
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(float(v)):
        raise rd.fail(f"{where} {key} = {v!r}", "must be a finite number")
    if minimum is not None and float(v) < minimum:
        raise rd.fail(f"{where} {key} = {v!r}", f"must be >= {minimum:g}")
    return float(v)


def read_constraints(rd: Any, items: Any, inputs: tuple, outputs: tuple,
                     read_loss: Callable[[dict, str], np.ndarray],
                     read_prior: Callable[[dict, str, int], np.ndarray],
                     ) -> dict[str, Callable[[cp.Expression], Any]]:
    """The ``[[constraints]]`` array as ``{name: fn(Q) -> constraints}`` for
    :class:`~mechdesign.design.problem.DesignProblem` (see the module for the format).

    ``rd`` is the problem reader (messages name the file and the entry), ``inputs`` and
    ``outputs`` the problem's labels; ``read_loss`` and ``read_prior`` read a loss and a
    prior the way ``[objective]`` does.
    """
    if not isinstance(items, list) or not all(isinstance(t, dict) for t in items):
        raise rd.fail("constraints", "must be an array of tables: [[constraints]] entries")
    if len(items) > MAX_CONSTRAINTS:
        raise rd.fail("constraints", f"{len(items)} entries exceed the limit of "
                                     f"{MAX_CONSTRAINTS}")
    ins, outs = _Index(rd, inputs, "input"), _Index(rd, outputs, "output")
    out: dict[str, Callable[[cp.Expression], Any]] = {}
    for i, table in enumerate(items, start=1):
        where = f"[[constraints]] #{i}"
        name = table.get("name")
        if not isinstance(name, str) or not name:
            raise rd.fail(f"{where} name", f"missing or not a string: {name!r}")
        where = f"[[constraints]] {name!r}"
        if name in out:
            raise rd.fail(where, "a second constraint with this name (names key the duals)")
        kind = table.get("kind")
        if kind not in KINDS:
            raise rd.fail(f"{where} kind = {kind!r}", f"must be one of {', '.join(KINDS)}")
        for key in table:
            if key not in ("name", "kind", *KEYS[kind]):
                raise rd.fail(f"{where} {key}", f"unknown key for kind {kind!r}; allowed: "
                                                f"{', '.join(KEYS[kind])}")
        out[name] = _build(rd, kind, table, where, ins, outs, read_loss, read_prior)
    return out


def _build(rd: Any, kind: str, t: dict, where: str, ins: _Index, outs: _Index,
           read_loss: Callable[[dict, str], np.ndarray],
           read_prior: Callable[[dict, str, int], np.ndarray]
           ) -> Callable[[cp.Expression], Any]:
    k, n = len(ins.labels), len(outs.labels)
    if kind == "entry":
        x = ins.one(t.get("input"), f"{where} input")
        y = outs.one(t.get("output"), f"{where} output")
        op, v = _op(rd, t, where), _number(rd, t, "value", where)
        return lambda Q: _compare(Q[x, y], op, v)
    if kind == "sum":
        xs, ys = ins.many(t, "inputs", where), outs.many(t, "outputs", where)
        op, v = _op(rd, t, where), _number(rd, t, "value", where)
        rows, cols = np.ix_(xs, ys)
        mask = np.zeros((k, n))
        mask[rows, cols] = 1.0
        return lambda Q: _compare(cp.sum(cp.multiply(mask, Q)), op, v)
    if kind == "rows":
        terms = t.get("terms")
        if not isinstance(terms, list) or not terms:
            raise rd.fail(f"{where} terms", "must be a non-empty list of [coefficient, "
                                            "input] pairs")
        coef = np.zeros(k)
        for term in terms:
            if (not isinstance(term, list) or len(term) != 2 or isinstance(term[0], bool)
                    or not isinstance(term[0], numbers.Real)
                    or not math.isfinite(float(term[0]))):
                raise rd.fail(f"{where} terms", f"each term is [coefficient, input], got "
                                                f"{term!r}")
            coef[ins.one(term[1], f"{where} terms")] += float(term[0])
        ys = outs.many(t, "outputs", where)
        op, v = _op(rd, t, where), _number(rd, t, "value", where)
        return lambda Q: _compare(coef @ Q[:, ys], op, v)
    if kind == "hockey_stick":
        eps = _number(rd, t, "epsilon", where, 0.0)
        delta = _number(rd, t, "delta", where, 0.0)
        if delta > 1:
            raise rd.fail(f"{where} delta = {delta!r}", "must be <= 1")
        pairs = _pairs(rd, t, where, ins)
        a = math.exp(eps) if eps < 700 else math.inf
        if math.isinf(a):
            raise rd.fail(f"{where} epsilon = {eps!r}", "e^epsilon overflows; use < 700")
        xs = [p[0] for p in pairs]
        zs = [p[1] for p in pairs]
        return lambda Q: cp.sum(cp.pos(Q[xs, :] - a * Q[zs, :]), axis=1) <= delta
    if kind == "blanket":
        gamma = _number(rd, t, "gamma", where, 0.0)
        if gamma > 1:
            raise rd.fail(f"{where} gamma = {gamma!r}", "must be <= 1 (a mass)")
        return lambda Q: cp.sum(cp.min(Q, axis=0)) >= gamma
    if kind == "leakage":
        from ..design.leakage import leakage_constraint

        bound = _number(rd, t, "bound", where, 0.0)
        prior = read_prior(t, where, k) if "prior" in t else None
        which = t.get("leakage", "multiplicative")
        if which not in ("multiplicative", "additive"):
            raise rd.fail(f"{where} leakage = {which!r}",
                          "must be \"multiplicative\" or \"additive\"")
        gain = rd.matrix(t["gain"], f"{where} gain") if "gain" in t else None
        return rd.call(where, lambda: leakage_constraint(bound, prior, kind=which,
                                                         gain=gain))
    # kind == "loss"
    L = read_loss(t, where)
    if L.shape != (k, n):
        raise rd.fail(f"{where} loss", f"is {L.shape[0]} x {L.shape[1]}; the problem is "
                                       f"{k} x {n}")
    cap = _number(rd, t, "value", where)
    worst = t.get("worst_case", False)
    if not isinstance(worst, bool):
        raise rd.fail(f"{where} worst_case = {worst!r}", "must be true or false")
    if worst:
        if "prior" in t:
            raise rd.fail(f"{where} prior", "a worst-case loss takes no prior")
        return lambda Q: cp.sum(cp.multiply(L, Q), axis=1) <= cap
    prior = read_prior(t, where, k)
    weights = prior[:, None] * L
    return lambda Q: cp.sum(cp.multiply(weights, Q)) <= cap


def _pairs(rd: Any, t: dict, where: str, ins: _Index) -> list[tuple[int, int]]:
    k = len(ins.labels)
    if "pairs" not in t:
        return [(x, z) for x in range(k) for z in range(k) if x != z]
    value = t["pairs"]
    if not isinstance(value, list) or not value:
        raise rd.fail(f"{where} pairs", "must be a non-empty list of [input, input] pairs")
    out = []
    for p in value:
        if not isinstance(p, list) or len(p) != 2:
            raise rd.fail(f"{where} pairs", f"each pair is [input, input], got {p!r}")
        x, z = ins.one(p[0], f"{where} pairs"), ins.one(p[1], f"{where} pairs")
        if x == z:
            raise rd.fail(f"{where} pairs", f"the pair {p!r} compares an input with itself")
        out.append((x, z))
    return out


__all__ = ["KEYS", "KINDS", "MAX_CONSTRAINTS", "read_constraints"]
