"""Sphinx configuration of the mechdesign documentation.

Build (warnings are errors, as in CI), from the repository root::

    sphinx-build -W --keep-going -b html docs docs/_build/html
    sphinx-build -W --keep-going -b doctest docs docs/_build/doctest

The namespaces of mechdesign export their names lazily (``mechdesign/_lazy.py``), so
``automodule :members:`` finds nothing in them. The API pages use the directive defined
here instead, ``mechdesign-namespace``, which documents every name of a namespace's
``__all__`` (or, for a module without one, every public function and class it defines and
every module constant with a docstring) under the namespace's own path, such as
``mechdesign.privacy.epsilon_ldp``.

The HTML build first runs ``docs/make_figures.py``, which draws the figures the README and
the tutorials embed into ``docs/_static/figures/`` with mechdesign's own plotting functions
(a file is rewritten only when its bytes change).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import runpy
from pathlib import Path
from types import ModuleType
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

import mechdesign

logger = logging.getLogger(__name__)

project = "mechdesign"
author = "the mechdesign authors"
copyright = "the mechdesign authors"
release = version = mechdesign.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "sphinx.ext.napoleon",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# docs/README.md is the folder's index on GitHub; the landing page replaces it here.
exclude_patterns = ["_build", "README.md", "Thumbs.db", ".DS_Store"]

html_theme = "alabaster"
html_title = f"mechdesign {release}"
html_theme_options = {
    "description": "Privacy mechanisms by LP and convex programming, measured exactly",
    "fixed_sidebar": True,
}

# MyST: the theory pages are GitHub Markdown; `#section` links resolve to heading anchors.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

# numpy-style docstrings only.
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_ivar = True

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True

# The doctest builder runs the {doctest} and {testcode}/{testoutput} blocks of the
# tutorials and the landing page. The ">>>" examples in docstrings belong to the test
# suite's scope and are shown, not run, here.
doctest_test_doctest_blocks = ""
doctest_global_setup = """
import os
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import matplotlib
matplotlib.use("Agg")
"""

# The namespaces documented on the API pages, in the order of docs/architecture.md.
NAMESPACES = (
    "mechdesign.errors",
    "mechdesign.catalog",
    "mechdesign.losses",
    "mechdesign.neighbors",
    "mechdesign.privacy",
    "mechdesign.accounting",
    "mechdesign.estimation",
    "mechdesign.oracles",
    "mechdesign.design",
    "mechdesign.frontier",
    "mechdesign.io",
    "mechdesign.plotting",
)


def _defining_module(module: ModuleType, name: str) -> str:
    """The module whose source assigns ``name`` for a namespace's lazy table, or the
    namespace itself (where module constants carry their docstrings)."""
    table = getattr(module, "_NAMES", {})
    where = table.get(name)
    if where:
        return importlib.util.resolve_name(where, module.__name__)
    return module.__name__


def _attribute_doc(modname: str, name: str) -> list[str]:
    """The docstring written under a module constant (``NAME = ...`` then a string)."""
    try:
        docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
    except Exception:  # no source: a compiled module
        return []
    return list(docs.get(("", name), []))


def public_names(module: ModuleType) -> list[str]:
    """A namespace's ``__all__``; for a module without one, the public functions and
    classes it defines and its constants with a docstring, in source order."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    names = []
    for name, obj in vars(module).items():
        if name.startswith("_"):
            continue
        if inspect.isfunction(obj) or inspect.isclass(obj):
            if obj.__module__ == module.__name__:
                names.append(name)
        elif not inspect.ismodule(obj) and _attribute_doc(module.__name__, name):
            names.append(name)
    return names


_NOT_SENTENCE_ENDS = ("Fig", "Figs", "Thm", "Eq", "Def", "Cor", "Prop", "e.g", "i.e", "al",
                      "s", "vs", "cf", "resp", "etc", "w.r.t")


def _summary(module: ModuleType, name: str) -> str:
    """One line for the summary table: the first paragraph of the docstring, cut after
    its first sentence when long (never inside inline markup)."""
    obj = getattr(module, name)
    if inspect.isclass(obj) or callable(obj):
        doc = inspect.getdoc(obj) or ""
    else:
        doc = "\n".join(_attribute_doc(_defining_module(module, name), name))
    text = " ".join(doc.strip().split("\n\n")[0].split())
    if len(text) <= 200:
        return text
    depth, i = 0, 0
    while i < len(text) - 1:
        if text.startswith("``", i):
            depth ^= 2
            i += 2
            continue
        if text[i] == "`":
            depth ^= 1
        elif (text[i] == "." and text[i + 1] == " " and not depth and i >= 40
              and text[:i].split()[-1].split("(")[-1] not in _NOT_SENTENCE_ENDS):
            return text[: i + 1]
        i += 1
    return text


def _home(name: str) -> str | None:
    """The namespace page documenting the top-level name ``name``, or None if it is
    documented on the top-level page itself."""
    where = mechdesign._NAMES.get(name)
    if where is None:  # imported eagerly: the errors
        where = "." + getattr(mechdesign, name).__module__.rsplit(".", 1)[-1]
    home = "mechdesign" + where
    return home if home in NAMESPACES else None


def _entry(path: str, obj: object, defining: str, name: str) -> list[str]:
    """reST lines documenting ``obj`` under the dotted ``path``."""
    if inspect.isclass(obj):
        return [f".. autoclass:: {path}", "   :members:", "   :show-inheritance:", ""]
    if callable(obj):
        return [f".. autofunction:: {path}", ""]
    lines = [f".. py:data:: {path}", f"   :value: {obj!r}", ""]
    doc = _attribute_doc(defining, name) or ["(no docstring)"]
    return [*lines, *("   " + line for line in doc), ""]


class NamespaceDirective(SphinxDirective):
    """``.. mechdesign-namespace:: mechdesign.privacy``: the module docstring, a summary
    table, then every public name documented under the namespace's path.

    On the top-level page (``mechdesign``), names that live in a documented namespace are
    listed in the table and linked there; only the rest are documented in full.

    A sub-namespace (``.. mechdesign-namespace:: mechdesign.accounting.composition`` with
    ``:link-to: mechdesign.accounting``) lists its names in the table, linked to their
    documentation on the flat namespace's page (each object is documented once, so
    cross-references stay unambiguous); only names the flat namespace lacks (the
    sub-namespace's own constants) are documented in full here.
    """

    required_arguments = 1
    option_spec: ClassVar[dict] = {"link-to": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        modname = self.arguments[0]
        module = importlib.import_module(modname)
        names = public_names(module)
        link_to = self.options.get("link-to")
        linked = set(public_names(importlib.import_module(link_to))) if link_to else set()
        table, body = [], []
        for name in names:
            obj = getattr(module, name)
            if modname == "mechdesign" and _home(name) is not None:
                table.append(f"{_home(name)}.{name}")
                continue
            if name in linked:
                table.append(f"{link_to}.{name}")
                continue
            table.append(f"{modname}.{name}")
            body.append((name, obj))
        lines = [f".. automodule:: {modname}", ""]
        lines += [".. list-table::", "   :widths: 30 70", ""]
        for target in table:
            owner, _, name = target.rpartition(".")
            summary = _summary(importlib.import_module(owner), name)
            lines += [f"   * - :py:obj:`~{target}`", f"     - {summary}"]
        lines += ["", f".. currentmodule:: {modname}", ""]
        groups = (("Classes", inspect.isclass),
                  ("Functions", lambda o: callable(o) and not inspect.isclass(o)),
                  ("Data", lambda o: not callable(o)))
        for title, belongs in groups:
            members = [(n, o) for n, o in body if belongs(o)]
            if not members:
                continue
            lines += [f".. rubric:: {title}", ""]
            for name, obj in members:
                lines += _entry(f"{modname}.{name}", obj, _defining_module(module, name), name)
        source, _line = self.get_source_info()
        content = StringList(lines, source=source)
        holder = nodes.section()
        holder.document = self.state.document
        nested_parse_with_titles(self.state, content, holder)
        return holder.children


def make_figures(app) -> None:
    """Draw the embedded figures (``docs/make_figures.py``) before an HTML build reads the
    pages; other builders (doctest) do not show images."""
    if app.builder.format != "html":
        return
    script = Path(__file__).resolve().parent / "make_figures.py"
    changed = runpy.run_path(str(script))["main"]()
    for path in changed:
        logger.info("make_figures: wrote %s", path.name)


def setup(app):
    app.add_directive("mechdesign-namespace", NamespaceDirective)
    app.connect("builder-inited", make_figures)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
