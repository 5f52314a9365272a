"""Tests of :mod:`mechdesign.oracles.base`: the contract every frequency oracle keeps
(:class:`~mechdesign.oracles.base.FrequencyOracle`), checked on each oracle of the package
against an independent computation.

Pinned: the exact epsilon is the measure of the materialised matrix and never above the
nominal one; the support probabilities p*, q* are those of the matrix; the variance is the
covariance of the support estimator on the matrix (both models) and matches a simulation at
large k; the estimator is unbiased by exact enumeration; sampling follows the matrix rows;
estimate post-processing (Norm-Sub against its published iteration); bad parameters, values
and reports are typed errors; the matrix size limit; the dict round trip; and the oracles
never import the design layer. Each oracle's own closed forms are in its module's file
(``test_randomized_response.py``, ``test_unary.py``, ...).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign.errors import InvalidParameterError, SizeLimitError
from mechdesign.estimation.estimators import norm_sub, project_simplex
from mechdesign.oracles import (
    ORACLES,
    HadamardResponse,
    LocalHashing,
    RandomizedResponse,
    SubsetSelection,
    UnaryEncoding,
    oracle,
    oracle_from_dict,
)


def small_oracles(eps: float) -> list:
    return [RandomizedResponse(5, eps), UnaryEncoding(5, eps),
            UnaryEncoding(5, eps, optimized=True), SubsetSelection(6, eps, d=2),
            SubsetSelection(7, eps, d=3), SubsetSelection(33, eps, d=2),
            HadamardResponse(5, eps), HadamardResponse(7, eps),
            LocalHashing(5, eps, g=3, hash_bits=6), LocalHashing(6, eps, g=4, hash_bits=6)]


def supports(o, label) -> np.ndarray:
    """Which values the output ``label`` supports, from the label alone (not the oracle)."""
    v = np.arange(o.k)
    if isinstance(o, RandomizedResponse):
        return v == label
    if isinstance(o, UnaryEncoding):
        return np.array(label, dtype=bool)
    if isinstance(o, SubsetSelection):
        return np.isin(v, label)
    if isinstance(o, HadamardResponse):
        return np.array([bin((x + 1) & label).count("1") % 2 == 0 for x in v])
    a, b, y = label  # LocalHashing: recompute the hash by the formula of the docstring
    W, L = o.hash_bits, o.hash_bits // 2
    h = ((a * v + b) % (1 << W)) >> (W - L)
    return (h * o.g) >> L == y


def report_of(o, label) -> np.ndarray:
    """``label`` written as one report in :meth:`sample`'s format."""
    if isinstance(o, UnaryEncoding):
        return np.packbits(np.array(label, dtype=np.uint8), bitorder="little")[None, :]
    if isinstance(o, SubsetSelection) and o.packed:
        member = np.isin(np.arange(o.k), label).astype(np.uint8)
        return np.packbits(member, bitorder="little")[None, :]
    if isinstance(o, RandomizedResponse | HadamardResponse):
        return np.array([label])
    return np.array([label])


# ------------------------------------------------------------------------------- privacy
@pytest.mark.parametrize("eps", [1e-6, 0.1, 1.0, 3.0, 12.0])
def test_privacy_is_the_exact_measure_of_the_matrix(eps):
    for o in small_oracles(eps):
        measured = md.epsilon_ldp(o.to_mechanism())
        assert o.epsilon_exact <= eps
        # the matrix holds the implemented probabilities rounded to floats
        assert measured == pytest.approx(o.epsilon_exact, abs=1e-12, rel=1e-9), o
        # rounding t up costs at most 2^-128 relative: the nominal epsilon is met tightly
        assert o.epsilon_exact == pytest.approx(eps, rel=1e-12), o


def test_epsilon_zero_is_pure_noise():
    for o in small_oracles(0.0):
        assert o.epsilon_exact == 0.0
        assert md.epsilon_ldp(o.to_mechanism()) == 0.0


@settings(max_examples=60, deadline=None)
@given(k=st.integers(2, 3000), eps=st.floats(0.0, 60.0), which=st.sampled_from(sorted(ORACLES)))
def test_never_above_nominal_epsilon(k, eps, which):
    params = {"k": k, "epsilon": eps}
    if which == "subset_selection":
        params["d"] = max(1, k // 3)
    o = oracle(which, **params)
    assert 0.0 <= o.epsilon_exact <= eps
    assert o.p_star >= o.q_star  # the support estimator is defined for eps > 0
    # below the 2^-128 resolution of the coins an oracle is pure noise (epsilon 0, safe)
    assert (o.p_star > o.q_star) == (o.epsilon_exact > 0)
    if eps > 1e-30:
        assert o.p_star > o.q_star


# ------------------------------------------------------------------------------ estimation
def test_support_probabilities_from_the_matrix():
    for o in small_oracles(0.8):
        M = o.to_mechanism()
        S = np.array([supports(o, lab) for lab in M.outputs], dtype=float)  # (m, k)
        P = M.matrix @ S  # P[x, v] = P(v supported | x)
        off = ~np.eye(o.k, dtype=bool)
        np.testing.assert_allclose(np.diag(P), float(o.p_star), rtol=1e-12)
        np.testing.assert_allclose(P[off], float(o.q_star), rtol=1e-12)


@pytest.mark.parametrize("model", ["iid", "fixed"])
def test_variance_is_the_covariance_of_the_support_estimator(model):
    rng = np.random.default_rng(5)
    for o in small_oracles(1.1):
        f = rng.dirichlet(np.ones(o.k))
        M = o.to_mechanism()
        S = np.array([supports(o, lab) for lab in M.outputs], dtype=float)
        p, q = float(o.p_star), float(o.q_star)
        L = (S - q) / (p - q)  # the estimator is f_hat = (counts / n) @ L
        n = 37
        if model == "iid":
            lam = f @ M.matrix
            cov = ((L.T * lam) @ L - np.outer(lam @ L, lam @ L)) / n
        else:  # n f_x respondents hold x: a sum of the rows' covariances
            rows = M.matrix
            cov = sum(f[x] * ((L.T * rows[x]) @ L - np.outer(rows[x] @ L, rows[x] @ L))
                      for x in range(o.k)) / n
        np.testing.assert_allclose(o.variance(f, n, model), np.diag(cov), rtol=1e-10)


@pytest.mark.slow
def test_unbiased_by_exact_enumeration():
    # one respondent with value x: the estimate averaged over every possible report with
    # its exact probability is the indicator of x (each report's estimate computed once:
    # row x of M times the table of estimates)
    for o in small_oracles(0.7):
        M = o.to_mechanism()
        table = np.array([o.estimate(report_of(o, lab)) for lab in M.outputs])
        np.testing.assert_allclose(M.matrix @ table, np.eye(o.k), atol=1e-9)


LARGE = [RandomizedResponse(2000, 1.0), UnaryEncoding(500, 1.0),
         UnaryEncoding(500, 1.0, optimized=True), SubsetSelection(2000, 1.0),
         HadamardResponse(2000, 1.0), LocalHashing(1000, 1.0)]


@pytest.mark.parametrize("o", LARGE, ids=repr)
def test_variance_against_simulation_at_large_k(o):
    # one survey of n reports from a Zipf-like prior: the standardised errors
    # z_v = (f_hat_v - f_v)/sd_v of the k values have mean square 1 (within four standard
    # errors of a chi-square mean, sqrt(2/k) each) and mean 0
    rng = np.random.default_rng(11)
    f = 1.0 / np.arange(1, o.k + 1) ** 1.1
    f /= f.sum()
    n = 40_000
    x = rng.choice(o.k, size=n, p=f)
    counts = np.bincount(x, minlength=o.k) / n  # the realised population: "fixed" model
    z = (o.estimate(o.sample(x, rng=rng)) - counts) / np.sqrt(o.variance(counts, n, "fixed"))
    assert abs(np.mean(z ** 2) - 1.0) < 4 * math.sqrt(2.0 / o.k)
    assert abs(np.mean(z)) < 4 / math.sqrt(o.k)


def test_sampling_matches_the_matrix_rows():
    # chi-square of 20000 seeded draws of one row against the matrix row, every oracle
    from scipy.stats import chisquare

    for o in small_oracles(1.0):
        M = o.to_mechanism()
        col = {lab: j for j, lab in enumerate(M.outputs)}
        x = 2
        reports = o.sample(np.full(20_000, x), rng=3)
        if isinstance(o, UnaryEncoding):
            bits = np.unpackbits(reports, axis=1, count=o.k, bitorder="little")
            labels = [tuple(int(b) for b in row) for row in bits]
        elif isinstance(o, SubsetSelection) and o.packed:
            bits = np.unpackbits(reports, axis=1, count=o.k, bitorder="little")
            labels = [tuple(int(v) for v in np.flatnonzero(row)) for row in bits]
        elif isinstance(o, SubsetSelection):
            labels = [tuple(sorted(int(v) for v in row)) for row in reports]
        elif isinstance(o, LocalHashing):
            labels = [tuple(int(v) for v in row) for row in reports]
        else:
            labels = [int(v) for v in reports]
        observed = np.bincount([col[lab] for lab in labels], minlength=M.n_outputs)
        expected = M.matrix[x] * len(labels)
        if isinstance(o, LocalHashing):  # too many seeds for a chi-square: check buckets
            y = np.array([lab[2] for lab in labels])
            h = o.bucket(reports[:, 0], reports[:, 1], np.full(len(y), x))
            assert abs(np.mean(y == h) - float(o.p_star)) < 4 * math.sqrt(0.25 / len(y))
            continue
        keep = expected > 0
        assert chisquare(observed[keep], expected[keep]).pvalue > 1e-4, o


def test_secure_sampling_runs_and_is_in_range():
    for o in small_oracles(1.0):
        r = o.sample([0, 1, 2, 3, 4])  # os.urandom
        assert o.support_counts(r).sum() > 0


def test_norm_sub_closed_form_against_the_iteration():
    # Wang et al. 2020's Norm-Sub, iterated as published: zero the negatives, shift the
    # positives by a common delta to sum 1, repeat; the closed form agrees, and is the
    # simplex projection when the positive parts sum to at least 1 (not always otherwise)
    rng = np.random.default_rng(4)
    seen, differ = set(), False
    for _ in range(40):
        f = rng.normal(0.05, 0.2, size=12)
        g = f.copy()
        for _ in range(100):
            pos = g > 0
            g = np.where(pos, g - (g[pos].sum() - 1.0) / pos.sum(), 0.0)
            if (g >= 0).all():
                break
        np.testing.assert_allclose(norm_sub(f), g, atol=1e-12)
        big = np.maximum(f, 0).sum() >= 1
        seen.add(big)
        same = np.allclose(project_simplex(f), g, atol=1e-12)
        assert same or not big
        differ = differ or not same
    assert seen == {True, False} and differ  # both regimes were exercised
    o = RandomizedResponse(12, 1.0)
    for post in ("project", "norm-sub"):
        est = o.estimate_counts(rng.integers(0, 50, 12), 300, post=post)
        assert est.min() >= 0 and est.sum() == pytest.approx(1.0)


# ------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("make, match", [
    (lambda: RandomizedResponse(1, 1.0), "k"),
    (lambda: RandomizedResponse(5, -1.0), "-1.0"),
    (lambda: RandomizedResponse(5, float("nan")), "nan"),
    (lambda: SubsetSelection(5, 1.0, d=5), "d must be <= k - 1 = 4, got 5"),
    (lambda: LocalHashing(5, 1.0, g=300, hash_bits=8), r"g must be <= 2\^4 = 16, got 300"),
    (lambda: LocalHashing(5, 1.0, hash_bits=7), "hash_bits must be an even number"),
    (lambda: LocalHashing(40, 1.0, hash_bits=8), "k = 40 is too large"),
    (lambda: UnaryEncoding(5, 1.0, optimized="yes"), "'yes'"),
    (lambda: oracle("rappor", k=3, epsilon=1.0), "'rappor'"),
    (lambda: oracle("subset_selection", k=3, epsilon=1.0, size=2), "size"),
])
def test_bad_parameters(make, match):
    with pytest.raises(InvalidParameterError, match=match):
        make()


def test_bad_values_and_estimates():
    o = SubsetSelection(33, 1.0, d=2)
    with pytest.raises(InvalidParameterError, match=r"value 33 is outside 0\.\.32"):
        o.sample([0, 33])
    with pytest.raises(InvalidParameterError, match="float64"):
        o.sample([0.5])
    with pytest.raises(InvalidParameterError, match="no reports"):
        o.estimate(np.zeros((0, 2), dtype=int))
    with pytest.raises(InvalidParameterError, match="carries no information"):
        o.__class__(33, 0.0, d=2).estimate(np.array([[1, 2]]))
    with pytest.raises(InvalidParameterError, match="'median'"):
        o.estimate(np.array([[1, 2]]), post="median")


def test_to_mechanism_size_limit_and_round_trip():
    with pytest.raises(SizeLimitError, match="entries as a matrix"):
        UnaryEncoding(30, 1.0).to_mechanism()
    o = LocalHashing(300, 2.0)
    assert oracle_from_dict(o.to_dict()) == o
    assert repr(o) == "LocalHashing(k=300, epsilon=2.0, g=8, hash_bits=32)"


def test_oracles_do_not_import_the_design_layer():
    import ast
    import pathlib

    import mechdesign.oracles as pkg

    for path in pathlib.Path(pkg.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        names = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [n for n in names if "design" in n or "cvxpy" in n], path
