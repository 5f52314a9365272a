"""Distances between inputs: the metric of metric privacy / privacy on a neighbour graph."""

from __future__ import annotations

import numbers
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._validation import is_hashable
from .errors import InvalidParameterError

# In source order: the order of the API reference page.
__all__ = [  # noqa: RUF022
    "is_graph",
    "distance_matrix",
    "line_distance",
    "SPANNER_CHUNK",
    "greedy_spanner",
    "graph_dilation",
    "metric_skeleton",
    "check_pairs",
    "check_graph",
    "neighbour_pairs",
    "ordered_pairs",
    "hop_distances",
]


def is_graph(obj: Any) -> bool:
    """True when ``obj`` is a networkx graph (without importing networkx: a graph can only
    exist once networkx has been imported)."""
    nx = sys.modules.get("networkx")
    return nx is not None and isinstance(obj, nx.Graph)


def distance_matrix(distance: Any, inputs: Sequence) -> np.ndarray:
    """The ``(k, k)`` distance matrix between ``inputs``.

    Parameters
    ----------
    distance : array_like or networkx.Graph
        A matrix (non-negative, zero diagonal, ``inf`` allowed for "no constraint"), or an
        undirected graph whose nodes are the input labels; ``d(x, x')`` is then the
        shortest-path length with edge attribute ``"weight"`` (default 1; any positive finite
        real, numpy scalars included). Disconnected pairs get ``inf``. A directed graph is
        refused: it would give a one-way, non-symmetric distance.
    inputs : sequence
        The mechanism's input labels, in row order.
    """
    k = len(inputs)
    if is_graph(distance):
        import networkx as nx

        if distance.is_directed():
            raise InvalidParameterError(
                f"distance graph is a directed {type(distance).__name__}; a metric is "
                "symmetric (d(x, x') = d(x', x)), so give an undirected networkx Graph "
                "(e.g. graph.to_undirected()) or a symmetric matrix")
        missing = [x for x in inputs if x not in distance]
        if missing:
            raise InvalidParameterError(
                f"graph has no node for inputs {missing[:5]!r} (nodes must be the input labels)")
        for u, v, w in distance.edges(data="weight", default=1.0):
            if (isinstance(w, bool) or not isinstance(w, numbers.Real)
                    or not (np.isfinite(w) and w > 0)):
                raise InvalidParameterError(
                    f"edge ({u!r}, {v!r}) has weight {w!r}; need a finite number > 0")
        index = {x: i for i, x in enumerate(inputs)}
        D = np.full((k, k), np.inf)
        for src, lengths in nx.all_pairs_dijkstra_path_length(distance, weight="weight"):
            if src in index:
                i = index[src]
                for dst, length in lengths.items():
                    if dst in index:
                        D[i, index[dst]] = length
        return D
    try:
        D = np.array(distance, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"distance is not a numeric matrix: {exc}") from None
    if D.shape != (k, k):
        raise InvalidParameterError(f"distance must have shape ({k}, {k}), got {D.shape}")
    if np.isnan(D).any():
        i, j = np.argwhere(np.isnan(D))[0]
        raise InvalidParameterError(f"distance[{i}, {j}] is NaN")
    if (D < 0).any():
        i, j = np.argwhere(D < 0)[0]
        raise InvalidParameterError(f"distance[{i}, {j}] = {float(D[i, j])!r} is negative")
    if (np.diag(D) != 0).any():
        i = int(np.flatnonzero(np.diag(D) != 0)[0])
        raise InvalidParameterError(
            f"distance[{i}, {i}] = {float(D[i, i])!r}; the diagonal must be 0")
    return D


def line_distance(k: int) -> np.ndarray:
    """``|x - x'|`` on inputs ``0..k-1`` (counting queries; the path graph's metric)."""
    idx = np.arange(k)
    return np.abs(idx[:, None] - idx[None, :]).astype(float)


SPANNER_CHUNK = 4096
"""Candidate pairs tested at once against the distance bounds (one numpy pass each)."""


def greedy_spanner(D: np.ndarray, t: float) -> tuple[list[tuple[int, int, float]], float]:
    r"""Greedy t-spanner of the metric ``D`` (Althoefer et al. 1993).

    Pairs are scanned by increasing distance and an edge ``(u, v)`` is kept when the current
    graph distance exceeds ``t * D[u, v]``. Every pair then has a path of length at most
    ``t * D[u, v]``. Returns the edges ``(u, v, D[u, v])`` and the achieved dilation
    ``max_{u != v} d_G(u, v) / D[u, v]`` (<= t); pairs at infinite distance are skipped.

    The graph distances are not kept exactly (the dense update costs ``O(k^2)`` per kept
    edge, measured slow on a 32 x 32 grid). As in Farshi & Gudmundsson (2009), a matrix ``B`` of
    upper bounds (lengths of paths found so far; the graph only grows, so they stay upper
    bounds) decides most pairs; a pair whose bound exceeds ``t D[u, v]`` gets one Dijkstra
    from ``u`` in the current graph, which refreshes row ``u`` of ``B`` (and so decides many
    later pairs) and this pair exactly. The edges are those of the greedy definition, found
    several times faster (4,913 Dijkstra runs for 3,906 edges on the 32 x 32 grid at
    t = 1.1; ``benchmarks/design_scaling.py --only grids``, times in
    ``benchmarks/README.md``, "Grids at scale"). With
    distinct points at distance 0 (zero-weight edges, which sparse graphs cannot hold) the
    dense update is used.
    """
    if not (t >= 1.0):
        raise InvalidParameterError(f"spanner stretch t must be >= 1, got {t!r}")
    k = len(D)
    iu, ju = np.triu_indices(k, 1)
    d = D[iu, ju]
    order = np.argsort(d, kind="stable")
    iu, ju, d = iu[order], ju[order], d[order]
    n = int(np.searchsorted(d, np.inf))  # finite pairs come first
    if n and d[0] <= 0:
        return _greedy_spanner_dense(D, t, iu[:n], ju[:n], d[:n])
    from scipy import sparse  # loaded on first use
    from scipy.sparse import csgraph

    B = np.full((k, k), np.inf)
    np.fill_diagonal(B, 0.0)
    eu: list[int] = []
    ev: list[int] = []
    ew: list[float] = []
    graph = None
    for first in range(0, n, SPANNER_CHUNK):
        cut = slice(first, min(n, first + SPANNER_CHUNK))
        u_, v_, w_ = iu[cut], ju[cut], d[cut]
        limit_ = t * w_ * (1 + 1e-12)
        for j in np.flatnonzero(B[u_, v_] > limit_):
            u, v, w, limit = int(u_[j]), int(v_[j]), float(w_[j]), float(limit_[j])
            if B[u, v] <= limit:
                continue
            if eu:
                if graph is None:
                    graph = sparse.csr_matrix((ew, (eu, ev)), shape=(k, k))
                row = csgraph.dijkstra(graph, directed=False, indices=u)
                np.minimum(B[u], row, out=B[u])
                B[:, u] = B[u]
                if B[u, v] <= limit:
                    continue
            eu.append(u)
            ev.append(v)
            ew.append(w)
            B[u, v] = B[v, u] = w
            graph = None
    edges = [(u, v, w) for u, v, w in zip(eu, ev, ew, strict=True)]
    return edges, graph_dilation(D, edges) if edges else 1.0


def _greedy_spanner_dense(D: np.ndarray, t: float, iu: np.ndarray, ju: np.ndarray,
                          d: np.ndarray) -> tuple[list[tuple[int, int, float]], float]:
    """The greedy spanner with exact graph distances kept as a dense matrix (``O(k^2)`` per
    kept edge); pairs ``(iu, ju)`` at finite distances ``d``, in scanning order."""
    k = len(D)
    G = np.full((k, k), np.inf)
    np.fill_diagonal(G, 0.0)
    edges = []
    for u, v, w in zip(iu.tolist(), ju.tolist(), d.tolist(), strict=True):
        if G[u, v] <= t * w * (1 + 1e-12):
            continue
        edges.append((u, v, w))
        via = np.minimum(G[:, u][:, None] + w + G[v, :][None, :],
                         G[:, v][:, None] + w + G[u, :][None, :])
        np.minimum(G, via, out=G)
    return edges, _dilation(D, G)


def _dilation(D: np.ndarray, G: np.ndarray) -> float:
    """``max_{u < v} G[u, v] / D[u, v]`` over pairs at finite, positive distance."""
    iu, ju = np.triu_indices(len(D), 1)
    d = D[iu, ju]
    finite = np.isfinite(d) & (d > 0)
    with np.errstate(invalid="ignore"):
        return float(np.max(G[iu, ju][finite] / d[finite])) if finite.any() else 1.0


def graph_dilation(D: np.ndarray, edges: Sequence[tuple[int, int, float]]) -> float:
    """Dilation of the graph with ``edges`` (weights ``D[u, v]``) in the metric ``D``:
    ``max d_G(u, v) / D[u, v]`` (shortest paths by Dijkstra)."""
    k = len(D)
    u = np.array([e[0] for e in edges], dtype=int)
    v = np.array([e[1] for e in edges], dtype=int)
    from scipy import sparse  # loaded on first use
    from scipy.sparse import csgraph

    W = sparse.coo_matrix((D[u, v], (u, v)), shape=(k, k)).tocsr()
    return _dilation(D, csgraph.shortest_path(W, method="D", directed=False))


def metric_skeleton(D: np.ndarray, rtol: float = 1e-12) -> list[tuple[int, int, float]]:
    r"""The pairs of a distance that no third point lies between: the direction u -> v is
    implied when some ``w`` has ``d(u, w) + d(w, v) <= d(u, v)`` (within ``rtol``), and a
    pair ``(u, v)``, ``u < v``, is kept when either direction is not.

    Metric-privacy constraints on the remaining pairs (each direction at its own distance,
    ``D`` need not be symmetric) imply all others exactly: by induction on d,
    ``Q[u] <= e^{eps d(u,w)} Q[w] <= e^{eps (d(u,w) + d(w,v))} Q[v] <= e^{eps d(u,v)} Q[v]``.
    For the line ``|x - x'|`` only neighbours remain; for a Euclidean grid the pairs whose
    segment holds no other grid point. Returns ``(u, v, D[u, v])``. O(k^3) time in blocks of
    O(k^2) memory.
    """
    k = len(D)
    needed = np.zeros((k, k), dtype=bool)
    for u in range(k):
        via = D[u][:, None] + D  # via[w, v] = d(u, w) + d(w, v)
        via[u, :] = np.inf
        np.fill_diagonal(via, np.inf)  # w = v
        needed[u] = np.isfinite(D[u]) & (via.min(axis=0) > D[u] * (1 + rtol))
    np.fill_diagonal(needed, False)
    keep = needed | needed.T
    return [(u, int(v), float(D[u, v])) for u in range(k) for v in np.flatnonzero(keep[u])
            if v > u]


# ---------------------------------------------------------------------- neighbour relations
Pair = tuple[Any, Any]


def check_pairs(pairs: Any, name: str = "pairs") -> tuple[Pair, ...]:
    """A neighbour relation given as pairs of inputs, validated and frozen.

    Parameters
    ----------
    pairs : iterable of pairs
        Each item a pair ``(x, x')`` of input labels or row indices (lists, tuples or the
        rows of a ``(p, 2)`` array); numpy scalars become Python scalars. Which reading
        applies is decided against the inputs by :func:`neighbour_pairs`.
    name : str
        The parameter's name in error messages.

    Returns
    -------
    tuple of 2-tuples
        The pairs in the order given (hashable, so a frozen notion can hold them).

    Raises
    ------
    InvalidParameterError
        ``pairs`` is a string, not iterable, empty, or holds an item that is not a pair of
        hashable values.
    """
    if isinstance(pairs, str | bytes) or is_graph(pairs):
        raise InvalidParameterError(
            f"{name} must be a sequence of pairs [x, x'], got {pairs!r}"
            + (" (give a graph as graph=...)" if is_graph(pairs) else ""))
    try:
        items = list(pairs)
    except TypeError:
        raise InvalidParameterError(
            f"{name} must be a sequence of pairs [x, x'], got {pairs!r}") from None
    if not items:
        raise InvalidParameterError(
            f"{name} is empty: with no neighbouring pairs every mechanism would qualify "
            "(leave it None for all pairs of inputs)")
    out = []
    for item in items:
        pair: tuple = ()
        if not isinstance(item, str | bytes) and hasattr(item, "__iter__"):
            pair = tuple(v.item() if isinstance(v, np.generic) else v for v in item)
        if len(pair) != 2 or not all(is_hashable(v) and not isinstance(v, bool) for v in pair):
            raise InvalidParameterError(
                f"{name} item {item!r} is not a pair [x, x'] of input labels or indices")
        out.append(pair)
    return tuple(out)


def check_graph(graph: Any, name: str = "graph") -> Any:
    """A networkx graph whose edges are a neighbour relation (at least one edge between two
    different nodes; directions and weights are ignored). Returns ``graph``."""
    if not is_graph(graph):
        raise InvalidParameterError(
            f"{name} must be a networkx graph on the input labels, got {graph!r}")
    if not any(u != v for u, v in graph.edges()):
        raise InvalidParameterError(
            f"{name} has no edge between two different nodes: with no neighbouring pairs "
            "every mechanism would qualify (leave it None for all pairs of inputs)")
    return graph


def neighbour_pairs(inputs: Sequence, pairs: Any = None, graph: Any = None
                    ) -> tuple[np.ndarray, np.ndarray] | None:
    """The neighbouring pairs of a relation as row indices ``(u, v)``, ``u < v``, one per
    unordered pair (sorted, duplicates and pairs ``(x, x)`` dropped); None for the default
    relation, every pair of inputs.

    Parameters
    ----------
    inputs : sequence
        The mechanism's input labels, in row order.
    pairs : iterable of pairs, optional
        Pairs of input labels, or of row indices (see :func:`check_pairs`). They are read as
        labels when every value is an input label, else as row indices ``0..k-1`` when every
        value is one; a value that is neither is refused, and so is an index reading in
        which a value is also the label of a different row (ambiguous). With the default
        labels ``0..k-1`` both readings agree.
    graph : networkx graph, optional
        A graph on the input labels: its edges are the pairs (every endpoint must be an
        input label; weights and directions are ignored).

    Raises
    ------
    InvalidParameterError
        Both ``pairs`` and ``graph`` given, a value that names no input, or no pair of
        different inputs left.
    """
    if pairs is not None and graph is not None:
        raise InvalidParameterError("give the neighbour relation as pairs or as a graph, "
                                    "not both")
    if pairs is None and graph is None:
        return None
    index = {x: i for i, x in enumerate(inputs)}
    k = len(index)
    if graph is not None:
        edges = [(u, v) for u, v in check_graph(graph).edges()]
        for u, v in edges:
            for w in (u, v):
                if w not in index:
                    raise InvalidParameterError(
                        f"graph node {w!r} (edge ({u!r}, {v!r})) is not an input label; "
                        f"the inputs are {tuple(inputs)[:10]!r}")
        rows = [(index[u], index[v]) for u, v in edges]
    else:
        given = check_pairs(pairs)
        values = [w for p in given for w in p]

        def is_index(w: Any) -> bool:
            return isinstance(w, numbers.Integral) and 0 <= w < k

        for w in values:
            if w not in index and not is_index(w):
                raise InvalidParameterError(
                    f"pairs value {w!r} is neither an input label nor a row index "
                    f"0..{k - 1}; the inputs are {tuple(inputs)[:10]!r}")
        if all(w in index for w in values):
            rows = [(index[a], index[b]) for a, b in given]
        else:  # some value is no label: every value must be a row index, meaning itself
            for w in values:
                if not is_index(w) or (w in index and index[w] != w):
                    what = (f"{w!r} is the label of row {index[w]}" if w in index
                            else f"{w!r} is not a row index")
                    raise InvalidParameterError(
                        f"pairs are ambiguous: {what}, but the values are read as row "
                        "indices (some value is not a label); give every pair as labels, "
                        "or every pair as row indices")
            rows = [(int(a), int(b)) for a, b in given]
    unique = sorted({(min(a, b), max(a, b)) for a, b in rows if a != b})
    if not unique:
        raise InvalidParameterError(
            "the neighbour relation has no pair of different inputs: every mechanism would "
            "qualify (leave it None for all pairs of inputs)")
    u = np.array([p[0] for p in unique], dtype=int)
    v = np.array([p[1] for p in unique], dtype=int)
    return u, v


def ordered_pairs(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both orders of the unordered pairs ``(u, v)``: ``(concat(u, v), concat(v, u))``."""
    return np.concatenate([u, v]), np.concatenate([v, u])


def hop_distances(k: int, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The ``(k, k)`` numbers of hops between inputs in the undirected graph with edges
    ``(u_i, v_i)`` (``inf`` when disconnected; breadth-first search by scipy)."""
    from scipy import sparse  # loaded on first use
    from scipy.sparse import csgraph

    W = sparse.coo_matrix((np.ones(len(u)), (u, v)), shape=(k, k)).tocsr()
    return csgraph.shortest_path(W, directed=False, unweighted=True)
