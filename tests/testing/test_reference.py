"""The naive reference LP of the fuzz harness (:mod:`mechdesign.testing.reference`), checked
against closed forms: k-RR's Hamming optimum (Kairouz, Oh and Viswanath 2016) under pure,
approximate (delta = 0) and metric LDP, deletion LDP's 2 e^-eps / 3 at k = 3, and the leaky
randomized response under approximate LDP; the notion facet it is read through is checked
by tests/privacy/test_notion_registry.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mechdesign.design import DesignProblem, ExpectedLoss
from mechdesign.privacy import LDP, ApproxLDP, DeletionLDP, MetricDP
from mechdesign.testing.cases import Built, Case
from mechdesign.testing.reference import REF_MARGINS, reference_lp


def test_reference_lp_matches_closed_forms():
    # two methods agree: k-RR is optimal for the Hamming loss under a uniform prior,
    # value (k - 1)/(e^eps + k - 1) (KOV16); under deletion LDP (delta = 0) the closed form
    # 2 e^-eps / 3 for k = 3 (every off-diagonal entry is at least e^-eps r_y, r uniform)
    H = 1.0 - np.eye(3)
    for notion, kind, expected in (
            (LDP(1.0), "ldp", 2 / (math.e + 2)),
            (ApproxLDP(1.0, 0.0), "approx_ldp", 2 / (math.e + 2)),
            (DeletionLDP(1.0), "deletion_ldp", 2 * math.exp(-1.0) / 3),
            (MetricDP(1.0, H), "metric_matrix", 2 / (math.e + 2))):
        case = Case(kind, "expected_loss", 3, 3, 1.0, 0.0, 0)
        prob = DesignProblem(privacy=notion, objective=ExpectedLoss(H))
        ref = reference_lp(case, Built(prob, notion, 3, H, np.full(3, 1 / 3)))
        assert ref.status == "verified" and ref.margin == REF_MARGINS[0][0]
        assert ref.value == pytest.approx(expected, rel=1e-6)
        wc = reference_lp(Case(kind, "worst_case_loss", 3, 3, 1.0, 0.0, 0),
                          Built(prob, notion, 3, H, None))
        assert wc.value == pytest.approx(expected, rel=1e-6)  # k-RR: every row equal
    # approximate LDP: RR(eps) mixed towards the truth; binary, Hamming, uniform prior:
    # the optimum is (1 - delta) / (1 + e^eps) (Kairouz et al. 2015, the leaky RR)
    H2 = 1.0 - np.eye(2)
    prob = DesignProblem(privacy=ApproxLDP(1.0, 0.1), objective=ExpectedLoss(H2))
    ref = reference_lp(Case("approx_ldp", "expected_loss", 2, 2, 1.0, 0.1, 0),
                       Built(prob, prob.privacy, 2, H2, np.full(2, 0.5)))
    assert ref.status == "verified"
    assert ref.value == pytest.approx(0.9 / (1 + math.e), rel=1e-6)
