"""Helpers of the file-reading tests (tests/io/test_strict_files.py, tests/io/test_survey.py):
write raw bytes to a file and read an error's message."""

from __future__ import annotations

BOM = b"\xef\xbb\xbf"


def write(tmp_path, name: str, data: str | bytes):
    """``data`` (text as UTF-8, or raw bytes) written to ``tmp_path / name``; the path."""
    path = tmp_path / name
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def message(exc_info) -> str:
    """The message of a ``pytest.raises`` result."""
    return str(exc_info.value)
