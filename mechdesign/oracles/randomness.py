r"""Exact random draws for the frequency oracles, vectorised over respondents.

Every randomised decision of an oracle is one of two primitives, both exact:

* :meth:`RandomWords.below`: a uniform integer in ``[0, bound)`` by rejection from 16-, 32-
  or 64-bit cells (a cell at or above the largest multiple of ``bound`` it holds is
  redrawn), so each value has probability exactly ``1 / bound``;
* :meth:`RandomWords.bernoulli_bytes`: bytes of 8 coins, each with probability exactly
  ``T / 2^B`` (an integer ``T``, ``B`` = :data:`PROBABILITY_BITS`). The 256 patterns of a
  byte have the exact dyadic probabilities ``T^w (2^B - T)^(8-w) / 2^(8B)`` (w ones), and a
  byte is drawn by Walker's alias method with those probabilities (Vose's construction in
  exact integers): a uniform column ``i`` in 0..255 keeps ``i`` with probability
  ``theta_i`` and otherwise gives its alias. The comparison ``U < theta_i`` reads the
  uniform ``U`` 8 bits at a time: one 16-bit draw (column + first 8 bits of ``U``) decides
  the byte through a 65,536-entry table unless those 8 bits equal the first 8 of
  ``theta_i`` (probability 1/256), and then 64 more bits of ``U`` at a time are compared
  with the rest of ``theta_i``, exactly. At most 16.25 random bits make 8 coins on average
  (16 + 64/256; about 2 bits a coin, the earlier bit-sliced comparison took 7.5).

The words come from the operating system's cryptographically secure source
(:func:`os.urandom`, the default, for deployment; read ahead by a background thread, never
across a fork) or from a numpy ``Generator`` (an int seed
or a Generator, for reproducible experiments; not for deployment). What a respondent's draw
does (how many words, which operations) depends on the random words only, never on the
respondent's value; like :class:`~mechdesign.sampler.ExactSampler` this is numpy-level, not
machine-level, constant time.
"""

from __future__ import annotations

import functools
import os
import queue
import threading
from typing import Any

import numpy as np

from ..mechanism import _generator

__all__ = [
    "BLOCK_CELLS",
    "ONE",
    "PATTERN_BITS",
    "POOL_BYTES",
    "POOL_DEPTH",
    "PROBABILITY_BITS",
    "RandomWords",
    "alias_table",
]


PROBABILITY_BITS = 128
"""``B``: every coin of an oracle has probability ``T / 2^128`` for an integer ``T``. At 128
bits the rounding of a probability is below ``2^-128`` absolute, far below what any
estimate can see, down to probabilities of ``e^-60`` (relative error ``3e-13``)."""

ONE = 1 << PROBABILITY_BITS
"""``2^B``: the numerator of probability 1."""

POOL_BYTES = 1 << 20
"""Secure bytes per block read ahead for small requests (1 MiB)."""

POOL_DEPTH = 8
"""Blocks the reading thread keeps ready (8 MiB at most)."""

PATTERN_BITS = 8
"""Coins per pattern: one byte."""

BLOCK_CELLS = 1 << 16
"""16-bit draws per block of :meth:`RandomWords.bernoulli_bytes` (128 KiB of draws, and the
table, stay in cache; measured fastest of 2^14..2^18)."""

_TIE = 1 << PATTERN_BITS  # table entries >= _TIE: a tie in column (entry - _TIE)
_PATTERN_SCALE = PROBABILITY_BITS * PATTERN_BITS  # pattern probabilities are / 2^1024
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
        self._pool, self._used, self._pid = b"", 0, os.getpid()  # secure bytes read ahead
        self._lock = threading.Lock()  # one instance shared by threads never repeats a byte

    @property
    def secure(self) -> bool:
        """True when the words come from the operating system's secure source."""
        return self._gen is None

    def words(self, count: int, writable: bool = True) -> np.ndarray:
        """``count`` independent uniform ``uint64`` words (``writable=False``: possibly a
        read-only view of the operating system's bytes, one copy fewer)."""
        if self._gen is None:
            raw = self._secure(8 * count)
            return raw.copy() if writable else raw
        return self._gen.bit_generator.random_raw(count).astype(np.uint64, copy=False)

    def _secure(self, size: int) -> np.ndarray:
        """``size`` bytes of :func:`os.urandom` as ``uint64`` words (read-only). Requests up
        to a quarter of :data:`POOL_BYTES` are served from blocks that a background thread
        reads ahead (:func:`_read_ahead`), each byte used once: the system calls then run
        on the other core while this one computes. A block is never used in another process
        than the one that read it (a forked child starts afresh)."""
        if size > POOL_BYTES // 4:
            return np.frombuffer(os.urandom(size), dtype=np.uint64)
        with self._lock:
            if self._used + size > len(self._pool) or self._pid != os.getpid():
                self._pool, self._used, self._pid = _read_ahead().get(), 0, os.getpid()
            pool, start, self._used = self._pool, self._used, self._used + size
        return np.frombuffer(pool, dtype=np.uint64, count=size // 8, offset=start)

    def below(self, bound: int, count: int) -> np.ndarray:
        """``count`` independent uniform integers in ``[0, bound)`` (``1 <= bound <= 2^63``,
        int64), exactly, by rejection: from 16-bit cells when ``bound <= 2^15``, 32-bit
        cells when ``bound <= 2^31``, else 64-bit words (so fewer than half the cells are
        redrawn, and a small bound costs 2 random bytes, not 8); a cell at or above the
        largest multiple of ``bound`` it holds is redrawn."""
        bits = next(b for b in (16, 32, 64) if bound <= 1 << (b - 1) or b == _WORD)
        span = 1 << bits
        limit = span - span % bound - 1  # largest accepted cell
        out = self.cells(bits, count)
        bad = np.flatnonzero(out > limit)
        while bad.size:  # each cell is redrawn with probability below 1/2
            out[bad] = self.cells(bits, bad.size)
            bad = bad[out[bad] > limit]
        return (out % out.dtype.type(bound)).astype(np.int64)

    def cells(self, bits: int, count: int) -> np.ndarray:
        """``count`` independent uniform unsigned integers of ``bits`` bits (16, 32 or 64)."""
        per_word = _WORD // bits
        drawn = self.words(-(-count // per_word)).view(f"<u{bits // 8}")
        return drawn[:count]

    def bernoulli_bytes(self, numerator: int, count: int,
                        out: np.ndarray | None = None) -> np.ndarray:
        """``count`` bytes of 8 independent coins (``uint8``), each 1 with probability exactly
        ``numerator / 2^B`` (``0 <= numerator <= 2^B``); bit ``j`` of a byte is coin ``j``.
        ``out``: a contiguous ``uint8`` array of ``count`` bytes to write them into.

        A byte is one draw of the exact alias table of :func:`alias_table` (module
        docstring): a uniform 16-bit cell (low byte: the column, high byte: the first 8
        bits of ``U``) looked up in the table, and, for the cells that tie with the
        column's threshold, 64 further bits of ``U`` at a time compared with the rest of
        it. Processed in blocks of :data:`BLOCK_CELLS` draws.
        """
        out = np.empty(count, dtype=np.uint8) if out is None else out
        if numerator <= 0 or numerator >= ONE:
            out[:] = 0xFF if numerator >= ONE else 0
            return out
        table, rest, alias = alias_table(numerator)
        drawn = np.empty(BLOCK_CELLS, dtype=np.uint16)
        for start in range(0, count, BLOCK_CELLS):
            size = min(BLOCK_CELLS, count - start)
            cells = self.words(-(-size // 4), writable=False).view("<u2")[:size]
            block = np.take(table, cells, out=drawn[:size], mode="clip")
            ties = np.flatnonzero(block >= _TIE)
            if ties.size:
                block[ties] = self._break_ties(block[ties] - _TIE, rest, alias)
            out[start:start + size] = block
        return out

    def _break_ties(self, column: np.ndarray, rest: np.ndarray, alias: np.ndarray) -> np.ndarray:
        """The patterns of tied draws: keep ``column`` where the rest of ``U`` (fresh words,
        64 bits at a time) is below the rest of the column's threshold, else its alias; a
        ``U`` that equals the threshold on all its bits is not below it."""
        keep = np.zeros(column.size, dtype=bool)
        open_ = np.arange(column.size)
        for level in rest:
            if not open_.size:
                break
            word, bound = self.words(open_.size), level[column[open_]]
            keep[open_] = word < bound
            open_ = open_[word == bound]
        return np.where(keep, column, alias[column]).astype(np.uint16)

    def bernoulli(self, numerator: int, count: int) -> np.ndarray:
        """``count`` independent coins (bool) with probability exactly ``numerator / 2^B``."""
        coins = self.bernoulli_bytes(numerator, -(-count // PATTERN_BITS))
        bits = np.unpackbits(coins, bitorder="little")
        return bits[:count].astype(bool)


@functools.lru_cache(maxsize=64)
def alias_table(numerator: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The exact alias table of a byte of 8 coins of probability ``numerator / 2^B``.

    Pattern ``j`` (``w`` ones) has probability ``P_j = T^w (2^B - T)^{8-w} / 2^{8B}``. Vose's
    construction, in integers scaled by ``2^{8B}`` so that nothing is rounded, gives each
    column ``i`` a threshold ``theta_i`` and an alias ``a_i`` with

    .. math:: P_j = \frac{1}{256} \Big(\theta_j + \sum_{i: a_i = j} (1 - \theta_i)\Big).

    Returns
    -------
    table : uint16 array of 65,536 entries
        For the cell ``c`` (column ``i = c mod 256``, first 8 bits of ``U`` ``v = c // 256``):
        ``i`` when ``v < h_i``, ``a_i`` when ``v > h_i``, and ``256 + i`` (a tie) when
        ``v = h_i``, with ``h_i = floor(256 theta_i)``; ``U`` in ``[v/256, (v+1)/256)``
        is then below ``theta_i``, above it, or undecided.
    rest : uint64 array of shape (16, 256)
        Row ``r``: bits ``64 r .. 64 r + 63`` of the fraction ``256 theta_i - h_i`` (the
        comparison after a tie).
    alias : uint16 array of 256 entries
    """
    scale = 1 << _PATTERN_SCALE
    ones = [bin(j).count("1") for j in range(1 << PATTERN_BITS)]
    weight = [(numerator ** w) * ((ONE - numerator) ** (PATTERN_BITS - w)) << PATTERN_BITS
              for w in ones]  # 256 P_j scaled by 2^(8B): the columns' capacity is `scale`
    theta, alias = [scale] * len(weight), list(range(len(weight)))
    small = [j for j, w in enumerate(weight) if w < scale]
    large = [j for j, w in enumerate(weight) if w >= scale]
    while small and large:
        s, g = small.pop(), large.pop()
        theta[s], alias[s] = weight[s], g
        weight[g] -= scale - weight[s]
        (small if weight[g] < scale else large).append(g)
    high = [(t << PATTERN_BITS) >> _PATTERN_SCALE for t in theta]
    frac = [(t << PATTERN_BITS) - (h << _PATTERN_SCALE) for t, h in zip(theta, high, strict=True)]
    rows = _PATTERN_SCALE // _WORD
    rest = np.array([[(f >> (_PATTERN_SCALE - _WORD * (r + 1))) & int(_ALL) for f in frac]
                     for r in range(rows)], dtype=np.uint64)
    cell = np.arange(1 << (2 * PATTERN_BITS))
    column, first = cell & 0xFF, cell >> PATTERN_BITS
    h, a = np.array(high)[column], np.array(alias)[column]
    table = np.where(first < h, column, np.where(first > h, a, _TIE + column))
    return table.astype(np.uint16), rest, np.array(alias, dtype=np.uint16)


_AHEAD: dict[int, queue.Queue] = {}  # process id -> its queue of blocks read ahead
_AHEAD_LOCK = threading.Lock()


def _read_ahead() -> queue.Queue:
    """This process's queue of :func:`os.urandom` blocks, filled by one daemon thread
    (started on first use; a forked child, which has no such thread and must not reuse its
    parent's blocks, gets its own queue and thread)."""
    pid = os.getpid()
    with _AHEAD_LOCK:
        if pid not in _AHEAD:
            _AHEAD.clear()  # a parent's queue, copied by fork: its blocks are the parent's
            blocks: queue.Queue = queue.Queue(maxsize=POOL_DEPTH)
            threading.Thread(target=_fill, args=(blocks,), daemon=True,
                             name="mechdesign-urandom").start()
            _AHEAD[pid] = blocks
        return _AHEAD[pid]


def _fill(blocks: queue.Queue) -> None:
    """Keep ``blocks`` full of fresh :func:`os.urandom` blocks (it blocks while full)."""
    while True:
        blocks.put(os.urandom(POOL_BYTES))
