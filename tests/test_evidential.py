"""EvidentialMechanism: structure, belief functions against brute force, algebra.

Reference: Li et al. 2022 (``docs/belief_functions.md`` s.1):
``bel_x(E) = sum_{B subset E} m_x(B)``, ``pl_x(E) = sum_{B meets E} m_x(B)``.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechdesign import EvidentialMechanism, Mechanism, dont_know, warner
from tests.strategies import all_events, brute_bel, brute_pl, evidential_mechanisms, mechanisms

YES, NO = "Yes", "No"
DK = EvidentialMechanism([[0.6, 0.2, 0.2], [0.2, 0.6, 0.2]],
                         [{YES}, {NO}, {YES, NO}], inputs=["P", "notP"])


# --------------------------------------------------------------------------- structure


def test_structure_of_the_dont_know_mechanism():
    assert DK.focal_sets == (frozenset({YES}), frozenset({NO}), frozenset({YES, NO}))
    assert DK.outputs == (YES, NO)  # union of the focal sets, in order of first appearance
    assert DK.inputs == ("P", "notP")
    assert (DK.n_inputs, DK.n_outputs) == (2, 2)
    assert DK == dont_know(0.6, 0.2)
    assert hash(DK) == hash(dont_know(0.6, 0.2))
    assert not DK.is_bayesian


def test_bel_and_pl_of_single_events_sheet_example():
    # s.1: bel_P({Yes}) = m({Yes}) = 0.6, pl_P({Yes}) = m({Yes}) + m({Yes,No}) = 0.8
    np.testing.assert_allclose(DK.bel({YES}), [0.6, 0.2], rtol=0, atol=1e-15)
    np.testing.assert_allclose(DK.pl({YES}), [0.8, 0.4], rtol=0, atol=1e-15)
    np.testing.assert_allclose(DK.bel([YES, NO]), [1.0, 1.0], rtol=0, atol=1e-15)
    np.testing.assert_array_equal(DK.bel([]), [0.0, 0.0])
    np.testing.assert_array_equal(DK.pl([]), [0.0, 0.0])


def test_explicit_outputs_may_contain_unused_labels():
    ev = EvidentialMechanism([[1.0], [1.0]], [{"b"}], outputs=["a", "b", "c"])
    assert ev.outputs == ("a", "b", "c")
    np.testing.assert_array_equal(ev.pl({"a", "c"}), [0.0, 0.0])
    assert ev.bel_matrix().shape == (2, 8)


def test_immutable():
    with pytest.raises(ValueError, match="read-only"):
        DK.masses[0, 0] = 0.5
    with pytest.raises(AttributeError, match="immutable"):
        DK.masses = np.eye(3)


def test_masses_and_focal_masks_cannot_be_made_writeable():
    # once broken: masses' flag could be flipped back; focal_masks was a plain writeable array and
    # `dk.focal_masks[2] = 1` changed dk.bel({'Yes'})
    dk = dont_know(0.6, 0.2)
    masses, masks = dk.masses.copy(), dk.focal_masks.copy()
    for arr in (dk.masses, dk.masses.base, dk.focal_masks, dk.focal_masks.base):
        with pytest.raises(ValueError, match="WRITEABLE"):
            arr.flags.writeable = True
    with pytest.raises(ValueError, match="read-only"):
        dk.focal_masks[2] = 1
    np.testing.assert_array_equal(dk.masses, masses)
    np.testing.assert_array_equal(dk.focal_masks, masks)
    np.testing.assert_array_equal(dk.focal_masks, [0b01, 0b10, 0b11])
    # bel({Yes}) = m({Yes}) = p for P, q for notP (s.4)
    np.testing.assert_allclose(dk.bel({YES}), [0.6, 0.2], rtol=0, atol=1e-15)


def test_seventy_outputs_use_python_int_masks():
    # once broken: int64 masks overflowed at 64 outputs, so from_mechanism failed on RR(70)
    labels = list(range(70))
    ev = EvidentialMechanism([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25]],
                             [{69}, {0, 68}, set(labels)], outputs=labels)
    assert ev.focal_masks.dtype == object
    assert list(ev.focal_masks) == [1 << 69, (1 << 68) | 1, (1 << 70) - 1]
    with pytest.raises(ValueError, match="WRITEABLE"):
        ev.focal_masks.flags.writeable = True
    with pytest.raises(ValueError, match="read-only"):
        ev.focal_masks[0] = 0
    # bel / pl of single events by the definitions (sums over subsets / meeting sets)
    np.testing.assert_allclose(ev.bel({69}), [0.5, 0.25], rtol=0, atol=0)
    np.testing.assert_allclose(ev.bel({0, 68, 69}), [0.75, 0.75], rtol=0, atol=0)
    np.testing.assert_allclose(ev.pl({68}), [0.5, 0.75], rtol=0, atol=0)
    np.testing.assert_allclose(ev.pl({5}), [0.25, 0.25], rtol=0, atol=0)
    # at 62 outputs and below the masks stay int64 (the fast path)
    small = EvidentialMechanism([[1.0]], [set(range(62))])
    assert small.focal_masks.dtype == np.int64 and small.focal_masks[0] == (1 << 62) - 1
    # an ordinary mechanism with 70 outputs converts and back
    Q = np.full((2, 70), 1 / 70)
    m = Mechanism(Q)
    conv = EvidentialMechanism.from_mechanism(m)
    assert conv.is_bayesian and conv.as_bayesian_mechanism() == m


def test_event_decodes_bitmasks():
    assert DK.event(0) == frozenset()
    assert DK.event(1) == frozenset({YES})
    assert DK.event(2) == frozenset({NO})
    assert DK.event(3) == frozenset({YES, NO})


def test_conversions_between_ordinary_and_evidential():
    w = warner(0.75)
    ev = EvidentialMechanism.from_mechanism(w)
    assert ev.is_bayesian
    assert ev.focal_sets == (frozenset({YES}), frozenset({NO}))
    assert ev.as_bayesian_mechanism() == w
    assert ev.to_mechanism().outputs == ev.focal_sets
    np.testing.assert_array_equal(ev.to_mechanism().matrix, w.matrix)
    # to_mechanism: the messages become the outputs (Shafer's semantics)
    msg = DK.to_mechanism()
    assert msg.outputs == DK.focal_sets and msg.inputs == DK.inputs
    np.testing.assert_array_equal(msg.matrix, DK.masses)


def test_bayesian_means_no_mass_on_non_singletons():
    # a non-singleton focal set that carries no mass does not make it non-Bayesian
    ev = EvidentialMechanism([[0.3, 0.7, 0.0], [0.5, 0.5, 0.0]], [{"a"}, {"b"}, {"a", "b"}])
    assert ev.is_bayesian
    np.testing.assert_array_equal(ev.as_bayesian_mechanism().matrix, [[0.3, 0.7], [0.5, 0.5]])
    # the singletons may come in any order: the Bayesian matrix follows ev.outputs
    ev2 = EvidentialMechanism([[0.3, 0.7]], [{"b"}, {"a"}], outputs=["a", "b"])
    np.testing.assert_array_equal(ev2.as_bayesian_mechanism().matrix, [[0.7, 0.3]])
    assert not DK.is_bayesian


# --------------------------------------------------------------------------- bel / pl brute force


@settings(max_examples=80, deadline=None)
@given(evidential_mechanisms())
def test_bel_pl_matrices_against_brute_force(ev):
    bel, pl = ev.bel_matrix(), ev.pl_matrix()
    events = all_events(ev.outputs)
    assert bel.shape == pl.shape == (ev.n_inputs, len(events))
    for x in range(ev.n_inputs):
        for mask, E in enumerate(events):
            b, p = brute_bel(ev, x, E), brute_pl(ev, x, E)
            # exact zeros stay exact zeros; everything else to rounding of a short sum
            assert (bel[x, mask] == 0) == (b == 0)
            assert (pl[x, mask] == 0) == (p == 0)
            assert bel[x, mask] == pytest.approx(float(b), rel=1e-14, abs=0)
            assert pl[x, mask] == pytest.approx(float(p), rel=1e-14, abs=0)


@settings(max_examples=60, deadline=None)
@given(evidential_mechanisms(), st.data())
def test_single_event_bel_pl_against_brute_force(ev, data):
    E = frozenset(data.draw(st.sets(st.sampled_from(ev.outputs))))
    b = [brute_bel(ev, x, E) for x in range(ev.n_inputs)]
    p = [brute_pl(ev, x, E) for x in range(ev.n_inputs)]
    np.testing.assert_allclose(ev.bel(E), [float(v) for v in b], rtol=1e-14, atol=0)
    np.testing.assert_allclose(ev.pl(E), [float(v) for v in p], rtol=1e-14, atol=0)
    np.testing.assert_array_equal(ev.bel(E) == 0, [v == 0 for v in b])
    np.testing.assert_array_equal(ev.pl(E) == 0, [v == 0 for v in p])


@settings(max_examples=60, deadline=None)
@given(evidential_mechanisms())
def test_duality_and_order_of_bel_and_pl(ev):
    # pl(E) = 1 - bel(Y \ E) (s.1) and bel <= pl; checked to rounding, a second method
    bel, pl = ev.bel_matrix(), ev.pl_matrix()
    full = (1 << ev.n_outputs) - 1
    for mask in range(full + 1):
        np.testing.assert_allclose(pl[:, mask], 1 - bel[:, full ^ mask], rtol=0, atol=1e-12)
    assert (bel <= pl + 1e-15).all()
    np.testing.assert_allclose(pl[:, full], 1.0, rtol=0, atol=1e-12)


def test_pl_has_no_subtraction_noise():
    # Row 0 puts no mass on any focal set meeting {c}: pl_0({c}) must be EXACTLY 0, so the
    # ratio pl_1({c}) / pl_0({c}) is inf. With pl = 1 - bel({a, b}) the float sum
    # 0.6 + 0.3 + 0.1 = 0.9999999999999999 would leave a spurious 1.1e-16 instead.
    assert 1 - (0.6 + 0.3 + 0.1) > 0
    ev = EvidentialMechanism([[0.6, 0.3, 0.1, 0.0], [0.1, 0.2, 0.3, 0.4]],
                             [{"a"}, {"b"}, {"a", "b"}, {"c"}])
    c = ev.outputs.index("c")
    assert ev.pl_matrix()[0, 1 << c] == 0.0
    assert ev.pl({"c"})[0] == 0.0
    # a tiny mass is measured as itself, not lost in a subtraction (1 - 1.0 = 0)
    tiny = EvidentialMechanism([[0.5, 0.5 - 1e-18, 1e-18], [0.5, 0.25, 0.25]],
                               [{"a"}, {"a", "b"}, {"c"}], outputs=["a", "b", "c"])
    assert tiny.pl({"c"})[0] == 1e-18
    assert tiny.pl_matrix()[0, 0b100] == 1e-18
    assert tiny.bel_matrix()[0, 0b100] == 1e-18


# --------------------------------------------------------------------------- algebra


def test_product_of_evidential_mechanisms_has_rectangles():
    p = DK.product(DK)
    assert len(p.focal_sets) == 9
    assert p.inputs[1] == ("P", "notP")
    both = frozenset((a, b) for a in (YES, NO) for b in (YES, NO))
    j = p.focal_sets.index(both)  # {Yes, No} x {Yes, No}
    np.testing.assert_allclose(p.masses[:, j], [0.04, 0.04, 0.04, 0.04], rtol=1e-15)
    j = p.focal_sets.index(frozenset({(YES, YES), (YES, NO)}))  # {Yes} x {Yes, No}
    np.testing.assert_allclose(p.masses[:, j], [0.6 * 0.2, 0.6 * 0.2, 0.2 * 0.2, 0.2 * 0.2],
                               rtol=1e-15)


@settings(max_examples=50, deadline=None)
@given(evidential_mechanisms(outputs=(1, 2), max_focal=3),
       evidential_mechanisms(outputs=(1, 2), max_focal=3))
def test_product_masses_brute_force(e1, e2):
    p = e1.product(e2)
    assert p.masses.shape == (e1.n_inputs * e2.n_inputs, len(e1.focal_sets) * len(e2.focal_sets))
    for i, (x1, x2) in enumerate(itertools.product(range(e1.n_inputs), range(e2.n_inputs))):
        assert p.inputs[i] == (e1.inputs[x1], e2.inputs[x2])
        for j1, B1 in enumerate(e1.focal_sets):
            for j2, B2 in enumerate(e2.focal_sets):
                j = p.focal_sets.index(frozenset(itertools.product(B1, B2)))
                assert p.masses[i, j] == e1.masses[x1, j1] * e2.masses[x2, j2]


@settings(max_examples=30, deadline=None)
@given(evidential_mechanisms(rows=(1, 2), outputs=(1, 2), max_focal=3), mechanisms(rows=(1, 2)))
def test_product_with_an_ordinary_mechanism_embeds_it_first(ev, m):
    assert ev.product(m) == ev.product(EvidentialMechanism.from_mechanism(m))


def test_then_merges_messages_with_equal_images():
    # f maps both answers to "answered": {Yes}, {No} and {Yes, No} all become {answered}
    out = DK.then({YES: "answered", NO: "answered"})
    assert out.focal_sets == (frozenset({"answered"}),)
    np.testing.assert_allclose(out.masses, [[1.0], [1.0]], rtol=0, atol=1e-15)
    # a relabelling keeps the structure; a callable works like a mapping
    relabel = DK.then(str.lower)
    assert relabel.outputs == ("yes", "no")
    np.testing.assert_array_equal(relabel.masses, DK.masses)


@settings(max_examples=60, deadline=None)
@given(evidential_mechanisms(), st.data())
def test_then_masses_brute_force(ev, data):
    z = data.draw(st.lists(st.integers(0, 2), min_size=ev.n_outputs, max_size=ev.n_outputs))
    f = dict(zip(ev.outputs, z, strict=True))
    out = ev.then(f)
    # m'_x(C) = sum over focal sets B with f(B) = C of m_x(B)   (s.1)
    for x in range(ev.n_inputs):
        for j, C in enumerate(out.focal_sets):
            expected = sum(Fraction(float(ev.masses[x, i])) for i, B in enumerate(ev.focal_sets)
                           if frozenset(f[y] for y in B) == C)
            assert out.masses[x, j] == pytest.approx(float(expected), rel=1e-14, abs=0)
    images = {frozenset(f[y] for y in B) for B in ev.focal_sets}
    assert set(out.focal_sets) == images


def test_bel_matrix_size_limit_is_16_outputs():
    labels = list(range(16))
    ev = EvidentialMechanism([[1.0]], [set(labels)])
    assert ev.bel_matrix().shape == (1, 1 << 16)
    assert ev.pl_matrix()[0, 1] == 1.0


def test_from_mechanism_accepts_a_product_of_mechanisms():
    w = warner(0.75)
    ev = EvidentialMechanism.from_mechanism(w.product(w))
    assert ev.is_bayesian
    assert ev.as_bayesian_mechanism() == w.product(w)
    assert isinstance(ev.to_mechanism(), Mechanism)
