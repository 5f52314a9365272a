"""``mechdesign solve``: tables, --json (read back by ``mechdesign check``),
--out (matrix + heatmap PNG), --solver, exit statuses and one-line errors."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest

import mechdesign as md
from mechdesign.cli.main import main
from mechdesign.evidential import EvidentialMechanism
from mechdesign.io.matrices import load_mechanism, mechanism_from_dict
from mechdesign.io.problems import load_problem
from mechdesign.mechanism import Mechanism
from mechdesign.neighbors import distance_matrix
from tests.paths import PROBLEMS

FILES = sorted(PROBLEMS.glob("*.toml"))
KRR = PROBLEMS / "krr_hamming.toml"
WARNER = PROBLEMS / "warner_evidential.toml"
E = math.e


def strict_json(text: str) -> dict:
    """json.loads refusing NaN / Infinity (not JSON)."""
    def refuse(name: str) -> None:
        raise AssertionError(f"non-standard JSON constant {name}")
    return json.loads(text, parse_constant=refuse)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


# ------------------------------------------------------------------ every file, round trip
@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_every_problem_solves_from_the_cli_and_reads_back_with_check(path, capsys, tmp_path):
    rc, out, err = run(capsys, "solve", str(path), "--json")
    assert rc == 0, err
    record = strict_json(out)
    assert record["status"] == "optimal"
    assert record["expected"]["met"] is True
    assert record["certificate"]["met"] is True
    lo, hi = record["expected"]["bounds"]
    assert lo <= record["value"] <= hi
    # the JSON as printed, saved to a file, is a mechanism for `mechdesign check`
    saved = tmp_path / "out.json"
    saved.write_text(out)
    back = load_mechanism(saved)
    assert back == mechanism_from_dict(record["mechanism"])
    # ... and `check` measures the notion the file asked for, on the matrix read back
    notion = load_problem(path).problem.privacy
    name, eps = type(notion).__name__, notion.epsilon
    extra: list[str] = []
    if name == "ApproxLDP":
        extra = ["--epsilon", repr(eps)]
    elif name == "MetricDP":
        D = distance_matrix(notion.distance, back.inputs)
        np.savetxt(tmp_path / "d.csv", D, delimiter=",")
        extra = ["--metric", str(tmp_path / "d.csv")]
    rc, out, err = run(capsys, "check", str(saved), "--json", *extra)
    assert rc == 0, err
    measures = strict_json(out)["measures"]
    if name in ("RenyiLDP", "Composed", "Shuffled"):
        # `check` reports the per-use measures; the notion's own measure of the matrix read
        # back (the accounting layer: Rényi divergence, composition, clone bound)
        assert notion.measure(back) <= notion.target, (name, notion.measure(back))
        assert measures["epsilon_ldp"] < math.inf
        return
    key = {"LDP": "epsilon_ldp", "SLDP": f"epsilon_sldp_{getattr(notion, 'kind', '')}",
           "ApproxLDP": f"delta_ldp@{eps:g}", "DeletionLDP": "epsilon_deletion",
           "MetricDP": "epsilon_metric"}[name]
    target = notion.delta if name == "ApproxLDP" else eps
    assert measures[key] <= target + 1e-9, (key, measures[key], target)


def test_check_reads_back_the_exact_matrix(capsys, tmp_path):
    rc, out, _ = run(capsys, "solve", str(KRR), "--json")
    assert rc == 0
    saved = tmp_path / "krr.json"
    saved.write_text(out)
    m = load_mechanism(saved)
    assert isinstance(m, Mechanism)
    p = E / (E + 2)  # 3-RR at eps = 1
    np.testing.assert_allclose(np.diag(m.matrix), [p] * 3, rtol=1e-9)
    rc, out, _ = run(capsys, "check", str(saved), "--json")
    assert strict_json(out)["measures"]["epsilon_ldp"] == pytest.approx(1.0, abs=1e-9)


# ------------------------------------------------------------------ table output
def test_table_output_has_result_certificate_and_matrix(capsys):
    rc, out, err = run(capsys, "solve", str(KRR))
    assert rc == 0 and err == ""
    assert out.startswith("k-RR is optimal for Hamming loss")
    assert "0.4238831152" in out                      # (k-1)/(e+k-1)
    assert "certificate" in out and "achieved (measured)" in out
    assert ": met" in out and "Kairouz" in out
    row0 = next(line for line in out.splitlines() if line.startswith("0  "))
    cells = [float(c) for c in row0.split()[1:]]
    np.testing.assert_allclose(cells, [E / (E + 2), 1 / (E + 2), 1 / (E + 2)], rtol=1e-5)


def test_table_output_for_an_evidential_design_names_the_focal_sets(capsys):
    rc, out, _ = run(capsys, "solve", str(WARNER))
    assert rc == 0
    assert "{Yes}" in out and "{Yes,No}" in out and "masses" in out


def test_wide_mechanisms_are_truncated_in_the_table(capsys):
    rc, out, _ = run(capsys, "solve", str(PROBLEMS / "subset_selection_estimation.toml"))
    assert rc == 0
    assert "198 more columns" in out  # C(10, 4) = 210 outputs, 12 shown


# ------------------------------------------------------------------ --out
@pytest.mark.parametrize("suffix", [".csv", ".json"])
def test_out_writes_the_matrix_and_a_png(capsys, tmp_path, suffix):
    target = tmp_path / f"krr{suffix}"
    rc, out, _ = run(capsys, "solve", str(KRR), "--out", str(target), "--json")
    assert rc == 0
    record = strict_json(out)
    assert record["files"] == {"matrix": str(target), "heatmap": str(tmp_path / "krr.png")}
    written = load_mechanism(target)
    np.testing.assert_array_equal(written.matrix,
                                  np.array(record["mechanism"]["matrix"], dtype=float))
    png = (tmp_path / "krr.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


def test_out_for_an_evidential_design_is_json(capsys, tmp_path):
    target = tmp_path / "w.json"
    rc, out, _ = run(capsys, "solve", str(WARNER), "--out", str(target))
    assert rc == 0 and "wrote" in out
    assert isinstance(load_mechanism(target), EvidentialMechanism)
    assert (tmp_path / "w.png").stat().st_size > 5000


@pytest.mark.parametrize("problem, out_name, needle", [
    (WARNER, "w.csv", "evidential"),
    (KRR, "q.txt", ".csv or .json"),
    (KRR, "missing_dir/q.csv", "no such directory"),
])
def test_bad_out_is_one_line_and_exit_2(capsys, tmp_path, problem, out_name, needle):
    rc, out, err = run(capsys, "solve", str(problem), "--out", str(tmp_path / out_name))
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and needle in err and err.startswith("mechdesign: error:")


# ------------------------------------------------------------------ --solver and failures
def test_solver_option_is_used(capsys):
    rc, out, _ = run(capsys, "solve", str(KRR), "--solver", "CLARABEL", "--json")
    record = strict_json(out)
    assert rc == 0 and record["solver"] == "CLARABEL"
    assert record["value"] == pytest.approx(2 / (E + 2), rel=1e-7)


def test_unknown_solver_is_one_line(capsys):
    rc, out, err = run(capsys, "solve", str(KRR), "--solver", "NOSUCHSOLVER")
    assert rc == 2 and out == ""
    assert "NOSUCHSOLVER" in err and err.count("\n") == 1


@pytest.mark.parametrize("text, needle", [
    ("[privacy\n", "malformed TOML"),
    ('[privacy]\nnotion = "renyi"\nepsilon = 1\n[objective]\nkind = "expected_loss"\n',
     "'renyi'"),
    ('[privacy]\nnotion = "ldp"\nepsilon = -1\n[objective]\nkind = "expected_loss"\n'
     'loss = "hamming"\nk = 2\n', "epsilon = -1"),
])
def test_bad_problem_file_is_one_line_and_exit_2(capsys, tmp_path, text, needle):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    rc, out, err = run(capsys, "solve", str(f))
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and needle in err and "bad.toml" in err


def test_missing_file_is_one_line(capsys, tmp_path):
    rc, _, err = run(capsys, "solve", str(tmp_path / "nope.toml"))
    assert rc == 2 and "no such problem file" in err and err.count("\n") == 1


def test_missed_expected_value_exits_1(capsys, tmp_path):
    text = KRR.read_text().replace("value = 0.42388311523417094", "value = 0.5")
    f = tmp_path / "wrong.toml"
    f.write_text(text)
    rc, out, err = run(capsys, "solve", str(f), "--json")
    assert rc == 1
    record = strict_json(out)  # the report is still complete
    assert record["expected"]["met"] is False and record["mechanism"] is not None
    assert "misses [expected]" in err


@pytest.mark.slow  # 2.5-11 s: left out of the quick and the floors runs
def test_subprocess_json_is_clean_and_errors_have_no_traceback(tmp_path):
    """A fresh process: HiGHS's banner (printed from C++ on first use) must not reach
    stdout, and a bad file gives one line, no traceback."""
    cmd = [sys.executable, "-m", "mechdesign", "solve", str(KRR), "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert strict_json(proc.stdout)["value"] == pytest.approx(2 / (E + 2), rel=1e-9)
    bad = tmp_path / "bad.toml"
    bad.write_text('[privacy]\nnotion = "ldp"\nepsilon = "__import__(\'os\')"\n'
                   '[objective]\nkind = "expected_loss"\nloss = "hamming"\nk = 2\n')
    proc = subprocess.run([sys.executable, "-m", "mechdesign", "solve", str(bad)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert "epsilon" in proc.stderr and "__import__" in proc.stderr


def test_a_closed_form_optimum_too_large_to_build_is_reported_not_failed(capsys, tmp_path):
    """k = 1000, uniform prior: the optimum is d-subset selection (value in closed form) but
    its C(1000, d) outputs are not built; the solve succeeds and --out FILE.json writes the
    structured mechanism (an oracle description); a CSV cannot hold it."""
    f = tmp_path / "big.toml"
    f.write_text('[privacy]\nnotion = "ldp"\nepsilon = 0.5\n'
                 '[objective]\nkind = "estimation"\nk = 1000\n')
    rc, out, err = run(capsys, "solve", str(f), "--json")
    record = strict_json(out)
    assert rc == 0 and err == ""
    assert record["mechanism"] is None and "subset_selection" in record["mechanism_unavailable"]
    k, r = 1000, math.exp(0.5)
    trace = [(k - 1) ** 2 * (d * r + k - d) ** 2 / (math.expm1(0.5) ** 2 * d * (k - d) * k)
             for d in range(1, k)]  # subset selection, docs/formulations.md
    assert record["value"] == pytest.approx(min(trace), rel=1e-12)
    assert record["structure"]["d"] == 1 + trace.index(min(trace))
    assert record["oracle"] == {"kind": "oracle", "family": "subset_selection", "k": 1000,
                                "epsilon": 0.5, "d": record["structure"]["d"]}
    rc, out, err = run(capsys, "solve", str(f), "--out", str(tmp_path / "q.json"))
    assert rc == 0 and "structured" in out
    assert json.loads((tmp_path / "q.json").read_text()) == record["oracle"]
    assert not (tmp_path / "q.png").exists()
    rc, out, err = run(capsys, "solve", str(f), "--out", str(tmp_path / "q.csv"))
    assert rc == 1 and "not written" in err and "FILE.json" in err
    assert not (tmp_path / "q.csv").exists()


def test_solver_warnings_are_reported_not_leaked(capsys, monkeypatch):
    """A warning raised during the solve (cvxpy's "Solution may be inaccurate") goes into
    the report, not onto stderr as a stray multi-line message."""
    import warnings

    from mechdesign.design import DesignProblem

    original = DesignProblem.solve

    def noisy(self, *args, **kwargs):
        warnings.warn("Solution may be inaccurate.", UserWarning, stacklevel=1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(DesignProblem, "solve", noisy)
    rc, out, err = run(capsys, "solve", str(KRR), "--json")
    assert rc == 0 and err == ""
    assert strict_json(out)["warnings"] == ["UserWarning: Solution may be inaccurate."]
    rc, out, err = run(capsys, "solve", str(KRR))
    assert rc == 0 and err == "" and "solver warning: UserWarning" in out


def test_no_mechanism_prints_the_status_and_exits_1(capsys, monkeypatch):
    """An infeasible or failed solve still prints its report (status, no matrix) and exits 1
    with the typed error's message on stderr."""
    from mechdesign.design import DesignProblem, DesignResult, Status

    def infeasible(self, *args, **kwargs):
        return DesignResult(status=Status.INFEASIBLE, value=None, solver_value=None,
                            optimum="global", certificate=None, duals={}, solver="HIGHS",
                            formulation="test", build_time=0.0, solve_time=0.0)

    monkeypatch.setattr(DesignProblem, "solve", infeasible)
    rc, out, err = run(capsys, "solve", str(KRR), "--json")
    record = strict_json(out)
    assert rc == 1 and record["status"] == "infeasible" and record["mechanism"] is None
    assert record["expected"]["met"] is False
    assert "infeasible" in err and "misses [expected]" in err
    rc, out, err = run(capsys, "solve", str(KRR))
    assert rc == 1 and re.search(r"status +infeasible", out) and "mechanism: none" in out


@pytest.mark.slow  # 2.5-11 s: left out of the quick and the floors runs
def test_progress_of_a_column_generation_design(capsys, tmp_path):
    """k = 12, Zipf prior: the column-generation path; --progress prints one line per
    round on stderr (the result on stdout is unchanged), the design is certified optimal
    and the notes compare it with the best frequency oracle."""
    p = 1.0 / np.arange(1, 13) ** 1.1
    f = tmp_path / "zipf.toml"
    f.write_text('[privacy]\nnotion = "ldp"\nepsilon = 1.0\n[objective]\nkind = "estimation"\n'
                 f"prior = [{', '.join(repr(float(x)) for x in p / p.sum())}]\n")
    rc, out, err = run(capsys, "solve", str(f), "--progress", "--json")
    record = strict_json(out)
    assert rc == 0 and record["status"] == "optimal" and record["gap"] < 1e-6
    assert "mechdesign: round 1:" in err and "certified lower bound" in err
    assert any("best frequency oracle" in n for n in record["notes"])
    # the value is the criterion of the returned matrix, recomputed here
    Q = np.array(record["mechanism"]["matrix"])
    assert md.EstimationVariance(p / p.sum()).evaluate(Q) == pytest.approx(record["value"],
                                                                          rel=1e-9)
