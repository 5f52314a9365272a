"""The built-in problem files: literature instances, each with its reference value and
source in ``[expected]``.

Their one copy is the repository's top-level ``problems/`` folder; the wheel ships it as the
package data ``mechdesign/problems/`` (``pyproject.toml``, ``[tool.setuptools]``).
``mechdesign solve --example krr_hamming`` and ``load_example("krr_hamming")`` read them
from any working directory, installed or editable; ``mechdesign examples`` lists them.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InvalidParameterError

__all__ = [
    "EXAMPLES_DIR",
    "example_names",
    "example_path",
    "example_titles",
    "load_example",
]

if TYPE_CHECKING:
    from .problems import ProblemFile


def _examples_dir() -> Path:
    """The folder of the built-in problem files.

    An installed wheel holds them in the package (``mechdesign/problems/``); a source
    checkout (an editable install, or the repository on ``sys.path``) at the top level,
    beside the package (``problems/``).
    """
    package = Path(__file__).resolve().parent.parent
    installed = package / "problems"
    if any(installed.glob("*.toml")):
        return installed
    return package.parent / "problems"


EXAMPLES_DIR = _examples_dir()
"""The folder of the built-in problem files: ``mechdesign/problems/`` in an installed wheel,
the repository's ``problems/`` in a source checkout."""


def example_names() -> list[str]:
    """The names of the built-in problem files (file stems), sorted."""
    return sorted(p.stem for p in EXAMPLES_DIR.glob("*.toml"))


def example_path(name: str) -> Path:
    """The path of the built-in problem file ``name`` (a stem such as ``"krr_hamming"``;
    a trailing ``.toml`` is accepted).

    Raises
    ------
    InvalidParameterError
        When no built-in problem file has that name; the message lists the names.
    """
    stem = name[:-5] if name.endswith(".toml") else name
    names = example_names()
    if stem not in names:
        raise InvalidParameterError(
            f"no built-in example {name!r}; the examples are: {', '.join(names)}")
    return EXAMPLES_DIR / f"{stem}.toml"


def example_titles() -> dict[str, str]:
    """Each built-in problem file's name and its ``title``, in name order."""
    out = {}
    for name in example_names():
        with example_path(name).open("rb") as fh:
            out[name] = str(tomllib.load(fh).get("title", ""))
    return out


def load_example(name: str) -> ProblemFile:
    """The built-in problem file ``name``, loaded (:func:`~mechdesign.io.load_problem`).

    Examples
    --------
    >>> from mechdesign.io import load_example
    >>> load_example("krr_hamming").expected.value  # (k-1)/(e^eps+k-1), k = 3, eps = 1
    0.42388311523417094
    """
    from .problems import load_problem

    return load_problem(example_path(name))
