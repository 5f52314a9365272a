"""Exact composition of finite mechanisms (:mod:`mechdesign.accounting.composition`) against
an independent arbitrary-precision path (mpmath, 30 digits: ``tests/accounting/reference.py``),
the grid fallback and its bracket, the composition object and bad input.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.accounting.composition import (
    Composition,
    compose,
    delta_composed,
    epsilon_composed,
    privacy_profile,
)
from mechdesign.accounting.pld import MAX_GRID_BINS, coarsened_step
from mechdesign.errors import InvalidMechanismError, InvalidParameterError, SizeLimitError
from tests.accounting.reference import (
    close,
    mp_delta_kfold,
    mp_delta_kfold_pair,
    mp_delta_tuples,
)
from tests.accounting.reference import dense_mechanisms as mechanisms


# --------------------------------------------------------------------------- exact vs mpmath
@pytest.mark.parametrize("eps0,eps", [(0.1, 0.0), (0.1, 1.0), (0.1, 3.0), (0.1, 10.0),
                                      (0.1, 19.3), (1.0, 300.0), (1.0, 900.0), (1.0, 995.0)])
def test_binary_rr_1000_fold_matches_mpmath(eps0, eps):
    # never below, and within 5e-12 relative, down to delta = 4e-132 (the composed masses'
    # worst-case rounding bound is about 2.5e-12 after the ten squarings)
    rr = md.randomized_response(2, eps0)
    res = delta_composed(rr, eps, 1000)
    assert res.exact and res.method == "atoms" and res.reported == "exact"
    assert res.n_pairs == 1 and res.n_atoms == 1001  # 2 atoms -> k + 1 values
    # an upper bound (outward rounding), within 5e-12 relative of the 50-digit value
    ref = mp_delta_kfold(rr, eps, 1000)
    assert mp.mpf(res.delta) >= ref
    close(res.delta, ref, rel=5e-12)
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


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
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

