"""Lazy attributes of a package (PEP 562): a name is imported from its module on first use.

``import mechdesign`` then costs only what the user touches: cvxpy, networkx, scipy.stats
and matplotlib load when a name that needs them is first used.

The same mechanism gives a module re-exports without import cycles (a sub-namespace such as
:mod:`mechdesign.accounting.amplification` re-exports the exact counterparts of its bounds,
which import the bounds) and deprecated aliases of renamed names, which warn on use.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(module: str, names: Mapping[str, str], *, package: str | None = None,
                 deprecated: Mapping[str, str] | None = None
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``module`` exporting ``names`` lazily.

    Parameters
    ----------
    module : str
        The module's ``__name__`` (named in the error and warning messages).
    names : Mapping[str, str]
        Each public name mapped to the module that defines it, relative to ``package``
        (such as ``".composition"``); a name mapped to ``""`` is a subpackage or submodule
        of the same name.
    package : str, optional
        The package the relative modules are resolved in: ``module`` itself (the default,
        for a package's ``__init__``) or, for a plain module, its ``__package__``. For a
        plain module, ``__dir__`` also lists the module's own globals.
    deprecated : Mapping[str, str], optional
        Old name -> new name: reading an old name emits a :class:`DeprecationWarning` naming
        the new one and returns ``getattr(module, new)``. Old names are not listed by
        ``__dir__``.
    """
    base = module if package is None else package
    renamed = dict(deprecated or {})

    def __getattr__(name: str) -> Any:
        where = names.get(name)
        if where is None:
            if name in renamed:
                new = renamed[name]
                warnings.warn(f"{module}.{name} is deprecated and will be removed in the next "
                              f"release; use {module}.{new}", DeprecationWarning, stacklevel=2)
                return getattr(importlib.import_module(module), new)
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        if where == "":
            return importlib.import_module(f"{base}.{name}")
        return getattr(importlib.import_module(where, base), name)

    def __dir__() -> list[str]:
        if package is None:
            return sorted(names)
        return sorted(set(vars(sys.modules[module])) | set(names))

    return __getattr__, __dir__
