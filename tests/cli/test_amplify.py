"""``mechdesign amplify subsample MECH --p P [--reference ...]``: the exact epsilon of the
subsampled matrix beside the theorem; ``--epsilon`` alone is the theorem.
``mechdesign amplify shuffle``: every method's epsilon (equal to the library's), from a
mechanism or an epsilon0, and with ``--exact [--gamma ...]`` the exact shuffled epsilon of
the honest users beside the numeric bound; ``amplify shuffle-to-ldp``."""

from __future__ import annotations

import json
import math

import pytest

import mechdesign as md
from mechdesign.accounting import exact_shuffle_epsilon, shuffle_epsilon, subsampling_bound
from mechdesign.cli.main import main
from mechdesign.privacy import epsilon_ldp


def run_json(capsys, *argv: str) -> dict:
    assert main(["amplify", "subsample", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)[0]


def test_k_rr_mixed_with_its_own_row_attains_the_theorem(capsys):
    # 3-RR(1) mixed with its row 0 has a worst ratio Q[x, y] = e r_y, so the subsampling
    # theorem ln(1 + p(e - 1)) (Huang & Canonne Thm 6.1) holds with equality
    got = run_json(capsys, "randomized_response", "k=3", "epsilon=1", "--p", "0.1",
                   "--reference", "row:0")
    assert got["epsilon"] == pytest.approx(math.log1p(0.1 * math.expm1(1.0)), rel=1e-12)
    assert got["bound"] == pytest.approx(got["epsilon"], rel=1e-12)


def test_a_uniform_reference_is_strictly_below_the_theorem(capsys):
    # uniform r: the exact epsilon is ln((p a + (1-p)/k) / (p b + (1-p)/k)) with a, b the
    # diagonal and off-diagonal of k-RR, below the theorem applied at eps_in
    a, b = math.e / (math.e + 2), 1 / (math.e + 2)
    p = 0.25
    got = run_json(capsys, "randomized_response", "k=3", "epsilon=1", "--p", str(p),
                   "--reference", "uniform")
    exact = math.log((p * a + (1 - p) / 3) / (p * b + (1 - p) / 3))
    assert got["epsilon"] == pytest.approx(exact, rel=1e-12)
    assert got["epsilon"] < got["bound"]


def test_a_null_output_does_not_amplify_and_the_theorem_alone(capsys):
    got = run_json(capsys, "randomized_response", "k=3", "epsilon=1", "--p", "0.1")
    assert got["epsilon_replacement"] == pytest.approx(1.0, rel=1e-12)
    # the absent user is told apart with certainty: eps = inf, which JSON writes as null
    assert got["epsilon"] is None and got["outputs"][-1] == "null"
    theorem = run_json(capsys, "--epsilon", "1", "--p", "0.1")
    assert theorem["epsilon"] == pytest.approx(math.log1p(0.1 * math.expm1(1.0)), rel=1e-15)


@pytest.mark.parametrize("argv, words", [
    (("--p", "0.1"), "give either a mechanism"),
    (("warner", "p=0.75", "--epsilon", "1", "--p", "0.1"), "not both"),
    (("warner", "p=0.75", "--p", "0.1", "--reference", "row:7"), "got 'row:7'"),
    (("--epsilon", "1", "--p", "0.1", "--reference", "uniform"), "--reference needs"),
])
def test_bad_arguments_are_one_line(capsys, argv, words):
    assert main(["amplify", "subsample", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_cli_amplify_shuffle_exact(capsys):
    argv = ["amplify", "shuffle", "randomized_response", "k=2", "epsilon=1", "--n", "50",
            "--delta", "1e-6", "--exact", "--gamma", "0.5"]
    assert main([*argv, "--json"]) == 0
    out = {r["method"]: r for r in json.loads(capsys.readouterr().out)}
    rr = md.randomized_response(2, 1.0)
    assert out["exact"]["epsilon"] == exact_shuffle_epsilon(rr, 50, 1e-6, gamma=0.5).epsilon
    assert out["exact"]["honest"] == 25 and out["numeric"]["n"] == 25
    assert out["numeric"]["epsilon"] == shuffle_epsilon(epsilon_ldp(rr), 25, 1e-6).epsilon
    assert out["exact"]["epsilon"] <= out["numeric"]["epsilon"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "25 honest users of 50" in text and "exact" in text
    assert main(["amplify", "shuffle", "--epsilon0", "1", "--n", "5", "--delta", "0.1",
                 "--exact"]) == 2
    assert "--exact needs a mechanism" in capsys.readouterr().err


def run_argv_json(capsys, *argv: str):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_amplify_shuffle_all_methods(capsys):
    out = run_argv_json(capsys, "amplify", "shuffle", "--epsilon0", "4", "--n", "1e5", "--delta",
                   "1e-6", "--method", "all", "--json")
    by = {r["method"]: r for r in out}
    assert 0.1675 < by["numeric"]["epsilon"] < 0.1728
    assert by["numeric"]["epsilon"] == shuffle_epsilon(4.0, 10**5, 1e-6).epsilon
    assert by["closed_form_fmt21"]["epsilon"] == pytest.approx(0.5378, abs=5e-5)
    assert by["closed_form"]["restricted"] is True
    assert main(["amplify", "shuffle", "--epsilon0", "4", "--n", "100000", "--delta", "1e-6",
                 "--method", "all"]) == 0
    text = capsys.readouterr().out
    assert "restricted class (erratum)" in text and "note (closed_form)" in text


@pytest.mark.slow  # 2.5-11 s: left out of the quick and the floors runs
def test_amplify_shuffle_from_mechanism(capsys):
    out = run_argv_json(capsys, "amplify", "shuffle", "randomized_response", "k=3", "epsilon=2",
                   "--n", "10000", "--delta", "1e-8", "--json")
    assert out[0]["epsilon0"] == pytest.approx(2.0)
    assert out[0]["epsilon"] == shuffle_epsilon(
        md.epsilon_ldp(md.randomized_response(3, 2.0)), 10**4, 1e-8).epsilon


def test_amplify_subsample_and_shuffle_to_ldp(capsys):
    out = run_argv_json(capsys, "amplify", "subsample", "--epsilon", "1", "--delta", "1e-6",
                   "--p", "0.01", "--json")
    assert out[0]["epsilon"] == subsampling_bound(1.0, 1e-6, 0.01).epsilon
    assert out[0]["delta"] == pytest.approx(1e-8)
    out = run_argv_json(capsys, "amplify", "shuffle-to-ldp", "--epsilon", "0.5", "--delta",
                   "1e-6", "--n", "1000", "--json")
    assert out[0]["epsilon"] == pytest.approx(0.5 + math.log(1000))
    assert main(["amplify", "subsample", "--epsilon", "1", "--p", "0.5"]) == 0
    assert "amplified epsilon" in capsys.readouterr().out
