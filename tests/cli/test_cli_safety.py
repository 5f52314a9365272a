"""Outputs that never lose data and clean interrupts.

Every ``--out`` is checked before any computation, an existing file is replaced only with
``--force``, an input of the run never, files are written to a temporary name and moved
into place, and Ctrl-C/SIGTERM end a command with one line and 130/143, leaving no worker.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mechdesign.cli.main import main
from tests.paths import PROBLEMS

KRR = PROBLEMS / "krr_hamming.toml"


def _ldp_problem(path: Path, loss: str) -> Path:
    """A pure-LDP expected-loss problem file with the given loss line(s)."""
    path.write_text('[privacy]\nnotion = "ldp"\nepsilon = 1.0\n[objective]\n'
                    f'kind = "expected_loss"\n{loss}\nprior = "uniform"\n')
    return path


def run(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_an_existing_file_is_not_replaced_without_force(tmp_path, capsys):
    out = tmp_path / "q.csv"
    out.write_text("keep me\n")
    code, stdout, err = run(["solve", KRR, "--out", out], capsys)
    assert code == 2 and "--force" in err and stdout == ""  # refused before solving
    assert out.read_text() == "keep me\n"
    code, stdout, err = run(["solve", KRR, "--out", out, "--force"], capsys)
    assert code == 0 and "wrote" in stdout + err
    assert out.read_text() != "keep me\n"
    assert (tmp_path / "q.png").exists()  # the heatmap beside it, listed too
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.csv", "q.png"]  # no temp left


def test_an_input_of_the_run_is_never_replaced(tmp_path, capsys):
    (tmp_path / "L.csv").write_text("0,1,1\n1,0,1\n1,1,0\n")
    p = _ldp_problem(tmp_path / "p.toml", 'loss = "L.csv"')
    before = (tmp_path / "L.csv").read_text()
    for target in ("L.csv", "p.toml"):
        code, _, err = run(["solve", p, "--out", tmp_path / target, "--force"], capsys)
        assert code == 2 and "input" in err
    assert (tmp_path / "L.csv").read_text() == before


def test_a_bad_suffix_is_refused_before_computing(tmp_path, capsys, monkeypatch):
    import mechdesign.frontier

    computed = []
    monkeypatch.setattr(mechdesign.frontier, "frontier", lambda *a, **k: computed.append(a))
    code, stdout, err = run(["frontier", KRR, "--eps", "0.5:2:4", "--out",
                             tmp_path / "f.xyz"], capsys)
    assert code == 2 and ".xyz" in err and stdout == ""
    assert computed == []  # refused before the frontier is computed (not timed)
    assert not list(tmp_path.iterdir())


def test_a_write_that_fails_leaves_the_old_file_and_no_partial_file(tmp_path):
    from mechdesign.cli.output import write_atomic
    target = tmp_path / "r.csv"
    target.write_text("old\n")

    def broken(path):
        Path(path).write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        write_atomic(target, broken)
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["r.csv"]


@pytest.fixture
def tiny_tmpfs(tmp_path):
    """A 64 KiB tmpfs mounted in ``tmp_path`` (needs root and mount; else the test skips):
    a real full disk and, remounted read-only, a folder even root cannot write."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    try:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)],
                       check=True, capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        pytest.skip("cannot mount a tmpfs here (needs root and mount)")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True, timeout=10)


def test_a_full_disk_leaves_the_old_file_and_no_partial_file(tiny_tmpfs, capsys):
    (tiny_tmpfs / "q.csv").write_text("old csv\n")
    (tiny_tmpfs / "q.png").write_bytes(b"old png")
    (tiny_tmpfs / "filler").write_bytes(bytes(50_000))  # leaves about 4 KiB: no room for a PNG
    code, stdout, err = run(["solve", KRR, "--out", tiny_tmpfs / "q.csv", "--force"], capsys)
    assert code == 1
    assert "0.576117" in stdout  # the result printed before any file was written
    assert err.count("\n") == 1 and "No space left" in err and "unchanged" in err
    assert (tiny_tmpfs / "q.png").read_bytes() == b"old png"
    assert sorted(p.name for p in tiny_tmpfs.iterdir()) == ["filler", "q.csv", "q.png"]
    # the CSV fitted: replaced whole (written to a temporary name and moved into place)
    rows = [list(map(float, r.split(","))) for r in (tiny_tmpfs / "q.csv").read_text().split()]
    assert len(rows) == 3 and all(abs(sum(r) - 1) < 1e-12 for r in rows)


def test_a_read_only_filesystem_is_refused_before_computing(tiny_tmpfs, capsys):
    (tiny_tmpfs / "q.csv").write_text("old csv\n")
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_tmpfs)], check=True, timeout=10)
    code, stdout, err = run(["solve", KRR, "--out", tiny_tmpfs / "q.csv", "--force"], capsys)
    assert code == 2 and stdout == "" and "not writable" in err
    assert (tiny_tmpfs / "q.csv").read_text() == "old csv\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_refused_before_computing(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        code, stdout, err = run(["solve", KRR, "--out", ro / "q.csv"], capsys)
    finally:
        ro.chmod(0o700)
    assert code == 2 and stdout == "" and "writ" in err


# ------------------------------------------------------------------------------ signals
SLOW = textwrap.dedent("""
    import sys
    from mechdesign.cli.main import main
    print("ready", flush=True)  # imported: a signal from now on reaches main()
    sys.exit(main(sys.argv[1:]))
""")

# The same, but the design's solve announces itself and then waits: a signal sent after
# "solving" lands inside the command's solve, however fast this machine is.
IN_SOLVE = textwrap.dedent("""
    import signal, sys, time
    from mechdesign.cli.main import main
    from mechdesign.design.problem import DesignProblem
    original = DesignProblem.solve
    def announced(self, *args, **kwargs):
        print("solving", flush=True)
        time.sleep(60)
        return original(self, *args, **kwargs)
    DesignProblem.solve = announced
    # as in a terminal (a shell starts background jobs with SIGINT ignored)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.exit(main(sys.argv[1:]))
""")


def _big_problem(tmp_path: Path) -> Path:
    return _ldp_problem(tmp_path / "big.toml", 'loss = "absolute"\nk = 200')


def _start(args, tmp_path, script=SLOW):
    return subprocess.Popen([sys.executable, "-c", script, *map(str, args)], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _children(pid: int) -> set[int]:
    kids = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            pass
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_ctrl_c_prints_one_line_and_exits_130(tmp_path):
    proc = _start(["solve", _big_problem(tmp_path), "--solver", "HIGHS"], tmp_path, IN_SOLVE)
    lines = iter(proc.stdout.readline, "")
    assert "solving" in (line.strip() for line in lines)  # inside the command's solve call
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["mechdesign: interrupted"]


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_no_frontier_worker_outlives_its_parent(tmp_path, sig):
    proc = _start(["frontier", _big_problem(tmp_path), "--eps", "0.2:3:40", "--workers", "2",
                   "--no-families"], tmp_path)
    workers: set[int] = set()
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline and len(workers) < 2 and proc.poll() is None:
        workers |= _children(proc.pid)
        time.sleep(0.2)
    if not workers:
        proc.kill()
        pytest.skip("the frontier finished or ran in one process before workers started")
    proc.send_signal(sig)
    proc.communicate(timeout=30)
    if sig == signal.SIGTERM:
        assert proc.returncode == 143
    deadline = time.monotonic() + 60  # a liveness bound: the loop ends when they are gone
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.2)
    left = [w for w in workers if _alive(w)]
    for w in left:
        os.kill(w, signal.SIGKILL)
    assert not left, f"workers {left} outlived the parent ({sig.name})"


def test_a_repeated_key_is_refused(capsys):
    code, _, err = run(["check", "warner", "p=0.75", "p=0.6"], capsys)
    assert code == 2 and "'p'" in err


def test_a_huge_composition_is_refused_before_allocating(capsys):
    code, _, err = run(["compose", "warner", "p=0.75", "--k", "1e12", "--epsilon", "1"], capsys)
    assert code == 2 and "limit" in err




def test_a_missing_folder_is_refused_before_computing(tmp_path, capsys):
    code, stdout, err = run(["solve", KRR, "--out", tmp_path / "nope" / "q.csv"], capsys)
    assert code == 2 and stdout == "" and "nope" in err


HOSTILE_FILES = [  # (name, content, command, expected fragment of the one error line)
    ("deep.json", "[" * 100_000 + "]" * 100_000, "check", "nested too deeply"),
    ("wide.csv", "0.5," + "1" * 200_000 + "\n", "check", "longer than 131072"),
    ("deep.toml", '[privacy]\nnotion = "ldp"\nepsilon = 1.0\nx = ' + "[" * 5000 + "1"
     + "]" * 5000 + "\n", "solve", "nested too deeply"),
]


@pytest.mark.parametrize(("name", "content", "command", "fragment"), HOSTILE_FILES,
                         ids=[h[0] for h in HOSTILE_FILES])
def test_hostile_files_give_one_typed_line(tmp_path, capsys, name, content, command,
                                           fragment):
    path = tmp_path / name
    path.write_text(content)
    code, _, err = run([command, path], capsys)
    assert code == 2 and fragment in err and err.count("\n") == 1
