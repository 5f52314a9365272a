"""Exact verification (mechdesign.privacy.verify): reference ratios computed by hand,
agreement with the float measures of analysis/privacy.py, boundary cases where float
arithmetic errs either way (decided against mpmath at 80 digits, an independent method),
and the catalog mechanisms."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import networkx as nx
import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.errors import InvalidParameterError, SizeLimitError
from mechdesign.privacy.verify import (
    MAX_EXACT_ENTRIES,
    NOTIONS,
    exp_bracket,
    verify_exact,
)
from tests.strategies import evidential_mechanisms, mechanisms

YN = [frozenset({"Yes"}), frozenset({"No"}), frozenset({"Yes", "No"})]


@pytest.fixture(autouse=True)
def _eighty_digits():
    """The references here are computed at 80 digits, whatever precision another test
    module left mpmath's global context in (set per test, not at import: tests run in
    any order, e.g. under pytest-xdist)."""
    with mp.workdps(80):
        yield


def mp_ldp_holds(Q: np.ndarray, eps: float, scale: float = 1.0) -> bool:
    """Independent reference: every column ratio against exp(scale * eps) in mpmath."""
    bound = mp.exp(mp.mpf(scale) * mp.mpf(eps))
    k, n = Q.shape
    for y in range(n):
        for x in range(k):
            for xp in range(k):
                a, b = mp.mpf(float(Q[x, y])), mp.mpf(float(Q[xp, y]))
                if a > 0 and (b == 0 or a / b > bound):
                    return False
    return True


# ------------------------------------------------------------------------------ references
def test_warner_three_to_one_is_exactly_ln3_ldp():
    # Q = [[3/4, 1/4], [1/4, 3/4]] is dyadic: the ratio is exactly 3 (Li et al. 2022, s.4)
    w = md.warner(0.75)
    v = verify_exact(w, "ldp", 1.0986123)  # ln 3 = 1.09861228866811...
    assert v.holds is True and v.ratio == Fraction(3)
    assert v.witness.column == 0 and (v.witness.x, v.witness.x_prime) == (0, 1)
    assert verify_exact(w, "ldp", 1.0986122).holds is False
    # fl(ln 3) = 1.0986122886681098 > ln 3 (mpmath), so it holds at the float too
    assert mp.mpf(math.log(3)) > mp.log(3)
    assert verify_exact(w, "ldp", math.log(3)).holds is True


def test_witness_is_the_worst_column():
    Q = [[0.5, 0.375, 0.125], [0.25, 0.25, 0.5]]  # column ratios 2, 3/2, 4
    v = verify_exact(Q, "ldp", 1.0)
    assert v.holds is False and v.ratio == Fraction(4)
    assert (v.witness.x, v.witness.x_prime, v.witness.column) == (1, 0, 2)
    assert v.excess == pytest.approx(math.log(4) - 1.0, rel=1e-12)


@pytest.mark.parametrize(("notion", "ratio"), [
    # dont_know(1/2, 1/8) is dyadic; sheet s.7: eps_S = ln(p/q), eps_pl = ln((1-q)/(1-p)),
    # eps_bel = ln(p/q), eps_W = ln((1-q)/q): ratios 4, 7/4, 4, 7 exactly
    ("sldp_mass", Fraction(4)), ("sldp_pl", Fraction(7, 4)), ("sldp_bel", Fraction(4)),
    ("wldp", Fraction(7)),
])
def test_dont_know_exact_ratios(notion, ratio):
    v = verify_exact(md.dont_know(0.5, 0.125), notion, 3.0)
    assert v.ratio == ratio and v.holds is True
    assert verify_exact(md.dont_know(0.5, 0.125), notion, math.log(ratio) * (1 - 1e-12)
                        ).holds is False


@pytest.mark.parametrize(("notion", "ratio"), [
    ("sldp_mass", 3), ("sldp_bel", 3), ("sldp_pl", 2), ("wldp", 4)])
def test_dont_know_sanity_example_of_the_sheet(notion, ratio):
    # docs/belief_functions.md s.4, p = .6, q = .2: r_S = r_bel = 3, r_pl = 2, r_W = 4 (up to the
    # rounding of 0.6 and 0.2 to binary)
    v = verify_exact(md.dont_know(0.6, 0.2), notion, 2.0)
    assert float(v.ratio) == pytest.approx(ratio, rel=1e-15)


def test_lemma_3_2_shape_mass_infinite_pl_bel_finite():
    # a dyadic version of the sheet's Lemma 3.2 example: m_x = ({a}: 1/2, {b}: 1/2),
    # m_x' = ({a}: 3/8, {b}: 3/8, Y: 1/4). bel ratio: (1/2)/(3/8) = 4/3; pl ratio:
    # pl_x'({a}) / pl_x({a}) = (5/8)/(1/2) = 5/4; mass: Y has 1/4 against 0 -> inf;
    # WLDP: max pl({a}) / min bel({a}) = (5/8)/(3/8) = 5/3.
    ev = md.EvidentialMechanism([[0.5, 0.5, 0.0], [0.375, 0.375, 0.25]],
                                [{"a"}, {"b"}, {"a", "b"}], outputs=("a", "b"))
    assert verify_exact(ev, "sldp_bel", 1.0).ratio == Fraction(4, 3)
    assert verify_exact(ev, "sldp_pl", 1.0).ratio == Fraction(5, 4)
    assert verify_exact(ev, "wldp", 1.0).ratio == Fraction(5, 3)
    v = verify_exact(ev, "sldp_mass", 50.0)
    assert v.holds is False and v.ratio == math.inf and v.excess == math.inf


def test_wldp_and_sldp_are_incomparable():
    # sheet s.2 item 3, dyadic version: m_x = (a: 1/4, b: 1/4, Y: 1/2),
    # m_x' = (a: 3/8, b: 3/8, Y: 1/4): r_S = max(3/2, 2) = 2 but r_W = (3/4)/(1/4) = 3
    ev = md.EvidentialMechanism([[0.25, 0.25, 0.5], [0.375, 0.375, 0.25]],
                                [{"a"}, {"b"}, {"a", "b"}], outputs=("a", "b"))
    assert verify_exact(ev, "sldp_mass", 1.0).ratio == Fraction(2)
    assert verify_exact(ev, "wldp", 1.0).ratio == Fraction(3)


def test_deletion_closed_form_and_a_float_boundary():
    # Q = [[3/4, 1/4], [1/4, 3/4]]: eps_LDP = ln 3, sum max = 3/2, sum min = 1/2, so
    # eps_del = max(ln3 / 2, ln 1.5, ln 2) = ln 2 (the sum-of-minima condition binds)
    Q = md.Mechanism([[0.75, 0.25], [0.25, 0.75]])
    # the float measure is an upper bound on ln 2 within 8 ulps (it used to be fl(ln 2),
    # which is below ln 2), so the exact check at the float measure holds
    eps_f = md.epsilon_deletion(Q).epsilon
    assert mp.mpf(eps_f) >= mp.log(2)
    assert eps_f <= math.log(2) + 8 * math.ulp(math.log(2))
    assert verify_exact(Q, "deletion_ldp", eps_f).holds is True
    v = verify_exact(Q, "deletion_ldp", math.log(2))
    # fl(ln 2) < ln 2 (mpmath), so at the float epsilon the exact answer is NO, by
    # ln 2 - fl(ln 2) = 2.3e-17
    assert v.holds is False and v.ratio == Fraction(2)
    assert v.witness.condition.startswith("sum_y min_x")
    assert v.excess == pytest.approx(float(mp.log(2) - mp.mpf(math.log(2))), rel=1e-6)
    assert verify_exact(Q, "deletion_ldp", math.log(2) + 1e-15).holds is True


def test_approximate_ldp_threshold_is_exact():
    # warner(3/4), delta = 1/4: H(t) = 3/4 - t/4 on [1, 3] (the set {Yes}, row P against
    # notP), equal to delta at t* = 2: the smallest e^eps this delta allows is exactly 2
    v = verify_exact(md.warner(0.75), "approx_ldp", math.log(2) + 1e-12, 0.25)
    assert v.ratio == Fraction(2) and v.holds is True
    assert v.witness.event == frozenset({0})
    assert verify_exact(md.warner(0.75), "approx_ldp", math.log(2) - 1e-12, 0.25).holds is False
    # at eps = 0 the hockey-stick sum is exactly 1/2 (total variation)
    v0 = verify_exact(md.warner(0.75), "approx_ldp", 0.0, 0.5)
    assert v0.holds is True and v0.achieved_delta == (Fraction(1, 2), Fraction(1, 2))
    assert verify_exact(md.warner(0.75), "approx_ldp", 0.0, 0.4999).holds is False


def test_lemma_4_2_counterexample():
    # Huang & Canonne Lemma 4.2: at eps = 1/4, delta = 1/6 R is deletion (eps, delta)-LDP
    # (uniform reference, up to the rounding of the construction), but not replacement
    # (2 eps, 2 delta): its delta at 2 eps is (e^eps + 1) delta = 0.3807 > 1/3.
    R = md.catalog.deletion_counterexample(0.25, 1 / 6)
    v = verify_exact(R, "deletion_ldp", 0.25, 1 / 6)
    assert v.holds is True or v.excess <= 1e-15
    assert v.achieved_delta[0] <= Fraction(1, 6) + Fraction(1, 10**15)
    rep = verify_exact(R, "approx_ldp", 0.5, 1 / 3)
    assert rep.holds is False
    assert float(rep.achieved_delta[0]) == pytest.approx((math.exp(0.25) + 1) / 6, rel=1e-12)


def test_epsilon_zero_is_exact():
    same = [[0.25, 0.75], [0.25, 0.75]]
    assert verify_exact(same, "ldp", 0.0).holds is True
    assert verify_exact(same, "ldp", 0.0).threshold == (Fraction(1), Fraction(1))
    assert verify_exact([[0.25, 0.75], [0.25 + 2**-50, 0.75 - 2**-50]], "ldp", 0.0
                        ).holds is False


def test_huge_epsilon_holds_unless_a_ratio_is_infinite():
    assert verify_exact(md.randomized_response(3, 1.0), "ldp", 1e6).holds is True
    v = verify_exact([[1.0, 0.0], [0.5, 0.5]], "ldp", 1e6)
    assert v.holds is False and v.ratio == math.inf


# ------------------------------------------------------------------------------ boundaries
def test_warner_at_its_float_epsilon_is_decided_exactly():
    # Build Warner with p = e^eps/(1 + e^eps) in floats and ask: is it (its own float
    # epsilon)-LDP? The naive float measure log(p) - log(1 - p) errs both ways against the
    # exact answer (mpmath, 80 digits); epsilon_ldp is an upper bound within 8 ulps, so the
    # exact check at it always holds.
    naive_verdicts = []
    for eps in np.linspace(0.01, 6, 240):
        p = 1.0 / (1.0 + math.exp(-eps))
        w = md.warner(p)
        eps_f = md.epsilon_ldp(w)
        v = verify_exact(w, "ldp", eps_f)
        assert v.holds is True and mp_ldp_holds(w.matrix, eps_f), (eps, v.message)
        assert -8 * math.ulp(eps_f) <= v.excess <= 0  # exact ln(ratio) - eps_f
        naive = math.log(w.matrix[0, 0]) - math.log(w.matrix[1, 0])
        naive_verdicts.append(mp_ldp_holds(w.matrix, naive))
    assert any(naive_verdicts) and not all(naive_verdicts)  # naive rounding errs both ways


@pytest.mark.slow  # 2.5-11 s: left out of the quick and the floors runs
def test_float_comparison_errs_both_ways_exact_does_not():
    # Q = [[a, 1-a], [b, 1-b]] with b = a e^-eps rounded: column 0 binds (a <= 1/2). The
    # float test a <= exp(eps) * b gets some cases wrong in each direction.
    rng = np.random.default_rng(2024)
    wrong_yes = wrong_no = 0
    for _ in range(3000):
        eps = float(rng.uniform(0.05, 3.0))
        a = float(rng.uniform(0.2, 0.5))
        b = a / math.exp(eps)
        Q = np.array([[a, 1 - a], [b, 1 - b]])
        float_says = a <= math.exp(eps) * b
        truth = mp_ldp_holds(Q, eps)
        v = verify_exact(Q, "ldp", eps)
        assert v.holds is truth
        wrong_yes += float_says and not truth
        wrong_no += (not float_says) and truth
    assert wrong_yes > 0 and wrong_no > 0


def test_undecidable_at_low_precision_decided_at_high():
    # P/Q is the best rational approximation of e with Q <= 2^50; a = P/2^53, b = Q/2^53
    # are exact floats, so the column ratio a/b is within ~1e-30 of e: 20 digits cannot
    # tell, 60 digits can (and agree with mpmath).
    target = Fraction(mp.nstr(mp.e, 70)).limit_denominator(2**50)
    P, Qd = target.numerator, target.denominator
    assert P < 2**52
    a, b = P / 2**53, Qd / 2**53
    assert Fraction(a) / Fraction(b) == target
    M = np.array([[a, 1 - a], [b, 1 - b]])
    low = verify_exact(M, "ldp", 1.0, digits=20)
    assert low.holds is None and low.digits == 20
    high = verify_exact(M, "ldp", 1.0)
    assert high.holds is mp_ldp_holds(M, 1.0)
    assert high.holds is (mp.mpf(P) / Qd <= mp.e)


# ------------------------------------------------------------------------------ vs float
def _pattern(float_value: float, check, tol: float = 1e-12) -> None:
    """verify just above the float value holds; just below fails."""
    if math.isinf(float_value):
        v = check(50.0)
        assert v.holds is False and v.excess == math.inf
        return
    assert check(float_value * (1 + tol) + tol).holds is True
    if float_value > 1e-9:
        assert check(float_value * (1 - tol) - tol).holds is False


@settings(max_examples=80, deadline=None)
@given(mechanisms())
def test_ldp_and_deletion_agree_with_float_measures(m):
    _pattern(md.epsilon_ldp(m), lambda e: verify_exact(m, "ldp", e))
    _pattern(md.epsilon_deletion(m).epsilon, lambda e: verify_exact(m, "deletion_ldp", e))
    eps = md.epsilon_ldp(m)
    v = verify_exact(m, "ldp", 1.0)
    if math.isfinite(eps):
        assert math.log(v.ratio) == pytest.approx(eps, abs=1e-12)
    # mass SLDP of an ordinary mechanism is its LDP
    assert verify_exact(m, "sldp_mass", 1.0).holds is v.holds


@settings(max_examples=50, deadline=None)
@given(mechanisms(), st.integers(0, 1000))
def test_metric_agrees_with_float_measure(m, seed):
    k = m.n_inputs
    P = np.random.default_rng(seed).uniform(0, 2, size=(k, 2))
    D = np.hypot(*(P[:, None, :] - P[None, :, :]).transpose(2, 0, 1))
    _pattern(md.epsilon_metric(m, D), lambda e: verify_exact(m, "metric", e, distance=D))


@settings(max_examples=60, deadline=None)
@given(evidential_mechanisms())
def test_evidential_notions_agree_with_float_measures(ev):
    for kind in ("mass", "pl", "bel"):
        _pattern(md.epsilon_sldp(ev, kind), lambda e, kind=kind: verify_exact(
            ev, f"sldp_{kind}", e))
    _pattern(md.epsilon_wldp(ev), lambda e: verify_exact(ev, "wldp", e))


@settings(max_examples=60, deadline=None)
@given(mechanisms(), st.floats(0.0, 3.0))
def test_approx_ldp_agrees_with_delta_ldp(m, eps):
    d = md.delta_ldp(m, eps)
    v = verify_exact(m, "approx_ldp", eps, min(1.0, d + 1e-12))
    lo, hi = v.achieved_delta
    # (a stored row may sum to 1 + 2^-54: then the exact delta exceeds 1)
    assert v.holds is (True if d + 1e-12 <= 1.0 else hi <= 1)
    assert float(lo) - 1e-15 <= d <= float(hi) + 1e-15
    if d > 1e-11:
        assert verify_exact(m, "approx_ldp", eps, d - 1e-12).holds is False
    # the reported ratio t* is the smallest e^eps at which this delta holds
    t = verify_exact(m, "approx_ldp", eps, 0.05).ratio
    if isinstance(t, Fraction) and t > 1:
        ln_t = math.log(t)
        assert verify_exact(m, "approx_ldp", ln_t * (1 + 1e-9) + 1e-12, 0.05).holds is True
        assert verify_exact(m, "approx_ldp", ln_t * (1 - 1e-9), 0.05).holds is False


# found by this test at 800 examples: the old dual bound put weight 0 or lambda on whole
# columns and missed the columns tight at the optimum (Q[x, y] = e r_y), which carry a
# fractional weight; its bracket was [0.015988, 0.020293] (width 4.3e-3). With per-entry
# weights it is 3.3e-17 wide.
DELETION_BRACKET_EXAMPLE = md.Mechanism([
    [0.2857142857142857, 0.2857142857142857, 0.14285714285714285, 0.2857142857142857],
    [0.42105263157894735, 0.05263157894736842, 0.42105263157894735, 0.10526315789473684],
    [0.14285714285714285, 0.2857142857142857, 0.2857142857142857, 0.2857142857142857]])


@settings(max_examples=25, deadline=None)
@given(mechanisms(zeros=False, tiny=False), st.floats(0.05, 2.0))
@example(DELETION_BRACKET_EXAMPLE, 0.75)
def test_approx_deletion_bracket_is_tight_valid_and_matches_the_float_lp(m, eps):
    d = md.privacy.delta_deletion(m, eps)
    v = verify_exact(m, "deletion_ldp", eps, min(1.0, d + 1e-7))
    lo, hi = v.achieved_delta
    assert lo <= hi and float(hi - lo) <= 1e-8
    assert float(lo) - 1e-8 <= d <= float(hi) + 1e-8
    if d + 1e-7 <= 1.0:
        assert v.holds is True
    if d > 1e-6:
        assert verify_exact(m, "deletion_ldp", eps, d - 1e-6).holds is False
    # the lower end is a valid bound: no reference r does better (mpmath, random r)
    rng = np.random.default_rng(int(eps * 1e6))
    e = mp.exp(mp.mpf(eps))
    Q = [[mp.mpf(float(v)) for v in row] for row in m.matrix]
    for _ in range(20):
        r = [mp.mpf(float(v)) for v in rng.dirichlet(np.ones(m.n_outputs))]
        worst = max(max(sum(max(0, q - e * ry) for q, ry in zip(row, r, strict=True)),
                        sum(max(0, ry - e * q) for q, ry in zip(row, r, strict=True)))
                    for row in Q)
        assert worst >= mp.mpf(lo.numerator) / lo.denominator - mp.mpf(10) ** -40


def test_deletion_bracket_example_is_pinned_with_its_values():
    v = verify_exact(DELETION_BRACKET_EXAMPLE, "deletion_ldp", 0.75, 0.0203)
    lo, hi = v.achieved_delta
    assert float(hi - lo) <= 1e-15
    # the float LP (a second method) agrees with both ends
    d = md.privacy.delta_deletion(DELETION_BRACKET_EXAMPLE, 0.75)
    assert float(lo) - 1e-10 <= d <= float(hi) + 1e-10
    assert d == pytest.approx(0.0202932306262, abs=1e-12)
    assert v.holds is True  # 0.0203 > hi
    assert verify_exact(DELETION_BRACKET_EXAMPLE, "deletion_ldp", 0.75, 0.0202).holds is False


@settings(max_examples=40, deadline=None)
@given(mechanisms(), st.floats(0.0, 4.0))
def test_approx_deletion_is_decided_except_inside_its_bracket(m, eps):
    # zeros, 1e-18 entries and eps = 0 included: the bracket is the LP tolerance wide, so
    # every delta farther than that from the LP optimum is decided, either way
    d = md.privacy.delta_deletion(m, eps)
    v = verify_exact(m, "deletion_ldp", eps, min(1.0, d + 1e-8))
    lo, hi = v.achieved_delta
    assert float(hi - lo) <= 1e-9
    if d + 1e-8 <= 1.0:
        assert v.holds is True
    if d > 1e-8:
        assert verify_exact(m, "deletion_ldp", eps, d - 1e-8).holds is False


def test_deletion_counterexample_holds_at_the_papers_parameters():
    # Huang & Canonne Lemma 4.2 at eps = 1/4, delta = 1/6 (the float 1/6): the uniform
    # reference is tight in four entries; rounded in the safe direction, the stored matrix is
    # exactly (eps, delta)-deletion private, proved with the reference snapped to (1/3, 1/3,
    # 1/3). (Before: rounded to nearest, the smallest delta exceeded fl(1/6) and the check
    # was False.)
    R = md.catalog.deletion_counterexample()
    v = verify_exact(R, "deletion_ldp", 0.25, 1 / 6)
    assert v.holds is True and v.achieved_delta[1] <= Fraction(1 / 6)
    assert "made exact" in v.witness.condition
    # at other parameters the construction need not hold, and is disproved when it fails
    # (eps = 1/4, delta = 0.3: the smallest delta is 0.3 + 0.00871)
    w = verify_exact(md.catalog.deletion_counterexample(0.25, 0.3), "deletion_ldp", 0.25, 0.3)
    assert w.holds is False and float(w.achieved_delta[0]) == pytest.approx(0.3087113159,
                                                                            abs=1e-9)


# ------------------------------------------------------------------------------ tolerance
def test_tolerance_is_in_epsilon_units_for_pure_notions():
    # warner(3/4): ratio exactly 3, so the exact epsilon is ln 3 (mpmath)
    w = md.warner(0.75)
    below = math.log(3) - 1e-12  # 1e-12 (to a few 1e-17) under ln 3
    assert verify_exact(w, "ldp", below).holds is False
    v = verify_exact(w, "ldp", below, tolerance=2e-12)
    assert v.holds is True
    # excess is still measured against the target itself: ln 3 - below, about 1e-12
    assert v.excess == pytest.approx(float(mp.log(3) - mp.mpf(below)), rel=1e-9)
    assert "tolerance 2e-12" in v.message
    assert verify_exact(w, "ldp", below, tolerance=5e-13).holds is False
    # mass SLDP and deletion (delta = 0) likewise; deletion epsilon is ln 2 here
    # (test_deletion_closed_form_and_a_float_boundary)
    assert verify_exact(w, "sldp_mass", below, tolerance=2e-12).holds is True
    del_below = math.log(2) - 1e-12
    assert verify_exact(w, "deletion_ldp", del_below).holds is False
    assert verify_exact(w, "deletion_ldp", del_below, tolerance=2e-12).holds is True
    # metric: the bound is e^{(eps + tol) d}; ratio 2 at distance 0.75 (exact graph path)
    G = nx.Graph()
    G.add_edge("x", "hub", weight=0.25)
    G.add_edge("hub", "y", weight=0.5)
    m = md.Mechanism([[0.5, 0.5], [0.25, 0.75]], inputs=["x", "y"])
    eps_m = math.log(2) / 0.75 - 1e-12
    assert verify_exact(m, "metric", eps_m, distance=G).holds is False
    assert verify_exact(m, "metric", eps_m, distance=G, tolerance=2e-12).holds is True
    assert verify_exact(m, "metric", eps_m, distance=G, tolerance=5e-13).holds is False
    # default 0 is the strict check, unchanged
    assert verify_exact(w, "ldp", math.log(3), tolerance=0.0) == verify_exact(
        w, "ldp", math.log(3))


def test_tolerance_is_in_delta_units_for_approximate_notions():
    # warner(3/4): H(t) = 3/4 - t/4 (test_approximate_ldp_threshold_is_exact); at
    # eps = ln 2 - 1e-12, t = 2 e^-1e-12 and H = 1/4 + 5e-13 (mpmath)
    w = md.warner(0.75)
    eps = math.log(2) - 1e-12
    h = mp.mpf(3) / 4 - mp.exp(mp.mpf(eps)) / 4
    assert float(h - mp.mpf(1) / 4) == pytest.approx(5e-13, rel=1e-3)
    assert verify_exact(w, "approx_ldp", eps, 0.25).holds is False
    assert verify_exact(w, "approx_ldp", eps, 0.25, tolerance=6e-13).holds is True
    assert verify_exact(w, "approx_ldp", eps, 0.25, tolerance=4e-13).holds is False
    # deletion with delta > 0: the counterexample at (1/4, 0.3) needs 0.3 + 0.00871
    R = md.catalog.deletion_counterexample(0.25, 0.3)
    assert verify_exact(R, "deletion_ldp", 0.25, 0.3, tolerance=0.0088).holds is True
    assert verify_exact(R, "deletion_ldp", 0.25, 0.3, tolerance=0.0086).holds is False


@settings(max_examples=60, deadline=None)
@given(mechanisms(zeros=False), st.floats(0.0, 1.0), st.floats(1e-6, 1.0))
def test_tolerance_accepts_exactly_up_to_target_plus_tolerance(m, frac, tol_frac):
    # holds(eps, tolerance) is "exact epsilon <= eps + tolerance" (exact rationals), decided
    # against mpmath at 80 digits (an independent method); near-ties are skipped
    exact = verify_exact(m, "ldp", 1.0).ratio
    assume(isinstance(exact, Fraction) and exact > 1)
    e_exact = mp.log(mp.mpf(exact.numerator) / exact.denominator)
    eps = float(e_exact) * frac
    tol = float(e_exact) * tol_frac
    limit = mp.mpf(eps) + mp.mpf(tol)
    assume(abs(limit - e_exact) > mp.mpf(10) ** -30)
    assert verify_exact(m, "ldp", eps, tolerance=tol).holds is bool(e_exact <= limit)


@pytest.mark.parametrize(("tol", "match"), [
    (-1.0, r"tolerance must be >= 0, got -1\.0"),
    (float("nan"), r"tolerance must not be NaN, got nan"),
    (float("inf"), r"tolerance must be finite, got inf"),
    ("0.1", r"tolerance must be a real number, got '0\.1'"),
])
def test_bad_tolerance(tol, match):
    with pytest.raises(InvalidParameterError, match=match):
        verify_exact(md.warner(0.75), "ldp", 1.0, tolerance=tol)


# ------------------------------------------------------------------------------ catalog
@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.5])
@pytest.mark.parametrize("make", [
    lambda e: md.randomized_response(2, e), lambda e: md.randomized_response(5, e),
    lambda e: md.catalog.subset_selection(5, 2, e), lambda e: md.catalog.hadamard_response(5, e),
    lambda e: md.catalog.unary_encoding(3, e),
    lambda e: md.catalog.unary_encoding(3, e, optimized=True),
])
def test_catalog_ldp_mechanisms_at_their_nominal_epsilon(make, eps):
    mech = make(eps)
    v = verify_exact(mech, "ldp", eps)
    assert v.holds is mp_ldp_holds(mech.matrix, eps)  # the exact verdict is the true one
    assert math.log(v.ratio) == pytest.approx(eps, abs=1e-14)
    assert verify_exact(mech, "ldp", eps + 1e-13).holds is True


@pytest.mark.parametrize("eps", [0.2, 0.7, 1.5])
def test_truncated_geometric_is_metric_private_on_the_line(eps):
    tg = md.catalog.truncated_geometric(5, eps)
    v = verify_exact(tg, "metric", eps, distance=md.neighbors.line_distance(5))
    # independent: every adjacent pair against exp(eps) in mpmath
    truth = all(mp_ldp_holds(tg.matrix[[x, x + 1]], eps) for x in range(4))
    assert v.holds is truth
    assert verify_exact(tg, "metric", eps + 1e-13, distance=nx.path_graph(5)).holds is True
    assert verify_exact(tg, "ldp", 4 * eps - 1e-9).holds is False  # LDP eps is (n-1) eps


# ------------------------------------------------------------------------------ inputs
def test_graph_distances_are_summed_exactly():
    # d(0, 2) = 0.1 + 0.2 along the path, exactly 0.3000000000000000166533453693773481...;
    # the float sum is 0.30000000000000004 and the literal 0.3 is below both
    G = nx.Graph()
    G.add_edge(0, 1, weight=0.1)
    G.add_edge(1, 2, weight=0.2)
    Q = np.array([[0.5, 0.5], [0.45, 0.55], [0.4, 0.6]])
    v = verify_exact(Q, "metric", 1.0, distance=G)
    pair = {v.witness.x, v.witness.x_prime}
    d = {frozenset({0, 1}): Fraction(0.1), frozenset({1, 2}): Fraction(0.2),
         frozenset({0, 2}): Fraction(0.1) + Fraction(0.2)}[frozenset(pair)]
    assert v.threshold == exp_bracket(d)


def test_graph_paths_through_nodes_that_are_not_inputs():
    G = nx.Graph()
    G.add_edge("x", "hub", weight=0.25)
    G.add_edge("hub", "y", weight=0.5)
    G.add_edge("x", "y", weight=2.0)
    w = md.Mechanism([[0.5, 0.5], [0.25, 0.75]], inputs=["x", "y"])  # ratio 2
    v = verify_exact(w, "metric", math.log(2) / 0.75 + 1e-12, distance=G)
    assert v.holds is True and v.ratio == Fraction(2)
    assert verify_exact(w, "metric", math.log(2) / 0.75 - 1e-9, distance=G).holds is False


def test_notion_objects_match_names():
    m = md.Mechanism([[0.5, 0.375, 0.125], [0.25, 0.25, 0.5], [0.125, 0.5, 0.375]])
    D = md.neighbors.line_distance(3)
    pairs = [
        (md.LDP(1.2), ("ldp", 1.2)), (md.ApproxLDP(0.5, 0.1), ("approx_ldp", 0.5, 0.1)),
        (md.DeletionLDP(0.9), ("deletion_ldp", 0.9)),
        (md.DeletionLDP(0.3, 0.2), ("deletion_ldp", 0.3, 0.2)),
        (md.MetricDP(0.8, D), ("metric", 0.8, 0.0, D)),
        (md.MetricDP(0.8, D, spanner=1.5), ("metric", 0.8, 0.0, D)),  # checked on all pairs
        (md.MetricDP(0.8, nx.path_graph(3)), ("metric", 0.8, 0.0, D)),
        (md.SLDP(1.5, "pl"), ("sldp_pl", 1.5)), (md.SLDP(1.5, "bel"), ("sldp_bel", 1.5)),
        (md.SLDP(1.5), ("sldp_mass", 1.5)), (md.WLDP(2.0), ("wldp", 2.0)),
    ]
    for obj, args in pairs:
        a, b = verify_exact(m, obj), verify_exact(m, *args)
        assert (a.notion, a.holds, a.ratio, a.excess) == (b.notion, b.holds, b.ratio, b.excess)
    assert set(NOTIONS) == {"ldp", "approx_ldp", "deletion_ldp", "metric", "sldp_mass",
                            "sldp_pl", "sldp_bel", "wldp"}
    assert verify_exact(m, "sldp", 1.0).notion == "sldp_mass"


def test_analysis_layer_does_not_import_the_design_layer():
    import ast
    import pathlib

    import mechdesign.privacy.verify as mod

    tree = ast.parse(pathlib.Path(mod.__file__).read_text())
    names = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [n for n in names if "design" in n or "cvxpy" in n]


def test_size_limits():
    big = np.full((21, 20), 1 / 20)
    with pytest.raises(SizeLimitError, match=r"21 x 20 = 420"):
        verify_exact(big, "ldp", 1.0)
    assert 20 * 20 <= MAX_EXACT_ENTRIES
    assert verify_exact(np.full((20, 20), 1 / 20), "ldp", 0.0).holds is True
    ev = md.EvidentialMechanism([[0.5, 0.5], [0.25, 0.75]], [{0}, set(range(1, 11))])
    with pytest.raises(SizeLimitError, match=r"m = 11 outputs exceeds 10"):
        verify_exact(ev, "wldp", 1.0)
    assert verify_exact(ev, "sldp_mass", 1.0).ratio == Fraction(2)  # no events needed


@pytest.mark.parametrize(("args", "kwargs", "match"), [
    (("renyi", 1.0), {}, r"unknown notion 'renyi'"),
    (("ldp",), {}, r"'ldp' needs an epsilon"),
    (("ldp", -0.5), {}, r"epsilon must be >= 0, got -0\.5"),
    (("ldp", float("nan")), {}, r"got nan"),
    (("ldp", float("inf")), {}, r"must be finite, got inf"),
    (("approx_ldp", 1.0, 1.5), {}, r"delta must lie in \[0, 1\], got 1\.5"),
    (("ldp", 1.0, 0.1), {}, r"delta = 0\.1 does not apply to notion 'ldp'"),
    (("metric", 1.0), {}, r"'metric' needs a distance"),
    (("ldp", 1.0), {"distance": np.eye(2)}, r"distance does not apply to notion 'ldp'"),
    ((md.LDP(1.0), 2.0), {}, r"carries its own parameters"),
    ((object(),), {}, r"got <object object"),
    (("ldp", 1.0), {"digits": 5}, r"digits must be >= 20, got 5"),
])
def test_bad_arguments(args, kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        verify_exact(md.warner(0.75), *args, **kwargs)
