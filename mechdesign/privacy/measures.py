r"""Exact privacy of a finite mechanism under every notion mechdesign supports.

All measures are of the matrix as stored: a ratio ``a / b`` of two entries is formed from the
entries themselves (never from differences), ``0 / 0`` is ignored and ``c / 0 = inf`` for
``c > 0``. Belief functions are sums of non-negative masses only (see
:mod:`mechdesign._subsets`), so a mass of 1e-18 is measured as 1e-18 and an exact zero stays
zero: solver noise can make an epsilon large, but never spuriously infinite or spuriously
small.

Never under-reported. Every epsilon returned here is an upper bound on the exact epsilon of
the stored matrix, and exceeds it by at most a few ulps: logarithms of ratios are formed by
:func:`mechdesign._exact.log_ratio` (``log1p((hi - lo) / lo)`` when the ratio is near 1, where
``log(hi) - log(lo)`` would cancel: randomized response at eps = 1e-12 read 2.5e-4 low),
then raised by 4 ulps to cover the rounding of the evaluation (at most 8 ulps above the
exact value). A quotient by a distance or a sum of entries is rounded up the same way. The
exceptions are documented where they occur: plausibility and belief tables of a non-Bayesian
evidential mechanism are exact integer sums of the masses up to :data:`EXACT_EVENT_WORK`
(inputs x events x focal sets), and above it float sums widened by their rounding bound (at
most ``2 m`` roundings for m outputs, :func:`_sum_table_bounds`), so pl/bel-SLDP and WLDP
of such large mechanisms can read up to about ``(4 m + 16) 2^-53`` (absolute) above the
exact value. ``delta_ldp`` is a floating-point sum raised by its rounding bound
(:func:`hockey_stick`), so an upper bound; ``delta_deletion`` is the same sum at the
reference its LP finds, hence an upper bound on the minimum over references;
:func:`mechdesign.privacy.verify.verify_exact` decides both exactly. Checks of a
target (the ``.holds(mechanism)`` method of each privacy notion in
:mod:`mechdesign.privacy.notions`) accept a measured epsilon up to :data:`EPSILON_TOL` above
the target, and a measured delta up to :data:`EPSILON_TOL` relative to the target plus the
rounding of its float sum.

References: Li et al. 2022 (``docs/belief_functions.md``, section 2) and Huang & Canonne,
"Lemmas of differential privacy" (``docs/accounting.md``, section 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from .._coerce import as_evidential, as_mechanism, closed_form
from .._exact import dyadic_integers, event_sums, exp_bracket, float_up, log_ratio, round_up
from .._html import value_view
from .._validation import check_epsilon
from ..errors import InvalidParameterError, MechdesignError
from ..neighbors import distance_matrix, neighbour_pairs, ordered_pairs

__all__ = [
    "DELETION_LP_MAX_EPSILON",
    "DELETION_LP_TOLERANCE",
    "EPSILON_TOL",
    "EXACT_EVENT_WORK",
    "DeletionLP",
    "DeletionPrivacy",
    "Witness",
    "deletion_delta_at",
    "deletion_lp",
    "delta_deletion",
    "delta_ldp",
    "epsilon_deletion",
    "epsilon_ldp",
    "epsilon_metric",
    "epsilon_sldp",
    "epsilon_wldp",
    "hockey_stick",
    "pair_law_delta",
    "pairwise_log_ratios",
    "worst_log_ratio",
]


EPSILON_TOL = 1e-9
"""Absolute tolerance on epsilon (and delta) when checking a mechanism against a target."""


@value_view
@dataclass(frozen=True)
class Witness:
    """Where a worst ratio is attained: ``numer[x, column] / denom[x_prime, column]``."""

    epsilon: float
    column: int
    x: int
    x_prime: int


def worst_log_ratio(numer: np.ndarray, denom: np.ndarray) -> Witness:
    r"""``max_{x, x', c} ln(numer[x, c] / denom[x', c])`` with its location.

    .. math:: \max_c \ln \frac{\max_x \mathrm{numer}[x, c]}{\min_{x'} \mathrm{denom}[x', c]}

    Columns where ``numer`` is zero in every row are ignored (0/0 and 0/c); a column with a
    positive numerator and a zero denominator gives ``inf``. ``x = x'`` is included (for LDP
    with ``numer = denom`` that pair contributes ``ln 1 = 0``). The value is an upper bound
    on the exact one, at most 8 ulps above it (:func:`mechdesign._exact.log_ratio`).
    """
    hi = numer.max(axis=0)
    lo = denom.min(axis=0)
    live = hi > 0
    if not live.any():
        return Witness(0.0, -1, -1, -1)
    logs = np.where(live, log_ratio(np.where(live, hi, 1.0), np.where(live, lo, 1.0)),
                    -np.inf)
    c = int(np.argmax(logs))
    return Witness(float(max(logs[c], 0.0)), c, int(np.argmax(numer[:, c])),
                   int(np.argmin(denom[:, c])))


def epsilon_ldp(m: Any, *, pairs: Any = None, graph: Any = None) -> float:
    r"""Smallest eps with ``Q[x, y] <= e^eps Q[x', y]`` for all x, x', y (pure LDP), or for
    the neighbouring x, x' of a relation only.

    .. math:: \varepsilon(Q) = \max_y \ln \frac{\max_x Q[x, y]}{\min_x Q[x, y]}, \qquad
              \varepsilon_\sim(Q) = \max_{x \sim x'} \max_y \ln \frac{Q[x, y]}{Q[x', y]}

    ``inf`` when a column is zero for one input and positive for another (a neighbour of
    it, with a relation). An :class:`EvidentialMechanism` is measured over its messages
    (this is mass SLDP).

    A frequency oracle (any :class:`~mechdesign.randomizer.ClosedFormPrivacy` randomizer) is
    measured without its matrix: its
    :attr:`~mechdesign.oracles.base.FrequencyOracle.epsilon_exact`, an upper bound within a
    few ulps on the epsilon of its exact (rational) probabilities, the same for every pair of
    distinct inputs. Other randomizers are measured on ``to_mechanism()``.

    Parameters
    ----------
    m : Randomizer (Mechanism, EvidentialMechanism, FrequencyOracle) or array_like
    pairs : iterable of pairs, optional
        The neighbouring pairs (labels or row indices; both orders are measured), see
        :func:`~mechdesign.neighbors.neighbour_pairs`. Default: every pair of inputs.
    graph : networkx graph, optional
        The neighbour relation as a graph on the input labels (instead of ``pairs``).
    """
    law = closed_form(m)
    if law is not None:
        neighbour_pairs(range(law.n_inputs), pairs, graph)  # validated; every pair alike
        return float(law.epsilon_exact)
    mech = as_mechanism(m)
    Q = mech.matrix
    relation = neighbour_pairs(mech.inputs, pairs, graph)
    if relation is None:
        return worst_log_ratio(Q, Q).epsilon
    a, b = ordered_pairs(*relation)
    return float(max(_pair_log_ratios(Q, a, b).max(), 0.0))


def _pair_log_ratios(Q: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``max_y ln(Q[a_i, y] / Q[b_i, y])`` for each i (0/0 ignored, c/0 = inf; -inf when
    row ``a_i`` is all zero), each an upper bound within 8 ulps
    (:func:`mechdesign._exact.log_ratio`). Work arrays of at most 2e6 entries."""
    n = Q.shape[1]
    out = np.empty(len(a))
    step = max(1, 2_000_000 // max(n, 1))
    for start in range(0, len(a), step):
        num, den = Q[a[start:start + step]], Q[b[start:start + step]]
        r = np.where(num > 0, log_ratio(num, den), -np.inf)
        out[start:start + step] = r.max(axis=1, initial=-np.inf)
    return out


def hockey_stick(P: np.ndarray, P_prime: np.ndarray, epsilon: float) -> np.ndarray:
    r"""An upper bound on ``H_{e^eps}(P || P') = sum_y max(0, P[y] - e^eps P'[y])`` along the
    last axis, for the stored entries.

    Terms with ``P'[y] = 0`` contribute ``P[y]`` (no ``0 * inf``), so ``epsilon = inf`` gives
    the mass of P where P' vanishes. The value is capped at 1, the divergence's range: a row
    is accepted when it sums to 1 within 1e-9, and the sum of its terms over disjoint supports
    could otherwise read ``1 + 2e-16``, which is not a delta (and (eps, 1)-DP always holds).

    Outward rounding (``u = 2^-53``): ``e^eps`` is taken two doubles below ``math.exp`` (within
    one ulp), so the product ``c = fl(E P')`` is within ``u c`` (plus ``2^-1075`` if
    subnormal) of a value at most the exact ``e^eps P'`` (exact when ``eps = 0``), the
    difference ``d = fl(P - c)`` within ``u |d|`` (exact when 0), so each term is at most
    ``d + 2u (|d| + c)`` (the factor 2 covers that sum's own roundings); the positive terms'
    float sum is raised by ``(n + 2) u`` relative and one double. For ``eps >= 709`` the
    product is formed as ``exp(eps + ln P')``, whose relative error ``2u (|ln P'| + |eps +
    ln P'| + 2)`` is added the same way. Equal rows at ``eps = 0`` give exactly 0.
    """
    P = np.asarray(P, dtype=float)
    P_prime = np.asarray(P_prime, dtype=float)
    u = 2.0 ** -53
    with np.errstate(invalid="ignore", over="ignore", divide="ignore", under="ignore"):
        if math.isinf(epsilon):
            term = np.where(P_prime > 0, 0.0, P)
        else:
            if epsilon == 0.0:
                c = np.broadcast_to(P_prime, np.broadcast_shapes(P.shape, P_prime.shape))
                c_err = 0.0
            elif epsilon < 709:
                E = math.nextafter(math.nextafter(math.exp(epsilon), 0.0), 0.0)
                c = E * P_prime
                c_err = u * c + np.where((c < 2.3e-308) & (P_prime > 0), 5e-324, 0.0)
            else:  # e^eps P' in log space: e^eps overflows, the product may not (P' < 1e-308)
                lp = np.log(np.where(P_prime > 0, P_prime, 1.0))
                c = np.exp(epsilon + lp)
                c_err = c * (2 * u * (np.abs(lp) + np.abs(epsilon + lp) + 2)) \
                    + np.where((c < 2.3e-308) & (P_prime > 0), 5e-324, 0.0)
            d = P - c
            bound = np.where(np.isinf(c), -np.inf, d + (2 * u * np.abs(d) + 2 * c_err))
            term = np.where(P_prime > 0, bound, P)
        pos = np.maximum(term, 0.0)
        total = pos.sum(axis=-1)
        n = pos.shape[-1] if pos.ndim else 1
        total = np.where(total > 0, np.nextafter(total * (1 + (n + 2) * u), np.inf), 0.0)
    return np.minimum(total, 1.0)


def delta_ldp(m: Any, epsilon: float, *, pairs: Any = None, graph: Any = None) -> float:
    r"""Smallest delta with (eps, delta)-LDP: the largest hockey-stick divergence, over every
    ordered pair of inputs or over the neighbouring pairs of a relation (both orders).

    .. math:: \delta(\varepsilon) = \max_{x \ne x'} \sum_y \max(0, Q[x, y] - e^\varepsilon Q[x', y])

    (Huang & Canonne, Defs. 2.1-2.2, with ``x ~ x'`` in place of ``x != x'`` for a
    relation; worst event ``{y : Q[x, y] > e^eps Q[x', y]}``.)

    A frequency oracle with a closed-form pair law (``pair_atoms``, see
    :class:`~mechdesign.randomizer.ClosedFormPrivacy`) is measured without its matrix
    (:func:`pair_law_delta`); other randomizers on ``to_mechanism()``.

    Parameters
    ----------
    m : Randomizer (Mechanism, EvidentialMechanism, FrequencyOracle) or array_like
    epsilon : float
        ``>= 0``; ``inf`` gives the mass a row puts where its neighbour has none.
    pairs : iterable of pairs, optional
        The neighbouring pairs (labels or row indices), see
        :func:`~mechdesign.neighbors.neighbour_pairs`. Default: every pair of inputs.
    graph : networkx graph, optional
        The neighbour relation as a graph on the input labels (instead of ``pairs``).
    """
    eps = check_epsilon(epsilon, allow_inf=True)
    law = closed_form(m)
    if law is not None:
        try:
            atoms = law.pair_atoms()
        except NotImplementedError:
            atoms = None  # no closed form: measured on the matrix below
        if atoms is not None:
            neighbour_pairs(range(law.n_inputs), pairs, graph)  # validated; every pair alike
            return pair_law_delta(atoms, eps)
    mech = as_mechanism(m)
    Q = mech.matrix
    relation = neighbour_pairs(mech.inputs, pairs, graph)
    if relation is not None:
        a, b = ordered_pairs(*relation)
        step = max(1, 2_000_000 // Q.shape[1])  # work arrays of at most 2e6 entries
        return max(float(hockey_stick(Q[a[i:i + step]], Q[b[i:i + step]], eps).max())
                   for i in range(0, len(a), step))
    best = 0.0
    for x in range(Q.shape[0]):
        best = max(best, float(hockey_stick(Q[x][None, :], Q, eps).max()))
    return best


def pair_law_delta(atoms: Any, epsilon: float) -> float:
    r"""An upper bound on the hockey-stick divergence of a pair law given as exact rationals.

    .. math:: \delta(\varepsilon) = \sum_G \max\big(0,\ P(G) - e^\varepsilon P'(G)\big)

    ``atoms`` are pairs ``(P(G), P'(G))`` (fractions; see
    :meth:`~mechdesign.oracles.base.FrequencyOracle.pair_atoms`). The sum is exact in
    rationals with ``e^eps`` replaced by a rational lower bound
    (:func:`~mechdesign._exact.exp_bracket`, 60 digits), which can only raise it, then rounded
    up to a double (:func:`~mechdesign._exact.float_up`) and capped at 1. ``eps = inf`` gives
    the mass of P where P' vanishes. Huang & Canonne, Def. 2.2.
    """
    pairs = [(Fraction(p), Fraction(q)) for p, q in atoms]
    if math.isinf(epsilon):
        total = sum((p for p, q in pairs if q == 0), Fraction(0))
    else:
        low = exp_bracket(epsilon)[0]  # <= e^eps
        total = sum((max(Fraction(0), p - low * q) for p, q in pairs), Fraction(0))
    return min(float_up(total), 1.0)


def pairwise_log_ratios(Q: np.ndarray) -> np.ndarray:
    r"""``R[x, x'] = max_y ln(Q[x, y] / Q[x', y])`` (0/0 ignored, c/0 = inf; diagonal 0).

    Each entry is an upper bound on the exact value, at most 8 ulps above it
    (:func:`mechdesign._exact.log_ratio`). For speed the columns are first ranked by the
    plain difference of logarithms, whose error is below :math:`2 \cdot 2^{-52} \cdot 2
    \max |\ln Q|` (each logarithm within an ulp, plus the subtraction); only the columns
    within four times that of the best are evaluated accurately (the exact maximiser is
    always among them).
    """
    k, n = Q.shape
    with np.errstate(divide="ignore"):
        L = np.log(Q)
    finite = np.isfinite(L)
    slack = 16 * 2.0 ** -52 * (float(np.abs(L[finite]).max()) if finite.any() else 0.0)
    R = np.empty((k, k))
    block = max(1, 2_000_000 // (k * n))  # rows x per pass: (block k, n) work arrays
    for start in range(0, k, block):
        xs = np.arange(start, min(k, start + block))
        with np.errstate(invalid="ignore"):
            diff = (L[xs][:, None, :] - L[None, :, :]).reshape(-1, n)  # nan for 0/0
            top = np.fmax.reduce(diff, axis=1, initial=-np.inf)
            cand = diff >= top[:, None] - slack  # (nan compares False)
        counts = cand.sum(axis=1)
        live = np.isfinite(top)
        one = live & (counts == 1)  # usually every pair: its only candidate
        pairs, cols = np.flatnonzero(one), np.argmax(cand[one], axis=1)
        many = np.flatnonzero(live & (counts > 1))
        if many.size:
            p2, c2 = np.nonzero(cand[many])
            pairs, cols = np.concatenate([pairs, many[p2]]), np.concatenate([cols, c2])
        best = np.full(len(top), -np.inf)
        num = Q[xs[pairs // k], cols]
        np.maximum.at(best, pairs, log_ratio(num, Q[pairs % k, cols]))
        R[xs] = np.where(live, best, top).reshape(len(xs), k)
    np.fill_diagonal(R, 0.0)
    return R


def epsilon_metric(m: Any, distance: Any) -> float:
    r"""Smallest eps with ``Q[x, y] <= e^{eps d(x, x')} Q[x', y]`` for all x, x', y.

    .. math:: \varepsilon = \max_{x \ne x',\ 0 < d(x,x') < \infty}
              \frac{\max_y \ln(Q[x,y]/Q[x',y])}{d(x, x')}

    ``distance`` is a ``(k, k)`` matrix or a weighted networkx graph on the input labels
    (shortest paths). A pair at distance 0 with different rows gives ``inf``; a pair at
    distance ``inf`` is unconstrained. (Chatzikokolakis et al. 2013, d-privacy.)

    The value is an upper bound on the exact one: the log ratios are (see
    :func:`pairwise_log_ratios`) and the quotient is rounded up by an ulp. A matrix distance
    is exact as given; a graph's shortest paths are float sums (networkx) of at most
    ``N - 1`` edges for N nodes, within a factor ``(1 + 2^-53)^(N-2)`` above the exact sum
    of the weights, so they are divided by ``1 + N 2^-52`` first (relative cost
    ``N 2^-52``, about 2e-13 for a 1000-node graph).
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
    if hasattr(distance, "edges") and hasattr(distance, "nodes"):  # shortest-path sums
        n_nodes = len(distance.nodes)
        D = np.nextafter(D / (1.0 + n_nodes * 2.0 ** -52), 0.0)  # below the exact distance
    with np.errstate(invalid="ignore"):
        vals = round_up(R[ok] / D[ok], 1)
    return float(max(vals.max(), 0.0))


@value_view
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

    The value is an upper bound on the exact one, at most 8 ulps above it: the sums are
    correctly rounded (``math.fsum``), so are ``sum - 1`` and ``1 - sum``, and the logarithms
    are :func:`mechdesign._exact.log_ratio` of ``(sum, 1)`` and ``(1, sum)`` with those
    differences (no cancellation for sums near 1).
    """
    Q = as_mechanism(m).matrix
    hi, lo = Q.max(axis=0), Q.min(axis=0)
    s_hi, s_lo = math.fsum(hi), math.fsum(lo)
    eps_ldp = worst_log_ratio(Q, Q).epsilon
    if math.isinf(eps_ldp) or s_lo == 0.0:
        return DeletionPrivacy(math.inf, None)
    hi_list, lo_list = hi.tolist(), lo.tolist()
    log_s_hi = float(log_ratio(s_hi, 1.0, math.fsum([*hi_list, -1.0])))  # ln sum_y M_y
    neg_log_s_lo = float(log_ratio(1.0, s_lo, math.fsum([1.0, *(-v for v in lo_list)])))
    eps = max(eps_ldp / 2, log_s_hi, neg_log_s_lo, 0.0)
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

    An upper bound on the exact value, at most 8 ulps above it, except for a non-Bayesian
    mechanism above :data:`EXACT_EVENT_WORK` (float pl/bel tables, widened: about
    ``(4 m + 16) 2^-53`` above; see :func:`_event_epsilon`).
    """
    if kind not in ("mass", "pl", "bel"):
        raise InvalidParameterError(f"kind must be 'mass', 'pl' or 'bel', got {kind!r}")
    ev = as_evidential(m)
    if kind == "mass":
        A = ev.masses
    elif ev.is_bayesian:
        A = ev.as_bayesian_mechanism().matrix
    else:
        return _event_epsilon(ev, kind, kind)
    return worst_log_ratio(A, A).epsilon


EXACT_EVENT_WORK = 1 << 16
"""Event measures of a non-Bayesian mechanism with at most this many ``inputs x events x
focal sets`` sum the masses exactly (integers); larger ones use the float tables, widened."""


def _event_epsilon(ev: Any, numer: Literal["pl", "bel"], denom: Literal["pl", "bel"]
                   ) -> float:
    r"""``max_{x, x', E} ln(numer_x(E) / denom_x'(E))`` over the non-empty events, as an upper
    bound on the exact value.

    Up to :data:`EXACT_EVENT_WORK` the tables are exact integer sums of the masses
    (:func:`mechdesign._exact.event_sums`); each column's ``max``, ``min`` and their
    difference are rounded once (correctly) and :func:`mechdesign._exact.log_ratio` gives
    the bound within 8 ulps. Above it the float tables are widened by their rounding bound
    (:func:`_sum_table_bounds`), which can read up to about ``(4 m + 16) 2^-53`` above.
    """
    m = ev.n_outputs
    if ev.n_inputs * (1 << m) * len(ev.focal_sets) > EXACT_EVENT_WORK:
        if numer == denom and (ev.masses == ev.masses[0]).all():
            return 0.0  # identical rows: identical tables, every ratio 1
        tables = {"pl": ev.pl_matrix, "bel": ev.bel_matrix}
        upper, _ = _sum_table_bounds(tables[numer](), m)
        _, lower = _sum_table_bounds(tables[denom](), m)
        return worst_log_ratio(upper, lower).epsilon
    M, D = dyadic_integers(ev.masses)
    masks = [int(b) for b in ev.focal_masks]
    A = event_sums(M, masks, m, numer)
    B = A if denom == numer else event_sums(M, masks, m, denom)
    hi = [max(col) for col in zip(*A, strict=True)]
    lo = [min(col) for col in zip(*B, strict=True)]
    live = [(h, b) for h, b in zip(hi, lo, strict=True) if h > 0]
    if not live:
        return 0.0
    if any(b == 0 for _, b in live):
        return math.inf
    values = log_ratio([float(Fraction(h, D)) for h, _ in live],
                       [float(Fraction(b, D)) for _, b in live],
                       [float(Fraction(h - b, D)) for h, b in live])
    return float(max(values.max(), 0.0))


def _sum_table_bounds(A: np.ndarray, n_outputs: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Rigorous ``(upper, lower)`` bounds on the exact sums a pl or bel table rounds.

    Each entry of :meth:`~mechdesign.evidential.EvidentialMechanism.bel_matrix` is a sum of
    non-negative masses evaluated along at most m additions (the zeta transform), each of
    :meth:`~mechdesign.evidential.EvidentialMechanism.pl_matrix` along at most 2m (m more to
    accumulate over the outputs); with ``u = 2^-53`` such a sum is within a relative
    :math:`\gamma = 2mu / (1 - 2mu)` of the exact one (Higham, "Accuracy and stability of
    numerical algorithms", 2002, s.4.2). The bounds are ``A (1 + gamma + 4u)`` and
    ``A (1 - gamma - 4u)`` (the 4u covers the rounding of the factor and of the product),
    each moved one more ulp outwards for subnormal products; zeros stay zero.
    """
    u = 2.0 ** -53
    n = 2 * n_outputs
    gamma = n * u / (1.0 - n * u)
    with np.errstate(under="ignore"):
        upper = np.nextafter(A * (1.0 + gamma + 4 * u), math.inf)
        lower = np.nextafter(A * (1.0 - gamma - 4 * u), 0.0)
    return np.where(A > 0, upper, 0.0), np.where(A > 0, lower, 0.0)


def epsilon_wldp(m: Any) -> float:
    r"""Walley LDP (Li et al. 2022, Def. 3.13 and Lemma 3.14):

    .. math:: r_W = \max_{x, x', E} \frac{pl_x(E)}{bel_{x'}(E)}, \quad \varepsilon_W = \ln r_W,

    with ``x = x'`` included, so ``eps_W > 0`` as soon as a row puts mass on a non-singleton
    message. Events with ``pl = 0`` everywhere are ignored. Enumerates the 2^m events (at
    most 16 outputs), except for a Bayesian mechanism (any number of outputs): there
    ``pl = bel = P`` and ``eps_W`` is its LDP epsilon over the outputs.

    An upper bound on the exact value, at most 8 ulps above it, except for a non-Bayesian
    mechanism above :data:`EXACT_EVENT_WORK` (float pl/bel tables, widened: about
    ``(4 m + 16) 2^-53`` above; see :func:`_event_epsilon`).
    """
    ev = as_evidential(m)
    if ev.is_bayesian:
        Q = ev.as_bayesian_mechanism().matrix
        return worst_log_ratio(Q, Q).epsilon
    return _event_epsilon(ev, "pl", "bel")


DELETION_LP_MAX_EPSILON = 30.0
"""Largest epsilon the deletion-delta LP is built at (coefficients up to e^30 ~ 1e13: HiGHS
rejects matrix values from 1e15 and drops those below 1e-9). Above it the LP runs at this
epsilon: its reference and weights stay valid certificates at the true one (the hockey-stick
divergence decreases in e)."""

DELETION_LP_TOLERANCE = 1e-10
"""Primal and dual feasibility tolerance of the deletion-delta LP."""

_DELETION_LP_ATTEMPTS = ((DELETION_LP_TOLERANCE, DELETION_LP_MAX_EPSILON),
                         (1e-7, DELETION_LP_MAX_EPSILON),
                         (DELETION_LP_TOLERANCE, 20.0))
# (tolerance, epsilon cap) tried in turn: HiGHS gives up on some matrices with entries near
# 1e-13 against coefficients e^30 at the tight tolerance (fuzz seed 30112); a looser
# tolerance or a smaller cap (coefficients e^20) solves them. Any reference is a valid
# upper bound once its delta is evaluated directly, and the duals at a smaller e are valid
# lower-bound weights at a larger one (the hockey-stick divergence decreases in e).


@value_view
@dataclass(frozen=True)
class DeletionLP:
    """The float optimum of the minimum-delta LP at ``e`` = e^min(eps,
    :data:`DELETION_LP_MAX_EPSILON`): reference r and the dual weights of its rows."""

    e: float                # the ratio the LP was built at
    r: np.ndarray           # (n,) reference distribution (clipped at 0, sums to 1)
    alpha: np.ndarray       # (k, n) weights of up[x, y] >= Q[x, y] - e r_y
    beta: np.ndarray        # (k, n) weights of down[x, y] >= r_y - e Q[x, y]
    lam_up: np.ndarray      # (k,) weights of sum_y up[x, y] <= delta
    lam_down: np.ndarray    # (k,) weights of sum_y down[x, y] <= delta


def deletion_lp(Q: np.ndarray, epsilon: float) -> DeletionLP | None:
    r"""Minimise delta over the reference r: ``up >= Q - e r``, ``down >= r - e Q``,
    ``sum_y up[x] <= delta``, ``sum_y down[x] <= delta``, ``sum r = 1`` (scipy's HiGHS at
    :data:`DELETION_LP_TOLERANCE`; if HiGHS gives up, which it occasionally does at that
    tolerance though the LP is always feasible and bounded, at 1e-7, then with the epsilon
    capped at 20). None when no attempt finishes."""
    for tolerance, cap in _DELETION_LP_ATTEMPTS:
        lp = _deletion_lp_at(Q, math.exp(min(epsilon, cap)), tolerance)
        if lp is not None:
            return lp
    return None


def _deletion_lp_at(Q: np.ndarray, e: float, tolerance: float) -> DeletionLP | None:
    """One attempt of :func:`deletion_lp`: the LP at ratio ``e`` and feasibility
    ``tolerance``; None unless HiGHS reports optimal."""
    k, n = Q.shape
    from scipy.optimize import linprog  # loaded on first use (slow import: benchmarks/README.md)
    from scipy.sparse import coo_matrix, csr_matrix, hstack, identity, vstack

    I_kn = identity(k * n, format="csr")
    R = csr_matrix(np.tile(np.eye(n), (k, 1)))  # (k n, n): row (x, y) picks r_y
    z1 = csr_matrix((k * n, 1))
    zkn = csr_matrix((k * n, k * n))
    S = csr_matrix(np.kron(np.eye(k), np.ones((1, n))))
    neg1 = csr_matrix(-np.ones((k, 1)))
    zk, zs = csr_matrix((k, n)), csr_matrix((k, k * n))
    # variables r (n), delta (1), up (k n), down (k n):
    # -e r - up <= -Q ; r - down <= e Q ; sum_y up[x] - delta <= 0 ; same for down
    A_ub = vstack([hstack([-e * R, z1, -I_kn, zkn]), hstack([R, z1, zkn, -I_kn]),
                   hstack([zk, neg1, S, zs]), hstack([zk, neg1, zs, S])]).tocsr()
    b_ub = np.concatenate([-Q.ravel(), e * Q.ravel(), np.zeros(2 * k)])
    A_eq = coo_matrix((np.ones(n), (np.zeros(n, dtype=int), np.arange(n))),
                      shape=(1, n + 1 + 2 * k * n))
    c = np.zeros(n + 1 + 2 * k * n)
    c[n] = 1.0
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=(0, None),
                  method="highs", options={"primal_feasibility_tolerance": tolerance,
                                           "dual_feasibility_tolerance": tolerance})
    if res.status != 0:
        return None
    r = np.maximum(res.x[:n], 0.0)
    w = np.clip(-np.asarray(res.ineqlin.marginals), 0.0, None)  # <= rows: marginals <= 0
    kn = k * n
    return DeletionLP(e, r / r.sum(), w[:kn].reshape(k, n), w[kn:2 * kn].reshape(k, n),
                      w[2 * kn:2 * kn + k], w[2 * kn + k:])


def deletion_delta_at(Q: np.ndarray, r: np.ndarray, epsilon: float) -> float:
    r"""An upper bound on ``max_x max(H_{e^eps}(Q_x || r*), H_{e^eps}(r* || Q_x))``, the
    deletion delta of the rows of ``Q`` against the distribution ``r* = r / sum(r)`` (no
    validation).

    A stored ``r`` need not sum to exactly 1. With ``s = sum(r)`` (``math.fsum``, within half
    an ulp), ``r*`` lies entrywise between ``r_lo = r (1 - 4u) / s`` and ``r_hi = r (1 + 4u) /
    s``; the first divergence decreases in its reference and the second increases, so they
    are bounded at ``r_lo`` and ``r_hi`` (both :func:`hockey_stick`, itself an upper bound).
    """
    s = math.fsum(r)
    u = 2.0 ** -53
    r_lo, r_hi = (r, r) if s == 1.0 else (r * ((1 - 4 * u) / s), r * ((1 + 4 * u) / s))
    up = hockey_stick(Q, r_lo[None, :], epsilon)
    down = hockey_stick(np.broadcast_to(r_hi, Q.shape), Q, epsilon)
    return float(max(up.max(), down.max()))


def delta_deletion(m: Any, epsilon: float) -> float:
    r"""Smallest delta with (eps, delta)-deletion LDP (Huang & Canonne, Def. 2.3):

    .. math:: \delta = \min_{r \in \Delta(Y)} \max_x \max\big(H_{e^\varepsilon}(Q_x \| r),
              \ H_{e^\varepsilon}(r \| Q_x)\big)

    (the worst events S of the definition are the hockey-stick sets). The reference r is
    found by an LP (:func:`deletion_lp`), and the value returned is the delta of that r, or
    of the column means when smaller, evaluated directly (:func:`deletion_delta_at`): an
    upper bound on the minimum, never the LP's own optimum, which can sit below the truth
    by its tolerance. The sums are in floats (``n`` roundings of terms at most 1).
    """
    eps = check_epsilon(epsilon)
    Q = as_mechanism(m).matrix
    at_means = deletion_delta_at(Q, Q.mean(axis=0), eps)
    if at_means == 0.0:  # the minimum: no LP needed
        return 0.0
    lp = deletion_lp(Q, eps)
    if lp is None:  # pragma: no cover (every attempt of deletion_lp failed)
        raise MechdesignError(f"deletion-delta LP failed at epsilon = {eps!r}")
    return min(deletion_delta_at(Q, lp.r, eps), at_means)
