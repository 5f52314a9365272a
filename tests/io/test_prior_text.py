"""The prior in the printed objective row: a long prior is abbreviated,
its first values at 4 significant digits and its size; a short one is shown as written."""

from __future__ import annotations

import numpy as np
import pytest

from mechdesign.io.problems import loads_problem

TEMPLATE = """\
title = "prior text"
[privacy]
notion = "ldp"
epsilon = 1.0
[objective]
kind = "expected_loss"
loss = "hamming"
prior = {prior}
"""


def objective_text(prior: list[float]) -> str:
    return loads_problem(TEMPLATE.format(prior=repr(prior))).objective


def test_a_40_value_prior_at_17_digits_is_abbreviated():
    # a Zipf(1.1) prior on 40 values: 17-digit floats, the whole list is 800+ characters
    w = 1.0 / np.arange(1, 41) ** 1.1
    prior = [float(v) for v in w / w.sum()]
    assert len(str(prior)) > 700
    text = objective_text(prior)
    head = ", ".join(f"{v:.4g}" for v in prior[:4])
    assert text == f"expected loss, hamming (40 x 40), prior [{head}, ..., 40 values]"
    assert head.startswith("0.2") and len(text) < 100  # 1/H_40(1.1) = 0.2343...


@pytest.mark.parametrize("prior", [[0.5, 0.3, 0.2], [0.1] * 10,
                                   [1 / 3, 1 / 3, 1 - 2 / 3]])
def test_a_short_prior_is_shown_as_written(prior):
    # at most 60 characters, or at most 4 values (three 17-digit thirds are 60+ characters)
    assert objective_text(prior).endswith(f"prior {prior}")


def test_the_uniform_and_two_input_priors_keep_their_text():
    uniform = loads_problem(TEMPLATE.format(prior='"uniform"').replace('"hamming"',
                                                                       '"hamming"\nk = 40'))
    assert uniform.objective.endswith("prior uniform")
    text = loads_problem(TEMPLATE.format(prior="0.3").replace('"hamming"', '"hamming"\nk = 2'))
    assert text.objective.endswith("prior (0.3, 0.7)")
