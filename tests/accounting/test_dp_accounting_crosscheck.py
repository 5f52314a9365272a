"""Cross-check of the exact composition against Google's dp-accounting (PLD accountant).

dp-accounting is a test-only extra (``pip install dp-accounting``, version 0.6.0). It rounds
every privacy loss up (pessimistic) or down (optimistic) to a multiple of the grid step h,
WITHOUT snapping losses that sit a few ulps off a grid point, so each composition can move a
loss by up to (but less than) one step. After k compositions its curves therefore satisfy,
with our exact delta(.):

    exact(eps) <= pessimistic(eps) <= exact(eps - k h)
    exact(eps + k h) <= optimistic(eps) <= exact(eps)

and for epsilon at a given delta, ``exact <= pessimistic <= exact + k h`` and
``exact - k h <= optimistic <= exact``. A slack of 1e-12 covers its FFT rounding and its
1e-15 tail truncation. These are the cases where dp-accounting is correct; the benchmark
``benchmarks/composition_vs_dp_accounting.py`` measures how far inside the bounds it lands.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechdesign as md
from mechdesign.accounting.composition import delta_composed, epsilon_composed

# installed by the test extra (so CI runs it); skipped, not an error, where it is absent
pldlib = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")

SLACK = 1e-12


def _pld_rr(k_buckets: int, eps0: float, h: float, pessimistic: bool):
    # dp-accounting's RR keeps the input w.p. 1 - p + p/k: that is e^eps/(e^eps + k - 1)
    noise = k_buckets / (math.exp(eps0) + k_buckets - 1)
    return pldlib.from_randomized_response(noise, k_buckets, pessimistic_estimate=pessimistic,
                                           value_discretization_interval=h)


def _pld_pair(m: md.Mechanism, h: float, pessimistic: bool):
    """PLD of a 2-input mechanism: 'remove' = pair (0, 1), 'add' = pair (1, 0)."""
    with np.errstate(divide="ignore"):
        logs = np.log(m.matrix)
    upper = {y: float(logs[0, y]) for y in range(m.n_outputs)}
    lower = {y: float(logs[1, y]) for y in range(m.n_outputs)}
    return pldlib.from_two_probability_mass_functions(
        lower, upper, pessimistic_estimate=pessimistic, value_discretization_interval=h,
        symmetric=False)


def _check_delta_curve(mech, k, pld_pess, pld_opt, h, epsilons):
    for eps in epsilons:
        exact = delta_composed(mech, eps, k).delta
        wider = delta_composed(mech, eps - k * h, k).delta  # callers keep eps >= k h
        narrower = delta_composed(mech, eps + k * h, k).delta
        pess = float(pld_pess.get_delta_for_epsilon(eps))
        opt = float(pld_opt.get_delta_for_epsilon(eps))
        assert exact - SLACK <= pess <= wider + SLACK, (eps, exact, pess, wider)
        assert narrower - SLACK <= opt <= exact + SLACK, (eps, narrower, opt, exact)


def _check_epsilon(mech, k, pld_pess, pld_opt, h, deltas):
    for d in deltas:
        exact = epsilon_composed(mech, d, k).epsilon
        pess = pld_pess.get_epsilon_for_delta(d)
        opt = pld_opt.get_epsilon_for_delta(d)
        assert exact - 1e-9 <= pess <= exact + k * h + 1e-9, (d, exact, pess)
        assert exact - k * h - 1e-9 <= opt <= exact + 1e-9, (d, exact, opt)


@pytest.mark.parametrize("k_buckets, eps0, k", [(2, 0.5, 20), (2, 0.1, 100), (10, 1.0, 10)])
def test_randomized_response(k_buckets, eps0, k):
    h = 1e-4
    mech = md.randomized_response(k_buckets, eps0)
    pess = _pld_rr(k_buckets, eps0, h, True).self_compose(k)
    opt = _pld_rr(k_buckets, eps0, h, False).self_compose(k)
    top = k * eps0
    _check_delta_curve(mech, k, pess, opt, h, [0.1 * top, 0.4 * top, 0.8 * top])
    _check_epsilon(mech, k, pess, opt, h, [1e-2, 1e-6, 1e-10])


def test_drift_of_off_grid_losses_is_within_one_step_per_composition():
    # RR(0.1): the loss 0.10000000000000009 is 1000.000000000001 grid steps of 1e-4;
    # dp-accounting rounds it up to 1001 steps, so k = 100 compositions add ~ k h = 0.01
    mech = md.randomized_response(2, 0.1)
    pess = _pld_rr(2, 0.1, 1e-4, True).self_compose(100)
    exact = epsilon_composed(mech, 1e-6, 100).epsilon
    drift = pess.get_epsilon_for_delta(1e-6) - exact
    assert 0.5 * 100 * 1e-4 < drift <= 100 * 1e-4 + 1e-9


def test_asymmetric_pair_deletion_counterexample():
    h, k = 1e-4, 5
    mech = md.catalog.deletion_counterexample()
    pess = _pld_pair(mech, h, True).self_compose(k)
    opt = _pld_pair(mech, h, False).self_compose(k)
    _check_delta_curve(mech, k, pess, opt, h, [0.5, 2.0, 5.0])
    _check_epsilon(mech, k, pess, opt, h, [1e-2, 1e-4])


def test_infinite_losses_and_heterogeneous_composition():
    h = 1e-4
    zero = md.Mechanism([[0.5, 0.4, 0.1], [0.3, 0.7, 0.0]])  # P' = 0 < P: infinite loss
    rr = md.randomized_response(2, 0.7)
    mechs = [rr, zero, md.catalog.deletion_counterexample()]
    pess = _pld_pair(rr, h, True).compose(_pld_pair(zero, h, True)).compose(
        _pld_pair(mechs[2], h, True))
    opt = _pld_pair(rr, h, False).compose(_pld_pair(zero, h, False)).compose(
        _pld_pair(mechs[2], h, False))
    k = len(mechs)
    for eps in (0.6, 1.5, 3.0):
        exact = delta_composed(mechs, eps).delta
        assert exact - SLACK <= float(pess.get_delta_for_epsilon(eps)) <= delta_composed(
            mechs, eps - k * h).delta + SLACK
        assert delta_composed(mechs, eps + k * h).delta - SLACK <= float(
            opt.get_delta_for_epsilon(eps)) <= exact + SLACK
    # beyond every finite loss only the infinite mass 0.1 remains, in both
    assert delta_composed(mechs, 50.0).delta == pytest.approx(0.1, rel=1e-14)
    assert float(pess.get_delta_for_epsilon(50.0)) == pytest.approx(0.1, rel=1e-9)
