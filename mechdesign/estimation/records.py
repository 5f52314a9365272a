"""Equality of the frozen result records of the estimation modules (they hold numpy arrays,
for which the dataclass-generated ``==`` is ambiguous)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "fields_equal",
]


def fields_equal(a: Any, b: Any) -> bool:
    """Field-by-field equality of two dataclass records holding numpy arrays.

    Records of different types are unequal; arrays compare by shape and value; NaN equals NaN
    (in arrays and in float fields), so a record equals its own copy.
    """
    if type(a) is not type(b):
        return False
    for key, va in a.__dict__.items():
        vb = b.__dict__[key]
        if isinstance(va, np.ndarray) or isinstance(vb, np.ndarray):
            if not np.array_equal(np.asarray(va), np.asarray(vb), equal_nan=True):
                return False
        elif isinstance(va, float) and isinstance(vb, float) and math.isnan(va):
            if not math.isnan(vb):
                return False
        elif va != vb:
            return False
    return True
