"""Every applicable privacy measure of a mechanism, as one record (used by the CLI)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._exact import outward
from .._subsets import MAX_EVENT_OUTPUTS
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from .measures import (
    delta_ldp,
    epsilon_deletion,
    epsilon_ldp,
    epsilon_metric,
    epsilon_sldp,
    epsilon_wldp,
)

EVENT_MEASURES = ("epsilon_sldp_pl", "epsilon_sldp_bel", "epsilon_wldp")
"""Measures of an evidential mechanism that enumerate all 2^m events (unless Bayesian)."""


def skipped_measures(m: Mechanism | EvidentialMechanism) -> dict[str, str]:
    """The measures :func:`privacy_report` leaves out of ``m``'s record, with the reason: the
    event measures (:data:`EVENT_MEASURES`) of a non-Bayesian evidential mechanism with more
    than :data:`~mechdesign._subsets.MAX_EVENT_OUTPUTS` outputs."""
    if (isinstance(m, EvidentialMechanism) and m.n_outputs > MAX_EVENT_OUTPUTS
            and not m.is_bayesian):
        reason = (f"needs all 2^{m.n_outputs} events of the {m.n_outputs} outputs; event "
                  f"enumeration is limited to {MAX_EVENT_OUTPUTS} outputs")
        return dict.fromkeys(EVENT_MEASURES, reason)
    return {}


def privacy_report(m: Mechanism | EvidentialMechanism, epsilons: Sequence[float] = (),
                   distance: Any = None) -> dict[str, float]:
    """Measures of ``m`` by name: ``epsilon_ldp``, ``epsilon_deletion``, ``delta_ldp@eps`` for
    each eps in ``epsilons``, ``epsilon_metric`` when a ``distance`` is given, and for an
    evidential mechanism ``epsilon_sldp_mass``, ``epsilon_sldp_pl``, ``epsilon_sldp_bel`` and
    ``epsilon_wldp`` (the last three left out, see :func:`skipped_measures`, when they would
    enumerate too many events). Non-private is ``inf``.
    """
    out: dict[str, float] = {}
    ordinary = m.to_mechanism() if isinstance(m, EvidentialMechanism) else m
    if isinstance(m, EvidentialMechanism):
        skipped = skipped_measures(m)
        out["epsilon_sldp_mass"] = epsilon_sldp(m, "mass")
        for kind in ("pl", "bel"):
            if f"epsilon_sldp_{kind}" not in skipped:
                out[f"epsilon_sldp_{kind}"] = epsilon_sldp(m, kind)
        if "epsilon_wldp" not in skipped:
            out["epsilon_wldp"] = epsilon_wldp(m)
    out["epsilon_ldp"] = epsilon_ldp(ordinary)
    out["epsilon_deletion"] = epsilon_deletion(ordinary).epsilon
    for eps in epsilons:
        out[f"delta_ldp@{eps:g}"] = delta_ldp(ordinary, eps)
    if distance is not None:
        out["epsilon_metric"] = epsilon_metric(ordinary, distance)
    return out


def ratio(epsilon: float) -> float:
    """``e^eps`` (the likelihood-ratio bound the papers quote as r), inf-safe, rounded up
    (:func:`mechdesign._exact.outward`)."""
    return outward(lambda e: e.exp(), epsilon)
