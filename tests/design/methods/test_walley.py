"""WLDP read by Walley (:mod:`mechdesign.design.methods.walley`): the pure-LDP problem over
the outputs, embedded on the singleton messages.

Pinned: Warner's mechanism is optimal, with no "don't know" mass, and no 2x3 mechanism of
the same WLDP budget does better in its worst completion: checked by the design against
Warner's closed form, and independently of the reduction on 20,000 random evidential
mechanisms measured by vectorised measures that agree with the library's (the same under
Shafer's SLDP reading, while under Shafer's WLDP reading a "don't know" message can carry
information); a user constraint reaches the inner problem (the same optimum as that LDP
problem solved directly); the repair of fuzz seed 144 keeps the masses on the singletons.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechdesign as md
from mechdesign.design import DesignProblem, EstimationVariance
from mechdesign.privacy import LDP, WLDP
from mechdesign.privacy.verify import verify_exact
from mechdesign.testing.cases import build, case_from_seed

FOCAL_YN = [frozenset({"Yes"}), frozenset({"No"}), frozenset({"Yes", "No"})]


def test_a_user_constraint_reaches_the_inner_ldp_problem():
    # the floor Q[P, Yes] >= 0.8 binds (Warner at eps = 1 has 0.731): the Walley design
    # has the optimum of the same LDP problem over the outputs, solved directly, and its
    # masses meet the floor on the {Yes} message
    prior = [0.3, 0.7]
    floor = {"floor": lambda Q: Q[0, 0] >= 0.8}
    walley = DesignProblem(WLDP(1.0), EstimationVariance(prior), inputs=["P", "notP"],
                           outputs=["Yes", "No"], semantics="walley", constraints=floor).solve()
    inner = DesignProblem(LDP(1.0), EstimationVariance(prior), inputs=["P", "notP"],
                          outputs=["Yes", "No"], constraints=floor).solve()
    assert walley.value == pytest.approx(inner.value, rel=1e-9)
    m = walley.mechanism
    yes = m.focal_sets.index(frozenset({"Yes"}))
    assert m.masses[0, yes] >= 0.8 - 1e-7
    assert m.masses[:, m.focal_sets.index(frozenset({"Yes", "No"}))].max() == 0.0
    assert any("Walley reading" in n for n in walley.notes)
    assert md.epsilon_wldp(m) <= 1.0 + 1e-9


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
    # Independent of methods.walley.solve_walley (which reduces to LDP over the outputs):
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


def test_walley_repair_works_on_the_embedded_masses():
    # seed 144: WLDP read by Walley at eps 1e-3, a custom objective; the inner LDP answer is
    # repaired, and the WLDP repair used to mix the m-column matrix with an n-column row
    built = build(case_from_seed(144))
    res = built.problem.solve(time_limit=60)
    assert res.certificate.met
    mech = res.mechanism
    assert verify_exact(mech, "wldp", built.problem.privacy.epsilon).holds is True
    singles = [j for j, B in enumerate(mech.focal_sets) if len(B) == 1]
    rest = np.delete(mech.masses, singles, axis=1)
    assert np.all(rest == 0.0)  # Walley's optimum sends no "don't know" mass
    np.testing.assert_allclose(mech.masses.sum(axis=1), 1.0, rtol=0, atol=1e-12)
