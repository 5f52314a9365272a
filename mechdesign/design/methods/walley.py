"""WLDP read by Walley: the pure-LDP problem over the outputs, solved as any problem, its
optimum embedded on the singleton messages and re-measured as WLDP."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from ...evidential import EvidentialMechanism
from ...privacy.notions import LDP
from ..outcome import Solution, certify_solution
from ..result import DesignResult, Status

if TYPE_CHECKING:
    from ..spec import ProblemSpec

__all__ = ["solve_walley"]


def solve_walley(spec: ProblemSpec, solver: str | None, options: dict,
                 time_limit: float | None) -> DesignResult:
    """WLDP under Walley's reading: the pure-LDP problem over the outputs, embedded on the
    singleton messages and re-measured as WLDP (see ``DesignProblem``'s ``semantics``)."""
    inner = spec.over_outputs(LDP(spec.privacy.epsilon))  # type: ignore[attr-defined]
    res = inner.solve(solver, time_limit=time_limit, **options)
    if res.certificate is None or not res.certificate.met:
        return res
    focal = spec.focal_sets or ()
    singles = [focal.index(frozenset([y])) for y in spec.outputs]
    M = np.zeros((spec.k, spec.n))
    M[:, singles] = res.mechanism.matrix  # type: ignore[union-attr]

    def build(masses: np.ndarray) -> EvidentialMechanism:
        return EvidentialMechanism(masses, focal, spec.inputs, spec.outputs)

    def on_outputs(masses: np.ndarray) -> float:
        # certification works on the masses (its repairs keep them on the singletons)
        return spec.objective.evaluate(masses[:, singles])

    note = ("Walley reading: every completion of an eps-WLDP mechanism is eps-LDP, so the "
            "worst-case optimum is the pure-LDP optimum (no 'don't know' mass)")
    out = certify_solution(spec, Solution(
        Q=M, solver_value=res.solver_value, status=res.status, solver=res.solver,
        optimum=res.optimum, formulation="WLDP (Walley) reduced to " + res.formulation,
        build_time=res.build_time, solve_time=res.solve_time, duals=res.duals,
        notes=(*res.notes, note), structure=res.structure, gap=res.gap, build=build,
        evaluate=on_outputs))
    if out.certificate is not None and out.certificate.repair != "none":
        # the embedding changes no objective value unless the WLDP check had to repair it
        return dataclasses.replace(out, status=Status.INACCURATE, gap=None)
    return out
