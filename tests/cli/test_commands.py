"""Tests of :mod:`mechdesign.cli.commands`: the table of command modules and the rules it
states for them.

Pinned: every module of ``mechdesign/cli/`` but the shared helpers is in ``MODULES``, each
registers its own subcommands (no name twice) and the parser has exactly those; every
subcommand runs a ``cmd_*`` function of its own module (or has subcommands of its own that
do); a command module imports no other command module and no private name.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import mechdesign.cli as cli
from mechdesign.cli.commands import MODULES
from mechdesign.cli.main import _leaf_parsers, build_parser

CLI = Path(cli.__file__).parent
SHARED = {"output", "mechanisms"}
"""The modules every command may import (besides ``main``'s ``commands`` table)."""
NOT_COMMANDS = {"__init__", "main", "commands", *SHARED}


def subcommand_action(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def test_every_command_module_is_in_the_table():
    on_disk = {p.stem for p in CLI.glob("*.py")} - NOT_COMMANDS
    assert {m.__name__.rsplit(".", 1)[-1] for m in MODULES} == on_disk
    assert len(MODULES) == len(set(MODULES))


def test_each_module_registers_its_own_commands():
    # each module registered alone: its names (none registered twice) and, for every
    # parser that runs something (``amplify shuffle``, not ``amplify``), a cmd_* function
    # of that module; together they are the parser's commands
    seen: dict[str, str] = {}
    for module in MODULES:
        sub = argparse.ArgumentParser().add_subparsers()
        module.register(sub)
        assert sub.choices, module.__name__
        for name in sub.choices:
            assert name not in seen, (name, module.__name__, seen.get(name))
            seen[name] = module.__name__
        for leaf in _leaf_parsers(sub):
            func = leaf.get_default("func")
            assert callable(func), (module.__name__, leaf.prog)
            assert func.__module__ == module.__name__, (leaf.prog, func)
            assert func.__name__.startswith("cmd_"), (leaf.prog, func)
    assert set(subcommand_action(build_parser()).choices) == set(seen)


def _relative_imports(path: Path) -> list[tuple[str, list[str]]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out.append((node.module or "", [a.name for a in node.names]))
    return out


def test_no_command_module_imports_another_or_a_private_name():
    for path in CLI.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level >= 1:
                private = [a.name for a in node.names if a.name.startswith("_")
                           and a.name != "__version__"]
                assert not private, (path.name, node.module, private)
        if path.stem in ("__init__", "main", "commands"):
            continue
        for module, _ in _relative_imports(path):
            assert module in SHARED, (path.name, module)
