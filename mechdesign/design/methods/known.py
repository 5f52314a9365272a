"""The catalog behind a design: the best frequency oracle, returned instead of an
uncertified estimation design it beats (:func:`prefer_known`), and the note comparing a
design with it (:func:`oracle_comparison`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ...errors import SizeLimitError
from ...privacy.notions import LDP
from ..objectives import EstimationVariance
from ..outcome import Solution, certify_solution
from ..result import DesignResult, Optimum, Status

if TYPE_CHECKING:
    from ..spec import ProblemSpec

__all__ = ["oracle_comparison", "prefer_known"]


def prefer_known(spec: ProblemSpec, res: DesignResult) -> DesignResult:
    """``res``, or the best frequency oracle at the problem's prior when ``res`` is not
    certified optimal and the oracle's matrix does better on the design's own objective.

    The oracle with the smallest estimator variance at the prior (:func:`best_oracle`) and
    k-RR are materialised (when small enough: :data:`~mechdesign.oracles.base.MAX_ENTRIES`
    and at most ``spec.n`` outputs when the outputs are given) and evaluated by the
    objective; the better one replaces an uncertified design it beats, certified like
    any matrix, labelled ``optimum = "catalog"`` with its name, and its gap taken against
    the design's bound (the bound holds for every mechanism).
    """
    from ...oracles.choice import best_oracle
    from ...oracles.randomized_response import RandomizedResponse

    if (res.status is Status.OPTIMAL or res.value is None or spec.constraints
            or type(spec.privacy) is not LDP or spec.focal_sets is not None):
        return res  # the catalog is pure eps-LDP over ordinary outputs
    eps = spec.privacy.epsilon  # type: ignore[attr-defined]
    best = None
    for oracle in (best_oracle(spec.objective.prior, eps)[0],  # type: ignore[attr-defined]
                   RandomizedResponse(spec.k, eps)):
        try:
            M = oracle.to_mechanism().matrix
        except SizeLimitError:
            continue
        if spec.outputs_given and M.shape[1] > spec.n:
            continue
        value = spec.objective.evaluate(M)
        if value < res.value and (best is None or value < best[0]):
            best = (value, oracle, M)
    if best is None:
        return res
    value, oracle, M = best
    bound = None
    if res.gap is not None and math.isfinite(res.gap) and res.value > 0:
        bound = res.value * (1.0 - res.gap) * (1.0 - 1e-12)  # the design's lower bound
    note = (f"the design ended uncertified ({res.status}) at value {res.value:.6g}; the "
            f"best catalog mechanism at this prior, {oracle!r}, has {value:.6g} on the same "
            "objective and is returned instead")
    Q = M if not spec.outputs_given else np.hstack(
        [M, np.zeros((spec.k, spec.n - M.shape[1]))])
    out = certify_solution(spec, Solution(
        Q=Q, solver_value=value, status=Status.INACCURATE, solver="catalog",
        optimum=Optimum.CATALOG, formulation=f"catalog: {oracle!r}",
        build_time=res.build_time, solve_time=res.solve_time, notes=(*res.notes, note),
        bound=bound, expect_bound=bound is not None, oracle=oracle))
    return out


def oracle_comparison(objective: EstimationVariance, eps: float, value: float) -> str:
    """A note comparing ``value`` (a design's Cramer-Rao criterion) with the frequency
    oracles' exact estimator variances at the same prior and epsilon."""
    from ...oracles.choice import best_oracle

    best, other = best_oracle(objective.prior, eps)
    change = 100 * (1 - value / other)
    return (f"best frequency oracle at this prior: {best!r}, estimator variance "
            f"{other:.6g} per report; this design's Cramer-Rao value {value:.6g} is "
            f"{abs(change):.3g}% {'lower' if change >= 0 else 'higher'} (the value of its "
            "maximum-likelihood estimate, estimator='mle'; its inverse estimator does worse)")
