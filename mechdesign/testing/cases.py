"""Random design problems for the fuzz harness (:mod:`mechdesign.testing.fuzz`): the case
record, the seeded generator over every notion, objective and range, and the builder that
turns a case into a :class:`~mechdesign.design.problem.DesignProblem`."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import networkx as nx
import numpy as np

from .. import catalog
from ..design.objectives import (
    EstimationVariance,
    ExpectedLoss,
    MutualInformation,
    WorstCaseLoss,
)
from ..design.problem import DesignProblem
from ..privacy import measures
from ..privacy.notions import LDP, SLDP, WLDP, ApproxLDP, DeletionLDP, MetricDP

__all__ = [
    "Built",
    "Case",
    "build",
    "case_from_seed",
    "relation_pairs",
]

NOTION_KINDS = ("ldp", "approx_ldp", "deletion_ldp", "deletion_ldp_delta", "metric_matrix",
                "metric_graph", "metric_spanner", "sldp_mass", "sldp_pl", "sldp_bel", "wldp",
                "wldp_walley")
OBJECTIVE_KINDS = ("expected_loss", "worst_case_loss", "mutual_information", "estimation_A",
                   "estimation_D", "estimation_E", "custom")
EVIDENTIAL = ("sldp_mass", "sldp_pl", "sldp_bel", "wldp", "wldp_walley")
INFORMATION = ("mutual_information", "estimation_A", "estimation_D", "estimation_E")
LOSS_KINDS = ("moderate", "wide", "signed", "signed_wide", "scaled")
MATRIX_DISTANCES = ("euclidean", "asymmetric", "triangle", "partial")
REFERENCE_OBJECTIVES = ("expected_loss", "worst_case_loss")
TOL = measures.EPSILON_TOL
LABELS = "abc"


@dataclass(frozen=True)
class Case:
    """One random design problem; every random array is drawn from ``seed``.

    The defaults of the last five fields are the ranges of the first fuzz (a case built
    with them draws the same arrays as before).
    """

    notion: str
    objective: str
    k: int
    m: int  # outputs; for evidential notions, output labels (the messages are all subsets)
    eps: float
    delta: float
    seed: int
    eps_kind: str = "range"  # "range" or "near_max" (the catalog's largest epsilon)
    loss: str = "moderate"  # one of LOSS_KINDS
    loss_scale: float = 1.0  # common factor of a "scaled" loss
    prior_zeros: int = 0  # prior entries set to exactly 0
    distance: str = "euclidean"  # MATRIX_DISTANCES, "graph" for metric_graph, "pairs"
    # for approx_ldp on a random neighbour relation (a path through the inputs plus random
    # pairs), "none" otherwise




# ------------------------------------------------------------------------------ generator
def case_from_seed(seed: int) -> Case:
    """A reproducible case over the ranges of the module docstring (notion and objective
    uniform; k, m, epsilon, delta, loss kind, prior zeros and distance kind drawn in turn)."""
    rng = np.random.default_rng([seed, 7])
    notion = NOTION_KINDS[rng.integers(len(NOTION_KINDS))]
    objective = OBJECTIVE_KINDS[rng.integers(len(OBJECTIVE_KINDS))]
    k = int(rng.integers(2, 6))
    m = int(rng.integers(2, 4)) if notion in EVIDENTIAL else int(rng.integers(2, 6))
    if rng.random() < 0.1:
        eps_kind = "near_max"
        top = catalog.max_epsilon("randomized_response", k=k)
        eps = top if rng.random() < 0.25 else top - float(10 ** rng.uniform(-6, 1))
    else:
        eps_kind = "range"
        eps = float(10 ** rng.uniform(-3, math.log10(20)))
    delta = 0.0 if rng.random() < 0.1 else float(10 ** rng.uniform(-12, math.log10(0.5)))
    loss = LOSS_KINDS[rng.integers(len(LOSS_KINDS))]
    scale = float(10 ** rng.uniform(-12, 12)) if loss == "scaled" else 1.0
    zeros = int(rng.integers(1, k)) if rng.random() < 0.3 else 0
    distance = MATRIX_DISTANCES[rng.integers(len(MATRIX_DISTANCES))]
    if notion == "metric_graph":
        distance = "graph"
    uses_loss = objective not in INFORMATION
    uses_prior = objective in ("expected_loss", *INFORMATION)
    if not notion.startswith("metric"):
        distance = "none"
    # drawn last, so every other field of every seed is what it was before relations
    if notion == "approx_ldp" and rng.random() < 0.5:
        distance = "pairs"
    return Case(notion, objective, k, m, eps, delta, seed, eps_kind,
                loss if uses_loss else "none", scale if uses_loss else 1.0,
                zeros if uses_prior else 0, distance)


# ------------------------------------------------------------------------------ building
def _prior(rng: np.random.Generator, k: int, zeros: int = 0) -> np.ndarray:
    w = 10 ** rng.uniform(-6, 0, size=k)  # weights spanning 1e-6 to 1
    if zeros:
        w[rng.choice(k, size=zeros, replace=False)] = 0.0
    return w / w.sum()


def _loss(rng: np.random.Generator, k: int, n: int, kind: str = "moderate",
          scale: float = 1.0) -> np.ndarray:
    if kind == "moderate":
        return 10 ** rng.uniform(-3, 3, size=(k, n))  # entries spanning 1e-3 to 1e3
    if kind in ("wide", "signed_wide"):
        L = 10 ** rng.uniform(-12, 12, size=(k, n))
    elif kind == "signed":
        L = 10 ** rng.uniform(-3, 3, size=(k, n))
    else:  # "scaled": a 0/1 loss or a moderate one, times a common factor
        if rng.random() < 0.5:
            L = (np.arange(k)[:, None] != np.arange(n)[None, :]).astype(float)
        else:
            L = 10 ** rng.uniform(-3, 3, size=(k, n))
        return L * scale
    if kind.startswith("signed"):
        L = L * rng.choice([-1.0, 1.0], size=(k, n))
    return L


def _points(rng: np.random.Generator, k: int, kind: str = "euclidean") -> np.ndarray:
    P = rng.uniform(0, 3, size=(k, 2))
    D = np.hypot(*(P[:, None, :] - P[None, :, :]).transpose(2, 0, 1))
    if kind == "euclidean":
        return D  # the first fuzz's metric (no extra draw)
    off = ~np.eye(k, dtype=bool)
    if kind == "asymmetric":  # each ordered pair moved by a factor in [1/3, 3]
        D = D * 10 ** rng.uniform(-0.5, 0.5, size=(k, k))
    elif kind == "triangle":  # independent symmetric entries: the triangle inequality breaks
        R = 10 ** rng.uniform(-2, 1, size=(k, k))
        D = np.triu(R, 1) + np.triu(R, 1).T
    elif kind == "partial":  # some pairs unconstrained
        cut = np.triu(rng.random((k, k)) < 0.4, 1)
        D = np.where(cut | cut.T, np.inf, D * float(10 ** rng.uniform(-1, 1)))
    D[~off] = 0.0
    return D


def _graph(rng: np.random.Generator, k: int, wide: bool = False) -> nx.Graph:
    def weight() -> float:
        return float(10 ** rng.uniform(-2, 1)) if wide else float(rng.uniform(0.5, 2.0))

    G = nx.path_graph(k)
    for u, v in G.edges:
        G[u][v]["weight"] = weight()
    for _ in range(k):
        u, v = (int(i) for i in rng.choice(k, 2, replace=False))
        G.add_edge(u, v, weight=weight())
    return G


def relation_pairs(case: Case) -> tuple[tuple[int, int], ...] | None:
    """The neighbour relation of an ``approx_ldp`` case with ``distance == "pairs"``: a
    path through the inputs in a random order (so the relation is connected) plus each
    other pair with probability 0.3, as row indices; None (every pair) otherwise. Drawn
    from its own stream, so the objective's arrays are those of the case without it."""
    if case.distance != "pairs":
        return None
    rng = np.random.default_rng([case.seed, 13])
    order = [int(x) for x in rng.permutation(case.k)]
    pairs = {tuple(sorted(p)) for p in itertools.pairwise(order)}
    for x in range(case.k):
        for xp in range(x + 1, case.k):
            if rng.random() < 0.3:
                pairs.add((x, xp))
    return tuple(sorted(pairs))


@dataclass(frozen=True)
class Built:
    """A case as a problem: the problem, its notion, the objective's column count, and the
    arrays the objective was built from (None when unused)."""

    problem: DesignProblem
    notion: Any
    n: int
    loss: np.ndarray | None
    prior: np.ndarray | None


def build(case: Case) -> Built:
    """The design problem of ``case`` and what the checks need."""
    rng = np.random.default_rng([case.seed, 11])
    k, eps = case.k, case.eps
    deletion_delta = case.delta if case.delta > 0 else 1e-3
    notion = {
        "ldp": lambda: LDP(eps),
        "approx_ldp": lambda: ApproxLDP(eps, case.delta, pairs=relation_pairs(case)),
        "deletion_ldp": lambda: DeletionLDP(eps),
        "deletion_ldp_delta": lambda: DeletionLDP(eps, deletion_delta),
        "metric_matrix": lambda: MetricDP(eps, _points(rng, k, case.distance)),
        "metric_graph": lambda: MetricDP(eps, _graph(rng, k, case.distance == "graph")),
        "metric_spanner": lambda: MetricDP(eps, _points(rng, k, case.distance), spanner=1.5),
        "sldp_mass": lambda: SLDP(eps, "mass"),
        "sldp_pl": lambda: SLDP(eps, "pl"),
        "sldp_bel": lambda: SLDP(eps, "bel"),
        "wldp": lambda: WLDP(eps),
        "wldp_walley": lambda: WLDP(eps),
    }[case.notion]()
    evidential = case.notion in EVIDENTIAL
    kw: dict = {}
    if evidential:
        kw["outputs"] = tuple(LABELS[:case.m])
        n = 2 ** case.m - 1
        if case.notion == "wldp_walley":
            kw["semantics"] = "walley"
            n = case.m  # Walley's reading: the objective's columns are the outputs
    else:
        n = case.m
    kind = case.loss if case.loss != "none" else "moderate"
    obj_kind = case.objective
    loss = prior = None
    if obj_kind == "expected_loss":
        loss = _loss(rng, k, n, kind, case.loss_scale)
        prior = _prior(rng, k, case.prior_zeros)
        objective: Any = ExpectedLoss(loss, prior)
    elif obj_kind == "worst_case_loss":
        loss = _loss(rng, k, n, kind, case.loss_scale)
        objective = WorstCaseLoss(loss)
    elif obj_kind == "mutual_information":
        prior = _prior(rng, k, case.prior_zeros)
        objective = MutualInformation(prior)
    elif obj_kind.startswith("estimation"):
        prior = _prior(rng, k, case.prior_zeros)
        objective = EstimationVariance(prior, criterion=obj_kind[-1])
    else:  # a custom convex callable: a quadratic pull towards a target plus a linear loss
        T = rng.dirichlet(np.ones(n), size=k)
        L = _loss(rng, k, n, kind, case.loss_scale) * 1e-3

        def objective(Q: cp.Expression) -> cp.Expression:
            return cp.sum_squares(Q - T) + cp.sum(cp.multiply(L, Q))

        kw["n_inputs"] = k
        if not evidential:
            kw["n_outputs"] = n
    if not evidential and obj_kind in INFORMATION and rng.random() < 0.5:
        kw["n_outputs"] = n  # a fixed alphabet (else the staircase optimum chooses it)
    return Built(DesignProblem(privacy=notion, objective=objective, **kw), notion, n, loss,
                 prior)


