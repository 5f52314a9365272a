r"""A mechdesign mechanism as an event of Google's ``dp_accounting`` (an optional package).

``dp_accounting`` describes what a pipeline did as ``DpEvent`` values that its accountants
(RDP, PLD) compose. Of its events, two describe finite mechanisms exactly:

* ``RandomizedResponseDpEvent(noise_parameter, num_buckets)``: with probability
  ``1 - p`` the input bucket, otherwise a uniform one of the k buckets. So the diagonal is
  ``1 - p + p/k`` and every other entry ``p/k``: k-RR(eps) is ``p = k/(e^eps + k - 1)``.
  Its RDP is computed for a pair of inputs only with the accountant's neighbouring
  relation ``NeighborRel.REPLACE_ONE`` (the local model: one input replaced by another);
  other relations refuse it or compute something else.
* ``NoOpDpEvent`` (every row equal) and ``NonPrivateDpEvent`` (some output possible under
  one input and impossible under another: infinite RDP).

A general finite matrix has no event in ``dp_accounting`` 0.6 (its other events are
Gaussian, Laplace, sampling, tree aggregation and zCDP ones). It can be passed as
``ZCDpEvent(rho)`` with rho from :func:`~mechdesign.accounting.renyi.zcdp_rho`, which is an
upper bound on its RDP curve (``eps(alpha) <= rho alpha``), so the accountant's answers stay
valid but are looser; or its exact curve from :func:`~mechdesign.accounting.renyi.renyi_curve`
at the accountant's orders can be added to any RDP ledger by hand.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._coerce import as_mechanism
from .._validation import check_int, check_real
from ..errors import InvalidMechanismError, InvalidParameterError, MissingDependencyError
from ..mechanism import Mechanism
from .renyi import zcdp_rho

__all__ = [
    "RR_RTOL",
    "randomized_response_noise",
    "to_dp_event",
]

RR_RTOL = 1e-12
"""Relative tolerance within which the off-diagonal entries of a row must agree for the
matrix to be read as randomized response."""


def _dp_event_module() -> Any:
    try:
        from dp_accounting import dp_event
    except ImportError:
        raise MissingDependencyError(
            "this function needs the package 'dp_accounting' (Google's DP accounting "
            "library), which is not installed: pip install dp-accounting") from None
    return dp_event


def randomized_response_noise(mechanism: Any, rtol: float = RR_RTOL) -> float | None:
    """The noise parameter p of ``dp_accounting``'s k-ary randomized response that the
    mechanism is (up to a relabelling of its outputs), or None.

    The matrix must be k x k, each row one largest entry and ``k - 1`` equal others (within
    ``rtol``, relative), the largest entries in distinct columns. p is ``k`` times the
    smallest off-diagonal entry, so the event is never more private than the matrix (the
    ratio ``(1 - p + p/k)/(p/k)`` is at least every row's).

    Parameters
    ----------
    mechanism : Mechanism, EvidentialMechanism (over its messages) or array_like
    rtol : float
        Relative tolerance on the equality of the off-diagonal entries (>= 0).

    Returns
    -------
    float or None
    """
    rtol = check_real(rtol, "rtol")
    if rtol < 0:
        raise InvalidParameterError(f"rtol must be >= 0, got {rtol!r}")
    Q = as_mechanism(mechanism, "mechanism").matrix
    k, m = Q.shape
    if k != m or k < 2:
        return None
    top = np.argmax(Q, axis=1)
    if len(set(top.tolist())) != k:
        return None
    off = np.where(np.eye(k, dtype=bool)[top], np.nan, Q)  # mask each row's largest entry
    lo, hi = np.nanmin(off, axis=1), np.nanmax(off, axis=1)
    if (hi - lo > rtol * hi).any() or hi.max() - lo.min() > rtol * hi.max():
        return None
    return float(min(1.0, k * float(lo.min())))


def to_dp_event(mechanism: Any, k: int = 1, *, zcdp: bool = False) -> Any:
    r"""The ``dp_accounting`` event of ``k`` uses of a finite mechanism.

    * every row equal: ``NoOpDpEvent()``;
    * a zero entry where another row is positive (infinite Rényi divergence at every
      ``alpha > 1``): ``NonPrivateDpEvent()``;
    * k-ary randomized response, up to relabelling the outputs
      (:func:`randomized_response_noise`): ``RandomizedResponseDpEvent(p, k)``, whose RDP
      the accountant computes exactly (``RdpAccountant(neighboring_relation=
      NeighborRel.REPLACE_ONE)``);
    * any other matrix: with ``zcdp=True``, ``ZCDpEvent(rho)`` with rho from
      :func:`~mechdesign.accounting.renyi.zcdp_rho` (an upper bound on the RDP curve, valid
      for every relation, looser than the exact curve); otherwise a typed error, because
      ``dp_accounting`` (0.6) has no event for a general finite matrix.

    ``k > 1`` wraps the event in ``SelfComposedDpEvent(event, k)``. Use the RDP accountant:
    dp_accounting 0.6's PLD accountant composes ``RandomizedResponseDpEvent`` once whatever
    the count (1000 uses of RR(0.1) read eps 0.1 at delta 1e-6; the exact value is 19.34).
    ``dp_accounting`` is an optional dependency, imported here only.

    Parameters
    ----------
    mechanism : Mechanism, EvidentialMechanism (over its messages) or array_like
    k : int
        Number of uses (>= 1).
    zcdp : bool
        Whether to fall back on ``ZCDpEvent`` for a general matrix.

    Returns
    -------
    dp_accounting.DpEvent

    Raises
    ------
    MissingDependencyError
        ``dp_accounting`` is not installed.
    InvalidMechanismError
        The mechanism has no exact event and ``zcdp`` is False.
    """
    k = check_int(k, "k", 1)
    m: Mechanism = as_mechanism(mechanism, "mechanism")
    if m.n_inputs < 2:
        raise InvalidMechanismError("a mechanism needs at least 2 inputs to have a privacy "
                                    f"loss; got {m.n_inputs} input")
    dp_event = _dp_event_module()
    Q = m.matrix
    if (Q == Q[0]).all():
        event = dp_event.NoOpDpEvent()
    elif ((Q > 0).any(axis=0) & (Q == 0).any(axis=0)).any():
        event = dp_event.NonPrivateDpEvent()
    else:
        p = randomized_response_noise(m)
        if p is not None:
            event = dp_event.RandomizedResponseDpEvent(noise_parameter=p,
                                                       num_buckets=m.n_inputs)
        elif zcdp:
            event = dp_event.ZCDpEvent(rho=zcdp_rho(m).rho)
        else:
            raise InvalidMechanismError(
                f"dp_accounting has no event for a general finite mechanism (this one is "
                f"{m.n_inputs} x {m.n_outputs} and not randomized response): its events are "
                "Gaussian, Laplace, randomized response, sampling and zCDP ones. Pass "
                "zcdp=True for ZCDpEvent(rho), an upper bound on the Rényi curve, or add "
                "renyi_curve(mechanism, orders).epsilons to an RDP ledger")
    return event if k == 1 else dp_event.SelfComposedDpEvent(event=event, count=k)
