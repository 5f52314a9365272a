"""k-RR in closed form (:mod:`mechdesign.design.methods.closed_form`).

Pinned: ``hamming_closed_form`` recognises exactly the losses ``a (1 - I) + b`` with
``a > 0`` under pure LDP at the uniform prior or the worst case, with nothing else
constraining Q, and returns ``(a, b)``; ``solve_hamming``'s value
``b + a (k - 1) / (e^eps + k - 1)`` (Kairouz, Oh & Viswanath 2016) equals the optimum of the
LP solved by :func:`~mechdesign.design.methods.program.solve_program` (a second method) and
the naive pairwise LP, with k-RR's matrix, gap 0 and a certificate; past the matrix limit
the same optimum comes as the structured oracle; a skewed prior is not the closed form.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechdesign as md
import mechdesign.losses as losses
from mechdesign.design import DesignProblem, ExpectedLoss, Status, WorstCaseLoss
from mechdesign.design.methods.closed_form import hamming_closed_form, solve_hamming
from mechdesign.design.methods.program import solve_program
from mechdesign.privacy import LDP, ApproxLDP, MetricDP
from tests.design.references import pairwise_ldp_optimum


@pytest.mark.parametrize("a,b", [(1.0, 0.0), (2.0, 0.5), (1e-6, -3.0), (1e9, 1e9)])
@pytest.mark.parametrize("objective", [ExpectedLoss, WorstCaseLoss])
def test_a_scaled_and_shifted_hamming_loss_is_recognised(a, b, objective):
    spec = DesignProblem(LDP(1.0), objective(a * losses.hamming(4) + b))
    found = hamming_closed_form(spec)
    assert found is not None
    assert found[0] == pytest.approx(a, rel=1e-12) and found[1] == pytest.approx(b, rel=1e-12)


@pytest.mark.parametrize("make", [
    lambda: DesignProblem(LDP(1.0), ExpectedLoss(losses.hamming(4), [0.4, 0.2, 0.2, 0.2])),
    lambda: DesignProblem(ApproxLDP(1.0, 0.01), ExpectedLoss(losses.hamming(4))),
    lambda: DesignProblem(MetricDP(1.0, md.neighbors.line_distance(4)),
                          ExpectedLoss(losses.hamming(4))),
    lambda: DesignProblem(LDP(1.0), ExpectedLoss(-losses.hamming(4))),  # a < 0
    lambda: DesignProblem(LDP(1.0), ExpectedLoss(np.ones((4, 4)))),  # a = 0
    lambda: DesignProblem(LDP(1.0), ExpectedLoss(losses.absolute(4))),
    lambda: DesignProblem(LDP(1.0), ExpectedLoss(losses.hamming(4) + np.diag([0, 0, 0, 0.1]))),
    lambda: DesignProblem(LDP(1.0), ExpectedLoss(np.hstack([losses.hamming(4),
                                                            np.ones((4, 1))]))),  # n != k
    lambda: DesignProblem(LDP(1.0), ExpectedLoss(losses.hamming(4)),
                          constraints={"floor": lambda Q: Q[0, 0] >= 0.5}),
    lambda: DesignProblem(LDP(1.0), md.MutualInformation(np.full(4, 0.25))),
], ids=["skewed-prior", "approx", "metric", "negative", "constant", "absolute",
        "diagonal", "extra-output", "user-constraint", "information"])
def test_everything_else_is_not_the_closed_form(make):
    assert hamming_closed_form(make()) is None


@pytest.mark.parametrize("k,eps", [(2, 0.1), (3, 1.0), (5, 2.5), (8, 0.7)])
@pytest.mark.parametrize("a,b", [(1.0, 0.0), (3.0, -1.0)])
def test_the_closed_form_is_the_lp_optimum(k, eps, a, b):
    # k-RR's value b + a (k - 1)/(e^eps + k - 1) against the global LP of the same problem
    # (methods.program.solve_program) and the naive pairwise LP over every entry
    spec = DesignProblem(LDP(eps), ExpectedLoss(a * losses.hamming(k) + b))
    res = solve_hamming(spec, a, b)
    value = b + a * (k - 1) / (math.exp(eps) + k - 1)
    lp = solve_program(spec, None, {}, None)
    naive = b + a * pairwise_ldp_optimum(losses.hamming(k), np.full(k, 1 / k), eps)
    assert res.value == pytest.approx(value, rel=1e-10)  # on the certified matrix
    assert lp.status is Status.OPTIMAL
    assert lp.value == pytest.approx(value, rel=1e-8, abs=1e-12)
    assert naive == pytest.approx(value, rel=1e-8, abs=1e-12)
    assert res.status is Status.OPTIMAL and res.gap == 0.0 and res.certificate.met
    assert res.solver == "closed form"
    # k-RR (certification may move its entries by a rounding repair, 1e-12 at most)
    np.testing.assert_allclose(res.mechanism.matrix, md.randomized_response(k, eps).matrix,
                               atol=1e-12)


def test_the_worst_case_is_the_same_value():
    # every row of k-RR has the same expected loss, so the worst case is the average; the
    # LP of the worst case (an epigraph) agrees
    k, eps = 4, 0.8
    spec = DesignProblem(LDP(eps), WorstCaseLoss(losses.hamming(k)))
    res = solve_hamming(spec, 1.0, 0.0)
    lp = solve_program(spec, None, {}, None)
    assert res.value == pytest.approx((k - 1) / (math.exp(eps) + k - 1), rel=1e-12)
    assert lp.value == pytest.approx(res.value, rel=1e-8)


@pytest.mark.parametrize("k,eps", [(2, 0.5), (3, 1.0), (5, 2.0)])
def test_krr_is_optimal_for_hamming(k, eps):
    res = DesignProblem(privacy=LDP(eps), objective=ExpectedLoss(losses.hamming(k))).solve()
    # KOV 2016: k-RR optimal; error (k-1)/(e^eps + k - 1)
    assert res.status is Status.OPTIMAL and res.optimum == "global"
    assert res.value == pytest.approx((k - 1) / (math.exp(eps) + k - 1), rel=1e-9)
    np.testing.assert_allclose(res.mechanism.matrix, md.randomized_response(k, eps).matrix,
                               atol=1e-8)


def test_worst_case_loss_binary_is_warner():
    res = DesignProblem(privacy=LDP(1.0), objective=WorstCaseLoss(losses.hamming(2))).solve()
    assert res.value == pytest.approx(1 / (1 + math.e), rel=1e-9)


@pytest.mark.parametrize("k, eps", [(2, 0.3), (3, 1.0), (7, 2.5)])
def test_hamming_loss_is_answered_by_krr_in_closed_form(k, eps):
    # value (k-1)/(e^eps+k-1) (Kairouz, Oh & Viswanath 2016); the same optimum as the LP
    # when a solver is named (which builds and solves the program); scale and shift kept
    loss = 2.0 * losses.hamming(k) + 0.5
    closed = DesignProblem(privacy=LDP(eps), objective=ExpectedLoss(loss)).solve()
    lp = DesignProblem(privacy=LDP(eps), objective=ExpectedLoss(loss)).solve(solver="HIGHS")
    assert closed.solver == "closed form" and lp.solver != "closed form"
    ref = 0.5 + 2.0 * (k - 1) / (math.exp(eps) + k - 1)
    assert closed.value == pytest.approx(ref, rel=1e-12) and closed.gap == 0.0
    assert lp.value == pytest.approx(ref, rel=1e-8)
    assert str(closed.status) == "optimal" and closed.certificate.met
    assert md.epsilon_ldp(closed.mechanism) <= eps
    worst = DesignProblem(privacy=LDP(eps), objective=WorstCaseLoss(loss)).solve()
    assert worst.solver == "closed form" and worst.value == pytest.approx(ref, rel=1e-12)


def test_hamming_loss_at_k_5000_is_the_structured_krr():
    # refused before (the program's memory); the optimum is k-RR in closed form
    k, eps = 5000, 1.0
    res = DesignProblem(privacy=LDP(eps), objective=ExpectedLoss(losses.hamming(k))).solve()
    assert res.value == pytest.approx((k - 1) / (math.e + k - 1), rel=1e-12)
    assert res.oracle.k == k and res.oracle.epsilon_exact <= eps
    with pytest.raises(md.errors.SizeLimitError):
        _ = res.mechanism


def test_a_skewed_prior_is_not_the_hamming_closed_form():
    # k-RR is optimal at the uniform prior only: a skewed prior collapses outputs (here 0.5,
    # always answering the likeliest input beats k-RR's 0.665 at eps = 0.7)
    res = DesignProblem(privacy=LDP(0.7), objective=ExpectedLoss(
        losses.hamming(5), prior=[0.5, 0.2, 0.1, 0.1, 0.1])).solve()
    assert res.solver != "closed form" and res.value == pytest.approx(0.5, rel=1e-7)
