"""The command-line interface: one module per command (``check``, ``solve``, ``examples``,
``survey``, ``frontier``, ``compare_warner``, ``tradeoff``, ``compose``, ``amplify``), shared
helpers in ``output`` (formatting, output files, argument types) and ``mechanisms`` (the
mechanism a command names), the parser and the error contract in ``main``."""

from .main import main

__all__ = ["main"]
