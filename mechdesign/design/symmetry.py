r"""Exact symmetry reduction of a design LP.

If a group G of permutations ``g = (sigma, tau)`` of the inputs and outputs leaves the
problem unchanged (``L[sigma x, tau y] = L[x, y]``, ``pi[sigma x] = pi[x]``, and the set of
privacy constraints maps onto itself), then for any optimal Q its group average
``(1/|G|) sum_g Q[sigma x, tau y]`` is feasible (a convex combination of feasible points:
each ``Q o g`` is feasible by invariance) and has the same value (the objective is linear
and invariant). So some optimal Q is constant on every orbit of G on the entries
``(x, y)``: one variable per orbit, one row-sum constraint per input orbit and one privacy
row per orbit of constraint rows, with no loss of optimality (the classical reduction of
invariant convex programs, e.g. Gatermann & Parrilo, J. Pure Appl. Algebra 2004, for SDPs).

On a 20 x 20 grid with its 8 symmetries (rotations and reflections) this takes the
1.1-spanner geo-indistinguishability LP from 160,000 variables and 1,185,600 privacy rows
to 20,100 and 148,390 (``benchmarks/design_scaling.py``, section 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InvalidParameterError, SizeLimitError

__all__ = ["CODE_CHUNK", "MAX_GROUP_ORDER", "MAX_GROUP_WORK", "Symmetry", "check_invariant",
           "close_group", "grid_symmetries"]

MAX_GROUP_ORDER = 10_000
"""The group is enumerated element by element; larger groups are refused."""

CODE_CHUNK = 1_000_000
"""Triples whose orbit codes are computed at once (8 MB per array)."""

MAX_GROUP_WORK = 100_000_000
"""Orbits are found with one pass per group element over every entry (and every privacy
row): ``order * k * n`` (and ``order * rows``) above this is refused (memory)."""


@dataclass(frozen=True)
class Symmetry:
    """A permutation group acting on inputs (``G_in``) and outputs (``G_out``), one row per
    element, and the orbits it induces.

    ``orbit[x, y]`` is the orbit number of entry ``(x, y)`` (``0 .. n_orbits - 1``);
    ``input_representatives`` holds one input per orbit of G on the inputs.
    """

    G_in: np.ndarray
    G_out: np.ndarray
    orbit: np.ndarray
    n_orbits: int
    input_representatives: np.ndarray

    @property
    def order(self) -> int:
        return len(self.G_in)

    def describe(self) -> str:
        k, n = self.orbit.shape
        return (f"symmetry reduction: group of order {self.order}, {self.n_orbits} orbit "
                f"variables for {k * n} entries")

    def symmetrize_edges(self, edges: Sequence[tuple[int, int, float]], D: np.ndarray
                         ) -> list[tuple[int, int, float]]:
        """The union of the orbits of ``edges`` (``(u, v, D[u, v])``, ``u < v``)."""
        if not edges:
            return []
        u = np.array([e[0] for e in edges])
        v = np.array([e[1] for e in edges])
        gu, gv = self.G_in[:, u].ravel(), self.G_in[:, v].ravel()
        lo, hi = np.minimum(gu, gv), np.maximum(gu, gv)
        pairs = np.unique(lo * len(D) + hi)
        a, b = pairs // len(D), pairs % len(D)
        return [(int(x), int(y), float(D[x, y])) for x, y in zip(a, b, strict=True)]

    def triple_codes(self, a: np.ndarray, b: np.ndarray, y: np.ndarray) -> np.ndarray:
        """One integer per triple ``(a_i, b_i, y_i)`` (inputs a, b, output y), the same for
        every triple of one orbit: the smallest ``(g a * k + g b) * n + g y`` over the
        group (one pass per element, in chunks of ``CODE_CHUNK`` triples)."""
        k, n = self.orbit.shape
        a, b, y = (np.asarray(v, dtype=np.int64) for v in (a, b, y))
        out = np.empty(a.size, dtype=np.int64)
        for s in range(0, a.size, CODE_CHUNK):
            sa, sb, sy = a[s:s + CODE_CHUNK], b[s:s + CODE_CHUNK], y[s:s + CODE_CHUNK]
            best = None
            for g_in, g_out in zip(self.G_in, self.G_out, strict=True):
                c = (g_in[sa] * k + g_in[sb]) * n + g_out[sy]
                best = c if best is None else np.minimum(best, c)
            out[s:s + CODE_CHUNK] = best
        return out

    def pair_rows(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                               np.ndarray]:
        """Column constraints ``Q[a_i, y] <= c_i Q[b_i, y]`` for all i and y, reduced.

        Returns ``(orbit of (a, y), orbit of (b, y), i)`` for one row per orbit of the
        triples ``(a, b, y)`` under G (rows whose two sides share an orbit are dropped:
        ``z <= c z`` holds for ``c >= 1``). Valid when the directed pairs, with their
        coefficients, are invariant under G (the caller symmetrises them).
        """
        n = self.orbit.shape[1]
        _check_work(self.order, len(a) * n, "privacy rows")
        i = np.repeat(np.arange(len(a)), n)
        y = np.tile(np.arange(n), len(a))
        A, B = a[i], b[i]
        _, keep = np.unique(self.triple_codes(A, B, y), return_index=True)
        left, right = self.orbit[A[keep], y[keep]], self.orbit[B[keep], y[keep]]
        useful = left != right
        return left[useful], right[useful], i[keep][useful]


def _check_work(order: int, size: int, what: str) -> None:
    if order * size > MAX_GROUP_WORK:
        raise SizeLimitError(
            f"symmetry reduction: a group of order {order} over {size} {what} exceeds "
            f"{MAX_GROUP_WORK} element-entry pairs")


def _as_element(g: Any, k: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(g, tuple) and len(g) == 2:
        parts = (g[0], g[1])
    else:
        parts = (g, g)
    out = []
    for part, size, what in ((parts[0], k, "inputs"), (parts[1], n, "outputs")):
        try:
            p = np.asarray(part)
        except (TypeError, ValueError):
            p = np.array([])
        if (p.ndim != 1 or len(p) != size or not np.issubdtype(p.dtype, np.integer)
                or not np.array_equal(np.sort(p), np.arange(size))):
            raise InvalidParameterError(
                f"a symmetry must be a permutation of the {size} {what} (0..{size - 1}), "
                f"or a pair (inputs permutation, outputs permutation); got {part!r}")
        out.append(p.astype(np.int64))
    return out[0], out[1]


def close_group(generators: Sequence, k: int, n: int) -> Symmetry:
    """The group generated by ``generators`` and its orbits.

    Each generator is a permutation of ``range(k)`` (applied to inputs and outputs alike,
    which needs ``n == k``) or a pair ``(sigma, tau)``: ``g`` maps entry ``(x, y)`` to
    ``(sigma[x], tau[y])``.
    """
    gens = [_as_element(g, k, n) for g in generators]
    identity = (np.arange(k), np.arange(n))
    seen = {(identity[0].tobytes(), identity[1].tobytes()): identity}
    frontier = [identity]
    while frontier:
        nxt = []
        for s_in, s_out in frontier:
            for g_in, g_out in gens:
                h = (g_in[s_in], g_out[s_out])
                key = (h[0].tobytes(), h[1].tobytes())
                if key not in seen:
                    seen[key] = h
                    nxt.append(h)
                    if len(seen) > MAX_GROUP_ORDER:
                        raise SizeLimitError(
                            f"the symmetry group has more than {MAX_GROUP_ORDER} elements")
        frontier = nxt
    G_in = np.array([g[0] for g in seen.values()])
    G_out = np.array([g[1] for g in seen.values()])
    _check_work(len(G_in), k * n, "entries")
    X, Y = np.meshgrid(np.arange(k), np.arange(n), indexing="ij")
    canonical = np.min(G_in[:, X] * n + G_out[:, Y], axis=0)
    _, orbit = np.unique(canonical, return_inverse=True)
    reps = np.unique(G_in.min(axis=0))
    return Symmetry(G_in, G_out, orbit.reshape(k, n), int(orbit.max()) + 1, reps)


def check_invariant(name: str, M: np.ndarray, sym: Symmetry, axes: str,
                    rtol: float = 1e-12) -> None:
    """Raise unless ``M`` is invariant: ``M[sigma x, tau y] == M[x, y]`` (``axes="io"``),
    ``M[sigma x, sigma x'] == M[x, x']`` (``"ii"``) or ``M[sigma x] == M[x]`` (``"i"``)."""
    for g_in, g_out in zip(sym.G_in, sym.G_out, strict=True):
        if axes == "i":
            moved = M[g_in]
        else:
            moved = M[np.ix_(g_in, g_out if axes == "io" else g_in)]
        bad = ~np.isclose(moved, M, rtol=rtol, atol=0.0) & ~(np.isinf(moved) & np.isinf(M))
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            image = (int(g_in[idx[0]]),) + (
                () if axes == "i" else
                (int((g_out if axes == "io" else g_in)[idx[1]]),))
            raise InvalidParameterError(
                f"not symmetric: {name}{list(idx)} = {float(M[idx])!r} but its image "
                f"{name}{list(image)} = {float(moved[idx])!r}")


def grid_symmetries(rows: int, cols: int) -> list[np.ndarray]:
    """Generators of the symmetries of a ``rows x cols`` grid whose points are numbered
    row by row (``i * cols + j``, as :func:`mechdesign.io.problems.euclidean_grid`): the two
    mirror images, and the quarter turn when the grid is square (the dihedral group of
    order 8, else 4)."""
    i, j = np.divmod(np.arange(rows * cols), cols)
    gens = [i * cols + (cols - 1 - j), (rows - 1 - i) * cols + j]
    if rows == cols:
        gens.append(j * cols + (rows - 1 - i))
    return gens
