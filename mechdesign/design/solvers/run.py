"""What every solve shares, whatever the solver: the wall-clock budget of a design
(:class:`Deadline`), the memory budget checked before anything is built
(:func:`check_memory`), a native call that Ctrl-C can stop (:func:`run_interruptible`) and
the record of one attempt (:class:`Run`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import SizeLimitError

__all__ = ["BYTES_PER_NONZERO", "INTERRUPT_GRACE", "INTERRUPT_POLL", "MEMORY_BUDGET",
           "Deadline", "Run", "check_memory", "run_interruptible"]

BYTES_PER_NONZERO = 1_000
"""Peak memory per nonzero of the constraint matrix, building and solving together.
Measured on pure-LDP LPs, k = 100..400, peak RSS above the imported baseline: cvxpy's
compile 132 B, Clarabel's solve 446 B, HiGHS interior point 533 B per nonzero (plus
3-4 MB); 1,000 leaves room for fill-in on other sparsity patterns."""

MEMORY_BUDGET = 12 * 2**30
"""Designs estimated to need more than this (half the 24 GB machine) are refused before
anything is built (:func:`check_memory`). Pure LDP: k = n up to about 1,600."""


def check_memory(nnz: int, what: str) -> None:
    """A typed :class:`~mechdesign.errors.SizeLimitError` naming the size and the limit
    when ``nnz`` constraint nonzeros would need more than :data:`MEMORY_BUDGET`."""
    need = nnz * BYTES_PER_NONZERO
    if need > MEMORY_BUDGET:
        raise SizeLimitError(
            f"{what}: about {nnz:,} constraint nonzeros, an estimated "
            f"{need / 2**30:.1f} GiB to build and solve, above the "
            f"{MEMORY_BUDGET / 2**30:.0f} GiB limit ({BYTES_PER_NONZERO} bytes per nonzero, "
            "measured); reduce the number of inputs or outputs, use symmetry= or a spanner")


class Deadline:
    """A wall-clock budget shared by the several solves of one design (the staircase
    column generation, the local method's steps): ``remaining()`` seconds for the next
    solve (None: no limit), ``expired`` once it is spent."""

    def __init__(self, limit: float | None) -> None:
        self.limit = limit
        self.start = time.monotonic()

    def remaining(self) -> float | None:
        if self.limit is None:
            return None
        return max(self.limit - (time.monotonic() - self.start), 1e-3)

    @property
    def expired(self) -> bool:
        return self.limit is not None and time.monotonic() - self.start >= self.limit

    def stopped(self, what: str) -> str:
        """``what`` stopped at the limit (the message of an error raised for it)."""
        return f"{what} stopped at the time limit of {self.limit:g} s"

    def note(self) -> str:
        """The note on a result returned when the limit stopped its program."""
        return self.stopped("the program") + ": the best point found so far, not the optimum"


INTERRUPT_POLL = 0.05
"""Seconds between checks of the main thread while a native solve runs."""

INTERRUPT_GRACE = 2.0
"""Seconds a native solve is given to stop after Ctrl-C before control returns anyway."""


def run_interruptible(target: Callable[[], Any], stop: threading.Event) -> Any:
    """``target()`` in a worker thread, the main thread waiting in short slices.

    The native solvers release the GIL while they iterate, but a signal handler runs only
    in the main thread between bytecodes: while the main thread sits in a native call,
    Ctrl-C waits for the call to return (seconds to minutes on a large LP). Here the main
    thread only waits, so ``KeyboardInterrupt`` is raised at once; ``stop`` is then set
    (the solvers' interrupt callbacks read it and stop within a fraction of a second), the
    worker is given :data:`INTERRUPT_GRACE` seconds, and the interrupt is re-raised.
    """
    done = threading.Event()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["result"] = target()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=work, name="mechdesign-solve", daemon=True)
    try:  # the start inside: a Ctrl-C while the worker starts also sets ``stop``
        worker.start()
        while not done.wait(INTERRUPT_POLL):
            pass
    except KeyboardInterrupt:
        stop.set()
        done.wait(INTERRUPT_GRACE)
        raise
    if "error" in box:
        raise box["error"]
    return box["result"]


@dataclass(frozen=True)
class Run:
    """One solve attempt of a design problem (see :meth:`Program.attempts`).

    ``Q`` is a copy of the solver's matrix (None without a solution), ``solver_value``
    the solver's objective and ``bound`` the independent dual bound, both in the
    objective's units; ``gap`` is the relative gap between them in the compiled units
    (None when no bound could be computed).
    """

    name: str
    status: Any
    error: str
    elapsed: float
    compile_time: float = 0.0
    options: dict = field(default_factory=dict, repr=False)
    Q: np.ndarray | None = field(default=None, repr=False)
    solver_value: float | None = None
    bound: float | None = None
    duals: dict = field(default_factory=dict, repr=False)
    warnings: tuple[str, ...] = ()
    gap: float | None = None
    timed_out: bool = False
    engine: str = ""
    """What actually solved when it is not ``name`` itself (``"BLOCK-IPM"``: the
    block-angular interior point of a default Clarabel solve)."""

    @property
    def label(self) -> str:
        """The solver's name, with the HiGHS algorithm when one was asked for."""
        algorithm = self.options.get("highs_options", {}).get("solver")
        return f"{self.name} {algorithm}" if algorithm else self.name

    def summary(self) -> str:
        gap = "" if self.gap is None else f" (certified gap {self.gap:.2g})"
        return f"{self.label} ended {self.status}{gap} after {self.elapsed:.3g} s"
