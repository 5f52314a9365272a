"""Estimators chosen by name: ``"inverse"``, the name the docs use for the
unbiased inverse estimator, is accepted everywhere an estimator is named (survey estimates,
simulations, ``mechdesign estimate --estimator``); ``"unbiased"``, its former name in the
survey API, keeps working and means the same estimator."""

from __future__ import annotations

import json

import numpy as np
import pytest

import mechdesign as md
from mechdesign.cli.main import main
from mechdesign.errors import InvalidParameterError
from mechdesign.estimation.estimators import ESTIMATOR_ALIASES, estimate_inverse, estimator_name
from mechdesign.estimation.simulation import simulate
from mechdesign.estimation.variances import covariance_inverse
from mechdesign.oracles.survey import ESTIMATORS, estimate_survey

RR4 = md.randomized_response(4, 1.0)


def reports_of(mech: md.Mechanism, n: int = 2000, seed: int = 3) -> np.ndarray:
    """Output indices of ``n`` respondents drawn from a Zipf-like prior."""
    rng = np.random.default_rng(seed)
    x = rng.choice(mech.n_inputs, size=n, p=[0.4, 0.3, 0.2, 0.1])
    return np.array([mech.sample(int(v), rng) for v in x])


def test_the_survey_api_takes_inverse_and_its_old_name():
    idx = reports_of(RR4)
    assert ESTIMATORS == ("inverse", "mle") and ESTIMATOR_ALIASES == {"unbiased": "inverse"}
    by_name = estimate_survey(RR4, idx, estimator="inverse")
    old = estimate_survey(RR4, idx, estimator="unbiased")
    default = estimate_survey(RR4, idx)
    assert by_name.estimator == old.estimator == default.estimator == "inverse"
    counts = np.bincount(idx, minlength=4)
    # the inverse estimator (counts / n) Q^-1 and the diagonal of its exact covariance
    expected = estimate_inverse(RR4, counts)
    np.testing.assert_allclose(by_name.estimate, expected, rtol=1e-12)
    for other in (old, default):
        np.testing.assert_array_equal(other.estimate, by_name.estimate)
        np.testing.assert_array_equal(other.standard_error, by_name.standard_error)
    assert by_name.to_dict()["estimator"] == "inverse"
    assert np.all(by_name.standard_error > 0)
    plug = md.estimation.project_simplex(expected)
    np.testing.assert_allclose(by_name.standard_error ** 2,
                               np.diag(covariance_inverse(RR4, plug, idx.size)), rtol=1e-12)


def test_an_oracle_survey_takes_inverse():
    oracle = md.oracles.oracle("randomized_response", k=4, epsilon=1.0)
    reports = oracle.sample(np.repeat(np.arange(4), [400, 300, 200, 100]), rng=5)
    a = estimate_survey(oracle, reports, estimator="inverse")
    b = estimate_survey(oracle, reports, estimator="unbiased")
    np.testing.assert_array_equal(a.estimate, oracle.estimate(reports))
    np.testing.assert_array_equal(a.estimate, b.estimate)
    assert a.estimator == b.estimator == "inverse"


def test_simulate_takes_the_old_name_too():
    a = simulate(RR4, "inverse", [0.4, 0.3, 0.2, 0.1], n=200, reps=300, rng=4)
    b = simulate(RR4, "unbiased", [0.4, 0.3, 0.2, 0.1], n=200, reps=300, rng=4)
    np.testing.assert_array_equal(a.mse, b.mse)


@pytest.mark.parametrize(("call", "needles"), [
    (lambda: estimate_survey(RR4, reports_of(RR4, 50), estimator="inverted"),
     ["'inverted'", "'inverse', 'mle'", "'unbiased' for 'inverse'"]),
    (lambda: simulate(RR4, "least-squares", [0.25] * 4, n=10, reps=2),
     ["'least-squares'", "'inverse', 'projected', 'mle'", "or pass a callable"]),
    (lambda: estimator_name(3, ("inverse",)), ["unknown estimator 3"]),
])
def test_an_unknown_name_is_refused_naming_it_and_the_names(call, needles):
    with pytest.raises(InvalidParameterError) as info:
        call()
    for needle in needles:
        assert needle in str(info.value)


@pytest.mark.parametrize("name", ["inverse", "unbiased"])
def test_the_cli_takes_inverse_and_its_old_name(name, tmp_path, capsys):
    idx = reports_of(RR4, 500)
    path = tmp_path / "reports.txt"
    path.write_text("\n".join(map(str, idx)) + "\n")
    assert main(["estimate", "randomized_response", "k=4", "epsilon=1", "--reports",
                 str(path), "--estimator", name, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["estimator"] == "inverse"
    np.testing.assert_allclose(record["estimate"],
                               estimate_inverse(RR4, np.bincount(idx, minlength=4)),
                               rtol=1e-12)
