r"""Composition of finite mechanisms: exact through privacy-loss atoms, bracketed on a grid.

The composition of ``M_1 .. M_r`` (all with the same inputs) maps x to
``(M_1(x), .., M_r(x))``, independently. For an ordered input pair ``(x, x')`` its privacy-loss
distribution is the convolution of those of the rows ``(Q_i[x], Q_i[x'])``
(:mod:`mechdesign.accounting.pld`), and the delta of the composition at epsilon is the
maximum over ordered pairs of the hockey-stick divergence,

.. math:: \delta(\varepsilon) = \max_{x \ne x'} H_{e^\varepsilon}\big(
          \textstyle\bigotimes_i M_i(x) \,\big\|\, \bigotimes_i M_i(x')\big),

the same pair in every mechanism (every mechanism sees the same input;
``docs/accounting.md`` s.2). Each pair is composed exactly from its atoms, or, when the
composed atoms are too many, on a grid with the losses rounded up (pessimistic) and down
(optimistic), and both results are reported as a bracket. The closed-form bounds that hold
for every mechanism with given per-use guarantees are in :mod:`mechdesign.accounting.bounds`.

As the sub-namespace ``mechdesign.accounting.composition`` this module also gathers, loaded
on first use, everything else about composition: the privacy-loss distribution
(:mod:`~mechdesign.accounting.pld`), the closed-form bounds (basic, advanced, optimal,
heterogeneous), sequential composition and group privacy
(:mod:`~mechdesign.accounting.sequential`), Huang & Canonne's Lemma 4.5 as a reduction
(:func:`binary_reduction`) and the composition of belief-function (SLDP, WLDP) guarantees
(:func:`belief_composition`, :func:`compose_evidential`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .._html import figure_html, kv_table, number, numbers_text, series_table, short_repr, wrap
from .._lazy import lazy_exports
from .._validation import check_delta, check_epsilon, check_int, check_real
from ..errors import InvalidMechanismError, InvalidParameterError, SizeLimitError
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from .pld import (
    DEFAULT_GRID,
    MAX_ATOMS,
    LossAtoms,
    LossBracket,
    compose_atoms,
    grid_bracket,
)

# This module is also the sub-namespace mechdesign.accounting.composition: its own names and,
# re-exported, the privacy-loss distribution behind it, the closed-form bounds, sequential and
# group privacy, Lemma 4.5 as a reduction and belief-function composition (so they load on first
# use; the imports below are for type checkers).
if TYPE_CHECKING:
    from ._belief_composition import (
        BeliefComposition,
        belief_composition,
        compose_evidential,
        epsilon_wldp_composed,
        wldp_pair_ratios,
    )
    from ._binary_reduction import BinaryReduction, binary_reduction
    from .bounds import (
        CompositionBound,
        advanced_composition,
        advanced_composition_delta,
        basic_composition,
        check_advanced,
        optimal_composition_delta,
        optimal_composition_epsilon,
        optimal_heterogeneous_delta,
        optimal_heterogeneous_epsilon,
        randomized_response_atoms,
    )
    from .pld import (
        LossAtoms,
        LossBracket,
        coarsened_step,
        compose_atoms,
        grid_bracket,
        privacy_loss_atoms,
    )
    from .sequential import (
        GroupPrivacy,
        SequentialPrivacy,
        advanced_grouposition,
        advanced_grouposition_approx,
        sequential_composition,
        sequential_epsilon,
    )

_REEXPORTS = {
    "LossAtoms": ".pld",
    "LossBracket": ".pld",
    "coarsened_step": ".pld",
    "compose_atoms": ".pld",
    "grid_bracket": ".pld",
    "privacy_loss_atoms": ".pld",
    "CompositionBound": ".bounds",
    "advanced_composition": ".bounds",
    "advanced_composition_delta": ".bounds",
    "basic_composition": ".bounds",
    "check_advanced": ".bounds",
    "optimal_composition_delta": ".bounds",
    "optimal_composition_epsilon": ".bounds",
    "optimal_heterogeneous_delta": ".bounds",
    "optimal_heterogeneous_epsilon": ".bounds",
    "randomized_response_atoms": ".bounds",
    "GroupPrivacy": ".sequential",
    "SequentialPrivacy": ".sequential",
    "advanced_grouposition": ".sequential",
    "advanced_grouposition_approx": ".sequential",
    "sequential_composition": ".sequential",
    "sequential_epsilon": ".sequential",
    "BinaryReduction": "._binary_reduction",
    "binary_reduction": "._binary_reduction",
    "BeliefComposition": "._belief_composition",
    "belief_composition": "._belief_composition",
    "compose_evidential": "._belief_composition",
    "epsilon_wldp_composed": "._belief_composition",
    "wldp_pair_ratios": "._belief_composition",
}

__all__ = [
    "BeliefComposition",
    "BinaryReduction",
    "Composition",
    "CompositionBound",
    "CompositionResult",
    "GroupPrivacy",
    "LossAtoms",
    "LossBracket",
    "PrivacyProfile",
    "SequentialPrivacy",
    "advanced_composition",
    "advanced_composition_delta",
    "advanced_grouposition",
    "advanced_grouposition_approx",
    "basic_composition",
    "belief_composition",
    "binary_reduction",
    "check_advanced",
    "coarsened_step",
    "compose",
    "compose_atoms",
    "compose_evidential",
    "delta_composed",
    "epsilon_composed",
    "epsilon_wldp_composed",
    "grid_bracket",
    "optimal_composition_delta",
    "optimal_composition_epsilon",
    "optimal_heterogeneous_delta",
    "optimal_heterogeneous_epsilon",
    "privacy_loss_atoms",
    "privacy_profile",
    "randomized_response_atoms",
    "sequential_composition",
    "sequential_epsilon",
    "wldp_pair_ratios",
]
__getattr__, __dir__ = lazy_exports(__name__, _REEXPORTS, package=__package__)



def _as_mechanism_list(mechanisms: Any) -> list[Mechanism]:
    if isinstance(mechanisms, Mechanism | EvidentialMechanism):
        items = [mechanisms]
    elif isinstance(mechanisms, np.ndarray):
        items = [mechanisms]
    elif isinstance(mechanisms, Sequence) and not isinstance(mechanisms, str) and mechanisms \
            and all(isinstance(m, Mechanism | EvidentialMechanism | np.ndarray)
                    for m in mechanisms):
        items = list(mechanisms)
    else:
        items = [mechanisms]
    out = []
    for m in items:
        if isinstance(m, Mechanism):
            out.append(m)
        elif isinstance(m, EvidentialMechanism):
            out.append(m.to_mechanism())
        else:
            out.append(Mechanism(m))
    sizes = {m.n_inputs for m in out}
    if len(sizes) > 1:
        raise InvalidMechanismError(
            f"composed mechanisms must share their inputs; got input counts {sorted(sizes)}")
    return out


def _check_pairs(pairs: Iterable | None, n: int) -> list[tuple[int, int]]:
    if pairs is None:
        return [(x, xp) for x in range(n) for xp in range(n) if x != xp]
    out = []
    for pr in pairs:
        try:
            x, xp = (int(v) for v in pr)
        except (TypeError, ValueError):
            raise InvalidParameterError(f"pairs must be (x, x') index pairs, got {pr!r}"
                                        ) from None
        if not (0 <= x < n and 0 <= xp < n):
            raise InvalidParameterError(f"pair {pr!r} has an index outside 0..{n - 1}")
        out.append((x, xp))
    if not out:
        raise InvalidParameterError("pairs must not be empty")
    return out


Method = Literal["auto", "exact", "grid"]


def _distinct_pairs(mechs: Sequence[Mechanism], pairs: list[tuple[int, int]]
                    ) -> list[tuple[int, int]]:
    """One representative of each class of pairs with the same multiset of columns
    ``(Q[x, y], Q[x', y])`` in every mechanism: such pairs have identical privacy-loss
    distributions (the loss distribution is a function of that multiset), so identical
    compositions. Columns are put in a canonical order (lexicographic) vectorised."""
    xs = np.array([p[0] for p in pairs])
    xps = np.array([p[1] for p in pairs])
    keys: list[list[bytes]] = []
    for m in mechs:
        Q = m.matrix
        chunk = max(1, 2_000_000 // Q.shape[1])
        ks: list[bytes] = []
        for start in range(0, len(pairs), chunk):
            A, B = Q[xs[start:start + chunk]], Q[xps[start:start + chunk]]
            order = np.lexsort((B, A), axis=1)
            C = np.concatenate([np.take_along_axis(A, order, 1),
                                np.take_along_axis(B, order, 1)], axis=1)
            ks.extend(row.tobytes() for row in C)
        keys.append(ks)
    first: dict[tuple, tuple[int, int]] = {}
    for pair, key in zip(pairs, zip(*keys, strict=True), strict=True):
        first.setdefault(key, pair)
    return list(first.values())


@dataclass(frozen=True)
class CompositionResult:
    """The privacy of a composition at one point of its privacy profile.

    Attributes
    ----------
    epsilon, delta : float
        The guarantee: the composition is (epsilon, delta)-LDP. The solved-for one is the
        reported (safe) end of the bracket.
    solved_for : {"delta", "epsilon"}
        Which of the two was computed (the other was given).
    exact : bool
        True when computed from the exact atoms; False for the grid bracket.
    lower, upper : float
        Bracket of the solved-for quantity. Exact results have ``upper - lower`` at most the
        displacement of merged losses (around 1e-15); grid results bracket the truth. The
        exact bracket does not count floating-point rounding of the masses
        (:meth:`~mechdesign.accounting.pld.LossAtoms.self_compose`): against a 50-digit
        evaluation of the Kairouz-Oh-Viswanath formula on the stored matrix, binary RR
        composed 1000 times (repeated squaring) is within 4e-13 relative and 5000 times
        (multinomial sum) within 8e-12, for deltas down to 1e-280.
    reported : {"exact", "upper"}
        ``"exact"``, or ``"upper"`` when the pessimistic end of a grid bracket is reported.
    method : {"atoms", "grid"}
    k : int
        Number of mechanisms composed.
    worst_pair : tuple of int
        The ordered input pair (row indices) attaining the maximum.
    n_pairs : int
        Distinct pair distributions examined (pairs with identical atoms are done once).
    n_atoms : int
        Atoms (or occupied grid bins) of the worst pair's composed distribution.
    grid_step : float or None
        Grid step actually used (None on the exact path).
    """

    epsilon: float
    delta: float
    solved_for: Literal["delta", "epsilon"]
    exact: bool
    lower: float
    upper: float
    reported: Literal["exact", "upper"]
    method: Literal["atoms", "grid"]
    k: int
    worst_pair: tuple[int, int]
    n_pairs: int
    n_atoms: int
    grid_step: float | None

    @property
    def value(self) -> float:
        """The solved-for quantity (``delta`` or ``epsilon``)."""
        return self.delta if self.solved_for == "delta" else self.epsilon

    def _how(self) -> str:
        if self.exact:
            return f"{self.solved_for} exact (atoms)"
        return (f"{self.solved_for} in [{number(self.lower)}, {number(self.upper)}], upper "
                f"reported (grid step {number(self.grid_step)})")

    def __repr__(self) -> str:
        return short_repr("CompositionResult", f"k={self.k}: ({number(self.epsilon)}, "
                          f"{number(self.delta)})-LDP, {self._how()}, worst pair "
                          f"{self.worst_pair}")

    def _repr_html_(self) -> str:
        """The guarantee and how it was computed, as a table (notebooks)."""
        return wrap(kv_table([
            ("guarantee", f"({number(self.epsilon)}, {number(self.delta)})-LDP"),
            ("solved for", self.solved_for), ("k (mechanisms composed)", str(self.k)),
            ("method", "exact atoms" if self.exact
             else f"grid (step {number(self.grid_step)})"),
            ("bracket", f"[{number(self.lower)}, {number(self.upper)}]"),
            ("reported", self.reported), ("worst pair", str(self.worst_pair)),
            ("pair distributions", str(self.n_pairs)), ("atoms", str(self.n_atoms))],
            "CompositionResult"))


@dataclass(frozen=True)
class PrivacyProfile:
    """``delta(eps)`` of a composition on a grid of epsilons (the privacy profile).

    ``lower == upper`` up to merging displacement when ``exact``; otherwise a grid bracket
    (``upper`` is the safe curve).
    """

    epsilons: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    exact: bool
    k: int
    max_loss: float

    def __repr__(self) -> str:
        kind = "exact" if self.exact else "grid bracket, upper (safe) delta"
        return short_repr("PrivacyProfile", f"k={self.k}, {kind}, {len(self.epsilons)} "
                          f"points: epsilons={numbers_text(self.epsilons, 48)}, "
                          f"delta={numbers_text(self.upper, 64)}")

    def _repr_html_(self) -> str:
        """The profile drawn by :func:`~mechdesign.plotting.plot_privacy_profile` (a table
        of its points when matplotlib is not installed)."""
        return wrap(figure_html(lambda: _plot_profile(self), self._table,
                                f"privacy profile of {self.k}-fold composition"))

    def _table(self) -> str:
        columns = [("epsilon", self.epsilons), ("delta", self.upper)]
        if not self.exact:
            columns = [columns[0], ("delta lower", self.lower), ("delta upper", self.upper)]
        return series_table(columns, f"PrivacyProfile of {self.k}-fold composition")


def _plot_profile(profile: Composition | PrivacyProfile) -> Any:
    """:func:`~mechdesign.plotting.plot_privacy_profile` (imports matplotlib)."""
    from ..plotting.profile import plot_privacy_profile
    return plot_privacy_profile(profile)


class Composition:
    r"""The composed privacy-loss distributions of a composition, computed once and queried
    many times (:meth:`delta`, :meth:`epsilon`, :meth:`profile`). Build it with
    :func:`compose`; the arguments are described there.

    Attributes
    ----------
    k : int
        Number of mechanisms composed (list length times the repetition count).
    exact : bool
        True when every pair was composed exactly from its atoms.
    n_pairs : int
        Distinct pair distributions (ordered input pairs with identical atoms count once).
    """

    def __init__(self, brackets: list[tuple[tuple[int, int], LossBracket]], k: int) -> None:
        self._brackets = brackets
        self.k = k
        self.n_pairs = len(brackets)
        self.exact = all(b.exact for _, b in brackets)
        grids = [b.grid for _, b in brackets if b.grid is not None]
        self.grid_step = max(grids) if grids else None

    def __repr__(self) -> str:
        kind = "exact" if self.exact else f"grid step {number(self.grid_step)}"
        return f"<Composition k={self.k}, {self.n_pairs} pair distribution(s), {kind}>"

    def _repr_html_(self) -> str:
        """The privacy profile drawn by :func:`~mechdesign.plotting.plot_privacy_profile`
        (a table of the composition when matplotlib is not installed)."""
        def table() -> str:
            return kv_table([
                ("k (mechanisms composed)", str(self.k)), ("exact", str(self.exact)),
                ("pair distributions", str(self.n_pairs)),
                ("grid step", None if self.grid_step is None else number(self.grid_step)),
                ("delta at epsilon = 0", number(self.delta(0.0).delta))], "Composition")

        return wrap(figure_html(lambda: _plot_profile(self), table,
                                f"privacy profile of {self.k}-fold composition"))

    def _result(self, given: float, solve: Literal["delta", "epsilon"]) -> CompositionResult:
        best = None
        lower_max = -math.inf
        for pair, br in self._brackets:
            lo, up = br.delta(given) if solve == "delta" else br.epsilon(given)
            lower_max = max(lower_max, lo)
            if best is None or up > best[0]:
                best = (up, pair, br)
        assert best is not None
        up, pair, br = best
        eps, delta = (given, up) if solve == "delta" else (up, given)
        return CompositionResult(
            epsilon=eps, delta=delta, solved_for=solve, exact=self.exact,
            lower=min(lower_max, up), upper=up,
            reported="exact" if self.exact else "upper",
            method="atoms" if self.exact else "grid", k=self.k, worst_pair=pair,
            n_pairs=self.n_pairs, n_atoms=br.n_atoms, grid_step=self.grid_step)

    def delta(self, epsilon: float) -> CompositionResult:
        """Smallest delta with (epsilon, delta)-LDP (see :func:`delta_composed`)."""
        return self._result(check_epsilon(epsilon, allow_inf=True), "delta")

    def epsilon(self, delta: float) -> CompositionResult:
        """Smallest epsilon with (epsilon, delta)-LDP (see :func:`epsilon_composed`)."""
        return self._result(check_delta(delta), "epsilon")

    def profile(self, epsilons: Any) -> PrivacyProfile:
        """The privacy profile ``delta(eps)`` (max over pairs) at many epsilons.

        ``max_loss`` is the largest finite composed loss: beyond it delta is the mass of the
        infinite losses.
        """
        eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
        if eps.ndim != 1 or np.isnan(eps).any() or (eps < 0).any():
            raise InvalidParameterError(
                f"epsilons must be a 1-D array of values >= 0, got {eps!r}")
        lo = np.zeros(eps.size)
        up = np.zeros(eps.size)
        max_loss = 0.0
        for _, br in self._brackets:
            if br.upper.n_atoms:
                max_loss = max(max_loss, float(br.upper.losses[-1]))
            for i, e in enumerate(eps):
                a, b = br.delta(float(e))
                lo[i] = max(lo[i], a)
                up[i] = max(up[i], b)
        return PrivacyProfile(eps, lo, up, self.exact, self.k, max_loss)


def compose(mechanisms: Any, k: int = 1, *, pairs: Iterable | None = None,
            method: Method = "auto", grid: float = DEFAULT_GRID,
            max_atoms: int = MAX_ATOMS) -> Composition:
    r"""Compose mechanisms on the same input and keep the composed privacy-loss atoms.

    The composition of ``M_1 .. M_r`` (all with the same inputs) maps x to
    ``(M_1(x), .., M_r(x))``, independently; with ``k > 1`` the whole list is used k times.
    For each ordered input pair ``(x, x')`` the privacy-loss atoms of every ``M_i`` are
    convolved exactly (:func:`~mechdesign.accounting.pld.compose_atoms`: in log space,
    infinite losses exactly), or, when a pair has more than ``max_atoms`` composed atoms (or
    the work passes :data:`~mechdesign.accounting.pld.MAX_PAIRS`) and ``method="auto"``,
    on a grid (:func:`~mechdesign.accounting.pld.grid_bracket`) with
    pessimistic and optimistic rounding whose bracket is kept
    (``docs/accounting.md`` s.2). Query the result with
    :meth:`Composition.delta`, :meth:`Composition.epsilon`, :meth:`Composition.profile`.

    Parameters
    ----------
    mechanisms : Mechanism, EvidentialMechanism (over its messages), array, or a list of them
    k : int
        Number of times the (list of) mechanism(s) is used: the returned
        :class:`Composition`'s own ``k`` counts every mechanism composed,
        ``len(mechanisms) * k`` (``compose([a, b], k=5).k == 10``).
    pairs : iterable of (x, x'), optional
        Ordered row-index pairs to consider (default: all ordered pairs). Pairs whose atoms
        coincide (e.g. all pairs of k-RR, or both orders of a symmetric mechanism) are composed
        once: identical atoms give identical compositions.
    method : {"auto", "exact", "grid"}
        ``"exact"`` raises :class:`~mechdesign.errors.SizeLimitError` instead of falling back.
    grid : float
        Grid step of the fallback. When the composed loss range needs more than
        :data:`~mechdesign.accounting.pld.MAX_GRID_BINS` bins it is coarsened to the smallest
        multiple 2, 5, 10, 20, ... of ``grid`` that fits
        (:func:`~mechdesign.accounting.pld.coarsened_step`); the result's ``grid_step`` says
        which step was used.
    max_atoms : int
        Limit of the exact path.
    """
    mechs = _as_mechanism_list(mechanisms)
    k = check_int(k, "k", 1)
    if method not in ("auto", "exact", "grid"):
        raise InvalidParameterError(f"method must be 'auto', 'exact' or 'grid', got {method!r}")
    grid = check_real(grid, "grid")
    if not grid > 0:
        raise InvalidParameterError(f"grid must be > 0, got {grid!r}")
    max_atoms = check_int(max_atoms, "max_atoms", 1)
    brackets = [(pair, _bracket(pair, groups, method, grid, max_atoms))
                for pair, groups in _pair_groups(mechs, k, pairs)]
    return Composition(brackets, k * len(mechs))


def _pair_groups(mechs: list[Mechanism], k: int, pairs: Iterable | None
                 ) -> list[tuple[tuple[int, int], list[tuple[LossAtoms, int]]]]:
    """For each distinct composed distribution, one ordered pair and its ``(atoms, uses)``
    groups (a mechanism used several times, or mechanisms with identical atoms for the pair,
    form one group)."""
    counts = Counter(mechs)
    distinct = list(counts)
    n = distinct[0].n_inputs
    if n < 2:
        raise InvalidMechanismError("a mechanism needs at least 2 inputs to have a privacy loss")
    with np.errstate(divide="ignore"):
        logs = [np.log(m.matrix) for m in distinct]
    by_key: dict[tuple, tuple[tuple[int, int], list[tuple[LossAtoms, int]]]] = {}
    for x, xp in _distinct_pairs(distinct, _check_pairs(pairs, n)):
        merged: dict[tuple, list] = {}
        for m, lg in zip(distinct, logs, strict=True):
            a = LossAtoms.from_log_masses(lg[x], lg[xp],
                                          probabilities=(m.matrix[x], m.matrix[xp]))
            entry = merged.setdefault(a.key(), [a, 0])  # identical atoms: one group
            entry[1] += counts[m] * k
        key = tuple(sorted((kk, v[1]) for kk, v in merged.items()))
        if key not in by_key:
            by_key[key] = ((x, xp), [(a, c) for a, c in merged.values()])
    return list(by_key.values())


def _bracket(pair: tuple[int, int], groups: list[tuple[LossAtoms, int]], method: Method,
             grid: float, max_atoms: int) -> LossBracket:
    """The exact composition of one pair, or its grid bracket (see :func:`compose`)."""
    if method in ("auto", "exact"):
        try:
            return LossBracket.of_atoms(compose_atoms(groups, max_atoms))
        except SizeLimitError as err:
            if method == "exact":
                raise SizeLimitError(
                    f"the exact composition of pair {pair}: {err}; use method='auto' or "
                    "'grid' (a bracket) or raise max_atoms") from None
    return grid_bracket(groups, grid, f"pair {pair}")


def delta_composed(mechanisms: Any, epsilon: float, k: int = 1, *,
                   pairs: Iterable | None = None, method: Method = "auto",
                   grid: float = DEFAULT_GRID, max_atoms: int = MAX_ATOMS
                   ) -> CompositionResult:
    r"""Smallest delta such that the composition is (epsilon, delta)-LDP.

    .. math:: \delta(\varepsilon) = \max_{x \ne x'} H_{e^\varepsilon}\big(
              \textstyle\bigotimes_i M_i(x) \,\big\|\, \bigotimes_i M_i(x')\big)

    exact from the privacy-loss atoms of each ordered pair, or a grid bracket when the atoms
    are too many (``method="auto"``). ``epsilon >= 0`` (``inf`` gives the mass of the
    infinite losses). Other arguments as in :func:`compose`; to ask several questions of the
    same composition, build it once with :func:`compose`.
    """
    eps = check_epsilon(epsilon, allow_inf=True)
    return compose(mechanisms, k, pairs=pairs, method=method, grid=grid,
                   max_atoms=max_atoms).delta(eps)


def epsilon_composed(mechanisms: Any, delta: float, k: int = 1, *,
                     pairs: Iterable | None = None, method: Method = "auto",
                     grid: float = DEFAULT_GRID, max_atoms: int = MAX_ATOMS
                     ) -> CompositionResult:
    r"""Smallest epsilon such that the composition is (epsilon, delta)-LDP (``inf`` if none).

    The maximum over ordered pairs of the smallest ``eps`` with ``delta_pair(eps) <= delta``;
    each is found by a bisection over the atoms (the pieces on which the set of active atoms
    is fixed) and an exact solve on the piece, never by a smoothed approximation. Arguments
    as in :func:`compose`.
    """
    d = check_delta(delta)
    return compose(mechanisms, k, pairs=pairs, method=method, grid=grid,
                   max_atoms=max_atoms).epsilon(d)


def privacy_profile(mechanisms: Any, epsilons: Any, k: int = 1, *,
                    pairs: Iterable | None = None, method: Method = "auto",
                    grid: float = DEFAULT_GRID, max_atoms: int = MAX_ATOMS
                    ) -> PrivacyProfile:
    """The privacy profile ``delta(eps)`` of a composition at many epsilons
    (:meth:`Composition.profile`)."""
    return compose(mechanisms, k, pairs=pairs, method=method, grid=grid,
                   max_atoms=max_atoms).profile(epsilons)


