r"""Leakage budgets as design constraints (quantitative information flow).

:func:`leakage_constraint` returns a callable for ``DesignProblem(constraints={...})``: the
posterior g-vulnerability ``V_g(pi, Q) = sum_y max_w sum_x pi_x Q[x, y] g[w, x]`` is convex
(a sum of maxima of linear functions) in Q, so ``V_g(pi, Q) <= v`` is LP-representable with
one epigraph variable per output (``docs/formulations.md``, "Leakage"); without a prior the
multiplicative Bayes capacity ``sum_y max_x Q[x, y] <= c`` is the same with ``pi`` uniform
(up to the factor k). The measures are in :mod:`mechdesign.privacy.leakage`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

import cvxpy as cp
import numpy as np

from .._validation import as_prior, check_real
from ..errors import InvalidParameterError
from ..privacy.leakage import g_vulnerability
from .objectives import gain_or_identity, unit_range, vulnerability_epigraph

__all__ = ["leakage_constraint"]


def leakage_constraint(bound: float, prior: Any = None, *,
                       kind: Literal["multiplicative", "additive"] = "multiplicative",
                       gain: Any = None) -> Callable[[cp.Expression], list]:
    r"""A leakage budget as a design constraint (an LP in Q).

    With a prior, the g-leakage of the designed mechanism at that prior is at most
    ``bound``:

    .. math:: V_g(\pi, Q) \le \text{bound} \cdot V_g(\pi) \quad\text{(multiplicative)},
              \qquad V_g(\pi, Q) \le \text{bound} + V_g(\pi) \quad\text{(additive)},

    written with ``t_y >= sum_x g[w, x] pi_x Q[x, y]`` for every action w and output y and
    ``sum_y t_y <= v``. Without a prior (multiplicative, Bayes gain only), the
    multiplicative Bayes capacity, the largest multiplicative Bayes leakage over ALL priors,
    is at most ``bound``: ``sum_y max_x Q[x, y] <= bound``. A min-entropy budget of b bits
    is ``bound = 2 ** b``.

    Parameters
    ----------
    bound : float
        The budget: ``>= 1`` (multiplicative; 1 forces a mechanism that leaks nothing at
        the prior) or ``>= 0`` (additive).
    prior : array_like, optional
        The prior on the inputs (None: the capacity, over every prior).
    kind : {"multiplicative", "additive"}
        Which leakage the budget bounds.
    gain : array_like, optional
        Gain function (rows: actions, columns: inputs); default the identity (Bayes).
        Multiplicative budgets need non-negative gains with ``V_g(pi) > 0``.

    Returns
    -------
    callable
        ``Q -> list of cvxpy constraints``, for ``DesignProblem(constraints={"name": ...})``
        (its dual, under that name, is the marginal value of the budget).

    Examples
    --------
    >>> import mechdesign as md
    >>> from mechdesign.design.leakage import leakage_constraint
    >>> res = md.DesignProblem(
    ...     md.LDP(epsilon=2.0), md.ExpectedLoss(md.losses.hamming(3)),
    ...     constraints={"capacity": leakage_constraint(1.5)}).solve()
    >>> round(float(md.privacy.bayes_capacity(res.mechanism)), 6)
    1.5
    """
    b = check_real(bound, "bound")
    if kind not in ("multiplicative", "additive"):
        raise InvalidParameterError(
            f"kind must be 'multiplicative' or 'additive', got {kind!r}")
    if not math.isfinite(b):
        raise InvalidParameterError(f"bound must be finite, got {b!r}")
    if kind == "multiplicative" and b < 1:
        raise InvalidParameterError(
            f"a multiplicative leakage bound must be >= 1 (every mechanism has leakage at "
            f"least 1), got {b!r}")
    if kind == "additive" and b < 0:
        raise InvalidParameterError(
            f"an additive leakage bound must be >= 0 (every mechanism has leakage at least "
            f"0), got {b!r}")
    if prior is None:
        if kind != "multiplicative" or gain is not None:
            raise InvalidParameterError(
                "without a prior the constraint bounds the multiplicative Bayes capacity "
                "(kind='multiplicative', no gain); give a prior for other budgets")

        def capacity(Q: cp.Expression) -> list:
            t, cons = vulnerability_epigraph(Q, np.ones(Q.shape[0]), np.eye(Q.shape[0]))
            return [*cons, cp.sum(t) <= b]

        return capacity
    p = np.asarray(prior, dtype=float)
    pi = as_prior(p, p.size)
    g = gain_or_identity(gain, len(pi))
    before = float(g_vulnerability(g, pi))
    if kind == "multiplicative":
        if (g < 0).any():
            w, x = np.argwhere(g < 0)[0]
            raise InvalidParameterError(
                f"gain[{w}, {x}] = {float(g[w, x])!r} is negative: a multiplicative budget needs "
                "non-negative gains (use kind='additive')")
        if before <= 0:
            raise InvalidParameterError(
                f"the prior g-vulnerability is {before!r}: a multiplicative budget needs it "
                "positive (use kind='additive')")
        v = b * before
    else:
        v = b + before
    # in the gain's unit range g = a g' + c: V_g = a V_g' + c, so V_g <= v is V_g' <= (v-c)/a
    unit, span, low = unit_range(g)
    rhs = (v - low) / span

    def budget(Q: cp.Expression) -> list:
        if Q.shape[0] != len(pi):
            raise InvalidParameterError(
                f"the leakage budget's prior has {len(pi)} entries for {Q.shape[0]} inputs")
        t, cons = vulnerability_epigraph(Q, pi, unit)
        return [*cons, cp.sum(t) <= rhs]

    return budget
