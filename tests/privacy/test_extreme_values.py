"""Extreme inputs of the analyzers, each pinned by a reproducer of a wrong value it once gave:
hockey-stick sums past eps = 709, delta targets checked with a relative tolerance, leaky
randomized response at eps >= 700, priors given as strings or bools."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.privacy import (
    ApproxLDP,
    bayes_leakage,
    delta_ldp,
    hockey_stick,
    leaky_randomized_response,
)


@pytest.mark.parametrize("eps", [709.0, 709.5, 720.0, 740.0])
def test_hockey_stick_past_709_keeps_the_tiny_denominators(eps):
    # 0.5 - e^eps 1e-320: e^eps overflows a double, the product does not; reading it as
    # inf gave delta 0 where the truth is about 0.5 (an "upper bound" below the truth)
    P, Pp = np.array([0.5, 0.5]), np.array([1e-320, 1 - 1e-320])
    with mpmath.workdps(50):  # (never change mpmath's global precision in a test)
        truth = max(mpmath.mpf(0.5) - mpmath.e ** eps * mpmath.mpf(1e-320), 0)
    assert float(hockey_stick(P, Pp, eps)) == pytest.approx(float(truth), rel=1e-12, abs=0)
    Q = np.array([P, Pp])
    assert delta_ldp(Q, eps) >= float(truth) * (1 - 1e-12)
    assert float(hockey_stick(P, Pp, math.inf)) == 0.0  # full support: no mass alone


def test_a_delta_target_is_checked_relative_to_its_size():
    # reveals the input with probability 5e-10: (1, 5e-10)-LDP exactly (the leak columns),
    # so a target of 1e-12 must fail; an absolute tolerance of 1e-9 passed it
    d = 5e-10
    Q = np.array([[1 - d, 0, d], [1 - d, d, 0]])
    assert delta_ldp(Q, 1.0) == pytest.approx(d, rel=1e-12)
    assert not ApproxLDP(1.0, 1e-12).holds(Q)
    assert not ApproxLDP(1.0, 0.99 * d).holds(Q)
    assert ApproxLDP(1.0, d).holds(Q)
    # an epsilon target keeps its absolute tolerance (3-RR(1) is exactly 1-LDP)
    assert ApproxLDP(1.0, 0.0).holds(md.randomized_response(3, 1.0))


@pytest.mark.parametrize("eps", [1.0, 700.0, 705.0, 740.0])
def test_leaky_randomized_response_is_eps_delta_private_at_large_eps(eps):
    # the RR part's 1/(1 + e^eps) read 0 from eps = 700 on (it is 6e-307 at 705), which
    # made the leaky mechanism (eps, 1)- instead of (eps, delta)-private
    M = leaky_randomized_response(eps, 0.1)
    b = math.exp(-eps) / (1 + math.exp(-eps))
    assert M[0, 1] == pytest.approx(0.9 * b, rel=1e-12) and M[0, 1] > 0
    assert delta_ldp(M, eps) == pytest.approx(0.1, rel=1e-9)


@pytest.mark.parametrize("prior", [["0.5", "0.5"], [True, False]])
def test_priors_must_be_numbers(prior):
    with pytest.raises(InvalidParameterError, match="entries must be real numbers"):
        bayes_leakage(md.warner(0.75), prior)


def test_the_capacity_bound_refuses_a_size_past_the_doubles():
    from mechdesign.privacy import ldp_capacity_bound

    with pytest.raises(InvalidParameterError, match="too large"):
        ldp_capacity_bound(1.0, 10**400)
    # n e^eps / (e^eps + n - 1) at n = 3, eps = ln 2: 6 / 4
    assert ldp_capacity_bound(math.log(2.0), 3) == pytest.approx(1.5, rel=1e-15)


def test_a_delta_target_holds_for_an_evidential_mechanism():
    # Q_2x3(0.6, 0.2) over its messages (0.6, 0.2, 0.2) / (0.2, 0.6, 0.2): at eps = 1 the
    # hockey-stick sum is 0.6 - 0.2 e (the relative check reads its number of messages)
    dk = md.dont_know(0.6, 0.2)
    d = 0.6 - 0.2 * math.e
    assert delta_ldp(dk, 1.0) == pytest.approx(d, rel=1e-12)
    assert ApproxLDP(1.0, d).holds(dk) and not ApproxLDP(1.0, 0.99 * d).holds(dk)
