"""Timing side channel of the deployment sampler: the constant-work ExactSampler against the
per-row bisection sampler it replaced (``mechdesign.testing.timing.BisectionSampler``), side
by side.

For each mechanism and each pair of rows, single calls ``sample(x)`` are timed in a random
interleaved order and a threshold classifier guesses the row from the time
(``mechdesign.testing.timing``); 50% is chance. Also the mean time per call of both.

    python benchmarks/sampler_timing.py [--n 20000]
"""

from __future__ import annotations

import argparse

import numpy as np

import mechdesign as md
from mechdesign.testing.timing import BisectionSampler, threshold_accuracy, time_calls


def mechanisms() -> dict[str, md.Mechanism]:
    designed = md.DesignProblem(md.LDP(2.0), md.ExpectedLoss(md.losses.hamming(2))).solve()
    return {
        "designed LDP(2), k = 2 (solver floats)": designed.mechanism,
        "rows with different binary denominators": md.Mechanism([[0.5, 0.5], [0.1, 0.9]]),
        "randomized_response(4, 1.0), rows 0/1": md.randomized_response(4, 1.0),
        "designed LDP(1), Hamming k = 6, rows 0/5": md.DesignProblem(
            md.LDP(1.0), md.ExpectedLoss(md.losses.hamming(6))).solve().mechanism,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000, help="calls per row (default 20000)")
    args = ap.parse_args()
    sigma = (0.25 / args.n) ** 0.5  # test half: n calls in all (n / 2 per row, two rows)
    print(f"single-call timing, {args.n} calls per row, classifier accuracy (chance 0.5, "
          f"s.d. {sigma:.4f}); mean time per call")
    print(f"{'mechanism':44s} {'bisection (baseline)':>22s} {'ExactSampler':>22s}")
    for name, m in mechanisms().items():
        rows = [0, m.n_inputs - 1]
        cells = []
        for sampler in (BisectionSampler(m.matrix), m.exact_sampler):
            times, labels = time_calls(sampler.draw, rows, args.n, rng=7)
            acc = threshold_accuracy(times, labels)
            cells.append(f"{acc:6.3f} {np.mean(times) / 1e3:7.2f} us")
        print(f"{name:44s} {cells[0]:>22s} {cells[1]:>22s}")


if __name__ == "__main__":
    main()
