"""Strict file reading: every reader drops a leading byte-order mark,
reads numbers and integers strictly, never takes a row with a number for a header, refuses
duplicate JSON keys, report padding bits, empty files and oversized TOML before parsing,
and names errors in one style (file, 1-based row/line and column).

Messages never quote the offending cell (the file policy of tests/io/test_file_policy.py:
no error message contains data read from a file, and values files hold respondents' data);
they say what kind of text is wrong instead, and each test below checks both. (The same
rules for survey values and reports files: tests/io/test_survey.py.)
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechdesign import Mechanism
from mechdesign.cli.main import main
from mechdesign.errors import FileFormatError, InvalidMechanismError, SizeLimitError
from mechdesign.io.matrices import (
    MAX_TOML_BYTES,
    at,
    detect_delimiter,
    load_mechanism,
    parse_integer,
    parse_number,
    save_mechanism,
)
from mechdesign.io.problems import load_problem, loads_problem
from mechdesign.io.survey import load_randomizer
from tests.io.files import BOM, message, write

# ------------------------------------------------------------ 1. byte-order mark, header


def test_a_bom_csv_reads_as_its_full_matrix(tmp_path):
    # Excel's "CSV UTF-8": before, the BOM made row 1 a header and `check` said 1 x 2, eps 0
    path = write(tmp_path, "bom.csv", BOM + b"0.9,0.1\n0.1,0.9\n")
    m = load_mechanism(path)
    np.testing.assert_array_equal(m.matrix, [[0.9, 0.1], [0.1, 0.9]])
    assert m.outputs == (0, 1)


def test_check_of_a_bom_csv_reports_ln_9(tmp_path, capsys):
    path = write(tmp_path, "bom.csv", BOM + b"0.9,0.1\n0.1,0.9\n")
    assert main(["check", str(path), "--json"]) == 0
    measures = json.loads(capsys.readouterr().out)["measures"]
    # eps = ln(0.9 / 0.1) = ln 9; the measure may round outward by a few ulps
    assert measures["epsilon_ldp"] == pytest.approx(math.log(9), rel=1e-12)


@pytest.mark.parametrize(("text", "column", "hint"), [
    ("O.1,0.9\n0.1,0.9\n", 1, "the row's other cells are numbers"),   # letter O for zero
    ("0.9,1/10\n0.1,0.9\n", 2, "a fraction"),
    ("9/10,1/10\n0.1,0.9\n", 1, "a fraction"),                 # no number, but no header
    ("1_0,0\n0,1\n", 1, "an underscore"),
    ("\u0660.9,0.1\n0.1,0.9\n", 1, "non-ASCII"),               # Arabic-Indic zero
])
def test_a_first_row_with_a_mistyped_number_is_refused_by_row_and_column(
        tmp_path, text, column, hint):
    path = write(tmp_path, "typo.csv", text)
    with pytest.raises(FileFormatError) as info:
        load_mechanism(path)
    msg = message(info)
    assert f"typo.csv row 1, column {column}: expected a number" in msg
    assert hint in msg
    cell = text.split("\n")[0].split(",")[column - 1]
    assert cell not in msg  # named by position and kind, never quoted (file policy)


def test_a_first_row_of_text_is_a_header_and_header_option_overrides(tmp_path):
    path = write(tmp_path, "h.csv", "a,b\n0.25,0.75\n0.5,0.5\n")
    m = load_mechanism(path)
    assert m.outputs == ("a", "b") and m.shape == (2, 2)
    numeric = write(tmp_path, "n.csv", "10,20\n0.25,0.75\n0.5,0.5\n")
    with pytest.raises(InvalidMechanismError, match=r"^n\.csv row 1: row 0 of matrix sums "
                                                    r"to 30\.0"):
        load_mechanism(numeric)  # without the option, "10,20" is data (a row of the matrix)
    assert load_mechanism(numeric, header=True).outputs == ("10", "20")
    with pytest.raises(FileFormatError, match=r"h\.csv row 1, column 1: expected a number"):
        load_mechanism(path, header=False)
    with pytest.raises(FileFormatError, match="header= applies to CSV"):
        load_mechanism(write(tmp_path, "m.json", "[[1.0]]"), header=True)


def test_a_bom_inside_a_file_is_named(tmp_path):
    path = write(tmp_path, "joined.csv", BOM + b"0.5,0.5\n" + BOM + b"0.5,0.5\n")
    with pytest.raises(FileFormatError, match=r"joined\.csv row 2, column 1: expected a "
                                              r"number \(it holds a byte-order mark"):
        load_mechanism(path)


@pytest.mark.parametrize("text", ["0.9;0.1\n0.1;0.9\n", "0.9\t0.1\n0.1\t0.9\n",
                                  "x;y\n0.9;0.1\n0.1;0.9\n", "0.9,\t0.1\n0.1,\t0.9\n"],
                         ids=["semicolon", "tab", "semicolon-header", "comma-and-tab"])
def test_semicolon_and_tab_delimiters_are_detected(tmp_path, text):
    m = load_mechanism(write(tmp_path, "d.csv", text))
    np.testing.assert_array_equal(m.matrix, [[0.9, 0.1], [0.1, 0.9]])


def test_an_ambiguous_delimiter_is_refused(tmp_path):
    # European Excel: semicolons and decimal commas; both splits are even
    path = write(tmp_path, "eu.csv", "0,9;0,1\n0,1;0,9\n")
    with pytest.raises(FileFormatError, match=r"eu\.csv: cannot tell the CSV delimiter: "
                                              r"',' and ';'.*0\.5, not 0,5"):
        load_mechanism(path)
    assert detect_delimiter([(1, "0.5")], "one.csv") == ","


LABEL = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=5)


@st.composite
def matrices(draw):
    k = draw(st.integers(1, 4))
    m = draw(st.integers(1, 4))
    raw = draw(st.lists(st.lists(st.floats(0.01, 1.0), min_size=m, max_size=m),
                        min_size=k, max_size=k))
    Q = np.array(raw) / np.array(raw).sum(axis=1, keepdims=True)
    labels = draw(st.none() | st.lists(LABEL, min_size=m, max_size=m, unique=True))
    return Q, labels


@settings(max_examples=60, deadline=None)
@given(matrices(), st.booleans(), st.sampled_from([",", ";", "\t"]),
       st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_any_matrix_written_as_csv_reads_back_identically(tmp_path_factory, data, bom,
                                                          delimiter, newline, blank):
    Q, labels = data
    lines = [] if labels is None else [delimiter.join(labels)]
    lines += [delimiter.join(repr(float(x)) for x in row) for row in Q]
    text = newline.join(lines) + newline + (newline if blank else "")
    path = tmp_path_factory.mktemp("rt") / "q.csv"
    path.write_bytes((BOM if bom else b"") + text.encode())
    try:
        m = load_mechanism(path)
    except Exception as exc:  # rows of repr floats may miss 1 by more than 1e-9? never
        raise AssertionError(text) from exc
    np.testing.assert_array_equal(m.matrix, Q)  # repr floats: bit for bit
    assert m.outputs == (tuple(labels) if labels else tuple(range(Q.shape[1])))


def test_save_refuses_a_header_with_any_numeric_label(tmp_path):
    # a header with a number in it would not read back as a header
    with pytest.raises(FileFormatError, match=r"numeric output labels \['2'\]"):
        save_mechanism(Mechanism([[0.5, 0.5]], outputs=["a", 2]), tmp_path / "m.csv")


PROBLEM = """
[privacy]
notion = "ldp"
epsilon = 1.0

[objective]
kind = "expected_loss"
loss = {{csv = "{csv}"}}
"""


def test_a_problem_files_loss_csv_takes_the_same_rules(tmp_path):
    write(tmp_path, "L.csv", BOM + b"0;1\n1;0\n")
    p = write(tmp_path, "p.toml", PROBLEM.format(csv="L.csv"))
    np.testing.assert_array_equal(load_problem(p).problem.objective.loss, [[0, 1], [1, 0]])
    write(tmp_path, "H.csv", "a,b\n0,1\n1,0\n")
    with pytest.raises(FileFormatError, match=r"H\.csv row 1, column 1: expected a number "
                                              r"\(a header row of labels is not read here"):
        load_problem(write(tmp_path, "h.toml", PROBLEM.format(csv="H.csv")))
    write(tmp_path, "T.csv", "O.1,1\n1,0\n")
    with pytest.raises(FileFormatError, match=r"T\.csv row 1, column 1: expected a number "
                                              r"\(the row's other cells are numbers"):
        load_problem(write(tmp_path, "t.toml", PROBLEM.format(csv="T.csv")))


# ------------------------------------------------------------ 2. one style of positions


def test_positions_are_written_one_way():
    assert at("L.csv", 3, 2) == "L.csv row 3, column 2"
    assert at("v.txt", 7, unit="line") == "v.txt line 7"


def test_a_json_mechanism_error_names_the_file_and_1_based_position(tmp_path):
    path = write(tmp_path, "m.json", '{"matrix": [[0.5, 0.5], ["x", 0.5]]}')
    with pytest.raises(FileFormatError, match=r"^m\.json: 'matrix' row 2, column 1: "
                                              r"expected a number, got str$"):
        load_mechanism(path)


def test_a_matrix_error_names_the_file_position_beside_the_matrix_index(tmp_path):
    # the library's matrix messages count from 0 (Q[i, j]); the file position from 1
    path = write(tmp_path, "ns.csv", "0.5,0.5\n\n0.2,0.9\n")
    with pytest.raises(InvalidMechanismError, match=r"^ns\.csv row 3: row 1 of matrix sums "
                                                    r"to 1\.1"):
        load_mechanism(path)
    path = write(tmp_path, "neg.json", '{"matrix": [[0.5, 0.5], [1.5, -0.5]]}')
    with pytest.raises(InvalidMechanismError, match=r"^neg\.json: 'matrix' row 2, column 2: "
                                                    r"matrix\[1, 1\] = -0\.5 is negative"):
        load_mechanism(path)


# ------------------------------------------------------------ 3. duplicate JSON keys


@pytest.mark.parametrize("text", [
    '{"matrix": [[1, 0], [0, 1]], "matrix": [[0.5, 0.5], [0.5, 0.5]]}',
    '{"status": "optimal", "mechanism": {"matrix": [[1.0]], "matrix": [[1.0]]}}',
], ids=["top-level", "nested"])
def test_duplicate_json_keys_are_refused(tmp_path, text):
    with pytest.raises(FileFormatError, match=r"d\.json: 'matrix' appears twice"):
        load_mechanism(write(tmp_path, "d.json", text))


def test_duplicate_keys_in_an_oracle_file_are_refused_without_quoting_unknown_keys(
        tmp_path):
    path = write(tmp_path, "o.json", '{"kind": "oracle", "family": "unary_encoding", '
                                     '"k": 4, "k": 400, "epsilon": 1.0}')
    with pytest.raises(FileFormatError, match=r"o\.json: 'k' appears twice"):
        load_randomizer(path)
    secret = write(tmp_path, "s.json", '{"SECRET-KEY": 1, "SECRET-KEY": 2}')
    with pytest.raises(FileFormatError, match="a key appears twice") as info:
        load_mechanism(secret)
    assert "SECRET" not in message(info)


# ------------------------------------------------------------ 4. strict integers


def test_the_cli_names_an_overflowing_value_in_one_line(tmp_path, capsys):
    path = write(tmp_path, "v.txt", "99999999999999999999999999\n")
    assert main(["sample", "olh", "k=4", "epsilon=1", "--values", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "v.txt line 1: value outside 0..3" in err
    assert "Traceback" not in err and "OverflowError" not in err


@given(st.integers(-(2**63), 2**63 - 1))
def test_parse_integer_reads_every_int64(v):
    assert parse_integer(str(v)) == v
    assert parse_integer(f"  {v}\t") == v


@given(st.floats(allow_nan=False))
def test_parse_number_reads_every_float_repr(x):
    assert parse_number(repr(x)) == x


@pytest.mark.parametrize("text", ["1_0", "\u0661", "0x10", "1/2", "0,5", "", " ", "1e",
                                  "\u00a00.5", "--1"])
def test_parse_number_refuses_what_float_would_misread(text):
    assert parse_number(text) is None


def test_huge_integers_in_json_and_toml_are_typed_errors(tmp_path):
    with pytest.raises(FileFormatError, match=r"big\.json: an integer of 400 digits, "
                                              r"outside the 64-bit range"):
        load_mechanism(write(tmp_path, "big.json", "[[" + "9" * 400 + ", 0]]"))
    toml = PROBLEM.replace('{{csv = "{csv}"}}', '"hamming"\nk = 3').replace(
        "epsilon = 1.0", "epsilon = " + "9" * 400)
    with pytest.raises(FileFormatError, match=r"privacy\.epsilon: an integer of 400 digits"):
        loads_problem(toml, name="p.toml")
    huge = toml.replace("9" * 400, "9" * 5000)  # tomllib raised a bare ValueError here
    with pytest.raises(FileFormatError, match=r"p\.toml: malformed TOML: an integer of "
                                              r"more than 4300 digits"):
        loads_problem(huge, name="p.toml")


# ------------------------------------------------------------ 5. empty inputs


def test_sample_with_an_empty_values_file_fails(tmp_path, capsys):
    path = write(tmp_path, "v.txt", "")
    assert main(["sample", "olh", "k=4", "epsilon=1", "--values", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "v.txt: no values" in err and err.count("\n") == 1


@pytest.mark.parametrize(("name", "text", "match"), [
    ("e.csv", BOM, r"e\.csv: CSV file has no rows"),
    ("e.json", b"", r"e\.json: malformed JSON"),
    ("e.toml", BOM, r"e\.toml: no 'matrix' or 'masses' key among the table's 0 keys"),
])
def test_empty_mechanism_files_are_refused_naming_the_file(tmp_path, name, text, match):
    with pytest.raises(FileFormatError, match=match):
        load_mechanism(write(tmp_path, name, text))


# ------------------------------------------------------------ 6. problem TOML


def test_a_bom_in_a_problem_file_is_dropped(tmp_path):
    toml = PROBLEM.replace('{{csv = "{csv}"}}', '"hamming"\nk = 3')
    pf = load_problem(write(tmp_path, "p.toml", BOM + toml.encode()))
    assert pf.problem.objective.loss.shape == (3, 3)
    assert loads_problem("\ufeff" + toml).problem.objective.loss.shape == (3, 3)


def test_an_oversized_toml_is_refused_on_its_size_before_parsing(tmp_path, monkeypatch):
    import tomllib

    def never(*_args, **_kwargs):
        raise AssertionError("parsed a file its size already refuses")

    monkeypatch.setattr(tomllib, "loads", never)
    # a 1e7-entry loss: 20 MB of "0," (under the 64 MiB file limit, parsed for 108 s before)
    body = "x = [" + "0," * ((MAX_TOML_BYTES // 2) + 1) + "]\n"
    for name in ("p.toml", "m.toml"):
        path = write(tmp_path, name, body)
        with pytest.raises(SizeLimitError, match=r"larger than the limit of 4 MiB for TOML "
                                                 r"files \(checked before parsing\)"):
            (load_problem if name == "p.toml" else load_mechanism)(path)
    with pytest.raises(SizeLimitError, match="4 MiB"):
        loads_problem(body)
