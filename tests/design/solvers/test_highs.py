"""HiGHS as mechdesign runs it (:mod:`mechdesign.design.solvers.highs`).

Pinned: its settings (quiet interior point with crossover by default, the user's
``highs_options`` winning over the defaults and over the time limit, which goes under
``highs_options``); options checked by HiGHS itself, refused by name (an unknown option, a
bad value, a bad ``highs_options`` entry) and accepted when good; ``primal_dual`` reads the
native answer and gives ``dual_bound`` the optimum of an LP solved by hand; its fallback
(Clarabel for LPs, none for cones); ``highs_run`` refuses a bad option with a ValueError; the
warm-started simplex of a sweep (``WarmHighs``) reaches the cold optima along a parameter,
keeping its basis, and applies only where ``warm_highs_applies`` says; a HiGHS time limit
ends a design as a solver error naming it.
"""

from __future__ import annotations

import threading

import cvxpy as cp
import numpy as np
import pytest

from mechdesign.design import DesignProblem, ExpectedLoss, Status
from mechdesign.design.solvers import dual_bound, solve_compiled
from mechdesign.design.solvers.highs import (
    HIGHS,
    WARM_HIGHS_MAX_VARS,
    WarmHighs,
    highs_run,
    warm_highs_applies,
)
from mechdesign.errors import SolverFailedError
from mechdesign.privacy import LDP


def test_the_settings_are_quiet_and_the_user_s_options_win():
    assert HIGHS.settings({}, None) == {
        "highs_options": {"output_flag": False, "solver": "ipm"}, "verbose": False}
    assert HIGHS.settings({}, 3)["highs_options"]["time_limit"] == 3.0
    mine = HIGHS.settings({"highs_options": {"solver": "simplex", "time_limit": 1.0},
                           "verbose": True}, 3)
    assert mine == {"highs_options": {"output_flag": False, "solver": "simplex",
                                      "time_limit": 1.0}, "verbose": True}
    assert HIGHS.name == "HIGHS" and HIGHS.checks_options


@pytest.mark.parametrize(("key", "value", "problem"), [
    ("not_an_option", 1, "not a HiGHS option"),
    ("time_limit", "abc", "HiGHS refuses the value 'abc'"),
    ("highs_options", {"bogus": 1}, "highs_options['bogus']: not a HiGHS option"),
    ("highs_options", {"solver": 3.5}, "highs_options['solver']: HiGHS refuses the value 3.5"),
    ("highs_options", [1], "highs_options must be a dict of HiGHS options, got list"),
])
def test_a_bad_option_is_refused_by_name(key, value, problem):
    assert HIGHS.option_problem(key, value) == problem


@pytest.mark.parametrize(("key", "value"), [
    ("presolve", "off"), ("time_limit", 2.0),
    ("highs_options", {"solver": "simplex", "primal_feasibility_tolerance": 1e-9})])
def test_a_good_option_is_accepted(key, value):
    assert HIGHS.option_problem(key, value) is None


def test_primal_dual_gives_the_bound_of_an_lp_solved_by_hand():
    # min x0 + 2 x1 + 3 x2 over the simplex with x0 <= 0.4: 0.4 + 2 * 0.6 = 1.6
    x = cp.Variable(3, nonneg=True)
    prob = cp.Problem(cp.Minimize(np.array([1.0, 2.0, 3.0]) @ x), [cp.sum(x) == 1, x[0] <= 0.4])
    data, raw = solve_compiled(prob, "HIGHS", HIGHS.settings({}, None))
    primal, dual = HIGHS.primal_dual(raw)
    assert len(primal) == data["c"].size and len(dual) == data["A"].shape[0]
    assert float(data["c"] @ primal) == pytest.approx(1.6, rel=1e-12)
    assert dual_bound(prob, data, raw, "HIGHS") == pytest.approx(1.6, rel=1e-12)
    assert HIGHS.primal_dual(object()) is None  # not HiGHS's answer
    assert (HIGHS.fallback(True), HIGHS.fallback(False)) == ("CLARABEL", None)


def test_highs_run_refuses_a_bad_option_as_cvxpy_does():
    import highspy

    with pytest.raises(ValueError, match=r"\(bogus_option, 1\)"):
        highs_run(highspy.HighsLp(), {"bogus_option": 1}, threading.Event())


def _parametric_lp() -> tuple[cp.Problem, cp.Parameter]:
    """min x0 + 2 x1 + 3 x2 over the simplex with x0 <= t: optimum 2 - t (t in [0, 1])."""
    x = cp.Variable(3, nonneg=True)
    t = cp.Parameter(nonneg=True)
    return cp.Problem(cp.Minimize(np.array([1.0, 2.0, 3.0]) @ x),
                      [cp.sum(x) == 1, x[0] <= t]), t


def test_the_warm_started_simplex_reaches_the_cold_optima():
    prob, t = _parametric_lp()
    warm = WarmHighs()
    for value in (0.4, 0.2, 0.7, 0.0):
        t.value = value
        warm(prob)
        assert prob.status == cp.OPTIMAL and warm.basis is not None
        assert prob.value == pytest.approx(2 - value, abs=1e-12)
        assert dual_bound(prob, *warm.last, "HIGHS") == pytest.approx(2 - value, abs=1e-12)
    assert warm.cold_retries == 0 and warm.broken is None


def test_where_the_warm_started_simplex_applies():
    prob, _ = _parametric_lp()
    assert warm_highs_applies(prob, None, {}) and warm_highs_applies(prob, "highs", {})
    assert not warm_highs_applies(prob, None, {"verbose": True})  # the user's options
    assert not warm_highs_applies(prob, "CLARABEL", {})
    x = cp.Variable(3, nonneg=True)
    assert not warm_highs_applies(cp.Problem(cp.Minimize(cp.sum_squares(x)),
                                             [cp.sum(x) == 1]), None, {})
    # a large LP with many rows per variable: Clarabel by default, HiGHS when named
    y = cp.Variable(WARM_HIGHS_MAX_VARS + 1)
    many = cp.Problem(cp.Minimize(cp.sum(y)), [y >= 0, y <= 1, cp.sum(y) == 1])
    assert not warm_highs_applies(many, None, {}) and warm_highs_applies(many, "HIGHS", {})


def test_time_limit_is_a_solver_error_naming_the_cause():
    L = np.random.default_rng(0).random((60, 60))
    res = DesignProblem(LDP(1.0), ExpectedLoss(L)).solve(
        solver="HIGHS", highs_options={"time_limit": 1e-6})
    assert res.status is Status.SOLVER_ERROR and res.value is None
    with pytest.raises(SolverFailedError, match=r"HIGHS stopped .*time limit"):
        res.mechanism  # noqa: B018
