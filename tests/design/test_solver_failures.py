"""Solver failure paths: infeasible, unbounded, inaccurate, time limit, a solver that is not
installed, and numerically hard problems. Each must end in a typed error or a status that
names the cause, and every mechanism that IS returned must verify (float measure and exact
rational check, within EPSILON_TOL).

Tests named ``test_finding_*`` reproduce defects found in the design layer by the fuzz and
by the failure-path review; each defect is fixed and its test stays as a regression test.
"""

from __future__ import annotations

import math
import warnings

import cvxpy as cp
import numpy as np
import pytest

import mechdesign as md
from mechdesign import losses
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
    MechdesignError,
    SolverFailedError,
    UnboundedDesignError,
    ValidationError,
)
from mechdesign.privacy import LDP, SLDP, WLDP, ApproxLDP, DeletionLDP, MetricDP
from mechdesign.privacy.verify import verify_exact
from mechdesign.testing.cases import Case
from mechdesign.testing.fuzz import run_case

TOL = md.privacy.EPSILON_TOL
# two inputs: Q[0,0] >= 0.99 and Q[1,0] <= 0.1 give a ratio >= 9.9 > e^0.5
CLASH = {"too_sure": lambda Q: Q[0, 0] >= 0.99, "too_rare": lambda Q: Q[1, 0] <= 0.1}


def _assert_verified(res, notion) -> None:
    """A returned mechanism meets its notion: float measure and exact check."""
    assert res.certificate is not None and res.certificate.met
    mech = res.mechanism
    assert notion.measure(mech) <= notion.target + TOL
    v = verify_exact(mech, notion)
    assert v.holds is True or v.excess <= TOL, v.message


# ------------------------------------------------------------------------------ infeasible
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


# ------------------------------------------------------------------------------ unbounded
@pytest.mark.parametrize("solver", ["HIGHS", "CLARABEL"])
def test_unbounded_custom_objective(solver):
    t = cp.Variable(name="free")  # a free variable the objective can push to -inf

    def objective(Q: cp.Expression) -> cp.Expression:
        return cp.sum(Q) - t

    res = DesignProblem(LDP(1.0), objective, n_inputs=3, n_outputs=3).solve(solver=solver)
    assert res.status is Status.UNBOUNDED and res.value is None
    with pytest.raises(UnboundedDesignError, match="unbounded"):
        res.mechanism  # noqa: B018


@pytest.mark.parametrize(("fn", "what"), [
    (lambda Q: cp.log(Q[0, 0]), "concave objective minimised (not DCP)"),
    (lambda Q: 3.0, "a plain number instead of a cvxpy expression"),
], ids=["non-dcp", "not-an-expression"])
def test_finding_bad_custom_objective_is_a_typed_error(fn, what):
    # FINDING: cvxpy's DCPError and an AttributeError escape DesignProblem.solve untyped
    # (the CLI would print a traceback). Expected: a ValidationError naming the objective.
    with pytest.raises(ValidationError, match="objective"):
        DesignProblem(LDP(1.0), fn, n_inputs=2, n_outputs=2).solve()


# ------------------------------------------------------------------------------ inaccurate
def test_inaccurate_solve_is_flagged_and_the_mechanism_still_verifies():
    notion = LDP(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = DesignProblem(notion, ExpectedLoss(losses.hamming(4))).solve(solver="SCS",
                                                                           max_iters=5)
    assert res.status is Status.INACCURATE and str(res.status) == "inaccurate"
    _assert_verified(res, notion)  # cleaned and repaired: the guarantee is real
    assert res.certificate.repair_weight > 0
    assert any("missed the privacy target" in n for n in res.notes)  # and says so


def test_iteration_limit_is_a_solver_error_naming_the_status():
    res = DesignProblem(LDP(1.0), ExpectedLoss(losses.hamming(4))).solve(solver="CLARABEL",
                                                                         max_iter=2)
    assert res.status is Status.SOLVER_ERROR and res.certificate is None
    with pytest.raises(SolverFailedError, match=r"CLARABEL stopped with status 'user_limit'"):
        res.mechanism  # noqa: B018


@pytest.mark.parametrize("max_iters", [3, 8])
def test_finding_inaccurate_result_keeps_the_user_constraints(max_iters):
    # FINDING: the certificate re-measures privacy only. After an inaccurate solve (or a
    # repair by mixing) the returned matrix can violate a user constraint by a lot without
    # any note: here Q[0, 0] >= 0.8798 comes back as 0.45 (max_iters=3) or 0.68 (8).
    cap = math.exp(2.0) / (1 + math.exp(2.0)) - 1e-3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = DesignProblem(LDP(2.0), ExpectedLoss(losses.hamming(2)),
                            constraints={"floor": lambda Q: Q[0, 0] >= cap}
                            ).solve(solver="SCS", max_iters=max_iters)
    if res.certificate is None or not res.certificate.met:
        return  # no mechanism claimed: fine
    q = res.mechanism.matrix[0, 0]
    assert q >= cap - 1e-6 or any("floor" in n for n in res.notes), (q, cap, res.notes)


# ------------------------------------------------------------------------------ time limit
# ------------------------------------------------------------------------------ not installed
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


# ------------------------------------------------------------------------------ hard
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
    _assert_verified(res, notion)


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


# ------------------------------------------------------------------------------ exactness
# A 5 x 5 mechanism returned by the design layer for DeletionLDP(1.0, 0.2) (the fuzz case
# below), stored exactly as hex floats.
DELETION_HEX = [
    ["0x1.200bf38515b99p-1", "0x1.c909d52a16ba4p-5", "0x1.6d5671fa037dcp-8",
     "0x1.a331a3e2a12edp-3", "0x1.5ef1652eb2205p-3"],
    ["0x1.758519ecd93bdp-4", "0x1.1e5abfcb494c5p-1", "0x1.6d560ac00b9ecp-8",
     "0x1.83cc99fc802e5p-3", "0x1.3c9b2989eda55p-3"],
    ["0x1.7584f8f7b3ab2p-4", "0x1.c909aca4c7177p-5", "0x1.91d772cce03bbp-1",
     "0x1.7aa95d494ef9fp-6", "0x1.712085f9265a4p-5"],
    ["0x1.7584f98f3a8cbp-4", "0x1.c909b04c3afc4p-5", "0x1.6d550e8ff0f09p-8",
     "0x1.91d771f391f82p-1", "0x1.00654dc519241p-4"],
    ["0x1.7584f90b478cap-4", "0x1.c909ae6dbc32fp-5", "0x1.6d5512876f5c7p-8",
     "0x1.7ab4024793111p-3", "0x1.53371b40c7a84p-1"],
]


def test_finding_delta_deletion_underreports_on_a_degenerate_matrix():
    # FINDING (analysis/privacy.py, delta_deletion): the LP is solved at HiGHS's default
    # feasibility tolerance (1e-7), and on this LP-tight matrix it returns 0.2000000005
    # while the exact smallest delta is 0.20000000674886772 (verify_exact brackets it to
    # 1e-16 between an exact reference r and an exact LP-dual bound; the pairwise
    # necessary condition alone already gives >= 0.2000000041, checked in mpmath in
    # tests/test_verify.py's style). The float measure is off by 6.2e-9 > EPSILON_TOL.
    M = md.Mechanism([[float.fromhex(v) for v in row] for row in DELETION_HEX])
    v = verify_exact(M, "deletion_ldp", 1.0, 0.2)
    lo, hi = v.achieved_delta
    assert v.holds is False and float(hi - lo) < 1e-15
    assert float(lo) == pytest.approx(0.20000000674886772, abs=1e-16)
    assert md.privacy.delta_deletion(M, 1.0) >= float(lo) - TOL


def test_finding_design_certifies_a_deletion_mechanism_that_misses_delta():
    # FINDING (consequence): DeletionLDP(1.0, 0.2) with the E-optimal estimation objective
    # (5 inputs, seeded prior) is certified with achieved = 0.2000000005, but the matrix's
    # exact delta is 0.2000000067: it claims a guarantee it does not have (by 6.7e-9).
    out = run_case(Case("deletion_ldp_delta", "estimation_E", 5, 5, 1.0, 0.2, 1))
    assert out.category in ("verified", "within_tol"), out.detail


# ------------------------------------------------------------------------------ robustness
def test_finding_wldp_repair_cannot_reach_small_targets():
    # FINDING (design/certify.py): the repair mixes with the column-mean row and the module
    # docstring says "gamma = 1 (a constant mechanism) meets every target". For WLDP it does
    # not: pl_x(E) / bel_x(E) > 1 for a constant row with "don't know" mass (x = x' counts,
    # Lemma 3.14). dont_know(0.6, 0.2) mixed all the way still has eps_W = ln 1.5 > 0.1.
    from mechdesign.design.certify import certify

    focal = [frozenset({"Yes"}), frozenset({"No"}), frozenset({"Yes", "No"})]

    def build(M):
        return md.EvidentialMechanism(M, focal, outputs=("Yes", "No"))

    _mech, _C, cert = certify(md.dont_know(0.6, 0.2).masses, WLDP(0.1), build,
                              lambda M: 0.0, None)
    assert cert.met, cert  # fails: achieved = ln 1.5 at repair weight 1


def test_finding_feasible_metric_problem_reported_infeasible():
    # FINDING (design/notions.py MetricDP / solver scaling, fuzz seeds 4866, 9992): with
    # eps d up to 26 the constraint coefficients reach e^26 = 2e11 and Clarabel returns
    # "infeasible"; the result then claims "the design problem is infeasible (user
    # constraints present: none)" although the uniform mechanism is feasible (and optimal:
    # the objective below is 0 there).
    D = [[0.0, 1.444, 2.758], [1.444, 0.0, 3.237], [2.758, 3.237, 0.0]]
    T = np.full((3, 5), 0.2)
    notion = MetricDP(8.0, D)
    res = DesignProblem(notion, lambda Q: cp.sum_squares(Q - T), n_inputs=3,
                        n_outputs=5).solve()
    assert res.status is not Status.INFEASIBLE
    _assert_verified(res, notion)


@pytest.mark.parametrize("eps", [18.0, 20.0, 25.0])
def test_finding_deletion_ldp_at_large_epsilon_is_not_infeasible(eps):
    # FINDING (HEAD 527a1c8, design/notions.py DeletionLDP with delta = 0): the ratio is
    # capped at e^{max(20, eps + 1)} while sum_y t_y = e^-eps; from eps = 18 the solver
    # reports INFEASIBLE, and .mechanism raises InfeasibleDesignError "(user constraints
    # present: none)". The problem is feasible: any constant mechanism Q = 1 r^T is
    # eps-deletion-LDP with reference r, for every eps >= 0 (eps = 15 still solves).
    notion = DeletionLDP(eps)
    res = DesignProblem(notion, ExpectedLoss(losses.hamming(3))).solve()
    assert res.status is not Status.INFEASIBLE
    _assert_verified(res, notion)
    # closed form: every off-diagonal entry is at least e^-eps r_y, so the uniform-prior
    # Hamming loss is at least 2 e^-eps / 3, attained with r uniform. (The former ratio
    # cap e^20, a stronger constraint, gave k-RR's 2 / (e^20 + 2) from eps = 20 - ln 3:
    # 3x worse at eps = 20, 450x at eps = 25, and was labelled optimal.)
    expected = 2 * math.exp(-eps) / 3
    assert res.value == pytest.approx(expected, rel=1e-6)
    # optimal only with a certified gap; at eps = 25 the optimum (9e-12 of the loss range)
    # is below the solvers' absolute accuracy and the bound cannot certify it relatively
    assert (res.status is Status.OPTIMAL) == (res.gap is not None and res.gap <= 1e-6)


def test_default_lp_falls_back_to_highs_when_clarabel_is_inaccurate(monkeypatch):
    # the exact metric LPs of 10 x 10 and 12 x 12 grids ended optimal_inaccurate in Clarabel
    # (benchmarks/README.md, section 3b); simulated here by starving Clarabel of iterations
    import mechdesign.design.program as program_module

    real = program_module.solver_options

    def starved(name, options, time_limit=None):
        opts = real(name, options, time_limit)
        if name == "CLARABEL":
            opts["max_iter"] = 2
        return opts

    monkeypatch.setattr(program_module, "solver_options", starved)
    k = 50  # 2550 variables: Clarabel by default
    # a non-Hamming loss (the Hamming loss is answered in closed form, with no program)
    L = losses.absolute(k)
    res = DesignProblem(LDP(1.0), ExpectedLoss(L)).solve()
    assert res.status is Status.OPTIMAL and res.solver == "HIGHS"
    assert any("CLARABEL ended" in n and "re-solved with HIGHS" in n for n in res.notes)
    # the same optimum as HiGHS alone (a second method; starving Clarabel leaves it alone)
    ref = DesignProblem(LDP(1.0), ExpectedLoss(L)).solve(solver="HIGHS")
    assert res.value == pytest.approx(ref.value, rel=1e-9)
    assert res.certificate.met and LDP(1.0).measure(res.mechanism) <= 1.0 + TOL
    # an explicit solver is never replaced
    res = DesignProblem(LDP(1.0), ExpectedLoss(L)).solve(solver="CLARABEL")
    assert res.solver == "CLARABEL" and res.status is not Status.OPTIMAL
