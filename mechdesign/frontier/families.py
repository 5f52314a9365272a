r"""Catalog families as baselines for designed optima, at matched privacy levels.

A designed optimum is only interesting beside what the standard mechanisms achieve at the
same epsilon. :func:`family_frontier` evaluates a catalog family (k-RR, subset selection at
its best d, unary encodings, Hadamard response, local hashing) on an objective, by its
matrix or, past the matrix limit on an estimation objective, by its estimator's exact
variance (:mod:`mechdesign.oracles`); for evidential problems over
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
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.optimize import brentq

from .. import catalog
from .._html import items_text, kv_table, series_table, short_repr, wrap
from ..design.objectives import EstimationVariance, Objective
from ..errors import InvalidParameterError
from ..estimation.dont_know import dont_know_from_c_eps
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from ..oracles.choice import FAMILIES as ORACLE_FAMILIES
from ..oracles.choice import best_oracle, family_oracles
from .sweep import check_epsilons

__all__ = [
    "DONT_KNOW_C",
    "FAMILIES",
    "MAX_SHAFER_LOSS",
    "FamilyComparison",
    "FamilySkipped",
    "compare_families",
    "comparison_families",
    "dont_know_family",
    "dont_know_frontier",
    "estimator_variance",
    "family_frontier",
    "family_mechanism",
    "family_outputs",
]


if TYPE_CHECKING:
    from ..design.problem import DesignProblem

FAMILIES = ORACLE_FAMILIES
"""Ordinary catalog families for :func:`family_frontier` (the oracle families)."""

DONT_KNOW_C = (1.0, 0.9, 0.7, 0.5)
"""Values of c = p + q compared by :func:`comparison_families` (c = 1: Warner)."""

MAX_SHAFER_LOSS = 60.0
"""Largest ``ln(p/q)`` searched by :func:`dont_know_family` (``q/p = e^-60``)."""


class FamilySkipped(InvalidParameterError):
    """A family that cannot be evaluated on an objective; the message says why. ``fits``:
    its output alphabet fits the objective (it is left out for its size alone)."""

    def __init__(self, message: str, fits: bool = False) -> None:
        super().__init__(message)
        self.fits = fits


@dataclass(frozen=True)
class FamilyComparison:
    """The families evaluated on a problem: ``values`` by label, and ``notes`` by label
    saying how a family was evaluated (closed form) or why it was left out."""

    values: dict[str, np.ndarray]
    notes: dict[str, str]

    def __repr__(self) -> str:
        left_out = [k for k in self.notes if k not in self.values]
        n = len(next(iter(self.values.values()))) if self.values else 0
        return short_repr("FamilyComparison",
                          f"{len(self.values)} families at {n} epsilons: "
                          f"{items_text(list(self.values), str, 80)}; "
                          + (f"{len(left_out)} left out: {items_text(left_out, str, 50)}"
                             if left_out else "none left out"))

    def _repr_html_(self) -> str:
        """The values by family (a column each) and the notes, as tables (notebooks)."""
        parts = []
        if self.values:
            n = len(next(iter(self.values.values())))
            parts.append(series_table([("point", list(range(n))), *self.values.items()],
                                      "FamilyComparison: values by family"))
        parts.append(kv_table(list(self.notes.items()) or [("notes", "none")], "notes"))
        return wrap(*parts)


def family_outputs(family: str, k: int, d: int = 1) -> int:
    """Number of outputs of ``family`` at k (subset selection at ``d``), without building it."""
    if family == "local_hashing":
        return family_oracles(family, k, 1.0)[0].n_outputs
    if family == "subset_selection":
        return math.comb(k, d)
    return {"randomized_response": k, "unary_encoding": 2 ** k,
            "optimized_unary_encoding": 2 ** k,
            "hadamard_response": 1 << k.bit_length()}[family]


def _buildable(family: str, k: int, n_outputs: int) -> bool:
    """Whether the catalog builds ``family``'s ``k x n_outputs`` matrix."""
    if family in ("unary_encoding", "optimized_unary_encoding") and k > catalog.MAX_UNARY_K:
        return False
    return k * n_outputs <= catalog.MAX_ENTRIES


def _fits(objective: Objective | None, n_outputs: int) -> bool:
    return objective is None or objective.n_outputs in (None, n_outputs)


def family_mechanism(family: str, k: int, epsilon: float,
                     objective: Objective | None = None) -> Mechanism:
    """The catalog mechanism of ``family`` at (k, eps) as a matrix; subset selection takes
    the d that is best for ``objective`` (smallest for a minimised objective) among the d
    whose output alphabet fits it. Raises :class:`FamilySkipped` when the family does not
    fit the objective or its matrix is too large to build."""
    if family not in FAMILIES:
        raise InvalidParameterError(f"unknown family {family!r}; choose from {FAMILIES}")
    sizes = ({d: family_outputs(family, k, d) for d in range(1, k)}
             if family == "subset_selection" else {None: family_outputs(family, k)})
    fitting = {d: m for d, m in sizes.items() if _fits(objective, m)}
    if not fitting:
        wanted = objective.n_outputs if objective else "?"
        if family == "subset_selection":
            raise FamilySkipped(f"no subset selection at k = {k} has the objective's "
                                f"{wanted} outputs")
        raise FamilySkipped(f"{family} at k = {k} has {sizes[None]} outputs; the objective "
                            f"has {wanted}")
    buildable = {d: m for d, m in fitting.items() if _buildable(family, k, m)}
    if family == "local_hashing":
        raise FamilySkipped("local_hashing reports a random hash seed with its bucket: "
                            "2^64 seeds, no matrix", fits=True)
    if not buildable:
        raise FamilySkipped(
            f"{family} at k = {k} has {min(fitting.values())} outputs or more, too many "
            f"for a matrix ({catalog.MAX_ENTRIES} entries)", fits=True)
    if family == "subset_selection":
        cands = [catalog.subset_selection(k, d, epsilon) for d in buildable]
        if objective is None:
            return cands[0]
        sign = 1.0 if objective.sense == "minimize" else -1.0
        return min(cands, key=lambda mech: sign * objective.evaluate(mech.matrix))
    return {"randomized_response": lambda: catalog.randomized_response(k, epsilon),
            "unary_encoding": lambda: catalog.unary_encoding(k, epsilon),
            "optimized_unary_encoding": lambda: catalog.unary_encoding(k, epsilon, True),
            "hadamard_response": lambda: catalog.hadamard_response(k, epsilon)}[family]()


def _closed_form_applies(objective: Objective) -> bool:
    """Whether a family's estimator variance can stand in for ``objective`` (the A criterion
    of the Cramer-Rao bound without workload weights)."""
    return (isinstance(objective, EstimationVariance) and objective.criterion == "A"
            and objective.weights is None)


def estimator_variance(family: str, objective: EstimationVariance, epsilon: float) -> float:
    """The total variance ``sum_v Var(hat f_v)`` per report of ``family``'s unbiased
    estimator at ``objective``'s prior (subset selection at its best d for that prior), in
    closed form at any k (:mod:`mechdesign.oracles`). It is at least the family's
    Cramer-Rao value (every unbiased estimator's covariance dominates the bound) and equal
    to it for k-RR and, under a uniform prior, subset selection."""
    return best_oracle(objective.prior, epsilon, (family,))[1]


def family_frontier(family: str, objective: Objective, epsilons: Sequence[float]
                    ) -> np.ndarray:
    """``objective`` evaluated on the catalog ``family`` at each epsilon (the family's
    output alphabet must fit the objective: information objectives take any, a loss matrix
    needs as many columns as the family has outputs). A family too large for its matrix is
    evaluated in closed form where the objective allows (:func:`estimator_variance`);
    otherwise :class:`FamilySkipped`."""
    return _family_values(family, objective, epsilons)[0]


def _family_values(family: str, objective: Objective, epsilons: Sequence[float]
                   ) -> tuple[np.ndarray, str]:
    """:func:`family_frontier` and a note on how it was evaluated ("" for the matrix)."""
    eps = check_epsilons(epsilons)
    k = objective.n_inputs
    if k is None:
        raise InvalidParameterError("the objective must fix the number of inputs")
    if family == "subset_selection" and objective.n_outputs is None:
        return _subset_values(objective, eps)
    out, note = [], ""
    for e in eps:
        try:
            out.append(objective.evaluate(family_mechanism(family, k, e, objective).matrix))
        except FamilySkipped as exc:
            if not (exc.fits and _closed_form_applies(objective)):
                raise
            out.append(estimator_variance(family, objective, e))  # type: ignore[arg-type]
            note = _closed_form_note(family, k)
    return np.array(out), note


def _subset_values(objective: Objective, eps: np.ndarray) -> tuple[np.ndarray, str]:
    """Subset selection at its best d for an objective that takes any alphabet: the
    matrix's value when every d's matrix can be built; else, for estimation (A criterion),
    every d scored by its estimator's exact variance (an upper bound on that d's
    Cramer-Rao value; cheap, where the matrices of the small d cost seconds each at
    k = 40); otherwise the d with a matrix only, said in the note."""
    k = objective.n_inputs
    built = [d for d in range(1, k) if _buildable("subset_selection", k, math.comb(k, d))]
    sign = 1.0 if objective.sense == "minimize" else -1.0

    def best_matrix() -> np.ndarray:  # the best value over the d that have a matrix
        return np.array([sign * min(sign * objective.evaluate(
            catalog.subset_selection(k, d, e).matrix) for d in built) for e in eps])

    if len(built) == k - 1:
        return best_matrix(), ""
    if _closed_form_applies(objective):
        return (np.array([estimator_variance("subset_selection", objective, e)  # type: ignore[arg-type]
                          for e in eps]), _closed_form_note("subset_selection", k))
    if not built:
        raise FamilySkipped(f"subset selection at k = {k} has too many outputs for a "
                            f"matrix ({catalog.MAX_ENTRIES} entries) for every d", fits=True)
    return best_matrix(), (f"k = {k}: subset selection only over d <= {built[-1]} (larger "
                           "d have too many outputs for a matrix)")


def _closed_form_note(family: str, k: int) -> str:
    return (f"k = {k}: {family} is too large for its matrix; its value is the exact variance "
            "of its unbiased estimator, an upper bound on its Cramer-Rao value")


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


def compare_families(problem: DesignProblem, epsilons: Sequence[float]) -> FamilyComparison:
    """Every catalog family that fits ``problem``, evaluated on its objective at each
    epsilon, with a note for each family evaluated in closed form or left out. Ordinary
    problems: the :data:`FAMILIES` whose outputs fit the objective (one too large for its
    matrix is evaluated by :func:`estimator_variance` where the objective allows, else left
    out with a note: never an abort). Evidential yes/no problems with Shafer semantics:
    Q_2x3 at each c in :data:`DONT_KNOW_C`, matched on the problem's own notion."""
    values: dict[str, np.ndarray] = {}
    notes: dict[str, str] = {}
    if problem.focal_sets is None:
        for fam in FAMILIES:
            try:
                values[fam], note = _family_values(fam, problem.objective, epsilons)
            except FamilySkipped as exc:
                if exc.fits:  # fits, but cannot be evaluated: say so
                    notes[fam] = f"left out: {exc}"
                continue
            if note:
                notes[fam] = note
        return FamilyComparison(values, notes)
    if problem.semantics != "shafer" or _message_order(problem) is None:
        return FamilyComparison(values, notes)
    for c in DONT_KNOW_C:
        label = "Warner (Q_2x3, c = 1)" if c == 1 else f"Q_2x3, c = {c:g}"
        values[label] = dont_know_frontier(c, problem, epsilons)
    return FamilyComparison(values, notes)


def comparison_families(problem: DesignProblem, epsilons: Sequence[float]
                        ) -> dict[str, np.ndarray]:
    """:func:`compare_families`' values alone: ``{label: values}``."""
    return compare_families(problem, epsilons).values
