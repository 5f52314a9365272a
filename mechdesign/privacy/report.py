"""Every applicable privacy measure of a randomizer, as one record (used by the CLI)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._coerce import closed_form
from .._exact import outward
from .._subsets import MAX_EVENT_OUTPUTS
from ..errors import SizeLimitError
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

__all__ = [
    "EVENT_MEASURES",
    "MATRIX_MEASURES",
    "privacy_report",
    "ratio",
    "skipped_measures",
]


EVENT_MEASURES = ("epsilon_sldp_pl", "epsilon_sldp_bel", "epsilon_wldp")
"""Measures of an evidential mechanism that enumerate all 2^m events (unless Bayesian)."""

MATRIX_MEASURES = ("epsilon_deletion", "epsilon_metric")
"""Measures of a frequency oracle read from its matrix (no closed form here): left out when
the matrix is too large to build."""


def _matrix_form(m: Any) -> tuple[Mechanism | None, str]:
    """``m``'s explicit matrix and ``""``, or ``None`` and why it cannot be built (a frequency
    oracle above its size limit)."""
    if isinstance(m, Mechanism):
        return m, ""
    try:
        return m.to_mechanism(), ""
    except SizeLimitError as exc:
        return None, f"needs the explicit matrix: {exc}"


def skipped_measures(m: Any) -> dict[str, str]:
    """The measures :func:`privacy_report` leaves out of ``m``'s record, with the reason: the
    event measures (:data:`EVENT_MEASURES`) of a non-Bayesian evidential mechanism with more
    than :data:`~mechdesign._subsets.MAX_EVENT_OUTPUTS` outputs, and the matrix measures
    (:data:`MATRIX_MEASURES`) of a frequency oracle whose matrix is over its size limit
    (:data:`~mechdesign.oracles.base.MAX_ENTRIES` entries)."""
    if (isinstance(m, EvidentialMechanism) and m.n_outputs > MAX_EVENT_OUTPUTS
            and not m.is_bayesian):
        reason = (f"needs all 2^{m.n_outputs} events of the {m.n_outputs} outputs; event "
                  f"enumeration is limited to {MAX_EVENT_OUTPUTS} outputs")
        return dict.fromkeys(EVENT_MEASURES, reason)
    if closed_form(m) is not None:
        matrix, reason = _matrix_form(m)
        if matrix is None:
            return dict.fromkeys(MATRIX_MEASURES, reason)
    return {}


def privacy_report(m: Any, epsilons: Sequence[float] = (),
                   distance: Any = None) -> dict[str, float]:
    """Measures of ``m`` by name: ``epsilon_ldp``, ``epsilon_deletion``, ``delta_ldp@eps`` for
    each eps in ``epsilons``, ``epsilon_metric`` when a ``distance`` is given, and for an
    evidential mechanism ``epsilon_sldp_mass``, ``epsilon_sldp_pl``, ``epsilon_sldp_bel`` and
    ``epsilon_wldp`` (the last three left out, see :func:`skipped_measures`, when they would
    enumerate too many events). Non-private is ``inf``.

    ``m`` is any :class:`~mechdesign.randomizer.Randomizer`. A frequency oracle's
    ``epsilon_ldp`` and ``delta_ldp@eps`` come from its closed form (never its matrix); its
    ``epsilon_deletion`` and ``epsilon_metric`` from its matrix, left out (see
    :func:`skipped_measures`) when that matrix is over the size limit.
    """
    out: dict[str, float] = {}
    if closed_form(m) is not None:
        out["epsilon_ldp"] = epsilon_ldp(m)
        matrix, _ = _matrix_form(m)
        if matrix is not None:
            out["epsilon_deletion"] = epsilon_deletion(matrix).epsilon
        for eps in epsilons:
            out[f"delta_ldp@{eps:g}"] = delta_ldp(m, eps)
        if distance is not None and matrix is not None:
            out["epsilon_metric"] = epsilon_metric(matrix, distance)
        return out
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
