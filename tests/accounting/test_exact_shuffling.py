"""Tests of :mod:`mechdesign.accounting.exact_shuffling`: the exact privacy of n shuffled
reports of a finite randomizer and robust shuffle privacy (docs/accounting.md s.7).

Pinned: shuffled binary RR against an enumeration in exact fractions; any small matrix
against a brute-force sum over the datasets of the other users; one user is the local
randomizer; the worst dataset need not put all others at one value; the exact delta is
under the clone bound and non-increasing in n, and the exact epsilon inverts it; honest
users and robust shuffling are the shuffle of the honest reports; bad input, the work limit
and degenerate randomizers. (The exact subsampled randomizer: test_exact_subsampling.py.)
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.accounting import (
    exact_shuffle_delta,
    exact_shuffle_epsilon,
    honest_users,
    robust_shuffle_delta,
    robust_shuffle_epsilon,
    shuffle_delta,
    shuffle_epsilon,
)
from mechdesign.errors import InvalidParameterError, SizeLimitError
from mechdesign.privacy import delta_ldp
from tests.strategies import mechanisms


def fraction_rr_shuffle_delta(p_true, n, ratio):
    """Exact delta (Fractions) of n shuffled binary reports (user i reports its bit with
    probability p_true): the max over x != x' and every split of the other n - 1 bits of
    sum_j max(0, P(j) - ratio P'(j)), j the number of 1-reports."""
    q1 = {0: 1 - p_true, 1: p_true}  # P(report 1 | bit)

    def law(bits):
        out = [Fraction(1)]
        for b in bits:
            t = q1[b]
            new = [Fraction(0)] * (len(out) + 1)
            for j, v in enumerate(out):
                new[j] += v * (1 - t)
                new[j + 1] += v * t
            out = new
        return out

    best = Fraction(0)
    for ones in range(n):
        R = law([1] * ones + [0] * (n - 1 - ones))
        for x, xp in ((0, 1), (1, 0)):
            P = [Fraction(0)] * (n + 1)
            Pp = [Fraction(0)] * (n + 1)
            for j, v in enumerate(R):
                P[j] += v * (1 - q1[x])
                P[j + 1] += v * q1[x]
                Pp[j] += v * (1 - q1[xp])
                Pp[j + 1] += v * q1[xp]
            terms = (max(Fraction(0), a - ratio * b) for a, b in zip(P, Pp, strict=True))
            best = max(best, sum(terms))
    return best


@pytest.mark.parametrize("n", [1, 2, 3, 10, 25, 50])
@pytest.mark.parametrize("ratio", [Fraction(1), Fraction(3, 2), Fraction(2)])
def test_shuffled_2rr_against_fraction_enumeration(n, ratio):
    # Warner(3/4) = binary RR(ln 3): entries 3/4, 1/4 are exact doubles
    w = md.warner(0.75)
    exact = fraction_rr_shuffle_delta(Fraction(3, 4), n, ratio)
    r = exact_shuffle_delta(w, n, math.log(ratio))
    assert r.delta == pytest.approx(float(exact), rel=1e-10, abs=1e-300)
    assert r.delta <= r.clone_bound + 1e-12  # the clone bound holds for every eps0-LDP Q
    assert r.clone_bound == shuffle_delta(math.log(3), n, math.log(ratio)).upper or \
        r.clone_bound == pytest.approx(shuffle_delta(r.epsilon0, n, math.log(ratio)).upper)


def dict_shuffle_delta(Q, n, eps, others=None):
    """Brute force: histograms as dict keys, every multiset of the others' values."""
    k, m = Q.shape

    def law(rows):
        out = {(0,) * m: 1.0}
        for q in rows:
            new = {}
            for h, v in out.items():
                for y in range(m):
                    hh = list(h)
                    hh[y] += 1
                    new[tuple(hh)] = new.get(tuple(hh), 0.0) + v * q[y]
            out = new
        return out

    def hs(P, Pp):
        return sum(max(0.0, P.get(h, 0.0) - math.exp(eps) * Pp.get(h, 0.0))
                   for h in set(P) | set(Pp))

    multisets = itertools.combinations_with_replacement(range(k), n - 1) if others is None \
        else [[z for z, c in enumerate(others) for _ in range(c)]]
    best, arg = 0.0, None
    for ms in multisets:
        R = [Q[z] for z in ms]
        for x, xp in itertools.permutations(range(k), 2):
            d = hs(law([Q[x], *R]), law([Q[xp], *R]))
            if d > best:
                best, arg = d, np.bincount(np.array(ms, dtype=int), minlength=k)
    return best, arg


@settings(max_examples=25, deadline=None)
@given(m=mechanisms(rows=(2, 3), cols=(2, 3), tiny=False), n=st.integers(1, 4),
       eps=st.floats(0.0, 1.5))
def test_exact_shuffle_of_any_matrix_against_brute_force(m, n, eps):
    ref, _ = dict_shuffle_delta(m.matrix, n, eps)
    r = exact_shuffle_delta(m, n, eps)
    assert r.delta == pytest.approx(ref, rel=1e-9, abs=1e-14)
    if math.isfinite(r.epsilon0):
        assert r.delta <= r.clone_bound + 1e-12


@settings(max_examples=40, deadline=None)
@given(m=mechanisms(tiny=False), eps=st.floats(0.0, 3.0))
def test_one_user_is_the_local_randomizer(m, eps):
    assert exact_shuffle_delta(m, 1, eps).delta == pytest.approx(delta_ldp(m, eps),
                                                                 rel=1e-12, abs=1e-15)


def test_the_worst_dataset_is_not_all_others_at_one_value():
    # shuffled binary RR(2), n = 10, eps = 0.5 (brute force in dict_shuffle_delta):
    # worst 8 others at x and 1 at x' (0.222305), all 9 at x gives 0.218327
    rr = md.randomized_response(2, 2.0)
    ref, counts = dict_shuffle_delta(rr.matrix, 10, 0.5)
    assert ref == pytest.approx(0.2223045743, rel=1e-9)
    r = exact_shuffle_delta(rr, 10, 0.5)
    assert r.delta == pytest.approx(ref, rel=1e-12)
    assert sorted(r.worst_others) == [1, 8] and sorted(counts) == [1, 8]
    fixed = exact_shuffle_delta(rr, 10, 0.5, others=(9, 0))
    assert fixed.delta == pytest.approx(dict_shuffle_delta(rr.matrix, 10, 0.5, (9, 0))[0],
                                        rel=1e-12)
    assert fixed.delta == pytest.approx(0.21832673, rel=1e-7) and fixed.delta < r.delta
    # 3-RR: the worst puts the others at a third value (brute force agrees)
    rr3 = md.randomized_response(3, 2.0)
    r3 = exact_shuffle_delta(rr3, 7, 0.3)
    assert r3.delta == pytest.approx(dict_shuffle_delta(rr3.matrix, 7, 0.3)[0], rel=1e-12)
    assert r3.worst_pair == (0, 1) and r3.worst_others == (0, 0, 6)


@pytest.mark.parametrize("k, eps0, n_max", [(2, 0.5, 50), (2, 3.0, 50), (3, 1.0, 15),
                                           (4, 2.0, 8)])
def test_exact_shuffle_under_the_clone_bound(k, eps0, n_max):
    rr = md.randomized_response(k, eps0)
    for n in sorted({1, 2, 5, n_max // 2, n_max}):
        for eps in (0.0, 0.1, 0.5 * eps0):
            r = exact_shuffle_delta(rr, n, eps)
            assert r.delta <= r.clone_bound + 1e-12
        for delta in (1e-12, 1e-6, 1e-2):
            r = exact_shuffle_epsilon(rr, n, delta)
            assert r.epsilon <= r.clone_bound + 1e-9
            assert r.epsilon <= eps0 + 1e-12


def test_exact_shuffle_epsilon_inverts_delta():
    rr = md.randomized_response(2, 1.0)
    assert exact_shuffle_epsilon(rr, 50, 0.1).epsilon == 0.0  # delta(0) = TV < 0.1
    for delta in (1e-12, 1e-6, 1e-3):
        r = exact_shuffle_epsilon(rr, 50, delta)
        assert 0 < r.epsilon < 1.0
        assert exact_shuffle_delta(rr, 50, r.epsilon).delta <= delta * (1 + 1e-9)
        assert exact_shuffle_delta(rr, 50, r.epsilon * (1 - 1e-6)).delta > delta
    # clone bound beside it: the public shuffle_epsilon at the same delta
    assert r.clone_bound == shuffle_epsilon(r.epsilon0, 50, 1e-3).epsilon


@settings(max_examples=30, deadline=None)
@given(k=st.integers(2, 3), eps0=st.floats(0.05, 4.0), eps=st.floats(0.0, 2.0),
       n=st.integers(1, 14))
def test_exact_shuffle_delta_non_increasing_in_n(k, eps0, eps, n):
    rr = md.randomized_response(k, eps0)
    assert exact_shuffle_delta(rr, n + 1, eps).delta <= \
        exact_shuffle_delta(rr, n, eps).delta * (1 + 1e-12) + 1e-15


# =========================================================================== robust
def test_honest_users():
    assert honest_users(30, 0.1) == 3  # read as 1/10, not the double above it
    assert honest_users(10, 0.25) == 3
    assert honest_users(10, 1.0) == 10
    assert honest_users(3, 1 / 3) == 1
    assert honest_users(7, 1e-9) == 1
    for bad in (0.0, -0.1, 1.5, math.nan):
        with pytest.raises(InvalidParameterError, match="gamma"):
            honest_users(10, bad)


def test_robust_shuffle_is_the_shuffle_of_the_honest_reports():
    rr = md.randomized_response(2, 1.0)
    r = exact_shuffle_delta(rr, 40, 0.3, gamma=0.5)
    assert r.honest == 20 and r.n == 40 and r.gamma == 0.5
    assert r.delta == exact_shuffle_delta(rr, 20, 0.3).delta
    # brute force: 20 honest users and 20 adversarial ones whose reports are known (all 1):
    # the histogram is the honest one shifted by 20 -- the same hockey-stick divergence
    ref, _ = dict_shuffle_delta(rr.matrix, 20, 0.3)
    assert r.delta == pytest.approx(ref, rel=1e-10)
    assert r.clone_bound == shuffle_delta(r.epsilon0, 20, 0.3).upper
    # fewer honest users never help
    deltas = [exact_shuffle_delta(rr, 40, 0.3, gamma=g).delta for g in (1.0, 0.5, 0.25, 0.1)]
    assert deltas == sorted(deltas)


def test_robust_clone_bound():
    full = shuffle_epsilon(4.0, 10**5, 1e-6)
    half = robust_shuffle_epsilon(4.0, 10**5, 1e-6, gamma=0.5)
    assert half.n == 50_000
    assert half.epsilon == shuffle_epsilon(4.0, 50_000, 1e-6).epsilon > full.epsilon
    assert robust_shuffle_delta(4.0, 1000, 0.5, 0.3) == shuffle_delta(4.0, 300, 0.5)
    assert robust_shuffle_epsilon(4.0, 10**5, 1e-6).epsilon == full.epsilon


def test_shuffle_bad_input():
    rr = md.randomized_response(2, 1.0)
    with pytest.raises(InvalidParameterError, match="n must be >= 1, got 0"):
        exact_shuffle_delta(rr, 0, 0.1)
    with pytest.raises(InvalidParameterError, match=r"epsilon must be >= 0, got -1\.0"):
        exact_shuffle_delta(rr, 5, -1.0)
    with pytest.raises(InvalidParameterError, match="delta must lie in"):
        exact_shuffle_epsilon(rr, 5, 2.0)
    with pytest.raises(InvalidParameterError, match="summing to 4"):
        exact_shuffle_delta(rr, 5, 0.1, others=(1, 1))
    with pytest.raises(InvalidParameterError, match="2 counts"):
        exact_shuffle_delta(rr, 5, 0.1, others=(1, 1, 2))
    with pytest.raises(InvalidParameterError, match="gamma"):
        exact_shuffle_delta(rr, 5, 0.1, gamma=0.0)
    with pytest.raises(SizeLimitError, match="MAX_SHUFFLE_WORK"):
        exact_shuffle_delta(md.randomized_response(6, 1.0), 200, 0.1)


def test_degenerate_randomizers():
    # eps0 = 0: one output class, delta 0; a non-private randomizer: clone bound trivial
    flat = md.Mechanism([[0.5, 0.5], [0.5, 0.5]])
    assert exact_shuffle_delta(flat, 10, 0.0).delta == 0.0
    ident = md.Mechanism(np.eye(2))
    r = exact_shuffle_delta(ident, 5, 1.0)
    assert r.delta == 1.0 and r.clone_bound == 1.0 and r.epsilon0 == math.inf
    assert exact_shuffle_epsilon(ident, 5, 0.5).epsilon == math.inf


@settings(max_examples=20, deadline=None)
@given(eps0=st.floats(0.1, 3.0), n=st.integers(2, 30), delta=st.floats(1e-12, 0.5))
def test_exact_shuffle_epsilon_below_clone_bound_binary(eps0, n, delta):
    r = exact_shuffle_epsilon(md.randomized_response(2, eps0), n, delta)
    assume(math.isfinite(r.clone_bound))
    assert r.epsilon <= r.clone_bound + 1e-9
