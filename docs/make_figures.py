"""Draw the figures of the README and the documentation site with mechdesign's own plotting
functions, into ``docs/_static/figures/`` (committed, so that GitHub shows them).

The documentation build runs this script (``docs/conf.py``), so the tutorials always embed
the figures of the code they describe; run it by hand after a change to a figure::

    python docs/make_figures.py            # writes docs/_static/figures/*.png
    python docs/make_figures.py OUT_DIR    # elsewhere

Every figure is deterministic (fixed seeds, no timestamp in the PNG), and a file is
rewritten only when its bytes change, so a build leaves a clean checkout clean.

Figures
-------
``design_heatmap.png``
    The pure-LDP optimum for the absolute loss on five ordered values at epsilon = 1
    (README job 1; tutorial 1).
``design_frontier.png``
    The same problem swept over epsilon, beside k-RR and subset selection (tutorial 1).
``custom_lp_frontier.png``
    A custom LP: worst-case absolute error under (epsilon, 1e-3)-LDP with the floor
    ``Q[0, 0] >= 0.6`` and rows 0 and 1 within total variation 0.01, against the same
    design without them (README job 3; tutorial 3).
``fig1.png`` ... ``fig5.png``
    Li et al. (2022)'s Figs 1-5, Warner versus "don't know", at the setting of
    ``mechdesign compare-warner --p 0.6 --q 0.2 --pi 0.3 --n 100 --seed 1``
    (1000 simulated surveys per point; README job 2; tutorial 2).
``privacy_profile.png``
    delta(epsilon) of 1000 uses of binary randomized response at epsilon0 = 0.1, exact,
    with the optimal composition bound (the accounting guide).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

import mechdesign as md

FIGURES = Path(__file__).resolve().parent / "_static" / "figures"
"""Where the figures go by default (``docs/_static/figures``)."""

DPI = 80
"""Resolution of every PNG: small files (each well under 150 KB) that stay legible."""


def save(fig, path: Path) -> bool:
    """Write ``fig`` to ``path`` as a PNG without a timestamp or version tag; leave the file
    untouched when its bytes are the same. Returns whether the file was (re)written."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    data = buf.getvalue()
    if path.is_file() and path.read_bytes() == data:
        return False
    path.write_bytes(data)
    return True


def absolute_loss_problem(epsilon: float = 1.0, k: int = 5) -> md.DesignProblem:
    """Pure epsilon-LDP, expected absolute error ``|x - y|``, uniform prior on ``k`` ordered
    values: the design of README job 1 and tutorial 1."""
    return md.DesignProblem(privacy=md.LDP(epsilon),
                            objective=md.ExpectedLoss(md.losses.absolute(k), np.full(k, 1 / k)))


def design_figures() -> dict[str, object]:
    """The heatmap of the optimum at epsilon = 1 and the frontier over epsilon in
    [0.1, 4], with the catalog families drawn beside it."""
    from mechdesign.frontier import comparison_families, frontier

    res = absolute_loss_problem().solve()
    heatmap = md.plotting.plot_heatmap(res, title="absolute loss, k = 5, LDP, eps = 1")
    problem = absolute_loss_problem()
    sweep = frontier(problem, np.linspace(0.1, 4, 40))
    curve = md.plotting.plot_frontier(sweep, comparison_families(problem, sweep.epsilons),
                                      problem=problem)
    return {"design_heatmap.png": heatmap, "design_frontier.png": curve}


def floor(Q):
    """The first input is reported truthfully with probability at least 0.6."""
    return Q[0, 0] >= 0.6


def near_0_1(Q):
    """Inputs 0 and 1 are nearly indistinguishable: the total variation distance between
    their rows is at most 0.01 (a hockey-stick sum at epsilon 0, written with atoms)."""
    import cvxpy as cp

    return cp.sum(cp.pos(Q[0] - Q[1])) <= 0.01


def custom_lp_figures() -> dict[str, object]:
    """The custom LP of README job 3 swept over epsilon, with and without its two
    constraints."""
    from mechdesign.frontier import frontier

    L, epsilons = md.losses.absolute(4), np.linspace(0.1, 3, 30)

    def problem(constraints):
        return md.DesignProblem(md.ApproxLDP(epsilon=0.5, delta=1e-3), md.WorstCaseLoss(L),
                                constraints=constraints)

    mine = frontier(problem({"floor": floor, "near_0_1": near_0_1}), epsilons)
    without = frontier(problem({}), epsilons)
    fig = md.plotting.plot_frontier(
        mine, {"without the two constraints": without.values},
        title=r"worst-case absolute error, $(\varepsilon, 10^{-3})$-LDP, k = 4," "\n"
              r"$Q[0,0] \geq 0.6$, $\mathrm{TV}(Q[0], Q[1]) \leq 0.01$",
        ylabel="worst-case expected |x - y|")
    return {"custom_lp_frontier.png": fig}


def warner_figures() -> dict[str, object]:
    """Figs 1-5 of Li et al. (2022) at the setting of ``mechdesign compare-warner --p 0.6
    --q 0.2 --pi 0.3 --n 100 --seed 1`` (the paper's grids, 1000 surveys per point)."""
    from mechdesign.studies import compare_warner

    c = compare_warner(0.6, 0.2, pi=0.3, n=100, reps=1000, rng=1)
    return md.plotting.make_figures(c)


def accounting_figures() -> dict[str, object]:
    """The exact privacy profile of 1000 uses of RR(0.1) with the optimal bound."""
    comp = md.compose([md.randomized_response(2, 0.1)], k=1000)
    fig = md.plotting.plot_privacy_profile(comp, epsilon0=0.1,
                                           title="1000 uses of binary RR(0.1)")
    return {"privacy_profile.png": fig}


MAKERS: tuple[Callable[[], dict[str, object]], ...] = (
    design_figures, custom_lp_figures, warner_figures, accounting_figures)
"""Each returns ``{file name: matplotlib Figure}``."""


def main(out_dir: str | Path = FIGURES) -> list[Path]:
    """Draw every figure into ``out_dir`` (created if needed); returns the files that
    changed."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    changed = []
    for make in MAKERS:
        for name, fig in make().items():
            if save(fig, out / name):
                changed.append(out / name)
    return changed


if __name__ == "__main__":
    for path in main(*sys.argv[1:2]):
        print(f"wrote {path}")
