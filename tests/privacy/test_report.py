"""Tests of :mod:`mechdesign.privacy.report`: ``privacy_report`` (every applicable measure
of a randomizer as one record), ``skipped_measures`` (what the record leaves out, and why)
and ``ratio`` (e^eps rounded up).

Pinned: the record of the "don't know" mechanism and of Warner's randomized response holds
the hand-derived values (Li et al. 2022; Huang & Canonne's deletion LDP); a small frequency
oracle's record adds its matrix measures to its closed-form epsilon; a non-Bayesian
evidential mechanism over 17 outputs skips exactly the event measures (naming the limit)
while a Bayesian one keeps them at the LDP value; ``ratio`` is an upper bound on e^eps within
a few ulps (against mpmath at 50 digits).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import mechdesign as md
from mechdesign import dont_know, epsilon_deletion, privacy_report, warner
from mechdesign.evidential import EvidentialMechanism
from mechdesign.oracles import RandomizedResponse
from mechdesign.privacy.report import EVENT_MEASURES, ratio, skipped_measures

LN = math.log


def test_privacy_report_collects_the_measures():
    dk = dont_know(0.6, 0.2)
    rep = privacy_report(dk, epsilons=[0.5])
    assert set(rep) == {"epsilon_sldp_mass", "epsilon_sldp_pl", "epsilon_sldp_bel",
                        "epsilon_wldp", "epsilon_ldp", "epsilon_deletion", "delta_ldp@0.5"}
    assert rep["epsilon_wldp"] == pytest.approx(LN(4), abs=1e-12)
    assert rep["epsilon_ldp"] == pytest.approx(LN(3), abs=1e-12)
    w = warner(0.75)
    rep = privacy_report(w, distance=[[0, 1], [1, 0]])
    assert set(rep) == {"epsilon_ldp", "epsilon_deletion", "epsilon_metric"}
    # Warner(.75), deletion: r_y in [e^-eps max_x Q[x,y], e^eps min_x Q[x,y]] = [.75/e^eps,
    # .25 e^eps] and r_0 + r_1 = 1 needs .5 e^eps >= 1: eps = ln 2 with r = [1/2, 1/2]
    # (larger than eps_LDP / 2 = ln(3) / 2)
    assert rep["epsilon_deletion"] == pytest.approx(LN(2), abs=1e-12)
    np.testing.assert_allclose(epsilon_deletion(w).reference, [0.5, 0.5], rtol=0, atol=1e-15)
    assert rep["epsilon_metric"] == pytest.approx(LN(3), abs=1e-12)


def test_a_small_oracle_report_adds_the_matrix_measures():
    o = RandomizedResponse(4, 1.0)
    report = privacy_report(o, [0.5], distance=np.abs(np.subtract.outer(range(4), range(4))))
    plain = privacy_report(o.to_mechanism(), [0.5],
                           distance=np.abs(np.subtract.outer(range(4), range(4))))
    assert set(report) == set(plain)
    assert report["epsilon_deletion"] == plain["epsilon_deletion"]
    assert report["epsilon_metric"] == plain["epsilon_metric"]
    assert report["epsilon_ldp"] == o.epsilon_exact <= plain["epsilon_ldp"]
    assert skipped_measures(o) == {}


def test_event_measures_of_a_large_non_bayesian_mechanism_are_skipped():
    # two messages, all 17 outputs and {0}, with masses (3/4, 1/4) and (1/4, 3/4): the mass
    # ratio is 3 and the deletion epsilon that of Warner(3/4), ln 2; pl, bel and WLDP would
    # enumerate 2^17 events
    ev = EvidentialMechanism([[0.75, 0.25], [0.25, 0.75]], [set(range(17)), {0}])
    skipped = skipped_measures(ev)
    assert set(skipped) == set(EVENT_MEASURES)
    assert all("2^17 events" in why and "limited to 16 outputs" in why
               for why in skipped.values())
    rep = privacy_report(ev)
    assert set(rep) == {"epsilon_sldp_mass", "epsilon_ldp", "epsilon_deletion"}
    assert rep["epsilon_sldp_mass"] == pytest.approx(LN(3), abs=1e-12)
    assert rep["epsilon_deletion"] == pytest.approx(LN(2), abs=1e-12)


def test_a_large_bayesian_mechanism_keeps_its_event_measures():
    # k-RR read as an evidential mechanism: pl = bel = the probability of an event, whose
    # largest ratio between two inputs is at a singleton, e^eps: every measure is eps
    ev = EvidentialMechanism.from_mechanism(md.randomized_response(17, 1.0))
    assert skipped_measures(ev) == {}
    rep = privacy_report(ev)
    for name in ("epsilon_sldp_mass", *EVENT_MEASURES, "epsilon_ldp"):
        assert rep[name] == pytest.approx(1.0, rel=1e-12), name


@pytest.mark.parametrize("eps", [0.0, 1e-300, 1e-9, LN(3), 1.0, 20.0, 709.0])
def test_ratio_is_e_to_the_epsilon_rounded_up(eps):
    with mpmath.workdps(50):
        exact = mpmath.exp(mpmath.mpf(eps))
        r = ratio(eps)
        assert mpmath.mpf(r) >= exact
        assert r <= math.nextafter(math.nextafter(float(exact), math.inf), math.inf)


def test_ratio_of_infinity_and_overflow():
    assert ratio(math.inf) == math.inf
    assert ratio(710.0) == math.inf  # e^710 is above the largest double
