"""``mechdesign solve``'s matrix preview: the table shows the columns in
use, all-zero columns are left out and a line names the columns in use."""

from __future__ import annotations

import numpy as np
import pytest

import mechdesign as md
from mechdesign.cli.main import main
from mechdesign.cli.solve import MAX_TABLE_COLUMNS, _print_mechanism

ABSOLUTE_50 = """\
title = "absolute loss, k = 50"
[privacy]
notion = "ldp"
epsilon = 1.0
[objective]
kind = "expected_loss"
loss = "absolute"
k = 50
"""


def header_of(out: str) -> list[str]:
    """The column labels of the printed mechanism table (the line after the 'x' cell)."""
    lines = out.splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith("mechanism "))
    header = next(line for line in lines[i:] if line.startswith("x "))
    return header.split()[1:]


def test_k50_absolute_loss_preview_shows_the_four_outputs_in_use(capsys, tmp_path):
    # the optimum at k = 50, eps = 1, uniform prior uses outputs 16, 17, 32, 33
    # only; the preview used to show columns 0..11, all zero
    path = tmp_path / "abs50.toml"
    path.write_text(ABSOLUTE_50)
    out_json = tmp_path / "abs50.json"
    assert main(["solve", str(path), "--out", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert "mechanism Q[x, y] = P(y | x): 50 inputs x 50 outputs" in out
    assert "uses 4 of 50 outputs: 16, 17, 32, 33 (the other 46 are all zero)" in out
    assert header_of(out) == ["16", "17", "32", "33"]
    assert "more column" not in out
    # the written matrix keeps every column, and those four are exactly its non-zero ones
    Q = md.io.load_mechanism(out_json).matrix
    assert Q.shape == (50, 50)
    assert np.flatnonzero(Q.any(axis=0)).tolist() == [16, 17, 32, 33]
    row0 = next(line for line in out.splitlines() if line.startswith("0 "))
    np.testing.assert_allclose([float(c) for c in row0.split()[1:]], Q[0, [16, 17, 32, 33]],
                               rtol=1e-5, atol=1e-12)


def test_many_columns_in_use_are_cut_and_counted(capsys):
    # 30 outputs, the first 20 in use
    k, m = 3, 30
    Q = np.zeros((k, m))
    Q[:, :20] = 1 / 20
    _print_mechanism(md.Mechanism(Q))
    out = capsys.readouterr().out
    assert f"uses 20 of {m} outputs: 0, 1, 2" in out and ", 19 (the other 10 are all zero)" \
        in out
    assert header_of(out) == [str(j) for j in range(MAX_TABLE_COLUMNS)]
    assert "... 8 more columns in use (--json or --out FILE has them all)" in out


def test_a_mechanism_using_every_output_has_no_uses_line(capsys):
    _print_mechanism(md.randomized_response(20, 1.0))
    out = capsys.readouterr().out
    assert "uses" not in out
    assert header_of(out) == [str(j) for j in range(MAX_TABLE_COLUMNS)]
    assert "... 8 more columns (--json or --out FILE has them all)" in out


def test_a_zero_mass_focal_set_is_named_not_shown(capsys):
    # Li et al. 2022 Q_2x3 with no "don't know" mass: Warner's p = 0.75 as masses
    dk = md.dont_know(0.75, 0.25)
    _print_mechanism(dk)
    out = capsys.readouterr().out
    assert "uses 2 of 3 focal sets: {Yes}, {No} (all zero: {Yes,No})" in out
    assert header_of(out) == ["{Yes}", "{No}"]


@pytest.mark.parametrize("used", [[0], [49]])
def test_a_single_output_in_use(capsys, used):
    Q = np.zeros((2, 50))
    Q[:, used] = 1.0
    _print_mechanism(md.Mechanism(Q))
    out = capsys.readouterr().out
    assert f"uses 1 of 50 outputs: {used[0]} (the other 49 are all zero)" in out
    assert header_of(out) == [str(used[0])]
