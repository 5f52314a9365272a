r"""Calibration: the parameter that meets a central (epsilon, delta) target.

The forward computations of this package answer "what does this parameter give?":
:func:`~mechdesign.accounting.compose` for k-fold and heterogeneous composition,
:func:`~mechdesign.accounting.shuffle_delta` for n shuffled reports,
:func:`~mechdesign.accounting.subsampling_bound` for subsampling. Calibration answers the
inverse question: the largest per-use epsilon (or the largest number of uses k) such that the
composition is (epsilon, delta)-DP; the largest epsilon0, or the smallest n, for shuffling;
the largest inclusion probability p (or base epsilon) for subsampling
(``docs/accounting.md`` s.7).

Method. A parameter x *meets* the target when the forward computation's guarantee at x is
within it: the delta at the target epsilon is at most the target delta (composition,
shuffling), or both amplified values are at most the targets (subsampling). When the forward
value is monotone in x (each setting states why, or checks it), the parameters that meet
the target form an interval, so "x meets the target" is a step function of x, and its step
is found by bisecting that predicate as the forward computation evaluates it (never a
smoothed or interpolated approximation of it):

* a real parameter is bisected on the doubles themselves (the midpoint of the two ends' bit
  patterns: at most 64 forward computations) until the two ends are adjacent doubles;
* an integer (k, n) is found by galloping (1, 2, 4, ...) and binary search.

The result (:class:`Calibration`) holds both ends of the step, the returned value (it meets
the target) and the next one (it does not), with the forward value at each.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .._algebra import log_expm1
from .._html import kv_table, number, short_repr, wrap
from .._validation import check_delta, check_epsilon, check_int, check_real
from ..errors import InvalidParameterError
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from .amplification import MAX_SHUFFLE_N, shuffle_delta, subsampling_bound
from .composition import Method, compose
from .pld import DEFAULT_GRID, MAX_ATOMS
from .step_search import (
    StepPredicate,
    falsify_monotone,
    largest_int,
    search_real,
    smallest_int,
)

__all__ = [
    "MAX_K",
    "MAX_SHUFFLE_EPSILON0",
    "Calibration",
    "calibrate",
    "calibrate_composition",
    "calibrate_shuffle",
    "calibrate_subsampling",
]

MAX_K = 10**6
"""Default upper end of the search for the largest number of uses k: past it, the result
reports ``value = MAX_K`` with ``infeasible = None`` (raise it with ``bounds=(1, K)``)."""

MAX_SHUFFLE_EPSILON0 = 300.0
"""Upper end of the epsilon0 range of :func:`calibrate_shuffle`. Far beyond any use: at
eps0 = 300 the expected number of clones ``(n - 1) e^-eps0`` is below 1e-120 for every
``n <= 1e9``, so shuffling no longer amplifies."""

Setting = Literal["composition", "shuffle", "subsampling"]
Direction = Literal["largest", "smallest"]


@dataclass(frozen=True)
class Calibration:
    r"""The parameter found by a calibration, with the step of the target it sits on.

    Attributes
    ----------
    parameter : str
        The calibrated parameter (``"epsilon"``, ``"k"``, ``"n"``, ``"p"``, ...).
    value : float or int
        The extreme parameter that meets the target: the largest (``direction ==
        "largest"``) or the smallest (``"smallest"``: the number of users n) one.
    infeasible : float, int or None
        The next parameter beyond ``value``, which does NOT meet the target by the forward
        computation: the next double (real parameters) or ``k + 1`` / ``n - 1`` (integers).
        The forward computation is an outward-rounded upper bound, so ``value`` provably
        meets the target while ``infeasible`` may still meet it exactly (by at most the
        bound's pessimism, about 1e-12 relative in delta). ``None`` when the end of the
        searched range meets the target (the whole range does).
    direction : {"largest", "smallest"}
    target_epsilon, target_delta : float
        The central (epsilon, delta) target.
    achieved : tuple of float
        The forward computation's guarantee ``(epsilon, delta)`` at ``value``, within the
        target: ``(target_epsilon, delta at target_epsilon)`` for composition and shuffling,
        the amplified pair for subsampling.
    missed : tuple of float or None
        The same at ``infeasible`` (outside the target), or None.
    setting : {"composition", "shuffle", "subsampling"}
    question : str
        What was calibrated, in words.
    method : str
        How the forward value is computed.
    exact : bool
        True when the forward value at both ends is exact (exact privacy-loss atoms, the
        clone bound computed exactly, a closed form); False when a composition fell back to
        its grid bracket: ``value`` then meets the target by the bracket's safe (pessimistic)
        end, and ``infeasible`` misses it by that end (its true delta may be within).
    evaluations : int
        Forward computations made.
    note : str
        Remarks (the closed form of subsampling, a search limit reached).
    """

    parameter: str
    value: float | int
    infeasible: float | int | None
    direction: Direction
    target_epsilon: float
    target_delta: float
    achieved: tuple[float, float]
    missed: tuple[float, float] | None
    setting: Setting
    question: str
    method: str
    exact: bool
    evaluations: int
    note: str = ""

    @property
    def bracket(self) -> tuple[float | int, float | int | None]:
        """``(value, infeasible)``: the best parameter meeting the target and the first one
        that does not (``None`` when the whole searched range meets it)."""
        return (self.value, self.infeasible)

    def __repr__(self) -> str:
        sign = "<=" if self.direction == "largest" else ">="
        nxt = ("the whole range meets it" if self.infeasible is None
               else f"{number(self.infeasible)} misses")
        how = "exact" if self.exact else "grid bracket"
        return short_repr("Calibration", (
            f"{self.parameter} {sign} {number(self.value)} ({nxt}) meets "
            f"({number(self.target_epsilon)}, {number(self.target_delta)}) for "
            f"{self.question}; {how}"))

    def _repr_html_(self) -> str:
        """The calibration as a table (notebooks)."""
        return wrap(kv_table([
            ("question", self.question),
            ("target (epsilon, delta)",
             f"({number(self.target_epsilon)}, {number(self.target_delta)})"),
            (f"{self.direction} {self.parameter}", number(self.value)),
            ("achieves", _pair(self.achieved)),
            ("next (misses the target)", None if self.infeasible is None
             else f"{number(self.infeasible)}: {_pair(self.missed)}"),
            ("method", self.method), ("exact", str(self.exact)),
            ("forward computations", str(self.evaluations)),
            ("note", self.note or None)], "Calibration"))


def _pair(g: tuple[float, float] | None) -> str:
    return "none" if g is None else f"({number(g[0])}, {number(g[1])})"


def _result(pred: StepPredicate, value: Any, bad: Any, setting: Setting, method: str,
            note: str = "") -> Calibration:
    eps, delta, exact = pred.at(value)
    missed = None
    if bad is not None:
        e2, d2, exact2 = pred.at(bad)
        missed, exact = (e2, d2), exact and exact2
    direction: Direction = "largest" if bad is None or bad > value else "smallest"
    return Calibration(pred.name, value, bad, direction, pred.epsilon, pred.delta,
                       (eps, delta), missed, setting, pred.question, method, exact,
                       len(pred.seen), note)


# --------------------------------------------------------------------------- arguments
def _targets(target_epsilon: Any, target_delta: Any) -> tuple[float, float]:
    return (check_epsilon(target_epsilon, "target_epsilon"),
            check_delta(target_delta, "target_delta"))


def _real_bounds(bounds: Any, default: tuple[float, float] | None, name: str,
                 what: str) -> tuple[float, float]:
    if bounds is None:
        if default is None:
            raise InvalidParameterError(
                f"give bounds=(low, high) for parameter {name!r} of {what}: the range on "
                "which the guarantee grows (or shrinks) with it")
        return default
    lo, hi = _bound_pair(bounds, name)
    for v in (lo, hi):
        if not math.isfinite(v):
            raise InvalidParameterError(f"bounds of {name!r} must be finite, got {bounds!r}")
    return lo, hi


def _bound_pair(bounds: Any, name: str) -> tuple[Any, Any]:
    try:
        lo, hi = bounds
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"bounds of {name!r} must be a pair (low, high), got {bounds!r}") from None
    lo, hi = check_real(lo, f"low bound of {name!r}"), check_real(hi, f"high bound of {name!r}")
    if not lo < hi:
        raise InvalidParameterError(
            f"bounds of {name!r} must have low < high, got {bounds!r}")
    return lo, hi


def _int_bounds(bounds: Any, default: tuple[int, int], name: str) -> tuple[int, int]:
    if bounds is None:
        return default
    try:
        lo, hi = bounds
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"bounds of {name!r} must be a pair (low, high), got {bounds!r}") from None
    lo = check_int(lo, f"low bound of {name!r}", default[0])
    hi = check_int(hi, f"high bound of {name!r}", lo + 1)
    if hi > default[1]:
        raise InvalidParameterError(f"high bound of {name!r} must be <= {default[1]}, got {hi}")
    return lo, hi


def _check_xtol(xtol: Any) -> float:
    x = check_real(xtol, "xtol")
    if x < 0:
        raise InvalidParameterError(f"xtol must be >= 0, got {x!r}")
    return x


# --------------------------------------------------------------------------- composition
def _as_list(m: Any) -> list:
    if isinstance(m, Sequence) and not isinstance(m, str):
        return list(m)
    return [m]


def _constructor(name: str) -> Callable[..., Any]:
    from ..catalog import CATALOG

    ctor = CATALOG.get(name)
    if ctor is None:
        raise InvalidParameterError(
            f"unknown mechanism {name!r}; catalog names: {', '.join(CATALOG)}")
    return ctor


def _params_list(params: Any, n: int) -> list[dict[str, Any]]:
    if params is None:
        return [{} for _ in range(n)]
    if isinstance(params, dict):
        return [dict(params) for _ in range(n)]
    if isinstance(params, Sequence) and not isinstance(params, str) and len(params) == n \
            and all(isinstance(p, dict) for p in params):
        return [dict(p) for p in params]
    raise InvalidParameterError(
        f"params must be a dict (for every mechanism) or a list of {n} dicts, got {params!r}")


def _signature_text(name: str, params: dict[str, Any], free: str | None) -> str:
    args = [f"{k}={v!r}" for k, v in params.items()]
    if free is not None:
        args.append(f"{free}=.")
    return f"{name}({', '.join(args)})"


def _catalog_family(names: list[str], params: Any, free: str | None
                    ) -> tuple[Callable[[Any], list], str, list[tuple[str, dict, str | None]]]:
    """Constructors of the named catalog mechanisms with ``params`` bound and ``free`` (a
    parameter name, ``"epsilon0"`` read as ``"epsilon"``; None: nothing free) left open."""
    specs = []
    for name, p in zip(names, _params_list(params, len(names)), strict=True):
        ctor = _constructor(name)
        sig = inspect.signature(ctor)
        pname = None
        if free is not None:
            pname = "epsilon" if free == "epsilon0" and "epsilon" in sig.parameters else free
            if pname not in sig.parameters:
                raise InvalidParameterError(
                    f"{name} has no parameter {free!r}; signature {name}{sig}")
            if pname in p:
                raise InvalidParameterError(
                    f"{pname!r} is the calibrated parameter of {name}; leave it out of params "
                    f"(got {pname}={p[pname]!r})")
        unknown = [key for key in p if key not in sig.parameters]
        if unknown:
            raise InvalidParameterError(
                f"{name} has no parameter {unknown[0]!r}; signature {name}{sig}")
        try:
            sig.bind(**p, **({} if pname is None else {pname: 0.0}))
        except TypeError as exc:
            raise InvalidParameterError(f"{name}{sig}: {exc}") from None
        specs.append((name, p, pname))

    def build(x: Any) -> list:
        return [_constructor(n)(**p, **({} if f is None else {f: x})) for n, p, f in specs]

    label = ", ".join(_signature_text(n, p, f) for n, p, f in specs)
    return build, label if len(specs) == 1 else f"[{label}]", specs


def _epsilon_range(specs: list[tuple[str, dict, str | None]]) -> tuple[float, float] | None:
    """``(0, largest epsilon every constructor accepts)`` when the free parameter is each
    constructor's ``epsilon``, else None."""
    from ..catalog import max_epsilon

    if any(f != "epsilon" for _, _, f in specs):
        return None
    try:
        return 0.0, min(max_epsilon(n, **{k: v for k, v in p.items()
                                           if isinstance(v, int | bool)}) for n, p, _ in specs)
    except InvalidParameterError:
        return None


def _is_mechanism_like(m: Any) -> bool:
    return isinstance(m, Mechanism | EvidentialMechanism | np.ndarray)


def _describe(mechs: list) -> str:
    parts = []
    for m in mechs:
        if isinstance(m, Mechanism | EvidentialMechanism) and getattr(m, "name", ""):
            parts.append(m.name)
        else:
            shape = np.shape(m.matrix if isinstance(m, Mechanism) else m)
            parts.append(f"a {shape[0]}x{shape[1]} mechanism" if len(shape) == 2
                         else type(m).__name__)
    return parts[0] if len(parts) == 1 else f"[{', '.join(parts)}]"


def calibrate_composition(mechanism: Any, free: str = "epsilon", *, target_epsilon: float,
                          target_delta: float, k: int | None = None, params: Any = None,
                          bounds: tuple[float, float] | None = None, method: Method = "auto",
                          grid: float = DEFAULT_GRID, max_atoms: int = MAX_ATOMS,
                          xtol: float = 0.0, check_monotone: bool = True) -> Calibration:
    r"""The largest parameter, or the largest number of uses, at which a composition meets a
    central (epsilon, delta) target.

    The forward value at a parameter x is the exact delta of the composition at
    ``target_epsilon`` (:func:`~mechdesign.accounting.compose`: privacy-loss atoms, worst
    ordered pair; a grid bracket past ``max_atoms``, whose pessimistic end is used), and x
    meets the target when it is at most ``target_delta``. Two questions:

    ``free="k"`` (the number of uses)
        The largest k such that using ``mechanism`` (or each mechanism of a list) k times is
        (target_epsilon, target_delta)-DP. Monotone for every mechanism: the k-fold
        composition is a post-processing of the (k + 1)-fold one (drop the last output), so
        its delta at every epsilon is never larger. Galloping and binary search over
        ``[1, MAX_K]`` (or ``bounds``); returns K meeting the target and ``K + 1`` not.
    ``free=NAME`` (a real parameter of the mechanism, ``"epsilon"`` by default)
        The largest (or smallest) value of ``NAME`` such that the ``k``-fold composition
        meets the target, by bisection on the doubles of ``bounds`` down to two adjacent
        doubles. ``mechanism`` is a catalog name (``params`` gives the other arguments), a
        list of names (heterogeneous composition with one common parameter; ``params`` a
        dict for all or one dict each), or a callable ``value -> mechanism or list of
        mechanisms`` (any family: a common scale of several epsilons, say; ``bounds``
        required). ``"epsilon0"`` names the constructors' ``epsilon``. The default bounds
        of ``epsilon`` are ``[0, max_epsilon]`` of the catalog
        (:func:`~mechdesign.catalog.max_epsilon`). The search assumes the guarantee is
        monotone in the parameter on the bounds; that holds when the family is ordered by
        garbling (the more private mechanism is a post-processing of the less private one,
        as k-ary randomized response and symmetric unary encoding are in epsilon), because
        post-processing each use of a composition cannot raise its delta. The direction
        is read from the ends (the target met at the low end only: the largest value;
        at the high end only: the smallest), and ``check_monotone`` evaluates three more
        points on each side of the step and raises when one contradicts it.

    Parameters
    ----------
    mechanism : str, list of str, callable, Mechanism or list of Mechanism
        What is composed (a Mechanism or a list of them only with ``free="k"``).
    free : str
        ``"k"`` or the name of the calibrated parameter.
    target_epsilon, target_delta : float
        The central target, ``target_epsilon >= 0`` finite, ``target_delta`` in [0, 1].
    k : int, optional
        Number of uses (required unless ``free="k"``; a list is used k times, as in
        :func:`~mechdesign.accounting.compose`).
    params : dict or list of dict, optional
        The other arguments of catalog constructors.
    bounds : (low, high), optional
        The searched range.
    method, grid, max_atoms
        As in :func:`~mechdesign.accounting.compose`.
    xtol : float
        Stop the real bisection when the ends are within ``xtol`` (default 0: adjacent
        doubles).
    check_monotone : bool
        Falsification test of the monotonicity of a real parameter (six more forward
        computations); the number of uses needs none.

    Returns
    -------
    Calibration

    Raises
    ------
    InvalidParameterError
        Naming the target when no parameter in the range meets it (the delta at both ends,
        or at k = 1, is above the target) or when the check finds the guarantee not
        monotone; naming the value for bad arguments.

    Examples
    --------
    The largest epsilon of binary randomized response used 1000 times under (1, 1e-6):

    >>> from mechdesign.accounting import calibrate_composition
    >>> c = calibrate_composition("randomized_response", "epsilon", target_epsilon=1.0,
    ...                           target_delta=1e-6, k=1000, params={"k": 2})
    >>> c.achieved[1] <= 1e-6 < c.missed[1], round(c.value, 6)
    (True, 0.007495)
    """
    t_eps, t_delta = _targets(target_epsilon, target_delta)
    if not isinstance(free, str) or not free:
        raise InvalidParameterError(f"free must be a parameter name, got {free!r}")
    xtol = _check_xtol(xtol)
    options = {"method": method, "grid": grid, "max_atoms": max_atoms}
    if free == "k":
        if k is not None:
            raise InvalidParameterError(
                f"k is the calibrated parameter; do not give k={k!r} as well")
        mechs, label = _fixed(mechanism, params)
        lo, hi = _int_bounds(bounds, (1, MAX_K), "k")

        def uses(kk: int) -> tuple[float, float, bool]:
            r = compose(mechs, kk, **options).delta(t_eps)
            return t_eps, r.delta, r.exact

        pred = StepPredicate(uses, t_eps, t_delta, "k", f"{label} used k times")
        value, bad = largest_int(pred, lo, hi)
        note = "" if bad is not None else (
            f"every k up to {hi} meets the target (the search stopped there; raise it with "
            "bounds=(1, K))")
        return _result(pred, value, bad, "composition", _composition_method(pred), note)
    if k is None:
        raise InvalidParameterError(
            f"give k, the number of uses (or calibrate it with free='k'); free={free!r}")
    k = check_int(k, "k", 1)
    build, label, default = _family(mechanism, free, params)
    lo, hi = _real_bounds(bounds, default, free, label)

    def forward(x: float) -> tuple[float, float, bool]:
        r = compose(build(x), k, **options).delta(t_eps)
        return t_eps, r.delta, r.exact

    pred = StepPredicate(forward, t_eps, t_delta, free, f"the {k}-fold composition of {label}")
    value, bad = search_real(pred, lo, hi, xtol)
    if check_monotone:
        falsify_monotone(pred, value, bad, lo, hi, integer=False)
    return _result(pred, value, bad, "composition", _composition_method(pred))


def _composition_method(pred: StepPredicate) -> str:
    if all(ex for _, _, ex in pred.seen.values()):
        return "exact privacy-loss atoms (compose)"
    return "compose: exact atoms, a grid bracket (pessimistic end) where they were too many"


def _fixed(mechanism: Any, params: Any) -> tuple[list, str]:
    """The mechanisms of a ``free="k"`` calibration and their description."""
    if isinstance(mechanism, str) or (isinstance(mechanism, Sequence) and mechanism
                                      and all(isinstance(m, str) for m in mechanism)):
        names = [mechanism] if isinstance(mechanism, str) else list(mechanism)
        build, label, _ = _catalog_family(names, params, None)
        return build(None), label
    if params is not None:
        raise InvalidParameterError(
            f"params go with catalog names; got params={params!r} for a mechanism value")
    items = _as_list(mechanism)
    if not items or not all(_is_mechanism_like(m) for m in items):
        raise InvalidParameterError(
            "with free='k' the mechanism must be a catalog name, a list of names, a Mechanism "
            f"or a list of Mechanisms; got {mechanism!r}")
    return items, _describe(items)


def _family(mechanism: Any, free: str, params: Any
            ) -> tuple[Callable[[Any], list], str, tuple[float, float] | None]:
    """``value -> list of mechanisms`` for a real free parameter, its description and the
    default bounds (None: required)."""
    if isinstance(mechanism, str) or (isinstance(mechanism, Sequence) and mechanism
                                      and all(isinstance(m, str) for m in mechanism)):
        names = [mechanism] if isinstance(mechanism, str) else list(mechanism)
        build, label, specs = _catalog_family(names, params, free)
        return build, label, _epsilon_range(specs)
    if callable(mechanism) and not _is_mechanism_like(mechanism):
        if params is not None:
            raise InvalidParameterError(
                f"params go with catalog names; a callable takes the value only (got "
                f"params={params!r})")
        name = getattr(mechanism, "__name__", "a callable")

        def build(x: Any) -> list:
            return _as_list(mechanism(x))

        return build, f"{name}({free}=.)", None
    raise InvalidParameterError(
        f"to calibrate {free!r} the mechanism must be a catalog name, a list of names, or a "
        f"callable value -> mechanism(s); got {mechanism!r} (a fixed mechanism can only have "
        "its number of uses calibrated: free='k')")


# --------------------------------------------------------------------------- shuffling
SHUFFLE_METHOD = ("FMT21 clone bound computed exactly (an upper bound on the delta of the "
                  "shuffled reports, for every eps0-LDP randomizer)")


def calibrate_shuffle(free: Literal["epsilon0", "n"], *, target_epsilon: float,
                      target_delta: float, n: int | None = None,
                      epsilon0: float | None = None, bounds: Any = None, xtol: float = 0.0,
                      check_monotone: bool = True) -> Calibration:
    r"""The largest local epsilon0 for n shuffled reports, or the smallest number of users
    n for a given epsilon0, such that the Feldman-McMillan-Talwar clone bound certifies a
    central (epsilon, delta) target.

    The forward value is the upper end of :func:`~mechdesign.accounting.shuffle_delta` at
    ``target_epsilon`` (the clone bound computed exactly, plus the mass of the clone counts
    left out, at most 1e-30): x meets the target when it is at most ``target_delta``. The
    answer is exact for that bound, which is itself an upper bound on the delta of the
    shuffled reports: a parameter beyond the answer is one the bound does not certify, not
    one shown to fail.

    ``free="epsilon0"`` (``n`` given)
        Largest eps0 in ``[0, MAX_SHUFFLE_EPSILON0]`` (or ``bounds``), bisected on the
        doubles. Every ``eps0 <= target_epsilon`` meets the target (the bound never exceeds
        the local guarantee). The bound grows with eps0 (fewer clones, each less alike);
        ``check_monotone`` tests it on six more points.
    ``free="n"`` (``epsilon0`` given)
        Smallest n in ``[1, 1e9]`` (or ``bounds``), by galloping and binary search.
        Monotone: the clone count ``C ~ Bin(n - 1, e^-eps0)`` grows stochastically with n,
        and one more clone is a post-processing of the pair (add a fair coin to the first
        coordinate), which cannot raise the hockey-stick divergence.

    Returns
    -------
    Calibration
        ``value`` meets the target; ``infeasible`` (the next double, or ``n - 1``) does not by
        the (outward-rounded) forward computation.

    Raises
    ------
    InvalidParameterError
        Naming the target when it cannot be met (no eps0 in the range; no n up to 1e9),
        or when the monotonicity check fails; naming the value for bad arguments.
    """
    t_eps, t_delta = _targets(target_epsilon, target_delta)
    xtol = _check_xtol(xtol)
    if free == "epsilon0":
        if n is None or epsilon0 is not None:
            raise InvalidParameterError(
                f"calibrating epsilon0 needs n (and no epsilon0); got n={n!r}, "
                f"epsilon0={epsilon0!r}")
        n = check_int(n, "n", 1)
        if n > MAX_SHUFFLE_N:
            raise InvalidParameterError(f"n = {n} exceeds {MAX_SHUFFLE_N}")
        lo, hi = _real_bounds(bounds, (0.0, MAX_SHUFFLE_EPSILON0), "epsilon0", "shuffling")
        if lo < 0 or hi > MAX_SHUFFLE_EPSILON0:
            raise InvalidParameterError(
                f"bounds of 'epsilon0' must lie in [0, {MAX_SHUFFLE_EPSILON0}], got {bounds!r}")
        nn = n

        def by_epsilon0(e0: float) -> tuple[float, float, bool]:
            return t_eps, shuffle_delta(e0, nn, t_eps).upper, True

        pred = StepPredicate(by_epsilon0, t_eps, t_delta, "epsilon0",
                          f"{n} shuffled epsilon0-LDP reports")
        value, bad = search_real(pred, lo, hi, xtol)
        if check_monotone:
            falsify_monotone(pred, value, bad, lo, hi, integer=False)
        return _result(pred, value, bad, "shuffle", SHUFFLE_METHOD)
    if free == "n":
        if epsilon0 is None or n is not None:
            raise InvalidParameterError(
                f"calibrating n needs epsilon0 (and no n); got epsilon0={epsilon0!r}, n={n!r}")
        e0 = check_epsilon(epsilon0, "epsilon0")
        lo_n, hi_n = _int_bounds(bounds, (1, MAX_SHUFFLE_N), "n")

        def by_n(m: int) -> tuple[float, float, bool]:
            return t_eps, shuffle_delta(e0, m, t_eps).upper, True

        pred = StepPredicate(by_n, t_eps, t_delta, "n", f"n shuffled {number(e0)}-LDP reports")
        value_n, bad_n = smallest_int(pred, lo_n, hi_n)
        if check_monotone:
            falsify_monotone(pred, value_n, bad_n, lo_n, hi_n, integer=True)
        return _result(pred, value_n, bad_n, "shuffle", SHUFFLE_METHOD)
    raise InvalidParameterError(f"free must be 'epsilon0' or 'n' for shuffling, got {free!r}")


# --------------------------------------------------------------------------- subsampling
SUBSAMPLING_METHOD = "closed form ln(1 + p (e^eps0 - 1)), p delta0 (Huang & Canonne Thm 6.1)"


def calibrate_subsampling(free: Literal["p", "epsilon0"], *, target_epsilon: float,
                          target_delta: float, epsilon0: float | None = None,
                          delta0: float = 0.0, p: float | None = None, bounds: Any = None,
                          xtol: float = 0.0, check_monotone: bool = True) -> Calibration:
    r"""The largest inclusion probability p, or the largest base epsilon0, at which
    subsampling an (epsilon0, delta0)-DP mechanism meets a central (epsilon, delta) target.

    The forward value is :func:`~mechdesign.accounting.subsampling_bound`,
    ``(ln(1 + p (e^eps0 - 1)), p delta0)``, and x meets the target when both are within it.
    Both grow with p and eps0, and the closed form inverts exactly:

    .. math:: p^* = \min\Big(1, \frac{e^{\varepsilon} - 1}{e^{\varepsilon_0} - 1},
              \frac{\delta}{\delta_0}\Big), \qquad
              \varepsilon_0^* = \ln\Big(1 + \frac{e^{\varepsilon} - 1}{p}\Big)

    (``expm1``/``log1p``). The answer is the double at which the forward computation, as
    evaluated in floating point, meets the target and the next double does not, found by
    bisection on the doubles; it agrees with the closed form (given in the note) up to the
    rounding of the forward computation, a few ulps of the target epsilon carried to the
    parameter.

    ``free="p"`` (``epsilon0`` given): largest p in ``[0, 1]``.
    ``free="epsilon0"`` (``p`` given): largest eps0 in ``[0, inf]`` (inf when ``p = 0``).

    Raises
    ------
    InvalidParameterError
        Naming the target when it cannot be met (``p delta0 > target_delta`` for every
        eps0), or naming the value for bad arguments.
    """
    t_eps, t_delta = _targets(target_epsilon, target_delta)
    xtol = _check_xtol(xtol)
    d0 = check_delta(delta0, "delta0")
    if free == "p":
        if epsilon0 is None or p is not None:
            raise InvalidParameterError(
                f"calibrating p needs epsilon0 (and no p); got epsilon0={epsilon0!r}, p={p!r}")
        e0 = check_epsilon(epsilon0, "epsilon0", allow_inf=True)
        lo, hi = _real_bounds(bounds, (0.0, 1.0), "p", "subsampling")
        if lo < 0 or hi > 1:
            raise InvalidParameterError(f"bounds of 'p' must lie in [0, 1], got {bounds!r}")

        def by_p(x: float) -> tuple[float, float, bool]:
            g = subsampling_bound(e0, d0, x)
            return g.epsilon, g.delta, True

        closed = _closed_form_p(t_eps, t_delta, e0, d0)
        pred = StepPredicate(by_p, t_eps, t_delta, "p",
                          f"subsampling a ({number(e0)}, {number(d0)})-DP mechanism")
    elif free == "epsilon0":
        if p is None or epsilon0 is not None:
            raise InvalidParameterError(
                f"calibrating epsilon0 needs p (and no epsilon0); got p={p!r}, "
                f"epsilon0={epsilon0!r}")
        pp = check_delta(p, "p")
        lo, hi = _real_bounds(bounds, (0.0, math.inf), "epsilon0", "subsampling")
        if lo < 0:
            raise InvalidParameterError(f"bounds of 'epsilon0' must be >= 0, got {bounds!r}")

        def by_epsilon0(x: float) -> tuple[float, float, bool]:
            g = subsampling_bound(x, d0, pp)
            return g.epsilon, g.delta, True

        closed = _closed_form_epsilon0(t_eps, pp)
        pred = StepPredicate(by_epsilon0, t_eps, t_delta, "epsilon0",
                          f"subsampling with p = {number(pp)} a (epsilon0, {number(d0)})-DP "
                          "mechanism")
    else:
        raise InvalidParameterError(
            f"free must be 'p' or 'epsilon0' for subsampling, got {free!r}")
    value, bad = search_real(pred, lo, hi, xtol)
    if check_monotone:
        falsify_monotone(pred, value, bad, lo, hi, integer=False)
    return _result(pred, value, bad, "subsampling", SUBSAMPLING_METHOD,
                   f"closed form: {number(closed)}")


def _closed_form_p(t_eps: float, t_delta: float, e0: float, d0: float) -> float:
    """``min(1, expm1(eps) / expm1(eps0), delta / delta0)``."""
    p = 1.0
    if math.isinf(e0):
        p = 0.0
    elif t_eps < e0:
        p = 0.0 if t_eps == 0 else math.exp(log_expm1(t_eps) - log_expm1(e0))
    if d0 > 0:
        p = min(p, t_delta / d0)
    return min(p, 1.0)


def _closed_form_epsilon0(t_eps: float, p: float) -> float:
    """``ln(1 + expm1(eps) / p)`` (inf at p = 0)."""
    if p == 0:
        return math.inf
    if t_eps == 0:
        return 0.0
    return float(np.logaddexp(0.0, log_expm1(t_eps) - math.log(p)))


# --------------------------------------------------------------------------- dispatcher
def calibrate(free: str, *, target_epsilon: float, target_delta: float,
              mechanism: Any = None, k: int | None = None, params: Any = None,
              n: int | None = None, epsilon0: float | None = None, p: float | None = None,
              delta0: float = 0.0, bounds: Any = None, **options: Any) -> Calibration:
    r"""Calibrate one parameter so that a composition, a shuffle or a subsample meets a
    central (epsilon, delta) target; the setting is read from the arguments.

    * ``mechanism=`` given: composition (:func:`calibrate_composition`): ``free`` is ``"k"``
      (the largest number of uses) or a parameter of the mechanism (``"epsilon"``, or
      ``"epsilon0"`` for it), with ``k`` uses and the constructor's other ``params``;
    * ``free="n"``, or ``n=`` given: shuffling (:func:`calibrate_shuffle`): the smallest n
      for ``epsilon0``, or the largest ``epsilon0`` for n users;
    * ``free="p"``, or ``p=`` given: subsampling (:func:`calibrate_subsampling`): the
      largest p for an (``epsilon0``, ``delta0``)-DP mechanism, or the largest ``epsilon0``
      for p.

    ``options`` go to that function (``xtol``, ``check_monotone``; for composition also
    ``method``, ``grid``, ``max_atoms``). See the three functions for the method, the
    monotonicity each relies on and the errors.

    Examples
    --------
    >>> from mechdesign.accounting import calibrate
    >>> c = calibrate("epsilon0", target_epsilon=1.0, target_delta=1e-6,
    ...               mechanism="randomized_response", k=1000, params={"k": 2})
    >>> c.direction, c.parameter, c.achieved[1] <= 1e-6 < c.missed[1]
    ('largest', 'epsilon0', True)
    >>> calibrate("p", target_epsilon=0.1, target_delta=0.0, epsilon0=1.0).value
    0.06120702456008913
    """
    targets = {"target_epsilon": target_epsilon, "target_delta": target_delta}
    if mechanism is not None:
        if n is not None or p is not None or epsilon0 is not None or delta0 != 0:
            raise InvalidParameterError(
                "composition (mechanism=) takes k and params, not n, p, epsilon0 or delta0")
        return calibrate_composition(mechanism, free, k=k, params=params, bounds=bounds,
                                     **targets, **options)
    if k is not None or params is not None:
        raise InvalidParameterError(
            f"k and params describe a composition: give mechanism= as well (k={k!r}, "
            f"params={params!r})")
    if free == "n" or n is not None:
        if p is not None or delta0 != 0:
            raise InvalidParameterError(
                f"shuffling (n) takes epsilon0, not p or delta0; got p={p!r}, delta0={delta0!r}")
        return calibrate_shuffle(free, n=n, epsilon0=epsilon0,
                                 bounds=bounds, **targets, **options)
    if free == "p" or p is not None:
        return calibrate_subsampling(free, epsilon0=epsilon0,
                                     delta0=delta0, p=p, bounds=bounds, **targets, **options)
    raise InvalidParameterError(
        f"calibrate({free!r}): say what is calibrated: mechanism= (composition), n= or "
        "free='n' (shuffling), p= or free='p' (subsampling)")
