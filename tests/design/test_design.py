"""Design layer: the two faces of every notion agree, known optima are recovered, and every
returned mechanism passes the independent measurement of the analysis layer."""

from __future__ import annotations

import dataclasses
import math

import cvxpy as cp
import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
import mechdesign.losses as losses
from mechdesign.design import (
    DesignProblem,
    EstimationVariance,
    ExpectedLoss,
    MutualInformation,
    Status,
    WorstCaseLoss,
)
from mechdesign.design.formulations import BuildContext, formulate
from mechdesign.errors import (
    InfeasibleDesignError,
    InvalidParameterError,
    SolverFailedError,
)
from mechdesign.privacy import LDP, SLDP, WLDP, ApproxLDP, DeletionLDP, MetricDP

FOCAL_YN = [frozenset({"Yes"}), frozenset({"No"}), frozenset({"Yes", "No"})]


def _feasible_with(notion, M, focal_sets=None, outputs=None, inputs=None) -> bool:
    """cvxpy face: is the notion's constraint set feasible with Q fixed to M?"""
    k, n = M.shape
    context = BuildContext(k, n, tuple(range(k)) if inputs is None else inputs)
    if focal_sets is not None:
        ev = md.EvidentialMechanism(M, focal_sets, outputs=outputs)
        context = dataclasses.replace(context, focal_masks=ev.focal_masks,
                                      n_labels=ev.n_outputs)
    form = formulate(notion, context)
    cons = [*form.constraints, form.Q == M]
    prob = cp.Problem(cp.Minimize(0), cons)
    prob.solve(solver="CLARABEL")
    return prob.status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE)


def _random_mech(seed: int, k: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(n), size=k)


# ---------------------------------------------------------------- two faces agree
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("make", [
    lambda eps: LDP(eps),
    lambda eps: DeletionLDP(eps),
    lambda eps: MetricDP(eps, md.neighbors.line_distance(3)),
])
def test_epsilon_notions_cvxpy_face_matches_numpy_face(seed, make):
    M = _random_mech(seed, 3, 4)
    measured = make(1.0).measure(md.Mechanism(M))
    assert _feasible_with(make(measured * 1.02), M)
    assert not _feasible_with(make(measured * 0.98), M)


@pytest.mark.parametrize("seed", range(3))
def test_approx_ldp_cvxpy_face_matches_numpy_face(seed):
    M = _random_mech(seed, 3, 4)
    eps = 0.3
    delta = md.delta_ldp(md.Mechanism(M), eps)
    assert delta > 0.01
    assert _feasible_with(ApproxLDP(eps, delta * 1.02), M)
    assert not _feasible_with(ApproxLDP(eps, delta * 0.98), M)


@pytest.mark.parametrize("seed", range(3))
def test_approx_deletion_cvxpy_face_matches_numpy_face(seed):
    M = _random_mech(seed, 3, 4)
    eps = 0.2
    delta = DeletionLDP(eps, 0.5).measure(md.Mechanism(M))
    assert delta > 0.01
    assert _feasible_with(DeletionLDP(eps, delta * 1.02), M)
    assert not _feasible_with(DeletionLDP(eps, delta * 0.98), M)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("make", [lambda e: SLDP(e, "mass"), lambda e: SLDP(e, "pl"),
                                  lambda e: SLDP(e, "bel"), lambda e: WLDP(e)])
def test_evidential_notions_cvxpy_face_matches_numpy_face(seed, make):
    M = _random_mech(seed, 3, 3)
    mech = md.EvidentialMechanism(M, FOCAL_YN, outputs=("Yes", "No"))
    measured = make(1.0).measure(mech)
    assert _feasible_with(make(measured * 1.02), M, FOCAL_YN, ("Yes", "No"))
    assert not _feasible_with(make(measured * 0.98), M, FOCAL_YN, ("Yes", "No"))


def test_metric_graph_edges_are_exact():
    # a path graph's edges give the same feasible set as all pairs of |x - x'|
    M = md.catalog.truncated_geometric(5, 0.4).matrix
    g = nx.path_graph(5)
    assert _feasible_with(MetricDP(0.4 * 1.001, g), M)
    assert not _feasible_with(MetricDP(0.4 * 0.99, g), M)


# ---------------------------------------------------------------- known optima
# ---------------------------------------------------------------- custom LPs
@pytest.mark.parametrize("scale", [1.0, 1e-9, 1e9])
def test_a_binding_dual_is_the_sensitivity_in_the_objectives_units(scale):
    # the floor Q[0, 0] >= f binds at f = 0.6 (the free optimum has Q[0, 0] = 0.5005); the
    # optimal value is piecewise linear in f, so its slope by a finite difference (a second
    # solve) is the dual; losses multiplied by `scale` multiply both (the compiled program
    # sees the loss scaled to [0, 1], whose duals are 1 / scale of these)
    def value(floor: float) -> md.DesignResult:
        return DesignProblem(privacy=ApproxLDP(0.5, 1e-3),
                             objective=WorstCaseLoss(scale * losses.absolute(4)),
                             constraints={"floor": lambda Q: Q[0, 0] >= floor}).solve()

    res, moved = value(0.6), value(0.601)
    slope = (moved.value - res.value) / 0.001
    assert slope > 0.1 * scale  # the floor binds
    assert res.duals["floor"] == pytest.approx(slope, rel=1e-6)


def test_user_constraint_and_duals():
    prob = DesignProblem(privacy=ApproxLDP(0.5, 1e-3), objective=WorstCaseLoss(
        losses.absolute(4)), constraints={"floor": lambda Q: Q[0, 0] >= 0.4})
    res = prob.solve()
    assert res.mechanism.matrix[0, 0] >= 0.4 - 1e-9
    assert "floor" in res.duals and "privacy" in res.duals and "rows" in res.duals
    # a binding floor has a non-zero dual; removing it can only improve the optimum
    free = DesignProblem(privacy=ApproxLDP(0.5, 1e-3),
                         objective=WorstCaseLoss(losses.absolute(4))).solve()
    assert free.value <= res.value + 1e-9


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


# ---------------------------------------------------------------- certification, invariants
@st.composite
def loss_problems(draw):
    k = draw(st.integers(2, 5))
    m = draw(st.integers(2, 5))
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    L = rng.random((k, m)) * 10 ** rng.uniform(-3, 3)
    prior = rng.dirichlet(np.ones(k))
    eps = draw(st.floats(0.01, 5.0))
    kind = draw(st.sampled_from(["ldp", "approx", "deletion", "metric", "worst"]))
    return k, m, L, prior, eps, kind, rng.uniform(0, 0.3)


@settings(max_examples=40, deadline=None)
@given(loss_problems())
def test_every_designed_mechanism_passes_the_independent_check(case):
    k, _m, L, prior, eps, kind, delta = case
    notion = {"ldp": LDP(eps), "approx": ApproxLDP(eps, delta), "deletion": DeletionLDP(eps),
              "metric": MetricDP(eps, md.neighbors.line_distance(k)), "worst": LDP(eps)}[kind]
    obj = WorstCaseLoss(L) if kind == "worst" else ExpectedLoss(L, prior)
    res = DesignProblem(privacy=notion, objective=obj).solve()
    assert res.certificate.met
    mech = res.mechanism
    measured = {"ldp": md.epsilon_ldp, "worst": md.epsilon_ldp,
                "approx": lambda q: md.delta_ldp(q, eps),
                "deletion": lambda q: md.epsilon_deletion(q).epsilon,
                "metric": lambda q: md.epsilon_metric(q, md.neighbors.line_distance(k))}[kind](mech)
    assert measured <= notion.target + md.privacy.EPSILON_TOL
    assert res.value == pytest.approx(obj.evaluate(mech.matrix))
    # the solver's value and the certified matrix's value agree
    assert abs(res.certificate.value_gap) <= 1e-6 * max(1.0, abs(res.value))


def test_repair_by_mixing_restores_the_target():
    # far off target and no envelope for approximate LDP: certify() mixes with the
    # column-mean row
    from mechdesign.design.certify import certify

    Q = md.randomized_response(3, 1.2).matrix
    mech, _C, cert = certify(Q, ApproxLDP(1.0, 0.01), md.Mechanism, lambda M: 0.0, None)
    assert cert.met and cert.repair == "mixing" and 0 < cert.repair_weight < 1
    assert md.delta_ldp(mech, 1.0) <= 0.01 + md.privacy.EPSILON_TOL


def test_envelope_repairs_solver_noise_at_no_measurable_cost():
    # the geometric mechanism at eps = 4 on 30 counts has entries e^{-4 |x-y|} ~ 1e-51;
    # solver-size noise on the tiny entries breaks their ratios, the envelope restores them
    from mechdesign.design.certify import certify
    from mechdesign.privacy.notions import ratio_envelope

    n, eps = 30, 4.0
    P = md.catalog.truncated_geometric(n, eps).matrix
    Q = P.copy()
    tiny = Q < 1e-12
    Q[tiny] *= np.random.default_rng(0).uniform(0.2, 5.0, size=tiny.sum())
    notion = MetricDP(eps, md.neighbors.line_distance(n))
    assert notion.measure(md.Mechanism(Q / Q.sum(axis=1, keepdims=True))) > eps + 1e-3
    mech, _C, cert = certify(Q, notion, md.Mechanism, lambda M: 0.0, None)
    assert cert.met and cert.repair == "envelope" and cert.repair_weight < 1e-11
    assert md.epsilon_metric(mech, md.neighbors.line_distance(n)) <= eps + md.privacy.EPSILON_TOL
    # the envelope only raises entries, and leaves a private matrix as it is
    assert np.all(ratio_envelope(Q, eps * md.neighbors.line_distance(n)) >= Q)
    np.testing.assert_allclose(ratio_envelope(P, eps * md.neighbors.line_distance(n)), P,
                               rtol=1e-12)


# ---- Warner's optimality checked by sampling, independently of the designer's reductions
def _kl_columns(S):
    """mu(q) = q_0 ln(q_0 / q_1): KL(row 0 || row 1), convex and positively homogeneous."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(S[0] > 0, S[0] * np.log(S[0] / S[1]), 0.0)


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.5])
def test_sublinear_utility_kl_is_maximised_by_warner(eps):
    # KL(Q[0] || Q[1]) under eps-LDP: Warner, with value (2p - 1) eps = eps tanh(eps / 2)
    res = DesignProblem(privacy=LDP(eps), objective=md.design.SublinearUtility(_kl_columns, k=2)
                        ).solve()
    assert res.optimum == "global"
    assert res.value == pytest.approx(eps * math.tanh(eps / 2), rel=1e-9)


def test_sublinear_utility_matches_mutual_information():
    prior = np.array([0.2, 0.3, 0.5])
    mi = MutualInformation(prior)
    custom = md.design.SublinearUtility(mi.column_utility, k=3)
    a = DesignProblem(privacy=LDP(1.0), objective=mi).solve()
    b = DesignProblem(privacy=LDP(1.0), objective=custom).solve()
    assert a.value == pytest.approx(b.value, rel=1e-12)
    # and locally, under a notion without the staircase theorem, the two agree too
    a = DesignProblem(privacy=DeletionLDP(1.0), objective=mi).solve()
    b = DesignProblem(privacy=DeletionLDP(1.0), objective=custom).solve()
    assert a.optimum == b.optimum == "local"
    assert a.value == pytest.approx(b.value, rel=1e-5)


# ------------------------------------------------------------------ Hamming loss in closed form
