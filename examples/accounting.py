"""Accounting: compose, calibrate, amplify by shuffling and by subsampling.

A randomizer used many times, or by many shuffled users, or on a random sample, has a
central (epsilon, delta) guarantee; mechdesign computes it exactly for finite mechanisms
(from the privacy-loss atoms, in log space), beside the closed-form theorems it improves on:

1. compose: 1000 uses of binary randomized response at eps0 = 0.1, exactly, against the
   advanced composition theorem and Kairouz-Oh-Viswanath's optimal bound (tight here), and
   the privacy profile delta(eps) drawn to ``out/accounting_profile.png``;
2. calibrate: the largest eps0 for which 1000 uses stay (1, 1e-6)-DP, and the number of
   shuffled users that makes 4-LDP reports (0.5, 1e-6)-DP, each with the next value, which
   misses;
3. amplify by shuffling: the clone bound for n = 10^5 users, and the exact privacy of n
   shuffled reports of a finite randomizer (small n);
4. amplify by subsampling: the subsampled randomizer as a matrix, its exact epsilon against
   ln(1 + p(e^eps - 1)), and 100 subsampled uses composed exactly.

``--fast`` (or ``MECHDESIGN_FAST=1``) uses fewer users for the exact shuffle.

    python examples/accounting.py [--fast]
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

import mechdesign as md

OUT = Path("out")
DELTA = 1e-6


def main(fast: bool = False) -> None:
    """Compose, calibrate, shuffle, subsample; print each guarantee beside its bound."""
    OUT.mkdir(exist_ok=True)
    acc = md.accounting

    # 1. compose
    rr = md.randomized_response(2, 0.1)
    k = 1000
    exact = acc.epsilon_composed(rr, DELTA, k=k)
    advanced = acc.advanced_composition(0.1, 0.0, k, DELTA)
    print(f"== {k} uses of RR(eps0 = 0.1), delta = {DELTA:g}")
    print(f"exact composition   eps = {exact.epsilon:.10f}")
    print(f"optimal (KOV) bound eps = {acc.optimal_composition_epsilon(0.1, k, DELTA):.10f}")
    print(f"advanced (DRV)      eps = {advanced.epsilon:.4f} (at delta {advanced.delta:g})")
    print(f"basic               eps = {0.1 * k:g}")
    composition = md.compose(rr, k)
    fig = md.plotting.plot_privacy_profile(composition, epsilon0=0.1,
                                           marks=[(exact.epsilon, DELTA)])
    fig.savefig(OUT / "accounting_profile.png", dpi=100)
    print(f"wrote {OUT / 'accounting_profile.png'}")

    # 2. calibrate
    print("\n== calibrate")
    c = acc.calibrate("epsilon0", target_epsilon=1.0, target_delta=DELTA,
                      mechanism="randomized_response", k=k, params={"k": 2})
    print(f"largest eps0 for {k} uses within (1, {DELTA:g}): {c.bracket[0]!r} "
          f"(the next double, {c.bracket[1]!r}, misses)")
    c = acc.calibrate("n", target_epsilon=0.5, target_delta=DELTA, epsilon0=4.0)
    print(f"shuffled 4-LDP reports are (0.5, {DELTA:g})-DP from n = {c.value} users "
          f"(n = {c.bracket[1]} misses)")

    # 3. amplify by shuffling
    print("\n== shuffling")
    sh = acc.shuffle_epsilon(4.0, 10**5, DELTA)
    print(f"n = 100000 users of any 4-LDP randomizer, shuffled: eps = {sh.epsilon:.8f} "
          f"(FMT21 clone bound, computed exactly)")
    rr1 = md.randomized_response(2, 1.0)
    n = 20 if fast else 50
    ex = acc.exact_shuffle_epsilon(rr1, n, DELTA)
    print(f"n = {n} shuffled reports of RR(1): exact eps = {ex.epsilon:.6f}, "
          f"clone bound {ex.clone_bound:.6f}")

    # 4. amplify by subsampling: report as if the value were 0 when not sampled
    print("\n== subsampling (p = 0.1)")
    p = 0.1
    sub = acc.exact_subsampling_epsilon(rr1, p, rr1.matrix[0])
    print(f"RR(1) on a 10% sample: exact eps = {sub.epsilon:.10f}, "
          f"ln(1 + p(e - 1)) = {math.log1p(p * math.expm1(1.0)):.10f}")
    composed = acc.compose(acc.subsampled_mechanism(rr1, p, rr1.matrix[0]), 100).epsilon(DELTA)
    per_step = acc.optimal_composition_epsilon(sub.bound, 100, DELTA)
    print(f"100 subsampled uses: exact eps = {composed.epsilon:.6f}; the optimal composition "
          f"of the per-use bound gives {per_step:.6f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fast", action="store_true", help="a smaller exact shuffle")
    args = parser.parse_args()
    main(fast=args.fast or os.environ.get("MECHDESIGN_FAST") == "1")
