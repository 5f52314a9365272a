"""One place that turns "a mechanism" (ordinary, evidential, any other
:class:`~mechdesign.randomizer.Randomizer` such as a frequency oracle, or a matrix) into the
type a function needs. Every analyzer calls these instead of keeping its own copy."""

from __future__ import annotations

from typing import Any

from .errors import InvalidMechanismError
from .evidential import EvidentialMechanism
from .mechanism import Mechanism
from .randomizer import ClosedFormPrivacy, Randomizer


def as_mechanism(m: Any, name: str = "") -> Mechanism:
    """A :class:`Mechanism`; an evidential mechanism is read over its messages, any other
    :class:`~mechdesign.randomizer.Randomizer` (a frequency oracle) by its ``to_mechanism()``
    (:class:`~mechdesign.errors.SizeLimitError` when too large to build), and an array is
    validated as a matrix (errors are prefixed with ``name`` when given)."""
    if isinstance(m, Mechanism):
        return m
    if isinstance(m, EvidentialMechanism):
        return m.to_mechanism()
    if isinstance(m, Randomizer):
        return m.to_mechanism()
    try:
        return Mechanism(m)
    except InvalidMechanismError as exc:
        if not name:
            raise
        raise InvalidMechanismError(f"{name}: {exc}") from None


def closed_form(m: Any) -> ClosedFormPrivacy | None:
    """``m`` when it is a structured randomizer that measures its own privacy in closed form
    (:class:`~mechdesign.randomizer.ClosedFormPrivacy`, e.g. a frequency oracle); None for
    an explicit mechanism or a matrix, which are measured from their entries."""
    if isinstance(m, Mechanism | EvidentialMechanism) or not isinstance(m, ClosedFormPrivacy):
        return None
    return m


def as_evidential(m: Any, name: str = "") -> EvidentialMechanism:
    """An :class:`EvidentialMechanism`; ordinary mechanisms get singleton focal sets."""
    if isinstance(m, EvidentialMechanism):
        return m
    return EvidentialMechanism.from_mechanism(as_mechanism(m, name))
