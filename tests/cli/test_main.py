"""Tests of :mod:`mechdesign.cli.main`: the parser and the ``main`` entry point.

Pinned: help and no command; argparse usage errors end in one line without a traceback;
the installed console script; a reader that goes away (a broken pipe) ends the command
quietly with status 1; an interrupt, SIGTERM, a typed library error and an OS error each
end with one line and their status (130 and 143 are 128 + the signal number, as a shell
reports them), and the SIGTERM handler is restored afterwards.

Negative numbers as option values: ``--delta -1e-6`` reaches the option's range check and
gets its message, naming the value, on every command. argparse reads a text starting with
``-`` as an option unless it matches its negative-number pattern, which misses the
scientific notation (``-1e-6``) and ``-inf``; every parser of the CLI is a
``OneLineParser``, which reads those as values."""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from mechdesign.cli import examples as examples_cli
from mechdesign.cli.main import _leaf_parsers, build_parser, main
from mechdesign.cli.output import positive_int
from mechdesign.errors import InvalidParameterError

LN = math.log
main_module = importlib.import_module("mechdesign.cli.main")  # cli.main is also a function


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


# ------------------------------------------------------------------ help and usage errors
def test_help_lists_check(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "check" in out and "usage: mechdesign" in out


def test_no_command_prints_help_and_fails(capsys):
    rc, out, _ = run(capsys)
    assert rc != 0
    assert "check" in out


def test_argparse_usage_errors_exit_non_zero_without_traceback(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["check", "warner", "p=0.75", "--bogus"])
    assert exc.value.code != 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == "mechdesign: error: unrecognized arguments: --bogus"


def test_console_script_subprocess():
    script = Path(sys.executable).parent / "mechdesign"
    assert script.exists(), f"console script not installed next to {sys.executable}"
    ok = subprocess.run([str(script), "check", "dont_know", "p=0.6", "q=0.2", "--json"],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["measures"]["epsilon_wldp"] == pytest.approx(LN(4), abs=1e-12)
    bad = subprocess.run([str(script), "check", "warner", "p=2"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0
    assert bad.stderr.strip() == "mechdesign: error: p must lie in [0, 1], got 2.0"


# ------------------------------------------------------------------ how a command ends
def test_broken_pipe_is_quiet():
    """`mechdesign ... | head` must not end with "[Errno 32] Broken pipe" or a traceback."""
    script = Path(sys.executable).parent / "mechdesign"
    r, w = os.pipe()
    os.close(r)  # the reader is gone before the first write
    try:
        proc = subprocess.run([str(script), "check", "dont_know", "p=0.6", "q=0.2"],
                              stdout=w, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(w)
    assert proc.stderr == ""
    assert proc.returncode == 1


def test_broken_pipe_in_process(monkeypatch, capsys):
    class ClosedPipe:
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    rc = main(["check", "warner", "p=0.75"])
    monkeypatch.undo()
    assert rc == 1
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("raised, status, line", [
    (KeyboardInterrupt(), 128 + signal.SIGINT, "mechdesign: interrupted\n"),
    (main_module.Terminated(signal.SIGTERM), 128 + signal.SIGTERM, "mechdesign: terminated\n"),
    (InvalidParameterError("k must be >= 2, got 1"), 2,
     "mechdesign: error: k must be >= 2, got 1\n"),
    (OSError(28, "No space left on device"), 1,
     "mechdesign: error: [Errno 28] No space left on device\n"),
])
def test_a_command_ends_with_one_line_and_its_status(raised, status, line, monkeypatch,
                                                     capsys):
    def command(args):
        raise raised

    monkeypatch.setattr(examples_cli, "cmd_examples", command)
    assert main(["examples"]) == status
    assert capsys.readouterr().err == line
    assert main_module.EXIT_INTERRUPTED == 130 and main_module.EXIT_TERMINATED == 143


def test_sigterm_while_a_command_runs_is_status_143_and_the_handler_is_restored(
        monkeypatch, capsys):
    def not_main_s(signum, frame):  # the test's own handler: fails instead of killing pytest
        raise AssertionError("main did not install its SIGTERM handler")

    def command(args):
        os.kill(os.getpid(), signal.SIGTERM)  # delivered to the main thread: Terminated
        raise AssertionError("SIGTERM did not stop the command")

    previous = signal.signal(signal.SIGTERM, not_main_s)
    try:
        monkeypatch.setattr(examples_cli, "cmd_examples", command)
        assert main(["examples"]) == 143
        assert capsys.readouterr().err == "mechdesign: terminated\n"
        assert signal.getsignal(signal.SIGTERM) is not_main_s
    finally:
        signal.signal(signal.SIGTERM, previous)


# ------------------------------------------------------------------ negative values
NUMERIC_TYPES = (float, int, positive_int)


def _numeric_options() -> list[tuple[str, str, argparse.Action]]:
    """(command, option, action) of every option of every command that takes numbers."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = []
    for leaf in _leaf_parsers(sub):
        for action in leaf._actions:
            typ = action.type
            numeric = typ in NUMERIC_TYPES or getattr(typ, "__module__", "").endswith(
                "cli.output")
            if action.option_strings and numeric:
                out.append((leaf.prog, action.option_strings[-1], action))
    return out


NUMERIC_OPTIONS = _numeric_options()


def test_the_walk_finds_the_numeric_options():
    found = {(prog.removeprefix("mechdesign "), opt) for prog, opt, _ in NUMERIC_OPTIONS}
    for expected in [("compose", "--delta"), ("compose", "--epsilon"), ("compose", "--grid"),
                     ("calibrate compose", "--bounds"), ("amplify shuffle", "--epsilon0"),
                     ("tradeoff", "--pair"), ("solve", "--time-limit"),
                     ("estimate", "--confidence"), ("compare-warner", "--c")]:
        assert expected in found, expected
    assert len(found) >= 40


@pytest.mark.parametrize(("prog", "option", "action"), NUMERIC_OPTIONS,
                         ids=[f"{p.removeprefix('mechdesign ')} {o}"
                              for p, o, _ in NUMERIC_OPTIONS])
@pytest.mark.parametrize("value", ["-1e-6", "-2", "-0.5", "-inf"])
def test_every_numeric_option_takes_a_negative_value(prog, option, action, value, capsys):
    argv = prog.split()[1:] + [option] + [value] * (action.nargs if isinstance(action.nargs,
                                                                              int) else 1)
    try:  # without the positional arguments most commands' parse fails later
        build_parser().parse_args(argv)
    except SystemExit:
        pass
    err = capsys.readouterr().err
    assert "expected one argument" not in err and "expected 2 arguments" not in err, err
    assert "expected at least one argument" not in err, err


@pytest.mark.parametrize(("argv", "message"), [
    (["compose", "randomized_response", "k=3", "epsilon=1", "--delta", "-1e-6"],
     "delta must lie in [0, 1], got -1e-06"),
    (["compose", "randomized_response", "k=3", "epsilon=1", "--epsilon", "-1e-3"],
     "epsilon must be >= 0, got -0.001"),
    (["compose", "randomized_response", "k=3", "epsilon=1", "--delta", "1e-6",
      "--grid", "-1e-4"], "grid must be > 0, got -0.0001"),
    (["calibrate", "compose", "randomized_response", "k=3", "--epsilon", "1",
      "--delta", "-1e-6", "--k", "3"], "target_delta must lie in [0, 1], got -1e-06"),
    (["amplify", "shuffle", "--epsilon0", "-1e0", "--n", "100", "--delta", "1e-6"],
     "epsilon0 must be >= 0, got -1.0"),
    (["amplify", "subsample", "randomized_response", "k=3", "epsilon=1", "--p", "-1e-2"],
     "p must lie in [0, 1], got -0.01"),
    (["check", "randomized_response", "k=3", "epsilon=1", "--renyi", "-2e0"],
     "--renyi orders must be >= 0, got -2.0"),
    (["tradeoff", "warner", "p=0.75", "--delta", "-1e-6"],
     "--delta must lie in [0, 1], got -1e-06"),
    (["compare-warner", "--pi", "-3e-1", "--reps", "2"], "pi must lie in [0, 1], got -0.3"),
    (["frontier", "--example", "krr_hamming", "--eps", "-1e-1,1"],
     "epsilon must be >= 0, got -0.1"),
    (["estimate", "randomized_response", "k=3", "epsilon=1", "--reports", "r.csv",
      "--confidence", "-9.5e-1"], "must be a number in (0, 1), got '-9.5e-1'"),
    (["compose", "randomized_response", "k=3", "epsilon=1", "--k", "-3"],
     "must be a positive integer, got '-3'"),
])
def test_a_negative_value_gets_the_range_message(argv, message, capsys, tmp_path,
                                                  monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing is written; a stray output would land here
    try:
        status = main(argv)
    except SystemExit as stop:  # argparse's own type check exits
        status = stop.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_options_and_unknown_options_are_still_options(capsys):
    # -q is an option, -x an unknown one, --delta=-1e-6 was always a value
    with pytest.raises(SystemExit):
        build_parser().parse_args(["compose", "randomized_response", "-x"])
    assert "unrecognized arguments: -x" in capsys.readouterr().err
    args = build_parser().parse_args(["compose", "randomized_response", "-q",
                                      "--delta=-1e-6", "--epsilon", "-.5"])
    assert args.quiet and args.delta == [-1e-6] and args.epsilon == [-0.5]
