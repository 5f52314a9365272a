"""Negative numbers as option values: ``--delta -1e-6`` reaches the
option's range check and gets its message, naming the value, on every command.

argparse reads a text starting with ``-`` as an option unless it matches its negative-number
pattern, which misses the scientific notation (``-1e-6``) and ``-inf``; every parser of the
CLI is a ``OneLineParser``, which reads those as values."""

from __future__ import annotations

import argparse

import pytest

from mechdesign.cli.main import _leaf_parsers, build_parser, main
from mechdesign.cli.output import positive_int

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
