"""Tests of :mod:`mechdesign.io.survey`: survey files (respondents' values, their reports,
and the randomizer that links them).

Pinned: reports written by ``format_reports`` read back identically for every oracle
family and for a labelled mechanism; a unary report's bit v is bit v % 8 of byte v // 8
(the documented layout, checked on a hand-written report); the header names the
randomizer and reports for another one are refused; ``load_randomizer`` reads an oracle
description, the JSON of ``solve --json`` and mechanism files; values and integer reports
are ASCII digits, range-checked; hex reports are ASCII hex with zero padding bits; a
leading byte-order mark is dropped; empty files are refused. Errors name the file and line,
never the data (the file policy of tests/io/test_file_policy.py).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import mechdesign as md
from mechdesign import Mechanism
from mechdesign.errors import FileFormatError
from mechdesign.io.survey import (
    HEADER,
    describe,
    format_reports,
    load_randomizer,
    read_reports,
    read_values,
)
from mechdesign.oracles import (
    HadamardResponse,
    LocalHashing,
    RandomizedResponse,
    SubsetSelection,
    UnaryEncoding,
    oracle,
)
from tests.io.files import BOM, message, write

# ------------------------------------------------------------ round trips and layout
ORACLES = [RandomizedResponse(7, 1.0), UnaryEncoding(12, 1.0),
           UnaryEncoding(12, 1.0, optimized=True), SubsetSelection(40, 1.0, d=2),
           SubsetSelection(20, 1.0, d=4), HadamardResponse(9, 1.0), LocalHashing(10, 1.0)]


@pytest.mark.parametrize("o", ORACLES, ids=repr)
def test_reports_read_back_as_written(tmp_path, o):
    reports = o.sample(np.arange(30) % o.k, rng=3)
    text = format_reports(o, reports)
    assert text.splitlines()[0] == HEADER + repr(o) == HEADER + describe(o)
    back = read_reports(write(tmp_path, "r.txt", text), o)
    np.testing.assert_array_equal(back, reports)
    np.testing.assert_array_equal(o.estimate(back), o.estimate(reports))


def test_a_mechanisms_reports_are_its_output_labels(tmp_path):
    w = md.warner(0.75)  # inputs ('P', 'notP'), outputs ('Yes', 'No')
    text = format_reports(w, np.array([0, 1, 1]))
    assert text == "# randomizer: mechanism warner(0.75) 2x2\nYes\nNo\nNo\n"
    np.testing.assert_array_equal(read_reports(write(tmp_path, "r.txt", text), w), [0, 1, 1])
    np.testing.assert_array_equal(read_values(write(tmp_path, "v.txt", "notP\nP\n"), w), [1, 0])
    with pytest.raises(FileFormatError, match=r"r\.txt line 2: not one of the mechanism's 2 "
                                              r"output labels") as info:
        read_reports(write(tmp_path, "r.txt", "Yes\nMaybe\n"), w)
    assert "Maybe" not in message(info)
    assert describe(Mechanism([[0.5, 0.5], [0.5, 0.5]])) == "mechanism unnamed 2x2"


def test_a_unary_reports_bit_v_is_bit_v_mod_8_of_byte_v_div_8(tmp_path):
    # values 0 and 9 of k = 12: byte 0 = 0b0000_0001, byte 1 = 0b0000_0010, "0102"
    o = UnaryEncoding(12, 1.0)
    text = format_reports(o, np.array([[0b1, 0b10]], dtype=np.uint8))
    assert text.splitlines()[1] == "0102"
    support = o.support_counts(read_reports(write(tmp_path, "r.txt", text), o))
    np.testing.assert_array_equal(np.flatnonzero(support), [0, 9])


def test_reports_for_another_randomizer_or_of_the_wrong_width_are_refused(tmp_path):
    o = LocalHashing(10, 1.0)
    text = format_reports(o, o.sample([1, 2], rng=1))
    with pytest.raises(FileFormatError, match=r"r\.txt line 1: the reports were written for "
                                              r"another randomizer than LocalHashing\(k=10, "
                                              r"epsilon=2\.0"):
        read_reports(write(tmp_path, "r.txt", text), LocalHashing(10, 2.0))
    with pytest.raises(FileFormatError, match=r"r\.txt line 2: 2 fields, expected 3"):
        read_reports(write(tmp_path, "r.txt", "1 2 0\n3 1\n"), o)
    with pytest.raises(FileFormatError, match=r"r\.txt line 1: 1 bytes, expected 2"):
        read_reports(write(tmp_path, "r.txt", "0f\n"), UnaryEncoding(12, 1.0))
    with pytest.raises(FileFormatError, match="no such reports file"):
        read_reports(tmp_path / "missing.txt", o)


def test_load_randomizer_reads_oracles_solve_records_and_mechanism_files(tmp_path):
    o = LocalHashing(10, 1.0)
    assert load_randomizer(write(tmp_path, "o.json", json.dumps(o.to_dict()))) == o
    record = {"status": "optimal", "mechanism": None, "oracle": o.to_dict()}
    assert load_randomizer(write(tmp_path, "s.json", json.dumps(record))) == o
    md.save_mechanism(md.warner(0.75), tmp_path / "w.csv")
    np.testing.assert_allclose(load_randomizer(tmp_path / "w.csv").matrix,
                               md.warner(0.75).matrix, rtol=0, atol=1e-15)
    md.save_mechanism(md.dont_know(0.6, 0.2), tmp_path / "dk.json")
    dk = load_randomizer(tmp_path / "dk.json")  # an evidential file: read over its messages
    assert isinstance(dk, Mechanism) and dk.shape == (2, 3)
    np.testing.assert_allclose(dk.matrix, md.dont_know(0.6, 0.2).masses, atol=1e-15)


# ------------------------------------------------------------ strict integers
@pytest.fixture
def olh():
    return oracle("local_hashing", k=40, epsilon=1.0)


@pytest.mark.parametrize(("text", "match"), [
    ("3\n1_0\n", r"v\.txt line 2: not an integer value \(ASCII digits 0-9 only\)"),
    ("3\n\u0661\n", r"v\.txt line 2: not an integer value"),              # Arabic-Indic 1
    ("99999999999999999999999999\n", r"v\.txt line 1: value outside 0\.\.39 \(an integer "
                                      r"of 26 digits\)"),
    ("1" * 100_000 + "\n", r"v\.txt line 1: value outside 0\.\.39 \(an integer of 100000"),
], ids=["underscore", "arabic-indic", "26-digits", "100000-digits"])
def test_values_are_integers_of_ascii_digits_range_checked(tmp_path, olh, text, match):
    path = write(tmp_path, "v.txt", text)
    with pytest.raises(FileFormatError, match=match) as info:
        read_values(path, olh)
    assert "9999" not in message(info) and "1_0" not in message(info)


@pytest.mark.parametrize(("text", "match"), [
    ("1_0\n", r"r\.txt line 1: not 1 integers \(field 1 is not ASCII digits\)"),
    ("\u0663\n", r"r\.txt line 1: not 1 integers"),
    ("99999999999999999999999\n", r"r\.txt line 1: not 1 integers \(field 1, of 23 digits, "
                                  r"is outside the 64-bit range\)"),
])
def test_integer_reports_are_strict(tmp_path, text, match):
    krr = oracle("randomized_response", k=20, epsilon=1.0)
    with pytest.raises(FileFormatError, match=match):
        read_reports(write(tmp_path, "r.txt", text), krr)


# ------------------------------------------------------------ report padding bits, BOM
@pytest.mark.parametrize(("family", "params", "line", "width"), [
    ("unary_encoding", {"k": 4, "optimized": True}, "ff", 1),
    ("unary_encoding", {"k": 12}, "ff1f", 2),
    ("subset_selection", {"k": 20, "d": 4}, "0f00f0", 3),
], ids=["oue-k4", "sue-k12", "ss-bitmap-k20"])
def test_report_bits_past_k_are_refused(tmp_path, family, params, line, width):
    o = oracle(family, epsilon=1.0, **params)
    assert o.packed and o.report_width == width
    good = format_reports(o, o.sample(np.arange(3) % o.k, rng=0))
    path = write(tmp_path, "r.txt", good + line + "\n")
    k = params["k"]
    with pytest.raises(FileFormatError, match=rf"r\.txt line 5: report 3 sets a bit at or "
                                              rf"above k = {k} \(bits {k}\.\.{8 * width - 1} "
                                              r"are padding"):
        read_reports(path, o)
    assert read_reports(write(tmp_path, "ok.txt", good), o).shape == (3, width)


def test_hex_reports_are_ascii_hex_only(tmp_path):
    o = oracle("unary_encoding", k=16, epsilon=1.0)
    for text in ("0f 00\n", "0f\t00\n"):  # bytes.fromhex skips spaces inside a report
        with pytest.raises(FileFormatError, match=r"r\.txt line 1: not hexadecimal"):
            read_reports(write(tmp_path, "r.txt", text), o)
    np.testing.assert_array_equal(read_reports(write(tmp_path, "r.txt", "0F00\n"), o),
                                  [[15, 0]])


def test_a_bom_before_the_reports_header_is_dropped(tmp_path):
    o = oracle("unary_encoding", k=8, epsilon=1.0)
    text = format_reports(o, o.sample(np.arange(8), rng=1))
    path = write(tmp_path, "r.txt", BOM + text.encode())
    np.testing.assert_array_equal(read_reports(path, o), o.sample(np.arange(8), rng=1))
    other = oracle("unary_encoding", k=8, epsilon=2.0)
    with pytest.raises(FileFormatError, match="written for another randomizer"):
        read_reports(path, other)  # the BOM hid the header line, and the check with it


def test_a_bom_before_the_first_value_is_dropped(tmp_path, olh):
    path = write(tmp_path, "v.txt", BOM + b"3\n5\n")
    np.testing.assert_array_equal(read_values(path, olh), [3, 5])
    labelled = Mechanism([[0.75, 0.25], [0.25, 0.75]], inputs=["yes", "no"])
    path = write(tmp_path, "l.txt", BOM + b"no\nyes\n")
    np.testing.assert_array_equal(read_values(path, labelled), [1, 0])


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", BOM.decode() + "\n"],
                         ids=["empty", "blank", "comment", "bom"])
def test_empty_values_and_reports_files_are_refused(tmp_path, olh, text):
    path = write(tmp_path, "v.txt", text)
    with pytest.raises(FileFormatError, match=r"^v\.txt: no values"):
        read_values(path, olh)
    with pytest.raises(FileFormatError, match=r"^v\.txt: no reports"):
        read_reports(path, olh)
