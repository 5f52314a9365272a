"""Packaging: the version (``--version``, ``python -m mechdesign``, the installed metadata),
the built-in problem files (``--example`` from any folder, package data), the LICENSE and
``py.typed`` in the wheel. (The examples' names and paths: tests/io/test_examples.py;
``mechdesign examples``: tests/cli/test_examples.py.)"""

from __future__ import annotations

import importlib.metadata
import json
import math
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import mechdesign as md
from mechdesign.cli.main import main
from mechdesign.io import example_names
from tests.paths import PROBLEMS, REPOSITORY


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_version_is_the_installed_metadata(capsys):
    assert md.__version__ == importlib.metadata.version("mechdesign")
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"mechdesign {md.__version__}\n"


@pytest.mark.slow
def test_python_dash_m_runs_the_cli():
    done = subprocess.run([sys.executable, "-m", "mechdesign", "--version"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0
    assert done.stdout == f"mechdesign {md.__version__}\n"
    bad = subprocess.run([sys.executable, "-m", "mechdesign", "solve"],
                         capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2
    assert "--example NAME" in bad.stderr


def test_solve_example_from_any_folder(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out, err = run(capsys, "solve", "--example", "krr_hamming", "--json")
    assert rc == 0, err
    record = json.loads(out)
    assert record["value"] == pytest.approx(2 / (math.e + 2), rel=1e-7)
    assert record["file"] == str(PROBLEMS / "krr_hamming.toml")


@pytest.mark.parametrize("argv, message", [
    (("solve",), "no problem file: give FILE.toml or --example NAME"),
    (("solve", "x.toml", "--example", "krr_hamming"), "one of them, not both"),
    (("frontier", "--example", "nope"), "no built-in example 'nope'"),
])
def test_problem_argument_errors(capsys, argv, message):
    rc, _, err = run(capsys, *argv)
    assert rc == 2
    assert err.startswith("mechdesign: error: ") and message in err
    assert err.count("\n") == 1


def test_py_typed_marker_is_in_the_package():
    assert (REPOSITORY / "mechdesign" / "py.typed").is_file()


def test_the_problem_files_have_one_copy_at_the_top_level():
    # problems/ is their home; the package holds no second copy (the wheel maps the folder
    # to mechdesign/problems/, below)
    assert PROBLEMS == REPOSITORY / "problems"
    assert (PROBLEMS / "README.md").is_file()
    assert not (REPOSITORY / "mechdesign" / "problems").exists()


def test_the_problem_readme_has_one_line_per_file():
    readme = (PROBLEMS / "README.md").read_text(encoding="utf-8")
    rows = [line for line in readme.splitlines() if line.startswith("| `")]
    named = [line.split("`")[1] for line in rows]
    assert sorted(named) == sorted(p.name for p in PROBLEMS.glob("*.toml"))  # each once
    for row in rows:
        assert "job 1" in row or "job 2" in row or "job 3" in row, row


def _wheel(folder: Path) -> set[str]:
    """Build the wheel of the working tree in ``folder``; the names it holds.

    The build runs on a copy of what it reads, so that no ``build/`` left in the repository
    by an earlier build (setuptools packs all of ``build/lib``, stale files included) can
    add to the wheel, and nothing is written into the repository.
    """
    source = folder / "source"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("mechdesign", "problems"):
        shutil.copytree(REPOSITORY / name, source / name, ignore=skip)
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy2(REPOSITORY / name, source / name)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                           str(source), "-w", str(folder)],
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        pytest.fail(f"pip wheel failed: {done.stderr[-2000:]}")
    (wheel,) = folder.glob("mechdesign-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        return set(zf.namelist())


@pytest.mark.slow
def test_the_wheel_ships_problem_files_license_and_py_typed(tmp_path):
    """``pip install .`` installs what the wheel holds: build it and look inside."""
    names = _wheel(tmp_path)
    # exactly the files of the top-level problems/ folder, as mechdesign/problems/
    shipped = {n.removeprefix("mechdesign/problems/") for n in names
               if n.startswith("mechdesign/problems/")}
    assert shipped == {p.name for p in PROBLEMS.iterdir() if p.is_file()}
    assert {f"{name}.toml" for name in example_names()} <= shipped
    assert not any(n.startswith("problems/") for n in names)
    # every module of the package, and nothing from outside it
    modules = {p.relative_to(REPOSITORY).as_posix()
               for p in (REPOSITORY / "mechdesign").rglob("*.py")}
    assert modules <= names
    assert "mechdesign/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert {n.split("/")[0] for n in names} == {"mechdesign", next(
        n.split("/")[0] for n in names if ".dist-info/" in n)}


def _release(version: str) -> tuple[int, ...]:
    """``"2.0"`` and ``"2.0.0"`` alike: the numeric release, trailing zeros dropped."""
    parts = [int(p) for p in version.split(".")]
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def test_the_minimum_versions_ci_pins_are_the_declared_floors():
    import tomllib

    declared = {}
    for dep in tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["project"][
            "dependencies"]:
        name, floor = dep.split(">=")
        declared[name.strip()] = _release(floor)
    pinned = {}
    for line in (REPOSITORY / ".ci" / "minimum-versions.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pinned[name.strip()] = _release(version)
    assert pinned == declared
