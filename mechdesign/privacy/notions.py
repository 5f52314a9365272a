r"""Privacy notions as frozen values.

A notion is a value (``LDP(epsilon=1.0)``) that every layer reads the same way: the exact
measures and the exact verifier of this package, the problem-file reader, and the design
layer, which compiles it into constraints (``mechdesign.design.formulations``, one
formulation registered per notion type; the derivations are in ``docs/formulations.md``).
This module is the notion's numpy face:

* :attr:`Notion.name` and :meth:`Notion.from_name`: the vocabulary of problem files, of
  :func:`~mechdesign.privacy.verify.verify_exact` and of the command line;
* :meth:`Notion.measure` / :attr:`Notion.target` / :meth:`Notion.holds`: the notion's
  parameter achieved by a concrete mechanism (by the float measures of
  :mod:`~mechdesign.privacy.measures`) against the target;
* :meth:`Notion.envelope` and :meth:`Notion.neutral_row`: the repairs certification uses
  when a solver's matrix misses the target by solver tolerance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal

import numpy as np

from .._coerce import as_mechanism
from .._validation import check_delta, check_epsilon, check_real
from ..errors import InvalidParameterError
from ..evidential import EvidentialMechanism
from ..mechanism import Mechanism
from ..neighbors import (
    check_graph,
    check_pairs,
    distance_matrix,
    graph_dilation,
    greedy_spanner,
    hop_distances,
    is_graph,
    metric_skeleton,
    neighbour_pairs,
)
from .measures import (
    EPSILON_TOL,
    delta_deletion,
    delta_ldp,
    epsilon_deletion,
    epsilon_ldp,
    epsilon_metric,
    epsilon_sldp,
    epsilon_wldp,
)

__all__ = [
    "FACETS",
    "LDP",
    "NAMES",
    "PROVIDERS",
    "REGISTRY",
    "SLDP",
    "VARIANTS",
    "WLDP",
    "ApproxLDP",
    "DeletionLDP",
    "MetricDP",
    "Notion",
    "Related",
    "as_ordinary",
    "missing_facets",
    "notion_facet",
    "notion_of",
    "ratio_envelope",
    "register",
    "register_facet",
    "register_readable",
]


Edge = tuple[int, int, float]

REGISTRY: dict[str, type[Notion]] = {}
"""Notion classes by :attr:`Notion.name` (filled by :func:`register`)."""


def register(cls: type[Notion]) -> type[Notion]:
    """Class decorator: make ``cls`` known to :meth:`Notion.from_name` under ``cls.name``."""
    REGISTRY[cls.name] = cls
    return cls


# ------------------------------------------------------------------------------ facets
FACETS: dict[str, str] = {
    "measure": "the float measure: the class overrides Notion.measure (this module)",
    "exact_verifier": "the rational-arithmetic check of verify_exact: "
                      "register_facet(Cls, 'exact_verifier', fn) (mechdesign/privacy/verify.py)",
    "formulation": "the design's cvxpy formulation: @formulation(Cls, ...) "
                   "(mechdesign/design/formulations.py)",
    "file_reader": "every parameter readable from a problem file's [privacy] table "
                   "(mechdesign/io/problems.py, READABLE_PARAMETERS)",
    "fuzz_reference": "the fuzz harness's independent reference (naive LP rows, float "
                      "measure): register_facet(Cls, 'fuzz_reference', FuzzReference(...)) "
                      "(mechdesign/testing/reference.py)",
}
"""What a notion needs to be designable, verifiable, readable and fuzz-checked, and where
each is registered. :func:`missing_facets` says which a notion class lacks; a conformance
test walks :data:`REGISTRY` with it."""

_FACETS: dict[type, dict[str, Any]] = {}
_READABLE: set[str] = set()


def register_facet(notion_type: type[Notion], facet: str, value: Any) -> None:
    """Register ``value`` as the ``facet`` (one of :data:`FACETS`) of ``notion_type``."""
    if facet not in FACETS or facet in ("measure", "file_reader"):
        raise InvalidParameterError(
            f"unknown facet {facet!r}; registered facets: exact_verifier, formulation, "
            "fuzz_reference")
    _FACETS.setdefault(notion_type, {})[facet] = value


def register_readable(*parameters: str) -> None:
    """Declare notion parameters a problem file can give (called by the file reader)."""
    _READABLE.update(parameters)


def notion_facet(notion: Notion | type[Notion], facet: str) -> Any:
    """The ``facet`` registered for the notion's class (or its nearest base class); a typed
    error naming the notion, the facet and where it is registered when there is none."""
    cls = notion if isinstance(notion, type) else type(notion)
    for base in cls.__mro__:
        if facet in _FACETS.get(base, {}):
            return _FACETS[base][facet]
    raise InvalidParameterError(
        f"{cls.__name__} has no {facet} registered ({FACETS.get(facet, facet)})")


def missing_facets(notion_type: type[Notion]) -> tuple[str, ...]:
    """The :data:`FACETS` ``notion_type`` lacks (empty: designable, verifiable, readable).
    Registrations happen when their modules are imported (``mechdesign.design``,
    ``mechdesign.io``, ``mechdesign.testing.reference``), which this imports first."""
    import importlib

    for module in ("mechdesign.privacy.verify", "mechdesign.design.formulations",
                   "mechdesign.io.problems", "mechdesign.testing.reference"):
        importlib.import_module(module)
    out = []
    if notion_type.measure is Notion.measure:
        out.append("measure")
    for facet in ("exact_verifier", "formulation", "fuzz_reference"):
        if not any(facet in _FACETS.get(b, {}) for b in notion_type.__mro__):
            out.append(facet)
    if not set(notion_type.parameter_names()) <= _READABLE:
        out.append("file_reader")
    return tuple(out)


class Notion:
    """Base class of the privacy notions (frozen dataclasses).

    Subclasses set :attr:`name` (the vocabulary word) and implement :meth:`measure`.
    """

    name: ClassVar[str] = ""
    #: True for the notions over evidential mass matrices (SLDP, WLDP).
    evidential: ClassVar[bool] = False
    #: True when every constraint is a column ratio bound, so the staircase theorem applies.
    staircase: ClassVar[bool] = False

    def __post_init__(self) -> None:
        """Validate the parameters every notion shares: ``epsilon``, and ``delta`` where the
        notion has one (subclasses with more parameters extend this)."""
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))  # type: ignore[attr-defined]
        if "delta" in self.parameter_names():
            object.__setattr__(self, "delta", check_delta(self.delta))  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ vocabulary
    @classmethod
    def from_name(cls, name: str, **parameters: Any) -> Notion:
        """The notion called ``name`` with ``parameters`` (``epsilon``, ``delta``,
        ``distance``, ``spanner``, ``kind``, ``pairs``, ``graph``).

        ``"sldp_mass"``, ``"sldp_pl"`` and ``"sldp_bel"`` are ``SLDP`` with that kind; a
        parameter the notion does not take is refused with its name.
        """
        if not isinstance(name, str):
            raise InvalidParameterError(f"a notion name must be a string, got {name!r}")
        key = name.strip().lower().replace("-", "_")
        if key.startswith("sldp_") and "kind" not in parameters:
            key, parameters = "sldp", {**parameters, "kind": key[len("sldp_"):]}
        if key not in REGISTRY and key in PROVIDERS:
            import importlib

            importlib.import_module(PROVIDERS[key])
        if key not in REGISTRY:
            raise InvalidParameterError(
                f"unknown notion {name!r}; expected one of {', '.join(NAMES)}")
        notion_cls = REGISTRY[key]
        allowed = notion_cls.parameter_names()
        given = {k: v for k, v in parameters.items() if v is not None}
        extra = sorted(set(given) - set(allowed))
        if extra:
            what = ", ".join(f"{k} = {given[k]!r}" if np.ndim(given[k]) == 0 else k
                             for k in extra)
            raise InvalidParameterError(
                f"{what} does not apply to notion {key!r} (it takes {', '.join(allowed)})")
        if "epsilon" not in given:
            raise InvalidParameterError(f"notion {key!r} needs an epsilon")
        if notion_cls is MetricDP and "distance" not in given:
            raise InvalidParameterError("notion 'metric' needs a distance (matrix or graph)")
        return notion_cls(**given)

    @classmethod
    def parameter_names(cls) -> tuple[str, ...]:
        """The notion's parameters, in order (the dataclass fields)."""
        return tuple(f.name for f in fields(cls))  # type: ignore[arg-type]

    @property
    def variant(self) -> str:
        """The name with its kind, where the notion has one (``"sldp_pl"``)."""
        return self.name

    # ------------------------------------------------------------------ numpy face
    @property
    def target(self) -> float:
        """The notion's target in the units :meth:`measure` returns."""
        return self.epsilon  # type: ignore[attr-defined]

    @property
    def measures_delta(self) -> bool:
        """True when :meth:`measure` and :attr:`target` are a delta (else an epsilon)."""
        return False

    def measure(self, mechanism: Any) -> float:
        """The notion's parameter achieved by ``mechanism`` (epsilon, or delta at the
        target epsilon for the approximate notions)."""
        raise NotImplementedError

    def holds(self, mechanism: Any, tol: float = EPSILON_TOL) -> bool:
        """Does ``mechanism`` meet the notion? An epsilon target: measured value <= target +
        tol. A delta target (:attr:`measures_delta`): measured <= target (1 + tol) plus the
        rounding of the float sum behind it (``m 2^-53`` for m outputs): an absolute
        tolerance of 1e-9 would accept a delta 500 times a target of 1e-12."""
        measured = self.measure(mechanism)
        if self.measures_delta:
            m = as_mechanism(mechanism).n_outputs  # (an evidential one: its messages)
            return measured <= self.target * (1.0 + tol) + m * 2.0**-53
        return measured <= self.target + tol

    def ties_columns(self, inputs: tuple) -> bool:
        """True when every feasible column that is positive on one input is positive on all
        of them (a bounded ratio between every two inputs). Without it a message can be sent
        by some inputs only, and the Fisher information at a prior with zeros on exactly
        those inputs is unbounded (see ``EstimationVariance``). Default: False."""
        return False

    def envelope(self, mechanism: Any, aim: float = 1.0) -> np.ndarray | None:
        """A repair that raises too-small entries to the smallest values the notion allows at
        ``aim`` times its epsilon (None when the notion has none; certification then mixes
        rows instead)."""
        return None

    def neutral_row(self, C: np.ndarray, mechanism: Any) -> np.ndarray:
        """A data-independent row that meets every target of the notion when all rows equal
        it; certification mixes it in. Default: the column means of ``C``."""
        return C.mean(axis=0, keepdims=True)

    def describe(self) -> str:
        """One line for reports: the notion and its parameters."""
        return repr(self)


class Related:
    """The neighbour relation of a notion constrained on pairs of inputs (``pairs`` or
    ``graph``, both None for every pair): validation, the measures' keyword arguments, the
    row-index pairs and the text of reports. Shared by :class:`ApproxLDP` and the notions
    registered by other layers (Rényi LDP)."""

    pairs: tuple | None
    graph: Any

    def check_relation(self) -> None:
        """Refuse both ``pairs`` and ``graph``; normalise ``pairs``; check ``graph``."""
        if self.pairs is not None and self.graph is not None:
            raise InvalidParameterError("give the neighbour relation as pairs or as a graph, "
                                        "not both")
        if self.pairs is not None:
            object.__setattr__(self, "pairs", check_pairs(self.pairs))
        if self.graph is not None:
            check_graph(self.graph)

    @property
    def relation(self) -> dict[str, Any]:
        """The neighbour relation as keyword arguments of the measures and of
        :func:`~mechdesign.privacy.verify.verify_exact` (empty for every pair)."""
        if self.pairs is not None:
            return {"pairs": self.pairs}
        return {} if self.graph is None else {"graph": self.graph}

    def neighbours(self, inputs: Sequence) -> tuple[np.ndarray, np.ndarray] | None:
        """The neighbouring pairs as row indices ``(u, v)``, ``u < v`` (None: every pair);
        see :func:`~mechdesign.neighbors.neighbour_pairs`."""
        return neighbour_pairs(inputs, self.pairs, self.graph)

    def connects(self, inputs: Sequence) -> bool:
        """True when the relation links every two inputs by a path (every pair: True)."""
        relation = self.neighbours(inputs)
        return relation is None or bool(np.isfinite(hop_distances(len(inputs),
                                                                  *relation)).all())

    def relation_repr(self) -> str:
        """``", pairs=..."`` or ``", graph=<...>"`` for a repr ("" for every pair)."""
        if self.pairs is not None:
            return f", pairs={self.pairs!r}"
        if self.graph is not None:
            return (f", graph=<{type(self.graph).__name__} with "
                    f"{self.graph.number_of_nodes()} nodes and "
                    f"{self.graph.number_of_edges()} edges>")
        return ""

    def relation_text(self) -> str:
        """``", on N neighbouring pairs"`` or the graph's edges, for :meth:`describe`."""
        if self.pairs is not None:
            return f", on {len(self.pairs)} neighbouring pairs"
        if self.graph is not None:
            return f", on the {self.graph.number_of_edges()} edges of a graph"
        return ""


@register
@dataclass(frozen=True)
class LDP(Notion):
    r"""Pure eps-LDP: ``Q[x, y] <= e^eps Q[x', y]`` for all inputs x, x' and outputs y
    (Kasiviswanathan et al. 2011; Duchi, Jordan, Wainwright 2013)."""

    epsilon: float
    name: ClassVar[str] = "ldp"
    staircase: ClassVar[bool] = True

    def measure(self, mechanism: Any) -> float:
        return epsilon_ldp(mechanism)

    def ties_columns(self, inputs: tuple) -> bool:
        return True

    def envelope(self, mechanism: Any, aim: float = 1.0) -> np.ndarray:
        # ratio_envelope with log_factor = aim eps (1 - I): every row is raised to
        # e^{-aim eps} times its column's maximum (the z = x term never binds), in O(k m)
        # instead of O(k^2 m) (which dominated the k-RR design at k = 3000:
        # benchmarks/README.md, "Pure LDP at large k")
        Q = as_ordinary(mechanism).matrix
        return np.maximum(Q, np.exp(-aim * self.epsilon) * Q.max(axis=0)[None, :])

    def describe(self) -> str:
        return f"LDP, epsilon = {self.epsilon:g}"


@register
@dataclass(frozen=True)
class ApproxLDP(Related, Notion):
    r"""(eps, delta)-LDP: ``sum_y max(0, Q[x, y] - e^eps Q[x', y]) <= delta`` for x != x',
    or only for the neighbouring inputs ``x ~ x'`` of a relation (both orders; Huang &
    Canonne, Def. 2.1).

    With ``delta = 0`` this is :class:`LDP` (on the relation), and it is measured and
    certified as pure LDP (:meth:`measure` returns the achieved epsilon, so that a matrix
    above the epsilon is never certified on a tiny delta); otherwise :meth:`measure` returns
    the achieved delta at the target epsilon.

    ``pairs`` (pairs of input labels or row indices, ordered or not) or ``graph`` (a
    networkx graph on the input labels, its edges the pairs) give the relation; the default
    (both None) is every pair of inputs. The pairs are read against the inputs by
    :func:`~mechdesign.neighbors.neighbour_pairs`. Only neighbours are constrained; two
    inputs at distance 2 in the relation get what chaining gives (group privacy,
    ``(2 eps, (1 + e^eps) delta)``), nothing more.
    """

    epsilon: float
    delta: float
    pairs: tuple | None = None
    graph: Any = field(default=None, repr=False)
    name: ClassVar[str] = "approx_ldp"

    def __post_init__(self) -> None:
        super().__post_init__()
        self.check_relation()

    @property
    def target(self) -> float:
        return self.delta if self.delta > 0 else self.epsilon

    @property
    def measures_delta(self) -> bool:
        return self.delta > 0

    def ties_columns(self, inputs: tuple) -> bool:
        return self.delta == 0.0 and self.connects(inputs)

    def measure(self, mechanism: Any) -> float:
        if self.delta == 0.0:
            return epsilon_ldp(mechanism, **self.relation)
        return delta_ldp(mechanism, self.epsilon, **self.relation)

    def envelope(self, mechanism: Any, aim: float = 1.0) -> np.ndarray | None:
        if self.delta > 0.0:
            return None
        m = as_ordinary(mechanism)
        relation = self.neighbours(m.inputs)
        if relation is None:
            return LDP(self.epsilon).envelope(m, aim)
        # E[x] >= Q[z] e^{-eps h(z, x)} with h the number of hops: neighbours' ratios are
        # then at most e^eps (disconnected inputs: e^-inf = 0, unconstrained)
        H = hop_distances(m.n_inputs, *relation)
        with np.errstate(invalid="ignore"):
            return ratio_envelope(m.matrix, np.where(np.isfinite(H), aim * self.epsilon * H,
                                                     np.inf))

    def __repr__(self) -> str:
        return f"ApproxLDP(epsilon={self.epsilon!r}, delta={self.delta!r}{self.relation_repr()})"

    def describe(self) -> str:
        return (f"approximate LDP, epsilon = {self.epsilon:g}, delta = {self.delta:g}"
                + self.relation_text())


@register
@dataclass(frozen=True)
class DeletionLDP(Notion):
    r"""Deletion (eps, delta)-LDP (Huang & Canonne 2023, Def. 2.3): a reference distribution
    r with ``sum_y max(0, Q[x, y] - e^eps r_y) <= delta`` and
    ``sum_y max(0, r_y - e^eps Q[x, y]) <= delta`` for every x. :meth:`measure` returns the
    achieved epsilon (delta = 0) or the achieved delta at the target epsilon."""

    epsilon: float
    delta: float = 0.0
    name: ClassVar[str] = "deletion_ldp"

    @property
    def target(self) -> float:
        return self.epsilon if self.delta == 0.0 else self.delta

    @property
    def measures_delta(self) -> bool:
        return self.delta > 0

    def ties_columns(self, inputs: tuple) -> bool:
        return self.delta == 0.0

    def measure(self, mechanism: Any) -> float:
        if self.delta == 0.0:
            return epsilon_deletion(mechanism).epsilon
        return delta_deletion(mechanism, self.epsilon)

    def describe(self) -> str:
        return f"deletion LDP, epsilon = {self.epsilon:g}, delta = {self.delta:g}"


@register
@dataclass(frozen=True)
class MetricDP(Notion):
    r"""Metric privacy: ``Q[x, y] <= e^{eps d(x, x')} Q[x', y]`` (Chatzikokolakis et al.
    2013; on a neighbour graph, privacy for its shortest-path metric).

    ``distance`` is a ``(k, k)`` matrix (read directionally: ``D[x, x']`` bounds
    ``Q[x] / Q[x']``) or a weighted undirected networkx graph on the input labels.
    ``spanner=t`` lets the design constrain only the edges of a greedy t-spanner of the
    metric (at ``eps`` divided by its measured dilation, so every pair still gets
    ``e^{eps d}``; Bordenabe, Chatzikokolakis, Palamidessi 2014).
    """

    epsilon: float
    distance: Any = field(compare=False, repr=False)
    spanner: float | None = None
    name: ClassVar[str] = "metric"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.spanner is not None:
            s = check_real(self.spanner, "spanner")
            if s < 1:
                raise InvalidParameterError(f"spanner stretch must be >= 1, got {s!r}")
            object.__setattr__(self, "spanner", s)

    def distances(self, inputs: Sequence) -> np.ndarray:
        """The ``(k, k)`` distance matrix between ``inputs`` (validated)."""
        return distance_matrix(self.distance, inputs)

    def edges(self, inputs: Sequence) -> tuple[list[Edge], float]:
        """The pairs a design constrains, ``(x, x', d)`` with ``d = D[x, x']`` (one per
        unordered pair), and the divisor of epsilon (the spanner's dilation, else 1).

        * A graph: its edges (exact: ``d`` is its shortest-path metric and chaining the edge
          constraints along a shortest path gives every pair).
        * A matrix: every pair at finite distance with no third point between them
          (:func:`~mechdesign.neighbors.metric_skeleton`, exact by chaining).
        * ``spanner=t``: the edges of a greedy t-spanner of ``min(D, D^T)`` (which bounds both
          directions from below, so the guarantee holds for an asymmetric ``D`` too).
        """
        D = self.distances(inputs)
        if is_graph(self.distance):
            index = {x: i for i, x in enumerate(inputs)}
            es = [(index[u], index[v], float(w)) for u, v, w in
                  self.distance.edges(data="weight", default=1.0) if u in index and v in index]
            return es, 1.0
        if self.spanner is not None:
            return greedy_spanner(np.minimum(D, D.T), self.spanner)
        return metric_skeleton(D), 1.0

    def dilation(self, inputs: Sequence, edges: Sequence[Edge]) -> float:
        """The dilation of ``edges`` as a spanner of this metric (1 unless ``spanner``)."""
        if self.spanner is None:
            return 1.0
        D = self.distances(inputs)
        return graph_dilation(np.minimum(D, D.T), edges)

    def directed_pairs(self, inputs: Sequence, edges: Sequence[Edge], dilation: float
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(a, b, d)``: the bounds ``Q[a_i] <= e^{eps d_i} Q[b_i]`` for both directions of
        every pair in ``edges``, ``d`` divided by ``dilation``. The reverse direction of a
        skeleton pair takes its own distance ``D[x', x]``; graph and spanner edges are
        symmetric. Directions at infinite distance are left out."""
        u = np.array([e[0] for e in edges], dtype=int)
        v = np.array([e[1] for e in edges], dtype=int)
        w = np.array([e[2] for e in edges], dtype=float)
        back = w
        if not is_graph(self.distance) and self.spanner is None and len(edges):
            back = self.distances(inputs)[v, u]
        a, b = np.concatenate([u, v]), np.concatenate([v, u])
        d = np.concatenate([w, back]) / dilation
        finite = np.isfinite(d)
        return a[finite], b[finite], d[finite]

    def measure(self, mechanism: Any) -> float:
        return epsilon_metric(mechanism, self.distance)

    def ties_columns(self, inputs: tuple) -> bool:
        return bool(np.isfinite(self.distances(inputs)).all())

    def envelope(self, mechanism: Any, aim: float = 1.0) -> np.ndarray:
        m = as_ordinary(mechanism)
        D = self.distances(m.inputs)
        eps = aim * self.epsilon
        # E[x] >= Q[z] e^{-eps d(z, x)}: the factor of row x from row z is D[z, x] (the
        # transpose matters for an asymmetric distance)
        with np.errstate(invalid="ignore"):
            return ratio_envelope(m.matrix, np.where(np.isfinite(D.T), eps * D.T, np.inf))

    def describe(self) -> str:
        out = f"metric privacy, epsilon = {self.epsilon:g} per unit of distance"
        return out + (f", greedy {self.spanner:g}-spanner" if self.spanner else "")


@register
@dataclass(frozen=True)
class SLDP(Notion):
    r"""Shafer LDP over evidential masses (Li et al. 2022, Def. 3.1): ``kind="mass"``:
    ``m_x(B) <= e^eps m_x'(B)`` for every message B; ``"pl"``/``"bel"``: the same for the
    plausibility/belief of every event. Designs an
    :class:`~mechdesign.evidential.EvidentialMechanism`."""

    epsilon: float
    kind: Literal["mass", "pl", "bel"] = "mass"
    name: ClassVar[str] = "sldp"
    evidential: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.kind not in ("mass", "pl", "bel"):
            raise InvalidParameterError(f"kind must be 'mass', 'pl' or 'bel', got {self.kind!r}")

    @property
    def staircase(self) -> bool:  # type: ignore[override]
        return self.kind == "mass"

    @property
    def variant(self) -> str:
        return f"sldp_{self.kind}"

    def measure(self, mechanism: Any) -> float:
        return epsilon_sldp(mechanism, self.kind)

    def ties_columns(self, inputs: tuple) -> bool:
        return self.kind == "mass"

    def envelope(self, mechanism: Any, aim: float = 1.0) -> np.ndarray | None:
        if self.kind != "mass":
            return None
        return LDP(self.epsilon).envelope(mechanism, aim)

    def describe(self) -> str:
        return f"SLDP ({self.kind}), epsilon = {self.epsilon:g}"


@register
@dataclass(frozen=True)
class WLDP(Notion):
    r"""Walley LDP (Li et al. 2022, Def. 3.13, Lemma 3.14):
    ``max_x pl_x(E) <= e^eps min_x' bel_x'(E)`` for every event E (x = x' included)."""

    epsilon: float
    name: ClassVar[str] = "wldp"
    evidential: ClassVar[bool] = True

    def measure(self, mechanism: Any) -> float:
        return epsilon_wldp(mechanism)

    def neutral_row(self, C: np.ndarray, mechanism: Any) -> np.ndarray:
        """A Bayesian row: WLDP compares pl_x(E) with bel_x(E) for x = x' too, so a constant
        row with "don't know" mass is not eps-WLDP for small eps. The mean mass of each
        message is spread evenly over the singletons of its outputs (when those messages are
        allowed; otherwise the column means)."""
        fsets = list(mechanism.focal_sets)
        single = {next(iter(B)): j for j, B in enumerate(fsets) if len(B) == 1}
        mean = C.mean(axis=0)
        if not all(y in single for B in fsets for y in B):
            return mean[None, :]
        r = np.zeros_like(mean)
        for j, B in enumerate(fsets):
            for y in B:
                r[single[y]] += mean[j] / len(B)
        return r[None, :]

    def describe(self) -> str:
        return f"WLDP, epsilon = {self.epsilon:g}"


PROVIDERS: dict[str, str] = {
    "renyi_ldp": "mechdesign.accounting.notions",
    "composed": "mechdesign.accounting.notions",
    "shuffled": "mechdesign.accounting.notions",
}
"""Notions whose measure belongs to a layer above this one (the accounting layer's exact
Rényi divergences and composition), by name, with the module that defines and registers
them: :meth:`Notion.from_name` imports it on first use (the way a plug-in is found), so
this module imports nothing from above."""

NAMES: tuple[str, ...] = (*REGISTRY, *PROVIDERS)
"""The notion names :meth:`Notion.from_name` accepts (plus ``sldp_mass/pl/bel``)."""

VARIANTS: tuple[str, ...] = ("ldp", "approx_ldp", "deletion_ldp", "metric", "sldp_mass",
                             "sldp_pl", "sldp_bel", "wldp")
"""Every :attr:`Notion.variant` of this module: the names
:func:`~mechdesign.privacy.verify.verify_exact` accepts with positional parameters (the
notions of :data:`PROVIDERS` are verified as notion objects)."""


def ratio_envelope(Q: np.ndarray, log_factor: np.ndarray) -> np.ndarray:
    r"""``E[x, y] = max_z Q[z, y] e^{-log_factor[x, z]}`` (``log_factor[x, x] = 0``).

    With ``log_factor[x, z] = eps d(z, x)`` for a distance d with the triangle inequality,
    E meets ``E[x, y] <= e^{eps d(x,x')} E[x', y]`` exactly and ``E >= Q``: the least repair
    that only raises entries. Rows then sum to slightly more than 1 and are renormalised by
    the caller.
    """
    E = np.array(Q, dtype=float, copy=True)
    for x in range(Q.shape[0]):
        scale = np.exp(-log_factor[x])[:, None]  # (k, 1); exp(-inf) = 0
        np.maximum(E[x], (Q * scale).max(axis=0), out=E[x])
    return E


def as_ordinary(mechanism: Mechanism | EvidentialMechanism) -> Mechanism:
    """Messages as outputs (the reading every non-evidential measure uses)."""
    if isinstance(mechanism, EvidentialMechanism):
        return mechanism.to_mechanism()
    return mechanism


def notion_of(value: Any, what: str = "privacy") -> Notion:
    """``value`` if it is a :class:`Notion`, else a typed error naming it."""
    if isinstance(value, Notion):
        return value
    raise InvalidParameterError(
        f"{what} must be a notion such as md.LDP(epsilon=1), got {value!r}")

