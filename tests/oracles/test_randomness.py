"""The exact coins of the frequency oracles: the alias table of a byte of 8 coins reproduces
the exact pattern probabilities (rational arithmetic), ties are broken by the rest of the
uniform, and draws follow the exact distribution (chi-square)."""

from __future__ import annotations

import math
import os
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from mechdesign.oracles.randomness import ONE, RandomWords, alias_table

SCALE = 1024  # the pattern probabilities' denominator is 2^(8 x 128)


def thresholds(numerator: int) -> tuple[list[Fraction], list[int]]:
    """Each column's keep probability and alias, read back from the returned arrays."""
    table, rest, alias = alias_table(numerator)
    cells = table.reshape(256, 256)  # [first 8 bits of U, column]
    theta = []
    for i in range(256):
        tie = np.flatnonzero(cells[:, i] >= 256)
        high = int(tie[0]) if tie.size else 256
        assert (cells[:high, i] == i).all() and (cells[high + 1:, i] == alias[i]).all()
        frac = sum(int(rest[r, i]) << (SCALE - 64 * (r + 1)) for r in range(rest.shape[0]))
        assert frac < 1 << SCALE and (high < 256 or frac == 0)
        theta.append(Fraction((high << SCALE) + frac, 256 << SCALE))
    return theta, [int(a) for a in alias]


def assert_exact(numerator: int) -> None:
    """The table's keep probabilities and aliases give each pattern its exact probability."""
    theta, alias = thresholds(numerator)
    implied = [t / 256 for t in theta]
    for i, (t, a) in enumerate(zip(theta, alias, strict=True)):
        if t < 1:
            implied[a] += (1 - t) / 256
        else:
            assert a == i
    for j in range(256):
        w = bin(j).count("1")
        exact = Fraction(numerator ** w * (ONE - numerator) ** (8 - w), ONE ** 8)
        assert implied[j] == exact, j


@pytest.mark.parametrize("numerator", [1, ONE // 2, ONE - 1, math.ceil(ONE / (1 + math.e)),
                                       ONE // 3 + 12345, 1 << 40])
def test_alias_table_gives_the_exact_pattern_probabilities(numerator: int):
    assert_exact(numerator)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, ONE - 1))
def test_alias_table_is_exact_for_any_probability(numerator: int):
    assert_exact(numerator)


class Scripted(RandomWords):
    """A source whose words are given in advance (to reach the tie path)."""

    def __init__(self, words: list[list[int]]) -> None:
        super().__init__(0)
        self.script = [np.array(w, dtype=np.uint64) for w in words]

    def words(self, count: int) -> np.ndarray:
        out = self.script.pop(0)
        assert out.size == count
        return out


def test_ties_are_decided_by_the_rest_of_the_uniform():
    numerator = math.ceil(ONE / (1 + math.e))
    _, rest, alias = alias_table(numerator)
    column = np.array([3, 3, 3, 200], dtype=np.uint16)
    b0, b1 = rest[0, column], rest[1, column]
    # below, above, equal then below at the next 64 bits, equal then above
    first = [b0[0] - np.uint64(1), b0[1] + np.uint64(1), b0[2], b0[3]]
    assert b0[0] > 0 and b0[1] < np.uint64(2**64 - 1)
    second = [b1[2] - np.uint64(1) if b1[2] else 0, b1[3] + np.uint64(1)]
    if not b1[2]:  # nothing below a zero word: equal, decided at the next level
        pytest.skip("the threshold's second word is zero for this column")
    out = Scripted([first, second])._break_ties(column, rest, alias)
    assert out.tolist() == [3, alias[3], 3, alias[200]]


def test_a_uniform_equal_to_the_threshold_is_not_below_it():
    numerator = ONE // 3
    _, rest, alias = alias_table(numerator)
    column = np.array([5], dtype=np.uint16)
    script = [[int(rest[r, 5])] for r in range(rest.shape[0])]
    assert Scripted(script)._break_ties(column, rest, alias).tolist() == [alias[5]]


@pytest.mark.parametrize("prob", [0.2689, 0.5, 1e-3, 0.97])
def test_bytes_follow_the_exact_distribution(prob: float):
    numerator = int(prob * ONE)
    count = 1_000_000
    drawn = RandomWords(11).bernoulli_bytes(numerator, count)
    q = numerator / ONE
    w = np.array([bin(j).count("1") for j in range(256)])
    expected = count * q ** w * (1 - q) ** (8 - w)
    observed = np.bincount(drawn, minlength=256)
    keep = expected > 5  # pool the rare patterns into one cell
    obs, exp = observed[keep], expected[keep]
    if not keep.all():
        obs = np.append(obs, observed[~keep].sum())
        exp = np.append(exp, expected[~keep].sum())
    assert chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 1e-4


def test_secure_bytes_and_the_edges():
    drawn = RandomWords().bernoulli_bytes(ONE // 4, 200_000)  # os.urandom
    ones = np.unpackbits(drawn).mean()
    assert abs(ones - 0.25) < 4 * math.sqrt(0.25 * 0.75 / 1_600_000)
    assert not RandomWords(1).bernoulli_bytes(0, 100).any()
    assert (RandomWords(1).bernoulli_bytes(ONE, 100) == 0xFF).all()
    assert RandomWords(1).bernoulli_bytes(ONE // 2, 3).dtype == np.uint8


@pytest.mark.parametrize("bound", [3, 10_000, 1 << 15, (1 << 15) + 1, 40_000, 1 << 31,
                                   (1 << 31) + 7, (1 << 40) + 3])
def test_below_is_uniform_for_every_cell_width(bound: int):
    # 16-bit cells up to 2^15, 32-bit up to 2^31, 64-bit words beyond: residues mod 10
    # (their exact shares of 0..bound-1 as expected counts) and halves
    draws = RandomWords(13).below(bound, 100_000)
    assert draws.dtype == np.int64 and draws.min() >= 0 and draws.max() < bound
    m = min(bound, 10)
    share = np.array([(bound - 1 - r) // m + 1 for r in range(m)], dtype=float)
    assert chisquare(np.bincount(draws % m, minlength=m), share / share.sum() * 1e5).pvalue > 1e-4
    low = np.count_nonzero(draws < bound // 2)
    assert abs(low - 1e5 * (bound // 2) / bound) < 5 * math.sqrt(2.5e4)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_never_reuses_the_parents_secure_bytes():
    # the secure source reads os.urandom ahead in blocks; a child forked after a draw (and
    # its copy of the parent's blocks) must draw fresh bytes, from an old and a new source
    source = RandomWords()
    source.words(3)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its draws, then leave without running pytest's exit
        os.close(read)
        os.write(write, source.words(64, writable=False).tobytes()
                 + RandomWords().words(64, writable=False).tobytes())
        os._exit(0)
    os.close(write)
    child = b""
    while len(child) < 2 * 512:
        chunk = os.read(read, 4096)
        assert chunk, "the child wrote nothing"
        child += chunk
    os.close(read)
    os.waitpid(pid, 0)
    mine = source.words(64).tobytes() + RandomWords().words(64).tobytes()
    blocks = [child[:512], child[512:], mine[:512], mine[512:]]
    assert len(set(blocks)) == 4  # 4 x 4096 random bits: equal only if bytes were shared


def test_threads_sharing_a_source_never_get_the_same_bytes():
    import threading

    source, drawn = RandomWords(), []

    def draw() -> None:
        drawn.extend(source.words(1, writable=False).tolist() for _ in range(2000))

    workers = [threading.Thread(target=draw) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    words = [w[0] for w in drawn]
    assert len(words) == 8000 and len(set(words)) == 8000  # 64-bit words: no repeats


class Counting(RandomWords):
    """A seeded source that counts the random words it hands out."""

    def __init__(self) -> None:
        super().__init__(17)
        self.used = 0

    def words(self, count: int, writable: bool = True) -> np.ndarray:
        self.used += count
        return super().words(count, writable)


def test_a_byte_of_coins_costs_at_most_16_25_random_bits():
    # 16 bits a draw, plus 64 for the 1 in 256 draws that tie (docs/oracles.md s.4)
    source, count = Counting(), 1 << 20
    source.bernoulli_bytes(math.ceil(ONE / (1 + math.e)), count)
    bits = 64 * source.used / count
    assert 16.0 < bits < 16.25 + 4 * 64 * math.sqrt(1 / 256 / count)


def test_bernoulli_probability():
    src = RandomWords(7)
    for prob in (0.3, 1e-3, 0.5):
        T = int(prob * ONE)
        coins = src.bernoulli(T, 400_000)
        assert abs(coins.mean() - prob) < 4 * math.sqrt(prob * (1 - prob) / 400_000)
    assert not src.bernoulli(0, 1000).any()
    assert src.bernoulli(ONE, 1000).all()


def test_below_is_uniform():
    draws = RandomWords(3).below(7, 70_000)
    counts = np.bincount(draws.astype(np.int64), minlength=7)
    assert counts.min() > 9_400 and counts.max() < 10_600  # 10000 +- 6 sd
