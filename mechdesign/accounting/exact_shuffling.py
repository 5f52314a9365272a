r"""Exact privacy of a shuffled finite randomizer for small n, and robust shuffle privacy.

n users each apply the randomizer Q (k inputs, m outputs) and the reports are shuffled. A
shuffled list of reports carries exactly its histogram, the counts ``h`` of each output, so
the protocol is the map from a dataset to the law of ``h``. Neighbouring datasets differ in
one user's value (x versus x'); the other users' values are fixed. For the other values,
as a count vector ``c`` (``c_z`` users hold z), the histogram of the others has the law
``R_c = (*)_z Mult(c_z, Q[z])`` and

.. math:: P(h) = \sum_y Q[x, y]\,R_c(h - e_y), \qquad
          P'(h) = \sum_y Q[x', y]\,R_c(h - e_y),

    \delta(\varepsilon) = \max_{x \ne x'} \max_{c} H_{e^\varepsilon}(P \| P').

The maximum over c is over every count vector: ``H(A * R || B * R)`` is convex in each
other user's row (joint convexity of the hockey-stick divergence, the convolution being
linear), so deterministic values are the worst case, but "all the others hold one value"
is not: for shuffled binary randomized response with n = 10, eps0 = 2, eps = 0.5 the worst
dataset has 8 others at x and 1 at x' (delta 0.22230 against 0.21833 with all 9 at x).

Computed in log space: the law of the others is built one user at a time (a depth-first
walk over the count vectors shares the prefixes), the two laws of the histogram become
privacy-loss atoms (:class:`~mechdesign.accounting.pld.LossAtoms`), which give delta(eps)
exactly and eps(delta) by bisection on the exact step function. Outputs that no input
produces are dropped and identical columns merged (lossless). For k-ary randomized
response the symmetry of the values reduces the datasets to x = 0, x' = 1 and the other
values' counts in non-increasing order.

Robust shuffle privacy (Huang & Canonne Def 2.6, after Cheu 2021): the guarantee must hold
whenever at least a fraction gamma of the n users follow the protocol. The other users'
reports do not depend on the honest users' data, so the analyst can remove them (known
reports) or they act as a post-processing (random ones): the privacy is that of the
shuffle of the ``ceil(gamma n)`` honest reports, and fewer honest users never help (delta
is non-increasing in the number of honest users, by the same post-processing argument).
``docs/accounting.md`` s.7.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any, Literal

import numpy as np

from .._coerce import as_mechanism
from .._html import value_view
from .._validation import check_delta, check_epsilon, check_int, check_probability
from ..errors import InvalidParameterError, SizeLimitError
from ..privacy.measures import epsilon_ldp
from .amplification import ShuffleBound, ShuffleDelta, ShuffleMethod, shuffle_delta, shuffle_epsilon
from .pld import LossAtoms

__all__ = [
    "MAX_SHUFFLE_WORK",
    "ExactShuffle",
    "exact_shuffle_delta",
    "exact_shuffle_epsilon",
    "honest_users",
    "robust_shuffle_delta",
    "robust_shuffle_epsilon",
]

MAX_SHUFFLE_WORK = 200_000_000
"""Largest number of histogram cells the exact computation may touch (users added times
the cells of the histogram space times its outputs); past it a
:class:`~mechdesign.errors.SizeLimitError` names the estimate."""


def honest_users(n: int, gamma: float) -> int:
    """``ceil(gamma n)``: the fewest honest users when at least a fraction gamma of n are.

    ``gamma`` is read as the decimal it prints as (``0.1`` is 1/10, not the binary double
    slightly above it), so ``honest_users(30, 0.1) == 3``.
    """
    n = check_int(n, "n", 1)
    g = check_probability(gamma, "gamma")
    if g == 0:
        raise InvalidParameterError("gamma must lie in (0, 1], got 0.0")
    return max(1, math.ceil(Fraction(repr(g)) * n))


def robust_shuffle_delta(epsilon0: float, n: int, epsilon: float,
                         gamma: float = 1.0) -> ShuffleDelta:
    """The clone bound (:func:`~mechdesign.accounting.shuffle_delta`) for robust shuffle
    privacy: at least a fraction gamma of the n users are honest, so it is evaluated at
    :func:`honest_users` ``(n, gamma)`` users (Huang & Canonne, remark after Thm 5.2:
    ``n -> gamma n``)."""
    return shuffle_delta(epsilon0, honest_users(n, gamma), epsilon)


def robust_shuffle_epsilon(epsilon0: float, n: int, delta: float, gamma: float = 1.0,
                           method: ShuffleMethod = "numeric") -> ShuffleBound:
    """:func:`~mechdesign.accounting.shuffle_epsilon` at :func:`honest_users` ``(n, gamma)``
    users: the (robust) epsilon when at least a fraction gamma of the n users follow the
    protocol. The returned ``n`` is the number of honest users."""
    return shuffle_epsilon(epsilon0, honest_users(n, gamma), delta, method)


# --------------------------------------------------------------------------- the engine
def _reduced(Q: np.ndarray) -> np.ndarray:
    """Drop the outputs no input produces and merge identical columns (both lossless: an
    identical pair of columns splits its reports by the same fair coin for every input)."""
    Q = Q[:, Q.max(axis=0) > 0]
    cols, counts = np.unique(Q.T, axis=0, return_counts=True)
    return (cols * counts[:, None]).T


def _is_krr(Q: np.ndarray) -> bool:
    """k-ary randomized response: square, one value on the diagonal, one off it."""
    k, m = Q.shape
    if k != m or k < 2:
        return False
    off = Q[~np.eye(k, dtype=bool)]
    return bool((np.diag(Q) == Q[0, 0]).all() and (off == off[0]).all())


def _add_user(L: np.ndarray, lq: np.ndarray) -> np.ndarray:
    """Log-law of the histogram after one more user with log-row ``lq``. ``L`` is indexed
    by the counts of the first ``m - 1`` outputs (the last count is implied)."""
    m = lq.size
    out = L + lq[m - 1]
    for y in range(m - 1):
        if lq[y] == -np.inf:
            continue
        shifted = np.full(L.shape, -np.inf)
        src = [slice(None)] * L.ndim
        dst = [slice(None)] * L.ndim
        src[y], dst[y] = slice(0, -1), slice(1, None)
        shifted[tuple(dst)] = L[tuple(src)] + lq[y]
        out = np.logaddexp(out, shifted)
    return out


@dataclass(frozen=True)
class _Setup:
    logQ: np.ndarray
    honest: int
    pairs: list[tuple[int, int]]
    krr: bool


def _setup(mechanism: Any, n: int, gamma: float) -> _Setup:
    Q = as_mechanism(mechanism).matrix
    h = honest_users(n, gamma)
    R = _reduced(Q)
    k, m = R.shape
    krr = _is_krr(Q)
    pairs = [(0, 1)] if krr else [(x, xp) for x in range(k) for xp in range(k) if x != xp]
    if k < 2:
        raise InvalidParameterError("a mechanism needs at least 2 inputs to have a privacy loss")
    if m > 1:
        cells = (h + 1) ** (m - 1)
        # a lower bound first (at least h count vectors of the others: the first value's
        # count), so that a size far past the limit is refused without walking them
        work = (h - 1 + 2 * len(pairs) * h) * cells * m
        if work <= MAX_SHUFFLE_WORK:
            work = ((_additions(k, h - 1, krr) + 2 * len(pairs) * _leaves(k, h - 1, krr))
                    * cells * m)
        if work > MAX_SHUFFLE_WORK:
            raise SizeLimitError(
                f"the exact shuffle of {h} reports of a {k} x {m} randomizer needs about "
                f"{work:.3g} cell operations (limit MAX_SHUFFLE_WORK = {MAX_SHUFFLE_WORK:.3g}); "
                "use the clone bound (shuffle_epsilon) for large n")
    with np.errstate(divide="ignore"):
        return _Setup(np.log(R), h, pairs, krr)


@lru_cache(maxsize=256)
def _walk_counts(k: int, total: int, krr: bool) -> tuple[int, int]:
    """(users added, leaves) of the depth-first walk of :func:`_others`."""
    @cache
    def walk(z: int, remaining: int, cap: int) -> tuple[int, int]:
        if z == k - 1:
            return (remaining, 1) if remaining <= cap else (0, 0)
        top = min(remaining, cap)
        adds, leaves = top, 0
        for c in range(top + 1):
            a, lv = walk(z + 1, remaining - c, c if krr and z >= 2 else remaining - c)
            adds, leaves = adds + a, leaves + lv
        return adds, leaves

    return walk(0, total, total)


def _additions(k: int, total: int, krr: bool) -> int:
    return _walk_counts(k, total, krr)[0]


def _leaves(k: int, total: int, krr: bool) -> int:
    return _walk_counts(k, total, krr)[1]


def _others(s: _Setup) -> Iterator[tuple[tuple[int, ...], np.ndarray]]:
    """Every count vector of the other ``honest - 1`` users (non-increasing over the values
    2.. for k-RR) with the log-law of their histogram."""
    k, m = s.logQ.shape
    L0 = np.full((s.honest + 1,) * (m - 1), -np.inf)
    L0[(0,) * (m - 1)] = 0.0
    counts = [0] * k

    def walk(z: int, L: np.ndarray, remaining: int, cap: int
             ) -> Iterator[tuple[tuple[int, ...], np.ndarray]]:
        if z == k - 1:
            if remaining > cap:
                return
            for _ in range(remaining):
                L = _add_user(L, s.logQ[z])
            counts[z] = remaining
            yield tuple(counts), L
            return
        top = min(remaining, cap)
        for c in range(top + 1):
            counts[z] = c
            yield from walk(z + 1, L, remaining - c, c if s.krr and z >= 2 else remaining - c)
            if c < top:
                L = _add_user(L, s.logQ[z])

    yield from walk(0, L0, s.honest - 1, s.honest - 1)


def _fixed_others(s: _Setup, others: Sequence[int]) -> Iterator[tuple[tuple[int, ...],
                                                                       np.ndarray]]:
    m = s.logQ.shape[1]
    L = np.full((s.honest + 1,) * (m - 1), -np.inf)
    L[(0,) * (m - 1)] = 0.0
    for z, c in enumerate(others):
        for _ in range(c):
            L = _add_user(L, s.logQ[z])
    yield tuple(others), L


def _check_others(others: Any, k: int, honest: int) -> tuple[int, ...]:
    try:
        vals = [check_int(c, "others", 0) for c in others]
    except TypeError:
        raise InvalidParameterError(
            f"others must be a sequence of {k} counts, got {others!r}") from None
    if len(vals) != k or sum(vals) != honest - 1:
        raise InvalidParameterError(
            f"others must give {k} counts (users per input) summing to {honest - 1} (the "
            f"other honest users), got {others!r}")
    return tuple(vals)


def _worst(mechanism: Any, n: int, gamma: float, others: Any,
           value: Callable[[LossAtoms], float]
           ) -> tuple[float, tuple[int, int], tuple[int, ...], int, _Setup]:
    """Max of ``value(atoms)`` over the neighbouring datasets, with the argmax."""
    s = _setup(mechanism, n, gamma)
    k, m = s.logQ.shape
    if others is None:
        datasets = _others(s)
        pairs = s.pairs
    else:
        datasets = _fixed_others(s, _check_others(others, as_mechanism(mechanism).n_inputs,
                                                  s.honest))
        pairs = [(x, xp) for x in range(k) for xp in range(k) if x != xp]
        s = _Setup(s.logQ, s.honest, pairs, False)
    best, arg, seen = -math.inf, ((0, 1), (0,) * k), 0
    for counts, L in datasets:
        for x, xp in pairs:
            if m == 1:
                atoms = LossAtoms.from_log_masses([0.0], [0.0])
            else:
                atoms = LossAtoms.from_log_masses(_add_user(L, s.logQ[x]).ravel(),
                                                  _add_user(L, s.logQ[xp]).ravel())
            v = value(atoms)
            seen += 1
            if v > best:
                best, arg = v, ((x, xp), counts)
    return best, arg[0], arg[1], seen, s


# --------------------------------------------------------------------------- public
@value_view
@dataclass(frozen=True)
class ExactShuffle:
    """The exact privacy of n shuffled reports of a finite randomizer, beside the clone bound.

    Attributes
    ----------
    epsilon, delta : float
        The protocol is (epsilon, delta)-DP; the solved-for one is exact (max over every
        pair of neighbouring datasets), the other was given.
    solved_for : {"delta", "epsilon"}
    clone_bound : float
        The same quantity from the Feldman-McMillan-Talwar clone bound at ``honest`` users
        and ``epsilon0`` (:func:`~mechdesign.accounting.shuffle_delta` upper end, or
        :func:`~mechdesign.accounting.shuffle_epsilon`): a bound for every
        epsilon0-LDP randomizer, never below the exact value. ``1`` / ``inf`` when the
        randomizer is not LDP for a finite epsilon0.
    epsilon0 : float
        Exact pure LDP epsilon of the randomizer.
    n, honest : int
        Users, and honest users ``ceil(gamma n)`` whose reports are shuffled.
    gamma : float
    worst_pair : tuple of int
        The inputs ``(x, x')`` (row indices) of the differing user at the maximum.
    worst_others : tuple of int
        How many of the other honest users hold each input (row index) at the maximum.
    n_datasets : int
        Neighbouring datasets (pair and others) examined, after the k-RR symmetry.
    """

    epsilon: float
    delta: float
    solved_for: Literal["delta", "epsilon"]
    clone_bound: float
    epsilon0: float
    n: int
    honest: int
    gamma: float
    worst_pair: tuple[int, int]
    worst_others: tuple[int, ...]
    n_datasets: int

    @property
    def value(self) -> float:
        """The solved-for quantity."""
        return self.delta if self.solved_for == "delta" else self.epsilon


def exact_shuffle_delta(mechanism: Any, n: int, epsilon: float, *, gamma: float = 1.0,
                        others: Sequence[int] | None = None) -> ExactShuffle:
    r"""Exact delta(eps) of the histogram of n shuffled reports of a finite randomizer.

    .. math:: \delta(\varepsilon) = \max_{x \ne x'} \max_c H_{e^\varepsilon}\Big(
              Q[x] * \mathop{\ast}_z \mathrm{Mult}(c_z, Q[z]) \,\Big\|\,
              Q[x'] * \mathop{\ast}_z \mathrm{Mult}(c_z, Q[z])\Big)

    over the count vectors c of the other ``honest - 1`` users (``docs/accounting.md``
    s.7), in log space, reported with the clone bound at the same epsilon.

    Parameters
    ----------
    mechanism : Mechanism, EvidentialMechanism (over its messages) or array
    n : int
        Number of users.
    epsilon : float
        Target epsilon (``>= 0``).
    gamma : float
        Robust shuffle privacy: at least a fraction gamma in (0, 1] of the users are honest;
        the reports of ``ceil(gamma n)`` users are shuffled (:func:`honest_users`).
    others : sequence of int, optional
        Fix the other honest users' values (``others[z]`` users hold input z, summing to
        ``honest - 1``) instead of taking the worst case; every ordered pair is then examined.

    Raises
    ------
    SizeLimitError
        Past :data:`MAX_SHUFFLE_WORK` (the work grows like ``n^(m + k - 1)``).
    """
    eps = check_epsilon(epsilon, allow_inf=True)
    d, pair, counts, seen, s = _worst(mechanism, n, gamma, others,
                                      lambda a: float(a.delta(eps)))
    e0 = epsilon_ldp(mechanism)
    clone = 1.0 if math.isinf(e0) else shuffle_delta(e0, s.honest, eps).upper
    return ExactShuffle(eps, min(max(d, 0.0), 1.0), "delta", clone, e0, n, s.honest,
                        float(gamma), pair, counts, seen)


def exact_shuffle_epsilon(mechanism: Any, n: int, delta: float, *, gamma: float = 1.0,
                          others: Sequence[int] | None = None) -> ExactShuffle:
    r"""Exact smallest epsilon with (epsilon, delta)-DP of n shuffled reports: the maximum
    over the neighbouring datasets of each one's eps(delta), found by bisection on its
    exact step function (:meth:`~mechdesign.accounting.LossAtoms.epsilon`); with the clone
    bound's epsilon at the same delta. Arguments as in :func:`exact_shuffle_delta`.
    """
    d = check_delta(delta)
    e, pair, counts, seen, s = _worst(mechanism, n, gamma, others, lambda a: a.epsilon(d))
    e0 = epsilon_ldp(mechanism)
    clone = math.inf if math.isinf(e0) else shuffle_epsilon(e0, s.honest, d).epsilon
    return ExactShuffle(max(e, 0.0), d, "epsilon", clone, e0, n, s.honest, float(gamma),
                        pair, counts, seen)
