"""Simulation throughput: respondents per second of mechdesign's survey simulator against
per-respondent baselines, measured side by side in one process.

The experiment is the paper's (Li et al. 2022, s.5 of docs/belief_functions.md): surveys of n
respondents answering Q_2x3(0.6, 0.2) with pi = 0.3, the MLE per survey, the MSE over surveys.

* mechdesign: :func:`mechdesign.estimation.simulation.simulate_dont_know` (one multinomial
  draw per batch of surveys, no loop over respondents or surveys);
* baseline A, a Python loop over respondents (``random.random()`` per respondent);
* baseline B, ``numpy.random.Generator.choice`` once per respondent;
* baseline C, per-respondent draws vectorised (``rng.random(n)`` per survey, then counts):
  the best one can do while still drawing every respondent.

Each baseline runs on a workload small enough to finish in about a second; rates are
respondents per second, so the ratios compare like with like.

    python benchmarks/simulation_throughput.py
"""

from __future__ import annotations

import random
import time

import numpy as np

from mechdesign.estimation.estimators import estimate_dont_know
from mechdesign.estimation.simulation import simulate_dont_know

P, Q, PI = 0.6, 0.2, 0.3
PROBS = np.array([PI * P + (1 - PI) * Q, PI * Q + (1 - PI) * P, 1 - P - Q])
CUM = np.cumsum(PROBS)


def timed(fn, *args) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def baseline_python_loop(n: int, reps: int, seed: int) -> float:
    rnd = random.Random(seed)
    c1, c2 = float(CUM[0]), float(CUM[1])
    ests = []
    for _ in range(reps):
        counts = [0, 0, 0]
        for _ in range(n):
            u = rnd.random()
            counts[0 if u < c1 else 1 if u < c2 else 2] += 1
        ests.append(estimate_dont_know(counts, P, Q))
    return float(np.nanmean((np.array(ests) - PI) ** 2))


def baseline_numpy_choice(n: int, reps: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    ests = []
    for _ in range(reps):
        counts = np.zeros(3, dtype=np.int64)
        for _ in range(n):
            counts[rng.choice(3, p=PROBS)] += 1
        ests.append(estimate_dont_know(counts, P, Q))
    return float(np.nanmean((np.array(ests) - PI) ** 2))


def baseline_vectorised_per_respondent(n: int, reps: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    ests = []
    for _ in range(reps):
        answers = np.searchsorted(CUM, rng.random(n), side="right")
        ests.append(estimate_dont_know(np.bincount(answers, minlength=3)[:3], P, Q))
    return float(np.nanmean((np.array(ests) - PI) ** 2))


def ours(n: int, reps: int, seed: int) -> float:
    return simulate_dont_know(P, Q, PI, n, reps=reps, rng=seed).mse


def main() -> None:
    cases = [
        ("mechdesign simulate_dont_know", ours, 10**6, 1000),
        ("A: Python loop per respondent", baseline_python_loop, 10**5, 10),
        ("B: numpy choice per respondent", baseline_numpy_choice, 10**3, 10),
        ("C: vectorised per-respondent draws", baseline_vectorised_per_respondent, 10**6, 5),
    ]
    ours(100, 10, 0)  # warm-up (imports, first allocation)
    rates = []
    print(f"{'method':38s} {'n':>9s} {'surveys':>8s} {'seconds':>9s} {'respondents/s':>15s}")
    for label, fn, n, reps in cases:
        best = min(timed(fn, n, reps, 1)[0] for _ in range(3 if fn is ours else 1))
        rate = n * reps / best
        rates.append(rate)
        print(f"{label:38s} {n:9d} {reps:8d} {best:9.4f} {rate:15.3g}")
    print()
    for (label, *_), rate in zip(cases[1:], rates[1:], strict=True):
        print(f"mechdesign / {label.split(':')[0]}: {rates[0] / rate:,.0f}x")
    t, _ = timed(ours, 10**6, 1000, 2)
    print(f"\n1000 surveys of 10^6 respondents (target: well under 1 s): {t:.4f} s")


if __name__ == "__main__":
    main()
