"""The outcome of a design (:mod:`mechdesign.design.result`): one frozen record.

Pinned: statuses read as words, optimum labels and methods compare equal to their JSON
strings; a certificate's verdict says how it was checked; ``mechanism`` raises the typed
error of each way a design can end without one (infeasible, naming the conflicting user
constraints, for every notion; unbounded, for either solver; a solver error with its
reason; a target missed; an optimum too large to write as a matrix); ``oracle`` is a typed
error when the optimum is no known family; ``summary`` is JSON-ready, with the certified
gap, the exact check and the user constraints' duals.
"""

from __future__ import annotations

import json
import math

import cvxpy as cp
import numpy as np
import pytest

import mechdesign as md
from mechdesign import losses
from mechdesign.design import DesignProblem, ExpectedLoss, Status
from mechdesign.design.result import Certificate, DesignResult, Method, Optimum
from mechdesign.errors import (
    DesignError,
    InfeasibleDesignError,
    SizeLimitError,
    SolverFailedError,
    UnboundedDesignError,
    UncertifiedDesignError,
)
from mechdesign.privacy import LDP, SLDP, WLDP, ApproxLDP, DeletionLDP, MetricDP
from tests.design.references import GAP_TOL

# two inputs: Q[0,0] >= 0.99 and Q[1,0] <= 0.1 give a ratio >= 9.9 > e^0.5
CLASH = {"too_sure": lambda Q: Q[0, 0] >= 0.99, "too_rare": lambda Q: Q[1, 0] <= 0.1}


def _certificate(met: bool = True, exact: bool | None = True) -> Certificate:
    return Certificate(notion="LDP(epsilon=1)", target=1.0, achieved=0.9 if met else 1.2,
                       met=met, tolerance=0.0, repair="none", repair_weight=0.0,
                       value_gap=0.0, method="by hand", exact=exact)


def _result(status: Status, **kwargs) -> DesignResult:
    base = {"value": None, "solver_value": None, "optimum": Optimum.GLOBAL,
            "certificate": None, "duals": {}, "solver": "test", "formulation": "by hand",
            "build_time": 0.0, "solve_time": 0.0}
    return DesignResult(status=status, **{**base, **kwargs})


def test_the_labels_are_their_json_strings():
    assert [str(s) for s in Status] == ["optimal", "infeasible", "unbounded", "inaccurate",
                                        "solver error"]
    assert Optimum.SOLVER_REPORTED == "global, solver-reported"
    assert Optimum("catalog") is Optimum.CATALOG
    assert Method.CLOSED_FORM_KRR == "closed_form_krr" and str(Method.PROGRAM) == "program"


def test_a_certificate_says_how_it_was_checked():
    assert _certificate().verdict() == "yes, proved in rational arithmetic"
    assert _certificate(exact=None).verdict() == "yes (float measure, rounded up)"
    assert _certificate(exact=False).verdict() == "yes (float measure; the exact check failed)"
    assert _certificate(met=False).verdict() == "NOT met"
    assert "met, proved exactly" in repr(_certificate())
    assert "NOT met" in repr(_certificate(met=False))


@pytest.mark.parametrize(("result", "error", "match"), [
    (_result(Status.INFEASIBLE, user_constraints=("a",)), InfeasibleDesignError,
     r"user constraints present: a\)"),
    (_result(Status.INFEASIBLE, conflict=("a", "b")), InfeasibleDesignError,
     r"constraints 'a', 'b' cannot hold together"),
    (_result(Status.UNBOUNDED), UnboundedDesignError, r"present: none"),
    (_result(Status.SOLVER_ERROR, _unavailable="HIGHS stopped"), SolverFailedError,
     "HIGHS stopped"),
    (_result(Status.SOLVER_ERROR), SolverFailedError, "the solver failed"),
    (_result(Status.INACCURATE, certificate=_certificate(met=False), _unavailable="missed"),
     UncertifiedDesignError, "missed"),
    (_result(Status.OPTIMAL, structure={"d": 3}, _unavailable="too large"), SizeLimitError,
     "too large"),
    (_result(Status.INACCURATE), DesignError, r"no mechanism \(status inaccurate\)"),
])
def test_no_mechanism_is_the_typed_error_of_its_status(result, error, match):
    with pytest.raises(error, match=match):
        result.mechanism  # noqa: B018
    assert result.achieved is (None if result.certificate is None else 1.2)
    with pytest.raises(DesignError, match="not a structured family"):
        result.oracle  # noqa: B018


def test_the_summary_is_json_ready_with_the_duals_of_user_constraints():
    res = DesignProblem(LDP(1.0), ExpectedLoss(losses.absolute(3)),
                        constraints={"floor": lambda Q: Q[0, 0] >= 0.6}).solve()
    summary = json.loads(json.dumps(res.summary()))
    assert summary["status"] == "optimal" and summary["method"] == "program"
    assert summary["value"] == res.value and summary["certificate"]["met"] is True
    assert summary["user_constraints"]["floor"]["dual"] == pytest.approx(
        float(np.asarray(res.duals["floor"]).sum()))
    assert summary["oracle"] is None and summary["conflict"] == []


def test_result_summary_reports_the_gap_and_the_exact_check():
    res = md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(md.losses.hamming(3))).solve()
    summary = res.summary()
    assert summary["gap"] == res.gap and summary["gap"] <= GAP_TOL
    assert summary["certificate"]["exact"] is True
    assert summary["certificate"]["tolerance"] == 0.0
    # k-RR: (k - 1) / (e^eps + k - 1) (docs/formulations.md)
    assert res.value == pytest.approx(2 / (math.e + 2), rel=1e-12)


@pytest.mark.parametrize("make", [
    lambda: DesignProblem(LDP(0.5), ExpectedLoss(losses.hamming(2)), constraints=CLASH),
    lambda: DesignProblem(ApproxLDP(0.5, 0.01), ExpectedLoss(losses.hamming(2)),
                          constraints=CLASH),
    lambda: DesignProblem(DeletionLDP(0.5), ExpectedLoss(losses.hamming(2)), constraints=CLASH),
    lambda: DesignProblem(DeletionLDP(0.5, 0.01), ExpectedLoss(losses.hamming(2)),
                          constraints=CLASH),
    lambda: DesignProblem(MetricDP(0.5, md.neighbors.line_distance(2)),
                          ExpectedLoss(losses.hamming(2)),
                          constraints=CLASH),
    lambda: DesignProblem(SLDP(0.5, "pl"), ExpectedLoss(np.ones((2, 3))), outputs=["a", "b"],
                          constraints=CLASH),
    lambda: DesignProblem(WLDP(0.5), ExpectedLoss(np.ones((2, 3))), outputs=["a", "b"],
                          constraints=CLASH),
    lambda: DesignProblem(WLDP(0.5), ExpectedLoss(np.ones((2, 2))), outputs=["a", "b"],
                          semantics="walley", constraints=CLASH),
], ids=["ldp", "approx", "deletion", "deletion-delta", "metric", "sldp-pl", "wldp", "walley"])
def test_infeasible_user_constraints_give_status_and_typed_error(make):
    res = make().solve()
    assert res.status is Status.INFEASIBLE and str(res.status) == "infeasible"
    assert res.value is None and res.certificate is None
    with pytest.raises(InfeasibleDesignError, match=r"'too_sure', 'too_rare'"):
        res.mechanism  # noqa: B018


@pytest.mark.parametrize("solver", ["HIGHS", "CLARABEL"])
def test_unbounded_custom_objective(solver):
    t = cp.Variable(name="free")  # a free variable the objective can push to -inf

    def objective(Q: cp.Expression) -> cp.Expression:
        return cp.sum(Q) - t

    res = DesignProblem(LDP(1.0), objective, n_inputs=3, n_outputs=3).solve(solver=solver)
    assert res.status is Status.UNBOUNDED and res.value is None
    with pytest.raises(UnboundedDesignError, match="unbounded"):
        res.mechanism  # noqa: B018
