"""Tests of :mod:`mechdesign.privacy.notions`: the privacy notions as frozen values (their
numpy face: vocabulary, measure, holds, envelope, neutral row) and the registry.

Pinned, each against a value derived by hand from the definitions: the vocabulary of
:meth:`Notion.from_name` and its typed errors; every notion's ``measure`` on Warner's
randomized response and on the "don't know" mechanism of Li et al. (2022); ``holds`` with a
delta target is relative (a delta 500 times the target is refused); the envelopes only
raise entries and meet the notion's ratio bounds (the O(k m) LDP envelope equals the general
O(k^2 m) :func:`ratio_envelope`); WLDP's neutral row is Bayesian, so constant rows of it
measure 0; which notions tie the columns.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.evidential import EvidentialMechanism
from mechdesign.mechanism import Mechanism
from mechdesign.privacy.notions import (
    LDP,
    NAMES,
    REGISTRY,
    SLDP,
    WLDP,
    ApproxLDP,
    DeletionLDP,
    MetricDP,
    Notion,
    notion_of,
    ratio_envelope,
)

LN = math.log
WARNER = md.warner(0.75)  # rows (3/4, 1/4) and (1/4, 3/4)
DK = md.dont_know(0.6, 0.2)  # masses (Yes, No, DK): (.6, .2, .2) and (.2, .6, .2)


# ------------------------------------------------------------------------------ vocabulary
def test_from_name_reads_the_vocabulary():
    # the last two are registered by the accounting layer (privacy.notions.PROVIDERS)
    assert NAMES == ("ldp", "approx_ldp", "deletion_ldp", "metric", "sldp", "wldp",
                     "renyi_ldp", "composed", "shuffled")
    assert set(REGISTRY) <= set(NAMES)
    assert Notion.from_name("ldp", epsilon=1.0) == LDP(1.0)
    # case, blanks and hyphens are forgiven; sldp_<kind> is SLDP of that kind
    assert Notion.from_name(" Approx-LDP ", epsilon=1.0, delta=0.1) == ApproxLDP(1.0, 0.1)
    assert Notion.from_name("sldp_pl", epsilon=2.0) == SLDP(2.0, kind="pl")
    assert Notion.from_name("wldp", epsilon=1.0, delta=None) == WLDP(1.0)  # None: not given
    assert SLDP(1.0, "bel").variant == "sldp_bel" and LDP(1.0).variant == "ldp"
    assert ApproxLDP.parameter_names() == ("epsilon", "delta", "pairs", "graph")


@pytest.mark.parametrize("call, match", [
    (lambda: Notion.from_name("rappor", epsilon=1.0),
     "unknown notion 'rappor'; expected one of ldp, approx_ldp, deletion_ldp, metric, sldp"),
    (lambda: Notion.from_name("ldp", epsilon=1.0, delta=0.1),
     r"delta = 0.1 does not apply to notion 'ldp' \(it takes epsilon\)"),
    (lambda: Notion.from_name("ldp"), "notion 'ldp' needs an epsilon"),
    (lambda: Notion.from_name("metric", epsilon=1.0), "'metric' needs a distance"),
    (lambda: Notion.from_name(3, epsilon=1.0), "a notion name must be a string, got 3"),
    (lambda: notion_of("ldp"), "privacy must be a notion such as md.LDP.*got 'ldp'"),
    (lambda: LDP(-1.0), "-1.0"),
    (lambda: ApproxLDP(1.0, 1.5), "1.5"),
    (lambda: SLDP(1.0, kind="plausibility"), "'plausibility'"),
    (lambda: MetricDP(1.0, np.eye(2), spanner=0.5), "spanner stretch must be >= 1, got 0.5"),
])
def test_bad_notions_are_typed_errors_naming_the_value(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_notion_of_passes_a_notion_through():
    n = DeletionLDP(1.0)
    assert notion_of(n) is n


# ------------------------------------------------------------------------------ measures
def test_measures_of_warner():
    # Warner(3/4): largest ratio 3, so eps_LDP = ln 3. At eps' the hockey stick
    # delta(eps') = max(0, 3/4 - e^eps' / 4): 1/2 at 0, 1/4 at ln 2. Deletion: ln 2 with the
    # reference (1/2, 1/2) (tests/privacy/test_measures.py). Metric with d = 2 between the
    # inputs: ln(3)/2 per unit of distance.
    assert LDP(1.0).measure(WARNER) == pytest.approx(LN(3), abs=1e-12)
    assert ApproxLDP(0.0, 0.1).measure(WARNER) == pytest.approx(0.5, abs=1e-15)
    assert ApproxLDP(LN(2), 0.1).measure(WARNER) == pytest.approx(0.25, abs=1e-15)
    assert ApproxLDP(1.0, 0.0).measure(WARNER) == pytest.approx(LN(3), abs=1e-12)  # epsilon
    assert DeletionLDP(1.0).measure(WARNER) == pytest.approx(LN(2), abs=1e-12)
    D = np.array([[0.0, 2.0], [2.0, 0.0]])
    assert MetricDP(1.0, D).measure(WARNER) == pytest.approx(LN(3) / 2, abs=1e-12)


def test_measures_of_dont_know():
    # masses (.6, .2, .2) and (.2, .6, .2): mass ratio 3; pl({Yes}) = .8 vs .4 (ratio 2);
    # bel({Yes}) = .6 vs .2 (ratio 3); WLDP: pl_Yes({Yes}) / bel_No({Yes}) = .8 / .2 = 4
    assert SLDP(1.0, "mass").measure(DK) == pytest.approx(LN(3), abs=1e-12)
    assert SLDP(1.0, "pl").measure(DK) == pytest.approx(LN(2), abs=1e-12)
    assert SLDP(1.0, "bel").measure(DK) == pytest.approx(LN(3), abs=1e-12)
    assert WLDP(1.0).measure(DK) == pytest.approx(LN(4), abs=1e-12)


def test_holds_at_the_measured_value():
    assert LDP(LN(3)).holds(WARNER) and not LDP(LN(3) - 1e-6).holds(WARNER)
    assert ApproxLDP(LN(2), 0.25).holds(WARNER) and not ApproxLDP(LN(2), 0.2499).holds(WARNER)
    assert WLDP(LN(4)).holds(DK) and not WLDP(LN(3.9)).holds(DK)


def test_a_delta_target_is_met_relatively():
    # rows 5e-10 apart in total variation: delta(0) = 5e-10, 500 times a target of 1e-12
    # (an absolute tolerance of 1e-9 would accept it); the target 5e-10 itself holds
    Q = Mechanism([[0.5 + 5e-10, 0.5 - 5e-10], [0.5, 0.5]])
    assert not ApproxLDP(0.0, 1e-12).holds(Q)
    assert ApproxLDP(0.0, 5e-10).holds(Q)
    assert ApproxLDP(0.0, 1e-12).measures_delta and not ApproxLDP(0.0, 0.0).measures_delta
    assert ApproxLDP(1.0, 1e-12).target == 1e-12 and ApproxLDP(1.0, 0.0).target == 1.0


# ------------------------------------------------------------------------------ repairs
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.floats(0.0, 30.0), st.floats(0.1, 1.0),
       st.integers(0, 10**6))
def test_the_ldp_envelope_is_the_general_ratio_envelope(k, m, eps, aim, seed):
    # LDP.envelope raises entries to e^{-aim eps} x the column maximum in O(k m); the
    # general O(k^2 m) ratio_envelope with log factors aim eps (1 - I) is the second method
    rng = np.random.default_rng(seed)
    Q = rng.dirichlet(np.full(m, 0.3), size=k) * (rng.random((k, m)) > 0.3)
    Q[Q.sum(axis=1) == 0, 0] = 1.0
    Q /= Q.sum(axis=1, keepdims=True)
    general = ratio_envelope(Q, aim * eps * (1.0 - np.eye(k)))
    np.testing.assert_array_equal(LDP(eps).envelope(Mechanism(Q), aim), general)


def assert_ratio_bounds(E: np.ndarray, bound: np.ndarray) -> None:
    """E[x, y] <= e^{bound[x, x']} E[x', y] for every x, x', y (up to rounding)."""
    k = E.shape[0]
    for x in range(k):
        for xp in range(k):
            assert (E[x] <= math.exp(bound[x, xp]) * E[xp] * (1 + 1e-12) + 1e-300).all()


@pytest.mark.parametrize("seed", range(4))
def test_metric_and_relation_envelopes_meet_their_bounds(seed):
    # the least repair that only raises entries: E >= Q, every entry is some Q[z, y]
    # e^{-eps d(z, x)} (d(x, x) = 0), and E meets the notion's bound on every pair
    rng = np.random.default_rng(seed)
    k, m, eps = 5, 4, 0.7
    Q = rng.dirichlet(np.full(m, 0.4), size=k) * (rng.random((k, m)) > 0.25)
    Q[Q.sum(axis=1) == 0, 0] = 1.0
    Q /= Q.sum(axis=1, keepdims=True)
    line = np.abs(np.subtract.outer(np.arange(k), np.arange(k))).astype(float)
    path = ApproxLDP(eps, 0.0, pairs=[(i, i + 1) for i in range(k - 1)])
    for notion in (MetricDP(eps, line), path):
        E = notion.envelope(Mechanism(Q))
        assert (E >= Q).all()
        assert_ratio_bounds(E, eps * line)  # hops on a path are the line distance
        candidates = Q[None, :, :] * np.exp(-eps * line.T)[:, :, None]  # [x, z, y]
        np.testing.assert_allclose(E, candidates.max(axis=1), rtol=1e-15)


def test_notions_without_an_envelope():
    assert ApproxLDP(1.0, 0.1).envelope(WARNER) is None
    assert SLDP(1.0, "pl").envelope(DK) is None
    assert DeletionLDP(1.0).envelope(WARNER) is None
    np.testing.assert_array_equal(SLDP(1.0, "mass").envelope(DK), LDP(1.0).envelope(DK))


def test_wldp_neutral_row_is_bayesian():
    # the "don't know" mass of the mean row is split evenly between Yes and No; a mechanism
    # whose rows all equal that Bayesian row has pl = bel on every event: WLDP epsilon 0,
    # while constant rows with "don't know" mass are not WLDP at any finite epsilon
    r = WLDP(0.5).neutral_row(DK.masses, DK)
    np.testing.assert_allclose(r, [[0.5, 0.5, 0.0]], atol=1e-15)
    same = EvidentialMechanism(np.repeat(r, 2, axis=0), DK.focal_sets)
    assert md.epsilon_wldp(same) == 0.0
    mean_rows = EvidentialMechanism(np.repeat(DK.masses.mean(0, keepdims=True), 2, axis=0),
                                    DK.focal_sets)
    assert md.epsilon_wldp(mean_rows) > 0
    # the other notions' neutral row is the column mean
    np.testing.assert_allclose(LDP(0.5).neutral_row(DK.masses, DK), [[0.4, 0.4, 0.2]])


def test_which_notions_tie_the_columns():
    inputs = (0, 1, 2)
    assert LDP(1.0).ties_columns(inputs)
    assert not ApproxLDP(1.0, 0.1).ties_columns(inputs)
    assert ApproxLDP(1.0, 0.0, pairs=[(0, 1), (1, 2)]).ties_columns(inputs)
    assert not ApproxLDP(1.0, 0.0, pairs=[(0, 1)]).ties_columns(inputs)  # 2 is unconnected
    assert DeletionLDP(1.0).ties_columns(inputs) and not DeletionLDP(1.0, 0.1).ties_columns(
        inputs)
    far = np.array([[0, 1, np.inf], [1, 0, np.inf], [np.inf, np.inf, 0]])
    assert not MetricDP(1.0, far).ties_columns(inputs)
    assert SLDP(1.0, "mass").ties_columns(inputs) and not SLDP(1.0, "pl").ties_columns(inputs)
