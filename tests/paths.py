"""Paths of the repository's data, so that the suite runs from any working directory."""

from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
PROBLEMS = REPOSITORY / "problems"
EXAMPLES = REPOSITORY / "examples"
