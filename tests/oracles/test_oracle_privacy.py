"""Privacy measures of a frequency oracle read from its closed form, never its matrix.

Each value is held against (1) a 50-digit evaluation of the definition on the oracle's exact
rational probabilities (the closed form must be an upper bound, within a few ulps), and
(2) the same measure of the materialised matrix (an independent computation from the
entries, which are those probabilities rounded to doubles)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

import mechdesign as md
from mechdesign.errors import InvalidParameterError, SizeLimitError
from mechdesign.oracles import (
    HadamardResponse,
    LocalHashing,
    RandomizedResponse,
    SubsetSelection,
    UnaryEncoding,
)
from mechdesign.oracles.base import MAX_ENTRIES
from mechdesign.privacy import privacy_report, skipped_measures
from mechdesign.privacy.measures import pair_law_delta

mpmath.mp.dps = 50


def small_oracles(eps: float) -> list:
    return [RandomizedResponse(5, eps), RandomizedResponse(2, eps), UnaryEncoding(5, eps),
            UnaryEncoding(5, eps, optimized=True), SubsetSelection(6, eps, d=2),
            SubsetSelection(6, eps, d=1), SubsetSelection(6, eps, d=5),
            HadamardResponse(5, eps), HadamardResponse(2, eps),
            LocalHashing(5, eps, g=3, hash_bits=4), LocalHashing(6, eps, g=2, hash_bits=4)]


def mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def exact_delta(atoms, eps: float) -> mpmath.mpf:
    """The hockey-stick sum at 50 digits from the exact atoms (the definition)."""
    e = mpmath.exp(mpmath.mpf(eps))
    return sum((max(mpmath.mpf(0), mp(p) - e * mp(q)) for p, q in atoms), mpmath.mpf(0))


@pytest.mark.parametrize("eps", [0.3, 1.0, 5.0])
def test_pair_atoms_are_the_law_of_a_pair(eps):
    for o in small_oracles(eps):
        atoms = o.pair_atoms()
        assert sum(p for p, _ in atoms) == 1 and sum(q for _, q in atoms) == 1, o
        # the largest ratio of the atoms is the oracle's documented privacy ratio
        assert max(p / q for p, q in atoms if p > 0) == 1 + o.ratio_excess, o


@pytest.mark.parametrize("eps", [0.3, 1.0, 5.0])
def test_epsilon_is_an_upper_bound_close_to_the_matrix(eps):
    for o in small_oracles(eps):
        closed = md.epsilon_ldp(o)
        exact = mpmath.log1p(mp(o.ratio_excess))  # ln of the largest exact ratio
        assert closed >= exact, o
        assert closed - exact <= 8 * math.ulp(closed), o
        # the matrix's entries are rounded to doubles and its measure raised by 4 ulps
        # (log_ratio); the unary matrix is a product of k factors, a few ulps more
        materialised = md.epsilon_ldp(o.to_mechanism())
        assert closed == pytest.approx(materialised, rel=1e-13, abs=0), o
        assert closed <= materialised, o


@pytest.mark.parametrize("eps", [0.3, 1.0, 5.0])
def test_delta_is_an_upper_bound_close_to_the_matrix(eps):
    for o in small_oracles(eps):
        m = o.to_mechanism()
        for at in (0.0, 0.1, eps / 2):
            closed = md.delta_ldp(o, at)
            exact = exact_delta(o.pair_atoms(), at)
            assert closed >= exact, (o, at)
            assert closed - exact <= 2 * math.ulp(closed), (o, at)
            # the matrix's delta is a float sum raised by its rounding bound ((n+2) u)
            assert closed == pytest.approx(md.delta_ldp(m, at), rel=1e-12, abs=1e-15), (o, at)
            # every pair of distinct inputs has the same law
            assert closed == pytest.approx(md.delta_ldp(m, at, pairs=[(0, o.k - 1)]),
                                           rel=1e-12, abs=1e-15), (o, at)
        # at its own (exact) epsilon, and at eps = inf, no mass is left
        assert md.delta_ldp(o, md.epsilon_ldp(o)) == 0.0
        assert md.delta_ldp(o, math.inf) == 0.0


def test_pair_law_delta_rounds_up_and_caps():
    # 1/3 - e^0 * 0 is not a double: the result is the double just above 1/3
    third = pair_law_delta([(Fraction(1, 3), Fraction(0)), (Fraction(2, 3), Fraction(1))], 0.0)
    assert Fraction(third) > Fraction(1, 3) and third == math.nextafter(1 / 3, 1.0)
    assert pair_law_delta([(Fraction(1), Fraction(0))], math.inf) == 1.0


def test_local_hashing_large_domain_is_about_its_nominal_epsilon():
    o = LocalHashing(1000, 1.0)
    eps = md.epsilon_ldp(o)
    assert eps >= float(mpmath.log1p(mp(o.ratio_excess)))
    assert eps == pytest.approx(1.0, rel=1e-15)


@pytest.mark.parametrize("o", [LocalHashing(1000, 1.0), LocalHashing(10**5, 2.0),
                               UnaryEncoding(10**4, 1.0), SubsetSelection(10**4, 1.0),
                               HadamardResponse(10**6, 0.5)], ids=repr)
def test_large_oracles_are_measured_without_their_matrix(o, monkeypatch):
    def refuse(self):
        raise AssertionError("the matrix was built")

    monkeypatch.setattr(type(o), "_matrix", refuse)
    assert md.epsilon_ldp(o) == o.epsilon_exact
    assert md.epsilon_ldp(o, pairs=[(0, 1)]) == o.epsilon_exact
    delta = md.delta_ldp(o, o.epsilon / 2)
    assert 0 < delta == pytest.approx(float(exact_delta(o.pair_atoms(), o.epsilon / 2)),
                                      rel=1e-15)
    report = privacy_report(o, [o.epsilon / 2])
    assert report == {"epsilon_ldp": o.epsilon_exact, f"delta_ldp@{o.epsilon / 2:g}": delta}
    skipped = skipped_measures(o)
    assert set(skipped) == {"epsilon_deletion", "epsilon_metric"}
    assert str(MAX_ENTRIES) in skipped["epsilon_deletion"]


class NoClosedForm(RandomizedResponse):
    """An oracle that does not know its pair law: measured on its matrix."""

    def pair_atoms(self):
        raise NotImplementedError


def test_without_a_closed_form_the_matrix_is_measured_or_the_limit_named():
    small = NoClosedForm(4, 1.0)
    assert md.delta_ldp(small, 0.5) == md.delta_ldp(small.to_mechanism(), 0.5)
    big = NoClosedForm(5000, 1.0)  # 25e6 entries
    with pytest.raises(SizeLimitError, match=f"the limit is {MAX_ENTRIES}"):
        md.delta_ldp(big, 0.5)


def test_bad_relations_and_epsilons_are_refused_for_oracles():
    o = LocalHashing(1000, 1.0)
    with pytest.raises(InvalidParameterError, match="-1"):
        md.delta_ldp(o, -1.0)
    with pytest.raises(InvalidParameterError, match="1000"):
        md.epsilon_ldp(o, pairs=[(0, 1000)])
