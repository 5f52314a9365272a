"""``mechdesign check --renyi / --zcdp / --leakage``: the Rényi, zCDP and leakage views of a
mechanism next to its LDP measures, against closed forms."""

from __future__ import annotations

import json
import math

import pytest

from mechdesign.cli.main import main

E = math.e
A, B = E / (E + 2), 1 / (E + 2)  # 3-RR at eps = 1: diagonal and off-diagonal


def test_views_of_three_ary_rr_match_their_closed_forms(capsys):
    rc = main(["check", "randomized_response", "k=3", "epsilon=1", "--renyi", "2",
               "--renyi", "inf", "--zcdp", "--leakage", "--json"])
    assert rc == 0
    got = json.loads(capsys.readouterr().out)["measures"]
    # D_2(P || Q) = ln sum_y P^2 / Q for the rows (A, B, B) and (B, A, B)
    assert got["renyi_epsilon@2"] == pytest.approx(math.log(A * A / B + B * B / A + B),
                                                   rel=1e-12)
    assert got["renyi_epsilon@inf"] == pytest.approx(got["epsilon_ldp"], rel=1e-15)
    # Bayes capacity sum_y max_x Q[x, y] = 3 e / (e + 2) (Braun et al. 2009: uniform prior)
    assert got["bayes_capacity"] == pytest.approx(3 * A, rel=1e-15)
    assert got["min_entropy_capacity_bits"] == pytest.approx(math.log2(3 * A), rel=1e-15)
    # zCDP: eps(alpha) / alpha <= rho <= eps^2 / 2 (Bun and Steinke 2016) for eps-LDP
    assert got["renyi_epsilon@2"] / 2 <= got["zcdp_rho"] <= 0.5
    rc = main(["check", "randomized_response", "k=3", "epsilon=1", "--leakage"])
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("bayes_capacity"))
    assert row.split()[1:] == ["1.728350654"]  # no e^value for a capacity


def test_a_negative_order_is_refused(capsys):
    assert main(["check", "warner", "p=0.75", "--renyi", "-1"]) == 2
    assert "--renyi orders must be >= 0, got -1.0" in capsys.readouterr().err
