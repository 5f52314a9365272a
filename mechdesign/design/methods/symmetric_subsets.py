"""A symmetric information criterion at the uniform prior: d-subset selection at its best d,
in closed form over d."""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

from ... import catalog
from ..engines import staircase as staircase_engine
from ..outcome import Solution, analytic_result, certify_solution
from ..result import DesignResult, Optimum, Status

if TYPE_CHECKING:
    from ..spec import ProblemSpec

__all__ = ["solve_symmetric"]


def solve_symmetric(spec: ProblemSpec, eps: float, t0: float) -> DesignResult:
    """Uniform prior, symmetric criterion: d-subset selection at its best d (closed form),
    returned as a structured mechanism at any k (``result.oracle``) and as a matrix when
    its ``k x C(k, d)`` entries fit."""
    from ...oracles import SubsetSelection

    k = spec.k
    d, value = staircase_engine.symmetric_estimation(k, eps, spec.objective.criterion)  # type: ignore
    oracle = SubsetSelection(k, eps, d=d)
    elapsed = time.perf_counter() - t0
    structure = {"family": "subset_selection", "d": d, "k": k, "epsilon": eps}
    form = "symmetric reduction: d-subset selection, closed form over d"
    if k * math.comb(k, d) <= catalog.MAX_ENTRIES:
        mech = catalog.subset_selection(k, d, eps)
        return certify_solution(spec, Solution(
            Q=mech.matrix, solver_value=value, status=Status.OPTIMAL, solver="closed form",
            optimum=Optimum.GLOBAL, formulation=form, solve_time=elapsed,
            structure=structure, outputs=mech.outputs, gap=0.0, oracle=oracle))
    return analytic_result(
        spec, value, eps, form, elapsed, structure,
        method=("exact: the structured mechanism's largest privacy ratio, "
                "1 + (k/d)(1 - t)/t with its noise probability t a multiple of 2^-128 "
                "rounded up"),
        note=(f"subset_selection({k}, {d}, {eps:g}) has C({k}, {d}) outputs, too many to "
              "build as a matrix: use result.oracle to sample and estimate"),
        unavailable=(f"the optimal mechanism is subset_selection(k={k}, d={d}, "
                     f"epsilon={eps:g}), whose C({k}, {d}) outputs are too many for an "
                     "explicit matrix; result.oracle is the same mechanism in structured "
                     "form (sampling, estimation, exact variance)"),
        oracle=oracle)
