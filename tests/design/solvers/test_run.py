"""What every solve shares (:mod:`mechdesign.design.solvers.run`).

Pinned: a ``Deadline`` on a FakeClock (the clock its module reads) counts down, floors what
remains at 1 ms, expires exactly at the limit and names it in its messages; with no limit it
never expires; ``check_memory`` accepts up to ``MEMORY_BUDGET`` and refuses a byte more
with a typed error naming the size, the estimate and the limit (a design that large is
refused before any cvxpy variable is made); ``run_interruptible`` returns the worker's
result, re-raises its exception, and on Ctrl-C in the main thread sets the stop event and
raises at once (the native solvers' case is a slow subprocess test); a ``Run`` names the
HiGHS algorithm asked for and its certified gap.
"""

from __future__ import annotations

import _thread
import signal
import subprocess
import sys
import textwrap
import threading
import time

import cvxpy as cp
import pytest

import mechdesign as md
from mechdesign.design.result import Status
from mechdesign.design.solvers import run
from mechdesign.design.solvers.run import (
    BYTES_PER_NONZERO,
    MEMORY_BUDGET,
    Deadline,
    Run,
    check_memory,
    run_interruptible,
)
from mechdesign.errors import SizeLimitError
from mechdesign.testing.timing import FakeClock


def test_a_deadline_counts_down_on_its_clock(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(run, "time", clock.time_module())
    deadline = Deadline(10.0)
    assert deadline.remaining() == 10.0 and not deadline.expired
    clock.advance(4.0)
    assert deadline.remaining() == pytest.approx(6.0) and not deadline.expired
    clock.advance(5.9995)
    assert deadline.remaining() == 1e-3 and not deadline.expired  # floored at 1 ms
    clock.advance(0.0005)
    assert deadline.expired
    clock.advance(100.0)
    assert deadline.expired and deadline.remaining() == 1e-3
    assert deadline.stopped("the LP") == "the LP stopped at the time limit of 10 s"
    assert deadline.note().startswith("the program stopped at the time limit of 10 s: ")


def test_no_limit_never_expires(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(run, "time", clock.time_module())
    deadline = Deadline(None)
    clock.advance(1e9)
    assert deadline.remaining() is None and not deadline.expired


def test_the_memory_check_refuses_a_byte_above_the_budget():
    most = MEMORY_BUDGET // BYTES_PER_NONZERO
    check_memory(most, "fits")  # at the budget: accepted
    with pytest.raises(SizeLimitError) as info:
        check_memory(most + 1, "an LDP design with 9 inputs")
    message = str(info.value)
    assert message.startswith("an LDP design with 9 inputs: about "
                              f"{most + 1:,} constraint nonzeros")
    gib = (most + 1) * BYTES_PER_NONZERO / 2**30
    assert f"an estimated {gib:.1f} GiB to build and solve" in message
    assert f"above the {MEMORY_BUDGET / 2**30:.0f} GiB limit" in message
    assert f"{BYTES_PER_NONZERO} bytes per nonzero" in message


def test_run_interruptible_returns_or_raises_what_the_worker_did():
    names = []

    def work():
        names.append(threading.current_thread().name)
        return 42

    assert run_interruptible(work, threading.Event()) == 42
    assert names == ["mechdesign-solve"]  # in a worker thread
    failure = ValueError("the solver's own error")

    def fails():
        raise failure

    with pytest.raises(ValueError) as info:
        run_interruptible(fails, threading.Event())
    assert info.value is failure


def test_ctrl_c_sets_the_stop_event_and_raises_in_the_caller():
    # the worker simulates Ctrl-C arriving in the main thread while it waits (half a second
    # in, once the thread has started), then waits for the stop event as the solvers'
    # interrupt callbacks do; the main thread raises without waiting for the worker
    stop = threading.Event()
    stopped = []

    def native_solve():
        time.sleep(0.5)
        _thread.interrupt_main()
        stopped.append(stop.wait(30))
        return "finished"

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_interruptible(native_solve, stop)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert stop.is_set() and stopped == [True]


def test_a_run_names_the_algorithm_and_its_gap():
    simplex = Run("HIGHS", Status.OPTIMAL, "", 0.25,
                  options={"highs_options": {"solver": "simplex"}}, gap=3e-7)
    assert simplex.label == "HIGHS simplex"
    assert simplex.summary() == "HIGHS simplex ended optimal (certified gap 3e-07) after 0.25 s"
    plain = Run("CLARABEL", Status.SOLVER_ERROR, "failed", 1.5)
    assert plain.summary() == "CLARABEL ended solver error after 1.5 s"


# The script announces "native" and the thread it runs in from inside the solver's own call
# (HiGHS's run, Clarabel's solve), so the signal is sent while the native code runs, whatever
# the machine's speed.
_ANNOUNCE_NATIVE = {
    "HIGHS": """
        import threading
        import highspy
        _run = highspy.Highs.run
        def run(self, *a, **k):
            print("native", threading.current_thread().name, flush=True)
            return _run(self, *a, **k)
        highspy.Highs.run = run
    """,
    "CLARABEL": """
        import threading
        import clarabel
        _Solver = clarabel.DefaultSolver
        class Announced:  # clarabel's solver class cannot be patched: wrap what cvxpy calls
            def __init__(self, *a):
                self._s = _Solver(*a)
            def set_termination_callback(self, f):
                self._s.set_termination_callback(f)
            def solve(self):
                print("native", threading.current_thread().name, flush=True)
                return self._s.solve()
        clarabel.DefaultSolver = Announced
    """,
}


@pytest.mark.slow
@pytest.mark.parametrize(("solver", "k"), [("HIGHS", 25), ("CLARABEL", 30)])
def test_ctrl_c_interrupts_a_native_solve_from_the_main_thread(solver, k):
    # FINDING: Ctrl-C was ignored until the native call returned (a 4-point metric LP sat
    # in HiGHS for 400 s). The solve now runs in a worker thread with the solvers'
    # interrupt callbacks; the main thread only waits, so it raises KeyboardInterrupt at
    # once (checked structurally: the native call runs off the main thread; how fast is not
    # asserted, it depends on the machine's load). (eps, delta)-LDP
    # on k inputs: about 10 s (HiGHS simplex, k = 25) and 8 s (Clarabel, k = 30) of native
    # solving on the 2-core machine, so the signal lands mid-solve.
    script = textwrap.dedent(_ANNOUNCE_NATIVE[solver]) + textwrap.dedent(f"""
        import signal, sys, time, numpy as np, mechdesign as md
        # as in a terminal (a shell starts background jobs, and so this suite's children,
        # with SIGINT ignored)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        L = np.random.default_rng(0).random(({k}, {k}))
        p = md.DesignProblem(md.ApproxLDP(1.0, 1e-3), md.ExpectedLoss(L))
        opts = {{"highs_options": {{"solver": "simplex"}}}} if "{solver}" == "HIGHS" else {{}}
        try:
            p.solve(solver="{solver}", **opts)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(3)
        print("finished", flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    announced = proc.stdout.readline().split()
    assert announced[0] == "native" and announced[1:] != ["MainThread"], announced
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert "finished" not in out, f"{solver} finished within 0.5 s: the problem is too small"
    assert proc.returncode == 3, err
    assert "interrupted" in out


@pytest.mark.parametrize("k", [3000, 5000])
def test_a_design_too_large_for_memory_is_refused_before_building(k, monkeypatch):
    # FINDING: DesignProblem(LDP(1), ExpectedLoss(hamming(5000))) died with std::bad_alloc,
    # a problem file with k = 3000 aborted after 207 s. Now refused at once, naming both.
    # (Pure LDP with an expected loss now takes the working-set path, which solves the
    # Hamming k = 3000 design in seconds, tests/design/methods/test_working_set.py; the
    # global program's check is exercised with approximate LDP.)
    prob = md.DesignProblem(md.ApproxLDP(1.0, 1e-6), md.ExpectedLoss(md.losses.hamming(k)))
    variables = []
    real = cp.Variable.__init__

    def counted(self, *args, **kwargs):
        variables.append(args)
        real(self, *args, **kwargs)

    monkeypatch.setattr(cp.Variable, "__init__", counted)
    with pytest.raises(md.SizeLimitError, match=rf"{k} inputs.*GiB.*above the 12 GiB"):
        prob.solve()
    assert variables == []  # refused before any cvxpy variable is made (counted, not timed)
