"""One place that turns "a mechanism" (ordinary, evidential or a matrix) into the type a
function needs. Every analyzer calls these instead of keeping its own copy."""

from __future__ import annotations

from typing import Any

from .errors import InvalidMechanismError
from .evidential import EvidentialMechanism
from .mechanism import Mechanism


def as_mechanism(m: Any, name: str = "") -> Mechanism:
    """A :class:`Mechanism`; an evidential mechanism is read over its messages and an array
    is validated as a matrix (errors are prefixed with ``name`` when given)."""
    if isinstance(m, Mechanism):
        return m
    if isinstance(m, EvidentialMechanism):
        return m.to_mechanism()
    try:
        return Mechanism(m)
    except InvalidMechanismError as exc:
        if not name:
            raise
        raise InvalidMechanismError(f"{name}: {exc}") from None


def as_evidential(m: Any, name: str = "") -> EvidentialMechanism:
    """An :class:`EvidentialMechanism`; ordinary mechanisms get singleton focal sets."""
    if isinstance(m, EvidentialMechanism):
        return m
    return EvidentialMechanism.from_mechanism(as_mechanism(m, name))
