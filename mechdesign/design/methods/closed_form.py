"""k-RR in closed form: the optimum of pure LDP with a Hamming-type loss, at any k, without
building a program."""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np

from ... import catalog
from ...privacy.notions import LDP
from ..objectives import ExpectedLoss, WorstCaseLoss
from ..outcome import Solution, analytic_result, certify_solution
from ..result import DesignResult, Optimum, Status

if TYPE_CHECKING:
    from ..spec import ProblemSpec

__all__ = ["hamming_closed_form", "solve_hamming"]


def hamming_closed_form(spec: ProblemSpec) -> tuple[float, float] | None:
    """``(a, b)`` when the problem is pure LDP over every pair with a loss ``a (1 - I) + b``
    (``a > 0``, k x k, Hamming up to scale and shift), at the uniform prior (expected loss)
    or the worst case, with no user constraints, focal sets or symmetry; else None."""
    obj = spec.objective
    if (type(spec.privacy) is not LDP or spec.constraints
            or spec.focal_sets is not None or spec.symmetry is not None
            or spec.semantics == "walley" or spec.n != spec.k
            or not isinstance(obj, ExpectedLoss | WorstCaseLoss)):
        return None
    if isinstance(obj, ExpectedLoss) and not np.all(obj.prior == obj.prior[0]):
        return None
    L = obj.loss
    b = float(L[0, 0])
    off = float(L[0, 1]) if spec.k > 1 else b
    k = spec.k
    if not off > b or not (L.diagonal() == b).all() or int((L == off).sum()) != k * k - k:
        return None
    return off - b, b


def solve_hamming(spec: ProblemSpec, a: float, b: float) -> DesignResult:
    r"""Hamming loss (up to scale and shift) under pure LDP: k-RR, in closed form at any k.

    Value ``b + a (k - 1) / (e^eps + k - 1)`` for the loss ``a (1 - I) + b`` at the uniform
    prior, and the same for the worst case (k-RR's rows all have it). Optimal with gap 0:
    every eps-LDP column has ``Q[y, y] <= e^eps Q[x, y]`` for all x, so
    ``sum_x Q[x, y] >= Q[y, y] (1 + (k - 1) e^-eps)`` and, summing over y,
    ``sum_y Q[y, y] <= k / (1 + (k - 1) e^-eps)``: the average (hence the worst) loss is at
    least k-RR's (Kairouz, Oh & Viswanath 2016). ``(a, b)`` from :func:`hamming_closed_form`.
    No program is built; the matrix is returned and certified when it has at most
    ``catalog.MAX_ENTRIES`` entries, else the structured mechanism (``result.oracle``) with
    its exact epsilon.
    """
    from ...oracles import RandomizedResponse

    t0 = time.perf_counter()
    k, eps = spec.k, spec.privacy.epsilon  # type: ignore[attr-defined]
    value = b + a * (k - 1) / (math.exp(eps) + k - 1) if eps < 700 else b
    oracle = RandomizedResponse(k, eps)
    structure = {"family": "randomized_response", "k": k, "epsilon": eps}
    form = "closed form: k-RR is optimal for Hamming loss (no program built)"
    if k * k <= catalog.MAX_ENTRIES:
        mech = catalog.randomized_response(k, eps)
        return certify_solution(spec, Solution(
            Q=mech.matrix, solver_value=value, status=Status.OPTIMAL, solver="closed form",
            optimum=Optimum.GLOBAL, formulation=form, solve_time=time.perf_counter() - t0,
            structure=structure, outputs=spec.outputs, gap=0.0, oracle=oracle))
    return analytic_result(
        spec, value, eps, form, time.perf_counter() - t0, structure,
        method="exact: the structured mechanism's privacy ratio",
        note=(f"k-RR at k = {k} has {k * k} entries, too many to build as a matrix: use "
              "result.oracle to sample and estimate"),
        unavailable=(f"the optimal mechanism is k-RR (k = {k}, epsilon = {eps:g}), whose "
                     f"{k} x {k} matrix is too large to build; result.oracle is the same "
                     "mechanism in structured form"),
        oracle=oracle)
