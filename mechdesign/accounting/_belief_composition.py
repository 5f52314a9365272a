r"""Composition of evidential (belief-function) mechanisms: SLDP and WLDP of products.

Li et al. 2022 (``docs/belief_functions.md``, s.1 and s.2.5): the composition of evidential
mechanisms on the same input is the product ``m_x(B_1 x .. x B_r) = prod_i m^i_x(B_i)``, whose
focal sets are rectangles. Shafer (mass) SLDP composes additively, and so does Walley LDP:

* **WLDP lives on singletons.** ``r_W = max_{x, x', E} pl_x(E) / bel_x'(E)`` is attained at a
  singleton ``E = {y}``, where ``bel_x'({y}) = m_x'({y})``: ``pl`` is subadditive over the
  points of E and ``bel_x'(E) >= sum_{y in E} m_x'({y})``, so every event ratio is at most the
  largest of its points' ratios (the mediant inequality).
* **Products multiply.** For the same-input product, ``pl_x({(y_1, .., y_r)}) = prod_i
  pl^i_x({y_i})`` (a rectangle meets a point iff each side contains its coordinate) and
  ``m_x'({(y_1, .., y_r)}) = prod_i m^i_x'({y_i})`` (the only rectangle equal to a point is
  the product of the singletons). Hence, with ``rho_i(x, x') = max_y pl^i_x({y}) /
  m^i_x'({y})``,

  .. math:: r_W(Q_1 \times \dots \times Q_r) = \max_{x, x'} \prod_i \rho_i(x, x')
            \le \prod_i r_W(Q_i),

  so ``eps_W(Q_1 x .. x Q_r) <= sum_i eps_W(Q_i)`` (a theorem), with equality for
  ``Q x Q`` (the maximising pair is shared): ``eps_W(Q^{x k}) = k eps_W(Q)``.

The proof is written out in ``docs/belief_functions.md`` s.2.5 and checked exhaustively on a
rational grid in ``tests/accounting/test_wldp_composition.py``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from .._coerce import as_evidential
from .._exact import dlog1p, dyadic_integers, outward
from .._html import value_view
from ..errors import InvalidMechanismError, InvalidParameterError
from ..evidential import EvidentialMechanism
from ..privacy.measures import epsilon_sldp, epsilon_wldp

__all__ = [
    "BeliefComposition",
    "belief_composition",
    "compose_evidential",
    "epsilon_wldp_composed",
    "wldp_pair_ratios",
]

BeliefNotion = Literal["sldp", "sldp_pl", "sldp_bel", "wldp"]


def _shared_inputs(mechanisms: Any, what: str) -> list:
    """The mechanisms as evidential ones, at least one, all on the same inputs (a typed
    error naming ``what`` otherwise)."""
    items = [as_evidential(m) for m in mechanisms]
    if not items:
        raise InvalidParameterError(f"{what} needs at least one mechanism")
    sizes = {m.n_inputs for m in items}
    if len(sizes) > 1:
        raise InvalidMechanismError(
            f"composed mechanisms must share their inputs; got input counts {sorted(sizes)}")
    return items


def compose_evidential(mechanisms: Sequence[Any]) -> EvidentialMechanism:
    r"""The same-input product of evidential mechanisms (Li et al. 2022, s.1):

    .. math:: m_x(B_1 \times \dots \times B_r) = \prod_i m^i_x(B_i)

    Inputs are shared (all mechanisms must have the same number of inputs; the first one's
    labels are kept); outputs are tuples, focal sets are rectangles of tuples. Ordinary
    mechanisms enter as Bayesian ones (singleton focal sets).
    """
    items = _shared_inputs(mechanisms, "compose_evidential")
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


@value_view
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
    bound_status : {"theorem", "none"}
        ``"theorem"``: mass SLDP (ratios of products of masses multiply) and WLDP (the
        singleton form, module notes; ``docs/belief_functions.md`` s.2.5); ``"none"``: pl/bel SLDP.
    product : EvidentialMechanism
    """

    notion: str
    epsilon: float
    sum_bound: float
    components: tuple[float, ...]
    bound_status: Literal["theorem", "none"]
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
    * WLDP: ``eps_W(Q_1 x .. x Q_r) <= sum eps_W(Q_i)``, equality for ``Q x Q`` (a theorem:
      WLDP is decided on singletons, whose ratios multiply; module notes). For products too
      large to enumerate use :func:`epsilon_wldp_composed`.

    The product's events are enumerated for pl/bel/WLDP: at most 16 product outputs.
    """
    if notion not in ("sldp", "sldp_pl", "sldp_bel", "wldp"):
        raise InvalidParameterError(
            f"notion must be 'sldp', 'sldp_pl', 'sldp_bel' or 'wldp', got {notion!r}")
    items = [as_evidential(m) for m in mechanisms]
    product = compose_evidential(items)
    comps = tuple(_measure(m, notion) for m in items)
    status = "theorem" if notion in ("sldp", "wldp") else "none"
    return BeliefComposition(notion, _measure(product, notion), float(sum(comps)), comps,
                             status, product)


def wldp_pair_ratios(m: Any) -> list[list[Fraction | None]]:
    r"""The exact Walley ratios of every ordered pair of inputs, on singletons:

    .. math:: \rho(x, x') = \max_{y} \frac{pl_x(\{y\})}{m_{x'}(\{y\})}
              = \max_E \frac{pl_x(E)}{bel_{x'}(E)}

    (module notes: the event maximum is attained at a singleton). Outputs with
    ``pl_x({y}) = 0`` are skipped (0/0 included); ``None`` stands for an infinite ratio
    (``pl_x({y}) > 0 = m_x'({y})``); a pair with no such output has ratio 0. Masses are read
    exactly (stored floats are dyadic rationals). ``r_W = max_{x, x'} rho(x, x')`` is Li et
    al.'s WLDP ratio (Lemma 3.14), computed in ``O(k^2 F m)`` instead of over ``2^m`` events.
    """
    ev = as_evidential(m)
    N, _D = dyadic_integers(ev.masses)  # a common denominator cancels in every ratio
    masks = [int(b) for b in ev.focal_masks]
    n = ev.n_outputs
    single = {1 << y: j for j, b in enumerate(masks) for y in range(n) if b == 1 << y}
    pl = [[sum(row[j] for j, b in enumerate(masks) if b >> y & 1) for y in range(n)]
          for row in N]
    mass = [[row[single[1 << y]] if (1 << y) in single else 0 for y in range(n)] for row in N]
    out: list[list[Fraction | None]] = []
    for x in range(ev.n_inputs):
        line: list[Fraction | None] = []
        for xp in range(ev.n_inputs):
            best: Fraction | None = Fraction(0)
            for y in range(n):
                if pl[x][y] == 0:
                    continue
                if mass[xp][y] == 0:
                    best = None
                    break
                best = max(best, Fraction(pl[x][y], mass[xp][y]))
            line.append(best)
        out.append(line)
    return out


def epsilon_wldp_composed(mechanisms: Sequence[Any]) -> float:
    r"""The exact WLDP epsilon of the same-input product ``Q_1 x .. x Q_r``, without building
    it (module notes; ``docs/belief_functions.md`` s.2.5):

    .. math:: \varepsilon_W(Q_1 \times \dots \times Q_r)
              = \ln \max_{x, x'} \prod_i \rho_i(x, x')
              \le \sum_i \varepsilon_W(Q_i),

    with ``rho_i`` from :func:`wldp_pair_ratios` (equality for ``Q x Q``). ``O(r k^2 F m)``
    rational operations, any number of factors and outputs. The logarithm of the exact
    rational ratio is rounded up (60 digits); ``inf`` when a ratio is infinite.
    """
    items = _shared_inputs(mechanisms, "epsilon_wldp_composed")
    k = items[0].n_inputs
    tables = [wldp_pair_ratios(m) for m in items]
    best = Fraction(0)
    for x in range(k):
        for xp in range(k):
            factors = [t[x][xp] for t in tables]
            if any(f == 0 for f in factors):
                continue  # some factor has pl = 0 on every output: no event of the product
            if any(f is None for f in factors):
                return math.inf
            prod = Fraction(1)
            for f in factors:
                prod *= f
            best = max(best, prod)
    if best <= 1:
        return 0.0
    t = best - 1
    return outward(lambda: dlog1p(Decimal(t.numerator) / Decimal(t.denominator)))
