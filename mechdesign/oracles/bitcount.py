r"""Column counts of a packed bit matrix: how many rows set each bit, exactly, in numpy.

A bitmap report (unary encoding's, and subset selection's for large subsets) is ``k`` bits
packed little-endian into ``ceil(k/8)`` bytes; the analyst needs, for every bit ``v``, the
number of reports that set it. Unpacking
every bit to a byte and summing moves 8 bytes per bit through memory. Here the rows are
added as binary numbers held *bit-sliced*: a count of up to ``2^d - 1`` rows is ``d`` planes,
plane ``i`` holding bit ``i`` of the count of every column in the column's own bit position,
and two such counts are added by the bitwise operations of a ripple-carry adder applied to
whole arrays, 64 columns per word. Only XOR, AND and OR touch the words, so the byte order
inside a word never matters: a plane's bytes line up with the packed bytes, bit for bit.

The rows are reduced in two stages that keep the working set in the L2 cache:

* stage 1, per sub-block of ``3h`` rows: a carry-save adder turns its three thirds
  ``x, y, z`` (``h`` rows each) into the 2-plane count ``x ^ y ^ z`` (weight 1),
  ``maj(x, y, z)`` (weight 2) of ``h`` rows, straight from the caller's bytes; then a few
  halvings (the first half of the rows plus the second, bit-sliced) shrink it further;
* stage 2, once ``S`` sub-blocks have filled a buffer: halvings down to one row, the exact
  count of the ``3hS`` rows in ``D`` planes, read out by Horner's rule into int64 totals.

That is about 6 bitwise operations per 8 packed bytes, mostly on arrays of a few hundred
KiB; the additions of a few rows at the end of a halving chain cost Python calls rather than
work, and stage 2 pays them once per ``S`` sub-blocks. Rows narrower than
:data:`MIN_ROW_BYTES` are first merged, several consecutive rows into one wide row, and the
wide row's counts folded back at the end.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..errors import InvalidParameterError

__all__ = [
    "MIN_ROW_BYTES",
    "STAGE_BYTES",
    "STAGE_HALVINGS",
    "SUB_BLOCK_BYTES",
    "column_counts",
]


SUB_BLOCK_BYTES = 1 << 18
"""Packed bytes per third of a stage-1 sub-block (``h`` rows, ``h`` a power of two): 256 KiB,
the sub-block's 768 KiB and its planes stay in the 4 MiB L2 cache (measured fastest of
2^16..2^20 at 10^4 bits a row)."""

MIN_ROW_BYTES = 256
"""Rows narrower than this are merged: ``ceil(MIN_ROW_BYTES / width)`` consecutive rows,
rounded up to a whole number of words, make one wide row (the bytes of a narrow row would be
a short inner loop of every operation: 10^7 rows of 10 bits were measured many times
slower unmerged, ``benchmarks/README.md``, "Measurements behind the library's constants";
256 measured fastest of 64..4096 bytes)."""

STAGE_HALVINGS = 3
"""Halvings of a sub-block in stage 1, before its ``STAGE_HALVINGS + 2`` planes go to the
stage-2 buffer (measured fastest of 2..4)."""

STAGE_BYTES = 1 << 21
"""Bytes of the stage-2 buffer (a power-of-two number ``S`` of sub-blocks' planes; measured
fastest of 2^19..2^23)."""


def column_counts(packed: np.ndarray, k: int) -> np.ndarray:
    """How many rows of a packed bit matrix set each bit.

    Parameters
    ----------
    packed : numpy.ndarray
        ``uint8``, shape ``(n, ceil(k/8))``: bit ``v`` of a row is bit ``v % 8`` of byte
        ``v // 8`` (``np.packbits(..., bitorder="little")``). Any memory layout (a row block
        whose bytes are not adjacent is copied first). Bits at or above ``k`` in the last byte
        are ignored; callers that must refuse them check separately.
    k : int
        Number of bits per row, ``k >= 1``.

    Returns
    -------
    numpy.ndarray
        int64, shape ``(k,)``: ``out[v]`` is the number of rows with bit ``v`` set, equal to
        ``np.unpackbits(packed, axis=1, count=k, bitorder="little").sum(axis=0)``.

    Raises
    ------
    InvalidParameterError
        ``packed`` not 2-D or not ``uint8``, ``k`` not an integer >= 1, or
        ``packed.shape[1] != ceil(k/8)``.

    Notes
    -----
    Bit-sliced addition (module docstring). Nothing can overflow: the carry-save adder adds
    three 1-plane rows (at most 3) into 2 planes, a halving adds two counts of ``d`` planes
    (at most ``2^(d+1) - 2``) into ``d + 1`` planes, so the ``D`` planes of a stage-2 block
    hold its count of at most ``3hS < 2^D`` rows exactly, and the blocks' counts are summed in
    int64 (exact up to ``2^63 - 1`` rows). Temporary memory: a few MiB
    (:data:`SUB_BLOCK_BYTES`, :data:`STAGE_BYTES`; more only where three rows exceed them)
    plus an int64 array like the result. Measured several times faster than unpacking the
    bits row chunk by row chunk and summing, at 10^6 rows of 10^4 bits
    (``benchmarks/bitcount.py``; numbers in ``benchmarks/README.md``, "Frequency oracles at
    scale").
    """
    arr = np.asarray(packed)
    if arr.ndim != 2:
        raise InvalidParameterError(f"packed bits must be a 2-D array, got ndim {arr.ndim}")
    if arr.dtype != np.uint8:
        raise InvalidParameterError(f"packed bits must be uint8 bytes, got {arr.dtype}")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise InvalidParameterError(f"k must be an integer >= 1, got {k!r}")
    n, width = arr.shape
    if width != -(-int(k) // 8):
        raise InvalidParameterError(f"k = {k} bits take {-(-int(k) // 8)} bytes a row, got "
                                    f"{width}")
    if n == 0:
        return np.zeros(k, dtype=np.int64)

    merge = -(-MIN_ROW_BYTES // width)  # narrow rows are merged into wide rows
    if merge > 1:  # of whole words
        unit = 8 // math.gcd(width, 8)
        merge = -(-merge // unit) * unit
    wide = merge * width
    words = -(-wide // 8)  # a plane's row: the wide row's bytes, zero-padded to whole words
    # sub-block: 3h wide rows; stage 1 halves them m times; the stage-2 buffer holds S of those
    h = 1 << max(0, (SUB_BLOCK_BYTES // wide).bit_length() - 1)
    h = min(h, 1 << (-(-n // (3 * merge)) - 1).bit_length())  # no more than the rows need
    m = min(STAGE_HALVINGS, h.bit_length() - 1)
    out_rows = h >> m
    slots = 1 << max(0, (STAGE_BYTES // ((m + 2) * out_rows * 8 * words)).bit_length() - 1)
    slots = min(slots, 1 << (-(-n // (3 * h * merge)) - 1).bit_length())
    chain1 = [np.zeros((i + 2, h >> i, words), dtype=np.uint64) for i in range(m)]
    chain2 = []
    planes, rows = m + 2, slots * out_rows
    while rows:
        chain2.append(np.zeros((planes, rows, words), dtype=np.uint64))
        planes, rows = planes + 1, rows // 2
    gen = np.empty(max(2 * h, (m + 2) * out_rows * slots) * words // 2 + words, dtype=np.uint64)
    tmp = np.empty(max(h, out_rows * slots) * words // 2 + words, dtype=np.uint64)
    tmp8 = np.empty((h, wide), dtype=np.uint8)
    count = np.zeros(64 * words, dtype=np.int64)
    totals = np.zeros(64 * words, dtype=np.int64)

    step = 3 * h * merge
    sub_blocks = range(0, n, step)
    for j, start in enumerate(sub_blocks):
        rows3 = arr[start:start + step]
        if len(rows3) < step:
            rows3 = np.concatenate([rows3, np.zeros((step - len(rows3), width), np.uint8)])
        elif merge > 1 or rows3.strides[1] != 1:
            rows3 = np.ascontiguousarray(rows3)
        rows3 = rows3.reshape(3 * h, wide)
        slot = j % slots
        chain = [*chain1, chain2[0][:, slot * out_rows:(slot + 1) * out_rows]]
        _carry_save(rows3[:h], rows3[h:2 * h], rows3[2 * h:], chain[0], tmp8)
        for src, dst in itertools.pairwise(chain):
            _halve(src, dst, gen, tmp)
        if slot == slots - 1 or j == len(sub_blocks) - 1:
            chain2[0][:, (slot + 1) * out_rows:] = 0
            for src, dst in itertools.pairwise(chain2):
                _halve(src, dst, gen, tmp)
            count[:] = 0  # the block's count, from its planes by Horner's rule
            for plane in chain2[-1][::-1]:
                np.left_shift(count, 1, out=count)
                count += np.unpackbits(plane.view(np.uint8)[0], bitorder="little")
            totals += count
    if merge > 1:
        totals = totals[:8 * wide].reshape(merge, 8 * width).sum(axis=0)
    return totals[:k]


def _carry_save(x: np.ndarray, y: np.ndarray, z: np.ndarray, out: np.ndarray,
                tmp8: np.ndarray) -> None:
    """Planes ``out[0] = x ^ y ^ z`` and ``out[1] = maj(x, y, z)`` of ``h`` rows of bytes
    (``out``: ``(2, h, words)`` uint64, bytes past the row width left as they are)."""
    width = x.shape[1]
    low, high = out.view(np.uint8)[0, :, :width], out.view(np.uint8)[1, :, :width]
    np.bitwise_xor(x, y, out=low)
    np.bitwise_and(x, y, out=high)
    np.bitwise_and(low, z, out=tmp8)
    np.bitwise_xor(low, z, out=low)
    np.bitwise_or(high, tmp8, out=high)


def _halve(src: np.ndarray, dst: np.ndarray, gen: np.ndarray, tmp: np.ndarray) -> None:
    """``dst`` (``d + 1`` planes, ``r`` rows) = rows ``:r`` plus rows ``r:`` of ``src``
    (``d`` planes, ``2r`` rows), bit-sliced ripple-carry addition. ``gen``, ``tmp``: flat
    uint64 scratch of at least ``d r w`` and ``r w`` words."""
    planes, rows, words = src.shape[0], src.shape[1] // 2, src.shape[2]
    a, b = src[:, :rows], src[:, rows:]
    np.bitwise_xor(a, b, out=dst[:planes])  # sums before carries
    gen = gen[:planes * rows * words].reshape(planes, rows, words)
    np.bitwise_and(a, b, out=gen)  # carries generated by each plane
    tmp = tmp[:rows * words].reshape(rows, words)
    carry = gen[0]
    for i in range(1, planes):
        np.bitwise_and(dst[i], carry, out=tmp)  # carry propagated through plane i
        np.bitwise_xor(dst[i], carry, out=dst[i])
        np.bitwise_or(gen[i], tmp, out=gen[i])
        carry = gen[i]
    dst[planes] = carry
