"""Every public module of mechdesign declares its public names.

A module is public when no part of its dotted name starts with an underscore. Each one
defines ``__all__``; every name listed exists in the module (lazy names included: a
namespace's ``__getattr__`` must resolve them) and none starts with an underscore.
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import mechdesign

PUBLIC_MODULES = sorted(
    info.name for info in pkgutil.walk_packages(mechdesign.__path__, "mechdesign.")
    if not any(part.startswith("_") for part in info.name.split(".")))

def test_the_walk_finds_the_package():
    # the namespaces, their modules, the CLI and the harnesses: far more than a handful
    assert {"mechdesign.accounting", "mechdesign.accounting.composition", "mechdesign.catalog",
            "mechdesign.errors", "mechdesign.cli.main", "mechdesign.testing.fuzz"} \
        <= set(PUBLIC_MODULES)
    assert not any(name.split(".")[-1].startswith("_") for name in PUBLIC_MODULES)


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_public_module_declares_all(name):
    module = importlib.import_module(name)
    assert hasattr(module, "__all__"), f"{name} has no __all__"
    names = list(module.__all__)
    assert all(isinstance(n, str) for n in names)
    assert len(names) == len(set(names)), f"{name}.__all__ repeats a name"
    assert [n for n in names if n.startswith("_")] == []
    assert [n for n in names if not hasattr(module, n)] == []


def test_star_import_gives_exactly_all():
    namespace: dict = {}
    exec("from mechdesign.accounting.amplification import *", namespace)
    import mechdesign.accounting.amplification as amp
    assert set(namespace) - {"__builtins__"} == set(amp.__all__)
