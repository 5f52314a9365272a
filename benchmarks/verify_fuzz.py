"""Verification at scale: solve N random design problems and check every returned mechanism
in exact rational arithmetic at its target (:func:`mechdesign.privacy.verify.verify_exact`,
tolerance 0) and with the float measures, and compare the value of every linear design with
an independent reference optimum (a naive pairwise LP solved by scipy's HiGHS).

Usage::

    python benchmarks/verify_fuzz.py --cases 10000 [--workers 2] [--start 0] [--json out.json]
                                     [--time-limit 60]

Case ``i`` is generated from seed ``start + i`` by ``case_from_seed`` in
:mod:`mechdesign.testing.fuzz` (the same machinery the CI tests use; its docstring lists the
ranges and the reference LPs), so any case can be replayed::

    python benchmarks/verify_fuzz.py --replay 1234

Each case runs in a worker process under a wall-clock limit: inside the worker (``time_limit``
to ``solve`` when it takes one, and SIGALRM), and from outside: a worker still busy
``--grace`` seconds after the limit is killed and replaced, and its case is a ``hang``.

Progress goes to stderr; the summary to stdout. Categories:

* ``verified``: the exact check PROVES the guarantee at the target;
* ``within_tol``: the exact check cannot settle it at its precision, and its rigorous excess
  bound is at most ``EPSILON_TOL = 1e-9`` in the target's units (not a failure);
* ``refused``: ``solve`` refused the case's epsilon with a typed ``InvalidParameterError``
  (a documented limit, e.g. the staircase programs' largest epsilon; not a failure);
* failures: ``above_target`` (the exact check PROVES the matrix above its target, by at most
  ``EPSILON_TOL``: what the certificate tolerates, not what it promises), ``exact_fail``
  (above by more), ``float_fail`` (the float measure itself exceeds the tolerance),
  ``no_mechanism`` (no certified mechanism for a feasible problem), ``false_infeasible``
  (a problem without user constraints reported infeasible), ``beaten_optimal`` (labelled
  optimal with a global optimum, but the reference LP's exactly verified matrix is better
  by more than the reported gap, at least 1e-9 relative), ``hang`` (wall-clock limit) and
  ``error`` (an exception).

A case can show several failures (``flags``); its category is the first in that order of
severity: error, hang, false_infeasible, no_mechanism, float_fail, exact_fail,
above_target, beaten_optimal. The target is 0 failures.

``--pick-ci`` prints the CI seed set of ``tests/testing/test_fuzz.py`` (every (notion,
objective) pair and every range, fast seeds first) with the failures among them, as
``CI_SEEDS`` and ``KNOWN_FAILING_SEEDS``.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import math
import multiprocessing as mp
import os
import sys
import time
import warnings
from multiprocessing.connection import Connection, wait
from pathlib import Path

from mechdesign.testing.cases import (
    LOSS_KINDS,
    MATRIX_DISTANCES,
    NOTION_KINDS,
    OBJECTIVE_KINDS,
    case_from_seed,
)
from mechdesign.testing.fuzz import CASE_TIME_LIMIT, FAILED, Outcome, run_case

GRACE = 30.0
"""Seconds past the time limit before a busy worker is killed from outside."""


def _run(seed: int, time_limit: float) -> Outcome:
    warnings.simplefilter("ignore")  # cvxpy's "solution may be inaccurate" is recorded anyway
    return run_case(case_from_seed(seed), time_limit=time_limit)


def _worker(conn: Connection, time_limit: float) -> None:
    while True:
        seed = conn.recv()
        if seed is None:
            return
        conn.send(_run(seed, time_limit))


class _Pool:
    """Worker processes fed one seed at a time; a worker past its deadline is killed."""

    def __init__(self, workers: int, time_limit: float, grace: float) -> None:
        self.ctx = mp.get_context("spawn")
        self.time_limit, self.deadline = time_limit, time_limit + grace
        self.idle: list[tuple] = [self._start() for _ in range(workers)]
        self.busy: dict[Connection, tuple] = {}

    def _start(self) -> tuple:
        parent, child = self.ctx.Pipe()
        proc = self.ctx.Process(target=_worker, args=(child, self.time_limit), daemon=True)
        proc.start()
        child.close()
        return proc, parent

    def run(self, seeds: list[int]):
        pending = collections.deque(seeds)
        while pending or self.busy:
            while pending and self.idle:
                proc, conn = self.idle.pop()
                seed = pending.popleft()
                conn.send(seed)
                self.busy[conn] = (proc, seed, time.perf_counter())
            for conn in wait(list(self.busy), timeout=1.0):
                proc, seed, t0 = self.busy.pop(conn)
                try:
                    out = conn.recv()
                except (EOFError, OSError) as exc:  # the worker died
                    proc.join()
                    out = Outcome(case_from_seed(seed), "error", flags=("error",),
                                  detail=f"worker died ({exc!r}, exit code {proc.exitcode})",
                                  seconds=time.perf_counter() - t0)
                    self.idle.append(self._start())
                else:
                    self.idle.append((proc, conn))
                yield out
            now = time.perf_counter()
            for conn, (proc, seed, t0) in list(self.busy.items()):
                if now - t0 > self.deadline:
                    proc.kill()  # a worker process this pool started
                    proc.join()
                    conn.close()
                    del self.busy[conn]
                    self.idle.append(self._start())
                    yield Outcome(case_from_seed(seed), "hang", flags=("hang",),
                                  detail=f"worker killed after {now - t0:.0f} s",
                                  seconds=now - t0)

    def close(self) -> None:
        for proc, conn in self.idle:
            conn.send(None)
            proc.join(timeout=10)


def run_seeds(seeds: list[int], workers: int, time_limit: float, grace: float = GRACE,
              progress: bool = True) -> list[Outcome]:
    pool = _Pool(workers, time_limit, grace)
    t0 = time.perf_counter()
    outcomes: list[Outcome] = []
    try:
        for i, out in enumerate(pool.run(seeds), 1):
            outcomes.append(out)
            if progress and out.failed:
                print(f"FAILED seed {out.case.seed}: {out.category} {list(out.flags)}: "
                      f"{out.case}: {out.detail[:300]}", file=sys.stderr, flush=True)
            if progress and (i % 50 == 0 or i == len(seeds)):
                nf = sum(o.failed for o in outcomes)
                print(f"[{i}/{len(seeds)}] {time.perf_counter() - t0:.0f} s, {nf} failed",
                      file=sys.stderr, flush=True)
    finally:
        pool.close()
    outcomes.sort(key=lambda o: o.case.seed)
    return outcomes


def _g(v: float | None) -> str:
    return "-" if v is None else f"{v:.3g}"


def summarise(outcomes: list[Outcome], elapsed: float) -> str:
    by_cat = collections.Counter(o.category for o in outcomes)
    by_flag = collections.Counter(f for o in outcomes for f in o.flags)
    failed = [o for o in outcomes if o.failed]
    lines = [f"cases: {len(outcomes)}   wall time: {elapsed:.0f} s   "
             f"failed: {len(failed)} (target 0)"]
    lines.append("categories: " + ", ".join(f"{c} {by_cat[c]}" for c in
                                             ("verified", "within_tol", "refused", *FAILED)))
    multi = [o for o in outcomes if len(o.flags) > 1]
    if multi:
        lines.append("cases showing each failure (a case can show several): "
                     + ", ".join(f"{c} {by_flag[c]}" for c in FAILED if by_flag[c]))
    float_only = [o for o in outcomes if o.float_ok and o.exact_holds is False]
    if float_only:
        ex = sorted(o.excess for o in float_only)
        lines.append(f"float check passes but the exact check says NO: {len(float_only)} "
                     f"cases; excess median {ex[len(ex) // 2]:.3g}, max {ex[-1]:.3g} "
                     "(target units)")
    undecided = sum(o.exact_holds is None for o in outcomes if o.category == "within_tol")
    lines.append(f"exact check undecided (within tolerance): {undecided}")
    worst = max((o for o in outcomes if o.category in ("above_target", "exact_fail")),
                key=lambda o: o.excess, default=None)
    if worst is not None:
        lines.append(f"worst exact excess: {worst.excess:.3g} (seed {worst.case.seed})")
    ref = collections.Counter(o.ref_status for o in outcomes
                              if o.case.objective in ("expected_loss", "worst_case_loss"))
    if ref:
        lines.append("reference LP (expected/worst-case loss): "
                     + ", ".join(f"{k} {v}" for k, v in sorted(ref.items())))
        rel = [o.ref_rel for o in outcomes if o.ref_rel is not None]
        if rel:
            lines.append(f"design vs reference, relative difference (positive: reference "
                         f"better): max {max(rel):.3g}, min {min(rel):.3g}, "
                         f"> 1e-9 in {sum(r > 1e-9 for r in rel)} of {len(rel)}; the "
                         f"reference is worse by > 1e-6 in {sum(r < -1e-6 for r in rel)} "
                         "(it has no power below HiGHS's tolerance, about 1e-10 of max |L|)")
    returned = [o for o in outcomes if o.design_value is not None]
    labels = collections.Counter(f"{o.status}/{o.optimum}" for o in returned)
    lines.append("returned mechanisms by status/optimum: "
                 + ", ".join(f"{k} {v}" for k, v in sorted(labels.items())))
    weak = [o for o in returned if o.status != "optimal" and o.ref_rel is not None
            and o.ref_rel > 1e-3]
    if weak:
        lines.append(f"not labelled optimal and worse than the reference by > 1e-3 relative: "
                     f"{len(weak)} (seeds {' '.join(str(o.case.seed) for o in weak[:20])})")
    for key in ("notion", "objective", "loss", "eps_kind", "distance"):
        lines.append("")
        lines.append(f"{key:<20} {'cases':>6} {'verified':>9} {'within':>7} {'failed':>7} "
                     f"{'worst excess':>13} {'mean s':>7}  failures")
        groups: dict = collections.defaultdict(list)
        for o in outcomes:
            groups[getattr(o.case, key)].append(o)
        for name in sorted(groups):
            g = groups[name]
            ex = max((o.excess for o in g), default=0.0)
            cats = collections.Counter(o.category for o in g if o.failed)
            lines.append(f"{name:<20} {len(g):>6} "
                         f"{sum(o.category == 'verified' for o in g):>9} "
                         f"{sum(o.category == 'within_tol' for o in g):>7} "
                         f"{sum(o.failed for o in g):>7} {ex:>13.3g} "
                         f"{sum(o.seconds for o in g) / len(g):>7.2f}  "
                         + ", ".join(f"{c} {cats[c]}" for c in FAILED if cats[c]))
    refused = [o for o in outcomes if o.category == "refused"]
    if refused:
        lines.append("")
        lines.append("refused (a typed error naming a documented limit: the case's epsilon, "
                     "or estimation at a prior with zeros under a notion that lets messages "
                     f"separate inputs; not a failure) ({len(refused)}), seeds: "
                     + " ".join(str(o.case.seed) for o in refused))
        lines.append("  " + describe(refused[0], 220))
    for cat in FAILED:
        cases = [o for o in failed if o.category == cat]
        if not cases:
            continue
        lines.append("")
        lines.append(f"{cat} ({len(cases)}), seeds: "
                     + " ".join(str(o.case.seed) for o in cases))
        for o in cases[:12]:
            lines.append("  " + describe(o, 220))
    return "\n".join(lines)


def describe(o: Outcome, width: int = 400) -> str:
    c = o.case
    head = (f"seed {c.seed}: {c.notion}/{c.objective} k={c.k} m={c.m} eps={c.eps:.4g} "
            f"({c.eps_kind}) delta={c.delta:.3g} loss={c.loss}"
            + (f" x{c.loss_scale:.2g}" if c.loss == "scaled" else "")
            + (f" prior_zeros={c.prior_zeros}" if c.prior_zeros else "")
            + (f" distance={c.distance}" if c.distance != "none" else ""))
    ref = ""
    if o.ref_status != "skipped":
        ref = (f" | status {o.status}/{o.optimum}, value {_g(o.design_value)}, reference "
               f"{o.ref_status} {_g(o.ref_value)}, rel {_g(o.ref_rel)}"
               + (f", ratio {o.ref_ratio:.4g}" if o.ref_ratio is not None else ""))
    return f"{head}: {o.category} {list(o.flags)}: {o.detail[:width]}{ref}"


def _failure_kind(o: Outcome) -> str:
    """A failure's category, with the exception type for errors."""
    return f"error {o.detail.split(' ', 1)[0]}" if o.category == "error" else o.category


def pick_ci(candidates: int, workers: int, time_limit: float) -> str:
    """A small deterministic seed set: for every (notion, objective) pair the two fastest
    seeds that pass (else the fastest), then seeds for every range not yet covered twice,
    then two representatives of every failure kind (errors by exception type)."""
    outs = run_seeds(list(range(candidates)), workers, time_limit)
    fast = sorted((o for o in outs if o.category not in ("hang", "refused")),
                  key=lambda o: (o.failed, o.seconds))  # passing first, then by time
    chosen: dict[int, Outcome] = {}
    for pair in itertools.product(NOTION_KINDS, OBJECTIVE_KINDS):
        ok = [o for o in fast if (o.case.notion, o.case.objective) == pair
              and o.seconds < 2.0]
        for o in ok[:2] if ok and not ok[0].failed else ok[:1]:
            chosen[o.case.seed] = o
    features = {
        **{f"loss {k}": (lambda c, k=k: c.loss == k) for k in LOSS_KINDS},
        **{f"distance {k}": (lambda c, k=k: c.distance == k)
           for k in (*MATRIX_DISTANCES, "graph")},
        "near_max": lambda c: c.eps_kind == "near_max",
        "tiny eps": lambda c: c.eps < 2e-3,
        "large eps": lambda c: 10 < c.eps <= 20,
        "delta 0": lambda c: c.delta == 0.0,
        "tiny delta": lambda c: 0 < c.delta < 1e-9,
        "prior zeros": lambda c: c.prior_zeros > 0,
    }
    for has in features.values():
        while sum(has(o.case) for o in chosen.values()) < 2:
            o = next((o for o in fast if has(o.case) and o.case.seed not in chosen), None)
            if o is None:
                break
            chosen[o.case.seed] = o
    by_time = sorted((o for o in outs if o.failed), key=lambda o: o.seconds)
    for kind in sorted({_failure_kind(o) for o in by_time}):
        have = sum(o.failed and _failure_kind(o) == kind for o in chosen.values())
        for o in [o for o in by_time if _failure_kind(o) == kind][:max(0, 2 - have)]:
            chosen[o.case.seed] = o
    seeds = sorted(chosen)
    total = sum(chosen[s].seconds for s in seeds)
    known = {s: chosen[s].category for s in seeds if chosen[s].failed}
    return (f"# {len(seeds)} seeds, {total:.1f} s of cases; {len(known)} failing\n"
            f"CI_SEEDS = {tuple(seeds)!r}\nKNOWN_FAILING_SEEDS = {known!r}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--start", type=int, default=0, help="first seed")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--time-limit", type=float, default=CASE_TIME_LIMIT,
                    help="wall-clock seconds per case")
    ap.add_argument("--grace", type=float, default=GRACE,
                    help="seconds past the limit before a worker is killed")
    ap.add_argument("--json", help="also write every outcome to this JSON file")
    ap.add_argument("--replay", type=int, help="run one seed and print its outcome")
    ap.add_argument("--pick-ci", type=int, metavar="N",
                    help="choose the CI seeds among the first N seeds and print them")
    args = ap.parse_args(argv)
    if args.replay is not None:
        out = _run(args.replay, args.time_limit)
        print(out.case)
        print(describe(out, 2000))
        print("excess", out.excess, "float excess", out.float_excess, "gap", out.gap)
        print("reference:", out.ref_status, out.ref_value, "margin", out.ref_margin,
              out.ref_detail)
        print("notes:", *out.notes, sep="\n  ")
        return int(out.failed)
    if args.pick_ci is not None:
        print(pick_ci(args.pick_ci, args.workers, args.time_limit))
        return 0
    seeds = list(range(args.start, args.start + args.cases))
    t0 = time.perf_counter()
    outcomes = run_seeds(seeds, args.workers, args.time_limit, args.grace)
    print(summarise(outcomes, time.perf_counter() - t0))
    if args.json:
        def num(v: float | None) -> float | str | None:
            return v if v is None or math.isfinite(v) else str(v)

        Path(args.json).write_text(json.dumps(
            [{"seed": o.case.seed, **{k: num(v) if isinstance(v, float) else v
                                      for k, v in vars(o.case).items() if k != "seed"},
              "category": o.category, "flags": list(o.flags), "excess": num(o.excess),
              "float_excess": num(o.float_excess), "exact_holds": o.exact_holds,
              "seconds": o.seconds, "status": o.status, "optimum": o.optimum,
              "design_value": num(o.design_value), "gap": o.gap,
              "ref_status": o.ref_status, "ref_value": num(o.ref_value),
              "ref_margin": o.ref_margin, "ref_rel": num(o.ref_rel),
              "ref_ratio": num(o.ref_ratio), "detail": o.detail,
              "ref_detail": o.ref_detail, "notes": list(o.notes)}
             for o in outcomes], indent=1))
    return int(any(o.failed for o in outcomes))


if __name__ == "__main__":
    sys.exit(main())
