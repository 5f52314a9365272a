r"""Conversions between privacy notions, as functions and (when constructive) as transforms.

Sources: Huang & Canonne, "Lemmas of differential privacy" (Lemmas 3.1, 3.2, 3.3, Cor 3.1,
Lemmas 4.1-4.3, Thm 4.3) and ``docs/accounting.md`` s.3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._coerce import as_mechanism
from .._validation import check_delta, check_epsilon, check_int, check_probability
from ..errors import InvalidMechanismError, InvalidParameterError, MechdesignError
from ..mechanism import Mechanism
from .measures import deletion_delta_at, delta_ldp, epsilon_ldp, pairwise_log_ratios

KOV_MIN_EPSILON = 1e-6
"""Smallest default epsilon of :func:`kov_decomposition` (pairs that are nearly equal)."""

DECOMPOSITION_TOL = 1e-9
"""Largest residual ``max |Q[[x, x']] - RR(eps) @ G|`` accepted by :func:`kov_decomposition`,
and largest negative entry of G clipped to zero."""


@dataclass(frozen=True)
class Guarantee:
    """An (epsilon, delta) guarantee of a given notion, with the result that gives it."""

    epsilon: float
    delta: float
    notion: str
    source: str


# --------------------------------------------------------------------------- Lemma 3.1
def pure_to_approx_epsilon(epsilon: float, delta: float) -> float:
    r"""Lemma 3.1 ([ASZ18, Lemma 5]): an (eps + delta, 0)-DP mechanism is (eps, delta)-DP.

    Given a pure ``epsilon`` and a ``delta``, returns ``max(epsilon - delta, 0)``: the
    mechanism is (that, delta)-DP. (If ``delta >= epsilon`` it is (delta, 0)-DP, hence
    (0, delta)-DP by the lemma.)
    """
    eps = check_epsilon(epsilon, allow_inf=True)
    d = check_delta(delta)
    return max(eps - d, 0.0)


# --------------------------------------------------------------------------- Lemma 3.2
def approx_to_pure_epsilon(epsilon: float, delta: float, k: int, eta: float) -> float:
    r"""Lemma 3.2: an (eps, delta)-DP mechanism with k outputs, mixed with the uniform
    distribution at rate eta, is eps'-DP with

    .. math:: \varepsilon' = \varepsilon + \ln\big(1 + \tfrac{k\delta}{\eta} e^{-\varepsilon}\big)

    (binary outputs: ``eps' <= eps + 2 delta / eta``). ``0 < eta <= 1``.
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    k = check_int(k, "k", 1)
    et = check_probability(eta, "eta")
    if et == 0:
        raise InvalidParameterError("eta must be in (0, 1], got 0.0")
    return eps + math.log1p(k * d / et * math.exp(-eps))


def mix_with_uniform(m: Any, eta: float) -> Mechanism:
    r"""The transform of Lemma 3.2: ``A'(x) = (1 - eta) A(x) + eta * uniform``, i.e.
    ``Q' = (1 - eta) Q + eta / m`` (m outputs). ``TV(A(x), A'(x)) <= eta``."""
    mech = as_mechanism(m)
    et = check_probability(eta, "eta")
    Q = (1.0 - et) * mech.matrix + et / mech.n_outputs
    return Mechanism(Q, mech.inputs, mech.outputs,
                     name=f"mix_with_uniform({mech.name or 'Q'}, {et:g})")


@dataclass(frozen=True)
class PureConversion:
    """Result of :func:`approx_to_pure`.

    ``epsilon`` is the exact pure epsilon of ``mechanism`` (measured), ``bound`` the
    Lemma 3.2 value, ``tv`` the largest total-variation distance to the original rows.
    """

    mechanism: Mechanism
    epsilon: float
    bound: float
    tv: float
    epsilon_in: float
    delta_in: float
    eta: float


def approx_to_pure(m: Any, epsilon: float, eta: float, delta: float | None = None
                   ) -> PureConversion:
    """Lemma 3.2 as a transform: mix ``m`` with the uniform distribution at rate eta.

    ``delta`` defaults to the exact ``delta_ldp(m, epsilon)``. Reports the lemma's eps' and
    the exact pure epsilon of the mixed matrix, which never exceeds it.
    """
    mech = as_mechanism(m)
    eps = check_epsilon(epsilon)
    d = delta_ldp(mech, eps) if delta is None else check_delta(delta)
    mixed = mix_with_uniform(mech, eta)
    bound = approx_to_pure_epsilon(eps, d, mech.n_outputs, eta)
    tv = float(0.5 * np.abs(mixed.matrix - mech.matrix).sum(axis=1).max())
    return PureConversion(mixed, epsilon_ldp(mixed), bound, tv, eps, d, float(eta))


# --------------------------------------------------------------------------- Lemmas 4.1, 4.2
def replacement_to_deletion(epsilon: float, delta: float) -> Guarantee:
    """Lemma 4.1: replacement (eps, delta)-LDP implies deletion (eps, delta)-LDP, with
    reference distribution ``R0 = R(x0)`` for any fixed x0 (:func:`deletion_reference`)."""
    return Guarantee(check_epsilon(epsilon, allow_inf=True), check_delta(delta), "deletion",
                     "Huang & Canonne Lemma 4.1")


def deletion_to_replacement(epsilon: float, delta: float) -> Guarantee:
    r"""Lemma 4.2: deletion (eps, delta)-LDP implies replacement
    ``(2 eps, (e^eps + 1) delta)``-LDP, and NOT ``(2 eps, 2 delta)`` in general
    (``catalog.deletion_counterexample`` attains ``(e^eps + 1) delta``)."""
    eps = check_epsilon(epsilon, allow_inf=True)
    d = check_delta(delta)
    dl = 0.0 if d == 0 else min(1.0, (math.exp(eps) + 1) * d) if eps < 700 else 1.0
    return Guarantee(2 * eps, dl, "replacement", "Huang & Canonne Lemma 4.2")


def deletion_reference(m: Any, x0: int = 0) -> np.ndarray:
    """The reference distribution of Lemma 4.1: the row ``R(x0)`` (a copy)."""
    mech = as_mechanism(m)
    x0 = check_int(x0, "x0", 0)
    if x0 >= mech.n_inputs:
        raise InvalidParameterError(f"x0 = {x0} is outside 0..{mech.n_inputs - 1}")
    return mech.matrix[x0].copy()


def _reference(reference: Any, n_outputs: int) -> np.ndarray:
    r = np.asarray(reference, dtype=float)
    if r.shape != (n_outputs,):
        raise InvalidParameterError(
            f"reference must have one probability per output ({n_outputs}), got shape {r.shape}")
    if not np.isfinite(r).all() or (r < 0).any() or abs(float(r.sum()) - 1.0) > 1e-9:
        raise InvalidParameterError(
            f"reference must be a probability vector, got {r!r} (sum {float(r.sum())!r})")
    return r


def delta_deletion_at(m: Any, epsilon: float, reference: Any) -> float:
    r"""Smallest delta with (eps, delta)-deletion LDP for the given reference ``R0``
    (Huang & Canonne Def 2.3):

    .. math:: \delta = \max_x \max\big(H_{e^\varepsilon}(R(x) \| R_0),
              H_{e^\varepsilon}(R_0 \| R(x))\big)

    (the upper condition is ``R(x)(S) <= e^eps R0(S) + delta``; the lower,
    ``e^-eps (R0(S) - delta) <= R(x)(S)``, is ``R0(S) - e^eps R(x)(S) <= delta``).
    """
    mech = as_mechanism(m)
    eps = check_epsilon(epsilon, allow_inf=True)
    r = _reference(reference, mech.n_outputs)
    return deletion_delta_at(mech.matrix, r, eps)


# --------------------------------------------------------------------------- Lemma 4.3
@dataclass(frozen=True)
class DeletionRepair:
    """Lemma 4.3 as a transform: ``mechanism`` is eps-deletion LDP (pure) w.r.t.
    ``reference``; ``tv`` is its largest TV distance to the original rows (<= delta_in);
    ``delta_in`` the exact deletion delta of the original at eps."""

    mechanism: Mechanism
    epsilon: float
    reference: np.ndarray
    tv: float
    delta_in: float


def to_pure_deletion(m: Any, epsilon: float, reference: Any) -> DeletionRepair:
    r"""Lemma 4.3 ([FMT21, Lemma 3.7]): an (eps, delta)-deletion randomizer with reference
    ``R0`` is delta-close in TV to an eps-deletion randomizer with the same reference.

    Construction, row by row: clip ``R(x)`` into the band
    ``[e^-eps R0, e^eps R0]`` (removing ``H_{e^eps}(R(x)||R0) <= delta`` above it, adding
    ``e^-eps H_{e^eps}(R0||R(x)) <= delta`` below it), then restore the total by moving the
    entries that still have room towards the band's edge in proportion to their room (the
    band holds mass ``e^-eps <= 1 <= e^eps``, so this is always possible). The TV distance is
    the larger of the removed and added mass, so at most delta.
    """
    mech = as_mechanism(m)
    eps = check_epsilon(epsilon)
    r = _reference(reference, mech.n_outputs)
    lo, hi = math.exp(-eps) * r, math.exp(eps) * r
    Q = mech.matrix
    C = np.clip(Q, lo, hi)
    deficit = 1.0 - C.sum(axis=1)
    up_room = hi - C
    down_room = C - lo
    out = C.copy()
    for x in range(Q.shape[0]):
        if deficit[x] > 0:
            room = up_room[x]
        elif deficit[x] < 0:
            room = down_room[x]
        else:
            continue
        total = float(room.sum())
        if total <= 0:
            raise MechdesignError(f"row {x}: the deletion band has no room (reference {r!r})")
        out[x] += math.copysign(1.0, deficit[x]) * room * min(1.0, abs(deficit[x]) / total)
    out = np.clip(out, lo, hi)
    tv = float(0.5 * np.abs(out - Q).sum(axis=1).max())
    repaired = Mechanism(out, mech.inputs, mech.outputs,
                         name=f"to_pure_deletion({mech.name or 'Q'}, {eps:g})")
    return DeletionRepair(repaired, eps, r.copy(), tv, delta_deletion_at(mech, eps, r))


# --------------------------------------------------------------------------- Cor 3.1
@dataclass(frozen=True)
class KOVDecomposition:
    r"""Cor 3.1: ``[Q[x]; Q[x']] = RR(eps) @ G`` with ``RR(eps)`` binary randomized response.

    Attributes
    ----------
    G : Mechanism
        The post-processing ``{0, 1} -> outputs`` (row-stochastic, 2 x m).
    rr : Mechanism
        ``[[a, b], [b, a]]`` with ``a = e^eps / (1 + e^eps)``.
    epsilon : float
    pair : tuple of int
    residual : float
        ``max |RR @ G - Q[[x, x']]|`` (checked <= :data:`DECOMPOSITION_TOL`).
    """

    G: Mechanism
    rr: Mechanism
    epsilon: float
    pair: tuple[int, int]
    residual: float


def kov_decomposition(m: Any, x: int = 0, x_prime: int = 1,
                      epsilon: float | None = None) -> KOVDecomposition:
    r"""Write the pair ``(R(x), R(x'))`` of an eps-LDP randomizer as binary randomized
    response followed by a post-processing G (Huang & Canonne Cor 3.1, [FMT21, Lemma 3.4];
    Kairouz-Oh-Viswanath 2015, s.6.1):

    .. math:: R(x) = \tfrac{e^\varepsilon}{e^\varepsilon + 1} G_0 + \tfrac{1}{e^\varepsilon + 1}
              G_1, \quad R(x') = \tfrac{1}{e^\varepsilon + 1} G_0
              + \tfrac{e^\varepsilon}{e^\varepsilon + 1} G_1.

    Inverting the 2 x 2 RR matrix gives the unique G:
    ``G_0 = P + (P - P') / (e^eps - 1)``, ``G_1 = P' + (P' - P) / (e^eps - 1)``, which is
    non-negative exactly when the pair is eps-private. ``epsilon`` defaults to the pair's own
    epsilon ``max_y |ln(P[y] / P'[y])|``, at least :data:`KOV_MIN_EPSILON` (below it the
    division by ``e^eps - 1`` amplifies the rows' rounding past the tolerance; a larger eps
    is always a valid decomposition); a smaller one raises. The factorisation is verified.
    """
    mech = as_mechanism(m)
    n = mech.n_inputs
    x = check_int(x, "x", 0)
    x_prime = check_int(x_prime, "x_prime", 0)
    for name, v in (("x", x), ("x_prime", x_prime)):
        if v >= n:
            raise InvalidParameterError(f"{name} = {v} is outside 0..{n - 1}")
    if x == x_prime:
        raise InvalidParameterError(f"x and x_prime must be two different inputs, got "
                                    f"both = {x}")
    P, Pp = mech.matrix[x], mech.matrix[x_prime]
    R = pairwise_log_ratios(mech.matrix[[x, x_prime]])
    own = float(max(R[0, 1], R[1, 0], 0.0))
    if epsilon is None:
        if math.isinf(own):
            raise InvalidParameterError(
                f"inputs {x} and {x_prime} are not eps-LDP for any finite eps "
                "(an output has probability 0 under one of them only)")
        eps = max(own, KOV_MIN_EPSILON)
    else:
        eps = check_epsilon(epsilon)
        if own > eps + 1e-12:
            raise InvalidParameterError(
                f"epsilon = {eps!r} is below the pair's own epsilon {own!r}; "
                "no post-processing of RR(epsilon) produces this pair")
    if eps == 0.0:
        if np.abs(P - Pp).max() > DECOMPOSITION_TOL:
            raise InvalidParameterError("epsilon = 0 needs identical rows")
        G = np.vstack([P, P])
        a = b = 0.5
    else:
        em1 = math.expm1(eps)
        # the rows' difference sums to 0 up to rounding, which the division by e^eps - 1
        # amplifies (a row of G summed to 0.5 at eps ~ 1e-16); that component is removed
        # along the rows' own support, so each row of G sums to its row of Q
        D = P - Pp
        w = P + Pp
        D = D - D.sum() * w / w.sum()
        G = np.vstack([P + D / em1, Pp - D / em1])
        a = 1.0 / (1.0 + math.exp(-eps))
        b = 1.0 / (1.0 + math.exp(eps)) if eps < 700 else 0.0
    if G.min() < -DECOMPOSITION_TOL:
        raise InvalidMechanismError(
            f"post-processing has a negative entry {G.min()!r}; the pair is not eps-private")
    G = np.maximum(G, 0.0)  # clears rounding noise only (checked above)
    rr = np.array([[a, b], [b, a]])
    residual = float(np.abs(rr @ G - np.vstack([P, Pp])).max())
    if residual > DECOMPOSITION_TOL:
        raise MechdesignError(
            f"KOV decomposition residual {residual!r} exceeds {DECOMPOSITION_TOL}")
    return KOVDecomposition(
        G=Mechanism(G, (0, 1), mech.outputs, name=f"kov_post_processing({x}, {x_prime})"),
        rr=Mechanism(rr, (mech.inputs[x], mech.inputs[x_prime]), (0, 1),
                     name=f"randomized_response(2, {eps:g})"),
        epsilon=eps, pair=(x, x_prime), residual=residual)


# --------------------------------------------------------------------------- Thm 4.3
@dataclass(frozen=True)
class PureLDPProtocol:
    """The bounds of Huang & Canonne Thm 4.3 ([BNS19, Thm 6.1]) for given eps, delta, n, T.

    ``valid`` says whether (eps, T) lie in the theorem's range
    ``eps in (0, 1/4]`` and ``5 ln(1/eps) <= T <= (1 - e^-eps) / (4 delta n e^eps)``.
    """

    epsilon: float
    tv_bound: float
    bits: float
    public_random_bits_factor: int
    valid: bool
    t_min: float
    t_max: float


def approx_to_pure_protocol(epsilon: float, delta: float, n: int, T: int) -> PureLDPProtocol:
    r"""Thm 4.3: (eps, delta)-LDP randomizers ``R_1..R_n`` have a public-coin replacement
    ``R'_i`` that is ``10 eps``-LDP, sends ``log2 T`` bits, uses ``T`` times the randomness,
    and whose message distribution is within TV

    .. math:: n\Big((1/2 + \varepsilon)^T
              + 6 T \delta \frac{e^\varepsilon}{1 - e^{-\varepsilon}}\Big).
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    n = check_int(n, "n", 1)
    T = check_int(T, "T", 1)
    if eps == 0:
        raise InvalidParameterError("epsilon must be > 0 for Thm 4.3, got 0.0")
    t_min = 5 * math.log(1 / eps)
    t_max = math.inf if d == 0 else -math.expm1(-eps) / (4 * d * n * math.exp(eps))
    tv = n * ((0.5 + eps) ** T + 6 * T * d * math.exp(eps) / -math.expm1(-eps))
    valid = eps <= 0.25 and t_min <= T <= t_max
    return PureLDPProtocol(10 * eps, tv, math.log2(T), T, valid, t_min, t_max)
