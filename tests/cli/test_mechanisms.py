"""Tests of :mod:`mechdesign.cli.mechanisms`: the mechanism a command names, a catalog
constructor with ``key=value`` parameters or a matrix file.

Pinned: parameter values are booleans, integers or floats (anything else a typed error
naming it); ``key=value`` words, a key given twice refused; a catalog name builds the same
matrix as the library's constructor, an unknown name or parameter names the catalog or the
signature; a file source is read from its file (parameters refused) and is the only input
a command must never overwrite; the one-line descriptions; the catalog names in the help
of the catalog commands.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechdesign as md
from mechdesign.catalog import CATALOG
from mechdesign.cli.main import main
from mechdesign.cli.mechanisms import (
    build_from_catalog,
    catalog_names,
    describe_mechanism,
    is_file_source,
    parse_parameters,
    parse_value,
    resolve_mechanism,
    source_inputs,
)
from mechdesign.errors import InvalidParameterError


@pytest.mark.parametrize("text, value", [
    ("true", True), ("FALSE", False), ("3", 3), ("-2", -2), ("0.5", 0.5), ("1e-3", 1e-3),
    ("-inf", -math.inf),
])
def test_parse_value(text, value):
    got = parse_value(text)
    assert got == value and type(got) is type(value)


def test_parse_parameters():
    assert parse_parameters(["k=3", " epsilon = 1.5", "optimized=true"]) == {
        "k": 3, "epsilon": 1.5, "optimized": True}
    assert parse_parameters([]) == {}


@pytest.mark.parametrize("call, match", [
    (lambda: parse_value("abc"), "parameter value 'abc' is not a number or true/false"),
    (lambda: parse_parameters(["k3"]), "parameters are key=value, got 'k3'"),
    (lambda: parse_parameters(["=3"]), "parameters are key=value, got '=3'"),
    (lambda: parse_parameters(["k=3", "k=4"]), "parameter 'k' is given twice"),
    (lambda: build_from_catalog("rappor", []), "unknown mechanism 'rappor'; catalog names: "
                                                "warner, randomized_response"),
    (lambda: build_from_catalog("warner", ["q=1"]), r"warner has no parameter 'q'; "
                                                     r"signature warner\(p"),
    (lambda: build_from_catalog("randomized_response", ["k=3"]),
     "missing a required argument: 'epsilon'"),
    (lambda: resolve_mechanism("m.csv", ["k=3"]), "make no sense for a file"),
])
def test_bad_sources_are_typed_errors_naming_the_value(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_a_catalog_name_builds_the_librarys_mechanism():
    assert catalog_names() == list(CATALOG)
    built = resolve_mechanism("randomized_response", ["k=3", "epsilon=1"])
    np.testing.assert_array_equal(built.matrix, md.randomized_response(3, 1.0).matrix)
    # k-RR at eps = 1: e/(e + 2) on the diagonal (Kairouz et al. 2014)
    assert built.matrix[0, 0] == pytest.approx(math.e / (math.e + 2), rel=1e-15)
    assert describe_mechanism(built) == ("mechanism randomized_response(3, 1): 3 inputs x 3 "
                                         "outputs")
    dk = build_from_catalog("dont_know", ["p=0.6", "q=0.2"])
    assert describe_mechanism(dk) == ("evidential mechanism: 2 inputs, 3 focal sets over "
                                      "outputs ['Yes', 'No']")


def test_a_file_source_is_read_from_its_file(tmp_path):
    path = tmp_path / "w.csv"
    md.save_mechanism(md.warner(0.75), path)
    assert is_file_source(str(path)) and source_inputs(str(path)) == [str(path)]
    np.testing.assert_allclose(resolve_mechanism(str(path), []).matrix,
                               md.warner(0.75).matrix, rtol=0, atol=1e-15)
    # a suffix is enough (the file need not exist yet), a catalog name never is a file
    assert is_file_source("missing.JSON") and not is_file_source("no_such_name")
    assert not is_file_source("warner") and source_inputs("warner") == []


@pytest.mark.parametrize("command", ["check", "tradeoff", "compose"])
def test_catalog_names_appear_in_the_help_of_catalog_commands(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"Catalog names: {', '.join(CATALOG)}" in text
