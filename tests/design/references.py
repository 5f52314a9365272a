"""Second methods and independent checks shared by the design tests (not a test file).

Each reference is written from the definition and solved by another route than the
library's: the naive LPs over every entry for scipy's HiGHS (``linprog``; no offset form,
no epigraph tricks, no symmetry), the Cramer-Rao criterion from the Fisher information's
definition, and the certificate checks (the analysis layer's float measure and the exact
rational verifier).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
from scipy.optimize import linprog

import mechdesign as md
from mechdesign.design.result import Status
from mechdesign.privacy.verify import verify_exact

GAP_TOL = 1e-6
"""The certified gap an optimal result promises (docs/certificates.md)."""

TOL = md.privacy.EPSILON_TOL


def assert_certified(res: md.DesignResult, notion: object) -> None:
    """met means proved exactly; optimal (global) means a certified gap of at most 1e-6."""
    assert res.certificate is not None and res.certificate.met
    assert verify_exact(res.mechanism, notion).holds is True
    if res.status is Status.OPTIMAL and res.optimum == "global":
        assert res.gap is not None and res.gap <= GAP_TOL


def assert_verified(res: md.DesignResult, notion: object) -> None:
    """A returned mechanism meets its notion: float measure and exact check (within
    EPSILON_TOL)."""
    assert res.certificate is not None and res.certificate.met
    mech = res.mechanism
    assert notion.measure(mech) <= notion.target + TOL
    v = verify_exact(mech, notion)
    assert v.holds is True or v.excess <= TOL, v.message


def pairwise_ldp_optimum(L: np.ndarray, prior: np.ndarray, eps: float,
                         D: np.ndarray | None = None) -> float:
    """min sum_x prior_x sum_y Q L under Q[x, y] <= e^{eps D[x, x']} Q[x', y] for every
    ordered pair (D = 1 off the diagonal: pure LDP; the naive pairwise LP, scipy HiGHS): an
    independent second method."""
    k, m = L.shape
    D = np.ones((k, k)) if D is None else D
    c = (prior[:, None] * L).ravel()
    rows = []
    for x in range(k):
        for xp in range(k):
            if x != xp:
                for y in range(m):
                    r = np.zeros(k * m)
                    r[x * m + y], r[xp * m + y] = 1.0, -math.exp(eps * D[x, xp])
                    rows.append(r)
    A_eq = np.kron(np.eye(k), np.ones(m))
    out = linprog(c, A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=A_eq,
                  b_eq=np.ones(k), bounds=(0, 1), method="highs")
    assert out.status == 0
    return float(out.fun)


class Ref:
    """An LP over x = (vec Q row-major, extra variables) for scipy's linprog: rows of Q sum
    to 1 and every ordered pair of rows obeys pure eps-LDP."""

    def __init__(self, k: int, m: int, n_extra: int, eps: float):
        self.k, self.m, self.n = k, m, k * m + n_extra
        self.ub, self.rhs_ub, self.eq, self.rhs_eq = [], [], [], []
        for x in range(k):  # rows sum to 1
            row = np.zeros(self.n)
            row[x * m:(x + 1) * m] = 1
            self.eq.append(row)
            self.rhs_eq.append(1.0)
        for x, z in itertools.permutations(range(k), 2):  # Q[x, y] <= e^eps Q[z, y]
            for y in range(m):
                row = np.zeros(self.n)
                row[x * m + y], row[z * m + y] = 1.0, -math.exp(eps)
                self.add_ub(row, 0.0)

    def q(self, x: int, y: int) -> int:
        return x * self.m + y

    def add_ub(self, row: np.ndarray, rhs: float) -> None:
        self.ub.append(row)
        self.rhs_ub.append(rhs)

    def vulnerability_rows(self, prior: np.ndarray, gain: np.ndarray, t0: int) -> None:
        """t_y (variables t0 + y) >= sum_x g[w, x] prior_x Q[x, y] for all w, y."""
        for w in range(gain.shape[0]):
            for y in range(self.m):
                row = np.zeros(self.n)
                for x in range(self.k):
                    row[self.q(x, y)] = gain[w, x] * prior[x]
                row[t0 + y] = -1.0
                self.add_ub(row, 0.0)

    def solve(self, c: np.ndarray, bounds: list | None = None) -> float:
        res = linprog(c, A_ub=np.array(self.ub), b_ub=np.array(self.rhs_ub),
                      A_eq=np.array(self.eq), b_eq=np.array(self.rhs_eq),
                      bounds=bounds or [(0, None)] * self.n, method="highs")
        assert res.status == 0, res.message
        return float(res.fun)


def expected_loss_row(k: int, m: int, n: int, prior: np.ndarray, L: np.ndarray
                      ) -> np.ndarray:
    """The cost row of ``sum_x prior_x sum_y L[x, y] Q[x, y]`` over :class:`Ref`'s x."""
    row = np.zeros(n)
    for x in range(k):
        row[x * m:(x + 1) * m] = prior[x] * L[x]
    return row


def a_criterion(Q: np.ndarray, prior: np.ndarray) -> float:
    """trace of the Cramer-Rao bound U (U^T I U)^-1 U^T, from the definition of I."""
    lam = prior @ Q
    keep = lam > 0
    fisher = (Q[:, keep] / lam[keep]) @ Q[:, keep].T
    U = _sum_zero_basis(Q.shape[0])
    return float(np.trace(np.linalg.inv(U.T @ fisher @ U)))


@functools.cache
def _sum_zero_basis(k: int) -> np.ndarray:
    """An orthonormal basis of the sum-zero vectors of length k (k x (k - 1))."""
    return np.linalg.svd(np.eye(k) - 1.0 / k)[0][:, : k - 1]
