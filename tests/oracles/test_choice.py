"""Tests of :mod:`mechdesign.oracles.choice`: the oracles of a family and the best oracle at
a prior.

Pinned: a family gives its one oracle (subset selection: every d = 1..k-1); at k = 2 the
best oracle is Warner's randomized response with Warner's (1965) variance; between k-RR and
OUE the choice and its value follow the variances computed from the published support
probabilities (Wang et al. 2017), on both sides of their crossing.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mechdesign import catalog
from mechdesign.oracles import (
    HadamardResponse,
    LocalHashing,
    RandomizedResponse,
    SubsetSelection,
    UnaryEncoding,
)
from mechdesign.oracles.choice import FAMILIES, best_oracle, family_oracles


def total_variance(p: float, q: float, prior: np.ndarray) -> float:
    """sum_v lambda_v (1 - lambda_v) / (p - q)^2, lambda_v = q + f_v (p - q): one report
    (Wang et al. 2017's support estimator, respondents drawn from the prior)."""
    lam = q + prior * (p - q)
    return float(np.sum(lam * (1 - lam)) / (p - q) ** 2)


def k_rr(k: int, eps: float) -> tuple[float, float]:
    return math.exp(eps) / (math.exp(eps) + k - 1), 1 / (math.exp(eps) + k - 1)


def oue(eps: float) -> tuple[float, float]:
    return 0.5, 1 / (math.exp(eps) + 1)


def test_family_oracles():
    kinds = {"randomized_response": RandomizedResponse, "unary_encoding": UnaryEncoding,
             "optimized_unary_encoding": UnaryEncoding, "hadamard_response": HadamardResponse,
             "local_hashing": LocalHashing}
    for family, kind in kinds.items():
        (o,) = family_oracles(family, 7, 1.5)
        assert type(o) is kind and (o.k, o.epsilon) == (7, 1.5), family
    assert family_oracles("optimized_unary_encoding", 7, 1.5)[0].optimized
    assert not family_oracles("unary_encoding", 7, 1.5)[0].optimized
    subsets = family_oracles("subset_selection", 7, 1.5)
    assert all(type(o) is SubsetSelection for o in subsets)
    assert [o.d for o in subsets] == [1, 2, 3, 4, 5, 6]
    assert set(FAMILIES) == {*kinds, "subset_selection"}


@pytest.mark.parametrize("eps", [0.2, 1.0, 3.0])
def test_binary_best_is_warner(eps):
    # Warner 1965: Var(pi_hat) = pi (1 - pi)/n + p (1 - p)/(n (2p - 1)^2); at pi = 1/2 and
    # p = e^eps/(e^eps + 1), summed over both values: 1/2 + 2 e^eps/(e^eps - 1)^2
    oracle, variance = best_oracle(np.array([0.5, 0.5]), eps)
    e = math.exp(eps)
    assert variance == pytest.approx(0.5 + 2 * e / (e - 1) ** 2, rel=1e-12)
    np.testing.assert_allclose(oracle.to_mechanism().matrix,
                               catalog.warner(e / (e + 1)).matrix, rtol=1e-12)


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("prior", ["uniform", "zipf"])
def test_k_rr_against_oue_follows_their_variances(eps, prior):
    # Wang et al. 2017: direct encoding beats OUE for small k (below 3 e^eps + 2 at
    # f = 0); both sides of the crossing are visited, and the choice and value are those
    # of the variances from the published p, q
    families = ("randomized_response", "optimized_unary_encoding")
    chosen = set()
    for k in range(2, int(6 * math.exp(eps)) + 6):
        f = np.full(k, 1 / k) if prior == "uniform" else 1 / np.arange(1, k + 1)
        f = f / f.sum()
        rr, ue = total_variance(*k_rr(k, eps), f), total_variance(*oue(eps), f)
        if abs(rr - ue) <= 1e-9 * rr:
            continue  # a near tie: either is right
        oracle, variance = best_oracle(f, eps, families)
        assert variance == pytest.approx(min(rr, ue), rel=1e-10), k
        want = RandomizedResponse if rr < ue else UnaryEncoding
        assert type(oracle) is want, k
        chosen.add(want)
    assert chosen == {RandomizedResponse, UnaryEncoding}
