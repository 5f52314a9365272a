r"""The privacy-loss distribution of a pair of finite distributions: exact atoms in log space,
composition, and the grid bracket.

For distributions ``P, P'`` on a finite set the privacy loss of an output ``y`` is
``L(y) = ln P[y] - ln P'[y]``. Outputs of equal loss form one *atom*, which carries both of
its masses ``P(L = l)`` and ``P'(L = l)`` (as logarithms, so masses like 1e-300 keep their
relative precision); ``P[y] > 0 = P'[y]`` is the atom ``+inf`` (mass under P only) and
``P[y] = 0 < P'[y]`` the atom ``-inf`` (mass under P' only). Two quantities are read from
the atoms:

* the hockey-stick divergence (privacy profile), ``docs/accounting.md`` s.1-s.2:

  .. math:: \delta(\varepsilon) = H_{e^\varepsilon}(P \| P')
            = P(L = \infty) + \sum_{l > \varepsilon} P(L = l)\,(1 - e^{\varepsilon - l});

* the trade-off function ``T(P, P')``: by Neyman-Pearson the tests reject the atoms in
  increasing order of the loss, and the curve joins the points (P-mass rejected, P'-mass
  kept) (Dong, Roth & Su 2022, s.2; ``docs/accounting.md`` s.5).

Independent uses add their losses, so the distribution of a product pair
``(P_1 x P_2, P'_1 x P'_2)`` is the convolution of the two (:meth:`LossAtoms.compose`) and the
k-fold product a convolution power (:meth:`LossAtoms.self_compose`: repeated squaring, or the
multinomial sum over count vectors). Composed losses closer than :data:`MERGE_RTOL` (relative)
are merged into one atom placed at the largest of them, so merging only rounds losses up; the
displacement is tracked (``shift``) and an exact result is a bracket of that width. A
composed distribution has at most :data:`MAX_ATOMS` atoms and one step forms at most
:data:`MAX_PAIRS` terms (:class:`~mechdesign.errors.SizeLimitError` naming both numbers).
Past that, :func:`grid_bracket` rounds the losses to a grid, up (pessimistic) and down
(optimistic), and convolves with rigorous floating-point error bounds; :class:`LossBracket`
holds either result.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy.optimize import brentq

from .._algebra import log_multinomial, power_by_squaring
from .._exact import down as _down
from .._exact import log_ratio
from .._exact import up as _up
from .._exact import up_nonzero as _up_nonzero
from .._html import value_view
from .._validation import check_delta, check_int
from ..errors import InvalidMechanismError, InvalidParameterError, SizeLimitError

__all__ = [
    "DEFAULT_GRID",
    "MAX_ATOMS",
    "MAX_COMPOSED_BINS",
    "MAX_GRID_BINS",
    "MAX_PAIRS",
    "MERGE_RTOL",
    "SNAP_TOL",
    "LossAtoms",
    "LossBracket",
    "Rounding",
    "coarsened_step",
    "compose_atoms",
    "grid_bracket",
    "privacy_loss_atoms",
]

MERGE_RTOL = 1e-12
"""Composed losses closer than ``MERGE_RTOL * max(scale, 1)`` are one atom (``scale`` bounds
the absolute losses), placed at the largest of them; both masses are summed, never rounded.
Losses equal in exact arithmetic (sums of the same losses in another order) differ after
rounding by a few ulps of ``scale``, about 1e-15 relative, far below it, so lattices such as
those of randomized response collapse. The move it allows is the ``shift`` of the result: a
delta bracket of relative width about 1e-12 at worst, and a trade-off curve moved by at most
that times the merged mass."""

MAX_ATOMS = 2_000_000
"""Largest number of atoms of one composed privacy-loss distribution (the size limit)."""

MAX_PAIRS = 200_000_000
"""Largest number of terms one composition step forms: pairs of atoms of a convolution, or
count vectors times atoms of a multinomial sum (a bound on the work; memory is bounded by
forming at most ``_BLOCK`` terms at a time)."""

_BLOCK = 1_000_000

DEFAULT_GRID = 1e-4
"""Default grid step (in units of loss) of :func:`grid_bracket`."""

MAX_GRID_BINS = 1 << 21
"""Largest grid (bins over the composed loss range); a finer requested step is coarsened."""

SNAP_TOL = 1e-9
"""A loss within ``SNAP_TOL`` grid steps of a grid point is snapped to it before rounding
(otherwise 0.1 / 1e-4 = 1000.0000000000001 moves up one step per composition). The shift this
causes is added to the reported bracket."""

MAX_COMPOSED_BINS = 4 * MAX_GRID_BINS
"""Largest composed grid (bins) :func:`grid_bracket` allocates. Coarsening keeps the loss
range within :data:`MAX_GRID_BINS` bins, but rounding can add a bin per use, so a huge number
of uses (10^12) would need about that many bins: refused before allocating."""

_DIRECT_TERMS = 4_000_000  # largest sparse direct grid convolution (products formed at once)
_UNIT = 2.0 ** -52
_U = 2.0 ** -53  # the unit roundoff of round-to-nearest doubles
_HUGE = 1 << 62  # count vectors are counted exactly up to this
_EMPTY = np.empty(0)


@dataclass(frozen=True)
class Rounding:
    r"""Rigorous bounds on the floating-point error of a :class:`LossAtoms`.

    Against the exact distribution of the stored inputs (the matrices' float entries read
    exactly), every exact loss is at most its stored value plus ``loss`` (stored losses are
    themselves rounded up, so ``loss`` is 0 unless a caller gives inexact losses), every
    stored ``ln`` mass ``m`` (under P and P') satisfies ``|m - m_exact| <= log``, and the
    stored ``log_keep`` values ``|log_keep - exact| <= keep |exact|`` (a relative bound, so a
    mass of 1e-300 at the infinite loss is not swamped). ``total`` bounds ``ln`` of P's total
    mass from above (0 for a distribution; a stored row may sum to ``1 + 1e-16``, and then
    the mass at the infinite loss is ``total - kept``, not ``1 - kept``). Merging of nearly
    equal losses moves them up (:attr:`LossAtoms.shift`), which is safe for upper bounds.

    Each operation adds its own roundings, with ``u = 2^-53`` (numpy's ``log``, ``exp`` and
    ``log1p`` are within one ulp, ``2u`` relative, of the exact value):

    * base atoms from ``ln P``, ``ln P'``: each logarithm ``2u |ln p|``;
    * convolution: the errors of the two operands add, and each sum of log masses is rounded
      once (``u |m|``); each sum of losses is rounded up (:func:`_up_nonzero`);
    * merging N equal losses by ``logsumexp``: ``(N + 4) u`` (the N terms' sum, their ``exp``,
      the final ``log``) plus ``2u`` of the largest ``|m|`` involved;
    * multinomial sums: see :func:`_multinomial`.

    The bounds are worst-case sums, so they are loose by orders of magnitude (about
    ``1e-13`` relative in delta after a thousand uses) and never below the true error.
    """

    loss: float = 0.0
    log: float = 0.0
    keep: float = 0.0
    total: float = 0.0

    def __add__(self, other: Rounding) -> Rounding:
        return Rounding(self.loss + other.loss, self.log + other.log,
                        max(self.keep, other.keep) + _U, _up_pos(self.total + other.total))

    def scaled(self, k: int) -> Rounding:
        """The error of a sum of ``k`` copies (plus the rounding of the product by k)."""
        return Rounding(k * self.loss, k * self.log, self.keep + _U, _up_pos(k * self.total))

    def plus(self, loss: float = 0.0, log: float = 0.0, keep: float = 0.0) -> Rounding:
        return Rounding(self.loss + loss, self.log + log, self.keep + keep, self.total)


def _up_pos(x: float) -> float:
    """``x`` stepped up one double, except an exact 0 (a distribution's total)."""
    return _up(x) if x else 0.0


def _log_total_up(lp: np.ndarray, p: np.ndarray | None) -> float:
    """An upper bound on ``max(0, ln sum P)``: from the probabilities themselves (their sum
    correctly rounded by ``math.fsum`` plus its exact residual), else from the ``exp`` of
    the logarithms with their rounding bound."""
    if p is not None:
        s = math.fsum(p)
        x = (s - 1.0) + math.fsum([*p, -s])  # s - 1 exact (Sterbenz); the residual exact
        return 0.0 if x <= 0 else _up(math.log1p(x) * (1 + 4 * _U) + 4 * _U * x, 2)
    fin = lp[lp > -np.inf]
    s = math.fsum(np.exp(fin))
    slack = (fin.size + 4) * _U * (1 + 2 * _amax(fin)) * max(s, 1.0)
    x = s - 1.0 + slack
    return 0.0 if x <= 0 else _up(math.log1p(x) * (1 + 4 * _U), 2)


def _amax(x: np.ndarray) -> float:
    """Largest absolute finite value (0 for an empty array)."""
    fin = x[np.isfinite(x)]
    return float(np.max(np.abs(fin))) if fin.size else 0.0


def _logsumexp(x: np.ndarray) -> float:
    """``ln sum exp(x)`` for a non-empty 1-D array (called once per epsilon: kept light)."""
    top = float(x.max())
    if not math.isfinite(top):
        return top
    return top + math.log(float(np.exp(x - top).sum()))


def _group_logsumexp(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``ln sum exp`` of each run ``values[starts[i]:starts[i + 1]]`` (runs of -inf give -inf)."""
    top = np.maximum.reduceat(values, starts)
    safe = np.where(np.isfinite(top), top, 0.0)
    counts = np.diff(np.append(starts, values.size))
    with np.errstate(divide="ignore"):
        return safe + np.log(np.add.reduceat(np.exp(values - np.repeat(safe, counts)), starts))


def _log_keep(lost: float, kept: float) -> float:
    """``ln`` of the kept mass, from whichever of ``lost`` and ``kept`` is the smaller."""
    if lost < kept:
        return math.log1p(-lost)
    return math.log(kept) if kept > 0 else -math.inf


# --------------------------------------------------------------------------- the atoms
@value_view
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
        ``ln`` of the fraction of P's total mass at finite losses (``0`` when no output has
        ``P' = 0 < P``): ``ln P(L < inf)`` for a distribution; a stored row may sum to
        ``1 + 1e-16``, whose excess :attr:`Rounding.total` carries.
    shift : float
        An upper bound on how far losses were moved up when nearly equal atoms were merged;
        the true hockey-stick lies in ``[delta(eps + shift), delta(eps)]`` and the true
        ``eps(delta)`` in ``[eps(delta) - shift, eps(delta)]``.
    log_masses_prime : ndarray, optional
        ``ln P'(L = l_i)``; by default ``ln P(L = l_i) - l_i``, exact for unmerged atoms.
    log_keep_prime : float
        ``ln P'(L > -inf)`` (``0`` when no output has ``P = 0 < P'``).
    err : Rounding
        Bounds on the floating-point error of the stored losses and masses; :meth:`delta`
        and :meth:`epsilon` widen their answers by them, so both are upper bounds on the
        exact values (``docs/outward_rounding.md``).
    log_errs : ndarray, optional
        Per atom, a bound on the error of its ``ln P`` mass beyond ``err.log`` (default 0):
        the error of an atom is proportional to the size of its own logarithms, so a tail
        atom of mass 1e-300 does not widen the bound of the atoms that matter. (The ``ln P'``
        masses serve the trade-off curves and carry no bound.)
    """

    losses: np.ndarray
    log_masses: np.ndarray
    log_keep: float = 0.0
    shift: float = 0.0
    log_masses_prime: np.ndarray = None  # type: ignore[assignment]
    log_keep_prime: float = 0.0
    err: Rounding = Rounding()
    log_errs: np.ndarray = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.log_masses_prime is None:
            object.__setattr__(self, "log_masses_prime", self.log_masses - self.losses)
        if self.log_errs is None:
            object.__setattr__(self, "log_errs", np.zeros(self.losses.shape))

    @classmethod
    def from_log_masses(cls, log_p: Any, log_q: Any, *,
                        probabilities: tuple[np.ndarray, np.ndarray] | None = None
                        ) -> LossAtoms:
        """The atoms of a pair given per output: ``log_p = ln P[y]``, ``log_q = ln P'[y]``
        (``-inf`` where a probability is 0; not validated). Equal losses are merged.

        Each stored loss is an upper bound on the exact one: from the ``probabilities``
        ``(P, P')`` themselves when given (:func:`mechdesign._exact.log_ratio`: exact 0 for
        equal entries, at most 8 ulps above otherwise), else ``ln P - ln P'`` raised by the
        logarithms' error bound (each within ``2u`` of its size) and rounded up.
        """
        lp = np.ravel(np.asarray(log_p, dtype=float))
        lq = np.ravel(np.asarray(log_q, dtype=float))
        has_p, has_q = lp > -np.inf, lq > -np.inf
        fin = has_p & has_q
        p_fin, q_fin = np.exp(lp[fin]).sum(), np.exp(lq[fin]).sum()
        # the kept fraction of P's total mass (rows may sum to 1 + 1e-16: the total is
        # Rounding.total), from whichever of lost and kept is the smaller
        lost = float(np.exp(lp[has_p & ~has_q]).sum())
        s = lost + float(p_fin)
        log_keep = _log_keep(lost / s, float(p_fin) / s) if s > 0 else 0.0
        log_keep_q = _log_keep(float(np.exp(lq[has_q & ~has_p]).sum()), float(q_fin))
        if probabilities is not None:
            L = log_ratio(np.ravel(probabilities[0])[fin], np.ravel(probabilities[1])[fin])
        else:
            d = lp[fin] - lq[fin]
            L = _up_nonzero(d + 2 * _U * (np.abs(lp[fin]) + np.abs(lq[fin]) + np.abs(d)))
        scale = float(np.max(np.abs(L))) if L.size else 1.0
        # each logarithm within 2u of its size; the kept masses are sums of n exps
        big = max(_amax(lp), _amax(lq))
        err = Rounding(keep=2 * (2 * _U * big + (lp.size + 6) * _U),
                       total=_log_total_up(lp, None if probabilities is None
                                           else np.ravel(probabilities[0])))
        e = 2 * _U * np.abs(lp[fin])
        return _merge(L, lp[fin], lq[fin], e, scale, (log_keep, log_keep_q), 0.0, err)

    @classmethod
    def from_losses(cls, losses: Any, log_masses: Any, log_keep: float = 0.0, *,
                    scale: float | None = None, err: Rounding | None = None,
                    log_errs: Any = None) -> LossAtoms:
        """Atoms with the given losses and ``ln P`` masses, in any order (``ln P'`` masses
        ``ln P - l``); equal losses (to ``MERGE_RTOL * scale``, default the largest absolute
        loss) are merged, atoms of mass 0 dropped. ``err`` and the per-atom ``log_errs``
        bound the error of the given values (see :class:`Rounding`); without them the values
        are taken as exact."""
        L = np.asarray(losses, dtype=float).ravel()
        lp = np.asarray(log_masses, dtype=float).ravel()
        if scale is None:
            scale = float(np.max(np.abs(L))) if L.size else 1.0
        e = np.zeros(L.shape) if log_errs is None else np.asarray(log_errs, float).ravel()
        return _merge(L, lp, lp - L, e, scale, (log_keep, 0.0), 0.0, err or Rounding())

    @property
    def mass_inf(self) -> float:
        """``P(L = inf)``, the delta at every epsilon."""
        return float(-math.expm1(self.log_keep))

    @property
    def mass_minus_inf(self) -> float:
        """``P'(L = -inf)``: the P'-mass of the outputs that P never produces."""
        return float(-math.expm1(self.log_keep_prime))

    @property
    def n_atoms(self) -> int:
        """Number of finite atoms."""
        return int(self.losses.size)

    def key(self) -> tuple:
        """Equal keys mean identical distributions (so identical composed results)."""
        return (self.losses.tobytes(), self.log_masses.tobytes(), self.log_keep, self.shift,
                self.log_masses_prime.tobytes(), self.log_keep_prime,
                (self.err.loss, self.err.log, self.err.keep), self.log_errs.tobytes())

    def delta(self, epsilon: Any) -> Any:
        r"""An upper bound on the exact hockey-stick divergence at ``epsilon`` (a float or
        an array):

        .. math:: \delta(\varepsilon) = P(L = \infty) + \sum_{l_i > \varepsilon}
                  e^{\ln m_i + \ln(1 - e^{\varepsilon - l_i})}

        summed in log space (``logsumexp``), so tiny deltas keep their relative precision,
        then widened by the stored rounding bounds (:class:`Rounding`) and the evaluation's
        own: the sum is taken at ``epsilon - err.loss`` (rounded down), multiplied by
        ``e^{err.log}`` and its evaluation bound, and rounded up (:meth:`_finite_up`).
        """
        eps = np.asarray(epsilon, dtype=float)
        flat = np.atleast_1d(eps).ravel()
        out = np.empty(flat.size)
        inf_mass = self.mass_inf_up
        for i, e in enumerate(flat):
            total = inf_mass + self._finite_up(float(e))  # 0 only when both are
            out[i] = min(1.0, _up(total)) if total > 0 else 0.0
        return float(out[0]) if eps.ndim == 0 else out.reshape(eps.shape)

    @property
    def mass_inf_up(self) -> float:
        """An upper bound on ``P(L = inf)`` (the stored ``log_keep`` widened by
        ``err.keep``)."""
        if self.log_keep == 0.0:
            return 0.0
        widened = self.log_keep * (1.0 + self.err.keep + 4 * _U)
        total = self.err.total  # ln of P's total mass, from above (0: a distribution)
        # log_keep is ln of the kept FRACTION of the total: P(L = inf) = e^T (1 - e^K); the
        # exp, expm1 and product within 4 ulps
        return min(1.0, _up(math.exp(total) * -math.expm1(widened), 4))

    def _finite_delta(self, eps: float, start: int | None = None) -> float:
        """The finite atoms' part of the divergence at ``eps`` as stored (no widening)."""
        if start is None:
            start = int(np.searchsorted(self.losses, eps, side="right"))
        if start >= self.losses.size or math.isinf(eps):
            return 0.0
        L = self.losses[start:]
        terms = self.log_masses[start:] + np.log(-np.expm1(eps - L))
        return math.exp(_logsumexp(terms))

    def _finite_up(self, eps: float) -> float:
        r"""An upper bound on the finite atoms' part of the exact divergence at ``eps``.

        With ``l <= l_stored + err.loss`` for every true loss, ``(1 - e^{eps - l})_+ <=
        (1 - e^{e' - l_stored})_+`` at ``e' = eps - err.loss``, and each true mass is at most
        ``e^{err.log + log_errs}`` times the stored one. The evaluation, per term: ``e' - l``
        and ``expm1`` within ``3u`` relative, its ``log`` ``2u`` of its size, the sum with
        ``ln m`` one rounding (``5u + 4u |term|`` in all); then ``logsumexp`` of n terms
        ``(2n + 6) u`` plus ``2u`` of its size, ``exp`` one ulp: all added in log space, and
        the result rounded up two doubles.
        """
        if math.isinf(eps):
            return 0.0
        e = _down(eps - self.err.loss) if self.err.loss else eps
        start = int(np.searchsorted(self.losses, e, side="right"))
        if start >= self.losses.size:
            return 0.0
        L = self.losses[start:]
        with np.errstate(divide="ignore"):
            terms = self.log_masses[start:] + np.log(-np.expm1(e - L))
        alive = terms > -np.inf
        live = terms[alive]
        if live.size == 0:
            return 0.0
        per_term = self.log_errs[start:][alive] + 4 * _U * np.abs(live) + 5 * _U
        top = _logsumexp(live + per_term)
        slack = self.err.log + (2 * live.size + 8) * _U + 4 * _U * abs(top)
        return _up(math.exp(top + slack), 2)

    def epsilon(self, delta: float) -> float:
        r"""The smallest double ``eps >= 0`` at which :meth:`delta` (an upper bound) is at
        most ``delta``, so an upper bound on the exact smallest epsilon (``inf`` if none).

        ``delta(eps)`` is continuous and non-increasing; between two consecutive losses the
        set of active atoms is fixed. A bisection over the atoms finds that piece, a
        root-finder (Brent) solves on it, and the root is then stepped up double by double
        until the upper bound meets ``delta`` (a few steps), so the answer is certified by the
        same evaluation :meth:`delta` reports.
        """
        target = check_delta(delta)
        if self.mass_inf_up > target:
            return math.inf
        if self.delta(0.0) <= target:
            return 0.0
        le = self.err.loss
        # beyond the largest loss (widened) the finite part is 0: delta = mass_inf_up
        top = _up(float(self.losses[-1]) + le, 4) if self.n_atoms else 0.0
        while self.delta(top) > target:  # pragma: no cover (rounding at the far end)
            top = _up(top, 64)
        nodes = np.unique(np.concatenate(([0.0], self.losses[self.losses + le > 0] + le,
                                          [top])))
        nodes = nodes[(nodes >= 0.0) & (nodes <= top)]
        lo, hi = 0, nodes.size - 1  # delta(nodes[lo]) > target >= delta(nodes[hi])
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.delta(float(nodes[mid])) > target:
                lo = mid
            else:
                hi = mid
        a, b = float(nodes[lo]), float(nodes[hi])

        def g(e: float) -> float:
            return self.delta(e) - target

        if a < b and g(a) > 0 and g(b) < 0:
            e = float(brentq(g, a, b, xtol=1e-15, rtol=4 * np.finfo(float).eps,
                             maxiter=200))
        else:
            e = b
        return _certified_up(g, e, b)

    def compose(self, other: LossAtoms, max_atoms: int | None = None) -> LossAtoms:
        """The distribution of the product pair ``(P x Q, P' x Q')``: losses add (a
        convolution of the atoms, merged). ``max_atoms`` defaults to :data:`MAX_ATOMS`."""
        return _convolve(self, other, *_limit(max_atoms))

    def self_compose(self, k: int, max_atoms: int | None = None,
                     method: Literal["auto", "powering", "multinomial"] = "auto") -> LossAtoms:
        r"""The k-fold product pair ``(P^k, P'^k)``: the k-fold convolution of the atoms.

        ``"powering"``: repeated squaring with merging; each mass is a sum of products formed
        in log space, with a relative error of a few ulps per squaring. ``"multinomial"``:
        one atom per count vector ``c`` (``c_i`` uses of atom ``i``, ``sum c = k``),

        .. math:: P\big(L = \textstyle\sum_i c_i l_i\big) \mathrel{+}=
                  \frac{k!}{\prod_i c_i!} \prod_i P(L = l_i)^{c_i},

        in log space, the coefficient by :func:`log_multinomial` (about two ulps of its value:
        2.3e-13 at k = 1000, the relative error of the masses). ``"auto"`` takes the one that
        forms fewer terms: the multinomial sum forms ``m C(k + m - 1, m - 1)``; powering forms
        the squares of the intermediate distributions, whose sizes are their count vectors when
        no sums coincide, and about ``j s + 1`` atoms for the j-fold when the 2-fold has
        ``2 s + 1`` atoms, fewer than ``m (m + 1) / 2`` (sums coincide: a lattice). 1000-fold
        binary randomized response: 2 x 1001 terms against about 1.3 million pairs, and
        measured many times faster (``benchmarks/composition_vs_dp_accounting.py``; numbers
        in ``benchmarks/README.md``, "Composition against dp-accounting").
        """
        k = check_int(k, "k", 1)
        if method not in ("auto", "powering", "multinomial"):
            raise InvalidParameterError(
                f"method must be 'auto', 'powering' or 'multinomial', got {method!r}")
        limit, name = _limit(max_atoms)
        m = self.n_atoms
        if k == 1:
            return self
        if m == 0:
            return LossAtoms(_EMPTY, _EMPTY, k * self.log_keep, 0.0, _EMPTY,
                             k * self.log_keep_prime, self.err.scaled(k), _EMPTY)
        if method == "auto":
            terms = _n_count_vectors(k, m, _HUGE) * m
            pairs = _powering_pairs(m, k, min(terms, _HUGE), self._lattice_span())
            method = "powering" if pairs < terms else "multinomial"
            if method == "powering":
                try:
                    return power_by_squaring(self, k, _combiner(limit, name))
                except SizeLimitError:
                    method = "multinomial"
        if method == "powering":
            return power_by_squaring(self, k, _combiner(limit, name))
        return _multinomial(self, k, limit, name)

    def _lattice_span(self) -> int | None:
        """``s`` when sums of two losses coincide (the 2-fold has fewer than
        ``m (m + 1) / 2`` atoms) and it has ``2 s`` or ``2 s + 1`` atoms (about a lattice of
        ``s`` steps), else None; None also when the ``m^2`` pairs are too many to form."""
        m = self.n_atoms
        if m * m > min(MAX_ATOMS, MAX_PAIRS):
            return None
        two_fold = _convolve(self, self, MAX_ATOMS, "MAX_ATOMS").n_atoms
        return two_fold // 2 if two_fold < m * (m + 1) // 2 else None


def _certified_up(g: Callable[[float], float], e: float, b: float) -> float:
    """A double near ``e`` with ``g <= 0`` whose next double below has ``g > 0`` (or is below
    0), given ``g(b) <= 0``: ``e`` stepped up until ``g(e) <= 0`` (bisection over the doubles
    up to ``b`` if 64 steps do not reach it), then down while ``g`` stays ``<= 0``."""
    for _ in range(64):
        if g(e) <= 0:
            break
        e = _up(e)
    else:
        lo, hi = e, b
        while _up(lo) < hi:
            mid = lo + (hi - lo) / 2
            if mid <= lo or mid >= hi:
                break
            if g(mid) > 0:
                lo = mid
            else:
                hi = mid
        return hi
    for _ in range(64):
        d = _down(e)
        if d < 0.0 or g(d) > 0:
            break
        e = d
    return e


def privacy_loss_atoms(P: Any, P_prime: Any) -> LossAtoms:
    r"""The privacy-loss atoms of the pair ``(P, P')``: ``L_y = ln P[y] - ln P'[y]`` with masses
    ``P[y]`` and ``P'[y]`` (``P'[y] = 0 < P[y]`` is the atom ``+inf``, ``P[y] = 0 < P'[y]``
    the atom ``-inf``). Equal losses are merged (Huang & Canonne Def 2.2 via the hockey-stick
    identity ``H_{e^eps}(P||P') = E_P[(1 - e^{eps - L})_+]``).
    """
    p = np.asarray(P, dtype=float)
    q = np.asarray(P_prime, dtype=float)
    if p.ndim != 1 or p.shape != q.shape:
        raise InvalidMechanismError(
            f"P and P' must be 1-D of equal length, got shapes {p.shape} and {q.shape}")
    if (p < 0).any() or (q < 0).any() or not (np.isfinite(p).all() and np.isfinite(q).all()):
        raise InvalidMechanismError("P and P' must be finite and non-negative")
    with np.errstate(divide="ignore"):
        return LossAtoms.from_log_masses(np.log(p), np.log(q), probabilities=(p, q))


def compose_atoms(groups: Sequence[tuple[LossAtoms, int]],
                  max_atoms: int | None = None) -> LossAtoms:
    """The exact composition of independent uses: ``(atoms, count)`` means ``count`` uses of
    the pair with those atoms. Each group is self-composed, then the parts are composed from
    the smallest up. Raises :class:`~mechdesign.errors.SizeLimitError` past the limits."""
    parts = sorted((a.self_compose(c, max_atoms) for a, c in groups), key=lambda t: t.n_atoms)
    result = parts[0]
    for part in parts[1:]:
        result = result.compose(part, max_atoms)
    return result


# --------------------------------------------------------------------------- merging
def _limit(max_atoms: int | None) -> tuple[int, str]:
    """The size limit and the name the error message gives it."""
    return (MAX_ATOMS, "MAX_ATOMS") if max_atoms is None else (max_atoms, "max_atoms")


def _check_size(n: int, limit: int, name: str) -> None:
    if n > limit:
        raise SizeLimitError(
            f"the composition has {n} distinct privacy losses, more than {name} = {limit} "
            "(the losses do not collapse onto a lattice); compose fewer uses, or use a grid "
            "bracket (compose) or the Gaussian approximation (trade-off curves)")


def _merge(L: np.ndarray, lp: np.ndarray, lq: np.ndarray, e: np.ndarray, scale: float,
           keeps: tuple[float, float], shift: float, err: Rounding) -> LossAtoms:
    """Sort atoms, merge losses closer than ``MERGE_RTOL * scale`` (to the largest, masses
    summed in log space), drop atoms of no mass; ``keeps = (log_keep, log_keep_prime)``;
    ``e`` bounds each term's log-mass error (beyond ``err``), and a merged atom's bound is
    its terms' largest plus the ``logsumexp`` rounding of N terms, ``(2N + 6) u`` and ``2u``
    of the largest logarithm involved (:class:`Rounding`)."""
    live = (lp > -np.inf) | (lq > -np.inf)
    if not live.all():
        L, lp, lq, e = L[live], lp[live], lq[live], e[live]
    if L.size == 0:
        return LossAtoms(_EMPTY, _EMPTY, keeps[0], shift, _EMPTY, keeps[1], err, _EMPTY)
    order = np.argsort(L, kind="stable")
    L, lp, lq, e = L[order], lp[order], lq[order], e[order]
    tol = MERGE_RTOL * max(scale, 1.0)
    starts = np.concatenate(([0], np.flatnonzero(np.diff(L) > tol) + 1))
    if starts.size == L.size:
        return LossAtoms(L, lp, keeps[0], shift, lq, keeps[1], err, e)
    ends = np.concatenate((starts[1:], [L.size])) - 1
    moved = float(np.max(L[ends] - L[starts]))
    mp, mq = _group_logsumexp(lp, starts), _group_logsumexp(lq, starts)
    e = _merged_errors(lp, e, mp, starts, ends - starts + 1)
    return LossAtoms(L[ends], mp, keeps[0], shift + moved, mq, keeps[1], err, e)


def _merged_errors(lp: np.ndarray, e: np.ndarray, merged: np.ndarray, starts: np.ndarray,
                   group: np.ndarray) -> np.ndarray:
    r"""The log-mass error bound of each merged atom ``ln sum_i m_i`` (runs from ``starts``).

    If each ``|ln m_i - ln m_i^exact| <= e_i`` then the exact sum is at most
    ``sum_i m_i e^{e_i}``, and with weights ``w_i = m_i / sum m`` and ``e^x <= 1 + x (1 + x)``
    (``0 <= x <= 1``), ``ln sum_i w_i e^{e_i} <= (1 + max e) sum_i w_i e_i``: the mass-weighted
    mean, so a tail term of mass 1e-300 and a large error does not widen the atom (the weights
    are computed to far better than the ``1e-6`` relative margin added). Above ``max e = 1``
    the plain maximum is used. Then the ``logsumexp`` of N terms: ``(2N + 6) u`` (their
    ``exp``, sum and the ``log``; the shifted arguments' rounding is below ``u / e`` each,
    relative to the sum) and ``2u`` of the result's size.
    """
    counts = np.diff(np.append(starts, lp.size))
    top = np.repeat(merged, counts)
    with np.errstate(invalid="ignore", over="ignore"):
        w = np.exp(np.where(np.isfinite(top), lp - top, -np.inf))
    emax = np.maximum.reduceat(e, starts)
    mean = np.add.reduceat(w * e, starts) * (1.0 + emax) * (1.0 + 1e-6)
    base = np.where(emax <= 1.0, np.minimum(mean, emax), emax)
    size = np.abs(np.where(np.isfinite(merged), merged, 0.0))
    return base + (2 * group + 6) * _U + 2 * _U * size


def _accumulate(blocks: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
                scale: float, keeps: tuple[float, float], shift: float, limit: int, name: str,
                err: Rounding) -> LossAtoms:
    """Merge blocks of ``(losses, ln P, ln P', log-mass error)`` terms into one
    distribution, checking the size after each block (a non-collapsing composition stops
    after a few blocks)."""
    out: LossAtoms | None = None
    for L, lp, lq, e in blocks:
        if out is not None:
            L = np.concatenate((out.losses, L))
            lp = np.concatenate((out.log_masses, lp))
            lq = np.concatenate((out.log_masses_prime, lq))
            e = np.concatenate((out.log_errs, e))
        # atoms of out were moved by at most out.shift >= shift: the moves add
        out = _merge(L, lp, lq, e, scale, keeps, shift if out is None else out.shift, err)
        _check_size(out.n_atoms, limit, name)
    assert out is not None
    return out


def _scale(atoms: LossAtoms, k: int = 1) -> float:
    return k * (float(np.max(np.abs(atoms.losses))) if atoms.n_atoms else 0.0)


# --------------------------------------------------------------------------- composition
def _convolve(a: LossAtoms, b: LossAtoms, limit: int, name: str) -> LossAtoms:
    """All sums of a loss of ``a`` and one of ``b`` (masses multiply), merged; the pairs are
    formed in blocks of at most ``_BLOCK``."""
    keeps = (a.log_keep + b.log_keep, a.log_keep_prime + b.log_keep_prime)
    err = a.err + b.err
    if a.n_atoms == 0 or b.n_atoms == 0:
        return LossAtoms(_EMPTY, _EMPTY, keeps[0], a.shift + b.shift, _EMPTY, keeps[1], err,
                         _EMPTY)
    n = a.n_atoms * b.n_atoms
    if n > MAX_PAIRS:
        raise SizeLimitError(
            f"composing {a.n_atoms} x {b.n_atoms} = {n} pairs of privacy-loss atoms exceeds "
            f"MAX_PAIRS = {MAX_PAIRS}; compose fewer uses, or use a grid bracket (compose) or "
            "the Gaussian approximation (trade-off curves)")
    rows = max(1, _BLOCK // b.n_atoms)

    def blocks() -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        for i in range(0, a.n_atoms, rows):
            lp = np.add.outer(a.log_masses[i:i + rows], b.log_masses).ravel()
            lq = np.add.outer(a.log_masses_prime[i:i + rows], b.log_masses_prime).ravel()
            # the operands' errors add; each sum of two log masses is rounded once, each
            # sum of two losses rounded up
            e = (np.add.outer(a.log_errs[i:i + rows], b.log_errs).ravel()
                 + _U * np.abs(np.where(np.isfinite(lp), lp, 0.0)))
            yield (_up_nonzero(np.add.outer(a.losses[i:i + rows], b.losses).ravel()),
                   lp, lq, e)

    return _accumulate(blocks(), _scale(a) + _scale(b), keeps, a.shift + b.shift, limit,
                       name, err)


def _combiner(limit: int, name: str) -> Callable[[LossAtoms, LossAtoms], LossAtoms]:
    return lambda a, b: _convolve(a, b, limit, name)


def _n_count_vectors(k: int, m: int, cap: int) -> int:
    """``C(k + m - 1, m - 1)`` (the count vectors of k uses of m atoms), or ``cap + 1`` when
    it exceeds ``cap`` (decided in floating point first: the exact binomial can be huge)."""
    log_n = math.lgamma(k + m) - math.lgamma(k + 1) - math.lgamma(m)
    if log_n > math.log(cap) + 1.0:
        return cap + 1
    return min(math.comb(k + m - 1, m - 1), cap + 1)


def _powering_pairs(m: int, k: int, cap: int, span: int | None = None) -> int:
    """Atom pairs repeated squaring forms for k uses of m atoms, or ``cap + 1`` once the count
    passes ``cap``. The j-fold is counted at its count vectors (no sums coincide), or at
    ``j span + 1`` atoms when that is fewer (a lattice of ``span`` steps)."""
    def atoms(j: int) -> int:
        n = _n_count_vectors(j, m, cap)
        return n if span is None else min(n, j * span + 1)

    total, result, base = 0, 0, 1
    while True:
        if k & 1:
            if result:
                total += atoms(result) * atoms(base)
            result += base
        k >>= 1
        if not k or total > cap:
            return min(total, cap + 1)
        total += atoms(base) ** 2
        base *= 2


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


def _count_vector_blocks(k: int, m: int, block: int) -> Iterator[np.ndarray]:
    """The count vectors of :func:`_compositions` in blocks of about ``block`` rows (split on
    the first count; consecutive small parts are joined)."""
    if m == 1 or math.comb(k + m - 1, m - 1) <= block:
        yield _compositions(k, m)
        return
    pending: list[np.ndarray] = []
    rows = 0
    for c in range(k + 1):
        n = math.comb(k - c + m - 2, m - 2)
        if n > block:
            for rest in _count_vector_blocks(k - c, m - 1, block):
                yield np.hstack([np.full((len(rest), 1), c, dtype=np.int64), rest])
            continue
        if pending and rows + n > block:
            yield np.vstack(pending)
            pending, rows = [], 0
        pending.append(np.hstack([np.full((n, 1), c, dtype=np.int64),
                                  _compositions(k - c, m - 1)]))
        rows += n
    if pending:
        yield np.vstack(pending)


def _multinomial(atoms: LossAtoms, k: int, limit: int, name: str) -> LossAtoms:
    """The k-fold distribution as the multinomial sum over count vectors (in blocks)."""
    m = atoms.n_atoms
    terms = _n_count_vectors(k, m, _HUGE) * m
    if terms > MAX_PAIRS:
        count = f"more than {_HUGE:.3g}" if terms > _HUGE else f"{terms}"
        raise SizeLimitError(
            f"the {k}-fold composition of {m} atoms sums {count} terms (count vectors times "
            f"atoms), more than MAX_PAIRS = {MAX_PAIRS}; compose fewer uses, or use a grid "
            "bracket (compose) or the Gaussian approximation (trade-off curves)")

    abs_p, abs_l = np.abs(atoms.log_masses), np.abs(atoms.losses)
    coef_size = (m + 1) * (math.log(2 * math.pi * k) + 1)

    def blocks() -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        for C in _count_vector_blocks(k, m, max(1, _BLOCK // m)):
            coef = log_multinomial(C)
            # a dot product of m terms is within (m + 1) u of sum c |x| (losses then
            # rounded up)
            dot = C @ atoms.losses + (m + 1) * _U * (C @ abs_l)
            lp = coef + C @ atoms.log_masses
            lq = coef + C @ atoms.log_masses_prime
            e = (C @ atoms.log_errs + (m + 1) * _U * (C @ abs_p)
                 + (m + 6) * _U * (np.abs(coef) + coef_size) + (m + 1) * 4e-16
                 + _U * np.abs(lp))
            yield _up_nonzero(dot), lp, lq, e

    keeps = (k * atoms.log_keep, k * atoms.log_keep_prime)
    return _accumulate(blocks(), _scale(atoms, k), keeps, k * atoms.shift, limit, name,
                       atoms.err.scaled(k))
    # log masses (:class:`Rounding`): each carries k base errors and the dot product's
    # (m + 1) u sum c |ln m|, plus the error of log_multinomial: its entropy sum of m
    # non-negative terms (three roundings each) within (m + 6) u of its size, its m + 1
    # Stirling remainders and ln(2 pi c) terms within 4u (ln(2 pi k) + 1) each plus the
    # series' truncation (below 4e-16 each), and the final sum's rounding.


# --------------------------------------------------------------------------- the grid
@dataclass(frozen=True, eq=False)
class _Grid:
    """A gridded loss distribution as computed: ``probs = exact * (1 + theta) + e`` entrywise,
    ``|theta| <= rel``, ``||e||_1 <= err`` (exact = the convolution in exact arithmetic)."""

    offset: int
    probs: np.ndarray
    log_keep: float
    rel: float
    err: float
    total: float = 0.0  # Rounding.total of the atoms (ln of P's total mass, from above)


def _to_grid(atoms: LossAtoms, h: float, pessimistic: bool) -> _Grid:
    if atoms.n_atoms == 0:
        return _Grid(0, np.zeros(1), atoms.log_keep, 0.0, 0.0, atoms.err.total)
    x = atoms.losses / h
    r = np.rint(x)
    x = np.where(np.abs(x - r) <= SNAP_TOL, r, x)
    idx = (np.ceil(x) if pessimistic else np.floor(x)).astype(np.int64)
    lo = int(idx.min())
    probs = np.zeros(int(idx.max()) - lo + 1)
    np.add.at(probs, idx - lo, np.exp(atoms.log_masses))
    # exp and the bin sums of non-negative terms: relative error <= (atoms + 1) u, and the
    # atoms' own log-mass bounds (Rounding.log and the largest per-atom one)
    own = math.expm1(atoms.err.log + float(np.max(atoms.log_errs)))
    rel = (1 + (atoms.n_atoms + 1) * _UNIT) * (1 + own) - 1
    return _Grid(lo, probs, atoms.log_keep, rel, 0.0, atoms.err.total)


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
    if nza.size * nzb.size <= _DIRECT_TERMS:  # sparse direct: bin sums of non-negative products
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
        from scipy.signal import fftconvolve  # imports scipy.stats: only when used

        c = np.maximum(fftconvolve(a.probs, b.probs), 0.0)
        l2 = 10.0 * _UNIT * math.log2(n) * float(np.linalg.norm(a.probs)
                                                  * np.linalg.norm(b.probs))
        err += math.sqrt(n) * l2
    return _Grid(a.offset + b.offset, c, a.log_keep + b.log_keep, rel, err,
                 _up_pos(a.total + b.total))


def _grid_atoms(g: _Grid, h: float, shift: float) -> LossAtoms:
    nz = np.flatnonzero(g.probs > 0)
    L = (g.offset + nz) * h + shift
    lp = np.log(g.probs[nz])
    # the loss is two roundings off its grid point (a margin of 2u |l|), each log within 2u
    # of its size; the masses' own error is the grid's (rel, err) bound
    return LossAtoms(L, lp, g.log_keep, 0.0,
                     err=Rounding(loss=2 * _U * _amax(L), total=g.total),
                     log_errs=2 * _U * np.abs(lp))


@value_view
@dataclass(frozen=True, eq=False)
class LossBracket:
    """What is known of one composed privacy-loss distribution.

    Exact (:meth:`of_atoms`): ``upper`` holds the merged atoms, whose losses are at most
    ``shift`` above the true ones, so ``delta(eps + shift) <= true delta(eps) <= delta(eps)``
    and ``eps(delta) - shift <= true eps(delta) <= eps(delta)``.
    Grid (:func:`grid_bracket`): ``upper``/``lower`` are the pessimistic/optimistic atoms;
    their finite parts are ``true * (1 + theta) + e`` with ``|theta| <= rel``, ``|e| <= err``
    (in delta).
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

    @classmethod
    def of_atoms(cls, atoms: LossAtoms) -> LossBracket:
        """The bracket of exact atoms (its width is their merging ``shift``)."""
        base = LossAtoms(atoms.losses, atoms.log_masses, atoms.log_keep, 0.0,
                         atoms.log_masses_prime, atoms.log_keep_prime, atoms.err,
                         atoms.log_errs)
        return cls(base, base, 0.0, 0.0, 0.0, 0.0, True, None, atoms.n_atoms, atoms.shift)

    def delta(self, eps: float) -> tuple[float, float]:
        """``(lower, upper)`` bounds on the hockey-stick divergence at ``eps``; the upper one
        is rigorous (outward rounding), the lower one as computed."""
        if self.exact:
            up = self.upper.delta(eps)
            lo = self.upper.mass_inf + self.upper._finite_delta(
                eps + self.shift + self.upper.err.loss)
            return min(lo, up), up
        inf_u, inf_l = self.upper.mass_inf_up, self.lower.mass_inf
        fu = self.upper._finite_up(eps)
        fl = self.lower._finite_delta(eps)
        total = inf_u + (fu + self.err_upper) / (1 - self.rel_upper)
        up = min(1.0, _up(total, 3)) if total > 0 else 0.0
        lo = max(0.0, inf_l + (fl - self.err_lower) / (1 + self.rel_lower))
        return min(lo, up), up

    def epsilon(self, delta: float) -> tuple[float, float]:
        """``(lower, upper)`` bounds on the smallest eps with ``delta(eps) <= delta``; the
        upper one is rigorous (outward rounding), the lower one as computed."""
        if self.exact:
            up = self.upper.epsilon(delta)
            return max(0.0, up - self.shift - self.upper.err.loss), up
        inf_u, inf_l = self.upper.mass_inf_up, self.lower.mass_inf
        if delta < inf_u:
            up = math.inf
        else:
            t_up = _down(inf_u + max(0.0, (delta - inf_u) * (1 - self.rel_upper)
                                     - self.err_upper), 3)
            up = self.upper.epsilon(min(1.0, max(0.0, t_up)))
        t_lo = inf_l + (delta - inf_l) * (1 + self.rel_lower) + self.err_lower
        lo = self.lower.epsilon(min(1.0, max(0.0, t_lo)))
        return min(lo, up), up


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


def _span(groups: Sequence[tuple[LossAtoms, int]]) -> float:
    return sum(c * (float(a.losses[-1] - a.losses[0]) if a.n_atoms else 0.0)
               for a, c in groups)


def _check_grid_size(groups: Sequence[tuple[LossAtoms, int]], h: float, what: str) -> None:
    """Refuse, before allocating, a composed grid above :data:`MAX_COMPOSED_BINS` bins."""
    step = coarsened_step(h, _span(groups))
    bins = 1
    for a, c in groups:
        if a.n_atoms:
            x = a.losses / step
            bins += c * max(int(np.ceil(x).max() - np.ceil(x).min()),
                            int(np.floor(x).max() - np.floor(x).min()))
    if bins > MAX_COMPOSED_BINS:
        total = sum(c for _, c in groups)
        raise SizeLimitError(
            f"the grid composition of {what} ({total} uses) needs {bins:.3g} bins, "
            f"above the limit of {MAX_COMPOSED_BINS} (MAX_COMPOSED_BINS); use fewer uses "
            "(a smaller k)")


def grid_bracket(groups: Sequence[tuple[LossAtoms, int]], h: float = DEFAULT_GRID,
                 what: str = "the pair") -> LossBracket:
    """The composition of ``(atoms, count)`` groups (as in :func:`compose_atoms`) on a grid
    of step ``h`` (coarsened by :func:`coarsened_step` when the range needs more than
    :data:`MAX_GRID_BINS` bins): every loss rounded up (pessimistic) and down (optimistic),
    convolved with error bounds, the two kept as a :class:`LossBracket`. Because
    ``(1 - e^{eps - s})_+`` is non-decreasing in ``s`` the pessimistic delta is an upper
    bound and the optimistic one a lower bound (``docs/accounting.md`` s.2). ``what`` names
    the composition in the :class:`~mechdesign.errors.SizeLimitError` raised, before
    allocating, above :data:`MAX_COMPOSED_BINS` bins."""
    _check_grid_size(groups, h, what)
    h = coarsened_step(h, _span(groups))
    total = sum(c for _, c in groups)
    # snapping moves each loss by at most SNAP_TOL * h (plus the merging shift of the input
    # atoms): the pessimistic losses are moved up, the optimistic down, by the total.
    snap = total * SNAP_TOL * h + sum(c * a.shift for a, c in groups)
    out = []
    for pessimistic in (True, False):
        parts = [power_by_squaring(_to_grid(a, h, pessimistic), c, _grid_compose)
                 for a, c in groups]
        g = parts[0]
        for p in parts[1:]:
            g = _grid_compose(g, p)
        out.append((_grid_atoms(g, h, snap if pessimistic else -snap), g.rel, g.err))
    (up, ru, eu), (lo, rl, el) = out
    return LossBracket(up, lo, ru, eu, rl, el, False, h, int(up.n_atoms))
