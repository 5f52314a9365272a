"""Tests of :mod:`mechdesign.errors`: the exception hierarchy.

Pinned: every error derives from MechdesignError; bad input (ValidationError and its
subclasses) is also a ValueError, so ``except ValueError`` keeps working for callers who do
not know this module, and each kind is what the library raises for its documented case
(a bad parameter, a matrix that is not a mechanism, a size limit, an unreadable file),
naming the offending value; a design that has no mechanism is not a ValueError; a missing
optional package is also an ImportError; the names re-exported by ``mechdesign`` are the
same classes.
"""

from __future__ import annotations

import pytest

import mechdesign as md
from mechdesign import errors
from mechdesign.oracles import UnaryEncoding

VALIDATION = ("ValidationError", "InvalidMechanismError", "InvalidParameterError",
              "SizeLimitError", "FileFormatError")
DESIGN = ("DesignError", "InfeasibleDesignError", "UnboundedDesignError",
          "SolverFailedError", "UncertifiedDesignError")


def test_the_hierarchy():
    assert set(errors.__all__) == {"MechdesignError", *VALIDATION, *DESIGN,
                                   "MissingDependencyError"}
    for name in errors.__all__:
        assert issubclass(getattr(errors, name), errors.MechdesignError), name
    for name in VALIDATION:
        assert issubclass(getattr(errors, name), errors.ValidationError), name
        assert issubclass(getattr(errors, name), ValueError), name
    for name in DESIGN:
        cls = getattr(errors, name)
        assert issubclass(cls, errors.DesignError) and not issubclass(cls, ValueError), name
    assert issubclass(errors.MissingDependencyError, ImportError)
    assert not issubclass(errors.MissingDependencyError, ValueError)


def test_the_top_level_names_are_the_same_classes():
    for name in errors.__all__:
        if hasattr(md, name):
            assert getattr(md, name) is getattr(errors, name), name


def assert_caught_as_value_error(call, kind: type, match: str) -> None:
    with pytest.raises(ValueError, match=match) as info:
        call()
    assert type(info.value) is kind


def test_each_kind_is_raised_for_its_case(tmp_path):
    assert_caught_as_value_error(lambda: md.warner(1.5), errors.InvalidParameterError,
                                 "1.5")
    assert_caught_as_value_error(lambda: md.Mechanism([[0.5, 0.6], [0.5, 0.5]]),
                                 errors.InvalidMechanismError, r"row 0 .* sums to 1\.1")
    assert_caught_as_value_error(lambda: UnaryEncoding(30, 1.0).to_mechanism(),
                                 errors.SizeLimitError, "entries as a matrix")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert_caught_as_value_error(lambda: md.load_mechanism(bad), errors.FileFormatError,
                                 r"bad\.json: malformed JSON")
