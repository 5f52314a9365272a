"""One module per CLI command; each exposes ``register(subparsers)``.

To add a command, write ``commands/NAME.py`` with ``register`` and add it to ``MODULES``.
"""

from . import amplify, check, compare_warner, compose, frontier, solve, tradeoff

MODULES = [check, solve, frontier, compare_warner, tradeoff, compose, amplify]
