"""Tests of :mod:`mechdesign.cli.calibrate`, ``mechdesign calibrate``: the table with both
ends of the step, JSON equal to the library's calibration, one-line errors with exit
status 2."""

from __future__ import annotations

import json
import math

import pytest

import mechdesign as md
from mechdesign.accounting import delta_composed, shuffle_delta, subsampling_bound
from mechdesign.accounting.calibration import (
    calibrate_composition,
    calibrate_shuffle,
    calibrate_subsampling,
)
from mechdesign.cli.main import main


def run_json(capsys, *argv: str) -> dict:
    assert main(["calibrate", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_compose_epsilon_json_equals_the_library(capsys):
    out = run_json(capsys, "compose", "randomized_response", "k=2", "--k", "1000",
                   "--epsilon", "1", "--delta", "1e-6")
    c = calibrate_composition("randomized_response", "epsilon", target_epsilon=1.0,
                              target_delta=1e-6, k=1000, params={"k": 2})
    assert out["value"] == c.value and out["infeasible"] == c.infeasible
    assert out["bracket"] == [c.value, c.infeasible] and out["exact"] is True
    assert out["infeasible"] == math.nextafter(out["value"], math.inf)
    # the round trip, through the forward computation
    rr = md.randomized_response
    assert delta_composed(rr(2, out["value"]), 1.0, 1000).delta <= 1e-6
    assert delta_composed(rr(2, out["infeasible"]), 1.0, 1000).delta > 1e-6
    assert out["achieved"] == [1.0, c.achieved[1]] and out["missed"][1] > 1e-6


def test_compose_table_prints_both_ends_with_every_digit(capsys):
    assert main(["calibrate", "compose", "randomized_response", "k=2", "--k", "1000",
                 "--epsilon", "1", "--delta", "1e-6"]) == 0
    text = capsys.readouterr().out
    c = calibrate_composition("randomized_response", "epsilon", target_epsilon=1.0,
                              target_delta=1e-6, k=1000, params={"k": 2})
    assert text.startswith("largest epsilon meeting (epsilon, delta) = (1.0, 1e-06)")
    lines = text.splitlines()
    calibrated = next(line for line in lines if line.startswith("calibrated"))
    nxt = next(line for line in lines if line.startswith("next double"))
    assert repr(c.value) in calibrated and calibrated.rstrip().endswith("yes")
    assert repr(c.infeasible) in nxt and nxt.rstrip().endswith("no")
    assert "exact privacy-loss atoms" in text


def test_compose_number_of_uses_catalog_and_file(capsys, tmp_path):
    out = run_json(capsys, "compose", "randomized_response", "k=2", "epsilon=0.01",
                   "--free", "k", "--epsilon", "1", "--delta", "1e-6")
    rr = md.randomized_response(2, 0.01)
    k = out["value"]
    assert out["infeasible"] == k + 1
    assert delta_composed(rr, 1.0, k).delta <= 1e-6 < delta_composed(rr, 1.0, k + 1).delta
    f = tmp_path / "rr.csv"
    f.write_text("".join(",".join(repr(float(v)) for v in row) + "\n" for row in rr.matrix))
    assert run_json(capsys, "compose", str(f), "--free", "k", "--epsilon", "1", "--delta",
                    "1e-6", "--bounds", "1", "100")["bracket"] == [100, None]
    assert main(["calibrate", "compose", str(f), "--free", "k", "--epsilon", "1",
                 "--delta", "1e-6", "--bounds", "1", "100"]) == 0
    assert "the whole searched range meets the target" in capsys.readouterr().out


@pytest.mark.slow  # 2.5-11 s: left out of the quick and the floors runs
def test_shuffle_both_questions(capsys):
    out = run_json(capsys, "shuffle", "--n", "1e5", "--epsilon", "0.5", "--delta", "1e-6")
    e0 = out["value"]
    assert out["parameter"] == "epsilon0" and out["setting"] == "shuffle"
    assert shuffle_delta(e0, 10**5, 0.5).upper <= 1e-6 < shuffle_delta(
        out["infeasible"], 10**5, 0.5).upper
    out = run_json(capsys, "shuffle", "--epsilon0", "4", "--epsilon", "0.5", "--delta", "1e-6")
    c = calibrate_shuffle("n", target_epsilon=0.5, target_delta=1e-6, epsilon0=4.0)
    assert out["bracket"] == [c.value, c.value - 1] and out["direction"] == "smallest"


def test_subsample_both_questions(capsys):
    out = run_json(capsys, "subsample", "--epsilon0", "1", "--epsilon", "0.1", "--delta", "0")
    assert out["value"] == pytest.approx(math.expm1(0.1) / math.expm1(1.0), rel=1e-15)
    assert subsampling_bound(1.0, 0.0, out["value"]).epsilon <= 0.1
    assert subsampling_bound(1.0, 0.0, out["infeasible"]).epsilon > 0.1
    out = run_json(capsys, "subsample", "--p", "0.01", "--delta0", "1e-5", "--epsilon", "0.1",
                   "--delta", "1e-6")
    c = calibrate_subsampling("epsilon0", target_epsilon=0.1, target_delta=1e-6, p=0.01,
                              delta0=1e-5)
    assert out["value"] == c.value and out["achieved"] == [0.1, pytest.approx(1e-7)]


def test_help_lists_the_catalog(capsys):
    from mechdesign.catalog import CATALOG

    with pytest.raises(SystemExit):
        main(["calibrate", "compose", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"Catalog names: {', '.join(CATALOG)}" in text


@pytest.mark.parametrize("argv, message", [
    (["compose", "randomized_response", "k=2", "--epsilon", "1", "--delta", "1e-6"],
     "give --k"),
    (["compose", "randomized_response", "k=2", "epsilon=0.1", "--free", "k", "--k", "3",
      "--epsilon", "1", "--delta", "1e-6"], "leave out --k"),
    (["compose", "randomized_response", "k=2", "--k", "3", "--epsilon", "nan",
      "--delta", "1e-6"], "target_epsilon must not be NaN"),
    (["compose", "randomized_response", "k=2", "--k", "3", "--epsilon", "1",
      "--delta", "2"], "target_delta must lie in [0, 1], got 2.0"),
    (["compose", "warner", "--free", "p", "--k", "3", "--epsilon", "1", "--delta", "1e-6"],
     "give bounds=(low, high) for parameter 'p'"),
    (["compose", "randomized_response", "k=2", "epsilon=1", "--free", "k", "--epsilon",
      "0.01", "--delta", "1e-6"], "cannot be met"),
    (["compose", "randomized_response", "k=2", "epsilon=1", "--free", "k", "--epsilon",
      "1", "--delta", "1e-6", "--bounds", "1", "2.5"], "must be integers"),
    (["shuffle", "--epsilon", "1", "--delta", "1e-6"], "give --n"),
    (["shuffle", "--n", "10", "--epsilon0", "1", "--epsilon", "1", "--delta", "1e-6"],
     "not both"),
    (["subsample", "--epsilon", "1", "--delta", "1e-6"], "give --epsilon0"),
    (["subsample", "--p", "0.1", "--delta0", "1e-4", "--epsilon", "1", "--delta", "1e-6"],
     "target (epsilon=1.0, delta=1e-06) cannot be met"),
])
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    assert main(["calibrate", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mechdesign: error: ") and err.count("\n") == 1
    assert message in err


def test_missing_target_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["calibrate", "shuffle", "--n", "10", "--epsilon", "1"])
    assert exc.value.code == 2
    assert "--delta" in capsys.readouterr().err
