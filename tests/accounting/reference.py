"""Independent references for the composition tests: mpmath (30 digits) on the composed
PROBABILITIES (never on privacy losses), summed over all output tuples or, for
self-composition, over output count vectors with multinomial weights; and a strategy of small
mechanisms without zeros."""

from __future__ import annotations

import itertools

import mpmath as mp
import numpy as np
from hypothesis import strategies as st

import mechdesign as md

mp.mp.dps = 30


def _mp_rows(Q):
    return [[mp.mpf(float(v)) for v in row] for row in np.asarray(Q)]


def mp_delta_tuples(mechs, eps):
    """max over ordered pairs of sum over output tuples of (P - e^eps P')_+ (heterogeneous)."""
    rows = [_mp_rows(m.matrix) for m in mechs]
    n = mechs[0].n_inputs
    scale = mp.e ** mp.mpf(eps)
    best = mp.mpf(0)
    for x, xp in itertools.permutations(range(n), 2):
        total = mp.mpf(0)
        for ys in itertools.product(*(range(m.n_outputs) for m in mechs)):
            p = mp.fprod(r[x][y] for r, y in zip(rows, ys, strict=True))
            q = mp.fprod(r[xp][y] for r, y in zip(rows, ys, strict=True))
            if p > scale * q:
                total += p - scale * q
        best = max(best, total)
    return best


def _count_vectors(k, m):
    if m == 1:
        yield (k,)
        return
    for c in range(k + 1):
        for rest in _count_vectors(k - c, m - 1):
            yield (c, *rest)


def mp_delta_kfold_pair(P, Pp, eps, k):
    """k-fold self-composition of one pair, by count vectors of OUTPUTS with multinomials."""
    P = [mp.mpf(float(v)) for v in P]
    Pp = [mp.mpf(float(v)) for v in Pp]
    scale = mp.e ** mp.mpf(eps)
    total = mp.mpf(0)
    fk = mp.factorial(k)
    for c in _count_vectors(k, len(P)):
        coef = fk / mp.fprod(mp.factorial(ci) for ci in c)
        p = coef * mp.fprod(pi ** ci for pi, ci in zip(P, c, strict=True))
        q = coef * mp.fprod(qi ** ci for qi, ci in zip(Pp, c, strict=True))
        if p > scale * q:
            total += p - scale * q
    return total


def mp_delta_kfold(m, eps, k):
    Q = m.matrix
    return max(mp_delta_kfold_pair(Q[x], Q[xp], eps, k)
               for x, xp in itertools.permutations(range(m.n_inputs), 2))


def close(ours, ref, rel=1e-10, abs_=1e-300):
    ref = float(ref)
    assert abs(ours - ref) <= rel * abs(ref) + abs_, (ours, ref)



@st.composite
def dense_mechanisms(draw, n_inputs=None):
    n = n_inputs or draw(st.integers(2, 3))
    m = draw(st.integers(2, 4))
    rows = [draw(st.lists(st.floats(0.05, 1.0), min_size=m, max_size=m)) for _ in range(n)]
    Q = np.array(rows)
    return md.Mechanism(Q / Q.sum(axis=1, keepdims=True))

