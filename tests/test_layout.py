"""Tests a newcomer can find: every module ``mechdesign/<path>/<name>.py`` has its tests in
``tests/<path>/test_<name>.py`` (a private module ``_name.py`` in ``tests/<path>/test_name.py``).

Skipped, on purpose: a package's ``__init__.py`` is its namespace (re-exports and lazy
attributes; the names are held by tests/test_public_api.py and the package folder's tests),
and ``__main__.py`` is the seven-line ``python -m mechdesign`` entry point run by
tests/test_packaging.py. Neither has tests of its own to find.

A module whose tests still live in differently named files is listed in
:data:`KNOWN_WITHOUT_MIRROR` with those files and, for each, a name the module defines and
the file uses (checked here, so the entry is evidence, not a promise). The list only
shrinks: an entry fails once the module's mirror file exists or the module is gone.
"""

from __future__ import annotations

from pathlib import Path

import mechdesign

PACKAGE = Path(mechdesign.__file__).resolve().parent
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SKIPPED = ("__init__.py", "__main__.py")

# module (dotted, below mechdesign) -> {test file covering it: a name both files contain}
KNOWN_WITHOUT_MIRROR: dict[str, dict[str, str]] = {
    "testing.cases": {"tests/design/test_design_fuzz.py": "NOTION_KINDS"},
    "testing.fuzz": {"tests/design/test_design_fuzz.py": "run_case"},
    "testing.reference": {"tests/design/test_design_fuzz.py": "reference_lp"},
    "testing.timing": {"tests/test_sampler.py": "BisectionSampler",
                       "tests/design/methods/test_working_set.py": "FakeClock"},
}


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
    missing = sorted(name for name in modules()
                     if not mirror(name).is_file() and name not in KNOWN_WITHOUT_MIRROR)
    assert not missing, (
        "modules without tests/<path>/test_<module>.py (create it, moving the module's "
        "tests there): " + ", ".join(f"{m} -> {mirror(m).relative_to(ROOT)}" for m in missing))


def test_known_without_mirror_is_not_stale():
    found = modules()
    gone = sorted(name for name in KNOWN_WITHOUT_MIRROR if name not in found)
    assert not gone, f"KNOWN_WITHOUT_MIRROR lists modules that no longer exist: {gone}"
    mirrored = sorted(name for name in KNOWN_WITHOUT_MIRROR if mirror(name).is_file())
    assert not mirrored, f"these now have their mirror file; drop them from the list: {mirrored}"


def test_known_without_mirror_names_the_files_that_cover_each_module():
    found = modules()
    wrong = []
    for name, files in KNOWN_WITHOUT_MIRROR.items():
        assert files, name
        source = found[name].read_text(encoding="utf-8") if name in found else ""
        for file, evidence in files.items():
            path = ROOT / file
            if not path.is_file():
                wrong.append(f"{name}: {file} does not exist")
            elif evidence not in source:
                wrong.append(f"{name}: the module does not contain {evidence!r}")
            elif evidence not in path.read_text(encoding="utf-8"):
                wrong.append(f"{name}: {file} does not contain {evidence!r}")
    assert not wrong, "\n".join(wrong)
