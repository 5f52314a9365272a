r"""The Blackwell order of mechanisms: is one a post-processing (garbling) of another?

``a`` is a garbling of ``b`` when some row-stochastic ``G`` (from b's outputs to a's outputs)
gives ``a = b @ G``: a user can simulate ``a`` from the output of ``b`` without knowing the
input, so ``a`` is never more informative and never less private than ``b`` (data
processing). Deciding it is a linear feasibility problem in the ``m_b x m_a`` entries of G.

Blackwell (1953): for two inputs, ``a`` is a garbling of ``b`` iff the trade-off curve of
``a`` lies above that of ``b`` for both orders of the pair (the tests check this).

Tolerance. Floating-point matrices are rarely exact garblings, so we solve the LP

.. math:: \min_{G \ge 0,\ G\mathbf 1 = \mathbf 1} \ \max_{x, z} |(bG)[x, z] - a[x, z]|

with HiGHS (feasibility tolerances 1e-10), clean the solution (clip negatives, renormalise
rows: it is our own matrix, not user input), and accept it when the cleaned residual is at
most :data:`GARBLING_TOL` (absolute, per entry). So differences below 1e-8 are not seen:
two mechanisms that differ only in entries of size 1e-12 count as garblings of each other.

Kairouz-Oh-Viswanath (Huang & Canonne, Lemma 3.3): every eps-LDP
randomizer restricted to two inputs is a garbling of binary RR(eps).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix, hstack, vstack

from .._coerce import as_mechanism
from ..errors import InvalidMechanismError
from ..mechanism import Mechanism

__all__ = [
    "GARBLING_TOL",
    "garbling",
    "is_garbling_of",
]


GARBLING_TOL = 1e-8
"""Largest accepted entry of ``|b @ G - a|`` for the cleaned post-processing G."""

_HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
"""HiGHS's defaults (1e-7) let it stop at a residual t ~ 1e-8 when an exact garbling with
entries ~1e-6 exists; 1e-10 (its smallest allowed value) resolves them."""


def _solve(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray | None, float]:
    """The LP: minimise t subject to -t <= b G - a <= t, G row-stochastic."""
    k, ma = a.shape
    mb = b.shape[1]
    nG = mb * ma
    # (b G)[x, z] = sum_y b[x, y] G[y, z];  G flattened row-major: index y * ma + z
    BG = coo_matrix(np.kron(b, np.eye(ma)))  # (k*ma, nG)
    ones = coo_matrix(np.ones((k * ma, 1)))
    A_ub = vstack([hstack([BG, -ones]), hstack([-BG, -ones])]).tocsr()
    b_ub = np.concatenate([a.ravel(), -a.ravel()])
    A_eq = hstack([coo_matrix(np.kron(np.eye(mb), np.ones((1, ma)))),
                   coo_matrix((mb, 1))]).tocsr()
    c = np.zeros(nG + 1)
    c[-1] = 1.0
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=np.ones(mb),
                  bounds=[(0, None)] * (nG + 1), method="highs", options=_HIGHS_OPTIONS)
    if res.status != 0:  # pragma: no cover - G = uniform rows is always feasible
        return None, float("inf")
    G = np.clip(res.x[:nG].reshape(mb, ma), 0.0, None)
    G /= G.sum(axis=1, keepdims=True)
    return G, float(np.abs(b @ G - a).max())


def garbling(a: Any, b: Any) -> Mechanism | None:
    r"""A post-processing ``G`` with ``a = b @ G``, or ``None`` when there is none.

    Parameters
    ----------
    a, b : Mechanism, EvidentialMechanism or array_like
        With the same number of inputs (rows are matched by index). An evidential mechanism
        is read over its messages (``to_mechanism()``).

    Returns
    -------
    Mechanism or None
        ``G`` as a mechanism from b's outputs to a's outputs (so ``b.then(G)`` reproduces
        ``a`` to :data:`GARBLING_TOL`), or ``None`` when the smallest achievable residual
        ``max |b G - a|`` exceeds :data:`GARBLING_TOL`.

    Examples
    --------
    ``garbling(dont_know(0.6, 0.2).to_mechanism(), warner(0.75))`` is
    ``[[0.8, 0, 0.2], [0, 0.8, 0.2]]``: keep Warner's answer with probability
    ``c = p + q = 0.8``, otherwise say "don't know".
    """
    A = as_mechanism(a, "a")
    B = as_mechanism(b, "b")
    if A.n_inputs != B.n_inputs:
        raise InvalidMechanismError(
            f"a has {A.n_inputs} inputs and b has {B.n_inputs}; a garbling keeps the inputs")
    G, residual = _solve(A.matrix, B.matrix)
    if G is None or residual > GARBLING_TOL:
        return None
    return Mechanism(G, B.outputs, A.outputs, name="garbling")


def is_garbling_of(a: Any, b: Any) -> bool:
    r"""Whether ``a = b @ G`` for some row-stochastic ``G`` (``a`` is ``b`` followed by a
    data-independent post-processing; Blackwell 1953).

    LP feasibility with HiGHS; accepted when the cleaned residual ``max |b G - a|`` is at most
    :data:`GARBLING_TOL`. See :func:`garbling` for the matrix.
    """
    return garbling(a, b) is not None
