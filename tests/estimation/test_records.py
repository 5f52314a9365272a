"""Equality of the result records holding arrays (mechdesign.estimation.records)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mechdesign.estimation.records import fields_equal


@dataclass(frozen=True, eq=False)
class _Record:
    values: np.ndarray
    total: float
    name: str


@dataclass(frozen=True, eq=False)
class _Other:
    values: np.ndarray
    total: float
    name: str


def test_fields_equal_compares_arrays_by_value_and_nan_as_equal():
    a = _Record(np.array([1.0, np.nan]), float("nan"), "a")
    assert fields_equal(a, _Record(np.array([1.0, np.nan]), float("nan"), "a"))
    assert not fields_equal(a, _Record(np.array([1.0, 2.0]), float("nan"), "a"))
    assert not fields_equal(a, _Record(np.array([1.0, np.nan]), 0.0, "a"))
    assert not fields_equal(a, _Record(np.array([1.0, np.nan]), float("nan"), "b"))
    assert not fields_equal(a, _Record(np.array([1.0, np.nan, 3.0]), float("nan"), "a"))
    # same fields, another type: unequal
    assert not fields_equal(a, _Other(np.array([1.0, np.nan]), float("nan"), "a"))
