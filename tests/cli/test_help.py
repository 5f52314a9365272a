"""A fast command line: ``mechdesign --help`` and ``mechdesign CMD --help`` load neither
cvxpy, networkx, scipy.stats nor matplotlib; the option defaults repeated in the CLI equal
the library's. (Command modules import no other command module and no private name:
tests/cli/test_commands.py; the catalog names in the help: tests/cli/test_mechanisms.py.)"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest

from mechdesign.cli import compare_warner as compare_warner_cli
from mechdesign.cli import compose as compose_cli

HEAVY = ("cvxpy", "networkx", "scipy.stats", "matplotlib")
COMMANDS = ("check", "solve", "frontier", "compare-warner", "tradeoff", "compose", "amplify",
            "calibrate")

_PROBE = """
import json, sys
from mechdesign.cli.main import main
try:
    main({argv!r})
except SystemExit:
    pass
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)), file=sys.stderr)
"""


def _heavy_after(argv: list[str]) -> tuple[str, list[str]]:
    """Run the CLI with ``argv`` in a fresh interpreter; its stdout and the heavy modules
    loaded by then."""
    r = subprocess.run([sys.executable, "-c", _PROBE.format(argv=argv, heavy=HEAVY)],
                       capture_output=True, text=True, check=True, timeout=120)
    return r.stdout, json.loads(r.stderr.strip().splitlines()[-1])


def test_top_level_help_loads_no_heavy_module():
    out, heavy = _heavy_after(["--help"])
    assert heavy == []
    assert all(c in out for c in COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_help_loads_no_heavy_module(command):
    out, heavy = _heavy_after([command, "--help"])
    assert heavy == [] and out.startswith(f"usage: mechdesign {command}")


def test_python_m_mechdesign_help():
    code = ("import runpy, sys; sys.argv = ['mechdesign', '--help']\n"
            "try:\n    runpy.run_module('mechdesign', run_name='__main__')\n"
            "except SystemExit as e:\n    code = e.code\n"
            f"print([m for m in {HEAVY!r} if m in sys.modules], code, file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.stderr.strip().splitlines()[-1] == "[] 0"
    assert r.stdout.startswith("usage: mechdesign")


def test_defaults_repeated_in_the_cli_equal_the_library():
    from mechdesign.accounting import compose
    from mechdesign.studies import figure_data

    assert compose_cli.DEFAULT_GRID == inspect.signature(compose).parameters["grid"].default
    for name in ("FIGURE_PI", "FIGURE_N", "FIGURE_C", "FIGURE_EPSILONS", "FIGURE3_N",
                 "FIGURE3_DONT_KNOW"):
        assert getattr(compare_warner_cli, name) == getattr(figure_data, name), name
