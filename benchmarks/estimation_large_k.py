"""Estimation design at k = 32 and 64 (column generation) against the best frequency oracle.

What is measured: ``DesignProblem(privacy=LDP(eps), objective=EstimationVariance(prior))
.solve(time_limit=T)`` for k > 16 (the staircase column generation of
``mechdesign/design/engines/pattern_generation.py``: barrier master, local-search pricing, a
certified lower bound from a semidefinite relaxation), for three non-uniform priors and
eps in {0.5, 1, 2}. Per case: wall time of ``solve``, status, certified relative gap, the
design's value (the A criterion: trace of the Cramer-Rao bound per report), and the exact
variance per report of the unbiased inverse estimator of the designed matrix,
``trace(covariance_inverse(Q, prior, 1))`` (what a user deploying the matrix with
``estimate_inverse`` gets; it can be above the Cramer-Rao value because the inverse
estimator of a k x m matrix with m > k is not the efficient one).

Why: the design is only worth deploying if it beats the frequency oracles a user can take
off the shelf. The baseline, computed here side by side in the same process, is the best
oracle at the same prior and eps: the minimum of ``total_variance(prior)`` (the exact
variance per report of the oracle's unbiased estimator) over RandomizedResponse,
UnaryEncoding (symmetric and optimized), HadamardResponse, LocalHashing (g = None) and
SubsetSelection for every d in 1..k-1. ``gain = 1 - design / oracle`` (percent), once with
the design's Cramer-Rao value and once with its inverse estimator's variance;
``ratio = design / oracle``.

Priors: ``zipf`` (p_i proportional to 1/i^1.1), ``geometric`` (p_i proportional to 0.9^i),
``dirichlet`` (Dirichlet(0.5, ..., 0.5) drawn with ``numpy.random.default_rng(seed)``).
Times are wall-clock seconds (``time.perf_counter``). Progress goes to stderr, the table to
stdout at the end. Set ``OPENBLAS_NUM_THREADS=1`` on a shared machine: the master's dense
Newton solves slow down by orders of magnitude when multi-threaded BLAS competes for cores.

    python benchmarks/estimation_large_k.py                 # k = 32 and 64, 18 cases (~1 h)
    python benchmarks/estimation_large_k.py --k 32          # 9 cases, 120 s limit each
    python benchmarks/estimation_large_k.py --k 64 --only-prior zipf --only-eps 1
    python benchmarks/estimation_large_k.py --k 32 --time-limit 30   # quicker, looser
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import mechdesign as md
from mechdesign.oracles.choice import best_oracle

PRIORS = ("zipf", "geometric", "dirichlet")
EPSILONS = (0.5, 1.0, 2.0)
DEFAULT_TIME_LIMIT = {32: 120.0, 64: 300.0}
"""Time limit per solve (seconds) by k; other k get the largest of these."""


@dataclass(frozen=True)
class Case:
    """One measured design and its baseline."""

    k: int
    prior: str
    eps: float
    time_s: float
    status: str
    gap: float | None
    value: float
    inverse_variance: float | None
    oracle: str
    oracle_variance: float
    error: str | None = None

    @property
    def ratio_cr(self) -> float:
        """Design's Cramer-Rao value over the best oracle's variance."""
        return self.value / self.oracle_variance

    @property
    def ratio_inverse(self) -> float | None:
        """Design's inverse-estimator variance over the best oracle's variance."""
        if self.inverse_variance is None:
            return None
        return self.inverse_variance / self.oracle_variance


def make_prior(name: str, k: int, seed: int) -> np.ndarray:
    """The prior ``name`` over k values, normalised to sum 1.

    Parameters
    ----------
    name : str
        ``"zipf"``, ``"geometric"`` or ``"dirichlet"``.
    k : int
        Number of input values.
    seed : int
        Seed of ``numpy.random.default_rng`` for the Dirichlet draw.

    Returns
    -------
    numpy.ndarray
        Probability vector of length k.
    """
    i = np.arange(1, k + 1, dtype=float)
    if name == "zipf":
        p = i ** -1.1
    elif name == "geometric":
        p = 0.9 ** i
    elif name == "dirichlet":
        p = np.random.default_rng(seed).dirichlet(np.full(k, 0.5))
    else:
        raise ValueError(f"unknown prior {name!r}")
    return p / p.sum()


def run_case(k: int, prior_name: str, eps: float, seed: int, time_limit: float) -> Case:
    """Solve one design and compute its baseline.

    Parameters
    ----------
    k : int
        Number of input values.
    prior_name : str
        One of :data:`PRIORS`.
    eps : float
        Privacy parameter of pure LDP.
    seed : int
        Seed of the Dirichlet prior.
    time_limit : float
        ``time_limit`` of ``DesignProblem.solve`` (seconds).

    Returns
    -------
    Case
        The measurements; on an exception, ``error`` holds it and the design fields are NaN.
    """
    prior = make_prior(prior_name, k, seed)
    best, oracle_var = best_oracle(prior, eps)
    oracle = repr(best)
    problem = md.DesignProblem(privacy=md.LDP(eps), objective=md.EstimationVariance(prior))
    t = time.perf_counter()
    try:
        res = problem.solve(time_limit=time_limit)
    except Exception as exc:  # a failure is a result too, not the end of the run
        return Case(k, prior_name, eps, time.perf_counter() - t, "error", None, math.nan,
                    None, oracle, oracle_var, f"{type(exc).__name__}: {exc}")
    elapsed = time.perf_counter() - t
    inverse: float | None
    try:
        cov = md.estimation.covariance_inverse(res.mechanism, prior, 1)
        inverse = float(np.trace(cov))
    except Exception as exc:  # e.g. a rank-deficient matrix
        print(f"    inverse estimator failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        inverse = None
    status = getattr(res.status, "value", str(res.status))
    return Case(k, prior_name, eps, elapsed, status, res.gap, float(res.value), inverse,
                oracle, oracle_var)


def fmt(x: float | None, spec: str) -> str:
    """``format(x, spec)``, or ``-`` for None or NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, spec)


def gain(ratio: float | None) -> str:
    """``1 - ratio`` in percent with the ratio beside it, or ``-``."""
    if ratio is None or math.isnan(ratio):
        return "-"
    return f"{100 * (1 - ratio):.2f} (x{ratio:.4f})"


def table(cases: Sequence[Case]) -> str:
    """The markdown table of ``cases``."""
    head = ["k", "prior", "eps", "time s", "status", "certified gap", "design CR value",
            "design inverse-estimator variance", "best oracle", "oracle variance",
            "gain (CR) % (design/oracle)", "gain (inverse estimator) % (design/oracle)"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in cases:
        cells = [str(c.k), c.prior, f"{c.eps:g}", f"{c.time_s:.1f}", c.status,
                 fmt(c.gap, ".2e"), fmt(c.value, ".6g"), fmt(c.inverse_variance, ".6g"),
                 c.oracle, f"{c.oracle_variance:.6g}", gain(c.ratio_cr),
                 gain(c.ratio_inverse)]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options, run every case, print the table."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--k", type=int, nargs="+", default=[32, 64],
                    help="numbers of input values (default 32 64)")
    ap.add_argument("--only-prior", nargs="+", choices=PRIORS, default=list(PRIORS),
                    help="priors to run (default all)")
    ap.add_argument("--only-eps", type=float, nargs="+", default=list(EPSILONS),
                    help="epsilons to run (default 0.5 1 2)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the Dirichlet prior")
    ap.add_argument("--time-limit", type=float, default=None,
                    help="seconds per solve (default 120 at k = 32, 300 at k = 64)")
    args = ap.parse_args(argv)

    cases: list[Case] = []
    total = len(args.k) * len(args.only_prior) * len(args.only_eps)
    for k in args.k:
        limit = args.time_limit or DEFAULT_TIME_LIMIT.get(k, max(DEFAULT_TIME_LIMIT.values()))
        for prior_name in args.only_prior:
            for eps in args.only_eps:
                print(f"[{len(cases) + 1}/{total}] k={k} prior={prior_name} eps={eps:g} "
                      f"time_limit={limit:g} s ...", file=sys.stderr, flush=True)
                c = run_case(k, prior_name, eps, args.seed, limit)
                cases.append(c)
                if c.error:
                    print(f"    error after {c.time_s:.1f} s: {c.error}", file=sys.stderr,
                          flush=True)
                    continue
                print(f"    {c.time_s:.1f} s, {c.status}, gap {fmt(c.gap, '.2e')}, "
                      f"CR {c.value:.6g}, inverse {fmt(c.inverse_variance, '.6g')}, "
                      f"oracle {c.oracle} {c.oracle_variance:.6g}, "
                      f"gain CR {gain(c.ratio_cr)}, inverse {gain(c.ratio_inverse)}",
                      file=sys.stderr, flush=True)
    print(f"\nEstimation design (A criterion, pure LDP) vs the best frequency oracle, "
          f"seed {args.seed}; gain = 1 - design / oracle\n")
    print(table(cases))
    for c in cases:
        if c.error:
            print(f"\nk={c.k} {c.prior} eps={c.eps:g}: {c.error}")


if __name__ == "__main__":
    main()
