"""Subset selection at its best d (:mod:`mechdesign.design.methods.symmetric_subsets`).

Pinned: at the uniform prior the design is d-subset selection whose criterion (A, D or E,
computed here from the Fisher information's definition) is the smallest over every d, its
value Ye & Barg's risk (k = 10, 20 and 100 to the digits of the reference); binary
estimation is Warner's mechanism; at any k the optimum comes as the structured oracle,
whose exact variance is the value and exact epsilon the certificate, with the matrix only
when it fits.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechdesign as md
from mechdesign.design import DesignProblem, EstimationVariance
from mechdesign.design.engines.staircase import symmetric_estimation_value
from mechdesign.errors import SizeLimitError
from mechdesign.privacy import LDP


def _criterion(Q: np.ndarray, prior: np.ndarray, criterion: str) -> float:
    """A, D or E of the Cramer-Rao bound on the simplex, from the Fisher information's
    definition: trace, log det and largest eigenvalue of ``(U^T I U)^-1``."""
    k = Q.shape[0]
    lam = prior @ Q
    fisher = (Q / lam) @ Q.T
    U = np.linalg.svd(np.eye(k) - 1.0 / k)[0][:, : k - 1]
    cr = np.linalg.inv(U.T @ fisher @ U)
    return {"A": float(np.trace(cr)), "D": float(np.linalg.slogdet(cr)[1]),
            "E": float(np.linalg.eigvalsh(cr).max())}[criterion]


@pytest.mark.parametrize("criterion", ["A", "D", "E"])
@pytest.mark.parametrize("k,eps", [(3, 0.5), (5, 1.0), (6, 3.0)])
def test_the_design_is_the_best_subset_selection_by_the_definition(criterion, k, eps):
    prior = np.full(k, 1 / k)
    res = DesignProblem(LDP(eps), EstimationVariance(prior, criterion)).solve()
    assert res.method == "symmetric" and res.solver == "closed form" and res.gap == 0.0
    by_d = {d: _criterion(md.catalog.subset_selection(k, d, eps).matrix, prior, criterion)
            for d in range(1, k)}
    assert res.value == pytest.approx(min(by_d.values()), rel=1e-9, abs=1e-12)
    d = res.structure["d"]
    assert by_d[d] == pytest.approx(res.value, rel=1e-9, abs=1e-12)
    assert _criterion(res.mechanism.matrix, prior, criterion) == pytest.approx(
        res.value, rel=1e-9, abs=1e-12)
    assert md.epsilon_ldp(res.mechanism) <= eps


def test_binary_estimation_is_warner():
    res = DesignProblem(privacy=LDP(1.0), objective=EstimationVariance([0.5, 0.5])).solve()
    assert res.value == pytest.approx(2.341347, abs=1e-6)  # docs/formulations.md
    np.testing.assert_allclose(res.mechanism.matrix, md.warner(math.e / (1 + math.e)).matrix,
                               atol=1e-12)


@pytest.mark.parametrize("k,eps,d,value", [(10, 0.5, 4, 127.2172), (20, 1.0, 5, 66.6344)])
def test_uniform_estimation_is_subset_selection(k, eps, d, value):
    res = DesignProblem(privacy=LDP(eps), objective=EstimationVariance(np.full(k, 1 / k))
                        ).solve()
    assert res.structure["d"] == d
    assert res.value == pytest.approx(value, abs=1e-4)
    assert md.estimation.cramer_rao(res.mechanism, np.full(k, 1 / k)).trace == pytest.approx(value,
                                                                                   abs=1e-4)


def test_symmetric_estimation_at_k_1000_is_fast_and_analytic():
    res = DesignProblem(privacy=LDP(1.0), objective=EstimationVariance(np.full(1000, 1e-3))
                        ).solve()
    d = res.structure["d"]
    assert res.value == pytest.approx(float(symmetric_estimation_value(1000, d, 1.0)))
    assert res.solve_time < 1.0
    with pytest.raises(SizeLimitError, match="subset_selection"):
        res.mechanism  # noqa: B018


def test_uniform_estimation_returns_the_structured_optimum_at_any_k():
    # k = 100, eps = 1: subset selection with d = 27, value 360.94 (Ye & Barg's risk); the
    # matrix has C(100, 27) columns, the oracle samples and estimates, its exact variance
    # is the reported value and its exact epsilon the certificate
    res = DesignProblem(privacy=LDP(1.0), objective=EstimationVariance(np.full(100, 0.01))
                        ).solve()
    oracle = res.oracle
    assert (oracle.k, oracle.d, oracle.epsilon) == (100, 27, 1.0)
    assert res.value == pytest.approx(360.9434851840938, rel=1e-12)
    assert oracle.total_variance() == pytest.approx(res.value, rel=1e-12)
    assert res.certificate.achieved == oracle.epsilon_exact <= 1.0
    assert res.summary()["oracle"] == {"kind": "oracle", "family": "subset_selection",
                                       "k": 100, "epsilon": 1.0, "d": 27}
    x = np.arange(2000) % 100
    est = oracle.estimate(oracle.sample(x, rng=0))
    assert abs(est.sum() - 1.0) < 0.2  # sum of 100 unbiased estimates of 0.01
    # small k: the matrix and the same oracle
    small = DesignProblem(privacy=LDP(1.0), objective=EstimationVariance(np.full(6, 1 / 6))
                          ).solve()
    assert small.oracle.d == small.structure["d"]
    assert small.mechanism.n_outputs == math.comb(6, small.oracle.d)
    general = DesignProblem(privacy=LDP(1.0), objective=EstimationVariance([0.2, 0.3, 0.5])
                            ).solve()
    with pytest.raises(md.DesignError, match="not a structured family"):
        general.oracle  # noqa: B018
