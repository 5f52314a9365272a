r"""Objectives as values with two faces: a cvxpy expression and a numpy evaluation.

Linear and convex objectives (:class:`ExpectedLoss`, :class:`WorstCaseLoss`,
:class:`CustomObjective`) compile to cvxpy. The information objectives
(:class:`MutualInformation`, :class:`EstimationVariance`) maximise a convex function of Q;
they are solved exactly by the staircase programs of :mod:`mechdesign.design.staircase`
under pure LDP and mass SLDP, and locally (minorise-maximise) otherwise. References:
``docs/formulations.md``; Kairouz, Oh, Viswanath, "Extremal mechanisms for
local differential privacy", JMLR 2016.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import cvxpy as cp
import numpy as np
from scipy.linalg import null_space

from .._html import fields_repr
from .._validation import as_float_matrix
from ..errors import InvalidParameterError
from ..estimation.fisher import cramer_rao
from ..estimation.inputs import as_prior
from ..losses import check_loss
from ..mechanism import Mechanism


def _prior_or_uniform(prior: Any, k: int) -> np.ndarray:
    return np.full(k, 1.0 / k) if prior is None else as_prior(prior, k)


class Objective:
    """Base class. ``sense`` is ``"minimize"`` or ``"maximize"``."""

    sense: ClassVar[str] = "minimize"
    #: "convex": compiles to cvxpy; "information": staircase (exact) or local.
    family: ClassVar[str] = "convex"

    def __repr__(self) -> str:
        """Short: a loss matrix or a prior of more than 8 entries shows as its shape."""
        return fields_repr(self)

    @property
    def n_inputs(self) -> int | None:
        return None

    @property
    def n_outputs(self) -> int | None:
        return None

    def expression(self, Q: cp.Expression) -> tuple[cp.Expression, list]:
        """The cvxpy objective f' and extra constraints; ``f = a f' + b`` with
        ``(a, b) = self.scaling()`` on every feasible Q."""
        raise NotImplementedError

    def evaluate(self, Q: np.ndarray) -> float:
        raise NotImplementedError

    def scaling(self) -> tuple[float, float]:
        """``(a, b)`` with ``a > 0``: the compiled objective is ``(f - b) / a``."""
        return 1.0, 0.0

    def log_gap_dimension(self) -> int | None:
        """For an objective that is a log (D-optimality: ``-log det``), the dimension d
        such that ``(value - bound) / d`` is the relative gap of the geometric mean of the
        eigenvalues: a scale-free gap. None: the gap is relative to the value."""
        return None


def unit_range(L: np.ndarray) -> tuple[np.ndarray, float, float]:
    r"""``(L - b) / a`` with ``b = min L`` and ``a = max L - min L`` (1 for a constant
    loss), and ``(a, b)``. Expected and worst-case losses of a row-stochastic Q are affine
    in L with unit weight, so ``f(L) = a f(L') + b``: the program the solver sees is the
    same whatever the loss's units and offset (losses spanning 1e-12..1e12, or scaled by
    1e-9, otherwise meet the solvers' absolute tolerances)."""
    b = float(L.min())
    a = float(L.max()) - b
    if not a > 0 or not np.isfinite(a):
        a = 1.0
    return (L - b) / a, a, b


@dataclass(frozen=True, repr=False)
class ExpectedLoss(Objective):
    r"""``sum_x prior_x sum_y Q[x, y] L[x, y]`` (minimised). Prior default: uniform."""

    loss: Any = field(compare=False)
    prior: Any = field(default=None, compare=False)

    def __post_init__(self) -> None:
        L = check_loss(self.loss)
        object.__setattr__(self, "loss", L)
        object.__setattr__(self, "prior", _prior_or_uniform(self.prior, L.shape[0]))

    @property
    def n_inputs(self) -> int:
        return self.loss.shape[0]

    @property
    def n_outputs(self) -> int:
        return self.loss.shape[1]

    def expression(self, Q: cp.Expression) -> tuple[cp.Expression, list]:
        unit, _, _ = unit_range(self.loss)
        return cp.sum(cp.multiply(self.prior[:, None] * unit, Q)), []

    def scaling(self) -> tuple[float, float]:
        return unit_range(self.loss)[1:]

    def evaluate(self, Q: np.ndarray) -> float:
        return float(self.prior @ (Q * self.loss).sum(axis=1))


@dataclass(frozen=True, repr=False)
class WorstCaseLoss(Objective):
    r"""``max_x sum_y Q[x, y] L[x, y]`` (minimised through an epigraph variable)."""

    loss: Any = field(compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "loss", check_loss(self.loss))

    @property
    def n_inputs(self) -> int:
        return self.loss.shape[0]

    @property
    def n_outputs(self) -> int:
        return self.loss.shape[1]

    def expression(self, Q: cp.Expression) -> tuple[cp.Expression, list]:
        # in unit range, every optimum has z = max_x (Q L')_x in [0, 1]: the bounds cut
        # no optimum and give the dual bound a finite box
        unit, _, _ = unit_range(self.loss)
        z = cp.Variable(name="worst_case", bounds=[0.0, 1.0])
        return z, [cp.sum(cp.multiply(unit, Q), axis=1) <= z]

    def scaling(self) -> tuple[float, float]:
        return unit_range(self.loss)[1:]

    def evaluate(self, Q: np.ndarray) -> float:
        return float((Q * self.loss).sum(axis=1).max())


@dataclass(frozen=True, repr=False)
class CustomObjective(Objective):
    """A user objective: ``fn(Q)`` returns a cvxpy expression (convex to minimise, concave
    to maximise). ``evaluate`` (optional) computes it on a numpy matrix; by default the
    expression is evaluated on the constant matrix."""

    fn: Callable[[cp.Expression], cp.Expression] = field(compare=False)
    sense_: Literal["minimize", "maximize"] = "minimize"
    evaluate_fn: Callable[[np.ndarray], float] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.sense_ not in ("minimize", "maximize"):
            raise InvalidParameterError(
                f"sense must be 'minimize' or 'maximize', got {self.sense_!r}")

    @property
    def sense(self) -> str:  # type: ignore[override]
        return self.sense_

    def expression(self, Q: cp.Expression) -> tuple[cp.Expression, list]:
        expr = self.fn(Q)
        if not isinstance(expr, cp.Expression):
            raise InvalidParameterError(
                f"the custom objective returned {expr!r}, not a cvxpy expression "
                "(write cp.Constant(0) for a pure feasibility problem)")
        return expr, []

    def evaluate(self, Q: np.ndarray) -> float:
        if self.evaluate_fn is not None:
            return float(self.evaluate_fn(Q))
        return float(self.expression(cp.Constant(Q))[0].value)


# ---------------------------------------------------------------------------- information
class InformationObjective(Objective):
    """An objective that is a sum over outputs of a convex, positively homogeneous function
    of each column (a "sublinear utility"), or a convex criterion of such a sum."""

    family: ClassVar[str] = "information"
    prior: np.ndarray

    @property
    def n_inputs(self) -> int:
        return len(self.prior)

    def column_utility(self, S: np.ndarray) -> np.ndarray:
        """Utility contributed by each column of ``S`` (for the staircase LP)."""
        raise NotImplementedError

    def linearized(self, Q0: np.ndarray) -> np.ndarray:
        """A matrix ``G`` with ``utility(Q) >= <G, Q>`` and equality at ``Q0`` (homogeneity)."""
        raise NotImplementedError


@dataclass(frozen=True, repr=False)
class MutualInformation(InformationObjective):
    r"""Mutual information ``I(X; Y)`` in nats between the input (law ``prior``) and the
    output, maximised:

    .. math:: I = \sum_y \sum_x \pi_x Q[x,y] \ln \frac{Q[x,y]}{\sum_{x'} \pi_{x'} Q[x',y]}.

    A sum over columns of a convex, positively homogeneous function: exact by the staircase
    LP under pure LDP (Kairouz et al. 2016, Thm 4).
    """

    prior: Any = field(compare=False)
    sense: ClassVar[str] = "maximize"

    def __post_init__(self) -> None:
        p = np.asarray(self.prior, dtype=float)
        object.__setattr__(self, "prior", as_prior(p, p.size))

    def column_utility(self, S: np.ndarray) -> np.ndarray:
        lam = self.prior @ S
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(S > 0, self.prior[:, None] * S * np.log(S / lam), 0.0)
        return terms.sum(axis=0)

    def evaluate(self, Q: np.ndarray) -> float:
        return float(self.column_utility(Q).sum())

    def linearized(self, Q0: np.ndarray) -> np.ndarray:
        lam = self.prior @ Q0
        with np.errstate(divide="ignore", invalid="ignore"):
            G = self.prior[:, None] * np.log(np.where(Q0 > 0, Q0, 1.0) / np.where(lam > 0, lam, 1))
        return np.where(Q0 > 0, G, 0.0)


@dataclass(frozen=True, repr=False)
class SublinearUtility(InformationObjective):
    r"""A user's sublinear utility ``U(Q) = sum_y mu(Q[:, y])``, maximised.

    ``mu`` takes a ``(k, P)`` array of columns and returns their ``P`` utilities; each
    column function must be convex and positively homogeneous (``mu(c q) = c mu(q)``), e.g.
    an f-divergence between two rows, ``q_0 ln(q_0 / q_1)`` for KL. Then the staircase LP is
    exact under pure LDP (Kairouz, Oh, Viswanath 2016, Thm 4); elsewhere the local method
    linearises mu by central differences.
    """

    mu: Callable[[np.ndarray], np.ndarray] = field(compare=False)
    k: int = 2
    sense: ClassVar[str] = "maximize"

    def __post_init__(self) -> None:
        if not callable(self.mu):
            raise InvalidParameterError(f"mu must be callable, got {self.mu!r}")
        object.__setattr__(self, "prior", np.full(int(self.k), 1.0 / int(self.k)))

    def column_utility(self, S: np.ndarray) -> np.ndarray:
        out = np.asarray(self.mu(np.asarray(S, dtype=float)), dtype=float)
        if out.shape != (S.shape[1],):
            raise InvalidParameterError(
                f"mu must return one utility per column ({S.shape[1]}), got shape {out.shape}")
        return out

    def evaluate(self, Q: np.ndarray) -> float:
        return float(self.column_utility(Q).sum())

    def linearized(self, Q0: np.ndarray) -> np.ndarray:
        h = 1e-7 * np.maximum(np.abs(Q0).max(axis=0, keepdims=True), 1e-12)
        G = np.empty_like(Q0)
        for x in range(Q0.shape[0]):
            up, down = Q0.copy(), Q0.copy()
            up[x] += h[0]
            down[x] = np.maximum(down[x] - h[0], 0.0)
            G[x] = (self.column_utility(up) - self.column_utility(down)) / (up[x] - down[x])
        return G


Criterion = Literal["A", "D", "E"]


def criterion_value(fisher: np.ndarray, criterion: str, weights: np.ndarray | None) -> float:
    r"""The criterion of the Cramer-Rao bound ``CR = U (U^T I U)^{-1} U^T`` on the simplex.

    A: ``trace CR`` (or ``trace(W CR W^T)`` with weights); D: ``log det`` of CR on the
    tangent space, ``-log det(U^T I U)``; E: the largest eigenvalue of CR. ``inf`` when the
    information is singular on the tangent space.
    """
    k = fisher.shape[0]
    U = null_space(np.ones((1, k)))
    return projected_criterion(U.T @ fisher @ U, criterion,
                               None if weights is None else weights @ U)


def projected_criterion(M: np.ndarray, criterion: str, WU: np.ndarray | None) -> float:
    """:func:`criterion_value` of the information ``M = U^T I U`` on the tangent space
    (``WU = W U`` for weights); ``inf`` when M is singular."""
    M = (M + M.T) / 2
    w = np.linalg.eigvalsh(M)
    if w.min() <= 1e-12 * max(w.max(), 1e-300):
        return np.inf
    if criterion == "D":
        return float(-np.log(w).sum())
    if criterion == "E":
        return float(1.0 / w.min())
    Minv = np.linalg.inv(M)
    return float(np.trace(Minv) if WU is None else np.trace(WU @ Minv @ WU.T))


def criterion_expression(M: cp.Expression, criterion: str, WU: np.ndarray | None
                         ) -> cp.Expression:
    """cvxpy form of :func:`criterion_value` for ``M = U^T I U`` (affine in the design)."""
    if criterion == "D":
        return -cp.log_det(M)
    if criterion == "E":
        # minimise 1 / lambda_min(M)  <=>  maximise lambda_min(M); returned as its inverse
        return cp.inv_pos(cp.lambda_min(M))
    if WU is None:
        return cp.tr_inv(M)
    return cp.matrix_frac(WU.T, M)


@dataclass(frozen=True, repr=False)
class EstimationVariance(InformationObjective):
    r"""Estimation error of the input frequencies, per report, minimised: a criterion of the
    Cramer-Rao bound on the simplex (``docs/formulations.md``, "Estimation")

    .. math:: I(Q) = \sum_y \frac{Q[:,y] Q[:,y]^T}{\pi \cdot Q[:,y]}, \qquad
              CR = U (U^T I U)^{-1} U^T,

    criterion ``"A"``: ``trace CR`` (the sum over items of n Var), or ``trace(W CR W^T)``
    for a workload ``weights`` W of linear queries; ``"D"``: log det; ``"E"``: largest
    eigenvalue. Exact under pure LDP and mass SLDP (staircase convex program; closed form
    by subset selection when the prior is uniform and there are no weights).
    """

    prior: Any = field(compare=False)
    criterion: Criterion = "A"
    weights: Any = field(default=None, compare=False)
    sense: ClassVar[str] = "minimize"

    def __post_init__(self) -> None:
        p = np.asarray(self.prior, dtype=float)
        object.__setattr__(self, "prior", as_prior(p, p.size))
        if self.criterion not in ("A", "D", "E"):
            raise InvalidParameterError(
                f"criterion must be 'A', 'D' or 'E', got {self.criterion!r}")
        if self.weights is not None:
            W = as_float_matrix(self.weights, "weights")
            if W.shape[1] != len(self.prior):
                raise InvalidParameterError(
                    f"weights must have {len(self.prior)} columns, got shape {W.shape}")
            if self.criterion != "A":
                raise InvalidParameterError("weights go with criterion 'A' only")
            object.__setattr__(self, "weights", W)

    @property
    def symmetric(self) -> bool:
        """Uniform prior and a permutation-invariant criterion: subset selection is optimal."""
        k = len(self.prior)
        return self.weights is None and bool(np.allclose(self.prior, 1.0 / k, rtol=0,
                                                         atol=1e-15))

    def fisher_terms(self, S: np.ndarray) -> np.ndarray:
        """``(k, k, P)``: the information ``s s^T / (pi . s)`` of each column s of S."""
        lam = self.prior @ S
        return np.einsum("ip,jp->ijp", S, S) / lam

    def log_gap_dimension(self) -> int | None:
        return self.n_inputs - 1 if self.criterion == "D" else None

    def evaluate(self, Q: np.ndarray) -> float:
        fisher = cramer_rao(Mechanism(Q), self.prior).fisher
        return criterion_value(fisher, self.criterion, self.weights)

    def linearized(self, Q0: np.ndarray) -> np.ndarray:  # pragma: no cover (not a sum)
        raise NotImplementedError("EstimationVariance is minimised through its information")
