"""One module per CLI command; each exposes ``register(subparsers)``.

To add a command, write ``cli/NAME.py`` with ``register`` and a ``cmd_NAME(args)`` run
function, and add it to ``MODULES``. A command module imports only the standard library,
:mod:`mechdesign.errors` and the shared helpers (:mod:`.output`, :mod:`.mechanisms`) at the
top; the library is imported inside the run function, so that ``mechdesign --help`` and
``mechdesign NAME --help`` load neither cvxpy, networkx, scipy nor matplotlib (a description
that needs the library, such as the catalog names, is given as a callable: see
:class:`~mechdesign.cli.main.OneLineParser`). No command module imports another.
"""

from . import (
    amplify,
    calibrate,
    check,
    compare_warner,
    compose,
    examples,
    frontier,
    solve,
    survey,
    tradeoff,
)

__all__ = ["MODULES"]

MODULES = [check, solve, examples, survey, frontier, compare_warner, tradeoff, compose, amplify,
           calibrate]
