"""Shared hypothesis strategies for the test suite.

Random mechanisms are small (at most 4 x 4, at most 4 outputs for evidential ones) so that
the brute-force references in the tests (loops over pairs, outputs and all events) stay fast.
Entries are drawn from a mix of exact zeros, tiny values (1e-18, 1e-12) and ordinary floats,
so sparsity and solver-noise-sized entries are exercised on every run.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

from mechdesign import EvidentialMechanism, Mechanism

TINY = (1e-18, 1e-12)
"""Entries the size of solver noise: they must be measured as themselves, never as 0."""


def weight(*, zeros: bool = True, tiny: bool = True, low: float = 1e-3) -> st.SearchStrategy:
    """One non-negative un-normalised entry."""
    options = [st.floats(low, 1.0)]
    if zeros:
        options.append(st.just(0.0))
    if tiny:
        options.append(st.sampled_from(TINY))
    return st.one_of(*options)


@st.composite
def stochastic_matrices(draw, rows=(2, 4), cols=(2, 4), *, zeros: bool = True,
                        tiny: bool = True, low: float = 1e-3) -> np.ndarray:
    """A row-stochastic float matrix: each row normalised by its (positive) sum."""
    k = draw(st.integers(*rows))
    m = draw(st.integers(*cols))
    entry = weight(zeros=zeros, tiny=tiny, low=low)
    out = np.empty((k, m))
    for x in range(k):
        row = np.array(draw(st.lists(entry, min_size=m, max_size=m)))
        if row.sum() <= 0:
            row[draw(st.integers(0, m - 1))] = 1.0
        out[x] = row / row.sum()
    return out


@st.composite
def mechanisms(draw, rows=(2, 4), cols=(2, 4), **kwargs) -> Mechanism:
    return Mechanism(draw(stochastic_matrices(rows, cols, **kwargs)))


OUTPUT_LABELS = "abcd"


@st.composite
def evidential_mechanisms(draw, rows=(2, 3), outputs=(2, 4), max_focal: int = 6,
                          **kwargs) -> EvidentialMechanism:
    """Random focal sets over outputs 'a'.., random (often sparse) masses."""
    m = draw(st.integers(*outputs))
    labels = OUTPUT_LABELS[:m]
    subsets = [frozenset(c) for r in range(1, m + 1) for c in itertools.combinations(labels, r)]
    fsets = draw(st.lists(st.sampled_from(subsets), min_size=1, max_size=max_focal,
                          unique=True))
    k = draw(st.integers(*rows))
    masses = draw(stochastic_matrices((k, k), (len(fsets), len(fsets)), **kwargs))
    return EvidentialMechanism(masses, fsets, outputs=tuple(labels))


# --------------------------------------------------------------------------- brute force
# Independent reference implementations (plain loops, exact Fractions of the stored floats).


def all_events(outputs) -> list[frozenset]:
    """Every subset of the outputs, as frozensets, in bitmask order (output j is bit j)."""
    m = len(outputs)
    return [frozenset(outputs[j] for j in range(m) if mask >> j & 1) for mask in range(1 << m)]


def brute_bel(ev: EvidentialMechanism, x: int, E: frozenset) -> Fraction:
    """Exact ``bel_x(E)``: the masses of the focal sets inside E (Li et al. 2022, s.1)."""
    return sum((Fraction(float(ev.masses[x, j])) for j, B in enumerate(ev.focal_sets)
                if B <= E), Fraction(0))


def brute_pl(ev: EvidentialMechanism, x: int, E: frozenset) -> Fraction:
    """Exact ``pl_x(E)``: the masses of the focal sets meeting E (Li et al. 2022, s.1)."""
    return sum((Fraction(float(ev.masses[x, j])) for j, B in enumerate(ev.focal_sets)
                if B & E), Fraction(0))
