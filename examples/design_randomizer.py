"""Job 1: design an optimal randomizer, three ways, each certified.

1. An ordinal attribute (k = 8 ordered values, pure eps-LDP) under the expected absolute
   error: the value, the certified gap, the certificate and the matrix, against k-RR.
2. A location on a small grid under geo-indistinguishability (metric privacy with the
   Euclidean distance, Andres et al. 2013): the expected distance between the true and the
   reported cell, against the best perfectly private report (always the central cell).
3. Frequency estimation at a skewed (Zipf(1.1)) prior: the smallest trace of the Cramer-Rao
   bound per report, against the catalog oracles at the same prior.

Each design's heatmap is written to ``out/design_*.png`` (the folder is created; git ignores
it). ``--fast`` (or ``MECHDESIGN_FAST=1``) runs smaller instances.

    python examples/design_randomizer.py [--fast]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

import mechdesign as md

EPSILON = 1.0
OUT = Path("out")
SHOWN = 1e-6
"""Columns whose largest entry is below this are left out of the printout and heatmaps."""


def used(m: md.Mechanism) -> np.ndarray:
    """The columns with an entry of at least :data:`SHOWN` (a design may use few outputs)."""
    return np.flatnonzero(m.matrix.max(axis=0) >= SHOWN)


def show(m: md.Mechanism, digits: int = 3) -> str:
    """The matrix without its (near-)zero columns."""
    cols = used(m)
    head = f"{m.n_inputs} inputs x {m.n_outputs} outputs"
    if len(cols) < m.n_outputs:
        head += f"; the {len(cols)} with an entry >= {SHOWN:g}"
    body = np.array2string(m.matrix[:, cols], precision=digits, suppress_small=True,
                           max_line_width=100)
    return f"{head}:\n{body}"


def report(title: str, res: md.DesignResult) -> None:
    """Value, status, certified gap and what the certificate measured."""
    c = res.certificate
    print(f"\n== {title}")
    print(f"value {res.value:.10g}   status {res.status}, optimum {res.optimum}, "
          f"certified gap {res.gap:.1e}")
    proved = {True: "yes", False: "no"}.get(c.exact, "not attempted (too large)")
    print(f"certificate: {c.notion}, achieved {c.achieved:.12g} (measured on the returned "
          f"matrix), met {c.met}, proved in rational arithmetic: {proved}")


def heatmap(m: md.Mechanism, title: str, name: str) -> Path:
    """Write the heatmap of ``m`` to ``out/<name>.png``: the columns :func:`show` prints,
    each row renormalised over them (a change below ``m.n_outputs * SHOWN``)."""
    cols = used(m)
    shown = md.Mechanism(m.matrix[:, cols] / m.matrix[:, cols].sum(axis=1, keepdims=True),
                         inputs=m.inputs, outputs=[m.outputs[i] for i in cols], name=m.name)
    path = OUT / f"{name}.png"
    md.plotting.plot_heatmap(shown, title=title).savefig(path, dpi=100)
    print(f"wrote {path}")
    return path


def ordinal(k: int) -> None:
    """Expected absolute error over k ordered values, uniform prior, pure LDP."""
    loss = md.losses.absolute(k)
    res = md.DesignProblem(privacy=md.LDP(EPSILON), objective=md.ExpectedLoss(loss)).solve()
    report(f"ordinal: k = {k}, eps = {EPSILON}, expected absolute error", res)
    krr = md.randomized_response(k, EPSILON).matrix
    krr_value = float(np.mean(np.sum(krr * loss, axis=1)))
    print(f"k-RR at the same eps: {krr_value:.6f} ({krr_value / res.value - 1:.0%} worse)")
    print(show(res.mechanism))
    heatmap(res.mechanism, f"absolute loss, k = {k}, eps = {EPSILON:g}: "
            f"value {res.value:.4f}", f"design_absolute_k{k}")


def location(n: int) -> None:
    """Geo-indistinguishability on an n x n grid, expected Euclidean error."""
    D = md.io.euclidean_grid(n, n)
    res = md.DesignProblem(privacy=md.MetricDP(EPSILON, D), objective=md.ExpectedLoss(D)).solve()
    report(f"location: {n} x {n} grid, eps = {EPSILON} per unit distance, expected distance", res)
    Q = res.mechanism.matrix
    print(f"the best perfectly private report (always the most central cell) costs "
          f"{D.mean(axis=0).min():.4f}; "
          f"P(report = true cell) ranges over [{Q.diagonal().min():.3f}, "
          f"{Q.diagonal().max():.3f}]")
    print(f"metric privacy measured on the matrix: max_(x,x',y) ln(Q[x,y]/Q[x',y]) / d(x,x') "
          f"= {md.epsilon_metric(res.mechanism, D):.12g}")
    heatmap(res.mechanism, f"geo-indistinguishability, {n} x {n} grid, eps = {EPSILON:g}: "
            f"value {res.value:.4f}", f"design_grid_{n}x{n}")


def estimation(k: int) -> None:
    """Trace of the Cramer-Rao bound per report at a Zipf(1.1) prior."""
    prior = 1 / np.arange(1, k + 1) ** 1.1
    prior /= prior.sum()
    res = md.DesignProblem(privacy=md.LDP(EPSILON),
                           objective=md.EstimationVariance(prior)).solve()
    report(f"estimation: k = {k}, Zipf(1.1) prior, eps = {EPSILON}, trace of the "
           "Cramer-Rao bound per report", res)
    d = md.oracles.best_subset_size(k, EPSILON)
    for name, m in (("k-RR", md.randomized_response(k, EPSILON)),
                    (f"subset selection, d = {d}",
                     md.oracles.SubsetSelection(k=k, epsilon=EPSILON, d=d).to_mechanism())):
        trace = md.estimation.cramer_rao(m, prior).trace
        print(f"{name}: {trace:.6f} ({trace / res.value - 1:+.2%})")
    print(show(res.mechanism, digits=2))
    heatmap(res.mechanism, f"estimation at Zipf(1.1), k = {k}, eps = {EPSILON:g}: "
            f"value {res.value:.4f}", f"design_zipf_k{k}")


def main(fast: bool = False) -> None:
    """Run the three designs (smaller ones with ``fast``)."""
    OUT.mkdir(exist_ok=True)
    ordinal(5 if fast else 8)
    location(3 if fast else 4)
    estimation(5 if fast else 8)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fast", action="store_true", help="smaller instances")
    args = parser.parse_args()
    main(fast=args.fast or os.environ.get("MECHDESIGN_FAST") == "1")
