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
from .._validation import as_float_matrix, prior_with_note
from ..errors import InvalidParameterError
from ..estimation.fisher import cramer_rao
from ..losses import check_loss
from ..mechanism import Mechanism
from ..privacy.leakage import g_vulnerability

__all__ = ["Criterion", "CustomObjective", "EstimationVariance", "ExpectedLoss",
           "InformationObjective", "LossObjective", "MinimaxEstimation", "MinimaxLoss",
           "MutualInformation", "Objective", "PosteriorVulnerability", "SublinearUtility",
           "WorstCaseLoss", "criterion_expression", "criterion_value", "gain_or_identity",
           "projected_criterion", "unit_range", "vulnerability_epigraph"]


def _checked_prior(obj: Objective, prior: Any, k: int, name: str = "prior") -> np.ndarray:
    """``prior`` validated (:func:`~mechdesign._validation.prior_with_note`); a prior
    within ``k * 1e-6`` of summing to 1 is divided by its sum with a
    :class:`~mechdesign._validation.PriorNormalisedWarning`, and the note is kept on ``obj``
    (:attr:`Objective.notes`) for the results of the designs that use it."""
    arr, note = prior_with_note(prior, k, name)
    if note:
        object.__setattr__(obj, "_notes", (*obj.notes, note))
    return arr


def _prior_or_uniform(obj: Objective, prior: Any, k: int) -> np.ndarray:
    return np.full(k, 1.0 / k) if prior is None else _checked_prior(obj, prior, k)


class Objective:
    """Base class. ``sense`` is ``"minimize"`` or ``"maximize"``."""

    sense: ClassVar[str] = "minimize"
    #: "convex": compiles to cvxpy; "information": staircase (exact) or local.
    family: ClassVar[str] = "convex"

    def __repr__(self) -> str:
        """Short: a loss matrix or a prior of more than 8 entries shows as its shape."""
        return fields_repr(self)

    @property
    def notes(self) -> tuple[str, ...]:
        """What was done to the objective's input that a design result must say: a prior
        within ``k * 1e-6`` of summing to 1 divided by its sum (one note per prior)."""
        return getattr(self, "_notes", ())

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


class LossObjective(Objective):
    """An objective of a loss matrix ``loss`` (rows inputs, columns outputs): its sizes,
    and the scaling that compiles it in unit range (:func:`unit_range`)."""

    loss: Any

    @property
    def n_inputs(self) -> int:
        return self.loss.shape[0]

    @property
    def n_outputs(self) -> int:
        return self.loss.shape[1]

    def scaling(self) -> tuple[float, float]:
        return unit_range(self.loss)[1:]


@dataclass(frozen=True, repr=False)
class ExpectedLoss(LossObjective):
    r"""``sum_x prior_x sum_y Q[x, y] L[x, y]`` (minimised). Prior default: uniform."""

    loss: Any = field(compare=False)
    prior: Any = field(default=None, compare=False)

    def __post_init__(self) -> None:
        L = check_loss(self.loss)
        object.__setattr__(self, "loss", L)
        object.__setattr__(self, "prior", _prior_or_uniform(self, self.prior, L.shape[0]))

    def expression(self, Q: cp.Expression) -> tuple[cp.Expression, list]:
        unit, _, _ = unit_range(self.loss)
        return cp.sum(cp.multiply(self.prior[:, None] * unit, Q)), []

    def evaluate(self, Q: np.ndarray) -> float:
        return float(self.prior @ (Q * self.loss).sum(axis=1))


@dataclass(frozen=True, repr=False)
class WorstCaseLoss(LossObjective):
    r"""``max_x sum_y Q[x, y] L[x, y]`` (minimised through an epigraph variable)."""

    loss: Any = field(compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "loss", check_loss(self.loss))

    def expression(self, Q: cp.Expression) -> tuple[cp.Expression, list]:
        # in unit range, every optimum has z = max_x (Q L')_x in [0, 1]: the bounds cut
        # no optimum and give the dual bound a finite box
        unit, _, _ = unit_range(self.loss)
        z = cp.Variable(name="worst_case", bounds=[0.0, 1.0])
        return z, [cp.sum(cp.multiply(unit, Q), axis=1) <= z]

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


# ---------------------------------------------------------------------------- leakage
def vulnerability_epigraph(Q: cp.Expression, prior: np.ndarray, gain: np.ndarray
                           ) -> tuple[cp.Variable, list]:
    r"""Epigraph variables of the posterior g-vulnerability (an LP):
    ``t_y >= sum_x g[w, x] pi_x Q[x, y]`` for every action w and output y, so that
    ``sum_y t_y >= V_g(pi, Q)`` with equality at ``t_y = max_w (...)``.

    ``gain`` must be non-negative (the callers pass it in unit range); ``t`` is boxed in
    ``[0, max_w sum_x g[w, x] pi_x]``, which holds every ``t_y = max_w (...)`` (``Q <= 1``):
    the box cuts no feasible Q and gives the dual bound a finite box
    (``docs/certificates.md``). When ``Q`` holds a value (a user constraint re-checked on
    the returned matrix), ``t`` is given its tight value, so the constraints' violations
    are those of the leakage itself."""
    A = gain * prior[None, :]
    m = Q.shape[1]
    hi = float(A.sum(axis=1).max())
    t = cp.Variable(m, name="vulnerability", bounds=[0.0, hi])
    if Q.value is not None:  # a constraint re-checked on a matrix: t at its tight value
        t.value = np.clip((A @ np.asarray(Q.value)).max(axis=0), 0.0, hi)
    return t, [A @ Q <= np.ones((A.shape[0], 1)) @ cp.reshape(t, (1, m), order="F")]


def gain_or_identity(gain: Any, k: int) -> np.ndarray:
    """The gain matrix (rows: actions, columns: the k inputs), checked; None: identity."""
    if gain is None:
        return np.eye(k)
    g = as_float_matrix(gain, "gain")
    if g.shape[1] != k:
        raise InvalidParameterError(
            f"gain must have one column per input ({k}), got shape {g.shape} (rows are the "
            "adversary's actions w, columns the secrets x)")
    return g


@dataclass(frozen=True, repr=False)
class PosteriorVulnerability(Objective):
    r"""Posterior g-vulnerability of the inputs (the adversary's expected gain after seeing
    the output), minimised: an LP through epigraph variables (``docs/formulations.md``,
    "Leakage"),

    .. math:: V_g(\pi, Q) = \sum_y \max_w \sum_x \pi_x Q[x, y]\, g[w, x]
              = \min \Big\{ \sum_y t_y : t_y \ge \sum_x g[w, x] \pi_x Q[x, y]\ \forall w, y
              \Big\}.

    ``gain=None`` is the identity: Bayes vulnerability, the probability of guessing the
    input in one try (multiplicative Bayes leakage = value / ``max(prior)``). Every
    mechanism has ``V_g(pi, Q) >= V_g(pi)``, attained by a constant mechanism: the objective
    is informative together with a utility constraint (``constraints=``), e.g. an expected
    loss at most a budget. Measures: :func:`mechdesign.privacy.g_vulnerability`.

    Parameters
    ----------
    prior : array_like
        The prior on the inputs.
    gain : array_like, optional
        Rows: the adversary's actions w, columns: the inputs x (any finite reals; the
        solver sees ``(g - min g) / (max g - min g)``, and ``V_g`` is affine in g with unit
        weight, so the value is reported in g's units).
    """

    prior: Any = field(compare=False)
    gain: Any = field(default=None, compare=False)

    def __post_init__(self) -> None:
        p = np.asarray(self.prior, dtype=float)
        object.__setattr__(self, "prior", _checked_prior(self, p, p.size))
        object.__setattr__(self, "gain", gain_or_identity(self.gain, len(self.prior)))

    @property
    def n_inputs(self) -> int:
        return len(self.prior)

    def expression(self, Q: cp.Expression) -> tuple[cp.Expression, list]:
        unit, _, _ = unit_range(self.gain)
        t, cons = vulnerability_epigraph(Q, self.prior, unit)
        return cp.sum(t), cons

    def scaling(self) -> tuple[float, float]:
        return unit_range(self.gain)[1:]

    def evaluate(self, Q: np.ndarray) -> float:
        return float(g_vulnerability(self.gain, self.prior, Q))


@dataclass(frozen=True, repr=False)
class MinimaxLoss(LossObjective):
    r"""The expected loss at the worst prior of a set, minimised (minimax estimation over
    priors):

    .. math:: \max_{\pi \in \Pi} \sum_x \pi_x \sum_y Q[x, y] L[x, y],

    for ``Pi`` a finite set of priors (``priors``, rows) or the priors between ``lower`` and
    ``upper`` entrywise (a box cut by the simplex). Both are LPs (``docs/formulations.md``,
    "Minimax over priors"): the finite set through one epigraph variable, the box through
    the LP dual of the inner maximum. The whole simplex (``lower=0, upper=1``) gives
    :class:`WorstCaseLoss`. Exact and certified like the other LPs.

    Parameters
    ----------
    loss : array_like
        The ``(k, m)`` loss matrix.
    priors : array_like, optional
        ``(r, k)``: one prior per row.
    lower, upper : array_like or float, optional
        Entrywise bounds of the box (defaults 0 and 1 when the other is given); the box
        must meet the simplex: ``0 <= lower <= upper <= 1``, ``sum lower <= 1 <= sum upper``.
    """

    loss: Any = field(compare=False)
    priors: Any = field(default=None, compare=False)
    lower: Any = field(default=None, compare=False)
    upper: Any = field(default=None, compare=False)

    def __post_init__(self) -> None:
        L = check_loss(self.loss)
        object.__setattr__(self, "loss", L)
        k = L.shape[0]
        box = self.lower is not None or self.upper is not None
        if (self.priors is None) == (not box):
            raise InvalidParameterError(
                "MinimaxLoss needs either priors (a finite set, one per row) or lower/upper "
                "bounds (a box of priors), not both")
        if self.priors is not None:
            P = np.atleast_2d(np.asarray(self.priors, dtype=float))
            if P.ndim != 2 or P.shape[1] != k:
                raise InvalidParameterError(
                    f"priors must have shape (r, {k}) (one prior per row), got {P.shape}")
            object.__setattr__(self, "priors", np.array(
                [_checked_prior(self, p, k, f"priors[{i}]") for i, p in enumerate(P)]))
            return
        lo = self._bound(self.lower, 0.0, "lower", k)
        hi = self._bound(self.upper, 1.0, "upper", k)
        if (lo > hi).any():
            i = int(np.argmax(lo > hi))
            raise InvalidParameterError(
                f"lower[{i}] = {float(lo[i])!r} exceeds upper[{i}] = {float(hi[i])!r}")
        if lo.sum() > 1 + 1e-12 or hi.sum() < 1 - 1e-12:
            raise InvalidParameterError(
                f"the box of priors is empty: sum(lower) = {lo.sum()!r} and sum(upper) = "
                f"{hi.sum()!r} must bracket 1")
        object.__setattr__(self, "lower", lo)
        object.__setattr__(self, "upper", hi)

    @staticmethod
    def _bound(value: Any, default: float, name: str, k: int) -> np.ndarray:
        try:
            arr = np.array(default if value is None else value, dtype=float)
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(f"{name} is not numeric: {exc}") from None
        if arr.ndim == 0:
            arr = np.full(k, float(arr))
        if arr.shape != (k,):
            raise InvalidParameterError(f"{name} must be a number or have shape ({k},), "
                                        f"got {arr.shape}")
        bad = ~np.isfinite(arr) | (arr < 0) | (arr > 1)
        if bad.any():
            raise InvalidParameterError(
                f"{name} entries must lie in [0, 1], got {float(arr[bad][0])!r}")
        return arr

    def expression(self, Q: cp.Expression) -> tuple[cp.Expression, list]:
        # r_x = sum_y Q[x, y] L'[x, y] lies in [0, 1] in unit range
        unit, _, _ = unit_range(self.loss)
        r = cp.sum(cp.multiply(unit, Q), axis=1)
        if self.priors is not None:
            z = cp.Variable(name="minimax", bounds=[0.0, 1.0])
            return z, [self.priors @ r <= z]
        # max {pi . r : lower <= pi <= upper, sum pi = 1} by LP duality: the minimum of
        # nu + upper . a - lower . b over nu + a - b >= r, a, b >= 0; an optimal point has
        # nu a threshold among the r_x and a = (r - nu)+, b = (nu - r)+: all in [0, 1]
        k = self.n_inputs
        nu = cp.Variable(name="minimax_threshold", bounds=[0.0, 1.0])
        a = cp.Variable(k, name="minimax_above", bounds=[0.0, 1.0])
        b = cp.Variable(k, name="minimax_below", bounds=[0.0, 1.0])
        return nu + self.upper @ a - self.lower @ b, [nu + a - b >= r]

    def worst_prior(self, Q: np.ndarray) -> np.ndarray:
        """The prior of the set at which ``Q``'s expected loss is largest (for a box: the
        lower bounds, then the rest of the mass to the largest row losses, up to the upper
        bounds)."""
        r = (Q * self.loss).sum(axis=1)
        if self.priors is not None:
            return self.priors[int(np.argmax(self.priors @ r))].copy()
        pi = self.lower.copy()
        left = 1.0 - pi.sum()
        for x in np.argsort(-r, kind="stable"):
            add = min(self.upper[x] - pi[x], max(left, 0.0))
            pi[x] += add
            left -= add
        return pi

    def evaluate(self, Q: np.ndarray) -> float:
        return float(self.worst_prior(Q) @ (Q * self.loss).sum(axis=1))


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
        object.__setattr__(self, "prior", _checked_prior(self, p, p.size))

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
        object.__setattr__(self, "prior", _checked_prior(self, p, p.size))
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


@dataclass(frozen=True, repr=False)
class MinimaxEstimation(InformationObjective):
    r"""The Cramer-Rao criterion at the worst prior of a finite set, minimised (minimax
    estimation over priors; ``docs/formulations.md``, "Minimax over priors"):

    .. math:: \max_{j} \; \mathrm{crit}\big(CR_{\pi_j}(Q)\big), \qquad
              CR_\pi = U (U^T I_\pi U)^{-1} U^T,

    each term the value of :class:`EstimationVariance` at prior ``pi_j`` (same criterion
    and weights). Exact under pure LDP for ``k <= MAX_MINIMAX_K``: splitting an output
    into staircase patterns raises the Fisher information at every prior at once, so the
    optimum is a staircase mechanism, and in the pattern weights the problem is the convex
    program ``min t`` s.t. ``t >= crit_j(w)`` for every j, certified by a Frank-Wolfe bound
    of the dual-weighted sum of the criteria.

    Parameters
    ----------
    priors : array_like
        ``(r, k)``: one prior per row (``r >= 1``; one prior is ``EstimationVariance``).
    criterion : {"A", "D", "E"}
        As in :class:`EstimationVariance`.
    weights : array_like, optional
        A workload of linear queries (criterion ``"A"`` only), shared by every prior.
    """

    priors: Any = field(compare=False)
    criterion: Criterion = "A"
    weights: Any = field(default=None, compare=False)
    sense: ClassVar[str] = "minimize"

    def __post_init__(self) -> None:
        try:
            P = np.array(self.priors, dtype=float)
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(f"priors is not numeric: {exc}") from None
        if P.ndim != 2 or P.shape[0] < 1 or P.shape[1] < 2:
            raise InvalidParameterError(
                "priors must have shape (r, k) with r >= 1 priors (one per row) on k >= 2 "
                f"inputs, got shape {P.shape}")
        k = P.shape[1]
        P = np.array([_checked_prior(self, p, k, f"priors[{i}]") for i, p in enumerate(P)])
        members = tuple(EstimationVariance(p, self.criterion, self.weights) for p in P)
        object.__setattr__(self, "priors", P)
        object.__setattr__(self, "weights", members[0].weights)
        object.__setattr__(self, "_members", members)

    @property
    def n_inputs(self) -> int:
        return self.priors.shape[1]

    @property
    def members(self) -> tuple[EstimationVariance, ...]:
        """One :class:`EstimationVariance` per prior (same criterion and weights)."""
        return self._members  # type: ignore[attr-defined]

    def log_gap_dimension(self) -> int | None:
        return self.n_inputs - 1 if self.criterion == "D" else None

    def criteria(self, Q: np.ndarray) -> np.ndarray:
        """The criterion of ``Q`` at each prior (``inf`` where the information is
        singular)."""
        return np.array([m.evaluate(Q) for m in self.members])

    def worst_prior(self, Q: np.ndarray) -> np.ndarray:
        """The prior of the set at which ``Q``'s criterion is largest."""
        return self.priors[int(np.argmax(self.criteria(Q)))].copy()

    def evaluate(self, Q: np.ndarray) -> float:
        return float(self.criteria(Q).max())

    def linearized(self, Q0: np.ndarray) -> np.ndarray:  # pragma: no cover (not a sum)
        raise NotImplementedError("MinimaxEstimation is minimised through its information")
