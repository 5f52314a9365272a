"""The lazy export table of mechdesign.plotting: every name resolves, every public figure
function is listed, and importing the package loads no matplotlib."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import mechdesign.plotting as plotting

PACKAGE = Path(plotting.__file__).parent


@pytest.mark.parametrize("name", sorted(plotting._NAMES))
def test_every_name_resolves(name):
    assert callable(getattr(plotting, name))


def _defined(path: Path) -> set[str]:
    """Public functions and classes defined (not imported) in a module."""
    return {n.name for n in ast.parse(path.read_text()).body
            if isinstance(n, ast.FunctionDef | ast.ClassDef) and not n.name.startswith("_")}


def test_every_public_function_is_exported():
    for module in PACKAGE.glob("*.py"):
        if module.name != "__init__.py":
            missing = _defined(module) - set(plotting._NAMES)
            assert not missing, (module.name, missing)


def test_paper_figures_are_exported_by_name():
    figures = importlib.import_module("mechdesign.studies.figures")
    names = _defined(Path(figures.__file__))
    assert {"figure_1", "figure_5", "make_figures", "write_figures"} <= names
    for name in names:
        assert getattr(plotting, name) is getattr(figures, name)


def test_import_loads_no_matplotlib():
    code = ("import sys, mechdesign.plotting as p; dir(p); "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"
