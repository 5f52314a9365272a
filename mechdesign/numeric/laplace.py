r"""The Laplace mechanism (Dwork et al. 2006) on inputs in ``[-1, 1]``: add Laplace noise of
scale ``2/eps`` and report the sum.

For ``x`` in ``[-1, 1]`` (sensitivity ``Delta = 2``) and scale ``s = Delta/eps = 2/eps``
the report is ``Y = x + N`` with

.. math:: f(y \mid x) = \frac{1}{2s}\, e^{-|y - x|/s}, \qquad y \in \mathbb{R}.

*Unbiased*: the noise is symmetric, ``E[N] = 0``, so ``E[Y | x] = x``; the report is its
own per-report estimate.

*Variance*: ``E[N^2] = 2 int_0^inf t^2 e^{-t/s} dt / (2s) = 2 s^2``, so

.. math:: \mathrm{Var}(Y \mid x) = 2 s^2 = \frac{8}{\varepsilon^2},

the same at every ``x`` (the worst case is this value).

*Privacy*, exactly ``eps``: by the triangle inequality
``|y - x'| - |y - x| <= |x - x'| <= 2``, so the densities' ratio
``f(y | x)/f(y | x') = e^{(|y - x'| - |y - x|)/s}`` is at most ``e^{2/s} = e^eps`` at every
``y``; integrating over an event ``E``, ``P(E | x) <= e^eps P(E | x')``. Attained by
``E = [1, inf)`` between ``x = 1`` (probability 1/2) and ``x' = -1``
(``e^{-2/s}/2 = e^-eps/2``).

Unlike the other randomizers of the catalog the report is unbounded: the output range is
the real line. :meth:`Laplace.to_matrix` folds the two tails into the end bins (the class
docstring proves that this keeps epsilon). A report may also be clipped to an interval by
the analyst (post-processing keeps privacy), but the mean of clipped reports is biased for
inputs near the ends, so this module does not do it; the estimate is the plain mean.

Floating point: this is the mechanism of Mironov's attack on the low-order bits of a
floating-point Laplace sample (see :mod:`mechdesign.numeric.base`). Where that matters,
deploy :meth:`~mechdesign.numeric.base.NumericRandomizer.to_mechanism` on a grid.

References
----------
C. Dwork, F. McSherry, K. Nissim, A. Smith, "Calibrating noise to sensitivity in private
data analysis", TCC 2006 (the Laplace mechanism, Example 1 and Proposition 1).
I. Mironov, "On significance of the least significant bits for differential privacy",
CCS 2012.
"""

from __future__ import annotations

import itertools
import math
from abc import abstractmethod
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ..mechanism import Mechanism
from .base import NumericRandomizer, _real_array, increasing_points, within_epsilon

__all__ = [
    "Laplace",
    "fold_edges",
]


def fold_edges(edges: Any, name: str = "bins_out") -> np.ndarray:
    """Bin edges for an unbounded report: ``e_0 < e_1 < ... < e_m`` with the two tails
    folded in, returned as ``[-inf, e_1, ..., e_(m-1), inf]``.

    The first bin is ``(-inf, e_1)`` and the last ``[e_(m-1), inf)``, so the bins cover the
    real line whatever ``e_0`` and ``e_m`` are; they may be given as ``-inf`` and ``inf``.
    With two edges there is one bin, the whole line.

    Raises
    ------
    InvalidParameterError
        Not a 1-D array of at least 2 numbers, a NaN, an inner edge that is not finite, a
        first edge of ``+inf`` or a last of ``-inf``, or edges not strictly increasing
        (each naming the offending entry).
    """
    arr = increasing_points(edges, name, "edges", open_ends=True)
    out = arr.copy()
    out[0], out[-1] = -math.inf, math.inf
    return out


class _AdditiveNoise(NumericRandomizer):
    r"""A randomizer ``Y = x + N`` of ``x`` in ``[-1, 1]`` with symmetric noise ``N`` whose
    density ``f`` satisfies ``f(t) <= e^eps f(t')`` whenever ``|t - t'| <= 2``.

    Subclasses give the noise density (:meth:`_noise_pdf`), the noise mass of an interval
    of ``[0, inf)`` (:meth:`_mass`), the variance ``E[N^2]`` (:meth:`_noise_variance`) and
    a sampler of ``|N|``; everything else (reports on the real line, the unbiased mean, the
    discretisation with folded tails) is shared here.
    """

    @property
    def output_range(self) -> tuple[float, float]:
        """``(-inf, inf)``: the report is unbounded."""
        return (-math.inf, math.inf)

    # ---------------------------------------------------------------- the noise
    @abstractmethod
    def _noise_pdf(self, t: np.ndarray) -> np.ndarray:
        """The density of the noise at ``t`` (any real array)."""

    @abstractmethod
    def _mass(self, u: np.ndarray, w: np.ndarray) -> np.ndarray:
        """``P(u <= N < u + w)`` for ``u >= 0`` finite and ``w > 0`` (``inf`` allowed),
        elementwise, computed without cancellation."""

    @abstractmethod
    def _noise_variance(self) -> float:
        """``E[N^2]`` (closed form)."""

    def pdf(self, y: Any, x: Any) -> float | np.ndarray:
        """The density of the report ``y`` given the input ``x`` (broadcast)."""
        xs = self.check_inputs(x)
        ys = _real_array(y, "y")
        dens = self._noise_pdf(ys - xs)
        return float(dens) if dens.ndim == 0 else dens

    # ---------------------------------------------------------------- accuracy
    def _variance(self, x: np.ndarray) -> np.ndarray:
        return np.full(x.shape, self._noise_variance())

    def worst_case_variance(self) -> float:
        """The noise variance: the same at every input."""
        return self._noise_variance()

    def check_reports(self, reports: Any) -> np.ndarray:
        """``reports`` as a non-empty 1-D array of finite numbers (every real number is a
        possible report).

        Raises
        ------
        InvalidParameterError
            Empty, not numbers, NaN or infinite (named).
        """
        arr = _real_array(reports, "reports").ravel()
        if arr.size == 0:
            raise InvalidParameterError("reports must not be empty")
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.argmax(bad))
            raise InvalidParameterError(
                f"reports[{i}] = {float(arr[i])!r} is not finite; {self!r} reports real "
                "numbers")
        return arr

    # ---------------------------------------------------------------- discretisation
    def to_matrix(self, grid_in: Any, bins_out: Any) -> np.ndarray:
        """The row-stochastic matrix ``Q[i, j] = P(Y in bin j | x = grid_in[i])``, the
        tails folded into the end bins.

        Parameters
        ----------
        grid_in : array_like
            Distinct inputs in ``[-1, 1]`` (1-D).
        bins_out : array_like
            Edges ``e_0 < ... < e_m`` (:func:`fold_edges`): bin 0 is ``(-inf, e_1)``, bin
            ``j`` is ``[e_j, e_(j+1))`` and bin ``m - 1`` is ``[e_(m-1), inf)``.

        Notes
        -----
        Every bin, the folded ones included, is an event, so each entry is the exact
        probability of an event and the matrix's epsilon is at most :attr:`epsilon` (the
        class docstring proves the bound for the tails); :func:`within_epsilon` then makes
        the stored floats meet it too. Entries far enough in a tail to underflow a double
        (the noise mass beyond several hundred scales) become 0 and the repair mixes more;
        put such outputs in the folded bins.
        """
        grid = self._check_grid(grid_in)
        edges = fold_edges(bins_out)
        return within_epsilon(self._bin_probabilities(grid, edges), self.epsilon)

    def to_mechanism(self, grid_in: Any, bins_out: Any) -> Mechanism:
        """:meth:`to_matrix` as a :class:`~mechdesign.mechanism.Mechanism`, the inputs
        labelled by the grid values and the outputs by the bins ``(e_j, e_(j+1))``, the end
        ones ``(-inf, e_1)`` and ``(e_(m-1), inf)``."""
        grid = self._check_grid(grid_in)
        edges = fold_edges(bins_out)
        Q = within_epsilon(self._bin_probabilities(grid, edges), self.epsilon)
        outputs = [(float(a), float(c)) for a, c in itertools.pairwise(edges)]
        return Mechanism(Q, inputs=[float(g) for g in grid], outputs=outputs,
                         name=f"{self!r} on {grid.size} inputs x {edges.size - 1} bins")

    def _bin_probabilities(self, x: np.ndarray, edges: np.ndarray) -> np.ndarray:
        """``P(N in [e_j - x_i, e_(j+1) - x_i))``; ``edges`` folded (infinite ends).

        A bin right of ``x`` is ``_mass(e_j - x, width)``, a bin left of it the mirror
        ``_mass(x - e_(j+1), width)`` (symmetric noise), and a bin around ``x`` the sum of
        its two halves ``_mass(0, x - e_j) + _mass(0, e_(j+1) - x)``: sums of positive
        terms, no difference of probabilities. The width is taken from the edges, the same
        for every row.
        """
        lo = edges[None, :-1] - x[:, None]
        hi = edges[None, 1:] - x[:, None]
        width = np.broadcast_to(np.diff(edges)[None, :], lo.shape)
        out = np.empty(lo.shape)
        right = lo >= 0
        left = hi <= 0
        mid = ~(right | left)
        out[right] = self._mass(lo[right], width[right])
        out[left] = self._mass(-hi[left], width[left])
        zeros = np.zeros(int(mid.sum()))
        out[mid] = self._mass(zeros, -lo[mid]) + self._mass(zeros, hi[mid])
        return out


class Laplace(_AdditiveNoise):
    r"""The Laplace mechanism for ``x`` in ``[-1, 1]``: report ``x + N``,
    ``N ~ Laplace(0, 2/eps)`` (module docstring).

    Parameters
    ----------
    epsilon : float
        Pure-LDP parameter in ``(0, MAX_EPSILON]``.

    Attributes
    ----------
    scale : float
        The noise scale ``s = 2/eps`` (sensitivity 2 over epsilon).

    Notes
    -----
    Privacy, exactly ``epsilon`` (module docstring: the density ratio is at most
    ``e^eps`` at every report, attained on ``[1, inf)``).

    Discretisation with folded tails. :meth:`to_matrix` integrates the density over bins
    whose first is ``(-inf, e_1)`` and last ``[e_(m-1), inf)``. Each bin is an event, so
    ``P(bin | x) <= e^eps P(bin | x')`` by the bound for every event. For the tails the
    ratio can be read off directly: for ``c >= 1 >= x, x'``,
    ``P(Y >= c | x) = e^{-(c - x)/s}/2``, so

    .. math:: \frac{P(Y \ge c \mid x)}{P(Y \ge c \mid x')} = e^{(x - x')/s}
              \le e^{2/s} = e^\varepsilon,

    the ratio of the densities at any point beyond both inputs (and symmetrically for
    ``(-inf, c)`` with ``c <= -1``); a tail that starts inside ``[-1, 1]`` is an event too.
    A grid holding ``-1`` and ``1`` with an edge at ``1`` (last bin ``[1, inf)``) reaches
    ``epsilon`` exactly: ``1/2`` against ``e^-eps/2``.

    Sampling: ``|N| = -s log(1 - U)`` (exponential of mean ``s``; ``U`` a 53-bit uniform on
    ``[0, 1)``, so the logarithm is finite) with a sign from a second uniform.
    """

    name = "laplace"
    n_uniforms = 2

    def __init__(self, epsilon: Any) -> None:
        super().__init__(epsilon)
        self._set("scale", 2.0 / self.epsilon)

    scale: float

    def _noise_pdf(self, t: np.ndarray) -> np.ndarray:
        return np.exp(-np.abs(t) / self.scale) / (2 * self.scale)

    def _mass(self, u: np.ndarray, w: np.ndarray) -> np.ndarray:
        # (e^{-u/s} - e^{-(u+w)/s}) / 2 = e^{-u/s} (1 - e^{-w/s}) / 2
        return 0.5 * np.exp(-u / self.scale) * -np.expm1(-w / self.scale)

    def _noise_variance(self) -> float:
        """``2 s^2 = 8/eps^2``."""
        return 2.0 * self.scale ** 2

    def _draw(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        magnitude = -self.scale * np.log1p(-u[:, 1])
        return x + np.where(u[:, 0] < 0.5, magnitude, -magnitude)
