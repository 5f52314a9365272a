"""Problem files (mechdesign.io.problems): every file in problems/ solves to its [expected] value,
its mechanism passes an independent privacy measurement, and bad files are refused with a
typed error that names the key and the value.

Reference values are recomputed here by methods that share nothing with the design layer:
closed forms (with their derivations in the files), scipy LPs written out in full (no cvxpy)
for the count query and the geo grids, and direct numpy evaluations of each objective.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from scipy.optimize import linprog

from mechdesign import catalog
from mechdesign.accounting.amplification import shuffle_delta
from mechdesign.accounting.composition import delta_composed
from mechdesign.accounting.notions import Composed, RenyiLDP, Shuffled
from mechdesign.design import EstimationVariance, ExpectedLoss, MutualInformation, WorstCaseLoss
from mechdesign.errors import FileFormatError, SizeLimitError, ValidationError
from mechdesign.evidential import EvidentialMechanism
from mechdesign.io.problems import (
    Expected,
    euclidean_grid,
    grid_graph,
    load_problem,
    loads_problem,
)
from mechdesign.neighbors import distance_matrix, greedy_spanner
from mechdesign.privacy import LDP, SLDP, WLDP, ApproxLDP, DeletionLDP, MetricDP
from mechdesign.privacy.measures import (
    delta_deletion,
    delta_ldp,
    epsilon_deletion,
    epsilon_ldp,
    epsilon_metric,
    epsilon_sldp,
    epsilon_wldp,
)
from tests.paths import PROBLEMS

FILES = sorted(PROBLEMS.glob("*.toml"))
TOL = 1e-9
E = math.e


@pytest.fixture(scope="module")
def solved() -> dict:
    """Each problem file solved once: name -> (ProblemFile, DesignResult)."""
    out = {}
    for f in FILES:
        pf = load_problem(f)
        out[f.name] = (pf, pf.problem.solve())
    return out


# ------------------------------------------------------------------ independent re-measures
def ldp_ratio_brute(M: np.ndarray) -> float:
    """max_{x, x', y} Q[x,y]/Q[x',y] by plain loops (inf when 0 is compared with > 0)."""
    worst = 1.0
    for x, xp in itertools.permutations(range(M.shape[0]), 2):
        for y in range(M.shape[1]):
            a, b = M[x, y], M[xp, y]
            if a > 0:
                worst = max(worst, math.inf if b == 0 else a / b)
    return worst


def check_privacy_independently(notion, mech) -> None:
    """The analysis layer, plus a brute-force loop where one is cheap."""
    if isinstance(notion, LDP):
        assert epsilon_ldp(mech) <= notion.epsilon + TOL
        assert ldp_ratio_brute(mech.matrix) <= math.exp(notion.epsilon) * (1 + TOL)
    elif isinstance(notion, ApproxLDP):
        assert delta_ldp(mech, notion.epsilon) <= notion.delta + TOL
        # brute force: the hockey-stick sum over every ordered pair
        Q, e = mech.matrix, math.exp(notion.epsilon)
        for x, xp in itertools.permutations(range(Q.shape[0]), 2):
            assert np.maximum(Q[x] - e * Q[xp], 0).sum() <= notion.delta + TOL
    elif isinstance(notion, DeletionLDP):
        if notion.delta == 0:
            assert epsilon_deletion(mech).epsilon <= notion.epsilon + TOL
        else:
            assert delta_deletion(mech, notion.epsilon) <= notion.delta + TOL
    elif isinstance(notion, MetricDP):
        assert epsilon_metric(mech, notion.distance) <= notion.epsilon + TOL
        Q = mech.matrix
        D = distance_matrix(notion.distance, mech.inputs)
        for x, xp in itertools.permutations(range(len(D)), 2):
            bound = np.exp(notion.epsilon * D[x, xp]) * Q[xp] * (1 + TOL)
            assert (Q[x] <= bound + 1e-300).all(), (x, xp)
    elif isinstance(notion, SLDP):
        assert isinstance(mech, EvidentialMechanism)
        assert epsilon_sldp(mech, notion.kind) <= notion.epsilon + TOL
        if notion.kind == "mass":
            assert ldp_ratio_brute(mech.masses) <= math.exp(notion.epsilon) * (1 + TOL)
    elif isinstance(notion, WLDP):
        assert epsilon_wldp(mech) <= notion.epsilon + TOL
    elif isinstance(notion, RenyiLDP):
        # the definition, summed directly over every ordered pair
        Q, a = mech.matrix, notion.alpha
        for x, xp in itertools.permutations(range(Q.shape[0]), 2):
            s = np.sum(Q[x] ** a * Q[xp] ** (1 - a))
            assert math.log(s) / (a - 1) <= notion.epsilon + TOL
    elif isinstance(notion, Composed):
        # the exact composition of the returned matrix, by the accounting layer's compose
        assert delta_composed(mech, notion.epsilon, notion.uses).upper <= notion.delta
    elif isinstance(notion, Shuffled):
        # the clone bound at the brute-force local epsilon
        eps0 = math.log(ldp_ratio_brute(mech.matrix))
        assert shuffle_delta(eps0 * (1 + TOL), notion.n, notion.epsilon).upper <= (
            notion.delta * (1 + 1e-6))
    else:  # pragma: no cover
        raise AssertionError(f"no independent check for {notion!r}")


def objective_independently(objective, mech) -> float:
    """The objective recomputed from its definition with plain numpy."""
    Q = mech.masses if isinstance(mech, EvidentialMechanism) else mech.matrix
    if isinstance(objective, ExpectedLoss):
        return float(sum(objective.prior[x] * Q[x] @ objective.loss[x] for x in range(len(Q))))
    if isinstance(objective, WorstCaseLoss):
        return float(max(Q[x] @ objective.loss[x] for x in range(len(Q))))
    pi = objective.prior
    lam = pi @ Q
    if isinstance(objective, MutualInformation):
        total = 0.0
        for x, y in itertools.product(range(Q.shape[0]), range(Q.shape[1])):
            if Q[x, y] > 0:
                total += pi[x] * Q[x, y] * math.log(Q[x, y] / lam[y])
        return total
    assert isinstance(objective, EstimationVariance) and objective.criterion == "A"
    live = lam > 0
    fisher = (Q[:, live] / lam[live]) @ Q[:, live].T
    k = len(pi)
    P = np.eye(k) - 1.0 / k
    return float(np.trace(np.linalg.pinv(P @ fisher @ P)))  # U (U^T I U)^-1 U^T


# ------------------------------------------------------------------ every file
def test_the_library_of_problems_covers_the_literature():
    names = {f.stem for f in FILES}
    assert len(FILES) >= 8
    for required in ("krr_hamming", "holohan_binary", "deletion_ldp", "count_query_geometric",
                     "geo_grid_3x3", "mutual_information_binary",
                     "subset_selection_estimation", "warner_evidential"):
        assert required in names
    notions = {type(load_problem(f).problem.privacy) for f in FILES}
    assert {LDP, ApproxLDP, DeletionLDP, MetricDP, SLDP} <= notions


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_every_problem_file_meets_its_expected_value(path, solved):
    pf, res = solved[path.name]
    assert pf.expected is not None, "every literature instance carries [expected]"
    assert pf.expected.source.strip() and pf.expected.derivation.strip()
    assert str(res.status) == "optimal"
    assert pf.expected.check(res.value), (res.value, pf.expected)
    assert res.certificate is not None and res.certificate.met
    mech = res.mechanism
    check_privacy_independently(pf.problem.privacy, mech)
    np.testing.assert_allclose(objective_independently(pf.problem.objective, mech), res.value,
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_solve_runs_the_method_its_plan_names(path, solved):
    pf, res = solved[path.name]
    assert res.method == pf.problem.plan().method.value


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_exact_optima_are_reported_global(path, solved):
    pf, res = solved[path.name]
    # a spanner's constraints are stricter than metric privacy: optimal over them only
    spanner = getattr(pf.problem.privacy, "spanner", None)
    if isinstance(pf.problem.privacy, Composed | Shuffled):  # per-use routes, no global bound
        assert res.optimum == "local"
    else:
        assert res.optimum == ("spanner" if spanner else "global")


# ------------------------------------------------------------------ references, recomputed
def expected_of(name: str) -> Expected:
    pf = load_problem(PROBLEMS / name)
    assert pf.expected is not None
    return pf.expected


def test_closed_form_references_match_the_files():
    """Each closed form, evaluated here, is the number written in the file."""
    def h(p: float) -> float:
        return -p * math.log(p) - (1 - p) * math.log(1 - p)

    def krr(k: int, eps: float) -> float:
        return (k - 1) / (math.exp(eps) + k - 1)

    ee2 = math.exp(2.0)
    p4, q4 = ee2 / (ee2 + 3), 1 / (ee2 + 3)
    ss = [(10 - 1) ** 2 * (d * math.exp(0.5) + 10 - d) ** 2
          / (math.expm1(0.5) ** 2 * d * (10 - d) * 10) for d in range(1, 10)]
    refs = {
        "krr_hamming.toml": krr(3, 1.0),
        "krr_minimax.toml": krr(5, 0.7),
        "holohan_binary.toml": 1 - (E + 0.05) / (E + 1),
        "approx_ldp_k4.toml": 1 - (math.exp(0.5) + 3 * 0.01) / (math.exp(0.5) + 3),
        "deletion_ldp.toml": 1 - min(E / 4, 1 - 3 / (4 * E)),
        "mutual_information_binary.toml": math.log(2) - h(E / (1 + E)),
        "mutual_information_k4_high_privacy.toml":
            math.log(2) - h(math.exp(0.5) / (1 + math.exp(0.5))),
        "mutual_information_k4_low_privacy.toml":
            math.log(4) + p4 * math.log(p4) + 3 * q4 * math.log(q4),
        "subset_selection_estimation.toml": min(ss),
        "warner_evidential.toml": 2 * (0.3 * 0.7 + E / (E - 1) ** 2),
        # Q11 <= e (1 - Q00) binds at the floor Q00 = 0.9: loss (2 - 0.9 - 0.1 e) / 2
        "custom_lp_floor.toml": (1.1 - 0.1 * E) / 2,
        # the (0.5, 0.05) cap on both ordered pairs: Holohan et al.'s binary optimum
        "custom_lp_hockey_stick.toml": 1 - (math.exp(0.5) + 0.05) / (math.exp(0.5) + 1),
    }
    assert int(np.argmin(ss)) + 1 == 4  # d = 4, as the file says
    assert round(min(ss), 4) == 127.2172  # docs/formulations.md
    for name, ref in refs.items():
        np.testing.assert_allclose(expected_of(name).value, ref, rtol=1e-13, err_msg=name)


def test_warner_variance_is_its_cramer_rao_bound_exactly():
    """lambda(1-lambda)/(2p-1)^2 = pi(1-pi) + p(1-p)/(2p-1)^2 (Warner 1965), in fractions;
    and p(1-p)/(2p-1)^2 = e^eps/(e^eps-1)^2 for p = e^eps/(1+e^eps)."""
    for p, pi in [(Fraction(3, 4), Fraction(3, 10)), (Fraction(7, 10), Fraction(1, 2)),
                  (Fraction(9, 10), Fraction(1, 7))]:
        lam = p * pi + (1 - p) * (1 - pi)
        assert lam * (1 - lam) / (2 * p - 1) ** 2 == pi * (1 - pi) + p * (1 - p) / (2 * p - 1) ** 2
    for r in (Fraction(2), Fraction(5, 2)):  # r = e^eps
        p = r / (1 + r)
        assert p * (1 - p) / (2 * p - 1) ** 2 == r / (r - 1) ** 2


def test_warner_evidential_returns_warner(solved):
    """No mass on "don't know"; the Yes/No masses are Warner's p = e/(1+e)."""
    _, res = solved["warner_evidential.toml"]
    ev = res.mechanism
    p = E / (1 + E)
    by_set = {B: ev.masses[:, j] for j, B in enumerate(ev.focal_sets)}
    np.testing.assert_allclose(by_set[frozenset({"Yes", "No"})], [0, 0], atol=1e-7)
    np.testing.assert_allclose(by_set[frozenset({"Yes"})], [p, 1 - p], atol=1e-6)


def geometric_remap_value(n: int, eps: float) -> float:
    """Ghosh et al.: the truncated geometric mechanism followed by the best remap, found by
    an LP over all row-stochastic remaps G (scipy HiGHS, no cvxpy)."""
    Q = catalog.truncated_geometric(n, eps).matrix
    L = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :]).astype(float)
    pi = np.full(n, 1.0 / n)
    # cost of G[y, z]: sum_x pi_x Q[x, y] L[x, z]
    cost = (Q.T * pi) @ L
    A_eq = np.kron(np.eye(n), np.ones(n))
    res = linprog(cost.ravel(), A_eq=A_eq, b_eq=np.ones(n), bounds=(0, None), method="highs")
    assert res.status == 0
    return float(res.fun)


def test_count_query_equals_the_remapped_geometric_mechanism(solved):
    ref = geometric_remap_value(11, 0.5)
    np.testing.assert_allclose(expected_of("count_query_geometric.toml").value, ref, rtol=1e-12)
    _, res = solved["count_query_geometric.toml"]
    np.testing.assert_allclose(res.value, ref, rtol=1e-9)
    # the remap matters: the geometric mechanism alone is worse
    G = catalog.truncated_geometric(11, 0.5).matrix
    L = np.abs(np.arange(11)[:, None] - np.arange(11)[None, :])
    assert (G * L).sum(axis=1).mean() > ref + 0.05


def pairwise_metric_lp(D: np.ndarray, eps: float) -> float:
    """All-pairs metric-privacy LP with loss D and a uniform prior, written out for scipy:
    Q[x,y] - e^{eps D[x,x']} Q[x',y] <= 0 for every ordered pair and output."""
    k = len(D)
    rows = []
    for x, xp in itertools.permutations(range(k), 2):
        f = math.exp(eps * D[x, xp])
        for y in range(k):
            r = np.zeros(k * k)
            r[x * k + y], r[xp * k + y] = 1.0, -f
            rows.append(r)
    res = linprog((D / k).ravel(), A_ub=np.array(rows), b_ub=np.zeros(len(rows)),
                  A_eq=np.kron(np.eye(k), np.ones(k)), b_eq=np.ones(k), bounds=(0, None),
                  method="highs-ds")
    assert res.status == 0
    return float(res.fun)


def test_geo_grid_references_from_an_independent_lp(solved):
    exact3 = pairwise_metric_lp(euclidean_grid(3, 3), 1.0)
    np.testing.assert_allclose(expected_of("geo_grid_3x3.toml").value, exact3, rtol=1e-9)
    np.testing.assert_allclose(solved["geo_grid_3x3.toml"][1].value, exact3, rtol=1e-7)
    exact4 = pairwise_metric_lp(euclidean_grid(4, 4), 1.0)
    np.testing.assert_allclose(expected_of("geo_grid_4x4_spanner.toml").value, exact4,
                               rtol=1e-9)
    _, res = solved["geo_grid_4x4_spanner.toml"]
    assert exact4 - 1e-9 <= res.value <= exact4 * 1.03  # the spanner's price, bounded
    assert any("spanner" in n and "dilation" in n for n in res.notes)


@pytest.mark.slow
def test_symmetric_grid_reference_from_the_unreduced_spanner_lp(solved):
    # the full 1.1-spanner LP of the 8 x 8 grid (4096 variables, every output), sparse for
    # scipy's HiGHS without cvxpy and without the symmetry reduction (its interior point
    # method, with crossover to a vertex: 4x faster than its dual simplex here, same value)
    n = 8
    D = euclidean_grid(n, n)
    k = n * n
    es, dil = greedy_spanner(D, 1.1)
    a = np.array([u for u, v, _ in es] + [v for u, v, _ in es])
    b = np.array([v for u, v, _ in es] + [u for u, v, _ in es])
    f = np.exp(D[a, b] / dil)
    i = np.repeat(np.arange(len(a)), k)
    y = np.tile(np.arange(k), len(a))
    r = np.arange(len(i))
    A_ub = sparse.csr_matrix((np.concatenate([np.ones(len(i)), -f[i]]),
                              (np.concatenate([r, r]), np.concatenate([a[i] * k + y,
                                                                       b[i] * k + y]))),
                             shape=(len(i), k * k))
    res = linprog((D / k).ravel(), A_ub=A_ub, b_ub=np.zeros(len(i)),
                  A_eq=sparse.kron(sparse.eye(k), np.ones((1, k))), b_eq=np.ones(k),
                  bounds=(0, None), method="highs-ipm")
    assert res.status == 0
    name = "geo_grid_8x8_symmetric.toml"
    np.testing.assert_allclose(expected_of(name).value, res.fun, rtol=1e-8)
    _, got = solved[name]
    np.testing.assert_allclose(got.value, res.fun, rtol=1e-7)
    assert any("symmetry reduction: group of order 8, 528 orbit variables" in note
               for note in got.notes)


def test_grid_helpers_are_the_metrics_they_name():
    D = euclidean_grid(2, 3)
    assert D[0, 5] == pytest.approx(math.sqrt(1 + 4))
    assert D[1, 4] == 1.0 and (np.diag(D) == 0).all() and (D == D.T).all()
    G = grid_graph(3, 4)
    manhattan = distance_matrix(G, list(range(12)))
    r, c = np.divmod(np.arange(12), 4)
    np.testing.assert_array_equal(manhattan, np.abs(r[:, None] - r) + np.abs(c[:, None] - c))


# ------------------------------------------------------------------ format features
def test_named_inline_and_csv_losses_agree(tmp_path):
    """The same k-RR problem with the loss given three ways has the same optimum."""
    (tmp_path / "L.csv").write_text("0,1,1\n1,0,1\n1,1,0\n")
    head = '[privacy]\nnotion = "ldp"\nepsilon = 1.0\n[objective]\nkind = "expected_loss"\n'
    values = []
    for loss in ('loss = "hamming"\nk = 3', "loss = [[0, 1, 1], [1, 0, 1], [1, 1, 0]]",
                 'loss = {csv = "L.csv"}', 'loss = "L.csv"'):
        pf = loads_problem(head + loss + "\n", base=tmp_path)
        values.append(pf.problem.solve().value)
    np.testing.assert_allclose(values, 2 / (E + 2), rtol=1e-9)


def test_labels_sizes_and_scalar_prior():
    pf = loads_problem("""
[privacy]
notion = "metric"
epsilon = 0.7
distance = "line"
[objective]
kind = "expected_loss"
loss = "absolute"
prior = [0.1, 0.2, 0.3, 0.4]
[inputs]
labels = ["a", "b", "c", "d"]
""")
    assert pf.problem.inputs == ("a", "b", "c", "d")
    res = pf.problem.solve()
    assert res.mechanism.inputs == ("a", "b", "c", "d")
    assert epsilon_metric(res.mechanism, np.abs(np.subtract.outer(range(4), range(4)))) \
        <= 0.7 + TOL
    two = loads_problem('[privacy]\nnotion = "ldp"\nepsilon = 1\n[objective]\n'
                        'kind = "estimation"\nprior = 0.3\n')
    np.testing.assert_array_equal(two.problem.objective.prior, [0.3, 0.7])
    np.testing.assert_allclose(two.problem.solve().value, 2 * (0.21 + E / (E - 1) ** 2),
                               rtol=1e-6)


def test_manhattan_grid_distance_csv_distance_and_weights(tmp_path):
    """grid:R:C is the grid graph; a CSV distance is read relative to the file."""
    D = euclidean_grid(2, 2)
    np.savetxt(tmp_path / "d.csv", D, delimiter=",")
    text = """
[privacy]
notion = "metric"
epsilon = 1.0
distance = "{d}"
[objective]
kind = "expected_loss"
loss = "distance"
"""
    graph = loads_problem(text.format(d="grid:2:2"))
    assert isinstance(graph.problem.privacy.distance, nx.Graph)
    csvp = loads_problem(text.format(d="d.csv"), base=tmp_path)
    inline = loads_problem(text.replace('"{d}"', str(D.tolist())))
    a, b = csvp.problem.solve().value, inline.problem.solve().value
    assert a == pytest.approx(b, rel=1e-9)
    np.testing.assert_allclose(a, pairwise_metric_lp(D, 1.0), rtol=1e-7)
    est = loads_problem('[privacy]\nnotion = "ldp"\nepsilon = 1\n[objective]\n'
                        'kind = "estimation"\nk = 3\nweights = [[1, 0, 0]]\n')
    assert est.problem.objective.weights.shape == (1, 3)


def test_wldp_and_sldp_pl_problems_solve_and_certify():
    for notion in ('"wldp"', '"sldp"\nkind = "pl"'):
        pf = loads_problem(f"""
[privacy]
notion = {notion}
epsilon = 1.0
[objective]
kind = "expected_loss"
loss = [[0, 1, 0.5], [1, 0, 0.5]]
[outputs]
labels = ["Yes", "No"]
focal_sets = [["Yes"], ["No"], ["Yes", "No"]]
""")
        res = pf.problem.solve()
        assert res.certificate.met
        check_privacy_independently(pf.problem.privacy, res.mechanism)


@pytest.mark.parametrize("relation, value, ok", [
    ("equal", 1.0, True), ("equal", 1.02, False), ("equal", 0.98, False),
    ("at_least", 1.009, True), ("at_least", 0.999, False),
    ("at_most", 0.991, True), ("at_most", 1.001, False),
])
def test_expected_relations(relation, value, ok):
    exp = Expected(1.0, rtol=0.01, atol=0.0, relation=relation, source="s")
    assert exp.check(value) is ok
    assert exp.check(float("nan")) is False and exp.check(None) is False


# ------------------------------------------------------------------ bad files
GOOD = {
    "privacy": {"notion": "ldp", "epsilon": 1.0},
    "objective": {"kind": "expected_loss", "loss": "hamming", "k": 3},
}


def toml_of(sections: dict) -> str:
    """A tiny TOML writer for the test tables (strings, numbers, lists, inline tables)."""
    def val(v):
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float) and math.isnan(v):
            return "nan"
        if isinstance(v, float) and math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if isinstance(v, list):
            return "[" + ", ".join(val(u) for u in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k} = {val(u)}" for k, u in v.items()) + "}"
        return repr(v)
    lines = [f"{k} = {val(v)}" for k, v in sections.items() if not isinstance(v, dict)]
    for name, table in sections.items():
        if isinstance(table, dict):
            lines.append(f"[{name}]")
            lines += [f"{k} = {val(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def variant(section: str, **changes) -> str:
    data = {k: dict(v) for k, v in GOOD.items()}
    data.setdefault(section, {})
    for key, value in changes.items():
        if value is None:
            data[section].pop(key, None)
        else:
            data[section][key] = value
    return toml_of(data)


BAD = [
    ("malformed TOML", "[privacy\nnotion = 'ldp'\n", ["malformed TOML"]),
    ("unknown notion", variant("privacy", notion="renyi"), ["notion", "'renyi'"]),
    ("unknown objective", variant("objective", kind="regret"), ["kind", "'regret'"]),
    ("unknown section", toml_of({**GOOD, "solver": {"name": "x"}}), ["solver"]),
    ("unknown top-level key", toml_of({**GOOD, "titel": "x"}), ["titel"]),
    ("key of another notion", variant("privacy", delta=0.1), ["delta", "'ldp'"]),
    ("unknown objective key", variant("objective", lossy="hamming"), ["lossy"]),
    ("negative epsilon", variant("privacy", epsilon=-1.0), ["epsilon = -1.0", ">= 0"]),
    ("epsilon nan", variant("privacy", epsilon=float("nan")), ["epsilon", "finite"]),
    ("epsilon inf", variant("privacy", epsilon=float("inf")), ["epsilon", "finite"]),
    ("epsilon bool", variant("privacy", epsilon=True), ["epsilon = True", "number"]),
    ("epsilon missing", variant("privacy", epsilon=None), ["epsilon", "missing"]),
    ("delta 2", variant("privacy", notion="approx_ldp", delta=2.0), ["delta = 2.0", "<= 1"]),
    ("delta missing", variant("privacy", notion="approx_ldp"), ["delta", "missing"]),
    ("privacy missing", toml_of({"objective": GOOD["objective"]}), ["[privacy]", "missing"]),
    ("privacy array of tables",
     '[[privacy]]\nnotion = "ldp"\n' + toml_of({"objective": GOOD["objective"]}),
     ["privacy"]),
    ("loss wrong shape", variant("objective", loss=[[0, 1], [1, 0]], k=3), ["2 rows", "3"]),
    ("loss ragged", variant("objective", loss=[[0, 1], [1]], k=None), ["lengths"]),
    ("loss nan", variant("objective", loss=[[0.0, float("nan")], [1.0, 0.0]], k=None),
     ["loss", "nan"]),
    ("loss strings", variant("objective", loss=[["0", "1"], ["1", "0"]], k=None),
     ["'0'", "not a number"]),
    ("missing csv", variant("objective", loss={"csv": "nowhere.csv"}, k=None),
     ["no such CSV file", "nowhere.csv"]),
    ("m with inline loss", variant("objective", loss=[[0, 1], [1, 0]], k=None, m=2), ["m"]),
    ("expression epsilon", variant("privacy", epsilon="__import__('os')"),
     ["__import__('os')", "number"]),
    ("expression loss", variant("objective", loss="__import__('os').system('true')"),
     ["__import__", "unknown loss"]),
    ("expression prior", variant("objective", prior="np.ones(3) / 3"),
     ["np.ones(3) / 3", "prior"]),
    ("expression distance",
     variant("privacy", notion="metric", distance="lambda x, y: abs(x - y)"),
     ["lambda x, y", "unknown distance"]),
    ("expression k", variant("objective", k="2 + 1"), ["'2 + 1'", "integer"]),
    ("prior not summing to 1", variant("objective", prior=[0.5, 0.3, 0.1]), ["sums to"]),
    ("prior wrong length", variant("objective", prior=[0.5, 0.5]), ["2 entries", "3"]),
    ("k float", variant("objective", k=3.0), ["k = 3.0", "integer"]),
    ("k huge", variant("objective", k=10**6), ["k = 1000000", "limit"]),
    ("criterion", variant("objective", kind="estimation", loss=None, criterion="Z"),
     ["criterion = 'Z'"]),
    ("focal sets without evidential notion", variant("outputs", labels=["a", "b", "c"],
                                                       focal_sets=[["a"], ["b"]]),
     ["focal_sets", "'ldp'"]),
    ("focal set not a label",
     toml_of({"privacy": {"notion": "sldp", "epsilon": 1.0},
              "objective": {"kind": "estimation", "k": 2},
              "outputs": {"labels": ["Yes", "No"], "focal_sets": [["Yes"], ["Maybe"]]}}),
     ["'Maybe'", "focal_sets"]),
    ("focal set as a string",
     toml_of({"privacy": {"notion": "sldp", "epsilon": 1.0},
              "objective": {"kind": "estimation", "k": 2},
              "outputs": {"labels": ["Yes", "No"], "focal_sets": ["Yes", "No"]}}),
     ["focal_sets", "'Yes'"]),
    ("evidential without outputs",
     toml_of({"privacy": {"notion": "wldp", "epsilon": 1.0},
              "objective": {"kind": "estimation", "k": 2}}),
     ["outputs"]),
    ("sldp kind", variant("privacy", notion="sldp", kind="plausible"), ["kind = 'plausible'"]),
    ("spanner on a graph", variant("privacy", notion="metric", distance="line", spanner=1.5),
     ["spanner = 1.5", "graph"]),
    ("spanner below 1", variant("privacy", notion="metric", distance="euclidean-grid:1:3",
                                spanner=0.5), ["spanner = 0.5", ">= 1"]),
    ("grid size mismatch", variant("privacy", notion="metric", distance="grid:2:2"),
     ["grid:2:2", "4 points", "3 inputs"]),
    ("grid too large", variant("privacy", notion="metric", distance="euclidean-grid:500:500"),
     ["250000 cells", "limit"]),
    ("distance not symmetric-diag", variant("privacy", notion="metric",
                                            distance=[[1, 1, 1], [1, 0, 1], [1, 1, 0]]),
     ["distance", "diagonal"]),
    ("loss distance without metric", variant("objective", loss="distance"),
     ["distance", "metric"]),
    ("duplicate labels", variant("inputs", labels=["a", "a", "b"]), ["distinct"]),
    ("inconsistent sizes", variant("inputs", n=4), ["inconsistent", "4"]),
    ("expected relation", toml_of({**GOOD, "expected": {"value": 1.0, "source": "s",
                                                         "relation": "about"}}),
     ["relation = 'about'"]),
    ("expected rtol negative", toml_of({**GOOD, "expected": {"value": 1.0, "source": "s",
                                                             "rtol": -1.0}}),
     ["rtol = -1.0"]),
    ("expected value string", toml_of({**GOOD, "expected": {"value": "0.42", "source": "s"}}),
     ["value = '0.42'", "number"]),
    ("title not a string", toml_of({**GOOD, "title": 3}), ["title = 3"]),
]


@pytest.mark.parametrize("text, needles", [(t, n) for _, t, n in BAD],
                         ids=[name for name, _, _ in BAD])
def test_bad_files_raise_typed_errors_naming_key_and_value(text, needles):
    with pytest.raises(ValidationError) as info:
        loads_problem(text, name="bad.toml")
    msg = str(info.value)
    assert isinstance(info.value, FileFormatError | SizeLimitError)
    assert msg.startswith("bad.toml: ")
    for needle in needles:
        assert needle in msg, (needle, msg)


def test_the_base_document_of_the_bad_cases_is_good():
    """The bad cases differ from a valid file by one change only."""
    res = loads_problem(toml_of(GOOD)).problem.solve()
    assert res.value == pytest.approx(2 / (E + 2), rel=1e-9)


def test_expression_strings_are_never_evaluated(tmp_path):
    marker = tmp_path / "pwned"
    payload = f"__import__('os').system('touch {marker}')"
    for text in (variant("objective", loss=payload), variant("privacy", epsilon=payload),
                 variant("objective", prior=payload), variant("objective", k=payload),
                 toml_of({**GOOD, "title": payload})):
        try:
            loads_problem(text)
        except ValidationError:
            pass
    assert not marker.exists()


def test_missing_and_unreadable_files(tmp_path):
    with pytest.raises(FileFormatError, match="no such problem file"):
        load_problem(tmp_path / "absent.toml")
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(FileFormatError, match=r"bin\.toml"):
        load_problem(tmp_path / "bin.toml")
    (tmp_path / "L.csv").write_text("0,1\n1,SECRET\n")
    with pytest.raises(FileFormatError, match=r"L\.csv row 2, column 2: expected a number"
                       ) as info:
        loads_problem(variant("objective", loss="L.csv", k=None), base=tmp_path)
    assert "SECRET" not in str(info.value)  # the cell is not echoed


JUNK = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                 st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20),
                 st.lists(st.integers(-3, 3), max_size=4),
                 st.lists(st.lists(st.floats(-2, 2), min_size=1, max_size=3), max_size=3),
                 st.dictionaries(st.sampled_from(["csv", "x"]), st.text(max_size=5),
                                 max_size=2))


@settings(max_examples=100, deadline=None)
@given(section=st.sampled_from(["privacy", "objective", "inputs", "outputs"]),
       key=st.sampled_from(["notion", "epsilon", "delta", "distance", "spanner", "kind",
                            "loss", "k", "m", "prior", "criterion", "n", "labels",
                            "focal_sets"]),
       value=JUNK)
def test_any_single_junk_value_gives_a_problem_or_a_validation_error(section, key, value):
    """Fuzz: one key set to arbitrary data never escapes as another exception type."""
    data = {k: dict(v) for k, v in GOOD.items()}
    data.setdefault(section, {})
    if value is None:
        data[section].pop(key, None)
    else:
        data[section][key] = value
    try:
        from mechdesign.io.problems import problem_from_dict
        problem_from_dict(data, name="fuzz.toml")
    except ValidationError as exc:
        assert str(exc).startswith("fuzz.toml: ")


def test_expected_without_source_is_accepted_and_checked(tmp_path, capsys):
    # a user's own file may carry a reference value without citing it; it is still checked:
    # k-RR's (k-1)/(e^eps+k-1) at k = 3, eps = 1 (Kairouz, Oh, Viswanath 2016) is met, a
    # value 1% off is missed (exit 1)
    from mechdesign.cli.main import main

    good = {**GOOD, "expected": {"value": 2 / (math.e + 2), "rtol": 1e-7}}
    pf = loads_problem(toml_of(good))
    assert pf.expected.source == "" and pf.expected.check(2 / (math.e + 2))
    path = tmp_path / "mine.toml"
    path.write_text(toml_of(good), encoding="utf-8")
    assert main(["solve", str(path)]) == 0
    out = capsys.readouterr().out
    assert "met" in out and "\nsource " not in out
    path.write_text(toml_of({**GOOD, "expected": {"value": 1.01 * 2 / (math.e + 2)}}),
                    encoding="utf-8")
    assert main(["solve", str(path)]) == 1
    assert "misses [expected] value" in capsys.readouterr().err


def test_minimax_and_vulnerability_objectives_in_files():
    # the file reads the same objective as Python's MinimaxLoss / PosteriorVulnerability
    # (whose optima are checked against independent LPs in tests/design/): same optimum
    from mechdesign import losses
    from mechdesign.design import DesignProblem, MinimaxLoss, PosteriorVulnerability

    L = losses.absolute(4)
    priors = [[0.7, 0.1, 0.1, 0.1], [0.1, 0.1, 0.1, 0.7]]
    text = toml_of({**GOOD, "objective": {"kind": "minimax_loss", "loss": "absolute", "k": 4,
                                          "priors": priors}})
    pf = loads_problem(text)
    assert pf.objective == "expected loss at the worst prior of 2 priors, absolute (4 x 4)"
    mine = DesignProblem(LDP(1.0), MinimaxLoss(L, priors=np.array(priors))).solve()
    assert pf.problem.solve().value == pytest.approx(mine.value, rel=1e-9)
    box = toml_of({**GOOD, "objective": {"kind": "minimax_loss", "loss": "absolute", "k": 4,
                                         "lower": [0.1] * 4, "upper": [0.7] * 4}})
    boxed = DesignProblem(LDP(1.0), MinimaxLoss(L, lower=np.full(4, 0.1),
                                                upper=np.full(4, 0.7))).solve()
    assert loads_problem(box).problem.solve().value == pytest.approx(boxed.value, rel=1e-9)
    # the worst prior in a larger set is no better for the designer
    assert boxed.value >= mine.value - 1e-9
    gain = [[1, 0, 0], [0, 1, 1]]  # guess input 0, or "one of 1 and 2"
    vul = toml_of({**GOOD, "objective": {"kind": "posterior_vulnerability", "k": 3,
                                         "prior": [0.5, 0.3, 0.2], "gain": gain}})
    pf = loads_problem(vul)
    assert pf.objective.startswith("posterior g-vulnerability")
    ref = DesignProblem(LDP(1.0), PosteriorVulnerability(np.array([0.5, 0.3, 0.2]),
                                                         np.array(gain, float))).solve()
    assert pf.problem.solve().value == pytest.approx(ref.value, rel=1e-9)


@pytest.mark.parametrize("objective, words", [
    ({"kind": "minimax_loss", "loss": "hamming", "k": 3, "priors": [[0.5, 0.5, 0.25]]},
     "sums to 1.25"),
    ({"kind": "minimax_loss", "loss": "hamming", "k": 3, "lower": [0.5, 0.5, 0.5]},
     "[objective] kind = 'minimax_loss'"),
    ({"kind": "posterior_vulnerability", "k": 3, "prior": "uniform", "gain": [[1, 2]]},
     "gain"),
    ({"kind": "posterior_vulnerability", "k": 3, "loss": "hamming"}, "loss"),
])
def test_minimax_and_vulnerability_file_errors(objective, words):
    with pytest.raises(FileFormatError) as info:
        loads_problem(toml_of({**GOOD, "objective": objective}))
    assert words in str(info.value)
