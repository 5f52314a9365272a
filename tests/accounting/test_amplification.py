"""Amplification by subsampling and shuffling, and shuffle -> LDP."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechdesign.accounting.amplification import (
    FMT22_ERRATUM,
    shuffle_delta,
    shuffle_epsilon,
    shuffle_to_ldp,
    subsampling_bound,
)
from mechdesign.errors import InvalidParameterError
from mechdesign.testing.timing import WorkClock

mp.mp.dps = 30


# --------------------------------------------------------------------------- subsampling
def test_subsampling_values():
    g = subsampling_bound(1.0, 1e-6, 0.01)
    # ln(1 + 0.01 (e - 1)) = 0.0170368632361..
    assert g.epsilon == pytest.approx(math.log(1 + 0.01 * (math.e - 1)), rel=1e-14)
    assert g.epsilon == pytest.approx(0.01703686324, rel=1e-9)
    assert g.delta == pytest.approx(1e-8)
    assert subsampling_bound(2.0, 0.1, 1.0).epsilon == pytest.approx(2.0)
    assert subsampling_bound(2.0, 0.1, 0.0).epsilon == 0.0
    # tiny p in log space: ln(1 + p (e^eps - 1)) ~ p (e^eps - 1)
    assert subsampling_bound(1.0, 0.0, 1e-20).epsilon == pytest.approx(1e-20 * (math.e - 1))
    assert subsampling_bound(800.0, 0.0, 1e-3).epsilon == pytest.approx(800 + math.log(1e-3))


def test_subsampled_delta_does_not_underflow_to_zero():
    # issue 31: p delta = 5e-324 * 1e-3 = 4.9e-327 is exactly positive but below the smallest
    # double; the float product read 0.0 (a pure guarantee that does not hold). Rounded up it
    # is the smallest positive double.
    g = subsampling_bound(40.0, 1e-3, 5e-324)
    assert g.delta == 5e-324
    # eps' = ln(1 + 5e-324 (e^40 - 1)) = 5e-324 (e^40 - 1) (1 - ..) = 1.16295773881346e-306
    assert g.epsilon == pytest.approx(5e-324 * math.expm1(40.0), rel=1e-12)
    assert g.epsilon >= 4.9406564584124654e-324 * math.expm1(40.0) * (1 - 1e-15)


def test_subsampled_epsilon_does_not_underflow_to_zero():
    # issue 31: eps' = ln(1 + 1e-300 (e^1e-300 - 1)) = 1e-600 (1 + ..) is exactly positive;
    # p * expm1(eps) underflowed to 0.0. Rounded up it is the smallest positive double.
    g = subsampling_bound(1e-300, 0.0, 1e-300)
    assert g.epsilon == 5e-324 and g.delta == 0.0
    # and the exact zeros stay exact: p = 0, eps = 0, delta = 0
    g = subsampling_bound(1e-300, 0.5, 0.0)
    assert g.epsilon == 0.0 == g.delta
    assert subsampling_bound(0.0, 0.0, 0.5).epsilon == 0.0


@settings(max_examples=60, deadline=None)
@given(eps=st.floats(0.0, 20.0), p=st.floats(0.0, 1.0))
def test_subsampling_never_worse(eps, p):
    assert subsampling_bound(eps, 0.0, p).epsilon <= eps + 1e-12


# --------------------------------------------------------------------------- shuffling
def mp_clone_delta(eps0, n, eps):
    """E_C[sum_a (P_c(a) - e^eps Q_c(a))_+] summed over every c and a in mpmath."""
    e0 = mp.mpf(eps0)
    alpha = mp.e ** e0 / (mp.e ** e0 + 1)
    p = mp.e ** (-e0)
    scale = mp.e ** mp.mpf(eps)
    total = mp.mpf(0)
    for c in range(n):
        wc = mp.binomial(n - 1, c) * p ** c * (1 - p) ** (n - 1 - c)

        def b(a, c=c):
            return mp.binomial(c, a) / mp.mpf(2) ** c if 0 <= a <= c else mp.mpf(0)

        h = mp.mpf(0)
        for a in range(c + 2):
            P = alpha * b(a) + (1 - alpha) * b(a - 1)
            Q = alpha * b(a - 1) + (1 - alpha) * b(a)
            if P > scale * Q:
                h += P - scale * Q
        total += wc * h
    return total


@pytest.mark.parametrize("eps0, n, eps", [(2.0, 40, 0.5), (1.0, 60, 0.2), (4.0, 30, 1.0),
                                          (0.5, 25, 0.0)])
def test_clone_delta_matches_mpmath(eps0, n, eps):
    d = shuffle_delta(eps0, n, eps)
    exact = mp_clone_delta(eps0, n, eps)
    ref = float(exact)
    assert d.lower == pytest.approx(ref, rel=1e-10)
    # outward rounded (issue 31): the bracket holds the 30-digit mpmath value (it was
    # lower == upper, the float sum, either side of it); its width is the float
    # evaluation's error bound (all counts summed here: no tail), measured 1.1e-13 relative
    assert mp.mpf(d.lower) <= exact <= mp.mpf(d.upper)
    assert d.upper <= d.lower * (1 + 1e-11)


def test_shuffle_numeric_in_reference_bracket():
    # FMT21's public code brackets the clone bound at n = 1e5, eps0 = 4, delta = 1e-6 in
    # [0.1675, 0.1728] (docs/accounting.md s.4); we compute it exactly.
    r = shuffle_epsilon(4.0, 10**5, 1e-6)
    assert r.method == "numeric" and r.valid and not r.restricted
    assert 0.1675 < r.lower <= r.upper < 0.1728
    assert r.upper - r.lower < 1e-8 and r.epsilon == r.upper
    d = shuffle_delta(4.0, 10**5, r.upper)
    assert d.upper <= 1e-6
    assert shuffle_delta(4.0, 10**5, r.lower).lower > 1e-6


def test_shuffle_closed_forms():
    n, e0, d = 10**5, 4.0, 1e-6
    fmt21 = shuffle_epsilon(e0, n, d, "closed_form_fmt21")
    assert fmt21.epsilon == pytest.approx(0.5378, abs=5e-5)  # the sheet's closed form
    assert fmt21.valid and not fmt21.restricted
    fmt22 = shuffle_epsilon(e0, n, d, "closed_form")
    # ln(1 + 4 (e^4 - 1) (sqrt(2 ln(4e6) / ((e^4 + 1) 1e5)) + 1e-5)) = 0.407792587..
    ref = math.log(1 + 4 * (math.exp(4) - 1) * (math.sqrt(2 * math.log(4e6)
                                                         / ((math.exp(4) + 1) * 1e5)) + 1e-5))
    assert fmt22.epsilon == pytest.approx(ref, rel=1e-14)
    assert fmt22.epsilon == pytest.approx(0.40779, abs=1e-5)
    assert fmt22.restricted and fmt22.note == FMT22_ERRATUM and fmt22.valid
    # the exact clone bound is the smallest of the three here
    assert shuffle_epsilon(e0, n, d).epsilon < fmt22.epsilon < fmt21.epsilon


def test_closed_form_validity_flags():
    # eps0 = 8 > ln(1e4 / (8 ln(2e6)) - 1) = 4.44..: outside FMT22's range
    r = shuffle_epsilon(8.0, 10**4, 1e-6, "closed_form")
    assert not r.valid and r.epsilon == 8.0 and "outside" in r.note
    assert r.formula > 0
    r = shuffle_epsilon(8.0, 10**4, 1e-6, "closed_form_fmt21")
    assert not r.valid and r.epsilon == 8.0
    with pytest.raises(InvalidParameterError, match="0 < delta < 1"):
        shuffle_epsilon(1.0, 100, 0.0, "closed_form")


def _rr_count_law(bits, eps0):
    """Law of the number of 1-reports when users with these bits apply binary RR(eps0)."""
    a = math.exp(eps0) / (1 + math.exp(eps0))
    law = np.array([1.0])
    for b in bits:
        p1 = a if b else 1 - a
        law = np.convolve(law, [1 - p1, p1])
    return law


@pytest.mark.parametrize("eps0, n", [(1.0, 20), (3.0, 50), (2.0, 200)])
def test_clone_bound_dominates_exact_shuffled_rr(eps0, n):
    # shuffled binary RR reveals exactly the count of 1s: its exact delta between
    # neighbouring datasets must never exceed the clone bound (which holds for all eps0-LDP)
    for ones in (0, n // 3, n - 1):
        others = [1] * ones + [0] * (n - 1 - ones)
        P = _rr_count_law([0, *others], eps0)
        Q = _rr_count_law([1, *others], eps0)
        for eps in (0.0, 0.3, 1.0):
            exact = max(np.maximum(P - math.exp(eps) * Q, 0).sum(),
                        np.maximum(Q - math.exp(eps) * P, 0).sum())
            assert exact <= shuffle_delta(eps0, n, eps).upper + 1e-12


def test_shuffle_scales_to_ten_million_users():
    # counted, not timed: the Python lines run (WorkClock) do not grow with the users
    # (measured 3,722-4,478 at 10^5, 10^6 and 10^7: no Python loop over them)
    shuffle_epsilon(4.0, 10**3, 1e-6)  # lazy imports done
    with WorkClock() as clock:
        small = shuffle_epsilon(4.0, 10**5, 1e-6)
    few = clock()
    with WorkClock() as clock:
        big = shuffle_epsilon(4.0, 10**7, 1e-6)
    assert clock() < 2 * few, (clock(), few)
    mid = shuffle_epsilon(4.0, 10**6, 1e-6)
    assert big.epsilon < mid.epsilon < small.epsilon
    assert big.upper - big.lower < 1e-9


def test_shuffle_edge_cases():
    assert shuffle_epsilon(0.0, 100, 1e-6).epsilon == 0.0
    assert shuffle_epsilon(4.0, 100, 0.0).epsilon == 4.0  # delta 0: no amplification
    one = shuffle_epsilon(1.5, 1, 1e-9)  # a single user: binary RR(1.5) itself
    assert one.epsilon == pytest.approx(1.5, abs=1e-6)
    assert shuffle_epsilon(1.0, 10, 0.9).epsilon == 0.0
    with pytest.raises(InvalidParameterError, match="'bogus'"):
        shuffle_epsilon(1.0, 100, 1e-6, "bogus")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="n must be >= 1, got 0"):
        shuffle_epsilon(1.0, 0, 1e-6)
    with pytest.raises(InvalidParameterError, match="epsilon0 must be finite"):
        shuffle_epsilon(math.inf, 10, 1e-6)


def test_shuffle_to_ldp():
    g = shuffle_to_ldp(0.5, 1e-6, 1000)
    assert g.epsilon == pytest.approx(0.5 + math.log(1000)) and g.delta == 1e-6
    assert g.notion == "LDP"
