"""The Randomizer protocol: Mechanism, EvidentialMechanism and every frequency oracle satisfy
it, and its members mean the same thing on each (sizes against the explicit matrix, samples
reproducible from a seed and inside the output range)."""

from __future__ import annotations

import numpy as np
import pytest

import mechdesign as md
from mechdesign.oracles import ORACLES, LocalHashing, SubsetSelection, UnaryEncoding
from mechdesign.randomizer import ClosedFormPrivacy, Randomizer

SMALL_ORACLES = [ORACLES["randomized_response"](4, 1.0), UnaryEncoding(4, 1.0),
                 UnaryEncoding(4, 1.0, optimized=True), SubsetSelection(5, 1.0, d=2),
                 ORACLES["hadamard_response"](5, 1.0), LocalHashing(4, 1.0, g=3, hash_bits=4)]


def test_every_oracle_family_is_covered():
    assert {type(o) for o in SMALL_ORACLES} == set(ORACLES.values())


@pytest.mark.parametrize("r", [md.warner(0.75), md.dont_know(0.6, 0.2), *SMALL_ORACLES],
                         ids=repr)
def test_every_randomizer_satisfies_the_protocol(r):
    assert isinstance(r, Randomizer)
    assert isinstance(md.Randomizer, type) and md.Randomizer is Randomizer
    m = r.to_mechanism()
    assert isinstance(m, md.Mechanism)
    assert m.n_inputs == r.n_inputs
    if not isinstance(r, md.EvidentialMechanism):  # an evidential one's columns are messages
        assert m.n_outputs == r.n_outputs
    x = np.arange(r.n_inputs).repeat(3)
    a, b = r.sample(x, rng=7), r.sample(x, rng=7)
    assert np.array_equal(a, b)  # an int seed reproduces the draws
    assert len(a) == len(x)


def test_mechanism_to_mechanism_is_itself():
    w = md.warner(0.75)
    assert w.to_mechanism() is w


def test_evidential_sample_draws_messages():
    dk = md.dont_know(0.6, 0.2)  # messages {0}, {1}, {0, 1}
    draws = dk.sample(np.zeros(4000, dtype=int), rng=3)
    assert draws.min() >= 0 and draws.max() < len(dk.focal_sets)
    # the same draws as the mechanism over the messages, from the same seed
    assert np.array_equal(draws, dk.to_mechanism().sample(np.zeros(4000, dtype=int), rng=3))
    assert isinstance(dk.sample(1), int)  # exact deployment draw of one input
    with pytest.raises(md.InvalidParameterError, match="input index 2"):
        dk.sample([2])


def test_oracles_have_closed_form_privacy_mechanisms_do_not_need_it():
    assert all(isinstance(o, ClosedFormPrivacy) for o in SMALL_ORACLES)
    assert SMALL_ORACLES[0].n_inputs == SMALL_ORACLES[0].k == 4


def test_non_randomizers_are_not_randomizers():
    assert not isinstance(np.eye(2), Randomizer)
    assert not isinstance([[1.0, 0.0], [0.0, 1.0]], Randomizer)
