"""The Mechanism value: immutability, algebra (then / product) and sampling."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from mechdesign import Mechanism, warner
from tests.strategies import mechanisms, stochastic_matrices

# --------------------------------------------------------------------------- immutability


def test_matrix_is_a_read_only_copy():
    src = np.array([[0.25, 0.75], [0.5, 0.5]])
    m = Mechanism(src)
    src[0, 0] = 0.9  # mutating the caller's array must not reach the mechanism
    assert m.matrix[0, 0] == 0.25
    with pytest.raises(ValueError, match="read-only"):
        m.matrix[0, 0] = 0.1
    assert m.Q is m.matrix


def test_writeable_flag_cannot_be_flipped_back():
    # once broken: the matrix owned its data, so `m.matrix.flags.writeable = True` succeeded
    m = warner(0.75)
    before = m.matrix.copy()
    for arr in (m.matrix, m.matrix.base, m.Q, m.matrix[0], m.matrix.T, m.matrix.view()):
        if arr is None:
            continue
        with pytest.raises(ValueError, match="WRITEABLE"):
            arr.flags.writeable = True
    np.testing.assert_array_equal(m.matrix, before)
    assert m == warner(0.75) and hash(m) == hash(warner(0.75))


def test_copies_and_pickles_stay_read_only():
    import copy
    import pickle
    m = Mechanism([[0.25, 0.75], [0.5, 0.5]], ["a", "b"], ["y", "n"], name="m")
    for clone in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m), copy.copy(m)):
        assert clone == m and clone.name == "m"
        with pytest.raises(ValueError):
            clone.matrix.flags.writeable = True


@pytest.mark.parametrize("attr", ["matrix", "inputs", "outputs", "name", "new_attribute"])
def test_attributes_cannot_be_set(attr):
    m = warner(0.75)
    with pytest.raises(AttributeError, match="immutable"):
        setattr(m, attr, None)


def test_basic_facts_and_default_labels():
    m = Mechanism([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], name="demo")
    assert (m.n_inputs, m.n_outputs, m.shape) == (2, 3, (2, 3))
    assert m.inputs == (0, 1)
    assert m.outputs == (0, 1, 2)
    assert m.name == "demo"
    # a small matrix shows as its exact constructor call
    assert repr(m) == ("Mechanism([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], inputs=[0, 1], "
                       "outputs=[0, 1, 2], name='demo')")


def test_equality_and_hash_follow_matrix_and_labels():
    a = Mechanism([[0.75, 0.25], [0.25, 0.75]], ["P", "notP"], ["Yes", "No"])
    b = warner(0.75)  # same matrix and labels, other name
    c = Mechanism([[0.75, 0.25], [0.25, 0.75]])  # other labels
    assert a == b and hash(a) == hash(b)
    assert a != c
    assert a != Mechanism([[0.7, 0.3], [0.25, 0.75]], ["P", "notP"], ["Yes", "No"])


def test_rows_summing_to_one_within_tolerance_are_kept_as_given():
    # 1e-10 off is inside the documented 1e-9 tolerance; nothing is renormalised
    row = [0.5, 0.5 + 1e-10]
    m = Mechanism([row, [0.5, 0.5]])
    assert m.matrix[0].tolist() == row


# --------------------------------------------------------------------------- then / product


def test_then_with_a_mechanism_takes_its_output_labels():
    m = Mechanism([[0.6, 0.3, 0.1], [0.1, 0.3, 0.6]], ["lo", "hi"], ["a", "b", "c"])
    merge = Mechanism([[1, 0], [1, 0], [0, 1]], ["a", "b", "c"], ["ab", "c"])
    out = m.then(merge)
    assert out.shape == (2, 2)
    assert out.inputs == ("lo", "hi")
    assert out.outputs == ("ab", "c")
    np.testing.assert_allclose(out.matrix, [[0.9, 0.1], [0.4, 0.6]], rtol=0, atol=1e-15)


def test_then_with_an_array_and_explicit_outputs():
    m = warner(0.75)
    flip = [[0.0, 1.0], [1.0, 0.0]]
    out = m.then(flip, outputs=["No'", "Yes'"])
    assert out.outputs == ("No'", "Yes'")
    np.testing.assert_array_equal(out.matrix, [[0.25, 0.75], [0.75, 0.25]])
    assert m.then(flip).outputs == (0, 1)


@settings(max_examples=60, deadline=None)
@given(stochastic_matrices(), st.data())
def test_then_is_the_matrix_product(Q, data):
    G = data.draw(stochastic_matrices((Q.shape[1], Q.shape[1]), (1, 4)))
    out = Mechanism(Q).then(G)
    assert out.shape == (Q.shape[0], G.shape[1])
    # brute force: P(z | x) = sum_y Q[x, y] G[y, z]
    for x in range(Q.shape[0]):
        for z in range(G.shape[1]):
            expected = math.fsum(Q[x, y] * G[y, z] for y in range(Q.shape[1]))
            assert out.matrix[x, z] == pytest.approx(expected, rel=1e-12, abs=1e-300)


@settings(max_examples=60, deadline=None)
@given(mechanisms(rows=(1, 3), cols=(1, 3)), mechanisms(rows=(1, 3), cols=(1, 3)))
def test_product_shape_labels_and_entries(m1, m2):
    p = m1.product(m2)
    assert p.shape == (m1.n_inputs * m2.n_inputs, m1.n_outputs * m2.n_outputs)
    assert p.inputs == tuple((a, b) for a in m1.inputs for b in m2.inputs)
    assert p.outputs == tuple((a, b) for a in m1.outputs for b in m2.outputs)
    # brute force: P((y1, y2) | (x1, x2)) = Q1[x1, y1] Q2[x2, y2], row-major
    for i, (x1, x2) in enumerate(p.inputs):
        for j, (y1, y2) in enumerate(p.outputs):
            assert p.matrix[i, j] == m1.matrix[x1, y1] * m2.matrix[x2, y2]


# --------------------------------------------------------------------------- sampling

ROW = [0.1, 0.0, 0.6, 0.3, 0.0]  # zeros at an inner and at the last position
M_SAMPLE = Mechanism([ROW, [0.0, 0.5, 0.0, 0.0, 0.5]])


def test_sample_shapes_and_types():
    assert isinstance(M_SAMPLE.sample(0), int)
    assert isinstance(M_SAMPLE.sample(np.int64(1), rng=3), int)
    x = np.array([[0, 1, 1], [1, 0, 0]])
    for rng in (None, 7):
        out = M_SAMPLE.sample(x, rng=rng)
        assert out.shape == (2, 3)
        assert out.dtype.kind == "i"
        assert ((0 <= out) & (out < 5)).all()


def test_seeded_sample_is_reproducible():
    x = np.zeros(1000, dtype=int)
    a = M_SAMPLE.sample(x, rng=123)
    b = M_SAMPLE.sample(x, rng=np.random.default_rng(123))
    np.testing.assert_array_equal(a, b)


def test_seeded_sample_follows_the_row_chi_square():
    n = 40_000
    draws = M_SAMPLE.sample(np.zeros(n, dtype=int), rng=20240601)
    counts = np.bincount(draws, minlength=5)
    assert counts[1] == 0 and counts[4] == 0  # zero-probability outputs are never drawn
    support = [0, 2, 3]
    expected = n * np.array(ROW)[support]
    # fixed seed: deterministic; the p-value of a correct sampler is far from 0
    assert stats.chisquare(counts[support], expected).pvalue > 1e-3
    second = np.bincount(M_SAMPLE.sample(np.ones(n, dtype=int), rng=5), minlength=5)
    assert second[[0, 2, 3]].sum() == 0
    assert stats.chisquare(second[[1, 4]], [n / 2, n / 2]).pvalue > 1e-3


class FixedUniform(np.random.Generator):
    """A Generator whose ``random`` returns one fixed value: probes interval boundaries."""

    def __init__(self, value: float) -> None:
        super().__init__(np.random.PCG64(0))
        self.value = value

    def random(self, size=None, dtype=np.float64, out=None):
        return np.full(size, self.value)


def test_seeded_sample_boundaries_never_hit_zero_probability_outputs():
    # inverse CDF: output y owns [cum[y-1], cum[y]); a zero column owns an empty interval
    m = Mechanism([[0.0, 0.5, 0.5, 0.0], [0.25, 0.0, 0.75, 0.0]])
    x = np.array([0, 1])
    np.testing.assert_array_equal(m.sample(x, rng=FixedUniform(0.0)), [1, 0])
    np.testing.assert_array_equal(m.sample(x, rng=FixedUniform(0.25)), [1, 2])
    np.testing.assert_array_equal(m.sample(x, rng=FixedUniform(0.5)), [2, 2])
    np.testing.assert_array_equal(m.sample(x, rng=FixedUniform(1 - 2.0**-53)), [2, 2])


def test_secure_sample_follows_the_row_loose():
    # Hoeffding: P(|f - p| >= t) <= 2 exp(-2 n t^2) per output. With n = 20000, t = 0.025
    # the bound is 2 e^-25 = 2.8e-11 per output, < 1.5e-10 for the 5 outputs together.
    n, t = 20_000, 0.025
    draws = M_SAMPLE.sample(np.zeros(n, dtype=int))
    freq = np.bincount(draws, minlength=5) / n
    assert freq[1] == 0 and freq[4] == 0
    np.testing.assert_allclose(freq, ROW, rtol=0, atol=t)


def test_sample_counts_shapes_totals_and_zero_outputs():
    rng = np.random.default_rng(11)
    one = M_SAMPLE.sample_counts([300, 700], rng=rng)
    assert one.shape == (5,)
    assert one.sum() == 1000
    batch = np.array([[300, 700], [10, 0], [0, 0]])
    out = M_SAMPLE.sample_counts(batch, rng=rng)
    assert out.shape == (3, 5)
    np.testing.assert_array_equal(out.sum(axis=-1), batch.sum(axis=-1))
    deep = M_SAMPLE.sample_counts(np.full((4, 2, 2), 50), rng=rng)
    assert deep.shape == (4, 2, 5)
    assert (deep.sum(axis=-1) == 100).all()


def test_sample_counts_per_input_follow_their_row():
    n = 100_000
    only0 = M_SAMPLE.sample_counts([n, 0], rng=3)
    assert only0[1] == 0 and only0[4] == 0  # outputs impossible for input 0
    assert stats.chisquare(only0[[0, 2, 3]], n * np.array(ROW)[[0, 2, 3]]).pvalue > 1e-3
    only1 = M_SAMPLE.sample_counts([0, n], rng=4)
    assert only1[[0, 2, 3]].sum() == 0
    mixed = M_SAMPLE.sample_counts(np.array([[n, n]] * 3), rng=5)
    expected = n * (M_SAMPLE.matrix[0] + M_SAMPLE.matrix[1])
    for survey in mixed:
        assert survey[expected == 0].sum() == 0
        assert stats.chisquare(survey[expected > 0], expected[expected > 0]).pvalue > 1e-4
