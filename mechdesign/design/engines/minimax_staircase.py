r"""Minimax estimation over a finite set of priors under pure LDP: a staircase program.

For priors ``pi_1..pi_r`` and a Cramer-Rao criterion (A, D or E) the design minimises
``max_j crit(CR_{pi_j}(Q))`` (:class:`~mechdesign.design.objectives.MinimaxEstimation`).

*Why staircase mechanisms suffice.* Every column of an eps-LDP matrix lies in the cone
``{q >= 0 : q_x <= e^eps q_x'}``, whose extreme rays are the patterns ``{1, e^eps}^k``
(Kairouz, Oh, Viswanath, JMLR 2016): ``q = sum_i s_i`` with each ``s_i`` a multiple of a
pattern. Splitting the output into those pieces is a refinement of the mechanism, and the
map ``q -> q q^T / (pi . q)`` is jointly convex and positively homogeneous, hence
subadditive: ``q q^T / (pi . q) <= sum_i s_i s_i^T / (pi . s_i)`` in the Loewner order,
for EVERY prior pi at once. Each criterion decreases in the Loewner order, so the
refinement lowers every ``crit_j`` and therefore their maximum: some optimum is a staircase
mechanism ``Q = S diag(w)``, ``S w = 1``, ``w >= 0``. Its information at each prior is
linear in w and each criterion is convex in the information, so

.. math:: \min_{t, w} t \quad \text{s.t.} \quad t \ge \mathrm{crit}_j(w)\ \forall j,
          \qquad S w = 1,\ w \ge 0

is a convex program (every pattern, ``k <= MAX_MINIMAX_K``).

*Certificate.* With multipliers ``lambda_j >= 0`` of the epigraph constraints normalised
to sum to 1 (any point of the simplex is valid; the solver's duals are a good one),
``min_w max_j f_j(w) >= min_w sum_j lambda_j f_j(w)``, and for the convex function
``F = sum_j lambda_j f_j`` with gradient ``g = sum_j lambda_j grad f_j`` at the solver's
point v, ``min F >= F(v) + min {g . v' : a v' = 1, v' >= 0} - g . v`` (the Frank-Wolfe
bound of :mod:`~mechdesign.design.staircase`, its LP bounded through its duals).
``docs/formulations.md``, "Minimax over priors".
"""

from __future__ import annotations

import math
from typing import Any

import cvxpy as cp
import numpy as np

from ...errors import SizeLimitError, SolverFailedError
from ..certify import clean
from ..objectives import MinimaxEstimation, criterion_expression
from ..solvers.run import Deadline
from .staircase import (
    REFINE_ABOVE,
    StaircaseSolution,
    information_expression,
    information_scaling,
    linear_bound,
    pattern_data,
    purify,
    solve_estimation,
    solve_with_retries,
    tighter_solve,
    unscale,
    value_and_gradient,
)

__all__ = ["MAX_MINIMAX_K", "VERTEX_DUAL", "solve_minimax_estimation"]

MAX_MINIMAX_K = 10
"""Largest k of the minimax program: it holds every one of the ``2^k - 1`` patterns in one
constraint per prior (no column generation), 1023 weights at k = 10."""


def solve_minimax_estimation(objective: MinimaxEstimation, epsilon: float,
                             solver: str | None = None, deadline: Deadline | None = None,
                             **options: Any) -> StaircaseSolution:
    """Minimise the worst prior's criterion over staircase mechanisms (see the module).

    Every prior's information is scaled as in
    :func:`~mechdesign.design.staircase.solve_estimation` and then brought to one common
    unit (the smallest of the priors' scales: the worst k-RR criterion scores 1 for A and
    E, 0 for D), so that the epigraph constraints compare TRUE criterion values up to one
    increasing map. ``bound`` is the certified lower bound of the module docstring (None
    for E, whose criterion is not smooth at the optimum: the result is then
    solver-reported). With the default solver a loose certificate (relative gap above
    ``REFINE_ABOVE``) triggers one tighter solve, the better certificate kept.
    """
    k = objective.n_inputs
    if k > MAX_MINIMAX_K:
        raise SizeLimitError(
            f"the minimax estimation program holds all 2^k - 1 staircase patterns; k = {k} "
            f"exceeds MAX_MINIMAX_K = {MAX_MINIMAX_K}")
    if epsilon == 0.0:
        raise SolverFailedError("at epsilon = 0 no mechanism carries information: the "
                                "estimation criterion is infinite")
    S, V, c, a = pattern_data(k, epsilon)
    P = S.shape[1]
    J = np.arange(P)
    crit = objective.criterion
    scaled = [information_scaling(m, S, V, c, epsilon) for m in objective.members]
    WU = scaled[0][2]
    scales = [s for _, s, _ in scaled]
    scale = min(scales)
    # prior j's true information is s_j M_j = scale (s_j / scale) M_j
    dens = [den * (scale / s) for den, s, _ in scaled]
    v = cp.Variable(P, nonneg=True)
    t = cp.Variable(name="worst_criterion")
    # each prior's criterion in its own O(1) units (k-RR scores 1, or 0 for D), the
    # common unit moved onto t: f_j = crit_j s / s_j (A, E), crit_j - (k-1) ln(s_j / s) (D)
    epigraph = [criterion_expression(information_expression(V, den, J, v), crit, WU)
                <= (t + (k - 1) * math.log(s / scale) if crit == "D" else t * (s / scale))
                for den, s, _ in scaled]
    prob = cp.Problem(cp.Minimize(t), [a @ v == 1, *epigraph])
    name = solver or "CLARABEL"
    explicit = solver is not None or bool(options)
    v_value, value, accurate = solve_with_retries(prob, v, name, options, explicit,
                                                   deadline)
    bound = _minimax_bound(crit, WU, V, dens, a, J, v_value, _duals(epigraph, scales, scale, crit))
    tighter = None if explicit else tighter_solve(prob, v, name, deadline, value, bound)
    if tighter is not None:
        v2, value2, ok2 = tighter
        bound2 = _minimax_bound(crit, WU, V, dens, a, J, v2,
                                _duals(epigraph, scales, scale, crit))
        if bound2 is not None and value2 - bound2 < value - bound:
            v_value, value, bound, accurate = v2, value2, bound2, ok2
    wv = np.maximum(v_value, 0.0) / c
    true_value = unscale(value, crit, scale, k)
    Q = purify(S, wv, objective, true_value)
    out = StaircaseSolution(Q, true_value, P, name, accurate, P,
                            bound=None if bound is None else unscale(bound, crit, scale, k))
    lam = _duals(epigraph, scales, scale, crit)
    if (lam is not None and lam.max() >= 1.0 - VERTEX_DUAL and out.bound is not None
            and not (deadline is not None and deadline.expired)
            and out.value - out.bound > REFINE_ABOVE * max(abs(out.value), 1.0)):
        return _vertex_polish(objective, out, int(np.argmax(lam)), epsilon, solver,
                              deadline, options)
    return out


VERTEX_DUAL = 1e-4
"""When one prior carries at least ``1 - VERTEX_DUAL`` of the dual weight and the
certificate is loose, that prior's own program is solved too (:func:`_vertex_polish`)."""


def _vertex_polish(objective: MinimaxEstimation, out: StaircaseSolution, j: int,
                   epsilon: float, solver: str | None, deadline: Deadline | None,
                   options: dict) -> StaircaseSolution:
    """The answer of prior j's own program when it certifies better.

    Measured (k = 6..8, two Dirichlet priors): when one prior's criterion alone decides
    the minimax optimum, the epigraph program stops 1e-6..1e-5 (relative) from it, while
    the single-prior program reaches 1e-7. Its lower bound on ``min f_j`` is the
    certificate of the multipliers ``lambda = e_j`` (``min max_i f_i >= min f_j``), valid
    whatever the other priors do; its matrix is re-measured at every prior, and kept only
    if its certified gap is the smaller."""
    try:
        own = solve_estimation(objective.members[j], epsilon, solver, deadline, **options)
    except SolverFailedError:
        return out
    if own.bound is None:
        return out
    Q = clean(own.Q)
    value = objective.evaluate(Q)
    if value - own.bound < out.value - out.bound:  # type: ignore[operator]
        return StaircaseSolution(Q, value, out.n_patterns, own.solver,
                                 own.accurate, own.patterns_used, bound=own.bound)
    return out


def _duals(epigraph: list, scales: list[float], scale: float, criterion: str
           ) -> np.ndarray | None:
    """The multipliers of ``f_j <= t`` (common units) from those of the epigraph
    constraints ``crit_j <= (s_j / s) t`` (A, E: times ``s_j / s``; D: as they are),
    clipped at 0 and normalised to sum to 1 (None when the solver gave none)."""
    raw = [con.dual_value for con in epigraph]
    if any(d is None for d in raw):
        return None
    lam = np.maximum(np.array([float(np.asarray(d).sum()) for d in raw]), 0.0)
    if criterion != "D":
        lam = lam * np.array(scales) / scale
    total = float(lam.sum())
    return lam / total if total > 0 and np.isfinite(total) else None


def _minimax_bound(criterion: str, WU: np.ndarray | None, V: np.ndarray,
                   dens: list[np.ndarray], a: np.ndarray, J: np.ndarray, v: np.ndarray,
                   lam: np.ndarray | None) -> float | None:
    """A rigorous lower bound (common scaled units) on ``min_v max_j f_j(v)``: the
    Frank-Wolfe bound of ``sum_j lam_j f_j`` at v (gradients add). Without multipliers, the
    prior with the largest criterion at v (``lam`` = its indicator, also valid)."""
    v = np.maximum(v, 0.0)
    parts = [value_and_gradient(criterion, WU, V, den, J, v) for den in dens]
    if any(g is None for _, g in parts):
        return None
    if lam is None:
        lam = np.zeros(len(parts))
        lam[int(np.argmax([f for f, _ in parts]))] = 1.0
    f = float(sum(w * fj for w, (fj, _) in zip(lam, parts, strict=True)))
    g = sum(w * gj for w, (_, gj) in zip(lam, parts, strict=True))
    return linear_bound(f, np.asarray(g), a, J, v)
