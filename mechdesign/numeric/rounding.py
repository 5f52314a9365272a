r"""Unbiased randomized rounding of a number to a grid, the step before a finite randomizer.

For grid points ``g_0 < ... < g_K`` and ``g_i <= x <= g_(i+1)``, round up to ``g_(i+1)``
with probability ``lambda = (x - g_i)/(g_(i+1) - g_i)`` and down to ``g_i`` otherwise:

.. math:: E[G] = g_i + \lambda (g_{i+1} - g_i) = x, \qquad
          \mathrm{Var}(G) = \lambda (1 - \lambda)(g_{i+1} - g_i)^2
                          = (x - g_i)(g_{i+1} - x).

Privacy. The rounded value is never released: it is the input of a randomizer ``Q`` on the
grid (for example :meth:`NumericRandomizer.to_mechanism
<mechdesign.numeric.base.NumericRandomizer.to_mechanism>`). The composite reports ``Y`` with
``P(Y in E | x) = sum_g R(g | x) Q(E | g)``, an average of the rows of ``Q`` with the
rounding weights, so it lies between ``min_g Q(E | g)`` and ``max_g Q(E | g)`` and

.. math:: \frac{P(E \mid x)}{P(E \mid x')} \le
          \frac{\max_g Q(E \mid g)}{\min_g Q(E \mid g)} \le e^\varepsilon

whenever ``Q`` is eps-LDP on the grid: rounding first keeps the randomizer's epsilon, whatever
the rounding probabilities. Unbiasedness carries over too: if ``E[Z | g] = g`` for the
analyst's per-report estimate ``Z``, then ``E[Z | x] = E[G] = x`` and
``Var(Z | x) = E[Var(Z | G)] + (x - g_i)(g_(i+1) - x)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from .base import _index, _real_array, increasing_points, uniforms

__all__ = [
    "check_grid",
    "randomized_round",
    "randomized_round_index",
    "rounding_variance",
]


def check_grid(grid: Any) -> np.ndarray:
    """A grid: a 1-D array of at least 2 finite, strictly increasing numbers.

    Raises
    ------
    InvalidParameterError
        Naming the offending point.
    """
    return increasing_points(grid, "grid", "points")


def _cell(x: Any, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(x, i, lambda)``: the validated inputs, their cell ``[g_i, g_(i+1)]`` and the
    probability of rounding up."""
    arr = _real_array(x, "x")
    out = ~((arr >= grid[0]) & (arr <= grid[-1]))
    if out.any():
        idx = np.argwhere(out)[0]
        raise InvalidParameterError(
            f"x{_index(idx, arr.ndim)} = {float(arr[tuple(idx)])!r} is outside the grid "
            f"[{float(grid[0])!r}, {float(grid[-1])!r}]")
    i = np.clip(np.searchsorted(grid, arr, side="right") - 1, 0, grid.size - 2)
    lam = (arr - grid[i]) / (grid[i + 1] - grid[i])
    return arr, i, np.clip(lam, 0.0, 1.0)


def randomized_round_index(x: Any, grid: Any, rng: Any = None) -> int | np.ndarray:
    """The index of the grid point each ``x`` is rounded to, unbiasedly (module docstring).

    Parameters
    ----------
    x : float or array_like
        Values in ``[grid[0], grid[-1]]``; the result has the same shape (an int for a
        scalar).
    grid : array_like
        Strictly increasing grid points (at least 2).
    rng : None, int or numpy Generator
        As in :meth:`NumericRandomizer.sample
        <mechdesign.numeric.base.NumericRandomizer.sample>`.

    Returns
    -------
    int or numpy.ndarray of int64
        Row indices for :meth:`Mechanism.sample <mechdesign.mechanism.Mechanism.sample>`
        of ``randomizer.to_mechanism(grid, edges)``.
    """
    g = check_grid(grid)
    arr, i, lam = _cell(x, g)
    up = uniforms(arr.shape, rng) < lam
    out = (i + up).astype(np.int64)
    return int(out) if arr.ndim == 0 else out


def randomized_round(x: Any, grid: Any, rng: Any = None) -> float | np.ndarray:
    """``grid[randomized_round_index(x, grid, rng)]``: a grid point with expectation ``x``."""
    g = check_grid(grid)
    idx = randomized_round_index(x, g, rng)
    out = g[idx]
    return float(out) if np.ndim(out) == 0 else out


def rounding_variance(x: Any, grid: Any) -> float | np.ndarray:
    """``(x - g_i)(g_(i+1) - x)``: the variance of the rounded value, elementwise."""
    g = check_grid(grid)
    arr, i, _ = _cell(x, g)
    out = np.maximum((arr - g[i]) * (g[i + 1] - arr), 0.0)
    return float(out) if arr.ndim == 0 else out
