"""Exact composition (mechdesign) vs Google dp-accounting's privacy-loss distribution.

Side by side, in one run:
  * 1000-fold binary RR(0.1) and 50-fold 10-RR(1.0): our exact epsilon at delta = 1e-6 and
    exact delta at that epsilon, against dp-accounting's PLD (pessimistic and optimistic
    rounding) at value_discretization_interval 1e-4 and 1e-5: time and error;
  * the shuffle bound (FMT21 clones, exact) at n in {1e4, 1e5, 1e6}, with the closed forms;
  * a check of dp-accounting's PLDAccountant with a count on a randomized-response event.

Run:  python benchmarks/composition_vs_dp_accounting.py      (needs dp-accounting; < 1 min)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import dp_accounting
from dp_accounting import dp_event
from dp_accounting.pld import pld_privacy_accountant
from dp_accounting.pld import privacy_loss_distribution as pldlib

import mechdesign as md
from mechdesign.accounting.amplification import shuffle_epsilon
from mechdesign.accounting.composition import compose, epsilon_composed

DELTA = 1e-6
GRIDS = (1e-4, 1e-5)


def best_time(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    best, out = math.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def composition_case(label: str, buckets: int, eps0: float, k: int) -> None:
    mech = md.randomized_response(buckets, eps0)

    def ours():  # build the composition once, ask both questions (as dp-accounting does)
        comp = compose(mech, k)
        e = comp.epsilon(DELTA)
        return e, comp.delta(e.epsilon)

    t_ours, (e_res, d_res) = best_time(ours, 5)
    eps_exact, delta_exact = e_res.epsilon, d_res.delta
    print(f"\n{label}: {k}-fold {buckets}-RR({eps0}), delta = {DELTA:g} "
          "(times: best of 5 for mechdesign, of 3 (h = 1e-4) or 1 (h = 1e-5) for dp-accounting)")
    print(f"  mechdesign exact: epsilon = {eps_exact:.12f}   delta(epsilon) = "
          f"{delta_exact:.6e}   time {t_ours * 1e3:8.2f} ms   ({e_res.n_atoms} atoms)")
    noise = buckets / (math.exp(eps0) + buckets - 1)
    for h in GRIDS:
        for pessimistic in (True, False):
            def theirs(h=h, pessimistic=pessimistic):
                pld = pldlib.from_randomized_response(
                    noise, buckets, pessimistic_estimate=pessimistic,
                    value_discretization_interval=h).self_compose(k)
                return pld.get_epsilon_for_delta(DELTA), float(
                    pld.get_delta_for_epsilon(eps_exact))

            t, (e_dp, d_dp) = best_time(theirs, 3 if h >= 1e-4 else 1)
            kind = "pessimistic" if pessimistic else "optimistic "
            print(f"  dp-accounting h={h:g} {kind}: epsilon = {e_dp:.12f} "
                  f"(error {e_dp - eps_exact:+.3e})   delta(epsilon) = {d_dp:.6e} "
                  f"(rel. error {(d_dp - delta_exact) / delta_exact:+.3e})   "
                  f"time {t * 1e3:8.2f} ms   ratio {t / t_ours:7.1f}x")


def shuffle_cases() -> None:
    print("\nshuffle amplification, eps0 = 4, delta = 1e-6 (FMT21 clones, exact):")
    for n in (10**4, 10**5, 10**6):
        t, r = best_time(lambda n=n: shuffle_epsilon(4.0, n, 1e-6), 3)
        f22 = shuffle_epsilon(4.0, n, 1e-6, "closed_form")
        f21 = shuffle_epsilon(4.0, n, 1e-6, "closed_form_fmt21")
        print(f"  n = {n:>8d}: numeric [{r.lower:.10f}, {r.upper:.10f}]  time "
              f"{t * 1e3:8.2f} ms   closed form FMT22 {f22.formula:.6f} "
              f"(valid {f22.valid}, restricted class)   FMT21 {f21.formula:.6f} "
              f"(valid {f21.valid})")


def accountant_count_check() -> None:
    eps0, k = 0.1, 1000
    event = dp_event.RandomizedResponseDpEvent(noise_parameter=2 / (1 + math.exp(eps0)),
                                               num_buckets=2)
    acc = pld_privacy_accountant.PLDAccountant(
        neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    acc.compose(event, k)
    exact = epsilon_composed(md.randomized_response(2, eps0), DELTA, k).epsilon
    single = epsilon_composed(md.randomized_response(2, eps0), DELTA, 1).epsilon
    print(f"\nPLDAccountant.compose(RandomizedResponseDpEvent(RR({eps0})), count={k}):")
    print(f"  get_epsilon({DELTA:g}) = {acc.get_epsilon(DELTA):.6f};  exact {k}-fold "
          f"{exact:.6f};  exact single use {single:.6f}")


def main() -> None:
    start = time.perf_counter()
    composition_case("case 1", 2, 0.1, 1000)
    composition_case("case 2", 10, 1.0, 50)
    shuffle_cases()
    accountant_count_check()
    print(f"\ntotal {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
