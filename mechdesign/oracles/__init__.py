"""Frequency oracles: structured mechanisms for large domains, with exact privacy, exact
sampling, unbiased estimation and closed-form variances (``docs/oracles.md``).

>>> import mechdesign as md
>>> olh = md.oracles.LocalHashing(k=1000, epsilon=1.0)
>>> reports = olh.sample([3, 3, 7], rng=1)      # respondents' side
>>> olh.estimate(reports).shape                  # analyst's side
(1000,)
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidParameterError
from .base import POST_PROCESSING, FrequencyOracle
from .hadamard import HadamardResponse
from .local_hashing import LocalHashing
from .randomized_response import RandomizedResponse
from .subset import SubsetSelection, best_subset_size
from .survey import estimate
from .unary import UnaryEncoding

ORACLES: dict[str, type[FrequencyOracle]] = {
    cls.family: cls for cls in (RandomizedResponse, UnaryEncoding, SubsetSelection,
                                HadamardResponse, LocalHashing)}
"""Family name -> oracle class."""


def oracle(family: str, **params: Any) -> FrequencyOracle:
    """The oracle of ``family`` (a key of :data:`ORACLES`) built from ``params``."""
    if family not in ORACLES:
        raise InvalidParameterError(
            f"unknown oracle family {family!r}; choose from {sorted(ORACLES)}")
    try:
        return ORACLES[family](**params)
    except TypeError as exc:  # an unknown or missing parameter name
        raise InvalidParameterError(f"oracle {family!r}: {exc}") from None


def oracle_from_dict(data: dict) -> FrequencyOracle:
    """Rebuild an oracle from :meth:`FrequencyOracle.to_dict`."""
    if not isinstance(data, dict) or data.get("kind") != "oracle":
        raise InvalidParameterError(f"not an oracle description: {data!r}"[:200])
    params = {k: v for k, v in data.items() if k not in ("kind", "family")}
    return oracle(str(data.get("family")), **params)


__all__ = ["ORACLES", "POST_PROCESSING", "FrequencyOracle", "HadamardResponse",
           "LocalHashing", "RandomizedResponse", "SubsetSelection", "UnaryEncoding",
           "best_subset_size", "estimate", "oracle", "oracle_from_dict"]
