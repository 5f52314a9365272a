r"""Composition of finite mechanisms: exact through privacy-loss atoms, bracketed on a grid.

For a pair of rows ``P = Q[x]``, ``P' = Q[x']`` the privacy loss ``L = ln(P[y] / P'[y])``
(``y ~ P``) takes finitely many values, its *atoms*; ``P[y] > 0 = P'[y]`` is the atom
``+inf``. The hockey-stick divergence is a function of the atoms alone,

.. math:: \delta(\varepsilon) = H_{e^\varepsilon}(P \| P')
          = P(L = \infty) + \sum_{\ell > \varepsilon} P(L = \ell)\,(1 - e^{\varepsilon - \ell}),

and composition adds independent losses, so the k-fold (or heterogeneous) composition of
finite mechanisms is a convolution of atoms: a multinomial sum, evaluated here in log space
(``docs/accounting.md`` s.2). The delta of a composition is the maximum over
ordered input pairs ``(x, x')``, the same pair in every mechanism (every mechanism sees the
same input). When the composed atoms are too many the atoms are rounded to a grid, up
(pessimistic) and down (optimistic), and both results are reported as a bracket.

Also here: the closed-form composition bounds (basic, Dwork-Rothblum-Vadhan advanced,
Kairouz-Oh-Viswanath optimal homogeneous at every epsilon, Murtagh-Vadhan optimal
heterogeneous).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy.optimize import brentq
from scipy.signal import fftconvolve
from scipy.special import gammaln, logsumexp

from .._algebra import power_by_squaring
from .._validation import check_delta, check_epsilon, check_int, check_probability, check_real
from ..errors import InvalidMechanismError, InvalidParameterError, SizeLimitError
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism

MERGE_RTOL = 1e-12
"""Composed losses closer than ``MERGE_RTOL * scale`` are merged into one atom (at the largest
of them, so merging only rounds losses up). The displacement actually incurred is tracked:
exact results are brackets whose ends differ by that displacement in the losses (around
1e-15)."""

MAX_ATOMS = 2_000_000
"""Largest number of distinct atoms of one composed privacy-loss distribution on the exact
path; above it ``method="auto"`` falls back to the grid and ``method="exact"`` raises."""

MAX_TERMS = 4_000_000
"""Largest multinomial enumeration (count vectors) done in one step."""

DEFAULT_GRID = 1e-4
"""Default grid step (in units of loss) of the fallback."""

MAX_GRID_BINS = 1 << 21
"""Largest grid (bins of the composed loss range); a finer requested step is coarsened."""

SNAP_TOL = 1e-9
"""A loss within ``SNAP_TOL`` grid steps of a grid point is snapped to it before rounding
(otherwise 0.1 / 1e-4 = 1000.0000000000001 moves up one step per composition). The shift this
causes is added to the reported bracket."""

MAX_COMPOSED_BINS = 4 * MAX_GRID_BINS
"""Largest composed grid (bins) the fallback allocates. Coarsening keeps the loss range
within :data:`MAX_GRID_BINS` bins, but rounding can add a bin per use, so a huge k (10^12)
would need ~k bins: refused with a :class:`SizeLimitError` before allocating."""

MAX_SUBSETS_K = 20
"""Murtagh-Vadhan by enumeration of the 2^k subsets: k <= 20."""

_UNIT = 2.0 ** -52


class _TooManyAtoms(Exception):
    """Internal: the exact path would exceed its size limits."""


def _logsumexp(x: np.ndarray) -> float:
    """``ln sum exp(x)`` for a non-empty 1-D array (scipy's has ~200 us of overhead)."""
    top = float(x.max())
    if not math.isfinite(top):
        return top
    return top + math.log(float(np.exp(x - top).sum()))


# --------------------------------------------------------------------------- atoms
@dataclass(frozen=True, eq=False)
class LossAtoms:
    r"""The privacy-loss distribution of a pair ``(P, P')`` with finitely many atoms.

    Attributes
    ----------
    losses : ndarray
        The finite losses ``l_i``, strictly increasing.
    log_masses : ndarray
        ``ln P(L = l_i)``.
    log_keep : float
        ``ln P(L < inf)`` (``0`` when no output has ``P' = 0 < P``).
    shift : float
        An upper bound on how far losses were moved up when nearly equal atoms were merged;
        the true hockey-stick lies in ``[delta(eps + shift), delta(eps)]`` and the true
        ``eps(delta)`` in ``[eps(delta) - shift, eps(delta)]``.
    """

    losses: np.ndarray
    log_masses: np.ndarray
    log_keep: float = 0.0
    shift: float = 0.0

    @property
    def mass_inf(self) -> float:
        """``P(L = inf)``, the delta at every epsilon."""
        return float(-math.expm1(self.log_keep))

    @property
    def n_atoms(self) -> int:
        return int(self.losses.size)

    def key(self) -> tuple:
        """Equal keys mean identical distributions (so identical composed results)."""
        return (self.losses.tobytes(), self.log_masses.tobytes(), self.log_keep, self.shift)

    def delta(self, epsilon: Any) -> Any:
        r"""Exact hockey-stick divergence at ``epsilon`` (a float or an array):

        .. math:: \delta(\varepsilon) = P(L = \infty) + \sum_{l_i > \varepsilon}
                  e^{\ln m_i + \ln(1 - e^{\varepsilon - l_i})}

        summed in log space (``logsumexp``), so tiny deltas keep their relative precision.
        """
        eps = np.asarray(epsilon, dtype=float)
        flat = np.atleast_1d(eps).ravel()
        out = np.empty(flat.size)
        inf_mass = self.mass_inf
        for i, e in enumerate(flat):
            out[i] = inf_mass + self._finite_delta(float(e))
        return float(out[0]) if eps.ndim == 0 else out.reshape(eps.shape)

    def _finite_delta(self, eps: float, start: int | None = None) -> float:
        if start is None:
            start = int(np.searchsorted(self.losses, eps, side="right"))
        if start >= self.losses.size or math.isinf(eps):
            return 0.0
        L = self.losses[start:]
        terms = self.log_masses[start:] + np.log(-np.expm1(eps - L))
        return math.exp(_logsumexp(terms))

    def epsilon(self, delta: float) -> float:
        r"""Smallest ``eps >= 0`` with ``delta(eps) <= delta`` (``inf`` if none).

        ``delta(eps)`` is continuous and strictly decreasing up to the largest loss; between two
        consecutive losses the set of active atoms is fixed. A bisection over the atoms finds
        that piece (the step function of the active set), then a root-finder solves the exact
        log-space expression on it (Brent, to about 1e-15 relative).
        """
        target = check_delta(delta)
        inf_mass = self.mass_inf
        if inf_mass > target:
            return math.inf
        if self.delta(0.0) <= target:
            return 0.0
        pos = self.losses[self.losses > 0]
        if target == 0.0 or pos.size == 0:
            return float(pos[-1]) if pos.size else 0.0
        nodes = np.concatenate(([0.0], pos))
        lo, hi = 0, nodes.size - 1  # delta(nodes[lo]) > target >= delta(nodes[hi])
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if inf_mass + self._finite_delta(float(nodes[mid])) > target:
                lo = mid
            else:
                hi = mid
        a, b = float(nodes[lo]), float(nodes[hi])
        start = int(np.searchsorted(self.losses, a, side="right"))
        t = target - inf_mass  # > 0 here: delta(L_max) = inf_mass and target > inf_mass

        def g(e: float) -> float:
            return self._finite_delta(e, start if e < b else None) - t

        if t <= 0 or g(b) >= 0:
            return b
        return float(brentq(g, a, b, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=200))


def _merge(L: np.ndarray, logm: np.ndarray, scale: float, log_keep: float,
           shift: float) -> LossAtoms:
    """Sort atoms, merge losses closer than ``MERGE_RTOL * scale`` (to the largest), drop 0s."""
    live = np.isfinite(logm)
    L, logm = L[live], logm[live]
    if L.size == 0:
        return LossAtoms(np.empty(0), np.empty(0), log_keep, shift)
    order = np.argsort(L, kind="stable")
    L, logm = L[order], logm[order]
    tol = MERGE_RTOL * max(scale, 1.0)
    starts = np.concatenate(([0], np.flatnonzero(np.diff(L) > tol) + 1))
    if starts.size == L.size:
        return LossAtoms(L, logm, log_keep, shift)
    ends = np.concatenate((starts[1:], [L.size])) - 1
    rep = L[ends]
    moved = float(np.max(rep - L[starts]))
    peak = np.maximum.reduceat(logm, starts)
    summed = np.add.reduceat(np.exp(logm - np.repeat(peak, np.diff(np.append(starts, L.size)))),
                             starts)
    return LossAtoms(rep, peak + np.log(summed), log_keep, shift + moved)


def privacy_loss_atoms(P: Any, P_prime: Any) -> LossAtoms:
    r"""The privacy-loss atoms of the pair ``(P, P')``: ``L_y = ln P[y] - ln P'[y]`` with mass
    ``P[y]`` (outputs with ``P[y] = 0`` carry no mass; ``P'[y] = 0 < P[y]`` is the atom
    ``+inf``). Equal losses are merged (Huang & Canonne Def 2.2 via the hockey-stick identity
    ``H_{e^eps}(P||P') = E_P[(1 - e^{eps - L})_+]``).
    """
    p = np.asarray(P, dtype=float)
    q = np.asarray(P_prime, dtype=float)
    if p.ndim != 1 or p.shape != q.shape:
        raise InvalidMechanismError(
            f"P and P' must be 1-D of equal length, got shapes {p.shape} and {q.shape}")
    if (p < 0).any() or (q < 0).any() or not (np.isfinite(p).all() and np.isfinite(q).all()):
        raise InvalidMechanismError("P and P' must be finite and non-negative")
    with np.errstate(divide="ignore"):
        return _pair_atoms(p, q, np.log(p), np.log(q))


def _pair_atoms(p: np.ndarray, q: np.ndarray, lp: np.ndarray, lq: np.ndarray) -> LossAtoms:
    """Atoms of a validated pair, given ``lp = ln p`` and ``lq = ln q`` (``-inf`` at 0)."""
    fin = (p > 0) & (q > 0)
    inf = float(p[(p > 0) & (q == 0)].sum())
    keep = float(p[fin].sum())
    log_keep = math.log1p(-inf) if inf < keep else math.log(keep) if keep > 0 else -math.inf
    L = lp[fin] - lq[fin]
    scale = float(np.max(np.abs(L))) if L.size else 1.0
    return _merge(L, lp[fin], scale, log_keep, 0.0)


# --------------------------------------------------------------------------- exact composition
def _compositions(k: int, m: int) -> np.ndarray:
    """All vectors of m non-negative integers summing to k, shape (C(k+m-1, m-1), m)."""
    rows = np.zeros((1, 0), dtype=np.int64)
    rem = np.array([k], dtype=np.int64)
    for _ in range(m - 1):
        counts = rem + 1
        idx = np.repeat(np.arange(rem.size), counts)
        starts = np.cumsum(counts) - counts
        c = np.arange(idx.size, dtype=np.int64) - np.repeat(starts, counts)
        rows = np.hstack([rows[idx], c[:, None]])
        rem = rem[idx] - c
    return np.hstack([rows, rem[:, None]])


def _scale(atoms: LossAtoms, k: int = 1) -> float:
    return k * (float(np.max(np.abs(atoms.losses))) if atoms.n_atoms else 0.0)


def _multinomial(atoms: LossAtoms, k: int, max_atoms: int) -> LossAtoms:
    """``P(sum L = sum_i c_i l_i) = k! / prod c_i! prod m_i^{c_i}`` over all count vectors."""
    C = _compositions(k, atoms.n_atoms)
    L = C @ atoms.losses
    logm = gammaln(k + 1) - gammaln(C + 1).sum(axis=1) + C @ atoms.log_masses
    out = _merge(L, logm, _scale(atoms, k), k * atoms.log_keep, k * atoms.shift)
    if out.n_atoms > max_atoms:
        raise _TooManyAtoms
    return out


def _powering(atoms: LossAtoms, k: int, max_atoms: int) -> LossAtoms:
    """Repeated squaring with merging (cheap when the losses are commensurate)."""
    result: LossAtoms | None = None
    base = atoms
    while True:
        if k & 1:
            result = base if result is None else _compose_two(result, base, max_atoms)
        k >>= 1
        if not k:
            break
        base = _compose_two(base, base, max_atoms)
    assert result is not None
    return result


def _self_compose(atoms: LossAtoms, k: int, max_atoms: int) -> LossAtoms:
    r"""k-fold composition of one pair's atoms: the multinomial sum in log space when the
    count vectors are few; otherwise repeated squaring with merging (the composed losses often
    coincide, e.g. on a lattice), and the multinomial sum if that grows too large."""
    if k == 1:
        return atoms
    m = atoms.n_atoms
    if m == 0:
        return LossAtoms(np.empty(0), np.empty(0), k * atoms.log_keep, 0.0)
    terms = math.comb(k + m - 1, m - 1)
    if terms <= 50_000:
        return _multinomial(atoms, k, max_atoms)
    # probe: do two-fold sums coincide? (generic losses give m (m + 1) / 2 distinct sums)
    if _compose_two(atoms, atoms, max_atoms).n_atoms < m * (m + 1) // 2:
        try:
            return _powering(atoms, k, max_atoms)
        except _TooManyAtoms:
            pass
    if terms <= MAX_TERMS:
        return _multinomial(atoms, k, max_atoms)
    raise _TooManyAtoms


def _compose_two(a: LossAtoms, b: LossAtoms, max_atoms: int) -> LossAtoms:
    """Convolution of two atom sets (independent losses add), merged."""
    log_keep = a.log_keep + b.log_keep
    if a.n_atoms == 0 or b.n_atoms == 0:
        return LossAtoms(np.empty(0), np.empty(0), log_keep, a.shift + b.shift)
    if a.n_atoms * b.n_atoms > max(MAX_TERMS, max_atoms):
        raise _TooManyAtoms
    L = (a.losses[:, None] + b.losses[None, :]).ravel()
    logm = (a.log_masses[:, None] + b.log_masses[None, :]).ravel()
    out = _merge(L, logm, _scale(a) + _scale(b), log_keep, a.shift + b.shift)
    if out.n_atoms > max_atoms:
        raise _TooManyAtoms
    return out


def _compose_exact(groups: Sequence[tuple[LossAtoms, int]], max_atoms: int) -> LossAtoms:
    parts = sorted((_self_compose(a, c, max_atoms) for a, c in groups), key=lambda t: t.n_atoms)
    result = parts[0]
    for part in parts[1:]:
        result = _compose_two(result, part, max_atoms)
    return result


# --------------------------------------------------------------------------- grid composition
@dataclass(frozen=True, eq=False)
class _Grid:
    """A gridded loss distribution as computed: ``probs = exact * (1 + theta) + e`` entrywise,
    ``|theta| <= rel``, ``||e||_1 <= err`` (exact = the convolution in exact arithmetic)."""

    offset: int
    probs: np.ndarray
    log_keep: float
    rel: float
    err: float


def _to_grid(atoms: LossAtoms, h: float, pessimistic: bool) -> _Grid:
    if atoms.n_atoms == 0:
        return _Grid(0, np.zeros(1), atoms.log_keep, 0.0, 0.0)
    x = atoms.losses / h
    r = np.rint(x)
    x = np.where(np.abs(x - r) <= SNAP_TOL, r, x)
    idx = (np.ceil(x) if pessimistic else np.floor(x)).astype(np.int64)
    lo = int(idx.min())
    probs = np.zeros(int(idx.max()) - lo + 1)
    np.add.at(probs, idx - lo, np.exp(atoms.log_masses))
    # exp and the bin sums of non-negative terms: relative error <= (atoms + 1) u
    return _Grid(lo, probs, atoms.log_keep, (atoms.n_atoms + 1) * _UNIT, 0.0)


def _grid_compose(a: _Grid, b: _Grid) -> _Grid:
    """Convolution with its error bound.

    Exact convolution of the computed arrays is ``exact * (1 + theta) + e`` with
    ``|theta| <= (1 + rel_a)(1 + rel_b) - 1`` (all terms are non-negative) and
    ``||e||_1 <= err_a (||b||_1 + err_b) + err_b ||a||_1``. Rounding then adds: direct
    summation (sparse or dense), a relative ``(n + 1) u`` per entry; FFT, an absolute
    ``||.||_2 <= 10 u log2(n) ||a||_2 ||b||_2`` (Higham 2002, Thm 24.2, with a safety factor
    of about 10) i.e. ``sqrt(n)`` times that in L1.
    """
    sa, sb = float(a.probs.sum()), float(b.probs.sum())
    rel = (1 + a.rel) * (1 + b.rel) - 1
    err = a.err * (sb + b.err) + b.err * sa
    n = a.probs.size + b.probs.size - 1
    nza, nzb = np.flatnonzero(a.probs), np.flatnonzero(b.probs)
    if nza.size * nzb.size <= MAX_TERMS:  # sparse direct: bin sums of non-negative products
        idx = (nza[:, None] + nzb[None, :]).ravel()
        w = (a.probs[nza][:, None] * b.probs[nzb][None, :]).ravel()
        c = np.bincount(idx, weights=w, minlength=n)
        gamma = (min(nza.size, nzb.size) + 1) * _UNIT
        rel = (1 + rel) * (1 + gamma) - 1
        err *= 1 + gamma
    elif min(a.probs.size, b.probs.size) <= 64 or a.probs.size * b.probs.size <= 10_000_000:
        c = np.convolve(a.probs, b.probs)
        gamma = (min(a.probs.size, b.probs.size) + 1) * _UNIT
        rel = (1 + rel) * (1 + gamma) - 1
        err *= 1 + gamma
    else:
        c = np.maximum(fftconvolve(a.probs, b.probs), 0.0)
        l2 = 10.0 * _UNIT * math.log2(n) * float(np.linalg.norm(a.probs)
                                                  * np.linalg.norm(b.probs))
        err += math.sqrt(n) * l2
    return _Grid(a.offset + b.offset, c, a.log_keep + b.log_keep, rel, err)


def _grid_self_compose(g: _Grid, k: int) -> _Grid:
    return power_by_squaring(g, k, _grid_compose)


def _grid_atoms(g: _Grid, h: float, shift: float) -> LossAtoms:
    nz = np.flatnonzero(g.probs > 0)
    return LossAtoms((g.offset + nz) * h + shift, np.log(g.probs[nz]), g.log_keep, 0.0)


@dataclass(frozen=True, eq=False)
class _Bracket:
    """What is known of one pair's composed distribution.

    Exact: ``upper`` holds the merged atoms, whose losses are at most ``shift`` above the
    true ones, so ``delta(eps + shift) <= true delta(eps) <= delta(eps)`` and
    ``eps(delta) - shift <= true eps(delta) <= eps(delta)``.
    Grid: ``upper``/``lower`` are the pessimistic/optimistic atoms; their finite parts are
    ``true * (1 + theta) + e`` with ``|theta| <= rel``, ``|e| <= err`` (in delta).
    """

    upper: LossAtoms
    lower: LossAtoms
    rel_upper: float
    err_upper: float
    rel_lower: float
    err_lower: float
    exact: bool
    grid: float | None
    n_atoms: int
    shift: float = 0.0

    def delta(self, eps: float) -> tuple[float, float]:
        if self.exact:
            up = self.upper.delta(eps)
            lo = up if self.shift == 0 else self.upper.delta(eps + self.shift)
            return lo, up
        inf_u, inf_l = self.upper.mass_inf, self.lower.mass_inf
        fu = self.upper.delta(eps) - inf_u
        fl = self.lower.delta(eps) - inf_l
        up = min(1.0, inf_u + (fu + self.err_upper) / (1 - self.rel_upper))
        lo = max(0.0, inf_l + (fl - self.err_lower) / (1 + self.rel_lower))
        return lo, max(up, lo)

    def epsilon(self, delta: float) -> tuple[float, float]:
        if self.exact:
            up = self.upper.epsilon(delta)
            return max(0.0, up - self.shift), up
        inf_u, inf_l = self.upper.mass_inf, self.lower.mass_inf
        t_up = inf_u + max(0.0, (delta - inf_u) * (1 - self.rel_upper) - self.err_upper)
        up = math.inf if delta < inf_u else self.upper.epsilon(min(1.0, t_up))
        t_lo = inf_l + (delta - inf_l) * (1 + self.rel_lower) + self.err_lower
        lo = self.lower.epsilon(min(1.0, max(0.0, t_lo)))
        return min(lo, up), up


def _exact_bracket(atoms: LossAtoms) -> _Bracket:
    base = LossAtoms(atoms.losses, atoms.log_masses, atoms.log_keep, 0.0)
    return _Bracket(base, base, 0.0, 0.0, 0.0, 0.0, True, None, atoms.n_atoms, atoms.shift)


def coarsened_step(h: float, span: float) -> float:
    """The grid step used for a requested step ``h`` over a loss range of width ``span``.

    ``h`` itself when ``span / h <= MAX_GRID_BINS``, else the smallest multiple
    ``m h`` with ``m`` in 2, 5, 10, 20, 50, 100, ... that fits. Losses on a round grid
    (eps = 0.1, 0.25, ...) then stay on the used grid; a step such as ``span / MAX_GRID_BINS``
    (or ``96 h``) moves them off it and lets the rounding drift by up to a step per
    composition (1000-fold RR(0.1) asked at ``h = 1e-6``: a bracket of width 0.096 at
    ``96 h``, 2e-10 at ``100 h = 1e-4``).
    """
    need = span / (h * MAX_GRID_BINS)
    if need <= 1.0:
        return h
    decade = 10.0 ** math.floor(math.log10(need))
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * decade >= need:
            return h * m * decade
    return h * 10.0 * decade  # pragma: no cover (rounding of log10)


def _check_grid_size(groups: Sequence[tuple[LossAtoms, int]], h: float,
                     pair: tuple[int, int]) -> None:
    """Refuse, before allocating, a composed grid above :data:`MAX_COMPOSED_BINS` bins."""
    span = sum(c * (float(a.losses[-1] - a.losses[0]) if a.n_atoms else 0.0)
               for a, c in groups)
    step = coarsened_step(h, span)
    bins = 1
    for a, c in groups:
        if a.n_atoms:
            x = a.losses / step
            bins += c * max(int(np.ceil(x).max() - np.ceil(x).min()),
                            int(np.floor(x).max() - np.floor(x).min()))
    if bins > MAX_COMPOSED_BINS:
        total = sum(c for _, c in groups)
        raise SizeLimitError(
            f"the grid composition of pair {pair} ({total} uses) needs {bins:.3g} bins, "
            f"above the limit of {MAX_COMPOSED_BINS} (MAX_COMPOSED_BINS); use fewer uses "
            "(a smaller k)")


def _grid_bracket(groups: Sequence[tuple[LossAtoms, int]], h: float) -> _Bracket:
    span = sum(c * (float(a.losses[-1] - a.losses[0]) if a.n_atoms else 0.0)
               for a, c in groups)
    h = coarsened_step(h, span)
    total = sum(c for _, c in groups)
    # snapping moves each loss by at most SNAP_TOL * h (plus the merging shift of the input
    # atoms): the pessimistic losses are moved up, the optimistic down, by the total.
    snap = total * SNAP_TOL * h + sum(c * a.shift for a, c in groups)
    out = []
    for pessimistic in (True, False):
        parts = [_grid_self_compose(_to_grid(a, h, pessimistic), c) for a, c in groups]
        g = parts[0]
        for p in parts[1:]:
            g = _grid_compose(g, p)
        out.append((_grid_atoms(g, h, snap if pessimistic else -snap), g.rel, g.err))
    (up, ru, eu), (lo, rl, el) = out
    return _Bracket(up, lo, ru, eu, rl, el, False, h, int(up.n_atoms))


# --------------------------------------------------------------------------- public API
def _as_mechanism_list(mechanisms: Any) -> list[Mechanism]:
    if isinstance(mechanisms, Mechanism | EvidentialMechanism):
        items = [mechanisms]
    elif isinstance(mechanisms, np.ndarray):
        items = [mechanisms]
    elif isinstance(mechanisms, Sequence) and not isinstance(mechanisms, str) and mechanisms \
            and all(isinstance(m, Mechanism | EvidentialMechanism | np.ndarray)
                    for m in mechanisms):
        items = list(mechanisms)
    else:
        items = [mechanisms]
    out = []
    for m in items:
        if isinstance(m, Mechanism):
            out.append(m)
        elif isinstance(m, EvidentialMechanism):
            out.append(m.to_mechanism())
        else:
            out.append(Mechanism(m))
    sizes = {m.n_inputs for m in out}
    if len(sizes) > 1:
        raise InvalidMechanismError(
            f"composed mechanisms must share their inputs; got input counts {sorted(sizes)}")
    return out


def _check_pairs(pairs: Iterable | None, n: int) -> list[tuple[int, int]]:
    if pairs is None:
        return [(x, xp) for x in range(n) for xp in range(n) if x != xp]
    out = []
    for pr in pairs:
        try:
            x, xp = (int(v) for v in pr)
        except (TypeError, ValueError):
            raise InvalidParameterError(f"pairs must be (x, x') index pairs, got {pr!r}"
                                        ) from None
        if not (0 <= x < n and 0 <= xp < n):
            raise InvalidParameterError(f"pair {pr!r} has an index outside 0..{n - 1}")
        out.append((x, xp))
    if not out:
        raise InvalidParameterError("pairs must not be empty")
    return out


Method = Literal["auto", "exact", "grid"]


def _distinct_pairs(mechs: Sequence[Mechanism], pairs: list[tuple[int, int]]
                    ) -> list[tuple[int, int]]:
    """One representative of each class of pairs with the same multiset of columns
    ``(Q[x, y], Q[x', y])`` in every mechanism: such pairs have identical privacy-loss
    distributions (the loss distribution is a function of that multiset), so identical
    compositions. Columns are put in a canonical order (lexicographic) vectorised."""
    xs = np.array([p[0] for p in pairs])
    xps = np.array([p[1] for p in pairs])
    keys: list[list[bytes]] = []
    for m in mechs:
        Q = m.matrix
        chunk = max(1, 2_000_000 // Q.shape[1])
        ks: list[bytes] = []
        for start in range(0, len(pairs), chunk):
            A, B = Q[xs[start:start + chunk]], Q[xps[start:start + chunk]]
            order = np.lexsort((B, A), axis=1)
            C = np.concatenate([np.take_along_axis(A, order, 1),
                                np.take_along_axis(B, order, 1)], axis=1)
            ks.extend(row.tobytes() for row in C)
        keys.append(ks)
    first: dict[tuple, tuple[int, int]] = {}
    for pair, key in zip(pairs, zip(*keys, strict=True), strict=True):
        first.setdefault(key, pair)
    return list(first.values())


@dataclass(frozen=True)
class CompositionResult:
    """The privacy of a composition at one point of its privacy profile.

    Attributes
    ----------
    epsilon, delta : float
        The guarantee: the composition is (epsilon, delta)-LDP. The solved-for one is the
        reported (safe) end of the bracket.
    solved_for : {"delta", "epsilon"}
        Which of the two was computed (the other was given).
    exact : bool
        True when computed from the exact atoms; False for the grid bracket.
    lower, upper : float
        Bracket of the solved-for quantity. Exact results have ``upper - lower`` at most the
        displacement of merged losses (around 1e-15); grid results bracket the truth. The
        exact bracket does not count floating-point rounding of the matrix and of the log
        binomials: against a 50-digit evaluation of the Kairouz-Oh-Viswanath formula,
        binary RR composed up to 1000 times is within 7e-13 relative, 5000 times within
        6e-12, and deep in the tail (delta near 1e-280) within 5e-10.
    reported : {"exact", "upper"}
        ``"exact"``, or ``"upper"`` when the pessimistic end of a grid bracket is reported.
    method : {"atoms", "grid"}
    k : int
        Number of mechanisms composed.
    worst_pair : tuple of int
        The ordered input pair (row indices) attaining the maximum.
    n_pairs : int
        Distinct pair distributions examined (pairs with identical atoms are done once).
    n_atoms : int
        Atoms (or occupied grid bins) of the worst pair's composed distribution.
    grid_step : float or None
        Grid step actually used (None on the exact path).
    """

    epsilon: float
    delta: float
    solved_for: Literal["delta", "epsilon"]
    exact: bool
    lower: float
    upper: float
    reported: Literal["exact", "upper"]
    method: Literal["atoms", "grid"]
    k: int
    worst_pair: tuple[int, int]
    n_pairs: int
    n_atoms: int
    grid_step: float | None

    @property
    def value(self) -> float:
        """The solved-for quantity (``delta`` or ``epsilon``)."""
        return self.delta if self.solved_for == "delta" else self.epsilon


@dataclass(frozen=True)
class PrivacyProfile:
    """``delta(eps)`` of a composition on a grid of epsilons (the privacy profile).

    ``lower == upper`` up to merging displacement when ``exact``; otherwise a grid bracket
    (``upper`` is the safe curve).
    """

    epsilons: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    exact: bool
    k: int
    max_loss: float


class Composition:
    r"""The composed privacy-loss distributions of a composition, computed once and queried
    many times (:meth:`delta`, :meth:`epsilon`, :meth:`profile`). Build it with
    :func:`compose`; the arguments are described there.

    Attributes
    ----------
    k : int
        Number of mechanisms composed (list length times the repetition count).
    exact : bool
        True when every pair was composed exactly from its atoms.
    n_pairs : int
        Distinct pair distributions (ordered input pairs with identical atoms count once).
    """

    def __init__(self, brackets: list[tuple[tuple[int, int], _Bracket]], k: int) -> None:
        self._brackets = brackets
        self.k = k
        self.n_pairs = len(brackets)
        self.exact = all(b.exact for _, b in brackets)
        grids = [b.grid for _, b in brackets if b.grid is not None]
        self.grid_step = max(grids) if grids else None

    def __repr__(self) -> str:
        kind = "exact" if self.exact else f"grid {self.grid_step:g}"
        return f"<Composition k={self.k}, {self.n_pairs} pair distribution(s), {kind}>"

    def _result(self, given: float, solve: Literal["delta", "epsilon"]) -> CompositionResult:
        best = None
        lower_max = -math.inf
        for pair, br in self._brackets:
            lo, up = br.delta(given) if solve == "delta" else br.epsilon(given)
            lower_max = max(lower_max, lo)
            if best is None or up > best[0]:
                best = (up, pair, br)
        assert best is not None
        up, pair, br = best
        eps, delta = (given, up) if solve == "delta" else (up, given)
        return CompositionResult(
            epsilon=eps, delta=delta, solved_for=solve, exact=self.exact,
            lower=min(lower_max, up), upper=up,
            reported="exact" if self.exact else "upper",
            method="atoms" if self.exact else "grid", k=self.k, worst_pair=pair,
            n_pairs=self.n_pairs, n_atoms=br.n_atoms, grid_step=self.grid_step)

    def delta(self, epsilon: float) -> CompositionResult:
        """Smallest delta with (epsilon, delta)-LDP (see :func:`delta_composed`)."""
        return self._result(check_epsilon(epsilon, allow_inf=True), "delta")

    def epsilon(self, delta: float) -> CompositionResult:
        """Smallest epsilon with (epsilon, delta)-LDP (see :func:`epsilon_composed`)."""
        return self._result(check_delta(delta), "epsilon")

    def profile(self, epsilons: Any) -> PrivacyProfile:
        """The privacy profile ``delta(eps)`` (max over pairs) at many epsilons.

        ``max_loss`` is the largest finite composed loss: beyond it delta is the mass of the
        infinite losses.
        """
        eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
        if eps.ndim != 1 or np.isnan(eps).any() or (eps < 0).any():
            raise InvalidParameterError(
                f"epsilons must be a 1-D array of values >= 0, got {eps!r}")
        lo = np.zeros(eps.size)
        up = np.zeros(eps.size)
        max_loss = 0.0
        for _, br in self._brackets:
            if br.upper.n_atoms:
                max_loss = max(max_loss, float(br.upper.losses[-1]))
            for i, e in enumerate(eps):
                a, b = br.delta(float(e))
                lo[i] = max(lo[i], a)
                up[i] = max(up[i], b)
        return PrivacyProfile(eps, lo, up, self.exact, self.k, max_loss)


def compose(mechanisms: Any, k: int = 1, *, pairs: Iterable | None = None,
            method: Method = "auto", grid: float = DEFAULT_GRID,
            max_atoms: int = MAX_ATOMS) -> Composition:
    r"""Compose mechanisms on the same input and keep the composed privacy-loss atoms.

    The composition of ``M_1 .. M_r`` (all with the same inputs) maps x to
    ``(M_1(x), .., M_r(x))``, independently; with ``k > 1`` the whole list is used k times.
    For each ordered input pair ``(x, x')`` the privacy-loss atoms of every ``M_i`` are
    convolved exactly (multinomial sums in log space; infinite losses exactly), or, when a
    pair has more than ``max_atoms`` composed atoms and ``method="auto"``, on a grid with
    pessimistic and optimistic rounding whose bracket is kept
    (``docs/accounting.md`` s.2). Query the result with
    :meth:`Composition.delta`, :meth:`Composition.epsilon`, :meth:`Composition.profile`.

    Parameters
    ----------
    mechanisms : Mechanism, EvidentialMechanism (over its messages), array, or a list of them
    k : int
        Number of times the (list of) mechanism(s) is used.
    pairs : iterable of (x, x'), optional
        Ordered row-index pairs to consider (default: all ordered pairs). Pairs whose atoms
        coincide (e.g. all pairs of k-RR, or both orders of a symmetric mechanism) are composed
        once: identical atoms give identical compositions.
    method : {"auto", "exact", "grid"}
        ``"exact"`` raises :class:`~mechdesign.errors.SizeLimitError` instead of falling back.
    grid : float
        Grid step of the fallback. When the composed loss range needs more than
        :data:`MAX_GRID_BINS` bins it is coarsened to the smallest multiple 2, 5, 10, 20,
        ... of ``grid`` that fits (:func:`coarsened_step`); the result's ``grid_step`` says which
        step was used.
    max_atoms : int
        Limit of the exact path.
    """
    mechs = _as_mechanism_list(mechanisms)
    k = check_int(k, "k", 1)
    if method not in ("auto", "exact", "grid"):
        raise InvalidParameterError(f"method must be 'auto', 'exact' or 'grid', got {method!r}")
    grid = check_real(grid, "grid")
    if not grid > 0:
        raise InvalidParameterError(f"grid must be > 0, got {grid!r}")
    max_atoms = check_int(max_atoms, "max_atoms", 1)
    counts = Counter(mechs)
    distinct = list(counts)
    n = distinct[0].n_inputs
    if n < 2:
        raise InvalidMechanismError("a mechanism needs at least 2 inputs to have a privacy loss")
    with np.errstate(divide="ignore"):
        logs = [np.log(m.matrix) for m in distinct]
    by_key: dict[tuple, tuple[tuple[int, int], list[tuple[LossAtoms, int]]]] = {}
    for x, xp in _distinct_pairs(distinct, _check_pairs(pairs, n)):
        merged: dict[tuple, list] = {}
        for m, lg in zip(distinct, logs, strict=True):
            a = _pair_atoms(m.matrix[x], m.matrix[xp], lg[x], lg[xp])
            entry = merged.setdefault(a.key(), [a, 0])  # identical atoms: one group
            entry[1] += counts[m] * k
        key = tuple(sorted((kk, v[1]) for kk, v in merged.items()))
        if key not in by_key:
            by_key[key] = ((x, xp), [(a, c) for a, c in merged.values()])
    brackets = []
    for pair, groups in by_key.values():
        bracket = None
        if method in ("auto", "exact"):
            try:
                bracket = _exact_bracket(_compose_exact(groups, max_atoms))
            except _TooManyAtoms:
                if method == "exact":
                    raise SizeLimitError(
                        f"the exact composition of pair {pair} has more than max_atoms = "
                        f"{max_atoms} distinct privacy losses; use method='auto' or 'grid' "
                        "(a bracket) or raise max_atoms") from None
        if bracket is None:
            _check_grid_size(groups, grid, pair)
            bracket = _grid_bracket(groups, grid)
        brackets.append((pair, bracket))
    return Composition(brackets, k * len(mechs))


def delta_composed(mechanisms: Any, epsilon: float, k: int = 1, *,
                   pairs: Iterable | None = None, method: Method = "auto",
                   grid: float = DEFAULT_GRID, max_atoms: int = MAX_ATOMS
                   ) -> CompositionResult:
    r"""Smallest delta such that the composition is (epsilon, delta)-LDP.

    .. math:: \delta(\varepsilon) = \max_{x \ne x'} H_{e^\varepsilon}\big(
              \textstyle\bigotimes_i M_i(x) \,\big\|\, \bigotimes_i M_i(x')\big)

    exact from the privacy-loss atoms of each ordered pair, or a grid bracket when the atoms
    are too many (``method="auto"``). ``epsilon >= 0`` (``inf`` gives the mass of the
    infinite losses). Other arguments as in :func:`compose`; to ask several questions of the
    same composition, build it once with :func:`compose`.
    """
    eps = check_epsilon(epsilon, allow_inf=True)
    return compose(mechanisms, k, pairs=pairs, method=method, grid=grid,
                   max_atoms=max_atoms).delta(eps)


def epsilon_composed(mechanisms: Any, delta: float, k: int = 1, *,
                     pairs: Iterable | None = None, method: Method = "auto",
                     grid: float = DEFAULT_GRID, max_atoms: int = MAX_ATOMS
                     ) -> CompositionResult:
    r"""Smallest epsilon such that the composition is (epsilon, delta)-LDP (``inf`` if none).

    The maximum over ordered pairs of the smallest ``eps`` with ``delta_pair(eps) <= delta``;
    each is found by a bisection over the atoms (the pieces on which the set of active atoms
    is fixed) and an exact solve on the piece, never by a smoothed approximation. Arguments
    as in :func:`compose`.
    """
    d = check_delta(delta)
    return compose(mechanisms, k, pairs=pairs, method=method, grid=grid,
                   max_atoms=max_atoms).epsilon(d)


def privacy_profile(mechanisms: Any, epsilons: Any, k: int = 1, *,
                    pairs: Iterable | None = None, method: Method = "auto",
                    grid: float = DEFAULT_GRID, max_atoms: int = MAX_ATOMS
                    ) -> PrivacyProfile:
    """The privacy profile ``delta(eps)`` of a composition at many epsilons
    (:meth:`Composition.profile`)."""
    return compose(mechanisms, k, pairs=pairs, method=method, grid=grid,
                   max_atoms=max_atoms).profile(epsilons)


# --------------------------------------------------------------------------- closed forms
@dataclass(frozen=True)
class CompositionBound:
    """An (epsilon, delta) guarantee from a composition theorem."""

    epsilon: float
    delta: float
    theorem: str


def _as_float_list(values: Any, name: str, check: Any) -> list[float]:
    if isinstance(values, int | float | np.floating | np.integer):
        values = [values]
    try:
        seq = list(values)
    except TypeError:
        raise InvalidParameterError(f"{name} must be a number or a sequence, got {values!r}"
                                    ) from None
    if not seq:
        raise InvalidParameterError(f"{name} must not be empty")
    return [check(v, f"{name}[{i}]") for i, v in enumerate(seq)]


def basic_composition(epsilons: Any, deltas: Any = None) -> CompositionBound:
    r"""Basic composition: ``(sum eps_i, sum delta_i)`` (Dwork et al. 2006)."""
    eps = _as_float_list(epsilons, "epsilons", lambda v, n: check_epsilon(v, n, allow_inf=True))
    dl = [0.0] * len(eps) if deltas is None else _as_float_list(deltas, "deltas", check_delta)
    if len(dl) != len(eps):
        raise InvalidParameterError(
            f"epsilons and deltas have different lengths ({len(eps)} and {len(dl)})")
    return CompositionBound(float(sum(eps)), float(min(1.0, sum(dl))), "basic")


def advanced_composition(epsilon: float, delta: float, k: int,
                         delta_prime: float) -> CompositionBound:
    r"""Advanced composition (Dwork, Rothblum, Vadhan 2010): k-fold (eps, delta)-DP is
    (eps', k delta + delta')-DP with

    .. math:: \varepsilon' = \sqrt{2k\ln(1/\delta')}\,\varepsilon + k\varepsilon(e^\varepsilon - 1).

    Not capped by ``k eps``: compare with :func:`basic_composition`.
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    k = check_int(k, "k", 1)
    dp = check_probability(delta_prime, "delta_prime")
    if dp == 0:
        raise InvalidParameterError("delta_prime must be > 0, got 0.0")
    val = math.sqrt(2 * k * -math.log(dp)) * eps + k * eps * math.expm1(eps)
    return CompositionBound(val, min(1.0, k * d + dp), "advanced (Dwork-Rothblum-Vadhan)")


def advanced_composition_delta(epsilon: float, k: int, epsilon_total: float) -> float:
    r"""The delta' at which :func:`advanced_composition` of k pure ``epsilon``-LDP uses
    reaches ``epsilon_total`` (its inverse, Dwork, Rothblum, Vadhan 2010), capped by basic
    composition:

    .. math:: \delta' = \exp\Big(-\frac{(\varepsilon_{tot} - k\varepsilon(e^\varepsilon - 1))^2}
              {2k\varepsilon^2}\Big) \quad\text{when } \varepsilon_{tot} > k\varepsilon
              (e^\varepsilon - 1),

    1 (no guarantee) when ``epsilon_total`` is at most the drift term ``k eps (e^eps - 1)``,
    and 0 when ``epsilon_total >= k eps`` (basic composition).
    """
    eps = check_epsilon(epsilon)
    k = check_int(k, "k", 1)
    total = check_epsilon(epsilon_total, "epsilon_total", allow_inf=True)
    if total >= k * eps:
        return 0.0
    drift = k * eps * math.expm1(eps)
    if total <= drift:
        return 1.0
    return min(1.0, math.exp(-((total - drift) / eps) ** 2 / (2 * k)))


def _rr_kfold_atoms(epsilon: float, k: int, delta: float) -> LossAtoms:
    """Atoms of k-fold binary RR(eps), leaky with probability delta (KOV 2015)."""
    ell = np.arange(k + 1)
    L = (k - 2 * ell) * epsilon
    log1pe = float(np.logaddexp(0.0, epsilon))
    logm = gammaln(k + 1) - gammaln(ell + 1) - gammaln(k - ell + 1) + (k - ell) * epsilon \
        - k * log1pe
    log_keep = k * math.log1p(-delta) if delta < 1 else -math.inf
    return _merge(L[::-1].astype(float), logm[::-1] + log_keep, k * epsilon, log_keep, 0.0)


def optimal_composition_delta(epsilon: float, k: int, epsilon_total: float,
                              delta: float = 0.0) -> float:
    r"""Optimal homogeneous composition (Kairouz, Oh, Viswanath 2015, Thm 3.3), at every
    ``eps'`` (not only on the grid ``(k - 2i) eps``):

    .. math:: \delta(\varepsilon') = 1 - (1-\delta)^k \Big[1 - \frac{\sum_{l=0}^{k}\binom{k}{l}
              \max(0, e^{(k-l)\varepsilon} - e^{\varepsilon'} e^{l\varepsilon})}
              {(1 + e^{\varepsilon})^k}\Big]

    evaluated in log space (``(1 + e^eps)^k`` overflows at k = 1000, eps = 1). The smallest
    delta such that EVERY k-fold composition of (eps, delta)-DP mechanisms is
    (eps', delta)-DP; attained by binary randomized response.
    """
    eps = check_epsilon(epsilon)
    k = check_int(k, "k", 1)
    et = check_epsilon(epsilon_total, "epsilon_total", allow_inf=True)
    d = check_delta(delta)
    log_keep = k * math.log1p(-d) if d < 1 else -math.inf
    base = -math.expm1(log_keep)
    if math.isinf(et) or eps == 0:
        return base
    ell = np.arange(k + 1)
    L = (k - 2 * ell) * eps
    live = L > et
    if not live.any():
        return base
    ell = ell[live]
    log_terms = (gammaln(k + 1) - gammaln(ell + 1) - gammaln(k - ell + 1) + (k - ell) * eps
                 + np.log(-np.expm1(et - L[live])) - k * float(np.logaddexp(0.0, eps)))
    return float(min(1.0, base + math.exp(log_keep + float(logsumexp(log_terms)))))


def optimal_composition_epsilon(epsilon: float, k: int, delta_total: float,
                                delta: float = 0.0) -> float:
    """Smallest eps' with :func:`optimal_composition_delta` ``<= delta_total`` (exact step
    function inversion; ``inf`` when ``1 - (1 - delta)^k > delta_total``)."""
    eps = check_epsilon(epsilon)
    k = check_int(k, "k", 1)
    dt = check_delta(delta_total, "delta_total")
    d = check_delta(delta)
    return _rr_kfold_atoms(eps, k, d).epsilon(dt)


def _check_heterogeneous(epsilons: Any, deltas: Any) -> tuple[list[float], list[float]]:
    eps = _as_float_list(epsilons, "epsilons", check_epsilon)
    if len(eps) > MAX_SUBSETS_K:
        raise SizeLimitError(
            f"Murtagh-Vadhan enumerates 2^k subsets; k = {len(eps)} exceeds {MAX_SUBSETS_K}. "
            "The same value is the exact composition of binary randomized responses: "
            "delta_composed([randomized_response(2, e) for e in epsilons], eps_total) "
            "(then account for the deltas: 1 - prod(1 - delta_i) + prod(1 - delta_i) * that)")
    dl = [0.0] * len(eps) if deltas is None else _as_float_list(deltas, "deltas", check_delta)
    if len(dl) != len(eps):
        raise InvalidParameterError(
            f"epsilons and deltas have different lengths ({len(eps)} and {len(dl)})")
    return eps, dl


def _subset_sums(eps: list[float]) -> np.ndarray:
    sums = np.zeros(1)
    for e in eps:
        sums = np.concatenate((sums, sums + e))
    return sums


def optimal_heterogeneous_delta(epsilons: Any, epsilon_total: float,
                                deltas: Any = None) -> float:
    r"""Optimal heterogeneous composition (Murtagh & Vadhan 2018, Thm 1.5), by enumeration:

    .. math:: \delta(\varepsilon_g) = 1 - \prod(1-\delta_i) + \prod(1-\delta_i)
              \sum_{S \subseteq [k]} \frac{\max(0, e^{\sum_{S}\varepsilon_i}
              - e^{\varepsilon_g} e^{\sum_{i \notin S}\varepsilon_i})}{\prod(1 + e^{\varepsilon_i})}

    (#P-hard in general; ``k <= 20`` here. It equals the exact composition of binary
    randomized responses RR(eps_i), which :func:`delta_composed` computes for any k.)
    """
    eps, dl = _check_heterogeneous(epsilons, deltas)
    eg = check_epsilon(epsilon_total, "epsilon_total", allow_inf=True)
    log_keep = float(sum(math.log1p(-d) if d < 1 else -math.inf for d in dl))
    base = -math.expm1(log_keep)
    if math.isinf(eg):
        return base
    s = _subset_sums(eps)
    total = float(sum(eps))
    L = 2 * s - total  # loss of the outcome "exactly the coordinates in S say yes"
    live = L > eg
    if not live.any():
        return base
    log_norm = float(sum(np.logaddexp(0.0, e) for e in eps))
    log_terms = s[live] + np.log(-np.expm1(eg - L[live])) - log_norm
    return float(min(1.0, base + math.exp(log_keep + float(logsumexp(log_terms)))))


def optimal_heterogeneous_epsilon(epsilons: Any, delta_total: float,
                                  deltas: Any = None) -> float:
    """Smallest eps_g with :func:`optimal_heterogeneous_delta` ``<= delta_total``."""
    eps, dl = _check_heterogeneous(epsilons, deltas)
    dt = check_delta(delta_total, "delta_total")
    log_keep = float(sum(math.log1p(-d) if d < 1 else -math.inf for d in dl))
    s = _subset_sums(eps)
    total = float(sum(eps))
    log_norm = float(sum(np.logaddexp(0.0, e) for e in eps))
    atoms = _merge(2 * s - total, s - log_norm + log_keep, max(total, 1.0), log_keep, 0.0)
    return atoms.epsilon(dt)
