"""Distances between inputs: the metric of metric privacy / privacy on a neighbour graph."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import networkx as nx
import numpy as np

from .errors import InvalidParameterError


def distance_matrix(distance: Any, inputs: Sequence) -> np.ndarray:
    """The ``(k, k)`` distance matrix between ``inputs``.

    Parameters
    ----------
    distance : array_like or networkx.Graph
        A matrix (non-negative, zero diagonal, ``inf`` allowed for "no constraint"), or a
        graph whose nodes are the input labels; ``d(x, x')`` is then the shortest-path length
        with edge attribute ``"weight"`` (default 1). Disconnected pairs get ``inf``.
    inputs : sequence
        The mechanism's input labels, in row order.
    """
    k = len(inputs)
    if isinstance(distance, nx.Graph):
        missing = [x for x in inputs if x not in distance]
        if missing:
            raise InvalidParameterError(
                f"graph has no node for inputs {missing[:5]!r} (nodes must be the input labels)")
        for u, v, w in distance.edges(data="weight", default=1.0):
            if not (isinstance(w, int | float) and np.isfinite(w) and w > 0):
                raise InvalidParameterError(f"edge ({u!r}, {v!r}) has weight {w!r}; need > 0")
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
        raise InvalidParameterError(f"distance[{i}, {j}] = {D[i, j]!r} is negative")
    if (np.diag(D) != 0).any():
        i = int(np.flatnonzero(np.diag(D) != 0)[0])
        raise InvalidParameterError(f"distance[{i}, {i}] = {D[i, i]!r}; the diagonal must be 0")
    return D


def line_distance(k: int) -> np.ndarray:
    """``|x - x'|`` on inputs ``0..k-1`` (counting queries; the path graph's metric)."""
    idx = np.arange(k)
    return np.abs(idx[:, None] - idx[None, :]).astype(float)
