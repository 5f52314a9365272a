"""Measures never under-report: every float epsilon is an upper bound on the exact epsilon of
the stored matrix, and at most a few ulps above it.

The reference is exact arithmetic, independent of the code under test: every stored float
is read as an exact rational (``fractions.Fraction`` or an mpmath number with 53 bits), sums
are formed exactly and logarithms are taken by mpmath at 60 digits. Entries range from
``2^-1074`` (subnormal) to 1 and ratios from ``1 + 1e-15`` to ``e^700``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import networkx as nx
import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from mechdesign import (
    EvidentialMechanism,
    Mechanism,
    dont_know,
    epsilon_deletion,
    epsilon_ldp,
    epsilon_metric,
    epsilon_sldp,
    epsilon_wldp,
    randomized_response,
)
from mechdesign._exact import LOG_RATIO_ULPS, log_ratio
from mechdesign.privacy.measures import pairwise_log_ratios
from tests.strategies import all_events, brute_bel, brute_pl, evidential_mechanisms, mechanisms

DPS = 60
U = 2.0 ** -53


def mpf(v: float | Fraction) -> mp.mpf:
    with mp.workdps(DPS):
        if isinstance(v, Fraction):
            return mp.mpf(v.numerator) / v.denominator
        return mp.mpf(float(v))


def exact_log(hi: float | Fraction, lo: float | Fraction) -> mp.mpf:
    """ln(hi / lo) at 60 digits (hi, lo > 0): log1p of the exact rational hi / lo - 1 (so
    a ratio 1 + 1e-300 is not rounded to 1 first)."""
    r = Fraction(hi) / Fraction(lo)
    with mp.workdps(DPS):
        return mp.log1p(mpf(r - 1)) if r >= Fraction(1, 2) else mp.log(mpf(r))


def assert_upper_bound(measured: float, exact: mp.mpf, ulps: int = 2 * LOG_RATIO_ULPS,
                       absolute: float = 0.0) -> None:
    """exact <= measured <= exact + ulps * ulp(measured) + absolute (inf only for inf)."""
    with mp.workdps(DPS):
        if mp.isinf(exact) or math.isinf(measured):
            assert measured == exact, (measured, exact)
            return
        if exact == 0:
            assert measured == 0.0
            return
        gap = mp.mpf(measured) - exact
        assert gap >= 0, (measured, exact)
        assert gap <= ulps * math.ulp(measured) + absolute, (measured, exact, float(gap))


def exact_ldp(Q: np.ndarray) -> mp.mpf:
    """max over columns of ln(max / min), exact entries; inf for c / 0."""
    best = mp.mpf(0)
    for col in Q.T:
        hi, lo = float(col.max()), float(col.min())
        if hi == 0:
            continue
        if lo == 0:
            return mp.inf
        best = max(best, exact_log(hi, lo))
    return best


# --------------------------------------------------------------------------- reproductions
def test_randomized_response_at_a_tiny_epsilon_is_not_under_reported():
    # log(diag) - log(off) read 9.9964e-13 for the stored matrix, whose
    # exact epsilon is 9.99894e-13 (2.5e-4 low); log1p((diag - off) / off) is exact to ulps
    m = randomized_response(50, 1e-12)
    diag, off = float(m.matrix[0, 0]), float(m.matrix[0, 1])
    exact = exact_log(diag, off)
    naive = math.log(diag) - math.log(off)
    assert (mpf(naive) - exact) / exact < -2e-4  # what the old measure did
    assert_upper_bound(epsilon_ldp(m), exact)


def test_a_ratio_near_one_at_1e_minus_300_is_not_under_reported():
    # a column (1e-300 (1 + 1e-10), 1e-300): the two logs are -690.8 each and their
    # difference kept 3 significant digits (6.9e-4 low)
    a, b = 1e-300 * (1 + 1e-10), 1e-300
    Q = np.array([[a, 1 - a], [b, 1 - b]])
    exact = exact_ldp(Q)
    assert (mpf(math.log(a) - math.log(b)) - exact) / exact < -6e-4
    assert_upper_bound(epsilon_ldp(Q), exact)


# --------------------------------------------------------------------------- log_ratio
LOG_RATIOS = st.one_of(
    st.floats(-15, math.log10(700)).map(lambda e: 10.0 ** e),  # 1e-15 .. 700, log-uniform
    st.integers(1, 8).map(lambda n: n * U))                   # a few ulps of 1


@st.composite
def entry_pairs(draw) -> tuple[float, float]:
    """(hi, lo): lo anywhere in [2^-1074, 1] (log-uniform, plus subnormals and the smallest
    normal), hi = lo e^t rounded, in either order."""
    lo = draw(st.one_of(st.floats(-300, 0).map(lambda e: 10.0 ** e),
                        st.sampled_from([5e-324, 1e-320, 1e-310, 2.0 ** -1022, 1.0])))
    t = draw(LOG_RATIOS)
    with mp.workdps(DPS):
        hi = float(mp.mpf(lo) * mp.exp(t))
    if draw(st.booleans()):
        hi, lo = lo, hi
    return hi, lo


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
@settings(max_examples=400, deadline=None)
@given(entry_pairs())
@example((1e-300 * (1 + 1e-10), 1e-300))
@example((float(np.nextafter(1.0, 2.0)), 1.0))   # ratio 1 + 2^-52
@example((1.0, float(np.nextafter(1.0, 2.0))))
@example((5e-324, 1e-323))                        # subnormal, ratio 1/2 exactly
@example((1.0, 5e-324))                           # ln(2^1074) = 744.44 (ratio overflows)
@example((5e-324, 1.0))
def test_log_ratio_is_an_upper_bound_within_8_ulps(pair):
    hi, lo = pair
    assume(hi > 0 and lo > 0)
    v = float(log_ratio(hi, lo))
    assert_upper_bound(v, exact_log(hi, lo))
    assert float(log_ratio(lo, lo)) == 0.0  # ratio 1 is exact


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(1e-300, 1.0), min_size=1, max_size=6),
       st.integers(-8, 8), st.floats(-12, 0).map(lambda e: 10.0 ** e))
def test_log_ratio_of_correctly_rounded_sums(values, shift, scale):
    # ln(S) for an exact sum S of floats near 1, from fsum(S) and fsum(S - 1) (the deletion
    # measure's use): the bound holds for the exact S
    values = [v * scale for v in values]
    target = 1.0 + shift * U
    values.append(target - math.fsum(values))
    assume(all(v >= 0 for v in values))
    S = sum((Fraction(v) for v in values), Fraction(0))
    v = float(log_ratio(math.fsum(values), 1.0, math.fsum([*values, -1.0])))
    if S == 1:
        assert v == 0.0
    else:
        assert_upper_bound(v, exact_log(S, Fraction(1)))
    w = float(log_ratio(1.0, math.fsum(values), math.fsum([1.0, *(-x for x in values)])))
    if S != 1:
        assert_upper_bound(w, exact_log(Fraction(1), S))


# --------------------------------------------------------------------------- measures
def two_by_two(hi: float, lo: float) -> np.ndarray | None:
    """[[hi, 1 - hi], [lo, 1 - lo]] after scaling both by the same power of two so that
    hi, lo <= 1/2 (the ratio hi / lo is kept exactly); None if lo would lose bits."""
    k = max(0, math.frexp(max(hi, lo))[1] + 1)
    a, b = math.ldexp(hi, -k), math.ldexp(lo, -k)
    if Fraction(a) != Fraction(hi) / 2 ** k or Fraction(b) != Fraction(lo) / 2 ** k or b == 0:
        return None
    return np.array([[a, 1 - a], [b, 1 - b]])


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
@settings(max_examples=300, deadline=None)
@given(entry_pairs())
@example((1e-300 * (1 + 1e-10), 1e-300))
def test_epsilon_ldp_and_metric_are_upper_bounds_across_scales(pair):
    Q = two_by_two(*pair)
    assume(Q is not None and Q[0, 0] > 0)
    exact = exact_ldp(Q)
    assert_upper_bound(epsilon_ldp(Q), exact)
    # metric privacy at distance d: max ratio / d, one more rounding (the quotient)
    d = 0.3
    assert_upper_bound(epsilon_metric(Q, [[0, d], [d, 0]]), exact / mpf(d),
                       ulps=2 * LOG_RATIO_ULPS + 2)
    R = pairwise_log_ratios(Q)
    for x, xp in ((0, 1), (1, 0)):
        ex = max(exact_log(Q[x, y], Q[xp, y]) for y in range(2))
        assert_upper_bound(float(R[x, xp]), ex)


def test_graph_distances_are_not_over_estimated():
    # d(0, 2) = 0.1 + 0.2 along a path: networkx sums it to 0.30000000000000004, above the
    # exact 0.3000000000000000166..., which divided the ratio by too much; the measure now
    # divides by a lower bound of the exact distance
    G = nx.Graph()
    G.add_edge(0, 1, weight=0.1)
    G.add_edge(1, 2, weight=0.2)
    Q = np.array([[0.5, 0.5], [0.5, 0.5], [0.25, 0.75]])  # only pairs with input 2 differ
    exact_d = Fraction(0.1) + Fraction(0.2)
    assert Fraction(0.1 + 0.2) > exact_d
    exact = max(exact_log(0.5, 0.25) / mpf(exact_d), exact_log(0.5, 0.25) / mpf(0.2))
    assert_upper_bound(epsilon_metric(Q, G), exact, ulps=2 * LOG_RATIO_ULPS + 8)


def exact_deletion(Q: np.ndarray) -> mp.mpf:
    """max(eps_LDP / 2, ln sum_y max_x Q, -ln sum_y min_x Q), every sum exact."""
    s_max = sum((Fraction(float(v)) for v in Q.max(axis=0)), Fraction(0))
    s_min = sum((Fraction(float(v)) for v in Q.min(axis=0)), Fraction(0))
    if s_min == 0:
        return mp.inf
    with mp.workdps(DPS):
        return max(exact_ldp(Q) / 2, exact_log(s_max, Fraction(1)),
                   exact_log(Fraction(1), s_min), mp.mpf(0))


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 60), st.floats(-12, math.log10(700)).map(lambda e: 10.0 ** e))
@example(50, 1e-12)  # the old measure read 8.5e-5 low (float sum, then log)
@example(5, 1e-9)    # 6.9e-8 low
def test_epsilon_deletion_of_randomized_response(k, eps):
    m = randomized_response(k, eps)
    assert_upper_bound(epsilon_deletion(m).epsilon, exact_deletion(m.matrix))


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
@settings(max_examples=150, deadline=None)
@given(mechanisms())
def test_epsilon_deletion_and_ldp_of_random_mechanisms(m):
    exact = exact_deletion(m.matrix)
    got = epsilon_deletion(m).epsilon
    if mp.isinf(exact):
        assert got == math.inf
    else:
        assert_upper_bound(got, exact)
    ex_ldp = exact_ldp(m.matrix)
    if mp.isinf(ex_ldp):
        assert epsilon_ldp(m) == math.inf
    else:
        assert_upper_bound(epsilon_ldp(m), ex_ldp)


# --------------------------------------------------------------------------- SLDP / WLDP
def exact_event_epsilon(ev: EvidentialMechanism, num, den) -> mp.mpf:
    """max over x, x', E of ln(num_x(E) / den_x'(E)), exact Fraction sums of masses."""
    events = all_events(ev.outputs)
    best = mp.mpf(0)
    for E in events:
        top = max(num(ev, x, E) for x in range(ev.n_inputs))
        bottom = min(den(ev, x, E) for x in range(ev.n_inputs))
        if top == 0:
            continue
        if bottom == 0:
            return mp.inf
        best = max(best, exact_log(top, bottom))
    return best


@settings(max_examples=80, deadline=None)
@given(evidential_mechanisms())
def test_sldp_and_wldp_are_upper_bounds(ev):
    # small mechanisms: pl and bel are exact integer sums, so within 8 ulps like LDP
    for kind, f in (("pl", brute_pl), ("bel", brute_bel), ("mass", None)):
        exact = exact_ldp(ev.masses) if f is None else exact_event_epsilon(ev, f, f)
        got = epsilon_sldp(ev, kind)
        if mp.isinf(exact):
            assert got == math.inf
        else:
            assert_upper_bound(got, exact)
    exact = exact_event_epsilon(ev, brute_pl, brute_bel)
    got = epsilon_wldp(ev)
    if mp.isinf(exact):
        assert got == math.inf
    else:
        assert_upper_bound(got, exact)


@pytest.mark.parametrize("t", [1e-12, 1e-9, 1e-6])
def test_dont_know_at_tiny_ratios(t):
    # Q_2x3 with p = q (1 + t): eps_S = eps_bel = ln(p / q), eps_pl = ln((1 - q) / (1 - p))
    # (Li et al. 2022, s.4), all about t: within 8 ulps of the exact values
    q = 0.3
    p = q * (1 + t)
    dk = dont_know(p, q)
    assert_upper_bound(epsilon_sldp(dk, "mass"), exact_ldp(dk.masses))
    for kind, f in (("pl", brute_pl), ("bel", brute_bel)):
        assert_upper_bound(epsilon_sldp(dk, kind), exact_event_epsilon(dk, f, f))
    assert_upper_bound(epsilon_wldp(dk), exact_event_epsilon(dk, brute_pl, brute_bel))
    assert epsilon_sldp(dk, "bel") == pytest.approx(t, rel=1e-3)


def test_dont_know_sheet_values_within_ulps():
    # docs/belief_functions.md s.4: dont_know(0.6, 0.2) has eps_W = ln((1 - q) / q) = ln 4 up to the
    # rounding of 0.6 and 0.2; the float tables widened by their rounding bound read it
    # 2.9e-15 above, the exact sums within 8 ulps
    dk = dont_know(0.6, 0.2)
    assert_upper_bound(epsilon_wldp(dk), exact_event_epsilon(dk, brute_pl, brute_bel))


@pytest.mark.slow  # 2.5-11 s: left out of the quick and the floors runs
def test_large_non_bayesian_mechanisms_use_widened_float_tables():
    # above EXACT_EVENT_WORK (2 inputs x 2^12 events x 13 focal sets) the pl/bel tables are
    # float sums widened by (2m roundings) gamma: an upper bound, at most (4m + 16) u above
    from mechdesign.privacy.measures import EXACT_EVENT_WORK
    outputs = list(range(12))
    fsets = [frozenset([y]) for y in outputs] + [frozenset(outputs)]
    rng = np.random.default_rng(5)
    masses = rng.dirichlet(np.ones(13), size=2)
    masses[1] = masses[0] * (1 + 1e-9 * rng.uniform(-1, 1, 13))  # ratios near 1
    masses[1] /= masses[1].sum()
    ev = EvidentialMechanism(masses, fsets, outputs=outputs)
    assert ev.n_inputs * 2 ** 12 * 13 > EXACT_EVENT_WORK and not ev.is_bayesian
    slack = (4 * 12 + 16) * U
    for kind, f in (("pl", brute_pl), ("bel", brute_bel)):
        assert_upper_bound(epsilon_sldp(ev, kind), exact_event_epsilon(ev, f, f),
                           absolute=slack)
    assert_upper_bound(epsilon_wldp(ev), exact_event_epsilon(ev, brute_pl, brute_bel),
                       absolute=slack)


def test_identical_rows_measure_zero_everywhere():
    ev = EvidentialMechanism([[0.25, 0.25, 0.5]] * 3, [{"a"}, {"b"}, {"a", "b"}])
    assert epsilon_sldp(ev, "pl") == epsilon_sldp(ev, "bel") == epsilon_sldp(ev) == 0.0
    assert epsilon_ldp(Mechanism([[0.3, 0.7], [0.3, 0.7]])) == 0.0
    assert epsilon_deletion(Mechanism([[0.25, 0.75], [0.25, 0.75]])).epsilon == 0.0
    # but fl(0.3) + fl(0.7) = 1 - 2^-54 exactly: no reference summing to 1 matches the rows,
    # and the deletion epsilon is -ln(1 - 2^-54) = 5.55e-17 > 0 (the old measure read 0)
    Q = np.array([[0.3, 0.7], [0.3, 0.7]])
    assert Fraction(0.3) + Fraction(0.7) == 1 - Fraction(1, 2 ** 54)
    assert_upper_bound(epsilon_deletion(Q).epsilon, exact_deletion(Q))
