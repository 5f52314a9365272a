r"""The data behind the figures of Li et al. 2022 (Warner versus "don't know"): the settings
the paper leaves unstated, the closed-form and simulated points of Figs 1-3, the simulated
Q_lambda path of Fig. 5 and the trade-off curves of Fig. 4.

Every number comes from the library (:mod:`mechdesign.estimation.dont_know`,
:mod:`mechdesign.estimation.variances`, :mod:`mechdesign.estimation.simulation`,
:mod:`mechdesign.accounting`); this module only chooses the grids and seeds them.
:mod:`mechdesign.studies.figures` draws the figures.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from .._validation import NOT_GIVEN, check_int, check_probability, renamed_rng
from ..catalog import dont_know, q_lambda
from ..errors import InvalidParameterError
from ..estimation.dont_know import DontKnowAnalysis, dont_know_from_c_eps, epsilon_q_lambda
from ..estimation.estimators import estimate_q_lambda
from ..estimation.inputs import as_probability_array
from ..estimation.simulation import (
    SimulationResult,
    as_seed_sequence,
    simulate,
    simulate_dont_know,
)
from ..estimation.variances import variance_dont_know, variance_q_lambda
from ..privacy.measures import epsilon_wldp

__all__ = [
    "FIGURE3_DONT_KNOW",
    "FIGURE_C",
    "FIGURE_EPSILONS",
    "FIGURE_N",
    "FIGURE_PI",
    "PathPoint",
    "ShaferPoint",
    "figure_4_curves",
    "shafer_grid",
    "simulate_path",
]

FIGURE_C = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5)
"""The c = p + q grid used when the paper is silent (``docs/belief_functions.md`` s.5)."""

FIGURE_EPSILONS = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
"""Privacy losses at which the figures show simulated points (the curves span (0, 4])."""

FIGURE_PI, FIGURE_N = 0.3, 100
"""pi and n used when the paper is silent (``docs/belief_functions.md`` s.5)."""

FIGURE3_N = (10, 100, 500, 1000)
FIGURE3_DONT_KNOW = 0.1
"""Fig. 3: sample sizes and the fixed "don't know" probability ``1 - p - q``."""


@dataclass(frozen=True)
class ShaferPoint:
    """One (c, eps, n) setting of Figs 1-3: closed forms and, optionally, a simulation."""

    c: float
    epsilon: float
    n: int
    p: float
    q: float
    variance: float
    variance_approx: float
    simulated: SimulationResult | None


def shafer_grid(cs: Sequence[float], epsilons: Sequence[float], pi: float,
                n: int | Sequence[int], reps: int = 1000, rng: Any = None, *,
                on_point: Callable[[], None] | None = None, seed: Any = NOT_GIVEN,
                **options: Any) -> tuple[ShaferPoint, ...]:
    r"""Closed-form (exact and approximate A) and simulated ``nu^S`` on a (c, n, eps) grid.

    For every ``c`` in ``cs``, every ``n`` (an int or a sequence) and every ``eps`` in
    ``epsilons``: ``p, q`` from :func:`~mechdesign.estimation.dont_know.dont_know_from_c_eps`,
    Thm 3.10 with the exact and the approximate A, and, when ``reps > 0``,
    :func:`~mechdesign.estimation.simulation.simulate_dont_know` with its own child of the
    root ``SeedSequence`` of ``rng`` (None, an int, a ``SeedSequence`` or a numpy
    ``Generator``; see :func:`~mechdesign.estimation.simulation.as_seed_sequence`), so each
    point is reproducible on its own. ``seed=``, the former name of ``rng``, still works for
    one release with a :class:`DeprecationWarning`. ``options`` go to the simulator. Points
    come in the order c, n, eps. ``on_point`` (optional) is called after each simulated
    point (progress reporting).
    """
    rng = renamed_rng(rng, seed, "shafer_grid")
    ns = [n] if isinstance(n, int | np.integer) else list(n)
    ns = [check_int(v, "n", 1) for v in ns]
    pi = check_probability(pi, "pi")
    reps = check_int(reps, "reps", 0)
    if reps == 1:
        raise InvalidParameterError("reps must be 0 (no simulation) or >= 2, got 1")
    settings = [(float(c), nn, float(e)) for c in cs for nn in ns for e in epsilons]
    for c, _, e in settings:
        if not 0 < c <= 1:
            raise InvalidParameterError(f"c = p + q must lie in (0, 1], got {c!r}")
        if not 0 < e < np.inf:
            raise InvalidParameterError(
                f"epsilon must be > 0 and finite (eps = 0 makes p = q: no information), got {e!r}")
    seeds = as_seed_sequence(rng).spawn(len(settings)) if reps else [None] * len(settings)
    out = []
    for (c, nn, e), ss in zip(settings, seeds, strict=True):
        p, q = dont_know_from_c_eps(c, e)
        sim = None
        if reps:
            sim = simulate_dont_know(p, q, pi, nn, reps, ss, **options)
            if on_point is not None:
                on_point()
        out.append(ShaferPoint(
            c=c, epsilon=e, n=nn, p=p, q=q,
            variance=float(variance_dont_know(p, q, pi, nn, exact=True)),
            variance_approx=float(variance_dont_know(p, q, pi, nn, exact=False)),
            simulated=sim))
    return tuple(out)


@dataclass(frozen=True)
class PathPoint:
    """A simulated Q_lambda mechanism of Fig. 5 with its closed-form trade-off."""

    lam: float
    epsilon: float
    variance: float
    simulated: SimulationResult


def simulate_path(analysis: DontKnowAnalysis, lambdas: Sequence[float], reps: int = 1000,
                  rng: Any = None, *, on_point: Callable[[], None] | None = None,
                  seed: Any = NOT_GIVEN, **options: Any) -> tuple[PathPoint, ...]:
    r"""Simulate the unbiased Q_lambda estimator at each lambda (Fig. 5's simulated points).

    Each ``Q_lambda = q_lambda(p, q, lam)`` survey is answered with
    :func:`~mechdesign.estimation.estimators.estimate_q_lambda`; its MSE estimates
    ``nu_lambda`` (:func:`~mechdesign.estimation.variances.variance_q_lambda`). Each lambda
    gets its own child of the root ``SeedSequence`` of ``rng`` (as in :func:`shafer_grid`;
    ``seed=``, its former name, still works for one release with a
    :class:`DeprecationWarning`); ``options`` go to
    :func:`~mechdesign.estimation.simulation.simulate`. ``on_point`` (optional) is called after
    each lambda (progress reporting). A lambda whose Q_lambda is uninformative
    (``p + lambda d = 1/2``, possible only at ``p <= 1/2``: ``analysis.lambda_uninformative``)
    has no estimator and no point: it is left out of the result (``nu_lambda = inf``).
    """
    rng = renamed_rng(rng, seed, "simulate_path")
    lam = as_probability_array(lambdas, "lambdas").ravel()
    reps = check_int(reps, "reps", 2)
    a = analysis
    seeds = as_seed_sequence(rng).spawn(lam.size)
    out = []
    d = max(1.0 - a.p - a.q, 0.0)
    for value, ss in zip(lam.tolist(), seeds, strict=True):
        if a.p - a.q + (2.0 * value - 1.0) * d == 0:  # estimate_q_lambda's undefined case
            if on_point is not None:
                on_point()
            continue
        est = partial(estimate_q_lambda, p=a.p, q=a.q, lam=value)
        sim = simulate(q_lambda(a.p, a.q, value), est, a.pi, a.n, reps, ss, **options)
        out.append(PathPoint(value, float(epsilon_q_lambda(a.p, a.q, value)),
                             float(variance_q_lambda(a.p, a.q, value, a.pi, a.n)), sim))
        if on_point is not None:
            on_point()
    return tuple(out)


def figure_4_curves(p: float, q: float) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    r"""Fig. 4: trade-off curves ``{label: (alpha, beta)}`` of Q_2x3(p, q) (Li et al. 2022,
    Thm 3.18 and Cor 3.19; ``docs/belief_functions.md`` s.3).

    ``f_eps`` and ``f_2eps`` (:func:`~mechdesign.accounting.tradeoff.tradeoff_function_dp`) at
    the mechanism's WLDP epsilon, against the pessimistic and optimistic curves ``T^pe``,
    ``T^op`` (:mod:`~mechdesign.accounting.belief_tradeoff`) and their 2-fold versions
    ``T^pe_2``, ``T^op_2``. The labels are the keys, in drawing order; draw them with
    :func:`mechdesign.studies.figures.figure_4`.
    """
    # the trade-off machinery (and scipy.stats) loads only when Fig. 4 is computed
    from ..accounting.belief_tradeoff import optimistic_function, pessimistic_function
    from ..accounting.tradeoff import tradeoff_function_dp

    dk = dont_know(p, q)
    eps = epsilon_wldp(dk)
    # q = 0: a "Yes" is never a lie, eps = inf and f_eps is the axes (no reference drawn)
    curves = ({"f_eps": tradeoff_function_dp(eps), "f_2eps": tradeoff_function_dp(2 * eps)}
              if math.isfinite(eps) else {})
    curves |= {"T^pe": pessimistic_function(dk), "T^op": optimistic_function(dk),
               "T^pe_2": pessimistic_function(dk, k=2), "T^op_2": optimistic_function(dk, k=2)}
    return {label: (c.alphas, c.betas) for label, c in curves.items()}
