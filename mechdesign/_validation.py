"""Input checks shared by every layer. Each raises a typed error naming the offending value."""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np

from .errors import InvalidMechanismError, InvalidParameterError

ROW_SUM_TOL = 1e-9
"""Rows must sum to 1 within this absolute tolerance; they are never renormalised."""


def _describe(x: Any) -> str:
    return repr(x) if not isinstance(x, float) else f"{x!r}"


def check_real(value: Any, name: str) -> float:
    """Return ``value`` as a float; refuse bools, non-numbers and NaN."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name} must be a real number, got {_describe(value)}")
    value = float(value)
    if math.isnan(value):
        raise InvalidParameterError(f"{name} must not be NaN, got {value!r}")
    return value


def check_epsilon(epsilon: Any, name: str = "epsilon", *, allow_inf: bool = False) -> float:
    """A privacy parameter: finite (or inf if allowed) and >= 0."""
    eps = check_real(epsilon, name)
    if eps < 0:
        raise InvalidParameterError(f"{name} must be >= 0, got {eps!r}")
    if math.isinf(eps) and not allow_inf:
        raise InvalidParameterError(f"{name} must be finite, got {eps!r}")
    return eps


def check_probability(value: Any, name: str) -> float:
    """A number in [0, 1]."""
    v = check_real(value, name)
    if not 0.0 <= v <= 1.0:
        raise InvalidParameterError(f"{name} must lie in [0, 1], got {v!r}")
    return v


def check_delta(delta: Any, name: str = "delta") -> float:
    """An approximate-DP slack in [0, 1]."""
    return check_probability(delta, name)


def check_int(value: Any, name: str, minimum: int | None = None) -> int:
    """An integer (numpy integers accepted, floats refused) at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(f"{name} must be an integer, got {_describe(value)}")
    v = int(value)
    if minimum is not None and v < minimum:
        raise InvalidParameterError(f"{name} must be >= {minimum}, got {v}")
    return v


_PLAIN_REALS = frozenset({int, float, np.float64, np.float32, np.int64, np.int32})


def _is_real_entry(v: Any) -> bool:
    """A real number that is not a bool (numpy numbers included; str, bytes, None refused)."""
    return not isinstance(v, bool | np.bool_) and isinstance(v, numbers.Real)


def check_real_entries(values: Any, name: str = "matrix",
                       error: type[ValueError] = InvalidMechanismError) -> None:
    """Refuse entries that numpy would convert but that are not real numbers.

    ``np.array(["0.5"], dtype=float)`` parses the string and ``np.array([True],
    dtype=float)`` reads ``1.0``: a matrix entry must be a real number, not a string, not a
    bool. Numeric numpy arrays pass at once (their dtype says so); other inputs are walked
    as an object array and the first bad entry is named with its index.

    Parameters
    ----------
    values : array_like
        The would-be matrix or vector.
    name : str
        How messages name it.
    error : type
        The exception raised (a :class:`~mechdesign.errors.ValidationError` subclass).
    """
    if isinstance(values, np.ndarray) and values.dtype.kind in "iuf":
        return
    if isinstance(values, np.ndarray) and values.dtype.kind == "b":
        raise error(f"{name} has dtype bool; entries must be real numbers, not bools")
    try:
        obj = np.array(values, dtype=object)
    except (TypeError, ValueError):
        return  # ragged or odd: the float conversion reports it
    if obj.ndim == 0:
        return  # a scalar where an array is expected: the shape check reports it
    flat = obj.ravel()
    if set(map(type, flat)) <= _PLAIN_REALS:  # the common case, at C speed
        return
    for i, v in enumerate(flat):
        if not _is_real_entry(v) and not isinstance(v, list | tuple | np.ndarray):
            where = ", ".join(str(int(j)) for j in np.unravel_index(i, obj.shape))
            raise error(f"{name}[{where}] = {v!r} is a {type(v).__name__}; entries must be "
                        "real numbers (not str, not bool)")


def as_float_matrix(values: Any, name: str = "matrix") -> np.ndarray:
    """A finite, non-empty 2-D float array (a fresh copy) of real numbers.

    Strings and bools are refused even where numpy would convert them ("0.5", True); see
    :func:`check_real_entries`.
    """
    check_real_entries(values, name)
    try:
        arr = np.array(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidMechanismError(f"{name} is not a numeric array: {exc}") from None
    if arr.ndim != 2:
        raise InvalidMechanismError(f"{name} must be 2-D (rows are inputs), got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise InvalidMechanismError(f"{name} must not be empty, got shape {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise InvalidMechanismError(f"{name}[{i}, {j}] = {float(arr[i, j])!r} is not finite")
    return arr


def check_stochastic(values: Any, name: str = "matrix", tol: float = ROW_SUM_TOL) -> np.ndarray:
    """A row-stochastic matrix: 2-D, finite, >= 0, each row summing to 1 within ``tol``.

    Nothing is renormalised: a matrix that fails is refused with the offending entry or row.
    """
    arr = as_float_matrix(values, name)
    neg = arr < 0
    if neg.any():
        i, j = np.argwhere(neg)[0]
        raise InvalidMechanismError(f"{name}[{i}, {j}] = {float(arr[i, j])!r} is negative")
    sums = arr.sum(axis=1)
    off = np.abs(sums - 1.0) > tol
    if off.any():
        i = int(np.argmax(off))
        raise InvalidMechanismError(
            f"row {i} of {name} sums to {float(sums[i])!r}, not 1 (tolerance {tol:g}); "
            "rows are never renormalised silently"
        )
    return arr


PRIOR_SUM_TOL = 1e-9
"""A prior summing to 1 within this tolerance is kept as given (float rounding)."""

PRIOR_NORMALISE_TOL = 1e-6
"""Per value: a prior of k values whose sum is off 1 by more than :data:`PRIOR_SUM_TOL` and
at most ``k * PRIOR_NORMALISE_TOL`` is divided by its sum, with a
:class:`PriorNormalisedWarning` naming the sum; farther off, it is refused. A prior typed
to 6 decimals is off by at most ``k * 5e-7``: ``[0.333334, 0.333334, 0.333334]`` sums to
1.000002 (within 3e-6) and is accepted; ``[0.5, 0.6]`` (1.1) is refused."""


class PriorNormalisedWarning(UserWarning):
    """A prior within :data:`PRIOR_NORMALISE_TOL` of summing to 1 was divided by its sum.

    Never silent: the warning names the sum, the command line prints it, and a design whose
    objective holds the prior lists it in :attr:`DesignResult.notes
    <mechdesign.design.DesignResult.notes>`."""


def prior_with_note(prior: Any, k: int, name: str = "prior") -> tuple[np.ndarray, str]:
    """:func:`as_prior` and the note of its normalisation (``""`` when none was needed).

    Parameters
    ----------
    prior : float or array_like
        A probability vector of length ``k``, or for ``k = 2`` one number ``pi`` meaning
        ``(pi, 1 - pi)``.
    k : int
        The number of inputs.
    name : str
        How messages name the prior.

    Returns
    -------
    (prior, note)
        The prior as a float array; ``note`` says it was divided by its sum (also issued as
        a :class:`PriorNormalisedWarning`), or is ``""``.

    Raises
    ------
    InvalidParameterError
        A scalar for ``k != 2``, a wrong shape, an entry that is negative or not finite, or
        a sum farther than ``k *`` :data:`PRIOR_NORMALISE_TOL` from 1 (the message names
        the sum).
    """
    if np.ndim(prior) == 0:
        if k != 2:
            raise InvalidParameterError(
                f"a scalar {name} ({prior!r}) is only meaningful for 2 inputs; give a "
                f"vector of length {k}")
        pi = check_probability(prior, name)
        return np.array([pi, 1.0 - pi]), ""
    check_real_entries(prior, name, InvalidParameterError)  # no strings, no bools
    try:
        arr = np.array(prior, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"{name} is not numeric: {exc}") from None
    if arr.shape != (k,):
        raise InvalidParameterError(f"{name} must have shape ({k},), got {arr.shape}")
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        raise InvalidParameterError(f"{name} entries must be finite and >= 0, got "
                                    f"{float(arr[bad][0])!r}")
    total = float(arr.sum())
    off = abs(total - 1.0)
    if off <= PRIOR_SUM_TOL:
        return arr, ""
    tol = PRIOR_NORMALISE_TOL * k
    if off > tol:
        raise InvalidParameterError(
            f"{name} = {_vector_text(arr)} sums to {total!r}, not 1; a prior of {k} values "
            f"within {tol:g} of 1 ({PRIOR_NORMALISE_TOL:g} per value) is divided by its sum "
            "with a warning, one farther off is refused: correct the values")
    note = (f"{name} sums to {total!r}, not 1 (off by {total - 1.0:.3g}, within {tol:g} = "
            f"{k} x {PRIOR_NORMALISE_TOL:g}): divided by its sum")
    warnings.warn(note, PriorNormalisedWarning, stacklevel=3)
    return arr / total, note


def _vector_text(arr: np.ndarray, shown: int = 8) -> str:
    """A vector in a message: whole up to ``shown`` entries, else its first entries and size."""
    if arr.size <= shown:
        return repr(arr.tolist())
    return "[" + ", ".join(repr(float(v)) for v in arr[:shown]) + f", ... ({arr.size} values)]"


def as_prior(prior: Any, k: int, name: str = "prior") -> np.ndarray:
    """A probability vector of length ``k``.

    A scalar ``pi`` is accepted when ``k = 2`` and means ``(pi, 1 - pi)``: the proportion
    of the first input (the sensitive property P in Li et al. 2022). A vector summing to 1
    within :data:`PRIOR_SUM_TOL` is returned as given; within ``k *``
    :data:`PRIOR_NORMALISE_TOL` (a prior typed to 6 decimals), divided by its sum with a
    :class:`PriorNormalisedWarning` naming the sum (:func:`prior_with_note` also returns
    the note).

    Raises
    ------
    InvalidParameterError
        A scalar for ``k != 2``, a wrong shape, an entry that is negative or not finite, or a
        sum farther than ``k *`` :data:`PRIOR_NORMALISE_TOL` from 1.
    """
    return prior_with_note(prior, k, name)[0]


def frozen(arr: np.ndarray) -> np.ndarray:
    """A read-only copy of a numeric array whose WRITEABLE flag can never be set again.

    The data lives in an immutable ``bytes`` object: numpy refuses ``writeable = True`` on
    an array (and on every view of it) whose memory belongs to a read-only buffer, so the
    value cannot be changed through the array, its views or its ``.base``.
    """
    arr = np.ascontiguousarray(arr)
    return np.frombuffer(arr.tobytes(), dtype=arr.dtype).reshape(arr.shape)


def is_hashable(label: Any) -> bool:
    """Whether ``label`` can be a label (a dict key, a set member)."""
    try:
        hash(label)
    except TypeError:
        return False
    return True


def _has_nan(label: Any) -> bool:
    """Whether a label is a float NaN or a tuple/frozenset holding one."""
    if isinstance(label, tuple | frozenset):
        return any(_has_nan(v) for v in label)
    return isinstance(label, float | np.floating) and math.isnan(label)


def check_labels(labels: Any, n: int | None, what: str) -> tuple:
    """``n`` distinct hashable labels (any number when ``n`` is None), or ``range(n)`` when
    ``labels`` is None.

    A bare string is refused (``"ab"`` would silently become the labels ``'a', 'b'``), and
    so is a NaN label (``nan != nan``: it could never be looked up).
    """
    if labels is None:
        return tuple(range(n))
    if isinstance(labels, str | bytes):
        raise InvalidMechanismError(
            f"{what} must be a sequence of labels, not the string {labels!r} "
            f"(write [{labels!r}] for one label, or list the labels)")
    try:
        out = tuple(labels)
    except TypeError:
        raise InvalidMechanismError(
            f"{what} must be a sequence of labels, got {labels!r}") from None
    if n is not None and len(out) != n:
        raise InvalidMechanismError(f"{what} has {len(out)} labels for {n} entries: {out!r}")
    for label in out:
        if not is_hashable(label):
            raise InvalidMechanismError(
                f"{what} label {label!r} is unhashable (labels must be hashable: str, int, "
                f"tuple, ...); got {out!r}")
        if _has_nan(label):
            raise InvalidMechanismError(
                f"{what} label {label!r} is (or contains) NaN, which is not equal to itself "
                "and cannot be looked up; use another label")
    distinct = len(set(out)) == len(out)
    if not distinct:
        raise InvalidMechanismError(f"{what} labels must be distinct, got {out!r}")
    return out


NOT_GIVEN: Any = object()
"""Default of a deprecated keyword: tells "not passed" from any value the caller can give."""


def renamed_rng(rng: Any, seed: Any, where: str) -> Any:
    """The random source of ``where``, given as ``rng`` or by its deprecated name ``seed``.

    ``seed`` (kept for one release) emits a :class:`DeprecationWarning` naming ``rng`` and is
    returned; passing both raises :class:`~mechdesign.errors.InvalidParameterError`. The
    library names its random source ``rng`` everywhere (``Mechanism.sample``,
    ``FrequencyOracle.sample``, the simulations).
    """
    if seed is NOT_GIVEN:
        return rng
    if rng is not None:
        raise InvalidParameterError(
            f"{where}: give the random source once, as rng (seed is its deprecated name); "
            f"got rng={rng!r} and seed={seed!r}")
    warnings.warn(f"{where}(seed=...) is deprecated and will be removed in the next release; "
                  f"use rng=", DeprecationWarning, stacklevel=3)
    return seed
