"""Numeric randomizers: the published local randomizers of a number in a bounded interval,
with exact privacy, sampling, unbiased mean estimates and closed-form variances
(``docs/numeric.md``).

* :class:`Duchi`: Duchi, Jordan and Wainwright's two-report randomizer, ``x`` in ``[-1, 1]``;
* :class:`Piecewise`: Wang et al.'s Piecewise mechanism (ICDE 2019), ``x`` in ``[-1, 1]``;
* :class:`Hybrid`: Piecewise with probability ``alpha``, Duchi otherwise (same paper);
* :class:`SquareWave`: Li et al.'s Square Wave (SIGMOD 2020), ``v`` in ``[0, 1]``, with the
  EM/EMS estimate of the input distribution;
* :class:`Laplace`: the Laplace mechanism (Dwork et al. 2006), ``x`` in ``[-1, 1]``, noise of
  scale ``2/eps`` and an unbounded report;
* :class:`Staircase`: Geng and Viswanath's staircase mechanism (IEEE Trans. Inf. Theory
  2016), ``x`` in ``[-1, 1]``, with the variance-optimal ``gamma`` (:func:`staircase_gamma`);
* :func:`randomized_round`: unbiased rounding to a grid, before a finite randomizer.

Each randomizer discretises into a finite :class:`~mechdesign.mechanism.Mechanism`
(``to_matrix``, ``to_mechanism``) whose exact epsilon is at most its own (for the two
additive-noise mechanisms, whose reports are unbounded, with the tails folded into the end
bins).

>>> import mechdesign as md
>>> pm = md.numeric.Piecewise(1.0)
>>> reports = pm.sample([0.2, -0.5, 0.9], rng=1)     # respondents' side
>>> est = pm.estimate_mean(reports)                   # analyst's side
>>> round(pm.worst_case_variance(), 4)
5.2236
"""

from __future__ import annotations

from .base import MAX_EPSILON, MeanEstimate, NumericRandomizer
from .duchi import Duchi
from .hybrid import HYBRID_THRESHOLD, Hybrid, hybrid_alpha
from .laplace import Laplace
from .piecewise import Piecewise
from .rounding import randomized_round, randomized_round_index, rounding_variance
from .square_wave import (
    EMResult,
    SquareWave,
    SquareWaveDistribution,
    expectation_maximization,
    square_wave_b,
)
from .staircase import Staircase, staircase_gamma

__all__ = ["HYBRID_THRESHOLD", "MAX_EPSILON", "Duchi", "EMResult", "Hybrid", "Laplace",
           "MeanEstimate", "NumericRandomizer", "Piecewise", "SquareWave",
           "SquareWaveDistribution", "Staircase", "expectation_maximization", "hybrid_alpha",
           "randomized_round", "randomized_round_index", "rounding_variance", "square_wave_b",
           "staircase_gamma"]
