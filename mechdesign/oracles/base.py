r"""The frequency-oracle value: a structured mechanism too large to be a matrix.

A frequency oracle reports, for each respondent with value ``x`` in ``0..k-1``, a report
that *supports* a set of values. Every oracle here has the two support probabilities

.. math:: p^* = P(v \text{ supported} \mid x = v), \qquad
          q^* = P(v \text{ supported} \mid x \ne v)

the same for every ``v`` and every ``x != v`` (Wang et al., "Locally differentially private
protocols for frequency estimation", USENIX Security 2017, s.4, "pure" protocols). With
``C_v`` the number of the ``n`` reports supporting ``v``, the estimator

.. math:: \hat f_v = \frac{C_v / n - q^*}{p^* - q^*}

is unbiased, and since each report supports ``v`` independently with probability
``lambda_v = f_v p^* + (1 - f_v) q^*`` (respondents drawn from the prior ``f``), its variance
is exactly

.. math:: \mathrm{Var}\,\hat f_v = \frac{\lambda_v (1 - \lambda_v)}{n (p^* - q^*)^2}

(``model="iid"``; it equals the diagonal of the covariance of the inverse estimator on the
oracle's matrix where that matrix exists). For a fixed population, ``n f_v`` respondents
holding ``v``, it is ``(f_v p^*(1-p^*) + (1-f_v) q^*(1-q^*)) / (n (p^*-q^*)^2)``
(``model="fixed"``, Wang et al.'s Eq. (3) form).

Every probability an oracle draws with is a rational ``T / 2^128``
(:mod:`~mechdesign.oracles.randomness`) or a uniform choice, so ``p^*``, ``q^*`` and the
privacy ratio are exact rationals of the mechanism as implemented, and the constructor rounds
them in the safe direction: :attr:`FrequencyOracle.epsilon_exact` is never above the nominal
epsilon. Derivations: ``docs/oracles.md``.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from fractions import Fraction
from typing import Any

import numpy as np

from .._exact import exp_bracket, float_up
from .._validation import check_epsilon, check_int
from ..errors import InvalidParameterError, SizeLimitError
from ..estimation.estimators import norm_sub, project_simplex
from ..estimation.inputs import as_prior
from ..mechanism import Mechanism
from .randomness import ONE, RandomWords

__all__ = [
    "CHUNK_ENTRIES",
    "MAX_ENTRIES",
    "POST_PROCESSING",
    "FrequencyOracle",
    "log1p_up",
    "mixture_numerator",
    "raise_outside",
    "row_chunks",
]


MAX_ENTRIES = 10_000_000
"""Largest matrix :meth:`FrequencyOracle.to_mechanism` builds (inputs x outputs)."""

POST_PROCESSING = ("none", "project", "norm-sub")
"""Estimate post-processing: none (unbiased), the Euclidean projection onto the probability
simplex, or Norm-Sub (Wang et al. 2020; the projection when the positive estimates sum to at
least 1). Both give a distribution and are biased."""

CHUNK_ENTRIES = 1 << 22
"""Reports are processed in chunks of at most this many report-by-value entries."""


def mixture_numerator(spread: Fraction | int, epsilon: float) -> int:
    r"""The noise probability ``t = T / 2^128`` of a mixture oracle, rounded up.

    A mixture oracle answers informatively with probability ``1 - t`` and uniformly at
    random otherwise; its privacy ratio is ``1 + A (1 - t) / t`` (``A`` = ``spread``). The
    smallest ``T`` with that ratio at most ``e^eps`` is
    ``ceil(2^128 A / (A + e^eps - 1))``, computed with a lower bound of ``e^eps`` (so the
    ratio is exactly at most ``e^eps``); ``T = 2^128`` (pure noise) at ``eps = 0``.
    """
    low = exp_bracket(epsilon, 60)[0]  # <= e^eps
    if low <= 1:
        return ONE
    a = Fraction(spread)
    t = ONE * a / (a + low - 1)
    return max(1, min(ONE, math.ceil(t)))


def log1p_up(excess: Fraction) -> float:
    """An upper bound on ``ln(1 + excess)`` (``excess >= 0``), within a few ulps."""
    if excess <= 0:
        return 0.0
    return float(np.nextafter(np.nextafter(math.log1p(float_up(excess)), np.inf), np.inf))


class FrequencyOracle(ABC):
    """A pure frequency oracle over the values ``0..k-1`` (see the module docstring).

    Subclasses set :attr:`p_star`, :attr:`q_star` and :attr:`ratio_excess` (exact
    rationals of the implemented mechanism) and implement :meth:`_draw`,
    :meth:`support_counts` and :meth:`_matrix`.
    """

    family: str = ""
    """Registry name (:data:`~mechdesign.oracles.ORACLES`)."""

    def __init__(self, k: Any, epsilon: Any) -> None:
        self.k = check_int(k, "k", 2)
        self.epsilon = check_epsilon(epsilon)

    # ------------------------------------------------------------------ description
    p_star: Fraction
    q_star: Fraction
    ratio_excess: Fraction
    """``e^{eps_exact} - 1``: the largest privacy ratio of the implemented mechanism, minus 1."""

    @property
    def epsilon_exact(self) -> float:
        """The pure-LDP epsilon of the mechanism as implemented (an upper bound within a few
        ulps of the exact ``ln`` of its largest ratio); never above :attr:`epsilon`."""
        return min(log1p_up(self.ratio_excess), self.epsilon) if self.epsilon > 0 else 0.0

    @property
    def n_inputs(self) -> int:
        """Number of inputs, ``k`` (the :class:`~mechdesign.randomizer.Randomizer` name)."""
        return self.k

    def pair_atoms(self) -> list[tuple[Fraction, Fraction]]:
        r"""The law of one report under two distinct inputs ``x != x'``, grouped by likelihood
        ratio: pairs ``(P_x(G), P_x'(G))`` of exact rationals over groups G of reports that
        partition the reports (each side sums to 1).

        Every oracle here treats all pairs of distinct inputs alike, so one list serves every
        pair, and the privacy measures follow from it without the matrix:

        .. math:: e^{\varepsilon} = \max_G \frac{P_x(G)}{P_{x'}(G)}, \qquad
                  \delta(\varepsilon) = \sum_G \max\big(0,\ P_x(G) - e^\varepsilon P_{x'}(G)\big)

        (within a group the ratio is constant, so grouping changes neither sum; Huang &
        Canonne, Def. 2.2). Subclasses without a closed form raise ``NotImplementedError``;
        the measures then build the matrix (:meth:`to_mechanism`).
        """
        raise NotImplementedError(f"{type(self).__name__} gives no closed-form pair law")

    @property
    def parameters(self) -> dict[str, Any]:
        """The constructor's arguments (what :func:`~mechdesign.oracles.oracle` rebuilds from)."""
        return {"k": self.k, "epsilon": self.epsilon}

    @property
    @abstractmethod
    def n_outputs(self) -> int:
        """Number of distinct reports (can be astronomically large)."""

    @property
    def packed(self) -> bool:
        """True when a report is a bitmap of the values it supports (k bits packed
        little-endian into ``ceil(k/8)`` bytes; written as hexadecimal in reports files)."""
        return False

    @property
    @abstractmethod
    def report_width(self) -> int:
        """Columns of one report in :meth:`sample`'s array (0: a scalar per respondent)."""

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.parameters.items())
        return f"{type(self).__name__}({args})"

    def _repr_html_(self) -> str:
        """The oracle's parameters and what the implemented mechanism is: its exact epsilon,
        the support probabilities p* and q* (exact rationals, shown as the nearest floats)
        and its number of distinct reports."""
        from .._html import kv_table, number, wrap

        rows: list[tuple[str, Any]] = [(key, number(v)) for key, v in self.parameters.items()]
        rows += [("family", self.family),
                 ("epsilon as implemented", number(self.epsilon_exact)),
                 ("p* (a report supports the true value)", number(float(self.p_star))),
                 ("q* (it supports another value)", number(float(self.q_star))),
                 ("distinct reports", number(self.n_outputs))]
        return wrap(kv_table(rows, repr(self)))

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.parameters == other.parameters  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(self.parameters.items())))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (read back by :func:`~mechdesign.oracles.oracle_from_dict`)."""
        return {"kind": "oracle", "family": self.family, **self.parameters}

    # ------------------------------------------------------------------ sampling
    def check_values(self, x: Any) -> np.ndarray:
        """Respondents' values as an int64 array, each in ``0..k-1`` (typed error otherwise)."""
        arr = np.asarray(x)
        if arr.dtype.kind not in "iu":
            raise InvalidParameterError(f"values must be integers in 0..{self.k - 1}, "
                                        f"got dtype {arr.dtype}")
        arr = arr.astype(np.int64).ravel()
        bad = (arr < 0) | (arr >= self.k)
        if bad.any():
            raise InvalidParameterError(
                f"value {int(arr[bad][0])} is outside 0..{self.k - 1}")
        return arr

    def sample(self, x: Any, rng: Any = None) -> np.ndarray:
        """One report per value in ``x`` (row ``i`` answers ``x[i]``).

        ``rng=None`` (the default, for deployment) draws from :func:`os.urandom`; an int seed
        or a numpy Generator gives reproducible reports (for experiments). Draws are exact
        for the implemented probabilities, and their work does not depend on the values.
        """
        arr = self.check_values(x)
        return self._draw(arr, RandomWords(rng))

    @abstractmethod
    def _draw(self, x: np.ndarray, source: RandomWords) -> np.ndarray:
        """Reports for the validated values ``x``."""

    # ------------------------------------------------------------------ estimation
    @abstractmethod
    def support_counts(self, reports: Any) -> np.ndarray:
        """``C_v``: how many reports support each value ``v`` (int64, shape ``(k,)``)."""

    def check_reports(self, reports: Any, dtype_kinds: str = "iu") -> np.ndarray:
        """``reports`` as an array of :meth:`sample`'s shape (typed error otherwise): for a
        :attr:`packed` oracle ``uint8`` bytes with no bit set at or above k."""
        arr = np.asarray(reports)
        width = self.report_width
        shape_ok = arr.ndim == 1 if width == 0 else (arr.ndim == 2 and arr.shape[1] == width)
        dtype_ok = arr.dtype == np.uint8 if self.packed else arr.dtype.kind in dtype_kinds
        if not shape_ok or not dtype_ok:
            want = "(n,)" if width == 0 else f"(n, {width})"
            kind = "a uint8 bitmap" if self.packed else "an integer"
            raise InvalidParameterError(
                f"{self.family} reports must be {kind} array of shape {want}, got "
                f"dtype {arr.dtype} and shape {arr.shape}")
        if self.packed:
            high = np.flatnonzero(arr[:, -1] >> (self.k % 8)) if self.k % 8 else []
            if len(high):
                raise InvalidParameterError(f"report {int(high[0])} sets a bit at or above "
                                            f"k = {self.k}")
        elif arr.size and arr.min() < 0:
            raise InvalidParameterError(f"reports must be >= 0, got {int(arr.min())}")
        return arr

    def estimate_counts(self, support: Any, n: int, post: str = "none") -> np.ndarray:
        r"""Frequencies from support counts: ``(C_v / n - q^*) / (p^* - q^*)``, then ``post``
        (``"none"``: unbiased; ``"project"``: :func:`~mechdesign.estimation.estimators.
        project_simplex`; ``"norm-sub"``: :func:`~mechdesign.estimation.estimators.norm_sub`)."""
        n = check_int(n, "n", 1)
        if post not in POST_PROCESSING:
            raise InvalidParameterError(f"post must be one of {POST_PROCESSING}, got {post!r}")
        c = np.asarray(support, dtype=float)
        if c.shape != (self.k,):
            raise InvalidParameterError(f"support counts must have shape ({self.k},), "
                                        f"got {c.shape}")
        p, q = float(self.p_star), float(self.q_star)
        if p == q:
            raise InvalidParameterError(
                f"{self!r} carries no information (p* = q* = {p!r}): nothing to estimate")
        f = (c / n - q) / (p - q)
        if post == "project":
            return project_simplex(f)
        return norm_sub(f) if post == "norm-sub" else f

    def estimate(self, reports: Any, post: str = "none") -> np.ndarray:
        """Frequency estimates from reports (:meth:`support_counts`, :meth:`estimate_counts`)."""
        counts = self.support_counts(reports)
        n = len(np.asarray(reports))
        if n == 0:
            raise InvalidParameterError("no reports: nothing to estimate")
        return self.estimate_counts(counts, n, post)

    def variance(self, prior: Any, n: int, model: str = "iid") -> np.ndarray:
        """Exact variance of each unbiased estimate ``hat f_v`` for ``n`` reports (module
        docstring): ``model="iid"`` (respondents drawn from ``prior``) or ``"fixed"`` (a
        population with frequencies ``prior``)."""
        f = as_prior(prior, self.k)
        n = check_int(n, "n", 1)
        p, q = self.p_star, self.q_star
        scale = float((p - q) ** 2) * n
        pf, qf = float(p), float(q)
        if model == "iid":
            lam = f * pf + (1.0 - f) * qf
            return lam * (1.0 - lam) / scale
        if model == "fixed":
            return (f * float(p * (1 - p)) + (1.0 - f) * float(q * (1 - q))) / scale
        raise InvalidParameterError(f"model must be 'iid' or 'fixed', got {model!r}")

    def total_variance(self, prior: Any = None, n: int = 1, model: str = "iid") -> float:
        """``sum_v Var(hat f_v)``, the expected squared L2 error (uniform prior by default)."""
        f = np.full(self.k, 1.0 / self.k) if prior is None else prior
        return float(self.variance(f, n, model).sum())

    # ------------------------------------------------------------------ matrix form
    def to_mechanism(self) -> Mechanism:
        """The oracle as an explicit :class:`~mechdesign.mechanism.Mechanism` (entries the
        implemented probabilities rounded to floats); :class:`SizeLimitError` above
        :data:`MAX_ENTRIES` entries."""
        if self.k * self.n_outputs > MAX_ENTRIES:
            raise SizeLimitError(
                f"{self!r} has {self.k} x {self.n_outputs} entries as a matrix; the limit is "
                f"{MAX_ENTRIES}")
        Q, outputs = self._matrix()
        return Mechanism(Q, outputs=outputs, name=repr(self))

    @abstractmethod
    def _matrix(self) -> tuple[np.ndarray, list]:
        """The explicit matrix and its output labels."""


def row_chunks(n: int, width: int, entries: int = CHUNK_ENTRIES) -> list[slice]:
    """Slices of ``n`` rows, each holding at most ``entries`` row-by-width entries."""
    step = max(1, entries // max(width, 1))
    return [slice(start, min(n, start + step)) for start in range(0, n, step)]

def raise_outside(value: int, bound: int) -> None:
    """Raise the typed error for a report entry outside ``0..bound-1``."""
    raise InvalidParameterError(f"report value {value} is outside 0..{bound - 1}")
