"""Tests of :mod:`mechdesign._coerce`: the one place that turns "a mechanism" (ordinary,
evidential, a frequency oracle, or a matrix) into the type an analyzer needs.

Pinned: a Mechanism passes through as itself; an evidential mechanism is read over its
messages (Li et al.'s Q_2x3 for "don't know"); an oracle by its matrix, and an oracle too
large for one is a typed SizeLimitError; an array is validated, its errors prefixed with the
name given; only a structured randomizer (an oracle) measures its privacy in closed form;
an ordinary mechanism read as evidential has singleton focal sets, so bel = pl = P.
"""

from __future__ import annotations

import numpy as np
import pytest

import mechdesign as md
from mechdesign._coerce import as_evidential, as_mechanism, closed_form
from mechdesign.errors import InvalidMechanismError, SizeLimitError
from mechdesign.oracles import RandomizedResponse, UnaryEncoding


def test_as_mechanism():
    w = md.warner(0.75)
    assert as_mechanism(w) is w
    dk = as_mechanism(md.dont_know(0.6, 0.2))  # Q_2x3: rows (p, 1-p-q, q), masses on messages
    np.testing.assert_allclose(dk.matrix, [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2]], atol=1e-15)
    assert dk.outputs == md.dont_know(0.6, 0.2).focal_sets
    rr = as_mechanism(RandomizedResponse(3, 1.0))
    np.testing.assert_allclose(rr.matrix, md.randomized_response(3, 1.0).matrix, rtol=1e-12)
    m = as_mechanism([[0.75, 0.25], [0.25, 0.75]])
    assert isinstance(m, md.Mechanism) and m.outputs == (0, 1)


def test_bad_arrays_and_huge_oracles_are_typed_errors():
    with pytest.raises(InvalidMechanismError, match=r"^Q: row 0 of matrix sums to 1\.1"):
        as_mechanism([[0.5, 0.6], [0.5, 0.5]], "Q")
    with pytest.raises(InvalidMechanismError, match=r"^row 0 of matrix sums to 1\.1"):
        as_mechanism([[0.5, 0.6], [0.5, 0.5]])
    with pytest.raises(SizeLimitError, match="entries as a matrix"):
        as_mechanism(UnaryEncoding(30, 1.0))  # 2^30 outputs


def test_closed_form_is_only_for_structured_randomizers():
    o = UnaryEncoding(30, 1.0)
    assert closed_form(o) is o
    for m in (md.warner(0.75), md.dont_know(0.6, 0.2), np.eye(2), [[1.0, 0.0], [0.0, 1.0]]):
        assert closed_form(m) is None


def test_as_evidential():
    dk = md.dont_know(0.6, 0.2)
    assert as_evidential(dk) is dk
    w = md.warner(0.75)
    ev = as_evidential(w)
    assert ev.is_bayesian and ev.focal_sets == (frozenset({"Yes"}), frozenset({"No"}))
    np.testing.assert_array_equal(ev.masses, w.matrix)
    # singleton focal sets: belief and plausibility of every event are its probability
    np.testing.assert_allclose(ev.bel_matrix(), ev.pl_matrix(), rtol=0, atol=1e-15)
    np.testing.assert_allclose(ev.pl_matrix(), [[0.0, 0.75, 0.25, 1.0],
                                                [0.0, 0.25, 0.75, 1.0]], atol=1e-15)
    with pytest.raises(InvalidMechanismError, match=r"^M: "):
        as_evidential([[2.0, -1.0]], "M")
