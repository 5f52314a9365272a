"""The solver adapter: everything mechdesign knows about one solver, in one object.

A :class:`SolverAdapter` says, for the solver cvxpy knows by :attr:`~SolverAdapter.name`,

* its quiet defaults and how the user's options and a time limit reach it
  (:meth:`~SolverAdapter.settings`);
* its option schema: why it refuses an option, asked of the solver itself where it can
  tell (:meth:`~SolverAdapter.option_problem`, checked when :attr:`checks_options`);
* how it runs so that Ctrl-C stops it (:meth:`~SolverAdapter.call`: a native call, or
  ``None`` for cvxpy's own);
* where its primal and dual answers are, for the independent bound
  (:meth:`~SolverAdapter.primal_dual`);
* which solver re-solves a doubtful answer (:meth:`~SolverAdapter.fallback`).

This class is also the adapter of "any other cvxpy solver" (SCS, OSQP, ...): cvxpy's own
call, options passed unchecked (their interfaces publish no list), no dual bound, no
fallback. The adapters of HiGHS, Clarabel and the block-angular interior point are in
:mod:`~mechdesign.design.solvers.highs` and :mod:`~mechdesign.design.solvers.clarabel`; the
table of them is :data:`mechdesign.design.solvers.ADAPTERS`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import cvxpy as cp
import numpy as np

__all__ = ["COMMON_OPTIONS", "SolverAdapter", "is_lp"]

COMMON_OPTIONS = ("verbose",)
"""Options every solver takes (read by :func:`~mechdesign.design.solvers.solve_compiled`
itself)."""


def is_lp(problem: cp.Problem) -> bool:
    """A linear objective under linear constraints only: each constraint an (in)equality or
    sign constraint whose expressions are all affine (``norm(x) <= 1`` is an
    ``Inequality`` too, but a cone)."""
    return problem.is_dcp() and all(
        type(c).__name__ in ("Inequality", "Equality", "Zero", "NonNeg", "NonPos")
        and all(arg.is_affine() for arg in c.args)
        for c in problem.constraints) and problem.objective.expr.is_affine()


class SolverAdapter:
    """One solver as mechdesign runs it (see the module docstring).

    Parameters
    ----------
    name : str
        cvxpy's name of the solver (``"SCS"``); also the name of its problem data.
    time_limit_key : str or None
        The solver option that takes a time limit in seconds, if any.
    """

    checks_options: bool = False
    """True when :meth:`option_problem` asks the solver itself (else options go unchecked)."""

    label: str = ""
    """What solved, when it is not :attr:`name` itself (the block interior point)."""

    def __init__(self, name: str, time_limit_key: str | None = None) -> None:
        self.name = name
        self.time_limit_key = time_limit_key

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    def settings(self, options: dict, time_limit: float | None) -> dict:
        """The options of one solve: quiet defaults, overridden by the user's ``options``;
        ``time_limit`` (seconds) under :attr:`time_limit_key`."""
        opts = dict(options)
        if time_limit is not None and self.time_limit_key is not None:
            opts.setdefault(self.time_limit_key, float(time_limit))
        opts.setdefault("verbose", False)
        return opts

    def option_problem(self, key: str, value: Any) -> str | None:
        """Why the solver refuses ``key = value``, or None (always None: unchecked)."""
        return None

    def call(self, prob: cp.Problem, data: dict, chain: Any, verbose: bool, opts: dict,
             stop: threading.Event) -> Callable[[], Any] | None:
        """The solve of cvxpy's problem ``data`` as a call that stops soon after ``stop``
        is set, returning the raw answer cvxpy's interface unpacks; None: cvxpy's own
        ``solve_via_data`` (which Ctrl-C stops only when the solver returns)."""
        return None

    def primal_dual(self, raw: Any) -> tuple[np.ndarray, np.ndarray] | None:
        """The primal point and the duals of the rows of cvxpy's ``A x + s = b`` (``s`` in
        the cone, duals in the dual cone) from the raw answer; None when unknown."""
        return None

    def fallback(self, lp: bool) -> str | None:
        """The solver that re-solves a doubtful answer of this one (None: none)."""
        return None
