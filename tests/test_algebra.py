"""Shared numeric helpers (:mod:`mechdesign._algebra`): the log multinomial coefficient and
Stirling's remainder against 40-digit mpmath values."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mechdesign._algebra import log_multinomial, stirling_remainder


def _mp_log_multinomial(row):
    return float(mp.log(mp.factorial(int(sum(row))))
                 - mp.fsum(mp.log(mp.factorial(int(c))) for c in row))


def test_stirling_remainder_table_and_series():
    mp.mp.dps = 40
    n = np.arange(1, 40)
    ref = [float(mp.log(mp.factorial(int(x))) - (x + mp.mpf(1) / 2) * mp.log(int(x)) + int(x)
                 - mp.log(2 * mp.pi) / 2) for x in n]
    np.testing.assert_allclose(stirling_remainder(n), ref, rtol=4e-16, atol=2e-16)


@pytest.mark.parametrize("k", [0, 1, 2, 15, 16, 17, 100, 1000, 10_000, 1_000_000])
def test_log_multinomial_binomials_to_two_ulps(k):
    # 40-digit ln C(k, c); the log-factorial difference loses ulps of ln k! instead
    # (1.9e-12 at k = 1000), which the Stirling-remainder form avoids
    mp.mp.dps = 40
    c = np.unique(np.linspace(0, k, min(k + 1, 401)).astype(np.int64))
    got = log_multinomial(np.stack([c, k - c], axis=1))
    ref = np.array([_mp_log_multinomial((x, k - x)) for x in c])
    np.testing.assert_allclose(got, ref, rtol=0, atol=3 * np.spacing(max(ref.max(), 1.0)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3000), min_size=1, max_size=6))
@example([1, 362])  # ln(363/362) as a log of a rounded ratio: 26 ulps off (CI, now log1p)
def test_log_multinomial_any_count_vector(row):
    mp.mp.dps = 40
    ref = _mp_log_multinomial(row)
    got = float(log_multinomial(np.array([row]))[0])
    # to a few ulps (the log-factorial difference loses ulps of ln k!, up to 2e-12 here)
    assert got == pytest.approx(ref, rel=2e-15, abs=2e-14)
