"""Rényi DP and zCDP of finite mechanisms (``mechdesign.accounting.renyi``).

References: closed forms for binary randomized response (derived in each test), 50-digit
mpmath evaluations of the definition on the stored floats, the exact composition
(``epsilon_composed``) for the conversion bounds, and invariants (monotonicity in alpha,
data processing, additivity over products) checked with hypothesis.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.accounting import (
    epsilon_composed,
    epsilon_rdp,
    rdp_to_dp,
    renyi_curve,
    renyi_divergence,
    renyi_epsilon,
    zcdp_rho,
)
from mechdesign.errors import InvalidMechanismError, InvalidParameterError
from tests.strategies import mechanisms, stochastic_matrices

mp.mp.dps = 50
ALPHAS = [0.0, 0.3, 0.5, 0.999, 1.0, 1.0 + 1e-9, 1.5, 2.0, 7.5, 100.0, 1e4, 1e6, math.inf]


def mp_renyi(P, Q, a):
    """The definition in 50 digits on the stored floats, both rows normalised exactly."""
    P = [mp.mpf(float(x)) for x in P]
    Q = [mp.mpf(float(x)) for x in Q]
    sp, sq = mp.fsum(P), mp.fsum(Q)
    P, Q = [x / sp for x in P], [x / sq for x in Q]
    if a == math.inf:
        return max(mp.log(p / q) if q > 0 else mp.inf for p, q in zip(P, Q, strict=True) if p > 0)
    a = mp.mpf(a)
    if a == 1:
        if any(p > 0 and q == 0 for p, q in zip(P, Q, strict=True)):
            return mp.inf
        return mp.fsum(p * mp.log(p / q) for p, q in zip(P, Q, strict=True) if p > 0)
    if a > 1 and any(p > 0 and q == 0 for p, q in zip(P, Q, strict=True)):
        return mp.inf
    s = mp.fsum(p ** a * q ** (1 - a) for p, q in zip(P, Q, strict=True) if p > 0 and q > 0)
    return mp.inf if s == 0 else mp.log(s) / (a - 1)


def close(got, ref, rel=2e-14, abs_=1e-30):
    if ref == mp.inf:
        return got == math.inf
    return abs(got - float(ref)) <= rel * abs(float(ref)) + abs_


# ============================================================================ divergences


@pytest.mark.parametrize("eps", [1e-6, 1e-3, 0.1, 1.0, 5.0, 30.0])
def test_binary_rr_closed_form(eps):
    # P = (p, 1 - p), Q = (1 - p, p):
    # D_a = 1/(a - 1) ln(p^a (1-p)^(1-a) + (1-p)^a p^(1-a)), KL = (2p - 1) ln(p/(1-p)),
    # D_inf = ln(p/(1-p)); p and 1 - p are the stored entries of RR(eps)
    m = md.randomized_response(2, eps)
    p, q = (mp.mpf(float(v)) for v in m.matrix[0])
    p, q = p / (p + q), q / (p + q)
    for a in (0.5, 1.5, 2.0, 10.0, 100.0, 1e4):
        A = mp.mpf(a)
        ref = mp.log(p ** A * q ** (1 - A) + q ** A * p ** (1 - A)) / (A - 1)
        assert close(renyi_epsilon(m, a), ref), (eps, a)
    assert close(renyi_epsilon(m, 1.0), (p - q) * mp.log(p / q))
    assert close(renyi_epsilon(m, math.inf), mp.log(p / q))
    # KL of RR(eps) = eps tanh(eps/2) (nominal eps; the stored entries are within ulps)
    assert renyi_epsilon(m, 1.0) == pytest.approx(eps * math.tanh(eps / 2), rel=1e-9)


def test_limits_alpha_to_one_and_infinity():
    m = md.randomized_response(4, 1.3)
    kl = renyi_epsilon(m, 1.0)
    for h in (1e-6, 1e-9, 1e-12):  # D_a is smooth at 1 (slope Var/2): within ~h of KL
        assert abs(renyi_epsilon(m, 1.0 + h) - kl) <= 2 * h
        assert abs(renyi_epsilon(m, 1.0 - h) - kl) <= 2 * h
        assert renyi_epsilon(m, 1.0 - h) <= kl <= renyi_epsilon(m, 1.0 + h)
    assert renyi_epsilon(m, math.inf) == pytest.approx(md.epsilon_ldp(m), rel=1e-14)
    assert renyi_epsilon(m, 1e6) <= renyi_epsilon(m, math.inf)
    assert renyi_epsilon(m, 1e6) == pytest.approx(md.epsilon_ldp(m), rel=1e-5)


@settings(max_examples=60, deadline=None)
@given(mechanisms(rows=(2, 4), cols=(2, 5)))
def test_infinity_is_epsilon_ldp(m):
    assert renyi_epsilon(m, math.inf) == pytest.approx(md.epsilon_ldp(m), rel=1e-13)


def test_mpmath_extreme_entries_and_orders():
    cases = [
        ([1e-300, 1.0], [0.5, 0.5]),
        ([0.5, 0.5], [1e-300, 1.0]),
        ([1e-300, 1e-200, 1.0], [1e-250, 0.25, 0.75]),
        ([0.3, 0.7], [0.3 * (1 + 1e-12), 1 - 0.3 * (1 + 1e-12)]),  # rows within 1e-12
        ([1e-18, 1e-12, 1.0 - 1e-12 - 1e-18], [1e-12, 1e-18, 1.0 - 1e-12 - 1e-18]),
    ]
    for P, Q in cases:
        got = renyi_divergence(P, Q, ALPHAS)
        for a, g in zip(ALPHAS, got, strict=True):
            ref = mp_renyi(P, Q, a)
            assert close(float(g), ref, rel=5e-14), (P, Q, a, g, ref)


@settings(max_examples=80, deadline=None)
@given(stochastic_matrices(rows=(2, 2), cols=(2, 5)))
def test_against_mpmath_random(M):
    P, Q = M
    got = renyi_divergence(P, Q, ALPHAS)
    for a, g in zip(ALPHAS, got, strict=True):
        ref = mp_renyi(P, Q, a)
        assert close(float(g), ref, rel=5e-14), (a, g, ref)


def test_support_conventions():
    # P(y) > 0 = Q(y): infinite for alpha >= 1; below 1 the output contributes 0
    P, Q = [0.5, 0.5], [1.0, 0.0]
    assert renyi_divergence(P, Q, [1.0, 2.0, math.inf]).tolist() == [math.inf] * 3
    # alpha = 1/2: -2 ln sum sqrt(P Q) = -2 ln sqrt(1/2) = ln 2; alpha = 0: -ln Q(supp P) = 0
    assert renyi_divergence(P, Q, 0.5) == pytest.approx(math.log(2), rel=1e-15)
    assert renyi_divergence(P, Q, 0.0) == 0.0
    # the other direction: Q(y) = 0 where P(y) = 0 is harmless
    assert renyi_divergence(Q, P, 2.0) == pytest.approx(math.log(2), rel=1e-15)  # ln(1^2/0.5)
    # disjoint supports: infinite at every order > 0 (and at 0: Q(supp P) = 0)
    assert renyi_divergence([1.0, 0.0], [0.0, 1.0], ALPHAS).tolist() == [math.inf] * 13
    assert renyi_divergence([0.2, 0.8], [0.2, 0.8], ALPHAS).tolist() == [0.0] * 13
    assert isinstance(renyi_divergence(P, Q, 0.5), float)
    assert renyi_divergence(P, P, np.ones((2, 3))).shape == (2, 3)


@settings(max_examples=80, deadline=None)
@given(stochastic_matrices(rows=(2, 2), cols=(2, 5)),
       st.lists(st.floats(0.0, 1e4), min_size=2, max_size=6))
def test_monotone_in_alpha(M, alphas):
    a = np.sort(np.array([*alphas, 1.0, math.inf]))
    d = renyi_divergence(M[0], M[1], a)
    finite = d[np.isfinite(d)]
    assert np.all(np.diff(finite) >= -1e-13 * np.maximum(finite[1:], 1e-300) - 1e-300)
    # once infinite, infinite (infinite values are at the top end)
    assert np.all(np.isinf(d[np.argmax(np.isinf(d)):])) or not np.isinf(d).any()


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
@settings(max_examples=60, deadline=None)
@given(mechanisms(rows=(2, 4), cols=(2, 4)), stochastic_matrices(rows=(4, 4), cols=(1, 4)),
       st.sampled_from([0.5, 1.0, 2.0, 10.0, math.inf]))
def test_data_processing(m, G, a):
    # garbling Q -> Q G never increases any Rényi divergence (van Erven-Harremoes Thm 9)
    G = G[: m.n_outputs]
    G = G / G.sum(axis=1, keepdims=True)
    garbled = md.Mechanism(np.clip(m.matrix @ G, 0, None) / (m.matrix @ G).sum(1, keepdims=True))
    before, after = renyi_epsilon(m, a), renyi_epsilon(garbled, a)
    assert after <= before * (1 + 1e-12) + 1e-15


def test_data_processing_of_the_dont_know_mechanism():
    # Li et al.: the "don't know" mechanism is Warner plus noise (a garbling), so below it
    w, dk = md.warner(0.75), md.dont_know(0.6, 0.2)
    assert md.privacy.is_garbling_of(dk.to_mechanism(), w)
    assert np.all(renyi_epsilon(dk, ALPHAS) <= renyi_epsilon(w, ALPHAS) * (1 + 1e-12))
    # an evidential mechanism is read over its messages
    assert renyi_epsilon(dk, 2.0) == renyi_epsilon(dk.to_mechanism(), 2.0)


def test_additive_over_products():
    # D_a(P x P' || Q x Q') = D_a(P || Q) + D_a(P' || Q'): the k-fold curve is k eps(a)
    m = md.Mechanism([[0.5, 0.3, 0.2], [0.1, 0.3, 0.6]])
    P, Q = m.matrix
    for a in (0.5, 1.0, 2.0, 9.0, math.inf):
        one = renyi_divergence(P, Q, a)
        two = renyi_divergence(np.kron(P, P), np.kron(Q, Q), a)
        three = renyi_divergence(np.kron(np.kron(P, P), P), np.kron(np.kron(Q, Q), Q), a)
        assert two == pytest.approx(2 * one, rel=1e-13)
        assert three == pytest.approx(3 * one, rel=1e-13)
    curve = renyi_curve(m, [2.0, 9.0]).compose(3)
    assert curve.k == 3 and curve.epsilons.tolist() == pytest.approx(
        [3 * renyi_epsilon(m, 2.0), 3 * renyi_epsilon(m, 9.0)], rel=1e-15)


def test_worst_pairs_and_pairs_argument():
    m = md.Mechanism([[0.7, 0.2, 0.1], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8]])
    curve = renyi_curve(m, [1.0, 2.0, math.inf])
    for a, e, (x, xp) in zip(curve.alphas, curve.epsilons, curve.worst_pairs, strict=True):
        assert e == renyi_divergence(m.matrix[x], m.matrix[xp], a)
        brute = max(renyi_divergence(m.matrix[i], m.matrix[j], a)
                    for i in range(3) for j in range(3) if i != j)
        assert e == brute
    assert renyi_epsilon(m, 2.0, pairs=[(0, 1)]) == renyi_divergence(m.matrix[0],
                                                                     m.matrix[1], 2.0)
    assert not curve.alphas.flags.writeable and not curve.epsilons.flags.writeable


# ============================================================================ zCDP


@pytest.mark.parametrize("eps", [pytest.param(1e-3, marks=pytest.mark.slow),  # 10 s
                                 0.1, 0.5, 1.0, 3.0, 10.0])
def test_zcdp_of_binary_rr(eps):
    # Along s = alpha - 1 the ratio D_alpha/alpha starts at KL = eps tanh(eps/2) with slope
    # Var(L)/2 - KL = eps^2 sech^2(eps/2)/2 - eps tanh(eps/2) < 0, and decreases: rho is
    # the limit alpha -> 1+, eps tanh(eps/2) <= eps^2/2 (Bun-Steinke Prop 1.4)
    m = md.randomized_response(2, eps)
    z = zcdp_rho(m)
    kl = renyi_epsilon(m, 1.0)
    assert z.converged
    # the values are outward-rounded upper bounds (about 1e-14 relative), and at eps = 1e-3
    # eps(alpha)/alpha falls by only 1e-22 between alpha = 1 and 1 + 1e-9: an order just
    # above 1 may then read an ulp above KL and hold the lower end (an ulp or two higher)
    if z.alpha == 1.0:
        assert z.lower == kl
    else:
        assert z.alpha - 1.0 <= 1e-8 and kl <= z.lower <= kl * (1 + 1e-14)
    assert kl <= z.rho <= kl * (1 + 1e-9)
    assert z.rho == pytest.approx(eps * math.tanh(eps / 2), rel=1e-8)
    assert z.rho <= eps ** 2 / 2
    # a 50-digit dense grid of the closed form never exceeds it
    p, q = (mp.mpf(float(v)) for v in m.matrix[0])
    for t in np.linspace(-8, 6, 141):
        A = 1 + mp.mpf(10) ** mp.mpf(float(t))
        d = mp.log(p ** A * q ** (1 - A) + q ** A * p ** (1 - A)) / (A - 1)
        assert d / A <= z.rho * (1 + 1e-12)


def test_zcdp_interior_maximum_against_mpmath():
    # 10-RR(1): D_a/a peaks inside (1, inf). Closed form of k-RR rows (a, b, .., b) and
    # (b, a, b, ..): D = 1/(A-1) ln(a^A b^(1-A) + b^A a^(1-A) + (k-2) b); maximised in 50
    # digits by a golden-section search on ln(A - 1)
    k, eps = 10, 1.0
    m = md.randomized_response(k, eps)
    a, b = (mp.mpf(float(v)) for v in m.matrix[0, :2])

    def g(t):
        A = 1 + mp.exp(t)
        return mp.log(a ** A * b ** (1 - A) + b ** A * a ** (1 - A) + (k - 2) * b) / (A - 1) / A

    lo, hi = mp.mpf(-3), mp.mpf(3)
    phi = (mp.sqrt(5) - 1) / 2
    for _ in range(200):
        c, d = hi - phi * (hi - lo), lo + phi * (hi - lo)
        lo, hi = (lo, d) if g(c) > g(d) else (c, hi)
    best = g((lo + hi) / 2)
    z = zcdp_rho(m)
    assert z.converged and 1.5 < z.alpha < 3.5
    assert float(best) * (1 - 1e-13) <= z.rho <= float(best) * (1 + 1e-9)
    assert z.lower <= float(best) * (1 + 1e-13)


@pytest.mark.slow  # 2.5-11 s: left out of the quick and the floors runs
@settings(max_examples=40, deadline=None)
@given(mechanisms(rows=(2, 4), cols=(2, 4), zeros=False))
def test_zcdp_bounds(m):
    # every eps-LDP pair is binary RR(eps) garbled (Kairouz-Oh-Viswanath), so
    # KL <= rho <= rho(RR(eps)) = eps tanh(eps/2) <= eps^2/2; and eps(a)/a <= rho everywhere
    eps = md.epsilon_ldp(m)
    z = zcdp_rho(m)
    assert z.lower <= z.rho <= z.lower * (1 + 1e-9) + 1e-300
    assert renyi_epsilon(m, 1.0) <= z.rho * (1 + 1e-12)
    assert z.rho <= eps * math.tanh(eps / 2) * (1 + 1e-9) + 1e-300
    assert z.rho <= eps ** 2 / 2 * (1 + 1e-9) + 1e-300
    a = np.geomspace(1 + 1e-6, 1e6, 60)
    assert np.all(renyi_epsilon(m, a) / a <= z.rho * (1 + 1e-12))


def test_zcdp_special_cases():
    assert zcdp_rho([[0.5, 0.5], [0.5, 0.5]]).rho == 0.0
    z = zcdp_rho([[0.5, 0.5], [1.0, 0.0]])
    assert z.rho == math.inf
    assert "rho=" in repr(zcdp_rho(md.randomized_response(2, 1.0)))


# ============================================================================ conversion


def test_rr_1000_fold_against_exact():
    # 1000 uses of RR(0.1) at delta = 1e-6: exact 19.3446714479934 (epsilon_composed; the
    # Kairouz-Oh-Viswanath sum); RDP conversion is an upper bound, about 6% above
    rr = md.randomized_response(2, 0.1)
    exact = epsilon_composed(rr, 1e-6, 1000).epsilon
    assert exact == pytest.approx(19.3446714479934, rel=1e-12)
    cks = epsilon_rdp(rr, 1e-6, 1000)
    mir = epsilon_rdp(rr, 1e-6, 1000, conversion="mironov")
    assert exact <= cks.epsilon <= mir.epsilon
    assert cks.epsilon == pytest.approx(20.4504, abs=1e-4)
    assert cks.k == 1000 and cks.rdp == pytest.approx(1000 * renyi_epsilon(rr, cks.alpha))
    # zCDP route (rho k alpha at every order) is looser still, and the refinement helped
    grid = epsilon_rdp(rr, 1e-6, 1000, alphas=np.linspace(1.5, 5.0, 8))
    assert cks.epsilon <= grid.epsilon


CASES = [
    (md.randomized_response(2, 0.5), 20),
    (md.randomized_response(3, 1.0), 30),
    (md.warner(0.75), 15),
    (md.dont_know(0.6, 0.2), 8),
    (md.Mechanism([[0.5, 0.3, 0.2, 0.0], [0.1, 0.3, 0.4, 0.2], [0.2, 0.2, 0.2, 0.4]]), 6),
    (md.catalog.deletion_counterexample(), 5),
]


@pytest.mark.parametrize("m, k", CASES)
@pytest.mark.parametrize("delta", [1e-2, 1e-6, 1e-12])
def test_conversion_is_an_upper_bound_on_the_exact_composition(m, k, delta):
    exact = epsilon_composed(m, delta, k)
    low = exact.lower if not exact.exact else exact.epsilon
    for conversion in ("canonne", "mironov"):
        bound = epsilon_rdp(m, delta, k, conversion=conversion)
        assert bound.epsilon >= low - 1e-9, (conversion, bound, exact)
    assert epsilon_rdp(m, delta, k).epsilon <= epsilon_rdp(
        m, delta, k, conversion="mironov").epsilon + 1e-12


def test_rdp_to_dp_gaussian_closed_form():
    # Gaussian mechanism, sensitivity 1, noise sigma: eps(a) = a/(2 sigma^2). Mironov's
    # conversion min_a a/(2 s^2) + ln(1/d)/(a - 1) is attained at a = 1 + s sqrt(2 ln(1/d)):
    # eps = 1/(2 s^2) + sqrt(2 ln(1/d))/s
    sigma, delta = 4.0, 1e-6
    a = 1 + np.geomspace(1e-3, 1e4, 200_001)
    res = rdp_to_dp(a / (2 * sigma ** 2), a, delta, conversion="mironov")
    closed = 1 / (2 * sigma ** 2) + math.sqrt(2 * math.log(1 / delta)) / sigma
    assert closed <= res.epsilon <= closed * (1 + 1e-8)
    assert res.alpha == pytest.approx(1 + sigma * math.sqrt(2 * math.log(1 / delta)),
                                      rel=1e-3)
    # combining: a mechdesign randomizer + the Gaussian, curves added at the same orders
    rr = md.randomized_response(2, 0.5)
    both = rdp_to_dp(renyi_epsilon(rr, a[::100]) + a[::100] / (2 * sigma ** 2), a[::100],
                     delta)
    assert both.epsilon > rdp_to_dp(a[::100] / (2 * sigma ** 2), a[::100], delta).epsilon


def test_rdp_to_dp_edges():
    a = np.array([1.0, 2.0, math.inf])
    r = np.array([0.1, 0.3, 0.8])
    assert rdp_to_dp(r, a, 0.0).epsilon == 0.8  # only alpha = inf converts at delta = 0
    assert rdp_to_dp(r[:2], a[:2], 0.0).epsilon == math.inf
    assert rdp_to_dp(r, a, 1.0).epsilon == 0.0
    # alpha = 2, delta = 1e-3: 0.3 + ln(1/2) - (ln 1e-3 + ln 2) = 0.3 + ln(1e3/4)
    assert rdp_to_dp(r[:2], a[:2], 1e-3).epsilon == pytest.approx(0.3 + math.log(250))
    assert rdp_to_dp(r[:2], a[:2], 1e-3, conversion="mironov").epsilon == pytest.approx(
        0.3 + math.log(1e3))
    res = rdp_to_dp([1e-9, 1e-9], [2.0, 3.0], 0.5)  # a negative formula clips to 0
    assert res.epsilon == 0.0
    text = repr(rdp_to_dp(r, a, 1e-3))
    assert "upper bound" in text and len(text) <= 200


# ============================================================================ reprs and bad input


def test_reprs_are_short_and_exact():
    m = md.randomized_response(3, 1.0)
    curve = renyi_curve(m, [2.0, math.inf])
    assert repr(float(curve.epsilons[0])) in repr(curve)
    z = zcdp_rho(m)
    assert repr(z.rho) in repr(z) and "worst pair (0, 1)" in repr(z)
    for obj in (curve, z, epsilon_rdp(m, 1e-6, 10)):
        assert len(repr(obj)) <= 200 and obj._repr_html_().startswith("<div")


@pytest.mark.parametrize("call, needle", [
    (lambda: renyi_divergence([0.5, float("nan")], [0.5, 0.5], 2.0), "nan"),
    (lambda: renyi_divergence([1.2, -0.2], [0.5, 0.5], 2.0), "-0.2"),
    (lambda: renyi_divergence([0.6, 0.6], [0.5, 0.5], 2.0), "1.2"),
    (lambda: renyi_divergence([0.5, 0.5], [0.2, 0.3, 0.5], 2.0), "2 and 3"),
    (lambda: renyi_divergence([[0.5, 0.5]], [0.5, 0.5], 2.0), "(1, 2)"),
    (lambda: renyi_divergence(["0.5", 0.5], [0.5, 0.5], 2.0), "'0.5'"),
    (lambda: renyi_divergence([0.5, 0.5], [0.5, 0.5], -1.0), "-1.0"),
    (lambda: renyi_divergence([0.5, 0.5], [0.5, 0.5], float("nan")), "nan"),
    (lambda: renyi_divergence([0.5, 0.5], [0.5, 0.5], [2.0, -3.0]), "-3.0"),
    (lambda: renyi_divergence([0.5, 0.5], [0.5, 0.5], "2"), "'2'"),
    (lambda: renyi_epsilon(md.warner(0.7), 2.0, pairs=[(0, 5)]), "5"),
    (lambda: renyi_epsilon(md.warner(0.7), 2.0, pairs=[]), "empty"),
    (lambda: zcdp_rho(md.warner(0.7), rtol=0.0), "0.0"),
    (lambda: rdp_to_dp([0.1, 0.2], [2.0], 1e-6), "2 and 1"),
    (lambda: rdp_to_dp([0.1], [2.0], 1.5), "1.5"),
    (lambda: rdp_to_dp([0.1], [0.5], 1e-6), "0.5"),
    (lambda: rdp_to_dp([-0.1], [2.0], 1e-6), "-0.1"),
    (lambda: rdp_to_dp([0.1], [2.0], 1e-6, conversion="best"), "'best'"),
    (lambda: epsilon_rdp(md.warner(0.7), 1e-6, 0), "0"),
])
def test_bad_input_names_the_value(call, needle):
    with pytest.raises(InvalidParameterError) as err:
        call()
    assert needle in str(err.value)


def test_bad_mechanisms():
    with pytest.raises(InvalidMechanismError, match="2 inputs"):
        renyi_epsilon([[0.5, 0.5]], 2.0)
    with pytest.raises(InvalidMechanismError, match=r"-0\.5"):
        renyi_epsilon([[1.5, -0.5], [0.5, 0.5]], 2.0)


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
def test_zcdp_on_nearly_equal_rows_answers_with_a_valid_bracket(monkeypatch):
    # rows one ulp apart: the divergences (about 1e-32) are smaller than their rounding
    # bounds, splitting orders cannot narrow the bracket, and the default 200 rounds (about
    # 4x more orders per round) never returned. Counted, not timed.
    from mechdesign.accounting import renyi

    evaluated = []
    real = renyi._curve

    def counting(m, idx, alphas):
        evaluated.append(len(alphas))
        return real(m, idx, alphas)

    monkeypatch.setattr(renyi, "_curve", counting)
    monkeypatch.setattr(renyi, "MAX_ORDERS", 2000)  # the default (20,000) takes ~10 s
    Q = [[0.5, 0.5], [0.5, 0.5000000000000001]]
    z = renyi.zcdp_rho(Q)
    assert not z.converged
    assert sum(evaluated) <= 2 * renyi.MAX_ORDERS
    # the bracket still holds the supremum: rho >= KL (the ratio eps(alpha)/alpha as
    # alpha -> 1+) of the worst pair, the rows normalised exactly, at 60 digits
    with mp.workdps(60):
        r1 = [mp.mpf(0.5), mp.mpf(0.5000000000000001)]
        w = [v / mp.fsum(r1) for v in r1]
        kl = max(mp.fsum(a * mp.log(a / b) for a, b in zip(w, [mp.mpf(0.5)] * 2, strict=True)),
                 mp.fsum(b * mp.log(b / a) for a, b in zip(w, [mp.mpf(0.5)] * 2, strict=True)))
    assert 0 < kl <= z.rho
    assert z.lower <= z.rho
