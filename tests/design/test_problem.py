"""The design problem (:mod:`mechdesign.design.problem`): a validated specification and
``solve()``'s contract.

Pinned: bad problems, notions, objectives, time limits and solver names are typed errors
naming the value before any work (a solver not installed, for the staircase, local and
closed-form paths too); sizes are inferred from the loss, the inputs and the outputs, an
evidential design's messages are every non-empty subset; an estimation objective at a
boundary prior is refused where messages can separate inputs (and solved under pure LDP,
no worse than Warner); ``with_privacy`` keeps the problem and refuses another kind of
notion; ``build_mechanism`` labels the matrix; ``constraint_violations`` re-measures the
user constraints on a matrix (by hand here); an infeasible design names a minimal set of
conflicting user constraints; ``to_cvxpy`` is the same problem (k-RR's optimum);
numerically hard problems (eps = 20, priors of 1e-9) end certified or with a typed error
that says why, from the CLI too, never with an untyped exception or a false claim.
"""

from __future__ import annotations

import itertools
import math
import warnings

import cvxpy as cp
import numpy as np
import pytest

import mechdesign as md
import mechdesign.losses as losses
from mechdesign.cli.main import main
from mechdesign.design import (
    DesignProblem,
    EstimationVariance,
    ExpectedLoss,
    MutualInformation,
    Status,
)
from mechdesign.errors import (
    InfeasibleDesignError,
    InvalidParameterError,
    MechdesignError,
    SolverFailedError,
    ValidationError,
)
from mechdesign.privacy import LDP, SLDP, WLDP, ApproxLDP, DeletionLDP, MetricDP
from mechdesign.privacy.verify import verify_exact
from tests.design.references import assert_verified


def test_the_sizes_come_from_the_loss_the_labels_or_the_outputs():
    p = DesignProblem(LDP(1.0), ExpectedLoss(np.ones((3, 5))))
    assert (p.k, p.n, p.inputs, p.outputs) == (3, 5, (0, 1, 2), (0, 1, 2, 3, 4))
    p = DesignProblem(LDP(1.0), MutualInformation([0.5, 0.5]), inputs=["a", "b"],
                      outputs=["y", "n", "?"])
    assert (p.k, p.n, p.inputs, p.outputs, p.outputs_given) == (
        2, 3, ("a", "b"), ("y", "n", "?"), True)
    p = DesignProblem(LDP(1.0), lambda Q: cp.sum(Q), n_inputs=4)
    assert (p.k, p.n, p.outputs_given) == (4, 4, False)
    ev = DesignProblem(SLDP(1.0), EstimationVariance([0.5, 0.5]), outputs=["a", "b", "c"])
    assert ev.n == 7 and set(ev.focal_sets) == {
        frozenset(s) for r in (1, 2, 3) for s in itertools.combinations("abc", r)}


def test_with_privacy_keeps_the_problem_and_the_kind_of_notion():
    floor = {"floor": lambda Q: Q[0, 0] >= 0.4}
    p = DesignProblem(LDP(1.0), ExpectedLoss(losses.absolute(3)), constraints=floor)
    q = p.with_privacy(LDP(2.0))
    assert q.privacy == LDP(2.0) and p.privacy == LDP(1.0)
    assert q.objective is p.objective and q.constraints == p.constraints
    with pytest.raises(InvalidParameterError, match="with_privacy needs a LDP"):
        p.with_privacy(ApproxLDP(1.0, 0.01))


def test_build_mechanism_labels_the_matrix():
    p = DesignProblem(LDP(1.0), ExpectedLoss(np.ones((2, 2))), inputs=["x", "z"],
                      outputs=["a", "b"])
    C = np.array([[0.7, 0.3], [0.4, 0.6]])
    mech = p.build_mechanism(C)
    assert (mech.inputs, mech.outputs) == (("x", "z"), ("a", "b"))
    assert p.build_mechanism(np.array([[1.0, 0, 0], [0, 0.5, 0.5]])).outputs == (0, 1, 2)
    assert p.build_mechanism(C, outputs=["u", "v"]).outputs == ("u", "v")


def test_constraint_violations_are_measured_on_the_matrix():
    p = DesignProblem(LDP(1.0), ExpectedLoss(losses.absolute(3)), constraints={
        "floor": lambda Q: Q[0, 0] >= 0.5,
        "caps": lambda Q: [Q[1, 1] <= 0.2, Q[2, 2] <= 0.9]})
    C = np.array([[0.3, 0.3, 0.4], [0.3, 0.35, 0.35], [0.1, 0.1, 0.8]])
    violations = p.constraint_violations(C)
    assert violations["floor"] == pytest.approx(0.2, abs=1e-12)  # 0.5 - 0.3
    assert violations["caps"] == pytest.approx(0.15, abs=1e-12)  # 0.35 - 0.2
    assert p.constraint_violations(np.full((3, 3), 1 / 3)) == pytest.approx(
        {"floor": 0.5 - 1 / 3, "caps": 1 / 3 - 0.2})
    assert not p.feasible_by_construction
    assert DesignProblem(LDP(1.0), ExpectedLoss(losses.absolute(3))).feasible_by_construction


def test_infeasible_user_constraint_names_it():
    prob = DesignProblem(privacy=LDP(0.5), objective=ExpectedLoss(losses.hamming(3)),
                         constraints={"too_sure": lambda Q: Q[0, 0] >= 0.99,
                                      "too_rare": lambda Q: Q[1, 0] <= 0.1})
    res = prob.solve()
    assert res.status is Status.INFEASIBLE and str(res.status) == "infeasible"
    # both are needed (Q00 >= 0.99 forces Q10 >= 0.99 e^-0.5 = 0.60): a minimal set
    assert res.conflict == ("too_sure", "too_rare")
    with pytest.raises(InfeasibleDesignError, match="'too_sure', 'too_rare'"):
        res.mechanism  # noqa: B018


def test_to_cvxpy_is_the_same_problem():
    dp = DesignProblem(privacy=LDP(1.0), objective=ExpectedLoss(losses.hamming(3)))
    prob, Q = dp.to_cvxpy()
    prob.solve(solver="CLARABEL")
    assert prob.value == pytest.approx(2 / (math.e + 2), rel=1e-7)
    assert Q.value.shape == (3, 3)


def test_solver_not_installed_is_a_typed_error():
    dp = DesignProblem(privacy=LDP(1.0), objective=ExpectedLoss(losses.hamming(3)))
    with pytest.raises(SolverFailedError, match="NOT_A_SOLVER"):
        dp.solve(solver="NOT_A_SOLVER")


@pytest.mark.parametrize("kwargs,match", [
    (dict(privacy="ldp", objective=ExpectedLoss(losses.hamming(3))), "privacy"),
    (dict(privacy=LDP(1.0), objective=42), "objective"),
    (dict(privacy=LDP(1.0), objective=ExpectedLoss(losses.hamming(3)), n_inputs=4), "4"),
    (dict(privacy=LDP(1.0), objective=ExpectedLoss(losses.hamming(3)), n_outputs=5), "5"),
    (dict(privacy=SLDP(1.0), objective=EstimationVariance([0.5, 0.5])), "outputs"),
    (dict(privacy=LDP(1.0), objective=ExpectedLoss(losses.hamming(2)),
          focal_sets=[["a"]]), "focal_sets"),
    (dict(privacy=LDP(1.0), objective=ExpectedLoss(losses.hamming(2)),
          constraints={"c": 3}), "'c'"),
])
def test_bad_problems(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        DesignProblem(**kwargs)


@pytest.mark.parametrize("bad", [lambda: LDP(-1.0), lambda: ApproxLDP(1.0, 2.0),
                                 lambda: DeletionLDP(float("nan")), lambda: SLDP(1.0, "x"),
                                 lambda: MetricDP(1.0, np.eye(2), spanner=0.5),
                                 lambda: EstimationVariance([0.5, 0.5], criterion="Z")])
def test_bad_notions_and_objectives(bad):
    with pytest.raises(InvalidParameterError):
        bad()


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), "1"])
def test_time_limit_must_be_a_positive_number(bad):
    with pytest.raises(md.InvalidParameterError, match="time_limit"):
        md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(md.losses.hamming(3))).solve(
            time_limit=bad)


@pytest.mark.parametrize("notion", [md.WLDP(0.5), md.SLDP(0.5, "pl"), md.SLDP(2.0, "bel"),
                                    md.ApproxLDP(1.0, 1e-3), md.DeletionLDP(1.0, 1e-6)])
def test_estimation_at_a_boundary_prior_is_refused_where_messages_can_separate(notion):
    # seeds 103, 337, 451, 460, 522, 553, 561: a message sent only by an input of prior 0
    # has infinite Fisher information (for 2 inputs at prior (1, 0) the A criterion tends
    # to 0 along (t, 1 - t) columns), so no optimum exists; a typed refusal names the input
    kw = {"outputs": ("a", "b")} if notion.evidential else {"n_outputs": 2}
    with pytest.raises(md.InvalidParameterError, match=r"inputs \['z'\]\) is ill-posed"):
        md.DesignProblem(notion, md.EstimationVariance([0.5, 0.5, 0.0]),
                         inputs=("x", "y", "z"), **kw)


def test_estimation_at_a_boundary_prior_under_pure_ldp_is_solved():
    # pure LDP ties every column to every input (ratio <= e^eps), so the information stays
    # finite and the design is solved, proved private and no worse than Warner's mechanism
    # (one feasible point; its Cramer-Rao trace from the analysis layer)
    eps = 1.0
    prob = md.DesignProblem(md.LDP(eps), md.EstimationVariance([1.0, 0.0]), n_outputs=2)
    res = prob.solve()
    assert res.certificate.met and verify_exact(res.mechanism, "ldp", eps).holds is True
    warner = md.estimation.cramer_rao(md.randomized_response(2, eps), [1.0, 0.0]).trace
    assert math.isfinite(res.value) and res.value <= warner * (1 + 1e-9)
    # and a ratio-relaxed notion at the same prior is refused, also through with_privacy
    approx = md.DesignProblem(md.ApproxLDP(eps, 0.0), md.EstimationVariance([1.0, 0.0]),
                              n_outputs=2)
    with pytest.raises(md.InvalidParameterError, match="ill-posed"):
        approx.with_privacy(md.ApproxLDP(eps, 1e-3))


@pytest.mark.parametrize(("fn", "what"), [
    (lambda Q: cp.log(Q[0, 0]), "concave objective minimised (not DCP)"),
    (lambda Q: 3.0, "a plain number instead of a cvxpy expression"),
], ids=["non-dcp", "not-an-expression"])
def test_finding_bad_custom_objective_is_a_typed_error(fn, what):
    # FINDING: cvxpy's DCPError and an AttributeError escape DesignProblem.solve untyped
    # (the CLI would print a traceback). Expected: a ValidationError naming the objective.
    with pytest.raises(ValidationError, match="objective"):
        DesignProblem(LDP(1.0), fn, n_inputs=2, n_outputs=2).solve()


@pytest.mark.parametrize("make", [
    lambda: DesignProblem(LDP(1.0), EstimationVariance([0.3, 0.7])),  # staircase program
    lambda: DesignProblem(ApproxLDP(1.0, 0.1), MutualInformation([0.3, 0.7])),  # local
], ids=["staircase-estimation", "local"])
def test_solver_not_installed_for_information_objectives(make):
    with pytest.raises(SolverFailedError, match="NOT_A_SOLVER"):
        make().solve(solver="NOT_A_SOLVER")


@pytest.mark.parametrize("make", [
    lambda: DesignProblem(LDP(1.0), MutualInformation([0.3, 0.7])),  # staircase LP (scipy)
    lambda: DesignProblem(LDP(1.0), EstimationVariance([0.5, 0.5])),  # closed form
], ids=["staircase-mi", "symmetric-estimation"])
def test_finding_requested_solver_is_not_silently_ignored(make):
    # FINDING: these paths never call cvxpy, so a misspelt or missing solver passes
    # unnoticed (the result says solver="HiGHS (scipy)" / "closed form").
    with pytest.raises(SolverFailedError, match="NOT_A_SOLVER"):
        make().solve(solver="NOT_A_SOLVER")


HARD_PRIOR = np.array([1e-9, 1e-9, 1 - 2e-9])


@pytest.mark.parametrize("make", [
    lambda: LDP(20.0), lambda: ApproxLDP(20.0, 0.01), lambda: DeletionLDP(20.0),
    lambda: DeletionLDP(20.0, 0.01), lambda: MetricDP(20.0, md.neighbors.line_distance(3)),
    lambda: SLDP(20.0), lambda: SLDP(20.0, "bel"), lambda: WLDP(20.0),
], ids=["ldp", "approx", "deletion", "deletion-delta", "metric", "sldp", "sldp-bel", "wldp"])
@pytest.mark.parametrize("objective", ["loss", "mi", "est-A", "est-D"])
def test_numerically_hard_problem_is_certified_or_says_why(make, objective):
    # eps = 20 (e^20 = 4.9e8 and e^40 in deletion / metric coefficients) with priors of 1e-9
    notion = make()
    evidential = isinstance(notion, SLDP | WLDP)  # 2 labels: 3 messages, like 3 outputs
    obj = {"loss": lambda: ExpectedLoss(losses.absolute(3), HARD_PRIOR),
           "mi": lambda: MutualInformation(HARD_PRIOR),
           "est-A": lambda: EstimationVariance(HARD_PRIOR),
           "est-D": lambda: EstimationVariance(HARD_PRIOR, "D")}[objective]()
    kw = {"outputs": ["a", "b"]} if evidential else {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = DesignProblem(notion, obj, **kw).solve()
    except MechdesignError as exc:  # a typed error that says why: acceptable
        assert str(exc)
        return
    except Exception as exc:  # any untyped exception is the finding
        pytest.fail(f"untyped {type(exc).__name__} escaped solve(): {exc}")
    # no user constraints: a constant mechanism meets every notion, so "infeasible" (or
    # "unbounded") would be a false claim about the problem
    assert res.status not in (Status.INFEASIBLE, Status.UNBOUNDED), res.status
    if res.certificate is None or not res.certificate.met:
        with pytest.raises(MechdesignError):
            res.mechanism  # noqa: B018
        return
    assert_verified(res, notion)


def test_hard_problem_from_the_cli_has_no_traceback(tmp_path, capsys):
    # DeletionLDP(20): e^40 coefficients; HiGHS gives up ("Cannot unpack invalid
    # solution", a ValueError inside cvxpy). The command must say so and exit 1 (no
    # certified mechanism), never print a traceback.
    path = tmp_path / "hard.toml"
    path.write_text('[privacy]\nnotion = "deletion_ldp"\nepsilon = 20.0\n'
                    '[objective]\nkind = "expected_loss"\nloss = "hamming"\nk = 3\n')
    try:
        rc = main(["solve", str(path)])
    except Exception as exc:  # any untyped exception is the finding
        pytest.fail(f"{type(exc).__name__} escaped the CLI: {exc}")
    out = capsys.readouterr()
    assert "Traceback" not in out.err + out.out
    if rc != 0:
        assert rc == 1 and out.err.startswith("mechdesign: ")
        assert "no certified mechanism" in out.err or "error" in out.err
