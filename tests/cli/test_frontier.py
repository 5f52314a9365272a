"""``mechdesign frontier``: table, JSON and PNG, agreeing with the Python frontier."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mechdesign.cli.main import main
from mechdesign.frontier.sweep import frontier
from mechdesign.io.problems import load_problem
from tests.paths import PROBLEMS

KRR = str(PROBLEMS / "krr_hamming.toml")
SUBSET = str(PROBLEMS / "subset_selection_estimation.toml")


def test_frontier_json_matches_python(capsys):
    assert main(["frontier", KRR, "--eps", "0.5,1,2", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    expected = frontier(load_problem(KRR).problem, [0.5, 1.0, 2.0]).values
    np.testing.assert_allclose(record["values"], expected, rtol=1e-12)
    # k-RR: (k-1)/(e^eps+k-1) at each epsilon
    np.testing.assert_allclose(record["values"], 2 / (np.exp([0.5, 1, 2]) + 2), rtol=1e-9)


def test_frontier_table_and_png_with_families(tmp_path, capsys):
    png = tmp_path / "f.png"
    assert main(["frontier", SUBSET, "--eps", "0.5:2:3", "--out", str(png)]) == 0
    out = capsys.readouterr().out
    assert "subset_selection" in out and "randomized_response" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("grid", ["1:2", "a:b:3", "1:2:0", "x"])
def test_bad_grid_is_one_line(grid, capsys):
    assert main(["frontier", KRR, "--eps", grid]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mechdesign: error:") and grid in err and "Traceback" not in err


def test_frontier_families_beside_a_loss_objective(capsys):
    # k-RR is the optimum for Hamming loss under LDP (Kairouz et al. 2016): the family
    # column equals the designed frontier; unary encodings (8 outputs) do not fit the loss
    assert main(["frontier", KRR, "--eps", "0.5,1,2", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert set(record["families"]) == {"randomized_response", "subset_selection"}
    np.testing.assert_allclose(record["families"]["randomized_response"], record["values"],
                               rtol=1e-8)


def test_frontier_warner_and_dont_know_families(tmp_path, capsys):
    # Li et al. 2022: under mass SLDP Warner (c = 1) is optimal, smaller c is worse
    png = tmp_path / "w.png"
    assert main(["frontier", str(PROBLEMS / "warner_evidential.toml"), "--eps", "0.5,1,2", "--json",
                 "--out", str(png)]) == 0
    record = json.loads(capsys.readouterr().out)
    fams = record["families"]
    np.testing.assert_allclose(fams["Warner (Q_2x3, c = 1)"], record["values"], rtol=1e-6)
    assert all(a > b for a, b in zip(fams["Q_2x3, c = 0.5"], record["values"], strict=True))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["frontier", str(PROBLEMS / "warner_evidential.toml"), "--eps", "1", "--json",
                 "--no-families"]) == 0
    assert json.loads(capsys.readouterr().out)["families"] == {}


def test_frontier_bad_workers_is_one_line(capsys):
    assert main(["frontier", KRR, "--eps", "1", "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert "--workers must be >= 1, got 0" in err and "Traceback" not in err


@pytest.mark.parametrize("path", sorted(PROBLEMS.glob("*.toml")), ids=lambda p: p.name)
def test_frontier_succeeds_on_every_shipped_problem(path, capsys):
    # the families never abort a sweep: a family too large for its matrix is evaluated in
    # closed form or left out with a note (geo_grid_4x4_spanner, k = 16, used to exit 2)
    assert main(["frontier", str(path), "--eps", "1", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert set(record["family_notes"]) <= set(record["families"]) | {
        "local_hashing", "unary_encoding", "optimized_unary_encoding", "subset_selection",
        "hadamard_response", "randomized_response"}
