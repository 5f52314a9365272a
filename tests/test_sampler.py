"""The deployment sampler (:mod:`mechdesign.sampler`): exact for the stored floats, with the
same work and the same random bytes for every input row, and single-call times that do not
reveal the row."""

from __future__ import annotations

import bisect
import collections
import itertools
import os
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign import sampler as sampler_module
from mechdesign.sampler import REJECTION_TARGET, ExactSampler
from mechdesign.testing.timing import (
    BisectionSampler,
    WorkClock,
    threshold_accuracy,
    time_calls,
)
from tests.strategies import stochastic_matrices

EDGE_ROWS = [
    [1e-300, 1.0],               # 1e-300 + 1.0 == 1.0 in floating point; must stay drawable
    [0.1, 0.2, 0.7],
    [0.5, 0.0, 0.5],
    [0.0, 1e-18, 1.0 - 1e-18],
    [5e-324, 1.0],               # the smallest subnormal
]


@pytest.mark.parametrize("row", EDGE_ROWS)
def test_weights_are_proportional_to_the_stored_floats(row):
    s = ExactSampler([row])
    w = s.weights(0)
    exact = [Fraction(v) for v in np.asarray(row, dtype=float)]
    assert sum(w) == s.totals[0] == s.total
    for wi, f in zip(w, exact, strict=True):
        assert Fraction(wi, s.total) == f / sum(exact)  # exact proportionality, no rounding
        assert (wi == 0) == (f == 0)


@pytest.mark.parametrize("row", EDGE_ROWS)
def test_each_output_owns_exactly_its_weight_of_candidates(row):
    # output y owns the integers u in [C[y-1], C[y]): checked at both ends of every interval
    s = ExactSampler([row, row[::-1]])
    for x in range(2):
        cum = list(itertools.accumulate(s.weights(x)))
        for y, (lo, hi) in enumerate(zip([0, *cum[:-1]], cum, strict=True)):
            for u in {lo, hi - 1} if hi > lo else ():
                assert s.select(x, u) == y


@settings(max_examples=60, deadline=None)
@given(stochastic_matrices(rows=(1, 4), cols=(2, 6)), st.data())
def test_select_is_the_bisection_of_the_exact_table(Q, data):
    # a second method: bisection over the row's cumulative weights at the common scale; and
    # a candidate at or above the row's own total is rejected (the value m)
    s = ExactSampler(Q)
    for x in range(Q.shape[0]):
        cum = list(itertools.accumulate(s.weights(x)))
        for _ in range(20):
            u = data.draw(st.integers(0, s.total - 1))
            expected = bisect.bisect_right(cum, u) if u < s.totals[x] else Q.shape[1]
            assert s.select(x, u) == expected


def test_every_output_count_by_enumeration():
    # small totals: all candidates enumerated, each output drawn exactly w / S_x of them
    Q = [[0.5, 0.0, 0.5], [0.25, 0.75, 0.0], [0.125, 0.375, 0.5]]
    s = ExactSampler(Q)
    assert s.total == 8 and s.candidates == 1
    for x, row in enumerate(Q):
        counts = collections.Counter(s.select(x, u) for u in range(s.total))
        assert {y: Fraction(c, s.total) for y, c in counts.items()} == {
            y: Fraction(p) for y, p in enumerate(row) if p > 0}


def test_candidates_bound_the_second_round_by_two_to_the_minus_64():
    # rows whose exact sums differ: 0.1 + 0.9 is 1 + 2^-55 as dyadic rationals
    s = ExactSampler([[0.5, 0.5], [0.1, 0.9]])
    assert s.totals == (2 ** 55, 2 ** 55 + 1)
    reject = Fraction(1, 2 ** 55 + 1)
    assert s.candidates == 2 and reject ** 2 <= REJECTION_TARGET < reject
    # a row rejects exactly the candidates at or above its total
    assert s.select(0, 2 ** 55) == 2 and s.select(1, 2 ** 55) == 1
    assert ExactSampler([[0.5, 0.5], [0.25, 0.75]]).candidates == 1  # equal totals


def test_uniforms_are_uniform_and_in_range():
    n, t = 30_000, 0.025  # Hoeffding: P(|f - p| >= t) <= 2 exp(-2 n t^2) = 2 e^-37.5
    s = ExactSampler([[1 / 3, 2 / 3]])  # total 3 * 2^53 / 3 ... a non power of two
    u = np.array(s.uniforms(n), dtype=object)
    assert all(0 <= v < s.total for v in u)
    thirds = np.array([3 * v // s.total for v in u], dtype=int)
    np.testing.assert_allclose(np.bincount(thirds, minlength=3) / n, [1 / 3] * 3, atol=t)
    tiny = ExactSampler([[5e-324, 1.0]])  # a 1075-bit total
    assert all(0 <= v < tiny.total for v in tiny.uniforms(50))


def test_every_row_consumes_the_same_random_bytes(monkeypatch):
    # the randomness a draw consumes is a fixed number of fixed-size blocks, whatever the row
    calls = []
    real = os.urandom

    def counting(n):
        calls.append(n)
        return real(n)

    monkeypatch.setattr(sampler_module.os, "urandom", counting)
    for Q in ([[0.5, 0.5], [0.1, 0.9]], md.randomized_response(5, 1.0).matrix,
              [[1.0, 0.0, 0.0], [1 / 3, 1 / 3, 1 / 3], [5e-324, 0.5, 0.5 - 5e-324]]):
        s = ExactSampler(Q)
        per_row = []
        for x in range(len(Q)):
            calls.clear()
            for _ in range(50):
                s.draw(x)
            per_row.append(list(calls))
        assert all(r == per_row[0] for r in per_row)
        assert per_row[0] == [s.candidates * s._nbytes] * 50


def test_mechanism_sample_uses_the_exact_sampler():
    m = md.Mechanism([[0.5, 0.0, 0.5], [0.25, 0.75, 0.0]])
    assert isinstance(m.exact_sampler, ExactSampler)
    draws = m.sample(np.array([[0, 1], [1, 0]]))
    assert draws.shape == (2, 2) and draws[0, 0] in (0, 2) and draws[0, 1] in (0, 1)
    with pytest.raises(md.InvalidParameterError, match="-3"):
        m.sample(-3)  # no index aliasing: negative rows are refused


# ------------------------------------------------------------------------ timing channel
TIMING_CASES = {
    # the per-row bisection sampler: 0.89-0.94 on this pair (rows at scales 2^1 and 2^55)
    "different binary denominators": lambda: [[0.5, 0.5], [0.1, 0.9]],
    "randomized response k = 4": lambda: md.randomized_response(4, 1.0).matrix,
    "deterministic against uniform": lambda: [[1.0, 0.0, 0.0, 0.0], [0.25] * 4],
    "designed LDP(2), k = 2": lambda: md.DesignProblem(
        md.LDP(2.0), md.ExpectedLoss(md.losses.hamming(2))).solve().mechanism.matrix,
}
TIMING_CALLS = 2_000
TIMING_MARGIN = 0.03
"""Largest accuracy above chance accepted: about 2.7 standard deviations of a chance
classifier at 2,000 calls per row (deterministic here: the clock counts work, the
interleaving is seeded)."""


@pytest.mark.parametrize("name", list(TIMING_CASES))
def test_the_work_of_one_call_does_not_reveal_the_row(name):
    # an attacker who knows the mechanism times single calls for the first and last rows,
    # learns the best threshold on half of them and guesses the row of the other half. The
    # clock here counts work (Python lines run and random bytes drawn, WorkClock), so the
    # check is the same on a busy machine: every call of every row does the same count. The
    # wall-clock attack (work inside a line: integer sizes) is benchmarks/sampler_timing.py.
    m = md.Mechanism(np.asarray(TIMING_CASES[name]()))
    with WorkClock() as clock:
        times, labels = time_calls(m.sample, [0, m.n_inputs - 1], TIMING_CALLS, rng=5,
                                   clock=clock)
    assert np.unique(times).size == 1, (name, np.unique(times[labels == 0]),
                                        np.unique(times[labels == 1]))
    assert threshold_accuracy(times, labels) <= 0.5 + TIMING_MARGIN


def test_the_timing_check_detects_the_old_sampler():
    # the same attacker against the per-row bisection sampler this one replaced: its rows
    # at scales 2^1 and 2^55 draw integers of different sizes (9 and 15 random bytes)
    old = BisectionSampler(np.array([[0.5, 0.5], [0.1, 0.9]]))
    with WorkClock() as clock:
        times, labels = time_calls(old.draw, [0, 1], TIMING_CALLS, rng=5, clock=clock)
    assert threshold_accuracy(times, labels) > 0.75


def test_the_timing_check_takes_rng_and_seed_still_works_with_a_warning():
    # one name for the random source: rng (an int seed, a Generator or None); seed=, the
    # former name, is kept for one release with a warning naming rng, and draws the same
    # interleaving and the same train/test split
    def run(**kw):
        clock = itertools.count().__next__  # every call "takes" 1
        return time_calls(lambda s: None, [0, 1], 50, warmup=0, clock=clock, **kw)

    times, labels = run(rng=5)
    with pytest.warns(DeprecationWarning, match=r"time_calls\(seed=\.\.\.\).*use rng=") as w:
        old_times, old_labels = run(seed=5)
    assert len(w) == 1
    assert (old_labels == labels).all() and (old_times == times).all()
    assert (run(rng=np.random.default_rng(5))[1] == labels).all()
    assert not (run()[1] == labels).all()  # the default is rng=0, another interleaving
    with pytest.raises(md.errors.InvalidParameterError, match="rng=4 and seed=5"):
        run(rng=4, seed=5)
    # noisy times, label 1 slower on average: the accuracy depends on the split
    noisy = np.random.default_rng(0).normal(size=labels.size) + 0.5 * labels
    acc = threshold_accuracy(noisy, labels, rng=9)
    with pytest.warns(DeprecationWarning,
                      match=r"threshold_accuracy\(seed=\.\.\.\).*use rng="):
        assert threshold_accuracy(noisy, labels, seed=9) == acc
    assert threshold_accuracy(noisy, labels) == threshold_accuracy(noisy, labels, rng=1)


def test_the_work_clock_counts_random_bytes_and_restores_urandom():
    real = os.urandom

    def cost(n):
        before = clock()
        os.urandom(n)
        return clock() - before

    with WorkClock() as clock:
        assert cost(10) - cost(5) == 5 and cost(5) >= 5
    assert os.urandom is real
    outside = clock()
    os.urandom(7)
    assert clock() == outside
