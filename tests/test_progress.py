"""Progress and verbosity: the one reporter of long loops (mechdesign._progress), the
``progress=`` arguments in Python, and ``-q/--quiet`` / ``-v/--verbose`` on every command."""

from __future__ import annotations

import argparse
import io
import logging

import numpy as np
import pytest

import mechdesign as md
from mechdesign import _progress
from mechdesign._progress import Progress, log_to_stderr
from mechdesign.cli.main import _leaf_parsers, build_parser, main
from mechdesign.errors import InvalidParameterError
from mechdesign.frontier import frontier


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_plain_lines_at_most_once_per_interval_and_the_last(monkeypatch):
    clock = iter([0.0, 0.2, 0.5, 1.3, 1.4, 1.5])
    monkeypatch.setattr(_progress.time, "monotonic", lambda: next(clock))
    out = io.StringIO()
    with Progress("simulate", 6, True, unit="surveys", stream=out) as bar:
        for _ in range(6):
            bar.update()
    # t = 0 printed, 0.2 and 0.5 within a second of it, 1.3 printed, 1.4 skipped, 6/6 final
    assert out.getvalue() == ("simulate: 1/6 surveys\nsimulate: 4/6 surveys\n"
                              "simulate: 6/6 surveys\n")
    assert "\r" not in out.getvalue()


def test_a_terminal_gets_one_line_rewritten_and_ended_on_error():
    out = Terminal()
    with pytest.raises(RuntimeError), Progress("frontier", 3, True, stream=out) as bar:
        bar.update(1)
        bar.update(2)
        raise RuntimeError
    assert out.getvalue() == "\rfrontier: 1/3\rfrontier: 2/3\n"
    done = Terminal()
    with Progress("frontier", 2, True, stream=done) as bar:
        bar.update()
        bar.update()
    assert done.getvalue() == "\rfrontier: 1/2\rfrontier: 2/2\n"  # no second newline


def test_a_callable_gets_each_count_and_false_writes_nothing(capsys):
    seen = []
    with Progress("x", 3, lambda i, n: seen.append((i, n))) as bar:
        for _ in range(3):
            bar.update()
    assert seen == [(1, 3), (2, 3), (3, 3)]
    with Progress("x", 3, False) as bar:
        bar.update()
    assert capsys.readouterr().err == ""
    with pytest.raises(InvalidParameterError, match="progress must be True, False or a "
                                                    "callable f\\(done, total\\), got 'yes'"):
        Progress("x", 3, "yes")


def test_log_to_stderr_restores_the_logger():
    log = logging.getLogger("mechdesign.design")
    before = (log.level, list(log.handlers))
    out = io.StringIO()
    with log_to_stderr(logging.DEBUG, stream=out):
        log.debug("round %d", 3)
    log.debug("not shown")
    assert out.getvalue() == "mechdesign: round 3\n"
    assert (log.level, list(log.handlers)) == before


def test_frontier_and_simulate_take_a_callable():
    prob = md.DesignProblem(privacy=md.LDP(1.0),
                            objective=md.ExpectedLoss(md.losses.hamming(3)))
    seen = []
    f = frontier(prob, [0.5, 1.0, 2.0], workers=1, progress=lambda i, n: seen.append((i, n)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
    # k-RR's (k-1)/(e^eps+k-1) at eps = 1 (Kairouz, Oh, Viswanath 2016)
    assert f.values[1] == pytest.approx(2 / (np.e + 2), rel=1e-7)
    counts = []
    md.simulate(md.randomized_response(2, 1.0), "inverse", 0.3, 50, reps=300, rng=1,
                chunk_size=100, progress=lambda i, n: counts.append((i, n)))
    assert counts == [(100, 300), (200, 300), (300, 300)]


@pytest.mark.slow
def test_design_solve_progress_prints_the_rounds(capsys):
    # k = 12 with a skewed prior: column generation, which logs a line per round
    prior = 1 / np.arange(1, 13)
    prob = md.DesignProblem(privacy=md.LDP(1.0),
                            objective=md.EstimationVariance(prior / prior.sum()))
    res = prob.solve(progress=True)
    err = capsys.readouterr().err
    assert "mechdesign: round 1:" in err and err.endswith("\n")
    assert res.certificate.met and res.gap <= 1e-6
    assert not logging.getLogger("mechdesign.design").handlers  # removed after the solve
    with pytest.raises(InvalidParameterError, match="progress must be True or False"):
        prob.solve(progress=1)


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings}


def test_every_command_takes_quiet_and_verbose():
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    leaves = _leaf_parsers(sub)
    assert len(leaves) >= 12  # 10 commands, amplify has three kinds
    for parser in leaves:
        assert {"-q", "--quiet", "-v", "--verbose"} <= _options(parser), parser.prog


def test_quiet_and_verbose_exclude_each_other(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["check", "warner", "p=0.75", "-q", "-v"])
    assert exc.value.code == 2
    assert capsys.readouterr().err == (
        "mechdesign: error: argument -v/--verbose: not allowed with argument -q/--quiet\n")


def test_cli_progress_default_quiet_and_verbose(capsys):
    argv = ["frontier", "--example", "krr_hamming", "--eps", "0.5,1,2", "--no-families"]
    assert main(argv) == 0
    assert "frontier: 3/3 points\n" in capsys.readouterr().err  # plain lines: not a terminal
    assert main([*argv, "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    assert main([*argv, "--json"]) == 0
    assert capsys.readouterr().err == ""
    assert main([*argv, "--json", "--verbose"]) == 0
    err = capsys.readouterr().err
    assert "frontier: 3/3 points" in err
    assert main(["solve", "--example", "krr_hamming", "-v"]) == 0
    err = capsys.readouterr().err
    assert "mechdesign: plan: closed_form_krr (closed_form_krr: yes: pure LDP" in err
    assert main(["solve", "--example", "approx_ldp_k4", "-v"]) == 0
    err = capsys.readouterr().err
    assert ("mechdesign: plan: program (program: yes: ApproxLDP with ExpectedLoss: the "
            "global program)") in err
    assert "mechdesign: HIGHS ended optimal" in err
    assert main(["solve", "--example", "krr_hamming", "-q"]) == 0
    assert capsys.readouterr().err == ""
