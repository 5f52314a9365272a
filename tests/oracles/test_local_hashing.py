"""Tests of :mod:`mechdesign.oracles.local_hashing`: optimised local hashing (OLH; Wang et
al. 2017, s.4.4) with Dietzfelbinger's multiply-add-shift hash family.

Pinned, each against a source other than the oracle: the hash family is 2-independent
(exhaustively, at W = 6); the collision probability gamma of two values is the count over
every seed; the variance at f = 0 with g = e^eps + 1 is Wang et al.'s 4 e^eps/(e^eps - 1)^2,
and that g is the one chosen; buckets and seeds outside their ranges are refused.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mechdesign.errors import InvalidParameterError
from mechdesign.oracles import LocalHashing


def test_hash_family_is_two_independent():
    # Dietzfelbinger's multiply-add-shift at W = 6 (l = 3): for every pair of distinct values
    # below 2^(W - l + 1) = 16, the 4096 seeds give each of the 64 hash pairs exactly 64 times
    W, L = 6, 3
    a, b = np.meshgrid(np.arange(1 << W), np.arange(1 << W), indexing="ij")
    a, b = a.ravel(), b.ravel()
    for x, v in itertools.combinations(range(16), 2):
        hx = ((a * x + b) % (1 << W)) >> (W - L)
        hv = ((a * v + b) % (1 << W)) >> (W - L)
        pairs = np.bincount(hx * (1 << L) + hv, minlength=1 << (2 * L))
        assert (pairs == (1 << (2 * W)) >> (2 * L)).all()


def test_olh_collision_probability_by_enumeration():
    o = LocalHashing(6, 1.0, g=3, hash_bits=6)  # 3 does not divide 2^3: gamma != 1/3
    seeds = np.array(list(itertools.product(range(64), repeat=2)))
    same = [np.mean(o.bucket(seeds[:, 0], seeds[:, 1], np.full(len(seeds), x))
                    == o.bucket(seeds[:, 0], seeds[:, 1], np.full(len(seeds), v)))
            for x, v in itertools.combinations(range(6), 2)]
    assert np.allclose(same, float(o.gamma), rtol=0, atol=0)
    assert o.gamma == sum(c * c for c in (3, 3, 2)) / 64  # buckets of sizes 3, 3, 2 of 8


def test_wang_et_al_variance_of_olh():
    # Wang et al. 2017: Var* = q*(1 - q*)/(n (p* - q*)^2) at f = 0 (the "fixed" model); OLH
    # with g = e^eps + 1 (eps = ln 3: g = 4 divides 2^16, so hashing collides with
    # probability exactly 1/4) has 4 e^eps/(e^eps - 1)^2 = 3, the same as OUE
    eps, n, k = math.log(3.0), 1000, 8
    f = np.zeros(k)
    f[0] = 1.0
    assert LocalHashing(k, eps, g=4).variance(f, n, "fixed")[1] * n == pytest.approx(
        3.0, rel=1e-12)
    assert LocalHashing(k, eps).g == 4  # the best g is e^eps + 1 here


def test_reports_outside_their_ranges_are_refused():
    with pytest.raises(InvalidParameterError, match=r"bucket 5 is outside 0\.\.3"):
        LocalHashing(5, 1.0, g=4).support_counts(np.array([[1, 2, 5]]))
    with pytest.raises(InvalidParameterError, match="seed 300 does not fit hash_bits = 8"):
        LocalHashing(5, 1.0, g=4, hash_bits=8).support_counts(np.array([[300, 2, 1]]))
