"""The fuzz harness of :mod:`mechdesign.testing.fuzz` on a fixed set of seeds (every notion,
objective and range), plus tests of the harness itself. ``benchmarks/verify_fuzz.py`` runs it
at scale (``--replay SEED`` replays one case)."""

from __future__ import annotations

import itertools

import pytest

import mechdesign as md
from mechdesign.privacy import LDP
from mechdesign.privacy.verify import verify_exact
from mechdesign.testing.cases import (
    LOSS_KINDS,
    MATRIX_DISTANCES,
    NOTION_KINDS,
    OBJECTIVE_KINDS,
    TOL,
    Case,
    case_from_seed,
)
from mechdesign.testing.fuzz import Outcome, beaten, check_privacy, float_measure, run_case

CI_TIME_LIMIT = 30.0

CI_SEEDS = (3, 6, 11, 17, 22, 26, 33, 42, 52, 54, 60, 73, 76, 77, 83, 86, 87, 89, 90, 93, 98, 111,
            114, 117, 121, 127, 130, 141, 143, 144, 150, 151, 153, 155, 156, 157, 159, 161, 162,
            163, 164, 168, 169, 170, 171, 172, 175, 176, 179, 183, 184, 187, 189, 191, 194, 195,
            196, 197, 199, 200, 204, 208, 214, 217, 218, 232, 242, 243, 247, 249, 259, 260, 267,
            281, 282, 283, 284, 287, 301, 302, 304, 312, 316, 318, 319, 320, 327, 328, 330, 333,
            342, 344, 348, 354, 358, 359, 361, 362, 363, 365, 367, 373, 378, 380, 383, 386, 387,
            389, 401, 403, 407, 416, 417, 420, 421, 422, 424, 426, 429, 430, 432, 441, 442, 445,
            461, 464, 503, 504, 522, 524, 525, 529, 533, 539, 553, 577, 585, 586, 589, 591, 593,
            594, 598, 601, 604, 605, 616, 617, 619, 626, 627, 630, 632, 633, 637, 640, 646, 650,
            653, 663, 667, 676, 685, 687, 688, 690, 697, 713, 716, 727, 743, 744, 754, 756)
"""Seeds run on every commit: each (notion, objective) pair, every loss kind, epsilon near
the catalog maximum, delta below 1e-9 and exactly 0, prior zeros and every distance kind
(chosen among the first 800 seeds by ``benchmarks/verify_fuzz.py --pick-ci 800``, passing and
fast cases first, plus two representatives of every failure kind)."""

FINDING_SEEDS = (864, 974, 1035, 1071, 1411, 1445, 1529, 1554, 1785, 1905, 1919, 2123, 2130,
                 2153, 2162, 2204, 2262, 3080, 3465, 3489, 3701, 3729, 3731, 4133, 4303, 4419,
                 4669, 4992, 30112)
"""The 28 failures of the 5,000-case run 9 (``benchmarks/README.md``), run on every commit
once fixed: spanner optima labelled global, an asymmetric distance read as symmetric,
estimation steps of the local method at a prior with zeros, "unbounded" from Clarabel on
bounded problems, Clarabel's iteration limit at eps = 708, gaps judged below the floor; and
the failure of run 11 (seed 30112: the deletion-delta measure's LP given up by HiGHS at
eps = 708 on entries near 1e-13)."""

KNOWN_FAILING_SEEDS: dict[int, str] = {}
"""CI seeds that fail on the current design layer, with their category (expected to fail,
non-strictly, until the design layer is fixed; then move them back to plain seeds)."""


def _ci_params() -> list:
    return [pytest.param(s, marks=pytest.mark.xfail(
        strict=False, reason=f"known failure: {KNOWN_FAILING_SEEDS[s]} (verify_fuzz "
        f"--replay {s})")) if s in KNOWN_FAILING_SEEDS else s
        for s in (*CI_SEEDS, *FINDING_SEEDS)]


def _assert_ok(out: Outcome) -> None:
    assert not out.failed, (f"{out.case}: {out.category} {out.flags}: {out.detail} "
                            f"(ref {out.ref_status} {out.ref_rel})")
    # "refused" is only ever a typed refusal of a documented limit (see run_case)
    assert out.category in ("verified", "within_tol", "refused")
    if out.category == "within_tol":
        assert out.excess <= TOL


@pytest.mark.slow
@pytest.mark.parametrize("seed", _ci_params())
def test_seeded_case(seed):
    # replay: python benchmarks/verify_fuzz.py --replay SEED
    _assert_ok(run_case(case_from_seed(seed), time_limit=CI_TIME_LIMIT))


def test_ci_seeds_cover_every_notion_objective_and_range():
    cases = [case_from_seed(s) for s in CI_SEEDS]
    assert {(c.notion, c.objective) for c in cases} == set(
        itertools.product(NOTION_KINDS, OBJECTIVE_KINDS))
    assert {c.loss for c in cases} >= set(LOSS_KINDS)
    assert {c.distance for c in cases} >= {*MATRIX_DISTANCES, "graph"}
    assert any(c.eps_kind == "near_max" for c in cases)
    assert any(c.eps < 2e-3 for c in cases) and any(10 < c.eps <= 20 for c in cases)
    assert any(c.delta == 0.0 for c in cases) and any(0 < c.delta < 1e-9 for c in cases)
    assert any(c.prior_zeros for c in cases)
    assert all(c in CI_SEEDS for c in KNOWN_FAILING_SEEDS)



def test_the_checker_catches_a_mechanism_that_misses_its_target():
    # the fuzz harness itself must be able to fail: a 1.2-RR claimed as 1-LDP is refused by
    # both checks (float: 1.2 > 1 + 1e-9; exact: ratio e^1.2 > e^1)
    mech = md.randomized_response(3, 1.2)
    assert float_measure(LDP(1.0), mech) > 1.0 + TOL
    v = verify_exact(mech, LDP(1.0))
    assert v.holds is False and v.excess == pytest.approx(0.2, rel=1e-9)
    assert check_privacy(LDP(1.0), mech).category == "float_fail"


def test_a_matrix_above_its_target_by_less_than_the_tolerance_fails():
    # 3-RR at eps = 1 + 1e-12 passes the float check (within EPSILON_TOL) but the exact
    # check proves it above the 1-LDP target: "above_target", a failure
    mech = md.randomized_response(3, 1.0 + 1e-12)
    chk = check_privacy(LDP(1.0), mech)
    assert chk.float_ok and chk.exact_holds is False
    assert chk.category == "above_target" and 0 < chk.excess <= TOL
    assert check_privacy(LDP(1.0 + 2e-12), mech).category == "verified"



def test_beaten_compares_against_the_gap():
    assert beaten(1.0 + 2e-9, 1.0, None, 0.0) == (True, pytest.approx(2e-9, rel=1e-6))
    assert not beaten(1.0 + 5e-10, 1.0, None, 0.0)[0]  # inside the 1e-9 floor
    assert not beaten(1.1, 1.0, 0.2, 0.0)[0]  # inside the design's own gap
    assert beaten(-1.0, -1.5, None, 0.0)[0]  # signed values
    assert not beaten(1e-20, 0.0, None, 1e-16)[0]  # float noise


def test_wall_clock_limit_reports_a_hang():
    out = run_case(Case("ldp", "expected_loss", 3, 3, 1.0, 0.0, 0), time_limit=1e-4)
    assert out.category == "hang" and "wall-clock limit" in out.detail
