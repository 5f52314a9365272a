"""Calibration (``mechdesign.accounting.calibration``): the parameter meeting a central
(epsilon, delta) target after composition, shuffling and subsampling.

Every answer is checked two ways: the round trip through the forward computation (the value
meets the target, the other end of the reported step does not, and the two ends are
adjacent doubles or consecutive integers), and an independent value: closed forms (a single
use of binary RR, pure composition, subsampling's expm1 ratio, the shuffle bound at n = 1,
which is binary RR), a 30-digit mpmath root of the Kairouz-Oh-Viswanath formula (tight for
k-fold binary RR), Murtagh-Vadhan enumeration for heterogeneous RR compositions."""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.accounting import (
    delta_composed,
    optimal_composition_delta,
    optimal_heterogeneous_delta,
    shuffle_delta,
    shuffle_epsilon,
    subsampling_bound,
)
from mechdesign.accounting.calibration import (
    MAX_K,
    Calibration,
    calibrate,
    calibrate_composition,
    calibrate_shuffle,
    calibrate_subsampling,
)
from mechdesign.catalog import max_epsilon
from mechdesign.errors import InvalidParameterError

from .reference import mp_delta_tuples

up = math.inf
down = -math.inf


def rr_epsilon(k, eps, delta, **kw):
    return calibrate_composition("randomized_response", "epsilon", target_epsilon=eps,
                                 target_delta=delta, k=k, params={"k": 2}, **kw)


def assert_step(c: Calibration, meets, toward=up):
    """The value meets the target, the infeasible end is the next double and misses it."""
    assert meets(c.value)
    assert c.infeasible == math.nextafter(c.value, toward)
    assert not meets(c.infeasible)


# ------------------------------------------------------------------ k-fold binary RR vs KOV
def mp_kov(eps0, k, eps):
    """Kairouz-Oh-Viswanath delta of k-fold binary RR(eps0) at eps, 30 digits."""
    e0, e = mp.mpf(eps0), mp.mpf(eps)
    total = mp.fsum(mp.binomial(k, j) * max(mp.mpf(0), mp.e ** ((k - j) * e0)
                                             - mp.e ** (e + j * e0)) for j in range(k + 1))
    return total / (1 + mp.e ** e0) ** k


@pytest.mark.parametrize("k, eps, delta", [(1000, 1.0, 1e-6), (10, 0.5, 1e-3),
                                           (100, 2.0, 1e-10), (3, 0.1, 1e-12)])
def test_rr_epsilon_is_the_root_of_the_kov_formula(k, eps, delta):
    c = rr_epsilon(k, eps, delta)
    assert c.exact and c.direction == "largest" and c.setting == "composition"
    # the 30-digit KOV delta crosses the target within 1e-11 (relative) of the value
    assert mp_kov(c.value * (1 - 1e-11), k, eps) <= delta < mp_kov(c.value * (1 + 1e-11), k, eps)
    assert_step(c, lambda e: delta_composed(md.randomized_response(2, e), eps, k).delta <= delta)
    assert c.achieved == (eps, delta_composed(md.randomized_response(2, c.value), eps, k).delta)
    assert c.missed[1] > delta >= c.achieved[1]


@pytest.mark.slow  # 2.5-11 s: left out of the quick and the floors runs
@settings(max_examples=25, deadline=None)
@given(k=st.integers(1, 300), eps=st.floats(0.01, 5.0), log_delta=st.floats(-12, -1))
def test_rr_epsilon_round_trip(k, eps, log_delta):
    delta = 10.0 ** log_delta
    c = rr_epsilon(k, eps, delta)
    assert_step(c, lambda e: delta_composed(md.randomized_response(2, e), eps, k).delta <= delta)
    # on the step of the (continuous) KOV delta: the target is reached there
    for end in c.bracket:
        assert optimal_composition_delta(end, k, eps) == pytest.approx(delta, rel=1e-8)


@settings(max_examples=20, deadline=None)
@given(eps=st.floats(0.0, 20.0), delta=st.floats(0.0, 0.9))
def test_single_use_closed_form(eps, delta):
    # one use of RR(e0): delta(eps) = (e^e0 - e^eps)/(e^e0 + 1) for eps < e0, so the largest
    # e0 is ln((e^eps + delta)/(1 - delta)). The stored matrix of randomized_response(2, e0)
    # resolves e0 to about 2^-52 (it is 0-private up to e0 = 4.4e-16): hence abs=1e-15
    c = rr_epsilon(1, eps, delta)
    assert c.value == pytest.approx(math.log((math.exp(eps) + delta) / (1 - delta)),
                                    rel=1e-13, abs=1e-15)


@pytest.mark.parametrize("k, eps", [(1, 1.0), (7, 1.0), (1000, 3.0), (2, 1e-9)])
def test_pure_target_is_epsilon_over_k(k, eps):
    # delta = 0: the largest loss k*e0 must be at most eps
    c = rr_epsilon(k, eps, 0.0)
    assert c.value == pytest.approx(eps / k, rel=1e-14)
    assert c.achieved[1] == 0.0 < c.missed[1]


def test_round_trip_of_a_forward_value():
    # 1000-fold RR(0.1) has epsilon 19.3446714479934 at delta 1e-6 (README, KOV): calibrating
    # at that target gives back 0.1 (to the forward computation's accuracy, ~1e-15)
    target = md.accounting.epsilon_composed(md.randomized_response(2, 0.1), 1e-6, 1000).epsilon
    c = rr_epsilon(1000, target, 1e-6)
    assert c.value == pytest.approx(0.1, rel=1e-13)


# ------------------------------------------------------------------ the number of uses k
@settings(max_examples=20, deadline=None)
@given(e0=st.floats(0.05, 2.0), eps=st.floats(0.1, 5.0), log_delta=st.floats(-10, -2))
def test_largest_k_round_trip(e0, eps, log_delta):
    delta = 10.0 ** log_delta
    rr = md.randomized_response(2, e0)
    if delta_composed(rr, eps, 1).delta > delta:
        with pytest.raises(InvalidParameterError, match="not even at k = 1"):
            calibrate_composition(rr, "k", target_epsilon=eps, target_delta=delta)
        return
    c = calibrate_composition(rr, "k", target_epsilon=eps, target_delta=delta)
    K = c.value
    assert c.infeasible == K + 1 and c.direction == "largest"
    assert delta_composed(rr, eps, K).delta <= delta < delta_composed(rr, eps, K + 1).delta
    # the KOV formula (a second code path) puts the step at the same K
    stored = md.epsilon_ldp(rr)
    assert optimal_composition_delta(stored, K, eps) <= delta * (1 + 1e-9)
    assert optimal_composition_delta(stored, K + 1, eps) >= delta * (1 - 1e-9)


def test_largest_k_pure_and_search_limit():
    rr = md.randomized_response(2, 0.3)
    c = calibrate_composition(rr, "k", target_epsilon=1.0, target_delta=0.0)
    assert c.bracket == (3, 4)  # 3 * 0.3 <= 1 < 4 * 0.3
    # a perfectly private mechanism meets every target: the search stops at its bound
    c = calibrate_composition(md.randomized_response(2, 0.0), "k", target_epsilon=0.0,
                              target_delta=0.0, bounds=(1, 1000))
    assert c.bracket == (1000, None) and "every k up to 1000" in c.note
    assert MAX_K == 10**6


def test_largest_k_of_a_list_against_murtagh_vadhan():
    ms = [md.randomized_response(2, 0.05), md.warner(0.6)]
    c = calibrate_composition(ms, "k", target_epsilon=1.0, target_delta=1e-6)
    K = c.value
    e = [md.epsilon_ldp(m) for m in ms]
    assert optimal_heterogeneous_delta(e * K, 1.0) <= 1e-6 < optimal_heterogeneous_delta(
        e * (K + 1), 1.0)
    assert float(mp_delta_tuples(ms * K, 1.0)) <= 1e-6 * (1 + 1e-12)


# ------------------------------------------------------------------ heterogeneous families
def test_common_scale_of_a_list_against_murtagh_vadhan():
    def family(s):
        return [md.randomized_response(2, s), md.randomized_response(2, 2 * s)]

    c = calibrate_composition(family, "scale", target_epsilon=1.0, target_delta=1e-6, k=5,
                              bounds=(0.0, 10.0))
    assert c.question == "the 5-fold composition of family(scale=.)"
    for end in c.bracket:
        assert optimal_heterogeneous_delta([end, 2 * end] * 5, 1.0) == pytest.approx(
            1e-6, rel=1e-9)
    assert_step(c, lambda s: delta_composed(family(s), 1.0, 5).delta <= 1e-6)
    # 30 digits on the stored matrices: the value meets the target
    assert float(mp_delta_tuples(family(c.value) * 5, 1.0)) <= 1e-6 * (1 + 1e-12)


def test_list_of_catalog_names_shares_the_parameter():
    # unary encoding of 2 values is two bits, each RR(eps/2), on the pair (0, 1)
    c = calibrate_composition(["randomized_response", "unary_encoding"], "epsilon",
                              target_epsilon=1.0, target_delta=1e-6, k=3,
                              params=[{"k": 2}, {"k": 2}])
    s = c.value
    assert optimal_heterogeneous_delta([s] * 3 + [s / 2] * 6, 1.0) == pytest.approx(
        1e-6, rel=1e-9)
    # default bounds: up to the largest epsilon both constructors build
    top = min(max_epsilon("randomized_response", k=2), max_epsilon("unary_encoding", k=2))
    c = calibrate_composition(["randomized_response", "unary_encoding"], "epsilon0",
                              target_epsilon=1.0, target_delta=1.0, k=3, params={"k": 2})
    assert c.bracket == (top, None) and c.parameter == "epsilon0"


def test_other_parameter_direction_read_from_the_ends():
    # warner(p) for p in [1/2, 1] loses privacy as p grows: the largest p
    c = calibrate_composition("warner", "p", target_epsilon=1.0, target_delta=1e-6, k=3,
                              bounds=(0.5, 1.0))
    eps = math.log(c.value / (1 - c.value))
    assert c.direction == "largest"
    assert eps == pytest.approx(rr_epsilon(3, 1.0, 1e-6).value, rel=1e-12)
    # a family that gains privacy as x grows: the smallest x, the infeasible end below it
    c = calibrate_composition(lambda x: md.randomized_response(2, 1.0 - x), "x",
                              target_epsilon=1.0, target_delta=1e-6, k=3, bounds=(0.0, 1.0))
    assert c.direction == "smallest" and c.infeasible == math.nextafter(c.value, down)
    assert 1.0 - c.value == pytest.approx(rr_epsilon(3, 1.0, 1e-6).value, rel=1e-12)


@pytest.mark.parametrize("family, a, b", [
    (lambda e: md.randomized_response(2, e), 0.3, 0.31),
    (lambda e: md.randomized_response(5, e), 0.1, 2.0),
    (lambda e: md.catalog.unary_encoding(3, e), 0.5, 1.5),
    (md.warner, 0.6, 0.9),
])
def test_calibrated_families_are_garbling_ordered(family, a, b):
    # the monotonicity calibration relies on (docs s.11): the more private member is a
    # post-processing of the less private one (Blackwell, an LP), not the other way round
    assert md.is_garbling_of(family(a), family(b))
    assert not md.is_garbling_of(family(b), family(a))
    # so a composition's delta grows with the parameter
    assert delta_composed(family(a), 0.2, 4).delta <= delta_composed(family(b), 0.2, 4).delta


def test_not_monotone_is_refused():
    def bumpy(x):  # epsilon x, except 0 on (1, 2): met on [0, 0.5] and on (1, 2)
        return md.randomized_response(2, 0.0 if 1 < x < 2 else x)

    with pytest.raises(InvalidParameterError, match="not monotone in x"):
        calibrate_composition(bumpy, "x", target_epsilon=0.5, target_delta=0.0, k=1,
                              bounds=(0.0, 4.0))
    # the check can be switched off: the bisection then returns a step
    c = calibrate_composition(bumpy, "x", target_epsilon=0.5, target_delta=0.0, k=1,
                              bounds=(0.0, 4.0), check_monotone=False)
    assert_step(c, lambda x: delta_composed(bumpy(x), 0.5, 1).delta <= 0.0)


def test_grid_fallback_is_labelled():
    c = calibrate_composition("truncated_geometric", "epsilon", target_epsilon=2.0,
                              target_delta=1e-4, k=8, params={"n": 4}, max_atoms=20,
                              xtol=1e-4)
    assert not c.exact and "grid" in c.method
    r = delta_composed(md.catalog.truncated_geometric(4, c.value), 2.0, 8, max_atoms=20)
    assert not r.exact and r.delta <= 1e-4  # the pessimistic end meets the target
    assert 0 < c.infeasible - c.value <= 1e-4


# ------------------------------------------------------------------ shuffling
@pytest.mark.parametrize("eps, delta", [(0.5, 1e-6), (1.0, 0.0), (2.0, 0.3)])
def test_shuffle_one_user_is_binary_rr(eps, delta):
    # n = 1: no clones; the pair is binary RR(eps0), whose single-use closed form applies
    c = calibrate_shuffle("epsilon0", target_epsilon=eps, target_delta=delta, n=1)
    assert c.value == pytest.approx(math.log((math.exp(eps) + delta) / (1 - delta)),
                                    rel=1e-13)


@pytest.mark.slow  # 2.5-11 s: left out of the quick and the floors runs
@settings(max_examples=12, deadline=None)
@given(log_n=st.floats(1, 6), eps=st.floats(0.05, 2.0), log_delta=st.floats(-10, -3))
def test_shuffle_epsilon0_round_trip(log_n, eps, log_delta):
    n, delta = int(10 ** log_n), 10.0 ** log_delta
    c = calibrate_shuffle("epsilon0", target_epsilon=eps, target_delta=delta, n=n)
    assert_step(c, lambda e0: shuffle_delta(e0, n, eps).upper <= delta)
    assert c.value >= eps  # shuffling never weakens the local guarantee
    # the inverse direction of the library (Brent on ln delta, 2e-9 relative) agrees
    assert shuffle_epsilon(c.value, n, delta).epsilon <= eps * (1 + 1e-8)
    assert shuffle_epsilon(c.infeasible, n, delta).epsilon == pytest.approx(eps, rel=1e-7)


def test_shuffle_fmt21_example_round_trip():
    # FMT21's example: n = 1e5, eps0 = 4, delta = 1e-6 gives eps = 0.16977 (clone bound)
    target = shuffle_epsilon(4.0, 10**5, 1e-6).epsilon
    assert target == pytest.approx(0.16977, abs=1e-5)
    c = calibrate("epsilon0", target_epsilon=target, target_delta=1e-6, n=10**5)
    assert c.setting == "shuffle" and c.value == pytest.approx(4.0, rel=1e-7)


def test_shuffle_smallest_n():
    c = calibrate_shuffle("n", target_epsilon=0.5, target_delta=1e-6, epsilon0=4.0)
    n = c.value
    assert c.direction == "smallest" and c.infeasible == n - 1
    assert shuffle_delta(4.0, n, 0.5).upper <= 1e-6 < shuffle_delta(4.0, n - 1, 0.5).upper
    # from the other side: the largest epsilon0 at n is at least 4, at n - 1 below 4
    assert calibrate_shuffle("epsilon0", target_epsilon=0.5, target_delta=1e-6,
                             n=n).value >= 4.0
    assert calibrate_shuffle("epsilon0", target_epsilon=0.5, target_delta=1e-6,
                             n=n - 1).value < 4.0
    one = calibrate("n", target_epsilon=1.0, target_delta=0.0, epsilon0=0.5)
    assert one.bracket == (1, None)
    with pytest.raises(InvalidParameterError, match=r"cannot be met .* n up to 1000"):
        calibrate_shuffle("n", target_epsilon=0.01, target_delta=1e-12, epsilon0=10.0,
                          bounds=(1, 1000))


@pytest.mark.parametrize("e0", [0.5, 2.0, 6.0])
def test_shuffle_bound_is_monotone_as_documented(e0):
    # calibration relies on: the clone bound does not grow with n, and grows with eps0. (The
    # upper end adds the mass of the clone counts left out, at most 1e-30, which is not
    # monotone: below that level the bound cannot resolve a target.)
    ns = [1, 2, 3, 5, 10, 30, 100, 1000, 10**4, 10**5]
    for eps in (0.1, 0.4):
        for end in ("lower", "upper"):
            d = [getattr(shuffle_delta(e0, n, eps), end) for n in ns]
            d = [v for v in d if end == "lower" or v > 1e-28]
            assert all(a >= b for a, b in itertools.pairwise(d)), d
            ds = [getattr(shuffle_delta(x, 1000, eps), end) for x in np.linspace(0.0, e0, 25)]
            ds = [v for v in ds if end == "lower" or v > 1e-28]
            assert all(a <= b for a, b in itertools.pairwise(ds)), ds


# ------------------------------------------------------------------ subsampling
@settings(max_examples=40, deadline=None)
@given(e0=st.floats(1e-3, 50.0), frac=st.floats(0.001, 0.999))
def test_subsampling_p_is_the_expm1_ratio(e0, frac):
    eps = frac * e0
    c = calibrate_subsampling("p", target_epsilon=eps, target_delta=0.0, epsilon0=e0)
    assert_step(c, lambda p: subsampling_bound(e0, 0.0, p).epsilon <= eps)
    # 30 digits: at the value the amplified epsilon is the target, up to the rounding of the
    # forward computation (a few ulps of eps); the closed form agrees to that rounding
    # carried to p (one ulp of eps moves p by eps e^eps / expm1(eps) ulps, relative)
    assert float(mp.log1p(mp.mpf(c.value) * mp.expm1(mp.mpf(e0)))) == pytest.approx(
        eps, rel=8e-16)
    closed = math.expm1(eps) / math.expm1(e0)
    rel = 4 * 2.0**-52 * (1 + eps * math.exp(eps) / math.expm1(eps))
    assert c.value == pytest.approx(closed, rel=rel)


def test_subsampling_p_delta_binding_and_whole_range():
    c = calibrate_subsampling("p", target_epsilon=0.5, target_delta=1e-5, epsilon0=1.0,
                              delta0=1e-3)
    assert c.value == pytest.approx(0.01, rel=1e-15)  # delta binds: 1e-5 / 1e-3
    assert c.missed[1] > 1e-5 and c.missed[0] < 0.5
    c = calibrate("p", target_epsilon=1.0, target_delta=0.0, epsilon0=0.7)
    assert c.bracket == (1.0, None) and c.achieved == (0.7, 0.0)
    c = calibrate("p", target_epsilon=1.0, target_delta=0.0, epsilon0=math.inf)
    assert c.bracket == (0.0, 5e-324)


@settings(max_examples=40, deadline=None)
@given(p=st.floats(1e-6, 1.0), eps=st.floats(1e-4, 30.0))
def test_subsampling_epsilon0_closed_form(p, eps):
    c = calibrate_subsampling("epsilon0", target_epsilon=eps, target_delta=0.0, p=p)
    assert float(mp.log1p(mp.mpf(p) * mp.expm1(mp.mpf(c.value)))) == pytest.approx(
        eps, rel=8e-16)
    closed = math.log1p(math.expm1(eps) / p)
    assert c.value == pytest.approx(closed, rel=8 * 2.0**-52)
    assert_step(c, lambda e0: subsampling_bound(e0, 0.0, p).epsilon <= eps)


def test_subsampling_epsilon0_ends():
    assert calibrate("epsilon0", target_epsilon=0.1, target_delta=0.0, p=0.0).bracket == (
        math.inf, None)
    with pytest.raises(InvalidParameterError, match=r"target \(epsilon=0.1, delta=1e-06\)"):
        calibrate("epsilon0", target_epsilon=0.1, target_delta=1e-6, p=0.1, delta0=1e-4)


# ------------------------------------------------------------------ the value and bad input
def test_repr_and_html():
    c = calibrate("p", target_epsilon=0.1, target_delta=0.0, epsilon0=1.0)
    text = repr(c)
    # p <= (e^0.1 - 1)/(e - 1) = 0.0612070245600891252..: the largest double is
    # 0.06120702456008912 (50 digits: eps' there is 0.1 - 8.6e-18). The previous answer
    # 0.06120702456008913 misses by an exact 2.2e-18 (subsampled now rounds outward)
    assert text.startswith("<Calibration p <= 0.06120702456008912 (0.06120702456008913 "
                           "misses) meets (0.1, 0.0)") and len(text) <= 200
    html = c._repr_html_()
    assert html.startswith("<div") and "0.06120702456008912" in html


BAD = [
    (dict(free="epsilon", mechanism="randomized_response", k=3, params={"k": 2},
          target_epsilon=math.nan, target_delta=1e-6), "target_epsilon must not be NaN"),
    (dict(free="epsilon", mechanism="randomized_response", k=3, params={"k": 2},
          target_epsilon=-1.0, target_delta=1e-6), "target_epsilon must be >= 0, got -1.0"),
    (dict(free="epsilon", mechanism="randomized_response", k=3, params={"k": 2},
          target_epsilon=math.inf, target_delta=1e-6), "target_epsilon must be finite"),
    (dict(free="epsilon", mechanism="randomized_response", k=3, params={"k": 2},
          target_epsilon=1.0, target_delta=1.5), "target_delta must lie in"),
    (dict(free="epsilon", mechanism="randomized_response", params={"k": 2},
          target_epsilon=1.0, target_delta=1e-6), "give k"),
    (dict(free="k", mechanism="randomized_response", k=3, params={"k": 2, "epsilon": 1.0},
          target_epsilon=1.0, target_delta=1e-6), "do not give k=3"),
    (dict(free="epsilon", mechanism="randomized_response", k=3,
          target_epsilon=1.0, target_delta=1e-6), "missing a required argument: 'k'"),
    (dict(free="epsilon", mechanism="randomized_response", k=3, params={"k": 2, "epsilon": 1},
          target_epsilon=1.0, target_delta=1e-6), "leave it out of params"),
    (dict(free="epsilon", mechanism="warner", k=3,
          target_epsilon=1.0, target_delta=1e-6), "warner has no parameter 'epsilon'"),
    (dict(free="p", mechanism="warner", k=3,
          target_epsilon=1.0, target_delta=1e-6), r"give bounds=\(low, high\)"),
    (dict(free="p", mechanism="warner", k=3, bounds=(1.0, 0.5),
          target_epsilon=1.0, target_delta=1e-6), "low < high"),
    (dict(free="p", mechanism="warner", k=3, bounds=(0.0, 1.0),
          target_epsilon=1.0, target_delta=1e-6),
     r"target \(epsilon=1.0, delta=1e-06\) cannot be met .* p in \[0.0, 1.0\]"),
    (dict(free="epsilon", mechanism="nosuch", k=3,
          target_epsilon=1.0, target_delta=1e-6), "unknown mechanism 'nosuch'"),
    (dict(free="epsilon", mechanism=md.warner(0.7), k=3,
          target_epsilon=1.0, target_delta=1e-6), "free='k'"),
    (dict(free="k", mechanism=md.warner(0.7), params={"p": 0.6},
          target_epsilon=1.0, target_delta=1e-6), "params go with catalog names"),
    (dict(free="k", mechanism=md.warner(0.7), bounds=(1, 10**7),
          target_epsilon=1.0, target_delta=1e-6), "must be <= 1000000"),
    (dict(free="k", mechanism=md.warner(0.7), bounds=(0.5, 10),
          target_epsilon=1.0, target_delta=1e-6), "must be an integer, got 0.5"),
    (dict(free="epsilon0", n=0, target_epsilon=1.0, target_delta=1e-6), "n must be >= 1"),
    (dict(free="epsilon0", n=10**10, target_epsilon=1.0, target_delta=1e-6), "exceeds"),
    (dict(free="epsilon0", n=10, epsilon0=1.0, target_epsilon=1.0, target_delta=1e-6),
     "needs n \\(and no epsilon0\\)"),
    (dict(free="epsilon0", n=10, bounds=(0.0, 400.0), target_epsilon=1.0, target_delta=1e-6),
     r"must lie in \[0, 300.0\]"),
    (dict(free="n", epsilon0=-1.0, target_epsilon=1.0, target_delta=1e-6),
     "epsilon0 must be >= 0, got -1.0"),
    (dict(free="n", epsilon0=1.0, p=0.5, target_epsilon=1.0, target_delta=1e-6),
     "not p or delta0"),
    (dict(free="p", epsilon0=1.0, p=0.5, target_epsilon=1.0, target_delta=1e-6),
     "needs epsilon0 \\(and no p\\)"),
    (dict(free="p", epsilon0=1.0, delta0=2.0, target_epsilon=1.0, target_delta=1e-6),
     "delta0 must lie in"),
    (dict(free="epsilon0", p=1.5, target_epsilon=1.0, target_delta=1e-6), "p must lie in"),
    (dict(free="p", epsilon0=1.0, bounds=(0.0, 2.0), target_epsilon=1.0, target_delta=1e-6),
     r"must lie in \[0, 1\]"),
    (dict(free="p", epsilon0=1.0, xtol=-1.0, target_epsilon=1.0, target_delta=1e-6),
     "xtol must be >= 0"),
    (dict(free="epsilon0", target_epsilon=1.0, target_delta=1e-6), "say what is calibrated"),
    (dict(free="k", k=3, target_epsilon=1.0, target_delta=1e-6), "give mechanism="),
    (dict(free="epsilon", mechanism="randomized_response", k=3, n=5, params={"k": 2},
          target_epsilon=1.0, target_delta=1e-6), "not n, p, epsilon0 or delta0"),
]


@pytest.mark.parametrize("kwargs, message", BAD)
def test_bad_input_names_the_value(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        calibrate(**kwargs)
