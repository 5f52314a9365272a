"""Tests a newcomer can find: every module ``mechdesign/<path>/<name>.py`` has its tests in
``tests/<path>/test_<name>.py`` (a private module ``_name.py`` in ``tests/<path>/test_name.py``).

Skipped, on purpose: a package's ``__init__.py`` is its namespace (re-exports and lazy
attributes; the names are held by tests/test_public_api.py and the package folder's tests),
and ``__main__.py`` is the seven-line ``python -m mechdesign`` entry point run by
tests/test_packaging.py. Neither has tests of its own to find.

There are no exceptions: a new module comes with its mirror file (tests of behaviour that
spans several modules may live in topic files too, such as tests/test_bad_input.py).
"""

from __future__ import annotations

from pathlib import Path

import mechdesign

PACKAGE = Path(mechdesign.__file__).resolve().parent
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SKIPPED = ("__init__.py", "__main__.py")

def modules() -> dict[str, Path]:
    """Every module of the package but the skipped files, by dotted name below mechdesign."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in SKIPPED:
            continue
        rel = path.relative_to(PACKAGE).with_suffix("")
        found[".".join(rel.parts)] = path
    return found


def mirror(module: str) -> Path:
    """``a.b._c`` -> ``tests/a/b/test_c.py``."""
    *folders, name = module.split(".")
    return TESTS.joinpath(*folders, f"test_{name.removeprefix('_')}.py")


def test_mirror_paths():
    assert mirror("catalog") == TESTS / "test_catalog.py"
    assert mirror("_algebra") == TESTS / "test_algebra.py"
    assert mirror("accounting.pld") == TESTS / "accounting" / "test_pld.py"
    assert "catalog" in modules() and "design.planner" in modules()
    assert not any(name.endswith(("__init__", "__main__")) for name in modules())


def test_every_module_has_its_mirror_test_file():
    missing = sorted(name for name in modules() if not mirror(name).is_file())
    assert not missing, (
        "modules without tests/<path>/test_<module>.py (create it, moving the module's "
        "tests there): " + ", ".join(f"{m} -> {mirror(m).relative_to(ROOT)}" for m in missing))
