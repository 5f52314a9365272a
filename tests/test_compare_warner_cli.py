"""``mechdesign compare-warner``: tables, JSON, figures and bad input."""

from __future__ import annotations

import json
import math

import pytest

from mechdesign.analysis.estimation import variance_dont_know, variance_warner
from mechdesign.cli import main

SMALL = ["compare-warner", "--c", "1", "0.5", "--eps", "1", "2", "--fig3-n", "10", "100"]


def run_json(capsys, *extra: str) -> dict:
    assert main([*SMALL, "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_closed_forms_and_simulation(capsys):
    out = run_json(capsys, "--reps", "400", "--seed", "3")
    assert out["parameters"]["seed"] == 3
    shafer = out["mechanism"][0]
    assert shafer["semantics"] == "Shafer"
    assert shafer["epsilon"] == pytest.approx(math.log(3), abs=1e-15)  # p = .6, q = .2
    assert shafer["variance_exact_A"] == variance_dont_know(0.6, 0.2, 0.3, 100)
    assert shafer["variance_approx_A"] == variance_dont_know(0.6, 0.2, 0.3, 100, exact=False)
    q0 = out["mechanism"][1]
    assert q0["epsilon"] == pytest.approx(math.log(1.5), abs=1e-15)
    assert q0["variance_exact_A"] == pytest.approx(0.0621, rel=1e-13)
    assert out["rectangle"]["epsilon_high"] == pytest.approx(math.log(4), abs=1e-15)
    # grid: 2 c x 2 eps (Figs 1-2) + 2 n x 2 eps (Fig. 3, c = 0.9)
    assert len(out["grid"]) == 8
    assert {(g["figure"], g["c"], g["n"]) for g in out["grid"]} == {
        ("1-2", 1.0, 100), ("1-2", 0.5, 100), ("3", 0.9, 10), ("3", 0.9, 100)}
    warner = next(g for g in out["grid"] if g["c"] == 1.0 and g["epsilon"] == 1.0)
    assert warner["variance_exact_A"] == pytest.approx(
        variance_warner(1 / (1 + math.exp(-1)), 0.3, 100), rel=1e-12)
    for row in out["mechanism"] + out["grid"]:
        sim = row["simulated"]
        assert sim["reps"] == 400
        assert abs(sim["mse"] - row["variance_exact_A"]) <= 4.5 * sim["stderr"]
    assert out["figures"] == []


def test_same_seed_same_output(capsys):
    a = run_json(capsys, "--reps", "50", "--seed", "9")
    b = run_json(capsys, "--reps", "50", "--seed", "9")
    assert a == b
    c = run_json(capsys, "--reps", "50")  # fresh entropy, reported so it can be repeated
    again = run_json(capsys, "--reps", "50", "--seed", str(c["parameters"]["seed"]))
    assert again["grid"] == c["grid"]


def test_table_output_and_closed_forms_only(capsys):
    assert main([*SMALL, "--reps", "0"]) == 0
    text = capsys.readouterr().out
    assert "Q_2x3(0.6, 0.2)" in text and "Shafer" in text
    assert f"{variance_dont_know(0.6, 0.2, 0.3, 100):.6g}" in text
    assert "Fig. 5 rectangle" in text
    assert "1-2  0.5" in text


def test_figures_written(tmp_path, capsys):
    out = tmp_path / "figs"
    assert main([*SMALL, "--reps", "30", "--seed", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    for name in ("fig1.png", "fig2.png", "fig3.png", "fig4.png", "fig5.png"):
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
        assert f"wrote {out / name}" in text


@pytest.mark.parametrize(("args", "needle"), [
    (["--p", "0.4"], "0.4"),
    (["--p", "0.7", "--q", "0.5"], "1.2"),
    (["--c", "1.5"], "1.5"),
    (["--eps", "0"], "0.0"),
    (["--reps", "1"], "1"),
    (["--n", "0"], "0"),
    (["--pi", "2"], "2.0"),
    (["--fig3-dont-know", "1"], "1.0"),
    (["--seed", "-1"], "-1"),
    (["--workers", "0"], "0"),
])
def test_bad_input_exit_2_with_message(args, needle, capsys):
    assert main(["compare-warner", "--reps", "0", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mechdesign: error:") and needle in err
