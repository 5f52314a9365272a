"""Information objectives by the staircase programs
(:mod:`mechdesign.design.methods.staircase_programs`).

Pinned: the programs' optima against closed forms (binary mutual information is binary
randomized response, ln 2 - h(p); binary estimation at epsilon 30 is Warner's mechanism;
the general program reaches the symmetric subset-selection optimum when the outputs are
given); Warner's mechanism is optimal among all evidential mechanisms under SLDP (Li et al.
2022); epsilons above the programs' limit are refused by name; ``fit_columns`` pads the
staircase columns onto given outputs, places them on singleton messages first by the
input where they peak, and refuses too few; an optimum needing more outputs than allowed
is solved locally, never better than the staircase optimum.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechdesign as md
from mechdesign.design import (
    DesignProblem,
    EstimationVariance,
    MutualInformation,
)
from mechdesign.design.engines.staircase import symmetric_estimation_value
from mechdesign.design.methods.staircase_programs import fit_columns
from mechdesign.privacy import LDP, SLDP
from tests.design.references import assert_certified

FOCAL_YN = [frozenset({"Yes"}), frozenset({"No"}), frozenset({"Yes", "No"})]


def test_fit_columns_keeps_pads_or_refuses_ordinary_outputs():
    Q = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])
    free = DesignProblem(LDP(1.0), MutualInformation([0.5, 0.5]))
    assert fit_columns(free, Q) is Q  # the staircase's own outputs
    wide = DesignProblem(LDP(1.0), MutualInformation([0.5, 0.5]), n_outputs=5)
    np.testing.assert_array_equal(fit_columns(wide, Q), np.hstack([Q, np.zeros((2, 2))]))
    narrow = DesignProblem(LDP(1.0), MutualInformation([0.5, 0.5]), n_outputs=2)
    assert fit_columns(narrow, Q) is None


def test_fit_columns_puts_columns_on_singleton_messages_by_their_peak():
    # messages {Yes}, {No}, {Yes, No}: singletons first; the column peaking at input 0
    # goes first, the one peaking at input 1 second, "don't know" gets nothing
    spec = DesignProblem(SLDP(1.0), EstimationVariance([0.3, 0.7]), inputs=["P", "notP"],
                         outputs=["Yes", "No"], focal_sets=FOCAL_YN)
    Q = np.array([[0.2, 0.8], [0.9, 0.1]])
    np.testing.assert_array_equal(fit_columns(spec, Q), [[0.8, 0.2, 0.0], [0.1, 0.9, 0.0]])
    too_many = np.full((2, 4), 0.25)
    assert fit_columns(spec, too_many) is None


def test_an_optimum_needing_more_outputs_is_solved_locally():
    # mutual information at k = 3, eps = 1.5: the staircase optimum uses 3 outputs; with 2
    # allowed the local method answers, never better than the staircase optimum
    prior = np.array([0.5, 0.3, 0.2])
    free = DesignProblem(LDP(1.5), MutualInformation(prior)).solve()
    assert free.mechanism.n_outputs == 3
    res = DesignProblem(LDP(1.5), MutualInformation(prior), n_outputs=2).solve()
    assert res.optimum == "local" and res.certificate.met
    assert any("needs 3 outputs but only 2 are allowed: solved locally" in n for n in res.notes)
    assert res.value <= free.value * (1 + 1e-9)
    assert md.epsilon_ldp(res.mechanism) <= 1.5


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


@pytest.mark.parametrize("objective", [md.EstimationVariance([0.3, 0.7]),
                                       md.MutualInformation([0.3, 0.7])])
@pytest.mark.parametrize("eps", [31.0, 800.0, 1e6])
def test_staircase_programs_refuse_epsilons_above_their_limit(objective, eps):
    # FINDING: LDP(800) with EstimationVariance and LDP(1e6) with MutualInformation raised
    # OverflowError (and the MI LP failed from eps = 35, estimation from 100)
    with pytest.raises(md.InvalidParameterError, match=r"above 30, the largest"):
        md.DesignProblem(md.LDP(eps), objective).solve()


def test_staircase_programs_at_their_limit_are_warner():
    # binary estimation: Warner with p = e^eps / (1 + e^eps) is optimal (any eps)
    res = md.DesignProblem(md.LDP(30.0), md.EstimationVariance([0.3, 0.7])).solve()
    assert_certified(res, md.LDP(30.0))
    p = 1 / (1 + math.exp(-30.0))
    np.testing.assert_allclose(res.mechanism.matrix, md.warner(p).matrix, atol=1e-12)
