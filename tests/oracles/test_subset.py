"""Tests of :mod:`mechdesign.oracles.subset`: d-subset selection (Ye & Barg 2018; Wang et
al. 2016) as a frequency oracle, with d-integer reports or, above 16 values, bitmaps.

Pinned, each against a source other than the oracle: the matrix is the catalog's
``subset_selection``; the support estimator is the least-squares inverse estimator of the
matrix; the risk and the best d are those the designer's symmetric program reports (and the
reference value of docs/formulations.md); the bitmap sampler follows the matrix row over
every subset; malformed reports in either format are typed errors and any memory layout of
the bitmaps counts the same.
"""

from __future__ import annotations

import numpy as np
import pytest

import mechdesign as md
from mechdesign import catalog
from mechdesign.errors import InvalidParameterError
from mechdesign.oracles import SubsetSelection


@pytest.mark.parametrize("eps", [0.3, 2.0])
def test_matrix_equals_the_catalog(eps):
    mine = SubsetSelection(7, eps, d=3).to_mechanism()
    ref = catalog.subset_selection(7, 3, eps)
    col = {label: j for j, label in enumerate(mine.outputs)}
    order = [col[tuple(lab)] for lab in ref.outputs]
    np.testing.assert_allclose(mine.matrix[:, order], ref.matrix, rtol=1e-12)


def test_subset_selection_is_the_inverse_estimator():
    # subset selection is symmetric under every permutation of the values: the
    # least-squares inverse estimator of the matrix is the support estimator
    rng = np.random.default_rng(2)
    o = SubsetSelection(7, 0.9, d=3)
    f = rng.dirichlet(np.ones(o.k))
    cov = md.estimation.covariance_inverse(o.to_mechanism(), f, 11)
    np.testing.assert_allclose(np.diag(cov), o.variance(f, 11), rtol=1e-10)


def test_subset_selection_risk_is_the_designed_optimum():
    # Ye & Barg's risk of d-subset selection under a uniform prior is the closed form the
    # designer reports (trace of the Cramer-Rao bound), at the same best d (imported here:
    # the design layer is not an import of the oracles)
    from mechdesign.design.engines.staircase import symmetric_estimation

    for k, eps in [(10, 0.5), (20, 1.0), (100, 1.0), (7, 0.1), (1000, 0.5)]:
        d, value = symmetric_estimation(k, eps, "A")
        o = SubsetSelection(k, eps)
        assert o.d == d
        assert o.total_variance() == pytest.approx(value, rel=1e-12)
    # reference values of docs/formulations.md: k = 10, eps = 0.5, d = 4: 127.2172
    assert SubsetSelection(10, 0.5).total_variance() == pytest.approx(127.2172, abs=1e-4)


@pytest.mark.parametrize("eps, x", [(0.0, 0), (1.0, 3)])
def test_bitmap_subsets_follow_the_matrix_row(eps, x):
    # subset selection's bitmap sampler (coins adjusted to exactly d members, then x put
    # in for informative rows) against the matrix row over all C(12, 5) = 792 subsets;
    # the coins start below d/k, so rows both gain and lose members on the way
    from scipy.stats import chisquare

    o = SubsetSelection(12, eps, d=5)
    assert o.packed
    M = o.to_mechanism()
    col = {lab: j for j, lab in enumerate(M.outputs)}
    bits = np.unpackbits(o.sample(np.full(150_000, x), rng=8), axis=1, count=12,
                         bitorder="little")
    assert (bits.sum(axis=1) == 5).all()
    weights = 1 << np.arange(12)
    code = {int((np.isin(np.arange(12), lab) * weights).sum()): j for lab, j in col.items()}
    observed = np.bincount([code[c] for c in (bits @ weights).tolist()], minlength=len(col))
    assert chisquare(observed, M.matrix[x] * len(bits)).pvalue > 1e-4


def test_bad_reports():
    o = SubsetSelection(33, 1.0, d=2)  # reports of d integers
    with pytest.raises(InvalidParameterError, match=r"report 1 repeats the value 3: a subset"):
        o.support_counts(np.array([[1, 2], [3, 3]]))
    with pytest.raises(InvalidParameterError, match=r"shape \(n, 2\)"):
        o.support_counts(np.array([1, 2]))
    with pytest.raises(InvalidParameterError, match=r"report value 39 is outside 0\.\.32"):
        o.support_counts(np.array([[1, 39]]))
    wide = SubsetSelection(1000, 1.0)  # bitmap reports in any memory layout
    reports = wide.sample(np.arange(60), rng=2)
    counts = wide.support_counts(reports)
    assert counts.sum() == 60 * wide.d
    for layout in (np.asfortranarray(reports), reports[::2], reports[::-1]):
        np.testing.assert_array_equal(wide.support_counts(layout),
                                      wide.support_counts(np.ascontiguousarray(layout)))
    packed = SubsetSelection(6, 1.0, d=2)  # bitmap reports
    assert packed.packed and packed.report_width == 1 and not o.packed
    with pytest.raises(InvalidParameterError, match=r"report 1 holds 3 values: a subset has 2"):
        packed.support_counts(np.array([[0b11], [0b111]], dtype=np.uint8))
    with pytest.raises(InvalidParameterError, match="report 0 sets a bit at or above k = 6"):
        packed.support_counts(np.array([[0b1000001]], dtype=np.uint8))
    with pytest.raises(InvalidParameterError,
                       match=r"must be a uint8 bitmap array of shape \(n, 1\), got dtype int64"):
        packed.support_counts(np.array([[3]]))
