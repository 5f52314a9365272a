"""Bad-input corpus across the Python API (design layer, analyzers, exact verification), the
command line and problem files. Complements ``tests/test_bad_input.py`` (mechanisms, catalog,
distances, mechanism files), which it does not repeat.

* Python: each case raises a typed :class:`~mechdesign.errors.ValidationError` whose message
  matches a regex containing the offending value.
* CLI: ``mechdesign.cli.main.main([...])`` returns non-zero, prints exactly one line on stderr
  starting ``mechdesign: error:`` that names the value, and no traceback.
* Problem files are data only: expressions in a file are strings and are refused where a
  number or a name is expected; nothing is evaluated.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import cvxpy as cp
import networkx as nx
import numpy as np
import pytest

import mechdesign as md
from mechdesign import losses
from mechdesign.accounting import (
    amplification,
    belief_composition,
    bounds,
    composition,
    sequential,
    tradeoff,
)
from mechdesign.cli.main import main
from mechdesign.design import (
    CustomObjective,
    DesignProblem,
    EstimationVariance,
    ExpectedLoss,
    MutualInformation,
)
from mechdesign.errors import (
    FileFormatError,
    InvalidMechanismError,
    InvalidParameterError,
    SizeLimitError,
    ValidationError,
)
from mechdesign.io.problems import load_problem, loads_problem
from mechdesign.privacy import (
    LDP,
    SLDP,
    WLDP,
    ApproxLDP,
    DeletionLDP,
    MetricDP,
    blackwell,
    conversions,
)
from mechdesign.privacy.verify import verify_exact

W = md.warner(0.75)
H3 = losses.hamming(3)

# ------------------------------------------------------------------------------ Python API
PY_CASES = [
    # ---- design layer: notions
    ("ldp-eps-negative", lambda: LDP(-0.5), InvalidParameterError, r"got -0\.5"),
    ("ldp-eps-string", lambda: LDP("1"), InvalidParameterError, r"real number, got '1'"),
    ("sldp-eps-bool", lambda: SLDP(True), InvalidParameterError, r"got True"),
    ("metric-eps-inf", lambda: MetricDP(math.inf, np.eye(2)), InvalidParameterError,
     r"finite, got inf"),
    ("approx-delta-negative", lambda: ApproxLDP(1.0, -0.1), InvalidParameterError,
     r"delta must lie in \[0, 1\], got -0\.1"),
    ("deletion-delta-above-1", lambda: DeletionLDP(1.0, 1.1), InvalidParameterError,
     r"got 1\.1"),
    ("wldp-eps-nan", lambda: WLDP(math.nan), InvalidParameterError, r"NaN, got nan"),
    # ---- design layer: objectives
    ("loss-nan", lambda: ExpectedLoss([[0.0, math.nan], [1.0, 0.0]]), InvalidMechanismError,
     r"loss\[0, 1\] = nan"),
    ("loss-1d", lambda: ExpectedLoss([0.0, 1.0]), InvalidMechanismError, r"shape \(2,\)"),
    ("prior-wrong-length", lambda: ExpectedLoss(H3, [0.5, 0.5]), InvalidParameterError,
     r"shape \(3,\), got \(2,\)"),
    ("prior-negative", lambda: ExpectedLoss(losses.hamming(2), [1.5, -0.5]),
     InvalidParameterError, r"got -0\.5"),
    ("prior-not-summing-to-1", lambda: MutualInformation([0.5, 0.6]), InvalidParameterError,
     r"sums to 1\.1"),
    ("prior-2d", lambda: MutualInformation([[0.5, 0.5]]), InvalidParameterError,
     r"got \(1, 2\)"),
    ("estimation-criterion", lambda: EstimationVariance([0.5, 0.5], criterion="Z"),
     InvalidParameterError, r"got 'Z'"),
    ("estimation-weights-shape", lambda: EstimationVariance([0.5, 0.5], weights=[[1, 0, 0]]),
     InvalidParameterError, r"2 columns, got shape \(1, 3\)"),
    ("custom-sense", lambda: CustomObjective(lambda Q: Q[0, 0], sense_="max"),
     InvalidParameterError, r"got 'max'"),
    # ---- design layer: problems
    ("problem-semantics", lambda: DesignProblem(
        WLDP(1.0), ExpectedLoss(np.ones((2, 3))), outputs=["a", "b"], semantics="bayes"),
     InvalidParameterError, r"got 'bayes'"),
    ("problem-walley-needs-wldp", lambda: DesignProblem(
        LDP(1.0), ExpectedLoss(losses.hamming(2)), semantics="walley"),
     InvalidParameterError, r"semantics='walley' goes with the WLDP"),
    ("problem-evidential-too-many-outputs", lambda: DesignProblem(
        SLDP(1.0), EstimationVariance([0.5, 0.5]), n_outputs=11), SizeLimitError,
     r"m = 11 outputs exceeds 10"),
    ("problem-focal-set-outside", lambda: DesignProblem(
        SLDP(1.0), EstimationVariance([0.5, 0.5]), outputs=["a", "b"],
        focal_sets=[["a"], ["c"]]), InvalidMechanismError, r"\['c'\] outside"),
    ("problem-loss-vs-messages", lambda: DesignProblem(
        SLDP(1.0), ExpectedLoss(np.ones((2, 2))), outputs=["a", "b"]),
     InvalidParameterError, r"2 columns but there are 3 messages"),
    ("problem-reserved-constraint-name", lambda: DesignProblem(
        LDP(1.0), ExpectedLoss(losses.hamming(2)),
        constraints={"privacy": lambda Q: Q[0, 0] >= 0}).solve(),
     InvalidParameterError, r"'privacy' is reserved"),
    ("problem-one-input", lambda: DesignProblem(
        LDP(1.0), lambda Q: cp.sum(Q), n_inputs=1, n_outputs=2),
     InvalidParameterError, r"n_inputs must be >= 2, got 1"),
    ("problem-no-size", lambda: DesignProblem(LDP(1.0), lambda Q: cp.sum(Q)),
     InvalidParameterError, r"number of inputs is unknown"),
    ("problem-duplicate-inputs", lambda: DesignProblem(
        LDP(1.0), ExpectedLoss(losses.hamming(2)), inputs=["a", "a"]),
     InvalidMechanismError, r"\('a', 'a'\)"),
    ("problem-metric-distance-shape", lambda: DesignProblem(
        MetricDP(1.0, np.zeros((2, 2))), ExpectedLoss(H3)).solve(),
     InvalidParameterError, r"shape \(3, 3\), got \(2, 2\)"),
    ("problem-metric-graph-missing-node", lambda: DesignProblem(
        MetricDP(1.0, nx.path_graph(2)), ExpectedLoss(H3)).solve(),
     InvalidParameterError, r"inputs \[2\]"),
    ("problem-with-privacy-other-kind", lambda: DesignProblem(
        LDP(1.0), ExpectedLoss(losses.hamming(2))).with_privacy(ApproxLDP(1.0, 0.1)),
     InvalidParameterError, r"got ApproxLDP\(epsilon=1\.0, delta=0\.1\)"),
    ("problem-to-cvxpy-information", lambda: DesignProblem(
        LDP(1.0), MutualInformation([0.5, 0.5])).to_cvxpy(),
     InvalidParameterError, r"MutualInformation is not a convex expression"),
    ("losses-k-1", lambda: losses.hamming(1), InvalidParameterError, r"k must be >= 2, got 1"),
    ("losses-negative-distance", lambda: losses.from_distance([[0, -1.0]]),
     InvalidParameterError, r"loss\[0, 1\] = -1\.0"),
    # ---- analyzers
    ("subsample-p", lambda: amplification.subsampling_bound(1.0, 0.0, 1.5), InvalidParameterError,
     r"p must lie in \[0, 1\], got 1\.5"),
    ("shuffle-n-float", lambda: amplification.shuffle_epsilon(1.0, 10.5, 1e-6),
     InvalidParameterError, r"n must be an integer, got 10\.5"),
    ("shuffle-n-huge", lambda: amplification.shuffle_epsilon(1.0, 10**30, 1e-6),
     InvalidParameterError, r"n = 10{30} exceeds"),
    ("shuffle-method", lambda: amplification.shuffle_epsilon(1.0, 1000, 1e-6, method="magic"),
     InvalidParameterError, r"got 'magic'"),
    ("shuffle-to-ldp-delta", lambda: amplification.shuffle_to_ldp(1.0, 1.5, 10),
     InvalidParameterError, r"delta_shuffle must lie in \[0, 1\], got 1\.5"),
    ("compose-k0", lambda: composition.compose(W, k=0), InvalidParameterError,
     r"k must be >= 1, got 0"),
    ("compose-method", lambda: composition.compose(W, method="fast"), InvalidParameterError,
     r"got 'fast'"),
    ("compose-grid", lambda: composition.compose(W, grid=-1.0), InvalidParameterError,
     r"grid must be > 0, got -1\.0"),
    ("compose-pair", lambda: composition.compose(W, pairs=[(0, 5)]), InvalidParameterError,
     r"pair \(0, 5\)"),
    ("compose-different-inputs", lambda: composition.compose([W, md.randomized_response(3, 1)]),
     InvalidMechanismError, r"input counts \[2, 3\]"),
    ("basic-composition-lengths", lambda: bounds.basic_composition([1.0, 2.0], [0.1]),
     InvalidParameterError, r"\(2 and 1\)"),
    ("advanced-composition-delta-prime", lambda: bounds.advanced_composition(
        1.0, 0.0, 10, 1.5), InvalidParameterError, r"delta_prime .* got 1\.5"),
    ("epsilon-composed-delta", lambda: composition.epsilon_composed(W, 2.0),
     InvalidParameterError, r"got 2\.0"),
    ("mix-with-uniform-eta", lambda: conversions.mix_with_uniform(W, 1.5),
     InvalidParameterError, r"eta must lie in \[0, 1\], got 1\.5"),
    ("deletion-reference-not-a-distribution", lambda: conversions.delta_deletion_at(
        W, 1.0, [0.5, 0.6]), InvalidParameterError, r"sum 1\.1"),
    ("deletion-reference-index", lambda: conversions.deletion_reference(W, x0=7),
     InvalidParameterError, r"x0 = 7 is outside 0\.\.1"),
    ("tradeoff-pair", lambda: tradeoff.tradeoff_function(W, pair=(0, 9)),
     InvalidParameterError, r"index 9 is outside 0\.\.1"),
    ("tradeoff-alpha", lambda: tradeoff.tradeoff_dp(1.0, [1.5]), InvalidParameterError,
     r"got 1\.5"),
    ("tradeoff-gaussian-mu", lambda: tradeoff.tradeoff_gaussian(-1.0, [0.5]),
     InvalidParameterError, r"mu must be >= 0, got -1\.0"),
    ("tensor-power-k0", lambda: tradeoff.tensor_power(tradeoff.tradeoff_function_dp(1.0), 0),
     InvalidParameterError, r"k must be >= 1, got 0"),
    ("garbling-shapes", lambda: blackwell.garbling(W, md.randomized_response(3, 1.0)),
     InvalidMechanismError, r"2 inputs and b has 3"),
    ("cramer-rao-prior-sum", lambda: md.estimation.cramer_rao(W, [0.5, 0.6]), InvalidParameterError,
     r"\[0\.5, 0\.6\] sums to 1\.1"),
    ("kov-same-input", lambda: md.privacy.kov_decomposition(W, 1, 1), InvalidParameterError,
     r"two different inputs, got both = 1"),
    ("estimate-counts-negative", lambda: md.estimation.estimate_mle(W, [3, -1]),
     InvalidParameterError,
     r"got -1"),
    ("estimate-counts-length", lambda: md.estimation.estimate_inverse(W, [1, 2, 3]),
     InvalidParameterError, r"got shape \(3,\)"),
    ("estimate-warner-p-half", lambda: md.estimation.estimate_warner([3, 4], 0.5),
     InvalidParameterError,
     r"p = 0\.5"),
    ("binomial-inverse-moment-c", lambda: md.estimation.binomial_inverse_moment(10, 1.5),
     InvalidParameterError, r"c must lie in \[0, 1\], got 1\.5"),
    ("dont-know-analysis-p", lambda: md.dont_know_analysis(0.2, 0.4, pi=0.3, n=100),
     InvalidParameterError, r"p = 0\.2, q = 0\.4"),
    ("dont-know-analysis-n", lambda: md.dont_know_analysis(0.6, 0.2, pi=0.3, n=-5),
     InvalidParameterError, r"got -5"),
    ("simulate-estimator", lambda: md.simulate(W, "magic", [0.3, 0.7], n=100, reps=10),
     InvalidParameterError, r"'magic'"),
    ("simulate-reps", lambda: md.simulate(W, "inverse", [0.3, 0.7], n=100, reps=0),
     InvalidParameterError, r"reps must be >= 2, got 0"),
    ("sequential-epsilon", lambda: sequential.sequential_epsilon(-1.0, 1.0),
     InvalidParameterError, r"epsilon1 must be >= 0, got -1\.0"),
    ("sequential-shapes", lambda: sequential.sequential_composition(
        W, md.randomized_response(3, 1.0)), InvalidMechanismError, r"3 inputs .* 2 outputs"),
    ("belief-composition-notion", lambda: belief_composition(
        [md.dont_know(0.6, 0.2)], notion="xyz"), InvalidParameterError, r"got 'xyz'"),
    ("privacy-report-epsilon", lambda: md.privacy_report(W, epsilons=[-1.0]),
     InvalidParameterError, r"got -1\.0"),
    ("privacy-report-distance", lambda: md.privacy_report(W, distance=np.eye(3)),
     InvalidParameterError, r"\(2, 2\), got \(3, 3\)"),
    ("save-mechanism-extension", lambda: md.save_mechanism(W, "/tmp/q.xlsx"),
     FileFormatError, r"'\.xlsx'"),
    # ---- exact verification
    ("verify-unknown-notion", lambda: verify_exact(W, "renyi", 1.0), InvalidParameterError,
     r"unknown notion 'renyi'"),
    ("verify-eps-negative", lambda: verify_exact(W, "ldp", -1.0), InvalidParameterError,
     r"got -1\.0"),
    ("verify-delta", lambda: verify_exact(W, "approx_ldp", 1.0, 1.5), InvalidParameterError,
     r"got 1\.5"),
    ("verify-metric-distance", lambda: verify_exact(W, "metric", 1.0), InvalidParameterError,
     r"needs a distance"),
    ("verify-size", lambda: verify_exact(np.full((30, 30), 1 / 30), "ldp", 1.0),
     SizeLimitError, r"30 x 30 = 900"),
    ("verify-not-stochastic", lambda: verify_exact([[0.5, 0.6], [0.5, 0.5]], "ldp", 1.0),
     InvalidMechanismError, r"row 0 of matrix sums to 1\.1"),
    # ---- inputs that used to get through or blame the wrong argument
    ("matrix-numeric-string", lambda: md.Mechanism([["0.5", 0.5], [0.5, 0.5]]),
     ValidationError, r"\[0, 0\]"),
    ("matrix-bool", lambda: md.Mechanism([[True, False], [0.5, 0.5]]), ValidationError,
     r"\[0, 0\]"),
    ("label-nan", lambda: md.Mechanism([[0.5, 0.5], [0.5, 0.5]], inputs=[math.nan, 1]),
     ValidationError, r"nan"),
    ("constraint-bool", lambda: DesignProblem(LDP(1.0), ExpectedLoss(H3),
                                              constraints={"flag": lambda Q: True}).solve(),
     ValidationError, r"'flag'"),
    ("constraint-expression", lambda: DesignProblem(
        LDP(1.0), ExpectedLoss(H3), constraints={"oops": lambda Q: Q[0, 0] + 1}).solve(),
     ValidationError, r"'oops'"),
    ("constraints-list", lambda: DesignProblem(LDP(1.0), ExpectedLoss(H3),
                                               constraints=[lambda Q: Q[0, 0] >= 0]),
     InvalidParameterError, r"constraints"),
    ("inputs-int", lambda: DesignProblem(LDP(1.0), ExpectedLoss(H3), inputs=5),
     InvalidParameterError, r"inputs"),
    ("solver-option-unknown", lambda: DesignProblem(LDP(1.0), ExpectedLoss(H3)).solve(
        solver="CLARABEL", no_such_option=1), InvalidParameterError, r"no_such_option"),
]


@pytest.mark.parametrize(("call", "error", "pattern"), [c[1:] for c in PY_CASES],
                         ids=[c[0] for c in PY_CASES])
def test_python_api_raises_typed_errors_naming_the_value(call, error, pattern):
    with pytest.raises(error, match=pattern) as info:
        call()
    assert isinstance(info.value, ValidationError)
    assert "np.float64" not in str(info.value)


# ------------------------------------------------------------------------------ problem files
def _toml(priv: str = 'notion = "ldp"\nepsilon = 1.0',
          obj: str = 'kind = "expected_loss"\nloss = "hamming"\nk = 3', extra: str = "") -> str:
    return f"[privacy]\n{priv}\n[objective]\n{obj}\n{extra}"


EST2 = 'kind = "estimation"\nprior = "uniform"\nk = 2'
FILE_CASES = [
    ("eps-negative", _toml(priv='notion = "ldp"\nepsilon = -1.0'), FileFormatError,
     r"\[privacy\] epsilon = -1\.0: must be >= 0"),
    ("eps-nan", _toml(priv='notion = "ldp"\nepsilon = nan'), FileFormatError,
     r"epsilon = nan: must be a finite"),
    ("eps-inf", _toml(priv='notion = "ldp"\nepsilon = inf'), FileFormatError,
     r"epsilon = inf: must be a finite"),
    ("eps-expression", _toml(priv='notion = "ldp"\nepsilon = "2 ** 10"'), FileFormatError,
     r"epsilon = '2 \*\* 10': must be a number, got str"),
    ("eps-code", _toml(priv="notion = \"ldp\"\nepsilon = \"__import__('os').getcwd()\""),
     FileFormatError, r"__import__\('os'\)\.getcwd\(\)"),
    ("eps-missing", _toml(priv='notion = "ldp"'), FileFormatError, r"epsilon: missing"),
    ("delta-above-1", _toml(priv='notion = "approx_ldp"\nepsilon = 1.0\ndelta = 1.5'),
     FileFormatError, r"delta = 1\.5: must be <= 1"),
    ("delta-negative", _toml(priv='notion = "deletion_ldp"\nepsilon = 1.0\ndelta = -0.1'),
     FileFormatError, r"delta = -0\.1: must be >= 0"),
    ("delta-for-pure-ldp", _toml(priv='notion = "ldp"\nepsilon = 1.0\ndelta = 0.1'),
     FileFormatError, r"unknown key 'delta' for notion 'ldp'"),
    ("notion-unknown", _toml(priv='notion = "renyi"\nepsilon = 1.0'), FileFormatError,
     r"notion = 'renyi': unknown value"),
    ("objective-unknown", _toml(obj='kind = "entropy"\nk = 3'), FileFormatError,
     r"kind = 'entropy': unknown value"),
    ("sldp-kind-unknown", _toml(priv='notion = "sldp"\nepsilon = 1.0\nkind = "plausible"'),
     FileFormatError, r"kind = 'plausible'"),
    ("loss-unknown-name", _toml(obj='kind = "expected_loss"\nloss = "manhattan"\nk = 3'),
     FileFormatError, r"loss = 'manhattan': unknown loss"),
    ("loss-expression-is-data", _toml(obj='kind = "expected_loss"\nloss = "np.eye(3)"\nk = 3'),
     FileFormatError, r"loss = 'np\.eye\(3\)': unknown loss"),
    ("loss-ragged", _toml(obj='kind = "expected_loss"\nloss = [[0, 1], [1]]'),
     FileFormatError, r"lengths \[1, 2\]"),
    ("loss-nan", _toml(obj='kind = "expected_loss"\nloss = [[0, nan], [1, 0]]'),
     FileFormatError, r"entry \[0\]\[1\] = nan is not finite"),
    ("loss-inf", _toml(obj='kind = "expected_loss"\nloss = [[0, inf], [1, 0]]'),
     FileFormatError, r"entry \[0\]\[1\] = inf is not finite"),
    ("loss-strings", _toml(obj='kind = "expected_loss"\nloss = [["0", "1"], ["1", "0"]]'),
     FileFormatError, r"entry \[0\]\[0\] = '0' is not a number"),
    ("loss-rows-vs-k", _toml(obj='kind = "expected_loss"\nloss = [[0, 1], [1, 0]]\nk = 3'),
     FileFormatError, r"2 rows but there are 3 inputs"),
    ("loss-csv-missing", _toml(obj='kind = "expected_loss"\nloss = "nofile.csv"\nk = 3'),
     FileFormatError, r"no such CSV file: .*nofile\.csv"),
    ("prior-negative", _toml(obj='kind = "expected_loss"\nloss = "hamming"\nk = 2\n'
                                 'prior = [1.5, -0.5]'), FileFormatError, r"got -0\.5"),
    ("prior-not-stochastic", _toml(obj='kind = "expected_loss"\nloss = "hamming"\nk = 2\n'
                                       'prior = [0.5, 0.6]'), FileFormatError, r"sums to 1\.1"),
    ("prior-wrong-length", _toml(obj='kind = "expected_loss"\nloss = "hamming"\nk = 3\n'
                                     'prior = [0.5, 0.5]'), FileFormatError,
     r"2 entries but there are 3 inputs"),
    ("prior-nan", _toml(obj='kind = "mutual_information"\nprior = [nan, 0.5]'),
     FileFormatError, r"got nan"),
    ("k-above-limit", _toml(obj='kind = "expected_loss"\nloss = "hamming"\nk = 100000'),
     SizeLimitError, r"k = 100000: exceeds the limit of 10000"),
    ("k-zero", _toml(obj='kind = "expected_loss"\nloss = "hamming"\nk = 0'), FileFormatError,
     r"k = 0: must be >= 2"),
    ("k-float", _toml(obj='kind = "expected_loss"\nloss = "hamming"\nk = 3.0'),
     FileFormatError, r"k = 3\.0: must be an integer"),
    ("grid-above-limit", _toml(priv='notion = "metric"\nepsilon = 1.0\ndistance = '
                                    '"grid:1000:1000"', obj='kind = "expected_loss"\n'
                                                            'loss = "distance"'),
     SizeLimitError, r"1000000 cells exceed the limit"),
    ("distance-negative", _toml(priv='notion = "metric"\nepsilon = 1.0\n'
                                     'distance = [[0, -1], [-1, 0]]',
                                obj='kind = "expected_loss"\nloss = "hamming"\nk = 2'),
     FileFormatError, r"distance\[0, 1\] = -1\.0 is negative"),
    ("distance-unknown", _toml(priv='notion = "metric"\nepsilon = 1.0\n'
                                    'distance = "hyperbolic"'), FileFormatError,
     r"distance = 'hyperbolic': unknown distance"),
    ("spanner-below-1", _toml(priv='notion = "metric"\nepsilon = 1.0\n'
                                   'distance = [[0, 1], [1, 0]]\nspanner = 0.5',
                              obj='kind = "expected_loss"\nloss = "hamming"\nk = 2'),
     FileFormatError, r"spanner = 0\.5: must be >= 1"),
    ("evidential-outputs-above-limit", _toml(priv='notion = "wldp"\nepsilon = 1.0', obj=EST2,
                                             extra="[outputs]\nn = 11"),
     SizeLimitError, r"m = 11 outputs exceeds 10"),
    ("focal-set-label", _toml(priv='notion = "sldp"\nepsilon = 1.0', obj=EST2,
                              extra='[outputs]\nlabels = ["Yes", "No"]\n'
                                    'focal_sets = [["Yes"], ["Maybe"]]'),
     FileFormatError, r"'Maybe' is not an output label"),
    ("symmetry-not-bool", _toml(priv='notion = "metric"\nepsilon = 1.0\ndistance = "line"\n'
                                     'symmetry = "yes"'), FileFormatError,
     r"symmetry = 'yes': must be true or false"),
    ("symmetry-matrix-distance", _toml(priv='notion = "metric"\nepsilon = 1.0\n'
                                            'distance = [[0, 1], [1, 0]]\nsymmetry = true',
                                       obj='kind = "expected_loss"\nloss = "hamming"\nk = 2'),
     FileFormatError, r"needs a named distance"),
    ("symmetry-asymmetric-prior", _toml(priv='notion = "metric"\nepsilon = 1.0\n'
                                             'distance = "line"\nsymmetry = true',
                                        obj='kind = "expected_loss"\nloss = "distance"\n'
                                            'k = 3\nprior = [0.5, 0.3, 0.2]'),
     FileFormatError, r"not symmetric: prior\[0\] = 0\.5"),
    ("unknown-section", _toml(extra='[solver]\nname = "HIGHS"'), FileFormatError,
     r"unknown section or key 'solver'"),
    ("expected-source-not-a-string", _toml(extra="[expected]\nvalue = 0.5\nsource = 1"),
     FileFormatError, r"\[expected\] source = 1: must be a string, got int"),
    ("malformed-toml", "[privacy\nnotion = ", FileFormatError, r"malformed TOML"),
    ("duplicate-key", _toml(priv='notion = "ldp"\nepsilon = 1.0\nepsilon = 2.0'),
     FileFormatError, r"malformed TOML"),
    ("empty-file", "", FileFormatError, r"\[privacy\]: missing section"),
]


@pytest.mark.parametrize(("text", "error", "pattern"), [c[1:] for c in FILE_CASES],
                         ids=[c[0] for c in FILE_CASES])
def test_problem_files_are_validated_data(text, error, pattern):
    with pytest.raises(error, match=pattern) as info:
        loads_problem(text, name="case.toml")
    assert isinstance(info.value, ValidationError)
    assert str(info.value).startswith("case.toml")  # the message names the file


def test_problem_file_strings_are_never_evaluated(tmp_path, monkeypatch):
    # a file full of code strings: every one is refused as data, none runs
    import builtins

    calls = []
    monkeypatch.setattr(builtins, "__import__", _spy(builtins.__import__, calls))
    text = _toml(priv="notion = \"ldp\"\nepsilon = \"__import__('os').system('touch " +
                 str(tmp_path / "pwned") + "')\"")
    with pytest.raises(FileFormatError):
        loads_problem(text)
    assert not (tmp_path / "pwned").exists()
    assert "os" not in calls


def _spy(real, calls):
    def spy(name, *args, **kwargs):
        calls.append(name)
        return real(name, *args, **kwargs)
    return spy


def test_missing_and_unreadable_problem_files(tmp_path):
    with pytest.raises(FileFormatError, match=r"no such problem file: .*nope\.toml"):
        load_problem(tmp_path / "nope.toml")
    with pytest.raises(FileFormatError, match=r"no such problem file"):
        load_problem(tmp_path)  # a directory
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00[privacy]")
    with pytest.raises(FileFormatError, match=r"bin\.toml"):
        load_problem(tmp_path / "bin.toml")


# ------------------------------------------------------------------------------ CLI
@pytest.fixture()
def files(tmp_path: Path) -> Path:
    (tmp_path / "nonstoch.csv").write_text("0.5,0.5\n0.2,0.9\n")
    (tmp_path / "nan.csv").write_text("0.5,nan\n0.5,0.5\n")
    (tmp_path / "bad.toml").write_text("[[")
    (tmp_path / "neg.json").write_text('{"matrix": [[1.5, -0.5], [0.5, 0.5]]}')
    (tmp_path / "eps.toml").write_text(_toml(priv='notion = "ldp"\nepsilon = -2.0'))
    (tmp_path / "notion.toml").write_text(_toml(priv='notion = "renyi"\nepsilon = 1.0'))
    (tmp_path / "big.toml").write_text(_toml(obj='kind = "expected_loss"\nloss = "hamming"\n'
                                                 'k = 20000'))
    (tmp_path / "ok.toml").write_text(_toml())
    return tmp_path


CLI_CASES = [
    ("check-p-above-1", ["check", "warner", "p=1.5"], r"got 1\.5"),
    ("check-param-not-a-number", ["check", "warner", "p=abc"], r"'abc'"),
    ("check-unknown-param", ["check", "warner", "q=0.5"], r"no parameter 'q'"),
    ("check-param-without-value", ["check", "warner", "p"], r"got 'p'"),
    ("check-unknown-mechanism", ["check", "nosuch"], r"unknown mechanism 'nosuch'"),
    ("check-missing-file", ["check", "{d}/missing.csv"], r"missing\.csv"),
    ("check-non-stochastic", ["check", "{d}/nonstoch.csv"], r"row 1 of matrix sums to 1\.1"),
    ("check-nan", ["check", "{d}/nan.csv"], r"nan\.csv row 1, column 2: expected a finite"),
    ("check-malformed-toml", ["check", "{d}/bad.toml"], r"bad\.toml: malformed TOML"),
    ("check-negative-json", ["check", "{d}/neg.json"], r"= -0\.5 is negative"),
    ("check-epsilon-negative", ["check", "warner", "p=0.75", "--epsilon", "-1"],
     r"got -1\.0"),
    ("check-epsilon-nan", ["check", "warner", "p=0.75", "--epsilon", "nan"], r"got nan"),
    ("check-metric-shape", ["check", "randomized_response", "k=3", "epsilon=1",
                            "--metric", "{d}/nonstoch.csv"], r"\(3, 3\), got \(2, 2\)"),
    ("check-size-limit", ["check", "unary_encoding", "k=20", "epsilon=1"], r"k = 20 exceeds"),
    ("compare-warner-p", ["compare-warner", "--p", "0.1", "--reps", "0"], r"p = 0\.1"),
    ("compare-warner-p-plus-q", ["compare-warner", "--p", "0.6", "--q", "0.5", "--reps", "0"],
     r"p \+ q = 1\.1"),
    ("compare-warner-pi", ["compare-warner", "--pi", "1.5", "--reps", "0"], r"got 1\.5"),
    ("compare-warner-reps", ["compare-warner", "--reps", "-3"], r"got -3"),
    ("tradeoff-k", ["tradeoff", "warner", "p=0.75", "--k", "0"], r"got 0"),
    ("tradeoff-pair", ["tradeoff", "warner", "p=0.75", "--pair", "0", "7"], r"index 7"),
    ("compose-delta", ["compose", "warner", "p=0.75", "--delta", "2"], r"got 2\.0"),
    ("compose-epsilon", ["compose", "warner", "p=0.75", "--epsilon", "-2"], r"got -2\.0"),
    ("compose-non-stochastic", ["compose", "{d}/nonstoch.csv", "--epsilon", "1"],
     r"sums to 1\.1"),
    ("amplify-subsample-p", ["amplify", "subsample", "--epsilon", "1", "--p", "2"],
     r"got 2\.0"),
    ("amplify-shuffle-n-huge", ["amplify", "shuffle", "--epsilon0", "1", "--n", "1e40",
                                "--delta", "1e-6"], r"n = 1\d{40} exceeds"),
    ("amplify-shuffle-to-ldp-delta", ["amplify", "shuffle-to-ldp", "--epsilon", "1",
                                      "--delta", "3", "--n", "10"], r"got 3\.0"),
    ("solve-missing-file", ["solve", "{d}/missing.toml"], r"missing\.toml"),
    ("solve-malformed", ["solve", "{d}/bad.toml"], r"malformed TOML"),
    ("solve-eps-negative", ["solve", "{d}/eps.toml"], r"epsilon = -2\.0"),
    ("solve-unknown-notion", ["solve", "{d}/notion.toml"], r"'renyi'"),
    ("solve-size-limit", ["solve", "{d}/big.toml"], r"k = 20000"),
    ("solve-solver-not-installed", ["solve", "{d}/ok.toml", "--solver", "GUROBI"],
     r"'GUROBI' is not installed"),
    ("solve-out-extension", ["solve", "{d}/ok.toml", "--out", "{d}/x.xlsx"], r"x\.xlsx"),
    ("solve-out-directory", ["solve", "{d}/ok.toml", "--out", "/nonexistent/dir/x.csv"],
     r"/nonexistent/dir"),
]


def _run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse
        rc = exc.code if isinstance(exc.code, int) else 1
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize(("argv", "pattern"), [c[1:] for c in CLI_CASES],
                         ids=[c[0] for c in CLI_CASES])
def test_cli_prints_one_error_line_and_exits_non_zero(argv, pattern, files, capsys):
    argv = [a.replace("{d}", str(files)) for a in argv]
    rc, out, err = _run_cli(argv, capsys)
    assert rc != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("mechdesign: error: ")
    assert re.search(pattern, lines[0]), lines[0]
    assert "Traceback" not in err + out


@pytest.mark.parametrize("argv", [
    ["compose", "warner", "p=0.75", "--k", "0"],
    ["amplify", "shuffle", "--epsilon0", "1", "--n", "abc", "--delta", "1e-6"],
    ["solve"],
], ids=["compose-k0", "shuffle-n-not-a-number", "solve-no-file"])
def test_argparse_errors_follow_the_one_line_contract(argv, capsys):
    # errors caught by argparse itself print the usage block and "mechdesign <command>:
    # error: ..." (several lines, another prefix), exit 2, unless the parser overrides
    # ArgumentParser.error to print one "mechdesign: error: ..." line (cli.main.OneLineParser).
    rc, out, err = _run_cli(argv, capsys)
    assert rc != 0 and "Traceback" not in err + out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mechdesign: error: "), err


def test_the_corpus_is_large_and_ids_are_unique():
    n = len(PY_CASES) + len(FILE_CASES) + len(CLI_CASES)
    assert n >= 50
    for table in (PY_CASES, FILE_CASES, CLI_CASES):
        assert len({c[0] for c in table}) == len(table)
