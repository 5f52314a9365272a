r"""Duchi, Jordan and Wainwright's one-dimensional randomizer: two reports, ``+B`` and ``-B``.

For ``x`` in ``[-1, 1]`` and ``B = (e^eps + 1)/(e^eps - 1) = coth(eps/2)``:

.. math:: P(Y = +B \mid x) = \frac12 + \frac{x}{2B}
          = \frac12 + \frac{e^\varepsilon - 1}{2(e^\varepsilon + 1)}\, x,
          \qquad P(Y = -B \mid x) = \frac12 - \frac{x}{2B}.

*Unbiased*: ``E[Y | x] = B (1/2 + x/(2B)) - B (1/2 - x/(2B)) = x``.
*Variance*: ``Y^2 = B^2`` always, so ``Var(Y | x) = B^2 - x^2``, largest at ``x = 0``.

References
----------
J. C. Duchi, M. I. Jordan, M. J. Wainwright, "Local privacy and statistical minimax rates",
FOCS 2013; "Minimax optimal procedures for locally private estimation", JASA 113 (2018).
The form above is the one-dimensional case as written by N. Wang et al., "Collecting and
analyzing multidimensional data with local differential privacy", ICDE 2019, s. III-A.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from .base import REPORT_TOL, NumericRandomizer, atom_bins

__all__ = [
    "Duchi",
]


class Duchi(NumericRandomizer):
    r"""Duchi et al.'s randomizer of ``x`` in ``[-1, 1]``: report ``+B`` with probability
    ``1/2 + x/(2B)``, else ``-B``, where ``B = (e^eps + 1)/(e^eps - 1)``.

    Parameters
    ----------
    epsilon : float
        Pure-LDP parameter in ``(0, MAX_EPSILON]``.

    Attributes
    ----------
    B : float
        The report magnitude ``coth(eps/2)``.

    Notes
    -----
    Privacy, exactly ``epsilon``. The law has two atoms. ``P(+B | x)`` increases in ``x``,
    so for any ``x, x'``

    .. math:: \frac{P(+B \mid x)}{P(+B \mid x')} \le \frac{P(+B \mid 1)}{P(+B \mid -1)}
              = \frac{1 + 1/B}{1 - 1/B} = \frac{B + 1}{B - 1}
              = \frac{2e^\varepsilon/(e^\varepsilon - 1)}{2/(e^\varepsilon - 1)}
              = e^\varepsilon,

    and symmetrically for ``-B``; every event is one of ``{}``, ``{+B}``, ``{-B}``, both, so
    the ratio of any event is at most ``e^eps``, with equality for ``{+B}`` at ``x = 1``,
    ``x' = -1``. A matrix from :meth:`to_matrix` whose grid holds ``-1`` and ``1`` and
    whose bins separate ``-B`` from ``+B`` has epsilon exactly ``epsilon`` (up to rounding).

    Variance ``B^2 - x^2`` (module docstring); worst case ``B^2`` at ``x = 0``.
    """

    name = "duchi"
    n_uniforms = 1

    def __init__(self, epsilon: Any) -> None:
        super().__init__(epsilon)
        self._set("B", 1.0 / math.tanh(self.epsilon / 2))

    B: float

    @property
    def output_range(self) -> tuple[float, float]:
        return (-self.B, self.B)

    def p_plus(self, x: Any) -> float | np.ndarray:
        """``P(Y = +B | x) = 1/2 + x / (2B)``, elementwise."""
        arr = self.check_inputs(x)
        out = 0.5 + arr / (2 * self.B)
        return float(out) if arr.ndim == 0 else out

    def _draw(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        plus = u[:, 0] < 0.5 + x / (2 * self.B)
        return np.where(plus, self.B, -self.B)

    def _variance(self, x: np.ndarray) -> np.ndarray:
        return self.B ** 2 - x ** 2

    def worst_case_variance(self) -> float:
        """``B^2`` (at ``x = 0``)."""
        return self.B ** 2

    def check_reports(self, reports: Any) -> np.ndarray:
        """As :meth:`NumericRandomizer.check_reports`; every report must also be ``+B`` or
        ``-B`` (within :data:`~mechdesign.numeric.base.REPORT_TOL` relative)."""
        arr = super().check_reports(reports)
        off = np.abs(np.abs(arr) - self.B) > REPORT_TOL * 2 * self.B
        if off.any():
            i = int(np.argmax(off))
            raise InvalidParameterError(
                f"reports[{i}] = {float(arr[i])!r} is not a report of {self!r}, whose "
                f"reports are +B and -B (B = {self.B!r})")
        return arr

    def _bin_probabilities(self, x: np.ndarray, edges: np.ndarray) -> np.ndarray:
        Q = np.zeros((x.size, edges.size - 1))
        plus = 0.5 + x / (2 * self.B)
        minus = 0.5 - x / (2 * self.B)
        j_minus, j_plus = atom_bins(np.array([-self.B, self.B]), edges)
        Q[:, j_minus] += minus
        Q[:, j_plus] += plus
        return Q
