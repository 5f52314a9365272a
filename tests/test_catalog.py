"""The catalog: each matrix against an independent construction and its nominal epsilon."""

from __future__ import annotations

import itertools
import math
import re
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
import scipy.linalg
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mechdesign import (
    EvidentialMechanism,
    Mechanism,
    dont_know,
    epsilon_ldp,
    epsilon_metric,
    q_lambda,
    randomized_response,
    warner,
)
from mechdesign.catalog import (
    CATALOG,
    MAX_UNARY_K,
    TINY,
    deletion_counterexample,
    hadamard_response,
    max_epsilon,
    subset_selection,
    truncated_geometric,
    unary_encoding,
)
from mechdesign.errors import InvalidParameterError
from mechdesign.neighbors import line_distance
from mechdesign.privacy.verify import verify_exact

EPS = st.floats(0.0, 8.0)


def assert_rows_sum_to_one(m: Mechanism) -> None:
    np.testing.assert_allclose(m.matrix.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert (m.matrix >= 0).all()


def test_catalog_lists_every_constructor():
    assert set(CATALOG) == {"warner", "randomized_response", "dont_know", "q_lambda",
                            "unary_encoding", "subset_selection", "hadamard_response",
                            "truncated_geometric", "deletion_counterexample"}


# --------------------------------------------------------------------------- warner / DK / Q_lambda


def test_warner_matrix_and_labels():
    w = warner(0.75)
    np.testing.assert_array_equal(w.matrix, [[0.75, 0.25], [0.25, 0.75]])
    assert w.inputs == ("P", "notP") and w.outputs == ("Yes", "No")
    assert epsilon_ldp(w) == pytest.approx(math.log(3), abs=1e-15)
    # p < 1/2 is the same mechanism with the answers swapped: eps = |ln(p/(1-p))|
    assert epsilon_ldp(warner(0.25)) == pytest.approx(math.log(3), abs=1e-15)
    assert epsilon_ldp(warner(0.5)) == 0.0


def test_dont_know_matrix():
    dk = dont_know(0.6, 0.2)
    assert isinstance(dk, EvidentialMechanism)
    # s.4: rows [p, q, 1-p-q] and [q, p, 1-p-q] over {Yes}, {No}, {Yes, No}
    np.testing.assert_allclose(dk.masses, [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2]], rtol=0,
                               atol=1e-15)
    assert dk.focal_sets == (frozenset({"Yes"}), frozenset({"No"}), frozenset({"Yes", "No"}))
    assert dk.inputs == ("P", "notP")


@settings(max_examples=80, deadline=None)
@given(st.floats(0.5, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_q_lambda_matrix_endpoints_and_epsilon(p, t, lam):
    q = t * (1 - p)
    d = 1 - p - q
    m = q_lambda(p, q, lam)
    assert_rows_sum_to_one(m)
    # s.4: Q_lambda = [[p + lam d, q + (1-lam) d], [q + (1-lam) d, p + lam d]]
    a, b = p + lam * d, q + (1 - lam) * d
    np.testing.assert_allclose(m.matrix, [[a, b], [b, a]], rtol=0, atol=1e-15)
    # endpoints: Q_0 = warner(p), Q_1 = warner(1 - q)
    np.testing.assert_allclose(q_lambda(p, q, 0.0).matrix, warner(p).matrix, rtol=0, atol=1e-15)
    np.testing.assert_allclose(q_lambda(p, q, 1.0).matrix, warner(1 - q).matrix, rtol=0,
                               atol=1e-15)
    # eps_lambda = ln((p + lam d) / (q + (1 - lam) d)), here a >= b since p >= 1/2 >= q + d
    if b > 1e-6:
        assert epsilon_ldp(m) == pytest.approx(math.log(a / b), abs=1e-9)


def test_q_lambda_reference_values():
    # s.4 sanity example p = .6, q = .2 (d = .2): eps^O = eps(Q_0) = ln 1.5,
    # eps^W = eps(Q_1) = ln((1-q)/q) = ln 4, and Q_.5 = warner(.7): ln(.7/.3)
    assert epsilon_ldp(q_lambda(0.6, 0.2, 0.0)) == pytest.approx(math.log(1.5), abs=1e-12)
    assert epsilon_ldp(q_lambda(0.6, 0.2, 1.0)) == pytest.approx(math.log(4), abs=1e-12)
    assert epsilon_ldp(q_lambda(0.6, 0.2, 0.5)) == pytest.approx(math.log(7 / 3), abs=1e-12)


# --------------------------------------------------------------------------- k-ary mechanisms


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 8), EPS)
def test_randomized_response(k, eps):
    m = randomized_response(k, eps)
    assert m.shape == (k, k)
    assert_rows_sum_to_one(m)
    # KOV16: e^eps / (e^eps + k - 1) on the diagonal, 1 / (e^eps + k - 1) elsewhere
    z = math.exp(eps) + k - 1
    expected = np.full((k, k), 1 / z)
    np.fill_diagonal(expected, math.exp(eps) / z)
    np.testing.assert_allclose(m.matrix, expected, rtol=1e-13)
    assert epsilon_ldp(m) == pytest.approx(eps, abs=1e-12)


def unary_brute(k: int, p: float, q: float) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """P(v | x) = prod_i Bernoulli(v_i; p if i == x else q), over all 2^k bit vectors."""
    outputs = list(itertools.product((0, 1), repeat=k))
    Q = np.empty((k, len(outputs)))
    for x in range(k):
        for j, v in enumerate(outputs):
            Q[x, j] = math.prod((p if i == x else q) if bit else (1 - (p if i == x else q))
                                for i, bit in enumerate(v))
    return Q, outputs


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), EPS, st.booleans())
def test_unary_encoding(k, eps, optimized):
    m = unary_encoding(k, eps, optimized=optimized)
    if optimized:  # OUE (Wang et al. 2017): p = 1/2, q = 1/(1 + e^eps)
        p, q = 0.5, 1 / (1 + math.exp(eps))
    else:  # symmetric: p = e^(eps/2) / (1 + e^(eps/2)), q = 1 - p
        p = math.exp(eps / 2) / (1 + math.exp(eps / 2))
        q = 1 - p
    Q, outputs = unary_brute(k, p, q)
    assert m.outputs == tuple(outputs)
    np.testing.assert_allclose(m.matrix, Q, rtol=1e-12, atol=1e-300)
    assert_rows_sum_to_one(m)
    # worst ratio: bit x on, bit x' off: (p/q) ((1-q)/(1-p)) = e^eps for both variants
    assert epsilon_ldp(m) == pytest.approx(eps, abs=1e-9)


def test_unary_encoding_size_limit_is_documented_k():
    m = unary_encoding(MAX_UNARY_K, 1.0, optimized=True)
    assert m.shape == (MAX_UNARY_K, 2 ** MAX_UNARY_K)
    assert epsilon_ldp(m) == pytest.approx(1.0, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 7), st.data(), EPS)
def test_subset_selection(k, data, eps):
    d = data.draw(st.integers(1, k - 1))
    m = subset_selection(k, d, eps)
    subsets = list(itertools.combinations(range(k), d))
    assert m.outputs == tuple(subsets)
    assert_rows_sum_to_one(m)
    # Ye & Barg 2018: e^eps [x in S] + [x not in S] over C(k-1, d-1) e^eps + C(k-1, d)
    z = math.comb(k - 1, d - 1) * math.exp(eps) + math.comb(k - 1, d)
    for x in range(k):
        for j, S in enumerate(subsets):
            expected = (math.exp(eps) if x in S else 1.0) / z
            assert m.matrix[x, j] == pytest.approx(expected, rel=1e-12)
    assert epsilon_ldp(m) == pytest.approx(eps, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 20), EPS)
def test_hadamard_response(k, eps):
    m = hadamard_response(k, epsilon=eps)
    K = 1
    while K <= k:  # smallest power of two > k
        K *= 2
    assert m.shape == (k, K)
    H = scipy.linalg.hadamard(K)
    C = H[1:k + 1] == 1  # row 0 (all ones) is skipped; |C_x| = K/2
    assert (C.sum(axis=1) == K // 2).all()
    hi = math.exp(eps) / ((K / 2) * (math.exp(eps) + 1))
    lo = 1 / ((K / 2) * (math.exp(eps) + 1))
    np.testing.assert_allclose(m.matrix, np.where(C, hi, lo), rtol=1e-12)
    assert_rows_sum_to_one(m)
    assert epsilon_ldp(m) == pytest.approx(eps, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 9), st.floats(0.0, 4.0))
def test_truncated_geometric(n, eps):
    m = truncated_geometric(n, eps)
    assert m.inputs == m.outputs == tuple(range(n))
    assert_rows_sum_to_one(m)
    a = math.exp(-eps)
    for x in range(n):  # Ghosh-Roughgarden-Sundararajan 2012
        for y in range(n):
            if y == 0:
                expected = a ** x / (1 + a)
            elif y == n - 1:
                expected = a ** (n - 1 - x) / (1 + a)
            else:  # 1 - a as -expm1(-eps): exact even for eps ~ 1e-200
                expected = -math.expm1(-eps) / (1 + a) * a ** abs(x - y)
            assert m.matrix[x, y] == pytest.approx(expected, rel=1e-12, abs=1e-300)
    # metric privacy with |x - x'|: exactly eps; over all inputs: (n - 1) eps
    assert epsilon_metric(m, line_distance(n)) == pytest.approx(eps, abs=1e-9)
    assert epsilon_metric(m, nx.path_graph(n)) == pytest.approx(eps, abs=1e-9)
    assert epsilon_ldp(m) == pytest.approx((n - 1) * eps, abs=1e-9)


def test_line_distance():
    np.testing.assert_array_equal(line_distance(3), [[0, 1, 2], [1, 0, 1], [2, 1, 0]])


def test_epsilon_zero_gives_uniform_rows():
    for m in (randomized_response(4, 0.0), hadamard_response(5, 0.0),
              subset_selection(5, 2, 0.0), unary_encoding(3, 0.0)):
        assert epsilon_ldp(m) == 0.0
        assert (m.matrix == m.matrix[0]).all()


def test_deletion_counterexample_rows():
    # Huang & Canonne Lemma 4.2: R(0) = [e^eps/3, e^-eps(1/3 - delta), rest],
    # R(1) = [e^-eps/3, e^eps/3 + delta, rest], eps = 1/4, delta = 1/6
    a, b = math.exp(0.25), math.exp(-0.25)
    R = deletion_counterexample()
    assert R.outputs == (1, 2, 3)
    np.testing.assert_allclose(R.matrix[0], [a / 3, b / 6, 1 - a / 3 - b / 6], rtol=1e-14)
    np.testing.assert_allclose(R.matrix[1], [b / 3, a / 3 + 1 / 6, 1 - b / 3 - a / 3 - 1 / 6],
                               rtol=1e-14)


SOURCES = {  # constructor -> the source its docstring must cite (author and year)
    "warner": ("Warner", "1965"),
    "randomized_response": ("Kairouz", "2016"),
    "dont_know": ("Li et al.", "2022"),
    "q_lambda": ("Li et al.", "2022"),
    "unary_encoding": ("Wang et al.", "2017"),
    "subset_selection": ("Ye & Barg", "2018"),
    "hadamard_response": ("Acharya", "2019"),
    "truncated_geometric": ("Ghosh", "2012"),
    "deletion_counterexample": ("Huang & Canonne", "Lemma 4.2"),
}


def test_catalog_docstrings_give_a_source_and_the_matrix():
    """Every constructor's docstring cites its source (author and year or lemma) and gives
    its matrix as a formula: a ``.. math::`` block that defines ``Q`` (or the rows/masses)
    entry by entry."""
    assert set(SOURCES) == set(CATALOG)
    for name, ctor in CATALOG.items():
        doc = ctor.__doc__ or ""
        for needle in SOURCES[name]:
            assert needle in doc, (name, needle)
        assert ".. math::" in doc, name
        math_block = doc.split(".. math::", 1)[1]
        assert any(marker in math_block for marker in ("Q[", "Q_", "R(", "begin{array}")), name


def test_unary_encoding_docstring_gives_the_entry_formula():
    doc = unary_encoding.__doc__
    assert r"Q[x, v] = p^{v_x} (1-p)^{1-v_x} \prod_{i \ne x} q^{v_i} (1-q)^{1-v_i}" in doc


# --------------------------------------------------------------------------- large epsilon
# Rule: a catalog matrix is returned only when its measured privacy is its nominal epsilon;
# at an epsilon where the smallest exact entry is below 2^-1022 (not a normal double) the
# constructor raises InvalidParameterError naming epsilon and the largest supported one.
# Tolerance: 1e-9 relative, plus 1e-14 absolute because entries of order 1 carry an
# absolute rounding of ~1e-16, which no relative bound can beat as eps -> 0.


def close_to(measured: float, eps: float) -> bool:
    return abs(measured - eps) <= 1e-9 * eps + 1e-14


FRACTIONS = st.one_of(st.floats(0.0, 1.0), st.just(1.0), st.floats(0.999, 1.0),
                      st.floats(0.0, 1e-6))
"""Where in [0, eps_max] to test: anywhere, at the maximum, just below it, near 0."""


@st.composite
def catalog_at_large_epsilon(draw):
    """(name, constructor call, eps_max, measure of the mechanism's own guarantee)."""
    name = draw(st.sampled_from(["randomized_response", "unary_encoding", "unary_optimized",
                                 "subset_selection", "hadamard_response",
                                 "truncated_geometric"]))
    k = draw(st.integers(2, 6))
    if name == "randomized_response":
        top = max_epsilon(name, k=k)
        return name, lambda e: randomized_response(k, e), top, epsilon_ldp
    if name in ("unary_encoding", "unary_optimized"):
        opt = name == "unary_optimized"
        top = max_epsilon("unary_encoding", k=k, optimized=opt)
        return name, lambda e: unary_encoding(k, e, optimized=opt), top, epsilon_ldp
    if name == "subset_selection":
        d = draw(st.integers(1, k - 1))
        return (name, lambda e: subset_selection(k, d, e), max_epsilon(name, k=k, d=d),
                epsilon_ldp)
    if name == "hadamard_response":
        return name, lambda e: hadamard_response(k, e), max_epsilon(name, k=k), epsilon_ldp
    n = draw(st.integers(2, 40))
    # its own guarantee: eps-metric privacy for |x - x'|
    return (name, lambda e: truncated_geometric(n, e), max_epsilon(name, n=n),
            lambda m: epsilon_metric(m, line_distance(n)))


@pytest.mark.slow  # 1.5-2.5 s, no solver path: left out of the quick and floors runs
@settings(max_examples=300, deadline=None)
@given(catalog_at_large_epsilon(), FRACTIONS)
def test_measured_epsilon_is_nominal_up_to_the_documented_maximum(case, frac):
    name, build, top, measure = case
    eps = frac * top
    m = build(eps)
    assert close_to(measure(m), eps), (name, eps, measure(m))
    positive = m.matrix[m.matrix > 0]
    # (truncated_geometric at a subnormal eps has interior entries ~ eps/2: documented)
    if name != "truncated_geometric" or eps >= 1e-300:
        # every entry the formula makes positive is (about) a normal double; slack 1e-12
        # relative: eps_max ~ 708 is itself rounded by 1e-13, and so is exp(-eps_max)
        assert positive.min() >= TINY * (1 - 1e-12), (name, eps)
    if name != "truncated_geometric":
        assert (m.matrix > 0).all(), name  # an LDP matrix with a zero would be inf-LDP


@settings(max_examples=150, deadline=None)
@given(catalog_at_large_epsilon(), st.one_of(st.just(0.0), st.floats(1e-12, 1e6)))
def test_above_the_documented_maximum_a_typed_error_names_both(case, excess):
    _, build, top, _ = case
    eps = np.nextafter(top, math.inf) if excess == 0.0 else top * (1 + excess)
    eps = float(eps)
    with pytest.raises(InvalidParameterError) as info:
        build(eps)
    msg = str(info.value)
    assert f"epsilon = {eps!r}" in msg
    assert f"largest supported epsilon here is {top!r}" in msg


LN2 = math.log(2.0)


def test_documented_maxima_closed_forms():
    # smallest entry = 2^-1022 (see each docstring), solved by hand
    assert max_epsilon("randomized_response", k=3) == pytest.approx(1022 * LN2, rel=1e-15)
    # unary symmetric: q^k = 2^-1022 with q = 1/(1 + e^(eps/2)) -> 2 ln(2^(1022/k) - 1)
    assert max_epsilon("unary_encoding", k=2) == pytest.approx(1022 * LN2, rel=1e-15)
    assert max_epsilon("unary_encoding", k=12) == pytest.approx(
        2 * math.log(2 ** (1022 / 12) - 1), rel=1e-15)
    assert max_epsilon("unary_encoding", k=12) == pytest.approx(118.066, abs=1e-3)
    # unary optimized: q^(k-1)/2 = 2^-1022 with q = 1/(1 + e^eps)
    assert max_epsilon("unary_encoding", k=2, optimized=True) == pytest.approx(1021 * LN2,
                                                                               rel=1e-15)
    assert max_epsilon("unary_encoding", k=12, optimized=True) == pytest.approx(64.337,
                                                                                abs=1e-3)
    # hadamard: 1/((K/2)(e^eps + 1)) = 2^-1022, K = 4 for k = 2, 3; K = 8 for k = 4..7
    assert max_epsilon("hadamard_response", k=3) == pytest.approx(1021 * LN2, rel=1e-15)
    assert max_epsilon("hadamard_response", k=5) == pytest.approx(1020 * LN2, rel=1e-15)
    # subset selection: C(k-1, d-1) e^eps + C(k-1, d) = 2^1022; k = 5, d = 2: 4 e^eps + 6
    assert max_epsilon("subset_selection", k=5, d=2) == pytest.approx(
        1022 * LN2 - math.log(4), rel=1e-15)
    # truncated geometric, n = 3: corner alpha^2/(1 + alpha): e^(2 eps) + e^eps = 2^1022,
    # a quadratic in e^eps with X = 2^1022
    root = 2.0 ** 511 - 0.5  # (-1 + sqrt(1 + 4 X)) / 2 = sqrt(X) - 1/2 + O(X^-1/2)
    assert max_epsilon("truncated_geometric", n=3) == pytest.approx(math.log(root), rel=1e-14)
    assert max_epsilon("deletion_counterexample") == math.log(3)


@pytest.mark.parametrize("n", [2, 5, 40, 1100, 3000])
def test_truncated_geometric_maximum_against_mpmath(n):
    """The bisection's eps_max against the exact smallest entry in 60-digit arithmetic."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 60

    def smallest(eps: float):
        a = mpmath.exp(-mpmath.mpf(eps))
        corner = a ** (n - 1) / (1 + a)
        if n < 3:
            return corner
        return min(corner, (1 - a) / (1 + a) * a ** (n - 2))

    top = max_epsilon("truncated_geometric", n=n)
    tiny = mpmath.mpf(2) ** -1022
    assert smallest(top) >= tiny * (1 - mpmath.mpf(10) ** -12)
    assert smallest(top * (1 + 1e-9)) < tiny
    m = truncated_geometric(n, top)
    assert m.matrix[m.matrix > 0].min() >= TINY * (1 - 1e-12)
    if n <= 40:  # (the measure is O(n^3))
        assert close_to(epsilon_metric(m, line_distance(n)), top)


def test_constructors_at_large_epsilon_stay_exact():
    # symmetric unary encoding at eps = 60: q = 1 - p used to cancel (+0.002 excess)
    assert epsilon_ldp(unary_encoding(3, 60.0)) == pytest.approx(60.0, rel=1e-12)
    # optimized at eps = 80 used to give NaN (q rounded to 0)
    m = unary_encoding(3, 80.0, optimized=True)
    assert np.isfinite(m.matrix).all()
    assert epsilon_ldp(m) == pytest.approx(80.0, rel=1e-12)
    # eps = 705 used to zero the off-diagonal (inf-LDP)
    assert epsilon_ldp(randomized_response(3, 705.0)) == pytest.approx(705.0, rel=1e-12)
    assert epsilon_ldp(hadamard_response(3, 705.0)) == pytest.approx(705.0, rel=1e-12)
    for call in (lambda: unary_encoding(3, 800.0, optimized=True),  # was OverflowError
                 lambda: randomized_response(3, 800.0),
                 lambda: deletion_counterexample(800.0)):          # was OverflowError
        with pytest.raises(InvalidParameterError, match=r"800\.0"):
            call()


@pytest.mark.parametrize("flag", ["no", "False", 0, 1, None, 1.0])
def test_unary_encoding_optimized_must_be_a_bool(flag):
    with pytest.raises(InvalidParameterError, match=f"optimized must be True or False, got "
                                                    f"{re.escape(repr(flag))}"):
        unary_encoding(3, 1.0, optimized=flag)


def test_unary_encoding_accepts_numpy_bools():
    assert unary_encoding(3, 1.0, optimized=np.bool_(True)) == unary_encoding(3, 1.0, True)


# --------------------------------------------------------------------------- never above nominal
# Rule: the stored matrix of every constructor with an epsilon is exactly at most
# epsilon-private in its own notion (every ratio of stored floats, as rationals, at most
# e^eps), decided by verify_exact (rational arithmetic, an independent method). The exact
# epsilon is below the nominal one by at most about 2^-52 (one ulp of a ratio of two floats,
# absolute; relative 1e-4 at eps = 1e-12 is the float granularity, not a defect) plus 1e-15
# relative (the rounding of exp near -700), and the float measure is an upper bound at most
# 8 ulps above the exact value.


def assert_at_most_nominal(m: Mechanism, notion: str, eps: float, distance=None) -> None:
    v = verify_exact(m, notion, eps, distance=distance)
    assert v.holds is True, v.message
    measured = epsilon_ldp(m) if notion == "ldp" else epsilon_metric(m, distance)
    # 8 ulps of the log ratio; metric: one more rounding, of the quotient by the distance
    assert measured <= eps + (8 if notion == "ldp" else 10) * math.ulp(eps), (measured, eps)
    assert eps - measured <= 2.0 ** -50 + 1e-15 * eps, (measured, eps)


@st.composite
def catalog_for_exact_check(draw):
    """(name, constructor, notion, distance, eps_max), sizes within verify_exact's 400."""
    name = draw(st.sampled_from(["randomized_response", "unary_encoding", "unary_optimized",
                                 "subset_selection", "hadamard_response",
                                 "truncated_geometric"]))
    if name == "randomized_response":
        k = draw(st.integers(2, 20))
        return (name, lambda e: randomized_response(k, e), "ldp", None,
                max_epsilon(name, k=k))
    if name in ("unary_encoding", "unary_optimized"):
        k = draw(st.integers(2, 6))
        opt = name == "unary_optimized"
        return (name, lambda e: unary_encoding(k, e, optimized=opt), "ldp", None,
                max_epsilon("unary_encoding", k=k, optimized=opt))
    if name == "subset_selection":
        k = draw(st.integers(2, 7))
        d = draw(st.integers(1, k - 1))
        return (name, lambda e: subset_selection(k, d, e), "ldp", None,
                max_epsilon(name, k=k, d=d))
    if name == "hadamard_response":
        k = draw(st.integers(2, 12))
        return (name, lambda e: hadamard_response(k, e), "ldp", None, max_epsilon(name, k=k))
    n = draw(st.integers(2, 20))
    return (name, lambda e: truncated_geometric(n, e), "metric", line_distance(n),
            max_epsilon(name, n=n))


NOMINAL = st.one_of(st.floats(-12, 0).map(lambda e: 10.0 ** e),  # 1e-12 .. 1, log-uniform
                    st.sampled_from([1e-12, 1e-9, 1.0]), st.floats(0.0, 1.0))
"""An epsilon as a fraction of eps_max (1 = the maximum), or itself when it is tiny."""


@pytest.mark.slow  # 2.5-11 s: left out of the quick and the floors runs
@settings(max_examples=200, deadline=None)
@given(catalog_for_exact_check(), NOMINAL, st.booleans())
def test_every_constructor_is_exactly_at_most_its_nominal_epsilon(case, x, absolute):
    _, build, notion, D, top = case
    eps = x if absolute else x * top  # tiny epsilons as themselves; else up to eps_max
    assume(eps >= 1e-12)
    assert_at_most_nominal(build(eps), notion, eps, D)


@pytest.mark.parametrize(("make", "notion", "D"), [
    (lambda e: randomized_response(2, e), "ldp", None),
    (lambda e: randomized_response(5, e), "ldp", None),
    (lambda e: unary_encoding(4, e), "ldp", None),
    (lambda e: unary_encoding(4, e, optimized=True), "ldp", None),
    (lambda e: subset_selection(6, 2, e), "ldp", None),
    (lambda e: hadamard_response(6, e), "ldp", None),
    (lambda e: truncated_geometric(7, e), "metric", line_distance(7)),
])
@pytest.mark.parametrize("eps", [1e-12, 1e-9, 1e-6, 0.5, 1.0, 20.0, 64.0])
def test_pinned_nominal_epsilons(make, notion, D, eps):
    assert_at_most_nominal(make(eps), notion, eps, D)


def test_stored_matrices_round_in_the_safe_direction():
    # RR(5, 1e-12) stored exact epsilon 1.0000334e-12 (3.3e-5 above nominal) and RR(2, 1)
    # exceeded 1 by 1e-16 (verify_exact said False); now both hold exactly, and the rows
    # still sum to 1 within an ulp
    for m, eps in ((randomized_response(5, 1e-12), 1e-12), (randomized_response(2, 1.0), 1.0)):
        v = verify_exact(m, "ldp", eps)
        assert v.holds is True and v.ratio <= Fraction(math.exp(eps)) * (1 + Fraction(1, 10**15))
        assert np.abs(m.matrix.sum(axis=1) - 1).max() <= 2.0 ** -52
    # the tiny-epsilon guarantee is nearly all kept: exact epsilon within 2^-52 below 1e-12
    assert 1e-12 - 2.0 ** -52 <= math.log(verify_exact(randomized_response(5, 1e-12), "ldp",
                                                       1e-12).ratio) <= 1e-12


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.floats(0.0, math.log(3)), st.floats(0.0, 36.0)))
def test_two_output_constructors_store_rows_summing_to_exactly_one(eps):
    # up to eps = ln 3 (off-diagonal >= 1/4) rows are (p, 1 - p) with 1 - p exact
    # (Sterbenz): the total is 1 as a rational; above, within 2 ulps of 1. The other
    # constructors that give randomized response on two outputs store the same floats.
    m = randomized_response(2, eps)
    for row in m.matrix:
        total = Fraction(row[0]) + Fraction(row[1])
        if 1 / (1 + math.exp(eps)) >= 0.25:
            assert total == 1
        else:
            assert abs(total - 1) <= Fraction(2.0 ** -51)
    assert_at_most_nominal(m, "ldp", eps)
    np.testing.assert_array_equal(subset_selection(2, 1, eps).matrix, m.matrix)
    np.testing.assert_array_equal(truncated_geometric(2, eps).matrix, m.matrix)


def test_subnormal_epsilon_gives_equal_ratios():
    # e^-eps rounds to 1 at 40 digits below eps ~ 1e-40: the bracket's end is then 1 and the
    # helper asks for ratio <= 1 (the unclamped end 1 + 1e-39 raised the subnormal interior
    # entries 5e-324 -> 1e-323, a ratio 2, and the edge column by ulps: metric epsilon ln 2)
    m = truncated_geometric(3, 1.75e-321)
    assert verify_exact(m, "metric", 1.75e-321, distance=line_distance(3)).holds is True
    assert epsilon_metric(m, line_distance(3)) == 0.0
