"""Outputs that cannot be lost to a race (mechdesign.cli.output).

Two runs with the same ``--out`` and no ``--force`` both pass the early existence check; the
final publish is an atomic create-if-absent, so exactly one of them publishes and the other
fails with :class:`OutputExistsError` (exit status 2, one line) with its result kept under
the name it prints. The interleaving is forced with a barrier at the publish step (both runs
have passed the early check and finished their files before either publishes), never by
timing.
"""

from __future__ import annotations

import contextlib
import errno
import io
import multiprocessing
import os
import threading
from pathlib import Path

import pytest

from mechdesign.cli import output
from mechdesign.cli.main import main
from mechdesign.cli.output import (
    OutputExistsError,
    kept_name,
    plan_outputs,
    write_atomic,
    write_planned,
)
from mechdesign.errors import MechdesignError

BARRIER_TIMEOUT = 120
"""Seconds a racer waits for the other at the barrier: a deadlock guard, not a measurement."""


def _no_link(*_args: object) -> None:
    raise OSError(errno.EPERM, "Operation not permitted")


@pytest.fixture(params=["link", "o_excl"])
def publish_mode(request, monkeypatch):
    """Both publishing paths: ``os.link``, and ``O_EXCL`` where links are unsupported."""
    if request.param == "o_excl":
        monkeypatch.setattr(output.os, "link", _no_link)
    return request.param


def _race(dest: Path, contents: list[str], *, force: bool = False) -> list[object]:
    """``write_atomic(dest, ...)`` from one thread per content, each after the early check;
    the writers meet at a barrier once their files are complete, so every publish happens
    after every check. Returns each thread's outcome: ``dest`` or the exception."""
    barrier = threading.Barrier(len(contents), timeout=BARRIER_TIMEOUT)
    outcomes: list[object] = [None] * len(contents)

    def racer(i: int) -> None:
        try:
            plan_outputs([dest], force=force)  # the early check: passes for every racer

            def writer(tmp: Path) -> None:
                tmp.write_text(contents[i])
                barrier.wait()

            outcomes[i] = write_atomic(dest, writer, force=force)
        except Exception as exc:  # the outcome under test
            outcomes[i] = exc

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(len(contents))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes


def test_two_writers_of_one_name_one_wins_the_other_is_kept(tmp_path, publish_mode):
    dest = tmp_path / "r.csv"
    outcomes = _race(dest, ["first\n", "second\n"])
    winners = [i for i, o in enumerate(outcomes) if o == dest]
    losers = [i for i, o in enumerate(outcomes) if isinstance(o, OutputExistsError)]
    assert len(winners) == 1 and len(losers) == 1, outcomes
    (w,), (lo,) = winners, losers
    exc = outcomes[lo]
    assert isinstance(exc, MechdesignError) and isinstance(exc, FileExistsError)
    assert exc.path == dest
    (taken, kept), = exc.kept
    assert taken == dest and kept == kept_name(dest, 1)
    assert kept.name == f"r.{os.getpid()}.1.csv"
    assert str(dest) in str(exc) and str(kept) in str(exc) and "\n" not in str(exc)
    assert dest.read_text() == ["first\n", "second\n"][w]
    assert kept.read_text() == ["first\n", "second\n"][lo]  # the loser's result, intact
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([dest.name, kept.name])


def test_three_writers_two_are_kept_under_distinct_names(tmp_path, publish_mode):
    dest = tmp_path / "fig.png"
    contents = ["a", "b", "c"]
    outcomes = _race(dest, contents)
    lost = [o for o in outcomes if isinstance(o, OutputExistsError)]
    assert outcomes.count(dest) == 1 and len(lost) == 2
    kept = {exc.kept[0][1] for exc in lost}
    assert kept == {kept_name(dest, 1), kept_name(dest, 2)}
    on_disk = sorted(p.read_text() for p in [dest, *kept])
    assert on_disk == contents  # every result somewhere, none twice
    assert len(list(tmp_path.iterdir())) == 3


def test_with_force_both_publish_and_the_last_replaces(tmp_path, publish_mode):
    dest = tmp_path / "r.csv"
    dest.write_text("old\n")
    outcomes = _race(dest, ["first\n", "second\n"], force=True)
    assert outcomes == [dest, dest]
    assert dest.read_text() in ("first\n", "second\n")
    assert [p.name for p in tmp_path.iterdir()] == ["r.csv"]  # no kept copies, no temporaries


def test_a_kept_name_already_taken_is_skipped(tmp_path, publish_mode):
    dest = tmp_path / "r.txt"
    dest.write_text("theirs")
    kept_name(dest, 1).write_text("an earlier loser")
    with pytest.raises(OutputExistsError) as info:
        write_atomic(dest, lambda tmp: tmp.write_text("mine"))
    assert info.value.kept == ((dest, kept_name(dest, 2)),)
    assert kept_name(dest, 2).read_text() == "mine"
    assert kept_name(dest, 1).read_text() == "an earlier loser"
    assert dest.read_text() == "theirs"


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, OSError(errno.ENOSPC, "full")])
def test_an_interrupted_write_leaves_no_partial_file(tmp_path, publish_mode, interrupt):
    dest = tmp_path / "r.csv"

    def half(tmp: Path) -> None:
        tmp.write_text("half a ")
        raise interrupt

    with pytest.raises(type(interrupt) if isinstance(interrupt, Exception) else interrupt):
        write_atomic(dest, half)
    assert list(tmp_path.iterdir()) == []


def test_an_interrupt_between_reserving_and_renaming_removes_the_placeholder(
        tmp_path, monkeypatch):
    # the O_EXCL fallback reserves dest as an empty file first: an interrupt before the
    # rename must not leave that empty file as the output
    monkeypatch.setattr(output.os, "link", _no_link)

    def interrupted(*_args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(output.os, "replace", interrupted)
    dest = tmp_path / "r.csv"
    with pytest.raises(KeyboardInterrupt):
        write_atomic(dest, lambda tmp: tmp.write_text("done\n"))
    assert list(tmp_path.iterdir()) == []


def test_a_link_error_that_is_not_about_support_is_reported(tmp_path, monkeypatch):
    def denied(*_args: object) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(output.os, "link", denied)
    dest = tmp_path / "r.csv"
    with pytest.raises(OSError, match=r"r\.csv.*not written.*Input/output error"):
        write_atomic(dest, lambda tmp: tmp.write_text("x"))
    assert list(tmp_path.iterdir()) == []


def test_a_run_whose_first_file_was_taken_keeps_all_its_files(tmp_path, capsys):
    # solve writes q.csv then q.png: once q.csv is found taken, q.png is kept beside too, so
    # the published pair never mixes two runs
    csv, png = tmp_path / "q.csv", tmp_path / "q.png"

    def rival_wins_meanwhile(tmp: Path) -> None:
        tmp.write_text("mine csv")
        csv.write_text("theirs csv")  # another run publishes after this one's early check

    with pytest.raises(OutputExistsError) as info:
        write_planned([(csv, rival_wins_meanwhile), (png, lambda t: t.write_text("mine png"))],
                      force=False)
    assert info.value.kept == ((csv, kept_name(csv, 1)), (png, kept_name(png, 1)))
    assert not png.exists()
    assert csv.read_text() == "theirs csv"
    assert kept_name(csv, 1).read_text() == "mine csv"
    assert kept_name(png, 1).read_text() == "mine png"
    message = str(info.value)
    assert str(kept_name(csv, 1)) in message and str(kept_name(png, 1)) in message
    assert "wrote" not in capsys.readouterr().out


def test_files_after_a_published_one_follow_the_rule_each(tmp_path, capsys):
    # a figure folder: the first file published, the second found taken: the first stays,
    # the second is kept beside its rival, both listed
    a, b = tmp_path / "fig1.png", tmp_path / "fig2.png"

    def rival_takes_b(tmp: Path) -> None:
        tmp.write_text("mine 2")
        b.write_text("theirs 2")

    with pytest.raises(OutputExistsError) as info:
        write_planned([(a, lambda t: t.write_text("mine 1")), (b, rival_takes_b)],
                      force=False)
    assert info.value.kept == ((b, kept_name(b, 1)),)
    assert a.read_text() == "mine 1" and b.read_text() == "theirs 2"
    assert kept_name(b, 1).read_text() == "mine 2"
    assert capsys.readouterr().out == f"wrote {a}\n"


# ------------------------------------------------------------------ two CLI processes
def _cli_racer(argv: list[str], barrier, results) -> None:
    """One ``mechdesign`` run in a child process, meeting the other run at its publish."""
    real = output._create_if_absent
    first = [True]

    def gated(tmp: Path, dest: Path) -> bool:
        if first[0]:  # the run's own --out, not the kept name a loser then takes
            first[0] = False
            barrier.wait()
        return real(tmp, dest)

    output._create_if_absent = gated
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    results.put((argv[-1], code, out.getvalue(), err.getvalue()))


@pytest.mark.slow  # 2-3 s: left out of the quick and the floors runs
def test_two_cli_runs_with_one_out_one_fails_and_names_the_kept_file(tmp_path):
    values = tmp_path / "values.txt"
    values.write_text("\n".join(str(i % 20) for i in range(500)) + "\n")
    dest = tmp_path / "reports.txt"
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2, timeout=BARRIER_TIMEOUT)
    results = ctx.Queue()
    procs = [ctx.Process(target=_cli_racer, args=(
        ["sample", "krr", "k=20", "epsilon=1", "--values", str(values), "--out", str(dest),
         "--seed", seed], barrier, results)) for seed in ("1", "2")]
    for p in procs:
        p.start()
    got = {}
    for _ in procs:
        seed, code, out, err = results.get(timeout=BARRIER_TIMEOUT)
        got[seed] = (code, out, err)
    for p in procs:
        p.join()
    assert all(p.exitcode == 0 for p in procs)
    codes = sorted(code for code, _, _ in got.values())
    assert codes == [0, 2], got
    (win_seed,) = [s for s, (c, _, _) in got.items() if c == 0]
    (lose_seed,) = [s for s, (c, _, _) in got.items() if c == 2]
    assert f"wrote {dest}" in got[win_seed][1]
    code, out, err = got[lose_seed]
    assert "wrote" not in out
    lines = err.strip().splitlines()  # the --seed advice line, then the one error line
    assert err == got[win_seed][2] + lines[-1] + "\n"
    assert lines[-1].startswith("mechdesign: error: ") and "--force" in lines[-1]
    kept = [p for p in tmp_path.iterdir() if p.name not in ("values.txt", "reports.txt")]
    assert len(kept) == 1 and kept[0].name.startswith("reports.") and kept[0].suffix == ".txt"
    assert str(dest) in lines[-1] and str(kept[0]) in lines[-1]
    # each run's reports survive: the published file and the kept one differ (other seeds)
    # and each is a full set of 500 reports
    assert dest.read_text() != kept[0].read_text()
    for f in (dest, kept[0]):
        assert len([ln for ln in f.read_text().splitlines() if ln.strip()]) >= 500
