"""SLDP and WLDP of products of evidential mechanisms
(:mod:`mechdesign.accounting._belief_composition`), against exact rationals."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.accounting._belief_composition import belief_composition, compose_evidential
from mechdesign.errors import InvalidMechanismError, InvalidParameterError


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
    assert w.bound_status == "theorem" and w.within_bound  # docs/belief_functions.md s.2.5
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

