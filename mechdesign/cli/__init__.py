"""The command-line interface: one module per command, shared helpers in ``output``."""

from .main import main

__all__ = ["main"]
