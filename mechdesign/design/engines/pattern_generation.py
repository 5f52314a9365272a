r"""Estimation design at large k: column generation over staircase patterns with a pricing
that scales and a certified lower bound from a semidefinite relaxation.

The staircase program (:mod:`~mechdesign.design.staircase`) has one weight per pattern
``s = 1 + (e^eps - 1) z``, ``z`` in ``{0, 1}^k``: ``2^k - 1`` of them, enumerated up to
k = 16. Past that this module keeps a working set of patterns and

* solves the master program (the A criterion ``trace(C^T M^{-1} C)`` of the Cramer-Rao
  bound over the working set, ``C = I`` or a workload) by a primal barrier method with
  infeasible-start Newton steps (dense, in numpy; every Newton system is ``J + k``);
* prices patterns by local search: the reduced cost of ``z``,

  .. math:: r(z) = -\frac{e^\varepsilon z^T G z}{1 + \delta \pi\cdot z}
            - e^{-\varepsilon}(\mathbf 1\cdot y + \delta\, y\cdot z),
            \qquad G = U M^{-1} C C^T M^{-1} U^T,\ \delta = e^\varepsilon - 1,

  (``y`` the master's row duals) is minimised by best-improvement bit flips from the
  master's support and from random starts; every pattern found with ``r < 0`` enters;
* certifies the result with a bound that does not depend on the pricing: for every ``R``,
  ``trace(C^T M^{-1} C) >= 2 trace(R^T C) - trace(R R^T M)``, and ``trace(R R^T M)`` is
  linear in the design, so any ``y`` with ``y . s (pi . s) >= s^T U P U^T s`` for every
  pattern (``P >= R R^T``) gives ``f* >= 2 trace(R^T C) - 1 . y``. The condition over all
  ``2^k`` patterns is relaxed to one positive semidefinite matrix in ``x = (1, z)`` (Shor's
  relaxation, ``z_i^2 = z_i``), and ``(R, P, y)`` are chosen by a semidefinite program
  (Clarabel). The solver's answer is made rigorous in numpy: ``P`` is raised to dominate
  ``R R^T`` and ``y`` by the largest negative eigenvalue of the relaxed matrix times
  ``(k + 1)/k`` (``x^T x <= k + 1`` and ``(1 . s)(pi . s) >= k``).

The relaxation is not exact: the certified gap is what the bound proves, not necessarily
what the design misses (``docs/formulations.md``, "Estimation at large k").
"""

from __future__ import annotations

import logging
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.linalg import null_space

from ...errors import SolverFailedError
from ..objectives import EstimationVariance
from ..solvers.run import Deadline

__all__ = ["BARRIER_END", "EXACT_PRICING_K", "EXACT_TARGET_GAP", "FROM_K", "IDLE", "MAX_K",
           "MAX_ROUNDS", "PRICING_CHUNK", "PRICING_TOL", "RANDOM_STARTS", "STALL_ROUNDS",
           "STALL_TOL", "TARGET_GAP", "PatternSolution", "shor_bound", "solve_estimation_patterns",
           "workload_has_full_rank"]

log = logging.getLogger("mechdesign.design")

MAX_ROUNDS = 400
"""Column-generation rounds before the design stops with the patterns it has."""

RANDOM_STARTS = 48
"""Random starting patterns of the local-search pricing per round (plus the support)."""

PRICING_TOL = 1e-9
"""A pattern enters when its reduced cost is below ``-PRICING_TOL * |f|``."""

BARRIER_END = 1e-11
"""The barrier master stops when its duality measure ``mu J`` is below this times ``f``."""

IDLE = 1e-8
"""Columns with weight below this times the largest leave the working set after a round
(the barrier keeps every weight positive; idle ones are about ``mu / r_j``)."""

TARGET_GAP = 1e-4
"""Column generation stops once the design is certified within this relative gap (with the
semidefinite bound, k > :data:`EXACT_PRICING_K`); with exact pricing, within
:data:`EXACT_TARGET_GAP`, below the library's 1e-6 for ``optimal``."""

EXACT_TARGET_GAP = 5e-7

STALL_ROUNDS = 20
"""... or when this many rounds together improved the criterion by less than
:data:`STALL_TOL` (relative): the pricing keeps finding patterns of negligible value."""

STALL_TOL = 1e-5

EXACT_PRICING_K = 22
"""Up to this k every pattern is priced, in chunks of :data:`PRICING_CHUNK` (``2^22``
patterns at k = 22): the most negative reduced costs enter and the Frank-Wolfe bound over
all patterns is exact, so a finished design is certified to the master's accuracy."""

PRICING_CHUNK = 1 << 16

FROM_K = 12
"""Smallest k of this path with the default solver (exact pricing makes it faster than the
full staircase program from here, as measured on the benchmark machine:
``benchmarks/README.md``, "Measurements behind the library's constants")."""

MAX_K = 128
"""Largest k of this path (the semidefinite bound has ``(k + 1)``-square blocks)."""


@dataclass(frozen=True)
class PatternSolution:
    """The design (``Q``, columns the patterns used), its criterion ``value``, the
    certified lower ``bound`` (None if the bound's program failed), and what the column
    generation did."""

    Q: np.ndarray
    value: float
    bound: float | None
    patterns_used: int
    rounds: int
    stopped: bool
    priced_out: bool
    """True when the last pricing found no pattern with negative reduced cost."""
    reason: str = ""
    """Why column generation ended, in words."""


class _Setup:
    """The data of one design: prior, epsilon and the criterion's ``C`` on the tangent
    space (``U`` an orthonormal basis of ``{x : 1 . x = 0}``)."""

    def __init__(self, objective: EstimationVariance, epsilon: float) -> None:
        self.prior = np.asarray(objective.prior, dtype=float)
        self.k = k = len(self.prior)
        self.eps = epsilon
        self.delta = math.expm1(epsilon)
        self.shrink = math.exp(-epsilon)
        self.U = null_space(np.ones((1, k)))
        W = objective.weights
        self.C = np.eye(k - 1) if W is None else self.U.T @ np.asarray(W, dtype=float).T
        # the information of a normalised column a = e^-eps (1 + delta z) is
        # (1 - e^-eps)^2 U^T z z^T U / (pi . a): the criterion in these units times
        # 1/(1 - e^-eps)^2 is the true one
        self.unit = 1.0 / (-math.expm1(-epsilon)) ** 2

    def columns(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(a, ubar)`` of the patterns ``Z`` (k x J bool): ``a = e^-eps (1 + delta z)``
        (rows of the constraint ``a v = 1``) and ``ubar = U^T z / sqrt(pi . a)``."""
        a = self.shrink * (1.0 + self.delta * Z)
        return a, (self.U.T @ Z) / np.sqrt(self.prior @ a)

    def criterion(self, ubar: np.ndarray, v: np.ndarray) -> tuple[float, np.ndarray | None]:
        """``trace(C^T M^{-1} C)`` with ``M = sum_j v_j ubar_j ubar_j^T`` (scaled units) and
        ``M^{-1}``; ``(inf, None)`` when M is singular."""
        M = (ubar * v) @ ubar.T
        try:
            L = np.linalg.cholesky((M + M.T) / 2)
        except np.linalg.LinAlgError:
            return math.inf, None
        Linv = np.linalg.inv(L)
        Minv = Linv.T @ Linv
        return float(np.einsum("ij,ji->", self.C.T @ Minv, self.C)), Minv


def workload_has_full_rank(objective: EstimationVariance) -> bool:
    """True without weights, or when ``U^T W^T`` has rank k - 1 (the criterion is then
    infinite on singular information, and the barrier master stays interior)."""
    if objective.weights is None:
        return True
    k = objective.n_inputs
    U = null_space(np.ones((1, k)))
    return bool(np.linalg.matrix_rank(U.T @ np.asarray(objective.weights).T) == k - 1)


def _master(setup: _Setup, a: np.ndarray, ubar: np.ndarray, v0: np.ndarray,
            deadline: Deadline | None) -> tuple[np.ndarray, np.ndarray, float]:
    """Minimise the criterion over ``{v >= 0 : a v = 1}`` by a primal barrier method
    (``f(v) - mu sum_j log v_j``, mu divided by 10 per centring, infeasible-start Newton
    steps with a backtracking search on the KKT residual).

    Returns ``(v, y, f)``: the weights, the row duals (at the end
    ``g_j - y . a_j = mu / v_j >= 0``) and the criterion (scaled units)."""
    k, J = a.shape
    v = np.maximum(v0, 1e-300)
    f, Minv = setup.criterion(ubar, v)
    if Minv is None:
        raise SolverFailedError("the working set's information matrix is singular")
    CCt = setup.C @ setup.C.T

    def residual(v: np.ndarray, w: np.ndarray, mu: float) -> tuple[float, np.ndarray | None]:
        _, Mt = setup.criterion(ubar, v)
        if Mt is None:
            return math.inf, None
        g = -np.einsum("ij,ji->i", ubar.T @ (Mt @ CCt @ Mt), ubar)
        return math.hypot(float(np.linalg.norm(g - mu / v + a.T @ w)),
                          float(np.linalg.norm(a @ v - 1.0))), Mt

    mu = max(f / J, 1e-300)
    w = np.zeros(k)
    while True:
        for _ in range(60):  # centring at this mu
            f, Minv = setup.criterion(ubar, v)
            K = Minv @ CCt @ Minv
            X, Y = ubar.T @ Minv @ ubar, ubar.T @ K @ ubar
            H = 2.0 * X * Y
            H[np.diag_indices(J)] += mu / v ** 2
            grad = -np.diag(Y) - mu / v
            resid = a @ v - 1.0
            KKT = np.block([[H, a.T], [a, np.zeros((k, k))]])
            rhs = -np.concatenate([grad, resid])
            try:
                step = np.linalg.solve(KKT, rhs)
            except np.linalg.LinAlgError:
                step = np.linalg.lstsq(KKT, rhs, rcond=None)[0]
            dv, w_new = step[:J], step[J:]
            neg = dv < 0
            t = min(1.0, 0.99 * float(np.min(-v[neg] / dv[neg]))) if neg.any() else 1.0
            norm0 = math.hypot(float(np.linalg.norm(grad + a.T @ w_new)),
                               float(np.linalg.norm(resid)))
            while t > 1e-10 and residual(v + t * dv, w_new, mu)[0] > (1 - 0.01 * t) * norm0:
                t *= 0.5
            v, w = v + t * dv, w_new
            if float(dv @ (H @ dv)) < 1e-10 * abs(f) and np.abs(resid).max() < 1e-12:
                break
        if mu * J < BARRIER_END * abs(f) or (deadline is not None and deadline.expired):
            break
        mu *= 0.1
    f, _ = setup.criterion(ubar, v)
    return v, -w, f


def _pricing_matrix(setup: _Setup, Minv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``K = M^{-1} C C^T M^{-1}`` (the gradient's matrix on the tangent space) and
    ``G = U K U^T`` (the reduced costs' quadratic form in z), once per round."""
    K = Minv @ setup.C @ setup.C.T @ Minv
    return K, setup.U @ K @ setup.U.T


def _reduced_costs(setup: _Setup, G: np.ndarray, y: np.ndarray, Z: np.ndarray
                   ) -> np.ndarray:
    """``r(z)`` of the module docstring for the columns of ``Z`` (k x S, 0/1)."""
    q = np.einsum("ip,ij,jp->p", Z, G, Z)
    return (-math.exp(setup.eps) * q / (1.0 + setup.delta * (setup.prior @ Z))
            - setup.shrink * (y.sum() + setup.delta * (y @ Z)))


def _price(setup: _Setup, G: np.ndarray, y: np.ndarray, starts: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """Local search from ``starts`` (k x S, 0/1): best-improvement bit flips on the reduced
    cost until none improves. Returns the final patterns and their reduced costs."""
    E, d, s = math.exp(setup.eps), setup.delta, setup.shrink
    prior, diag = setup.prior, np.diag(G)
    z = starts.astype(float).copy()
    cols = np.arange(z.shape[1])
    for _ in range(4 * setup.k):
        Gz = G @ z
        q, t, yz = np.einsum("ip,ip->p", z, Gz), prior @ z, y @ z
        cur = -E * q / (1 + d * t) - s * d * yz
        flip = 1.0 - 2.0 * z  # +1 adds the value, -1 removes it
        qn = q + 2.0 * flip * Gz + diag[:, None]
        cand = -E * qn / (1 + d * (t + flip * prior[:, None])) - s * d * (yz + flip * y[:, None])
        cand[(z.sum(axis=0) == 1) & (flip < 0)] = np.inf  # never empty
        i = np.argmin(cand, axis=0)
        better = cand[i, cols] < cur - 1e-13 * np.abs(cur)
        if not better.any():
            break
        z[i[better], cols[better]] = 1.0 - z[i[better], cols[better]]
    return z.astype(bool), _reduced_costs(setup, G, y, z)


def _price_all(setup: _Setup, G: np.ndarray, y: np.ndarray, most: int
               ) -> tuple[np.ndarray, np.ndarray, float]:
    """Every pattern priced (``k <= EXACT_PRICING_K``): the ``most`` with the smallest
    reduced cost (k x most, and their costs) and ``min_z r(z) / (1 . a(z))``, the reduced
    cost per unit of row mass (``1 . a = e^-eps (k + delta |z|)``), for the bound."""
    k = setup.k
    bit = np.arange(k)[:, None]
    best_z = np.zeros((k, 0), dtype=bool)
    best_r = np.zeros(0)
    per_mass = math.inf
    for start in range(1, 1 << k, PRICING_CHUNK):
        idx = np.arange(start, min(1 << k, start + PRICING_CHUNK))
        Z = ((idx[None, :] >> bit) & 1).astype(float)
        r = _reduced_costs(setup, G, y, Z)
        mass = setup.shrink * (k + setup.delta * Z.sum(axis=0))
        per_mass = min(per_mass, float((r / mass).min()))
        take = np.argsort(r)[:most]
        best_z = np.concatenate([best_z, Z[:, take].astype(bool)], axis=1)
        best_r = np.concatenate([best_r, r[take]])
        keep = np.argsort(best_r)[:most]
        best_z, best_r = best_z[:, keep], best_r[keep]
    return best_z, best_r, per_mass


def _frank_wolfe_bound(setup: _Setup, a: np.ndarray, ubar: np.ndarray, v: np.ndarray,
                       y: np.ndarray, f: float, per_mass: float, K: np.ndarray) -> float:
    """The lower bound ``f - sum_j r_j v_j - y . (a v - 1) + k min_z r(z)/(1 . a(z))`` on
    the criterion over ALL patterns (scaled units): for convex f and any feasible v',
    ``f(v') >= f(v) + g . (v' - v)``, and ``g . v' = y . 1 + sum r v' >= y . 1 + k min(r /
    (1 . a))`` because ``sum_T (1 . a_T) v'_T = k``."""
    g = -np.einsum("ij,ji->i", ubar.T @ K, ubar)
    r = g - y @ a
    return float(f - r @ v - y @ (a @ v - 1.0) + setup.k * per_mass)


def _seed_patterns(k: int) -> np.ndarray:
    """Singletons and their complements (k-RR is in their span)."""
    eye = np.eye(k, dtype=bool)
    return np.concatenate([eye, ~eye], axis=1) if k > 2 else eye


def solve_estimation_patterns(objective: EstimationVariance, epsilon: float,
                              deadline: Deadline | None = None, seed: int = 0
                              ) -> PatternSolution:
    """The A-criterion design of ``objective`` under epsilon-LDP at any k up to
    :data:`MAX_K` (module docstring). The bound is computed first (within the deadline),
    then column generation runs until the pricing finds nothing, :data:`MAX_ROUNDS`, or the
    deadline (then the best design so far, ``stopped``), or earlier once the design is
    certified within :data:`TARGET_GAP` or the criterion stalls (:data:`STALL_ROUNDS`)."""
    setup = _Setup(objective, epsilon)
    k = setup.k
    bound = shor_bound(setup, deadline)
    if bound is not None:
        log.info("certified lower bound %.10g (semidefinite relaxation)", bound)
    rng = np.random.default_rng(seed)
    Z = _seed_patterns(k)
    a, ubar = setup.columns(Z)
    # start: k-RR on the singletons (weights e^eps / (e^eps + k - 1) of a = e^-eps s),
    # feasible, and the best design until a master finishes
    v = np.zeros(Z.shape[1])
    v[:k] = 1.0 / (1.0 + (k - 1) * setup.shrink)
    best = (setup.criterion(ubar, v)[0], Z, v.copy())  # (f, Z, v), always feasible
    v[k:] = 1e-3 / Z.shape[1]  # the barrier starts strictly inside
    rounds, stopped, priced_out, reason = 0, False, False, "the time limit"
    history: list[float] = []
    while True:
        rounds += 1
        v, y, f = _master(setup, a, ubar, v, deadline)
        if deadline is not None and deadline.expired:
            stopped = True  # an interrupted master's point counts if feasible and better
            if np.abs(a @ v - 1.0).max() < 1e-9 and f < best[0]:
                best = (f, Z, v)
            break
        best = (f, Z, v)
        K, G = _pricing_matrix(setup, setup.criterion(ubar, v)[1])
        if k <= EXACT_PRICING_K:
            found, r, per_mass = _price_all(setup, G, y, 2 * k + Z.shape[1])
            exact = _frank_wolfe_bound(setup, a, ubar, v, y, f, per_mass, K) * setup.unit
            bound = exact if bound is None else max(bound, exact)
        else:
            support = Z[:, v > 1e-9 * v.max()]
            density = rng.random(RANDOM_STARTS)
            starts = np.concatenate([support, rng.random((k, RANDOM_STARTS)) < density],
                                    axis=1)
            starts[:, ~starts.any(axis=0)] = True
            found, r = _price(setup, G, y, starts)
        fresh = _entering(Z, found, r, -PRICING_TOL * abs(f), 2 * k)
        log.info("round %d: %d patterns, value %.10g, %d entering", rounds, Z.shape[1],
                 f * setup.unit, fresh.shape[1])
        history.append(f)
        if not fresh.shape[1]:
            priced_out, reason = True, "no pattern has a negative reduced cost"
            break
        target = EXACT_TARGET_GAP if k <= EXACT_PRICING_K else TARGET_GAP
        if bound is not None and f * setup.unit - bound <= target * f * setup.unit:
            reason = f"certified within the target gap {target:g}"
            break
        if len(history) > STALL_ROUNDS and (
                history[-STALL_ROUNDS - 1] - f <= STALL_TOL * abs(f)):
            reason = (f"the last {STALL_ROUNDS} rounds improved the criterion by less than "
                      f"{STALL_TOL:g}")
            break
        if rounds >= MAX_ROUNDS:
            reason = f"{MAX_ROUNDS} rounds"
            break
        keep = v > IDLE * v.max()  # drop idle columns (they may re-enter by pricing)
        Z = np.concatenate([Z[:, keep], fresh], axis=1)
        v = np.concatenate([v[keep], np.full(fresh.shape[1], 1e-3 * v.max())])
        a, ubar = setup.columns(Z)
    f, Z, v = best
    used = v > IDLE * v.max()
    Q = (1.0 + setup.delta * Z[:, used]) * (setup.shrink * v[used])
    return PatternSolution(Q, f * setup.unit, bound, int(used.sum()), rounds, stopped,
                           priced_out, reason)


def _entering(Z: np.ndarray, found: np.ndarray, r: np.ndarray, below: float,
              most: int) -> np.ndarray:
    """The distinct patterns of ``found`` not in ``Z`` with reduced cost below ``below``,
    at most ``most`` of them, most negative first (k x n bool, possibly n = 0)."""
    known = {col.tobytes() for col in Z.T}
    out, seen = [], set()
    for j in np.argsort(r):
        if r[j] >= below or len(out) >= most:
            break
        key = found[:, j].tobytes()
        if key not in known and key not in seen:
            seen.add(key)
            out.append(found[:, j])
    return np.array(out, dtype=bool).T if out else np.zeros((len(Z), 0), dtype=bool)


def shor_bound(setup: _Setup, deadline: Deadline | None = None) -> float | None:
    """The certified lower bound of the module docstring (true units), or None when the
    semidefinite program fails. With ``P = R R^T`` eliminated by a Schur complement the
    program is: maximise ``2 trace(R^T C) - 1 . y`` subject to one positive semidefinite
    block ``[[Y(y) - E(mu), L^T U R], [R^T U^T L, I]]`` of size ``k + 1 + q``."""
    import cvxpy as cp

    k, q = setup.k, setup.C.shape[1]
    L = np.hstack([np.ones((k, 1)), setup.delta * np.eye(k)])  # s = L x, x = (1, z)
    LU, Lpi = L.T @ setup.U, L.T @ setup.prior
    R = cp.Variable((k - 1, q))
    y, mu = cp.Variable(k), cp.Variable(k)
    Ly = cp.reshape(L.T @ y, (k + 1, 1), order="C")
    top = (Ly @ Lpi[None, :] + Lpi[:, None] @ Ly.T) / 2
    E = cp.bmat([[np.zeros((1, 1)), cp.reshape(-mu / 2, (1, k), order="C")],
                 [cp.reshape(-mu / 2, (k, 1), order="C"), cp.diag(mu)]])
    corner = LU @ R
    block = cp.bmat([[top - E, corner], [corner.T, np.eye(q)]])
    prob = cp.Problem(cp.Maximize(2 * cp.trace(R.T @ setup.C) - cp.sum(y)),
                      [(block + block.T) / 2 >> 0])
    left = None if deadline is None else deadline.remaining()
    try:
        with warnings.catch_warnings():  # an inaccurate answer is made rigorous below
            warnings.simplefilter("ignore")
            prob.solve(solver="CLARABEL", **({} if left is None else {"time_limit": left}))
    except cp.SolverError:
        return None
    if R.value is None or y.value is None or mu.value is None:
        return None
    return _rigorous(setup, LU, Lpi, L, R.value, y.value, mu.value)


def _rigorous(setup: _Setup, LU: np.ndarray, Lpi: np.ndarray, L: np.ndarray,
              R: np.ndarray, y: np.ndarray, mu: np.ndarray) -> float:
    """The bound of a (possibly slightly infeasible) semidefinite answer, made valid in
    numpy: with ``P = R R^T`` the relaxed matrix ``S`` must be positive semidefinite; y is
    raised uniformly by ``(k + 1)/k`` times its most negative eigenvalue (lowered by a
    backward-error margin), which makes ``y . s (pi . s) >= s^T U P U^T s`` hold for every
    pattern (``x^T x <= k + 1``, ``(1 . s)(pi . s) >= k``)."""
    k = setup.k
    Ly = L.T @ y
    V = LU @ R
    S = (np.outer(Ly, Lpi) + np.outer(Lpi, Ly)) / 2 - V @ V.T
    S[0, 1:] += mu / 2
    S[1:, 0] += mu / 2
    S[np.arange(1, k + 1), np.arange(1, k + 1)] -= mu
    S = (S + S.T) / 2
    low = float(np.linalg.eigvalsh(S).min())
    margin = 64 * np.finfo(float).eps * (k + 1) * max(1.0, float(np.abs(S).sum()))
    raise_y = max(0.0, margin - low) * (k + 1) / k
    return float(2.0 * np.einsum("ij,ij->", R, setup.C) - y.sum() - k * raise_y)
