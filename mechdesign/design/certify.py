"""Certify, don't trust, the solver: clean the matrix, re-measure, repair if needed.

Cleaning clips negative entries to 0, zeroes negligible columns and divides each row by
its sum (solver rows are off by up to the solver tolerance). The notion's numpy face (the
analysis layer) then measures the cleaned matrix. If it misses the target by more than the
tolerance, two repairs are tried in turn. (1) For LDP, metric privacy and mass SLDP, the
envelope: entries far below the solver's tolerance (1e-85 where e^{-eps d} demands it) are
raised to the smallest values the ratios allow (``notions.ratio_envelope``), rows are
renormalised; this costs nothing measurable. (2) Otherwise the matrix is mixed with a
data-independent row ``r`` (by default the column means):
``Q' = (1 - gamma) Q + gamma 1 r^T``. Every notion here bounds ratios or hockey-stick sums
between rows, and mixing every row with the same ``r`` moves each ratio toward 1 and
shrinks each hockey-stick sum, so a bisection on gamma finds the smallest repair. WLDP
also compares a row with itself (pl_x(E) / bel_x(E)), so its ``r`` is Bayesian (the
notion's ``neutral_row``); then ``gamma = 1`` (a constant mechanism) meets every target.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..analysis.privacy import EPSILON_TOL
from ..errors import InvalidMechanismError
from .notions import Notion
from .result import Certificate

ENVELOPE_ROUNDS = 5
"""Envelope-and-renormalise rounds tried before falling back to mixing."""

NEGLIGIBLE_COLUMN = 1e-10
"""A solver column whose largest entry is below this is set to 0 (0/0 is no privacy loss)."""


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
            evaluate: Callable[[np.ndarray], float], solver_value: float | None,
            tol: float = EPSILON_TOL) -> tuple[object, np.ndarray, Certificate]:
    """Clean ``Q``, measure it with ``notion``, repair by mixing if needed.

    ``build`` turns a matrix into the mechanism value (ordinary or evidential); ``evaluate``
    is the objective's numpy face. Returns the mechanism, its matrix and the certificate.
    """
    C = clean(Q)
    mech = build(C)
    achieved = notion.measure(mech)
    gamma, repair = 0.0, "none"
    if achieved > notion.target + tol:
        # renormalising an envelope perturbs ratios by the mass it added; a few rounds
        # shrink that (quadratically) below the tolerance
        env, E = mech, C
        for _ in range(ENVELOPE_ROUNDS):
            raised = notion.envelope(env)
            if raised is None:
                break
            E = raised / raised.sum(axis=1, keepdims=True)
            env = build(E)
            if notion.measure(env) <= notion.target + tol:
                gamma, repair = float(np.abs(E - C).sum(axis=1).max()), "envelope"
                C, mech = E, env
                achieved = notion.measure(mech)
                break
    if achieved > notion.target + tol:
        repair = "mixing"
        r = notion.neutral_row(C, mech)

        def mixed(g: float) -> np.ndarray:
            return (1.0 - g) * C + g * r

        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            if notion.measure(build(mixed(mid))) <= notion.target + tol / 2:
                hi = mid
            else:
                lo = mid
        gamma = hi
        C = mixed(gamma)
        mech = build(C)
        achieved = notion.measure(mech)
    value = evaluate(C)
    gap = float("nan") if solver_value is None else float(value - solver_value)
    cert = Certificate(notion=notion.describe(), target=notion.target, achieved=achieved,
                       met=bool(achieved <= notion.target + tol), tolerance=tol,
                       repair=repair, repair_weight=gamma, value_gap=gap,
                       method=f"{type(notion).__name__}.measure (analysis layer)")
    return mech, C, cert
