"""Tests of :mod:`mechdesign.oracles.survey`: ``md.estimate`` and ``estimate_survey``, one
entry point for the frequencies behind any randomizer's survey.

Reference values: counts equal to their expectation ``n (f @ Q)`` (a mechanism) or
``n (f p* + (1 - f) q*)`` (an oracle's support counts) give back ``f`` exactly (both
estimators are unbiased linear maps that invert the expectation); reports give the same
estimate as the oracle's own ``estimate`` and as ``estimate_survey``; the confidence intervals
cover at their stated rate (a binomial count over repeated surveys); bad input is a typed
error naming the offending value."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.oracles import LocalHashing, RandomizedResponse, SubsetSelection, UnaryEncoding
from mechdesign.oracles.survey import estimate_survey

F3 = np.array([0.5, 0.25, 0.25])


def test_mechanism_counts_at_their_expectation_give_the_frequencies():
    rr = md.randomized_response(3, 1.0)
    counts = 1000 * (F3 @ rr.matrix)
    np.testing.assert_allclose(md.estimate(rr, counts=counts), F3, rtol=0, atol=1e-13)
    # a batch of surveys (leading axes) is one call
    batch = md.estimate(rr, counts=np.stack([counts, 2 * counts]))
    np.testing.assert_allclose(batch, [F3, F3], rtol=0, atol=1e-13)


def test_mechanism_reports_give_the_frequencies_exactly():
    # 3-RR at eps = ln 2: diagonal 1/2, off-diagonal 1/4 (exact doubles); under F3 the
    # outputs have law (3/8, 5/16, 5/16), so 16 reports with counts (6, 5, 5) are exactly
    # at their expectation
    Q = np.array([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]])
    m = md.Mechanism(Q)
    reports = np.repeat([0, 1, 2], [6, 5, 5])
    np.testing.assert_allclose(md.estimate(m, reports), F3, rtol=0, atol=1e-15)
    np.testing.assert_allclose(md.estimate(m, reports), estimate_survey(m, reports).estimate,
                               rtol=0, atol=1e-15)


def test_evidential_mechanism_is_read_over_its_messages():
    dk = md.dont_know(0.6, 0.2)  # messages {0}, {1}, {0, 1}; pi = 0.3 holds input 0
    f = np.array([0.3, 0.7])
    np.testing.assert_allclose(md.estimate(dk, counts=100 * (f @ dk.masses)), f, atol=1e-13)


@pytest.mark.parametrize("o", [RandomizedResponse(4, 1.0), UnaryEncoding(4, 1.0),
                               SubsetSelection(8, 1.0, d=3), LocalHashing(1000, 1.0)],
                         ids=repr)
def test_oracle_support_counts_at_their_expectation_give_the_frequencies(o):
    f = np.zeros(o.k)
    f[:4] = [0.4, 0.3, 0.2, 0.1]
    p, q = float(o.p_star), float(o.q_star)
    support = 10_000 * (f * p + (1 - f) * q)
    np.testing.assert_allclose(md.estimate(o, counts=support, n=10_000), f, rtol=0, atol=1e-12)


def test_oracle_reports_give_its_own_estimate():
    o = LocalHashing(50, 2.0)
    values = np.repeat(np.arange(5), [40, 30, 20, 5, 5])
    reports = o.sample(values, rng=11)
    own = o.estimate(reports)
    np.testing.assert_array_equal(md.estimate(o, reports), own)
    np.testing.assert_array_equal(md.estimate(o, reports), estimate_survey(o, reports).estimate)
    projected = md.estimate(o, reports, post="project")
    assert math.isclose(projected.sum(), 1.0) and projected.min() >= 0
    np.testing.assert_array_equal(projected, o.estimate(reports, post="project"))


def test_post_processing_of_a_mechanism_estimate_is_a_distribution():
    rr = md.randomized_response(3, 1.0)
    # all reports on output 0: the unbiased estimate leaves the simplex
    raw = md.estimate(rr, np.zeros(10, dtype=int))
    assert raw[0] > 1 and raw.min() < 0
    for post in ("project", "norm-sub"):
        adjusted = md.estimate(rr, np.zeros(10, dtype=int), post=post)
        assert math.isclose(adjusted.sum(), 1.0) and adjusted.min() >= 0
    np.testing.assert_allclose(md.estimate(rr, np.zeros(10, dtype=int), post="project"),
                               [1.0, 0.0, 0.0], atol=1e-15)


def test_intervals_cover_at_the_stated_rate():
    # 400 surveys of 2000 reports: the 90% intervals of a value with frequency 0.3 cover
    # it in 90% of them, within four binomial standard errors (0.015 each)
    o = LocalHashing(8, 1.0)
    rng = np.random.default_rng(3)
    f = np.array([0.3, 0.2, 0.1, 0.1, 0.1, 0.1, 0.05, 0.05])
    hits = 0
    for _ in range(400):
        x = rng.choice(8, size=2000, p=f)
        res = estimate_survey(o, o.sample(x, rng=rng), confidence=0.9)
        hits += res.lower[0] <= 0.3 <= res.upper[0]
    assert abs(hits / 400 - 0.9) < 4 * np.sqrt(0.09 / 400)


@pytest.mark.parametrize("call, match", [
    (lambda: md.estimate(md.warner(0.75)), "exactly one"),
    (lambda: md.estimate(md.warner(0.75), [0], counts=[1, 0]), "exactly one"),
    (lambda: md.estimate(md.warner(0.75), [0, 2]), "output index 2"),
    (lambda: md.estimate(md.warner(0.75), np.array([], dtype=int)), "no reports"),
    (lambda: md.estimate(md.warner(0.75), [0.5]), "float64"),
    (lambda: md.estimate(md.warner(0.75), counts=[1, 2, 3]), r"shape \(3,\)"),
    (lambda: md.estimate(md.warner(0.75), [0], post="clip"), "'clip'"),
    (lambda: md.estimate(RandomizedResponse(3, 1.0), counts=[1, 2, 3]), "need n"),
    (lambda: md.estimate([[1.0, 0.0], [0.0, 1.0]], [0]), "got list"),
])
def test_bad_input_is_refused(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()
