"""Priors off 1 by a typing error, across the layers: a prior within 1e-6 per value of
summing to 1 is divided by its sum, never silently (a ``PriorNormalisedWarning``; the CLI
prints it; an objective keeps it in ``notes``; estimation functions take it); farther off,
problem files and the CLI refuse it naming the sum. (The check itself, ``as_prior`` and
``prior_with_note``: tests/test_validation.py.)"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mechdesign as md
from mechdesign._validation import (
    PriorNormalisedWarning,
)
from mechdesign.cli.main import main
from mechdesign.errors import FileFormatError
from mechdesign.estimation import covariance_inverse, cramer_rao
from mechdesign.io.problems import loads_problem

SIX_DIGITS = [0.333334, 0.333334, 0.333334]  # 1/3 typed to 6 decimals: sums to 1.000002


@pytest.mark.parametrize("build", [
    lambda p: md.ExpectedLoss(md.losses.hamming(3), p),
    lambda p: md.EstimationVariance(p),
    lambda p: md.MutualInformation(p),
    lambda p: md.design.MinimaxLoss(md.losses.hamming(3), priors=[p, [0.2, 0.3, 0.5]]),
], ids=["ExpectedLoss", "EstimationVariance", "MutualInformation", "MinimaxLoss"])
def test_an_objective_keeps_the_note_for_its_designs(build):
    with pytest.warns(PriorNormalisedWarning):
        obj = build(SIX_DIGITS)
    assert len(obj.notes) == 1 and "sums to 1.000002" in obj.notes[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert build([0.2, 0.3, 0.5]).notes == ()


def test_a_normalised_prior_designs_as_the_exact_one():
    # the uniform prior typed to 6 decimals: 3-RR, value (k-1)/(e+k-1) (Kairouz et al. 2016)
    with pytest.warns(PriorNormalisedWarning):
        obj = md.ExpectedLoss(md.losses.hamming(3), SIX_DIGITS)
    res = md.DesignProblem(privacy=md.LDP(epsilon=1.0), objective=obj).solve()
    assert res.value == pytest.approx(2 / (np.e + 2), rel=1e-9)


def test_estimation_functions_take_a_6_decimal_prior():
    rr = md.randomized_response(3, 1.0)
    with pytest.warns(PriorNormalisedWarning, match="1.000002"):
        cov = covariance_inverse(rr, SIX_DIGITS, 100)
    np.testing.assert_allclose(cov, covariance_inverse(rr, np.full(3, 1 / 3), 100),
                               rtol=1e-12)
    with pytest.warns(PriorNormalisedWarning):
        cramer_rao(rr, SIX_DIGITS)
    oracle = md.oracles.oracle("randomized_response", k=3, epsilon=1.0)
    with pytest.warns(PriorNormalisedWarning):
        oracle.variance(SIX_DIGITS, 100)


PROBLEM = """\
title = "a prior typed to 6 decimals"
[privacy]
notion = "ldp"
epsilon = 1.0
[objective]
kind = "expected_loss"
loss = "hamming"
prior = {prior}
"""


def test_a_problem_file_prior_is_normalised_and_the_cli_prints_the_note(tmp_path, capsys):
    path = tmp_path / "six.toml"
    path.write_text(PROBLEM.format(prior=SIX_DIGITS))
    assert main(["solve", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        "mechdesign: note: prior sums to 1.000002, not 1 (off by 2e-06, within 3e-06 = "
        "3 x 1e-06): divided by its sum"]
    assert "value          0.4238831152" in out  # 2/(e + 2), the 3-RR optimum
    assert main(["solve", str(path), "--json", "-q"]) == 0
    assert "mechdesign: note: prior sums to 1.000002" in capsys.readouterr().err


def test_a_problem_file_prior_farther_off_is_refused(tmp_path, capsys):
    with pytest.raises(FileFormatError, match=r"sums to 1\.0002"):
        loads_problem(PROBLEM.format(prior=[0.3334, 0.3334, 0.3334]))
    path = tmp_path / "four.toml"
    path.write_text(PROBLEM.format(prior=[0.3334, 0.3334, 0.3334]))
    assert main(["solve", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "sums to 1.0002" in err and "four.toml" in err


def test_a_design_says_its_prior_was_normalised():
    # the objective keeps the note; the design's result carries it (never silently)
    import warnings

    import mechdesign as md
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = md.DesignProblem(privacy=md.LDP(epsilon=1.0), objective=md.ExpectedLoss(
            md.losses.absolute(3), prior=[0.333334] * 3)).solve()
    assert any("1.000002" in n and "divided by its sum" in n for n in res.notes)
