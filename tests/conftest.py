"""Hypothesis profiles. CI and the default run are derandomized (each test draws the same
examples every run, so a submission's CI result does not depend on luck); exploring new
examples is a deliberate step: ``HYPOTHESIS_PROFILE=explore python -m pytest -q`` (random
seeds, more examples). A failure found there is pinned with ``@example`` next to its test.
"""

import os

# One BLAS thread per process, set before numpy loads OpenBLAS (nothing imports numpy before
# this file; the pytest-xdist workers, started after it is read, inherit the variable, as do
# the CLI and example subprocesses). The suite already runs a worker per core, and two BLAS
# threads per worker competing for busy cores made the column-generation master's small
# dense products and solves 10-30x slower (docs/guide/design.md says the same for users):
# a k = 13 estimation design took 33-47 s instead of 1.5 s. A variable set by the caller
# is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest
from hypothesis import settings

settings.register_profile("default", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True)
def _mpmath_precision_is_restored():
    """A test that sets mpmath's global precision does not leave it for the next test in
    the same process (tests run in any order across pytest-xdist workers)."""
    import mpmath

    dps = mpmath.mp.dps
    yield
    mpmath.mp.dps = dps
