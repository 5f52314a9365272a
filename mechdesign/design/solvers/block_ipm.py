r"""An interior-point method for block-angular LPs (metric privacy on large grids).

A design LP in the form cvxpy hands Clarabel,

.. math::  \min\ c^T x \quad\text{s.t.}\quad E x = f, \qquad G x + s = h,\ s \ge 0,

often has structure a general solver's factorisation cannot see. Metric privacy (and any
notion whose constraints compare two inputs at the *same* output) puts every inequality
row on the entries of one output column; with a symmetry reduction, on one orbit of
outputs. The variables then fall into independent blocks that only the equality rows (the
row sums ``sum_y Q[x, y] = 1``, one per input orbit) couple. Each iteration of an interior
point method solves

.. math::  \begin{pmatrix} M & E^T \\ E & 0 \end{pmatrix}
           \begin{pmatrix} \Delta x \\ \Delta y \end{pmatrix} = \begin{pmatrix} g \\ r
           \end{pmatrix}, \qquad M = G^T \operatorname{diag}(z / s)\, G,

where ``M`` is block diagonal. Eliminating the blocks leaves the dense Schur complement
``S = E M^{-1} E^T``, one row per equality: each block is factored alone (sparse LU in
symmetric mode; a block is a few hundred to a few thousand entries on a sparse graph) and
contributes ``E_b M_b^{-1} E_b^T``. A general KKT factorisation instead orders the whole
system at once and pays for the equality rows' coupling in every block's fill: on the
32 x 32 spanner grid with the 8 symmetries (136 blocks of 1,024 variables, 136 equality
rows, a million inequality rows) Clarabel's factorisation of an iteration was measured
several times slower than the blocks' (each block's LU and its solves for ``S``) on the
same two cores (``benchmarks/README.md``, "Grids at scale").

The method is Mehrotra's predictor-corrector (Mehrotra, "On the implementation of a
primal-dual interior point method", SIAM J. Optim. 2 (1992); Wright, *Primal-Dual
Interior-Point Methods*, SIAM 1997, ch. 10) with separate primal and dual step lengths,
started from the least-squares point of Mehrotra's paper, with Gondzio's centrality
correctors, a small proximal regularisation and iterative refinement. Rows are scaled to
unit largest coefficient and the costs to unit largest entry before the iterations; the
answer is scaled back. Near the optimum the normal equations lose accuracy (the weights
``z / s`` span 30 orders of magnitude), so the method does not trust its own residuals:
given a ``certify`` callback (the rigorous bound of :mod:`mechdesign.design.bound` on its
duals), it keeps the iterate whose certified gap is smallest. The caller's certificate
then bounds the optimum again and measures the returned matrix.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import math
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as sla
from scipy.sparse.csgraph import connected_components

__all__ = ["ALMOST", "CERTIFY_BELOW", "CORRECTORS", "DUAL_REG", "MAX_BLOCK", "MAX_EQUALITIES",
           "MAX_ITERATIONS", "MAX_ROWS_PER_VARIABLE", "MIN_BLOCKS", "MMAP_THRESHOLD", "PRIMAL_REG",
           "REFINEMENTS", "REFINE_TOL", "RETRY_REG", "RHS_COLUMNS", "ROUND_OFF", "STALL",
           "STEP_FRACTION", "THREADS", "TOLERANCE", "BlockSolution", "BlockStructure",
           "find_blocks", "fix_mmap_threshold", "solve_block_lp"]

MIN_BLOCKS = 8
"""Fewer independent blocks than this: no structure worth exploiting."""

MAX_BLOCK = 20_000
"""Largest block (variables) factored alone."""

MAX_EQUALITIES = 4_000
"""Most equality rows: the Schur complement ``S`` is dense, ``MAX_EQUALITIES^2`` floats."""

MAX_ROWS_PER_VARIABLE = 32
"""Inequality rows per variable above which a block's matrix is too dense for the sparse
factorisation to beat a general solver (pure LDP compares every pair of inputs)."""

TOLERANCE = 1e-9
"""The iterate's measure at which the method stops with ``"Solved"``: its largest relative
residual or duality gap (scaled problem), or, with a ``certify`` callback, its certified
gap (at least its relative primal residual)."""

ALMOST = 1e-6
"""The best such measure when the iterations stall or fail numerically: at most this is
``"AlmostSolved"`` (cvxpy: optimal, inaccurate)."""

STALL = 3
"""Iterations in a row without halving the best measure after which, once it is below
:data:`ALMOST`, the method stops."""

CERTIFY_BELOW = 1e-5
"""The measure below which :func:`solve_block_lp` asks its ``certify`` callback for the
certified gap of each iterate."""

ROUND_OFF = 1e-13
"""Primal residuals at most this (relative to ``1 + |h|``) are treated as zero in the
Newton right-hand side."""

MAX_ITERATIONS = 150

CORRECTORS = 2
"""Gondzio's multiple centrality correctors per iteration (Gondzio, "Multiple centrality
corrections in a primal-dual method for linear programming", Comput. Optim. Appl. 6
(1996)): each costs one solve with the factors already computed, and is kept only when
it lengthens the step."""

STEP_FRACTION = 0.995
"""Fraction of the step to the boundary taken (Mehrotra's heuristic raises it towards 1
as the iterates converge: ``max(STEP_FRACTION, 1 - mu)``)."""

THREADS = 2
"""Blocks factored in parallel (SuperLU releases the GIL)."""

REFINEMENTS = 8
"""Iterative refinement steps of each Newton solve."""

PRIMAL_REG = 1e-10
DUAL_REG = 1e-10
"""Proximal regularisation of the Newton system (Altman & Gondzio, "Regularized symmetric
indefinite systems in interior point methods for linear and quadratic optimization",
Optim. Methods Softw. 11 (1999)): ``M + PRIMAL_REG I`` and ``-DUAL_REG I`` in the
equality block, centred at the current iterate, so the residuals are those of the
original LP and the regularisation only perturbs the step."""

RHS_COLUMNS = 16
"""Right-hand sides per solve when a block's part of ``S`` is formed (see
:meth:`_Newton.factor`)."""

REFINE_TOL = 1e-15
"""Refinement stops when the residual is below this fraction of the right-hand side."""

RETRY_REG = 1e-12
"""A block whose factorisation meets an exactly zero pivot is factored again with this
fraction of its largest diagonal entry added (the refinement then works towards the
system with :data:`PRIMAL_REG`)."""


@dataclass(frozen=True)
class BlockSolution:
    """The answer in Clarabel's layout (what cvxpy's Clarabel interface reads): ``x``,
    ``z`` (the multipliers of all rows, equalities first), ``s`` (slacks), ``status``
    (``"Solved"``, ``"AlmostSolved"``, ``"MaxIterations"``, ``"MaxTime"`` or
    ``"NumericalError"``), objective values, iterations and time; ``gap`` is the
    certified gap of the returned iterate (None without a ``certify`` callback)."""

    engine = "BLOCK-IPM"
    """The solver name a design result reports for this answer."""

    x: np.ndarray
    z: np.ndarray
    s: np.ndarray
    status: str
    obj_val: float
    obj_val_dual: float
    iterations: int
    solve_time: float
    blocks: int
    largest_block: int

    gap: float | None = None

    def certified(self, gap: float) -> BlockSolution:
        """This answer with status ``"Solved"`` on the strength of a rigorous relative
        ``gap`` the caller computed from the data (not of the method's own residuals)."""
        return dataclasses.replace(self, status="Solved", gap=gap)

    @property
    def block_note(self) -> str:
        """What solved, for the design result's notes."""
        gap = ("" if self.gap is None
               else f"; relative gap {self.gap:.2g} certified from its own duals")
        return (f"solved by mechdesign's block-angular interior point instead of Clarabel "
                f"({self.blocks} independent blocks of at most {self.largest_block} "
                f"variables coupled by the equality rows; {self.iterations} iterations, "
                f"{self.solve_time:.3g} s{gap})")


@dataclass(frozen=True)
class BlockStructure:
    """A permutation of the variables (``order``) and inequality rows (``row_order``) that
    makes ``G`` block diagonal: block ``b`` is variables ``order[var_starts[b]:var_starts[b
    + 1]]`` and rows ``row_order[row_starts[b]:row_starts[b + 1]]``."""

    order: np.ndarray
    var_starts: np.ndarray
    row_order: np.ndarray
    row_starts: np.ndarray

    @property
    def n_blocks(self) -> int:
        return len(self.var_starts) - 1

    @property
    def largest(self) -> int:
        return int(np.diff(self.var_starts).max())


def find_blocks(G: sp.csr_matrix, n_eq: int) -> BlockStructure | None:
    """The block structure of ``G`` (connected components of the variables through the
    inequality rows), or None when the method does not apply: fewer than
    :data:`MIN_BLOCKS` blocks, a block above :data:`MAX_BLOCK` variables, more than
    :data:`MAX_EQUALITIES` equality rows, more than :data:`MAX_ROWS_PER_VARIABLE`
    inequality rows per variable, or a variable in no inequality row (its block matrix
    would be singular)."""
    m, n = G.shape
    if n_eq > MAX_EQUALITIES or m > MAX_ROWS_PER_VARIABLE * n or n == 0:
        return None
    G = sp.csr_matrix(G)
    if np.count_nonzero(np.bincount(G.indices, minlength=n)) < n:
        return None
    rows = np.repeat(np.arange(m), np.diff(G.indptr))
    # variables joined through their rows: bipartite graph rows <-> variables
    graph = sp.csr_matrix((np.ones(len(rows)), (rows, G.indices + m)), shape=(m + n, m + n))
    count, labels = connected_components(graph, directed=False)
    var_labels = labels[m:]
    sizes = np.bincount(var_labels, minlength=count)
    if count < MIN_BLOCKS or sizes.max() > MAX_BLOCK:
        return None
    order = np.argsort(var_labels, kind="stable")
    row_order = np.argsort(labels[:m], kind="stable")
    starts = np.searchsorted(var_labels[order], np.arange(count + 1))
    row_starts = np.searchsorted(labels[:m][row_order], np.arange(count + 1))
    return BlockStructure(order, starts, row_order, row_starts)


def _fill_order(G: sp.csr_matrix) -> np.ndarray:
    """A fill-reducing order of the variables of one block: SuperLU's minimum degree on
    the pattern of ``G^T G`` (the same for every iterate, so computed once)."""
    M = (abs(G).T @ abs(G) + sp.eye(G.shape[1])).tocsc()
    lu = sla.splu(M, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                  options={"SymmetricMode": True})
    return np.argsort(lu.perm_c)


class _Block:
    """One block: its inequality rows ``G`` (local columns, already in fill-reducing
    order), the equality rows it touches (``eq``) and their restriction ``Et`` (local
    variables x those rows), and the map from the row weights ``D`` to the entries of
    ``M = G^T diag(D) G`` in compressed-column order (``P``, one row per stored entry)."""

    def __init__(self, G: sp.csr_matrix, Et: sp.csc_matrix) -> None:
        self.G = G
        self.eq = np.flatnonzero(np.diff(Et.indptr))
        self.Et = Et[:, self.eq].tocsc()
        self.EtT = self.Et.T.tocsr()
        n = G.shape[1]
        rows = np.repeat(np.arange(G.shape[0]), np.diff(G.indptr))
        # every pair of entries (i, a), (j, b) of one row r adds D_r a b to M[i, j]
        start = G.indptr[rows]
        count = np.diff(G.indptr)[rows]
        pair_r = np.repeat(rows, count)
        first = np.repeat(np.arange(len(rows)), count)
        second = np.repeat(start, count) + _ranges(count)
        i, j = G.indices[first], G.indices[second]
        coeff = G.data[first] * G.data[second]
        keys = np.concatenate([j * n + i, np.arange(n) * (n + 1)])  # column-major + diagonal
        unique = np.unique(keys)
        self.indices = (unique % n).astype(np.int32)
        self.indptr = np.searchsorted(unique // n, np.arange(n + 1)).astype(np.int32)
        self.diagonal = np.searchsorted(unique, np.arange(n) * (n + 1))
        self.P = sp.csr_matrix((coeff, (np.searchsorted(unique, keys[:len(coeff)]), pair_r)),
                               shape=(len(unique), G.shape[0]))
        self.lu: object = None

    def factor(self, D: np.ndarray) -> Any:
        """SuperLU of ``G^T diag(D) G + rho I``, ``rho`` = :data:`PRIMAL_REG`, or, when that
        meets an exactly zero pivot, :data:`RETRY_REG` times the largest diagonal entry."""
        data = self.P @ D
        diagonal = data[self.diagonal]
        n = self.G.shape[1]
        data[self.diagonal] = diagonal + PRIMAL_REG
        try:
            return _factor(sp.csc_matrix((data, self.indices, self.indptr), shape=(n, n)))
        except RuntimeError:  # an exactly zero pivot: once more, regularised harder
            data[self.diagonal] = diagonal + RETRY_REG * max(1.0, diagonal.max(initial=0.0))
            return _factor(sp.csc_matrix((data, self.indices, self.indptr), shape=(n, n)))


MMAP_THRESHOLD = 1 << 18
"""Bytes from which glibc's malloc serves an allocation by its own mapping, fixed by
:func:`fix_mmap_threshold`."""


@functools.cache
def fix_mmap_threshold() -> bool:
    """Fix glibc's mmap threshold at :data:`MMAP_THRESHOLD` (a process-wide malloc
    setting; a no-op, returning False, where there is no glibc ``mallopt``).

    glibc raises the threshold, by default, to the size of each large block freed (up to
    32 MiB); after the first megabyte-sized vector is freed, every block factorisation's
    arrays, created and freed in two threads at every iteration, come from the heap, which
    fragments: the 32 x 32 grid's solve peaked at 8 GB of resident memory (the 136
    factorisations hold 114 MiB). Fixed at 1 MiB the peak was 1.6 GB; at 256 KiB 1.5 GB
    on that grid (and the same time), and 0.8 GB instead of 2.4 GB on the unreduced
    16 x 16 grid (256 blocks, whose 0.5 MB Schur parts stayed on the heap at 1 MiB;
    ``benchmarks/design_scaling.py --only grids``, ``benchmarks/README.md``, "Grids at
    scale")."""
    try:
        libc = ctypes.CDLL(None)
        m_mmap_threshold = -3  # glibc's malloc.h
        return bool(libc.mallopt(ctypes.c_int(m_mmap_threshold), ctypes.c_int(MMAP_THRESHOLD)))
    except (OSError, AttributeError):
        return False


def _factor(M: sp.csc_matrix) -> Any:
    """SuperLU of a symmetric positive definite block in its given (fill-reducing) order,
    no pivoting."""
    return sla.splu(M, permc_spec="NATURAL", diag_pivot_thresh=0.0,
                    options={"SymmetricMode": True})


def _ranges(count: np.ndarray) -> np.ndarray:
    """``concatenate([arange(k) for k in count])`` without the loop."""
    ends = np.cumsum(count)
    return np.arange(ends[-1] if len(ends) else 0) - np.repeat(ends - count, count)


class _Newton:
    """The block-eliminated Newton system of one iterate (see the module docstring)."""

    def __init__(self, lp: _Scaled, structure: BlockStructure,
                 pool: ThreadPoolExecutor) -> None:
        self.blocks, self.pool = lp.blocks, pool
        self.var_starts, self.row_starts = structure.var_starts, structure.row_starts
        self.G, self.GT, self.E, self.Et = lp.G, lp.GT, lp.E, lp.Et
        self.D = np.ones(lp.G.shape[0])
        self.S_factor: tuple | None = None

    def factor(self, D: np.ndarray) -> None:
        """Factor every ``M_b = G_b^T diag(D_b) G_b + rho I`` and the Schur complement
        ``S = E M^{-1} E^T + delta I``."""
        n_eq = self.E.shape[0]
        self.D = D

        def one(b: int) -> tuple[np.ndarray, np.ndarray]:
            blk = self.blocks[b]
            blk.lu = blk.factor(D[self.row_starts[b]:self.row_starts[b + 1]])
            # in slices of RHS_COLUMNS right-hand sides: whole (n_b x |eq|) dense blocks
            # are a megabyte each at 32 x 32, and with them the fixed mmap threshold
            # (fix_mmap_threshold) cost time: measured slower unsliced than sliced
            # (benchmarks/README.md, "Grids at scale")
            part = np.empty((len(blk.eq), len(blk.eq)))
            for lo in range(0, len(blk.eq), RHS_COLUMNS):
                cols = blk.Et[:, lo:lo + RHS_COLUMNS].toarray()
                part[:, lo:lo + RHS_COLUMNS] = blk.EtT @ blk.lu.solve(cols)
            return blk.eq, part

        S = np.zeros((n_eq, n_eq))
        for eq, part in self.pool.map(one, range(len(self.blocks))):
            S[np.ix_(eq, eq)] += part
        S[np.diag_indices(n_eq)] += DUAL_REG
        # Jacobi scaling first: near the optimum the diagonal spans many orders of magnitude
        d = 1.0 / np.sqrt(np.maximum(np.diag(S), DUAL_REG))
        Ss = S * d[:, None] * d[None, :]
        try:
            self.S_factor = ("cho", d, la.cho_factor(Ss, check_finite=False))
        except np.linalg.LinAlgError:  # rounding near the optimum: LU (refinement follows)
            self.S_factor = ("lu", d, la.lu_factor(Ss, check_finite=False))

    def _m_solve(self, g: np.ndarray) -> np.ndarray:
        out = np.empty_like(g)
        vs = self.var_starts

        def one(b: int) -> None:
            out[vs[b]:vs[b + 1]] = self.blocks[b].lu.solve(g[vs[b]:vs[b + 1]])

        list(self.pool.map(one, range(len(self.blocks))))
        return out

    def _solve_once(self, g: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        v = self._m_solve(g)
        kind, d, fac = self.S_factor
        rhs = d * (self.E @ v - r)
        solve = la.cho_solve if kind == "cho" else la.lu_solve
        dy = d * solve(fac, rhs, check_finite=False)
        return self._m_solve(g - self.Et @ dy), dy

    def solve(self, g: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``[M + rho I, E^T; E, -delta I] [dx; dy] = [g; r]``, with up to
        :data:`REFINEMENTS` steps of iterative refinement (``M`` applied as ``G^T D G``)
        while each at least halves the residual."""
        dx, dy = self._solve_once(g, r)
        scale = max(np.abs(g).max(initial=0.0), np.abs(r).max(initial=0.0), 1e-300)
        last = math.inf
        for _ in range(REFINEMENTS):
            r1 = g - self.GT @ (self.D * (self.G @ dx)) - PRIMAL_REG * dx - self.Et @ dy
            r2 = r - self.E @ dx + DUAL_REG * dy
            size = max(np.abs(r1).max(initial=0.0), np.abs(r2).max(initial=0.0))
            if size <= REFINE_TOL * scale or size >= 0.5 * last:
                break
            last = size
            ex, ey = self._solve_once(r1, r2)
            dx, dy = dx + ex, dy + ey
        return dx, dy


@dataclass
class _Scaled:
    """The LP scaled and permuted for the iterations (rows to unit largest coefficient,
    costs to unit largest entry, each block's variables in fill-reducing order)."""

    E: sp.csr_matrix
    G: sp.csr_matrix
    Et: sp.csr_matrix
    GT: sp.csr_matrix
    f: np.ndarray
    h: np.ndarray
    c: np.ndarray
    order: np.ndarray
    row_scale: np.ndarray
    cost_scale: float
    blocks: list[_Block]

    @classmethod
    def build(cls, c: np.ndarray, A: sp.csr_matrix, b: np.ndarray, n_eq: int,
              structure: BlockStructure) -> _Scaled:
        vs, rs = structure.var_starts, structure.row_starts
        row_scale = np.maximum(abs(A).max(axis=1).toarray().ravel(), 1e-300)
        A = sp.csr_matrix(sp.diags(1.0 / row_scale) @ A)
        b = b / row_scale
        G = A[n_eq:][structure.row_order][:, structure.order].tocsr()
        order = structure.order.copy()
        for k in range(structure.n_blocks):
            order[vs[k]:vs[k + 1]] = order[vs[k]:vs[k + 1]][
                _fill_order(G[rs[k]:rs[k + 1], vs[k]:vs[k + 1]])]
        E = A[:n_eq][:, order].tocsr()
        G = A[n_eq:][structure.row_order][:, order].tocsr()
        Et = E.T.tocsr()
        blocks = [_Block(G[rs[k]:rs[k + 1], vs[k]:vs[k + 1]].tocsr(),
                         Et[vs[k]:vs[k + 1]].tocsc()) for k in range(structure.n_blocks)]
        cost_scale = max(float(np.abs(c).max(initial=0.0)), 1e-300)
        return cls(E, G, Et, G.T.tocsr(), b[:n_eq], b[n_eq:][structure.row_order],
                   c[order] / cost_scale, order, row_scale, cost_scale, blocks)

    def unscale(self, x: np.ndarray, y: np.ndarray, z: np.ndarray, s: np.ndarray,
                structure: BlockStructure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(x, z_all, s_all)`` in the caller's variables, rows and units."""
        n_eq = len(self.f)
        x_out = np.empty(len(x))
        x_out[self.order] = x
        z_all = np.empty(n_eq + len(z))
        z_all[:n_eq] = y
        z_all[n_eq + structure.row_order] = z
        s_all = np.zeros(n_eq + len(z))
        s_all[n_eq + structure.row_order] = s
        return x_out, z_all * self.cost_scale / self.row_scale, s_all * self.row_scale


def _starting_point(lp: _Scaled, newton: _Newton) -> tuple[np.ndarray, ...]:
    """Mehrotra's start: the least-squares ``x`` with ``E x = f``, the least-norm ``z``
    with ``G^T z + E^T y = -c``, both shifted into the interior."""
    newton.factor(np.ones(lp.G.shape[0]))
    x, _ = newton.solve(lp.GT @ lp.h, lp.f)
    s = lp.h - lp.G @ x
    w, y = newton.solve(-lp.c, np.zeros(len(lp.f)))
    z = lp.G @ w
    s = s + max(-1.5 * s.min(), 0.0)
    z = z + max(-1.5 * z.min(), 0.0)
    sz = float(s @ z)
    s = s + 0.5 * sz / max(z.sum(), 1e-300) + 1e-12
    z = z + 0.5 * sz / max(s.sum(), 1e-300) + 1e-12
    return x, y, z, s


def _newton_step(lp: _Scaled, newton: _Newton, x: np.ndarray, y: np.ndarray, z: np.ndarray,
                 s: np.ndarray, rd: np.ndarray, rE: np.ndarray, rN: np.ndarray
                 ) -> tuple[np.ndarray, ...]:
    """One iteration from a factored ``newton``: Mehrotra's predictor and corrector, then
    :data:`CORRECTORS` centrality correctors; returns the next iterate."""
    G, GT, m = lp.G, lp.GT, len(s)
    mu = float(s @ z) / m

    def direction(rc: np.ndarray, residuals: bool = True) -> tuple[np.ndarray, ...]:
        # g = -rd - G^T ((rc + z rN) / s); without residuals: a pure centering step
        g = -GT @ (((rc + z * rN) if residuals else rc) / s)
        dx, dy = newton.solve(g - rd if residuals else g,
                              -rE if residuals else np.zeros(len(rE)))
        ds = -G @ dx - (rN if residuals else 0.0)
        return dx, dy, ds, (rc - z * ds) / s

    _, _, ds, dz = direction(-s * z)
    ap, ad = _step(s, ds), _step(z, dz)
    sigma = (float((s + ap * ds) @ (z + ad * dz)) / m / mu) ** 3
    dx, dy, ds, dz = direction(-s * z + sigma * mu - ds * dz)
    ap, ad = _step(s, ds), _step(z, dz)
    target = sigma * mu
    for _ in range(CORRECTORS):
        v = (s + min(1.0, 1.5 * ap + 0.1) * ds) * (z + min(1.0, 1.5 * ad + 0.1) * dz)
        rc = np.maximum(np.clip(v, 0.1 * target, 10.0 * target) - v, -10.0 * target)
        cx, cy, cs, cz = direction(rc, residuals=False)
        bp, bd = _step(s, ds + cs), _step(z, dz + cz)
        if min(bp, 1.0) + min(bd, 1.0) < min(ap, 1.0) + min(ad, 1.0) + 0.02:
            break
        dx, dy, ds, dz, ap, ad = dx + cx, dy + cy, ds + cs, dz + cz, bp, bd
    eta = max(STEP_FRACTION, 1.0 - mu)
    ap, ad = min(1.0, eta * ap), min(1.0, eta * ad)
    return x + ap * dx, y + ad * dy, z + ad * dz, s + ap * ds


def solve_block_lp(c: np.ndarray, A: sp.spmatrix, b: np.ndarray, n_eq: int,
                   structure: BlockStructure, *, deadline: float | None = None,
                   stop: Callable[[], bool] | None = None,
                   certify: Callable[[np.ndarray, np.ndarray], float] | None = None,
                   tol: float = TOLERANCE, max_iter: int = MAX_ITERATIONS) -> BlockSolution:
    """``min c^T x`` s.t. ``A[:n_eq] x = b[:n_eq]``, ``A[n_eq:] x <= b[n_eq:]``, solved by
    Mehrotra's predictor-corrector method with the block elimination of the module
    docstring.

    Parameters
    ----------
    c, A, b, n_eq : the LP (Clarabel's layout: ``A x + s = b``, ``s`` zero on the first
        ``n_eq`` rows and non-negative on the rest).
    structure : :func:`find_blocks` of ``A[n_eq:]``.
    deadline : ``time.perf_counter()`` value at which to stop with ``"MaxTime"``.
    stop : polled every iteration; True raises ``KeyboardInterrupt``.
    certify : ``certify(x, z)``, the certified relative gap of an iterate (caller's
        layout and units). Called once the iterate's measure is below
        :data:`CERTIFY_BELOW`; the iterate with the smallest certified gap is returned
        (``gap``), and the method stops when that gap is below ``tol`` or has not
        improved for :data:`STALL` iterations. Without it: the smallest measure.
    tol : the measure (largest relative residual or gap, scaled problem) or certified gap
        at which the method stops with ``"Solved"``.
    """
    t0 = time.perf_counter()
    fix_mmap_threshold()
    lp = _Scaled.build(np.asarray(c, dtype=float), sp.csr_matrix(A, dtype=float),
                       np.asarray(b, dtype=float), n_eq, structure)
    E, G, Et, GT, f, h, cs = lp.E, lp.G, lp.Et, lp.GT, lp.f, lp.h, lp.c
    norms = (1.0 + float(np.abs(f).max(initial=0.0)), 1.0 + float(np.abs(h).max(initial=0.0)),
             1.0 + float(np.abs(cs).max(initial=0.0)))
    status, it, best, best_key, best_gap, stalled = "", 0, None, math.inf, None, 0
    best_merit = math.inf
    with ThreadPoolExecutor(THREADS) as pool:
        newton = _Newton(lp, structure, pool)
        try:
            x, y, z, s = _starting_point(lp, newton)
            for it in range(max_iter + 1):
                if stop is not None and stop():
                    raise KeyboardInterrupt
                rd, rE, rN = cs + Et @ y + GT @ z, E @ x - f, G @ x + s - h
                pobj, dobj = float(cs @ x), -float(f @ y + h @ z)
                primal = max(np.abs(rE).max(initial=0.0) / norms[0],
                             np.abs(rN).max(initial=0.0) / norms[1])
                merit = max(primal, np.abs(rd).max(initial=0.0) / norms[2],
                            abs(pobj - dobj) / (1.0 + abs(pobj)))
                if not math.isfinite(merit):
                    break
                gap = None
                if certify is not None and merit <= CERTIFY_BELOW:
                    gap = certify(*lp.unscale(x, y, z, s, structure)[:2])
                # certified: the gap of a primal point feasible to the same accuracy
                key = merit if certify is None else (
                    math.inf if gap is None else max(gap, primal))
                if key < best_key:
                    stalled = 0 if key < 0.5 * best_key else stalled + 1
                    best, best_key, best_gap, best_merit = (x, y, z, s), key, gap, merit
                elif math.isinf(best_key) and merit < best_merit:  # nothing certified yet
                    best, best_merit = (x, y, z, s), merit
                else:
                    stalled += 1
                if best_key <= tol or (best_key <= ALMOST and stalled >= STALL):
                    break
                if it == max_iter:
                    break
                if deadline is not None and time.perf_counter() >= deadline:
                    status = "MaxTime"
                    break
                newton.factor(z / s)
                # residuals at round-off carry no information; weighted by z / s (up to
                # 1e15 near the optimum) they would swamp the Newton right-hand side
                rN = np.where(np.abs(rN) <= ROUND_OFF * (1.0 + np.abs(h)), 0.0, rN)
                x, y, z, s = _newton_step(lp, newton, x, y, z, s, rd, rE, rN)
        except (np.linalg.LinAlgError, RuntimeError, ValueError, FloatingPointError):
            pass  # numerical breakdown near the optimum: the best iterate stands
    if best is None:
        status = status or "NumericalError"
        best = (np.zeros(len(cs)), np.zeros(len(f)), np.zeros(len(h)), np.zeros(len(h)))
    elif not status or best_key <= tol:
        status = ("Solved" if best_key <= tol else "AlmostSolved" if best_key <= ALMOST
                  else "MaxIterations" if it >= max_iter else "NumericalError")
    x_out, z_all, s_all = lp.unscale(*best, structure)
    b_full = np.asarray(b, dtype=float)
    return BlockSolution(x_out, z_all, s_all, status, float(np.asarray(c) @ x_out),
                         -float(b_full @ z_all), it, time.perf_counter() - t0,
                         structure.n_blocks, structure.largest, best_gap)


def _step(v: np.ndarray, dv: np.ndarray) -> float:
    """The largest ``a`` with ``v + a dv >= 0`` (``inf`` when ``dv >= 0``)."""
    neg = dv < 0
    if not neg.any():
        return math.inf
    return float(np.min(-v[neg] / dv[neg]))
