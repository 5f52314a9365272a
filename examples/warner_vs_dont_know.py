"""Warner versus "don't know" from Python: what `mechdesign compare-warner --out DIR` does.

A survey statistician choosing between "lie with probability q" (Warner) and "say I don't
know" (Q_2x3 of Li et al. 2022) wants, for their own p, q, pi and n: the privacy under both
semantics, the exact variance of the estimate, a simulation that confirms it, and figures.

    python examples/warner_vs_dont_know.py [OUT_DIR]      (default: ./warner_figures)
"""

from __future__ import annotations

import sys
from pathlib import Path

import mechdesign as md
from mechdesign.analysis.dont_know import (
    FIGURE3_DONT_KNOW,
    FIGURE3_N,
    FIGURE_C,
    FIGURE_EPSILONS,
    dont_know_analysis,
    shafer_grid,
    simulate_path,
)
from mechdesign.analysis.estimation import cramer_rao, variance_dont_know
from mechdesign.analysis.simulation import simulate_dont_know
from mechdesign.plotting import figure_1, figure_2, figure_3, figure_5

P, Q, PI, N, REPS, SEED = 0.6, 0.2, 0.3, 100, 1000, 2022


def main(out_dir: str = "warner_figures") -> None:
    # 1. privacy and exact accuracy of one "don't know" design, three readings
    a = dont_know_analysis(P, Q, pi=PI, n=N)
    print(f"Q_2x3(p={P}, q={Q}), pi={PI}, n={N}")
    print(f"  Shafer : eps = {a.epsilon_shafer:.4f}  nu = {a.variance_shafer:.6g} "
          f"(Thm 3.10, exact A = {a.inverse_moment:.6g}; seed's approximation gives "
          f"{variance_dont_know(P, Q, PI, N, exact=False):.6g})")
    print(f"  Walley : eps = {a.epsilon_walley:.4f}  nu = {a.variance_walley:.6g}")
    print(f"  optimal: eps = {a.epsilon_optimal:.4f}  nu = {a.variance_optimal:.6g}")
    print(f"  Cramer-Rao bound / n: {cramer_rao(md.dont_know(P, Q), PI).matrix[0, 0] / N:.6g}")

    # 2. a simulation that confirms it (1000 surveys; a million respondents each is as fast)
    sim = simulate_dont_know(P, Q, PI, N, reps=REPS, seed=SEED)
    z = (sim.mse - a.variance_shafer) / sim.stderr
    print(f"  simulated MSE {sim.mse:.6g} +- {sim.stderr:.2g} (z = {z:+.2f}, "
          f"{sim.redrawn} surveys redrawn)")
    big = simulate_dont_know(P, Q, PI, 10**6, reps=REPS, seed=SEED)
    print(f"  n = 10^6: simulated {big.mse:.4g} vs exact "
          f"{variance_dont_know(P, Q, PI, 10**6):.4g}")

    # 3. the paper's figures, closed form plus simulated points with error bars
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    grid = shafer_grid(FIGURE_C, FIGURE_EPSILONS, PI, N, REPS, seed=SEED)
    fig3 = shafer_grid([1 - FIGURE3_DONT_KNOW], FIGURE_EPSILONS, PI, FIGURE3_N, REPS,
                       seed=SEED + 1)
    path = simulate_path(a, [0.0, 0.25, 0.5, 0.75, 1.0], REPS, seed=SEED + 2)
    figs = {"fig1.png": figure_1(grid, PI), "fig2.png": figure_2(grid, PI),
            "fig3.png": figure_3(fig3, PI), "fig5.png": figure_5(a, path, sim)}
    for name, fig in figs.items():
        fig.savefig(out / name, dpi=120)
        print(f"wrote {out / name}")
    # Fig. 4 (trade-off functions) needs mechdesign.analysis.tradeoff: see
    # mechdesign.commands.compare_warner.figure_4_curves and mechdesign.plotting.figure_4.


if __name__ == "__main__":
    main(*sys.argv[1:2])
