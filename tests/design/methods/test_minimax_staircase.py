"""Minimax estimation as a method (:mod:`mechdesign.design.methods.minimax_staircase`).

Pinned: the A and D criteria come back optimal with the certified gap of the dual
Frank-Wolfe bound, the E criterion (not smooth at the optimum, no bound) labelled
solver-reported; the formulation counts the priors; what the staircase program cannot take
is refused by name before any solve: another notion than pure LDP, user constraints, too
few outputs, an epsilon above the staircase limit.
"""

from __future__ import annotations

import numpy as np
import pytest

import mechdesign as md
from mechdesign.design import DesignProblem, MinimaxEstimation, Status
from mechdesign.design.engines.staircase import MAX_STAIRCASE_EPSILON
from mechdesign.errors import InvalidParameterError

PRIORS3 = np.array([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]])


@pytest.mark.parametrize("criterion", ["A", "D", "E"])
def test_the_label_follows_the_certificate(criterion):
    res = DesignProblem(md.LDP(1.0), MinimaxEstimation(PRIORS3, criterion)).solve()
    assert res.method == "minimax_staircase" and res.status is Status.OPTIMAL
    assert "2 priors" in res.formulation and res.certificate.met
    if criterion == "E":
        assert res.optimum == "global, solver-reported" and res.gap is None
    else:
        assert res.optimum == "global" and res.gap is not None and res.gap <= 1e-6
    assert md.epsilon_ldp(res.mechanism) <= 1.0


def test_an_epsilon_above_the_staircase_limit_is_refused():
    eps = MAX_STAIRCASE_EPSILON + 1
    with pytest.raises(InvalidParameterError, match=rf"above {MAX_STAIRCASE_EPSILON:g}"):
        DesignProblem(md.LDP(eps), MinimaxEstimation(PRIORS3)).solve()


def test_refusals() -> None:
    objective = MinimaxEstimation(PRIORS3)
    with pytest.raises(InvalidParameterError, match="ApproxLDP"):
        DesignProblem(md.ApproxLDP(1.0, 1e-3), objective).solve()
    with pytest.raises(InvalidParameterError, match="user constraints"):
        DesignProblem(md.LDP(1.0), objective,
                      constraints={"c": lambda Q: [Q[0, 0] >= 0.1]}).solve()
    with pytest.raises(InvalidParameterError, match="outputs"):
        DesignProblem(md.LDP(1.0), MinimaxEstimation(
            np.random.default_rng(0).dirichlet(np.ones(4), size=2)), n_outputs=2).solve()
