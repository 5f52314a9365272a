"""Every applicable privacy measure of a mechanism, as one record (used by the CLI)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from .privacy import (
    delta_ldp,
    epsilon_deletion,
    epsilon_ldp,
    epsilon_metric,
    epsilon_sldp,
    epsilon_wldp,
)


def privacy_report(m: Mechanism | EvidentialMechanism, epsilons: Sequence[float] = (),
                   distance: Any = None) -> dict[str, float]:
    """Measures of ``m`` by name: ``epsilon_ldp``, ``epsilon_deletion``, ``delta_ldp@eps`` for
    each eps in ``epsilons``, ``epsilon_metric`` when a ``distance`` is given, and for an
    evidential mechanism ``epsilon_sldp_mass``, ``epsilon_sldp_pl``, ``epsilon_sldp_bel`` and
    ``epsilon_wldp``. Non-private is ``inf``.
    """
    out: dict[str, float] = {}
    ordinary = m.to_mechanism() if isinstance(m, EvidentialMechanism) else m
    if isinstance(m, EvidentialMechanism):
        for kind in ("mass", "pl", "bel"):
            out[f"epsilon_sldp_{kind}"] = epsilon_sldp(m, kind)
        out["epsilon_wldp"] = epsilon_wldp(m)
    out["epsilon_ldp"] = epsilon_ldp(ordinary)
    out["epsilon_deletion"] = epsilon_deletion(ordinary).epsilon
    for eps in epsilons:
        out[f"delta_ldp@{eps:g}"] = delta_ldp(ordinary, eps)
    if distance is not None:
        out["epsilon_metric"] = epsilon_metric(ordinary, distance)
    return out


def ratio(epsilon: float) -> float:
    """``e^eps`` (the likelihood-ratio bound the papers quote as r), inf-safe."""
    return math.inf if epsilon > 709 else math.exp(epsilon)
