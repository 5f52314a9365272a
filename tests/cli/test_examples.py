"""Tests of :mod:`mechdesign.cli.examples`, ``mechdesign examples``: the list of the
built-in problem files with their titles, and ``mechdesign examples NAME`` printing a file
byte for byte (to start one's own from it); an unknown name is one line with status 2."""

from __future__ import annotations

from mechdesign.cli.main import main
from mechdesign.io import example_names
from mechdesign.io.examples import example_titles
from tests.paths import PROBLEMS


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_examples_command_lists_and_prints(capsys):
    rc, out, _ = run(capsys, "examples")
    assert rc == 0
    for name in example_names():
        assert f"\n{name} " in out
    rc, out, _ = run(capsys, "examples", "holohan_binary")
    assert rc == 0
    assert out == (PROBLEMS / "holohan_binary.toml").read_text(encoding="utf-8")


def test_the_list_shows_each_title_and_how_to_run_one(capsys):
    rc, out, _ = run(capsys, "examples")
    assert rc == 0
    lines = out.splitlines()
    for name, title in example_titles().items():
        assert any(line.startswith(f"{name} ") and line.rstrip().endswith(title)
                   for line in lines), name
    assert "mechdesign solve --example NAME" in out


def test_an_unknown_name_is_one_line_and_status_2(capsys):
    rc, out, err = run(capsys, "examples", "krr_hamingg")
    assert rc == 2 and out == ""
    assert err.startswith("mechdesign: error: no built-in example 'krr_hamingg'")
    assert "krr_hamming" in err and err.count("\n") == 1
