"""What users see in a terminal and in a notebook: short exact ``repr`` texts and the
``_repr_html_`` tables and figures (helpers in ``mechdesign/_html.py``).

Every object is built through the public API; every value asserted is the object's own
(``repr`` of the float, or 4 significant digits in an HTML table) with its source."""

from __future__ import annotations

import base64
import math
import sys
from html.parser import HTMLParser

import numpy as np
import pytest

import mechdesign as md
from mechdesign.studies.warner_comparison import compare_warner

HOSTILE = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
VOID = {"img", "br", "hr", "meta", "input", "col", "wbr"}


class TagBalance(HTMLParser):
    """Checks that every opened tag is closed, in order, and counts the tags."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.counts: dict[str, int] = {}
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.counts[tag] = self.counts.get(tag, 0) + 1
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.counts[tag] = self.counts.get(tag, 0) + 1

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(html: str) -> TagBalance:
    """The parsed HTML; fails unless its tags balance."""
    assert isinstance(html, str) and html.startswith("<div")
    p = TagBalance()
    p.feed(html)
    p.close()
    assert p.errors == [] and p.stack == [], (p.errors, p.stack)
    return p


def check_repr(obj: object, limit: int = 200) -> str:
    text = repr(obj)
    assert 0 < len(text) <= limit and text.count("\n") == 0, text
    return text


def png_of(html: str) -> bytes:
    """The PNG embedded in ``html`` (it must have one)."""
    start = html.index('<img src="data:image/png;base64,') + len('<img src="data:image/png;base64,')
    data = base64.b64decode(html[start:html.index('"', start)])
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return data


# ------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def krr_problem():
    # README "Designing an optimal randomizer": pure LDP, Hamming loss, uniform prior
    return md.DesignProblem(privacy=md.LDP(epsilon=1.0),
                            objective=md.ExpectedLoss(md.losses.hamming(3),
                                                      prior=np.full(3, 1 / 3)))


@pytest.fixture(scope="module")
def krr_result(krr_problem):
    return krr_problem.solve()


@pytest.fixture(scope="module")
def krr_frontier(krr_problem):
    return md.frontier.frontier(krr_problem, [0.5, 1.0, 2.0])


# ------------------------------------------------------------------ Mechanism


def test_small_mechanism_repr_is_the_exact_constructor_call():
    m = md.Mechanism([[0.75, 0.25], [0.25, 0.75]], inputs=["P", "notP"],
                     outputs=["Yes", "No"], name="demo")
    assert check_repr(m) == ("Mechanism([[0.75, 0.25], [0.25, 0.75]], inputs=['P', 'notP'], "
                             "outputs=['Yes', 'No'], name='demo')")
    # every float as repr writes it: 1/3 is not rounded
    third = md.Mechanism([[1 / 3, 2 / 3], [2 / 3, 1 / 3]])
    assert repr(1 / 3) in check_repr(third) and repr(2 / 3) in repr(third)


def test_larger_mechanism_repr_names_shape_labels_and_where_the_values_are():
    m = md.randomized_response(k=3, epsilon=1.0)  # 3 rows of 17-digit floats: too long
    text = check_repr(m)
    assert text.startswith("<Mechanism 'randomized_response(3, 1)' 3x3")
    assert "inputs=[0, 1, 2]" in text and "outputs=[0, 1, 2]" in text and ".matrix" in text
    big = md.randomized_response(k=50, epsilon=1.0)
    text = check_repr(big)
    assert "50x50" in text and "..., 49]" in text
    named = md.Mechanism(np.eye(2), inputs=["a" * 300, "b"], name="n" * 500)
    assert len(check_repr(named)) <= 200


def test_mechanism_html_is_a_shaded_table_with_4_significant_digits():
    eps, k = 1.0, 3
    m = md.randomized_response(k=k, epsilon=eps)
    # k-RR (Warner 1965; Kairouz et al. 2016): P(y = x) = e^eps/(e^eps + k - 1), else
    # 1/(e^eps + k - 1)
    diag = math.exp(eps) / (math.exp(eps) + k - 1)
    off = 1 / (math.exp(eps) + k - 1)
    assert m.matrix[0, 0] == pytest.approx(diag, rel=1e-15)
    html = m._repr_html_()
    p = parse(html)
    text = "".join(p.text)
    assert format(diag, ".4g") == "0.5761" and "0.5761" in text
    assert format(off, ".4g") in text
    assert p.counts["tr"] == k + 1 and p.counts["td"] == k * k
    assert "3 inputs x 3 outputs" in text
    assert "background-color:rgba(" in html  # the inline heatmap
    assert f'title="{float(m.matrix[0, 0])!r}"' in html  # the exact value on hover


def test_mechanism_html_escapes_labels():
    m = md.Mechanism(np.eye(2), inputs=[HOSTILE, "b"], outputs=["x", f"&{HOSTILE}"],
                     name=HOSTILE)
    html = m._repr_html_()
    parse(html)
    assert HOSTILE not in html and ESCAPED in html
    assert "&amp;" + ESCAPED in html


def test_large_mechanism_html_is_truncated_and_states_the_size():
    m = md.randomized_response(k=50, epsilon=1.0)
    p = parse(m._repr_html_())
    text = "".join(p.text)
    assert "50 inputs x 50 outputs" in text and "showing 11 x 11" in text
    assert "..." in text
    assert p.counts["tr"] == 13  # the header, 10 rows, "...", the last row
    html = m._repr_html_()
    assert p.counts["td"] == 12 * 12 and html.count("title=") == 11 * 11  # 11 x 11 values
    assert "<th>49</th>" in html  # the last row and column are shown


def test_evidential_mechanism_repr_and_html():
    dk = md.dont_know(0.6, 0.2)  # Li et al. 2022, Q_2x3: rows (p, q, 1 - p - q)
    text = check_repr(dk)
    assert text == ("EvidentialMechanism([[0.6, 0.2, 0.2], [0.2, 0.6, 0.2]], "
                    "focal_sets=[{'Yes'}, {'No'}, {'Yes', 'No'}], inputs=['P', 'notP'], "
                    "outputs=['Yes', 'No'])")
    html = dk._repr_html_()
    p = parse(html)
    text = "".join(p.text)
    assert "2 inputs x 3 focal sets" in text and "{Yes, No}" in text and "0.6" in text
    hostile = md.EvidentialMechanism([[0.5, 0.5], [0.5, 0.5]], [[HOSTILE], ["ok", HOSTILE]])
    html = hostile._repr_html_()
    parse(html)
    assert HOSTILE not in html and ESCAPED in html
    check_repr(md.EvidentialMechanism(np.full((40, 40), 1 / 40), [[i] for i in range(40)]))


# ------------------------------------------------------------------ design


def test_design_problem_repr_and_html(krr_problem):
    text = check_repr(krr_problem)
    assert text == "DesignProblem(LDP(epsilon=1.0), ExpectedLoss (minimize), 3 inputs x 3 outputs)"
    p = parse(krr_problem._repr_html_())
    text = "".join(p.text)
    assert "LDP, epsilon = 1" in text and "minimize ExpectedLoss" in text
    hostile = md.DesignProblem(privacy=md.LDP(epsilon=1.0),
                               objective=md.WorstCaseLoss(md.losses.hamming(2)),
                               inputs=[HOSTILE, "b"], constraints={HOSTILE: lambda Q: []})
    html = hostile._repr_html_()
    parse(html)
    assert HOSTILE not in html and ESCAPED in html
    many = {f"constraint_{i}": (lambda Q: []) for i in range(50)}
    check_repr(md.DesignProblem(privacy=md.LDP(epsilon=1.0),
                                objective=md.WorstCaseLoss(md.losses.hamming(2)),
                                constraints=many))


def test_design_result_repr_is_short_and_exact(krr_result):
    res = krr_result
    old = len(repr(res.summary()))  # what the dataclass dump used to carry
    text = check_repr(res)
    assert len(text) < old
    assert text.startswith("<DesignResult optimal")
    assert f"value={res.value!r}" in text  # (k-1)/(e+k-1) = 0.42388..., README
    assert res.value == pytest.approx(2 / (math.e + 2), rel=1e-9)
    assert f"gap={res.gap!r}" in text
    assert repr(res.certificate.achieved) in text and "met" in text
    cert = check_repr(res.certificate)
    assert f"achieved={res.certificate.achieved!r}" in cert
    assert f"target={res.certificate.target!r}" in cert and ": met" in cert


def test_design_result_html_is_a_certificate_with_the_mechanism(krr_result):
    res = krr_result
    html = res._repr_html_()
    p = parse(html)
    text = "".join(p.text)
    for row in ("status", "certified gap", "achieved (measured)", "met", "formulation",
                "solver", "time", "notes"):
        assert row in text
    assert repr(res.value) in text and repr(res.gap) in text
    assert repr(res.certificate.achieved) in text and repr(res.certificate.target) in text
    assert res.formulation in text and res.solver in text
    assert format(math.e / (math.e + 2), ".4g") in text  # the 3-RR optimum's diagonal
    assert p.counts["table"] == 2


def test_design_result_html_escapes_labels_and_shows_a_missing_mechanism():
    res = md.DesignProblem(privacy=md.LDP(epsilon=1.0),
                           objective=md.ExpectedLoss(md.losses.hamming(2),
                                                     prior=np.full(2, 0.5)),
                           inputs=[HOSTILE, "b"]).solve()
    html = res._repr_html_()
    parse(html)
    assert HOSTILE not in html and ESCAPED in html
    infeasible = md.DesignProblem(
        privacy=md.LDP(epsilon=1.0), objective=md.WorstCaseLoss(md.losses.hamming(2)),
        constraints={"impossible": lambda Q: [Q[0, 0] >= 1, Q[1, 0] >= 1, Q[0, 1] >= 1]}
    ).solve()
    text = "".join(parse(infeasible._repr_html_()).text)
    assert "infeasible" in text and "no mechanism" in text
    check_repr(infeasible)


# ------------------------------------------------------------------ frontier


def test_frontier_repr_and_plot(krr_frontier):
    f = krr_frontier
    text = check_repr(f)
    assert text.startswith("<Frontier 3 points")
    assert "epsilons=[0.5, 1.0, 2.0]" in text
    assert all(repr(float(v)) in text for v in f.values)
    assert "3 certified" in text
    html = f._repr_html_()
    parse(html)
    png_of(html)
    many = md.frontier.Frontier(np.linspace(0.1, 3, 30), np.linspace(1, 0, 30),
                                f.results * 10)
    assert "..., 3.0]" in check_repr(many)


def test_frontier_html_falls_back_to_a_table_without_matplotlib(krr_frontier, monkeypatch):
    monkeypatch.setitem(sys.modules, "mechdesign.plotting.frontier", None)  # ImportError
    html = krr_frontier._repr_html_()
    p = parse(html)
    assert "<img" not in html
    text = "".join(p.text)
    assert all(repr(float(v)) in text for v in krr_frontier.values)


def test_family_comparison_repr_and_html(krr_problem):
    c = md.frontier.compare_families(krr_problem, [0.5, 1.0])
    text = check_repr(c)
    assert text.startswith(f"<FamilyComparison {len(c.values)} families at 2 epsilons")
    assert "randomized_response" in text
    p = parse(c._repr_html_())
    joined = "".join(p.text)
    # k-RR is the optimum for Hamming loss at a uniform prior: (k-1)/(e^eps+k-1)
    assert repr(float(c.values["randomized_response"][1])) in joined
    assert c.values["randomized_response"][1] == pytest.approx(2 / (math.e + 2))


# ------------------------------------------------------------------ accounting


def test_composition_reprs_are_exact():
    eps0 = 1.0
    comp = md.compose(md.randomized_response(3, eps0), k=1)
    check_repr(comp)
    r = comp.delta(0.0)
    # delta(0) of one use is the total variation distance of two rows of 3-RR:
    # (e^eps - 1)/(e^eps + 2)
    assert r.delta == pytest.approx((math.e - 1) / (math.e + 2), rel=1e-12)
    text = check_repr(r)
    assert f"(0.0, {r.delta!r})-LDP" in text and "exact" in text
    prof = md.compose(md.randomized_response(3, eps0), k=5).profile(np.linspace(0, 3, 50))
    text = check_repr(prof)
    assert repr(float(prof.upper[0])) in text and "50 points" in text and "..." in text
    grid = md.compose(md.randomized_response(3, eps0), k=50, method="grid")
    text = check_repr(grid.delta(5.0))
    assert "grid step" in text and repr(grid.delta(5.0).upper) in text


def test_composition_and_profile_html_are_plots():
    comp = md.compose(md.randomized_response(3, 1.0), k=5)
    for obj in (comp, comp.profile(np.linspace(0, 3, 20))):
        html = obj._repr_html_()
        parse(html)
        png_of(html)
    p = parse(comp.delta(1.0)._repr_html_())
    assert repr(comp.delta(1.0).delta) in "".join(p.text)


def test_composition_html_falls_back_to_tables_without_matplotlib(monkeypatch):
    monkeypatch.setitem(sys.modules, "mechdesign.plotting.profile", None)  # ImportError
    comp = md.compose(md.randomized_response(3, 1.0), k=5)
    html = comp._repr_html_()
    assert "<img" not in html and "delta at epsilon = 0" in "".join(parse(html).text)
    prof = comp.profile(np.linspace(0, 3, 30))
    html = prof._repr_html_()
    text = "".join(parse(html).text)
    assert "<img" not in html and "(30 rows)" in text
    assert repr(float(prof.upper[0])) in text and repr(float(prof.upper[-1])) in text


def test_tradeoff_curve_and_oracle_reprs_stay_short():
    curve = md.tradeoff_function(md.warner(0.75))
    assert check_repr(curve).endswith(f"with {len(curve)} breakpoints>")
    labelled = md.accounting.TradeoffCurve([0.0, 1.0], [1.0, 0.0], label="x" * 500)
    check_repr(labelled)
    oracle = md.oracles.oracle("randomized_response", k=5, epsilon=1.0)
    assert check_repr(oracle) == "RandomizedResponse(k=5, epsilon=1.0)"


# ------------------------------------------------------------------ estimation, studies


def test_simulation_result_repr():
    sim = md.estimation.simulate(md.randomized_response(4, 1.0), "inverse",
                                 np.full(4, 0.25), n=100, reps=50, rng=1)
    text = check_repr(sim)
    assert f"mse={sim.mse!r}" in text and "50 surveys of n=100" in text
    assert repr(float(np.asarray(sim.bias)[0])) in text


def test_warner_comparison_repr_and_html():
    w = compare_warner(reps=10, rng=1, cs=(1.0,), epsilons=(1.0,), fig3_n=(50,))
    text = check_repr(w)
    assert "Q_2x3(p=0.6, q=0.2)" in text and f"{len(w.rows)} rows" in text
    row = check_repr(w.rows[0])
    assert repr(w.rows[0].variance_exact_A) in row
    html = w._repr_html_()
    p = parse(html)
    assert repr(w.rows[0].variance_exact_A) in "".join(p.text)
    assert p.counts["tr"] == len(w.rows) + 1


def test_objective_reprs_show_a_matrix_by_its_shape():
    # a 30-value Hamming loss is a 30 x 30 matrix: the dataclass repr printed all 900 entries
    loss = md.ExpectedLoss(md.losses.hamming(30))
    assert repr(loss) == "ExpectedLoss(loss=<30x30 array>, prior=<30 array>)"
    small = md.EstimationVariance(np.full(5, 0.2))
    assert repr(small) == ("EstimationVariance(prior=[0.2, 0.2, 0.2, 0.2, 0.2], "
                           "criterion='A', weights=None)")
    assert repr(md.WorstCaseLoss(md.losses.absolute(3))).startswith(
        "WorstCaseLoss(loss=<3x3 array>")


def test_dont_know_analysis_repr_is_short_and_flags_degenerate_readings():
    # Li et al. 2022 s.4 at (p, q) = (0.6, 0.2): eps^S = ln 3, eps^W = ln 4, eps^O = ln 1.5
    a = md.dont_know_analysis(0.6, 0.2, pi=0.3, n=100)
    text = repr(a)
    assert len(text) <= 200 and text.startswith("<DontKnowAnalysis Q_2x3(0.6, 0.2)")
    assert f"eps S/W/O=~{math.log(3):.6g}/~{math.log(4):.6g}/~{math.log(1.5):.6g}" in text
    assert "DEGENERATE" not in text
    # p = 0.4 <= 1/2: the Walley variance is inf and the optimal epsilon 0, both exact
    b = repr(md.dont_know_analysis(0.4, 0.1, pi=0.3, n=100))
    assert "/0.0, var" in b and "/inf/" in b and "DEGENERATE (p <= 1/2)" in b


# ------------------------------------------------------------------ the whole public API
# Every public result or value type shows itself in one line of at most
# 200 characters and has an HTML form, at realistic sizes (k = 40 for surveys).

PUBLIC_MODULES = ("mechdesign", "mechdesign.accounting", "mechdesign.estimation",
                  "mechdesign.oracles", "mechdesign.design", "mechdesign.io",
                  "mechdesign.privacy", "mechdesign.frontier")

NOT_RESULTS = {
    # specifications a user writes (inputs, not results); their reprs are tested above
    "LDP", "ApproxLDP", "DeletionLDP", "MetricDP", "SLDP", "WLDP", "Notion",
    "Objective", "ExpectedLoss", "WorstCaseLoss", "CustomObjective", "MinimaxLoss",
    "MutualInformation", "SublinearUtility", "EstimationVariance", "MinimaxEstimation",
    "PosteriorVulnerability",
    # abstract base, enum, and the compiled cvxpy program (the escape hatch's machinery)
    "FrequencyOracle", "Status", "Program", "FeasibleSet",
    # protocols (a structural type: the values that satisfy it have their own forms)
    "Randomizer",
}

OUTSIDE_THIS_CHANGE: set[str] = set()  # every public result type has its forms now


def public_result_types() -> dict[str, type]:
    import enum
    import importlib
    import inspect

    out: dict[str, type] = {}
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        names = getattr(module, "__all__", None) or [n for n in dir(module)
                                                      if not n.startswith("_")]
        for attr in names:
            obj = getattr(module, attr)
            if (inspect.isclass(obj) and obj.__module__.startswith("mechdesign")
                    and not issubclass(obj, BaseException | enum.Enum | Warning)
                    and obj.__name__ not in NOT_RESULTS):
                out[obj.__name__] = obj
    return out


K = 40
RR40 = md.randomized_response(K, 1.0)
ZIPF40 = (lambda w: w / w.sum())(1.0 / np.arange(1, K + 1) ** 1.1)


def _survey_reports() -> np.ndarray:
    rng = np.random.default_rng(0)
    x = rng.choice(K, size=4000, p=ZIPF40)
    return np.array([RR40.sample(int(v), rng) for v in x])


def _design() -> md.DesignResult:
    return md.DesignProblem(privacy=md.LDP(epsilon=1.0),
                            objective=md.ExpectedLoss(md.losses.absolute(K),
                                                      prior=ZIPF40)).solve()


def _builders() -> dict[str, object]:
    A, P, E, orc = md.accounting, md.privacy, md.estimation, md.oracles
    from mechdesign.accounting._belief_composition import belief_composition
    from mechdesign.accounting._binary_reduction import binary_reduction
    from mechdesign.oracles.survey import estimate_survey

    dk = md.dont_know(0.6, 0.2)
    rr12 = md.randomized_response(12, 1.0)
    rr20 = md.randomized_response(20, 1.0)
    atoms = A.privacy_loss_atoms(RR40.matrix[0], RR40.matrix[1])
    return {
        "Mechanism": lambda: RR40,
        "EvidentialMechanism": lambda: md.EvidentialMechanism(
            np.full((K, K), 1 / K), [[i] for i in range(K)]),
        "DesignProblem": lambda: md.io.load_example("krr_hamming").problem,
        "DesignResult": _design,
        "Plan": lambda: md.io.load_example("geo_grid_3x3").problem.plan(),
        "Certificate": lambda: _design().certificate,
        "Frontier": lambda: md.frontier.frontier(md.io.load_example("krr_hamming").problem,
                                                 [0.5, 1.0, 2.0]),
        "FamilyComparison": lambda: md.frontier.compare_families(
            md.io.load_example("krr_hamming").problem, [0.5, 1.0]),
        "ProblemFile": lambda: md.io.load_example("subset_selection_estimation"),
        "Expected": lambda: md.io.load_example("krr_hamming").expected,
        "Composition": lambda: A.compose(RR40, k=10),
        "CompositionResult": lambda: A.compose(RR40, k=10).delta(1.0),
        "PrivacyProfile": lambda: A.compose(RR40, k=10).profile(np.linspace(0, 3, 50)),
        "CompositionBound": lambda: A.advanced_composition(1.0, 0.0, 100, 1e-6),
        "Calibration": lambda: A.calibrate_composition(
            "randomized_response", "epsilon", target_epsilon=1.0, target_delta=1e-6, k=10,
            params={"k": K}),
        "ShuffleBound": lambda: A.shuffle_epsilon(1.0, 10_000, 1e-6),
        "ShuffleDelta": lambda: A.shuffle_delta(1.0, 10_000, 0.5),
        # n = 20 users (the exact enumeration at n = 50 took 3 s; the forms are the same)
        "ExactShuffle": lambda: A.exact_shuffle_delta(md.randomized_response(3, 1.0), 20, 0.5),
        "SubsampledPrivacy": lambda: A.exact_subsampling_epsilon(RR40, 0.1),
        "Guarantee": lambda: A.subsampling_bound(1.0, 1e-6, 0.1),
        "SequentialPrivacy": lambda: A.sequential_composition(RR40, RR40),
        "GroupPrivacy": lambda: A.advanced_grouposition(1.0, 5, 1e-6),
        # k = 12: the curve's forms do not depend on k (4 breakpoints either way; k = 40's
        # 1,560 pairs took 2 s)
        "TradeoffCurve": lambda: A.tradeoff_function(rr12),
        "GaussianApproximation": lambda: A.gaussian_approximation(RR40, k=10),
        "BeliefComposition": lambda: belief_composition([dk] * 5),
        "NPTest": lambda: A.neyman_pearson_test(RR40.matrix[0], RR40.matrix[1], 0.1),
        "MinimaxTest": lambda: A.minimax_test(rr12, 0.1),
        "RenyiCurve": lambda: A.renyi_curve(RR40, [1.5, 2.0, 4.0, 8.0, 16.0, 32.0]),
        "ZCDP": lambda: A.zcdp_rho(rr12),  # k = 12: the same fields (k = 40 took 3 s)
        "RDPConversion": lambda: A.rdp_to_dp([0.1, 0.2, 0.4], [2.0, 4.0, 8.0], 1e-6),
        "BinaryReduction": lambda: binary_reduction(md.warner(0.75), md.warner(0.7)),
        "LossAtoms": lambda: atoms,
        "LossBracket": lambda: A.grid_bracket([(atoms, 10)], 1e-3),
        "DontKnowAnalysis": lambda: md.dont_know_analysis(0.6, 0.2, pi=0.3, n=100),
        "DontKnowDesign": lambda: E.dont_know_design(0.8, 1.0),
        "Rectangle": lambda: md.dont_know_analysis(0.6, 0.2, pi=0.3, n=100).rectangle,
        "CramerRao": lambda: E.cramer_rao(RR40, ZIPF40),
        "SimulationResult": lambda: E.simulate(RR40, "inverse", ZIPF40, 1000, reps=20,
                                               rng=1),
        "SurveyEstimate": lambda: estimate_survey(RR40, _survey_reports()),
        "RandomizedResponse": lambda: orc.oracle("randomized_response", k=K, epsilon=1.0),
        "SubsetSelection": lambda: orc.oracle("subset_selection", k=K, epsilon=1.0),
        "UnaryEncoding": lambda: orc.oracle("unary_encoding", k=K, epsilon=1.0),
        "LocalHashing": lambda: orc.oracle("local_hashing", k=K, epsilon=1.0),
        "HadamardResponse": lambda: orc.oracle("hadamard_response", k=K, epsilon=1.0),
        "Verification": lambda: P.verify_exact(rr20, md.LDP(epsilon=1.0)),
        "ExactWitness": lambda: P.verify_exact(rr20, md.LDP(epsilon=1.0)).witness,
        "PureConversion": lambda: P.approx_to_pure(rr20, 1.0, 0.1, 1e-6),
        "DeletionRepair": lambda: P.to_pure_deletion(rr20, 1.0, P.deletion_reference(rr20)),
        "KOVDecomposition": lambda: P.kov_decomposition(rr20),
        "LeakyKOVDecomposition": lambda: P.leaky_kov_decomposition(rr20, epsilon=0.5),
        "PureLDPProtocol": lambda: P.approx_to_pure_protocol(1.0, 1e-6, 1000, 10),
        "DeletionLP": lambda: P.deletion_lp(rr20.matrix, 1.0),
        "DeletionPrivacy": lambda: P.epsilon_deletion(RR40),
        "Witness": lambda: _witness(),
    }


def _witness() -> object:
    return md.privacy.worst_log_ratio(RR40.matrix, RR40.matrix)


BUILDERS = _builders()
RESULT_TYPES = public_result_types()


def test_every_public_result_type_is_built_here():
    # a new public result type needs a builder (or a reason in NOT_RESULTS)
    assert set(RESULT_TYPES) <= set(BUILDERS), sorted(set(RESULT_TYPES) - set(BUILDERS))


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason="file owned by another change"))
    if n in OUTSIDE_THIS_CHANGE else n for n in sorted(RESULT_TYPES)])
def test_every_public_result_has_a_short_repr_and_html(name):
    import matplotlib.pyplot as plt

    obj = BUILDERS[name]()
    assert obj is not None, f"no instance of {name}"
    assert type(obj).__name__ == name or isinstance(obj, RESULT_TYPES[name]), type(obj)
    check_repr(obj)
    html_form = getattr(obj, "_repr_html_", None)
    assert callable(html_form), f"{name} has no _repr_html_"
    parse(html_form())
    plt.close("all")


def test_survey_estimate_repr_is_one_line_at_k40():
    # the dataclass repr was once 3,402 characters (every array written out)
    est = BUILDERS["SurveyEstimate"]()
    text = check_repr(est)
    assert text.startswith("<SurveyEstimate n=4000, 40 values, inverse, 95% intervals:")
    assert repr(float(est.estimate[0])) in text and "..." in text
    p = parse(est._repr_html_())
    cells = "".join(p.text)
    assert "(40 rows)" in cells and repr(float(est.standard_error[0])) in cells
    assert p.counts["tr"] == 1 + 12  # the header, 10 values, "..." and the last value


def test_problem_file_certificate_and_oracle_html_show_their_numbers():
    pf = md.io.load_example("krr_hamming")
    text = check_repr(pf)
    assert text.startswith("<ProblemFile krr_hamming.toml 'k-RR is optimal")
    assert repr(pf.expected.value) in text  # (k-1)/(e+k-1) at k = 3, eps = 1
    cells = "".join(parse(pf._repr_html_()).text)
    assert pf.objective in cells and repr(pf.expected.value) in cells
    cert = _design().certificate
    cells = "".join(parse(cert._repr_html_()).text)
    assert repr(cert.achieved) in cells and repr(cert.target) in cells and cert.method in cells
    oracle = md.oracles.oracle("subset_selection", k=K, epsilon=1.0)
    cells = "".join(parse(oracle._repr_html_()).text)
    assert repr(float(oracle.p_star)) in cells and repr(oracle.epsilon_exact) in cells


def test_tradeoff_curve_and_dont_know_html():
    curve = md.tradeoff_function(md.warner(0.75))
    png_of(curve._repr_html_())
    a = md.dont_know_analysis(0.6, 0.2, pi=0.3, n=100)
    cells = "".join(parse(a._repr_html_()).text)
    # Li et al. 2022 s.4: eps^S = ln 3, eps^W = ln 4, eps^O = ln 1.5
    for v in (a.epsilon_shafer, a.epsilon_walley, a.epsilon_optimal, a.variance_shafer):
        assert repr(v) in cells
    assert a.epsilon_shafer == pytest.approx(math.log(3), rel=1e-12)
