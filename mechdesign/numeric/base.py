r"""What every numeric randomizer shares: validation, sampling, mean estimation and the
discretisation into a finite :class:`~mechdesign.mechanism.Mechanism`.

A numeric randomizer takes a number ``x`` in a bounded input domain ``[low, high]`` and
reports a number in a bounded output range. Its law given ``x`` is a density (Piecewise,
Square Wave), two atoms (Duchi et al.) or a mixture of both (Hybrid). The privacy of each
is stated for that law, as in the papers: for every event ``E`` of outputs and inputs
``x, x'``, ``P(E | x) <= e^eps P(E | x')``.

Discretisation. :meth:`NumericRandomizer.to_matrix` integrates the law exactly over output
intervals ``[e_j, e_{j+1})`` (the last one closed) for each input of a grid: a finite
mechanism ``Q[i, j] = P(Y in bin j | x = g_i)``. Every entry is the probability of an event,
so the matrix's pure-LDP epsilon is at most the randomizer's; it equals it when the grid and
the bins resolve the events that attain the ratio (each class says which).

Floating point. :meth:`NumericRandomizer.sample` draws in double precision (53-bit
uniforms and float arithmetic), so the law of the *floats* it returns is the stated one up
to rounding, and the low-order bits of a continuous output can depend on the input beyond
what the continuous law says (Mironov, "On significance of the least significant bits for
differential privacy", CCS 2012). Where the guarantee must hold for the bits that are sent,
deploy the discretised mechanism: round the input to a grid
(:func:`~mechdesign.numeric.rounding.randomized_round_index`) and sample
``to_mechanism(grid, edges)``, whose sampler is exact.
"""

from __future__ import annotations

import itertools
import math
import os
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .._validation import check_epsilon, check_real_entries
from ..errors import InvalidParameterError
from ..mechanism import Mechanism, _generator

__all__ = [
    "EDGE_TOL",
    "MAX_EPSILON",
    "REPORT_TOL",
    "MeanEstimate",
    "NumericRandomizer",
    "atom_bins",
    "check_edges",
    "check_positive_epsilon",
    "increasing_points",
    "uniforms",
    "window_bins",
    "within_epsilon",
]

MAX_EPSILON = 20.0
"""Largest epsilon accepted. Larger values promise no privacy worth the name, and the widths
the mechanisms are built from (Square Wave's ``b``, about ``eps e^-eps / 2``, 2e-8 at 20;
the Piecewise window ``C - 1 = 2 / (e^(eps/2) - 1)``) shrink towards the resolution of a
double next to the input."""

REPORT_TOL = 1e-9
"""Reports may lie outside the output range by at most this much times the range's width
(a report written to a file with fewer digits); farther out they are refused."""

EDGE_TOL = 1e-12
"""Bin edges may stop short of the output range's ends by this much times its width; the
first and last bins are then extended to the ends (:func:`check_edges`)."""

_SCALE = 2.0 ** -53


def check_positive_epsilon(epsilon: Any) -> float:
    """``epsilon`` as a float in ``(0, MAX_EPSILON]``; a typed error naming it otherwise.

    Raises
    ------
    InvalidParameterError
        Not a real number, NaN, ``<= 0``, infinite or above :data:`MAX_EPSILON`.
    """
    eps = check_epsilon(epsilon, allow_inf=True)
    if eps == 0.0:
        raise InvalidParameterError(
            f"epsilon must be > 0 for a numeric randomizer, got {eps!r} (at 0 no report "
            "carries information and no unbiased estimate exists)")
    if eps > MAX_EPSILON:
        raise InvalidParameterError(
            f"epsilon must be at most {MAX_EPSILON} (MAX_EPSILON), got {eps!r}")
    return eps


def uniforms(shape: tuple[int, ...], rng: Any) -> np.ndarray:
    """Independent uniforms on ``[0, 1)``, multiples of ``2^-53``.

    Parameters
    ----------
    shape : tuple of int
    rng : None, int or numpy Generator
        ``None``: 53 bits of :func:`os.urandom` each (the operating system's secure source,
        for deployment). An int seed or a Generator: ``Generator.random`` (reproducible, for
        experiments).
    """
    if rng is None:
        count = math.prod(shape)
        words = np.frombuffer(os.urandom(8 * count), dtype=np.uint64) >> np.uint64(11)
        return (words.astype(np.float64) * _SCALE).reshape(shape)
    return _generator(rng).random(shape)


def _real_array(values: Any, name: str) -> np.ndarray:
    """A float array of real numbers (strings and bools refused) without NaN."""
    check_real_entries(values, name, InvalidParameterError)
    try:
        arr = np.array(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"{name} is not a numeric array: {exc}") from None
    nan = np.isnan(arr)
    if nan.any():
        where = _index(np.argwhere(nan)[0], arr.ndim)
        raise InvalidParameterError(f"{name}{where} is NaN; {name} must be numbers")
    return arr


def _index(idx: Any, ndim: int) -> str:
    return "" if ndim == 0 else "[" + ", ".join(str(int(i)) for i in idx) + "]"


def increasing_points(values: Any, name: str, what: str, *, open_ends: bool = False
                      ) -> np.ndarray:
    """``values`` as a 1-D array of at least 2 finite, strictly increasing numbers (bin
    edges, a grid); an :class:`~mechdesign.errors.InvalidParameterError` naming the first
    offending entry (``what`` names the points in the shape error). ``open_ends``: the
    first may be ``-inf`` and the last ``inf`` (edges of unbounded reports)."""
    arr = _real_array(values, name)
    if arr.ndim != 1 or arr.size < 2:
        raise InvalidParameterError(
            f"{name} must be a 1-D array of at least 2 {what}, got shape {arr.shape}")
    bad = ~np.isfinite(arr)
    if open_ends:
        bad[0] = arr[0] == math.inf
        bad[-1] = arr[-1] == -math.inf
    if bad.any():
        i = int(np.argmax(bad))
        extra = " (only the first edge may be -inf and the last inf)" if open_ends else ""
        raise InvalidParameterError(f"{name}[{i}] = {float(arr[i])!r} is not finite{extra}")
    steps = np.diff(arr)
    if (steps <= 0).any():
        i = int(np.argmax(steps <= 0))
        raise InvalidParameterError(
            f"{name} must be strictly increasing: {name}[{i}] = {float(arr[i])!r}, "
            f"{name}[{i + 1}] = {float(arr[i + 1])!r}")
    return arr


def check_edges(edges: Any, covers: tuple[float, float], name: str = "bins_out") -> np.ndarray:
    """Bin edges: a 1-D array of at least 2 finite, strictly increasing numbers whose first
    is at most ``covers[0]`` and whose last is at least ``covers[1]``, each within
    :data:`EDGE_TOL` times the range's width (the range's ends are floats computed from
    epsilon; the end bins are taken to reach them).

    Raises
    ------
    InvalidParameterError
        Naming the offending edge (or the range the edges must cover).
    """
    arr = increasing_points(edges, name, "edges")
    slack = EDGE_TOL * (covers[1] - covers[0])
    if arr[0] > covers[0] + slack or arr[-1] < covers[1] - slack:
        raise InvalidParameterError(
            f"{name} must cover the output range [{covers[0]!r}, {covers[1]!r}] so that "
            f"rows sum to 1; they span [{float(arr[0])!r}, {float(arr[-1])!r}]")
    return arr


def _overlap(a: np.ndarray, c: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Length of ``[a, c] ∩ [left, right]`` (0 when disjoint), broadcast."""
    return np.maximum(np.minimum(c, right) - np.maximum(a, left), 0.0)


@dataclass(frozen=True)
class MeanEstimate:
    r"""An unbiased estimate of the mean input of ``n`` respondents, with standard errors.

    Attributes
    ----------
    mean : float
        ``(1/n) sum_i z_i``, ``z_i`` the unbiased per-report estimate of ``x_i`` (the report
        itself for Duchi, Piecewise and Hybrid). ``E[mean] = (1/n) sum_i x_i``.
    standard_error : float
        ``s / sqrt(n)``, ``s^2`` the sample variance of the ``z_i`` (``ddof=1``). When the
        respondents are drawn independently from a population and the target is its mean,
        the ``z_i`` are i.i.d. and ``s^2 / n`` is unbiased for ``Var(mean)``. For a fixed
        set of inputs (the target is their own mean ``xbar``) the ``z_i`` are independent
        with means ``x_i``, ``E[s^2] = (1/n) sum_i Var z_i + (1/(n-1)) sum_i (x_i - xbar)^2``,
        and ``s^2 / n`` errs on the large side. With one report, the worst-case value below.
    worst_case_standard_error : float
        ``sqrt(worst_case_variance / n)``: the largest standard deviation of ``mean`` over
        all inputs, a bound that holds whatever the data.
    n : int
        The number of reports.
    """

    mean: float
    standard_error: float
    worst_case_standard_error: float
    n: int


class NumericRandomizer(ABC):
    r"""A local randomizer of a number in ``[low, high]`` to a number in ``output_range``.

    Subclasses set ``name``, the input domain ``[low, high]`` (class attributes ``low`` and
    ``high``; :attr:`domain`) and implement
    :attr:`output_range`, :meth:`_draw`, :meth:`_variance`, :meth:`worst_case_variance`
    and :meth:`_bin_probabilities`. Instances are immutable and compare equal when their
    class and parameters are equal.

    Parameters
    ----------
    epsilon : float
        The pure-LDP parameter, in ``(0, MAX_EPSILON]``; exact (each subclass proves that
        its likelihood ratio is at most ``e^epsilon`` and that this is attained).
    """

    name: ClassVar[str] = ""
    low: ClassVar[float] = -1.0  # the input domain [low, high] (see domain)
    high: ClassVar[float] = 1.0
    n_uniforms: ClassVar[int] = 1
    """Uniforms drawn per respondent (the same for every input: the work of a draw does not
    depend on the input)."""

    def __init__(self, epsilon: Any) -> None:
        self._set("epsilon", check_positive_epsilon(epsilon))

    # ---------------------------------------------------------------- value semantics
    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; build a new one")

    def _params(self) -> tuple:
        return (self.epsilon,)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._params() == self._params()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._params()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon!r})"

    epsilon: float

    # ---------------------------------------------------------------- description
    @property
    def domain(self) -> tuple[float, float]:
        """The input domain ``(low, high)``."""
        return (self.low, self.high)

    @property
    @abstractmethod
    def output_range(self) -> tuple[float, float]:
        """The smallest closed interval holding every report."""

    # ---------------------------------------------------------------- validation
    def check_inputs(self, x: Any, name: str = "x") -> np.ndarray:
        """``x`` as a float array; a typed error naming the first value that is not a
        number of the input domain.

        Raises
        ------
        InvalidParameterError
            A string, bool or NaN entry, or a value outside ``[low, high]``.
        """
        arr = _real_array(x, name)
        out = ~((arr >= self.low) & (arr <= self.high))
        if out.any():
            idx = np.argwhere(out)[0]
            value = float(arr[tuple(idx)])
            raise InvalidParameterError(
                f"{name}{_index(idx, arr.ndim)} = {value!r} is outside the input domain "
                f"[{self.low!r}, {self.high!r}] of {type(self).__name__}")
        return arr

    def check_reports(self, reports: Any) -> np.ndarray:
        """``reports`` as a non-empty 1-D float array of values this randomizer can output
        (within :data:`REPORT_TOL` of its output range).

        Raises
        ------
        InvalidParameterError
            Empty, not numbers, NaN, or a report it cannot have produced (named).
        """
        arr = _real_array(reports, "reports").ravel()
        if arr.size == 0:
            raise InvalidParameterError("reports must not be empty")
        lo, hi = self.output_range
        slack = REPORT_TOL * (hi - lo)
        out = ~((arr >= lo - slack) & (arr <= hi + slack))
        if out.any():
            i = int(np.argmax(out))
            raise InvalidParameterError(
                f"reports[{i}] = {float(arr[i])!r} is outside the output range "
                f"[{lo!r}, {hi!r}] of {self!r}")
        return arr

    # ---------------------------------------------------------------- sampling
    def sample(self, x: Any, rng: Any = None) -> float | np.ndarray:
        """One report per input, vectorised.

        Parameters
        ----------
        x : float or array_like
            Inputs in ``[low, high]``; the result has the same shape (a float for a scalar).
        rng : None, int or numpy Generator
            ``None`` (deployment): uniforms from :func:`os.urandom`. An int seed or a
            Generator: reproducible draws for experiments. Either way the draw is in
            floating point; see the module docstring for what that means for privacy.
        """
        arr = self.check_inputs(x)
        flat = arr.ravel()
        u = uniforms((flat.size, self.n_uniforms), rng)
        lo, hi = self.output_range
        out = np.clip(self._draw(flat, u), lo, hi).reshape(arr.shape)
        return float(out) if arr.ndim == 0 else out

    @abstractmethod
    def _draw(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Reports for the 1-D inputs ``x`` from the uniforms ``u`` (``len(x)`` rows of
        :attr:`n_uniforms`)."""

    # ---------------------------------------------------------------- accuracy
    def variance(self, x: Any) -> float | np.ndarray:
        """The exact variance of the unbiased per-report estimate of ``x`` (closed form;
        each subclass gives it), elementwise."""
        arr = self.check_inputs(x)
        out = self._variance(arr)
        return float(out) if arr.ndim == 0 else out

    @abstractmethod
    def _variance(self, x: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def worst_case_variance(self) -> float:
        """``max_x variance(x)`` over the input domain (closed form)."""

    def debias(self, reports: np.ndarray) -> np.ndarray:
        """The unbiased per-report estimates ``z`` of the inputs: the reports themselves
        unless a subclass says otherwise."""
        return reports

    def estimate_mean(self, reports: Any) -> MeanEstimate:
        """The unbiased estimate of the mean input, with its standard errors
        (:class:`MeanEstimate`).

        Parameters
        ----------
        reports : array_like
            The reports of ``n >= 1`` respondents.
        """
        arr = self.check_reports(reports)
        z = self.debias(arr)
        n = int(z.size)
        worst = math.sqrt(self.worst_case_variance() / n)
        se = math.sqrt(float(np.var(z, ddof=1)) / n) if n > 1 else worst
        return MeanEstimate(float(np.mean(z)), se, worst, n)

    # ---------------------------------------------------------------- discretisation
    def to_matrix(self, grid_in: Any, bins_out: Any) -> np.ndarray:
        """The row-stochastic matrix ``Q[i, j] = P(Y in bin j | x = grid_in[i])``.

        Parameters
        ----------
        grid_in : array_like
            Distinct inputs in the domain (1-D).
        bins_out : array_like
            Output bin edges ``e_0 < ... < e_m`` covering :attr:`output_range`; bin ``j`` is
            ``[e_j, e_{j+1})``, the last one ``[e_{m-1}, e_m]``.

        Notes
        -----
        Each entry is the law of the report integrated exactly over the bin (a length times
        a density, plus the atoms in it), so ``Q`` is a post-processing of the randomizer
        restricted to the grid and its exact epsilon is at most :attr:`epsilon`. The stored
        floats can put a ratio a few ulps above ``e^epsilon``; :func:`within_epsilon` then
        mixes the rows with their mean row by a weight of order 1e-15, so that
        ``epsilon_ldp(Q) <= epsilon`` holds for the matrix returned (an upper bound of its
        exact value), not only for the mathematical one.
        """
        grid = self._check_grid(grid_in)
        edges = check_edges(bins_out, self.output_range)
        return within_epsilon(self._bin_probabilities(grid, edges), self.epsilon)

    def to_mechanism(self, grid_in: Any, bins_out: Any) -> Mechanism:
        """:meth:`to_matrix` as a :class:`~mechdesign.mechanism.Mechanism`, the inputs
        labelled by the grid values and the outputs by the bins ``(e_j, e_{j+1})``."""
        grid = self._check_grid(grid_in)
        edges = check_edges(bins_out, self.output_range)
        Q = within_epsilon(self._bin_probabilities(grid, edges), self.epsilon)
        outputs = [(float(a), float(c)) for a, c in itertools.pairwise(edges)]
        return Mechanism(Q, inputs=[float(g) for g in grid], outputs=outputs,
                         name=f"{self!r} on {grid.size} inputs x {edges.size - 1} bins")

    def _check_grid(self, grid_in: Any) -> np.ndarray:
        grid = self.check_inputs(grid_in, "grid_in")
        if grid.ndim != 1 or grid.size == 0:
            raise InvalidParameterError(
                f"grid_in must be a non-empty 1-D array, got shape {grid.shape}")
        if np.unique(grid).size != grid.size:
            raise InvalidParameterError("grid_in must hold distinct inputs")
        return grid

    @abstractmethod
    def _bin_probabilities(self, x: np.ndarray, edges: np.ndarray) -> np.ndarray:
        """``P(Y in bin j | x_i)`` for 1-D inputs and validated edges: shape
        ``(len(x), len(edges) - 1)``."""


def atom_bins(atoms: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The bin of each atom: ``j`` with ``e_j <= a < e_{j+1}``, the last bin closed (and the
    end bins extended to atoms just beyond them, see :func:`check_edges`)."""
    j = np.searchsorted(edges, atoms, side="right") - 1
    return np.clip(j, 0, edges.size - 2)


def window_bins(centre: np.ndarray, half: float, high: float, low: float,
                out: tuple[float, float], edges: np.ndarray) -> np.ndarray:
    """Bin probabilities of a two-level density: ``high`` on the window
    ``[centre_i - half, centre_i + half]`` and ``low`` elsewhere on the output range ``out``.

    Bin ``[a, c)`` gets ``high |[a,c] ∩ W| + low (|[a,c] ∩ out| - |[a,c] ∩ W|)``: each part
    is a product, so a bin inside the window gets ``high (c - a)`` and one outside it
    ``low (c - a)``; bins are first cut to the output range, the end bins extended to it.
    The overlap with the window is computed relative to its centre,
    ``min(c - centre, half) - max(a - centre, -half)``: where the window cuts a bin, an edge
    lies within ``half`` of the centre, and the difference of two floats that close is exact
    (Sterbenz), so a window far narrower than its distance from 0 (Square Wave's ``b`` at
    large epsilon) keeps its width to the last bits and the rows sum to 1.
    """
    cut = np.clip(edges, out[0], out[1])  # the bins cut to the output range
    cut[0], cut[-1] = out  # and the end bins extended to it (check_edges' slack)
    a, c = cut[None, :-1], cut[None, 1:]
    total = np.maximum(c - a, 0.0)
    m = centre[:, None]
    inside = np.clip(np.minimum(c - m, half) - np.maximum(a - m, -half), 0.0, total)
    # each entry is total * (lam high + (1 - lam) low) with lam in [0, 1]: whatever the
    # rounding of the window's ends, no ratio of two entries of a column exceeds high / low
    return high * inside + low * (total - inside)


def within_epsilon(Q: np.ndarray, epsilon: float) -> np.ndarray:
    r"""``Q`` when its stored entries meet ``epsilon``-LDP, else the least mixture that does.

    A discretised randomizer is ``epsilon``-LDP in exact arithmetic, but each entry is a
    rounded double, so a ratio ``Q[x, y] / Q[x', y]`` can sit a few ulps above
    ``e^epsilon``. Mixing every row with the same row ``r`` (the mean row),
    ``Q' = (1 - gamma) Q + gamma 1 r^T``, moves every ratio toward 1 and keeps the rows
    stochastic; ``gamma`` is the first of ``2^-52, 2^-50, ...`` for which
    :func:`~mechdesign.privacy.measures.epsilon_ldp` (an upper bound of the exact epsilon
    of the stored matrix) is at most ``epsilon``, so the entries move by about 1e-15.
    """
    from ..privacy.measures import epsilon_ldp

    if epsilon_ldp(Q) <= epsilon:
        return Q
    r = Q.mean(axis=0)
    gamma = 2.0**-52
    while gamma < 1.0:
        mixed = (1.0 - gamma) * Q + gamma * r
        if epsilon_ldp(mixed) <= epsilon:
            return mixed
        gamma *= 4.0
    return np.tile(r, (Q.shape[0], 1))  # constant rows: epsilon 0
