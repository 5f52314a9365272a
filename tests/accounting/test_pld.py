"""The privacy-loss distribution engine (:mod:`mechdesign.accounting.pld`) that composition and
trade-off curves share.

References: the closed form of k-fold binary randomized response (Kairouz, Oh & Viswanath
2015; ``docs/accounting.md`` s.2) evaluated in mpmath on the stored matrix; brute force over
every output tuple of the product pair, in mpmath; and the duality between the hockey-stick
divergence and the trade-off curve (Dong, Roth & Su 2022, Prop. 2.12).
"""

from __future__ import annotations

import functools
import itertools
import math
import subprocess
import sys

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.accounting import pld
from mechdesign.accounting.bounds import randomized_response_atoms
from mechdesign.accounting.composition import compose
from mechdesign.accounting.pld import (
    MERGE_RTOL,
    LossAtoms,
    LossBracket,
    compose_atoms,
    grid_bracket,
    privacy_loss_atoms,
)
from mechdesign.accounting.tradeoff import delta_from_tradeoff, tradeoff_function
from mechdesign.errors import InvalidMechanismError, InvalidParameterError, SizeLimitError
from tests.strategies import stochastic_matrices

GRID = np.linspace(0.0, 1.0, 201)
GENERIC = (np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.4, 0.13, 0.2, 0.27]))
"""Four unrelated losses: the k-fold has C(k + 3, 3) distinct losses (165 at k = 8)."""


def brute_force(P, Pp, k):
    """The k-fold product pair in mpmath, as ``(p, q)`` per output tuple."""
    P = [mp.mpf(float(v)) for v in P]
    Pp = [mp.mpf(float(v)) for v in Pp]
    return [(mp.fprod(P[y] for y in ys), mp.fprod(Pp[y] for y in ys))
            for ys in itertools.product(range(len(P)), repeat=k)]


def cut_points(tuples):
    """Losses halfway between consecutive distinct losses (at least 1e-9 apart), and one
    beyond each end: where the distribution functions are well separated from every atom."""
    losses = sorted({mp.log(p / q) for p, q in tuples if p > 0 and q > 0})
    cuts = [float(a + b) / 2 for a, b in itertools.pairwise(losses) if b - a > 1e-9]
    if losses:
        cuts += [float(losses[0]) - 1.0, float(losses[-1]) + 1.0]
    return cuts


def distribution_functions(A: LossAtoms, t: float) -> tuple[float, float]:
    """``(P(L <= t), P'(L <= t))`` from the atoms (the atom -inf counts under P')."""
    below = A.losses <= t
    return (float(np.exp(A.log_masses[below]).sum()),
            A.mass_minus_inf + float(np.exp(A.log_masses_prime[below]).sum()))


def assert_same_distribution(A: LossAtoms, tuples, atol=1e-13):
    """The atoms describe the brute-force product: both distribution functions at every cut,
    the infinite atoms, and the hockey-stick divergence at epsilons between the atoms."""
    assert A.mass_inf == pytest.approx(float(sum(p for p, q in tuples if q == 0)), abs=atol)
    assert A.mass_minus_inf == pytest.approx(float(sum(q for p, q in tuples if p == 0)),
                                             abs=atol)
    for t in cut_points(tuples):
        fp, fq = distribution_functions(A, t)
        assert fp == pytest.approx(float(sum(p for p, q in tuples
                                             if p > 0 and q > 0 and mp.log(p / q) <= t)),
                                   abs=atol)
        assert fq == pytest.approx(float(sum(q for p, q in tuples
                                             if q > 0 and (p == 0 or mp.log(p / q) <= t))),
                                   abs=atol)
        if t >= 0:
            ref = sum(p - mp.e ** t * q for p, q in tuples if p > mp.e ** t * q)
            assert A.delta(t) == pytest.approx(float(ref), abs=atol)


# --------------------------------------------------------------------------- exact atoms
def test_one_pair_merges_equal_losses_and_keeps_both_masses():
    a = privacy_loss_atoms([0.75, 0.25], [0.25, 0.75])
    np.testing.assert_allclose(a.losses, [-math.log(3), math.log(3)], rtol=1e-15)
    assert a.mass_inf == 0.0
    # delta(0) = TV = 0.5 exactly: its outward bound is a few ulps above 0.5, so the smallest
    # certified epsilon is a few ulps above 0 (never below the exact 0)
    assert 0.0 <= a.epsilon(0.5) <= 1e-14
    assert a.epsilon(0.0) == pytest.approx(math.log(3), rel=1e-15)  # the largest loss
    # the float ln 3 is above the exact loss, so the exact delta there is 0; the stored loss
    # is raised by a few ulps (an upper bound), so the bound reads at most a few ulps
    assert 0.0 <= a.delta(math.log(3)) <= 1e-15
    np.testing.assert_allclose(a.delta(np.array([0.0, 0.5])),
                               [0.5, 0.75 - math.exp(0.5) * 0.25], rtol=1e-14)
    with pytest.raises(InvalidMechanismError, match="1-D"):
        privacy_loss_atoms([[0.5, 0.5]], [0.5, 0.5])
    empty = LossAtoms(np.empty(0), np.empty(0), math.log(0.25), 0.0)
    assert empty.delta(3.0) == pytest.approx(0.75)
    # outputs 1 and 2 have the same ratio 2: one atom with both masses summed; output 3 is
    # impossible under P' (loss +inf), output 4 impossible under P (loss -inf)
    b = privacy_loss_atoms([0.1, 0.2, 0.3, 0.4, 0.0], [0.5, 0.1, 0.15, 0.0, 0.25])
    np.testing.assert_allclose(b.losses, [math.log(0.2), math.log(2)], rtol=1e-15)
    np.testing.assert_allclose(np.exp(b.log_masses), [0.1, 0.5], rtol=1e-15)
    np.testing.assert_allclose(np.exp(b.log_masses_prime), [0.5, 0.25], rtol=1e-15)
    assert b.mass_inf == pytest.approx(0.4, rel=1e-15)
    assert b.mass_minus_inf == pytest.approx(0.25, rel=1e-15)


@pytest.mark.parametrize("method", ["auto", "powering", "multinomial"])
@pytest.mark.parametrize("eps,k", [(0.1, 1), (0.1, 1000), (1.0, 7), (1.0, 300), (3.0, 50)])
def test_k_fold_randomized_response_atoms_are_the_closed_form(eps, k, method):
    # loss (k - 2l) eps0 with masses C(k, l) p^(k-l) q^l under P and C(k, l) q^(k-l) p^l
    # under P', eps0 = ln(p / q) of the stored entries p = Q[0, 0], q = Q[0, 1]; both methods
    # (auto sums count vectors here: k + 1 terms against ~k^2 / 1.5 pairs by powering)
    Q = md.randomized_response(2, eps).matrix
    A = privacy_loss_atoms(Q[0], Q[1]).self_compose(k, method=method)
    tol = 1e-12
    mp.mp.dps = 40
    p, q = mp.mpf(float(Q[0, 0])), mp.mpf(float(Q[0, 1]))
    ls = range(k, -1, -1)  # increasing loss
    assert A.n_atoms == k + 1 and A.mass_inf == 0 and A.mass_minus_inf == 0
    # stored losses are upper bounds (rounded up at every sum), within a few ulps per use
    exact_losses = [(k - 2 * j) * mp.log(p / q) for j in ls]
    assert all(mp.mpf(float(a)) >= b for a, b in zip(A.losses, exact_losses, strict=True))
    np.testing.assert_allclose(A.losses, [float(v) for v in exact_losses],
                               rtol=0, atol=3e-15 * k * max(eps, 1.0))
    np.testing.assert_allclose(
        A.log_masses, [float(mp.log(mp.binomial(k, j) * p ** (k - j) * q ** j)) for j in ls],
        rtol=0, atol=tol)
    np.testing.assert_allclose(
        A.log_masses_prime,
        [float(mp.log(mp.binomial(k, j) * q ** (k - j) * p ** j)) for j in ls],
        rtol=0, atol=tol)
    # and the closed form of bounds.randomized_response_atoms at the matrix's epsilon
    kov = randomized_response_atoms(math.log(Q[0, 0] / Q[0, 1]), k)
    np.testing.assert_allclose(kov.losses, A.losses, rtol=0, atol=1e-12 * k)
    np.testing.assert_allclose(kov.log_masses, A.log_masses, rtol=0, atol=1e-10)


# --------------------------------------------------------------------------- composition
@settings(max_examples=40, deadline=None)
@given(stochastic_matrices(rows=(2, 2), cols=(2, 3)), st.integers(1, 4))
def test_powering_multinomial_pairwise_and_brute_force_agree(PQ, k):
    P, Pp = PQ
    A = privacy_loss_atoms(P, Pp)
    tuples = brute_force(P, Pp, k)
    powering = A.self_compose(k, method="powering")
    multinomial = A.self_compose(k, method="multinomial")
    pairwise = functools.reduce(LossAtoms.compose, [A] * k)
    product = privacy_loss_atoms(functools.reduce(np.kron, [P] * k),
                                 functools.reduce(np.kron, [Pp] * k))
    for B in (powering, multinomial, pairwise, product, A.self_compose(k)):
        assert_same_distribution(B, tuples)
        assert B.shift <= 4 * k * MERGE_RTOL * max(1.0, k * float(np.abs(A.losses).max(
            initial=0.0)))


def test_auto_sums_count_vectors_when_they_are_fewer(monkeypatch):
    # 1000-fold binary RR: 2 x 1001 multinomial terms against ~1.3 million pairs by powering;
    # 40-fold 3-RR (a lattice of span 2): 3 x 861 terms against a few thousand pairs
    calls = []
    monkeypatch.setattr(pld, "_multinomial", lambda *a: calls.append("multinomial") or
                        LossAtoms(np.empty(0), np.empty(0), 0.0, 0.0))
    monkeypatch.setattr(pld, "power_by_squaring", lambda *a: calls.append("powering") or
                        LossAtoms(np.empty(0), np.empty(0), 0.0, 0.0))
    rr2 = md.randomized_response(2, 0.1).matrix
    privacy_loss_atoms(rr2[0], rr2[1]).self_compose(1000)
    rr3 = md.randomized_response(3, 1.0).matrix
    lattice = privacy_loss_atoms(rr3[0], rr3[1])
    lattice.self_compose(40)
    # 5 atoms -2 eps .. 2 eps: 5 C(104, 4) = 2.2e7 terms against about 2e5 pairs
    monkeypatch.undo()
    five = lattice.compose(lattice)
    monkeypatch.setattr(pld, "_multinomial", lambda *a: calls.append("multinomial"))
    monkeypatch.setattr(pld, "power_by_squaring", lambda *a: calls.append("powering"))
    five.self_compose(100)
    assert five.n_atoms == 5 and calls == ["multinomial", "multinomial", "powering"]


def test_auto_powers_a_lattice_and_sums_count_vectors_otherwise(monkeypatch):
    rr = md.randomized_response(3, 1.0).matrix  # losses -eps, 0, eps: a lattice
    lattice = privacy_loss_atoms(rr[0], rr[1])
    assert lattice.self_compose(40).n_atoms == 81
    generic = privacy_loss_atoms(*GENERIC)
    # 6-fold: C(9, 3) = 84 count vectors, as many distinct losses
    assert generic.self_compose(6).n_atoms == math.comb(9, 3)
    monkeypatch.setattr(pld, "MAX_ATOMS", 10)  # powering is no longer "cheap"
    assert generic.self_compose(6, max_atoms=1000).n_atoms == math.comb(9, 3)
    with pytest.raises(InvalidParameterError, match="'fast'"):
        generic.self_compose(2, method="fast")


def test_heterogeneous_groups_compose_in_any_order():
    rr = md.randomized_response(2, 0.3).matrix
    dc = md.catalog.deletion_counterexample().matrix
    a, b = privacy_loss_atoms(rr[0], rr[1]), privacy_loss_atoms(dc[0], dc[1])
    one = compose_atoms([(a, 3), (b, 2)])
    two = a.self_compose(3).compose(b.self_compose(2))
    three = functools.reduce(LossAtoms.compose, [b, a, b, a, a])
    for eps in (0.0, 0.4, 1.3):
        ref = one.delta(eps)
        assert two.delta(eps) == pytest.approx(ref, rel=1e-12)
        assert three.delta(eps) == pytest.approx(ref, rel=1e-12)


# --------------------------------------------------------------------------- the grid bracket
@pytest.mark.parametrize("matrix, k", [
    (md.randomized_response(2, 0.1).matrix, 100),
    (md.randomized_response(3, 0.773).matrix, 20),
    (md.catalog.deletion_counterexample().matrix, 6),
    (np.array([[0.5, 0.4, 0.1], [0.3, 0.7, 0.0]]), 5),  # an infinite loss
    (np.vstack(GENERIC), 12),
])
@pytest.mark.parametrize("h", [1e-2, 1e-3])
def test_grid_bracket_contains_the_exact_value(matrix, k, h):
    groups = [(privacy_loss_atoms(matrix[0], matrix[1]), k)]
    exact = LossBracket.of_atoms(compose_atoms(groups))
    grid = grid_bracket(groups, h)
    assert exact.exact and not grid.exact and grid.grid == h
    top = float(exact.upper.losses[-1])
    for eps in np.linspace(0.0, top, 9):
        lo, up = grid.delta(float(eps))
        x_lo, x_up = exact.delta(float(eps))
        assert lo <= x_lo <= x_up <= up
        assert up - lo <= 2 * k * h * max(1.0, top) + 1e-12  # a bracket, not a bound only
    for d in (1e-2, 1e-6, 1e-10):
        lo, up = grid.epsilon(d)
        x_lo, x_up = exact.epsilon(d)
        assert lo - 1e-12 <= x_lo <= x_up <= up + 1e-12
        assert up - lo <= 2 * k * h + 1e-9 or x_up == math.inf


def test_grid_size_is_refused_before_allocating():
    rr = md.randomized_response(2, 0.75).matrix
    with pytest.raises(SizeLimitError, match=r"pair \(0, 1\) \(1000000000000 uses\).*"
                                             r"MAX_COMPOSED_BINS"):
        grid_bracket([(privacy_loss_atoms(rr[0], rr[1]), 10**12)], 1e-4, "pair (0, 1)")


# --------------------------------------------------------------------------- the size limit
def test_size_limit_names_the_numbers(monkeypatch):
    A = privacy_loss_atoms(*GENERIC)
    assert A.self_compose(8).n_atoms == 165
    with pytest.raises(SizeLimitError, match="165 distinct privacy losses, more than "
                                             "max_atoms = 100"):
        A.self_compose(8, max_atoms=100)
    monkeypatch.setattr(pld, "MAX_ATOMS", 100)
    with pytest.raises(SizeLimitError, match="165 distinct privacy losses, more than "
                                             "MAX_ATOMS = 100"):
        A.self_compose(8)
    monkeypatch.setattr(pld, "MAX_ATOMS", 2_000_000)
    monkeypatch.setattr(pld, "MAX_PAIRS", 50)
    two = A.compose(A)  # 16 pairs
    with pytest.raises(SizeLimitError, match=r"10 x 10 = 100 pairs .* MAX_PAIRS = 50"):
        two.compose(two)
    with pytest.raises(SizeLimitError, match=r"sums 660 terms .* MAX_PAIRS = 50"):
        A.self_compose(8, method="multinomial")  # 165 count vectors x 4 atoms


def test_composition_reports_the_limit_or_falls_back():
    Q = np.vstack(GENERIC)
    with pytest.raises(SizeLimitError, match=r"pair \(0, 1\).*165 distinct privacy losses, "
                                             r"more than max_atoms = 100"):
        compose(Q, 8, pairs=[(0, 1)], method="exact", max_atoms=100)
    auto = compose(Q, 8, pairs=[(0, 1)], max_atoms=100)
    assert not auto.exact and auto.grid_step is not None


def test_blocks_give_the_same_atoms(monkeypatch):
    A = privacy_loss_atoms(*GENERIC)
    direct = A.self_compose(6, method="multinomial")
    squared = A.self_compose(6, method="powering")
    monkeypatch.setattr(pld, "_BLOCK", 7)  # count vectors and pairs in many small blocks
    for B, ref in ((A.self_compose(6, method="multinomial"), direct),
                   (A.self_compose(6, method="powering"), squared)):
        np.testing.assert_allclose(B.losses, ref.losses, rtol=0, atol=1e-13)
        np.testing.assert_allclose(B.log_masses, ref.log_masses, rtol=0, atol=1e-13)
        np.testing.assert_allclose(B.log_masses_prime, ref.log_masses_prime, rtol=0,
                                   atol=1e-13)


# --------------------------------------------------------------------------- invariants
@settings(max_examples=60, deadline=None)
@given(stochastic_matrices(rows=(2, 2), cols=(2, 4)), st.integers(1, 6))
def test_delta_is_non_increasing_and_dual_to_the_tradeoff_curve(PQ, k):
    P, Q = PQ
    A = privacy_loss_atoms(P, Q).self_compose(k)
    eps = np.linspace(0.0, float(A.losses.max(initial=0.0)) + 1.0, 60)
    d = A.delta(eps)
    assert (np.diff(d) <= 1e-15 * d[:-1]).all()
    assert A.mass_inf - 1e-15 <= d[-1] <= d[0] <= 1 + 1e-15
    assert A.mass_inf <= d[-1] == pytest.approx(A.mass_inf, abs=4e-15)  # widened upwards
    # H_{e^eps}(P^k || Q^k) = 1 + f*(-e^eps) for f = T(Q, P)^(x)k (Dong, Roth & Su, Prop 2.12)
    f = tradeoff_function(Q, P, k=k)
    np.testing.assert_allclose(delta_from_tradeoff(f, eps), d, rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(stochastic_matrices(rows=(2, 2), cols=(2, 4)), st.integers(1, 6))
def test_tradeoff_curve_is_convex_and_below_one_minus_alpha(PQ, k):
    f = tradeoff_function(PQ[0], PQ[1], k=k)
    assert f.is_convex
    assert f.alphas[0] == 0.0 and f.alphas[-1] == 1.0 and f.betas[-1] == 0.0
    assert (np.diff(f.betas) <= 1e-15).all()
    assert (f(GRID) <= 1.0 - GRID + 1e-12).all()


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
def test_the_engine_does_not_import_scipy_stats():
    code = ("import sys, mechdesign.accounting.pld, mechdesign.accounting.composition, "
            "mechdesign.accounting.tradeoff, mechdesign.accounting.bounds, "
            "mechdesign.accounting.amplification; "
            "print('scipy.stats' in sys.modules, 'cvxpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["False", "False"]
