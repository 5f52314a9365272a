r"""Warner versus "don't know", everything ``mechdesign compare-warner`` reports, as one record.

For one Q_2x3(p, q) (Li et al. 2022, s.4 of ``docs/belief_functions.md``): the Shafer, Walley
and optimal trade-offs with the exact and the approximate A of Thm 3.10, the Q_lambda
mechanisms of Fig. 5, and simulated MSEs with standard errors; then the same on the (c, eps)
grid of Figs 1-2 and the (n, eps) grid of Fig. 3. :func:`compare_warner` computes it;
:func:`mechdesign.studies.figures.write_figures` draws it; the command and
``examples/warner_vs_dont_know.py`` only format it.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from .._progress import Progress, ProgressArg
from .._validation import NOT_GIVEN, check_int, check_probability, renamed_rng
from ..errors import InvalidParameterError
from ..estimation.dont_know import DontKnowAnalysis, dont_know_analysis, epsilon_q_lambda
from ..estimation.simulation import SimulationResult, as_seed_sequence, simulate_dont_know
from ..estimation.variances import variance_dont_know, variance_q_lambda
from .figure_data import (
    FIGURE3_DONT_KNOW,
    FIGURE3_N,
    FIGURE_C,
    FIGURE_EPSILONS,
    FIGURE_N,
    FIGURE_PI,
    PathPoint,
    ShaferPoint,
    shafer_grid,
    simulate_path,
)

__all__ = [
    "PATH_LAMBDAS",
    "ComparisonRow",
    "WarnerComparison",
    "compare_warner",
]

PATH_LAMBDAS = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Q_lambda mechanisms simulated for the table and Fig. 5."""


@dataclass(frozen=True)
class ComparisonRow:
    """One mechanism of the table: its privacy loss, exact and approximate-A variance and
    (when simulated) the simulation. For Q_lambda both variances are the exact one."""

    mechanism: str
    semantics: str
    epsilon: float
    variance_exact_A: float
    variance_approx_A: float
    simulated: SimulationResult | None

    def __repr__(self) -> str:
        from .._html import number, short_repr
        sim = "" if self.simulated is None else f", simulated mse={number(self.simulated.mse)}"
        return short_repr("ComparisonRow",
                          f"{self.mechanism} ({self.semantics}): epsilon={number(self.epsilon)}"
                          f", variance={number(self.variance_exact_A)} (exact A), "
                          f"{number(self.variance_approx_A)} (approximate A){sim}")


@dataclass(frozen=True, eq=False)
class WarnerComparison:
    r"""Everything ``compare-warner`` reports (see :func:`compare_warner`).

    Attributes
    ----------
    p, q, pi, n, cs, epsilons, fig3_n, fig3_dont_know, reps
        The settings (sequences as tuples).
    seed : int
        The root entropy of the simulations (repeat a run by passing it back as ``rng=``).
    analysis : DontKnowAnalysis
        :func:`~mechdesign.estimation.dont_know.dont_know_analysis` of Q_2x3(p, q).
    rows : tuple of ComparisonRow
        Q_2x3(p, q) read with Shafer's semantics, then Q_lambda at :data:`PATH_LAMBDAS`
        (lambda = 0 is warner(p), lambda = 1 is warner(1 - q)).
    shafer_simulated : SimulationResult or None
        The simulated Q_2x3 estimator (None when ``reps = 0``).
    path : tuple of PathPoint
        The simulated Q_lambda points of Fig. 5 (empty when ``reps = 0``).
    fig12, fig3 : tuple of ShaferPoint
        The grids of Figs 1-2 (every c of ``cs`` at n) and Fig. 3 (``c = 1 - fig3_dont_know``
        at every n of ``fig3_n``), eps in ``epsilons``.
    """

    p: float
    q: float
    pi: float
    n: int
    cs: tuple[float, ...]
    epsilons: tuple[float, ...]
    fig3_n: tuple[int, ...]
    fig3_dont_know: float
    reps: int
    seed: int
    analysis: DontKnowAnalysis
    rows: tuple[ComparisonRow, ...]
    shafer_simulated: SimulationResult | None
    path: tuple[PathPoint, ...]
    fig12: tuple[ShaferPoint, ...]
    fig3: tuple[ShaferPoint, ...]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        from .._html import number, short_repr
        return short_repr("WarnerComparison",
                          f"Q_2x3(p={number(self.p)}, q={number(self.q)}), pi={number(self.pi)}"
                          f", n={self.n}, reps={self.reps}, seed={self.seed}: "
                          f"{len(self.rows)} rows, {len(self.path)} path points, "
                          f"{len(self.fig12)} + {len(self.fig3)} figure points")

    def _repr_html_(self) -> str:
        """The table of ``compare-warner`` (notebooks)."""
        from .._html import series_table, wrap
        rows = self.rows
        columns = [("mechanism", [r.mechanism for r in rows]),
                   ("semantics", [r.semantics for r in rows]),
                   ("epsilon", [r.epsilon for r in rows]),
                   ("variance (exact A)", [r.variance_exact_A for r in rows]),
                   ("variance (approximate A)", [r.variance_approx_A for r in rows]),
                   ("simulated MSE", ["-" if r.simulated is None else r.simulated.mse
                                      for r in rows])]
        return wrap(series_table(columns, f"Warner versus Q_2x3(p={self.p!r}, q={self.q!r}), "
                                          f"pi={self.pi!r}, n={self.n}", limit=len(rows)))


def compare_warner(p: float = 0.6, q: float = 0.2, pi: float = FIGURE_PI, n: int = FIGURE_N,
                   cs: Sequence[float] = FIGURE_C,
                   epsilons: Sequence[float] = FIGURE_EPSILONS,
                   fig3_n: Sequence[int] = FIGURE3_N,
                   fig3_dont_know: float = FIGURE3_DONT_KNOW, reps: int = 1000,
                   rng: Any = None, *, workers: int = 1,
                   progress: ProgressArg = False, seed: Any = NOT_GIVEN) -> WarnerComparison:
    r"""Warner versus "don't know": closed forms and simulations behind ``compare-warner``.

    Parameters
    ----------
    p, q : float
        The single mechanism Q_2x3(p, q) (``0 <= q < p``, ``p + q <= 1``; at ``p <= 1/2`` the
        Walley and optimal readings are flagged degenerate, and the uninformative Q_lambda,
        if on the path, is not simulated; see
        :func:`~mechdesign.estimation.dont_know.dont_know_analysis`).
    pi, n : float, int
        True proportion and survey size (defaults: the paper-silent choices 0.3 and 100).
    cs, epsilons : sequences of float
        The grid of Figs 1-2: ``c = p + q`` in (0, 1] and Shafer losses eps > 0.
    fig3_n, fig3_dont_know : sequence of int, float
        Fig. 3: survey sizes, and the fixed "don't know" probability ``1 - p - q`` in [0, 1).
    reps : int
        Simulated surveys per point (0: closed forms only, else >= 2).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Root of the simulations (see
        :func:`~mechdesign.estimation.simulation.as_seed_sequence`): its four children seed
        the Q_2x3 simulation, the Q_lambda path, the Figs 1-2 grid and the Fig. 3 grid
        (``None``: fresh entropy, recorded in the result's ``seed``).
    workers : int
        Processes shared by every simulation (one pool; results do not depend on it).
    progress : bool or callable
        ``True``: ``compare-warner: i/N simulated points`` on stderr after each simulated
        point (one line rewritten on a terminal, plain lines at most once a second
        otherwise); a callable is called as ``progress(i, N)``.
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        The former name of ``rng``: still works for one release, with a
        :class:`DeprecationWarning`.

    Returns
    -------
    WarnerComparison
    """
    rng = renamed_rng(rng, seed, "compare_warner")
    p = check_probability(p, "p")
    q = check_probability(q, "q")
    pi = check_probability(pi, "pi")
    n = check_int(n, "n", 1)
    reps = check_int(reps, "reps", 0)
    if reps == 1:
        raise InvalidParameterError("reps must be 0 (no simulation) or >= 2, got 1")
    workers = check_int(workers, "workers", 1)
    fig3_dont_know = check_probability(fig3_dont_know, "fig3_dont_know")
    if fig3_dont_know >= 1:
        raise InvalidParameterError(f"fig3_dont_know must lie in [0, 1), got {fig3_dont_know!r}")
    cs, epsilons = tuple(float(c) for c in cs), tuple(float(e) for e in epsilons)
    fig3_n = tuple(check_int(v, "fig3_n", 1) for v in fig3_n)
    root = as_seed_sequence(rng)
    seeds = root.spawn(4)
    analysis = dont_know_analysis(p, q, pi, n)
    total = (1 + len(PATH_LAMBDAS) + len(epsilons) * (len(cs) + len(fig3_n))) if reps else 0
    shafer = None
    path: tuple[PathPoint, ...] = ()
    # one process pool for every simulation (each call would otherwise start its own)
    with ExitStack() as stack:
        bar = stack.enter_context(Progress("compare-warner", total,
                                           progress if total else False,
                                           unit="simulated points"))
        tick = bar.update
        sim: dict[str, Any] = {}
        if workers > 1:
            sim["executor"] = stack.enter_context(ProcessPoolExecutor(workers))
        if reps:
            shafer = simulate_dont_know(p, q, pi, n, reps, seeds[0], **sim)
            tick()
            path = simulate_path(analysis, PATH_LAMBDAS, reps, seeds[1], on_point=tick, **sim)
        fig12 = shafer_grid(cs, epsilons, pi, n, reps, seeds[2], on_point=tick, **sim)
        fig3 = shafer_grid([1.0 - fig3_dont_know], epsilons, pi, fig3_n, reps, seeds[3],
                           on_point=tick, **sim)

    rows = [ComparisonRow(f"Q_2x3({p:g}, {q:g})", "Shafer", analysis.epsilon_shafer,
                          analysis.variance_shafer,
                          float(variance_dont_know(p, q, pi, n, exact=False)), shafer)]
    by_lam = {pt.lam: pt for pt in path}
    labels = {0.0: ("Q_0 = warner(p)", "Walley (nu^W) / optimal eps^O"),
              1.0: ("Q_1 = warner(1-q)", "Walley eps^W / optimal (nu^O)")}
    for lam in PATH_LAMBDAS:
        mech, sem = labels.get(lam, (f"Q_lambda, lambda = {lam:g}", "Walley completion"))
        var = float(variance_q_lambda(p, q, lam, pi, n))
        pt = by_lam.get(lam)
        rows.append(ComparisonRow(mech, sem, float(epsilon_q_lambda(p, q, lam)), var, var,
                                  pt.simulated if pt else None))
    return WarnerComparison(
        p=p, q=q, pi=pi, n=n, cs=cs, epsilons=epsilons, fig3_n=fig3_n,
        fig3_dont_know=fig3_dont_know, reps=reps, seed=root.entropy, analysis=analysis,
        rows=tuple(rows), shafer_simulated=shafer, path=path, fig12=fig12, fig3=fig3)
