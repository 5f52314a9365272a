r"""Catalog families as baselines for designed optima, at matched privacy levels.

A designed optimum is only interesting beside what the standard mechanisms achieve at the
same epsilon. :func:`family_frontier` evaluates a catalog family (k-RR, subset selection at
its best d, unary encodings, Hadamard response) on an objective; for evidential problems over
a yes/no question, :func:`dont_know_frontier` evaluates the "don't know" mechanisms
Q_2x3(p, q) with fixed ``c = p + q`` (c = 1 is Warner's randomized response; Li et al.
2022, Figs 1-2) at the (p, q) whose privacy under the problem's own notion is epsilon.
:func:`comparison_families` picks every family that fits a problem.

Families use the convention that output i reports input i; a family is left out when its
output alphabet does not fit the objective (a loss matrix with a different number of
columns).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from scipy.optimize import brentq

from .. import catalog
from ..design.objectives import Objective
from ..errors import InvalidParameterError
from ..estimation.dont_know import dont_know_from_c_eps
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from .sweep import check_epsilons

if TYPE_CHECKING:
    from ..design.problem import DesignProblem

FAMILIES = ("randomized_response", "subset_selection", "unary_encoding",
            "optimized_unary_encoding", "hadamard_response")
"""Ordinary catalog families for :func:`family_frontier`."""

DONT_KNOW_C = (1.0, 0.9, 0.7, 0.5)
"""Values of c = p + q compared by :func:`comparison_families` (c = 1: Warner)."""

MAX_SHAFER_LOSS = 60.0
"""Largest ``ln(p/q)`` searched by :func:`dont_know_family` (``q/p = e^-60``)."""


def _fits(objective: Objective | None, mechanism: Mechanism) -> bool:
    return objective is None or objective.n_outputs in (None, mechanism.n_outputs)


def family_mechanism(family: str, k: int, epsilon: float,
                     objective: Objective | None = None) -> Mechanism:
    """The catalog mechanism of ``family`` at (k, eps); subset selection takes the d that
    is best for ``objective`` (smallest for a minimised objective) among the d whose output
    alphabet fits it. Raises :class:`InvalidParameterError` when the family does not fit."""
    if family == "randomized_response":
        mech = catalog.randomized_response(k, epsilon)
    elif family == "unary_encoding":
        mech = catalog.unary_encoding(k, epsilon)
    elif family == "optimized_unary_encoding":
        mech = catalog.unary_encoding(k, epsilon, optimized=True)
    elif family == "hadamard_response":
        mech = catalog.hadamard_response(k, epsilon)
    elif family == "subset_selection":
        cands = [catalog.subset_selection(k, d, epsilon) for d in range(1, k)
                 if k * math.comb(k, d) <= catalog.MAX_ENTRIES]
        cands = [m for m in cands if _fits(objective, m)]
        if not cands:
            raise InvalidParameterError(
                f"no subset selection at k = {k} has the objective's "
                f"{objective.n_outputs if objective else '?'} outputs")
        if objective is None:
            return cands[0]
        sign = 1.0 if objective.sense == "minimize" else -1.0
        return min(cands, key=lambda m: sign * objective.evaluate(m.matrix))
    else:
        raise InvalidParameterError(f"unknown family {family!r}; choose from {FAMILIES}")
    if not _fits(objective, mech):
        raise InvalidParameterError(
            f"{family} at k = {k} has {mech.n_outputs} outputs; the objective has "
            f"{objective.n_outputs}")
    return mech


def family_frontier(family: str, objective: Objective, epsilons: Sequence[float]
                    ) -> np.ndarray:
    """``objective`` evaluated on the catalog ``family`` at each epsilon (the family's
    output alphabet must fit the objective: information objectives take any, a loss matrix
    needs as many columns as the family has outputs)."""
    eps = check_epsilons(epsilons)
    k = objective.n_inputs
    if k is None:
        raise InvalidParameterError("the objective must fix the number of inputs")
    return np.array([objective.evaluate(family_mechanism(family, k, e, objective).matrix)
                     for e in eps])


def _message_order(problem: DesignProblem) -> list[int] | None:
    """Columns of Q_2x3 ({out0}, {out1}, {out0, out1}) in the problem's focal-set order, or
    None when the problem is not a yes/no question with exactly those three messages."""
    if problem.focal_sets is None or problem.k != 2 or len(problem.outputs) != 2:
        return None
    a, b = problem.outputs
    wanted = [frozenset([a]), frozenset([b]), frozenset([a, b])]
    if sorted(map(sorted, problem.focal_sets), key=str) != sorted(map(sorted, wanted), key=str):
        return None
    return [wanted.index(fs) for fs in problem.focal_sets]


def dont_know_family(c: float, epsilon: float, problem: DesignProblem
                     ) -> EvidentialMechanism | None:
    r"""Q_2x3(p, q) with ``p + q = c`` whose privacy under ``problem``'s notion is
    ``epsilon``, over the problem's labels and message order; None when no such (p, q)
    exists (e.g. eps_pl is at most ``ln(1/(1 - c))``).

    With ``p = c / (1 + e^{-t})``, ``q = c / (1 + e^{t})`` (``t = ln(p/q)``, the Shafer
    loss; :func:`~mechdesign.estimation.dont_know.dont_know_from_c_eps`) every notion of the
    sheet grows with t, so ``t`` is found by a root search on the exact measure
    (``docs/belief_functions.md`` s.4: eps_S = eps_bel = t, eps_pl = ln((1-q)/(1-p)),
    eps_W = ln((1-q)/q)).
    """
    order = _message_order(problem)
    if order is None:
        raise InvalidParameterError(
            "the don't-know family needs 2 inputs, 2 outputs and the messages {a}, {b}, {a, b}")
    if not 0 < c <= 1:
        raise InvalidParameterError(f"c = p + q must lie in (0, 1], got {c!r}")
    notion = problem.privacy

    def build(t: float) -> EvidentialMechanism:
        p, q = dont_know_from_c_eps(c, t)
        row = np.array([p, q, max(0.0, 1.0 - p - q)])
        masses = np.array([row, row[[1, 0, 2]]])[:, order]
        return EvidentialMechanism(masses, problem.focal_sets, problem.inputs,
                                   problem.outputs)

    def gap(t: float) -> float:
        return notion.measure(build(t)) - epsilon

    if gap(MAX_SHAFER_LOSS) < 0:
        return None
    t = brentq(gap, 0.0, MAX_SHAFER_LOSS, xtol=1e-14, rtol=4 * np.finfo(float).eps)
    return build(t)


def dont_know_frontier(c: float, problem: DesignProblem, epsilons: Sequence[float]
                       ) -> np.ndarray:
    """``problem``'s objective on :func:`dont_know_family` at each epsilon (NaN where the
    family cannot reach that epsilon)."""
    eps = check_epsilons(epsilons)
    out = []
    for e in eps:
        m = dont_know_family(c, float(e), problem)
        out.append(np.nan if m is None else problem.objective.evaluate(m.masses))
    return np.array(out)


def comparison_families(problem: DesignProblem, epsilons: Sequence[float]
                        ) -> dict[str, np.ndarray]:
    """Every catalog family that fits ``problem``, evaluated on its objective at each
    epsilon: ``{label: values}``. Ordinary problems: the :data:`FAMILIES` whose outputs fit
    the objective. Evidential yes/no problems with Shafer semantics: Q_2x3 at each c in
    :data:`DONT_KNOW_C`, matched on the problem's own notion."""
    out: dict[str, np.ndarray] = {}
    if problem.focal_sets is None:
        for fam in FAMILIES:
            try:
                out[fam] = family_frontier(fam, problem.objective, epsilons)
            except InvalidParameterError:
                continue  # does not fit the objective, or too large to build at this k
        return out
    if problem.semantics != "shafer" or _message_order(problem) is None:
        return out
    for c in DONT_KNOW_C:
        label = "Warner (Q_2x3, c = 1)" if c == 1 else f"Q_2x3, c = {c:g}"
        out[label] = dont_know_frontier(c, problem, epsilons)
    return out
