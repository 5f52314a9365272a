"""WLDP composition is a theorem (``docs/belief_functions.md`` s.2.5), checked exhaustively.

The statement: ``r_W(Q_1 x Q_2) = max_{x, x'} rho_1(x, x') rho_2(x, x') <= r_W(Q_1) r_W(Q_2)``
with ``rho(x, x') = max_y pl_x({y}) / m_x'({y})``, and ``r_W(Q x Q) = r_W(Q)^2``. The proof:
``r_W`` is attained at singletons (pl is subadditive, bel superadditive over points), and the
plausibility and mass of a point of a product are products.

The grids below are every evidential mechanism with 2 inputs and 2 or 3 outputs, ALL
non-empty subsets as focal sets, and masses ``j / N`` (integers here, so nothing is rounded).
``r_W`` is computed by brute force over EVERY event of the factor and of the product (not
over singletons, so the singleton lemma is tested, not assumed), in integer arithmetic
(float64 holds these small integers exactly; the ratios are compared by cross-multiplying).
A second pass goes through the project's exact verifier (:func:`mechdesign.verify_exact`,
rational arithmetic on the stored doubles) on a dyadic grid.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings

import mechdesign as md
from mechdesign.accounting._belief_composition import (
    belief_composition,
    compose_evidential,
    epsilon_wldp_composed,
    wldp_pair_ratios,
)
from mechdesign.privacy.verify import verify_exact
from tests.strategies import evidential_mechanisms


def compositions(total: int, parts: int) -> np.ndarray:
    """Every vector of ``parts`` non-negative integers summing to ``total``."""
    out = []
    for bars in itertools.combinations(range(total + parts - 1), parts - 1):
        edges = (-1, *bars, total + parts - 1)
        out.append([edges[i + 1] - edges[i] - 1 for i in range(parts)])
    return np.array(out, dtype=np.int64)


def focal_masks(m: int) -> list[int]:
    return list(range(1, 1 << m))


def product_masks(f1: list[int], m1: int, f2: list[int], m2: int) -> list[int]:
    """Bitmasks over Y1 x Y2 (point (a, b) is bit a*m2 + b) of the rectangles B1 x B2,
    in the order of ``compose_evidential`` (B1 outer, B2 inner)."""
    out = []
    for B1 in f1:
        for B2 in f2:
            out.append(sum(1 << (a * m2 + b) for a in range(m1) if B1 >> a & 1
                           for b in range(m2) if B2 >> b & 1))
    return out


def incidence(masks: list[int], m: int) -> tuple[np.ndarray, np.ndarray]:
    """``(F, 2^m)`` 0/1 matrices: focal set meets event (pl), focal set inside event (bel)."""
    E = np.arange(1 << m)
    M = np.array(masks)[:, None]
    return ((M & E) != 0).astype(float), ((M & ~E) == 0).astype(float)


def max_ratio(masses: np.ndarray, masks: list[int], m: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``r_W = max_{x, x', E} pl_x(E) / bel_x'(E)`` of a batch ``(n, 2, F)`` of integer
    masses, over every event, as integer pairs ``(num, den)`` (den 0: infinite).

    The candidate is found in floating point and then PROVED maximal in integers: every
    ``pl_x(E) * den <= num * bel_x'(E)``."""
    inc_pl, inc_bel = incidence(masks, m)
    pl = masses @ inc_pl  # (n, 2, 2^m), exact integers in float64
    bel = masses @ inc_bel
    num = np.repeat(pl[:, :, None, :], 2, axis=2).reshape(len(masses), -1)  # (x, x', E)
    den = np.repeat(bel[:, None, :, :], 2, axis=1).reshape(len(masses), -1)
    live = num > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(live, np.where(den > 0, num / np.where(den > 0, den, 1), np.inf), -1.0)
    j = r.argmax(axis=1)
    a, b = num[np.arange(len(num)), j], den[np.arange(len(den)), j]
    finite = b > 0
    # proof of maximality, exact: num * b <= a * den wherever num > 0 (finite ones)
    ok = (num * b[:, None] <= a[:, None] * den) | ~live
    assert ok[finite].all()
    return a, b


def singleton_ratio(masses: np.ndarray, masks: list[int], m: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """``max_{x, x', y} pl_x({y}) / m_x'({y})`` the same way, over singletons only."""
    pts = [1 << y for y in range(m)]
    inc_pl, inc_bel = incidence(masks, m)
    return max_ratio_on(masses @ inc_pl[:, pts], masses @ inc_bel[:, pts])


def max_ratio_on(pl: np.ndarray, bel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = len(pl)
    num = np.repeat(pl[:, :, None, :], 2, axis=2).reshape(n, -1)
    den = np.repeat(bel[:, None, :, :], 2, axis=1).reshape(n, -1)
    live = num > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(live, np.where(den > 0, num / np.where(den > 0, den, 1), np.inf), -1.0)
    j = r.argmax(axis=1)
    a, b = num[np.arange(n), j], den[np.arange(n), j]
    ok = (num * b[:, None] <= a[:, None] * den) | ~live
    assert ok[b > 0].all()
    return a, b


def grid(m: int, N: int, floor: int = 0) -> np.ndarray:
    """Every 2-input mechanism on m outputs, all focal sets, masses j/N: ``(n, 2, F)``;
    with ``floor``, every singleton gets at least ``floor / N`` (finite ratios)."""
    F = (1 << m) - 1
    rows = compositions(N - floor * m, F)
    rows[:, [(1 << y) - 1 for y in range(m)]] += floor
    i, j = np.meshgrid(np.arange(len(rows)), np.arange(len(rows)), indexing="ij")
    return np.stack([rows[i.ravel()], rows[j.ravel()]], axis=1).astype(float)


def self_product(masses: np.ndarray) -> np.ndarray:
    """Same-input product masses ``m_x(B1 x B2) = m_x(B1) m_x(B2)`` (B1 outer)."""
    return np.einsum("nxi,nxj->nxij", masses, masses).reshape(masses.shape[0], 2, -1)


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
@pytest.mark.parametrize(("m", "N", "floor"), [(2, 8, 0), (3, 3, 0), (3, 5, 1)])
def test_wldp_of_q_times_q_is_exactly_twice(m, N, floor):
    """Every mechanism of the grid: r_W(Q x Q) = r_W(Q)^2 (so eps_W(Q x Q) = 2 eps_W(Q)),
    and r_W(Q) is its singleton ratio. Grid sizes: m = 2, N = 8: 45^2 = 2025 mechanisms
    (products with 16 events, 786 of them with finite ratio); m = 3, N = 3: 84^2 = 7056
    (products with 512 events; 31 finite: elsewhere a singleton lacks mass); m = 3,
    N = 5 with every singleton at least 1/5: 28^2 = 784, all finite."""
    Q = grid(m, N, floor)
    f = focal_masks(m)
    a, b = max_ratio(Q, f, m)
    sa, sb = singleton_ratio(Q, f, m)
    finite = b > 0
    assert (finite == (sb > 0)).all()
    assert (a[finite] * sb[finite] == sa[finite] * b[finite]).all()  # singleton lemma
    pa, pb = max_ratio(self_product(Q), product_masks(f, m, f, m), m * m)
    assert ((pb > 0) == finite).all()  # infinite exactly when the factor's is
    # r_W(Q x Q) = (a/b)^2, exactly: pa b^2 = a^2 pb
    assert (pa[finite] * b[finite] ** 2 == a[finite] ** 2 * pb[finite]).all()
    assert finite.sum() == {(2, 8): 786, (3, 3): 31, (3, 5): len(Q)}[m, N]


def test_wldp_sum_bound_for_different_factors():
    """Q1 on 2 outputs (N = 4, singletons >= 1/4: 36 mechanisms) times Q2 on 3 outputs
    (N = 5, singletons >= 1/5: 784): all 28,224 products (6 outputs, 64 events) satisfy
    r_W(Q1 x Q2) <= r_W(Q1) r_W(Q2), and equal max_{x, x'} rho_1(x, x') rho_2(x, x') (the
    singleton formula). (Infinite ratios are covered by the Q x Q grids.)"""
    Q1, Q2 = grid(2, 4, 1), grid(3, 5, 1)
    f1, f2 = focal_masks(2), focal_masks(3)
    a1, b1 = max_ratio(Q1, f1, 2)
    a2, b2 = max_ratio(Q2, f2, 3)
    i, j = (v.ravel() for v in np.meshgrid(np.arange(len(Q1)), np.arange(len(Q2)),
                                           indexing="ij"))
    prod = np.einsum("nxi,nxj->nxij", Q1[i], Q2[j]).reshape(len(i), 2, -1)
    pa, pb = max_ratio(prod, product_masks(f1, 2, f2, 3), 6)
    finite = (b1[i] > 0) & (b2[j] > 0)
    assert ((pb > 0) == finite).all()
    # the sum bound: pa / pb <= (a1 a2) / (b1 b2)
    assert (pa[finite] * b1[i][finite] * b2[j][finite]
            <= a1[i][finite] * a2[j][finite] * pb[finite]).all()
    # strict somewhere: the worst pairs of the factors differ, so the bound is not attained
    assert (pa[finite] * b1[i][finite] * b2[j][finite]
            < a1[i][finite] * a2[j][finite] * pb[finite]).any()
    # the singleton formula: per ordered pair (x, x'), rho = max_y pl_x({y}) / m_x'({y})
    for Q, f, m, idx in ((Q1, f1, 2, i), (Q2, f2, 3, j)):
        pts = [1 << y for y in range(m)]
        inc_pl, inc_bel = incidence(f, m)
        pl, mass = Q @ inc_pl[:, pts], Q @ inc_bel[:, pts]
        with np.errstate(divide="ignore", invalid="ignore"):
            rho = np.where(pl[:, :, None, :] > 0, pl[:, :, None, :] / mass[:, None, :, :], 0)
        if Q is Q1:
            rho1 = rho.max(axis=3)[idx]
        else:
            rho2 = rho.max(axis=3)[idx]
    formula = (rho1 * rho2).reshape(len(i), -1).max(axis=1)
    np.testing.assert_allclose(formula[finite], (pa / pb)[finite], rtol=1e-13)


def test_through_the_exact_verifier():
    """The dyadic grid m = 2, N = 4 (225 mechanisms; masses j/4 are stored exactly):
    the project's exact verifier finds ratio(Q x Q) = ratio(Q)^2 for each, and the exact
    singleton function agrees with both."""
    fsets = [{"a"}, {"b"}, {"a", "b"}]
    for rows in grid(2, 4):
        ev = md.EvidentialMechanism(rows / 4, fsets)
        r = verify_exact(ev, "wldp", 50.0).ratio
        r2 = verify_exact(compose_evidential([ev, ev]), "wldp", 50.0).ratio
        assert r2 == r * r, rows
        pairs = wldp_pair_ratios(ev)
        flat = [v for row in pairs for v in row]
        assert (max(flat) if None not in flat else math.inf) == r


def test_three_outputs_through_the_exact_verifier_sample():
    """Every 4410th mechanism of the dyadic grid m = 3, N = 4 (44,100 mechanisms; 10 of them,
    each about 0.15 s): the same check
    with the verifier over the 511 events of the product."""
    f = [frozenset(c) for r in (1, 2, 3) for c in itertools.combinations("abc", r)]
    Q = grid(3, 4)
    for rows in Q[::4410]:
        ev = md.EvidentialMechanism(rows / 4, f, outputs=tuple("abc"))
        r = verify_exact(ev, "wldp", 50.0).ratio
        r2 = verify_exact(compose_evidential([ev, ev]), "wldp", 50.0).ratio
        assert r2 == r * r


def test_dont_know_worked_example_and_k_fold():
    # Q_2x3(0.6, 0.2), d = 0.2: the singleton ratio pl_notP({No}) / m_P({No}) = (p + d)/q
    # = 0.8/0.2 = 4 = (1 - q)/q is the largest, so r_W = 4 and r_W(Q^k) = 4^k.
    dk = md.dont_know(0.6, 0.2)
    assert belief_composition([dk, dk], "wldp").bound_status == "theorem"
    for k in (1, 2, 3, 5):
        assert epsilon_wldp_composed([dk] * k) == pytest.approx(k * math.log(4), rel=1e-15)
    # k = 2 enumerates the 16 events of the product: same value
    assert epsilon_wldp_composed([dk, dk]) == pytest.approx(
        md.epsilon_wldp(compose_evidential([dk, dk])), rel=1e-15)


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
@settings(max_examples=60, deadline=None)
@given(a=evidential_mechanisms(rows=(2, 2), outputs=(2, 3)),
       b=evidential_mechanisms(rows=(2, 2), outputs=(2, 3)))
def test_composed_epsilon_matches_the_enumeration(a, b):
    """Random float mechanisms (tiny and zero masses included): the singleton formula equals
    the measured epsilon of the built product and is at most the sum of the factors'."""
    via_formula = epsilon_wldp_composed([a, b])
    measured = md.epsilon_wldp(compose_evidential([a, b]))
    if math.isinf(measured):
        assert math.isinf(via_formula)
    else:
        assert via_formula == pytest.approx(measured, rel=1e-12, abs=1e-15)
        assert via_formula <= md.epsilon_wldp(a) + md.epsilon_wldp(b) + 1e-12


def test_pair_ratios_worked_example_and_infinite():
    # m_0 = ({a}: 1/2, {b}: 1/4, {a, b}: 1/4), m_1 = ({a}: 1/2, {b}: 1/2):
    # pl_0 = (3/4, 1/2) on the points a, b; pl_1 = (1/2, 1/2); the point masses are m_x itself.
    # rho(0, 0) = max(3/4 / 1/2, 1/2 / 1/4) = 2; rho(0, 1) = max(3/2, 1) = 3/2;
    # rho(1, 0) = max(1, 2) = 2; rho(1, 1) = 1.
    ev = md.EvidentialMechanism([[0.5, 0.25, 0.25], [0.5, 0.5, 0.0]],
                                [{"a"}, {"b"}, {"a", "b"}])
    assert wldp_pair_ratios(ev) == [[2, Fraction(3, 2)], [2, 1]]
    assert epsilon_wldp_composed([ev]) == pytest.approx(math.log(2), rel=1e-15)
    # with itself: max over pairs of rho^2 = 4; with a factor whose worst pair is (1, 1)
    # only, the product is below the sum bound
    assert epsilon_wldp_composed([ev, ev]) == pytest.approx(2 * math.log(2), rel=1e-15)
    # x' never answers "a" alone while x can: rho(x, x') is infinite (None)
    inf = md.EvidentialMechanism([[0.5, 0.5], [0.0, 1.0]], [{"a"}, {"a", "b"}])
    assert wldp_pair_ratios(inf)[0][1] is None
    assert epsilon_wldp_composed([inf]) == math.inf == md.epsilon_wldp(inf)


def test_bad_input():
    with pytest.raises(md.errors.InvalidMechanismError, match="input counts"):
        epsilon_wldp_composed([md.dont_know(0.6, 0.2), md.randomized_response(3, 1.0)])
    with pytest.raises(md.errors.InvalidParameterError, match="at least one"):
        epsilon_wldp_composed([])
