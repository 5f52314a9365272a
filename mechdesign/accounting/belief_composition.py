r"""Composition of evidential (belief-function) mechanisms: SLDP and WLDP of products.

Li et al. 2022 (``docs/belief_functions.md``, s.1 and s.2.5): the composition of evidential
mechanisms on the same input is the product ``m_x(B_1 x .. x B_r) = prod_i m^i_x(B_i)``, whose
focal sets are rectangles. Shafer (mass) SLDP composes additively; for Walley LDP the sum bound
``eps_W(Q x Q) <= 2 eps_W(Q)`` held in every numeric search but has no proof.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .._coerce import as_evidential
from ..errors import InvalidMechanismError, InvalidParameterError
from ..evidential import EvidentialMechanism
from ..privacy.measures import epsilon_sldp, epsilon_wldp

BeliefNotion = Literal["sldp", "sldp_pl", "sldp_bel", "wldp"]


def compose_evidential(mechanisms: Sequence[Any]) -> EvidentialMechanism:
    r"""The same-input product of evidential mechanisms (Li et al. 2022, s.1):

    .. math:: m_x(B_1 \times \dots \times B_r) = \prod_i m^i_x(B_i)

    Inputs are shared (all mechanisms must have the same number of inputs; the first one's
    labels are kept); outputs are tuples, focal sets are rectangles of tuples. Ordinary
    mechanisms enter as Bayesian ones (singleton focal sets).
    """
    items = [as_evidential(m) for m in mechanisms]
    if not items:
        raise InvalidParameterError("compose_evidential needs at least one mechanism")
    sizes = {m.n_inputs for m in items}
    if len(sizes) > 1:
        raise InvalidMechanismError(
            f"composed mechanisms must share their inputs; got input counts {sorted(sizes)}")
    masses = items[0].masses
    for m in items[1:]:
        masses = np.einsum("xi,xj->xij", masses, m.masses).reshape(masses.shape[0], -1)
    fsets = [frozenset(itertools.product(*Bs))
             for Bs in itertools.product(*(m.focal_sets for m in items))]
    outputs = list(itertools.product(*(m.outputs for m in items)))
    return EvidentialMechanism(masses, fsets, items[0].inputs, outputs)


def _measure(m: EvidentialMechanism, notion: str) -> float:
    if notion == "sldp":
        return epsilon_sldp(m, "mass")
    if notion == "sldp_pl":
        return epsilon_sldp(m, "pl")
    if notion == "sldp_bel":
        return epsilon_sldp(m, "bel")
    return epsilon_wldp(m)


@dataclass(frozen=True)
class BeliefComposition:
    """Privacy of the product of evidential mechanisms under one notion.

    Attributes
    ----------
    notion : str
        ``"sldp"`` (mass), ``"sldp_pl"``, ``"sldp_bel"`` or ``"wldp"``.
    epsilon : float
        Exact epsilon of the product mechanism.
    sum_bound : float
        Sum of the components' epsilons.
    components : tuple of float
    bound_status : {"theorem", "conjecture", "none"}
        ``"theorem"``: mass SLDP (ratios of products of masses multiply); ``"conjecture"``:
        WLDP (held numerically, no proof, ``docs/belief_functions.md`` s.2.5); ``"none"``:
        pl/bel SLDP.
    product : EvidentialMechanism
    """

    notion: str
    epsilon: float
    sum_bound: float
    components: tuple[float, ...]
    bound_status: Literal["theorem", "conjecture", "none"]
    product: EvidentialMechanism

    @property
    def within_bound(self) -> bool:
        """Whether the exact epsilon is at most the sum (up to 1e-9)."""
        return self.epsilon <= self.sum_bound + 1e-9


def belief_composition(mechanisms: Sequence[Any], notion: BeliefNotion = "sldp"
                       ) -> BeliefComposition:
    r"""Exact SLDP/WLDP epsilon of the same-input product of evidential mechanisms, with the
    sum of the components' epsilons (Li et al. 2022, s.2.5):

    * mass SLDP: ``eps_S(Q_1 x .. x Q_r) <= sum eps_S(Q_i)`` (a theorem: every product mass
      ratio is a product of ratios);
    * WLDP: ``eps_W(Q x Q) <= 2 eps_W(Q)`` held numerically but is unproven.

    The product's events are enumerated for pl/bel/WLDP: at most 16 product outputs.
    """
    if notion not in ("sldp", "sldp_pl", "sldp_bel", "wldp"):
        raise InvalidParameterError(
            f"notion must be 'sldp', 'sldp_pl', 'sldp_bel' or 'wldp', got {notion!r}")
    items = [as_evidential(m) for m in mechanisms]
    product = compose_evidential(items)
    comps = tuple(_measure(m, notion) for m in items)
    status = {"sldp": "theorem", "wldp": "conjecture"}.get(notion, "none")
    return BeliefComposition(notion, _measure(product, notion), float(sum(comps)), comps,
                             status, product)
