"""Frequency oracles: privacy, matrices, variances and estimators, each against an
independent computation (the catalog's matrix, the exact measure, the covariance of the
support estimator on the materialised matrix, Wang et al.'s closed forms, simulation)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechdesign as md
from mechdesign import catalog
from mechdesign.design.staircase import symmetric_estimation
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
from mechdesign.oracles.randomness import ONE, RandomWords


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


def test_matrices_equal_the_catalog():
    for eps in (0.3, 2.0):
        pairs = [(RandomizedResponse(6, eps), catalog.randomized_response(6, eps)),
                 (SubsetSelection(7, eps, d=3), catalog.subset_selection(7, 3, eps)),
                 (HadamardResponse(6, eps), catalog.hadamard_response(6, eps)),
                 (UnaryEncoding(5, eps), catalog.unary_encoding(5, eps)),
                 (UnaryEncoding(5, eps, optimized=True),
                  catalog.unary_encoding(5, eps, optimized=True))]
        for o, ref in pairs:
            mine = o.to_mechanism()
            col = {label: j for j, label in enumerate(mine.outputs)}
            order = [col[tuple(lab) if isinstance(lab, tuple) else lab] for lab in ref.outputs]
            np.testing.assert_allclose(mine.matrix[:, order], ref.matrix, rtol=1e-12)


def test_hash_family_is_two_independent():
    # Dietzfelbinger's multiply-add-shift at W = 6 (l = 3): for every pair of distinct values
    # below 2^(W - l + 1) = 16, the 4096 seeds give each of the 64 hash pairs exactly 64 times
    W, L = 6, 3
    a, b = np.meshgrid(np.arange(1 << W), np.arange(1 << W), indexing="ij")
    a, b = a.ravel(), b.ravel()
    for x, v in itertools.combinations(range(16), 2):
        hx = ((a * x + b) % (1 << W)) >> (W - L)
        hv = ((a * v + b) % (1 << W)) >> (W - L)
        pairs = np.bincount(hx * (1 << L) + hv, minlength=1 << (2 * L))
        assert (pairs == (1 << (2 * W)) >> (2 * L)).all()


def test_olh_collision_probability_by_enumeration():
    o = LocalHashing(6, 1.0, g=3, hash_bits=6)  # 3 does not divide 2^3: gamma != 1/3
    seeds = np.array(list(itertools.product(range(64), repeat=2)))
    same = [np.mean(o.bucket(seeds[:, 0], seeds[:, 1], np.full(len(seeds), x))
                    == o.bucket(seeds[:, 0], seeds[:, 1], np.full(len(seeds), v)))
            for x, v in itertools.combinations(range(6), 2)]
    assert np.allclose(same, float(o.gamma), rtol=0, atol=0)
    assert o.gamma == sum(c * c for c in (3, 3, 2)) / 64  # buckets of sizes 3, 3, 2 of 8


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


def test_k_rr_and_subset_selection_are_the_inverse_estimator():
    # for k-RR and subset selection (symmetric under every permutation of the values) the
    # least-squares inverse estimator of the matrix is the support estimator
    rng = np.random.default_rng(2)
    for o in (RandomizedResponse(6, 0.9), SubsetSelection(7, 0.9, d=3)):
        f = rng.dirichlet(np.ones(o.k))
        cov = md.estimation.covariance_inverse(o.to_mechanism(), f, 11)
        np.testing.assert_allclose(np.diag(cov), o.variance(f, 11), rtol=1e-10)


def test_wang_et_al_variances():
    # Wang et al. 2017: Var* = q*(1 - q*)/(n (p* - q*)^2) at f = 0 (the "fixed" model);
    # OUE: 4 e^eps/(e^eps - 1)^2; OLH with g = e^eps + 1 (eps = ln 3: g = 4 divides 2^16, so
    # hashing collides with probability exactly 1/4): the same 4 e^eps/(e^eps - 1)^2 = 3;
    # SUE: e^(eps/2)/(e^(eps/2) - 1)^2; direct encoding (k-RR): (e^eps + k - 2)/(e^eps - 1)^2
    eps, n, k = math.log(3.0), 1000, 8
    f = np.zeros(k)
    f[0] = 1.0
    at_zero = {o: o.variance(f, n, "fixed")[1] * n for o in (
        UnaryEncoding(k, eps, optimized=True), LocalHashing(k, eps, g=4),
        UnaryEncoding(k, eps), RandomizedResponse(k, eps))}
    vals = list(at_zero.values())
    assert vals[0] == pytest.approx(3.0, rel=1e-12)
    assert vals[1] == pytest.approx(3.0, rel=1e-12)
    assert vals[2] == pytest.approx(math.sqrt(3) / (math.sqrt(3) - 1) ** 2, rel=1e-12)
    assert vals[3] == pytest.approx((3 + k - 2) / 4, rel=1e-12)
    assert LocalHashing(k, eps).g == 4  # the best g is e^eps + 1 here


def test_subset_selection_risk_is_the_designed_optimum():
    # Ye & Barg's risk of d-subset selection under a uniform prior is the closed form the
    # designer reports (trace of the Cramer-Rao bound), at the same best d
    for k, eps in [(10, 0.5), (20, 1.0), (100, 1.0), (7, 0.1), (1000, 0.5)]:
        d, value = symmetric_estimation(k, eps, "A")
        o = SubsetSelection(k, eps)
        assert o.d == d
        assert o.total_variance() == pytest.approx(value, rel=1e-12)
    # reference values of docs/formulations.md: k = 10, eps = 0.5, d = 4: 127.2172
    assert SubsetSelection(10, 0.5).total_variance() == pytest.approx(127.2172, abs=1e-4)


@pytest.mark.slow  # about 25 s on a 2-core machine
def test_unbiased_by_exact_enumeration():
    # one respondent with value x: the estimate averaged over every possible report with
    # its exact probability is the indicator of x
    for o in small_oracles(0.7):
        M = o.to_mechanism()
        for x in range(o.k):
            mean = sum(M.matrix[x, j] * o.estimate(report_of(o, lab))
                       for j, lab in enumerate(M.outputs))
            np.testing.assert_allclose(mean, np.eye(o.k)[x], atol=1e-9)


def test_unbiased_two_respondents_exact():
    for o in (RandomizedResponse(3, 0.5), HadamardResponse(3, 0.5)):
        M = o.to_mechanism()
        for x1, x2 in itertools.product(range(3), repeat=2):
            mean = sum(M.matrix[x1, i] * M.matrix[x2, j]
                       * o.estimate(np.array([M.outputs[i], M.outputs[j]]))
                       for i in range(M.n_outputs) for j in range(M.n_outputs))
            np.testing.assert_allclose(mean, (np.eye(3)[x1] + np.eye(3)[x2]) / 2, atol=1e-9)


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


def test_secure_sampling_runs_and_is_in_range():
    for o in small_oracles(1.0):
        r = o.sample([0, 1, 2, 3, 4])  # os.urandom
        assert o.support_counts(r).sum() > 0


def test_bernoulli_probability():
    src = RandomWords(7)
    for prob in (0.3, 1e-3, 0.5):
        T = int(prob * ONE)
        coins = src.bernoulli(T, 400_000)
        assert abs(coins.mean() - prob) < 4 * math.sqrt(prob * (1 - prob) / 400_000)
    assert not src.bernoulli(0, 1000).any()
    assert src.bernoulli(ONE, 1000).all()


def test_below_is_uniform():
    draws = RandomWords(3).below(7, 70_000)
    counts = np.bincount(draws.astype(np.int64), minlength=7)
    assert counts.min() > 9_400 and counts.max() < 10_600  # 10000 +- 6 sd


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


def test_bad_values_and_reports():
    o = SubsetSelection(33, 1.0, d=2)  # reports of d integers
    with pytest.raises(InvalidParameterError, match=r"value 33 is outside 0\.\.32"):
        o.sample([0, 33])
    with pytest.raises(InvalidParameterError, match="float64"):
        o.sample([0.5])
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
    with pytest.raises(InvalidParameterError, match=r"report value 8 is outside 0\.\.7"):
        HadamardResponse(5, 1.0).support_counts(np.array([8]))
    with pytest.raises(InvalidParameterError, match=r"bucket 5 is outside 0\.\.3"):
        LocalHashing(5, 1.0, g=4).support_counts(np.array([[1, 2, 5]]))
    with pytest.raises(InvalidParameterError, match="seed 300 does not fit hash_bits = 8"):
        LocalHashing(5, 1.0, g=4, hash_bits=8).support_counts(np.array([[300, 2, 1]]))
    with pytest.raises(InvalidParameterError, match="report 0 sets a bit at or above k = 5"):
        UnaryEncoding(5, 1.0).support_counts(np.array([[0b100000]], dtype=np.uint8))
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
