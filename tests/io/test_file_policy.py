"""The file policy of problem files.

Paths inside a problem file resolve against its folder and may not leave it (absolute
paths, ``..`` and symbolic links out are refused unless the user opts in); files under
/proc, /sys and /dev are never read; no error message contains data read from a file.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from mechdesign.cli.main import main
from mechdesign.errors import FileFormatError, SizeLimitError
from mechdesign.io.problems import load_problem

SECRET = "TOPSECRET-7f3a"


def problem(loss: str) -> str:
    return f"""
[privacy]
notion = "ldp"
epsilon = 1.0

[objective]
kind = "expected_loss"
loss = {loss}
prior = "uniform"
"""


@pytest.fixture
def layout(tmp_path):
    """tmp/inside/p.toml beside good.csv; tmp/outside/secret.csv holds SECRET."""
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    (inside / "good.csv").write_text("0,1\n1,0\n")
    (outside / "secret.csv").write_text(f"0,1\n1,{SECRET}\n")
    (outside / "ok.csv").write_text("0,1\n1,0\n")
    return inside, outside


def write(folder, loss: str):
    p = folder / "p.toml"
    p.write_text(problem(loss))
    return p


def test_a_path_inside_the_folder_is_read(layout):
    inside, _ = layout
    pf = load_problem(write(inside, '{csv = "good.csv"}'))
    np.testing.assert_array_equal(pf.problem.objective.loss, [[0, 1], [1, 0]])


@pytest.mark.parametrize("kind", ["absolute", "dotdot", "symlink"])
def test_paths_leaving_the_folder_are_refused_without_echoing_data(layout, kind):
    inside, outside = layout
    if kind == "absolute":
        name = str(outside / "secret.csv")
    elif kind == "dotdot":
        name = "../outside/secret.csv"
    else:
        os.symlink(outside / "secret.csv", inside / "link.csv")
        name = "link.csv"
    p = write(inside, f'{{csv = "{name}"}}')
    with pytest.raises(FileFormatError, match="refused") as info:
        load_problem(p)
    assert SECRET not in str(info.value)
    assert "allow-outside-paths" in str(info.value)


def test_the_opt_in_reads_outside_and_still_echoes_nothing(layout):
    inside, _ = layout
    p = write(inside, '{csv = "../outside/ok.csv"}')
    pf = load_problem(p, allow_outside=True)
    assert pf.problem.objective.loss.shape == (2, 2)
    bad = write(inside, '{csv = "../outside/secret.csv"}')
    with pytest.raises(FileFormatError, match=r"secret\.csv row 2, column 2") as info:
        load_problem(bad, allow_outside=True)
    assert SECRET not in str(info.value)


def test_the_cli_refuses_by_default_and_honours_the_flag(layout, capsys):
    inside, _ = layout
    p = write(inside, '{csv = "../outside/ok.csv"}')
    assert main(["solve", str(p)]) == 2
    err = capsys.readouterr().err
    assert "refused" in err and err.count("\n") == 1
    assert main(["solve", str(p), "--allow-outside-paths"]) == 0


@pytest.mark.parametrize("target", ["/proc/self/environ", "/dev/zero"])
def test_pseudo_files_are_never_read(layout, target):
    if not os.path.exists(target):
        pytest.skip(f"{target} does not exist here")
    inside, _ = layout
    p = write(inside, f'{{csv = "{target}"}}')
    with pytest.raises(FileFormatError) as info:
        load_problem(p, allow_outside=True)  # not even with the opt-in
    assert target.split("/")[1] in str(info.value)


def test_an_oversized_file_is_refused_before_reading(layout):
    # every file of a problem is read through read_text_limited (MAX_FILE_BYTES, 64 MiB)
    from mechdesign.io.matrices import MAX_FILE_BYTES, read_text_limited
    inside, _ = layout
    assert MAX_FILE_BYTES == 64 * 2**20
    with pytest.raises(SizeLimitError) as info:
        read_text_limited(inside / "good.csv", limit=4)
    assert "0,1" not in str(info.value)
