"""The README's Python examples run as written, in order, in one namespace (each block may
use the names an earlier one defined), from a scratch folder (one writes figures)."""

from __future__ import annotations

import re
import textwrap

import pytest

from tests.paths import REPOSITORY

BLOCK = re.compile(r"^( *)```python\n(.*?)^ *```", re.S | re.M)


def readme_blocks() -> list[str]:
    text = (REPOSITORY / "README.md").read_text(encoding="utf-8")
    return [textwrap.dedent(m.group(2)) for m in BLOCK.finditer(text)]


def test_the_readme_has_examples():
    assert len(readme_blocks()) >= 10


@pytest.mark.slow
def test_every_readme_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for i, block in enumerate(readme_blocks()):
        first = block.strip().splitlines()[0]
        try:
            exec(compile(block, f"README block {i}", "exec"), namespace)
        except Exception as exc:  # name the block, not just the exception
            pytest.fail(f"README block {i} ({first!r}) raised {type(exc).__name__}: {exc}")
    # the compare-warner example wrote its five figures
    assert sorted(p.name for p in (tmp_path / "out" / "figures").iterdir()) == [
        f"fig{j}.png" for j in range(1, 6)]
