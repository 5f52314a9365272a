r"""Randomizers in sequence and advanced grouposition.

Sources: Huang & Canonne, "Lemmas of differential privacy" (Lemma 4.5, Cor 4.1, Thm 4.1,
Thm 4.2); Bun, Nelson, Stemmer, "Heavy hitters and the structure of local privacy" (BNS19);
Kairouz, Oh, Viswanath, "The composition theorem for differential privacy" (KOV15).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .._coerce import as_mechanism
from .._validation import check_epsilon, check_int, check_probability
from ..errors import InvalidMechanismError, InvalidParameterError
from ..mechanism import Mechanism
from ..privacy.measures import epsilon_deletion, epsilon_ldp
from .bounds import check_advanced


def sequential_epsilon(epsilon1: float, epsilon2: float) -> float:
    r"""Privacy of ``R2 o R1`` for an eps1-LDP ``R1`` followed by an eps2-LDP ``R2``
    (Huang & Canonne Cor 4.1, [EFMRSTT20, Cor A.2]; tight for binary randomized response):

    .. math:: \varepsilon = \ln\frac{e^{\varepsilon_1 + \varepsilon_2} + 1}
              {e^{\varepsilon_1} + e^{\varepsilon_2}} \le \min(\varepsilon_1, \varepsilon_2),
              \quad \le \varepsilon_1 \varepsilon_2 / 2.

    Evaluated as ``logaddexp(eps1 + eps2, 0) - logaddexp(eps1, eps2)``; ``inf`` arguments are
    allowed (a non-private stage leaves the other's epsilon).
    """
    e1 = check_epsilon(epsilon1, "epsilon1", allow_inf=True)
    e2 = check_epsilon(epsilon2, "epsilon2", allow_inf=True)
    if math.isinf(e1) or math.isinf(e2):
        return min(e1, e2)
    val = float(np.logaddexp(e1 + e2, 0.0) - np.logaddexp(e1, e2))
    return max(0.0, min(val, e1, e2))


@dataclass(frozen=True)
class SequentialPrivacy:
    """Privacy of ``R2 o R1`` (matrix ``Q1 @ Q2``).

    Attributes
    ----------
    epsilon : float
        Exact pure LDP epsilon of the product matrix (never above ``bound``).
    bound : float
        Cor 4.1 from the two epsilons.
    weak_bound : float
        ``eps1 eps2 / 2`` (Huang & Canonne, appendix 7.1).
    epsilon1, epsilon2 : float
        Exact epsilons of the stages.
    deletion_epsilon, deletion_bound : float
        Exact pure deletion epsilon of the product, and Cor 4.1 applied to the deletion
        epsilon of ``R1`` and the LDP epsilon of ``R2`` ("if R1 is removal eps1-LDP then
        R2 o R1 is removal eps-LDP").
    mechanism : Mechanism
        The composed randomizer.
    """

    epsilon: float
    bound: float
    weak_bound: float
    epsilon1: float
    epsilon2: float
    deletion_epsilon: float
    deletion_bound: float
    mechanism: Mechanism


def sequential_composition(first: Any, second: Any) -> SequentialPrivacy:
    r"""``R2 o R1``: first ``R1`` (``first``, matrix ``Q1``), then ``R2`` on its output.

    The composed matrix is ``Q1 @ Q2`` (``second`` has one row per output of ``first``).
    Reports the exact epsilon of the product with the Cor 4.1 bound; the exact value is never
    larger (Lemma 4.5 reduces to binary randomizers, where the bound is attained).
    """
    m1 = as_mechanism(first, "first")
    m2 = as_mechanism(second, "second")
    if m2.n_inputs != m1.n_outputs:
        raise InvalidMechanismError(
            f"second has {m2.n_inputs} inputs but first has {m1.n_outputs} outputs")
    prod = m1.then(m2)
    e1, e2 = epsilon_ldp(m1), epsilon_ldp(m2)
    d1 = epsilon_deletion(m1).epsilon
    weak = math.inf if math.isinf(e1) or math.isinf(e2) else e1 * e2 / 2
    return SequentialPrivacy(
        epsilon=epsilon_ldp(prod), bound=sequential_epsilon(e1, e2), weak_bound=weak,
        epsilon1=e1, epsilon2=e2, deletion_epsilon=epsilon_deletion(prod).epsilon,
        deletion_bound=sequential_epsilon(d1, e2), mechanism=prod)


@dataclass(frozen=True)
class GroupPrivacy:
    """A guarantee for datasets that differ in k entries, each entry an LDP randomizer.

    ``epsilon, delta`` is the reported guarantee: the smaller-epsilon one of the
    grouposition formula ``(formula, formula_delta)`` and plain composition of the k differing
    randomizers ``(group, group_delta)``; ``used`` says which.
    """

    epsilon: float
    delta: float
    formula: float
    formula_delta: float
    group: float
    group_delta: float
    used: Literal["formula", "group"]


def _pick(formula: float, fdelta: float, group: float, gdelta: float) -> GroupPrivacy:
    if formula < group:
        return GroupPrivacy(formula, fdelta, formula, fdelta, group, gdelta, "formula")
    return GroupPrivacy(group, gdelta, formula, fdelta, group, gdelta, "group")


def advanced_grouposition(epsilon: float, k: int, delta: float) -> GroupPrivacy:
    r"""Advanced grouposition for pure LDP (Huang & Canonne Thm 4.1, [BNS19, Thm 4.2]):
    for datasets at distance k and eps-LDP randomizers,

    .. math:: \varepsilon' = k\varepsilon^2/2 + \varepsilon\sqrt{2k\ln(1/\delta)}

    with failure probability delta. The formula can exceed plain group privacy ``k eps``
    (with delta = 0), so the smaller is reported.
    """
    eps = check_epsilon(epsilon)
    k = check_int(k, "k", 1)
    d = check_probability(delta, "delta")
    if d == 0:
        raise InvalidParameterError("delta must be > 0 for advanced grouposition, got 0.0")
    formula = k * eps * eps / 2 + eps * math.sqrt(2 * k * -math.log(d))
    return _pick(formula, d, k * eps, 0.0)


def advanced_grouposition_approx(epsilon: float, delta: float, k: int,
                                 delta_prime: float) -> GroupPrivacy:
    r"""Advanced grouposition for approximate LDP (Huang & Canonne Thm 4.2, [BNS19, Thm 4.3]):
    for (eps, delta)-LDP randomizers and datasets at distance k,

    .. math:: \varepsilon' = k\varepsilon^2/2 + \varepsilon\sqrt{2k\ln(1/\delta')},
              \quad \text{total failure probability } k\delta + \delta'.

    Compared with basic composition of the k differing randomizers, ``(k eps, k delta)``;
    the smaller epsilon is reported.

    Correction: Huang & Canonne print the total as ``delta + k delta'``, which is false. By
    the Kairouz-Oh-Viswanath decomposition every (eps, delta) pair of inputs is a
    post-processing of leaky randomized response (with probability delta reveal the input,
    else binary RR(eps)), so the k differing randomizers leak with probability
    ``1 - (1 - delta)^k``, up to ``k delta`` (union bound), and without a leak they are
    eps-LDP, where Thm 4.1 costs ``delta'`` (the Hoeffding tail). Hence ``k delta + delta'``;
    at ``delta = 0`` this is Thm 4.1. The printed total is broken by 1000 leaky RR(0.1) with
    ``delta = 1e-3``, ``delta' = 1e-6``: it claims (21.62, 0.002), while the exact composition
    has delta 0.632 at eps' = 21.62 (the chance that one of the 1000 leaks).

    Parameters
    ----------
    epsilon, delta : float
        Guarantee of each randomizer, ``epsilon >= 0``, ``0 <= delta <= 1``.
    k : int
        Distance between the datasets (number of differing entries), ``k >= 1``.
    delta_prime : float
        Hoeffding tail of Thm 4.1, ``0 < delta_prime <= 1``.

    Returns
    -------
    GroupPrivacy
        ``formula_delta = min(1, k delta + delta')``, ``group_delta = min(1, k delta)``.
    """
    eps, d, k, dp = check_advanced(epsilon, delta, k, delta_prime)
    formula = k * eps * eps / 2 + eps * math.sqrt(2 * k * -math.log(dp))
    return _pick(formula, min(1.0, k * d + dp), k * eps, min(1.0, k * d))
