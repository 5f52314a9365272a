"""Exact composition, closed-form composition bounds, sequential composition, grouposition and
belief-function composition.

Reference values come from an independent arbitrary-precision path (mpmath, 30 digits): the
hockey-stick divergence of the composed PROBABILITIES (never of privacy losses), summed over
all output tuples or, for self-composition, over output count vectors with multinomial weights.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.accounting.belief_composition import belief_composition, compose_evidential
from mechdesign.accounting.composition import (
    MAX_GRID_BINS,
    Composition,
    LossAtoms,
    advanced_composition,
    advanced_composition_delta,
    basic_composition,
    coarsened_step,
    compose,
    delta_composed,
    epsilon_composed,
    optimal_composition_delta,
    optimal_composition_epsilon,
    optimal_heterogeneous_delta,
    optimal_heterogeneous_epsilon,
    privacy_loss_atoms,
    privacy_profile,
)
from mechdesign.accounting.sequential import (
    advanced_grouposition,
    advanced_grouposition_approx,
    sequential_composition,
    sequential_epsilon,
)
from mechdesign.errors import InvalidMechanismError, InvalidParameterError, SizeLimitError

mp.mp.dps = 30


# --------------------------------------------------------------------------- mpmath reference
def _mp_rows(Q):
    return [[mp.mpf(float(v)) for v in row] for row in np.asarray(Q)]


def mp_delta_tuples(mechs, eps):
    """max over ordered pairs of sum over output tuples of (P - e^eps P')_+ (heterogeneous)."""
    rows = [_mp_rows(m.matrix) for m in mechs]
    n = mechs[0].n_inputs
    scale = mp.e ** mp.mpf(eps)
    best = mp.mpf(0)
    for x, xp in itertools.permutations(range(n), 2):
        total = mp.mpf(0)
        for ys in itertools.product(*(range(m.n_outputs) for m in mechs)):
            p = mp.fprod(r[x][y] for r, y in zip(rows, ys, strict=True))
            q = mp.fprod(r[xp][y] for r, y in zip(rows, ys, strict=True))
            if p > scale * q:
                total += p - scale * q
        best = max(best, total)
    return best


def _count_vectors(k, m):
    if m == 1:
        yield (k,)
        return
    for c in range(k + 1):
        for rest in _count_vectors(k - c, m - 1):
            yield (c, *rest)


def mp_delta_kfold_pair(P, Pp, eps, k):
    """k-fold self-composition of one pair, by count vectors of OUTPUTS with multinomials."""
    P = [mp.mpf(float(v)) for v in P]
    Pp = [mp.mpf(float(v)) for v in Pp]
    scale = mp.e ** mp.mpf(eps)
    total = mp.mpf(0)
    fk = mp.factorial(k)
    for c in _count_vectors(k, len(P)):
        coef = fk / mp.fprod(mp.factorial(ci) for ci in c)
        p = coef * mp.fprod(pi ** ci for pi, ci in zip(P, c, strict=True))
        q = coef * mp.fprod(qi ** ci for qi, ci in zip(Pp, c, strict=True))
        if p > scale * q:
            total += p - scale * q
    return total


def mp_delta_kfold(m, eps, k):
    Q = m.matrix
    return max(mp_delta_kfold_pair(Q[x], Q[xp], eps, k)
               for x, xp in itertools.permutations(range(m.n_inputs), 2))


def close(ours, ref, rel=1e-10, abs_=1e-300):
    ref = float(ref)
    assert abs(ours - ref) <= rel * abs(ref) + abs_, (ours, ref)


# --------------------------------------------------------------------------- exact vs mpmath
@pytest.mark.parametrize("eps", [0.0, 1.0, 3.0, 10.0, 19.3])
def test_binary_rr_1000_fold_matches_mpmath(eps):
    rr = md.randomized_response(2, 0.1)
    res = delta_composed(rr, eps, 1000)
    assert res.exact and res.method == "atoms" and res.reported == "exact"
    assert res.n_pairs == 1 and res.n_atoms == 1001  # 2 atoms -> k + 1 values
    close(res.delta, mp_delta_kfold(rr, eps, 1000))
    assert res.lower <= res.delta == res.upper


def test_three_rr_30_fold_matches_mpmath():
    m = md.randomized_response(3, 1.0)
    for eps in (0.5, 5.0, 20.0):
        close(delta_composed(m, eps, 30).delta, mp_delta_kfold(m, eps, 30))


def test_ten_rr_matches_mpmath_with_pooled_outputs():
    # For the pair (0, 1) of 10-RR, outputs 2..9 have the same probability under both rows;
    # pooling outputs of equal likelihood ratio preserves every hockey-stick divergence, so
    # the reference is the 3-output pair (diag, off, 8 off) vs (off, diag, 8 off). All pairs of
    # k-RR are equivalent under a relabelling of outputs.
    m = md.randomized_response(10, 1.0)
    d, o = m.matrix[0, 0], m.matrix[0, 1]
    P, Pp = [d, o, 1 - d - o], [o, d, 1 - d - o]
    res = delta_composed(m, 5.0, 50)
    assert res.n_pairs == 1  # 90 ordered pairs, one distribution
    close(res.delta, mp_delta_kfold_pair(P, Pp, 5.0, 50))


def test_deletion_counterexample_composition_matches_mpmath():
    m = md.catalog.deletion_counterexample()
    for k, eps in ((1, 0.5), (6, 0.3), (6, 2.0)):
        res = delta_composed(m, eps, k)
        close(res.delta, mp_delta_tuples([m] * k, eps))
    # single use at 2 eps: the Lemma 4.2 value (e^eps + 1) delta
    ref = (mp.e ** mp.mpf(0.25) + 1) / 6
    close(delta_composed(m, 0.5).delta, ref, rel=1e-12)


def test_heterogeneous_list_matches_mpmath():
    zero = md.Mechanism([[0.5, 0.5, 0.0], [0.1, 0.2, 0.7]])  # an infinite loss
    mechs = [md.randomized_response(2, 0.3), md.catalog.deletion_counterexample(), zero,
             md.warner(0.8)]
    for eps in (0.0, 0.7, 2.5, 50.0):
        close(delta_composed(mechs, eps).delta, mp_delta_tuples(mechs, eps))
    for eps in (0.4, 3.0):
        close(delta_composed(mechs, eps, k=2).delta, mp_delta_tuples(mechs * 2, eps))


def test_infinite_losses_are_exact():
    m = md.Mechanism([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]])
    # P(some coordinate shows the output impossible under x') = 1 - 0.5^3 at every epsilon
    assert delta_composed(m, 1e6, 3).delta == pytest.approx(0.875, rel=1e-15)
    assert delta_composed(m, math.inf, 3).delta == pytest.approx(0.875, rel=1e-15)
    close(delta_composed(m, 0.3, 3).delta, mp_delta_kfold(m, 0.3, 3))
    assert epsilon_composed(m, 0.5, 3).epsilon == math.inf
    assert epsilon_composed(m, 1.0, 3).epsilon == 0.0
    # no finite loss is positive here: any delta >= 0.875 is reached at eps = 0
    assert epsilon_composed(m, 0.875 + 1e-12, 3).epsilon == 0.0


@pytest.mark.parametrize("target", [1e-3, 1e-6, 1e-12])
def test_epsilon_composed_is_the_root(target):
    m = md.randomized_response(3, 1.0)
    res = epsilon_composed(m, target, 20)
    assert res.solved_for == "epsilon" and res.value == res.epsilon and res.delta == target
    # the mpmath delta crosses the target within 1e-9 of our epsilon (near an atom delta is
    # ill-conditioned in epsilon, so the root is checked by a bracket, not by delta's value)
    assert mp_delta_kfold(m, res.epsilon - 1e-9, 20) > target
    assert mp_delta_kfold(m, res.epsilon + 1e-9, 20) < target


def test_epsilon_composed_heterogeneous_root():
    mechs = [md.randomized_response(2, 0.3), md.catalog.deletion_counterexample(), md.warner(0.8)]
    res = epsilon_composed(mechs, 1e-2, k=2)
    assert mp_delta_tuples(mechs * 2, res.epsilon - 1e-9) > 1e-2
    assert mp_delta_tuples(mechs * 2, res.epsilon + 1e-9) < 1e-2


def test_loss_atoms_edge_cases():
    a = privacy_loss_atoms([0.75, 0.25], [0.25, 0.75])
    np.testing.assert_allclose(a.losses, [-math.log(3), math.log(3)], rtol=1e-15)
    assert a.mass_inf == 0.0
    assert a.epsilon(0.5) == 0.0  # delta(0) = TV = 0.5
    assert a.epsilon(0.0) == pytest.approx(math.log(3), rel=1e-15)  # the largest loss
    assert a.delta(math.log(3)) == 0.0
    np.testing.assert_allclose(a.delta(np.array([0.0, 0.5])),
                               [0.5, 0.75 - math.exp(0.5) * 0.25], rtol=1e-14)
    with pytest.raises(InvalidMechanismError, match="1-D"):
        privacy_loss_atoms([[0.5, 0.5]], [0.5, 0.5])
    empty = LossAtoms(np.empty(0), np.empty(0), math.log(0.25), 0.0)
    assert empty.delta(3.0) == pytest.approx(0.75)


def test_symmetric_fast_path_and_pairs():
    tg = md.catalog.truncated_geometric(5, 0.5)
    everyone = epsilon_composed(tg, 1e-6, 10)
    neighbours = epsilon_composed(tg, 1e-6, 10, pairs=[(i, i + 1) for i in range(4)]
                                  + [(i + 1, i) for i in range(4)])
    assert neighbours.epsilon < everyone.epsilon
    assert abs(everyone.worst_pair[0] - everyone.worst_pair[1]) == 4
    # single-pair results agree with mpmath
    Q = tg.matrix
    close(delta_composed(tg, 1.0, 6, pairs=[(0, 1)]).delta,
          mp_delta_kfold_pair(Q[0], Q[1], 1.0, 6))


def test_worst_pair_equals_max_over_single_pairs():
    # pairs are deduplicated by their column multisets; the maximum must not change
    tg = md.catalog.truncated_geometric(5, 0.5)
    Q = tg.matrix
    for eps in (0.5, 2.0):
        every = delta_composed(tg, eps, 4)
        single = [delta_composed(tg, eps, 4, pairs=[(x, xp)]).delta
                  for x in range(5) for xp in range(5) if x != xp]
        assert every.delta == max(single)
        x, xp = every.worst_pair
        close(every.delta, mp_delta_kfold_pair(Q[x], Q[xp], eps, 4))


def test_composition_object_answers_many_queries():
    m = md.randomized_response(4, 0.8)
    comp = compose(m, 12)
    assert isinstance(comp, Composition) and comp.exact and comp.k == 12
    assert comp.n_pairs == 1 and "k=12" in repr(comp)
    assert comp.delta(3.0) == delta_composed(m, 3.0, 12)
    assert comp.epsilon(1e-5) == epsilon_composed(m, 1e-5, 12)
    het = compose([m, md.randomized_response(4, 0.3)], k=3)
    assert het.k == 6
    # k repeats the whole list: the same as listing it k times
    assert het.delta(2.0).delta == pytest.approx(
        delta_composed([m, md.randomized_response(4, 0.3)] * 3, 2.0).delta, rel=1e-14)


def test_grid_fallback_brackets_exact_value():
    rr = md.randomized_response(2, 0.1)
    exact = delta_composed(rr, 3.0, 1000).delta
    grid = delta_composed(rr, 3.0, 1000, method="grid", grid=1e-4)
    assert not grid.exact and grid.method == "grid" and grid.reported == "upper"
    assert grid.lower <= exact <= grid.upper == grid.delta
    # 0.1 / 1e-4 = 1000.0000000000009 is snapped: no drift, the bracket is tight
    assert grid.upper - grid.lower <= 1e-9 * exact
    coarse = delta_composed(md.randomized_response(3, 0.773), 2.0, 30, method="grid", grid=0.01)
    ref = delta_composed(md.randomized_response(3, 0.773), 2.0, 30).delta
    assert coarse.lower <= ref <= coarse.upper
    assert coarse.upper - coarse.lower > 1e-4  # off-grid losses: a real bracket


def test_too_fine_grid_is_coarsened_to_a_whole_multiple_of_the_step():
    # 1000-fold RR(0.1): losses +-0.1 span 200 over the composition; h = 1e-5 needs 2e7
    # bins > 2^21, so the step becomes 10 h = 1e-4 (not 200 / 2^21 or 96 h for h = 1e-6,
    # which are off the losses' grid: the bracket then drifts a step per composition)
    rr = md.randomized_response(2, 0.1)
    exact = epsilon_composed(rr, 1e-6, 1000).epsilon
    for asked in (1e-4, 5e-5, 1e-5, 1e-6):
        g = epsilon_composed(rr, 1e-6, 1000, method="grid", grid=asked)
        used = coarsened_step(asked, 200.0)
        assert g.grid_step == pytest.approx(used, rel=1e-12)
        assert round(used / asked) == pytest.approx(used / asked, rel=1e-12)  # a multiple
        assert g.lower <= exact <= g.upper
        assert g.upper - g.lower <= 1e-8, (asked, g.lower, g.upper)
    assert coarsened_step(1e-5, 200.0) == pytest.approx(1e-4, rel=1e-12)
    assert coarsened_step(1e-6, 200.0) == pytest.approx(1e-4, rel=1e-12)  # 96 needed: 100
    assert coarsened_step(5e-5, 200.0) == pytest.approx(1e-4, rel=1e-12)  # 1.9 needed: 2
    assert coarsened_step(1e-5, 2e-5 * MAX_GRID_BINS) == pytest.approx(2e-5, rel=1e-12)
    assert coarsened_step(1e-3, 200.0) == 1e-3


def test_auto_falls_back_to_grid_and_exact_raises():
    Q = np.array([[0.31, 0.22, 0.17, 0.3], [0.12, 0.41, 0.27, 0.2]])
    auto = epsilon_composed(Q, 1e-6, 30, max_atoms=1000)
    assert not auto.exact and auto.grid_step is not None
    exact = epsilon_composed(Q, 1e-6, 30)
    assert exact.exact and auto.lower <= exact.epsilon <= auto.upper
    with pytest.raises(SizeLimitError, match="max_atoms = 1000"):
        epsilon_composed(Q, 1e-6, 30, max_atoms=1000, method="exact")


def test_privacy_profile_matches_pointwise():
    m = md.randomized_response(4, 0.8)
    eps = np.array([0.0, 1.0, 4.0, 9.0])
    prof = privacy_profile(m, eps, 12)
    assert prof.exact and prof.k == 12
    np.testing.assert_allclose(prof.upper, [delta_composed(m, e, 12).delta for e in eps],
                               rtol=1e-14)
    assert prof.max_loss == pytest.approx(12 * 0.8, rel=1e-12)


@pytest.mark.parametrize("call, match", [
    (lambda: delta_composed(md.warner(0.7), -1.0), "epsilon must be >= 0, got -1.0"),
    (lambda: epsilon_composed(md.warner(0.7), 1.5), "delta must lie in"),
    (lambda: delta_composed(md.warner(0.7), 1.0, 0), "k must be >= 1, got 0"),
    (lambda: delta_composed(md.warner(0.7), 1.0, 2.0), "k must be an integer, got 2.0"),
    (lambda: delta_composed([md.warner(0.7), md.randomized_response(3, 1)], 1.0),
     r"input counts \[2, 3\]"),
    (lambda: delta_composed(md.warner(0.7), 1.0, method="fast"), "'fast'"),
    (lambda: delta_composed(md.warner(0.7), 1.0, grid=0.0), "grid must be > 0, got 0.0"),
    (lambda: delta_composed(md.warner(0.7), 1.0, pairs=[(0, 5)]), r"\(0, 5\)"),
    (lambda: delta_composed([[0.5, 0.6], [0.5, 0.5]], 1.0), "row 0"),
    (lambda: privacy_profile(md.warner(0.7), [-1.0]), "epsilons"),
])
def test_bad_input_raises_typed_errors(call, match):
    with pytest.raises((InvalidParameterError, InvalidMechanismError), match=match):
        call()


# --------------------------------------------------------------------------- closed forms
def test_basic_and_advanced_values():
    b = basic_composition([0.1, 0.2, 0.3], [1e-6, 0.0, 1e-6])
    assert (b.epsilon, b.delta) == (pytest.approx(0.6), pytest.approx(2e-6))
    # DRV: sqrt(2000 ln 1e6) 0.1 + 1000 * 0.1 (e^0.1 - 1) = 16.6225.. + 10.5170.. = 27.1397..
    a = advanced_composition(0.1, 1e-7, 1000, 1e-6)
    assert a.epsilon == pytest.approx(27.13967317, rel=1e-9)
    assert a.delta == pytest.approx(1000 * 1e-7 + 1e-6)
    with pytest.raises(InvalidParameterError, match="delta_prime must be > 0"):
        advanced_composition(0.1, 0.0, 10, 0.0)
    with pytest.raises(InvalidParameterError, match="different lengths"):
        basic_composition([0.1, 0.2], [0.0])


@settings(max_examples=60, deadline=None)
@given(eps0=st.floats(0.01, 2.0), k=st.integers(1, 60), frac=st.floats(0.0, 1.0))
def test_kov_formula_equals_exact_binary_rr(eps0, k, frac):
    rr = md.randomized_response(2, eps0)
    eps0 = md.epsilon_ldp(rr)  # the matrix's own epsilon (a few ulps from the argument)
    e = frac * k * eps0
    exact = delta_composed(rr, e, k).delta
    kov = optimal_composition_delta(eps0, k, e)
    assert kov == pytest.approx(exact, rel=1e-9, abs=1e-300)


def test_kov_log_space_no_overflow():
    # (1 + e)^1000 overflows doubles; the exact composition of RR(1) gives the same value
    rr = md.randomized_response(2, 1.0)
    for e in (30.0, 100.0, 400.0):
        assert optimal_composition_delta(md.epsilon_ldp(rr), 1000, e) == pytest.approx(
            delta_composed(rr, e, 1000).delta, rel=1e-9)
    assert optimal_composition_epsilon(1.0, 1000, 1e-10) == pytest.approx(
        epsilon_composed(rr, 1e-10, 1000).epsilon, rel=1e-9)


def test_kov_with_delta_and_mv_matches_exact_leaky_rr():
    # leaky RR: with probability delta reveal the input (an infinite loss)
    d, e = 1e-3, 0.7
    a = 1 / (1 + math.exp(-e))
    leaky = md.Mechanism([[(1 - d) * a, (1 - d) * (1 - a), d, 0.0],
                          [(1 - d) * (1 - a), (1 - d) * a, 0.0, d]])
    for et in (0.0, 1.5, 6.0):
        exact = delta_composed(leaky, et, 8).delta
        assert optimal_composition_delta(e, 8, et, delta=d) == pytest.approx(exact, rel=1e-9)
        assert optimal_heterogeneous_delta([e] * 8, et, [d] * 8) == pytest.approx(exact,
                                                                                   rel=1e-9)


def test_murtagh_vadhan_equals_exact_heterogeneous_rr():
    eps = [0.1, 0.5, 1.2, 0.3, 0.9]
    rrs = [md.randomized_response(2, e) for e in eps]
    eps_m = [md.epsilon_ldp(r) for r in rrs]
    for eg in (0.0, 0.8, 2.0):
        exact = delta_composed(rrs, eg).delta
        close(exact, mp_delta_tuples(rrs, eg))
        assert optimal_heterogeneous_delta(eps_m, eg) == pytest.approx(exact, rel=1e-10)
    t = optimal_heterogeneous_epsilon(eps_m, 1e-2)
    assert optimal_heterogeneous_delta(eps_m, t) == pytest.approx(1e-2, rel=1e-9)
    with pytest.raises(SizeLimitError, match="k = 21"):
        optimal_heterogeneous_delta([0.1] * 21, 1.0)


@st.composite
def mechanisms(draw, n_inputs=None):
    n = n_inputs or draw(st.integers(2, 3))
    m = draw(st.integers(2, 4))
    rows = [draw(st.lists(st.floats(0.05, 1.0), min_size=m, max_size=m)) for _ in range(n)]
    Q = np.array(rows)
    return md.Mechanism(Q / Q.sum(axis=1, keepdims=True))


@settings(max_examples=60, deadline=None)
@given(m=mechanisms(), k=st.integers(1, 8), frac=st.floats(0.0, 1.0),
       dp=st.sampled_from([1e-2, 1e-5, 1e-9]))
def test_closed_form_bounds_never_below_exact(m, k, frac, dp):
    eps0 = md.epsilon_ldp(m)
    e = frac * k * eps0
    assert delta_composed(m, e, k).delta <= optimal_composition_delta(eps0, k, e) + 1e-12
    eps_exact = epsilon_composed(m, dp, k).epsilon
    assert eps_exact <= optimal_composition_epsilon(eps0, k, dp) + 1e-9
    assert eps_exact <= advanced_composition(eps0, 0.0, k, dp).epsilon + 1e-9
    assert eps_exact <= basic_composition([eps0] * k).epsilon + 1e-9
    assert delta_composed(m, e, k).delta <= advanced_composition_delta(eps0, k, e) + 1e-12


def test_advanced_composition_delta_inverts_drv():
    # round trip through the DRV formula, and its caps (basic composition; the drift term)
    for eps0, k, dp in [(0.1, 1000, 1e-6), (0.05, 200, 1e-3), (0.5, 30, 0.2)]:
        total = advanced_composition(eps0, 0.0, k, dp).epsilon
        if total < k * eps0:
            assert advanced_composition_delta(eps0, k, total) == pytest.approx(dp, rel=1e-9)
    assert advanced_composition_delta(0.1, 1000, 100.0) == 0.0  # >= k eps0: basic
    assert advanced_composition_delta(0.1, 1000, 10.0) == 1.0  # below 1000 * 0.1 (e^0.1 - 1)
    assert advanced_composition_delta(0.0, 5, 0.0) == 0.0


@settings(max_examples=40, deadline=None)
@given(data=st.data(), r=st.integers(2, 4), frac=st.floats(0.0, 1.0))
def test_murtagh_vadhan_never_below_exact_heterogeneous(data, r, frac):
    mechs = [data.draw(mechanisms(n_inputs=2)) for _ in range(r)]
    eps = [md.epsilon_ldp(m) for m in mechs]
    eg = frac * sum(eps)
    assert delta_composed(mechs, eg).delta <= optimal_heterogeneous_delta(eps, eg) + 1e-12


@settings(max_examples=40, deadline=None)
@given(m=mechanisms(), k=st.integers(1, 12), frac=st.floats(0.0, 1.0),
       h=st.sampled_from([1e-2, 3e-3, 1e-3]))
def test_pessimistic_grid_never_under_reports(m, k, frac, h):
    e = frac * k * md.epsilon_ldp(m)
    exact = delta_composed(m, e, k)
    grid = delta_composed(m, e, k, method="grid", grid=h)
    assert grid.upper >= exact.delta - 1e-15
    assert grid.lower <= exact.delta + 1e-15
    g_eps = epsilon_composed(m, 1e-4, k, method="grid", grid=h)
    x_eps = epsilon_composed(m, 1e-4, k).epsilon
    assert g_eps.lower - 1e-12 <= x_eps <= g_eps.upper + 1e-12


# --------------------------------------------------------------------------- sequential
def test_sequential_epsilon_value_and_tightness_for_binary_rr():
    # ln((e^3 + 1) / (e + e^2)) = 0.7353..; RR(1) then RR(2) attains it (Cor 4.1 is tight)
    assert sequential_epsilon(1.0, 2.0) == pytest.approx(
        math.log((math.exp(3) + 1) / (math.exp(1) + math.exp(2))), rel=1e-15)
    s = sequential_composition(md.randomized_response(2, 1.0), md.randomized_response(2, 2.0))
    assert s.epsilon == pytest.approx(s.bound, rel=1e-12)
    assert s.bound == pytest.approx(0.73533, abs=1e-5)
    assert s.bound <= s.weak_bound == pytest.approx(1.0, rel=1e-15)
    assert sequential_epsilon(math.inf, 0.3) == 0.3
    assert sequential_epsilon(2.0, 0.0) == 0.0


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_sequential_exact_never_above_bound(data):
    m1 = data.draw(mechanisms())
    m2 = data.draw(mechanisms(n_inputs=m1.n_outputs))
    s = sequential_composition(m1, m2)
    assert s.epsilon <= s.bound + 1e-12
    assert s.bound <= min(s.epsilon1, s.epsilon2) + 1e-12
    assert s.bound <= s.weak_bound + 1e-12
    assert s.deletion_epsilon <= s.deletion_bound + 1e-12
    np.testing.assert_allclose(s.mechanism.matrix, m1.matrix @ m2.matrix, rtol=1e-15)


def test_sequential_shape_mismatch():
    with pytest.raises(InvalidMechanismError, match="2 inputs but first has 3 outputs"):
        sequential_composition(md.randomized_response(3, 1.0), md.warner(0.7))


def test_advanced_grouposition_values_and_min():
    # eps = 0.1, k = 100, delta = 1e-6: 100 * 0.01 / 2 + 0.1 sqrt(200 ln 1e6) = 5.7565.. < 10
    g = advanced_grouposition(0.1, 100, 1e-6)
    assert g.used == "formula" and g.epsilon == pytest.approx(0.5 + 0.1 * math.sqrt(
        200 * math.log(1e6)), rel=1e-14) and g.delta == 1e-6
    # eps = 1, k = 10: the formula (21.6..) exceeds group privacy k eps = 10 (delta 0)
    g = advanced_grouposition(1.0, 10, 1e-6)
    assert g.used == "group" and g.epsilon == 10.0 and g.delta == 0.0 and g.formula > 21
    # Thm 4.2 with the corrected total k delta + delta' = 100 * 1e-8 + 1e-7 = 1.1e-6
    a = advanced_grouposition_approx(0.1, 1e-8, 100, 1e-7)
    assert a.used == "formula" and a.delta == pytest.approx(100 * 1e-8 + 1e-7, rel=1e-14)
    assert a.group_delta == pytest.approx(100 * 1e-8)
    # at delta = 0, Thm 4.2 is Thm 4.1
    b, c = advanced_grouposition_approx(0.1, 0.0, 100, 1e-6), advanced_grouposition(0.1, 100,
                                                                                      1e-6)
    assert (b.epsilon, b.delta, b.used) == (c.epsilon, c.delta, c.used)


def _leaky_rr(eps, delta):
    """Leaky RR(eps, delta) (KOV15): with probability delta output the input in the clear (two
    leak outputs, an infinite privacy loss), otherwise binary RR(eps). Every
    (eps, delta)-LDP pair of inputs is a post-processing of it, so it is the worst case for
    grouposition. Returns the mechanism and the exact epsilon of its non-leaking part as the
    floats stand (a few ulps from the argument)."""
    a = 1 / (1 + math.exp(-eps))
    m = md.Mechanism([[(1 - delta) * a, (1 - delta) * (1 - a), delta, 0.0],
                      [(1 - delta) * (1 - a), (1 - delta) * a, 0.0, delta]])
    Q = m.matrix
    return m, max(math.log(Q[0, 0] / Q[1, 0]), math.log(Q[1, 1] / Q[0, 1]))


@pytest.mark.parametrize(("eps", "k", "d"), [
    (0.2, 50, 1e-4), (0.1, 1000, 1e-6), (0.05, 400, 1e-9), (0.5, 8, 1e-2), (1.0, 10, 1e-6),
])
def test_grouposition_holds_for_rr(eps, k, d):
    # Thm 4.1: k users differ, each RR(eps) (delta = 0 randomizers); the exact delta of the
    # k-fold composition at the reported epsilon is at most the reported delta
    rr = md.randomized_response(2, eps)
    g = advanced_grouposition(md.epsilon_ldp(rr), k, d)
    assert delta_composed(rr, g.epsilon, k).delta <= g.delta


@pytest.mark.parametrize(("eps", "delta", "k", "delta_prime"), [
    (0.1, 1e-3, 1000, 1e-6),   # the counterexample to the printed total (capped at 1)
    (0.1, 1e-5, 1000, 1e-6),   # corrected total 0.010001, exact 0.00995
    (0.05, 1e-7, 400, 1e-9),   # corrected total 4.0001e-5, exact 3.99992e-5
    (0.2, 1e-6, 100, 1e-6),
    (0.2, 0.0, 50, 1e-4),      # delta = 0: Thm 4.1
    (0.5, 1e-4, 20, 1e-3),     # group privacy (k eps, k delta) is the smaller epsilon
    (1.0, 1e-3, 10, 1e-6),
])
def test_approx_grouposition_holds_for_leaky_rr(eps, delta, k, delta_prime):
    # Thm 4.2 against the exact composition of k leaky RR(eps, delta): at the reported epsilon
    # the exact delta, 1 - (1 - delta)^k + (1 - delta)^k delta_RR(eps'), is at most the
    # reported k delta + delta' (or k delta when group privacy is used)
    m, eps_m = _leaky_rr(eps, delta)
    g = advanced_grouposition_approx(eps_m, delta, k, delta_prime)
    exact = delta_composed(m, g.epsilon, k)
    assert exact.exact and exact.delta <= g.delta


@pytest.mark.parametrize(("eps", "delta", "k", "delta_prime"), [
    (0.1, 1e-3, 1000, 1e-6), (0.1, 1e-5, 1000, 1e-6), (0.05, 1e-7, 400, 1e-9),
])
def test_printed_grouposition_total_is_false(eps, delta, k, delta_prime):
    # the total delta + k delta' printed by Huang & Canonne (Thm 4.2) is below the exact delta
    # of k leaky RR at the formula's epsilon: 1000 x RR(0.1), delta = 1e-3, delta' = 1e-6
    # would claim (21.62, 0.002) where the exact composition has 0.632 = 1 - (1 - 1e-3)^1000
    # (+ the RR part, 1e-12 here), the chance that one of the 1000 leaks
    m, eps_m = _leaky_rr(eps, delta)
    g = advanced_grouposition_approx(eps_m, delta, k, delta_prime)
    assert g.used == "formula"
    exact = delta_composed(m, g.epsilon, k).delta
    assert exact > delta + k * delta_prime
    if (eps, delta, k) == (0.1, 1e-3, 1000):
        assert g.epsilon == pytest.approx(21.6226, abs=1e-4) and g.delta == 1.0
        assert exact == pytest.approx(-math.expm1(1000 * math.log1p(-1e-3)), rel=1e-6)


# --------------------------------------------------------------------------- belief functions
def _brute_r(masses, fsets, outputs, kind):
    """max ratio by exhaustive events, in exact rationals (independent of _subsets)."""
    events = [frozenset(c) for r in range(1, len(outputs) + 1)
              for c in itertools.combinations(outputs, r)]
    best = Fraction(0)
    for E in events:
        for x, xp in itertools.product(range(len(masses)), repeat=2):
            if kind == "wldp":
                num = sum(m for m, B in zip(masses[x], fsets, strict=True) if B & E)
                den = sum(m for m, B in zip(masses[xp], fsets, strict=True) if B <= E)
            else:
                continue
            if num > 0:
                best = max(best, num / den) if den > 0 else Fraction(10**9)
    return best


def test_dont_know_squared_sldp_and_wldp_exact():
    dk = md.dont_know(0.6, 0.2)
    s = belief_composition([dk, dk], "sldp")
    # mass ratios of products are products of ratios: max = (p/q)^2 = 9
    assert s.epsilon == pytest.approx(math.log(9), rel=1e-14)
    assert s.sum_bound == pytest.approx(2 * math.log(3)) and s.bound_status == "theorem"
    w = belief_composition([dk, dk], "wldp")
    assert w.bound_status == "conjecture" and w.within_bound
    # independent rational computation of r_W over the 16 events of {Y,N}^2
    p, q = Fraction(3, 5), Fraction(1, 5)
    d = 1 - p - q
    single = {"P": {frozenset("Y"): p, frozenset("N"): q, frozenset("YN"): d},
              "notP": {frozenset("Y"): q, frozenset("N"): p, frozenset("YN"): d}}
    fsets, masses = [], [[], []]
    for B1, B2 in itertools.product(single["P"], repeat=2):
        fsets.append(frozenset(itertools.product(B1, B2)))
        for i, x in enumerate(("P", "notP")):
            masses[i].append(single[x][B1] * single[x][B2])
    outputs = list(itertools.product("YN", repeat=2))
    r_w = _brute_r(masses, fsets, outputs, "wldp")
    assert r_w == 16  # = r_W(Q_2x3)^2 = 4^2
    assert w.epsilon == pytest.approx(math.log(16), rel=1e-14)


def test_compose_evidential_is_the_diagonal_of_the_parallel_product():
    dk, w = md.dont_know(0.7, 0.1), md.warner(0.8)
    same = compose_evidential([dk, w])
    par = dk.product(w)
    np.testing.assert_allclose(same.masses, par.masses[[0, 3]], rtol=1e-15)
    assert same.focal_sets == par.focal_sets and same.inputs == dk.inputs
    with pytest.raises(InvalidMechanismError, match="input counts"):
        compose_evidential([dk, md.randomized_response(3, 1.0)])
    with pytest.raises(InvalidParameterError, match="'xyz'"):
        belief_composition([dk], "xyz")


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_sldp_sum_bound_holds(data):
    def ev():
        rows = [data.draw(st.lists(st.floats(0.05, 1.0), min_size=3, max_size=3))
                for _ in range(2)]
        M = np.array(rows)
        return md.dont_know(0.6, 0.2).__class__(
            M / M.sum(axis=1, keepdims=True), [{"a"}, {"b"}, {"a", "b"}])
    r = belief_composition([ev(), ev()], "sldp")
    assert r.epsilon <= r.sum_bound + 1e-12
