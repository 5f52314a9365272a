"""Lazy attributes of a package (PEP 562): a name is imported from its module on first use.

``import mechdesign`` then costs only what the user touches: cvxpy, networkx, scipy.stats
and matplotlib load when a name that needs them is first used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, names: Mapping[str, str]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` exporting ``names``: each public name maps
    to the module (relative to the package, such as ``".composition"``) that defines it; a
    name mapped to ``""`` is a subpackage or submodule of the same name."""

    def __getattr__(name: str) -> Any:
        where = names.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if where == "":
            return importlib.import_module(f"{package}.{name}")
        return getattr(importlib.import_module(where, package), name)

    def __dir__() -> list[str]:
        return sorted(names)

    return __getattr__, __dir__
