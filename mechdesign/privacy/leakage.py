r"""Leakage measures of quantitative information flow (QIF): Bayes and g-vulnerability,
leakage and capacity of a mechanism read as a channel.

A mechanism ``C`` (rows: secrets x, columns: observations y, ``C[x, y] = P(y | x)``) and a
prior ``pi`` on the secrets. An adversary guessing the secret in one try succeeds with
probability (Smith 2009; Alvim, Chatzikokolakis, McIver, Morgan, Palamidessi, Smith, "The
Science of Quantitative Information Flow", Springer 2020, chapters 2-7)

.. math:: V(\pi) = \max_x \pi_x \quad\text{(prior)}, \qquad
          V(\pi, C) = \sum_y \max_x \pi_x C[x, y] \quad\text{(posterior)};

the multiplicative Bayes leakage is ``V(pi, C) / V(pi)`` (its log2 is the min-entropy
leakage, in bits) and the additive one ``V(pi, C) - V(pi)``. A gain function ``g`` (a matrix,
rows: the adversary's actions w, columns: secrets x) generalises the guess:
``V_g(pi) = max_w sum_x pi_x g[w, x]`` and
``V_g(pi, C) = sum_y max_w sum_x pi_x C[x, y] g[w, x]``; the identity gain gives Bayes
vulnerability. The derivations, the capacities and the bound for eps-LDP mechanisms are in
``docs/accounting.md`` ("Leakage measures").

Rational in, rational out: when every entry of the mechanism, the prior and the gain is an
``int`` or a :class:`fractions.Fraction` (never a float, never a :class:`Mechanism`, whose
entries are floats), the computation is exact and returns a ``Fraction``; otherwise it is
in floating point and returns a ``float`` (as the QIF library libqif computes over doubles
or rationals with the same functions). The inputs are validated as in floating point (rows
and prior summing to 1 within 1e-9); the exact value is that of the entries as given
(``Fraction(x)`` of a float ``x`` is the dyadic rational it stores).
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from .._coerce import as_mechanism
from .._validation import as_float_matrix, as_prior, check_epsilon, check_int
from ..errors import InvalidParameterError, SizeLimitError
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism

__all__ = [
    "MAX_ADDITIVE_CAPACITY_WORK",
    "bayes_capacity",
    "bayes_leakage",
    "bayes_vulnerability",
    "g_leakage",
    "g_vulnerability",
    "ldp_capacity_bound",
    "min_entropy_capacity",
    "min_entropy_leakage",
]


Number = float | Fraction
Kind = Literal["multiplicative", "additive"]

MAX_ADDITIVE_CAPACITY_WORK = 2 ** 26
"""Largest ``2^k * m`` (subsets of inputs times outputs) of :func:`bayes_capacity` with
``kind="additive"``: its maximum is over the uniform priors of every subset of inputs
(computing it is NP-hard in general, Alvim et al. 2020, chapter 7); 2^20 subsets x 64 outputs
take about a second."""


# ---------------------------------------------------------------------------- inputs
def _is_rational(values: Any) -> bool:
    """Every entry an int or a Fraction (not a bool); a Mechanism's entries are floats."""
    if isinstance(values, Mechanism | EvidentialMechanism):
        return False
    if isinstance(values, np.ndarray) and values.dtype.kind != "O":
        return values.dtype.kind in "iu"
    try:
        flat = np.array(values, dtype=object).ravel()
    except (TypeError, ValueError):
        return False
    return flat.size > 0 and all(isinstance(v, numbers.Rational)
                                 and not isinstance(v, bool | np.bool_) for v in flat)


def _exact(values: Any) -> np.ndarray:
    """An object array of Fractions (the entries were checked rational)."""
    return np.vectorize(Fraction, otypes=[object])(np.array(values, dtype=object))


def _inputs(prior: Any, mechanism: Any = None, gain: Any = None
            ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None, bool]:
    """``(pi, C, g, exact)``: validated arrays, float or object arrays of Fractions."""
    if mechanism is None:
        k = int(np.size(prior)) if np.ndim(prior) else 2
    else:
        C = as_mechanism(mechanism, "mechanism").matrix
        k = C.shape[0]
    pi = as_prior(prior, k)
    g = None
    if gain is not None:
        g = as_float_matrix(gain, "gain")
        if g.shape[1] != k:
            raise InvalidParameterError(
                f"gain must have one column per secret ({k}), got shape {g.shape} (rows are "
                "the adversary's actions w, columns the secrets x)")
    given = [prior] + ([] if mechanism is None else [mechanism]) + ([] if gain is None else [gain])
    exact = all(_is_rational(v) for v in given)
    if not exact:
        return pi, (None if mechanism is None else C), g, False
    pi_x = _exact(prior) if np.ndim(prior) else _exact([prior, 1 - Fraction(prior)])
    C_x = None if mechanism is None else _exact(mechanism)
    return pi_x, C_x, None if gain is None else _exact(gain), True


def _number(value: Any, exact: bool) -> Number:
    return Fraction(value) if exact else float(value)


def _check_kind(kind: Any) -> None:
    if kind not in ("multiplicative", "additive"):
        raise InvalidParameterError(
            f"kind must be 'multiplicative' or 'additive', got {kind!r}")


def _ratio(posterior: Number, prior: Number, what: str) -> Number:
    if prior <= 0:
        raise InvalidParameterError(
            f"the prior {what} is {prior}: multiplicative leakage is defined for a "
            "positive prior vulnerability only (use kind='additive')")
    return posterior / prior


# ---------------------------------------------------------------------------- Bayes
def bayes_vulnerability(prior: Any, mechanism: Any = None) -> Number:
    r"""Bayes vulnerability: the adversary's best probability of guessing the secret in one
    try, before (``mechanism=None``) or after observing the mechanism's output.

    .. math:: V(\pi) = \max_x \pi_x, \qquad V(\pi, C) = \sum_y \max_x \pi_x C[x, y].

    Parameters
    ----------
    prior : array_like
        The prior on the secrets (the inputs), summing to 1; a scalar ``pi`` means
        ``(pi, 1 - pi)`` for two inputs.
    mechanism : Mechanism, EvidentialMechanism or array_like, optional
        The channel ``C`` (an evidential mechanism is read over its messages).

    Returns
    -------
    float or Fraction
        A ``Fraction`` when every input entry is an int or a Fraction (exact), else a float.

    References
    ----------
    G. Smith, "On the foundations of quantitative information flow", FoSSaCS 2009;
    Alvim et al., "The Science of Quantitative Information Flow", 2020, chapters 2 and 5.
    """
    pi, C, _, exact = _inputs(prior, mechanism)
    if C is None:
        return _number(pi.max(), exact)
    return _number((pi[:, None] * C).max(axis=0).sum(), exact)


def bayes_leakage(mechanism: Any, prior: Any, kind: Kind = "multiplicative") -> Number:
    r"""Bayes leakage of ``mechanism`` at ``prior``.

    .. math:: \mathcal L^\times(\pi, C) = \frac{V(\pi, C)}{V(\pi)}, \qquad
              \mathcal L^+(\pi, C) = V(\pi, C) - V(\pi).

    ``kind="multiplicative"`` (default, at least 1) or ``"additive"`` (at least 0). Both
    never increase under post-processing (data-processing inequality). See
    :func:`bayes_vulnerability` for the arguments and the exact mode.

    Parameters
    ----------
    mechanism : Mechanism, EvidentialMechanism or array_like
        The channel.
    prior : array_like
        The prior on the inputs.
    kind : {"multiplicative", "additive"}
        Which leakage.

    Returns
    -------
    float or Fraction

    References
    ----------
    Alvim et al. 2020, chapter 5.
    """
    _check_kind(kind)
    pi, C, _, exact = _inputs(prior, mechanism)
    before = _number(pi.max(), exact)
    post = _number((pi[:, None] * C).max(axis=0).sum(), exact)
    if kind == "additive":
        return post - before
    return _ratio(post, before, "Bayes vulnerability")


def min_entropy_leakage(mechanism: Any, prior: Any) -> float:
    r"""Min-entropy leakage in bits: ``log2`` of the multiplicative Bayes leakage,

    .. math:: H_\infty(\pi) - H_\infty(\pi, C) = \log_2 \frac{V(\pi, C)}{V(\pi)}.

    Parameters
    ----------
    mechanism : Mechanism, EvidentialMechanism or array_like
        The channel.
    prior : array_like
        The prior on the inputs.

    Returns
    -------
    float
        Bits, at least 0 (at most ``log2`` of :func:`bayes_capacity`).

    References
    ----------
    G. Smith, FoSSaCS 2009.
    """
    return math.log2(bayes_leakage(mechanism, prior, "multiplicative"))


def bayes_capacity(mechanism: Any, kind: Kind = "multiplicative") -> Number:
    r"""Bayes capacity: the largest Bayes leakage of ``mechanism`` over all priors.

    Multiplicative (default), attained at the uniform prior (Braun, Chatzikokolakis,
    Palamidessi 2009; Alvim et al. 2020, chapter 7):

    .. math:: \mathcal{ML}^\times(C) = \max_\pi \mathcal L^\times(\pi, C)
              = \sum_y \max_x C[x, y].

    Additive: the maximum of ``V(pi, C) - V(pi)`` is attained at a prior uniform on some
    subset S of the inputs (derivation: ``docs/accounting.md``, "Leakage measures"), so

    .. math:: \mathcal{ML}^+(C) = \max_{S \neq \emptyset}
              \frac{\sum_y \max_{x \in S} C[x, y] - 1}{|S|},

    computed by enumerating the ``2^k - 1`` subsets (up to
    :data:`MAX_ADDITIVE_CAPACITY_WORK`; the problem is NP-hard in general).

    Parameters
    ----------
    mechanism : Mechanism, EvidentialMechanism or array_like
        The channel (rational entries give an exact Fraction).
    kind : {"multiplicative", "additive"}
        Which capacity.

    Returns
    -------
    float or Fraction

    Raises
    ------
    SizeLimitError
        Additive capacity with ``2^k * m`` above :data:`MAX_ADDITIVE_CAPACITY_WORK`.
    """
    _check_kind(kind)
    C = as_mechanism(mechanism, "mechanism").matrix
    exact = _is_rational(mechanism)
    if exact:
        C = _exact(mechanism)
    if kind == "multiplicative":
        return _number(C.max(axis=0).sum(), exact)
    k, m = C.shape
    if (1 << k) * m > MAX_ADDITIVE_CAPACITY_WORK:
        raise SizeLimitError(
            f"additive Bayes capacity enumerates the 2^k subsets of inputs: k = {k} with "
            f"{m} outputs exceeds {MAX_ADDITIVE_CAPACITY_WORK} subset-outputs")
    if exact:
        best = max((sum(max(C[x, y] for x in S) for y in range(m)) - 1) / len(S)
                   for S in _subsets(k))
        return Fraction(best)
    return float(_additive_capacity(C))


def _subsets(k: int) -> Any:
    for mask in range(1, 1 << k):
        yield [x for x in range(k) if mask >> x & 1]


def _additive_capacity(C: np.ndarray) -> float:
    """``max_S (sum_y max_{x in S} C[x, y] - 1) / |S|`` over non-empty subsets S, by a
    table of column maxima over the subsets of the low inputs, combined with each subset
    of the high ones (memory ``2^min(k, 12) m``)."""
    k, m = C.shape
    low = min(k, 12)
    lo_max = _subset_maxima(C[:low])
    lo_size = _popcounts(low)
    best = -math.inf
    hi_max = _subset_maxima(C[low:]) if k > low else np.zeros((1, m))
    hi_size = _popcounts(k - low)
    for h in range(hi_max.shape[0]):
        sums = np.maximum(lo_max, hi_max[h]).sum(axis=1)
        sizes = lo_size + hi_size[h]
        live = sizes > 0
        best = max(best, float(((sums[live] - 1.0) / sizes[live]).max()))
    return best


def _subset_maxima(rows: np.ndarray) -> np.ndarray:
    """``(2^r, m)``: row mask -> column maxima of those rows (0 for the empty set)."""
    r, m = rows.shape
    out = np.zeros((1 << r, m))
    for i in range(r):
        out[1 << i: 2 << i] = np.maximum(out[: 1 << i], rows[i])
    return out


def _popcounts(r: int) -> np.ndarray:
    masks = np.arange(1 << r)
    return ((masks[:, None] >> np.arange(max(r, 1))) & 1).sum(axis=1)


def min_entropy_capacity(mechanism: Any) -> float:
    r"""Min-entropy capacity in bits, ``log2`` of the multiplicative Bayes capacity
    ``log2 sum_y max_x C[x, y]`` (at most ``log2`` of the number of inputs and of outputs).

    Parameters
    ----------
    mechanism : Mechanism, EvidentialMechanism or array_like
        The channel.

    Returns
    -------
    float
        Bits.
    """
    return math.log2(bayes_capacity(mechanism, "multiplicative"))


def ldp_capacity_bound(epsilon: float, n_inputs: int, n_outputs: int | None = None) -> float:
    r"""The largest multiplicative Bayes capacity of an eps-LDP mechanism with ``n_inputs``
    inputs (and ``n_outputs`` outputs):

    .. math:: \mathcal{ML}^\times(C) \le \frac{n e^\varepsilon}{e^\varepsilon + n - 1}
              \le e^\varepsilon, \qquad n = \min(k, m),

    attained by n-ary randomized response (``docs/accounting.md``, "Leakage measures", for
    the proof). So the min-entropy leakage of an eps-LDP mechanism is at most
    ``log2`` of this, below ``eps log2 e`` bits, at every prior.

    Parameters
    ----------
    epsilon : float
        The LDP level, ``>= 0`` (``inf``: the bound is n).
    n_inputs : int
        k, at least 1.
    n_outputs : int, optional
        m, at least 1 (default: unbounded).

    Returns
    -------
    float
    """
    eps = check_epsilon(epsilon, allow_inf=True)
    n = check_int(n_inputs, "n_inputs", 1)
    if n_outputs is not None:
        n = min(n, check_int(n_outputs, "n_outputs", 1))
    if n > 2**1023:  # past the doubles (10**400 raised an untyped OverflowError)
        raise InvalidParameterError(f"the number of inputs or outputs {n} is too large")
    if math.isinf(eps):
        return float(n)
    # n e^eps / (e^eps + n - 1) = n / (1 + (n - 1) e^-eps): no overflow at large eps
    return n / (1.0 + (n - 1) * math.exp(-eps))


# ---------------------------------------------------------------------------- g-leakage
def g_vulnerability(gain: Any, prior: Any, mechanism: Any = None) -> Number:
    r"""g-vulnerability: the adversary's best expected gain, before (``mechanism=None``) or
    after observing the output.

    .. math:: V_g(\pi) = \max_w \sum_x \pi_x\, g[w, x], \qquad
              V_g(\pi, C) = \sum_y \max_w \sum_x \pi_x C[x, y]\, g[w, x].

    Parameters
    ----------
    gain : array_like
        The gain function as a matrix: rows are the adversary's actions w, columns the
        secrets x (the inputs). Any finite reals; the identity matrix gives
        :func:`bayes_vulnerability`.
    prior : array_like
        The prior on the inputs.
    mechanism : Mechanism, EvidentialMechanism or array_like, optional
        The channel.

    Returns
    -------
    float or Fraction
        Exact (a Fraction) when every entry is an int or a Fraction.

    References
    ----------
    M. S. Alvim, K. Chatzikokolakis, C. Palamidessi, G. Smith, "Measuring information
    leakage using generalized gain functions", IEEE CSF 2012; Alvim et al. 2020, chapters 3 and 5.
    """
    pi, C, g, exact = _inputs(prior, mechanism, gain)
    if C is None:
        return _number((g @ pi).max(), exact)
    return _number((g @ (pi[:, None] * C)).max(axis=0).sum(), exact)


def g_leakage(gain: Any, mechanism: Any, prior: Any, kind: Kind = "multiplicative"
              ) -> Number:
    r"""g-leakage of ``mechanism`` at ``prior``:

    .. math:: \mathcal L_g^\times = \frac{V_g(\pi, C)}{V_g(\pi)}, \qquad
              \mathcal L_g^+ = V_g(\pi, C) - V_g(\pi).

    The additive leakage is defined for every gain; the multiplicative one needs
    non-negative gains and ``V_g(pi) > 0`` (Alvim et al. 2020, chapter 5), and raises
    :class:`~mechdesign.errors.InvalidParameterError` otherwise. For non-negative gains it
    never exceeds the multiplicative Bayes capacity (the "miracle" theorem, Alvim et al.
    2012; 2020, chapter 7; tested).

    Parameters
    ----------
    gain : array_like
        Rows: actions w, columns: secrets x.
    mechanism : Mechanism, EvidentialMechanism or array_like
        The channel.
    prior : array_like
        The prior on the inputs.
    kind : {"multiplicative", "additive"}
        Which leakage.

    Returns
    -------
    float or Fraction
    """
    _check_kind(kind)
    pi, C, g, exact = _inputs(prior, mechanism, gain)
    before = _number((g @ pi).max(), exact)
    post = _number((g @ (pi[:, None] * C)).max(axis=0).sum(), exact)
    if kind == "additive":
        return post - before
    neg = np.argwhere(np.asarray(g, dtype=float) < 0)
    if neg.size:
        w, x = neg[0]
        raise InvalidParameterError(
            f"gain[{w}, {x}] = {g[w, x]} is negative: multiplicative g-leakage needs "
            "non-negative gains (use kind='additive')")
    return _ratio(post, before, "g-vulnerability")
