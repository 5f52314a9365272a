r"""Conversions between privacy notions, as functions and (when constructive) as transforms.

Sources: Huang & Canonne, "Lemmas of differential privacy" (Lemmas 3.1, 3.2, 3.3, Cor 3.1,
Lemmas 4.1-4.3, Thm 4.3) and ``docs/accounting.md`` s.3.
"""

from __future__ import annotations

import decimal
import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np

from .._coerce import as_mechanism
from .._exact import dexpm1, dlog1p
from .._exact import outward as _outward
from .._html import value_view
from .._validation import check_delta, check_epsilon, check_int, check_probability
from ..errors import InvalidMechanismError, InvalidParameterError, MechdesignError
from ..mechanism import Mechanism
from .measures import (
    deletion_delta_at,
    delta_ldp,
    epsilon_ldp,
    hockey_stick,
    pairwise_log_ratios,
)

__all__ = [
    "DECOMPOSITION_TOL",
    "KOV_MIN_EPSILON",
    "LEAKY_RR_OUTPUTS",
    "DeletionRepair",
    "Guarantee",
    "KOVDecomposition",
    "LeakyKOVDecomposition",
    "PureConversion",
    "PureLDPProtocol",
    "approx_to_pure",
    "approx_to_pure_epsilon",
    "approx_to_pure_protocol",
    "deletion_reference",
    "deletion_to_replacement",
    "delta_deletion_at",
    "kov_decomposition",
    "leaky_kov_decomposition",
    "leaky_randomized_response",
    "mix_with_uniform",
    "pure_to_approx_epsilon",
    "replacement_to_deletion",
    "to_pure_deletion",
]


KOV_MIN_EPSILON = 1e-6
"""Smallest default epsilon of :func:`kov_decomposition` (pairs that are nearly equal)."""

DECOMPOSITION_TOL = 1e-9
"""Largest residual ``max |Q[[x, x']] - RR(eps) @ G|`` accepted by :func:`kov_decomposition`,
and largest negative entry of G clipped to zero."""


def outward(formula: Any, *args: float, direction: str = "up") -> float:
    """:func:`mechdesign._exact.outward`, with a decimal overflow (a value beyond
    ``10^999999``, e.g. ``1.5^T`` for a huge T) read as ``inf`` when rounding up and as ``0``
    when rounding down (a positive value below ``10^-999999``)."""
    try:
        return _outward(formula, *args, direction=direction)  # type: ignore[arg-type]
    except (decimal.Overflow, decimal.Underflow):
        return math.inf if direction == "up" else 0.0


@value_view
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

    Rounded outward: the difference is evaluated at 60 digits and rounded up to the next
    double (:func:`mechdesign._exact.outward`), so it is never below the exact value.
    """
    eps = check_epsilon(epsilon, allow_inf=True)
    d = check_delta(delta)
    return max(outward(lambda e, t: e - t, eps, d), 0.0)


# --------------------------------------------------------------------------- Lemma 3.2
def approx_to_pure_epsilon(epsilon: float, delta: float, k: int, eta: float) -> float:
    r"""Lemma 3.2: an (eps, delta)-DP mechanism with k outputs, mixed with the uniform
    distribution at rate eta, is eps'-DP with

    .. math:: \varepsilon' = \varepsilon + \ln\big(1 + \tfrac{k\delta}{\eta} e^{-\varepsilon}\big)

    (binary outputs: ``eps' <= eps + 2 delta / eta``). ``0 < eta <= 1``.

    Rounded outward: evaluated at 60 digits (``ln(1 + x)`` without cancellation) and
    rounded up to the next double (:func:`mechdesign._exact.outward`).
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    k = check_int(k, "k", 1)
    et = check_probability(eta, "eta")
    if et == 0:
        raise InvalidParameterError("eta must be in (0, 1], got 0.0")
    return outward(lambda e, t, h: e + dlog1p(Decimal(k) * t * (-e).exp() / h), eps, d, et)


def mix_with_uniform(m: Any, eta: float) -> Mechanism:
    r"""The transform of Lemma 3.2: ``A'(x) = (1 - eta) A(x) + eta * uniform``, i.e.
    ``Q' = (1 - eta) Q + eta / m`` (m outputs). ``TV(A(x), A'(x)) <= eta``."""
    mech = as_mechanism(m)
    et = check_probability(eta, "eta")
    Q = (1.0 - et) * mech.matrix + et / mech.n_outputs
    return Mechanism(Q, mech.inputs, mech.outputs,
                     name=f"mix_with_uniform({mech.name or 'Q'}, {et:g})")


@value_view
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
    (``catalog.deletion_counterexample`` attains ``(e^eps + 1) delta``).

    Rounded outward: ``2 eps`` is exact (or ``inf``), and ``min(1, (e^eps + 1) delta)`` is
    evaluated at 60 digits and rounded up to the next double
    (:func:`mechdesign._exact.outward`); above ``eps = 1000`` any positive delta gives 1
    (``e^1000 * 5e-324 > 1``)."""
    eps = check_epsilon(epsilon, allow_inf=True)
    d = check_delta(delta)
    if d == 0:
        dl = 0.0
    elif eps < 1000:
        dl = min(1.0, outward(lambda e, t: (e.exp() + 1) * t, eps, d))
    else:
        dl = 1.0
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
@value_view
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
@value_view
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


def _pair_indices(mech: Mechanism, x: Any, x_prime: Any) -> tuple[int, int]:
    """Two different row indices of ``mech``, validated."""
    n = mech.n_inputs
    x = check_int(x, "x", 0)
    x_prime = check_int(x_prime, "x_prime", 0)
    for name, v in (("x", x), ("x_prime", x_prime)):
        if v >= n:
            raise InvalidParameterError(f"{name} = {v} is outside 0..{n - 1}")
    if x == x_prime:
        raise InvalidParameterError(f"x and x_prime must be two different inputs, got "
                                    f"both = {x}")
    return x, x_prime


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
    x, x_prime = _pair_indices(mech, x, x_prime)
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
        a, b = _binary_rr(eps)
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


# --------------------------------------------------------------------------- Lemma 3.3
LEAKY_RR_OUTPUTS = (0, 1, "leak x", "leak x'")
"""Outputs of leaky randomized response in :class:`LeakyKOVDecomposition`: the two outputs
of binary RR, then "the input is x" and "the input is x'"."""


def leaky_randomized_response(epsilon: float, delta: float) -> np.ndarray:
    r"""The 2 x 4 matrix of leaky randomized response LRR(eps, delta) (Kairouz, Oh,
    Viswanath 2015, Thm 2.2; Huang & Canonne Lemma 3.3), outputs :data:`LEAKY_RR_OUTPUTS`:

    .. math:: \begin{pmatrix} (1-\delta)\frac{e^\varepsilon}{1+e^\varepsilon} &
              (1-\delta)\frac{1}{1+e^\varepsilon} & \delta & 0 \\
              (1-\delta)\frac{1}{1+e^\varepsilon} &
              (1-\delta)\frac{e^\varepsilon}{1+e^\varepsilon} & 0 & \delta \end{pmatrix}

    With probability delta the input is revealed, otherwise binary RR(eps) runs. For a
    finite eps both hockey-stick divergences at ``e^eps`` equal delta exactly: its privacy
    region is the whole (eps, delta) region, which is why it dominates every (eps, delta)
    pair (at eps = inf the RR part is the identity and the divergences are 1).
    """
    eps = check_epsilon(epsilon, allow_inf=True)
    d = check_delta(delta)
    a, b = _binary_rr(eps)
    return np.array([[(1 - d) * a, (1 - d) * b, d, 0.0], [(1 - d) * b, (1 - d) * a, 0.0, d]])


def _binary_rr(eps: float) -> tuple[float, float]:
    """Binary RR(eps)'s ``e^eps / (1 + e^eps)`` and ``1 / (1 + e^eps)``, written with
    ``e^-eps`` so that the second stays exact up to eps = 745 (``1/(1 + e^eps)`` read 0
    from eps = 710 on, where the true value 1e-309 is still a double)."""
    t = math.exp(-eps)
    return 1.0 / (1.0 + t), t / (1.0 + t)


@value_view
@dataclass(frozen=True)
class LeakyKOVDecomposition:
    r"""Lemma 3.3: ``[Q[x]; Q[x']] = LRR(eps, delta) @ G`` with LRR leaky randomized response.

    Attributes
    ----------
    G : Mechanism
        The post-processing ``{0, 1, "leak x", "leak x'"} -> outputs`` (row-stochastic,
        4 x m). Rows 0 and 1 follow binary RR; row "leak x" is what input x sends when it
        leaks (unused when delta = 0), row "leak x'" the same for x'.
    lrr : Mechanism
        Leaky randomized response :func:`leaky_randomized_response`, inputs ``x, x'``.
    epsilon, delta : float
        The pair's (eps, delta).
    pair_delta : float
        The pair's own delta at epsilon, ``max(H(Q_x || Q_x'), H(Q_x' || Q_x))`` at
        ``e^eps`` (float sums), at most ``delta``.
    pair : tuple of int
    residual : float
        ``max |LRR @ G - Q[[x, x']]|`` (checked <= :data:`DECOMPOSITION_TOL`).
    """

    G: Mechanism
    lrr: Mechanism
    epsilon: float
    delta: float
    pair_delta: float
    pair: tuple[int, int]
    residual: float


def leaky_kov_decomposition(m: Any, x: int = 0, x_prime: int = 1, *, epsilon: float,
                            delta: float | None = None) -> LeakyKOVDecomposition:
    r"""Write the pair ``(P, P') = (R(x), R(x'))`` of an (eps, delta)-private randomizer as
    leaky randomized response followed by a post-processing G (Huang & Canonne Lemma 3.3;
    Kairouz, Oh, Viswanath 2015, Thm 2.2 and s.6.1):

    .. math:: P = (1-\delta)\big(\tfrac{e^\varepsilon}{1+e^\varepsilon} G_0
              + \tfrac{1}{1+e^\varepsilon} G_1\big) + \delta G_x, \qquad
              P' = (1-\delta)\big(\tfrac{1}{1+e^\varepsilon} G_0
              + \tfrac{e^\varepsilon}{1+e^\varepsilon} G_1\big) + \delta G_{x'}.

    Such a G exists iff ``H_{e^eps}(P || P') <= delta`` and ``H_{e^eps}(P' || P) <= delta``.
    Construction (closed form, no LP; ``docs/accounting.md`` s.3): with ``c = min(P, P')``,
    ``A = min(P, e^eps P') - c`` and ``B = min(P', e^eps P) - c`` (A lives where P > P',
    B where P' > P), the parts ``u = c + t A`` of P and ``v = c + t' B`` of P' keep every
    ratio ``u / v`` in ``[e^-eps, e^eps]`` for all t, t' in [0, 1]; t and t' are chosen so
    that both have mass ``1 - delta`` (possible because ``sum min(P, e^eps P') = 1 -
    H(P || P') >= 1 - delta``; if ``sum c >= 1 - delta`` already, ``u = v`` is c scaled
    down). The leaks are ``G_x = (P - u) / delta`` and ``G_x' = (P' - v) / delta``, and
    ``(u, v) / (1 - delta)`` is split by binary RR as in :func:`kov_decomposition`, with
    the differences divided by ``e^eps - 1`` in the stable form
    ``A / (e^eps - 1) = min((P - P') / (e^eps - 1), P')``. The factorisation is verified.

    Parameters
    ----------
    m : Mechanism or array_like
    x, x_prime : int
        Two different row indices.
    epsilon : float
        ``>= 0`` (``inf`` allowed: RR is then the identity).
    delta : float, optional
        In [0, 1]; defaults to the pair's own delta at epsilon. A delta below the pair's
        own (by more than :data:`DECOMPOSITION_TOL`) raises: no post-processing of
        LRR(eps, delta) produces the pair.

    Raises
    ------
    InvalidParameterError
        Bad indices or parameters, or the pair is not (eps, delta)-indistinguishable (the
        message names its delta).
    """
    mech = as_mechanism(m)
    x, x_prime = _pair_indices(mech, x, x_prime)
    eps = check_epsilon(epsilon, allow_inf=True)
    P, Pp = mech.matrix[x], mech.matrix[x_prime]
    own = float(max(hockey_stick(P, Pp, eps), hockey_stick(Pp, P, eps)))
    if delta is None:
        d = own
    else:
        d = check_delta(delta)
        if own > d + DECOMPOSITION_TOL:
            raise InvalidParameterError(
                f"inputs {x} and {x_prime} are not ({eps!r}, {d!r})-indistinguishable: "
                f"their delta at epsilon = {eps!r} is {own!r} > {d!r}; no post-processing "
                "of leaky randomized response produces this pair")
    keep = 1.0 - d  # the mass RR carries
    em1 = math.expm1(eps) if eps < 700 else math.inf
    c = np.minimum(P, Pp)
    ahead, behind = P > Pp, Pp > P
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # A = min(P - P', (e^eps - 1) P') where P > P', and A / (e^eps - 1) (same for B)
        A = np.where(ahead, np.minimum(P - Pp, np.where(Pp > 0, em1 * Pp, 0.0)), 0.0)
        B = np.where(behind, np.minimum(Pp - P, np.where(P > 0, em1 * P, 0.0)), 0.0)
        A_div = np.where(ahead, np.minimum((P - Pp) / em1, Pp), 0.0) if em1 > 0 else 0 * A
        B_div = np.where(behind, np.minimum((Pp - P) / em1, P), 0.0) if em1 > 0 else 0 * B
    mass_c = float(c.sum())
    if keep <= 0.0:  # delta = 1: RR is never used
        u = v = np.zeros_like(P)
        G0 = G1 = (P + Pp) / 2
    elif mass_c >= keep:
        u = v = c * (keep / mass_c)
        G0 = G1 = u / keep
    else:
        # the mass each side adds, one number for both (so that the differences below
        # cancel in the row sums; clipped for rounding: 0 <= t, t' <= 1)
        sum_a, sum_b = float(A.sum()), float(B.sum())
        added = min(max(keep - mass_c, 0.0), sum_a, sum_b)
        t = added / sum_a if sum_a > 0 else 0.0
        tp = added / sum_b if sum_b > 0 else 0.0
        u, v = c + t * A, c + tp * B
        diff = (t * A_div - tp * B_div) / keep  # (u - v) / (keep (e^eps - 1))
        G0, G1 = u / keep + diff, v / keep - diff
    # the leaks: (P - u) / delta and (P' - v) / delta, each of mass 1 up to rounding (a
    # leak of no mass, delta = 0 or rounding, is never used: any distribution will do)
    Gx, Gxp = (w - z if float((w - z).sum()) > 0 else w for w, z in ((P, u), (Pp, v)))
    G = np.vstack([G0, G1, Gx, Gxp])
    if G.min() < -DECOMPOSITION_TOL:
        raise MechdesignError(  # pragma: no cover (the construction keeps G >= 0)
            f"leaky KOV post-processing has a negative entry {G.min()!r}")
    G = np.maximum(G, 0.0)
    G = G / G.sum(axis=1, keepdims=True)  # rows sum to 1 up to rounding
    lrr = leaky_randomized_response(eps, d)
    residual = float(np.abs(lrr @ G - np.vstack([P, Pp])).max())
    if residual > DECOMPOSITION_TOL:
        raise MechdesignError(
            f"leaky KOV decomposition residual {residual!r} exceeds {DECOMPOSITION_TOL}")
    return LeakyKOVDecomposition(
        G=Mechanism(G, LEAKY_RR_OUTPUTS, mech.outputs,
                    name=f"leaky_kov_post_processing({x}, {x_prime})"),
        lrr=Mechanism(lrr, (mech.inputs[x], mech.inputs[x_prime]), LEAKY_RR_OUTPUTS,
                      name=f"leaky_randomized_response({eps:g}, {d:g})"),
        epsilon=eps, delta=d, pair_delta=own, pair=(x, x_prime), residual=residual)


# --------------------------------------------------------------------------- Thm 4.3
@value_view
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

    Rounded outward (:func:`mechdesign._exact.outward`, 60 digits): ``epsilon = 10 eps`` and
    ``tv_bound`` are rounded up to the next double, and the range ``[t_min, t_max]`` of T
    that ``valid`` checks is narrowed (``t_min`` rounded up, ``t_max`` down), so ``valid``
    is never claimed outside the theorem's range.
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    n = check_int(n, "n", 1)
    T = check_int(T, "T", 1)
    if eps == 0:
        raise InvalidParameterError("epsilon must be > 0 for Thm 4.3, got 0.0")
    t_min = outward(lambda e: -e.ln() * 5, eps)
    t_max = math.inf if d == 0 else outward(
        lambda e, t: -dexpm1(-e) / (4 * t * Decimal(n) * e.exp()), eps, d, direction="down")
    half = Decimal(1) / 2
    tv = outward(lambda e, t: Decimal(n) * ((half + e) ** T
                                            + 6 * T * t * e.exp() / -dexpm1(-e)), eps, d)
    valid = eps <= 0.25 and t_min <= T <= t_max
    return PureLDPProtocol(outward(lambda e: 10 * e, eps), tv, math.log2(T), T, valid, t_min,
                           t_max)
