"""Design for a central target in the shuffle model (``design.methods.shuffled``).

Sources: the clone bound (``shuffle_delta``) and its calibration (``calibrate_shuffle``),
k-RR's optimality for the Hamming loss (Kairouz, Oh and Viswanath 2016), and the exact
shuffle (``exact_shuffle_delta``) at small n.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechdesign as md
from mechdesign.accounting.amplification import shuffle_delta
from mechdesign.accounting.calibration import calibrate_shuffle
from mechdesign.accounting.exact_shuffling import exact_shuffle_delta
from mechdesign.accounting.notions import Shuffled
from mechdesign.design.result import Method


def test_hamming_design_is_krr_at_the_clone_bounds_epsilon() -> None:
    k, n = 4, 1_000
    res = md.DesignProblem(Shuffled(n, 1.0, 1e-8), md.ExpectedLoss(1 - np.eye(k))).solve()
    eps0 = calibrate_shuffle("epsilon0", target_epsilon=1.0, target_delta=1e-8, n=n).value
    assert res.method is Method.SHUFFLED
    # k-RR's loss (k - 1)/(e^eps0 + k - 1) is the pure-LDP optimum
    assert res.value == pytest.approx((k - 1) / (math.exp(eps0) + k - 1), rel=1e-7)
    assert shuffle_delta(md.epsilon_ldp(res.mechanism), n, 1.0).upper <= 1e-8
    assert res.certificate.met and res.optimum == "local"


def test_small_n_reports_the_exact_shuffle_below_the_bound() -> None:
    res = md.DesignProblem(Shuffled(12, 0.5, 1e-6), md.ExpectedLoss(1 - np.eye(2))).solve()
    exact = exact_shuffle_delta(res.mechanism, 12, 0.5).delta
    assert res.structure["exact_delta"] == pytest.approx(exact, rel=1e-12)
    assert exact <= res.certificate.achieved <= 1e-6
