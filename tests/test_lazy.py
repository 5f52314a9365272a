"""Tests of :mod:`mechdesign._lazy`: lazy attributes of a package (PEP 562).

Pinned on a throw-away package written for each test (so nothing else has imported its
modules): a name's module is imported on first use, not before, and the name is that
module's object; ``""`` names a submodule; an unknown name is an AttributeError naming the
module; a deprecated alias warns once per use naming the new name, returns the same object
and is not listed; ``__dir__`` lists the exported names, and for a plain module (``package``
given) its own globals too.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
import uuid

import pytest


@pytest.fixture
def pkg(tmp_path, monkeypatch):
    """A fresh package ``lazy_<random>`` with modules ``heavy`` and ``sub`` and a plain
    module ``plain`` re-exporting ``heavy.VALUE`` lazily."""
    name = f"lazy_{uuid.uuid4().hex[:8]}"
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text(textwrap.dedent("""
        from mechdesign._lazy import lazy_exports
        __getattr__, __dir__ = lazy_exports(
            __name__, {"VALUE": ".heavy", "twice": ".heavy", "sub": ""},
            deprecated={"OLD_VALUE": "VALUE"})
    """))
    (root / "heavy.py").write_text("VALUE = object()\n\ndef twice(x):\n    return 2 * x\n")
    (root / "sub.py").write_text("SUB = 1\n")
    (root / "plain.py").write_text(textwrap.dedent("""
        from mechdesign._lazy import lazy_exports
        OWN = 1
        __getattr__, __dir__ = lazy_exports(__name__, {"VALUE": ".heavy"},
                                            package=__package__)
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[mod]


def test_a_name_is_imported_on_first_use(pkg):
    package = importlib.import_module(pkg)
    assert f"{pkg}.heavy" not in sys.modules
    value = package.VALUE
    assert f"{pkg}.heavy" in sys.modules
    assert value is sys.modules[f"{pkg}.heavy"].VALUE
    assert package.twice(21) == 42
    assert f"{pkg}.sub" not in sys.modules
    assert package.sub is importlib.import_module(f"{pkg}.sub") and package.sub.SUB == 1


def test_an_unknown_name_is_an_attribute_error_naming_the_module(pkg):
    package = importlib.import_module(pkg)
    with pytest.raises(AttributeError, match=f"module '{pkg}' has no attribute 'nope'"):
        _ = package.nope
    assert not hasattr(package, "nope")


def test_a_deprecated_alias_warns_and_returns_the_new_object(pkg):
    package = importlib.import_module(pkg)
    with pytest.warns(DeprecationWarning, match=rf"{pkg}\.OLD_VALUE is deprecated and will be "
                                                rf"removed in the next release; use "
                                                rf"{pkg}\.VALUE"):
        old = package.OLD_VALUE
    assert old is package.VALUE
    with pytest.warns(DeprecationWarning):  # every use, not only the first
        _ = package.OLD_VALUE


def test_dir_lists_the_exports(pkg):
    package = importlib.import_module(pkg)
    assert dir(package) == ["VALUE", "sub", "twice"]  # sorted; the alias is not listed
    plain = importlib.import_module(f"{pkg}.plain")
    listed = dir(plain)
    assert "VALUE" in listed and "OWN" in listed and "lazy_exports" in listed
    assert plain.VALUE is importlib.import_module(f"{pkg}.heavy").VALUE
