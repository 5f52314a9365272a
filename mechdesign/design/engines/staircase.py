r"""Staircase programs: exact optimal mechanisms for information objectives under pure LDP.

Kairouz, Oh, Viswanath ("Extremal mechanisms for local differential privacy", JMLR 2016):
for a utility that is a sum over outputs of a convex, positively homogeneous function of
each column, some optimal eps-LDP mechanism is a staircase mechanism: every column is a
non-negative multiple of a pattern ``s`` in ``{1, e^eps}^k``. With ``S`` the ``k x P``
pattern matrix (``P = 2^k - 1``: the all-``e^eps`` pattern is a multiple of the all-ones one)
the mechanism is ``Q = S diag(w)`` with ``S w = 1, w >= 0``.

* Sublinear utilities (mutual information): an LP, ``max sum_j mu(s_j) w_j``.
* Estimation: the Fisher information ``I = sum_j w_j s_j s_j^T / (pi . s_j)`` is linear in
  w and the Cramer-Rao criteria are convex in I: a convex program
  (``docs/formulations.md``, "Estimation"). With a uniform prior and no
  workload weights the optimum is symmetric and is d-subset selection with the best d,
  in closed form (:func:`symmetric_estimation`).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np
from scipy.linalg import null_space
from scipy.optimize import linprog, nnls

from ...errors import SizeLimitError, SolverFailedError
from ...oracles.subset import subset_selection_risk
from ..bound import pattern_lp_lower_bound
from ..objectives import (
    EstimationVariance,
    InformationObjective,
    Objective,
    criterion_expression,
    projected_criterion,
)
from ..solvers.run import Deadline

__all__ = ["BOUND_LP_OPTIONS", "CLARABEL_RETRIES", "COLUMN_GENERATION_ABOVE", "MAX_COLUMN_ROUNDS",
           "MAX_STAIRCASE_EPSILON", "MAX_STAIRCASE_K", "PRICING_TOL", "REFINE_ABOVE",
           "TIGHT_CLARABEL", "TIME_LIMIT_KEYS", "StaircaseSolution", "information_expression",
           "information_scaling", "linear_bound", "pattern_bits", "pattern_data", "patterns",
           "purify", "solve_estimation", "solve_sublinear", "solve_with_retries",
           "symmetric_estimation", "tighter_solve", "unscale", "value_and_gradient"]

MAX_STAIRCASE_EPSILON = 30.0
"""Largest epsilon of the staircase programs: the patterns hold 1 and e^eps side by side.
Measured (k = 2..8, Dirichlet priors): every criterion solves at eps = 30; the
mutual-information LP fails in HiGHS from eps = 35 ("model error") and the estimation
program returns non-finite weights from eps = 100 and overflows from 700. Above it the
design is refused with a typed error naming this limit."""

MAX_STAIRCASE_K = 16
"""The pattern LP has 2^k - 1 variables: k <= 16 (measured to solve in seconds at k = 16:
``benchmarks/README.md``, "Measurements behind the library's constants")."""


def patterns(k: int, epsilon: float) -> np.ndarray:
    """The ``(k, 2^k - 1)`` staircase patterns: column j has ``e^eps`` where bit i of j is 1."""
    if k > MAX_STAIRCASE_K:
        raise SizeLimitError(
            f"the staircase program enumerates 2^k patterns; k = {k} exceeds "
            f"{MAX_STAIRCASE_K} (use a uniform prior for the symmetric reduction)")
    return 1.0 + math.expm1(epsilon) * pattern_bits(k)


def pattern_bits(k: int) -> np.ndarray:
    """``(k, 2^k - 1)`` 0/1 matrix: column j holds the bits of j (1 where the pattern has
    ``e^eps``)."""
    j = np.arange((1 << k) - 1)
    return ((j[None, :] >> np.arange(k)[:, None]) & 1).astype(float)


@dataclass(frozen=True)
class StaircaseSolution:
    """Pattern weights and the resulting matrix ``Q = S[:, support] diag(w[support])``;
    ``accurate`` is False when the solver only reached ``optimal_inaccurate`` (or column
    generation stopped above its gap); ``patterns_used``, ``rounds`` and ``gap`` describe
    the column generation (``gap``: certified relative optimality gap)."""

    Q: np.ndarray
    value: float
    n_patterns: int
    solver: str
    accurate: bool = True
    patterns_used: int | None = None
    rounds: int = 1
    gap: float = 0.0
    bound: float | None = None
    """A rigorous bound on the optimum recomputed from the program's data (a lower bound
    for the estimation criteria, an upper bound for a maximised utility); None if none."""
    stopped: bool = False
    """The time limit stopped the program early (the answer is then marked inaccurate)."""


def _support(S: np.ndarray, w: np.ndarray) -> np.ndarray:
    keep = w > 1e-12 * max(float(w.max()), 1e-300)
    return S[:, keep] * w[keep]


def solve_sublinear(objective: InformationObjective, epsilon: float,
                    deadline: Deadline | None = None) -> StaircaseSolution:
    """``max sum_j mu(s_j) w_j`` s.t. ``S w = 1, w >= 0`` (scipy HiGHS, a vertex solution;
    the ``deadline``'s remaining time is HiGHS's time limit)."""
    k = objective.n_inputs
    S = patterns(k, epsilon)
    mu = objective.column_utility(S)
    left = None if deadline is None else deadline.remaining()
    opts = BOUND_LP_OPTIONS if left is None else {**BOUND_LP_OPTIONS, "time_limit": left}
    res = linprog(-mu, A_eq=S, b_eq=np.ones(k), bounds=(0, None), method="highs",
                  options=opts)
    if res.status == 1 and deadline is not None and deadline.expired:
        raise SolverFailedError(deadline.stopped("the staircase LP"))
    if res.status != 0:
        raise SolverFailedError(f"staircase LP failed: {res.message}")
    Q = _support(S, res.x)
    # an upper bound on the maximum from the LP's duals (pattern_lp_lower_bound of -mu)
    bound = -pattern_lp_lower_bound(-mu, S, np.asarray(res.eqlin.marginals))
    return StaircaseSolution(Q, float(mu @ res.x), S.shape[1], "HiGHS (scipy)", bound=bound)


BOUND_LP_OPTIONS = {"primal_feasibility_tolerance": 1e-10,
                    "dual_feasibility_tolerance": 1e-10}
"""scipy HiGHS tolerances of the pattern LPs: their duals feed the certified bounds, whose
error is about the dual tolerance times k."""

TIGHT_CLARABEL = {"tol_gap_abs": 1e-12, "tol_gap_rel": 1e-12, "tol_feas": 1e-12,
                  "static_regularization_enable": False}
"""Clarabel settings of the refinement solve of the estimation program. Clarabel usually
ends these "optimal_inaccurate" (it cannot prove 1e-12), but its point is better, and the
answer is judged by the certified bound, not by the solver's status (measured, k = 5,
eps = 0.1: certified gap 2.0e-5 at the defaults, 4.5e-9 with these)."""

REFINE_ABOVE = 1e-8
"""The estimation program is re-solved with :data:`TIGHT_CLARABEL` when its certified
relative gap (scaled units) is above this."""

COLUMN_GENERATION_ABOVE = 255
"""Above this many patterns (k >= 9) the A and D criteria are solved by column generation
(:func:`solve_estimation`); the E criterion, non-smooth, always uses every pattern."""

PRICING_TOL = 1e-9
"""A pattern outside the working set enters when its reduced cost is below
``-PRICING_TOL * max(|f|, 1)``."""

MAX_COLUMN_ROUNDS = 60
"""Column generation stopped here with patterns still pricing out is reported inaccurate."""


def solve_estimation(objective: EstimationVariance, epsilon: float,
                     solver: str | None = None, deadline: Deadline | None = None,
                     **options: Any) -> StaircaseSolution:
    r"""Minimise the Cramer-Rao criterion over staircase mechanisms (a convex program).

    The program has one weight per pattern (``2^k - 1``) but its optimum uses few of them.
    For the A and D criteria above :data:`COLUMN_GENERATION_ABOVE` patterns it is solved by
    column generation: a master program over a working set of patterns (first the
    singletons, pairs and their complements: k-RR is feasible), then every pattern is
    priced at once with the master's gradient ``g`` and a dual ``y`` of ``S w = 1`` fitted
    to the master's stationarity (reduced cost ``r_j = g_j + y . a_j``); the 2k most
    negative below ``-PRICING_TOL |f|`` enter, until none is left (or
    :data:`MAX_COLUMN_ROUNDS`, then the result is marked inaccurate). A pattern left out
    with reduced cost ``-r`` costs at most about ``r^2`` over the curvature. Checked
    against the full program in ``tests/design/engines/test_staircase.py``; measured in
    ``benchmarks/design_scaling.py`` (section 4; numbers in ``benchmarks/README.md``,
    "Design scaling"): same criterion to 1.2e-9 relative at k = 9..11 and faster than the
    full program, and it reaches k = 14 (1186 of 16,383 patterns).
    ``gap`` reports the first-order bound: for convex f and any feasible ``v'``,
    ``f(v') >= f(v) + sum_j r_j v'_j - sum_j r_j v_j`` and ``sum_j v'_j <= k``, so
    ``(f(v) - f*) / |f| <= (k max(0, -min_j r_j) + |sum_j r_j v_j|) / |f|``; it is loose
    (about the square root of the master's tolerance, 1e-4), so it is reported, not used
    to stop.

    With a ``deadline``, each solve gets its remaining time, and column generation stops
    when it is spent (``stopped``: the last master's answer, marked inaccurate; its bound
    over all patterns still holds).
    """
    k = objective.n_inputs
    if epsilon == 0.0:
        raise SolverFailedError("at epsilon = 0 no mechanism carries information: the "
                                "estimation criterion is infinite")
    S, V, c, a = pattern_data(k, epsilon)
    P = S.shape[1]
    den, scale, WU = information_scaling(objective, S, V, c, epsilon)
    generate = objective.criterion != "E" and P > COLUMN_GENERATION_ABOVE
    J = _seed_patterns(k) if generate else np.arange(P)
    name = solver or "CLARABEL"
    accurate, rounds, gap, stopped = True, 0, 0.0, False
    explicit = solver is not None or bool(options)
    while True:
        rounds += 1
        v = cp.Variable(len(J), nonneg=True)
        M = information_expression(V, den, J, v)
        row = a[:, J] @ v == 1
        prob = cp.Problem(cp.Minimize(criterion_expression(M, objective.criterion, WU)),
                          [row])
        v_value, prob_value, ok = solve_with_retries(prob, v, name, options, explicit,
                                                      deadline)
        accurate = ok  # the answer is the last master's; earlier ones only chose columns
        if not generate:
            break
        r, gap = _reduced_costs(objective.criterion, WU, V, den, a, J, v_value,
                                prob_value, k)
        outside = np.setdiff1d(np.arange(P), J)
        floor = -PRICING_TOL * max(abs(prob_value), 1.0)
        fresh = outside[r[outside] < floor]
        stopped = bool(len(fresh)) and deadline is not None and deadline.expired
        if not len(fresh) or rounds >= MAX_COLUMN_ROUNDS or stopped:
            accurate = accurate and not len(fresh)
            break
        fresh = fresh[np.argsort(r[fresh])[:2 * k]]
        J = np.union1d(J, fresh)
    bound = _frank_wolfe_bound(objective.criterion, WU, V, den, a, J,
                               np.maximum(v_value, 0.0))
    tighter = (None if solver is not None or options
               else tighter_solve(prob, v, name, deadline, prob_value, bound))
    if tighter is not None:
        v2, value2, ok2 = tighter
        bound2 = _frank_wolfe_bound(objective.criterion, WU, V, den, a, J,
                                    np.maximum(v2, 0.0))
        if bound2 is not None and value2 - bound2 < prob_value - bound:
            v_value, prob_value, bound, accurate = v2, value2, bound2, ok2
    wv = np.maximum(v_value, 0.0) / c[J]

    def true_value(f: float) -> float:
        return unscale(f, objective.criterion, scale, k)

    value = true_value(prob_value)
    Q = purify(S[:, J], wv, objective, value)
    return StaircaseSolution(Q, value, P, name, accurate, len(J), rounds, gap,
                             bound=None if bound is None else true_value(bound),
                             stopped=stopped)


def pattern_data(k: int, epsilon: float
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The prior-free data of the estimation programs: the patterns S, their tangent
    directions ``V = U^T bits`` (``U^T s = (e^eps - 1) V``: the information is built from
    the bits, so that the program stays O(1) at small epsilon; Clarabel failed at
    eps = 0.01 otherwise), each pattern's largest entry c (the program's variable is
    ``v = c w``, so that the row constraint has coefficients in ``[e^-eps, 1]`` at large
    epsilon; Clarabel failed at eps = 7 otherwise) and the row constraint ``a = S / c``."""
    S = patterns(k, epsilon)
    U = null_space(np.ones((1, k)))
    V = U.T @ pattern_bits(k)  # (k-1, P)
    c = S.max(axis=0)
    return S, V, c, S / c


def information_scaling(objective: EstimationVariance, S: np.ndarray, V: np.ndarray,
                         c: np.ndarray, epsilon: float
                         ) -> tuple[np.ndarray, float, np.ndarray | None]:
    """``(den, scale, WU)``: the scaled information is ``M = sum_j v_j V_j V_j^T / den_j``
    and the true one (on the tangent space) is ``scale * M``; den brings the information's
    coefficients to O(1) and then the criterion: k-RR (``v = e^eps / (e^eps + k - 1)`` on
    each singleton) scores 1 (A, E) or 0 (D), since unnormalised optima of order 1e3 stop
    Clarabel on numerical errors. ``WU = W U`` for workload weights."""
    k = S.shape[0]
    U = null_space(np.ones((1, k)))
    den = (objective.prior @ S) * c
    alpha = float((np.abs(V).max(axis=0) ** 2 / den).max())
    den = den * alpha
    scale = math.expm1(epsilon) ** 2 * alpha
    WU = None if objective.weights is None else objective.weights @ U
    ones = 1 << np.arange(k)
    M_rr = np.einsum("ap,bp->ab", V[:, ones] * (c[ones] / (np.exp(epsilon) + k - 1)),
                     V[:, ones] / den[ones])
    norm = _criterion_scale(M_rr, objective.criterion, WU)
    return den / norm, scale / norm, WU


def information_expression(V: np.ndarray, den: np.ndarray, J: np.ndarray,
                            v: cp.Variable) -> cp.Expression:
    """The scaled information ``sum_{j in J} v_j V_j V_j^T / den_j`` (symmetrised), affine
    in the cvxpy variable v."""
    d = V.shape[0]
    A = (np.einsum("ap,bp->abp", V[:, J], V[:, J]) / den[J]).reshape(d * d, -1)
    M = cp.reshape(A @ v, (d, d), order="C")
    return (M + M.T) / 2


def unscale(f: float, criterion: str, scale: float, k: int) -> float:
    """The true criterion of a scaled value (information ``scale * M``): A and E divide by
    the scale, D subtracts ``(k - 1) ln scale``."""
    return f - (k - 1) * math.log(scale) if criterion == "D" else f / scale


def value_and_gradient(criterion: str, WU: np.ndarray | None, V: np.ndarray,
                        den: np.ndarray, J: np.ndarray, v: np.ndarray
                        ) -> tuple[float, np.ndarray | None]:
    """The scaled criterion at the weights v (on the patterns J) and its gradient with
    respect to every pattern's weight: A (weighted) ``-|B V_j|^2 / den_j`` with
    ``B = W U M^-1``; D ``-V_j^T M^-1 V_j / den_j``. No gradient (None) for E or a
    singular information."""
    M = np.einsum("ap,bp->ab", V[:, J] * v, V[:, J] / den[J])
    M = (M + M.T) / 2
    f = projected_criterion(M, criterion, WU)
    if not math.isfinite(f) or criterion == "E":
        # E (1 / lambda_min) is non-smooth where the optimum usually sits (a repeated
        # smallest eigenvalue): one eigenvector's subgradient gave bounds 100% loose
        return f, None
    Minv = np.linalg.inv(M)
    if criterion == "D":
        return f, -np.einsum("ap,ap->p", V, Minv @ V) / den
    BV = (Minv if WU is None else WU @ Minv) @ V
    return f, -np.einsum("ap,ap->p", BV, BV) / den


def linear_bound(f: float, g: np.ndarray, a: np.ndarray, J: np.ndarray, v: np.ndarray
                  ) -> float | None:
    """``f + min {g . v' : a v' = 1, v' >= 0} - g[J] . v``: for a convex function with
    value f and gradient g at v, a rigorous lower bound on its minimum over every pattern
    (the LP by scipy HiGHS, bounded from below through its duals by
    :func:`~mechdesign.design.bound.pattern_lp_lower_bound`). None if the LP fails."""
    res = linprog(g, A_eq=a, b_eq=np.ones(a.shape[0]), bounds=(0, None), method="highs",
                  options=BOUND_LP_OPTIONS)
    if res.status != 0:
        return None
    return f - float(g[J] @ v) + pattern_lp_lower_bound(g, a, np.asarray(res.eqlin.marginals))


def _frank_wolfe_bound(criterion: str, WU: np.ndarray | None, V: np.ndarray,
                       den: np.ndarray, a: np.ndarray, J: np.ndarray, v: np.ndarray
                       ) -> float | None:
    r"""A rigorous lower bound on the (scaled) criterion's minimum over ALL patterns.

    For convex f and a (sub)gradient g at the solver's point v (zero outside J), every
    feasible v' has ``f(v') >= f(v) + g^T v' - g^T v``; the smallest ``g^T v'`` over
    ``{v' >= 0 : a v' = 1}`` is an LP over every pattern, solved by scipy HiGHS and
    bounded from below through its duals (:func:`~mechdesign.design.bound.
    pattern_lp_lower_bound`). Gradients: A (weighted): ``-|B V_j|^2 / den_j`` with
    ``B = W U M^-1``; D: ``-V_j^T M^-1 V_j / den_j``. None for E (see below).
    """
    f, g = value_and_gradient(criterion, WU, V, den, J, v)
    return None if g is None else linear_bound(f, g, a, J, v)


def _criterion_scale(M: np.ndarray, criterion: str, WU: np.ndarray | None) -> float:
    """The factor c with criterion(c M) = 1 (A, E) or 0 (D): criterion(c M) is
    criterion(M) / c for A and E, and criterion(M) - (k - 1) ln c for D."""
    f = projected_criterion(M, criterion, WU)
    return float(np.exp(f / len(M))) if criterion == "D" else f


def _seed_patterns(k: int) -> np.ndarray:
    """Singletons, pairs and their complements (as pattern indices: bit x set = e^eps)."""
    full = (1 << k) - 1
    small = [1 << x for x in range(k)] + [(1 << x) | (1 << y)
                                           for x in range(k) for y in range(x + 1, k)]
    return np.unique([j for m in small for j in (m, full ^ m) if 0 < j < full] + [0])


def _reduced_costs(criterion: str, WU: np.ndarray | None, V: np.ndarray, den: np.ndarray,
                   a: np.ndarray, J: np.ndarray, v: np.ndarray, value: float,
                   k: int) -> tuple[np.ndarray, float]:
    """Reduced costs of every pattern and the certified relative gap (see
    :func:`solve_estimation`)."""
    M = (np.einsum("ap,bp->ab", V[:, J] * v, V[:, J] / den[J]))
    M = (M + M.T) / 2
    Minv = np.linalg.inv(M)
    if criterion == "D":
        G = Minv @ V  # df/dv_j = -V_j^T M^-1 V_j / den_j
        g = -np.einsum("ap,ap->p", V, G) / den
    else:
        B = Minv if WU is None else WU @ Minv  # df/dv_j = -|B V_j|^2 / den_j
        g = -np.einsum("ap,ap->p", B @ V, B @ V) / den
    # any y gives a valid bound (y . a v' = y . 1 = y . a v); this y fits the master's
    # stationarity g_j + y . a_j = 0 on its support, weighted by v (interior points spread
    # weight over ties, so no hard support threshold)
    sw = np.sqrt(v / v.max())
    y = np.linalg.lstsq(a[:, J].T * sw[:, None], -g[J] * sw, rcond=None)[0]
    r = g + y @ a
    bound = k * max(0.0, -float(r.min())) + abs(float(r[J] @ v))
    return r, bound / max(abs(value), 1.0)


CLARABEL_RETRIES: tuple[dict, ...] = ({}, {"static_regularization_enable": False})
"""Settings tried in turn when Clarabel is the default choice: static regularisation off
solves programs with tiny prior entries at large epsilon on which the defaults stop with a
numerical error (a regression test pins one)."""


TIME_LIMIT_KEYS = {"CLARABEL": "time_limit", "SCS": "time_limit_secs"}
"""The solver setting that takes a time limit in seconds (solvers not listed get none)."""


def solve_with_retries(prob: cp.Problem, v: cp.Variable, name: str, options: dict,
                        explicit: bool, deadline: Deadline | None = None
                        ) -> tuple[np.ndarray, float, bool]:
    """Solve ``prob`` and return ``(v, objective, accurate)``.

    With the default solver and no user options, the settings of :data:`CLARABEL_RETRIES`
    are tried in turn until one ends ``optimal``; an ``optimal_inaccurate`` attempt is kept
    in reserve and returned with ``accurate=False`` only if none does. A user's
    explicit solver or options are tried once, as given. A ``deadline`` gives each attempt
    its remaining time (:data:`TIME_LIMIT_KEYS`); a solve it stops raises
    ``SolverFailedError`` naming the limit.
    """
    attempts = (options,) if explicit else CLARABEL_RETRIES
    failures = []
    reserve = None
    for settings in attempts:
        if failures and deadline is not None and deadline.expired:
            break
        label = settings or "defaults"
        left = None if deadline is None else deadline.remaining()
        if left is not None and name in TIME_LIMIT_KEYS:
            settings = {TIME_LIMIT_KEYS[name]: left, **settings}
        with warnings.catch_warnings(record=True) as caught:  # only the answer's warnings
            warnings.simplefilter("always")
            try:
                prob.solve(solver=name, **settings)
            except cp.SolverError as exc:
                failures.append(f"{label}: {exc}")
                continue
        if v.value is None or prob.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
            failures.append(f"{label}: status {prob.status!r}")
            continue
        if prob.status == cp.OPTIMAL:
            _rewarn(caught)
            return v.value.copy(), float(prob.value), True
        failures.append(f"{label}: status {prob.status!r}")
        if reserve is None:
            reserve = (v.value.copy(), float(prob.value), False), caught
    if reserve is not None:
        _rewarn(reserve[1])
        return reserve[0]
    if deadline is not None and deadline.expired:
        raise SolverFailedError(deadline.stopped(f"{name} on the staircase estimation "
                                                 "program"))
    raise SolverFailedError(f"{name} failed on the staircase estimation program ("
                            + "; ".join(failures) + ")")


def _rewarn(caught: list) -> None:
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def tighter_solve(prob: cp.Problem, v: cp.Variable, name: str, deadline: Deadline | None,
                  value: float, bound: float | None) -> tuple[np.ndarray, float, bool] | None:
    """A second solve at tight Clarabel tolerances (:data:`TIGHT_CLARABEL`) of a program
    whose certificate is loose (``value - bound`` above :data:`REFINE_ABOVE` relative), as
    :func:`solve_with_retries` returns it; None when the certificate is tight or missing,
    the deadline has passed, or the solve fails (measured, k = 8: gaps 1.3e-6..9e-6 at
    Clarabel's defaults, 1e-8..4e-7 tight)."""
    if (bound is None or (deadline is not None and deadline.expired)
            or value - bound <= REFINE_ABOVE * max(abs(value), 1.0)):
        return None
    try:
        return solve_with_retries(prob, v, name, TIGHT_CLARABEL, True, deadline)
    except SolverFailedError:
        return None


def purify(S: np.ndarray, w: np.ndarray, objective: Objective, value: float,
            threshold: float = 1e-6) -> np.ndarray:
    """Snap an interior-point solution to exact staircase weights when that costs nothing.

    Patterns with weight below ``threshold`` times the largest are dropped and the rest
    re-fitted by non-negative least squares to ``S w = 1`` exactly. Accepted only if the
    rows then sum to 1 within 1e-12 and the criterion is no worse than the solver's value
    (relative 1e-7); otherwise the solver's weights are kept (and certified as usual).
    """
    keep = w > threshold * w.max()
    try:
        refit, resid = nnls(S[:, keep], np.ones(S.shape[0]))
    except RuntimeError:  # scipy's nnls at its iteration limit (it raises up to 1.15)
        return _support(S, w)
    if resid < 1e-12:
        Q = S[:, keep][:, refit > 0] * refit[refit > 0]
        if objective.evaluate(Q) <= value + 1e-7 * max(abs(value), 1.0):
            return Q
    return _support(S, w)


symmetric_estimation_value = subset_selection_risk
"""``trace CR`` of d-subset selection under a uniform prior, per report
(:func:`~mechdesign.oracles.subset.subset_selection_risk`, the variance of its estimator,
which attains it). Derivation as the Fisher information: class d weights every d-subset
pattern equally; with ``a_d = C(k-2, d-1)(e^eps - 1)^2`` (the part of ``sum s s^T`` off the
all-ones direction), ``beta_d = C(k-1, d-1) e^eps + C(k-1, d)`` (row sums) and
``rho_d = (d e^eps + k - d)/k`` (``pi . s``), ``U^T I U = a_d/(rho_d beta_d) I_{k-1}``."""


def symmetric_estimation(k: int, epsilon: float, criterion: str = "A") -> tuple[int, float]:
    """Best subset size d and the criterion value for a uniform prior (any k).

    ``U^T I U`` is a multiple ``c I`` of the identity for every symmetric mechanism and
    mixtures of classes only average ``c``, so one class is optimal for A, D and E alike;
    the value is ``(k-1)/c`` (A), ``-(k-1) ln c`` (D) or ``1/c`` (E).
    """
    d = np.arange(1, k)
    trace = symmetric_estimation_value(k, d, epsilon)
    best = int(np.argmin(trace))
    c = (k - 1) / trace[best]
    value = {"A": (k - 1) / c, "D": -(k - 1) * math.log(c), "E": 1.0 / c}[criterion]
    return int(d[best]), float(value)
