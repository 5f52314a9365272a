r"""Exact privacy of a finite mechanism under every notion mechdesign supports.

All measures are exact for the matrix as stored: a ratio ``a / b`` of two entries is formed
as ``log(a) - log(b)`` of the entries themselves (never of differences), ``0 / 0`` is
ignored and ``c / 0 = inf`` for ``c > 0``. Belief functions are sums of non-negative masses
only (see :mod:`mechdesign._subsets`), so a mass of 1e-18 is measured as 1e-18 and an exact
zero stays zero: solver noise can make an epsilon large, but never spuriously infinite or
spuriously small. The only rounding is the floating-point evaluation itself (a few ulps);
checks of a target (the ``.holds(mechanism)`` method of each privacy notion in
:mod:`mechdesign.design.notions`) therefore accept a measured value up to
:data:`EPSILON_TOL` above the target.

References: Li et al. 2022 (``reference/belief_ldp.md``, section 2) and Huang & Canonne,
"Lemmas of differential privacy" (``reference/composition_and_lemmas.md``, section 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix, csr_matrix, hstack, identity, vstack

from .._coerce import as_evidential, as_mechanism
from .._validation import check_epsilon
from ..errors import InvalidParameterError, MechdesignError
from ..neighbors import distance_matrix

EPSILON_TOL = 1e-9
"""Absolute tolerance on epsilon (and delta) when checking a mechanism against a target."""


@dataclass(frozen=True)
class Witness:
    """Where a worst ratio is attained: ``numer[x, column] / denom[x_prime, column]``."""

    epsilon: float
    column: int
    x: int
    x_prime: int


def worst_log_ratio(numer: np.ndarray, denom: np.ndarray) -> Witness:
    r"""``max_{x, x', c} ln(numer[x, c] / denom[x', c])`` with its location.

    Columns where ``numer`` is zero in every row are ignored (0/0 and 0/c); a column with a
    positive numerator and a zero denominator gives ``inf``. ``x = x'`` is included (for LDP
    with ``numer = denom`` that pair contributes ``ln 1 = 0``).
    """
    hi = numer.max(axis=0)
    lo = denom.min(axis=0)
    live = hi > 0
    if not live.any():
        return Witness(0.0, -1, -1, -1)
    with np.errstate(divide="ignore"):
        logs = np.where(live, np.log(np.where(live, hi, 1.0)) - np.log(lo), -np.inf)
    c = int(np.argmax(logs))
    return Witness(float(max(logs[c], 0.0)), c, int(np.argmax(numer[:, c])),
                   int(np.argmin(denom[:, c])))


def epsilon_ldp(m: Any) -> float:
    r"""Smallest eps with ``Q[x, y] <= e^eps Q[x', y]`` for all x, x', y (pure LDP).

    .. math:: \varepsilon(Q) = \max_y \ln \frac{\max_x Q[x, y]}{\min_x Q[x, y]}

    ``inf`` when a column is zero for one input and positive for another. An
    :class:`EvidentialMechanism` is measured over its messages (this is mass SLDP).
    """
    Q = as_mechanism(m).matrix
    return worst_log_ratio(Q, Q).epsilon


def hockey_stick(P: np.ndarray, P_prime: np.ndarray, epsilon: float) -> np.ndarray:
    r"""``H_{e^eps}(P || P') = sum_y max(0, P[y] - e^eps P'[y])`` along the last axis.

    Terms with ``P'[y] = 0`` contribute ``P[y]`` (no ``0 * inf``), so ``epsilon = inf`` gives
    the mass of P where P' vanishes. The value is capped at 1, the divergence's range: a row
    is accepted when it sums to 1 within 1e-9, and the sum of its terms over disjoint supports
    could otherwise read ``1 + 2e-16``, which is not a delta (and (eps, 1)-DP always holds).
    """
    scale = math.exp(epsilon) if epsilon < 709 else math.inf
    with np.errstate(invalid="ignore", over="ignore"):
        term = np.where(P_prime > 0, P - scale * P_prime, P)
    return np.minimum(np.maximum(term, 0.0).sum(axis=-1), 1.0)


def delta_ldp(m: Any, epsilon: float) -> float:
    r"""Smallest delta with (eps, delta)-LDP: the largest hockey-stick divergence.

    .. math:: \delta(\varepsilon) = \max_{x \ne x'} \sum_y \max(0, Q[x, y] - e^\varepsilon Q[x', y])

    (Huang & Canonne, Def. 2.2; worst event ``{y : Q[x, y] > e^eps Q[x', y]}``.)
    """
    eps = check_epsilon(epsilon, allow_inf=True)
    Q = as_mechanism(m).matrix
    best = 0.0
    for x in range(Q.shape[0]):
        best = max(best, float(hockey_stick(Q[x][None, :], Q, eps).max()))
    return best


def pairwise_log_ratios(Q: np.ndarray) -> np.ndarray:
    r"""``R[x, x'] = max_y ln(Q[x, y] / Q[x', y])`` (0/0 ignored, c/0 = inf; diagonal 0)."""
    k = Q.shape[0]
    with np.errstate(divide="ignore"):
        L = np.log(Q)
    R = np.empty((k, k))
    for x in range(k):
        with np.errstate(invalid="ignore"):
            diff = L[x][None, :] - L  # nan where both are zero
        R[x] = np.fmax.reduce(diff, axis=1, initial=-np.inf)
    np.fill_diagonal(R, 0.0)
    return R


def epsilon_metric(m: Any, distance: Any) -> float:
    r"""Smallest eps with ``Q[x, y] <= e^{eps d(x, x')} Q[x', y]`` for all x, x', y.

    .. math:: \varepsilon = \max_{x \ne x',\ 0 < d(x,x') < \infty}
              \frac{\max_y \ln(Q[x,y]/Q[x',y])}{d(x, x')}

    ``distance`` is a ``(k, k)`` matrix or a weighted networkx graph on the input labels
    (shortest paths). A pair at distance 0 with different rows gives ``inf``; a pair at
    distance ``inf`` is unconstrained. (Chatzikokolakis et al. 2013, d-privacy.)
    """
    mech = as_mechanism(m)
    D = distance_matrix(distance, mech.inputs)
    R = pairwise_log_ratios(mech.matrix)
    off = ~np.eye(len(D), dtype=bool)
    zero = off & (D == 0) & (R > 0)
    if zero.any():
        return math.inf
    ok = off & np.isfinite(D) & (D > 0)
    if not ok.any():
        return 0.0
    with np.errstate(invalid="ignore"):
        vals = R[ok] / D[ok]
    return float(max(vals.max(), 0.0))


@dataclass(frozen=True)
class DeletionPrivacy:
    """Pure deletion LDP of a mechanism: the smallest eps and an optimal reference R0."""

    epsilon: float
    reference: np.ndarray | None


def epsilon_deletion(m: Any) -> DeletionPrivacy:
    r"""Smallest eps such that some reference distribution r has
    ``e^-eps r_y <= Q[x, y] <= e^eps r_y`` for all x, y (deletion LDP with delta = 0,
    Huang & Canonne Def. 2.3; singletons suffice because the constraint is additive over S).

    Column y needs ``r_y`` in ``[e^-eps max_x Q[x,y], e^eps min_x Q[x,y]]`` and the r_y must
    sum to 1, so in closed form

    .. math:: \varepsilon_{del} = \max\Big(\tfrac12 \varepsilon_{LDP},\ \ln \sum_y \max_x Q[x,y],
              \ -\ln \sum_y \min_x Q[x,y]\Big).

    The returned reference interpolates between the two bounds at that eps (``None`` if inf).
    """
    Q = as_mechanism(m).matrix
    hi, lo = Q.max(axis=0), Q.min(axis=0)
    s_hi, s_lo = float(hi.sum()), float(lo.sum())
    eps_ldp = worst_log_ratio(Q, Q).epsilon
    if math.isinf(eps_ldp) or s_lo == 0.0:
        return DeletionPrivacy(math.inf, None)
    eps = max(eps_ldp / 2, math.log(s_hi), -math.log(s_lo), 0.0)
    lower, upper = hi * math.exp(-eps), lo * math.exp(eps)
    gap = float((upper - lower).sum())
    t = 0.0 if gap <= 0 else min(max((1.0 - float(lower.sum())) / gap, 0.0), 1.0)
    return DeletionPrivacy(eps, lower + t * (upper - lower))


SLDPKind = Literal["mass", "pl", "bel"]


def epsilon_sldp(m: Any, kind: SLDPKind = "mass") -> float:
    r"""Shafer LDP of an evidential mechanism (Li et al. 2022, Def. 3.1 and s.2.2).

    ``kind="mass"``: :math:`\ln \max_{x,x',E} m_x(E)/m_{x'}(E)` (the LDP eps of the
    mechanism over its messages); ``"pl"`` and ``"bel"``: the same ratio of plausibilities
    or beliefs over all events. Lemma 3.2: mass >= pl and mass >= bel. For a Bayesian
    mechanism all three equal its LDP epsilon. ``pl``/``bel`` enumerate the 2^m events
    (at most 16 outputs), except for a Bayesian mechanism (any number of outputs), where
    ``pl_x(E) = bel_x(E) = P_x(E)`` and the worst event is a singleton (a ratio of sums is at
    most the largest ratio of its terms), so they are its LDP epsilon over the outputs.
    """
    if kind not in ("mass", "pl", "bel"):
        raise InvalidParameterError(f"kind must be 'mass', 'pl' or 'bel', got {kind!r}")
    ev = as_evidential(m)
    if kind == "mass":
        A = ev.masses
    elif ev.is_bayesian:
        A = ev.as_bayesian_mechanism().matrix
    elif kind == "pl":
        A = ev.pl_matrix()
    else:
        A = ev.bel_matrix()
    return worst_log_ratio(A, A).epsilon


def epsilon_wldp(m: Any) -> float:
    r"""Walley LDP (Li et al. 2022, Def. 3.13 and Lemma 3.14):

    .. math:: r_W = \max_{x, x', E} \frac{pl_x(E)}{bel_{x'}(E)}, \quad \varepsilon_W = \ln r_W,

    with ``x = x'`` included, so ``eps_W > 0`` as soon as a row puts mass on a non-singleton
    message. Events with ``pl = 0`` everywhere are ignored. Enumerates the 2^m events (at
    most 16 outputs), except for a Bayesian mechanism (any number of outputs): there
    ``pl = bel = P`` and ``eps_W`` is its LDP epsilon over the outputs.
    """
    ev = as_evidential(m)
    if ev.is_bayesian:
        Q = ev.as_bayesian_mechanism().matrix
        return worst_log_ratio(Q, Q).epsilon
    return worst_log_ratio(ev.pl_matrix(), ev.bel_matrix()).epsilon


def delta_deletion(m: Any, epsilon: float) -> float:
    r"""Smallest delta with (eps, delta)-deletion LDP (Huang & Canonne, Def. 2.3):

    .. math:: \delta = \min_{r \in \Delta(Y)} \max_x \max\big(H_{e^\varepsilon}(Q_x \| r),
              \ H_{e^\varepsilon}(r \| Q_x)\big)

    (the worst events S of the definition are the hockey-stick sets). Solved as an LP with
    scipy's HiGHS; ``r`` ranges over all distributions on the outputs.
    """
    eps = check_epsilon(epsilon)
    Q = as_mechanism(m).matrix
    k, n = Q.shape
    e = math.exp(eps)
    # variables: r (n), delta (1), up (k n), down (k n)
    n_var = n + 1 + 2 * k * n
    I_kn = identity(k * n, format="csr")
    R = csr_matrix(np.tile(np.eye(n), (k, 1)))  # (k n, n): row (x, y) picks r_y
    zero_col = csr_matrix((k * n, 1))
    zeros_kn = csr_matrix((k * n, k * n))
    # up >= Q - e r   <=>  -e r - up <= -Q ;  down >= r - e Q  <=>  r - down <= e Q
    A1 = hstack([-e * R, zero_col, -I_kn, zeros_kn])
    A2 = hstack([R, zero_col, zeros_kn, -I_kn])
    # sum_y up[x, y] - delta <= 0 ; same for down
    S = csr_matrix(np.kron(np.eye(k), np.ones((1, n))))
    neg1 = csr_matrix(-np.ones((k, 1)))
    zk = csr_matrix((k, n))
    zs = csr_matrix((k, k * n))
    A3 = hstack([zk, neg1, S, zs])
    A4 = hstack([zk, neg1, zs, S])
    A_ub = vstack([A1, A2, A3, A4]).tocsr()
    b_ub = np.concatenate([-Q.ravel(), e * Q.ravel(), np.zeros(2 * k)])
    A_eq = coo_matrix((np.ones(n), (np.zeros(n, dtype=int), np.arange(n))), shape=(1, n_var))
    c = np.zeros(n_var)
    c[n] = 1.0
    # tolerances well below EPSILON_TOL: at HiGHS's default 1e-7 the optimum of an LP-tight
    # matrix came back 6e-9 below the exact delta
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=(0, None),
                  method="highs", options={"primal_feasibility_tolerance": 1e-10,
                                           "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:  # pragma: no cover (the LP is always feasible and bounded)
        raise MechdesignError(f"deletion-delta LP failed: {res.message}")
    return float(max(res.fun, 0.0))
