r"""The analyst's side of a survey: frequency estimates with standard errors and confidence
intervals, for a frequency oracle or any :class:`~mechdesign.mechanism.Mechanism`.

* Oracle: the unbiased support-count estimator and its exact variance
  (:meth:`~mechdesign.oracles.base.FrequencyOracle.variance`, ``model="iid"``);
* Mechanism: the unbiased inverse estimator
  (:func:`~mechdesign.estimation.estimators.estimate_inverse`) and the diagonal of its exact
  covariance (:func:`~mechdesign.estimation.variances.covariance_inverse`); or, with
  ``estimator="mle"``, the maximum-likelihood estimate
  (:func:`~mechdesign.estimation.estimators.estimate_mle`) and the Cramer-Rao bound at it
  (:func:`~mechdesign.estimation.fisher.cramer_rao`), which the MLE attains as n grows.
  For a designed mechanism with many outputs use the MLE: the design minimises the
  Cramer-Rao value, and its inverse estimator can be far from it (k = 32: 22% to 36% more
  variance, ``benchmarks/README.md``).

The unbiased estimators' variances are exact as functions of the true frequencies ``f``,
the Cramer-Rao bound asymptotic; the standard errors evaluate them at the plug-in ``f_hat``
projected onto the simplex (a distribution, as the formulas need). The intervals are
normal, ``f_hat_v +- z SE_v`` with ``z`` the ``(1 + confidence)/2`` quantile, accurate when
``n lambda_v`` is large (the counts are sums of n independent reports).
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from .._html import LABEL_CHARS, clip, numbers_text, series_table, short_repr, wrap
from .._validation import check_real
from ..errors import InvalidParameterError
from ..estimation.estimators import (
    estimate_inverse,
    estimate_mle,
    estimator_name,
    norm_sub,
    project_simplex,
)
from ..estimation.fisher import cramer_rao
from ..estimation.inputs import as_counts
from ..estimation.variances import covariance_inverse
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from .base import POST_PROCESSING, FrequencyOracle

__all__ = [
    "ESTIMATORS",
    "SurveyEstimate",
    "estimate",
    "estimate_survey",
]


@dataclass(frozen=True, repr=False)
class SurveyEstimate:
    """Frequency estimates of one survey.

    Attributes
    ----------
    values : tuple
        The input labels (``0..k-1`` for an oracle).
    n : int
        Number of reports.
    estimate : ndarray
        Unbiased estimates (may be negative or above 1).
    standard_error, lower, upper : ndarray
        Plug-in standard errors and the normal confidence interval of each estimate.
    confidence : float
    post : str
        The post-processing of :attr:`adjusted` (``"none"``: :attr:`adjusted` is the
        estimate).
    estimator : str
        ``"inverse"``, the unbiased inverse estimator (an oracle's support-count estimator),
        or ``"mle"``.
    adjusted : ndarray
        The post-processed estimates (a distribution for ``"project"`` and ``"norm-sub"``).
    """

    values: tuple
    n: int
    estimate: np.ndarray
    standard_error: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    confidence: float
    post: str
    adjusted: np.ndarray
    estimator: str = "inverse"

    def __repr__(self) -> str:
        """One line: size, estimator, confidence and the first estimates (exact)."""
        post = "" if self.post == "none" else f", post={self.post!r}"
        return short_repr("SurveyEstimate", (
            f"n={self.n}, {len(self.values)} values, {self.estimator}, "
            f"{100 * self.confidence:g}% intervals{post}: "
            f"estimate={numbers_text(self.estimate, 48)}, "
            f"standard_error={numbers_text(self.standard_error, 48)}"))

    def _repr_html_(self) -> str:
        """The estimates, standard errors and intervals as a table (cut past 12 values)."""
        columns: list[tuple[str, Any]] = [
            ("value", [clip(str(v), LABEL_CHARS) for v in self.values]),
            ("estimate", self.estimate), ("standard error", self.standard_error),
            ("lower", self.lower), ("upper", self.upper)]
        if self.post != "none":
            columns.append((f"adjusted ({self.post})", self.adjusted))
        caption = (f"SurveyEstimate: {self.n} reports, {self.estimator} estimator, "
                   f"{100 * self.confidence:g}% normal intervals")
        return wrap(series_table(columns, caption))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"n": self.n, "confidence": self.confidence, "post": self.post,
                "estimator": self.estimator,
                "values": list(self.values), "estimate": self.estimate.tolist(),
                "standard_error": self.standard_error.tolist(),
                "lower": self.lower.tolist(), "upper": self.upper.tolist(),
                "adjusted": self.adjusted.tolist()}


ESTIMATORS = ("inverse", "mle")
"""The estimators of :func:`estimate_survey` (``"mle"`` for mechanisms given as matrices);
``"unbiased"``, their first name for ``"inverse"``, is still accepted
(:data:`~mechdesign.estimation.estimators.ESTIMATOR_ALIASES`)."""


def estimate_survey(randomizer: FrequencyOracle | Mechanism, reports: Any,
                    confidence: float = 0.95, post: str = "none",
                    estimator: str = "inverse") -> SurveyEstimate:
    """Estimates, standard errors and intervals from the reports of one survey.

    Parameters
    ----------
    randomizer : FrequencyOracle or Mechanism
    reports : array_like
        An oracle's reports (the array its ``sample`` returns), or a mechanism's output
        indices (ints in ``0..m-1``).
    confidence : float
        In (0, 1).
    post : {"none", "project", "norm-sub"}
    estimator : {"inverse", "mle"}
        ``"inverse"``: the unbiased inverse estimator (a frequency oracle's support-count
        estimator) with its exact standard errors; ``"unbiased"`` is the same (its first
        name). ``"mle"``: maximum likelihood with Cramer-Rao standard errors (a Mechanism
        only).
    """
    conf = check_real(confidence, "confidence")
    if not 0.0 < conf < 1.0:
        raise InvalidParameterError(f"confidence must lie in (0, 1), got {confidence!r}")
    if post not in POST_PROCESSING:
        raise InvalidParameterError(f"post must be one of {POST_PROCESSING}, got {post!r}")
    estimator = estimator_name(estimator, ESTIMATORS)
    if estimator == "mle" and not isinstance(randomizer, Mechanism):
        raise InvalidParameterError("estimator 'mle' needs a mechanism given as a matrix; "
                                    "a frequency oracle's estimate is its unbiased one")
    if isinstance(randomizer, FrequencyOracle):
        est = randomizer.estimate(reports)
        n = len(np.asarray(reports))
        var = randomizer.variance(project_simplex(est), n)
        values: tuple = tuple(range(randomizer.k))
    elif isinstance(randomizer, Mechanism):
        counts = _output_counts(randomizer, reports)
        n = int(counts.sum())
        if estimator == "mle":
            est = estimate_mle(randomizer, counts)
            var = np.diag(cramer_rao(randomizer, est).matrix) / n
        else:
            est = estimate_inverse(randomizer, counts)
            var = np.diag(covariance_inverse(randomizer, project_simplex(est), n))
        values = randomizer.inputs
    else:
        raise InvalidParameterError(
            f"need a FrequencyOracle or a Mechanism, got {type(randomizer).__name__}")
    se = np.sqrt(np.maximum(var, 0.0))
    z = NormalDist().inv_cdf(0.5 + conf / 2.0)
    adjusted = {"none": est, "project": project_simplex(est), "norm-sub": norm_sub(est)}[post]
    return SurveyEstimate(values, n, est, se, est - z * se, est + z * se, conf, post,
                          adjusted, estimator)


def _output_counts(mech: Mechanism, reports: Any) -> np.ndarray:
    """Counts of a mechanism's output indices (a 1-D integer array; typed errors naming the
    offending index, or an empty survey)."""
    idx = np.asarray(reports)
    if idx.ndim != 1 or idx.dtype.kind not in "iu":
        raise InvalidParameterError(
            f"a mechanism's reports are output indices (a 1-D integer array), got dtype "
            f"{idx.dtype} and shape {idx.shape}")
    if idx.size and (idx.min() < 0 or idx.max() >= mech.n_outputs):
        bad = idx[(idx < 0) | (idx >= mech.n_outputs)][0]
        raise InvalidParameterError(f"output index {int(bad)} is outside 0..{mech.n_outputs - 1}")
    if idx.size == 0:
        raise InvalidParameterError("no reports: nothing to estimate")
    return np.bincount(idx.astype(np.int64), minlength=mech.n_outputs)


def estimate(randomizer: Any, reports: Any = None, *, counts: Any = None, n: int | None = None,
             post: str = "none") -> np.ndarray:
    r"""The input frequencies behind a survey, for any randomizer: one entry point.

    * :class:`~mechdesign.oracles.base.FrequencyOracle`: its unbiased support-count estimator
      ``(C_v / n - q^*) / (p^* - q^*)`` (:meth:`~mechdesign.oracles.base.FrequencyOracle.
      estimate`; Wang et al., USENIX Security 2017, s.4), from ``reports`` (what its
      ``sample`` returns) or from support ``counts`` ``C_v`` with the number of reports ``n``;
    * :class:`~mechdesign.mechanism.Mechanism` (or an evidential mechanism, read over its
      messages): the unbiased inverse estimator ``pi = (counts / n) L``, ``L`` the
      least-squares inverse of ``Q`` on ``sum(pi) = 1``
      (:func:`~mechdesign.estimation.estimators.estimate_inverse`), from ``reports`` (output
      indices, what ``sample`` returns) or output ``counts`` (last axis of length
      ``n_outputs``, a batch of surveys allowed).

    Parameters
    ----------
    randomizer : Mechanism, EvidentialMechanism or FrequencyOracle
    reports : array_like, optional
        The reports; give exactly one of ``reports`` and ``counts``.
    counts : array_like, optional
        A mechanism's output counts, or an oracle's support counts (then ``n`` is required:
        a report can support several values).
    n : int, optional
        Number of reports behind an oracle's support ``counts`` (not used otherwise).
    post : {"none", "project", "norm-sub"}
        ``"none"``: the unbiased estimate (entries may be negative or above 1);
        ``"project"``: its Euclidean projection onto the simplex; ``"norm-sub"``: Norm-Sub
        (Wang et al. 2020). Both give a distribution and are biased.

    Returns
    -------
    numpy.ndarray
        Shape ``(k,)`` (``counts.shape[:-1] + (k,)`` for a batch of a mechanism's counts).

    Raises
    ------
    InvalidParameterError
        Neither or both of ``reports`` and ``counts``, an unknown ``post``, reports or counts
        of the wrong shape or range (the value is named), an empty survey, a randomizer of
        another type.

    See Also
    --------
    estimate_survey : the same estimates with standard errors and confidence intervals.

    Examples
    --------
    Counts exactly proportional to the output law ``f @ Q`` give back ``f``:

    >>> import numpy as np, mechdesign as md
    >>> rr = md.randomized_response(3, 1.0)
    >>> md.estimate(rr, counts=1000 * (np.array([0.5, 0.3, 0.2]) @ rr.matrix)).round(12)
    array([0.5, 0.3, 0.2])
    """
    if post not in POST_PROCESSING:
        raise InvalidParameterError(f"post must be one of {POST_PROCESSING}, got {post!r}")
    if (reports is None) == (counts is None):
        raise InvalidParameterError("give the survey as reports or as counts (exactly one)")
    if isinstance(randomizer, FrequencyOracle):
        if counts is None:
            return randomizer.estimate(reports, post)
        if n is None:
            raise InvalidParameterError("an oracle's support counts need n, the number of "
                                        "reports (a report can support several values)")
        return randomizer.estimate_counts(counts, n, post)
    if not isinstance(randomizer, Mechanism | EvidentialMechanism):
        raise InvalidParameterError(
            f"need a Mechanism, an EvidentialMechanism or a FrequencyOracle, got "
            f"{type(randomizer).__name__}")
    mech = randomizer.to_mechanism()
    c = _output_counts(mech, reports) if counts is None else as_counts(counts, mech.n_outputs)
    est = estimate_inverse(mech, c)
    if post == "project":
        return project_simplex(est)
    return norm_sub(est) if post == "norm-sub" else est
