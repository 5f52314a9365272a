"""The built-in problem files: literature instances shipped inside the package
(``mechdesign/problems/*.toml``), each with its reference value and source in ``[expected]``.

``mechdesign solve --example krr_hamming`` and ``load_example("krr_hamming")`` read them
from any working directory; ``mechdesign examples`` lists them.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InvalidParameterError

if TYPE_CHECKING:
    from .problems import ProblemFile

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "problems"
"""The folder of the built-in problem files (package data)."""


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
