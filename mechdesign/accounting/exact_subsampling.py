r"""Subsampling made exact for finite mechanisms: the subsampled randomizer as a matrix.

A user is sampled with probability p. If sampled, the randomizer Q is applied to the user's
value x; if not, the report is drawn from a reference distribution r on the outputs (the
report of an absent user: a dummy report). The subsampled randomizer is the matrix

.. math:: Q_p[x] = p\,Q[x] + (1 - p)\,r,

optionally with r itself appended as the row of the "absent" input, so that the exact
measures of :mod:`mechdesign.privacy` read the add/remove (absent versus present)
neighbours together with the replacement ones. With ``reference="null"`` the unsampled
report is a new output ``null`` (``r`` its point mass): the matrix ``[p Q | 1 - p]``.

What is exact, and what the theorem says (``docs/accounting.md`` s.7). Let
``eps_in = max(eps_LDP(Q), max_{x,y} |ln(Q[x, y]/r_y)|)``, i.e. Q is eps_in-LDP and every row
is within a factor ``e^eps_in`` of r. Then (Huang & Canonne Thm 6.1, after Steinke 2022)
every pair of rows of the extended matrix satisfies

.. math:: \varepsilon(Q_p) \le \ln(1 + p(e^{\varepsilon_{in}} - 1)),

with equality iff some column has ``Q[x, y] = e^eps_in r_y`` (for ``r = Q[x0]``: iff x0 is
the smaller side of a worst ratio of Q; for k-ary randomized response always). The null
reference has ``eps_in = inf``: appending a null output never lowers the pure epsilon of the
present inputs (their ratios are unchanged) and makes present and absent perfectly
distinguishable; it only scales the hockey-stick divergences of replacement pairs by p.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from .._coerce import as_mechanism
from .._exact import dlog1p, outward
from .._html import value_view
from .._lazy import lazy_exports
from .._validation import as_prior, check_probability
from ..errors import InvalidParameterError
from ..mechanism import Mechanism
from ..privacy.measures import epsilon_ldp, worst_log_ratio
from .amplification import subsampling_bound

__all__ = [
    "ABSENT_INPUT",
    "NULL_OUTPUT",
    "SubsampledPrivacy",
    "exact_subsampling_epsilon",
    "subsampled_mechanism",
]

# The names before the rename, kept for one release: reading one warns.
__getattr__, __dir__ = lazy_exports(
    __name__, {}, package=__package__,
    deprecated={"subsample": "subsampled_mechanism",
                "subsampling_privacy": "exact_subsampling_epsilon"})

NULL_OUTPUT = "null"
"""Label of the output of an unsampled user under ``reference="null"`` (primed if taken)."""

ABSENT_INPUT = "absent"
"""Label of the row appended by ``absent=True`` (primed if taken)."""


def _fresh(label: str, taken: tuple) -> str:
    while label in taken:
        label += "'"
    return label


def _reference(Q: Mechanism, reference: Any) -> tuple[np.ndarray, np.ndarray, tuple]:
    """``(matrix, r, outputs)``: the matrix and the reference on a common output set."""
    if isinstance(reference, str):
        if reference != "null":
            raise InvalidParameterError(
                f"reference must be 'null' or a distribution over the {Q.n_outputs} outputs, "
                f"got {reference!r}")
        M = np.hstack([Q.matrix, np.zeros((Q.n_inputs, 1))])
        r = np.zeros(Q.n_outputs + 1)
        r[-1] = 1.0
        return M, r, (*Q.outputs, _fresh(NULL_OUTPUT, Q.outputs))
    return Q.matrix, as_prior(reference, Q.n_outputs, "reference"), Q.outputs


def subsampled_mechanism(mechanism: Any, p: float, reference: Any = "null", *,
              absent: bool = False) -> Mechanism:
    r"""The subsampled randomizer: with probability p report ``Q[x]``, else a draw from r.

    Formerly ``subsample`` (a deprecated alias in :mod:`mechdesign.accounting` for one
    release).

    .. math:: Q_p[x, y] = p\,Q[x, y] + (1 - p)\,r_y

    Parameters
    ----------
    mechanism : Mechanism, EvidentialMechanism (over its messages) or array
    p : float
        Sampling probability in [0, 1].
    reference : "null" or array_like
        The report of an unsampled user. ``"null"`` appends an output ``null`` (label
        :data:`NULL_OUTPUT`) with ``r`` its point mass: "report with probability p, else a
        null output". An array is a distribution over the mechanism's outputs, for example
        ``Q.matrix[x0]`` (report as if the value were a default ``x0``; the row ``x0`` of
        the result is then r itself) or a deletion reference
        (:func:`~mechdesign.privacy.epsilon_deletion`).
    absent : bool
        Append r as one more input, labelled :data:`ABSENT_INPUT`: the user who is not in
        the data. Replacement pairs of the result are then the add/remove neighbours too.

    Returns
    -------
    Mechanism
        Rows ``Q_p[x]`` (and r). Measure it with the exact measures
        (:func:`~mechdesign.privacy.epsilon_ldp`, :func:`~mechdesign.privacy.delta_ldp`,
        :func:`~mechdesign.privacy.epsilon_deletion`, ...) or compose it
        (:func:`~mechdesign.accounting.compose`); :func:`exact_subsampling_epsilon` compares
        its exact epsilon with the theorem ``ln(1 + p(e^eps - 1))``.

    Notes
    -----
    The pure epsilon of the present inputs does not drop with the null reference (their
    ratios are ``p Q[x, y] / p Q[x', y]``); the mixture with a reference inside the outputs
    is what amplifies (``docs/accounting.md`` s.7).

    Each entry is ``(1 - p) r_y + p Q[x, y]``, a sum of two non-negative products, so
    within about ``3 * 2^-53`` relative of the exact value for the stored Q, p and r
    (``r_y + p (Q[x, y] - r_y)`` cancelled near ``p = 1``: relative errors up to 1), or
    ``2^-1074`` absolute where it underflows; exactly ``r_y`` where ``Q[x, y] = r_y``.
    :func:`exact_subsampling_epsilon` measures the exact matrix, not this rounding of it.
    """
    Q = as_mechanism(mechanism)
    p = check_probability(p, "p")
    M, r, outputs = _reference(Q, reference)
    R = np.broadcast_to(r[None, :], M.shape)
    rows = np.where(M == R, R, (1.0 - p) * R + p * M)  # r itself where Q[x] = r (the row x0)
    inputs = Q.inputs
    if absent:
        rows = np.vstack([rows, r[None, :]])
        inputs = (*inputs, _fresh(ABSENT_INPUT, inputs))
    name = f"subsampled({Q.name or 'Q'}, p={p:g})"
    return Mechanism(rows, inputs, outputs, name)


@value_view
@dataclass(frozen=True)
class SubsampledPrivacy:
    """Exact pure epsilon of a subsampled randomizer next to the subsampling theorem.

    Attributes
    ----------
    mechanism : Mechanism
        ``subsampled_mechanism(Q, p, reference, absent=True)``: the present inputs and the
        absent one.
    epsilon : float
        Epsilon of the exact subsampled randomizer (every pair: replacement and add/remove),
        rounded up (see :func:`exact_subsampling_epsilon`).
    epsilon_replacement : float
        The same over the present inputs only.
    epsilon_input : float
        ``max(eps_LDP(Q), max_{x,y} |ln(Q[x, y] / r_y)|)``: the epsilon the theorem is
        applied with (``inf`` for the null reference).
    bound : float
        ``ln(1 + p(e^epsilon_input - 1))`` (Huang & Canonne Thm 6.1), an upper bound on
        ``epsilon``; equal to it iff some ``Q[x, y] = e^epsilon_input r_y``.
    p : float
    """

    mechanism: Mechanism
    epsilon: float
    epsilon_replacement: float
    epsilon_input: float
    bound: float
    p: float


def exact_subsampling_epsilon(mechanism: Any, p: float, reference: Any = "null"
                              ) -> SubsampledPrivacy:
    r"""The exact epsilon of the subsampled randomizer (:func:`subsampled_mechanism`) beside
    the theorem's bound (:func:`subsampling_bound`).

    .. math:: \varepsilon\big(Q_p \cup \{r\}\big) \le
              \ln\big(1 + p(e^{\varepsilon_{in}} - 1)\big), \quad
              \varepsilon_{in} = \max\Big(\varepsilon_{LDP}(Q),
              \max_{x, y} \big|\ln \tfrac{Q[x, y]}{r_y}\big|\Big)

    Outward rounded: ``epsilon`` and ``epsilon_replacement`` are the epsilons of the EXACT
    matrix ``(1 - p) r + p Q`` of the stored Q, p and r (not of the rounded
    ``mechanism``), rounded up: the entries of a column are monotone in ``Q[x, y]``, so its
    extremes are ``(1 - p) r_y + p max_x Q[x, y]`` and the same with the min (and ``r_y``
    for the absent row), formed as exact rationals; the largest ratio is found exactly and
    its logarithm evaluated by :func:`mechdesign._exact.outward` at 60 digits and rounded
    up (O(m) rational operations). ``epsilon_input`` is from the measures (upper bounds) and
    ``bound`` is :func:`~mechdesign.accounting.subsampling_bound` of it (rounded up, increasing
    in ``epsilon_input``). Arguments as in :func:`subsampled_mechanism`.
    """
    Q = as_mechanism(mechanism)
    ext = subsampled_mechanism(Q, p, reference, absent=True)
    p = check_probability(p, "p")
    M, r, _ = _reference(Q, reference)
    eps_in = max(epsilon_ldp(Q), worst_log_ratio(M, r[None, :]).epsilon,
                 worst_log_ratio(r[None, :], M).epsilon)
    eps, eps_present = _exact_epsilons(M, r, p)
    return SubsampledPrivacy(ext, eps, eps_present, eps_in,
                             subsampling_bound(eps_in, 0.0, p).epsilon, p)


def _exact_epsilons(M: np.ndarray, r: np.ndarray, p: float) -> tuple[float, float]:
    """Pure epsilons (with the absent row r, and without) of the exact matrix
    ``(1 - p) r + p M``, rounded up: per column, the largest over the smallest entry (``inf``
    for a positive one over an exact 0; an all-zero column is ignored)."""
    P = Fraction(p)
    hi, lo = M.max(axis=0).tolist(), M.min(axis=0).tolist()
    worst = [Fraction(1), Fraction(1)]  # the largest ratio: with the absent row, without
    inf = [False, False]
    for y, ry in enumerate(r.tolist()):
        R = Fraction(ry)
        a = (1 - P) * R + P * Fraction(hi[y])
        b = (1 - P) * R + P * Fraction(lo[y])
        for i, (top, bottom) in enumerate(((max(a, R), min(b, R)), (a, b))):
            if top == 0:
                continue
            if bottom == 0:
                inf[i] = True
            elif top > worst[i] * bottom:
                worst[i] = top / bottom
    return tuple(math.inf if inf[i] else _ln_up(worst[i]) for i in range(2))


def _ln_up(ratio: Fraction) -> float:
    """``ln ratio`` for a rational ``ratio >= 1``, by :func:`mechdesign._exact.outward`
    (``log1p`` of the exact ``ratio - 1``), rounded up; exactly 0 at 1."""
    if ratio == 1:
        return 0.0
    t = ratio - 1
    return outward(lambda: dlog1p(Decimal(t.numerator) / Decimal(t.denominator)))
