"""What a method may ask of a design problem: the :class:`ProblemSpec` protocol.

The methods (:mod:`~mechdesign.design.methods`), the compiled program
(:mod:`~mechdesign.design.program`) and the result builder
(:mod:`~mechdesign.design.outcome`) read a problem through this protocol only, so none of
them imports :class:`~mechdesign.design.problem.DesignProblem`, which sits above them all
(it plans and runs them): the design wing has no import cycle. ``DesignProblem`` is the one
implementation; the protocol lists what it promises below it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    import cvxpy as cp

    from ..privacy.notions import Notion
    from .formulations import BuildContext, Formulation
    from .objectives import Objective
    from .result import DesignResult
    from .symmetry import Symmetry

__all__ = ["ProblemSpec"]


class ProblemSpec(Protocol):
    """A design problem as the methods see it (implemented by
    :class:`~mechdesign.design.problem.DesignProblem`; see there for each member)."""

    privacy: Notion
    objective: Objective
    constraints: Mapping[str, Callable]
    k: int
    n: int
    inputs: tuple
    outputs: tuple
    outputs_given: bool
    focal_sets: tuple | None
    focal_masks: Any
    symmetry: Symmetry | None
    semantics: str

    def build_context(self, n: int | None = None, parametric: bool = False) -> BuildContext:
        ...

    def feasible_set(self, parametric: bool = False, form: Formulation | None = None) -> Any:
        """A :class:`~mechdesign.design.program.FeasibleSet` (typed ``Any`` here: the
        program module reads problems through this protocol, so it cannot be imported)."""
        ...

    def compile(self, parametric: bool = False, form: Formulation | None = None) -> Any:
        """A :class:`~mechdesign.design.program.Program` (see :meth:`feasible_set`)."""
        ...

    def with_privacy(self, privacy: Notion) -> ProblemSpec:
        ...

    def over_outputs(self, privacy: Notion) -> ProblemSpec:
        ...

    def per_use(self, privacy: Notion) -> ProblemSpec:
        ...

    def solve(self, solver: str | None = None, *, time_limit: float | None = None,
              **options: Any) -> DesignResult:
        ...

    def build_mechanism(self, C: np.ndarray, outputs: Sequence | None = None) -> Any:
        ...

    def constraint_violations(self, C: np.ndarray) -> dict[str, float]:
        ...

    def bounded_by_construction(self, prob: cp.Problem) -> bool:
        ...

    @property
    def feasible_by_construction(self) -> bool:
        ...

    def privacy_formulation(self) -> str:
        ...

    def working_set_max_entries(self) -> int:
        ...

    def working_set_max_pairs(self) -> int:
        ...
