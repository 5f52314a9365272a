"""``mechdesign check`` on catalog constructors and mechanism files, its one-line errors and
exit statuses (the files themselves are checked in tests/io/test_matrices.py; help, usage
errors, the console script and a broken pipe in tests/cli/test_main.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mechdesign import (
    randomized_response,
    save_mechanism,
    warner,
)
from mechdesign.cli.main import main

LN = math.log

# --------------------------------------------------------------------------- CLI

def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_check_catalog_table(capsys):
    rc, out, err = run(capsys, "check", "dont_know", "p=0.6", "q=0.2")
    assert rc == 0 and err == ""
    values = {line.split()[0]: line.split()[1:] for line in out.splitlines()[3:]}
    # s.7 sanity example: r_S = 3, r_pl = 2, r_bel = 3, r_W = 4
    assert float(values["epsilon_sldp_mass"][0]) == pytest.approx(LN(3), rel=1e-9)
    assert values["epsilon_sldp_pl"][1] == "2"
    assert values["epsilon_sldp_bel"][1] == "3"
    assert values["epsilon_wldp"][1] == "4"


def test_check_json_parses(capsys):
    rc, out, _ = run(capsys, "check", "dont_know", "p=0.6", "q=0.2", "--json")
    assert rc == 0
    data = json.loads(out)
    m = data["measures"]
    assert m["epsilon_sldp_mass"] == pytest.approx(LN(3), abs=1e-12)
    assert m["epsilon_sldp_pl"] == pytest.approx(LN(2), abs=1e-12)
    assert m["epsilon_sldp_bel"] == pytest.approx(LN(3), abs=1e-12)
    assert m["epsilon_wldp"] == pytest.approx(LN(4), abs=1e-12)
    assert data["infinite"] == []


def test_check_json_reports_infinity_as_null(capsys):
    rc, out, _ = run(capsys, "check", "warner", "p=1", "--json")
    assert rc == 0
    data = json.loads(out)
    assert data["measures"]["epsilon_ldp"] is None
    assert "epsilon_ldp" in data["infinite"]


def test_check_delta_and_metric_options(capsys):
    rc, out, _ = run(capsys, "check", "truncated_geometric", "n=4", "epsilon=0.5",
                     "--metric", "line", "--epsilon", "1.0", "--json")
    assert rc == 0
    m = json.loads(out)["measures"]
    assert m["epsilon_metric"] == pytest.approx(0.5, abs=1e-12)  # eps per unit of |x - x'|
    assert m["epsilon_ldp"] == pytest.approx(1.5, abs=1e-12)     # (n - 1) eps
    assert 0 < m["delta_ldp@1"] < 1


def test_check_metric_from_a_csv_file(capsys, tmp_path):
    dist = tmp_path / "d.csv"
    dist.write_text("0,2\n2,0\n")
    rc, out, _ = run(capsys, "check", "warner", "p=0.75", "--metric", str(dist), "--json")
    assert rc == 0
    assert json.loads(out)["measures"]["epsilon_metric"] == pytest.approx(LN(3) / 2, abs=1e-12)


@pytest.mark.parametrize("suffix", [".json", ".csv", ".toml"])
def test_check_files(capsys, tmp_path, suffix):
    path = tmp_path / f"w{suffix}"
    if suffix == ".toml":
        path.write_text("matrix = [[0.75, 0.25], [0.25, 0.75]]\n")
    else:
        save_mechanism(warner(0.75), path)
    rc, out, _ = run(capsys, "check", str(path), "--json")
    assert rc == 0
    assert json.loads(out)["measures"]["epsilon_ldp"] == pytest.approx(LN(3), abs=1e-12)


def _bad_json(tmp_path: Path) -> str:
    p = tmp_path / "bad.json"
    p.write_text("{not json")
    return str(p)


def _bad_rows(tmp_path: Path) -> str:
    p = tmp_path / "rows.csv"
    p.write_text("0.5,0.6\n0.5,0.5\n")
    return str(p)


def _focal_ints(tmp_path: Path) -> str:
    p = tmp_path / "focal.json"
    p.write_text(json.dumps({"masses": [[0.5, 0.5]], "focal_sets": [1, 2]}))
    return str(p)


def assert_one_line_error(rc: int, captured, needle: str) -> None:
    """A failed command: non-zero status, nothing on stdout, one stderr line naming it."""
    assert rc != 0
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("mechdesign: error:")
    assert needle in lines[0]
    assert "Traceback" not in captured.err


@pytest.mark.parametrize(("argv", "needle"), [
    (lambda t: ["check", "nosuch"], "'nosuch'"),
    (lambda t: ["check", "warner", "p=2"], "2.0"),
    (lambda t: ["check", "warner", "p=abc"], "'abc'"),
    (lambda t: ["check", "warner", "p"], "'p'"),
    (lambda t: ["check", "warner", "z=1"], "'z'"),
    (lambda t: ["check", "warner"], "p"),
    (lambda t: ["check", "dont_know", "p=0.7", "q=0.5"], "1.2"),
    (lambda t: ["check", "randomized_response", "k=1", "epsilon=1"], "got 1"),
    (lambda t: ["check", "randomized_response", "k=3", "epsilon=-1"], "-1"),
    (lambda t: ["check", str(t / "missing.json")], "missing.json"),
    (lambda t: ["check", _bad_json(t)], "bad.json"),
    (lambda t: ["check", _bad_rows(t)], "1.1"),
    (lambda t: ["check", _bad_rows(t), "p=1"], "p=1"),
    (lambda t: ["check", "warner", "p=0.75", "--metric", str(t / "nod.csv")], "nod.csv"),
    (lambda t: ["check", "warner", "p=0.75", "--metric", _bad_rows(t)], "distance"),
    (lambda t: ["check", _focal_ints(t)], "1"),
], ids=["unknown-name", "p-out-of-range", "p-not-number", "no-equals", "unknown-param",
        "missing-param", "p+q>1", "k<2", "eps<0", "missing-file", "malformed-json",
        "rows-not-summing", "params-for-file", "missing-metric", "bad-metric",
        "focal-sets-not-lists"])
def test_check_errors_are_one_line(capsys, tmp_path, argv, needle):
    rc = main(argv(tmp_path))
    assert_one_line_error(rc, capsys.readouterr(), needle)


# --------------------------------------------------------------------------- more CLI errors


def _write(tmp_path: Path, name: str, content: bytes | str) -> str:
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content)
    return str(p)


@pytest.mark.parametrize(("argv", "needle"), [
    (lambda t: ["check", _write(t, "bin.csv", b"\xff\xfe\x00garbage")],
     "bin.csv' is not a UTF-8 text file"),
    (lambda t: ["check", _write(t, "unh.json",
                                '{"masses": [[1.0]], "focal_sets": [["a", {"x": 1}]]}')],
     "unhashable label {'x': 1}"),
    (lambda t: ["check", _write(t, "unhl.json",
                                '{"matrix": [[0.5, 0.5], [0.25, 0.75]], '
                                '"inputs": [{"a": 1}, "b"]}')],
     "label {'a': 1} is unhashable"),
    (lambda t: ["check", "unary_encoding", "k=3", "epsilon=800", "optimized=true"],
     "epsilon = 800.0 is too large"),
    (lambda t: ["check", "unary_encoding", "k=3", "epsilon=1", "optimized=2"],
     "optimized must be True or False, got 2"),
    (lambda t: ["check", "randomized_response", "k=3", "epsilon=705.5"], None),
    (lambda t: ["check", "randomized_response", "k=3", "epsilon=709"],
     "largest supported epsilon here is 708.39"),
    (lambda t: ["check", "deletion_counterexample", "epsilon=800"], "epsilon = 800.0"),
    (lambda t: ["check", "randomized_response", "k=1000000", "epsilon=1"],
     "1000000 x 1000000"),
], ids=["binary-file", "unhashable-focal-label", "unhashable-input-label", "unary-eps-800",
        "optimized-not-bool", "rr-eps-705-ok", "rr-eps-709", "deletion-eps-800",
        "rr-too-big"])
def test_more_cli_errors_are_one_line(capsys, tmp_path, argv, needle):
    rc = main(argv(tmp_path))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    if needle is None:  # this one must work: RR at eps = 705.5 is exactly 705.5-LDP
        assert rc == 0, captured.err
        assert "705.5" in captured.out
        return
    assert_one_line_error(rc, captured, needle)


def test_check_json_null_name(capsys, tmp_path):
    path = _write(tmp_path, "null.json", '{"matrix": [[0.5, 0.5], [0.25, 0.75]], "name": null}')
    rc, out, _ = run(capsys, "check", path)
    assert rc == 0
    assert out.splitlines()[0] == "mechanism: 2 inputs x 2 outputs"  # not "mechanism None"


def _evidential_file(tmp_path: Path, n_outputs: int) -> str:
    """Two inputs; messages {0}, {1} and the whole output set: mass SLDP = ln 3."""
    data = {"masses": [[0.3, 0.1, 0.6], [0.1, 0.3, 0.6]],
            "focal_sets": [[0], [1], list(range(n_outputs))]}
    return _write(tmp_path, f"ev{n_outputs}.json", json.dumps(data))


@pytest.mark.parametrize("n_outputs", [17, 40, 63, 70])
def test_check_large_evidential_reports_what_needs_no_events(capsys, tmp_path, n_outputs):
    # once broken: 17-63 outputs failed as a whole ("2^18 events ..."), >= 64 overflowed
    rc, out, err = run(capsys, "check", _evidential_file(tmp_path, n_outputs), "--json")
    assert rc == 0, err
    data = json.loads(out)
    m = data["measures"]
    assert m["epsilon_sldp_mass"] == pytest.approx(LN(3), abs=1e-12)  # 0.3 / 0.1
    assert m["epsilon_ldp"] == pytest.approx(LN(3), abs=1e-12)  # LDP of the messages
    # deletion: max(eps/2, ln sum max, -ln sum min) = max(ln3/2, ln 1.2, -ln 0.8) = ln3/2
    assert m["epsilon_deletion"] == pytest.approx(LN(3) / 2, abs=1e-12)
    assert set(data["skipped"]) == {"epsilon_sldp_pl", "epsilon_sldp_bel", "epsilon_wldp"}
    assert all(f"2^{n_outputs} events" in why for why in data["skipped"].values())
    rc, out, err = run(capsys, "check", _evidential_file(tmp_path, n_outputs))
    assert rc == 0, err
    assert out.strip().splitlines()[-1].startswith(
        "skipped: epsilon_sldp_pl, epsilon_sldp_bel, epsilon_wldp (needs all 2^")


def test_check_small_evidential_skips_nothing(capsys):
    rc, out, _ = run(capsys, "check", "dont_know", "p=0.6", "q=0.2", "--json")
    assert rc == 0 and json.loads(out)["skipped"] == {}


def test_check_bayesian_evidential_beyond_64_outputs(capsys, tmp_path):
    # singleton messages: pl = bel = P, so every measure applies at any size and equals
    # the LDP epsilon of RR(70, 1), which is 1
    rr = randomized_response(70, 1.0)
    data = {"masses": rr.matrix.tolist(), "focal_sets": [[y] for y in range(70)]}
    rc, out, err = run(capsys, "check", _write(tmp_path, "rr70.json", json.dumps(data)),
                       "--json")
    assert rc == 0, err
    result = json.loads(out)
    assert result["skipped"] == {}
    for key in ("epsilon_sldp_mass", "epsilon_sldp_pl", "epsilon_sldp_bel", "epsilon_wldp",
                "epsilon_ldp"):
        assert result["measures"][key] == pytest.approx(1.0, rel=1e-14), key
