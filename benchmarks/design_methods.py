"""One design per method family, for before/after timings of a change to the design wing.

Usage (the numbers of the last run are in ``benchmarks/README.md``, "The design wing in
rooms")::

    git worktree add /tmp/before <commit>
    cd /tmp && farm-bench -n 5 --timeout 300 \\
        --vs "sh -c 'BEFORE=/tmp/before exec python $REPO/benchmarks/design_methods.py program'" \\
        -- python $REPO/benchmarks/design_methods.py program

With ``BEFORE=DIR`` the package is imported from the checkout ``DIR`` instead of the
installed one (run it from outside the repository, so the current folder does not shadow
it). Each run prints the family, the status, the optimal value (to 12 digits: the two trees
must agree) and the seconds.

Families: ``program`` (the global LP, HiGHS, k = 40 absolute loss), ``working_set`` (pure
LDP by cutting planes, k = 400), ``metric`` (an 8 x 8 Euclidean grid, Clarabel),
``staircase`` (estimation at a Zipf(1.1) prior, k = 6) and ``approx`` (approximate LDP,
worst-case loss, k = 12).
"""

import os
import sys
import time

if os.environ.get("BEFORE"):  # import the package from another checkout
    sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
    sys.path.insert(0, os.environ["BEFORE"])

import numpy as np

import mechdesign as md
from mechdesign.io.problems import euclidean_grid


def design(which: str) -> md.DesignResult:
    """The design of family ``which`` (see the module docstring)."""
    if which == "program":
        return md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(md.losses.absolute(40))).solve()
    if which == "working_set":
        return md.DesignProblem(md.LDP(1.0), md.ExpectedLoss(md.losses.absolute(400))).solve()
    if which == "metric":
        notion = md.MetricDP(0.5, euclidean_grid(8, 8))
        return md.DesignProblem(notion, md.ExpectedLoss(md.losses.absolute(64))).solve()
    if which == "staircase":
        prior = np.arange(1, 7) ** -1.1
        return md.DesignProblem(md.LDP(1.0), md.EstimationVariance(prior / prior.sum())).solve()
    if which == "approx":
        return md.DesignProblem(md.ApproxLDP(1.0, 1e-3),
                                md.WorstCaseLoss(md.losses.absolute(12))).solve()
    raise SystemExit(f"unknown family {which!r}: program, working_set, metric, staircase, "
                     "approx")


if __name__ == "__main__":
    for name in sys.argv[1:] or ["program"]:
        t0 = time.perf_counter()
        res = design(name)
        print(name, res.status, f"{res.value:.12g}", f"{time.perf_counter() - t0:.2f} s")
