r"""The Fisher information of a mechanism and its Cramer-Rao bound at a prior
(``docs/formulations.md``, "Estimation"; for 2 inputs ``docs/belief_functions.md`` s.6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.linalg import null_space

from .._coerce import as_mechanism
from .._html import value_view
from ..errors import InvalidParameterError
from .inputs import as_prior
from .records import fields_equal

__all__ = [
    "CramerRao",
    "cramer_rao",
]


@value_view
@dataclass(frozen=True, eq=False)
class CramerRao:
    r"""The Cramer-Rao bound of a mechanism at a prior, per report.

    Attributes
    ----------
    matrix : ndarray, shape (k, k)
        ``CR = U (U^T I U)^{-1} U^T``; for an efficient estimator from n reports,
        ``n Cov(pi_hat) -> CR``. NaN everywhere when the prior is not identifiable.
    trace : float
        The A-criterion ``trace CR`` (sum of the per-frequency variances times n); ``inf``
        when not identifiable.
    fisher : ndarray, shape (k, k)
        Fisher information of one report, ``I = sum_y Q[:,y] Q[:,y]^T / (pi . Q[:,y])``.
    identifiable : bool
        ``U^T I U`` is non-singular (relative tolerance 1e-12).
    """

    matrix: np.ndarray
    trace: float
    fisher: np.ndarray
    identifiable: bool

    def __eq__(self, other: object) -> bool:
        return fields_equal(self, other)

    __hash__ = None  # type: ignore[assignment]


def cramer_rao(mechanism: Any, prior: Any) -> CramerRao:
    r"""Cramer-Rao bound for estimating the input frequencies on the simplex
    (``docs/formulations.md``, "Estimation").

    .. math:: I(Q) = \sum_y \frac{Q[:,y]\, Q[:,y]^T}{\pi \cdot Q[:,y]}, \qquad
              CR(Q) = U (U^T I(Q) U)^{-1} U^T,

    with ``U`` an orthonormal basis of ``{v : sum v = 0}`` (the tangent space of the simplex).
    Per report: divide by n for n reports. For 2 inputs ``CR[0, 0] = 1 / I_pi`` with
    ``I_pi = sum_y (Q[0,y] - Q[1,y])^2 / (pi Q[0,y] + (1-pi) Q[1,y])`` (``docs/belief_functions.md``
    s.6); for Warner's mechanism that is ``n`` times Eq. (1). Reference values (uniform prior,
    trace): Warner at eps = 1, 2.341347; subset selection k = 10, d = 4, eps = 0.5, 127.2172.

    Parameters
    ----------
    mechanism : Mechanism (or EvidentialMechanism, read over its messages)
    prior : array_like, shape (k,), or a float for 2 inputs (the proportion of input 0)
        Outputs of probability 0 under the prior are skipped when their column is zero; a
        column that is positive only on inputs of prior 0 makes the information infinite
        and raises :class:`~mechdesign.errors.InvalidParameterError`.

    Returns
    -------
    CramerRao
    """
    mech = as_mechanism(mechanism)
    Q = mech.matrix
    k = mech.n_inputs
    pr = as_prior(prior, k)
    lam = pr @ Q
    live = lam > 0
    dead_nonzero = ~live & (Q.max(axis=0) > 0)
    if dead_nonzero.any():
        y = int(np.argmax(dead_nonzero))
        raise InvalidParameterError(
            f"output {mech.outputs[y]!r} has probability 0 under the prior {pr.tolist()!r} but "
            "not for every input: the Fisher information is infinite (prior on the boundary)")
    Ql = Q[:, live]
    fisher = (Ql / lam[live]) @ Ql.T
    U = null_space(np.ones((1, k)))  # (k, k-1), orthonormal
    red = U.T @ fisher @ U
    red = (red + red.T) / 2
    w = np.linalg.eigvalsh(red)
    # singular relative to the information's own scale: with equal rows the projection is
    # pure rounding (about 1e-32), which is not small relative to its own largest eigenvalue
    if w.min() <= 1e-12 * max(w.max(), float(np.abs(fisher).max()), 1e-300):
        return CramerRao(np.full((k, k), np.nan), math.inf, fisher, False)
    cr = U @ np.linalg.solve(red, U.T)
    cr = (cr + cr.T) / 2
    return CramerRao(cr, float(np.trace(cr)), fisher, True)
