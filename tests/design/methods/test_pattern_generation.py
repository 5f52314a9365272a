"""Estimation past the staircase limit as a method
(:mod:`mechdesign.design.methods.pattern_generation`).

Pinned: a design at k = 13 takes the column-generation path, is certified optimal, below
every frequency oracle's exact estimator variance at the prior (its Cramer-Rao value is at
most any mechanism's), and notes the best oracle; a time limit (a FakeClock passing it as
the first master starts) returns the best design so far as inaccurate, certified, with a
note naming the limit.
"""

from __future__ import annotations

import numpy as np

import mechdesign as md
from mechdesign.design.engines import pattern_generation as pg
from mechdesign.oracles import LocalHashing, SubsetSelection


def zipf(k: int, s: float = 1.1) -> np.ndarray:
    p = 1.0 / np.arange(1, k + 1) ** s
    return p / p.sum()


def test_design_problem_takes_the_column_generation_path():
    # k = 13, Zipf prior (from k = 12 with the default solver; the only path past k = 16);
    # every pattern is priced (k <= 22), so the design is certified optimal; its value is
    # below every frequency oracle's
    # estimator variance (its Cramer-Rao value is at most any mechanism's, which is at most
    # that mechanism's unbiased estimator's variance)
    k, eps = 13, 1.0
    res = md.DesignProblem(privacy=md.LDP(eps), objective=md.EstimationVariance(zipf(k))
                           ).solve()
    assert res.formulation.startswith("staircase column generation")
    assert res.certificate.met and res.certificate.achieved <= eps
    assert res.status is md.design.Status.OPTIMAL and res.gap < 1e-6
    f = zipf(k)
    oracles = [LocalHashing(k, eps), *(SubsetSelection(k, eps, d=d) for d in range(1, k))]
    assert res.value <= min(o.total_variance(f) for o in oracles)
    assert any("best frequency oracle" in n for n in res.notes)
    assert res.mechanism.n_inputs == k


def test_time_limit_returns_the_best_design_so_far(monkeypatch):
    # the clock the limit reads (mechdesign.design.solvers.run.time) is a FakeClock that passes
    # the 60 s limit as the first master starts (after the bound; it was a real 3 s limit:
    # on a fast enough machine the design finished first), so the master stops at its first
    # check and the stop is the same on any machine
    from mechdesign.design.solvers import run as solvers
    from mechdesign.testing.timing import FakeClock

    clock = FakeClock()
    masters = []
    real = pg._master

    def late_master(*args, **kwargs):
        masters.append(1)
        clock.advance(61.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(solvers, "time", clock.time_module())
    monkeypatch.setattr(pg, "_master", late_master)
    k = 24
    res = md.DesignProblem(privacy=md.LDP(1.0), objective=md.EstimationVariance(zipf(k))
                           ).solve(time_limit=60.0)
    assert len(masters) == 1
    assert res.status is md.design.Status.INACCURATE
    assert any("time limit" in n for n in res.notes)
    assert res.certificate.met and np.isfinite(res.value)
