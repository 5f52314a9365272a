"""Warner versus "don't know" as one record (mechdesign.studies.warner_comparison): bad input
and progress reporting (the numbers themselves are checked through the command in
tests/cli/test_compare_warner.py)."""

from __future__ import annotations

import pytest

from mechdesign.errors import InvalidParameterError
from mechdesign.studies.warner_comparison import compare_warner


@pytest.mark.parametrize(("call", "needle"), [
    (lambda: compare_warner(reps=1), "got 1"),
    (lambda: compare_warner(fig3_dont_know=1.0, reps=0), "1.0"),
    (lambda: compare_warner(cs=[1.5], reps=0), "1.5"),
    (lambda: compare_warner(p=0.1, reps=0), "p = 0.1, q = 0.2"),   # p < q (p <= 1/2 is fine)
    (lambda: compare_warner(reps=0, workers=0), "workers"),
])
def test_compare_warner_bad_input(call, needle):
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert needle in str(info.value)


def test_compare_warner_progress_counts_every_simulated_point(capsys):
    seen = []
    c = compare_warner(cs=[1.0], epsilons=[1.0, 2.0], fig3_n=[10], reps=20, rng=2,
                       progress=lambda i, n: seen.append((i, n)))
    total = 1 + 5 + 2 + 2  # Q_2x3, the Q_lambda path, Figs 1-2, Fig. 3
    assert seen == [(i, total) for i in range(1, total + 1)]
    compare_warner(cs=[1.0], epsilons=[1.0, 2.0], fig3_n=[10], reps=20, rng=2, progress=True)
    err = capsys.readouterr().err  # not a terminal: plain lines, always the last
    assert err.startswith(f"compare-warner: 1/{total} simulated points\n")
    assert err.endswith(f"compare-warner: {total}/{total} simulated points\n")
    assert len(c.fig12) == len(c.fig3) == 2 and all(pt.simulated for pt in c.fig12)
    quiet = compare_warner(cs=[1.0], epsilons=[1.0, 2.0], fig3_n=[10], reps=20, rng=2)
    assert capsys.readouterr().err == ""
    assert quiet.rows == c.rows  # progress changes nothing else


def test_rng_is_the_name_and_seed_still_works_with_a_warning():
    # seed=, the former name of rng, is kept for one release: one warning naming rng, the
    # same simulations (compare_warner passes its children on as rng, so nothing else warns)
    kw = {"cs": [1.0], "epsilons": [1.0], "fig3_n": [10], "reps": 20}
    new = compare_warner(rng=4, **kw)
    with pytest.warns(DeprecationWarning,
                      match=r"compare_warner\(seed=\.\.\.\).*use rng=") as w:
        old = compare_warner(seed=4, **kw)
    assert len(w) == 1
    assert old.seed == new.seed == 4
    assert [r.simulated.mse for r in old.rows] == [r.simulated.mse for r in new.rows]
    assert old.fig12[0].simulated.mse == new.fig12[0].simulated.mse
    with pytest.raises(InvalidParameterError, match="rng=1 and seed=2"):
        compare_warner(rng=1, seed=2, **kw)
