r"""The staircase mechanism of Geng and Viswanath on inputs in ``[-1, 1]``: additive noise
whose density falls by ``e^-eps`` in steps of the sensitivity.

For ``x`` in ``[-1, 1]`` (sensitivity ``Delta = 2``), ``b = e^-eps`` and a parameter
``gamma`` in ``[0, 1]``, the report is ``Y = x + N`` where ``N`` has the symmetric density

.. math:: f(t) = \begin{cases} a\, b^k & |t| \in [k\Delta,\ (k + \gamma)\Delta) \\
                               a\, b^{k+1} & |t| \in [(k + \gamma)\Delta,\ (k + 1)\Delta)
                 \end{cases} \qquad k = 0, 1, 2, \dots, \qquad
          a = \frac{1 - b}{2\Delta(\gamma + (1 - \gamma) b)} .

*Normalised*: step ``k`` of one side holds ``a b^k Delta (gamma + (1 - gamma) b)
= (1 - b) b^k / 2``, and the two sides sum to ``sum_k (1 - b) b^k = 1``. The paper's
sampler follows: a sign, a step ``G`` with ``P(G = k) = (1 - b) b^k`` (geometric), the
high part ``[G, G + gamma) Delta`` of the step with probability
``gamma / (gamma + (1 - gamma) b)``, else the low part ``[G + gamma, G + 1) Delta``, and a
uniform point in the part chosen.

*Unbiased*: the noise is symmetric, so ``E[Y | x] = x``.

*Variance*. ``E[N^2] = 2 sum_k [a b^k int_{k Delta}^{(k+gamma) Delta} t^2 dt
+ a b^{k+1} int_{(k+gamma) Delta}^{(k+1) Delta} t^2 dt]``. The two integrals are
``Delta^3 ((k + gamma)^3 - k^3)/3`` and ``Delta^3 ((k + 1)^3 - (k + gamma)^3)/3``; in their
weighted sum the ``k^3`` terms cancel and what is left is
``(1 - b)(k + gamma)^3 - k^3 + b (k + 1)^3 = 3 (gamma (1 - b) + b) k^2
+ 3 (gamma^2 (1 - b) + b) k + gamma^3 (1 - b) + b``. With ``sum_k b^k = 1/(1 - b)``,
``sum k b^k = b/(1 - b)^2``, ``sum k^2 b^k = b (1 + b)/(1 - b)^3`` and writing
``u = gamma (1 - b)``, this collapses to

.. math:: \mathrm{Var}(Y \mid x) = \Delta^2\,
          \frac{u^3 + 3 b u^2 + 3 b (1 + b) u + b (1 + 4b + b^2)}{3 (1 - b)^2 (u + b)},
          \qquad u = \gamma (1 - b),

the same at every ``x``. Every term is positive, so it is evaluated as written, with
``1 - b = -expm1(-eps)``. As ``eps -> 0`` (``b -> 1``, ``u -> 0``) it is
``Delta^2 (6 + O(eps))/(3 eps^2) -> 2 Delta^2/eps^2 = 8/eps^2``, Laplace's variance.

*The variance-optimal gamma*. In ``s = u + b`` the numerator is
``N(s) = (s - b)^3 + 3b (s - b)^2 + 3b (1 + b)(s - b) + b (1 + 4b + b^2)`` and the variance
is ``Delta^2 N(s)/(3 (1 - b)^2 s)``; ``d/ds (N/s) = 0`` reads ``s N'(s) - N(s) = 0``, which
simplifies to ``2 s^3 = b (1 + b)``. So

.. math:: s^* = \left(\frac{b (1 + b)}{2}\right)^{1/3}, \qquad
          \gamma^* = \frac{s^* - b}{1 - b} = \frac{b (1 + 2b)}{2 (s^{*2} + s^* b + b^2)},
          \qquad \mathrm{Var}^* = \Delta^2\, \frac{s^{*2} + b}{(1 - b)^2},

(the second form of ``gamma*`` divides ``s^*3 - b^3 = b (1 - b)(1 + 2b)/2`` by
``s^*2 + s^* b + b^2`` and has no cancellation as ``b -> 1``; at the optimum
``N/s = N'(s) = 3 (s^2 + b)``). This is Geng and Viswanath's value for the quadratic cost,
``-b/(1 - b) + (b - 2b^2 + 2b^4 - b^5)^{1/3}/(2^{1/3} (1 - b)^2)`` written another way
(``b - 2b^2 + 2b^4 - b^5 = b (1 + b)(1 - b)^3``). It falls from 1/2 (``eps -> 0``) like
``(b/2)^{1/3}``, and ``Var* = Theta(e^{-2 eps/3})`` against Laplace's ``8/eps^2``. The
value ``1/(1 + e^{eps/2})`` minimises the expected *absolute* noise ``E|N|`` (the paper's
``l1`` cost), not the variance.

*Privacy*, exactly ``eps``. ``f`` is symmetric, non-increasing in ``|t|``, and
``f(|t| + Delta) = b f(|t|)``. For ``x, x'`` in ``[-1, 1]`` and any ``y``, put
``t = y - x``, ``t' = y - x'``: ``||t| - |t'|| <= |x - x'| <= Delta``; if ``|t| <= |t'|``
then ``f(t') <= f(t)`` and ``f(t') >= f(|t| + Delta) = b f(t)``, so
``b <= f(t)/f(t') <= 1/b`` in either order. Integrating over an event,
``P(E | x) <= e^eps P(E | x')``. Attained by ``E = [1, inf)`` between ``x = 1`` and
``x' = -1``: every point of it has ``t' = t + 2 = t + Delta`` with ``t >= 0``, so the
densities' ratio is exactly ``1/b`` throughout (``1/2`` against ``b/2``).

Reference
---------
Q. Geng, P. Viswanath, "The optimal noise-adding mechanism in differential privacy",
IEEE Transactions on Information Theory 62(2), 2016 (the staircase density, the sampler as
a geometric mixture of uniforms, and the optimal gamma for the absolute and quadratic
costs).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import check_probability
from .base import check_positive_epsilon
from .laplace import _AdditiveNoise

__all__ = [
    "Staircase",
    "staircase_gamma",
]

_DELTA = 2.0  # the sensitivity: the width of the input domain [-1, 1]


def staircase_gamma(epsilon: Any) -> float:
    r"""The ``gamma`` that minimises the staircase noise's variance at ``epsilon``:
    ``gamma* = b (1 + 2b) / (2 (s^2 + s b + b^2))`` with ``b = e^-eps`` and
    ``s = (b (1 + b)/2)^{1/3}`` (module docstring; Geng and Viswanath's optimum for the
    quadratic cost). It lies in ``(0, 1/2)``.

    Raises
    ------
    InvalidParameterError
        As :class:`Staircase` for a bad ``epsilon``.
    """
    eps = check_positive_epsilon(epsilon)
    b = math.exp(-eps)
    s = math.cbrt(b * (1 + b) / 2)
    return b * (1 + 2 * b) / (2 * (s * s + s * b + b * b))


class Staircase(_AdditiveNoise):
    r"""Geng and Viswanath's staircase mechanism for ``x`` in ``[-1, 1]``: report ``x + N``
    with the staircase noise of sensitivity 2 (module docstring).

    Parameters
    ----------
    epsilon : float
        Pure-LDP parameter in ``(0, MAX_EPSILON]``.
    gamma : float, optional
        The share of each step at the higher level, in ``[0, 1]``; default
        :func:`staircase_gamma` (the smallest variance). Every gamma gives the same
        privacy. ``1/(1 + e^(eps/2))`` minimises ``E|N|`` instead.

    Attributes
    ----------
    gamma : float
    a : float
        The density at 0, ``(1 - b)/(2 Delta (gamma + (1 - gamma) b))``, ``b = e^-eps``.

    Notes
    -----
    Privacy, exactly ``epsilon`` (module docstring: the densities' ratio is at most
    ``e^eps`` at every report, and exactly ``e^eps`` on ``[1, inf)`` between ``x = 1`` and
    ``x' = -1``).

    Discretisation with folded tails, as for :class:`~mechdesign.numeric.laplace.Laplace`:
    the end bins ``(-inf, e_1)`` and ``[e_(m-1), inf)`` are events, so their ratio is at
    most ``e^eps`` like any other. For ``c >= 1``, ``P(Y >= c | x) = T(c - x)`` with ``T``
    the noise's upper tail, and ``c - x' <= (c - x) + Delta``, so
    ``T(c - x') >= T(c - x + Delta) = b T(c - x)``: the tail's ratio is at most ``1/b``;
    a grid holding ``-1`` and ``1`` with an edge at ``1`` reaches ``epsilon`` exactly.
    Bin masses are sums of positive terms: within a step, a density level times a length;
    across steps, the rest of the first step, ``b^(k+1) (1 - b^(j-k-1))/2`` for the whole
    steps ``k+1..j-1`` between (``-expm1``), and the start of the last.

    Sampling (the paper's geometric mixture): four uniforms per report, for the sign, the
    step ``G = floor(-log(1 - U)/eps)`` (``P(G >= k) = b^k``), the part of the step and the
    point in it.
    """

    name = "staircase"
    n_uniforms = 4

    def __init__(self, epsilon: Any, gamma: Any = None) -> None:
        super().__init__(epsilon)
        eps = self.epsilon
        g = staircase_gamma(eps) if gamma is None else check_probability(gamma, "gamma")
        b = math.exp(-eps)
        one_minus_b = -math.expm1(-eps)
        self._set("gamma", g)
        self._set("_b", b)
        self._set("_one_minus_b", one_minus_b)
        self._set("a", one_minus_b / (2 * _DELTA * (g + (1 - g) * b)))
        self._set("_p_low", (1 - g) * b / (g + (1 - g) * b))  # P(low part of a step)

    gamma: float
    a: float

    def _params(self) -> tuple:
        return (self.epsilon, self.gamma)

    def __repr__(self) -> str:
        return f"Staircase(epsilon={self.epsilon!r}, gamma={self.gamma!r})"

    # ---------------------------------------------------------------- the noise
    def _noise_pdf(self, t: np.ndarray) -> np.ndarray:
        r = np.abs(t) / _DELTA
        k = np.floor(r)
        step = np.where(r - k < self.gamma, k, k + 1)  # the exponent of b
        return self.a * np.exp(-self.epsilon * step)

    def _start(self, k: np.ndarray, r: np.ndarray) -> np.ndarray:
        """Mass of ``[k Delta, k Delta + r)``, ``0 <= r <= Delta``."""
        high = self.gamma * _DELTA
        return self.a * np.exp(-self.epsilon * k) * (
            np.minimum(r, high) + self._b * np.maximum(r - high, 0.0))

    def _rest(self, k: np.ndarray, r: np.ndarray) -> np.ndarray:
        """Mass of ``[k Delta + r, (k + 1) Delta)``, ``0 <= r <= Delta``."""
        high = self.gamma * _DELTA
        return self.a * np.exp(-self.epsilon * k) * (
            np.maximum(high - r, 0.0) + self._b * (_DELTA - np.maximum(r, high)))

    def _mass(self, u: np.ndarray, w: np.ndarray) -> np.ndarray:
        u = np.asarray(u, dtype=float)
        w = np.asarray(w, dtype=float)
        ku = np.floor(u / _DELTA)
        ru = u - ku * _DELTA
        v = u + w
        out = np.empty(u.shape)
        # within one step: a level times a length (the width w itself, shared by the rows)
        same = ru + w <= _DELTA
        high = self.gamma * _DELTA
        hi_len = np.clip(high - ru[same], 0.0, w[same])
        out[same] = self.a * np.exp(-self.epsilon * ku[same]) * (
            hi_len + self._b * (w[same] - hi_len))
        # across steps: the rest of step ku, the whole steps between, the start of step kv
        cross = ~same
        k1, r1 = ku[cross], ru[cross]
        vv = v[cross]
        finite = np.isfinite(vv)
        vf = np.where(finite, vv, 0.0)
        # at least the next step (the test above and v = u + w round separately)
        kv = np.where(finite, np.maximum(np.floor(vf / _DELTA), k1 + 1), np.inf)
        rv = np.clip(vf - np.where(finite, kv, 0.0) * _DELTA, 0.0, _DELTA)
        between = 0.5 * np.exp(-self.epsilon * (k1 + 1)) * -np.expm1(
            -self.epsilon * (kv - k1 - 1))
        last = np.where(finite, self._start(np.where(finite, kv, 0.0), rv), 0.0)
        out[cross] = self._rest(k1, r1) + between + last
        return out

    def _noise_variance(self) -> float:
        r"""``Delta^2 (u^3 + 3b u^2 + 3b (1 + b) u + b (1 + 4b + b^2)) / (3 (1 - b)^2 (u + b))``
        with ``u = gamma (1 - b)`` (module docstring)."""
        b, m = self._b, self._one_minus_b
        u = self.gamma * m
        num = u ** 3 + 3 * b * u ** 2 + 3 * b * (1 + b) * u + b * (1 + 4 * b + b * b)
        return _DELTA ** 2 * num / (3 * m ** 2 * (u + b))

    def _draw(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        g = np.floor(-np.log1p(-u[:, 1]) / self.epsilon)  # P(G >= k) = b^k
        low = u[:, 3] < self._p_low
        within = np.where(low, self.gamma + (1 - self.gamma) * u[:, 2], self.gamma * u[:, 2])
        magnitude = _DELTA * (g + within)
        return x + np.where(u[:, 0] < 0.5, magnitude, -magnitude)
