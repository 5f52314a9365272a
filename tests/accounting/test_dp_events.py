"""mechdesign mechanisms as dp_accounting events, cross-checked with its RDP accountant.

dp-accounting (a test-only extra, version 0.6.0) parameterises k-ary randomized response by
a noise probability p: the input bucket w.p. ``1 - p``, a uniform bucket otherwise, so
k-RR(eps) (diagonal ``e^eps/(e^eps + k - 1)``) is ``p = k/(e^eps + k - 1)``. Its RDP for a
pair of replaced inputs needs ``NeighborRel.REPLACE_ONE``. Its epsilon is the conversion
of Canonne, Kamath and Steinke (their ``compute_epsilon``), with a KL shortcut to 0.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

import mechdesign as md
from mechdesign.accounting import (
    epsilon_composed,
    randomized_response_noise,
    rdp_to_dp,
    renyi_curve,
    renyi_epsilon,
    to_dp_event,
    zcdp_rho,
)
from mechdesign.errors import InvalidMechanismError, MissingDependencyError

ORDERS = [1.25, 1.5, 2.0, 3.0, 5.0, 8.0, 16.0, 64.0, 256.0, 1024.0]


@pytest.fixture
def dpa():
    """The dp_accounting modules (skipped, not failed, where the extra is absent)."""
    pytest.importorskip("dp_accounting")
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant as rdp
    return dp_event, rdp


def _accountant(rdp, orders=ORDERS):
    return rdp.RdpAccountant(orders=orders,
                             neighboring_relation=rdp.NeighborRel.REPLACE_ONE)


def test_missing_package_is_a_typed_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "dp_accounting", None)  # import fails
    with pytest.raises(MissingDependencyError, match="dp_accounting") as err:
        to_dp_event(md.randomized_response(3, 1.0))
    assert isinstance(err.value, ImportError)


@pytest.mark.parametrize("k, eps", [(2, 0.1), (2, 3.0), (3, 1.0), (10, 0.5), (10, 5.0)])
def test_randomized_response_event_and_its_rdp(dpa, k, eps):
    dp_event, rdp = dpa
    m = md.randomized_response(k, eps)
    event = to_dp_event(m)
    assert isinstance(event, dp_event.RandomizedResponseDpEvent)
    assert event.num_buckets == k
    assert event.noise_parameter == pytest.approx(k / (math.exp(eps) + k - 1), rel=1e-12)
    # their RDP at each order, read through their public conversion with a single order
    # (eps = r + ln(1 - 1/a) - ln(delta a)/(a - 1) at delta small enough to skip the KL
    # shortcut), against renyi_epsilon
    delta = 1e-10
    for a in ORDERS:
        acc = _accountant(rdp, [a])
        acc.compose(event)
        theirs = acc.get_epsilon(delta) - math.log1p(-1 / a) + math.log(delta * a) / (a - 1)
        ours = renyi_epsilon(m, a)
        assert theirs == pytest.approx(ours, rel=1e-9, abs=1e-12), a
    # the same conversion on the same curve gives the same epsilon
    acc = _accountant(rdp)
    acc.compose(event, 50)
    ours = rdp_to_dp(50 * renyi_curve(m, ORDERS).epsilons, ORDERS, 1e-6).epsilon
    assert acc.get_epsilon(1e-6) == pytest.approx(ours, rel=1e-9)


@pytest.mark.parametrize("k, eps, uses", [(2, 0.1, 1000), (3, 1.0, 50), (10, 2.0, 20)])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-10])
def test_accountant_is_above_the_exact_composition(dpa, k, eps, uses, delta):
    _, rdp = dpa
    m = md.randomized_response(k, eps)
    acc = _accountant(rdp)
    acc.compose(to_dp_event(m, uses))  # SelfComposedDpEvent
    exact = epsilon_composed(m, delta, uses).epsilon
    assert acc.get_epsilon(delta) >= exact - 1e-9


def test_relabelled_outputs_are_still_randomized_response(dpa):
    dp_event, _ = dpa
    m = md.randomized_response(4, 1.0)
    perm = m.matrix[:, [2, 0, 3, 1]]
    assert randomized_response_noise(perm) == randomized_response_noise(m)
    assert isinstance(to_dp_event(perm), dp_event.RandomizedResponseDpEvent)
    assert randomized_response_noise(md.warner(0.25)) == pytest.approx(0.5)  # 2 x 0.25


def test_special_events(dpa):
    dp_event, rdp = dpa
    assert isinstance(to_dp_event([[0.3, 0.7], [0.3, 0.7]]), dp_event.NoOpDpEvent)
    leaky = md.Mechanism([[0.5, 0.4, 0.1], [0.3, 0.7, 0.0]])
    event = to_dp_event(leaky)
    assert isinstance(event, dp_event.NonPrivateDpEvent)
    assert renyi_epsilon(leaky, 2.0) == math.inf
    acc = _accountant(rdp)
    acc.compose(event)
    assert acc.get_epsilon(1e-6) == math.inf


def test_general_matrix(dpa):
    dp_event, rdp = dpa
    m = md.Mechanism([[0.5, 0.3, 0.2], [0.1, 0.3, 0.6], [0.2, 0.5, 0.3]])
    assert randomized_response_noise(m) is None
    with pytest.raises(InvalidMechanismError, match="no event for a general finite"):
        to_dp_event(m)
    event = to_dp_event(m, zcdp=True)
    assert isinstance(event, dp_event.ZCDpEvent)
    assert event.rho == zcdp_rho(m).rho
    # rho alpha bounds the curve, so the accountant stays above the exact composition
    # and above the exact-curve conversion
    for uses, delta in [(10, 1e-6), (100, 1e-9)]:
        acc = _accountant(rdp)
        acc.compose(event, uses)
        theirs = acc.get_epsilon(delta)
        exact = epsilon_composed(m, delta, uses)
        assert theirs >= (exact.lower if not exact.exact else exact.epsilon) - 1e-9
        curve = uses * renyi_curve(m, ORDERS).epsilons
        assert theirs >= rdp_to_dp(curve, ORDERS, delta).epsilon - 1e-9
    assert np.all(renyi_curve(m, ORDERS).epsilons <= event.rho * np.array(ORDERS))
