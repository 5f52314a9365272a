"""Certify, don't trust, the solver: clean the matrix, re-measure, repair if needed.

Cleaning clips negative entries to 0, zeroes negligible columns and divides each row by
its sum (solver rows are off by up to the solver tolerance). The notion's numpy face (the
analysis layer) then measures the cleaned matrix, and the matrix is accepted only when it
meets the target itself, with no slack aimed at (:func:`meets`):

* an epsilon (LDP, metric, deletion with delta = 0, SLDP, WLDP): the measured epsilon is
  at most the target. The float measures are upper bounds of the exact value of the
  stored matrix up to a few units in the last place, so the comparison is made with the
  measure rounded up by :data:`EPSILON_ROUNDING` (relative);
* a delta (ApproxLDP, DeletionLDP with delta > 0): the measured delta is at most the
  target. The float hockey-stick sums are outward-rounded upper bounds of the exact value
  (:func:`mechdesign.privacy.measures.hockey_stick`), so no slack is added: a target of
  1e-300 is met by a matrix whose delta is exactly 0, or proven below it;
* and, when the matrix has at most ``verify.MAX_EXACT_ENTRIES`` entries (and at most
  ``verify.MAX_EXACT_OUTPUTS`` outputs for the event notions), :func:`verify_exact`
  PROVES it in rational arithmetic (tolerance 0).

If the cleaned matrix misses, two repairs are tried in turn, each aiming strictly inside
the target. (1) For LDP, metric privacy and mass SLDP, the envelope: entries far below the
solver's tolerance (1e-85 where e^{-eps d} demands it) are raised to the smallest values
the ratios allow (``Notion.envelope``), rows are renormalised. (2) Otherwise the
matrix is mixed with a data-independent row ``r`` (by default the column means):
``Q' = (1 - gamma) Q + gamma 1 r^T``. Every notion here bounds ratios or hockey-stick sums
between rows, and mixing every row with the same ``r`` moves each ratio toward 1 and
shrinks each hockey-stick sum, so a bisection on gamma finds the smallest repair; if the
exact check still refuses the result, the aim is moved further inside and the bisection
repeated. WLDP also compares a row with itself (pl_x(E) / bel_x(E)), so its ``r`` is
Bayesian (the notion's ``neutral_row``); ``gamma = 1`` (a constant mechanism) meets every
target exactly.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import InvalidMechanismError, SizeLimitError
from ..privacy.notions import Notion
from ..privacy.verify import verify_exact
from .result import Certificate

__all__ = ["AIM_STEPS", "ENVELOPE_AIMS", "EPSILON_ROUNDING", "NEGLIGIBLE_COLUMN", "certify",
           "clean", "exact_check", "meets"]

ENVELOPE_AIMS = (1.0, 1.0 - 1e-12, 1.0 - 1e-10, 1.0 - 1e-8, 1.0 - 1e-6)
"""Fractions of the target epsilon an envelope is computed at, one per round, before
falling back to mixing: renormalising the rows after raising entries perturbs the ratios
by the mass added, so later rounds leave that much room."""

NEGLIGIBLE_COLUMN = 1e-10
"""A solver column whose largest entry is below this is set to 0 (0/0 is no privacy loss)."""

EPSILON_ROUNDING = 8 * 2.0**-52
"""Relative allowance for the rounding of a float epsilon measure (about 8 ulps): the
measure is multiplied by ``1 + EPSILON_ROUNDING`` before it is compared with the target."""

AIM_STEPS = (1.0, 1.0 - 1e-9, 1.0 - 1e-6, 0.999, 0.9, 0.5, 0.0)
"""Fractions of the target that a mixing repair aims at, in turn, until the exact check
(where it runs) agrees; the last one is the constant mechanism."""


def meets(notion: Notion, achieved: float, n_outputs: int, aim: float = 1.0) -> bool:
    """Does a float measurement meet ``aim`` times the notion's target (see module)?
    (``n_outputs`` is kept for callers; the delta measures carry their rounding bound.)"""
    target = aim * notion.target
    if notion.measures_delta:
        return achieved <= target
    return achieved * (1.0 + EPSILON_ROUNDING) <= target


def exact_check(mechanism: object, notion: Notion) -> bool | None:
    """True when :func:`verify_exact` (tolerance 0) proves the notion, False when it
    disproves it or cannot decide, None when the matrix is above the exact verifier's size
    limits (then the float check alone decides)."""
    try:
        return verify_exact(mechanism, notion).holds is True
    except SizeLimitError:
        return None


def clean(Q: np.ndarray) -> np.ndarray:
    """Clip negatives to 0, zero negligible columns, renormalise rows (solver output only).

    An interior-point solver leaves outputs it wants unused at 1e-11-size values whose
    ratios are arbitrary; zeroing such a column changes no row by more than 1e-10 and
    removes a spurious privacy loss.
    """
    C = np.clip(np.asarray(Q, dtype=float), 0.0, None)
    C[:, C.max(axis=0) < NEGLIGIBLE_COLUMN] = 0.0
    sums = C.sum(axis=1, keepdims=True)
    if (sums <= 0).any() or not np.isfinite(C).all():
        raise InvalidMechanismError("the solver returned a row with no mass or non-finite "
                                    "entries; nothing to certify")
    return C / sums


def certify(Q: np.ndarray, notion: Notion, build: Callable[[np.ndarray], object],
            evaluate: Callable[[np.ndarray], float], solver_value: float | None
            ) -> tuple[object, np.ndarray, Certificate]:
    """Clean ``Q``, measure it with ``notion``, repair if needed (see the module).

    ``build`` turns a matrix into the mechanism value (ordinary or evidential); ``evaluate``
    is the objective's numpy face. Returns the mechanism, its matrix and the certificate.
    """
    C = clean(Q)
    mech = build(C)
    n_out = C.shape[1]

    def passes(m: object) -> tuple[float, bool, bool | None]:
        """(measured, float check and exact check both pass, exact verdict)."""
        achieved = notion.measure(m)
        if not meets(notion, achieved, n_out):
            return achieved, False, None
        exact = exact_check(m, notion)
        return achieved, exact is not False, exact

    achieved, ok, exact = passes(mech)
    gamma, repair = 0.0, "none"
    if not ok:
        # renormalising an envelope perturbs ratios by the mass it added; a few rounds
        # shrink that (quadratically)
        env, E = mech, C
        for aim in ENVELOPE_AIMS:
            raised = notion.envelope(env, aim)
            if raised is None:
                break
            E = raised / raised.sum(axis=1, keepdims=True)
            env = build(E)
            a, good, ex = passes(env)
            if good:
                gamma, repair = float(np.abs(E - C).sum(axis=1).max()), "envelope"
                C, mech, achieved, ok, exact = E, env, a, True, ex
                break
    if not ok:
        repair = "mixing"
        r = notion.neutral_row(C, mech)
        base = C

        def mixed(g: float) -> np.ndarray:
            return (1.0 - g) * base + g * r

        for aim in AIM_STEPS:
            lo, hi = 0.0, 1.0
            for _ in range(60):
                mid = (lo + hi) / 2
                if meets(notion, notion.measure(build(mixed(mid))), n_out, aim):
                    hi = mid
                else:
                    lo = mid
            gamma = hi
            C = mixed(gamma)
            mech = build(C)
            achieved, ok, exact = passes(mech)
            if ok:
                break
    value = evaluate(C)
    gap = float("nan") if solver_value is None else float(value - solver_value)
    method = f"{type(notion).__name__}.measure (float, analysis layer)"
    if exact is True:
        method += " and verify_exact (rational arithmetic): proved"
    cert = Certificate(notion=notion.describe(), target=notion.target, achieved=achieved,
                       met=bool(ok), tolerance=0.0, repair=repair, repair_weight=gamma,
                       value_gap=gap, method=method, exact=exact)
    return mech, C, cert
