"""Warner versus "don't know" from Python: what `mechdesign compare-warner --out DIR` does.

A survey statistician choosing between "lie with probability q" (Warner) and "say I don't
know" (Q_2x3 of Li et al. 2022) wants, for their own p, q, pi and n: the privacy under both
semantics, the exact variance of the estimate, a simulation that confirms it, and figures.
The command and this example call the same two functions:
``mechdesign.studies.warner_comparison.compare_warner`` (every number) and
``mechdesign.studies.figures.write_figures`` (fig1.png ... fig5.png).

``--fast`` (or ``MECHDESIGN_FAST=1``) simulates 100 surveys per point on a smaller grid
instead of 1000 on the paper's.

    python examples/warner_vs_dont_know.py [--fast] [OUT_DIR]   (default: out/warner_figures)
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

import mechdesign as md
from mechdesign.cli.compare_warner import print_comparison
from mechdesign.studies.figure_data import FIGURE3_N, FIGURE_C, FIGURE_EPSILONS
from mechdesign.studies.figures import write_figures
from mechdesign.studies.warner_comparison import compare_warner

P, Q, PI, N, REPS, SEED = 0.6, 0.2, 0.3, 100, 1000, 2022


def main(out_dir: str = "out/warner_figures", *, p: float = P, q: float = Q, pi: float = PI,
         n: int = N, reps: int = REPS, rng: int = SEED,
         cs: Sequence[float] = FIGURE_C, epsilons: Sequence[float] = FIGURE_EPSILONS,
         fig3_n: Sequence[int] = FIGURE3_N, progress: bool = True) -> list[Path]:
    """Compare, print the tables, write the five figures; returns the paths written."""
    # 1. every number of the comparison: the Shafer / Walley / optimal trade-offs of
    #    Q_2x3(p, q) (Thm 3.10 with the exact and the approximate A), the Q_lambda path, the
    #    grids of Figs 1-3, each with `reps` simulated surveys
    c = compare_warner(p, q, pi, n, cs, epsilons, fig3_n, reps=reps, rng=rng,
                       progress=progress)
    print_comparison(c)  # the tables `mechdesign compare-warner` prints

    # 2. the record is plain data: e.g. the three readings of the one mechanism
    a = c.analysis
    crb = md.estimation.cramer_rao(md.dont_know(p, q), pi)
    print(f"\nShafer eps = {a.epsilon_shafer:.4f}, Walley eps = {a.epsilon_walley:.4f}, "
          f"optimal eps = {a.epsilon_optimal:.4f}; exact A = {a.inverse_moment:.6g}; "
          f"Cramer-Rao bound / n = {crb.matrix[0, 0] / n:.6g}")

    # 3. the paper's figures 1-5: closed form plus simulated points with error bars
    written = write_figures(c, out_dir)
    for path in written:
        print(f"wrote {path}")
    return written


FAST = {"reps": 100, "cs": (1.0, 0.9, 0.7, 0.5), "epsilons": (0.5, 1.0, 2.0, 3.0),
        "fig3_n": (10, 100, 1000)}
"""The ``--fast`` setting: fewer simulated surveys per point, a smaller grid."""

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir", nargs="?", default="out/warner_figures")
    parser.add_argument("--fast", action="store_true", help="a quicker, coarser run")
    args = parser.parse_args()
    fast = args.fast or os.environ.get("MECHDESIGN_FAST") == "1"
    main(args.out_dir, **(FAST if fast else {}))
