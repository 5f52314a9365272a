"""Catalog families as frontier baselines (mechdesign.frontier.families)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.frontier.families import (
    comparison_families,
    dont_know_family,
    dont_know_frontier,
    family_frontier,
    family_mechanism,
)
from mechdesign.io.problems import load_problem
from tests.paths import PROBLEMS

EPS = [0.5, 1.0, 2.0]


@pytest.fixture(scope="module")
def yes_no():
    return load_problem(PROBLEMS / "warner_evidential.toml").problem


def test_warner_family_is_the_designed_optimum_under_mass_sldp(yes_no):
    # Li et al. 2022: Warner is optimal among 2x3 evidential mechanisms under mass SLDP;
    # trace of the Cramer-Rao matrix 2 (pi (1 - pi) + e^eps / (e^eps - 1)^2), pi = 0.3
    fams = comparison_families(yes_no, EPS)
    closed = [2 * (0.3 * 0.7 + math.exp(e) / math.expm1(e) ** 2) for e in EPS]
    assert fams["Warner (Q_2x3, c = 1)"] == pytest.approx(closed, rel=1e-12)
    designed = [yes_no.with_privacy(md.SLDP(e, kind="mass")).solve().value for e in EPS]
    assert designed == pytest.approx(closed, rel=1e-6)
    for c in (0.9, 0.7, 0.5):  # "don't know" only costs accuracy under the Shafer reading
        assert np.all(fams[f"Q_2x3, c = {c:g}"] > fams["Warner (Q_2x3, c = 1)"])


@pytest.mark.parametrize("kind", ["mass", "pl", "bel"])
@pytest.mark.parametrize("c", [1.0, 0.9, 0.5])
def test_dont_know_family_has_the_asked_privacy(yes_no, kind, c):
    prob = yes_no.with_privacy(md.SLDP(1.0, kind=kind))
    for e in EPS:
        m = dont_know_family(c, e, prob)
        # eps_pl of Q_2x3 grows to ln(1 / (1 - c)) as q -> 0 (docs/belief_functions.md s.4)
        if kind == "pl" and c < 1 and e > math.log(1 / (1 - c)):
            assert m is None
            continue
        assert md.epsilon_sldp(m, kind) == pytest.approx(e, rel=1e-12)
        p, q = m.masses[0, 0], m.masses[0, 1]
        assert p + q == pytest.approx(c, rel=1e-14)
        assert np.array_equal(m.masses[1], m.masses[0][[1, 0, 2]])


def test_dont_know_frontier_is_nan_where_unreachable(yes_no):
    prob = yes_no.with_privacy(md.SLDP(1.0, kind="pl"))
    vals = dont_know_frontier(0.5, prob, [0.5, 1.0])  # ln 2 = 0.69 is the most c = 0.5 reaches
    assert np.isfinite(vals[0]) and np.isnan(vals[1])


def test_ordinary_families_that_fit_a_loss_matrix():
    # k = 3, Hamming loss, uniform prior: k-RR's expected loss is (k - 1) / (e^eps + k - 1);
    # subset selection at d = 1 is k-RR; unary encodings (8 outputs) do not fit the loss
    prob = load_problem(PROBLEMS / "krr_hamming.toml").problem
    fams = comparison_families(prob, [0.5, 1.0])
    assert set(fams) == {"randomized_response", "subset_selection"}
    closed = [2 / (math.exp(e) + 2) for e in (0.5, 1.0)]
    assert fams["randomized_response"] == pytest.approx(closed, rel=1e-12)
    assert fams["subset_selection"] == pytest.approx(closed, rel=1e-12)
    with pytest.raises(InvalidParameterError, match="8 outputs; the objective has 3"):
        family_mechanism("unary_encoding", 3, 1.0, prob.objective)


def test_information_objectives_take_every_family():
    obj = md.EstimationVariance(np.full(4, 0.25))
    for fam in ("randomized_response", "subset_selection", "unary_encoding",
                "optimized_unary_encoding", "hadamard_response"):
        vals = family_frontier(fam, obj, [1.0, 2.0])
        assert np.all(np.isfinite(vals)) and vals[0] > vals[1]  # more privacy, more variance


def test_dont_know_family_refuses_other_problems():
    prob = load_problem(PROBLEMS / "krr_hamming.toml").problem
    with pytest.raises(InvalidParameterError, match="2 inputs, 2 outputs"):
        dont_know_family(0.9, 1.0, prob)


def test_under_pl_sldp_dont_know_beats_warner(yes_no):
    # the README's finding: Li et al.'s optimality of Warner is a mass-SLDP statement; matched
    # on eps_pl = ln((1-q)/(1-p)), Q_2x3 with c = 0.9 has a smaller variance than Warner, and
    # the designed pl-SLDP optimum is at least as good as both
    prob = yes_no.with_privacy(md.SLDP(1.0, kind="pl"))
    fams = comparison_families(prob, [0.5, 1.0])
    assert np.all(fams["Q_2x3, c = 0.9"] < fams["Warner (Q_2x3, c = 1)"])
    for e, dk in zip([0.5, 1.0], fams["Q_2x3, c = 0.9"], strict=True):
        designed = prob.with_privacy(md.SLDP(e, kind="pl")).solve().value
        assert designed <= dk * (1 + 1e-6)


def test_families_past_the_matrix_limit_use_the_estimators_exact_variance():
    # k = 40, Zipf prior: unary encodings (2^40 outputs), subset selection (C(40, d)) and
    # local hashing have no matrix; their values are the closed-form estimator variances
    # (checked against the oracles' materialised covariance in tests/oracles); k-RR and
    # Hadamard response still use their matrices' Cramer-Rao value
    from mechdesign.frontier.families import compare_families
    from mechdesign.oracles import LocalHashing, UnaryEncoding

    k = 40
    prior = 1.0 / np.arange(1, k + 1) ** 1.1
    prob = md.DesignProblem(privacy=md.LDP(1.0), objective=md.EstimationVariance(
        prior / prior.sum()))
    got = compare_families(prob, [1.0, 2.0])
    assert set(got.values) == {"randomized_response", "subset_selection", "unary_encoding",
                               "optimized_unary_encoding", "hadamard_response",
                               "local_hashing"}
    assert set(got.notes) == {"subset_selection", "unary_encoding",
                              "optimized_unary_encoding", "local_hashing"}
    f = prob.objective.prior
    np.testing.assert_allclose(got.values["optimized_unary_encoding"],
                               [UnaryEncoding(k, e, optimized=True).total_variance(f)
                                for e in (1.0, 2.0)], rtol=1e-12)
    np.testing.assert_allclose(got.values["local_hashing"],
                               [LocalHashing(k, e).total_variance(f) for e in (1.0, 2.0)],
                               rtol=1e-12)
    # Wang et al.: OUE and OLH have about the same variance, both far below k-RR at k = 40
    oue, olh = got.values["optimized_unary_encoding"], got.values["local_hashing"]
    assert np.all(np.abs(olh / oue - 1) < 0.1)
    assert np.all(got.values["randomized_response"] > oue)
    # the closed form never claims less than the family's Cramer-Rao value: at k = 10
    # (matrix available) the estimator variance is above the matrix's value
    small = md.EstimationVariance(np.full(10, 0.1))
    for fam in ("unary_encoding", "hadamard_response"):
        cr = family_frontier(fam, small, [1.0])[0]
        from mechdesign.frontier.families import estimator_variance

        assert estimator_variance(fam, small, 1.0) >= cr * (1 - 1e-12)


def test_family_left_out_with_a_note_not_an_abort():
    # mutual information at k = 16 (a loss-free objective that needs the matrix): unary
    # encodings (2^16 outputs) cannot be evaluated and are left out with a note
    from mechdesign.frontier.families import compare_families

    prob = md.DesignProblem(privacy=md.LDP(1.0), objective=md.MutualInformation(
        np.full(16, 1 / 16)))
    got = compare_families(prob, [1.0])
    assert "unary_encoding" not in got.values and "too many" in got.notes["unary_encoding"]
    assert "randomized_response" in got.values
