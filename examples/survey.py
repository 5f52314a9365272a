"""A survey end to end: pick a frequency oracle, sample every respondent's report, estimate
the value frequencies with standard errors and confidence intervals.

A synthetic population of n respondents holds values 0..k-1 drawn from a Zipf(1.1) law.
The analyst, who does not know that law, picks among the catalog's frequency oracles the one
whose exact total variance is smallest at a guessed prior (uniform), then each respondent
randomizes their value on their own device (``oracle.sample``), and the analyst estimates
from the reports alone (``estimate_survey``): unbiased estimates, exact standard errors at
the plug-in frequencies, normal intervals, and a distribution (``post="norm-sub"``).

The reports here are drawn from a seeded generator so that the run repeats; a real survey
leaves ``rng`` at its default (``os.urandom``). Writes ``out/survey_reports.txt`` (the format
of ``mechdesign sample``; the command printed last, ``mechdesign estimate ... --reports``,
gives the same estimates from it) and ``out/survey_estimates.csv``.
``--fast`` (or ``MECHDESIGN_FAST=1``) surveys fewer people over fewer values.

    python examples/survey.py [--fast]
"""

from __future__ import annotations

import argparse
import csv
import os
from pathlib import Path

import numpy as np

import mechdesign as md
from mechdesign.io.survey import format_reports, read_reports
from mechdesign.oracles.survey import estimate_survey

EPSILON, SEED = 1.0, 2024
OUT = Path("out")


def main(fast: bool = False) -> None:
    """Pick, sample, estimate; print the largest values' estimates and the coverage."""
    OUT.mkdir(exist_ok=True)
    k, n = (20, 5_000) if fast else (50, 50_000)
    rng = np.random.default_rng(SEED)

    # the population (unknown to the analyst)
    zipf = 1 / np.arange(1, k + 1) ** 1.1
    values = rng.choice(k, size=n, p=zipf / zipf.sum())
    truth = np.bincount(values, minlength=k) / n

    # 1. pick: the exact total variance of each oracle's estimates at a guessed prior
    guess = np.full(k, 1 / k)
    candidates = [md.oracles.RandomizedResponse(k, EPSILON),
                  md.oracles.UnaryEncoding(k, EPSILON, optimized=True),
                  md.oracles.SubsetSelection(k, EPSILON),
                  md.oracles.HadamardResponse(k, EPSILON),
                  md.oracles.LocalHashing(k, EPSILON)]
    print(f"k = {k} values, n = {n} respondents, eps = {EPSILON}")
    print(f"{'oracle':<52} sum of variances at n (uniform guess)")
    for o in candidates:
        print(f"{o!r:<52} {o.total_variance(guess, n):.6f}")
    oracle = min(candidates, key=lambda o: o.total_variance(guess, n))
    print(f"picked {oracle!r} (exact epsilon {oracle.epsilon_exact:.12g})")

    # 2. sample: one report per respondent
    reports = oracle.sample(values, rng=rng)
    path = OUT / "survey_reports.txt"
    path.write_text(format_reports(oracle, reports), encoding="utf-8")
    assert np.array_equal(read_reports(path, oracle), reports)  # the file reads back
    print(f"wrote {path}")

    # 3. estimate, from the reports alone
    est = estimate_survey(oracle, reports, confidence=0.95, post="norm-sub")
    print("\nvalue  true share  estimate  std error  95% interval          norm-sub")
    for v in range(8):
        print(f"{v:<6} {truth[v]:<11.4f} {est.estimate[v]:<9.4f} {est.standard_error[v]:<10.4f} "
              f"[{est.lower[v]:8.4f}, {est.upper[v]:7.4f}]  {est.adjusted[v]:.4f}")
    covered = int(np.sum((est.lower <= truth) & (truth <= est.upper)))
    print(f"... ({k - 8} more)\nthe intervals cover {covered} of the {k} true shares")
    squared = float(np.sum((est.estimate - truth) ** 2))
    print(f"squared error {squared:.6f}; its expectation over fixed-population surveys "
          f"{oracle.total_variance(truth, n, model='fixed'):.6f}")
    path = OUT / "survey_estimates.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["value", "true_share", "estimate", "standard_error", "lower", "upper",
                    "norm_sub"])
        for v in range(k):
            w.writerow([v, truth[v], est.estimate[v], est.standard_error[v], est.lower[v],
                        est.upper[v], est.adjusted[v]])
    print(f"wrote {path}")

    # the same estimates from the shell
    spec = oracle.to_dict()
    params = " ".join(f"{key}={value}" for key, value in spec.items()
                      if key not in ("kind", "family"))
    print(f"the same from the shell: mechdesign estimate oracle:{spec['family']} {params} "
          f"--reports {OUT / 'survey_reports.txt'} --post norm-sub")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fast", action="store_true", help="a smaller survey")
    args = parser.parse_args()
    main(fast=args.fast or os.environ.get("MECHDESIGN_FAST") == "1")
