"""Tests of :mod:`mechdesign.cli.compose`, ``mechdesign compose``: tables, JSON equal to
the library's composition, the profile PNG, bad input (one line, exit status 2), and a
zero-private mechanism answered at any number of uses. (``mechdesign amplify``:
test_amplify.py.)"""

from __future__ import annotations

import json
import math

import pytest

import mechdesign as md
from mechdesign.accounting import (
    delta_composed,
    epsilon_composed,
    optimal_composition_epsilon,
)
from mechdesign.cli.main import main


def run_json(capsys, *argv: str):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_compose_json_matches_library(capsys):
    out = run_json(capsys, "compose", "randomized_response", "k=2", "epsilon=0.1",
                   "--k", "1000", "--delta", "1e-6", "--epsilon", "3", "--json")
    assert out["k"] == 1000 and out["epsilon_ldp"] == pytest.approx(0.1)
    by = {r["solved_for"]: r for r in out["results"]}
    rr = md.randomized_response(2, 0.1)
    assert by["delta"]["delta"] == delta_composed(rr, 3.0, 1000).delta
    assert by["epsilon"]["epsilon"] == epsilon_composed(rr, 1e-6, 1000).epsilon
    assert by["epsilon"]["exact"] is True and by["epsilon"]["method"] == "atoms"
    assert by["epsilon"]["worst_pair"] == [0, 1]
    kov = [b for b in out["bounds"] if b["bound"].startswith("optimal")
           and b["solved_for"] == "epsilon"]
    assert kov[0]["value"] == pytest.approx(
        optimal_composition_epsilon(md.epsilon_ldp(rr), 1000, 1e-6), rel=1e-12)
    # KOV is attained by binary RR: the bound equals the exact value
    assert kov[0]["value"] == pytest.approx(by["epsilon"]["epsilon"], rel=1e-9)


def test_compose_table_and_matrix_file(capsys, tmp_path):
    f = tmp_path / "q.csv"
    f.write_text("0.5,0.5,0\n0.1,0.2,0.7\n")
    assert main(["compose", str(f), "--k", "3", "--epsilon", "1", "--delta", "0.9"]) == 0
    text = capsys.readouterr().out
    assert "exact (privacy-loss atoms)" in text and "3 times" in text
    # eps0 = inf (a zero entry): no closed-form rows
    assert "Kairouz" not in text
    out = run_json(capsys, "compose", str(f), "--k", "3", "--delta", "0.5", "--json")
    assert out["epsilon_ldp"] is None  # inf
    assert out["results"][0]["epsilon"] is None  # 1 - 0.5^3 > 0.5: no finite epsilon


def test_compose_grid_bracket_and_png(capsys, tmp_path):
    png = tmp_path / "profile.png"
    assert main(["compose", "randomized_response", "k=3", "epsilon=0.773", "--k", "20",
                 "--delta", "1e-5", "--method", "grid", "--grid", "0.01",
                 "--out", str(png)]) == 0
    text = capsys.readouterr().out
    assert "grid 0.01 (pessimistic; bracket)" in text and "[" in text
    assert f"wrote {png}" in text  # every command lists the files it wrote
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    exact = epsilon_composed(md.randomized_response(3, 0.773), 1e-5, 20).epsilon
    out = run_json(capsys, "compose", "randomized_response", "k=3", "epsilon=0.773", "--k",
                   "20", "--delta", "1e-5", "--method", "grid", "--grid", "0.01", "--json")
    r = out["results"][0]
    assert r["lower"] <= exact <= r["upper"] == r["epsilon"] and r["exact"] is False


@pytest.mark.parametrize("argv, message", [
    (["compose", "warner", "p=0.7"], "give --epsilon, --delta and/or --out"),
    (["compose", "nosuch", "--delta", "0.1"], "unknown mechanism 'nosuch'"),
    (["compose", "warner", "p=0.7", "--delta", "2"], "delta must lie in [0, 1], got 2.0"),
    (["compose", "warner", "p=0.7", "--epsilon", "-1"], "epsilon must be >= 0, got -1.0"),
    (["amplify", "shuffle", "--n", "100", "--delta", "1e-6"], "either a mechanism"),
    (["amplify", "shuffle", "warner", "p=0.7", "--epsilon0", "1", "--n", "10", "--delta",
      "0.1"], "either a mechanism"),
    (["amplify", "shuffle", "--epsilon0", "1", "--n", "100", "--delta", "0",
      "--method", "closed_form"], "0 < delta < 1"),
    (["amplify", "subsample", "--epsilon", "1", "--p", "1.5"], "p must lie in [0, 1]"),
])
def test_bad_input_exits_2(capsys, argv, message):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_argparse_rejects_bad_k(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compose", "warner", "p=0.7", "--k", "2.5", "--delta", "0.1"])
    assert exc.value.code == 2


def test_compose_of_a_zero_private_mechanism_answers_at_any_k(capsys):
    # warner(0.5) has equal rows: every use is 0-private, so k = 10^9 uses are (0, 0)-LDP.
    # The KOV bound used to allocate k + 1 atoms (7.45 GiB at k = 10^9) before answering.
    out = run_json(capsys, "compose", "warner", "p=0.5", "--k", "1000000000",
                   "--epsilon", "0", "--delta", "0", "--json")
    by = {r["solved_for"]: r for r in out["results"]}
    assert by["delta"]["delta"] == 0.0 and by["epsilon"]["epsilon"] == 0.0
    kov = {b["solved_for"]: b["value"] for b in out["bounds"] if b["bound"].startswith("opt")}
    assert kov == {"delta": 0.0, "epsilon": 0.0}


def test_kov_atoms_are_refused_before_allocating_at_huge_k():
    # RR(eps > 0) has k + 1 distinct losses: past MAX_ATOMS a typed refusal, not an
    # allocation; at eps = 0 one atom whatever k (delta = 1 - (1 - delta0)^k)
    from mechdesign.accounting import randomized_response_atoms
    from mechdesign.accounting.pld import MAX_ATOMS
    from mechdesign.errors import SizeLimitError
    with pytest.raises(SizeLimitError, match="MAX_ATOMS"):
        randomized_response_atoms(0.1, 10**9)
    atoms = randomized_response_atoms(0.0, 10**9, 1e-12)
    assert atoms.n_atoms == 1 and atoms.losses[0] == 0.0
    # 1 - (1 - 1e-12)^(10^9) = 9.995e-4 (log1p/expm1), bounded from above
    exact = -math.expm1(10**9 * math.log1p(-1e-12))
    assert exact <= atoms.delta(0.0) <= exact * (1 + 1e-12)
    assert MAX_ATOMS < 10**9
