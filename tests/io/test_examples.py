"""Tests of :mod:`mechdesign.io.examples`: the built-in problem files.

Pinned: the examples are the repository's ``problems/*.toml`` (a source checkout), named
by stem with or without ``.toml``; an unknown name is a typed error naming it and the
choices; ``example_titles`` gives each file's title, the same one :func:`load_example`
reads; every example loads; the reference value of ``krr_hamming`` is k-RR's closed form.
"""

from __future__ import annotations

import math
import tomllib

import pytest

from mechdesign.errors import InvalidParameterError
from mechdesign.io import example_names, example_path, load_example, load_problem
from mechdesign.io.examples import EXAMPLES_DIR, example_titles
from tests.paths import PROBLEMS


def test_examples_are_the_shipped_problem_files():
    assert example_names() == sorted(p.stem for p in PROBLEMS.glob("*.toml"))
    assert len(example_names()) == 19
    assert example_path("krr_hamming") == PROBLEMS / "krr_hamming.toml"
    assert example_path("krr_hamming.toml") == PROBLEMS / "krr_hamming.toml"
    pf = load_example("krr_hamming")
    assert pf.title == load_problem(PROBLEMS / "krr_hamming.toml").title
    # the file's reference value is k-RR's (k-1)/(e^eps+k-1), k = 3, eps = 1
    assert pf.expected.value == pytest.approx(2 / (math.e + 2), rel=1e-15)


def test_an_unknown_example_names_itself_and_the_choices():
    with pytest.raises(InvalidParameterError, match=r"'krr_hamingg'.*krr_hamming"):
        example_path("krr_hamingg")


def test_titles_are_the_files_titles_and_every_example_loads():
    assert EXAMPLES_DIR == PROBLEMS  # a source checkout reads the top-level folder
    titles = example_titles()
    assert list(titles) == example_names()
    for name, title in titles.items():
        with (PROBLEMS / f"{name}.toml").open("rb") as fh:
            assert title == tomllib.load(fh)["title"] != "", name
        assert load_example(name).title == title, name
