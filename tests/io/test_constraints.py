"""Custom LPs from problem files: the ``[[constraints]]`` array (mechdesign.io.constraints),
the ``linear`` objective, duals on the command line, infeasible sets named, and user
constraints in Python with variables of their own (re-checked with those re-optimised)."""

from __future__ import annotations

import json
import math

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import linprog

import mechdesign as md
from mechdesign.cli.main import main
from mechdesign.errors import FileFormatError, InfeasibleDesignError
from mechdesign.io import loads_problem
from tests.paths import PROBLEMS

E = math.e

HEAD = """
[privacy]
notion = "ldp"
epsilon = {eps}

[objective]
kind = "expected_loss"
loss = "{loss}"
k = {k}
"""


def problem(constraints: str, eps: float = 1.0, loss: str = "hamming", k: int = 3):
    return loads_problem(HEAD.format(eps=eps, loss=loss, k=k) + constraints).problem


def naive_lp(L, prior, eps, A_ub=(), b_ub=(), A_eq=(), b_eq=()):
    """min sum prior_x Q[x] . L[x] under pure LDP (every ordered pair), row sums, and extra
    rows on vec(Q): the textbook LP with scipy (an independent second method)."""
    k, n = L.shape
    c = (prior[:, None] * L).ravel()
    ub, bu = [list(r) for r in A_ub], list(b_ub)
    for x in range(k):
        for z in range(k):
            if x != z:
                for y in range(n):
                    row = np.zeros(k * n)
                    row[x * n + y], row[z * n + y] = 1.0, -math.exp(eps)
                    ub.append(list(row))
                    bu.append(0.0)
    eq = [list(r) for r in A_eq]
    be = list(b_eq)
    for x in range(k):
        row = np.zeros(k * n)
        row[x * n:(x + 1) * n] = 1.0
        eq.append(list(row))
        be.append(1.0)
    res = linprog(c, A_ub=np.array(ub), b_ub=bu, A_eq=np.array(eq), b_eq=be,
                  bounds=(0, None), method="highs")
    assert res.status == 0
    return res.fun


def entry_row(k, n, cells, coef=1.0):
    row = np.zeros(k * n)
    for x, y in cells:
        row[x * n + y] += coef
    return row


# ------------------------------------------------------------------ each kind, two ways
def test_entry_sum_and_rows_equal_the_python_problem_and_a_scipy_lp():
    text = """
[[constraints]]
name = "floor"
kind = "entry"
input = 0
output = 0
op = ">="
value = 0.8

[[constraints]]
name = "mass"
kind = "sum"
inputs = [1, 2]
outputs = [0]
op = "<="
value = 1.0

[[constraints]]
name = "ordered"
kind = "rows"
terms = [[1.0, 2], [-1.0, 1]]
outputs = [2]
op = ">="
value = 0.05
"""
    res = problem(text).solve()
    py = md.DesignProblem(privacy=md.LDP(epsilon=1.0), objective=md.ExpectedLoss(
        md.losses.hamming(3)), constraints={
            "floor": lambda Q: Q[0, 0] >= 0.8,
            "mass": lambda Q: Q[1, 0] + Q[2, 0] <= 1.0,
            "ordered": lambda Q: Q[2, 2] - Q[1, 2] >= 0.05}).solve()
    ref = naive_lp(md.losses.hamming(3), np.full(3, 1 / 3), 1.0,
                   A_ub=[-entry_row(3, 3, [(0, 0)]), entry_row(3, 3, [(1, 0), (2, 0)]),
                         entry_row(3, 3, [(1, 2)]) - entry_row(3, 3, [(2, 2)])],
                   b_ub=[-0.8, 1.0, -0.05])
    assert str(res.status) == "optimal" and res.certificate.met
    assert res.value == pytest.approx(py.value, rel=1e-9)
    assert res.value == pytest.approx(ref, rel=1e-7)
    for name in ("floor", "mass", "ordered"):
        assert float(np.sum(res.duals[name])) == pytest.approx(
            float(np.sum(py.duals[name])), rel=1e-5, abs=1e-8)
    Q = res.mechanism.matrix
    # (Q00 = 0.8 leaves row 0 0.2 elsewhere, so rows 1, 2 put at least 1 - 0.2 e = 0.456 on
    # output 0: 0.7 is infeasible; 1.0 binds or not, as the LP decides)
    assert Q[0, 0] >= 0.8 - 1e-9 and Q[1, 0] + Q[2, 0] <= 1.0 + 1e-9
    assert Q[2, 2] - Q[1, 2] >= 0.05 - 1e-9


def test_floor_file_dual_is_the_closed_form():
    # binary RR with Q00 >= 0.9 at eps = 1: loss (2 - Q00 - e (1 - Q00)) / 2, whose slope
    # in the floor is (e - 1) / 2 (the dual: d value / d rhs)
    pf = md.io.load_problem(PROBLEMS / "custom_lp_floor.toml")
    res = pf.problem.solve()
    assert res.value == pytest.approx((1.1 - 0.1 * E) / 2, rel=1e-9)
    assert abs(float(res.duals["floor"])) == pytest.approx((E - 1) / 2, rel=1e-6)


@pytest.mark.parametrize("gamma", [0.3, 0.75])
def test_blanket_and_hockey_stick_against_their_definitions(gamma):
    text = f"""
[[constraints]]
name = "hs"
kind = "hockey_stick"
epsilon = 0.5
delta = 0.05

[[constraints]]
name = "blanket"
kind = "blanket"
gamma = {gamma}
"""
    res = problem(text, eps=2.0, k=2).solve()
    Q = res.mechanism.matrix
    assert md.delta_ldp(Q, 0.5) <= 0.05 + 1e-7          # the definition, both orders
    assert Q.min(axis=0).sum() >= gamma - 1e-7
    if gamma == 0.3:  # slack: Holohan's (0.5, 0.05) optimum
        assert res.value == pytest.approx(1 - (math.exp(0.5) + 0.05) / (math.exp(0.5) + 1),
                                          rel=1e-7)
    else:  # binding: the blanket (1 - Q11) + (1 - Q00) >= gamma, loss (2 - Q00 - Q11)/2
        assert res.value == pytest.approx(gamma / 2, rel=1e-7)


def test_leakage_and_loss_caps():
    text = """
[[constraints]]
name = "leak"
kind = "leakage"
bound = 1.5

[[constraints]]
name = "accuracy"
kind = "loss"
loss = "absolute"
worst_case = true
value = 1.0
"""
    pf = problem(text, eps=3.0, k=3)
    res = pf.solve()
    Q = res.mechanism.matrix
    # multiplicative Bayes capacity sum_y max_x Q[x, y] <= 1.5 (leakage_constraint)
    assert Q.max(axis=0).sum() <= 1.5 + 1e-7
    assert (Q * md.losses.absolute(3)).sum(axis=1).max() <= 1.0 + 1e-7
    py = md.DesignProblem(privacy=md.LDP(epsilon=3.0), objective=md.ExpectedLoss(
        md.losses.hamming(3)), constraints={
            "leak": md.design.leakage_constraint(1.5),
            "accuracy": lambda Q: cp.sum(cp.multiply(md.losses.absolute(3), Q), axis=1) <= 1}
    ).solve()
    assert res.value == pytest.approx(py.value, rel=1e-8)


def test_linear_objective_from_a_coefficient_matrix():
    text = """
[privacy]
notion = "ldp"
epsilon = 1.0

[objective]
kind = "linear"
coefficients = [[0.0, 1.0, 3.0], [2.0, 0.0, 1.0]]
"""
    res = loads_problem(text).problem.solve()
    C = np.array([[0.0, 1.0, 3.0], [2.0, 0.0, 1.0]])
    ref = naive_lp(C, np.ones(2), 1.0)  # sum over x of Q[x] . C[x]: prior weights 1
    assert res.value == pytest.approx(ref, rel=1e-7)
    assert res.value == pytest.approx(float((C * res.mechanism.matrix).sum()), rel=1e-12)


# ------------------------------------------------------------------ hostile entries
@pytest.mark.parametrize("text, message", [
    ('[[constraints]]\nname = "a"\nkind = "bogus"\n', "kind = 'bogus'"),
    ('[[constraints]]\nkind = "blanket"\ngamma = 0.1\n', "name"),
    ('[[constraints]]\nname = "a"\nkind = "blanket"\ngamma = 0.1\nextra = 1\n',
     "unknown key for kind 'blanket'"),
    ('[[constraints]]\nname = "a"\nkind = "entry"\ninput = 0\noutput = 0\nop = ">"\n'
     'value = 1\n', "op = '>'"),
    ('[[constraints]]\nname = "a"\nkind = "entry"\ninput = 7\noutput = 0\nop = ">="\n'
     'value = 0.1\n', "unknown input 7"),
    ('[[constraints]]\nname = "a"\nkind = "blanket"\ngamma = 0.1\n'
     '[[constraints]]\nname = "a"\nkind = "blanket"\ngamma = 0.2\n', "a second constraint"),
    ('[[constraints]]\nname = "a"\nkind = "hockey_stick"\nepsilon = 1\ndelta = 2\n',
     "delta = 2"),
    ('[[constraints]]\nname = "a"\nkind = "hockey_stick"\nepsilon = 1\ndelta = 0.1\n'
     'pairs = [[1, 1]]\n', "itself"),
    ('[[constraints]]\nname = "a"\nkind = "entry"\ninput = 0\noutput = 0\nop = ">="\n'
     'value = nan\n', "finite"),
    ('[[constraints]]\nname = "a"\nkind = "loss"\nloss = "absolute"\nm = 5\nvalue = 1\n',
     "problem is 3 x 3"),
])
def test_bad_constraint_entries_name_the_entry(text, message):
    with pytest.raises(FileFormatError, match=message.replace("[", r"\[")) as info:
        problem(text)
    assert "<problem>" in str(info.value) and "constraints" in str(info.value)


def test_constraints_must_be_an_array_of_tables():
    with pytest.raises(FileFormatError, match="array of tables"):
        loads_problem("constraints = 3\n" + HEAD.format(eps=1.0, loss="hamming", k=3))


# ------------------------------------------------------------------ infeasible: named
def test_an_infeasible_file_names_a_minimal_conflicting_set():
    text = """
[[constraints]]
name = "mass"
kind = "sum"
inputs = [1]
outputs = [0]
op = "<="
value = 0.3

[[constraints]]
name = "harmless"
kind = "blanket"
gamma = 0.1

[[constraints]]
name = "floor"
kind = "entry"
input = 0
output = 0
op = ">="
value = 0.9
"""
    # Q[0, 0] >= 0.9 forces Q[1, 0] >= 0.9 e^-0.5 = 0.546 > 0.3: 'mass' and 'floor' conflict
    res = problem(text, eps=0.5).solve()
    assert str(res.status) == "infeasible"
    assert res.conflict == ("mass", "floor")
    with pytest.raises(InfeasibleDesignError, match="'mass', 'floor'"):
        _ = res.mechanism


# ------------------------------------------------------------------ the command line
def test_solve_prints_and_writes_the_duals(capsys):
    path = str(PROBLEMS / "custom_lp_floor.toml")
    assert main(["solve", path]) == 0
    text = capsys.readouterr().out
    assert "constraint  dual value" in text and "floor" in text
    assert main(["solve", path, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert abs(out["user_constraints"]["floor"]["dual"]) == pytest.approx((E - 1) / 2, rel=1e-6)
    assert out["conflict"] == []


# ------------------------------------------------------------------ Python: own variables
K, EPS, DELTA = 4, 0.5, 1e-3


def epigraph(Q):
    """The hockey-stick cap written the textbook way, with its own variable."""
    s = cp.Variable(K, nonneg=True)
    return [s >= Q[0] - math.exp(EPS) * Q[1], cp.sum(s) <= DELTA]


def atoms(Q):
    return cp.sum(cp.pos(Q[0] - math.exp(EPS) * Q[1])) <= DELTA


def test_a_user_constraint_with_its_own_variables_solves_and_is_rechecked():
    # it used to raise "Cannot compute the violation of an constraint whose expression is
    # None-valued" in the post-solve re-check
    results = [md.DesignProblem(privacy=md.LDP(epsilon=2.0), objective=md.WorstCaseLoss(
        md.losses.absolute(K)), constraints={"hs": c}).solve() for c in (epigraph, atoms)]
    ep, at = results
    assert str(ep.status) == "optimal" and ep.certificate.met
    assert ep.value == pytest.approx(at.value, rel=1e-8)
    Q = ep.mechanism.matrix
    excess = np.maximum(Q[0] - math.exp(EPS) * Q[1], 0).sum()
    assert excess <= DELTA + 1e-7


def test_recheck_reoptimises_the_auxiliaries():
    spec = md.DesignProblem(privacy=md.LDP(epsilon=2.0), objective=md.WorstCaseLoss(
        md.losses.absolute(K)), constraints={"hs": epigraph})
    good = np.full((K, K), 1 / K)  # identical rows: excess 0
    assert spec.constraint_violations(good)["hs"] <= 1e-8
    bad = np.eye(K)  # row 0 puts mass 1 where row 1 has none: excess 1 > DELTA
    # the least violation over s: relaxing both rows by t, s_0 >= 1 - t and
    # s_0 <= DELTA + t give t = (1 - DELTA) / 2
    assert spec.constraint_violations(bad)["hs"] == pytest.approx((1 - DELTA) / 2, rel=1e-6)
