"""Tests of :mod:`mechdesign._html`: the helpers behind every value's ``__repr__`` and
``_repr_html_`` (the values themselves are held in tests/test_reprs.py).

Pinned, each rule of the module docstring on the helper that implements it: a number is
written as its repr (it reads back to the same float) or marked ``~`` when rounded; texts
and lists are cut with ``...`` to their limits, a list keeping its first items and its last;
reprs are at most MAX_REPR characters; a small matrix's repr is the exact constructor call;
every label is escaped; a matrix past MAX_SHOWN rows or columns is cut, the caption stating
the full size, each cell showing 4 significant digits with the exact value as its tooltip;
tables leave out None rows; a figure falls back to HTML without matplotlib; ``value_view``
gives a dataclass a short repr (a large array by its shape) unless it wrote its own.
"""

from __future__ import annotations

import ast
import dataclasses
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechdesign._html import (
    LABEL_CHARS,
    LIST_CHARS,
    MAX_REPR,
    MAX_SHOWN,
    approx,
    clip,
    escape,
    figure_html,
    items_text,
    kv_table,
    matrix_repr,
    matrix_table,
    number,
    series_table,
    set_text,
    shown_indices,
    value_view,
)


# ------------------------------------------------------------------------------ text
@given(st.floats(allow_nan=False))
def test_a_number_reads_back_to_the_same_float(x):
    assert float(number(x)) == x
    assert float(number(np.float64(x))) == x


def test_number_and_approx():
    assert number(np.int64(3)) == "3" and number(True) == "True" and number(None) == "None"
    assert number(np.float32(0.1)) == repr(float(np.float32(0.1)))  # the stored value
    assert approx(0.0052345) == "~0.00523" and approx(123456.0, 2) == "~1.2e+05"
    assert approx(0.0) == "0.0" and approx(float("inf")) == "inf"


def test_clip():
    assert clip("abcdef", 6) == "abcdef"
    assert clip("abcdef", 5) == "ab..." and len(clip("x" * 500, 60)) == 60


def test_items_text_keeps_the_first_items_and_the_last():
    assert items_text(["a", "b"]) == "['a', 'b']"
    long = list(range(100))
    text = items_text(long, repr)
    assert len(text) <= LIST_CHARS and text.startswith("[0, 1, 2") and text.endswith(", ..., 99]")
    one = items_text(["y" * 100])  # one label: cut to LABEL_CHARS, never elided
    assert one == "[" + clip(repr("y" * 100), LABEL_CHARS) + "]"


def test_set_text_follows_the_given_order():
    assert set_text({"No", "Yes"}, ["Yes", "No", "DK"]) == "{'Yes', 'No'}"


def test_small_matrix_repr_is_the_exact_constructor_call():
    Q = np.array([[0.75, 0.25], [1 / 3, 2 / 3]])
    text = matrix_repr("Mechanism", Q, [("inputs", ["a", "b"], repr), ("outputs", None, repr)],
                       name="w")
    assert text == ("Mechanism([[0.75, 0.25], [0.3333333333333333, 0.6666666666666666]], "
                    "inputs=['a', 'b'], name='w')")
    call = ast.parse(text, mode="eval").body  # the floats read back exactly
    assert np.array_equal(np.array(ast.literal_eval(call.args[0])), Q)


def test_large_matrix_repr_names_its_shape_and_stays_short():
    Q = np.full((40, 40), 1 / 40)
    labels = [f"label number {i}" for i in range(40)]
    text = matrix_repr("Mechanism", Q, [("inputs", labels, repr)], name="big" * 30)
    assert len(text) <= MAX_REPR and text.startswith("<Mechanism '")
    assert " 40x40, inputs=[" in text and text.endswith("; values: .matrix>")


# ------------------------------------------------------------------------------ HTML
def test_escape_and_kv_table():
    assert escape("<b>&") == "&lt;b&gt;&amp;"
    assert len(escape("z" * 1000)) == 4 * LABEL_CHARS
    table = kv_table([("a<", 1.5), ("skipped", None), ("list", ["x>", "y"]), ("empty", [])],
                     caption="C&")
    assert "skipped" not in table and "<caption" in table and "C&amp;" in table
    assert "<th style=\"text-align:left;padding-right:1em;\">a&lt;</th>" in table
    assert "<li>x&gt;</li><li>y</li>" in table and ">none</td>" in table


def test_shown_indices():
    assert shown_indices(MAX_SHOWN) == list(range(MAX_SHOWN))
    assert shown_indices(20) == [*range(10), None, 19]


def test_matrix_table_cuts_and_states_the_full_size():
    Q = np.arange(60, dtype=float).reshape(20, 3) / 1770 * 3
    table = matrix_table(Q, [f"<r{i}>" for i in range(20)], ["a", "b", "c"], "Q")
    assert "Q: 20 inputs x 3 outputs (showing 11 x 3; ... marks the rest)" in table
    assert table.count("<tr><th>...</th>") == 1 and "&lt;r19&gt;" in table
    assert "&lt;r10&gt;" not in table  # rows 10..18 are cut
    v = float(Q[1, 1])
    assert f'title="{v!r}">{v:.4g}</td>' in table  # 4 digits shown, the exact value kept
    small = matrix_table(np.eye(2), ["x", "y"], ["p", "q"], "I", "rows", "cols")
    assert "I: 2 rows x 2 cols</caption>" in small and "showing" not in small


def test_series_table():
    table = series_table([("eps", [0.1, 0.2] * 10), ("name", ["a<"] * 20)], "curve", limit=5)
    assert "curve (20 rows)" in table and table.count("<tr>") == 1 + 5
    assert "&lt;" in table and ">0.1</td>" in table


def test_figure_html_falls_back_without_matplotlib():
    def draw():
        raise ImportError("no matplotlib")

    assert figure_html(draw, lambda: "<p>table</p>", "alt") == "<p>table</p>"


# ------------------------------------------------------------------------------ value_view
@value_view
@dataclasses.dataclass(frozen=True)
class Result:
    value: float
    loss: np.ndarray
    weights: np.ndarray
    note: str = ""
    hidden: int = dataclasses.field(default=0, repr=False)


@value_view
@dataclasses.dataclass(frozen=True)
class OwnRepr:
    value: float

    def __repr__(self) -> str:
        return "mine"


def test_value_view_gives_a_short_repr_and_a_field_table():
    r = Result(0.1 + 0.2, np.zeros((30, 30)), np.array([0.5, 0.25]), note="n" * 300)
    text = repr(r)
    assert text.startswith("Result(value=0.30000000000000004, loss=<30x30 array>, "
                           "weights=[0.5, 0.25], note='nnn")
    assert len(text) <= MAX_REPR and "hidden" not in text
    html = r._repr_html_()
    assert "<caption" in html and ">Result</caption>" in html and "hidden" not in html
    assert re.search(r"30x30 array: \[0\.0, 0\.0, .*\.\.\., 0\.0\]", html)
    assert repr(OwnRepr(1.0)) == "mine" and "<table" in OwnRepr(1.0)._repr_html_()


@pytest.mark.parametrize("limit", [5, 12])
def test_series_table_shows_all_rows_up_to_the_limit(limit):
    table = series_table([("x", list(range(limit)))], "c", limit=limit)
    assert table.count("<tr>") == 1 + limit and "..." not in table
