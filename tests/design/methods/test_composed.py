"""Design for a central target after repeated use (``design.methods.composed``).

Sources: the calibration of randomized response by its exact composition
(``calibrate_composition``) and the closed form of binary randomized response.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechdesign as md
from mechdesign.accounting.calibration import calibrate_composition
from mechdesign.accounting.composition import delta_composed
from mechdesign.accounting.notions import Composed
from mechdesign.design.result import Method


@pytest.fixture(scope="module")
def daily() -> md.DesignResult:
    problem = md.DesignProblem(Composed(30, 1.0, 1e-6), md.ExpectedLoss(1 - np.eye(2)))
    return problem.solve()


def test_binary_question_gets_calibrated_randomized_response(daily: md.DesignResult) -> None:
    cal = calibrate_composition("randomized_response", params={"k": 2}, target_epsilon=1.0,
                                target_delta=1e-6, k=30)
    best = 1 / (1 + math.exp(cal.value))
    assert daily.method is Method.COMPOSED
    assert daily.value == pytest.approx(best, rel=1e-8)
    # the returned matrix's exact 30-fold composition meets the target
    exact = delta_composed(daily.mechanism, 1.0, 30)
    assert exact.upper <= 1e-6
    assert daily.certificate.met and daily.certificate.achieved <= 1e-6
    routes = daily.structure["routes"]
    assert any(r["notion"].startswith("RenyiLDP") for r in routes)
    assert daily.gap is None and daily.optimum == "local"


def test_never_worse_than_calibrated_krr() -> None:
    k = 4
    problem = md.DesignProblem(Composed(20, 2.0, 1e-8),
                               md.ExpectedLoss(1 - np.eye(k), prior=[0.4, 0.3, 0.2, 0.1]))
    res = problem.solve()
    cal = calibrate_composition("randomized_response", params={"k": k}, target_epsilon=2.0,
                                target_delta=1e-8, k=20)
    krr_value = problem.objective.evaluate(md.randomized_response(k, cal.value).matrix)
    assert res.value <= krr_value * (1 + 1e-8)
    assert delta_composed(res.mechanism, 2.0, 20).upper <= 1e-8
    assert res.structure["calibrated_krr"]["value"] == pytest.approx(krr_value, rel=1e-12)


def test_plan_names_the_method() -> None:
    problem = md.DesignProblem(Composed(5, 1.0, 1e-6), md.ExpectedLoss(1 - np.eye(3)))
    assert problem.plan().method is Method.COMPOSED


def test_estimation_design_is_never_worse_than_calibrated_krr() -> None:
    # the best estimation design at k-RR's eps0 composes worse than k-RR itself (it is
    # rejected), so k-RR calibrated to the target is a candidate of its own
    prior = np.array([0.5, 0.3, 0.2])
    problem = md.DesignProblem(Composed(50, 1.0, 1e-6), md.EstimationVariance(prior=prior))
    res = problem.solve()
    cal = calibrate_composition("randomized_response", params={"k": 3}, target_epsilon=1.0,
                                target_delta=1e-6, k=50)
    krr_value = problem.objective.evaluate(md.randomized_response(3, cal.value).matrix)
    assert res.value <= krr_value * (1 + 1e-8)  # k-RR is taken 1e-9 inside the target
    assert delta_composed(res.mechanism, 1.0, 50).upper <= 1e-6


def test_time_limit_returns_the_best_route_so_far() -> None:
    problem = md.DesignProblem(Composed(40, 1.0, 1e-6), md.ExpectedLoss(1 - np.eye(3)))
    res = problem.solve(time_limit=1e-3)
    # no per-use design had time to run; calibrated k-RR (no solve) is returned, certified
    assert res.structure["chosen"].startswith("k-RR calibrated")
    assert any("time limit" in n for n in res.notes)
    assert delta_composed(res.mechanism, 1.0, 40).upper <= 1e-6
