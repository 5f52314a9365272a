r"""Exact random draws for the frequency oracles, vectorised over respondents.

Every randomised decision of an oracle is one of two primitives, both exact:

* :meth:`RandomWords.below`: a uniform integer in ``[0, bound)`` by rejection from 64-bit
  words (a word at or above the largest multiple of ``bound`` below ``2^64`` is redrawn), so
  each value has probability exactly ``1 / bound``;
* :meth:`RandomWords.bernoulli`: a coin with probability exactly ``T / 2^B`` (an integer
  ``T``, ``B`` = :data:`PROBABILITY_BITS`), as the comparison ``U < T`` of a uniform B-bit
  integer ``U``, read most significant bit first. The comparison is bit-sliced: 64 coins
  share a word, and at bit ``i`` the coins whose ``U`` still agrees with ``T`` draw the next
  bit; a coin is decided at each bit with probability 1/2, so about 7.5 random words decide
  a word of 64 coins (instead of ``B / 64`` words per coin).

The words come from the operating system's cryptographically secure source
(:func:`os.urandom`, the default, for deployment) or from a numpy ``Generator`` (an int seed
or a Generator, for reproducible experiments; not for deployment). What a respondent's draw
does (how many words, which operations) depends on the random words only, never on the
respondent's value; like :class:`~mechdesign.sampler.ExactSampler` this is numpy-level, not
machine-level, constant time.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..mechanism import _generator

PROBABILITY_BITS = 128
"""``B``: every coin of an oracle has probability ``T / 2^128`` for an integer ``T``. At 128
bits the rounding of a probability is below ``2^-128`` absolute, far below what any
estimate can see, down to probabilities of ``e^-60`` (relative error ``3e-13``)."""

ONE = 1 << PROBABILITY_BITS
"""``2^B``: the numerator of probability 1."""

BLOCK_WORDS = 1 << 16
"""Coin words drawn per block (512 KiB of results: the block's arrays stay in cache)."""

DENSE_LEVELS = 6
"""Comparison bits drawn for every word of a block before only the open words draw: a
word of 64 coins is still open after bit i with probability ``1 - (1 - 2^-i)^64`` (0.87
after 5 bits), so compacting earlier costs more than it saves (measured: 5.6x faster than
compacting from the first bit)."""

_WORD = 64
_ALL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)


class RandomWords:
    """A source of uniform 64-bit words and the exact draws built on them.

    Parameters
    ----------
    rng : None, int or numpy Generator
        ``None``: :func:`os.urandom` (secure, for deployment). An int seed or a Generator:
        the Generator's raw 64-bit output (reproducible, for experiments).
    """

    def __init__(self, rng: Any = None) -> None:
        self._gen = None if rng is None else _generator(rng)

    @property
    def secure(self) -> bool:
        """True when the words come from the operating system's secure source."""
        return self._gen is None

    def words(self, count: int) -> np.ndarray:
        """``count`` independent uniform ``uint64`` words."""
        if self._gen is None:
            return np.frombuffer(os.urandom(8 * count), dtype=np.uint64).copy()
        return self._gen.bit_generator.random_raw(count).astype(np.uint64, copy=False)

    def below(self, bound: int, count: int) -> np.ndarray:
        """``count`` independent uniform integers in ``[0, bound)`` (``1 <= bound <= 2^63``),
        exactly: words at or above ``2^64 - (2^64 mod bound)`` are redrawn."""
        limit = np.uint64((1 << _WORD) - (1 << _WORD) % bound - 1)  # largest accepted word
        out = self.words(count)
        bad = np.flatnonzero(out > limit)
        while bad.size:  # probability below bound / 2^64 per word
            out[bad] = self.words(bad.size)
            bad = bad[out[bad] > limit]
        return out % np.uint64(bound)

    def bernoulli_words(self, numerator: int, count: int) -> np.ndarray:
        """``count`` words of 64 independent coins, each 1 with probability exactly
        ``numerator / 2^B`` (``0 <= numerator <= 2^B``).

        Coin ``j`` of a word compares a uniform B-bit integer ``U_j`` with ``numerator``,
        most significant bit first: where ``numerator`` has a 1 and ``U_j`` a 0, the coin is
        decided 1; where ``numerator`` has a 0 and ``U_j`` a 1, decided 0; where they agree
        it draws on. Coins still undecided after B bits have ``U_j = numerator``: 0. Words
        are processed in blocks of :data:`BLOCK_WORDS` (cache-sized); the first
        :data:`DENSE_LEVELS` bits are drawn for every word of a block (a word of 64 coins is
        almost surely still open there), the later ones only for the words still open.
        """
        if numerator >= ONE:
            return np.full(count, _ALL, dtype=np.uint64)
        out = np.empty(count, dtype=np.uint64)
        for start in range(0, count, BLOCK_WORDS):
            out[start:start + BLOCK_WORDS] = self._coin_block(
                numerator, min(BLOCK_WORDS, count - start))
        return out

    def _coin_block(self, numerator: int, count: int) -> np.ndarray:
        """:meth:`bernoulli_words` for one block of ``count`` words."""
        result = np.zeros(count, dtype=np.uint64)
        undecided = np.full(count, _ALL, dtype=np.uint64)
        bits = [(numerator >> i) & 1 for i in range(PROBABILITY_BITS - 1, -1, -1)]
        for bit in bits[:DENSE_LEVELS]:  # every word: bit i of each open coin's U
            u = self.words(count)
            if bit:
                result |= undecided & ~u
                undecided &= u
            else:
                undecided &= ~u
        active = np.flatnonzero(undecided)
        for bit in bits[DENSE_LEVELS:]:
            if not active.size:
                break
            u = self.words(active.size)
            open_ = undecided[active]
            if bit:
                result[active] |= open_ & ~u
                still = open_ & u
            else:
                still = open_ & ~u
            undecided[active] = still
            active = active[still != 0]
        return result

    def bernoulli(self, numerator: int, count: int) -> np.ndarray:
        """``count`` independent coins (bool) with probability exactly ``numerator / 2^B``."""
        words = self.bernoulli_words(numerator, -(-count // _WORD))
        bits = np.unpackbits(words.view(np.uint8), bitorder="little")
        return bits[:count].astype(bool)
