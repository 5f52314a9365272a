"""Mechanism files (:mod:`mechdesign.io.matrices`): JSON, CSV and TOML round trips that are
exact, and malformed structures refused with a typed error."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mechdesign import (
    EvidentialMechanism,
    FileFormatError,
    Mechanism,
    ValidationError,
    dont_know,
    load_mechanism,
    save_mechanism,
    warner,
)
from mechdesign.catalog import truncated_geometric
from mechdesign.io.matrices import mechanism_from_dict

# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("m", [
    warner(0.75),
    Mechanism([[0.1, 0.2, 0.7], [1 / 3, 1 / 3, 1 / 3]], name="thirds"),  # int labels
    warner(0.75).product(warner(0.6)),                                    # tuple labels
    truncated_geometric(4, 0.3),
], ids=["warner", "int-labels", "tuple-labels", "geometric"])
def test_json_round_trip_is_exact(m, tmp_path):
    path = tmp_path / "m.json"
    save_mechanism(m, path)
    back = load_mechanism(path)
    assert back == m  # matrix bit for bit (JSON floats are repr-exact) and labels
    assert back.name == m.name


@pytest.mark.parametrize("ev", [
    dont_know(0.6, 0.2),
    dont_know(0.6, 0.2).product(dont_know(0.7, 0.1)),  # tuple outputs, rectangle focal sets
    EvidentialMechanism([[0.5, 0.25, 0.25]], [{1}, {1, 2}, {3}]),
], ids=["dont_know", "product", "int-outputs"])
def test_evidential_json_round_trip(ev, tmp_path):
    path = tmp_path / "ev.json"
    save_mechanism(ev, path)
    back = load_mechanism(path)
    assert isinstance(back, EvidentialMechanism)
    assert back == ev


def test_csv_round_trip_with_string_labels(tmp_path):
    m = warner(0.75)
    path = tmp_path / "w.csv"
    save_mechanism(m, path)
    back = load_mechanism(path)
    np.testing.assert_array_equal(back.matrix, m.matrix)  # repr floats: exact
    assert back.outputs == ("Yes", "No")


def test_csv_round_trip_with_default_integer_labels(tmp_path):
    # the header "0,1" of output labels must not be read back as a data row
    m = Mechanism([[0.3, 0.7], [0.6, 0.4]])
    path = tmp_path / "m.csv"
    save_mechanism(m, path)
    back = load_mechanism(path)
    assert back.shape == (2, 2)
    np.testing.assert_array_equal(back.matrix, m.matrix)


def test_csv_without_header(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text("0.25,0.75\n0.75,0.25\n\n")
    back = load_mechanism(path)
    np.testing.assert_array_equal(back.matrix, [[0.25, 0.75], [0.75, 0.25]])
    assert back.outputs == (0, 1)


def test_toml_ordinary_and_evidential(tmp_path):
    path = tmp_path / "w.toml"
    path.write_text('name = "w"\ninputs = ["P", "notP"]\noutputs = ["Yes", "No"]\n'
                    "matrix = [[0.75, 0.25], [0.25, 0.75]]\n")
    assert load_mechanism(path) == warner(0.75)
    path = tmp_path / "dk.toml"
    path.write_text('inputs = ["P", "notP"]\n'
                    'focal_sets = [["Yes"], ["No"], ["Yes", "No"]]\n'
                    "masses = [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2]]\n")
    assert load_mechanism(path) == dont_know(0.6, 0.2)


def test_json_variants(tmp_path):
    bare = tmp_path / "bare.json"
    bare.write_text("[[0.5, 0.5], [0.1, 0.9]]")
    np.testing.assert_array_equal(load_mechanism(bare).matrix, [[0.5, 0.5], [0.1, 0.9]])
    wrapped = tmp_path / "wrapped.json"  # the shape printed by `mechdesign solve --json`
    wrapped.write_text(json.dumps({"status": "optimal",
                                   "mechanism": {"matrix": [[0.5, 0.5], [0.1, 0.9]]}}))
    np.testing.assert_array_equal(load_mechanism(wrapped).matrix, [[0.5, 0.5], [0.1, 0.9]])


def test_json_focal_sets_must_be_lists_not_strings():
    # "Yes" is one label, not the set of characters {"Y", "e", "s"}: refuse it by name
    with pytest.raises(ValidationError, match="'Yes'"):
        mechanism_from_dict({"masses": [[0.5, 0.5]], "focal_sets": ["Yes", "No"]})


@pytest.mark.parametrize("data", [
    {"masses": [[0.5, 0.5]], "focal_sets": [1, 2]},
    {"masses": [[1.0]], "focal_sets": 7},
    {"matrix": [[0.5, 0.5]], "inputs": 5},
], ids=["int-focal-sets", "scalar-focal-sets", "scalar-inputs"])
def test_malformed_file_structures_raise_a_typed_error(data):
    with pytest.raises(ValidationError):
        mechanism_from_dict(data)


def test_save_refuses_unknown_suffix(tmp_path):
    with pytest.raises(FileFormatError, match=r"\.txt"):
        save_mechanism(warner(0.75), tmp_path / "m.txt")
