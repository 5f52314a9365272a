"""``mechdesign compare-warner``: tables, JSON, figures and bad input."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import math

import pytest

import mechdesign as md
from mechdesign.cli.main import main
from mechdesign.estimation.variances import variance_dont_know, variance_warner
from mechdesign.studies.figure_data import figure_4_curves, shafer_grid
from mechdesign.studies.figures import ERRORBAR_SE, figure_3, figure_4, figure_4_title
from mechdesign.studies.warner_comparison import compare_warner
from tests.paths import EXAMPLES

EXAMPLE = EXAMPLES / "warner_vs_dont_know.py"
FIGURES = ("fig1.png", "fig2.png", "fig3.png", "fig4.png", "fig5.png")

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


@pytest.mark.slow
def test_figures_written(tmp_path, capsys):
    out = tmp_path / "figs"
    assert main([*SMALL, "--reps", "30", "--seed", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    for name in FIGURES:
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
        assert f"wrote {out / name}" in text


def test_progress_on_stderr_by_default_and_silenced(capsys):
    # 1 Q_2x3 + 5 Q_lambda + 2 c x 2 eps + 2 n x 2 eps = 14 simulated points
    assert main([*SMALL, "--reps", "20", "--seed", "1"]) == 0
    err = capsys.readouterr().err
    # stderr is not a terminal here: plain lines (at most one a second), always the last
    assert err.startswith("compare-warner: 1/14 simulated points\n") and "\r" not in err
    assert err.endswith("compare-warner: 14/14 simulated points\n")
    assert main([*SMALL, "--reps", "20", "--seed", "1", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""
    assert main([*SMALL, "--reps", "20", "--seed", "1", "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    run_json(capsys, "--reps", "20", "--seed", "1")  # --json: no progress line
    assert capsys.readouterr().err == ""
    assert main([*SMALL, "--reps", "0"]) == 0  # nothing simulated: nothing to report
    assert capsys.readouterr().err == ""


def test_cli_prints_what_compare_warner_computes(capsys):
    c = compare_warner(cs=[1.0, 0.5], epsilons=[1.0, 2.0], fig3_n=[10, 100], reps=40, rng=4)
    out = run_json(capsys, "--reps", "40", "--seed", "4")
    assert out["mechanism"][0]["simulated"]["mse"] == c.rows[0].simulated.mse
    assert [g["simulated"]["mse"] for g in out["grid"]] == [
        pt.simulated.mse for pt in c.fig12 + c.fig3]
    assert len(c.rows) == 6 and len(c.path) == 5 and c.seed == 4


@pytest.mark.slow
def test_example_writes_the_five_figures_and_the_table(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("warner_vs_dont_know", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    written = example.main(str(tmp_path / "figs"), reps=20, cs=[1.0, 0.6], epsilons=[1.0, 3.0],
                           fig3_n=[10, 100], progress=False)  # small on purpose (not timed)
    assert [p.name for p in written] == list(FIGURES)
    text = capsys.readouterr().out
    for name in FIGURES:
        data = (tmp_path / "figs" / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
        assert f"wrote {tmp_path / 'figs' / name}" in text
    # the same table as the command: exact A, approximate A, simulated with s.e.
    assert "approx/exact-1" in text and "s.e." in text and "Fig. 5 rectangle" in text
    assert f"{variance_dont_know(0.6, 0.2, 0.3, 100):.6g}" in text


def test_p_below_half_reports_degenerate_readings(capsys):
    # Q_2x3(0.4, 0.1) (half the answers "don't know") was refused; now Shafer's reading is
    # reported as usual and the Walley/optimal readings are flagged (nu^W = inf, eps^O = 0)
    assert main(["compare-warner", "--p", "0.4", "--q", "0.1", "--reps", "0", "--c", "1",
                 "--eps", "1", "--fig3-n", "10"]) == 0
    text = capsys.readouterr().out
    assert f"{variance_dont_know(0.4, 0.1, 0.3, 100):.6g}" in text
    assert "nu^W = inf" in text and "eps^O = 0," in text
    assert "DEGENERATE: Walley and optimal readings degenerate at p <= 1/2" in text
    assert "flips Yes/No; not nu^W, eps^O (degenerate at p <= 1/2)" in text
    assert main(["compare-warner", "--p", "0.5", "--q", "0.2", "--reps", "0", "--c", "1",
                 "--eps", "1", "--fig3-n", "10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    a = out["analysis"]
    assert a["walley_degenerate"] is a["optimal_degenerate"] is True
    assert a["variance_walley"] is None and a["epsilon_optimal"] == 0.0  # inf -> null
    assert a["lambda_uninformative"] == 0.0 and "warner(1/2)" in a["note"]
    assert "degenerate" in out["mechanism"][1]["semantics"]
    # at p > 1/2 nothing is flagged
    assert main(["compare-warner", "--reps", "0", "--c", "1", "--eps", "1", "--fig3-n", "10",
                 "--json"]) == 0
    a = json.loads(capsys.readouterr().out)["analysis"]
    assert a["walley_degenerate"] is False and a["note"] == ""


@pytest.mark.parametrize(("args", "needle"), [
    (["--p", "0.1"], "p = 0.1, q = 0.2"),
    (["--p", "0.2"], "p = 0.2, q = 0.2"),
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


# ------------------------------------------------------------------------------- the figures
def test_figure_3_linear_panel_shows_every_error_bar():
    # n = 10, eps = 0.5: an upper bar end above 1.1 x the curve there (the old limit; seen
    # with 1000 surveys, forced here by widening the error bar) must be inside the panel
    pts = list(shafer_grid([0.9], [0.5, 2.0], 0.3, [10, 100], reps=100, rng=1))
    wide = dataclasses.replace(pts[0].simulated, mse=pts[0].variance,
                               stderr=0.1 * pts[0].variance)
    pts[0] = dataclasses.replace(pts[0], simulated=wide)
    tops = [pt.simulated.mse + ERRORBAR_SE * pt.simulated.stderr for pt in pts]
    assert max(tops) > 1.1 * pts[0].variance  # the case once clipped
    assert figure_3(pts, 0.3).axes[0].get_ylim()[1] >= max(tops)


def test_figure_4_reference_curves_are_distinguishable_and_the_title_names_the_setting():
    dk = md.dont_know(0.6, 0.2)
    eps = md.epsilon_wldp(dk)  # ln((1 - q)/q) = ln 4
    fig = figure_4(figure_4_curves(0.6, 0.2), title=figure_4_title(0.6, 0.2, eps))
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    f1, f2 = lines[r"$f_\varepsilon$"], lines[r"$f_{2\varepsilon}$"]
    assert f1.get_linestyle() != f2.get_linestyle()
    assert f1.get_color() != f2.get_color()
    assert "(0.6, 0.2)" in ax.get_title() and "ln 4 " in ax.get_title()
    assert set(figure_4_curves(0.6, 0.2)) == {"f_eps", "f_2eps", "T^pe", "T^op", "T^pe_2",
                                              "T^op_2"}
