"""``mechdesign tradeoff``: breakpoints as a table or JSON, and a PNG."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mechdesign import save_mechanism, warner
from mechdesign.cli.main import main
from tests.spies import spy_on


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_binary_rr_json_is_f_eps(capsys):
    # RR(1) has trade-off f_1: kink at 1/(1 + e)
    rc, out, err = run(capsys, "tradeoff", "randomized_response", "k=2", "epsilon=1", "--json")
    assert rc == 0 and err == ""
    data = json.loads(out)
    kink = 1 / (1 + math.e)
    got = [(b["alpha"], b["beta"]) for b in data["breakpoints"]]
    assert got == [pytest.approx((0.0, 1.0)), pytest.approx((kink, kink), rel=1e-14),
                   pytest.approx((1.0, 0.0))]
    assert data["kind"] == "ordinary" and data["pair"] is None and data["k"] == 1
    assert data["reference_epsilon"] == pytest.approx(1.0)
    assert data["curve_epsilon"] == pytest.approx(1.0, abs=1e-12)
    assert data["convex"] is True


def test_dont_know_table_pessimistic_then_optimistic(capsys):
    # Li et al. 2022 s.3: T^pe of Q_2x3(0.6, 0.2) is f_{ln 1.5} (kink (0.4, 0.4)),
    # T^op is f_{ln 4} (kink (0.2, 0.2)); the references are eps_S = ln 3, eps_W = ln 4
    rc, out, _ = run(capsys, "tradeoff", "dont_know", "p=0.6", "q=0.2")
    assert rc == 0
    assert "pessimistic" in out
    rows = [line.split() for line in out.splitlines() if line[:1].isdigit()]
    assert [r[:2] for r in rows] == [["0", "1"], ["0.4", "0.4"], ["1", "0"]]
    assert "1.098612289" in out  # ln 3
    rc, out, _ = run(capsys, "tradeoff", "dont_know", "p=0.6", "q=0.2", "--kind", "optimistic",
                     "--json")
    data = json.loads(out)
    assert [(b["alpha"], b["beta"]) for b in data["breakpoints"]][1] == pytest.approx((0.2, 0.2))
    assert data["reference_epsilon"] == pytest.approx(math.log(4))
    assert data["curve_epsilon"] == pytest.approx(math.log(4))


def test_two_fold_optimistic_counterexample_point(capsys):
    # the breakpoint (0.12, 0.13) of T^op_2 for Q_2x3(0.3, 0.2) (see test_belief_tradeoff)
    rc, out, _ = run(capsys, "tradeoff", "dont_know", "p=0.3", "q=0.2", "--kind", "optimistic",
                     "--pair", "0", "1", "--k", "2", "--json")
    assert rc == 0
    data = json.loads(out)
    pts = [(b["alpha"], b["beta"]) for b in data["breakpoints"]]
    assert any(a == pytest.approx(0.12) and b == pytest.approx(0.13) for a, b in pts)
    assert data["convex"] is False
    assert data["reference_epsilon"] == pytest.approx(2 * math.log(4))


def test_png_output(capsys, tmp_path):
    out_png = tmp_path / "rr.png"
    rc, out, _ = run(capsys, "tradeoff", "warner", "p=0.75", "--k", "3", "--out", str(out_png))
    assert rc == 0
    assert f"wrote {out_png}" in out
    data = out_png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_mechanism_file_and_epsilon_override(capsys, tmp_path):
    path = tmp_path / "w.json"
    save_mechanism(warner(0.75), path)
    rc, out, _ = run(capsys, "tradeoff", str(path), "--pair", "1", "0", "--epsilon", "0.5")
    assert rc == 0
    assert "f_eps (eps=0.5)" in out
    rows = [line.split() for line in out.splitlines() if line[:1].isdigit()]
    # warner(0.75) is f_{ln 3}: kink (1/4, 1/4); f_0.5 there is 1 - e^0.5/4
    assert rows[1][:2] == ["0.25", "0.25"]
    assert float(rows[1][2]) == pytest.approx(1 - math.exp(0.5) / 4, rel=1e-9)


@pytest.mark.parametrize("argv,match", [
    (["tradeoff", "warner", "p=0.75", "--pair", "0", "2"], "index 2"),
    (["tradeoff", "warner", "p=0.75", "--k", "0"], "--k must be >= 1, got 0"),
    (["tradeoff", "warner", "p=0.75", "--epsilon", "-1"], "-1.0"),
    (["tradeoff", "no_such_mechanism"], "no_such_mechanism"),
    (["tradeoff", "dont_know", "p=0.6", "q=0.2", "--kind", "optimistic", "--k", "4"],
     "16 outputs"),
])
def test_errors_are_one_line_and_exit_2(capsys, argv, match):
    rc, _, err = run(capsys, *argv)
    assert rc == 2
    assert err.startswith("mechdesign: error:") and match in err
    assert err.count("\n") == 1


def test_thousand_fold_rr_epsilon_and_reference_are_exact(capsys):
    # 1000-fold RR(0.05): pure losses add, so the smallest eps with T >= f_eps is 1000 * 0.05
    # (read off the breakpoints, T(0) = 1 - 2e-15 would give inf); the default reference is
    # f_{eps, 1e-6} at the exact epsilon of the composition at delta = 1e-6, which the curve
    # must dominate (Dong, Roth & Su 2022, Prop. 2.5)
    from mechdesign import randomized_response
    from mechdesign.accounting import epsilon_composed, tradeoff_dp

    rc, out, _ = run(capsys, "tradeoff", "randomized_response", "k=2", "epsilon=0.05",
                     "--k", "1000", "--json")
    assert rc == 0
    data = json.loads(out)
    assert data["curve_epsilon"] == pytest.approx(50.0, rel=1e-12)
    assert data["reference_delta"] == 1e-6
    ref = epsilon_composed(randomized_response(2, 0.05), 1e-6, 1000).epsilon
    assert data["reference_epsilon"] == pytest.approx(ref, rel=1e-12)
    a = [b["alpha"] for b in data["breakpoints"]]
    beta = [b["beta"] for b in data["breakpoints"]]
    gap = [b - f for b, f in zip(beta, tradeoff_dp(ref, a, 1e-6), strict=True)]
    assert min(gap) >= -1e-12
    rc, out, _ = run(capsys, "tradeoff", "randomized_response", "k=2", "epsilon=0.05",
                     "--k", "1000", "--delta", "0", "--json")
    assert json.loads(out)["reference_epsilon"] == pytest.approx(50.0, rel=1e-12)
    rc, out, err = run(capsys, "tradeoff", "warner", "p=0.7", "--delta", "2")
    assert rc != 0 and "--delta must lie in [0, 1], got 2.0" in err


def test_long_curves_print_a_spread_unless_table(capsys):
    # 1000-fold RR(0.05): its curve's breakpoints (the library's own, 276 since the curve is
    # never raised by simplification; 278 before), 20 of them spread over alpha by default
    # (the ends included), every one with --table, the same rows as --json
    from mechdesign import randomized_response
    from mechdesign.accounting import tradeoff_function
    argv = ("tradeoff", "randomized_response", "k=2", "epsilon=0.05", "--k", "1000")
    rc, out, _ = run(capsys, *argv, "--json")
    n = len(json.loads(out)["breakpoints"])
    assert n == len(tradeoff_function(randomized_response(2, 0.05), k=1000).alphas) > 200
    rc, out, _ = run(capsys, *argv)
    rows = [line.split() for line in out.splitlines()
            if line[:1].isdigit() and "breakpoints" not in line]
    assert rc == 0 and len(rows) == 20
    assert rows[0][:2] == ["0", "1"] and rows[-1][:2] == ["1", "0"]
    assert f"20 of {n} breakpoints, spread over alpha (--table prints all" in out
    alphas = [float(r[0]) for r in rows]
    assert alphas == sorted(alphas) and max(np.diff(alphas)) < 0.1
    rc, out, _ = run(capsys, *argv, "--table")
    assert len([line for line in out.splitlines()
                if line[:1].isdigit() and "breakpoints" not in line]) == n
    assert "breakpoints, spread over alpha" not in out


def test_composed_png_has_the_clt_curve_and_the_log_panel(capsys, tmp_path, monkeypatch):
    # the figure of a composed ordinary curve: G_mu with mu = 2 sqrt(k) tanh(eps0 / 2)
    # (Dong, Roth & Su 2022 Thm 3.5 for binary RR) and a second, log-log panel
    drawn = spy_on(monkeypatch, "plot_tradeoff")
    png = tmp_path / "rr.png"
    rc, _, _ = run(capsys, "tradeoff", "randomized_response", "k=2", "epsilon=0.05",
                   "--k", "1000", "--out", str(png))
    assert rc == 0 and png.read_bytes()[:4] == b"\x89PNG"
    assert drawn["gaussian_mu"] == pytest.approx(2 * math.sqrt(1000) * math.tanh(0.025),
                                                 rel=1e-12)
    assert drawn["log_panel"] is True and len(drawn["figure"].axes) == 2
    assert drawn["figure"].axes[0].get_title() == (
        "randomized_response(2, 0.05), 1000-fold: ordinary trade-off")
    rc, _, _ = run(capsys, "tradeoff", "warner", "p=0.75", "--out", str(tmp_path / "w.png"))
    assert drawn["gaussian_mu"] is None and len(drawn["figure"].axes) == 1
