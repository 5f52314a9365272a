"""The catalog behind a design (:mod:`mechdesign.design.methods.known`).

Pinned: ``oracle_comparison`` names the best frequency oracle at the prior, its exact
estimator variance and the relative difference from the design's value in the right
direction; ``prefer_known`` leaves a certified optimal result alone (and any result with
user constraints or under another notion than pure LDP), and replaces an uncertified design
that a catalog mechanism beats by the better of the best oracle and k-RR (their matrices
evaluated here by the objective), labelled ``catalog``, certified, with the design's bound;
a stopped design at k = 16 is never worse than the catalog, from the CLI too.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import mechdesign as md
from mechdesign.design import DesignProblem, EstimationVariance, Status
from mechdesign.design.engines import pattern_generation as pg
from mechdesign.design.methods.known import oracle_comparison, prefer_known
from mechdesign.oracles import RandomizedResponse
from mechdesign.oracles.choice import best_oracle

PRIOR = np.array([0.5, 0.3, 0.15, 0.05])


def zipf(k: int, s: float = 1.1) -> np.ndarray:
    p = 1.0 / np.arange(1, k + 1) ** s
    return p / p.sum()


@pytest.mark.parametrize("ratio,word", [(0.5, "50% lower"), (1.25, "25% higher")])
def test_the_comparison_note_names_the_best_oracle_and_the_difference(ratio, word):
    oracle, _ = best_oracle(PRIOR, 1.0)
    variance = oracle.total_variance(PRIOR)  # exact, per report
    note = oracle_comparison(EstimationVariance(PRIOR), 1.0, ratio * variance)
    assert repr(oracle) in note and f"{variance:.6g}" in note
    assert word in note and f"{ratio * variance:.6g}" in note


def _uncertified(problem: DesignProblem, value: float) -> md.DesignResult:
    """A real result of ``problem`` relabelled as an uncertified design of ``value``."""
    res = problem.solve()
    return dataclasses.replace(res, status=Status.INACCURATE, value=value, gap=None)


def test_an_uncertified_design_a_catalog_mechanism_beats_is_replaced():
    problem = DesignProblem(md.LDP(1.0), EstimationVariance(PRIOR))
    worse = _uncertified(problem, 1e6)
    out = prefer_known(problem, worse)
    candidates = [best_oracle(PRIOR, 1.0)[0], RandomizedResponse(4, 1.0)]
    best = min(problem.objective.evaluate(o.to_mechanism().matrix) for o in candidates)
    assert out.optimum == "catalog" and out.solver == "catalog"
    assert out.status is Status.INACCURATE and out.certificate.met
    assert out.value == pytest.approx(best, rel=1e-9)
    assert out.formulation.startswith("catalog: ")
    assert any("is returned instead" in n for n in out.notes)
    assert md.epsilon_ldp(out.mechanism) <= 1.0


def test_what_the_catalog_does_not_replace():
    problem = DesignProblem(md.LDP(1.0), EstimationVariance(PRIOR))
    optimal = problem.solve()
    assert optimal.status is Status.OPTIMAL
    assert prefer_known(problem, optimal) is optimal
    better = _uncertified(problem, 1e-3)  # below every catalog mechanism
    assert prefer_known(problem, better) is better
    constrained = DesignProblem(md.LDP(1.0), EstimationVariance(PRIOR),
                                constraints={"c": lambda Q: Q[0, 0] >= 0.1})
    stopped = _uncertified(constrained, 1e6)
    assert prefer_known(constrained, stopped) is stopped  # the catalog ignores constraints
    approx = DesignProblem(md.ApproxLDP(1.0, 1e-3), EstimationVariance(PRIOR))
    stopped = _uncertified(problem, 1e6)
    assert prefer_known(approx, stopped) is stopped  # the catalog is pure eps-LDP
    assert prefer_known(problem, stopped) is not stopped


def test_a_stopped_design_is_never_worse_than_the_catalog(monkeypatch, tmp_path, capsys):
    # Zipf(1.1), k = 16, eps = 1, stopped at the first master (a FakeClock passes the limit,
    # as above): the iterate was 40% worse than SubsetSelection(k=16, d=4), which its own
    # note named, and the CLI printed "optimum global" and exited 0. Now the catalog
    # mechanism is returned, labelled as such, with the design's certified bound as its gap,
    # and the CLI exits 1 (not certified optimal).
    from mechdesign.cli.main import main
    from mechdesign.design.solvers import run as solvers
    from mechdesign.oracles.choice import best_oracle
    from mechdesign.testing.timing import FakeClock

    clock = FakeClock()
    real = pg._master

    def late_master(*args, **kwargs):
        clock.advance(61.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(solvers, "time", clock.time_module())
    monkeypatch.setattr(pg, "_master", late_master)
    prior = zipf(16)
    objective = md.EstimationVariance(prior)
    res = md.DesignProblem(privacy=md.LDP(1.0), objective=objective).solve(time_limit=60.0)
    oracle, _ = best_oracle(prior, 1.0)
    known = objective.evaluate(oracle.to_mechanism().matrix)
    assert res.status is md.design.Status.INACCURATE and res.optimum == "catalog"
    assert res.value <= known * (1 + 1e-9)
    assert repr(oracle) in res.formulation and res.certificate.met
    assert res.gap is not None and 0 < res.gap < 0.05  # the design's bound still applies
    assert md.epsilon_ldp(res.mechanism) <= 1.0
    # the same from the command line: exit status 1, the label printed
    path = tmp_path / "zipf16.toml"
    path.write_text("[privacy]\nnotion = \"ldp\"\nepsilon = 1.0\n[objective]\n"
                    f"kind = \"estimation\"\nprior = {list(map(float, prior))}\n")
    assert main(["solve", str(path), "--time-limit", "60"]) == 1
    captured = capsys.readouterr()
    assert "catalog" in captured.out and "not certified optimal" in captured.err
