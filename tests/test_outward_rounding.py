"""Outward rounding: every epsilon or delta mechdesign returns is an upper bound on the exact
value for the stored inputs, checked against the 50-digit references of
:mod:`tests.outward_reference` on adversarial inputs (near-equal rows, eps down to 1e-12 and
at a privacy loss of the matrix, deltas down to 1e-300, k = 1, subnormal entries).

``CHECKS`` maps a name to a hypothesis strategy of cases and a function that calls the library
and returns ``(label, claimed, exact, rtol, atol)`` rows: the library's ``claimed`` value must
be ``>= exact`` (compared in mpmath, exactly), and, as a guard against a trivial "upper bound",
at most ``exact (1 + rtol) + atol`` (``rtol = None``: not checked, said why next to it). For a
calibration the claimed value is the TARGET and the exact one is the value at the returned
parameter (the parameter meets the target iff target >= exact). The same table drives
``benchmarks/outward_check.py`` (10,000+ cases, counted instead of asserted).

Tolerances of the "not absurdly above" guard, by kind (judgment, from the docstrings):
* measures and closed forms: ``rtol = 1e-9`` (documented: a few ulps; 1e-9 leaves room for an
  outward rounding by an error bound without letting a wrong formula through);
* deltas formed by a float sum of differences ``p - e^eps q`` (cancellation): ``atol = 1e-12``
  (n roundings of terms at most 1, i.e. ~1e-15 absolute, with a thousandfold margin);
* composition epsilons: ``rtol = 1e-6`` (exact atoms are merged within 1e-12 relative of the
  loss scale and inverted by Brent to ~1e-15);
* the grid bracket and the calibrations: see their rows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import mechdesign as md
import mechdesign.accounting as acc
import mechdesign.privacy as priv

from . import outward_reference as R

Row = tuple[str, float, Any, float | None, float]
MEASURE = 1e-9      # rtol of measures / closed forms
SUM_ATOL = 1e-12    # atol of float-summed deltas
COMPOSED = 1e-6     # rtol of composed values
COMPOSED_ATOL = 1e-8  # atol of composed deltas (merged losses move up by 1e-12 of the scale)
FLOOR = 1e-13       # atol of every row: an outward rounding of an exact 0 may read 1e-15


# =========================================================================== strategies
TINY = (1e-300, 1e-200, 1e-100, 1e-30, 1e-12, 5e-324, 2.2250738585072014e-308, 1e-310)

log_uniform = st.floats(-12.0, 0.0).map(lambda t: 10.0 ** t)


def weights(zeros: bool) -> st.SearchStrategy:
    options = [st.floats(1e-3, 1.0), st.sampled_from(TINY), log_uniform]
    if zeros:
        options.append(st.just(0.0))
    return st.one_of(*options)


@st.composite
def prob_row(draw, m: int, zeros: bool = False) -> np.ndarray:
    row = np.array(draw(st.lists(weights(zeros), min_size=m, max_size=m)), dtype=float)
    if row.sum() <= 0:
        row[0] = 1.0
    return row / math.fsum(row)


@st.composite
def matrices(draw, rows=(2, 3), cols=(2, 4), zeros: bool = False) -> np.ndarray:
    """A row-stochastic matrix, often with near-equal rows: a base row and rows that differ
    from it by a relative 1e-12 .. 1e-6 (renormalised) or by a few ulps per entry."""
    k = draw(st.integers(*rows))
    m = draw(st.integers(*cols))
    base = draw(prob_row(m, zeros))
    style = draw(st.sampled_from(["random", "near", "ulps", "equal"]))
    out = [base]
    for _ in range(k - 1):
        if style == "random":
            out.append(draw(prob_row(m, zeros)))
        elif style == "near":
            rel = draw(st.sampled_from([1e-12, 1e-10, 1e-9, 1e-8, 1e-6]))
            u = np.array(draw(st.lists(st.integers(-1000, 1000), min_size=m, max_size=m)))
            row = base * (1.0 + rel * u / 1000.0)
            out.append(row / math.fsum(row))
        elif style == "ulps":
            steps = draw(st.lists(st.integers(-3, 3), min_size=m, max_size=m))
            row = base.copy()
            for j, s in enumerate(steps):
                for _ in range(abs(s)):
                    row[j] = np.nextafter(row[j], np.inf if s > 0 else 0.0)
            out.append(row)
        else:
            out.append(base.copy())
    return np.array(out)


@st.composite
def mechanisms(draw, rows=(2, 3), cols=(2, 4), zeros: bool = False) -> md.Mechanism:
    return md.Mechanism(draw(matrices(rows, cols, zeros)))


epsilons = st.one_of(st.just(0.0), st.sampled_from([1e-12, 1e-9, 1e-6, 0.1, 1.0, 50.0]),
                     st.floats(-12.0, math.log10(50.0)).map(lambda t: 10.0 ** t),
                     st.floats(0.0, 5.0))
deltas = st.one_of(st.sampled_from([1e-300, 1e-200, 1e-100, 1e-15, 1e-12, 1e-6, 0.5]),
                   st.floats(-300.0, math.log10(0.5)).map(lambda t: 10.0 ** t))
probabilities = st.one_of(st.sampled_from([0.0, 1.0, 5e-324, 1e-300, 1e-12, 0.5]),
                          st.floats(-300.0, 0.0).map(lambda t: 10.0 ** t), st.floats(0.0, 1.0))


@st.composite
def eps_for(draw, Q: np.ndarray) -> float:
    """An epsilon, often at (or within a relative 1e-12 of) a privacy loss of Q: there the
    hockey-stick terms ``p - e^eps q`` cancel."""
    if draw(st.booleans()):
        return draw(epsilons)
    x, xp = draw(st.sampled_from(R.all_ordered_pairs(len(Q))))
    y = draw(st.integers(0, Q.shape[1] - 1))
    a, b = Q[x, y], Q[xp, y]
    if not (a > b > 0):
        return draw(epsilons)
    loss = math.log(a / b)
    j = draw(st.integers(-3, 3))
    return max(0.0, loss * (1.0 + j * 1e-12))


def rows_of(out: list[Row], label: str, claimed: float, exact: Any,
            rtol: float | None = MEASURE, atol: float = 0.0) -> None:
    out.append((label, claimed, exact, rtol, atol))


# =========================================================================== checks
@dataclass(frozen=True)
class Check:
    cases: st.SearchStrategy
    run: Callable[[Any], list[Row]]
    examples: int = 60
    shrink: bool = True  # False for checks whose reference or library call is slow


CHECKS: dict[str, Check] = {}


def check(name: str, cases: st.SearchStrategy, examples: int = 60, shrink: bool = True):
    def deco(fn):
        CHECKS[name] = Check(cases, fn, examples, shrink)
        return fn
    return deco


# --------------------------------------------------------------------------- measures
@check("privacy.epsilon_ldp", mechanisms(rows=(2, 4), zeros=True))
def _(m):
    return [("epsilon_ldp", priv.epsilon_ldp(m), R.epsilon_ldp(m.matrix), MEASURE, 0.0)]


@check("privacy.epsilon_ldp(pairs)", mechanisms(rows=(3, 4)))
def _(m):
    pairs = [(0, 1), (1, 2)]
    return [("epsilon_ldp", priv.epsilon_ldp(m, pairs=pairs),
             R.epsilon_ldp(m.matrix, pairs), MEASURE, 0.0)]


@st.composite
def matrix_and_eps(draw, rows=(2, 3), cols=(2, 4), zeros=True):
    Q = draw(matrices(rows, cols, zeros))
    return md.Mechanism(Q), draw(eps_for(Q))


@check("privacy.delta_ldp", matrix_and_eps())
def _(case):
    m, eps = case
    return [("delta_ldp", priv.delta_ldp(m, eps), R.delta_ldp(m.matrix, eps), MEASURE,
             SUM_ATOL)]


@check("privacy.hockey_stick", matrix_and_eps(rows=(2, 2)))
def _(case):
    m, eps = case
    Q = m.matrix
    lib = priv.hockey_stick(Q[0], Q[1], eps)
    return [("hockey_stick", float(lib), min(R.ONE, R.hockey_stick(R.rows(Q)[0],
                                                                    R.rows(Q)[1], eps)),
             MEASURE, SUM_ATOL)]


@check("privacy.pairwise_log_ratios", mechanisms(rows=(2, 3), zeros=True))
def _(m):
    lib = priv.pairwise_log_ratios(m.matrix)
    ref = R.pairwise_log_ratios(m.matrix)
    return [(f"R[{x},{xp}]", float(lib[x, xp]), ref[x][xp], MEASURE, 0.0)
            for x, xp in R.all_ordered_pairs(m.n_inputs)]


@check("privacy.worst_log_ratio", mechanisms(rows=(2, 3), zeros=True))
def _(m):
    Q = m.matrix
    return [("worst_log_ratio", priv.worst_log_ratio(Q, Q).epsilon, R.epsilon_ldp(Q),
             MEASURE, 0.0)]


@st.composite
def metric_cases(draw):
    Q = draw(matrices((2, 3), (2, 3), zeros=False))
    k = len(Q)
    D = np.zeros((k, k))
    for x, xp in R.all_ordered_pairs(k):
        if x < xp:
            D[x, xp] = D[xp, x] = draw(st.one_of(st.floats(1e-6, 10.0), st.sampled_from(
                [1e-300, 3.0, 0.1, math.inf])))
    return md.Mechanism(Q), D


@check("privacy.epsilon_metric", metric_cases())
def _(case):
    m, D = case
    return [("epsilon_metric", priv.epsilon_metric(m, D), R.epsilon_metric(m.matrix, D),
             MEASURE, 0.0)]


@check("privacy.epsilon_deletion", mechanisms(rows=(2, 3), zeros=True))
def _(m):
    return [("epsilon_deletion", priv.epsilon_deletion(m).epsilon,
             R.epsilon_deletion(m.matrix), MEASURE, 0.0)]


@st.composite
def deletion_at_cases(draw):
    Q = draw(matrices((2, 3), (2, 3), zeros=True))
    r = draw(prob_row(Q.shape[1]))
    return md.Mechanism(Q), r, draw(eps_for(Q))


@check("privacy.delta_deletion_at", deletion_at_cases())
def _(case):
    m, r, eps = case
    return [("delta_deletion_at", priv.delta_deletion_at(m, eps, r),
             R.delta_deletion_at(m.matrix, r, eps), MEASURE, SUM_ATOL)]


@st.composite
def evidential(draw):
    import itertools
    n_out = draw(st.integers(2, 3))
    labels = "abc"[:n_out]
    subsets = [frozenset(c) for r in range(1, n_out + 1)
               for c in itertools.combinations(labels, r)]
    fsets = draw(st.lists(st.sampled_from(subsets), min_size=2, max_size=5, unique=True))
    M = draw(matrices((2, 3), (len(fsets), len(fsets)), zeros=True))
    return md.EvidentialMechanism(M, fsets, outputs=tuple(labels))


def _masks(ev):
    return [int(b) for b in ev.focal_masks]


@check("privacy.epsilon_sldp", evidential())
def _(ev):
    out = []
    for kind in ("mass", "pl", "bel"):
        out.append((kind, priv.epsilon_sldp(ev, kind),
                    R.epsilon_sldp(ev.masses, _masks(ev), ev.n_outputs, kind), MEASURE, 0.0))
    return out


@check("privacy.epsilon_wldp", evidential())
def _(ev):
    return [("wldp", priv.epsilon_wldp(ev), R.epsilon_wldp(ev.masses, _masks(ev), ev.n_outputs),
             MEASURE, 0.0)]


@st.composite
def report_cases(draw):
    Q = draw(matrices((2, 3), (2, 3), zeros=True))
    return md.Mechanism(Q), draw(eps_for(Q))


@check("privacy.privacy_report", report_cases(), examples=40)
def _(case):
    m, eps = case
    rep = priv.privacy_report(m, [eps])
    return [("epsilon_ldp", rep["epsilon_ldp"], R.epsilon_ldp(m.matrix), MEASURE, 0.0),
            ("epsilon_deletion", rep["epsilon_deletion"], R.epsilon_deletion(m.matrix),
             MEASURE, 0.0),
            ("delta_ldp", rep[f"delta_ldp@{eps:g}"], R.delta_ldp(m.matrix, eps), MEASURE,
             SUM_ATOL)]


# --------------------------------------------------------------------------- conversions
@check("privacy.pure_to_approx_epsilon", st.tuples(epsilons, deltas))
def _(c):
    return [("eps", priv.pure_to_approx_epsilon(*c), R.pure_to_approx(*c), MEASURE, 0.0)]


@check("privacy.approx_to_pure_epsilon",
       st.tuples(epsilons, deltas, st.integers(1, 1000), probabilities.filter(lambda p: p > 0)))
def _(c):
    return [("eps", priv.approx_to_pure_epsilon(*c), R.approx_to_pure(*c), MEASURE, 0.0)]


@check("privacy.deletion_to_replacement", st.tuples(epsilons, deltas))
def _(c):
    g = priv.deletion_to_replacement(*c)
    e, d = R.deletion_to_replacement(*c)
    return [("epsilon", g.epsilon, e, MEASURE, 0.0), ("delta", g.delta, d, MEASURE, 0.0)]


@check("privacy.ratio", epsilons)
def _(eps):
    return [("e^eps", priv.ratio(eps), R.exp_eps(eps), MEASURE, 0.0)]


@check("privacy.approx_to_pure_protocol",
       st.tuples(st.floats(1e-12, 0.25), deltas, st.integers(1, 10**6), st.integers(1, 200)))
def _(c):
    p = priv.approx_to_pure_protocol(*c)
    e, tv = R.pure_protocol(*c)
    return [("epsilon", p.epsilon, e, MEASURE, 0.0), ("tv_bound", p.tv_bound, tv, MEASURE, 0.0)]


# --------------------------------------------------------------------------- closed forms
@check("accounting.basic_composition",
       st.lists(st.tuples(epsilons, deltas), min_size=1, max_size=8))
def _(pairs):
    es, ds = [e for e, _ in pairs], [d for _, d in pairs]
    b = acc.basic_composition(es, ds)
    e, d = R.basic_composition(es, ds)
    return [("epsilon", b.epsilon, e, MEASURE, 0.0), ("delta", b.delta, d, MEASURE, 0.0)]


@check("accounting.advanced_composition",
       st.tuples(st.floats(0.0, 5.0) | epsilons.filter(lambda e: e <= 5), deltas,
                 st.integers(1, 10**4), deltas))
def _(c):
    b = acc.advanced_composition(*c)
    e, d = R.advanced_composition(*c)
    return [("epsilon", b.epsilon, e, MEASURE, 0.0), ("delta", b.delta, d, MEASURE, 0.0)]


@st.composite
def adv_delta_cases(draw):
    eps = draw(st.floats(1e-6, 2.0) | st.sampled_from([1e-12, 0.1, 1.0]))
    k = draw(st.integers(1, 1000))
    # totals near the two switch points (drift and k eps) and in between
    drift = k * eps * math.expm1(eps)
    total = draw(st.one_of(st.floats(0.0, 2 * k * eps),
                           st.sampled_from([k * eps, drift]).flatmap(
                               lambda t: st.integers(-4, 4).map(
                                   lambda j: max(0.0, t * (1 + j * 2.0 ** -52))))))
    return eps, k, total


@check("accounting.advanced_composition_delta", adv_delta_cases())
def _(c):
    return [("delta", acc.advanced_composition_delta(*c), R.advanced_composition_delta(*c),
             MEASURE, 0.0)]


@check("accounting.advanced_grouposition",
       st.tuples(epsilons.filter(lambda e: e <= 10), st.integers(1, 10**4),
                 deltas.filter(lambda d: d > 0)))
def _(c):
    eps, k, d = c
    g = acc.advanced_grouposition(eps, k, d)
    F, G = R.grouposition(eps, k, d), k * R.F(eps)
    # the reported pair must be one of the two valid guarantees: (>= F, >= d) or (>= G, >= 0)
    valid = (R.F(g.epsilon) >= F and g.delta >= d) or R.F(g.epsilon) >= G
    return [("formula", g.formula, F, MEASURE, 0.0), ("group", g.group, G, MEASURE, 0.0),
            ("reported pair valid", 1.0 if valid else 0.0, R.ONE, 0.0, 0.0)]


@check("accounting.advanced_grouposition_approx",
       st.tuples(epsilons.filter(lambda e: e <= 10), deltas, st.integers(1, 10**4),
                 deltas.filter(lambda d: d > 0)))
def _(c):
    eps, d, k, dp = c
    g = acc.advanced_grouposition_approx(eps, d, k, dp)
    F, G = R.grouposition(eps, k, dp), k * R.F(eps)
    fd, gd = min(R.ONE, k * R.F(d) + R.F(dp)), min(R.ONE, k * R.F(d))
    valid = ((R.F(g.epsilon) >= F and R.F(g.delta) >= fd)
             or (R.F(g.epsilon) >= G and R.F(g.delta) >= gd))
    return [("formula", g.formula, F, MEASURE, 0.0), ("group", g.group, G, MEASURE, 0.0),
            ("formula_delta", g.formula_delta, fd, MEASURE, 0.0),
            ("group_delta", g.group_delta, gd, MEASURE, 0.0),
            ("reported pair valid", 1.0 if valid else 0.0, R.ONE, 0.0, 0.0)]


@st.composite
def kov_cases(draw):
    eps = draw(st.floats(0.0, 3.0) | st.sampled_from([1e-12, 1e-6, 0.1, 1.0]))
    k = draw(st.integers(1, 40))
    d = draw(st.just(0.0) | deltas)
    # eps' on the grid (k - 2i) eps (kinks), near it, or free
    i = draw(st.integers(0, k))
    j = draw(st.integers(-2, 2))
    on_grid = max(0.0, (k - 2 * i) * eps * (1 + j * 1e-12))
    total = draw(st.just(on_grid) | st.floats(0.0, k * eps + 1))
    return eps, k, total, d


@check("accounting.optimal_composition_delta", kov_cases())
def _(c):
    eps, k, total, d = c
    return [("delta", acc.optimal_composition_delta(eps, k, total, d),
             R.kov_delta(eps, k, total, d), COMPOSED, COMPOSED_ATOL)]


@check("accounting.optimal_composition_epsilon",
       st.tuples(st.floats(1e-6, 3.0) | st.sampled_from([1e-12, 0.1, 1.0]),
                 st.integers(1, 30), deltas, st.just(0.0) | deltas.map(lambda d: d * 1e-3)),
       examples=30, shrink=False)
def _(c):
    eps, k, dt, d = c
    lib = acc.optimal_composition_epsilon(eps, k, dt, d)
    ref = R.invert_decreasing(lambda e: R.kov_delta(eps, k, e, d), dt, k * R.F(eps) + 1) \
        if R.kov_delta(eps, k, math.inf, d) <= R.F(dt) else R.INF
    return [("epsilon", lib, ref, COMPOSED, 1e-12)]


@st.composite
def mv_cases(draw):
    values = draw(st.lists(st.floats(0.0, 2.0) | st.sampled_from([1e-12, 0.1, 0.5]),
                           min_size=1, max_size=3))
    eps = draw(st.lists(st.sampled_from(values), min_size=1, max_size=10))
    ds = draw(st.none() | st.lists(st.just(0.0) | deltas.map(lambda d: d * 1e-3),
                                   min_size=len(eps), max_size=len(eps)))
    return eps, ds


@check("accounting.optimal_heterogeneous_delta",
       st.tuples(mv_cases(), st.floats(0.0, 5.0) | st.just(0.0)))
def _(c):
    (eps, ds), eg = c
    return [("delta", acc.optimal_heterogeneous_delta(eps, eg, ds), R.mv_delta(eps, eg, ds),
             COMPOSED, COMPOSED_ATOL)]


@check("accounting.optimal_heterogeneous_epsilon", st.tuples(mv_cases(), deltas), examples=25,
       shrink=False)
def _(c):
    (eps, ds), dt = c
    lib = acc.optimal_heterogeneous_epsilon(eps, dt, ds)
    if R.mv_delta(eps, math.inf, ds) > R.F(dt):  # the leak alone exceeds the target
        ref = R.INF
    else:
        ref = R.invert_decreasing(lambda e: R.mv_delta(eps, e, ds), dt,
                                  R.MP.fsum(R.F(e) for e in eps) + 1)
    return [("epsilon", lib, ref, COMPOSED, 1e-12)]


@check("accounting.subsampled", st.tuples(epsilons | st.sampled_from([700.0, 1e-300]),
                                          deltas | st.just(1e-3), probabilities))
def _(c):
    g = acc.subsampling_bound(*c)
    e, d = R.subsampled(*c)
    return [("epsilon", g.epsilon, e, MEASURE, 0.0), ("delta", g.delta, d, MEASURE, 0.0)]


@check("accounting.shuffle_to_ldp", st.tuples(epsilons, deltas, st.integers(1, 10**9)))
def _(c):
    g = acc.shuffle_to_ldp(*c)
    e, d = R.shuffle_to_ldp(*c)
    return [("epsilon", g.epsilon, e, MEASURE, 0.0), ("delta", g.delta, d, MEASURE, 0.0)]


@check("accounting.sequential_epsilon", st.tuples(epsilons, epsilons))
def _(c):
    return [("epsilon", acc.sequential_epsilon(*c), R.sequential_epsilon(*c), MEASURE, 0.0)]


@st.composite
def sequential_cases(draw):
    Q1 = draw(matrices((2, 3), (2, 3), zeros=True))
    Q2 = draw(matrices((Q1.shape[1], Q1.shape[1]), (2, 3), zeros=True))
    return Q1, Q2


@check("accounting.sequential_composition", sequential_cases())
def _(c):
    Q1, Q2 = c
    s = acc.sequential_composition(Q1, Q2)
    prod = R.matmul(Q1, Q2)
    bound = R.sequential_epsilon_exact(R.epsilon_ldp(Q1), R.epsilon_ldp(Q2))
    return [("epsilon (exact product)", s.epsilon, R.epsilon_ldp_exact(prod), MEASURE, 0.0),
            ("deletion_epsilon (exact product)", s.deletion_epsilon,
             R.epsilon_deletion_exact(prod), MEASURE, 0.0),
            ("bound", s.bound, bound, MEASURE, 0.0)]


@st.composite
def subsampling_cases(draw):
    Q = draw(matrices((2, 3), (2, 3), zeros=False))
    p = draw(st.floats(0.0, 1.0) | st.sampled_from([1e-300, 1e-12, 1.0 - 2.0 ** -53]))
    ref = draw(st.just("null") | prob_row(Q.shape[1]))
    return Q, p, ref


@check("accounting.subsampling_privacy", subsampling_cases())
def _(c):
    Q, p, ref = c
    s = acc.exact_subsampling_epsilon(Q, p, ref)
    if isinstance(ref, str):
        M = [[*r, R.ZERO] for r in R.rows(Q)]
        r = [R.ZERO] * Q.shape[1] + [R.ONE]
    else:
        M, r = R.rows(Q), [R.F(v) for v in ref]
    P = R.F(p)
    ext = [[ry + P * (my - ry) for my, ry in zip(row, r, strict=True)] for row in M] + [r]
    return [("epsilon (exact subsampled matrix)", s.epsilon, R.epsilon_ldp_exact(ext),
             MEASURE, 0.0),
            ("epsilon_replacement", s.epsilon_replacement, R.epsilon_ldp_exact(ext[:-1]),
             MEASURE, 0.0)]


# --------------------------------------------------------------------------- composition
@st.composite
def composition_cases(draw, max_k: int = 6):
    Q = draw(matrices((2, 3), (2, 3), zeros=True))
    k = draw(st.integers(1, max_k))
    return Q, k


@check("accounting.delta_composed", st.tuples(composition_cases(), st.data()), examples=50)
def _(c):
    (Q, k), data = c
    eps = data.draw(eps_for(Q), label="eps")
    lib = acc.delta_composed(md.Mechanism(Q), eps, k)
    return [("delta", lib.delta, R.delta_composed([(Q, k)], eps), COMPOSED, COMPOSED_ATOL)]


@check("accounting.delta_composed(grid)", st.tuples(composition_cases(4), st.data()),
       examples=30)
def _(c):
    (Q, k), data = c
    eps = data.draw(eps_for(Q), label="eps")
    lib = acc.delta_composed(md.Mechanism(Q), eps, k, method="grid")
    # the pessimistic grid end is above by up to a grid step per use: not checked above
    return [("delta (grid, pessimistic)", lib.delta, R.delta_composed([(Q, k)], eps), None,
             0.0)]


@check("accounting.delta_composed(list)",
       st.tuples(matrices((2, 2), (2, 3), zeros=True), matrices((2, 2), (2, 3), zeros=True),
                 st.integers(1, 3), epsilons), examples=40)
def _(c):
    A, B, k, eps = c
    lib = acc.delta_composed([md.Mechanism(A), md.Mechanism(B)], eps, k)
    return [("delta", lib.delta, R.delta_composed([(A, k), (B, k)], eps), COMPOSED, COMPOSED_ATOL)]


@check("accounting.epsilon_composed", st.tuples(composition_cases(4), deltas), examples=30,
       shrink=False)
def _(c):
    (Q, k), d = c
    lib = acc.epsilon_composed(md.Mechanism(Q), d, k)
    return [("epsilon", lib.epsilon, R.epsilon_composed([(Q, k)], d), COMPOSED, 1e-12)]


@st.composite
def rr_cases(draw):
    eps0 = draw(st.floats(1e-6, 3.0) | st.sampled_from([1e-12, 0.1, 1.0]))
    return md.randomized_response(2, eps0).matrix, draw(st.integers(1, 60))


@check("accounting.epsilon_composed(binary RR)", st.tuples(rr_cases(), deltas), examples=30,
       shrink=False)
def _(c):
    (Q, k), d = c
    lib = acc.epsilon_composed(md.Mechanism(Q), d, k)
    return [("epsilon", lib.epsilon, R.epsilon_composed([(Q, k)], d, [(0, 1)]), COMPOSED,
             1e-15)]


@check("accounting.delta_composed(binary RR)", st.tuples(rr_cases(), st.data()), examples=40)
def _(c):
    (Q, k), data = c
    i = data.draw(st.integers(0, k), label="i")
    loss = math.log(Q[0, 0] / Q[0, 1])
    eps = data.draw(st.just(max(0.0, (k - 2 * i) * loss)) | epsilons, label="eps")
    lib = acc.delta_composed(md.Mechanism(Q), eps, k)
    return [("delta", lib.delta, R.delta_composed([(Q, k)], eps, [(0, 1)]), COMPOSED,
             SUM_ATOL)]


@check("accounting.privacy_profile", st.tuples(composition_cases(3), st.lists(
    epsilons, min_size=1, max_size=3)), examples=30)
def _(c):
    (Q, k), eps = c
    prof = acc.privacy_profile(md.Mechanism(Q), eps, k)
    return [(f"delta@{e:g}", float(u), R.delta_composed([(Q, k)], e), COMPOSED, COMPOSED_ATOL)
            for e, u in zip(eps, prof.upper, strict=True)]


@check("accounting.privacy_loss_atoms", st.tuples(matrices((2, 2), (2, 4), zeros=True),
                                                  st.data()))
def _(c):
    Q, data = c
    eps = data.draw(eps_for(Q), label="eps")
    d = data.draw(deltas, label="delta")
    atoms = acc.privacy_loss_atoms(Q[0], Q[1])
    ref = R.Atoms.of_rows(R.rows(Q)[0], R.rows(Q)[1])
    # delta is capped at 1 (every mechanism is (eps, 1)-DP), as for delta_ldp: a row summing
    # to 1 + 5.6e-17 has a raw hockey-stick above 1
    return [("delta", float(atoms.delta(eps)), min(R.ONE, ref.delta(R.F(eps))), MEASURE,
             SUM_ATOL),
            ("epsilon", float(atoms.epsilon(d)), ref.epsilon(R.F(d)), COMPOSED, 1e-12)]


# --------------------------------------------------------------------------- Renyi / zCDP
orders = st.one_of(st.sampled_from([0.0, 0.5, 1.0, 1.0 + 1e-12, 1.0 + 1e-6, 2.0, 1e6, math.inf]),
                   st.floats(0.0, 100.0), st.floats(0.0, 12.0).map(lambda t: 1 + 10.0 ** -t))


@check("accounting.renyi_divergence", st.tuples(matrices((2, 2), (2, 4), zeros=True), orders))
def _(c):
    Q, a = c
    return [("D_alpha", acc.renyi_divergence(Q[0], Q[1], a), R.renyi_divergence(Q[0], Q[1], a),
             MEASURE, 0.0)]


@check("accounting.renyi_epsilon", st.tuples(matrices((2, 3), (2, 3), zeros=True), orders))
def _(c):
    Q, a = c
    return [("eps(alpha)", acc.renyi_epsilon(Q, a), R.renyi_epsilon(Q, a), MEASURE, 0.0)]


@check("accounting.zcdp_rho", matrices((2, 2), (2, 3), zeros=False), examples=15,
       shrink=False)
def _(Q):
    # max_rounds=6 keeps this fast (near-equal rows stop by the stall rule, tested in
    # tests/accounting/test_renyi.py); the bracket is valid at any round, so rho must be
    # above the reference whether or not it converged
    z = acc.zcdp_rho(Q, max_rounds=6)
    # the reference is a lower bound on the sup (found by search): above it by rtol = 1e-9
    # (the library's bracket) plus the search's own shortfall; 1e-6 covers both (unchecked
    # when the bracket did not converge)
    return [("rho", z.rho, R.zcdp_rho_lower(Q), 1e-6 if z.converged else None, 0.0)]


@st.composite
def rdp_cases(draw):
    n = draw(st.integers(1, 5))
    alphas = draw(st.lists(orders, min_size=n, max_size=n).filter(
        lambda a: any(v > 1 for v in a)))
    eps = draw(st.lists(st.floats(0.0, 50.0) | st.sampled_from([1e-300, 1e-12]),
                        min_size=n, max_size=n))
    return eps, alphas, draw(deltas | st.just(0.0)), draw(st.sampled_from(["canonne",
                                                                           "mironov"]))


@check("accounting.rdp_to_dp", rdp_cases())
def _(c):
    eps, alphas, d, conv = c
    lib = acc.rdp_to_dp(eps, alphas, d, conversion=conv)
    return [("epsilon", lib.epsilon, R.rdp_to_dp(eps, alphas, d, conv), MEASURE, 1e-15)]


@check("accounting.epsilon_rdp", st.tuples(matrices((2, 2), (2, 3), zeros=False),
                                           st.integers(1, 100), deltas), examples=20, shrink=False)
def _(c):
    Q, k, d = c
    lib = acc.epsilon_rdp(Q, d, k)
    r = k * R.renyi_epsilon(Q, lib.alpha)
    return [("rdp at its alpha", lib.rdp, r, MEASURE, 0.0),
            ("epsilon", lib.epsilon, max(R.ZERO, R.rdp_conversion(r, R.F(lib.alpha), d)),
             MEASURE, 1e-15)]


# --------------------------------------------------------------------------- shuffling
@check("accounting.shuffle_delta", st.tuples(st.floats(0.0, 4.0), st.integers(1, 12),
                                             epsilons.filter(lambda e: e <= 4)), examples=30)
def _(c):
    e0, n, eps = c
    lib = acc.shuffle_delta(e0, n, eps)
    # lower and upper bracket the bound: upper must be above; lower is not checked
    return [("upper", lib.upper, R.clone_delta(e0, n, eps), COMPOSED, SUM_ATOL)]


@check("accounting.shuffle_epsilon", st.tuples(st.floats(1e-3, 4.0), st.integers(2, 12),
                                               deltas), examples=20, shrink=False)
def _(c):
    e0, n, d = c
    lib = acc.shuffle_epsilon(e0, n, d)
    # delta-space check: the returned epsilon is an upper bound iff the exact clone delta
    # there is within the target (claimed = the target delta, exact = delta at the epsilon)
    at = R.clone_delta(e0, n, lib.epsilon) if lib.epsilon < e0 else R.ZERO
    return [("delta at the returned epsilon <= target", d, at, None, 0.0)]


# --------------------------------------------------------------------------- trade-off curves
@check("accounting.epsilon_of_tradeoff", matrices((2, 2), (2, 4), zeros=True))
def _(Q):
    f = acc.tradeoff_function(Q[0], Q[1])
    # end to end (the docstring: "for T(P, Q) this is the pure-DP epsilon of the pair in both
    # directions"); the breakpoints themselves are not the reference: identical rows can give
    # a breakpoint (0, 1 - 2^-53), an infinite epsilon that the pair does not have
    N = R.normalised_rows(Q)
    # a normalised entry in (0, 2^-1022) is stored as a subnormal double rounded down (to 0
    # below 2^-1074): an absolute, not a relative, rounding, so the reading may be far above
    # (inf at 0): only the upper bound is checked
    exact = [[Fraction(float(v)) for v in row] for row in np.asarray(Q, dtype=float)]
    below_doubles = any(0 < v / sum(row) < Fraction(2.0 ** -1022) for row in exact for v in row)
    return [("pure eps of the pair, both directions", acc.epsilon_of_tradeoff(f),
             R.epsilon_of_rows(N), MEASURE, math.inf if below_doubles else 0.0)]


@check("accounting.delta_from_tradeoff", st.tuples(matrices((2, 2), (2, 4), zeros=True),
                                                   st.data()))
def _(c):
    Q, data = c
    eps = data.draw(eps_for(Q), label="eps")
    f = acc.tradeoff_function(Q[0], Q[1])
    lib = acc.delta_from_tradeoff(f, eps)
    # end to end: the docstring says this is H_{e^eps}(Q || P) of the pair (P, Q) = the
    # rows, each normalised exactly (a row summing to 1 + 5.6e-17 is that distribution)
    N = R.normalised_rows(Q)
    pair = min(R.ONE, R.hockey_stick(N[1], N[0], eps))
    alphas, _, powers, _ = f.reading_points()
    return [("breakpoints", lib, R.delta_of_breakpoints(alphas, powers, eps), MEASURE,
             SUM_ATOL),
            ("H(Q||P) of the rows", lib, pair, MEASURE, SUM_ATOL)]


# --------------------------------------------------------------------------- calibration
@check("accounting.calibrate(composition)",
       st.tuples(st.floats(0.05, 3.0), st.sampled_from([1e-12, 1e-6, 1e-3, 0.1]),
                 st.integers(1, 5)), examples=15, shrink=False)
def _(c):
    t_eps, t_delta, k = c
    cal = acc.calibrate("epsilon0", target_epsilon=t_eps, target_delta=t_delta,
                        mechanism="randomized_response", k=k, params={"k": 2})
    Q = md.randomized_response(2, cal.value).matrix
    # claimed = the target; exact = the delta of the returned parameter's stored matrix
    return [("delta at value <= target", t_delta, R.delta_composed([(Q, k)], t_eps, [(0, 1)]),
             None, 0.0)]


@check("accounting.calibrate_subsampling",
       st.tuples(st.floats(1e-6, 3.0) | st.sampled_from([1e-12, 1.0]),
                 st.floats(1e-6, 10.0) | st.sampled_from([1e-12, 40.0]), deltas, deltas))
def _(c):
    t_eps, e0, t_delta, d0 = c
    if d0 > t_delta:
        d0 = t_delta
    cal = acc.calibrate_subsampling("p", target_epsilon=t_eps, target_delta=t_delta,
                                    epsilon0=e0, delta0=d0)
    e, d = R.subsampled(e0, d0, cal.value)
    return [("epsilon at p <= target", t_eps, e, None, 0.0),
            ("delta at p <= target", t_delta, d, None, 0.0)]


# =========================================================================== the tests
NOISE = R.MP.mpf(10) ** -40
"""A claimed value within this relative distance below the reference counts as equal: the
references are accurate to about 1e-45 relative where they do not cancel (a double is never
that close to an irrational value; this only keeps 50-digit rounding of an exact double, such
as 1 - 1e-60 read as 1, from being called an under-report)."""


def below(claimed: float, exact: Any) -> bool:
    """Whether ``claimed`` is below ``exact`` beyond the reference's own rounding."""
    return R.F(claimed) < exact * (1 - NOISE)


def under_report(claimed: float, exact: Any) -> Any:
    """Relative amount by which ``claimed`` is below ``exact`` (0 if not below)."""
    c = R.F(claimed)
    if not below(claimed, exact):
        return R.ZERO
    return R.INF if exact == R.INF or exact == 0 else (exact - c) / exact


def over_report(claimed: float, exact: Any) -> Any:
    """Relative amount by which ``claimed`` is above ``exact`` (absolute when exact is 0)."""
    c = R.F(claimed)
    if c <= exact or c == exact:
        return R.ZERO
    if exact == 0:
        return c
    return R.INF if c == R.INF else (c - exact) / exact


def show(case: Any) -> str:
    """The case with arrays as nested lists of full-precision floats (re-runnable)."""
    if isinstance(case, np.ndarray):
        return repr(case.tolist())
    if isinstance(case, md.Mechanism):
        return f"Mechanism({case.matrix.tolist()!r})"
    if isinstance(case, tuple | list):
        return "(" + ", ".join(show(c) for c in case) + ")"
    return repr(case)


def assert_rows(name: str, case: Any, out: list[Row]) -> None:
    for label, claimed, exact, rtol, atol in out:
        c = R.F(claimed)
        assert not below(claimed, exact), (f"{name} [{label}] under-reports: {claimed!r} < exact "
                            f"{R.MP.nstr(exact, 20)} (relative "
                            f"{R.MP.nstr(under_report(claimed, exact), 3)}) for {show(case)}")
        if rtol is not None and exact != R.INF:
            assert c <= exact * (1 + rtol) + max(atol, FLOOR), (
                f"{name} [{label}] far above the exact value: {claimed!r} vs "
                f"{R.MP.nstr(exact, 20)} for {show(case)}")


KNOWN_UNDER_REPORTS: set[str] = set()


SLOW_CHECKS = {"accounting.zcdp_rho", "accounting.epsilon_rdp"}
"""Checks of 2-10 s (zCDP's supremum and the RDP conversion's search over orders at 50
digits): left out of the quick and the floors runs."""


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(reason="known under-report",
                                            strict=False))
    if n in KNOWN_UNDER_REPORTS else
    pytest.param(n, marks=pytest.mark.slow) if n in SLOW_CHECKS else n
    for n in sorted(CHECKS)])
def test_never_below_the_50_digit_reference(name):
    chk = CHECKS[name]

    phases = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target] + \
        ([Phase.shrink] if chk.shrink else [])

    @settings(deadline=None, max_examples=chk.examples, phases=phases,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much])
    @given(case=chk.cases)
    def run(case):
        out = chk.run(case)
        assert out, f"{name} compared nothing"
        assert_rows(name, case, out)

    run()


# =========================================================================== known cases
def test_delta_ldp_near_equal_rows_at_tiny_epsilon():
    """Reproducer: the float sum read 5.2e-6 relative low at eps = 1e-9 on near-equal rows
    (2.2058327e-12 reported, 2.2058386e-12 exact). Rows differing by ~1e-9 relative at
    eps < 1e-9 give terms p - e^eps q that cancel to 1e-3 of their size (on the library
    before the fix: 56 of these 200 below, worst 6.8e-6 relative)."""
    rng = np.random.default_rng(31)
    worst = R.ZERO
    for _ in range(200):
        m = int(rng.integers(2, 6))
        base = rng.dirichlet(np.ones(m))
        other = base * (1 + 1e-9 * rng.uniform(-1, 1, m))
        Q = np.array([base, other / math.fsum(other)])
        eps = 1e-9 * rng.uniform(0, 1)
        lib = priv.delta_ldp(Q, eps)
        ref = R.delta_ldp(Q, eps)
        worst = max(worst, under_report(lib, ref))
    assert worst == 0, f"delta_ldp under-reports by up to {R.MP.nstr(worst, 3)} relative"


def test_epsilon_composed_1000_fold_binary_rr():
    """Reproducer: 1000-fold RR(0.1) at delta 1e-6 read 5.6e-15 relative below the 50-digit
    value (19.3447, the README's example)."""
    Q = md.randomized_response(2, 0.1).matrix
    lib = acc.epsilon_composed(md.Mechanism(Q), 1e-6, 1000).epsilon
    ref = R.epsilon_composed([(Q, 1000)], 1e-6, [(0, 1)])
    assert R.F(lib) >= ref, (lib, R.MP.nstr(ref, 20))
    assert R.F(lib) <= ref * (1 + COMPOSED)


def test_delta_composed_1000_fold_binary_rr_at_one():
    """Reproducer: delta at eps = 1 of 1000-fold RR(0.1) read 5.3e-14 relative low."""
    Q = md.randomized_response(2, 0.1).matrix
    lib = acc.delta_composed(md.Mechanism(Q), 1.0, 1000).delta
    ref = R.delta_composed([(Q, 1000)], 1.0, [(0, 1)])
    assert R.F(lib) >= ref, (lib, R.MP.nstr(ref, 20))
    assert R.F(lib) <= ref * (1 + COMPOSED)


def test_delta_composed_one_binary_rr_near_its_loss():
    """Reproducer: k = 1, eps just below the loss ln(Q00/Q01) of binary RR: the terms cancel
    (1.05e-10 relative low)."""
    for eps0 in (1.0, 1.5, 0.3, 4.0):
        Q = md.randomized_response(2, eps0).matrix
        loss = math.log(Q[0, 0] / Q[0, 1])
        for gap in (1e-6, 1e-8, 1e-9, 1e-10):
            eps = loss * (1 - gap)
            lib = acc.delta_composed(md.Mechanism(Q), eps, 1).delta
            ref = R.delta_composed([(Q, 1)], eps, [(0, 1)])
            assert R.F(lib) >= ref, (eps0, gap, lib, R.MP.nstr(ref, 20))


def test_calibrate_one_binary_rr_meets_the_target_exactly():
    """Reproducer: calibrate(target (1, 1e-6), k = 1) returned an eps0 whose exact delta at
    eps = 1 was 1.0000000000076e-6 (three doubles too far)."""
    cal = acc.calibrate("epsilon0", target_epsilon=1.0, target_delta=1e-6,
                        mechanism="randomized_response", k=1, params={"k": 2})
    Q = md.randomized_response(2, cal.value).matrix
    exact = R.delta_composed([(Q, 1)], 1.0, [(0, 1)])
    assert exact <= R.F(1e-6), (cal.value, R.MP.nstr(exact, 20))


def test_heterogeneous_50_fold_epsilon_at_1e_12():
    """Reproducer: 50-fold heterogeneous optimal composition at delta 1e-12 returned an eps whose
    exact delta was 1.0000000034e-12. ``optimal_heterogeneous_epsilon`` enumerates subsets up to
    k = 20 (SizeLimitError above, naming the same value as the exact composition of binary
    RRs), so k = 50 goes through ``epsilon_composed`` of the RR list, and k = 20 through
    ``optimal_heterogeneous_epsilon`` itself (the Murtagh-Vadhan formula on the epsilons)."""
    eps = [0.1] * 25 + [0.3] * 25
    mechs = [md.randomized_response(2, e) for e in eps]
    lib = acc.epsilon_composed(mechs, 1e-12).epsilon
    groups = [(md.randomized_response(2, 0.1).matrix, 25),
              (md.randomized_response(2, 0.3).matrix, 25)]
    at = R.delta_composed(groups, lib, [(0, 1)])
    assert at <= R.F(1e-12), (lib, R.MP.nstr(at, 20))
    eps20 = [0.1] * 10 + [0.3] * 10
    lib20 = acc.optimal_heterogeneous_epsilon(eps20, 1e-12)
    at20 = R.mv_delta(eps20, lib20)
    assert at20 <= R.F(1e-12), (lib20, R.MP.nstr(at20, 20))


def test_subsampled_underflow_to_zero():
    """Reproducer: subsampling_bound(40, 1e-3, 5e-324) gave delta 0.0 and
    subsampling_bound(1e-300, 0, 1e-300) epsilon 0.0; both are exactly positive."""
    g = acc.subsampling_bound(40.0, 1e-3, 5e-324)
    e, d = R.subsampled(40.0, 1e-3, 5e-324)
    assert R.F(g.delta) >= d > 0, g
    assert R.F(g.epsilon) >= e, g
    g = acc.subsampling_bound(1e-300, 0.0, 1e-300)
    e, _ = R.subsampled(1e-300, 0.0, 1e-300)
    assert R.F(g.epsilon) >= e > 0, g
