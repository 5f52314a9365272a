"""Which frequency oracle to deploy: every oracle of a family, and the best one at a prior.

The comparisons of the designer's notes, of the frontier families past the matrix limit and
of ``benchmarks/estimation_large_k.py`` all score oracles the same way: the exact total
variance per report of the unbiased estimator at the prior
(:meth:`~mechdesign.oracles.base.FrequencyOracle.total_variance`), subset selection at
every d.
"""

from __future__ import annotations

from typing import Any

from .base import FrequencyOracle
from .hadamard import HadamardResponse
from .local_hashing import LocalHashing
from .randomized_response import RandomizedResponse
from .subset import SubsetSelection
from .unary import UnaryEncoding

__all__ = [
    "FAMILIES",
    "best_oracle",
    "family_oracles",
]


FAMILIES = ("randomized_response", "subset_selection", "unary_encoding",
            "optimized_unary_encoding", "hadamard_response", "local_hashing")
"""The families compared (the frontier's family names: the two unary encodings apart)."""


def family_oracles(family: str, k: int, epsilon: float) -> list[FrequencyOracle]:
    """The oracles of ``family`` at (k, epsilon): one, or subset selection at every d."""
    if family == "subset_selection":
        return [SubsetSelection(k, epsilon, d=d) for d in range(1, k)]
    make = {"randomized_response": lambda: RandomizedResponse(k, epsilon),
            "unary_encoding": lambda: UnaryEncoding(k, epsilon),
            "optimized_unary_encoding": lambda: UnaryEncoding(k, epsilon, optimized=True),
            "hadamard_response": lambda: HadamardResponse(k, epsilon),
            "local_hashing": lambda: LocalHashing(k, epsilon)}
    return [make[family]()]


def best_oracle(prior: Any, epsilon: float, families: tuple[str, ...] = FAMILIES
                ) -> tuple[FrequencyOracle, float]:
    """The oracle of ``families`` with the smallest estimator variance at ``prior``, and
    that variance (per report)."""
    k = len(prior)
    scored = [(o.total_variance(prior), i, o) for fam in families
              for i, o in enumerate(family_oracles(fam, k, epsilon))]
    variance, _, oracle = min(scored, key=lambda item: (item[0], item[1]))
    return oracle, float(variance)
