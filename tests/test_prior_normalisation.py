"""Priors off 1 by a typing error: a prior within 1e-6 per value of
summing to 1 is divided by its sum, never silently (a ``PriorNormalisedWarning``, a
``UserWarning`` naming the sum; the CLI prints it; an objective keeps it in ``notes``);
farther off it is refused with a message naming the sum."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import mechdesign as md
from mechdesign._validation import (
    PRIOR_NORMALISE_TOL,
    PRIOR_SUM_TOL,
    PriorNormalisedWarning,
    as_prior,
    prior_with_note,
)
from mechdesign.cli.main import main
from mechdesign.errors import FileFormatError, InvalidParameterError
from mechdesign.estimation import covariance_inverse, cramer_rao
from mechdesign.io.problems import loads_problem

SIX_DIGITS = [0.333334, 0.333334, 0.333334]  # 1/3 typed to 6 decimals: sums to 1.000002


def zipf_typed(k: int = 40, s: float = 1.1, decimals: int = 6) -> list[float]:
    """A Zipf(s) prior on k values written to ``decimals`` decimals, as a user types it."""
    w = 1.0 / np.arange(1, k + 1) ** s
    return [round(float(v), decimals) for v in w / w.sum()]


def test_a_prior_typed_to_6_decimals_is_divided_by_its_sum_with_a_warning():
    assert issubclass(PriorNormalisedWarning, UserWarning)
    with pytest.warns(PriorNormalisedWarning, match=r"prior sums to 1\.000002, not 1") as rec:
        p = as_prior(SIX_DIGITS, 3)
    assert len(rec) == 1 and "divided by its sum" in str(rec[0].message)
    np.testing.assert_allclose(p, np.full(3, 1 / 3), rtol=1e-15)
    assert abs(p.sum() - 1.0) <= 2.3e-16
    # the note returned is the warning's text
    with pytest.warns(PriorNormalisedWarning):
        q, note = prior_with_note(SIX_DIGITS, 3, "pi")
    assert note.startswith("pi sums to 1.000002") and np.array_equal(p, q)


def test_a_40_value_prior_typed_to_6_decimals_is_accepted():
    typed = zipf_typed()
    total = float(np.sum(typed))
    assert PRIOR_SUM_TOL < abs(total - 1) <= 40 * PRIOR_NORMALISE_TOL
    with pytest.warns(PriorNormalisedWarning, match=re.escape(f"sums to {total!r}")):
        p = as_prior(typed, 40)
    np.testing.assert_allclose(p, np.array(typed) / total, rtol=1e-15)


def test_float_rounding_is_kept_as_given_and_silent():
    near = [0.5, 0.5 + PRIOR_SUM_TOL / 2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(as_prior(near, 2), near)
        assert np.array_equal(as_prior(0.3, 2), [0.3, 0.7])


@pytest.mark.parametrize(("prior", "total"), [
    ([0.5, 0.6], "1.1"),
    ([0.3334, 0.3334, 0.3334], "1.0002"),         # 4 decimals: off 2e-4 > 3e-6
    ([0.5, 0.5 + 2.5e-6], "1.0000025"),           # just past 2 x 1e-6
    ([0.25, 0.25, 0.25, 0.25 - 5e-6], "0.999995"),  # below 1 too: off 5e-6 > 4e-6
])
def test_larger_errors_are_refused_naming_the_sum(prior, total):
    with pytest.raises(InvalidParameterError, match=f"sums to {total}") as info:
        as_prior(prior, len(prior))
    assert "correct the values" in str(info.value)


def test_the_boundary_is_one_millionth_per_value():
    with pytest.warns(PriorNormalisedWarning, match="sums to 1.0000015"):
        as_prior([0.5, 0.5 + 1.5e-6], 2)  # off 1.5e-6 <= 2e-6
    with pytest.raises(InvalidParameterError, match=r"prior\[0\]|sums to 1.0000025"):
        as_prior([0.5, 0.5 + 2.5e-6], 2)


def test_a_long_refused_prior_is_not_printed_whole():
    with pytest.raises(InvalidParameterError) as info:
        as_prior(np.full(40, 0.03), 40)  # sums to 1.2
    text = str(info.value)
    assert "(40 values)" in text and len(text) < 400 and "sums to 1.2" in text


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
