r"""The Piecewise mechanism (PM) of Wang et al. (ICDE 2019): a density with a high window.

For ``x`` in ``[-1, 1]``, with ``t = e^(eps/2)``, the report lies in ``[-C, C]``,

.. math:: C = \frac{t + 1}{t - 1}, \qquad \ell(x) = \frac{C + 1}{2} x - \frac{C - 1}{2},
          \qquad r(x) = \ell(x) + C - 1,

and its density is ``p`` on the window ``[l(x), r(x)]`` and ``p / e^eps`` on the rest of
``[-C, C]``, with ``p = (e^eps - t)/(2t + 2) = t (t - 1) / (2 (t + 1))``.

*Normalised*: the window has length ``C - 1 = 2/(t - 1)`` and the rest ``C + 1 = 2t/(t-1)``,
so the mass is ``p (C - 1) + (p/t^2)(C + 1) = t/(t + 1) + 1/(t + 1) = 1``; the report falls
in the window with probability ``t / (t + 1)``.

*Unbiased*: the constant density ``p/e^eps`` on ``[-C, C]`` has mean 0, and the extra
``p (1 - e^-eps)`` on the window has mass ``p (1 - 1/t^2)(C - 1) = (t - 1)/t`` and centre
``(l + r)/2 = (C + 1) x / 2 = t x / (t - 1)``, so ``E[Y | x] = ((t - 1)/t) (t x/(t - 1)) = x``.

*Variance*: ``E[Y^2] = (p/t^2) 2C^3/3 + p (1 - 1/t^2)(r^3 - l^3)/3``, which simplifies to

.. math:: \mathrm{Var}(Y \mid x) = \frac{x^2}{t - 1} + \frac{t + 3}{3 (t - 1)^2},

largest at ``|x| = 1``.

Reference
---------
N. Wang, X. Xiao, Y. Yang, J. Zhao, S. C. Hui, H. Shin, J. Shin, G. Yu, "Collecting and
analyzing multidimensional data with local differential privacy", ICDE 2019, s. III-B
(Algorithm 2 and Lemma 1).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .base import NumericRandomizer, window_bins

__all__ = [
    "Piecewise",
]


class Piecewise(NumericRandomizer):
    r"""The Piecewise mechanism of Wang et al. (2019) for ``x`` in ``[-1, 1]``.

    Parameters
    ----------
    epsilon : float
        Pure-LDP parameter in ``(0, MAX_EPSILON]``.

    Attributes
    ----------
    C : float
        Half-width of the output range, ``(t + 1)/(t - 1) = coth(eps/4)``, ``t = e^(eps/2)``.
    p : float
        The density on the window ``[l(x), r(x)]``.
    q : float
        The density elsewhere on ``[-C, C]``, ``p e^-eps``.

    Notes
    -----
    Privacy, exactly ``epsilon``. For every ``x`` the density takes the value ``p`` or
    ``q = p e^-eps`` at each point of ``[-C, C]`` (and 0 outside). So for any event ``E``,
    ``q |E| <= P(E | x) <= p |E|`` and

    .. math:: \frac{P(E \mid x)}{P(E \mid x')} \le \frac{p}{q} = e^\varepsilon .

    The bound is attained: the windows of ``x = -1`` and ``x' = 1`` are ``[-C, -1]`` and
    ``[1, C]``, disjoint, so ``E = [-C, -1]`` has ratio exactly ``e^eps``. A matrix from
    :meth:`to_matrix` whose grid holds ``-1`` and ``1`` and whose bins include
    ``[-C, -1]`` (or any bin inside it) reaches ``epsilon`` up to rounding.

    The mechanism is computed in forms that stay accurate at small and large epsilon:
    ``C - 1 = 2/expm1(eps/2)``, ``P(window) = 1/(1 + e^(-eps/2))``, ``p = P(window)/(C-1)``,
    ``q = (1 - P(window))/(C + 1)``.
    """

    name = "piecewise"
    n_uniforms = 2

    def __init__(self, epsilon: Any) -> None:
        super().__init__(epsilon)
        eps = self.epsilon
        width = 2.0 / math.expm1(eps / 2)            # C - 1, the window's length
        inside = 1.0 / (1.0 + math.exp(-eps / 2))    # t / (t + 1)
        self._set("C", 1.0 + width)
        self._set("_width", width)
        self._set("_inside", inside)
        self._set("p", inside / width)
        self._set("q", (1.0 - inside) / (width + 2.0))

    C: float
    p: float
    q: float

    @property
    def output_range(self) -> tuple[float, float]:
        return (-self.C, self.C)

    def window(self, x: Any) -> tuple[float | np.ndarray, float | np.ndarray]:
        """``(l(x), r(x))``: the window where the density is ``p``, elementwise."""
        arr = self.check_inputs(x)
        left, right = self._window(arr)
        if arr.ndim == 0:
            return float(left), float(right)
        return left, right

    def _window(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        left = (self.C + 1) / 2 * x - self._width / 2
        return left, left + self._width

    def pdf(self, y: Any, x: Any) -> float | np.ndarray:
        """The density of the report ``y`` given the input ``x`` (broadcast)."""
        xs = self.check_inputs(x)
        ys = np.asarray(y, dtype=float)
        left, right = self._window(xs)
        dens = np.where((ys >= left) & (ys <= right), self.p,
                        np.where(np.abs(ys) <= self.C, self.q, 0.0))
        return float(dens) if dens.ndim == 0 else dens

    def _draw(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        left, right = self._window(x)
        centre = u[:, 0] < self._inside
        s = u[:, 1]
        in_window = left + self._width * s
        # outside: a uniform point of [-C, l) ∪ (r, C], total length C + 1
        t = s * (self.C + 1)
        below = left + self.C  # length of [-C, l)
        outside = np.where(t < below, -self.C + t, right + (t - below))
        return np.where(centre, in_window, outside)

    def _variance(self, x: np.ndarray) -> np.ndarray:
        m = math.expm1(self.epsilon / 2)  # t - 1
        return x ** 2 / m + (m + 4) / (3 * m ** 2)

    def worst_case_variance(self) -> float:
        """``1/(t - 1) + (t + 3)/(3 (t - 1)^2)`` (at ``|x| = 1``)."""
        return float(self._variance(np.array(1.0)))

    def _bin_probabilities(self, x: np.ndarray, edges: np.ndarray) -> np.ndarray:
        centre = (self.C + 1) / 2 * x
        return window_bins(centre, self._width / 2, self.p, self.q, self.output_range, edges)
