r"""Monte Carlo surveys: the mean squared error of an estimator, simulated fast and reproducibly.

A survey of n respondents drawn with replacement from a population with input frequencies
``prior`` gives output counts ``N ~ Multinomial(n, prior @ Q)`` (Li et al. 2022, s.4: each
answer is i.i.d. with law ``prior @ Q``). A batch of surveys is ONE multinomial call over the
batch: there is no Python loop over respondents, and none over surveys (numpy draws each
multinomial as m - 1 binomials, so the cost does not grow with n).

Reproducibility: the surveys are cut into chunks of ``chunk_size``; chunk i draws from the
i-th child of ``numpy.random.SeedSequence(seed).spawn(...)``, and the per-chunk statistics are
combined in chunk order (Chan, Golub & LeVeque's pairwise update). The result therefore
depends on ``rng``, ``reps`` and ``chunk_size`` only, never on the number of worker processes.

Surveys on which the estimator is undefined (NaN, e.g. ``n1 + n2 = 0`` for Q_2x3) are
redrawn, as the paper does (``docs/belief_functions.md`` s.5): the statistics are those of the
estimator conditionally on being defined, which is what Thm 3.10 computes.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from .._coerce import as_mechanism
from .._html import value_view
from .._progress import Progress, ProgressArg
from .._validation import NOT_GIVEN, check_int, renamed_rng
from ..catalog import dont_know
from ..errors import InvalidParameterError
from .estimators import (
    estimate_dont_know,
    estimate_inverse,
    estimate_mle,
    estimate_projected,
    estimator_name,
)
from .inputs import as_prior
from .records import fields_equal

__all__ = [
    "ESTIMATORS",
    "MAX_REDRAW_ROUNDS",
    "SimulationResult",
    "as_seed_sequence",
    "simulate",
    "simulate_dont_know",
]


ESTIMATORS = {"inverse": estimate_inverse, "projected": estimate_projected, "mle": estimate_mle}
"""Estimator names accepted by :func:`simulate` (each gives the full frequency vector)."""

MAX_REDRAW_ROUNDS = 10_000
"""A chunk gives up (typed error) after this many rounds of redrawing undefined surveys."""


@value_view
@dataclass(frozen=True, eq=False)
class SimulationResult:
    r"""Monte Carlo summary of an estimator over ``reps`` simulated surveys.

    Attributes
    ----------
    mse : float
        Mean over surveys of the squared error ``|pi_hat - pi|^2`` (summed over the
        frequencies when pi is a vector).
    variance : float
        Sample variance of the estimates (``ddof = 1``, summed over the frequencies).
    bias : float or ndarray
        Mean estimate minus pi.
    stderr : float
        Standard error of :attr:`mse`: the sample standard deviation of the squared errors
        divided by ``sqrt(reps)``.
    reps : int
        Number of surveys used.
    n : int
        Respondents per survey.
    redrawn : int
        Surveys discarded and redrawn because the estimator was undefined on them.
    mean : float or ndarray
        Mean estimate.
    """

    mse: float
    variance: float
    bias: float | np.ndarray
    stderr: float
    reps: int
    n: int
    redrawn: int
    mean: float | np.ndarray

    def __eq__(self, other: object) -> bool:
        return fields_equal(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        from .._html import number, numbers_text, short_repr

        def text(x: Any) -> str:
            return number(x) if np.ndim(x) == 0 else numbers_text(x, 40)
        return short_repr("SimulationResult",
                          f"{self.reps} surveys of n={self.n}: mse={number(self.mse)} "
                          f"(stderr {number(self.stderr)}), variance={number(self.variance)}, "
                          f"bias={text(self.bias)}, redrawn={self.redrawn}")


@dataclass
class _Moments:
    """Count, mean and sum of squared deviations of the estimates and squared errors."""

    count: int
    mean_est: np.ndarray
    m2_est: np.ndarray
    mean_se: float
    m2_se: float
    redrawn: int

    def merge(self, other: _Moments) -> _Moments:
        """Chan, Golub & LeVeque (1979) pairwise combination."""
        n = self.count + other.count
        d_est = other.mean_est - self.mean_est
        d_se = other.mean_se - self.mean_se
        w = self.count * other.count / n
        return _Moments(
            n,
            self.mean_est + d_est * other.count / n,
            self.m2_est + other.m2_est + d_est ** 2 * w,
            self.mean_se + d_se * other.count / n,
            self.m2_se + other.m2_se + d_se ** 2 * w,
            self.redrawn + other.redrawn,
        )


def _draw_estimates(probs: np.ndarray, estimator: Callable, n: int, size: int,
                    rng: np.random.Generator, redraw: bool, target_shape: tuple
                    ) -> tuple[np.ndarray, int]:
    counts = rng.multinomial(n, probs, size=size)
    est = np.asarray(estimator(counts), dtype=float)
    expected = (size, *target_shape)
    if est.shape != expected:
        raise InvalidParameterError(
            f"the estimator returned shape {est.shape} for {size} surveys; expected {expected} "
            "(one estimate of pi per survey)")
    if not redraw:
        return est, 0
    redrawn = 0
    for _ in range(MAX_REDRAW_ROUNDS):
        bad = np.isnan(est).reshape(size, -1).any(axis=1)
        nbad = int(bad.sum())
        if not nbad:
            return est, redrawn
        redrawn += nbad
        est[bad] = np.asarray(estimator(rng.multinomial(n, probs, size=nbad)), dtype=float)
    raise InvalidParameterError(
        f"the estimator stayed undefined (NaN) on some surveys after {MAX_REDRAW_ROUNDS} "
        f"redraws ({redrawn} surveys redrawn): with n = {n} and output law {probs.tolist()} "
        "it is undefined almost surely")


def _chunk_moments(probs: np.ndarray, estimator: Callable, target: np.ndarray, n: int,
                   size: int, seed: np.random.SeedSequence, redraw: bool) -> _Moments:
    """Simulate ``size`` surveys and reduce them to moments (runs in a worker process)."""
    rng = np.random.default_rng(seed)
    est, redrawn = _draw_estimates(probs, estimator, n, size, rng, redraw, target.shape)
    est2 = est.reshape(size, -1)
    se = ((est2 - target.reshape(1, -1)) ** 2).sum(axis=1)
    mean_est = est2.mean(axis=0)
    mean_se = float(se.mean())
    return _Moments(size, mean_est, ((est2 - mean_est) ** 2).sum(axis=0), mean_se,
                    float(((se - mean_se) ** 2).sum()), redrawn)


def _first_column(estimator: Callable, counts: np.ndarray) -> np.ndarray:
    return estimator(counts)[..., 0]


def _resolve_estimator(mechanism: Any, estimator: Any, scalar_target: bool) -> Callable:
    if isinstance(estimator, str):
        try:
            fn = ESTIMATORS[estimator_name(estimator, tuple(ESTIMATORS))]
        except InvalidParameterError as exc:
            raise InvalidParameterError(f"{exc} (or pass a callable counts -> estimates)"
                                        ) from None
        full = partial(fn, mechanism)
        return partial(_first_column, full) if scalar_target else full
    if not callable(estimator):
        raise InvalidParameterError(f"estimator must be a name or a callable, got {estimator!r}")
    return estimator


def as_seed_sequence(seed: Any) -> np.random.SeedSequence:
    """The root :class:`numpy.random.SeedSequence` of a reproducible simulation.

    Parameters
    ----------
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        ``None``: fresh OS entropy (recorded in the result's ``entropy``, so the run can be
        repeated); a non-negative int: ``SeedSequence(seed)``; a ``SeedSequence``: returned
        as is (a child spawned by the caller keeps its place in the caller's tree); a
        ``Generator``: ``SeedSequence`` of four 63-bit words drawn from it (reproducible
        from the generator's state, and advancing it).

    Returns
    -------
    numpy.random.SeedSequence
        Callers ``spawn`` independent children from it, one per chunk or per grid point, so
        each part of a simulation is reproducible on its own.

    Raises
    ------
    InvalidParameterError
        A negative int, a bool or any other type.
    """
    if seed is None or (isinstance(seed, int | np.integer) and not isinstance(seed, bool)):
        if seed is not None and seed < 0:
            raise InvalidParameterError(f"rng must be a seed >= 0, got {seed}")
        return np.random.SeedSequence(None if seed is None else int(seed))
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(seed.integers(0, 2**63, size=4).tolist())
    raise InvalidParameterError(
        f"rng must be None, a non-negative int, a numpy SeedSequence or a numpy Generator, "
        f"got {seed!r}")


def simulate(mechanism: Any, estimator: str | Callable, pi: Any, n: int, reps: int = 1000,
             rng: Any = None, *, redraw_undefined: bool = True, chunk_size: int = 1000,
             workers: int = 1, executor: Executor | None = None,
             progress: ProgressArg = False, seed: Any = NOT_GIVEN) -> SimulationResult:
    r"""Simulate ``reps`` surveys of ``n`` respondents and summarise an estimator's error.

    Parameters
    ----------
    mechanism : Mechanism (or EvidentialMechanism, whose messages are the outputs)
        The randomizer each respondent applies.
    estimator : {"inverse", "projected", "mle"} or callable
        A name from :data:`ESTIMATORS` (applied to ``mechanism``; ``"unbiased"`` is
        accepted for ``"inverse"``), or a function mapping a count array of shape
        ``(r, m)`` to estimates of shape ``(r,)`` (scalar pi) or
        ``(r, k)`` (vector pi), NaN where undefined. With processes (``workers > 1`` or a
        process executor) it must be picklable: a module-level function or a
        ``functools.partial`` of one, not a lambda. The named estimators are NaN only where
        ``n = 0`` (on counts that carry no information they return a value fixed by Q), so
        nothing is redrawn: for Q_2x3 ``simulate(dk, "mle" | "inverse", ...)`` estimates the
        unconditional MSE, not Thm 3.10's conditional variance (use
        :func:`simulate_dont_know`).
    pi : float or array_like
        The true frequencies: a vector of length k, or for 2 inputs a float, the proportion
        of input 0 (then a named estimator's first coordinate is scored).
    n : int
        Respondents per survey (``>= 1``).
    reps : int
        Number of surveys (``>= 2``, so that the standard error exists).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        The root of the per-chunk seeds (``None``: fresh OS entropy; see
        :func:`as_seed_sequence`). ``seed=``, its former name, still works for one release
        with a :class:`DeprecationWarning`.
    redraw_undefined : bool
        Redraw surveys whose estimate is NaN (default, as in the paper); with ``False`` they
        are kept and the summaries become NaN.
    chunk_size : int
        Surveys per vectorised draw; part of the reproducibility key (with rng and reps).
    workers : int
        With ``workers > 1`` the chunks run in a :class:`~concurrent.futures.ProcessPoolExecutor`
        of that size (created and shut down here). Results are identical for any value.
    executor : concurrent.futures.Executor, optional
        Run the chunks in this executor instead (not shut down here); overrides ``workers``.
    progress : bool or callable
        ``True``: ``simulate: done/reps surveys of n`` on stderr after each chunk (one line
        rewritten on a terminal, plain lines at most once a second otherwise); a callable
        is called as ``progress(done, reps)``.

    Returns
    -------
    SimulationResult

    Notes
    -----
    The standard error of the MSE uses the sample variance of the squared errors; a simulated
    MSE and an exact variance of an unbiased estimator should agree within a few standard
    errors.
    """
    mech = as_mechanism(mechanism)
    prior = as_prior(pi, mech.n_inputs, "pi")
    scalar_target = np.ndim(pi) == 0
    target = np.asarray(prior[0] if scalar_target else prior)
    n = check_int(n, "n", 1)
    reps = check_int(reps, "reps", 2)
    chunk_size = check_int(chunk_size, "chunk_size", 1)
    workers = check_int(workers, "workers", 1)
    est_fn = _resolve_estimator(mech, estimator, scalar_target)
    probs = prior @ mech.matrix
    probs = np.clip(probs, 0.0, None)
    probs = probs / probs.sum()  # prior @ Q sums to 1 up to rounding; numpy insists on <= 1
    sizes = [chunk_size] * (reps // chunk_size)
    if reps % chunk_size:
        sizes.append(reps % chunk_size)
    seeds = as_seed_sequence(renamed_rng(rng, seed, "simulate")).spawn(len(sizes))
    job = partial(_chunk_moments, probs, est_fn, target, n, redraw=redraw_undefined)

    bar = Progress("simulate", reps, progress, unit=f"surveys of {n}")
    report = bar.update
    results: list[_Moments] = []
    own = None
    if executor is None and workers > 1:
        own = executor = ProcessPoolExecutor(max_workers=workers)
    try:
        if executor is None:
            done = 0
            for size, ss in zip(sizes, seeds, strict=True):
                results.append(job(size, ss))
                done += size
                report(done)
        else:
            futures = [executor.submit(job, size, ss) for size, ss in zip(sizes, seeds,
                                                                          strict=True)]
            done = 0
            for fut, size in zip(futures, sizes, strict=True):
                results.append(fut.result())
                done += size
                report(done)
    finally:
        if own is not None:
            own.shutdown()
        bar.close()
    total = results[0]
    for r in results[1:]:
        total = total.merge(r)
    mean = total.mean_est.reshape(target.shape)
    bias = np.asarray(mean - target)
    mean.flags.writeable = False
    bias.flags.writeable = False
    return SimulationResult(
        mse=total.mean_se,
        variance=float(total.m2_est.sum() / (total.count - 1)),
        bias=float(bias) if scalar_target else bias,
        stderr=float(np.sqrt(total.m2_se / (total.count - 1) / total.count)),
        reps=total.count,
        n=n,
        redrawn=total.redrawn,
        mean=float(mean) if scalar_target else mean,
    )


def simulate_dont_know(p: float, q: float, pi: float, n: int, reps: int = 1000,
                       rng: Any = None, *, seed: Any = NOT_GIVEN, **options: Any
                       ) -> SimulationResult:
    r"""Simulate the paper's experiment for the "don't know" mechanism Q_2x3(p, q)
    (Li et al. 2022, s.4 and s.5 of ``docs/belief_functions.md``).

    Each survey draws ``N ~ Multinomial(n; q1, q2, q3)`` with ``q1 = pi p + (1-pi) q``,
    ``q2 = pi q + (1-pi) p``, ``q3 = 1 - p - q``, redraws it while ``N1 + N2 = 0`` and applies
    the MLE ``(p N1 - q N2) / ((p - q)(N1 + N2))``. The MSE then estimates Thm 3.10's
    conditional variance (:func:`~mechdesign.estimation.variances.variance_dont_know`).

    ``rng`` roots the draws as in :func:`simulate` (``seed=``, its former name, still works
    for one release with a :class:`DeprecationWarning`). ``options`` are passed to
    :func:`simulate` (``chunk_size``, ``workers``, ``executor``, ``progress``). Needs
    ``p + q <= 1`` and ``p != q``.
    """
    rng = renamed_rng(rng, seed, "simulate_dont_know")
    mech = dont_know(p, q).to_mechanism()
    est = partial(estimate_dont_know, p=float(p), q=float(q))
    est(np.zeros((1, 3)))  # validates p != q before any simulation
    return simulate(mech, est, pi, n, reps, rng, **options)
