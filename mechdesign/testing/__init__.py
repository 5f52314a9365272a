"""Test harnesses shipped with the package (importable from tests and benchmarks alike).

``fuzz``: random design problems over every notion and objective, each result checked
exactly and against an independent reference LP.
"""

__all__: list[str] = []  # the harnesses are the submodules
