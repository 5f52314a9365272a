"""Bad input: every row expects a specific typed error whose message names the value.

Each case is ``(call, error type, regex that must match the message)``; the regex always
contains the offending value (or its position), so a generic message cannot pass.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from mechdesign import (
    EvidentialMechanism,
    FileFormatError,
    InvalidMechanismError,
    InvalidParameterError,
    Mechanism,
    SizeLimitError,
    ValidationError,
    delta_ldp,
    dont_know,
    epsilon_metric,
    epsilon_sldp,
    load_mechanism,
    q_lambda,
    randomized_response,
    warner,
)
from mechdesign.catalog import (
    deletion_counterexample,
    hadamard_response,
    subset_selection,
    truncated_geometric,
    unary_encoding,
)

W = warner(0.75)
M3 = Mechanism([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]])
DK = dont_know(0.6, 0.2)


def _graph(weight: float) -> nx.Graph:
    G = nx.Graph()
    G.add_edge("P", "notP", weight=weight)
    return G


CASES = [
    # ---- matrices (Mechanism): NaN, inf, negatives, row sums, shape
    ("nan-entry", lambda: Mechanism([[math.nan, 1.0], [0.5, 0.5]]),
     InvalidMechanismError, r"matrix\[0, 0\] = \S*nan"),
    ("inf-entry", lambda: Mechanism([[0.5, 0.5], [math.inf, 0.0]]),
     InvalidMechanismError, r"matrix\[1, 0\] = \S*inf"),
    ("-inf-entry", lambda: Mechanism([[-math.inf, 1.0]]),
     InvalidMechanismError, r"= \S*-inf"),
    ("negative", lambda: Mechanism([[0.5, 0.5], [-0.1, 1.1]]),
     InvalidMechanismError, r"matrix\[1, 0\] = \S*-0\.1\S* is negative"),
    ("tiny-negative", lambda: Mechanism([[1 + 1e-12, -1e-12]]),
     InvalidMechanismError, r"-1e-12"),
    ("row-sum-high", lambda: Mechanism([[0.5, 0.6]]),
     InvalidMechanismError, r"row 0 of matrix sums to \S*1\.1"),
    ("row-sum-low", lambda: Mechanism([[0.5, 0.5], [0.2, 0.2]]),
     InvalidMechanismError, r"row 1 of matrix sums to \S*0\.4"),
    ("row-sum-just-outside-tol", lambda: Mechanism([[0.5, 0.5 + 2e-9]]),
     InvalidMechanismError, r"sums to \S*1\.000000002"),
    ("empty-list", lambda: Mechanism([]),
     InvalidMechanismError, r"2-D.*\(0,\)"),
    ("empty-row", lambda: Mechanism([[]]),
     InvalidMechanismError, r"empty.*\(1, 0\)"),
    ("1-D", lambda: Mechanism([0.5, 0.5]),
     InvalidMechanismError, r"2-D.*\(2,\)"),
    ("3-D", lambda: Mechanism(np.full((2, 2, 2), 0.5)),
     InvalidMechanismError, r"\(2, 2, 2\)"),
    ("non-numeric", lambda: Mechanism([["a", "b"]]),
     InvalidMechanismError, r"'a'"),
    ("ragged", lambda: Mechanism([[1.0], [0.5, 0.5]]),
     InvalidMechanismError, r"not a numeric array"),
    # ---- labels
    ("too-few-input-labels", lambda: Mechanism([[1.0], [1.0]], inputs=["only"]),
     InvalidMechanismError, r"1 labels for 2 entries: \('only',\)"),
    ("too-many-output-labels", lambda: Mechanism([[0.5, 0.5]], outputs=["a", "b", "c"]),
     InvalidMechanismError, r"3 labels for 2 entries"),
    ("duplicate-labels", lambda: Mechanism([[0.5, 0.5]], outputs=["a", "a"]),
     InvalidMechanismError, r"distinct.*\('a', 'a'\)"),
    ("unhashable-labels", lambda: Mechanism([[0.5, 0.5]], outputs=[["a"], ["b"]]),
     InvalidMechanismError, r"hashable.*\['a'\]"),
    ("string-input-labels", lambda: Mechanism([[0.5, 0.5], [0.5, 0.5]], inputs="ab"),
     InvalidMechanismError, r"inputs must be a sequence of labels, not the string 'ab'"),
    ("string-output-labels", lambda: Mechanism([[0.5, 0.5]], outputs="ab"),
     InvalidMechanismError, r"outputs .* the string 'ab'"),
    ("string-evidential-outputs",
     lambda: EvidentialMechanism([[1.0]], [["a", "b"]], outputs="ab"),
     InvalidMechanismError, r"outputs .* the string 'ab'"),
    ("unhashable-focal-label",
     lambda: EvidentialMechanism([[1.0]], [["a", {"x": 1}]]),
     InvalidMechanismError, r"unhashable label \{'x': 1\}"),
    ("focal-sets-a-string", lambda: EvidentialMechanism([[1.0]], "a"),
     InvalidMechanismError, r"focal_sets must be .*got 'a'"),
    # ---- epsilon / delta / probabilities
    ("eps<0", lambda: randomized_response(3, -0.5),
     InvalidParameterError, r"epsilon must be >= 0, got -0\.5"),
    ("eps-nan", lambda: randomized_response(3, math.nan),
     InvalidParameterError, r"epsilon must not be NaN, got nan"),
    ("eps-inf", lambda: unary_encoding(3, math.inf),
     InvalidParameterError, r"epsilon must be finite, got inf"),
    ("eps-string", lambda: hadamard_response(4, "1"),
     InvalidParameterError, r"epsilon must be a real number, got '1'"),
    ("eps-bool", lambda: truncated_geometric(4, True),
     InvalidParameterError, r"got True"),
    ("delta_ldp-eps<0", lambda: delta_ldp(W, -1.0),
     InvalidParameterError, r"got -1\.0"),
    ("delta_ldp-eps-nan", lambda: delta_ldp(W, math.nan),
     InvalidParameterError, r"got nan"),
    ("delta>1", lambda: deletion_counterexample(0.25, 1.5),
     InvalidParameterError, r"delta must lie in \[0, 1\], got 1\.5"),
    ("delta<0", lambda: deletion_counterexample(0.25, -0.1),
     InvalidParameterError, r"delta must lie in \[0, 1\], got -0\.1"),
    ("delta-negative-probabilities", lambda: deletion_counterexample(2.0, 0.3),
     InvalidParameterError, r"epsilon = 2\.0, delta = 0\.3"),
    ("p>1", lambda: warner(1.5),
     InvalidParameterError, r"p must lie in \[0, 1\], got 1\.5"),
    ("p<0", lambda: warner(-0.2),
     InvalidParameterError, r"got -0\.2"),
    ("p-nan", lambda: warner(math.nan),
     InvalidParameterError, r"p must not be NaN"),
    ("p+q>1", lambda: dont_know(0.7, 0.5),
     InvalidParameterError, r"p \+ q = 1\.2"),
    ("q<0", lambda: dont_know(0.7, -0.1),
     InvalidParameterError, r"q must lie in \[0, 1\], got -0\.1"),
    ("q_lambda-p+q>1", lambda: q_lambda(0.9, 0.2, 0.5),
     InvalidParameterError, r"p \+ q = 1\.1"),
    ("lam>1", lambda: q_lambda(0.6, 0.2, 1.5),
     InvalidParameterError, r"lam must lie in \[0, 1\], got 1\.5"),
    # ---- sizes: k, d, n
    ("k<2-rr", lambda: randomized_response(1, 1.0),
     InvalidParameterError, r"k must be >= 2, got 1"),
    ("k<2-unary", lambda: unary_encoding(0, 1.0),
     InvalidParameterError, r"k must be >= 2, got 0"),
    ("k<2-hadamard", lambda: hadamard_response(-3, 1.0),
     InvalidParameterError, r"k must be >= 2, got -3"),
    ("k-float", lambda: randomized_response(2.5, 1.0),
     InvalidParameterError, r"k must be an integer, got 2\.5"),
    ("k<2-subset", lambda: subset_selection(1, 1, 1.0),
     InvalidParameterError, r"k must be >= 2, got 1"),
    ("d=k", lambda: subset_selection(4, 4, 1.0),
     InvalidParameterError, r"d must be <= k - 1 = 3, got 4"),
    ("d=0", lambda: subset_selection(4, 0, 1.0),
     InvalidParameterError, r"d must be >= 1, got 0"),
    ("n<2", lambda: truncated_geometric(1, 1.0),
     InvalidParameterError, r"n must be >= 2, got 1"),
    ("unary-k-too-large", lambda: unary_encoding(13, 1.0),
     SizeLimitError, r"k = 13 exceeds 12"),
    ("subset-too-large", lambda: subset_selection(40, 20, 1.0),
     SizeLimitError, r"137846528820"),
    # ---- evidential mechanisms
    ("duplicate-focal-sets", lambda: EvidentialMechanism([[0.5, 0.5]], [{"a"}, {"a"}]),
     InvalidMechanismError, r"distinct.*\{'a'\}, \{'a'\}"),
    ("empty-focal-set", lambda: EvidentialMechanism([[0.5, 0.5]], [set(), {"a"}]),
     InvalidMechanismError, r"non-empty, got an empty set"),
    ("focal-set-outside-outputs",
     lambda: EvidentialMechanism([[0.5, 0.5]], [{"a"}, {"c"}], outputs=["a", "b"]),
     InvalidMechanismError, r"\['c'\] outside the outputs \('a', 'b'\)"),
    ("focal-set-string", lambda: EvidentialMechanism([[1.0]], ["ab"]),
     InvalidMechanismError, r"got 'ab'"),
    ("focal-count-mismatch", lambda: EvidentialMechanism([[0.5, 0.5]], [{"a"}]),
     InvalidMechanismError, r"2 columns but 1 focal sets"),
    ("masses-nan", lambda: EvidentialMechanism([[math.nan, 1.0]], [{"a"}, {"b"}]),
     InvalidMechanismError, r"masses\[0, 0\] = \S*nan"),
    ("masses-row-sum", lambda: EvidentialMechanism([[0.5, 0.4]], [{"a"}, {"b"}]),
     InvalidMechanismError, r"row 0 of masses sums to \S*0\.9"),
    ("event-not-an-output", lambda: DK.bel({"Maybe"}),
     InvalidMechanismError, r"\['Maybe'\]"),
    ("too-many-outputs-for-events",
     lambda: EvidentialMechanism([[1.0]], [set(range(17))]).bel_matrix(),
     SizeLimitError, r"17 outputs"),
    ("bad-sldp-kind", lambda: epsilon_sldp(DK, "plausibility"),
     InvalidParameterError, r"'plausibility'"),
    # ---- distances (metric privacy)
    ("distance-wrong-shape", lambda: epsilon_metric(M3, np.zeros((2, 2))),
     InvalidParameterError, r"shape \(3, 3\), got \(2, 2\)"),
    ("distance-negative", lambda: epsilon_metric(W, [[0, -1.0], [1.0, 0]]),
     InvalidParameterError, r"distance\[0, 1\] = \S*-1\.0\S* is negative"),
    ("distance-nan", lambda: epsilon_metric(W, [[0, math.nan], [1.0, 0]]),
     InvalidParameterError, r"distance\[0, 1\] is NaN"),
    ("distance-diagonal", lambda: epsilon_metric(W, [[0.5, 1.0], [1.0, 0]]),
     InvalidParameterError, r"distance\[0, 0\] = \S*0\.5"),
    ("graph-negative-weight", lambda: epsilon_metric(W, _graph(-2.0)),
     InvalidParameterError, r"weight -2\.0"),
    ("graph-zero-weight", lambda: epsilon_metric(W, _graph(0.0)),
     InvalidParameterError, r"weight 0\.0"),
    ("graph-directed", lambda: epsilon_metric(W, nx.DiGraph([("P", "notP")])),
     InvalidParameterError, r"directed DiGraph; a metric is symmetric"),
    ("graph-string-weight", lambda: epsilon_metric(W, _graph("2")),
     InvalidParameterError, r"weight '2'"),
    ("graph-bool-weight", lambda: epsilon_metric(W, _graph(True)),
     InvalidParameterError, r"weight True"),
    ("graph-missing-node", lambda: epsilon_metric(W, nx.path_graph(2)),
     InvalidParameterError, r"\['P', 'notP'\]"),
    # ---- catalog at large epsilon: a typed error, not OverflowError / NaN / inf-LDP
    ("unary-optimized-eps-800", lambda: unary_encoding(3, 800.0, optimized=True),
     InvalidParameterError, r"epsilon = 800\.0 is too large.*largest supported epsilon here "
     r"is 353\.85"),
    ("rr-eps-710", lambda: randomized_response(3, 710.0),
     InvalidParameterError, r"epsilon = 710\.0.*708\.39"),
    ("hadamard-eps-708", lambda: hadamard_response(3, 708.0),
     InvalidParameterError, r"epsilon = 708\.0.*707\.70"),
    ("subset-eps-708", lambda: subset_selection(5, 2, 708.0),
     InvalidParameterError, r"epsilon = 708\.0.*707\.01"),
    ("geometric-eps-400", lambda: truncated_geometric(3, 400.0),
     InvalidParameterError, r"epsilon = 400\.0.*354\.19"),
    ("deletion-counterexample-eps-800", lambda: deletion_counterexample(800.0),
     InvalidParameterError, r"epsilon = 800\.0.*ln 3"),
    ("unary-optimized-not-bool", lambda: unary_encoding(3, 1.0, optimized="no"),
     InvalidParameterError, r"optimized must be True or False, got 'no'"),
    # ---- algebra and sampling
    ("then-wrong-rows", lambda: W.then(np.eye(3)),
     InvalidMechanismError, r"G has 3 rows, expected 2"),
    ("then-not-stochastic", lambda: W.then([[1.0, 1.0], [0.0, 1.0]]),
     InvalidMechanismError, r"row 0 of G sums to \S*2\.0"),
    ("product-not-a-mechanism", lambda: W.product(np.eye(2)),
     InvalidMechanismError, r"ndarray"),
    ("sample-out-of-range", lambda: W.sample([0, 5]),
     InvalidParameterError, r"input index 5 is outside 0\.\.1"),
    ("sample-negative", lambda: W.sample(-1, rng=0),
     InvalidParameterError, r"input index -1"),
    ("sample-float-index", lambda: W.sample(0.5),
     InvalidParameterError, r"got 0\.5"),
    ("sample-counts-shape", lambda: W.sample_counts([1, 2, 3], rng=0),
     InvalidParameterError, r"length 2.*shape \(3,\)"),
    ("sample-counts-negative", lambda: W.sample_counts([4, -3], rng=0),
     InvalidParameterError, r"got -3"),
    ("sample-counts-float", lambda: W.sample_counts([1.5, 2.0], rng=0),
     InvalidParameterError, r"dtype float64"),
    # ---- files
    ("missing-file", lambda: load_mechanism("/nonexistent/q.json"),
     FileFormatError, r"/nonexistent/q\.json"),
]


@pytest.mark.parametrize(("call", "error", "pattern"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input_raises_typed_error_naming_the_value(call, error, pattern):
    with pytest.raises(error, match=pattern) as info:
        call()
    # every validation error is also a ValueError, for callers who do not know mechdesign
    assert isinstance(info.value, ValidationError)
    assert isinstance(info.value, ValueError)


PLAIN_NUMBER_CASES = ["nan-entry", "negative", "row-sum-high", "masses-row-sum",
                      "distance-negative", "distance-diagonal", "then-not-stochastic"]


def test_messages_show_plain_numbers_not_numpy_reprs():
    # numpy >= 2 reprs scalars as "np.float64(-0.1)"; a message should name the value "-0.1"
    messages = []
    for case_id in PLAIN_NUMBER_CASES:
        call = next(c[1] for c in CASES if c[0] == case_id)
        with pytest.raises(ValidationError) as info:
            call()
        messages.append(str(info.value))
    assert [msg for msg in messages if "np.float64" in msg] == []


def test_the_table_is_large_and_ids_are_unique():
    assert len(CASES) >= 30
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize(("name", "text", "pattern"), [
    ("bad.json", "{not json", r"bad\.json: malformed JSON"),
    ("bad.toml", "matrix = [[", r"bad\.toml: malformed TOML"),
    ("keys.json", '{"rows": [[1.0]]}', r"no 'matrix' or 'masses' key among the table's 1 keys"),
    ("nofocal.json", '{"masses": [[1.0]]}', r"'focal_sets'"),
    ("scalar.json", "5", r"got int"),
    ("empty.csv", "\n\n", r"CSV file has no rows"),
    ("text.csv", "a,b\n0.5,x\n", r"text\.csv row 2, column 2: expected a number$"),
    ("ragged.csv", "0.5,0.5\n1.0\n", r"ragged\.csv row 2 has 1 columns, expected 2"),
    ("m.txt", "0.5,0.5", r"unknown file type '\.txt'"),
    ("strlabels.json", '{"matrix": [[0.5, 0.5], [0.25, 0.75]], "inputs": "ab"}',
     r"'inputs' must be a list, got str"),
])
def test_bad_files(tmp_path, name, text, pattern):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(FileFormatError, match=pattern):
        load_mechanism(path)


def test_unhashable_focal_label_in_a_file_is_named(tmp_path):
    path = tmp_path / "unhashable.json"
    path.write_text('{"masses": [[1.0]], "focal_sets": [["a", {"x": 1}]]}')
    with pytest.raises(InvalidMechanismError, match=r"unhashable label \{'x': 1\}"):
        load_mechanism(path)


def test_binary_file_is_a_typed_file_error_naming_the_file(tmp_path):
    path = tmp_path / "bin.csv"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(FileFormatError, match=r"bin\.csv' is not a UTF-8 text file"):
        load_mechanism(path)


def test_json_null_name_means_no_name(tmp_path):
    path = tmp_path / "null.json"
    path.write_text('{"matrix": [[0.5, 0.5], [0.25, 0.75]], "name": null}')
    assert load_mechanism(path).name == ""
    assert Mechanism([[1.0]], name=None).name == ""


@pytest.mark.parametrize("weight", [np.int64(2), np.float32(2.0), np.float64(2.0), 2, 2.0])
def test_graph_weights_may_be_numpy_numbers(weight):
    # warner(0.75) has eps = ln 3; at distance 2 the metric epsilon is ln 3 / 2
    assert epsilon_metric(W, _graph(weight)) == pytest.approx(math.log(3) / 2, rel=1e-15)


def test_a_loss_whose_range_overflows_is_refused_up_front():
    # entries of +-1e308: max - min overflows; it used to reach the solver and end in
    # "Solver 'CLARABEL' failed"
    import numpy as np

    import mechdesign as md
    from mechdesign.errors import InvalidParameterError
    L = np.array([[0.0, 1e308], [-1e308, 0.0]])
    for objective in (md.ExpectedLoss, md.WorstCaseLoss):
        with pytest.raises(InvalidParameterError, match=r"range overflows.*1e\+308"):
            objective(L)
    md.ExpectedLoss(np.array([[0.0, 1e307], [-1e307, 0.0]]))  # a finite range is fine
