"""The Python examples of the README and of the user guide (``docs/guide/*.md``) run as
written, in order, one namespace per document (each block may use the names an earlier
block of the same document defined), from a scratch folder holding an empty ``out/`` (the
README's set-up step, ``mkdir -p out``; examples write their figures there).

The README is the front door; the reference sections it used to hold (measures, catalog,
oracles, survey, design, accounting, ...) live in the guide, so their examples are run
from there."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from tests.paths import REPOSITORY

BLOCK = re.compile(r"^( *)```python\n(.*?)^ *```", re.S | re.M)
GUIDE = REPOSITORY / "docs" / "guide"
DOCUMENTS = [REPOSITORY / "README.md", *sorted(GUIDE.glob("*.md"))]


def python_blocks(path: Path) -> list[str]:
    """The ```python blocks of a Markdown file, dedented, in order."""
    text = path.read_text(encoding="utf-8")
    return [textwrap.dedent(m.group(2)) for m in BLOCK.finditer(text)]


def readme_blocks() -> list[str]:
    return python_blocks(REPOSITORY / "README.md")


def test_the_readme_has_an_example_per_job_and_the_survey():
    assert len(readme_blocks()) >= 4


def test_the_guide_holds_the_reference_examples():
    # the examples that left the README: every page with one is run below
    with_examples = {p.stem for p in GUIDE.glob("*.md") if python_blocks(p)}
    assert {"mechanisms", "measures", "oracles", "survey", "design", "warner", "tradeoff",
            "accounting", "trust"} <= with_examples
    assert sum(len(python_blocks(p)) for p in GUIDE.glob("*.md")) >= 15


def test_the_readme_is_a_front_door():
    text = (REPOSITORY / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 350
    # the two set-up commands CI runs (.ci/run), verbatim
    assert 'pip install -e ".[test]" && python -m pytest -q' in text
    assert "pip install . && mechdesign solve --example krr_hamming" in text
    # the three jobs come first, each with its figure, committed where GitHub finds it
    jobs = [text.index(f"## Job {i}") for i in (1, 2, 3)]
    assert jobs == sorted(jobs) and jobs[0] < text.index("## Running a survey")
    images = re.findall(r'<img src="([^"]+)"|!\[[^]]*\]\(([^)]+)\)', text)
    for path in {a or b for a, b in images}:
        assert (REPOSITORY / path).is_file(), path
    assert len(images) >= 3


@pytest.mark.slow
@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.relative_to(REPOSITORY).as_posix())
def test_every_example_runs(document, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    namespace: dict = {}
    for i, block in enumerate(python_blocks(document)):
        first = block.strip().splitlines()[0]
        try:
            exec(compile(block, f"{document.name} block {i}", "exec"), namespace)
        except Exception as exc:  # name the block, not just the exception
            pytest.fail(f"{document.name} block {i} ({first!r}) raised "
                        f"{type(exc).__name__}: {exc}")
    if document.name == "README.md":
        assert {p.name for p in (tmp_path / "out").iterdir()} >= {"design.png", "frontier.png"}
    if document == GUIDE / "warner.md":
        # the compare-warner example wrote its five figures
        assert sorted(p.name for p in (tmp_path / "out" / "figures").iterdir()) == [
            f"fig{j}.png" for j in range(1, 6)]
