"""Design for a central target in the shuffle model (:class:`~mechdesign.accounting.
notions.Shuffled`): the per-use pure-LDP problem at the largest local epsilon0 whose clone
bound meets the target, the returned matrix's central delta re-measured by the clone bound at
its own exact local epsilon and, for small ``n``, by the exact shuffle.

The clone bound (Feldman, McMillan and Talwar) depends on the local epsilon alone, so every
eps0-LDP randomizer meets the target when eps0 does: the per-use problem is exactly "the
best eps0-LDP randomizer", convex, solved by its own plan. Bounds that use more of the
randomizer (total variation between rows, blanket mass) are not used yet: each must first
be checked against the exact shuffle (``docs/formulations.md``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ...accounting.notions import Shuffled, shuffle_budget
from ...errors import SizeLimitError
from ...privacy.notions import LDP
from ..result import DesignResult
from .composed import central_result, krr_matrix

if TYPE_CHECKING:
    from ..spec import ProblemSpec

__all__ = ["solve_shuffled"]


def solve_shuffled(spec: ProblemSpec, solver: str | None, options: dict,
                   time_limit: float | None) -> DesignResult:
    """Design for ``spec.privacy``, a :class:`Shuffled` target (module docstring)."""
    from ...accounting.exact_shuffling import exact_shuffle_delta

    target: Shuffled = spec.privacy  # type: ignore[assignment]
    t0 = time.perf_counter()
    eps0 = shuffle_budget(target.n, target.epsilon, target.delta)
    per_use = LDP(eps0)
    res = spec.per_use(per_use).solve(solver, time_limit=time_limit, **options)
    if res.value is None or res.certificate is None or not res.certificate.met:
        return res
    achieved = target.measure(res.mechanism)
    notes = [f"local epsilon0 = {eps0:.6g}: the clone bound for {target.n} users meets "
             f"({target.epsilon:g}, {target.delta:g}); the returned matrix's clone bound at "
             f"its exact local epsilon: delta {achieved:.3g}"]
    extra: dict = {"epsilon0": eps0, "clone_delta": achieved}
    try:
        exact = exact_shuffle_delta(res.mechanism, target.n, target.epsilon).delta
        notes.append(f"exact shuffled delta of the returned matrix at n = {target.n}: "
                     f"{exact:.3g} (float evaluation; the certificate keeps the clone bound)")
        extra["exact_delta"] = exact
    except SizeLimitError:
        pass
    if spec.n >= spec.k and spec.focal_sets is None:
        krr = float(spec.objective.evaluate(krr_matrix(spec, eps0)))
        notes.append(f"k-RR at the same epsilon0 (calibrated to the same clone bound): "
                     f"value {krr:.6g}")
        extra["calibrated_krr"] = {"epsilon0": eps0, "value": krr}
    how = (f"clone bound for {target.n} shuffled reports at the returned matrix's exact "
           "local epsilon")
    return central_result(res, target, achieved, repr(per_use), how, notes, extra, 1,
                          time.perf_counter() - t0)
