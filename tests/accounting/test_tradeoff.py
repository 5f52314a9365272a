"""Trade-off functions (f-DP) of finite pairs and mechanisms, exact and piecewise linear.

References: Dong, Roth & Su 2022 (Gaussian DP), ``docs/accounting.md`` s.5
and ``docs/belief_functions.md`` s.3 (f_eps, f_eps (x) f_eps, the Kairouz-Oh-Viswanath
binomial construction).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from mechdesign import (
    EvidentialMechanism,
    InvalidMechanismError,
    InvalidParameterError,
    Mechanism,
    SizeLimitError,
    delta_ldp,
    dont_know,
    epsilon_ldp,
    randomized_response,
)
from mechdesign.accounting import pld as tradeoff_module
from mechdesign.accounting.tradeoff import (
    GaussianApproximation,
    TradeoffCurve,
    convex_conjugate,
    delta_from_tradeoff,
    epsilon_of_tradeoff,
    gaussian_approximation,
    lower_envelope,
    tensor_power,
    tensor_product,
    tradeoff_curve,
    tradeoff_dp,
    tradeoff_function,
    tradeoff_function_dp,
    tradeoff_gaussian,
)
from mechdesign.privacy.measures import pairwise_log_ratios
from tests.strategies import mechanisms, stochastic_matrices

GRID = np.linspace(0.0, 1.0, 1001)


def np_lp_tradeoff(P: np.ndarray, Q: np.ndarray, alpha: float) -> float:
    """Independent reference: T(P, Q)(alpha) = min 1 - Q.phi s.t. P.phi <= alpha, phi in [0,1]
    (the definition, solved as an LP by HiGHS; no Neyman-Pearson sorting)."""
    res = linprog(-Q, A_ub=P[None, :], b_ub=[alpha], bounds=(0, 1), method="highs")
    assert res.status == 0
    return 1.0 + res.fun


# --------------------------------------------------------------------------- f_eps and RR


@pytest.mark.parametrize("eps", [0.0, 0.1, 1.0, math.log(3), 5.0, 30.0])
def test_binary_rr_curve_is_exactly_f_eps(eps):
    # s.5: binary RR(eps) has trade-off exactly f_{eps,0}; kink at alpha* = 1/(1 + e^eps)
    rr = randomized_response(2, eps)
    f = tradeoff_function(rr, pair=(0, 1))
    kink = 1 / (1 + math.exp(eps))
    if eps == 0:
        np.testing.assert_array_equal(f.alphas, [0.0, 1.0])
        np.testing.assert_allclose(f.betas, [1.0, 0.0], atol=1e-15)
    else:
        np.testing.assert_allclose(f.alphas, [0.0, kink, 1.0], rtol=1e-14, atol=0)
        np.testing.assert_allclose(f.betas, [1.0, kink, 0.0], rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(f(GRID), tradeoff_dp(eps, GRID), rtol=0, atol=1e-15)
    # both orders of the pair and the worst pair coincide for a symmetric mechanism
    np.testing.assert_allclose(tradeoff_curve(rr, GRID), tradeoff_dp(eps, GRID), atol=1e-15)
    np.testing.assert_allclose(tradeoff_curve(rr, GRID, pair=(1, 0)), tradeoff_dp(eps, GRID),
                               atol=1e-15)
    assert epsilon_of_tradeoff(f) == pytest.approx(eps, abs=1e-12)
    np.testing.assert_array_equal(tradeoff_curve(rr, alphas=GRID), tradeoff_curve(rr, GRID))


def test_tradeoff_dp_closed_form_values():
    # f_{ln 3}: 1 - 3a on [0, 1/4], (1 - a)/3 after; f_{eps,delta} with delta = 0.1
    assert tradeoff_dp(math.log(3), 0.1) == pytest.approx(0.7, abs=1e-15)
    assert tradeoff_dp(math.log(3), 0.25) == pytest.approx(0.25, abs=1e-15)
    assert tradeoff_dp(math.log(3), 0.7) == pytest.approx(0.1, abs=1e-15)
    assert tradeoff_dp(math.log(3), 0.1, delta=0.1) == pytest.approx(0.6, abs=1e-15)
    assert tradeoff_dp(math.log(3), 0.95, delta=0.1) == 0.0
    assert tradeoff_dp(0.0, 0.3) == pytest.approx(0.7, abs=1e-15)  # perfect privacy
    np.testing.assert_array_equal(tradeoff_dp(math.inf, [0.0, 1e-300, 0.5]), [1.0, 0.0, 0.0])
    assert tradeoff_dp(1.0, np.zeros((2, 3))).shape == (2, 3)


@pytest.mark.parametrize("eps,delta", [(0.5, 0.0), (1.0, 0.1), (3.0, 0.25), (0.0, 0.3)])
def test_dp_curve_breakpoints_and_a_pair_realising_f_eps_delta(eps, delta):
    f = tradeoff_function_dp(eps, delta)
    np.testing.assert_allclose(f(GRID), tradeoff_dp(eps, GRID, delta), atol=1e-15)
    # Dong-Roth-Su Prop 2.5: f_{eps,delta} is the curve of the 4-point pair
    # P = (delta, (1-delta) e/(1+e), (1-delta)/(1+e), 0), Q = reversed
    e = math.exp(eps)
    P = [delta, (1 - delta) * e / (1 + e), (1 - delta) / (1 + e), 0.0]
    g = tradeoff_function(P, P[::-1])
    np.testing.assert_allclose(g(GRID), tradeoff_dp(eps, GRID, delta), atol=1e-15)


# --------------------------------------------------------------------------- pairs: two methods


@settings(max_examples=60, deadline=None)
@given(stochastic_matrices(rows=(2, 2), cols=(2, 5), tiny=False),
       st.lists(st.floats(0, 1), min_size=5, max_size=5))
def test_neyman_pearson_curve_against_the_lp_over_tests(PQ, alphas):
    # (no 1e-18 entries here: the LP's 1e-9 feasibility tolerance would ignore them)
    P, Q = PQ
    f = tradeoff_function(P, Q)
    for a in alphas:
        assert f(a) == pytest.approx(np_lp_tradeoff(P, Q, a), abs=1e-8)
    # a trade-off function: convex, non-increasing, f(1) = 0, f <= 1 - alpha
    assert f.is_convex
    assert (np.diff(f.betas) <= 1e-15).all()
    assert f.betas[-1] == 0.0
    assert (f(GRID) <= 1 - GRID + 1e-12).all()


def test_tiny_masses_are_measured_as_themselves():
    # P = (1, 1e-18), Q = (0, 1): rejecting output 1 costs alpha = 1e-18, so T(0) = 1 and
    # T(1e-18) = 0 (an LP solver with a 1e-9 feasibility tolerance would report T(0) = 0)
    f = tradeoff_function([1.0, 1e-18], [0.0, 1.0])
    np.testing.assert_allclose(f.alphas, [0.0, 1e-18, 1.0], rtol=1e-14, atol=0)
    np.testing.assert_array_equal(f.betas, [1.0, 0.0, 0.0])
    assert f(5e-19) == pytest.approx(0.5, rel=1e-12)
    assert epsilon_of_tradeoff(f) == math.inf  # beta = 0 at alpha = 1e-18 < 1: Q(y0) = 0


def test_curve_with_disjoint_supports_starts_below_one():
    # outputs where P = 0 are rejected for free: T(0) = 1 - Q(P = 0)
    f = tradeoff_function([0.5, 0.5, 0.0], [0.0, 0.5, 0.5])
    assert f.as_rows() == [(0.0, 0.5), (0.5, 0.0), (1.0, 0.0)]
    assert epsilon_of_tradeoff(f) == math.inf
    same = tradeoff_function([0.2, 0.8], [0.2, 0.8])
    assert same.as_rows() == [(0.0, 1.0), (1.0, 0.0)]  # 1 - alpha: indistinguishable


@settings(max_examples=40, deadline=None)
@given(stochastic_matrices(rows=(2, 2), cols=(2, 3)), stochastic_matrices(rows=(2, 2),
                                                                          cols=(2, 3)))
def test_tensor_product_is_the_curve_of_the_product_pair(A, B):
    # f (x) g = T(P1 x P2, Q1 x Q2) (Dong-Roth-Su Def 3.1): atoms vs the Kronecker product
    direct = tradeoff_function(np.kron(A[0], B[0]), np.kron(A[1], B[1]))
    via_pairs = tensor_product((A[0], A[1]), (B[0], B[1]))
    via_curves = tensor_product(tradeoff_function(A[0], A[1]), tradeoff_function(B[0], B[1]))
    np.testing.assert_allclose(via_pairs(GRID), direct(GRID), atol=1e-12)
    np.testing.assert_allclose(via_curves(GRID), direct(GRID), atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(stochastic_matrices(rows=(2, 2), cols=(2, 3)), st.integers(2, 4))
def test_k_fold_atoms_against_the_explicit_product(PQ, k):
    P, Q = PQ
    Pk, Qk = P, Q
    for _ in range(k - 1):
        Pk, Qk = np.kron(Pk, P), np.kron(Qk, Q)
    np.testing.assert_allclose(tradeoff_curve(P, Q, GRID, k=k),
                               tradeoff_function(Pk, Qk)(GRID), atol=1e-12)
    np.testing.assert_allclose(tensor_power((P, Q), k)(GRID),
                               tradeoff_function(Pk, Qk)(GRID), atol=1e-12)


def test_f_eps_tensor_f_eps_closed_form():
    # docs/belief_functions.md s.3 (Cor 3.6): f_eps (x) f_eps
    #   = max{0, 1 - e^{2eps} a, 2/(1+e^eps) - a, e^{-2eps}(1 - a)}
    for eps in (0.3, 1.0, 2.5):
        e = math.exp(eps)
        ref = np.maximum.reduce([np.zeros_like(GRID), 1 - e * e * GRID,
                                 2 / (1 + e) - GRID, (1 - GRID) / (e * e)])
        f = tradeoff_function_dp(eps)
        np.testing.assert_allclose(tensor_product(f, f)(GRID), ref, atol=1e-14)
        np.testing.assert_allclose(tensor_power(f, 2)(GRID), ref, atol=1e-14)
        # and it is the 2-fold curve of binary RR(eps)
        rr = randomized_response(2, eps)
        np.testing.assert_allclose(tradeoff_curve(rr, GRID, pair=(0, 1), k=2), ref, atol=1e-14)


# --------------------------------------------------------------------------- KOV binomial


def kov_points(eps: float, k: int, mech: Mechanism) -> tuple[np.ndarray, np.ndarray]:
    """Kairouz-Oh-Viswanath (docs/belief_functions.md s.3): the points (P0(J >= j), P1(J < j)),
    J ~ Bin(k, 1/(1+e^eps)) under H0 and Bin(k, e^eps/(1+e^eps)) under H1, in 60-digit
    arithmetic on the probabilities AS STORED in the matrix (a 1-ulp change of p moves
    p^1000 by 1e-13, so the exact reference must use the same floats)."""
    mpmath.mp.dps = 60
    Qm = mech.matrix
    lo0, hi0 = mpmath.mpf(float(Qm[0, 1])), mpmath.mpf(float(Qm[0, 0]))
    hi1, lo1 = mpmath.mpf(float(Qm[1, 1])), mpmath.mpf(float(Qm[1, 0]))
    pm0 = [mpmath.binomial(k, j) * lo0 ** j * hi0 ** (k - j) for j in range(k + 1)]
    pm1 = [mpmath.binomial(k, j) * hi1 ** j * lo1 ** (k - j) for j in range(k + 1)]
    A, B, tail, head = [], [], mpmath.mpf(0), mpmath.mpf(0)
    suffix = [mpmath.mpf(0)] * (k + 2)
    for j in range(k, -1, -1):
        tail += pm0[j]
        suffix[j] = tail
    for j in range(k + 2):
        A.append(float(suffix[j]))
        B.append(float(head))
        if j <= k:
            head += pm1[j]
    return np.minimum(A, 1.0), np.minimum(B, 1.0)


@pytest.mark.parametrize("eps,k", [(0.5, 10), (1.0, 57), (1.0, 1000), (0.1, 1000)])
def test_k_fold_binary_rr_against_kairouz_oh_viswanath(eps, k):
    rr = randomized_response(2, eps)
    f = tradeoff_function(rr, pair=(0, 1), k=k)
    A, B = kov_points(eps, k, rr)
    got = f(A)
    # absolute: float rounding of ~1000-term sums; relative where alpha is resolvable
    np.testing.assert_allclose(got, B, rtol=0, atol=1e-13)
    ok = (A < 0.5) & (B > 1e-300)
    np.testing.assert_allclose(got[ok], B[ok], rtol=1e-11)
    # the curve is the interpolation of those points: also check midpoints
    mid = (A[1:] + A[:-1]) / 2
    np.testing.assert_allclose(f(mid), (B[1:] + B[:-1]) / 2, atol=1e-13)


@pytest.mark.parametrize("eps", [0.1, 1.0])
def test_thousand_fold_rr_breakpoints_are_the_kov_points(eps):
    # 1000-fold binary RR: the loss takes the 1001 values (2j - 1000) eps and the atoms merge
    # exactly; every KOV point that doubles can tell apart (alpha not rounded to 0 or 1, beta
    # not within the rounding of a 1000-term sum of 1, 1e-13 as above) is a breakpoint, and
    # there are no others
    rr = randomized_response(2, eps)
    f = tradeoff_function(rr, pair=(0, 1), k=1000)
    A, B = kov_points(eps, 1000, rr)
    visible = (A > 0) & (A < 1 - 1e-13) & (B < 1 - 1e-13)
    possible = (A > 0) & (A < 1) & (B < 1)  # within rounding of a corner: may or may not show
    assert f.is_convex
    assert len(f) <= 1002
    inner = f.alphas[(f.alphas > 0) & (f.alphas < 1)]
    for a in A[visible]:
        assert np.abs(inner - a).min() <= 1e-12 * a
    assert len(inner) <= possible.sum() + 2


def test_k_rr_k_fold_worst_pair_equals_the_pair_curve():
    # 3-RR is symmetric: every ordered pair has the same curve, so the minimum is that curve
    m = randomized_response(3, 1.0)
    np.testing.assert_allclose(tradeoff_curve(m, GRID, k=20),
                               tradeoff_curve(m, GRID, pair=(0, 2), k=20), atol=1e-13)


def test_incommensurate_losses_hit_the_size_limits(monkeypatch):
    # four unrelated loss values: the k-fold has ~k^3/6 distinct losses, which never collapse
    P = np.array([0.1, 0.2, 0.3, 0.4])
    Q = np.array([0.4, 0.13, 0.2, 0.27])
    assert len(tradeoff_function(P, Q, k=8)) > 100
    monkeypatch.setattr(tradeoff_module, "MAX_ATOMS", 100)
    with pytest.raises(SizeLimitError, match="MAX_ATOMS = 100"):
        tradeoff_function(P, Q, k=8)
    monkeypatch.setattr(tradeoff_module, "MAX_PAIRS", 50)
    with pytest.raises(SizeLimitError, match="MAX_PAIRS = 50"):
        tradeoff_function(P, Q, k=8)


def test_blocked_convolution_matches_the_direct_one(monkeypatch):
    rr = randomized_response(2, 0.7)
    direct = tradeoff_function(rr, pair=(0, 1), k=300)
    monkeypatch.setattr(tradeoff_module, "_BLOCK", 1000)  # forces many blocks
    blocked = tradeoff_function(rr, pair=(0, 1), k=300)
    # same atoms up to summation order; as functions equal to ~k ulps (near alpha = 0 the
    # betas are within ulps of 1 and which nearly collinear points are kept may differ)
    grid = np.union1d(direct.alphas, blocked.alphas)
    np.testing.assert_allclose(blocked(grid), direct(grid), rtol=0, atol=1e-13)
    assert abs(len(blocked) - len(direct)) <= 5


# --------------------------------------------------------------------------- worst pair


@settings(max_examples=60, deadline=None)
@given(mechanisms(rows=(2, 4), cols=(2, 4)), st.lists(st.floats(0, 1), min_size=20,
                                                     max_size=20))
def test_worst_pair_is_the_exact_pointwise_minimum(m, alphas):
    env = tradeoff_function(m)
    n = m.n_inputs
    pair_curves = [tradeoff_function(m, pair=(x, xp)) for x in range(n) for xp in range(n)
                   if x != xp]
    a = np.array(alphas)
    brute = np.min([c(a) for c in pair_curves], axis=0)
    np.testing.assert_allclose(env(a), brute, atol=1e-12)
    # exact between breakpoints: the envelope's own breakpoints are where curves cross
    np.testing.assert_allclose(env(env.alphas), np.min([c(env.alphas) for c in pair_curves],
                                                       axis=0), atol=1e-12)


def test_worst_pair_need_not_be_convex():
    # three inputs; the pair whose curve is lowest changes with alpha, and the minimum has a
    # concave kink at the crossing: it is not the curve of any single pair
    m = Mechanism([[0.5, 0.3, 0.2], [0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])
    env = tradeoff_function(m)
    assert not env.is_convex
    with pytest.raises(InvalidParameterError, match="not convex"):
        tensor_product(env, env)


@settings(max_examples=60, deadline=None)
@given(mechanisms(rows=(2, 4), cols=(2, 4), tiny=False))
def test_epsilon_of_the_worst_curve_is_the_ldp_epsilon(m):
    # (no 1e-18 entries: a power of 1e-18 next to beta = 1 is below double resolution; see
    # the epsilon_of_tradeoff docstring)
    # f >= f_eps for every pair iff eps-LDP (Dong-Roth-Su Prop 2.4 / Wasserman-Zhou)
    assert epsilon_of_tradeoff(tradeoff_function(m)) == pytest.approx(epsilon_ldp(m),
                                                                       rel=1e-9, abs=1e-12)
    R = pairwise_log_ratios(m.matrix)
    c = tradeoff_function(m, pair=(0, 1))
    assert epsilon_of_tradeoff(c) == pytest.approx(max(R[0, 1], R[1, 0]), rel=1e-9, abs=1e-12)


def test_evidential_mechanism_is_read_over_its_messages():
    dk = dont_know(0.6, 0.2)
    np.testing.assert_array_equal(tradeoff_curve(dk, GRID),
                                  tradeoff_curve(dk.to_mechanism(), GRID))
    # messages (Yes, No, DK) with rows (.6, .2, .2), (.2, .6, .2): Neyman-Pearson rejects
    # "No" (ratio 3), then "DK" (ratio 1), then "Yes" (ratio 1/3)
    f = tradeoff_function(dk, pair=(0, 1))
    np.testing.assert_allclose(f.alphas, [0.0, 0.2, 0.4, 1.0], atol=1e-15)
    np.testing.assert_allclose(f.betas, [1.0, 0.4, 0.2, 0.0], atol=1e-15)
    assert epsilon_of_tradeoff(tradeoff_function(dk)) == pytest.approx(math.log(3))


def test_one_input_mechanism_is_perfectly_private():
    f = tradeoff_function(Mechanism([[0.2, 0.8]]))
    assert f.as_rows() == [(0.0, 1.0), (1.0, 0.0)]


def test_lower_envelope_inserts_crossings():
    f = TradeoffCurve(np.array([0.0, 0.5, 1.0]), np.array([1.0, 0.1, 0.0]))
    g = TradeoffCurve(np.array([0.0, 1.0]), np.array([0.6, 0.0]))
    env = lower_envelope([f, g])
    # g = 0.6 (1 - a) is lower until it meets f's first segment 1 - 1.8 a at a = 1/3
    # (value 0.4); from there f is lower (its second segment 0.2 - 0.2 a meets g only at 1)
    assert np.abs(env.alphas - 1 / 3).min() < 1e-15
    assert env(1 / 3) == pytest.approx(0.4, abs=1e-15)
    for a in np.linspace(0, 1, 97):
        assert env(a) == pytest.approx(min(f(a), g(a)), abs=1e-15)
    np.testing.assert_allclose(env.betas, [g(a) if a < 1 / 3 else f(a) for a in env.alphas],
                               atol=1e-15)


# --------------------------------------------------------------------------- duality


@settings(max_examples=80, deadline=None)
@given(mechanisms(rows=(2, 4), cols=(2, 4)),
       st.lists(st.floats(0, 4), min_size=1, max_size=5))
def test_duality_delta_equals_one_plus_conjugate(m, epsilons):
    # Dong-Roth-Su Prop 2.12: delta(eps) = 1 + f*(-e^eps), f the minimum over ordered pairs;
    # the analysis layer computes delta as the largest hockey-stick divergence
    f = tradeoff_function(m)
    for eps in epsilons:
        want = delta_ldp(m, eps)
        assert delta_from_tradeoff(f, eps) == pytest.approx(want, abs=1e-12)
        assert 1 + convex_conjugate(f, -math.exp(eps)) == pytest.approx(want, abs=1e-12)


def test_conjugate_is_a_sup_over_alpha():
    f = tradeoff_function_dp(1.0)
    for y in (-5.0, -1.0, -0.2, 0.0, 0.7):
        brute = np.max(y * GRID - f(GRID))
        assert convex_conjugate(f, y) >= brute - 1e-15
        assert convex_conjugate(f, y) == pytest.approx(brute, abs=2e-3)
    np.testing.assert_allclose(delta_from_tradeoff(f, np.array([0.0, 0.5, 1.0, 2.0])),
                               # RR(1): delta(eps) = (e - e^eps)/(1 + e) for eps <= 1
                               [(math.e - 1) / (1 + math.e), (math.e - math.exp(0.5)) /
                                (1 + math.e), 0.0, 0.0], atol=1e-15)


# --------------------------------------------------------------------------- Gaussian DP


def test_gaussian_tradeoff_closed_form():
    # G_1(0.05) = Phi(Phi^-1(0.95) - 1) = Phi(0.6448536...) = 0.740489...
    want = float(mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * 0.05 - 1) - 1))
    assert tradeoff_gaussian(1.0, 0.05) == pytest.approx(want, rel=1e-12)
    np.testing.assert_allclose(tradeoff_gaussian(0.0, GRID), 1 - GRID, atol=1e-15)


def test_gaussian_approximation_is_labelled_and_not_a_bound():
    rr = randomized_response(2, 0.5)
    ga = gaussian_approximation(rr, k=10)
    assert isinstance(ga, GaussianApproximation) and ga.is_approximation
    # Dong-Roth-Su Thm 3.5 for RR(eps0): mu = 2 sqrt(k) tanh(eps0/2) ~ sqrt(k) eps0
    assert ga.mu == pytest.approx(2 * math.sqrt(10) * math.tanh(0.25), rel=1e-13)
    exact = tradeoff_curve(rr, GRID, pair=(0, 1), k=10)
    diff = exact - ga(GRID)
    assert diff.min() < -0.01  # the exact curve dips below G_mu: an approximation, no bound
    # the CLT regime: many small steps, the approximation tightens
    rr_small = randomized_response(2, 0.05)
    diff_big_k = (tradeoff_curve(rr_small, GRID, pair=(0, 1), k=1000)
                  - gaussian_approximation(rr_small, k=1000)(GRID))
    assert np.abs(diff_big_k).max() < 1e-3 < np.abs(diff).max()


def test_gaussian_approximation_of_pairs_and_non_private():
    ga = gaussian_approximation([0.5, 0.5], [0.5, 0.5], k=3)
    assert ga.mu == 0.0
    assert gaussian_approximation([0.5, 0.5, 0.0], [0.25, 0.25, 0.5]).mu == math.inf
    assert gaussian_approximation(Mechanism([[1.0, 0.0], [0.0, 1.0]])).mu == math.inf


# --------------------------------------------------------------------------- the curve object


def test_curve_object_is_frozen_and_evaluates_by_interpolation():
    f = tradeoff_function_dp(math.log(3))
    with pytest.raises(ValueError, match="read-only"):
        f.alphas[0] = 0.5
    with pytest.raises(AttributeError):
        f.label = "x"
    assert f(0.125) == pytest.approx(0.625, abs=1e-15)  # on the first segment 1 - 3 a
    assert f(np.array([[0.0, 1.0]])).shape == (1, 2)
    assert "f_(1.09861" in repr(f)


@pytest.mark.parametrize("alphas,betas,match", [
    ([0.0, 0.5], [1.0, 0.0], "from 0 to 1"),
    ([0.0, 0.5, 0.5, 1.0], [1.0, 0.2, 0.1, 0.0], "strictly"),
    ([0.0, 1.0], [1.5, 0.0], "in \\[0, 1\\]"),
    ([0.0, 1.0], [1.0], "same length"),
    ([0.0, np.nan, 1.0], [1.0, 0.5, 0.0], "finite"),
])
def test_bad_curves_are_refused(alphas, betas, match):
    with pytest.raises(InvalidParameterError, match=match):
        TradeoffCurve(np.array(alphas), np.array(betas))


@pytest.mark.parametrize("call,match", [
    (lambda: tradeoff_curve([0.5, 0.5], [0.5, 0.5], [1.5]), "1.5"),
    (lambda: tradeoff_curve([0.5, 0.5], [0.5, 0.5], [np.nan]), "nan"),
    (lambda: tradeoff_function([0.5, 0.6], [0.5, 0.5]), r"P sums to .*1\.1"),
    (lambda: tradeoff_function([0.5, 0.5], [1.0]), "same length"),
    (lambda: tradeoff_function([[0.5, 0.5]], [0.5, 0.5]), "1-D"),
    (lambda: tradeoff_function([0.5, 0.5]), "two distributions"),
    (lambda: tradeoff_function([0.5, 0.5], [0.5, 0.5], k=0), "k must be >= 1"),
    (lambda: tradeoff_function(randomized_response(3, 1.0), pair=(0, 3)), "index 3"),
    (lambda: tradeoff_function(randomized_response(3, 1.0), pair=(0,)), "pair"),
    (lambda: tradeoff_function(randomized_response(3, 1.0), pair=("a", 1)), "'a'"),
    (lambda: tradeoff_curve(randomized_response(3, 1.0), GRID, GRID), "alphas once"),
    (lambda: tradeoff_curve(randomized_response(3, 1.0)), "needs alphas"),
    (lambda: tradeoff_curve([0.5, 0.5], [0.5, 0.5]), "needs alphas"),
    (lambda: tradeoff_curve([0.5, 0.5], [0.5, 0.5], [0.1], alphas=[0.2]), "twice"),
    (lambda: tradeoff_function([0.5, 0.5], [0.5, 0.5], pair=(0, 1)), "pair"),
    (lambda: tradeoff_dp(-1.0, 0.5), "-1.0"),
    (lambda: tradeoff_dp(1.0, 0.5, delta=2.0), "2.0"),
    (lambda: tradeoff_gaussian(-1.0, 0.5), "-1.0"),
    (lambda: tensor_product(), "at least one"),
    (lambda: tensor_product(5), "TradeoffCurve or a pair"),
    (lambda: tensor_product(("ab", "cd")), "'ab'"),
    (lambda: tensor_power(tradeoff_function_dp(1.0), 0), "k must be >= 1"),
    (lambda: lower_envelope([]), "at least one"),
    (lambda: delta_from_tradeoff(tradeoff_function_dp(1.0), math.nan), "NaN"),
])
def test_bad_input_raises_a_typed_error_naming_the_value(call, match):
    with pytest.raises((InvalidParameterError, InvalidMechanismError), match=match):
        call()


def test_tensor_refuses_a_curve_that_is_not_a_tradeoff_function():
    above_diagonal = TradeoffCurve(np.array([0.0, 0.5, 1.0]), np.array([1.0, 0.9, 0.0]))
    with pytest.raises(InvalidParameterError, match=r"not convex|1 - alpha"):
        tensor_product(above_diagonal, above_diagonal)
    not_zero_at_one = TradeoffCurve(np.array([0.0, 1.0]), np.array([0.5, 0.2]))
    with pytest.raises(InvalidParameterError, match="alpha = 1"):
        tensor_product(not_zero_at_one)


def test_evidential_and_ordinary_inputs_of_gaussian_approximation_agree():
    dk = dont_know(0.6, 0.2)
    assert gaussian_approximation(dk, k=4).mu == gaussian_approximation(
        dk.to_mechanism(), k=4).mu
    ev = EvidentialMechanism.from_mechanism(randomized_response(2, 1.0))
    np.testing.assert_array_equal(tradeoff_curve(ev, GRID),
                                  tradeoff_curve(randomized_response(2, 1.0), GRID))


# ---------------------------------------------------------------- readings are upper bounds
# (issue 31): a pair curve is of the rows each divided by its exact sum, its breakpoints
# rounded down and their complements up; references below are exact rationals / 60 digits.
def _normalised(row):
    from fractions import Fraction

    fr = [Fraction(float(v)) for v in row]
    return [v / sum(fr) for v in fr]


def _hockey_exact(P, Q, eps):
    """H_{e^eps}(Q || P) of the normalised rows at 60 digits (mpmath)."""
    with mpmath.workdps(60):
        e = mpmath.exp(mpmath.mpf(eps))
        return sum(max(mpmath.mpf(q.numerator) / q.denominator
                       - e * mpmath.mpf(p.numerator) / p.denominator, 0)
                   for p, q in zip(_normalised(P), _normalised(Q), strict=True))


@pytest.mark.parametrize("P, Q", [
    ([0.5, 0.5], [0.8, 0.2]),  # 0.8 + 0.2 = 1 + 5.6e-17: read 0.3 by the suffix-sum curve
    ([0.2, 0.8], [0.7, 0.3]),
    ([0.1, 0.2, 0.7], [0.3, 0.3, 0.4]),
])
@pytest.mark.parametrize("eps", [0.0, 1e-12, 0.3])
def test_delta_read_from_a_row_summing_above_one_is_an_upper_bound(P, Q, eps):
    f = tradeoff_function(P, Q)
    exact = _hockey_exact(P, Q, eps)
    got = delta_from_tradeoff(f, eps)
    assert got >= exact
    assert got <= exact * (1 + 1e-15) + 1e-300


def test_powers_keep_their_relative_precision_near_one():
    # identical rows summing to 1 + 1e-300: the exact curve is 1 - alpha (epsilon 0); a
    # breakpoint (1e-300, 1 - 1e-300) stored as doubles read ln(1.1e-16 / 1e-300) = 654
    f = tradeoff_function([0.0, 1e-300, 1.0], [0.0, 1e-300, 1.0])
    assert f.as_rows() == [(0.0, 1.0), (1.0, 0.0)]
    assert epsilon_of_tradeoff(f) == 0.0
    # different rows: the power 1e-300 is kept to full precision, not 1.1e-16
    g = tradeoff_function([1.0 - 2e-16, 2e-16], [1.0 - 4e-16, 4e-16])
    assert g.exact_points[2][1] == pytest.approx(4e-16, rel=1e-15)
    assert epsilon_of_tradeoff(g) == pytest.approx(math.log(2), rel=1e-12)
    assert epsilon_of_tradeoff(g) >= float(mpmath.log(mpmath.mpf(4e-16) / mpmath.mpf(2e-16)))


@pytest.mark.parametrize("eps", [1e-12, 0.5, 5.0, 20.0, 30.0])
def test_binary_rr_epsilon_reads_at_full_precision(eps):
    p = math.exp(eps) / (1 + math.exp(eps))
    m = Mechanism([[p, 1 - p], [1 - p, p]])
    f = tradeoff_function(m.matrix[0], m.matrix[1])
    with mpmath.workdps(60):  # the rows sum to 1 exactly: ln(p / (1 - p)) of the doubles
        exact = mpmath.log(mpmath.mpf(p) / mpmath.mpf(1 - p))
    got = epsilon_of_tradeoff(f)
    assert got >= exact
    assert got <= exact * (1 + 4e-16) + 1e-300  # within a couple of ulps of the ratio


def test_readings_of_a_mechanism_are_the_largest_over_its_pairs():
    m = Mechanism([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.2, 0.5]])
    f = tradeoff_function(m)
    assert len(f.parts) == 6
    assert epsilon_of_tradeoff(f) == max(epsilon_of_tradeoff(p) for p in f.parts)
    assert epsilon_of_tradeoff(f) >= math.log(0.5 / 0.2)
    for eps in (0.0, 0.2, 0.9):
        exact = max(_hockey_exact(m.matrix[x], m.matrix[xp], eps)
                    for x in range(3) for xp in range(3) if x != xp)
        assert exact <= delta_from_tradeoff(f, eps) <= exact * (1 + 1e-15) + 1e-300
        # and within rounding of the raw-row measure (these rows sum to 1 up to ulps)
        assert delta_from_tradeoff(f, eps) == pytest.approx(delta_ldp(m, eps), abs=1e-15)


def test_the_curve_stores_complements_rounded_up():
    from fractions import Fraction

    f = tradeoff_function([0.3, 0.7], [0.6, 0.4])
    # every stored point lies on or below the exact curve (alphas and betas rounded down)
    Pn, Qn = _normalised([0.3, 0.7]), _normalised([0.6, 0.4])
    exact_points = {(Fraction(0), Fraction(1)), (Pn[0], Qn[1]), (Fraction(1), Fraction(0))}
    for a, b, pw, r in zip(*f.exact_points, strict=True):
        match = [(ea, eb) for ea, eb in exact_points
                 if Fraction(float(a)) <= ea and Fraction(float(b)) <= eb
                 and Fraction(float(pw)) >= 1 - eb and Fraction(float(r)) >= 1 - ea]
        assert match, (a, b)
    with pytest.raises(InvalidParameterError, match="powers"):
        TradeoffCurve([0.0, 1.0], [1.0, 0.0], exact_points=([0, 1], [1, 0], [0.5, 1], [1, 0]))


def test_a_breakpoint_the_polyline_drops_still_carries_its_delta():
    # rows summing to 1 - 3e-16 and 1 + 1e-18: the breakpoint after the two outputs where
    # Q > P has beta 1 - 1e-18 - 1.5e-323, which rounds down to the beta before it, so the
    # polyline (convex hull of the doubles) drops it; its power 1e-18 + 5.3e-34 minus its
    # alpha 1e-18 is the delta at eps = 0 (5.26e-34 exactly: a hypothesis example)
    P = [0.0, 1.0, 9.99999999999997e-299, 1e-18]
    Q = [1.5e-323, 0.9999999999999997, 9.99999999999997e-299, 1.0000000000000003e-18]
    f = tradeoff_function(P, Q)
    assert len(f) == 2  # the polyline: the drop happened
    exact = _hockey_exact(P, Q, 0.0)
    assert exact > 5e-34
    # above by at most the roundings of the power and the alpha (an ulp of 1e-18 each)
    assert exact <= delta_from_tradeoff(f, 0.0) <= exact + 2 * np.spacing(1e-18)
