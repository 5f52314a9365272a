"""``mechdesign frontier``: table, JSON and PNG, agreeing with the Python frontier."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mechdesign.cli import main
from mechdesign.frontier import frontier
from mechdesign.problems import load_problem

KRR = "problems/krr_hamming.toml"
SUBSET = "problems/subset_selection_estimation.toml"


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
