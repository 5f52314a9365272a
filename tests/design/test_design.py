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
from mechdesign.design.engines.staircase import symmetric_estimation_value
from mechdesign.design.formulations import BuildContext, formulate
from mechdesign.errors import (
    InfeasibleDesignError,
    InvalidParameterError,
    SizeLimitError,
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
@pytest.mark.parametrize("k,eps", [(2, 0.5), (3, 1.0), (5, 2.0)])
def test_krr_is_optimal_for_hamming(k, eps):
    res = DesignProblem(privacy=LDP(eps), objective=ExpectedLoss(losses.hamming(k))).solve()
    # KOV 2016: k-RR optimal; error (k-1)/(e^eps + k - 1)
    assert res.status is Status.OPTIMAL and res.optimum == "global"
    assert res.value == pytest.approx((k - 1) / (math.exp(eps) + k - 1), rel=1e-9)
    np.testing.assert_allclose(res.mechanism.matrix, md.randomized_response(k, eps).matrix,
                               atol=1e-8)


@pytest.mark.parametrize("k,eps,delta", [(2, 0.5, 0.1), (4, 1.0, 0.05), (6, 0.3, 0.2)])
def test_approximate_ldp_closed_form(k, eps, delta):
    res = DesignProblem(privacy=ApproxLDP(eps, delta),
                        objective=ExpectedLoss(losses.hamming(k))).solve()
    truth = (math.exp(eps) + (k - 1) * delta) / (math.exp(eps) + k - 1)  # docs/formulations.md
    assert 1 - res.value == pytest.approx(truth, rel=1e-8)
    assert md.delta_ldp(res.mechanism, eps) <= delta + 1e-9


@pytest.mark.parametrize("k,eps", [(3, 0.5), (4, 2.0), (5, 1.0)])
def test_deletion_ldp_closed_form(k, eps):
    res = DesignProblem(privacy=DeletionLDP(eps), objective=ExpectedLoss(losses.hamming(k))
                        ).solve()
    truth = min(math.exp(eps) / k, 1 - (k - 1) * math.exp(-eps) / k)
    assert 1 - res.value == pytest.approx(truth, rel=1e-8)
    assert md.epsilon_deletion(res.mechanism).epsilon <= eps + 1e-9


def test_geometric_mechanism_is_optimal_for_counts():
    # Ghosh, Roughgarden, Sundararajan 2012: the truncated geometric mechanism followed by
    # the best remap is optimal for a count under metric privacy on the path.
    n, eps = 6, 0.5
    prior = np.array([0.1, 0.3, 0.2, 0.15, 0.15, 0.1])
    L = losses.absolute(n)
    res = DesignProblem(privacy=MetricDP(eps, md.neighbors.line_distance(n)),
                        objective=ExpectedLoss(L, prior)).solve()
    TG = md.catalog.truncated_geometric(n, eps).matrix
    G = cp.Variable((n, n), nonneg=True)  # the remap, an independent small LP
    remap = cp.Problem(cp.Minimize(cp.sum(cp.multiply(prior[:, None] * L, TG @ G))),
                       [cp.sum(G, axis=1) == 1])
    remap.solve(solver="CLARABEL")
    assert res.value == pytest.approx(remap.value, rel=1e-6)


def test_worst_case_loss_binary_is_warner():
    res = DesignProblem(privacy=LDP(1.0), objective=WorstCaseLoss(losses.hamming(2))).solve()
    assert res.value == pytest.approx(1 / (1 + math.e), rel=1e-9)


def test_binary_estimation_is_warner():
    res = DesignProblem(privacy=LDP(1.0), objective=EstimationVariance([0.5, 0.5])).solve()
    assert res.value == pytest.approx(2.341347, abs=1e-6)  # docs/formulations.md
    np.testing.assert_allclose(res.mechanism.matrix, md.warner(math.e / (1 + math.e)).matrix,
                               atol=1e-12)


@pytest.mark.parametrize("k,eps,d,value", [(10, 0.5, 4, 127.2172), (20, 1.0, 5, 66.6344)])
def test_uniform_estimation_is_subset_selection(k, eps, d, value):
    res = DesignProblem(privacy=LDP(eps), objective=EstimationVariance(np.full(k, 1 / k))
                        ).solve()
    assert res.structure["d"] == d
    assert res.value == pytest.approx(value, abs=1e-4)
    assert md.estimation.cramer_rao(res.mechanism, np.full(k, 1 / k)).trace == pytest.approx(value,
                                                                                   abs=1e-4)


@pytest.mark.parametrize("k,eps", [(4, 1.0), (5, 0.5)])
def test_general_staircase_matches_symmetric_closed_form(k, eps):
    # the general convex program (uniform prior given through n_outputs so the symmetric
    # shortcut is off) reaches the subset-selection optimum
    obj = EstimationVariance(np.full(k, 1 / k))
    res = DesignProblem(privacy=LDP(eps), objective=obj, n_outputs=2 ** k).solve()
    best = symmetric_estimation_value(k, np.arange(1, k), eps).min()
    assert res.formulation.startswith("staircase convex")
    assert res.value == pytest.approx(best, rel=1e-5)
    assert res.value >= best * (1 - 1e-9)  # the returned matrix cannot beat the optimum


def test_symmetric_estimation_at_k_1000_is_fast_and_analytic():
    res = DesignProblem(privacy=LDP(1.0), objective=EstimationVariance(np.full(1000, 1e-3))
                        ).solve()
    d = res.structure["d"]
    assert res.value == pytest.approx(float(symmetric_estimation_value(1000, d, 1.0)))
    assert res.solve_time < 1.0
    with pytest.raises(SizeLimitError, match="subset_selection"):
        res.mechanism  # noqa: B018


def test_binary_mutual_information_is_binary_rr():
    eps = 1.0
    res = DesignProblem(privacy=LDP(eps), objective=MutualInformation([0.5, 0.5])).solve()
    p = math.exp(eps) / (1 + math.exp(eps))
    h = -(p * math.log(p) + (1 - p) * math.log(1 - p))
    assert res.value == pytest.approx(math.log(2) - h, rel=1e-9)


def test_warner_is_optimal_among_evidential_mechanisms_under_sldp():
    # Li et al. 2022 s.6 / issue 4 item 5: all messages allowed, "don't know" included
    for eps in (0.5, 1.0, 2.0):
        res = DesignProblem(privacy=SLDP(eps), objective=EstimationVariance([0.3, 0.7]),
                            inputs=["P", "notP"], outputs=["Yes", "No"]).solve()
        m = res.mechanism
        dk = m.focal_sets.index(frozenset({"Yes", "No"}))
        assert m.masses[:, dk].max() == 0.0
        p = math.exp(eps) / (1 + math.exp(eps))
        np.testing.assert_allclose(m.masses[:, :2], md.warner(p).matrix, atol=1e-12)
        assert res.optimum == "global"


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


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 4), st.integers(0, 1000), st.floats(0.1, 3.0))
def test_optimum_is_monotone_in_epsilon(k, seed, eps):
    L = np.random.default_rng(seed).random((k, k))
    lo = DesignProblem(privacy=LDP(eps), objective=ExpectedLoss(L)).solve().value
    hi = DesignProblem(privacy=LDP(eps * 1.5), objective=ExpectedLoss(L)).solve().value
    assert hi <= lo + 1e-9


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


def test_warner_is_optimal_under_wldp_with_walley_reading():
    # Li et al. 2022 s.6 with Walley's semantics: the worst completion is judged; every
    # completion of an eps-WLDP mechanism is eps-LDP, so Warner (no "don't know") is optimal.
    for eps in (0.5, 1.0, 2.0):
        res = DesignProblem(privacy=WLDP(eps), objective=EstimationVariance([0.3, 0.7]),
                            inputs=["P", "notP"], outputs=["Yes", "No"],
                            semantics="walley").solve()
        m = res.mechanism
        assert m.is_bayesian and md.epsilon_wldp(m) <= eps + 1e-9
        p = math.exp(eps) / (1 + math.exp(eps))
        np.testing.assert_allclose(m.as_bayesian_mechanism().matrix, md.warner(p).matrix,
                                   atol=1e-12)
        # no Q_2x3 with the same WLDP budget does better in its worst completion:
        # eps_W = ln((1-q)/q) = eps fixes q, and p <= 1 - q
        q = 1 / (1 + math.exp(eps))
        for p in np.linspace(0.5, 1 - q, 6)[1:]:
            assert md.epsilon_wldp(md.dont_know(p, q)) <= eps + 1e-9
            worst = md.q_lambda(p, q, 0.0)  # Q_0: every "don't know" read as a lie
            assert md.estimation.cramer_rao(worst, [0.3, 0.7]).trace >= res.value - 1e-9


# ---- Warner's optimality checked by sampling, independently of the designer's reductions
def _pl_bel_log_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``ln max_{x, x', E} num[x, E] / den[x', E]`` per mechanism (``num = 0``: ignored;
    ``num > 0 = den``: inf), for batches ``(r, 2, events)``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = num[:, :, None, :] / den[:, None, :, :]
    r = np.where(num[:, :, None, :] == 0, 0.0, r)
    with np.errstate(divide="ignore"):
        return np.log(r.reshape(len(num), -1).max(axis=1))


def _epsilon_wldp_2x3(M: np.ndarray) -> np.ndarray:
    """md.epsilon_wldp of a batch of 2x3 masses over {Yes}, {No}, {Yes, No}: the events
    {Yes} and {No} (pl = m(E) + m(DK), bel = m(E)); {Yes, No} has ratio 1."""
    pl = np.stack([M[..., 0] + M[..., 2], M[..., 1] + M[..., 2]], axis=-1)
    return _pl_bel_log_ratio(pl, M[..., :2])


def _epsilon_sldp_2x3(M: np.ndarray) -> np.ndarray:
    """md.epsilon_sldp (mass) of a batch: the LDP epsilon over the three messages."""
    return _pl_bel_log_ratio(M, M)


def _estimation_variance_2_inputs(Q: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """EstimationVariance(prior).evaluate for a batch of 2-input matrices ``(r, 2, m)``:
    on the tangent direction u = (1, -1)/sqrt 2, u^T I u = sum_y (Q0y - Q1y)^2 / (2 lam_y),
    so trace CR = 2 / sum_y (Q0y - Q1y)^2 / lam_y (inf without information)."""
    lam = np.einsum("x,rxy->ry", prior, Q)
    with np.errstate(divide="ignore", invalid="ignore"):
        info = np.where(lam > 0, (Q[:, 0] - Q[:, 1]) ** 2 / lam, 0.0).sum(axis=1)
        return np.where(info > 0, 2.0 / info, np.inf)


def _random_2x3(rng: np.random.Generator, size: int, eps: float) -> np.ndarray:
    """Mass functions (size, 2, 3) over {Yes}, {No}, {Yes, No}: a third Dirichlet rows
    (concentration 1, 5 or 20), a third (DK mass d = U^2, the rest split U : 1 - U), a third
    mixtures (1 - t) W + t R with the embedded Warner W at eps and t = U^3 (near the optimum,
    most with some "don't know" mass); a few entries set to 0 exactly."""
    third = size // 3
    a = rng.choice([1.0, 5.0, 20.0], size=(third, 1, 1))
    A = rng.gamma(np.broadcast_to(a, (third, 2, 3)))
    A /= A.sum(axis=-1, keepdims=True)
    d = rng.uniform(0, 1, (third, 2)) ** 2
    u = rng.uniform(0, 1, (third, 2))
    B = np.stack([(1 - d) * u, (1 - d) * (1 - u), d], axis=-1)
    p = math.exp(eps) / (1 + math.exp(eps))
    W = np.array([[p, 1 - p, 0.0], [1 - p, p, 0.0]])
    R = np.concatenate([A, B])[rng.integers(0, 2 * third, size - 2 * third)]
    t = rng.uniform(0, 1, (size - 2 * third, 1, 1)) ** 3
    M = np.concatenate([A, B, (1 - t) * W + t * R])
    zero = rng.random(size) < 0.02  # some exact zeros (infinite or unchanged ratios)
    M[zero, rng.integers(0, 2, zero.sum()), rng.integers(0, 3, zero.sum())] = 0.0
    return M / M.sum(axis=-1, keepdims=True)


def test_vectorised_2x3_measures_agree_with_the_library():
    rng = np.random.default_rng(1)
    M = _random_2x3(rng, 300, 1.0)
    ev = [md.EvidentialMechanism(m, FOCAL_YN, outputs=("Yes", "No")) for m in M]
    np.testing.assert_allclose(_epsilon_wldp_2x3(M), [md.epsilon_wldp(e) for e in ev],
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_epsilon_sldp_2x3(M), [md.epsilon_sldp(e) for e in ev],
                               rtol=1e-12, atol=1e-12)
    assert np.isinf(_epsilon_wldp_2x3(M)).any() and np.isinf(_epsilon_sldp_2x3(M)).any()
    obj = EstimationVariance([0.3, 0.7])
    prior = np.array([0.3, 0.7])
    for Q in (M[:40], M[:40, :, :2] + M[:40, :, 2:] * np.array([0.3, 0.7])):
        np.testing.assert_allclose(_estimation_variance_2_inputs(Q, prior),
                                   [obj.evaluate(q) for q in Q], rtol=1e-9)


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_no_random_wldp_mechanism_beats_warner_in_its_worst_completion(eps):
    # Independent of DesignProblem._solve_walley (which reduces to LDP over the outputs):
    # 20,000 random 2x3 evidential mechanisms, those with exact WLDP epsilon <= eps kept;
    # their worst completion (the objective of semantics="walley": EstimationVariance
    # evaluated on the completed 2x2 matrix, maximised over the completions) is bounded
    # below by the max over the completions Q_lambda (each "don't know" read as Yes with
    # probability lambda, lambda on a grid); that bound is never below Warner's value.
    rng = np.random.default_rng(20_000 + int(10 * eps))
    prior = np.array([0.3, 0.7])
    obj = EstimationVariance(prior)
    warner = obj.evaluate(md.warner(math.exp(eps) / (1 + math.exp(eps))).matrix)
    res = DesignProblem(privacy=WLDP(eps), objective=obj, inputs=["P", "notP"],
                        outputs=["Yes", "No"], semantics="walley").solve()
    assert res.value == pytest.approx(warner, rel=1e-9)
    M = _random_2x3(rng, 20_000, eps)
    M = M[_epsilon_wldp_2x3(M) <= eps]
    dont_know = M[:, :, 2].max(axis=1) > 0.01
    assert len(M) > 1000 and dont_know.sum() > 500  # the claim is tested, not vacuous
    worst = np.max([_estimation_variance_2_inputs(
        M[:, :, :2] + M[:, :, 2:] * np.array([lam, 1 - lam]), prior)
        for lam in np.linspace(0, 1, 21)], axis=0)
    assert worst.min() >= warner * (1 - 1e-9)
    assert worst[dont_know].min() > warner  # "don't know" mass strictly costs


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_no_random_sldp_mechanism_beats_warner(eps):
    # The same under Shafer's reading (SLDP, mass): the objective is EstimationVariance of
    # the 2x3 matrix over the messages; no sampled eps-SLDP mechanism is below Warner.
    rng = np.random.default_rng(30_000 + int(10 * eps))
    prior = np.array([0.3, 0.7])
    warner = EstimationVariance(prior).evaluate(
        md.warner(math.exp(eps) / (1 + math.exp(eps))).matrix)
    M = _random_2x3(rng, 20_000, eps)
    M = M[_epsilon_sldp_2x3(M) <= eps]
    dont_know = M[:, :, 2].max(axis=1) > 0.01
    assert len(M) > 1000 and dont_know.sum() > 500
    value = _estimation_variance_2_inputs(M, prior)
    assert value.min() >= warner * (1 - 1e-9)
    assert value[dont_know].min() > warner


def test_dont_know_messages_carry_information_under_wldp_shafer_reading():
    # Under Shafer's reading (messages observed) WLDP does not protect the message itself:
    # a mechanism whose "don't know" comes from one input only is 1-WLDP and beats Warner.
    m = md.EvidentialMechanism([[0.26894142, 0.26894142, 0.46211716],
                                [0.73105858, 0.26894142, 0.0]], FOCAL_YN,
                               outputs=("Yes", "No"))
    assert md.epsilon_wldp(m) <= 1.0 + 1e-6
    assert md.epsilon_sldp(m) == math.inf
    warner = md.estimation.cramer_rao(md.warner(math.e / (1 + math.e)), [0.3, 0.7]).trace
    assert md.estimation.cramer_rao(m.to_mechanism(), [0.3, 0.7]).trace < warner


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


def test_uniform_estimation_returns_the_structured_optimum_at_any_k():
    # k = 100, eps = 1: subset selection with d = 27, value 360.94 (Ye & Barg's risk); the
    # matrix has C(100, 27) columns, the oracle samples and estimates, its exact variance
    # is the reported value and its exact epsilon the certificate
    res = DesignProblem(privacy=LDP(1.0), objective=EstimationVariance(np.full(100, 0.01))
                        ).solve()
    oracle = res.oracle
    assert (oracle.k, oracle.d, oracle.epsilon) == (100, 27, 1.0)
    assert res.value == pytest.approx(360.9434851840938, rel=1e-12)
    assert oracle.total_variance() == pytest.approx(res.value, rel=1e-12)
    assert res.certificate.achieved == oracle.epsilon_exact <= 1.0
    assert res.summary()["oracle"] == {"kind": "oracle", "family": "subset_selection",
                                       "k": 100, "epsilon": 1.0, "d": 27}
    x = np.arange(2000) % 100
    est = oracle.estimate(oracle.sample(x, rng=0))
    assert abs(est.sum() - 1.0) < 0.2  # sum of 100 unbiased estimates of 0.01
    # small k: the matrix and the same oracle
    small = DesignProblem(privacy=LDP(1.0), objective=EstimationVariance(np.full(6, 1 / 6))
                          ).solve()
    assert small.oracle.d == small.structure["d"]
    assert small.mechanism.n_outputs == math.comb(6, small.oracle.d)
    general = DesignProblem(privacy=LDP(1.0), objective=EstimationVariance([0.2, 0.3, 0.5])
                            ).solve()
    with pytest.raises(md.DesignError, match="not a structured family"):
        general.oracle  # noqa: B018


# ------------------------------------------------------------------ Hamming loss in closed form
@pytest.mark.parametrize("k, eps", [(2, 0.3), (3, 1.0), (7, 2.5)])
def test_hamming_loss_is_answered_by_krr_in_closed_form(k, eps):
    # value (k-1)/(e^eps+k-1) (Kairouz, Oh & Viswanath 2016); the same optimum as the LP
    # when a solver is named (which builds and solves the program); scale and shift kept
    loss = 2.0 * losses.hamming(k) + 0.5
    closed = DesignProblem(privacy=LDP(eps), objective=ExpectedLoss(loss)).solve()
    lp = DesignProblem(privacy=LDP(eps), objective=ExpectedLoss(loss)).solve(solver="HIGHS")
    assert closed.solver == "closed form" and lp.solver != "closed form"
    ref = 0.5 + 2.0 * (k - 1) / (math.exp(eps) + k - 1)
    assert closed.value == pytest.approx(ref, rel=1e-12) and closed.gap == 0.0
    assert lp.value == pytest.approx(ref, rel=1e-8)
    assert str(closed.status) == "optimal" and closed.certificate.met
    assert md.epsilon_ldp(closed.mechanism) <= eps
    worst = DesignProblem(privacy=LDP(eps), objective=WorstCaseLoss(loss)).solve()
    assert worst.solver == "closed form" and worst.value == pytest.approx(ref, rel=1e-12)


def test_hamming_loss_at_k_5000_is_the_structured_krr():
    # refused before (the program's memory); the optimum is k-RR in closed form
    k, eps = 5000, 1.0
    res = DesignProblem(privacy=LDP(eps), objective=ExpectedLoss(losses.hamming(k))).solve()
    assert res.value == pytest.approx((k - 1) / (math.e + k - 1), rel=1e-12)
    assert res.oracle.k == k and res.oracle.epsilon_exact <= eps
    with pytest.raises(md.errors.SizeLimitError):
        _ = res.mechanism


def test_a_skewed_prior_is_not_the_hamming_closed_form():
    # k-RR is optimal at the uniform prior only: a skewed prior collapses outputs (here 0.5,
    # always answering the likeliest input beats k-RR's 0.665 at eps = 0.7)
    res = DesignProblem(privacy=LDP(0.7), objective=ExpectedLoss(
        losses.hamming(5), prior=[0.5, 0.2, 0.1, 0.1, 0.1])).solve()
    assert res.solver != "closed form" and res.value == pytest.approx(0.5, rel=1e-7)
