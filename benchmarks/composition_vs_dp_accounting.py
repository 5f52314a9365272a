"""Exact composition (mechdesign) vs Google dp-accounting's privacy-loss distribution.

Side by side, in one run:
  * 1000-fold binary RR(0.1) and 50-fold 10-RR(1.0): our exact epsilon at delta = 1e-6 and
    exact delta at that epsilon, against dp-accounting's PLD (pessimistic and optimistic
    rounding) at value_discretization_interval 1e-4 and 1e-5: time and error;
  * the shuffle bound (FMT21 clones, exact) at n in {1e4, 1e5, 1e6}, with the closed forms;
  * a check of dp-accounting's PLDAccountant with a count on a randomized-response event;
  * calibration, the inverse question: the largest epsilon of binary RR whose 1000-fold
    composition is (1, 1e-6)-DP, by mechdesign's calibrate_composition (bisection of the
    exact delta on the doubles) and by dp-accounting's calibrate_dp_mechanism (Brent on its
    PLD accountant's epsilon, with the randomized-response count honoured: the stock
    PLDAccountant composes a RandomizedResponseDpEvent once whatever the count).

Run:  python benchmarks/composition_vs_dp_accounting.py      (needs dp-accounting; < 1 min)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import dp_accounting
from dp_accounting import dp_event
from dp_accounting import mechanism_calibration as dp_calibration
from dp_accounting.pld import pld_privacy_accountant
from dp_accounting.pld import privacy_loss_distribution as pldlib

import mechdesign as md
from mechdesign.accounting.amplification import shuffle_epsilon
from mechdesign.accounting.calibration import calibrate_composition
from mechdesign.accounting.composition import compose, delta_composed, epsilon_composed

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


class CountedRRAccountant(pld_privacy_accountant.PLDAccountant):
    """dp-accounting's PLDAccountant with the count of a RandomizedResponseDpEvent honoured
    (``self_compose(count)``, as its Laplace branch does); the stock class composes the
    event once whatever the count (see accountant_count_check)."""

    def _maybe_compose(self, event, count, do_compose):
        if isinstance(event, dp_event.RandomizedResponseDpEvent) and event.num_buckets > 1 \
                and event.noise_parameter > 0:
            if do_compose:
                rr = pldlib.from_randomized_response(
                    noise_parameter=event.noise_parameter, num_buckets=event.num_buckets,
                    value_discretization_interval=self._value_discretization_interval,
                    neighboring_relation=self.neighboring_relation).self_compose(count)
                self._pld = self._pld.compose(rr)
            return None
        return super()._maybe_compose(event, count, do_compose)


def calibration_case(k: int = 1000, eps: float = 1.0, delta: float = DELTA) -> None:
    def ours():
        return calibrate_composition("randomized_response", "epsilon", target_epsilon=eps,
                                     target_delta=delta, k=k, params={"k": 2})

    t_ours, c = best_time(ours, 5)
    print(f"\ncalibration: the largest eps0 with {k}-fold binary RR(eps0) ({eps:g}, "
          f"{delta:g})-DP (times: best of 5 for mechdesign, of 3 (h = 1e-4) or 1 for "
          "dp-accounting)")
    print(f"  mechdesign calibrate_composition: eps0 = {c.value!r} (next double "
          f"{c.infeasible!r} misses: delta {c.missed[1]!r} > {delta:g}), "
          f"{c.evaluations} exact compositions, time {t_ours * 1e3:8.2f} ms")
    relation = dp_accounting.NeighboringRelation.REPLACE_ONE

    def event(e0):  # binary RR(e0) is RandomizedResponseDpEvent(2 / (1 + e^e0), 2)
        rr = dp_event.RandomizedResponseDpEvent(noise_parameter=2 / (1 + math.exp(e0)),
                                                num_buckets=2)
        return dp_event.SelfComposedDpEvent(rr, k)

    # eps0 = 0 is noise_parameter 1, which its PLD refuses: the bracket starts at 1e-4 (its
    # default search would start at eps0 = 1, a 1000-fold PLD too wide to build quickly)
    bracket = dp_calibration.ExplicitBracketInterval(1e-4, 0.02)
    for h in GRIDS:
        for tol in (None, 1e-12):
            def theirs(h=h, tol=tol):
                return dp_calibration.calibrate_dp_mechanism(
                    lambda: CountedRRAccountant(relation, h), event, eps, delta, bracket,
                    tol=tol)

            t, v = best_time(theirs, 3 if h >= 1e-4 else 1)
            exact_delta = delta_composed(md.randomized_response(2, v), eps, k).delta
            print(f"  dp-accounting PLD h={h:g}, tol={tol or 1e-6:g}: eps0 = {v!r} (rel. error "
                  f"{(v - c.value) / c.value:+.3e}; its exact delta {exact_delta:.3e}), "
                  f"time {t * 1e3:8.2f} ms   ratio {t / t_ours:7.1f}x")
    stock = dp_calibration.calibrate_dp_mechanism(
        lambda: pld_privacy_accountant.PLDAccountant(relation), event, eps, delta,
        dp_calibration.LowerEndpointAndGuess(1e-4, 1.0))
    single = calibrate_composition("randomized_response", "epsilon", target_epsilon=eps,
                                   target_delta=delta, k=1, params={"k": 2}).value
    print(f"  stock PLDAccountant (count ignored): eps0 = {stock:.6f}; exact for ONE use: "
          f"{single:.6f}")


def main() -> None:
    start = time.perf_counter()
    composition_case("case 1", 2, 0.1, 1000)
    composition_case("case 2", 10, 1.0, 50)
    shuffle_cases()
    accountant_count_check()
    calibration_case()
    print(f"\ntotal {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
