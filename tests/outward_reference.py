"""Independent 50-digit references for every public epsilon / delta of mechdesign.

Each function below is written from a definition (the reference sheet
``/work/shared/reference/composition_and_lemmas.md``, ``belief_ldp.md`` or the docstring of
the library function, cited next to it), never from the library's code, and reads its float
inputs EXACTLY: ``mpf(float)`` is the double's exact value, so a reference is the exact value
for the stored inputs up to 50 significant digits (one final rounding of each elementary
operation at 50 digits, far below any double's ulp). Nothing here imports mechdesign.

Arithmetic is in a private mpmath context (``MP``, 50 digits) so that importing this module
does not change the precision of other tests that use the global ``mpmath.mp``.

Conventions: matrices are row-stochastic with inputs as rows (``Q[x, y] = P(y | x)``);
``ratio c / 0 = inf`` for ``c > 0`` and ``0 / 0`` is ignored; deltas are capped at 1 only
where the definition says so (the hockey-stick divergence of two distributions is at most 1,
and (eps, 1)-DP always holds).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from mpmath.ctx_mp import MPContext

MP = MPContext()
MP.dps = 50
INF = MP.inf
ZERO = MP.mpf(0)
ONE = MP.mpf(1)


def F(x: Any) -> Any:
    """The exact value of a double (``inf`` stays ``inf``)."""
    x = float(x)
    return INF if x == math.inf else MP.mpf(x)


def rows(Q: Any) -> list[list[Any]]:
    """The stored matrix, entry by entry, exactly."""
    return [[F(v) for v in r] for r in np.atleast_2d(np.asarray(Q, dtype=float))]


def normalised_rows(Q: Any) -> list[list[Any]]:
    """The stored rows, each divided by its exact sum (the distributions a trade-off curve
    describes: ``tradeoff_function`` docstring), to 50 digits."""
    return [[v / MP.fsum(r) for v in r] for r in rows(Q)]


def epsilon_of_rows(R: Sequence[Sequence[Any]], pairs: Iterable | None = None) -> Any:
    """``max_{x, x', y} ln(R[x][y] / R[x'][y])`` of rows given as mpf values (0/0 ignored,
    c/0 = inf), over all ordered pairs or the pairs of a relation in both orders."""
    best = ZERO
    for x, xp in _pairs(len(R), pairs):
        for a, b in zip(R[x], R[xp], strict=True):
            v = log_ratio(a, b)
            if v is not None and v > best:
                best = v
    return best


def exp_eps(eps: Any) -> Any:
    """``e^eps`` of a float eps, exactly to 50 digits (``inf`` for ``eps = inf``)."""
    e = F(eps)
    return INF if e == INF else MP.exp(e)


def all_ordered_pairs(n: int) -> list[tuple[int, int]]:
    return [(x, xp) for x in range(n) for xp in range(n) if x != xp]


def _pairs(n: int, pairs: Iterable | None) -> list[tuple[int, int]]:
    if pairs is None:
        return all_ordered_pairs(n)
    out = []
    for a, b in pairs:  # a relation: both orders (Huang & Canonne Def 2.1 with x ~ x')
        out += [(int(a), int(b)), (int(b), int(a))]
    return out


# =========================================================================== pure LDP
def log_ratio(a: Any, b: Any) -> Any:
    """``ln(a / b)`` with ``c / 0 = inf``; ``a = 0`` gives None (0/0 and 0/c are ignored)."""
    if a == 0:
        return None
    if b == 0:
        return INF
    return MP.log(a / b)


def epsilon_ldp(Q: Any, pairs: Iterable | None = None) -> Any:
    """Pure LDP: ``max_{x, x', y} ln(Q[x, y] / Q[x', y])``, 0/0 ignored, c/0 = inf
    (composition_and_lemmas.md s.1 "Pure"); 0 for a single row. Over all ordered pairs, or the
    pairs of a relation in both orders (``epsilon_ldp`` docstring)."""
    return epsilon_of_rows(rows(Q), pairs)


def pairwise_log_ratios(Q: Any) -> list[list[Any]]:
    """``R[x, x'] = max_y ln(Q[x, y] / Q[x', y])`` (0/0 ignored, c/0 = inf, diagonal 0;
    ``pairwise_log_ratios`` docstring); ``-inf`` when row x is all zero (cannot happen for a
    distribution)."""
    R = rows(Q)
    out = [[ZERO] * len(R) for _ in R]
    for x, xp in all_ordered_pairs(len(R)):
        vals = [v for a, b in zip(R[x], R[xp], strict=True)
                if (v := log_ratio(a, b)) is not None]
        out[x][xp] = max(vals) if vals else -INF
    return out


def epsilon_metric(Q: Any, D: Any) -> Any:
    """d-privacy (Chatzikokolakis et al. 2013; ``epsilon_metric`` docstring):
    ``max over x != x' with 0 < d < inf of max_y ln(Q[x,y]/Q[x',y]) / d(x, x')``; a pair at
    distance 0 with a positive ratio gives inf."""
    R = pairwise_log_ratios(Q)
    Dm = rows(D)
    best = ZERO
    for x, xp in all_ordered_pairs(len(R)):
        d, r = Dm[x][xp], R[x][xp]
        if d == 0:
            if r > 0:
                return INF
            continue
        if d == INF:
            continue
        best = max(best, r / d)
    return best


def epsilon_deletion(Q: Any) -> Any:
    """Pure deletion LDP (Huang & Canonne Def 2.3 with delta = 0; ``epsilon_deletion``
    docstring). A reference r needs ``e^-eps M_y <= r_y <= e^eps m_y`` for every column
    (``M_y``, ``m_y`` the column max and min) and ``sum r = 1``: the column intervals are
    non-empty iff ``e^{2 eps} >= M_y / m_y`` (i.e. ``eps >= eps_LDP / 2``), and some point of
    their product sums to 1 iff ``e^-eps sum M <= 1 <= e^eps sum m``. Hence
    ``max(eps_LDP / 2, ln sum_y M_y, -ln sum_y m_y, 0)`` (inf if some ``m_y = 0 < M_y``)."""
    R = rows(Q)
    cols = list(zip(*R, strict=True))
    hi = [max(c) for c in cols]
    lo = [min(c) for c in cols]
    if any(m == 0 < M for M, m in zip(hi, lo, strict=True)):
        return INF
    return max(epsilon_ldp(Q) / 2, MP.log(MP.fsum(hi)), -MP.log(MP.fsum(lo)), ZERO)


# =========================================================================== hockey-stick
def hockey_stick(P: Sequence[Any], Pp: Sequence[Any], eps: Any) -> Any:
    """``H_{e^eps}(P || P') = sum_y max(0, P[y] - e^eps P'[y])`` (composition_and_lemmas.md
    s.1 "Approximate"); a term with ``P'[y] = 0`` is ``P[y]`` (also at eps = inf). Exact sum
    of the exact terms; inputs may be mpf or floats."""
    e = exp_eps(eps)
    total = ZERO
    for p, q in zip(P, Pp, strict=True):
        p, q = MP.mpf(p), MP.mpf(q)
        if q == 0:
            total += p
        elif e != INF and p > e * q:
            total += p - e * q
    return total


def delta_ldp(Q: Any, eps: float, pairs: Iterable | None = None) -> Any:
    """``max over ordered pairs x != x' of H_{e^eps}(Q[x] || Q[x'])`` (Huang & Canonne
    Defs 2.1-2.2), capped at 1 (the divergence of two distributions is at most 1; a stored
    row may sum to 1 + 1e-10, and a delta of 1 holds for every mechanism)."""
    R = rows(Q)
    best = max((hockey_stick(R[x], R[xp], eps) for x, xp in _pairs(len(R), pairs)),
               default=ZERO)
    return min(best, ONE)


def delta_deletion_at(Q: Any, r: Any, eps: float) -> Any:
    """Deletion delta at a given reference R0 (Huang & Canonne Def 2.3; ``delta_deletion_at``
    docstring): ``max_x max(H_{e^eps}(Q_x || R0), H_{e^eps}(R0 || Q_x))``, capped at 1."""
    R, r0 = rows(Q), [F(v) for v in r]
    best = max(max(hockey_stick(row, r0, eps), hockey_stick(r0, row, eps)) for row in R)
    return min(best, ONE)


# =========================================================================== belief functions
def event_tables(masses: Any, focal_masks: Sequence[int], n_outputs: int
                 ) -> tuple[list[list[Any]], list[list[Any]]]:
    """``(pl, bel)`` over the non-empty events E (bitmasks 1 .. 2^m - 1), per input:
    ``bel_x(E) = sum_{B subset E} m_x(B)``, ``pl_x(E) = sum_{B meets E} m_x(B)``
    (belief_ldp.md s.1), exact sums of the stored masses."""
    M = rows(masses)
    pl, bel = [], []
    for row in M:
        pl.append([MP.fsum(mv for mv, b in zip(row, focal_masks, strict=True) if b & E)
                   for E in range(1, 1 << n_outputs)])
        bel.append([MP.fsum(mv for mv, b in zip(row, focal_masks, strict=True) if b & ~E == 0)
                    for E in range(1, 1 << n_outputs)])
    return pl, bel


def _max_ratio(A: list[list[Any]], B: list[list[Any]], same: bool) -> Any:
    """``max_{x, x', E} ln(A_x(E) / B_x'(E))`` with x = x' included when ``same`` (0/0
    ignored, c/0 = inf), at least 0."""
    best = ZERO
    for x in range(len(A)):
        for xp in range(len(B)):
            if x == xp and not same:
                continue
            for a, b in zip(A[x], B[xp], strict=True):
                v = log_ratio(a, b)
                if v is not None and v > best:
                    best = v
    return best


def epsilon_sldp(masses: Any, focal_masks: Sequence[int], n_outputs: int,
                 kind: str = "mass") -> Any:
    """Shafer LDP (belief_ldp.md s.2 items 1-2, Li et al. 2022 Def 3.1): the largest log ratio
    of masses over the focal sets (``mass``), or of plausibilities / beliefs over all
    non-empty events (``pl`` / ``bel``), over ordered pairs of inputs."""
    if kind == "mass":
        return epsilon_ldp(masses)
    pl, bel = event_tables(masses, focal_masks, n_outputs)
    A = pl if kind == "pl" else bel
    return _max_ratio(A, A, True)  # x = x' gives ln 1 = 0: harmless


def epsilon_wldp(masses: Any, focal_masks: Sequence[int], n_outputs: int) -> Any:
    """Walley LDP (belief_ldp.md s.2 item 3, Li et al. 2022 Lemma 3.14):
    ``ln max_{x, x', E} pl_x(E) / bel_x'(E)`` INCLUDING x = x'."""
    pl, bel = event_tables(masses, focal_masks, n_outputs)
    return _max_ratio(pl, bel, True)


# =========================================================================== privacy-loss atoms
class Atoms:
    """A pair of finite (sub-)distributions as its output atoms ``(p, q)``, exactly.

    The composition of independent uses multiplies masses (outputs are tuples). ``delta``
    and ``epsilon`` are the hockey-stick profile and its inverse (composition_and_lemmas.md
    s.1-s.2)."""

    def __init__(self, pairs: list[tuple[Any, Any]]) -> None:
        self.pairs = [(p, q) for p, q in pairs if p != 0 or q != 0]

    @classmethod
    def of_rows(cls, P: Any, Pp: Any) -> Atoms:
        return cls([(F(p), F(q)) for p, q in zip(P, Pp, strict=True)])

    def power(self, k: int) -> Atoms:
        """k independent uses, by count vectors of the outputs with multinomial weights:
        ``P(c) = k! / prod c_i! prod p_i^{c_i}`` (and the same for q). Outputs with equal
        ``(p, q)`` are merged first (exactly: same masses)."""
        merged: dict[tuple[Any, Any], int] = {}
        for pq in self.pairs:
            merged[pq] = merged.get(pq, 0) + 1
        base = [(p * n, q * n) for (p, q), n in merged.items()]  # n equal outputs: one atom
        out = []
        for c in _count_vectors(k, len(base)):
            coef = MP.mpf(math.factorial(k))
            for ci in c:
                coef /= math.factorial(ci)
            p = coef * MP.fprod(b[0] ** ci for b, ci in zip(base, c, strict=True))
            q = coef * MP.fprod(b[1] ** ci for b, ci in zip(base, c, strict=True))
            out.append((p, q))
        return Atoms(out)

    def times(self, other: Atoms) -> Atoms:
        """Independent product: every pair of outputs, masses multiplied."""
        return Atoms([(a * c, b * d) for a, b in self.pairs for c, d in other.pairs])

    def delta(self, eps: Any) -> Any:
        """``sum over atoms of max(0, p - e^eps q)`` (q = 0 counts p), eps a float or mpf."""
        e = INF if eps == INF or eps == math.inf else MP.exp(MP.mpf(eps))
        total = ZERO
        for p, q in self.pairs:
            if q == 0:
                total += p
            elif e != INF and p > e * q:
                total += p - e * q
        return total

    def max_loss(self) -> Any:
        """The largest finite loss ``ln(p / q)`` of an atom with ``p > 0`` (None if none)."""
        vals = [MP.log(p / q) for p, q in self.pairs if p > 0 and q > 0]
        return max(vals) if vals else None

    def epsilon(self, target: Any) -> Any:
        """Smallest ``eps >= 0`` with ``delta(eps) <= target`` (inf if none), by bisection on
        the exact step function to 40 digits. The lower end of the final bracket is returned:
        a library value below it is certainly below the exact value."""
        t = MP.mpf(target)
        if self.delta(ZERO) <= t:
            return ZERO
        if self.delta(INF) > t:
            return INF
        top = self.max_loss()
        assert top is not None and top > 0
        if t == 0:
            return top  # delta > 0 below the largest loss, 0 at it
        lo, hi = ZERO, top  # delta(lo) > t >= delta(hi)
        while hi - lo > hi * MP.mpf(10) ** -42:
            mid = (lo + hi) / 2
            if self.delta(mid) > t:
                lo = mid
            else:
                hi = mid
        return lo


def _count_vectors(k: int, m: int) -> Iterable[tuple[int, ...]]:
    if m == 1:
        yield (k,)
        return
    for c in range(k + 1):
        for rest in _count_vectors(k - c, m - 1):
            yield (c, *rest)


def composed_atoms(groups: Sequence[tuple[Any, int]], x: int, xp: int) -> Atoms:
    """The pair ``(x, x')`` of the composition of the matrices in ``groups`` (``(Q, uses)``),
    every mechanism seeing the same input (composition_and_lemmas.md s.2 "EXACT")."""
    out = Atoms([(ONE, ONE)])
    for Q, uses in groups:
        R = rows(Q)
        out = out.times(Atoms.of_rows(R[x], R[xp]).power(uses))
    return out


def delta_composed(groups: Sequence[tuple[Any, int]], eps: float,
                   pairs: Iterable | None = None) -> Any:
    """Exact delta of a composition at eps: the max over ordered input pairs of the
    hockey-stick of the product distributions (composition_and_lemmas.md s.2), capped at 1."""
    n = len(rows(groups[0][0]))
    return min(ONE, max(composed_atoms(groups, x, xp).delta(F(eps))
                        for x, xp in _ordered(n, pairs)))


def epsilon_composed(groups: Sequence[tuple[Any, int]], delta: float,
                     pairs: Iterable | None = None) -> Any:
    """Exact smallest eps of a composition at delta: the max over ordered pairs of each
    pair's inverse (delta(eps) is the max of the pairs' profiles, all non-increasing)."""
    n = len(rows(groups[0][0]))
    return max(composed_atoms(groups, x, xp).epsilon(F(delta)) for x, xp in _ordered(n, pairs))


def _ordered(n: int, pairs: Iterable | None) -> list[tuple[int, int]]:
    return all_ordered_pairs(n) if pairs is None else [(int(a), int(b)) for a, b in pairs]


# =========================================================================== closed forms
def basic_composition(epsilons: Sequence[float], deltas: Sequence[float]) -> tuple[Any, Any]:
    """Basic composition (Dwork et al. 2006; composition_and_lemmas.md s.2):
    ``(sum eps_i, min(1, sum delta_i))``, exact sums."""
    return MP.fsum(F(e) for e in epsilons), min(ONE, MP.fsum(F(d) for d in deltas))


def advanced_composition(eps: float, delta: float, k: int, dp: float) -> tuple[Any, Any]:
    """Dwork-Rothblum-Vadhan (composition_and_lemmas.md s.2 "Advanced"):
    ``eps' = sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1)``, total ``min(1, k delta + delta')``."""
    e = F(eps)
    val = MP.sqrt(2 * k * MP.log(1 / F(dp))) * e + k * e * MP.expm1(e)
    return val, min(ONE, k * F(delta) + F(dp))


def advanced_composition_delta(eps: float, k: int, total: float) -> Any:
    """The inverse of advanced composition in delta' (``advanced_composition_delta``
    docstring): 0 when ``total >= k eps`` (basic composition), 1 when ``total`` is at most
    the drift ``k eps (e^eps - 1)``, else ``min(1, exp(-(total - drift)^2 / (2 k eps^2)))``."""
    e, t = F(eps), F(total)
    if t >= k * e:
        return ZERO
    drift = k * e * MP.expm1(e)
    if t <= drift:
        return ONE
    return min(ONE, MP.exp(-((t - drift) / e) ** 2 / (2 * k)))


def grouposition(eps: float, k: int, dp: float) -> Any:
    """Advanced grouposition formula (Huang & Canonne Thm 4.1 / 4.2; BNS19):
    ``k eps^2 / 2 + eps sqrt(2k ln(1/delta'))``."""
    e = F(eps)
    return k * e * e / 2 + e * MP.sqrt(2 * k * MP.log(1 / F(dp)))


def kov_delta(eps: float, k: int, eps_total: float, delta: float = 0.0) -> Any:
    """Optimal homogeneous composition (Kairouz-Oh-Viswanath 2015, Thm 3.3, at every eps';
    composition_and_lemmas.md s.2): ``1 - (1 - delta)^k [1 - sum_l C(k, l) max(0,
    e^{(k-l) eps} - e^{eps'} e^{l eps}) / (1 + e^eps)^k]``, capped at 1. Each term is written
    ``e^{l eps + eps'} expm1((k - 2l) eps - eps')`` (its sign is then exact: an exact zero on
    the grid stays zero) and ``(1 - delta)^k`` as ``exp(k log1p(-delta))`` (1 - 1e-203 is 1
    at 50 digits)."""
    e, d = F(eps), F(delta)
    s = ZERO
    if F(eps_total) != INF:
        et = F(eps_total)
        for j in range(k + 1):
            gap = (k - 2 * j) * e - et
            if gap > 0:
                s += math.comb(k, j) * MP.exp(j * e + et) * MP.expm1(gap)
    frac = s / (1 + MP.exp(e)) ** k
    log_keep = k * MP.log1p(-d) if d < 1 else -INF
    return min(ONE, -MP.expm1(log_keep) + MP.exp(log_keep) * frac)


def mv_delta(epsilons: Sequence[float], eps_g: float, deltas: Sequence[float] | None = None
             ) -> Any:
    """Optimal heterogeneous composition (Murtagh-Vadhan 2018, Thm 1.5;
    composition_and_lemmas.md s.2): ``1 - prod(1 - delta_i) + prod(1 - delta_i) sum_S
    max(0, e^{sum_S eps_i} - e^{eps_g} e^{sum_{not S} eps_i}) / prod(1 + e^{eps_i})``.
    Subsets are enumerated by how many of each DISTINCT epsilon they hold (binomial counts):
    exact, and 2^50 subsets of two values cost 26^2 terms."""
    values: dict[float, int] = {}
    for v in epsilons:
        values[float(v)] = values.get(float(v), 0) + 1
    vals = list(values)
    eg = F(eps_g)
    total = MP.fsum(F(v) * n for v, n in values.items())
    s = ZERO
    if eg != INF:
        for js in itertools.product(*(range(values[v] + 1) for v in vals)):
            inside = MP.fsum(F(v) * j for v, j in zip(vals, js, strict=True))
            gap = 2 * inside - total - eg  # e^in - e^eg e^(total - in), sign exact
            if gap > 0:
                s += MP.fprod(math.comb(values[v], j) for v, j in zip(vals, js, strict=True)) \
                    * MP.exp(total - inside + eg) * MP.expm1(gap)
    norm = MP.fprod((1 + MP.exp(F(v))) ** n for v, n in values.items())
    log_keep = MP.fsum(MP.log1p(-F(d)) if F(d) < 1 else -INF for d in (deltas or []))
    return min(ONE, -MP.expm1(log_keep) + MP.exp(log_keep) * s / norm)


def invert_decreasing(f: Any, target: float, hi: Any) -> Any:
    """Smallest ``eps in [0, hi]`` with ``f(eps) <= target`` for a non-increasing f, by
    bisection to 40 digits (lower end of the bracket; 0 if ``f(0) <= target``)."""
    t = F(target)
    if f(ZERO) <= t:
        return ZERO
    lo, hi = ZERO, MP.mpf(hi)
    while hi - lo > hi * MP.mpf(10) ** -42:
        mid = (lo + hi) / 2
        if f(mid) > t:
            lo = mid
        else:
            hi = mid
    return lo


def subsampled(eps: float, delta: float, p: float) -> tuple[Any, Any]:
    """Amplification by subsampling (Huang & Canonne Thm 6.1; composition_and_lemmas.md s.4):
    ``(ln(1 + p (e^eps - 1)), p delta)``."""
    e, pp = F(eps), F(p)
    if e == INF:
        val = INF if pp > 0 else ZERO
    else:
        val = MP.log1p(pp * MP.expm1(e))
    return val, pp * F(delta)


def shuffle_to_ldp(eps: float, delta: float, n: int) -> tuple[Any, Any]:
    """Shuffle -> LDP (Huang & Canonne Thm 5.1; composition_and_lemmas.md s.4):
    ``(eps_S + ln n, delta_S)``."""
    return F(eps) + MP.log(n), F(delta)


def sequential_epsilon(e1: float, e2: float) -> Any:
    """Sequential composition (Huang & Canonne Cor 4.1; composition_and_lemmas.md s.2):
    ``ln((e^{e1 + e2} + 1) / (e^e1 + e^e2))``; an infinite stage leaves the other epsilon."""
    return sequential_epsilon_exact(F(e1), F(e2))


def sequential_epsilon_exact(a: Any, b: Any) -> Any:
    """:func:`sequential_epsilon` of mpf arguments, by the identity
    ``e^{a+b} + 1 - e^a - e^b = (e^a - 1)(e^b - 1)``: ``log1p(expm1(a) expm1(b) / (e^a +
    e^b))`` (no cancellation: ``a + b`` at 50 digits would lose a ``b`` of 1e-47)."""
    if a == INF or b == INF:
        return min(a, b)
    return MP.log1p(MP.expm1(a) * MP.expm1(b) / (MP.exp(a) + MP.exp(b)))


def matmul(A: Any, B: Any) -> list[list[Any]]:
    """The exact product of two stored matrices (``R2 o R1`` has matrix ``Q1 @ Q2``)."""
    Ra, Rb = rows(A), rows(B)
    return [[MP.fsum(a * Rb[j][c] for j, a in enumerate(r)) for c in range(len(Rb[0]))]
            for r in Ra]


def epsilon_ldp_exact(R: list[list[Any]]) -> Any:
    """:func:`epsilon_ldp` of a matrix already in mpf (e.g. an exact product)."""
    best = ZERO
    for x, xp in all_ordered_pairs(len(R)):
        for a, b in zip(R[x], R[xp], strict=True):
            v = log_ratio(a, b)
            if v is not None and v > best:
                best = v
    return best


def epsilon_deletion_exact(R: list[list[Any]]) -> Any:
    """:func:`epsilon_deletion` of a matrix already in mpf."""
    cols = list(zip(*R, strict=True))
    hi, lo = [max(c) for c in cols], [min(c) for c in cols]
    if any(m == 0 < M for M, m in zip(hi, lo, strict=True)):
        return INF
    return max(epsilon_ldp_exact(R) / 2, MP.log(MP.fsum(hi)), -MP.log(MP.fsum(lo)), ZERO)


def pure_to_approx(eps: float, delta: float) -> Any:
    """Lemma 3.1 (``pure_to_approx_epsilon`` docstring): ``max(eps - delta, 0)``."""
    return max(F(eps) - F(delta), ZERO)


def approx_to_pure(eps: float, delta: float, k: int, eta: float) -> Any:
    """Lemma 3.2 (composition_and_lemmas.md s.3): ``eps + ln(1 + k delta e^-eps / eta)``."""
    e = F(eps)
    return e + MP.log1p(k * F(delta) * MP.exp(-e) / F(eta))


def deletion_to_replacement(eps: float, delta: float) -> tuple[Any, Any]:
    """Lemma 4.2 (composition_and_lemmas.md s.3): ``(2 eps, min(1, (e^eps + 1) delta))``."""
    e, d = F(eps), F(delta)
    if d == 0:
        return 2 * e, ZERO
    return 2 * e, (ONE if e == INF else min(ONE, (MP.exp(e) + 1) * d))


def pure_protocol(eps: float, delta: float, n: int, T: int) -> tuple[Any, Any]:
    """Thm 4.3 (``approx_to_pure_protocol`` docstring): ``10 eps``-LDP and TV at most
    ``n ((1/2 + eps)^T + 6 T delta e^eps / (1 - e^-eps))``."""
    e, d = F(eps), F(delta)
    return 10 * e, n * ((MP.mpf(1) / 2 + e) ** T + 6 * T * d * MP.exp(e) / -MP.expm1(-e))


# =========================================================================== Renyi / zCDP
RENYI_DPS = 420
"""Digits of :func:`renyi_divergence`: its value is a difference of O(1) sums (second order
in the log ratios, first order in alpha near 0), as small as 1e-356 for rows of doubles that
differ (entries >= 5e-324), so 50 digits would leave 1e-50 of noise; 420 resolve it."""


def renyi_divergence(P: Any, Q: Any, alpha: float) -> Any:
    """``D_alpha(P || Q) = ln(sum_y P^alpha Q^(1 - alpha)) / (alpha - 1)`` over the support of
    P, with the limits ``D_1 = KL``, ``D_inf = max ln(P/Q)``, ``D_0 = -ln Q(supp P)``
    (Renyi 1961; van Erven & Harremoes 2014; ``renyi_divergence`` docstring). The stored rows
    are taken as distributions, normalised exactly (the library's documented convention:
    a stored row sums to 1 only within rounding). ``P > 0 = Q`` gives inf for alpha >= 1 and
    contributes 0 below 1; disjoint supports give inf.

    With ``w = P / sum P``, ``r = Q / sum Q`` and ``L = ln(w / r)`` on the support of P,
    ``sum w^a r^(1-a) - 1 = sum w expm1((a-1) L)`` (the w sum to 1) ``= sum r expm1(a L) -
    r_out`` (the r sum to 1 - r_out, ``r_out = r(outside supp P)``); the first form is used for
    ``a >= 1/2``, the second below (each free of the cancellation the other has), and
    ``K = log1p`` of it; ``KL = sum w L``; ``D_0 = -log1p(-r_out)``. At :data:`RENYI_DPS`
    digits, rounded to 50; identical rows give exactly 0."""
    sup, r_out = _renyi_terms(tuple(float(v) for v in P), tuple(float(v) for v in Q))
    with MP.workdps(RENYI_DPS):
        a = F(alpha)
        if a == 0:
            out = INF if r_out >= 1 else -MP.log1p(-r_out)
        elif a >= 1 and any(L is None for _, _, L in sup):
            out = INF
        elif a == INF:
            out = max(L for _, _, L in sup)
        elif a == 1:
            out = MP.fsum(w * L for w, _, L in sup)
        else:
            if a >= MP.mpf(1) / 2:
                inner = MP.fsum(w * (-ONE if L is None else MP.expm1((a - 1) * L))
                                for w, _, L in sup)
            else:  # q = 0 < p contributes 0 below alpha = 1
                inner = MP.fsum(r * MP.expm1(a * L) for _, r, L in sup if L is not None) \
                    - r_out
            out = INF if inner <= -1 else MP.log1p(inner) / (a - 1)
    return +out


@functools.lru_cache(maxsize=4096)
def _renyi_terms(P: tuple[float, ...], Q: tuple[float, ...]) -> tuple[tuple, Any]:
    """The order-free part of :func:`renyi_divergence` for the stored rows ``P``, ``Q``, at
    :data:`RENYI_DPS` digits: ``(w, r, L)`` over the support of P (``L`` None where
    ``Q = 0``) and ``r_out``. Cached: :func:`zcdp_rho_lower` evaluates each pair at 161
    orders (the same values as computing them at each order: mpf values are exact)."""
    with MP.workdps(RENYI_DPS):
        Pr, Qr = [F(v) for v in P], [F(v) for v in Q]
        sP, sQ = MP.fsum(Pr), MP.fsum(Qr)
        shift = MP.log(sQ / sP) if sQ != sP else ZERO
        sup = tuple((p / sP, q / sQ, None if q == 0 else MP.log(p / q) + shift)
                    for p, q in zip(Pr, Qr, strict=True) if p > 0)
        r_out = MP.fsum(q for p, q in zip(Pr, Qr, strict=True) if p == 0) / sQ
    return sup, r_out


def renyi_epsilon(Q: Any, alpha: float, pairs: Iterable | None = None) -> Any:
    """The RDP curve of a finite mechanism (Mironov 2017, Def 4): the max over ordered pairs
    of distinct rows of ``D_alpha``."""
    R = np.atleast_2d(np.asarray(Q, dtype=float))
    return max(renyi_divergence(R[x], R[xp], alpha) for x, xp in _ordered(len(R), pairs))


def zcdp_rho_lower(Q: Any, n_grid: int = 40) -> Any:
    """A LOWER bound on ``rho = sup_{alpha > 1} eps(alpha) / alpha`` (Bun & Steinke 2016):
    the largest of ``eps(1)`` (the limit alpha -> 1+, the KL divergence) and
    ``eps(alpha) / alpha`` on a grid of ``alpha = 1 + s``, s log-spaced on [1e-6, 1e4],
    refined by a golden-section search in ``ln s`` around the best grid point. Every value
    is attained (or a limit), so a reported rho below it is an under-report."""
    R = np.atleast_2d(np.asarray(Q, dtype=float))

    def g(t: Any) -> Any:
        a = 1 + MP.exp(t)
        return renyi_epsilon(R, a) / a

    best = renyi_epsilon(R, 1.0)
    ts = [MP.log(MP.mpf(10) ** (-6 + 10 * MP.mpf(i) / (n_grid - 1))) for i in range(n_grid)]
    vals = [g(t) for t in ts]
    i = max(range(n_grid), key=lambda j: vals[j])
    best = max(best, vals[i])
    lo, hi = ts[max(i - 1, 0)], ts[min(i + 1, n_grid - 1)]
    phi = (MP.sqrt(5) - 1) / 2
    for _ in range(60):
        c, d = hi - phi * (hi - lo), lo + phi * (hi - lo)
        gc, gd = g(c), g(d)
        best = max(best, gc, gd)
        if gc > gd:
            hi = d
        else:
            lo = c
    return best


def rdp_conversion(r: Any, alpha: Any, delta: float, conversion: str = "canonne") -> Any:
    """One order's (eps, delta) bound from RDP ``(alpha, r)`` (``rdp_to_dp`` docstring):
    Canonne-Kamath-Steinke 2020 Prop 12 ``r + ln((alpha - 1)/alpha) - (ln delta + ln alpha) /
    (alpha - 1)``, or Mironov 2017 Prop 3 ``r + ln(1/delta)/(alpha - 1)``; ``alpha = inf``
    gives ``r`` at every delta; ``delta = 0`` with finite alpha gives inf."""
    a, r, d = MP.mpf(alpha), MP.mpf(r), F(delta)
    if r == INF:
        return INF
    if a == INF:
        return r
    if d == 0:
        return INF
    if conversion == "mironov":
        return r - MP.log(d) / (a - 1)
    return r + MP.log((a - 1) / a) - (MP.log(d) + MP.log(a)) / (a - 1)


def rdp_to_dp(epsilons: Sequence[float], alphas: Sequence[float], delta: float,
              conversion: str = "canonne") -> Any:
    """The smallest conversion over the orders above 1, clipped at 0 (``rdp_to_dp``
    docstring); delta = 1 gives 0."""
    if F(delta) == 1:
        return ZERO
    vals = [rdp_conversion(F(r), F(a), delta, conversion)
            for r, a in zip(epsilons, alphas, strict=True) if F(a) > 1]
    return max(min(vals), ZERO)


# =========================================================================== shuffling
def clone_delta(eps0: float, n: int, eps: float) -> Any:
    """The Feldman-McMillan-Talwar 2021 clone bound (composition_and_lemmas.md s.4, numeric):
    ``E_C[H_{e^eps}(P_C || Q_C)]``, ``C ~ Bin(n - 1, e^-eps0)``, ``A ~ Bin(C, 1/2)``,
    ``P_C = alpha (A) + (1 - alpha)(A + 1)``, ``Q_C = alpha (A + 1) + (1 - alpha)(A)``,
    ``alpha = e^eps0 / (e^eps0 + 1)``; every count c is enumerated (small n)."""
    e0 = F(eps0)
    pc, qc = MP.exp(-e0), -MP.expm1(-e0)  # P(clone), 1 - P(clone) without cancellation
    E0, e = MP.exp(e0), exp_eps(eps)
    total = ZERO
    for c in range(n):
        w = math.comb(n - 1, c) * pc ** c * qc ** (n - 1 - c)

        def b(a: int, c: int = c) -> Any:
            return MP.mpf(math.comb(c, a)) / MP.mpf(2) ** c if 0 <= a <= c else ZERO

        # (E0 + 1)(P_c(a) - e^eps Q_c(a)) = (E0 - e) b(a) + (1 - e E0) b(a - 1): its sign is
        # exact (at eps = eps0 the first coefficient is exactly 0)
        h = ZERO
        for a in range(c + 2):
            if e == INF:
                continue
            t = (E0 - e) * b(a) + (1 - e * E0) * b(a - 1)
            if t > 0:
                h += t
        total += w * h / (E0 + 1)
    return total


# =========================================================================== trade-off curves
def delta_of_breakpoints(alphas: Sequence[float], powers: Sequence[float], eps: float) -> Any:
    """Dong-Roth-Su 2022 Prop 2.12 (``delta_from_tradeoff`` docstring): ``delta(eps) =
    max(0, max_j (1 - beta_j - e^eps alpha_j))`` with the curve's stored powers
    ``1 - beta_j`` (a term with alpha_j = 0 is the power)."""
    E = exp_eps(eps)
    best = ZERO
    for a, p in zip(alphas, powers, strict=True):
        best = max(best, F(p) - (E * F(a) if F(a) > 0 else ZERO))
    return best
