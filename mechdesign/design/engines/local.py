r"""Local optimisation of information objectives under notions without a staircase theorem.

Minorise-maximise. Both information objectives are convex in Q, so their linearisation at
``Q_t`` is a global lower bound (in the Loewner order for the Fisher information):

* mutual information: ``MI(Q) >= <G(Q_t), Q>`` with ``G[x, y] = pi_x ln(Q_t[x,y] / (pi Q_t)_y)``
  (equality at Q_t by positive homogeneity), so each step is an LP;
* estimation: ``I(Q) >= L_t(Q) = Q A^T + A Q^T - A diag(pi^T Q) A^T`` with
  ``A = Q_t diag(1 / (pi^T Q_t))``, and each criterion is decreasing in the Loewner order,
  so ``crit(I(Q)) <= crit(L_t(Q))``; each step is a convex program.

Every step keeps all privacy and user constraints and never worsens the objective. The result
is a local optimum (reported as such), best of several starts.
"""

from __future__ import annotations

from collections.abc import Callable

import cvxpy as cp
import numpy as np
from scipy.linalg import null_space

from ...errors import InvalidParameterError, SolverFailedError
from ..certify import clean
from ..objectives import (
    EstimationVariance,
    InformationObjective,
    criterion_expression,
)

__all__ = ["solve_local", "starts"]


def starts(k: int, n: int, seed: int = 0, count: int = 3) -> list[np.ndarray]:
    """A randomized-response-like start and random Dirichlet starts (reproducible)."""
    out = [np.eye(k, n) * 2.0 + 1.0]
    rng = np.random.default_rng(seed)
    out += [rng.dirichlet(np.ones(n), size=k) + 1e-3 for _ in range(count - 1)]
    return [Q / Q.sum(axis=1, keepdims=True) for Q in out]


def _step(objective: InformationObjective, Q: cp.Expression, Qt: np.ndarray
          ) -> cp.Expression:
    """The convex surrogate to minimise at ``Qt``."""
    if not isinstance(objective, EstimationVariance):  # a sum of column utilities
        return -cp.sum(cp.multiply(objective.linearized(Qt), Q))
    k = Qt.shape[0]
    lam = objective.prior @ Qt
    A = np.where(lam > 0, Qt / np.where(lam > 0, lam, 1.0), 0.0)
    L = Q @ A.T + A @ Q.T - A @ cp.diag(objective.prior @ Q) @ A.T
    U = null_space(np.ones((1, k)))
    M = U.T @ L @ U
    WU = None if objective.weights is None else objective.weights @ U
    return criterion_expression((M + M.T) / 2, objective.criterion, WU)


def solve_local(objective: InformationObjective, feasible: Callable[[], tuple],
                solve: Callable[[cp.Problem], None], k: int, n: int,
                max_iter: int = 40, rtol: float = 1e-7,
                expired: Callable[[], bool] = lambda: False
                ) -> tuple[np.ndarray, float, int, bool]:
    """Best local optimum over :func:`starts`; returns (Q, value, total iterations,
    stopped).

    ``feasible()`` returns a fresh ``(Q expression, constraints)``; ``solve(problem)`` runs
    the solver (raising on failure). Once ``expired()`` (a time limit), no further start or
    step begins and the best point so far is returned with ``stopped = True``.
    """
    sign = -1.0 if objective.sense == "maximize" else 1.0

    def score(Q: np.ndarray) -> float | None:
        # a cleaned step can zero an entry its column needs (an output of prior
        # probability 0 that other inputs still send): no value, never kept (an infinite
        # value, e.g. a criterion of a design that cannot identify the prior, is a value)
        try:
            return sign * objective.evaluate(Q)
        except InvalidParameterError:
            return None

    best_Q, best, total, stopped = None, np.inf, 0, False
    failures = []
    for Q0 in starts(k, n):
        if best_Q is not None and expired():
            stopped = True
            break
        # project the start onto the feasible set: the linearisation needs a feasible,
        # informative point to be a useful minorant
        Qexpr, cons = feasible()
        try:
            solve(cp.Problem(cp.Minimize(cp.sum_squares(Qexpr - Q0)), cons))
        except SolverFailedError as exc:
            failures.append(str(exc))
            continue
        Qt = clean(Qexpr.value)
        current = score(Qt)
        if current is None:
            failures.append("a start's projection has no objective value")
            continue
        for _ in range(max_iter):
            if expired():
                stopped = True
                break
            Qexpr, cons = feasible()
            prob = cp.Problem(cp.Minimize(_step(objective, Qexpr, Qt)), cons)
            try:
                solve(prob)
            except SolverFailedError as exc:
                failures.append(str(exc))
                break
            total += 1
            if Qexpr.value is None:
                break
            Qn = clean(Qexpr.value)
            new = score(Qn)
            if new is None:
                break
            improved = new < current - rtol * max(abs(current), 1.0)
            if new <= current:
                Qt, current = Qn, new
            if not improved:
                break
        if current < best or best_Q is None:
            best_Q, best = Qt, current
    if best_Q is None:
        raise SolverFailedError("no start of the local method could be solved: "
                                + "; ".join(failures[:3]))
    return best_Q, sign * best, total, stopped
