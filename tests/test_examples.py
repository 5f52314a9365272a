"""The scripts of ``examples/``: each runs as a user runs it (a subprocess, ``--fast``, from
a scratch working directory), exits 0, writes its files under ``out/`` and nothing else, and
prints the values its docstring promises (checked against closed forms or against the
library where that is cheap)."""

from __future__ import annotations

import csv
import math
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from mechdesign.io import load_example
from tests.paths import EXAMPLES

PNG = b"\x89PNG\r\n\x1a\n"


def run(script: str, tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run ``examples/<script>`` with ``tmp_path`` as working directory; its stdout."""
    environment = {k: v for k, v in os.environ.items() if k != "MECHDESIGN_FAST"}
    environment.update({"OPENBLAS_NUM_THREADS": "1", **(env or {})})
    done = subprocess.run([sys.executable, str(EXAMPLES / script), *args], cwd=tmp_path,
                          env=environment, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, f"{script} exited {done.returncode}:\n{done.stderr[-3000:]}"
    return done.stdout


def number(pattern: str, text: str) -> float:
    """The number captured by ``pattern`` in ``text`` (the test fails when it is absent)."""
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not in the output:\n{text}"
    return float(match.group(1))


def written(tmp_path: Path) -> set[str]:
    """Every file the run wrote, relative to the working directory."""
    return {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}


def assert_png(path: Path) -> None:
    assert path.read_bytes()[:8] == PNG, path


def check_design(out: str, tmp_path: Path) -> None:
    pngs = {"out/design_absolute_k5.png", "out/design_grid_3x3.png", "out/design_zipf_k5.png"}
    assert written(tmp_path) == pngs
    for name in pngs:
        assert_png(tmp_path / name)
    # k-RR's expected absolute error: off-diagonal mass 1/(e^eps + k - 1) at each of the
    # other values, sum_{x,y} |x - y| = (k^3 - k)/3, so (k^2 - 1)/(3 (e^eps + k - 1)), k = 5
    assert number(r"k-RR at the same eps: (\S+)", out) == pytest.approx(
        8 / (math.e + 4), abs=5e-7)
    # the 3 x 3 grid is the shipped problem file geo_grid_3x3 (its independent scipy value)
    grid = number(r"== location.*\nvalue (\S+)", out)
    assert grid == pytest.approx(load_example("geo_grid_3x3").expected.value, rel=1e-8)
    assert out.count("met True") == 3
    # the estimation design is no worse than k-RR and subset selection at the Zipf prior
    assert number(r"k-RR: \S+ \(\+(\S+)%\)", out) >= 0
    assert number(r"subset selection, d = \d+: \S+ \(\+(\S+)%\)", out) >= 0


def check_custom_lp(out: str, tmp_path: Path) -> None:
    assert written(tmp_path) == {"out/custom_lp.csv", "out/custom_lp.png"}
    assert_png(tmp_path / "out" / "custom_lp.png")
    rows = list(csv.reader((tmp_path / "out" / "custom_lp.csv").open()))
    assert len(rows) == 4 and all(sum(map(float, row)) == pytest.approx(1) for row in rows)
    assert float(rows[0][0]) >= 0.6 - 1e-9  # the floor
    # the certified design and the plain cvxpy problem extended by hand agree
    designed = number(r"with floor, pair_0_1, pair_1_0: value (\S+)", out)
    assert number(r"cvxpy directly: optimal, value (\S+)", out) == pytest.approx(
        designed, rel=1e-6)
    assert designed > number(r"no constraint of yours: value (\S+)", out)
    assert number(r"dual of floor +(\S+)", out) > 0  # the floor binds
    assert "met: True" in out
    assert number(r"measured on the matrix: (\S+)", out) <= 0.02 * (1 + 1e-6)


def check_survey(out: str, tmp_path: Path) -> None:
    assert written(tmp_path) == {"out/survey_reports.txt", "out/survey_estimates.csv"}
    reports = (tmp_path / "out" / "survey_reports.txt").read_text().splitlines()
    assert reports[0].startswith("# randomizer: SubsetSelection(k=20")
    assert len(reports) == 1 + 5_000
    with (tmp_path / "out" / "survey_estimates.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 20
    assert sum(float(r["true_share"]) for r in rows) == pytest.approx(1)
    assert sum(float(r["norm_sub"]) for r in rows) == pytest.approx(1)  # a distribution
    for r in rows:
        assert float(r["lower"]) < float(r["estimate"]) < float(r["upper"])
    assert "picked SubsetSelection(k=20, epsilon=1.0, d=5)" in out


def check_accounting(out: str, tmp_path: Path) -> None:
    assert written(tmp_path) == {"out/accounting_profile.png"}
    assert_png(tmp_path / "out" / "accounting_profile.png")
    # 1000-fold RR(0.1) at delta 1e-6: KOV's Thm 3.3 is tight for randomized response
    exact = number(r"exact composition +eps = (\S+)", out)
    assert exact == pytest.approx(19.3446714479934, abs=1e-9)
    assert number(r"optimal \(KOV\) bound eps = (\S+)", out) == pytest.approx(exact, abs=1e-9)
    # subsampled k-RR: the exact epsilon equals ln(1 + p(e^eps - 1)) (Thm 6.1 is tight)
    assert number(r"exact eps = (0\.\d+), ln", out) == pytest.approx(
        math.log1p(0.1 * math.expm1(1.0)), abs=1e-10)
    assert number(r"from n = (\d+) users", out) == 13813


def check_warner_vs_dont_know(out: str, tmp_path: Path) -> None:
    figures = {f"out/warner_figures/fig{i}.png" for i in range(1, 6)}
    assert written(tmp_path) == figures
    for name in figures:
        assert_png(tmp_path / name)
    # Q_2x3(0.6, 0.2): Shafer eps = ln(p/q) = ln 3, Walley eps = ln((1-q)/q) = ln 4
    assert number(r"Shafer eps = (\S+),", out) == pytest.approx(math.log(3), abs=5e-5)
    assert number(r"Walley eps = (\S+),", out) == pytest.approx(math.log(4), abs=5e-5)


def check_warner_is_optimal(out: str, tmp_path: Path) -> None:
    assert written(tmp_path) == set()
    lines = out.splitlines()
    assert len(lines) == 4  # the fast setting: 2 epsilons x (SLDP, WLDP)
    for line in lines:
        got, warner = re.search(r"P\(Yes\|P\)=(\S+) \(Warner p=(\S+)\)", line).groups()
        assert float(got) == pytest.approx(float(warner), abs=2e-6)
        assert "don't-know mass=0 " in line or "don't-know mass=1e-" in line


CHECKS: dict[str, Callable[[str, Path], None]] = {
    "design_randomizer.py": check_design,
    "custom_lp.py": check_custom_lp,
    "survey.py": check_survey,
    "accounting.py": check_accounting,
    "warner_vs_dont_know.py": check_warner_vs_dont_know,
    "warner_is_optimal.py": check_warner_is_optimal,
}


def test_every_example_is_tested():
    assert {p.name for p in EXAMPLES.glob("*.py")} == set(CHECKS)


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(CHECKS))
def test_example_runs_fast_and_writes_under_out(script, tmp_path):
    out = run(script, tmp_path, "--fast")
    CHECKS[script](out, tmp_path)


@pytest.mark.slow
def test_the_environment_variable_selects_the_fast_setting(tmp_path):
    out = run("warner_is_optimal.py", tmp_path, env={"MECHDESIGN_FAST": "1"})
    check_warner_is_optimal(out, tmp_path)


def test_each_example_says_what_it_shows_and_takes_fast():
    for name in CHECKS:
        text = (EXAMPLES / name).read_text(encoding="utf-8")
        assert text.startswith('"""'), name
        assert "--fast" in text and "MECHDESIGN_FAST" in text, name
        assert f"python examples/{name}" in text, name
