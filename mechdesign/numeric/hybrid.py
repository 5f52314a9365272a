r"""The Hybrid mechanism (HM) of Wang et al. (ICDE 2019): Piecewise with probability
``alpha``, Duchi et al.'s randomizer otherwise.

Both parts are unbiased for ``x``, so the mixture is, and its variance is the mixture of
theirs (no between-part term, the means being equal):

.. math:: V_\alpha(x) = \alpha\, V_{PM}(x) + (1 - \alpha)\, V_{D}(x), \qquad
          V_{PM}(x) = \frac{x^2}{t - 1} + \frac{t + 3}{3(t - 1)^2}, \quad
          V_D(x) = B^2 - x^2,

with ``t = e^(eps/2)`` and ``B = (t^2 + 1)/(t^2 - 1)``.

The choice of alpha. ``V_alpha`` is affine in ``x^2``, so its worst case over ``[-1, 1]``
is ``W(alpha) = max(L0(alpha), L1(alpha))``, its values at ``x = 0`` and ``|x| = 1``, both
affine in ``alpha``:

* ``L1 - L0 = alpha/(t - 1) - (1 - alpha)``, zero at ``alpha* = 1 - 1/t = 1 - e^(-eps/2)``
  (there ``V_alpha`` does not depend on ``x``);
* ``L1`` increases with alpha: its slope ``V_PM(1) - V_D(1)`` equals
  ``4 t (t^2 - t + 1) / (3 (t - 1)^2 (t + 1)^2) > 0``;
* ``L0``'s slope ``V_PM(0) - B^2`` has numerator ``-t (t - 1)^2 (3t^3 - t^2 + t - 7)``
  over a positive denominator: negative exactly when ``t > t*``, the real root of
  ``3t^3 - t^2 + t - 7``.

So for ``t > t*`` the minimum of ``W`` is where ``L0`` (decreasing) meets ``L1``
(increasing), ``alpha*``; for ``t <= t*``, ``W = L0`` is non-decreasing up to ``alpha*`` and
``W = L1 >= L1(alpha*) = L0(alpha*)`` after, so ``alpha = 0`` (Duchi) is optimal. In terms
of ``eps = 2 ln t``, the threshold is ``eps* = 2 ln t*``; Wang et al. write it
``ln((-5 + 2 (6353 - 405 sqrt 241)^(1/3) + 2 (6353 + 405 sqrt 241)^(1/3)) / 27)``, about
0.6094 (``e^eps*`` is the real root of ``9s^3 + 5s^2 - 13s - 49``, which is
``3t^3 - t^2 + t - 7 = 0`` with ``s = t^2``). At ``alpha*`` the worst case is

.. math:: W(\alpha^*) = \frac{t + 3}{3 t (t - 1)} + \frac{B^2}{t} .

Because alpha = 0 and alpha = 1 are Duchi and Piecewise, ``W(alpha*) <= min`` of their
worst cases at every epsilon.

Reference
---------
N. Wang et al., "Collecting and analyzing multidimensional data with local differential
privacy", ICDE 2019, s. III-C (Lemmas 3 and 4).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import check_probability
from .base import NumericRandomizer, check_positive_epsilon
from .duchi import Duchi
from .piecewise import Piecewise

__all__ = [
    "HYBRID_THRESHOLD",
    "Hybrid",
    "hybrid_alpha",
]

HYBRID_THRESHOLD = math.log((-5 + 2 * math.cbrt(6353 - 405 * math.sqrt(241))
                             + 2 * math.cbrt(6353 + 405 * math.sqrt(241))) / 27)
"""``eps*`` (about 0.6094): above it the Hybrid mechanism mixes in Piecewise; at or below
it, it is Duchi et al.'s randomizer (module docstring)."""


def hybrid_alpha(epsilon: Any) -> float:
    """Wang et al.'s mixing probability: ``1 - e^(-eps/2)`` for ``eps >`` :data:`HYBRID_THRESHOLD`,
    else 0. It minimises the worst-case variance over all mixtures of Piecewise and Duchi
    (module docstring).

    Raises
    ------
    InvalidParameterError
        As :class:`Hybrid` for a bad ``epsilon``.
    """
    eps = check_positive_epsilon(epsilon)
    return -math.expm1(-eps / 2) if eps > HYBRID_THRESHOLD else 0.0


class Hybrid(NumericRandomizer):
    r"""Wang et al.'s Hybrid mechanism for ``x`` in ``[-1, 1]``: with probability ``alpha``
    report :class:`~mechdesign.numeric.piecewise.Piecewise`'s output, else
    :class:`~mechdesign.numeric.duchi.Duchi`'s, both at ``epsilon``.

    Parameters
    ----------
    epsilon : float
        Pure-LDP parameter in ``(0, MAX_EPSILON]``.
    alpha : float, optional
        The probability of Piecewise; default :func:`hybrid_alpha` (the paper's rule,
        optimal for the worst-case variance). Any alpha in ``[0, 1]`` keeps the privacy.

    Attributes
    ----------
    alpha : float
    piecewise : Piecewise
    duchi : Duchi

    Notes
    -----
    Privacy, exactly ``epsilon``. For any event ``E``,
    ``P(E | x) = alpha P_PM(E | x) + (1 - alpha) P_D(E | x)``, and each part's ratio is at
    most ``e^eps`` (their docstrings), so by the mediant inequality
    ``(a1 + b1)/(a2 + b2) <= max(a1/a2, b1/b2)`` the mixture's is too. Attained: for
    ``alpha < 1`` the one-point event ``{+B}`` has probability ``(1 - alpha) P_D(+B | x)``
    (Piecewise has a density), ratio ``e^eps`` between ``x = 1`` and ``x' = -1``; for
    ``alpha = 1`` it is Piecewise. A matrix from :meth:`to_matrix` reaches ``epsilon`` with
    ``-1`` and ``1`` in the grid and ``+B`` in a bin inside ``[1, C]`` (there Piecewise's
    ratio is ``e^eps`` too).

    Reports lie in ``[-C, C]`` (``B < C``), ``[-B, B]`` when ``alpha = 0``.
    """

    name = "hybrid"
    n_uniforms = 3

    def __init__(self, epsilon: Any, alpha: Any = None) -> None:
        super().__init__(epsilon)
        a = hybrid_alpha(self.epsilon) if alpha is None else check_probability(alpha, "alpha")
        self._set("alpha", a)
        self._set("piecewise", Piecewise(self.epsilon))
        self._set("duchi", Duchi(self.epsilon))

    alpha: float
    piecewise: Piecewise
    duchi: Duchi

    def _params(self) -> tuple:
        return (self.epsilon, self.alpha)

    def __repr__(self) -> str:
        return f"Hybrid(epsilon={self.epsilon!r}, alpha={self.alpha!r})"

    @property
    def output_range(self) -> tuple[float, float]:
        if self.alpha == 0.0:
            return self.duchi.output_range
        return self.piecewise.output_range

    def _draw(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        pm = self.piecewise._draw(x, u[:, 1:3])
        d = self.duchi._draw(x, u[:, 1:2])
        return np.where(u[:, 0] < self.alpha, pm, d)

    def _variance(self, x: np.ndarray) -> np.ndarray:
        return (self.alpha * self.piecewise._variance(x)
                + (1 - self.alpha) * self.duchi._variance(x))

    def worst_case_variance(self) -> float:
        """``max(V(0), V(1))``: the variance is affine in ``x^2`` (module docstring)."""
        return float(self._variance(np.array([0.0, 1.0])).max())

    def _bin_probabilities(self, x: np.ndarray, edges: np.ndarray) -> np.ndarray:
        out = (1 - self.alpha) * self.duchi._bin_probabilities(x, edges)
        if self.alpha > 0:
            out += self.alpha * self.piecewise._bin_probabilities(x, edges)
        return out
