"""column_counts against unpacking every bit and summing, on random matrices of every shape
and layout, on more rows than a block holds, and on its typed errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechdesign.errors import InvalidParameterError
from mechdesign.oracles import bitcount
from mechdesign.oracles.bitcount import column_counts


def reference(packed: np.ndarray, k: int) -> np.ndarray:
    return np.unpackbits(packed, axis=1, count=k, bitorder="little").sum(axis=0)


def random_bytes(seed: int, shape: tuple[int, int]) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)


def check(packed: np.ndarray, k: int) -> None:
    out = column_counts(packed, k)
    assert out.dtype == np.int64 and out.shape == (k,)
    np.testing.assert_array_equal(out, reference(np.ascontiguousarray(packed), k))


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of a few rows, so that short inputs cross sub-block and stage-2 boundaries."""
    monkeypatch.setattr(bitcount, "SUB_BLOCK_BYTES", 64)
    monkeypatch.setattr(bitcount, "STAGE_BYTES", 512)
    monkeypatch.setattr(bitcount, "MIN_ROW_BYTES", 16)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 600), k=st.integers(1, 300), seed=st.integers(0, 2**32 - 1))
def test_random_matrices(n, k, seed):
    # bytes are random up to the last: bits at or above k are set too, and ignored
    check(random_bytes(seed, (n, -(-k // 8))), k)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(0, 300), k=st.integers(1, 300), seed=st.integers(0, 2**32 - 1),
       layout=st.sampled_from(["fortran", "every_other_row", "reversed", "column_slice"]))
def test_layouts(n, k, seed, layout):
    width = -(-k // 8)
    if layout == "fortran":
        packed = np.asfortranarray(random_bytes(seed, (n, width)))
    elif layout == "every_other_row":
        packed = random_bytes(seed, (2 * n, width))[::2]
    elif layout == "reversed":
        packed = random_bytes(seed, (n, width))[::-1, ::-1]
    else:
        packed = random_bytes(seed, (n, width + 5))[:, 3:3 + width]
    check(packed, k)


@pytest.mark.parametrize("k", [1, 7, 8, 9, 64, 65, 100, 1000, 10_003])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 97, 1000])
def test_block_boundaries(small_blocks, n, k):
    check(random_bytes(n * k, (n, -(-k // 8))), k)


@pytest.mark.parametrize("k", [3, 64, 203])
def test_default_blocks_past_one_stage(k):
    # enough rows for several sub-blocks and stage-2 blocks at the real block sizes
    n = 3 * 2 * bitcount.STAGE_BYTES // -(-k // 8)
    check(random_bytes(k, (n, -(-k // 8))), k)


@pytest.mark.parametrize("k", [5, 16, 123])
def test_more_rows_than_any_capacity(k):
    # all ones, 70,000 rows: every count exactly 70,000 (beyond 8- and 16-bit lanes)
    packed = np.full((70_000, -(-k // 8)), 0xFF, dtype=np.uint8)
    np.testing.assert_array_equal(column_counts(packed, k), np.full(k, 70_000))


def test_many_blocks_all_ones(small_blocks):
    packed = np.full((70_000, 2), 0xFF, dtype=np.uint8)
    np.testing.assert_array_equal(column_counts(packed, 13), np.full(13, 70_000))


def test_high_bits_of_last_byte_ignored():
    k = 13
    packed = np.zeros((50, 2), dtype=np.uint8)
    packed[:, 1] = 0xE0  # bits 13..15 of every row: above k
    packed[:7, 0] = 0b101
    np.testing.assert_array_equal(column_counts(packed, k),
                                  [7, 0, 7] + [0] * 10)


def test_no_rows():
    out = column_counts(np.zeros((0, 4), dtype=np.uint8), 30)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, np.zeros(30))


def test_integer_k_types():
    packed = random_bytes(3, (40, 3))
    np.testing.assert_array_equal(column_counts(packed, np.int64(20)), reference(packed, 20))


@pytest.mark.parametrize(("packed", "k", "message"), [
    (np.zeros((4, 2), dtype=np.int64), 16, "int64"),
    (np.zeros((4, 2), dtype=bool), 16, "bool"),
    (np.zeros((4, 3), dtype=np.uint8), 16, "got 3"),
    (np.zeros((4, 1), dtype=np.uint8), 9, "got 1"),
    (np.zeros(4, dtype=np.uint8), 8, "ndim 1"),
    (np.zeros((2, 2, 2), dtype=np.uint8), 16, "ndim 3"),
    (np.zeros((4, 1), dtype=np.uint8), 0, "got 0"),
    (np.zeros((4, 1), dtype=np.uint8), 2.0, "got 2.0"),
    (np.zeros((4, 1), dtype=np.uint8), True, "got True"),
])
def test_typed_errors(packed, k, message):
    with pytest.raises(InvalidParameterError, match=message):
        column_counts(packed, k)
