"""Monte Carlo surveys (mechdesign.estimation.simulation): agreement with the closed forms
within four standard errors, exact reproducibility across chunkings of the work, and the
statistics themselves recomputed from the same draws by hand."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np
import pytest
from scipy import stats

import mechdesign as md
from mechdesign.errors import InvalidParameterError
from mechdesign.estimation.estimators import (
    estimate_dont_know,
    estimate_inverse,
    estimate_mle,
    estimate_q_lambda,
    estimate_warner,
)
from mechdesign.estimation.simulation import as_seed_sequence, simulate, simulate_dont_know
from mechdesign.estimation.variances import (
    covariance_inverse,
    variance_dont_know,
    variance_q_lambda,
    variance_warner,
)
from mechdesign.testing.timing import WorkClock
from tests.estimation.exact import compositions


@pytest.mark.parametrize(("p", "q", "pi", "n"), [
    (0.6, 0.2, 0.3, 100),      # the sheet's sanity example, default pi and n
    (0.75, 0.25, 0.5, 40),     # p + q = 1: Warner
    (0.05, 0.01, 0.3, 10),     # many surveys with N1 + N2 = 0 are redrawn
    (0.6, 0.2, 0.3, 10**6),    # a million respondents per survey
])
def test_dont_know_simulation_within_four_standard_errors(p, q, pi, n):
    sim = simulate_dont_know(p, q, pi, n, reps=4000, rng=2022)
    exact = variance_dont_know(p, q, pi, n)
    assert abs(sim.mse - exact) <= 4 * sim.stderr
    assert sim.reps == 4000 and sim.n == n
    # the conditional estimator is unbiased: |bias| within 4 standard errors of the mean
    assert abs(sim.bias) <= 4 * math.sqrt(exact / sim.reps)


def test_redraws_are_counted_and_condition_on_n1_plus_n2_positive():
    # P(N1 + N2 = 0) = (1 - c)^n = 0.94^10 = 0.539: more than half the first draws redrawn
    sim = simulate_dont_know(0.05, 0.01, 0.3, 10, reps=2000, rng=1)
    assert 0.45 * 2000 < sim.redrawn < 3 * 2000
    kept = simulate_dont_know(0.05, 0.01, 0.3, 10, reps=200, rng=1, redraw_undefined=False)
    assert math.isnan(kept.mse) and kept.redrawn == 0


@pytest.mark.parametrize("lam", [0.0, 0.3, 1.0])
def test_q_lambda_and_warner_simulations(lam):
    est = partial(estimate_q_lambda, p=0.6, q=0.2, lam=lam)
    sim = simulate(md.q_lambda(0.6, 0.2, lam), est, 0.3, 200, reps=3000, rng=5)
    assert abs(sim.mse - variance_q_lambda(0.6, 0.2, lam, 0.3, 200)) <= 4 * sim.stderr
    w = simulate(md.warner(0.8), partial(estimate_warner, p=0.8), 0.1, 50, 3000, rng=6)
    assert abs(w.mse - variance_warner(0.8, 0.1, 50)) <= 4 * w.stderr


def test_general_inverse_estimator_against_exact_covariance():
    mech = md.randomized_response(3, 1.0)
    prior = np.array([0.2, 0.3, 0.5])
    sim = simulate(mech, "inverse", prior, 500, reps=4000, rng=9)
    exact = float(np.trace(covariance_inverse(mech, prior, 500)))
    assert abs(sim.mse - exact) <= 4 * sim.stderr
    assert sim.bias.shape == (3,) and sim.mean.shape == (3,)
    for name in ("projected", "mle"):
        other = simulate(mech, name, prior, 500, reps=300, rng=9)
        assert other.mse <= sim.mse * 1.5  # both near the inverse's error; not wildly off
    again = simulate(mech, "inverse", prior, 500, reps=4000, rng=9)
    assert again == sim and not sim.bias.flags.writeable  # records with arrays compare
    binary = simulate(md.warner(0.7), "inverse", 0.3, 100, reps=2000, rng=3)
    assert abs(binary.mse - variance_warner(0.7, 0.3, 100)) <= 4 * binary.stderr


def test_simulating_k_ary_estimators_of_dont_know_gives_the_unconditional_mse():
    # So simulate(dk, "mle" | "inverse") redraws nothing and estimates the unconditional MSE
    # (exact values by enumeration over all count vectors), not Thm 3.10's conditional
    # variance, which simulate_dont_know estimates (it redraws the n1 + n2 = 0 surveys).
    dk, pi, n, reps = md.dont_know(0.6, 0.2), 0.3, 2, 4000
    counts = np.array(list(compositions(n, 3)))
    w = stats.multinomial.pmf(counts, n, np.array([pi, 1 - pi]) @ dk.to_mechanism().matrix)
    for name, est in (("inverse", estimate_inverse), ("mle", estimate_mle)):
        exact = float(w @ (est(dk, counts)[:, 0] - pi) ** 2)  # 0.605 and 0.170
        sim = simulate(dk, name, pi, n, reps, rng=3)
        assert sim.redrawn == 0
        assert abs(sim.mse - exact) <= 4 * sim.stderr
    np.testing.assert_allclose(w @ (estimate_inverse(dk, counts)[:, 0] - pi) ** 2,
                               covariance_inverse(dk, [pi, 1 - pi], n)[0, 0], rtol=1e-12)
    conditional = simulate_dont_know(0.6, 0.2, pi, n, reps, rng=3)
    assert conditional.redrawn > 0  # P(n1 + n2 = 0) = 0.2^2
    assert abs(conditional.mse - variance_dont_know(0.6, 0.2, pi, n)) <= 4 * conditional.stderr
    # Thm 3.10: [-(pi - 1/2)^2 + c^2 / (4 (p - q)^2)] A = (1 - 0.04) * 2/3 = 0.64, with
    # A = E[1/M | M > 0], M ~ Bin(2, 0.8): (0.32 / 1 + 0.64 / 2) / 0.96 = 2/3
    assert variance_dont_know(0.6, 0.2, pi, n) == pytest.approx(0.64, rel=1e-12)



def test_statistics_recomputed_by_hand_from_the_same_draws():
    # one chunk: the draws are rng(SeedSequence(seed).spawn(1)[0]).multinomial(...)
    p, q, pi, n, reps = 0.6, 0.2, 0.3, 30, 500
    sim = simulate_dont_know(p, q, pi, n, reps, rng=123, chunk_size=reps)
    rng = np.random.default_rng(np.random.SeedSequence(123).spawn(1)[0])
    probs = np.array([pi * p + (1 - pi) * q, pi * q + (1 - pi) * p, 1 - p - q])
    counts = rng.multinomial(n, probs / probs.sum(), size=reps)
    est = estimate_dont_know(counts, p, q)
    assert not np.isnan(est).any()  # (1 - c)^n = 0.2^30: no redraw here
    se = (est - pi) ** 2
    assert sim.mse == pytest.approx(se.mean(), rel=1e-12)
    assert sim.variance == pytest.approx(est.var(ddof=1), rel=1e-12)
    assert sim.bias == pytest.approx(est.mean() - pi, rel=1e-10, abs=1e-15)
    assert sim.stderr == pytest.approx(se.std(ddof=1) / math.sqrt(reps), rel=1e-12)
    # several chunks combine (Chan et al.) to the statistics of the concatenated draws
    chunked = simulate_dont_know(p, q, pi, n, reps, rng=123, chunk_size=128)
    children = np.random.SeedSequence(123).spawn(4)
    parts = [np.random.default_rng(s).multinomial(n, probs / probs.sum(), size=size)
             for s, size in zip(children, [128, 128, 128, 116], strict=True)]
    est = estimate_dont_know(np.concatenate(parts), p, q)
    se = (est - pi) ** 2
    assert chunked.mse == pytest.approx(se.mean(), rel=1e-12)
    assert chunked.variance == pytest.approx(est.var(ddof=1), rel=1e-12)
    assert chunked.stderr == pytest.approx(se.std(ddof=1) / math.sqrt(reps), rel=1e-12)


def test_results_do_not_depend_on_workers_or_executor():
    kw = {"reps": 2000, "rng": 42, "chunk_size": 250}
    serial = simulate_dont_know(0.6, 0.2, 0.3, 100, **kw)
    processes = simulate_dont_know(0.6, 0.2, 0.3, 100, workers=2, **kw)
    with ThreadPoolExecutor(3) as pool:
        threads = simulate_dont_know(0.6, 0.2, 0.3, 100, executor=pool, **kw)
    assert serial == processes == threads  # bit for bit
    again = simulate_dont_know(0.6, 0.2, 0.3, 100, **kw)
    assert again == serial
    other_seed = simulate_dont_know(0.6, 0.2, 0.3, 100, reps=2000, rng=43, chunk_size=250)
    assert other_seed.mse != serial.mse


def test_progress_goes_to_stderr(capsys):
    simulate_dont_know(0.6, 0.2, 0.3, 100, reps=300, rng=1, chunk_size=100, progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "300/300 surveys" in captured.err and "100/300" in captured.err


def test_a_thousand_surveys_of_a_million_respondents_is_fast():
    # a guard against a per-respondent or per-survey Python loop (those take minutes),
    # counted, not timed: the Python lines run (WorkClock) do not grow with the surveys or
    # the respondents (measured: 1,069-1,070 lines for 10 or 1,000 surveys of 10 or 10^6
    # respondents); a loop over 1,000 surveys would add at least 1,000
    simulate_dont_know(0.6, 0.2, 0.3, 10, reps=10, rng=0)  # lazy imports done
    with WorkClock() as clock:
        sim = simulate_dont_know(0.6, 0.2, 0.3, 10**6, reps=1000, rng=0)
    many = clock()
    with WorkClock() as clock:
        simulate_dont_know(0.6, 0.2, 0.3, 10, reps=10, rng=0)
    few = clock()
    assert abs(many - few) < 100 and many < 5000, (many, few)
    assert sim.reps == 1000


def test_as_seed_sequence_roots_a_reproducible_tree():
    # an int is SeedSequence(int); a SeedSequence (a caller's child) is kept as is; None
    # draws fresh entropy, recorded so that the run can be repeated
    assert as_seed_sequence(7).entropy == 7
    child = np.random.SeedSequence(7).spawn(2)[1]
    assert as_seed_sequence(child) is child
    fresh = as_seed_sequence(None)
    assert as_seed_sequence(fresh.entropy).entropy == fresh.entropy
    assert as_seed_sequence(np.int64(3)).entropy == 3
    for bad, needle in ((-1, "-1"), (True, "True"), (2.0, "2.0")):
        with pytest.raises(InvalidParameterError, match=needle):
            as_seed_sequence(bad)


def _bad_shape(counts):
    return np.zeros((counts.shape[0], 2))


@pytest.mark.parametrize(("call", "needle"), [
    (lambda: simulate_dont_know(0.3, 0.3, 0.5, 10), "0.3"),
    (lambda: simulate_dont_know(0.6, 0.2, 0.3, 10, reps=1), "1"),
    (lambda: simulate_dont_know(0.6, 0.2, 0.3, 0), "0"),
    (lambda: simulate_dont_know(0.6, 0.2, 1.3, 10), "1.3"),
    (lambda: simulate_dont_know(0.6, 0.2, 0.3, 10, rng=-4), "-4"),
    (lambda: simulate_dont_know(0.6, 0.2, 0.3, 10, rng="x"), "'x'"),
    (lambda: simulate(md.warner(0.7), "median", 0.3, 10), "median"),
    (lambda: simulate(md.warner(0.7), _bad_shape, 0.3, 10, reps=5), "(5, 2)"),
    (lambda: simulate(md.randomized_response(3, 1.0), "inverse", 0.3, 10), "0.3"),
    (lambda: simulate(md.warner(0.7), "inverse", [0.3, 0.6], 10), "[0.3, 0.6]"),
])
def test_bad_input(call, needle):
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert needle in str(info.value)


def test_estimator_undefined_almost_surely_raises():
    # every survey is all "don't know": the estimator is never defined
    with pytest.raises(InvalidParameterError, match="undefined"):
        simulate(md.Mechanism([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]),
                 partial(estimate_dont_know, p=0.6, q=0.2), 0.3, 10, reps=2)


# ------------------------------------------------------------------ one name for the random source
def test_rng_is_the_name_and_seed_still_works_with_a_warning():
    # the library names its random source rng (Mechanism.sample, FrequencyOracle.sample);
    # seed= is the deprecated name, kept for one release: same draws, a warning naming rng
    new = simulate_dont_know(0.6, 0.2, 0.3, 100, reps=200, rng=5)
    with pytest.warns(DeprecationWarning, match=r"simulate_dont_know\(seed=\.\.\.\).*use rng="):
        old = simulate_dont_know(0.6, 0.2, 0.3, 100, reps=200, seed=5)
    assert old.mse == new.mse and old.mean == new.mean
    w = md.warner(0.7)
    with pytest.warns(DeprecationWarning, match=r"simulate\(seed=\.\.\.\).*use rng="):
        old = simulate(w, "inverse", 0.3, 100, reps=200, seed=6)
    assert old.mse == simulate(w, "inverse", 0.3, 100, reps=200, rng=6).mse
    with pytest.raises(InvalidParameterError, match="rng=1 and seed=2"):
        simulate(w, "inverse", 0.3, 100, reps=200, rng=1, seed=2)


def test_a_generator_roots_a_reproducible_simulation():
    w = md.warner(0.7)
    a = simulate(w, "inverse", 0.3, 100, reps=200, rng=np.random.default_rng(8))
    b = simulate(w, "inverse", 0.3, 100, reps=200, rng=np.random.default_rng(8))
    assert a.mse == b.mse
