"""Evidential mechanisms: one mass function over messages (focal sets) per input.

Li et al. 2022 (our sheet ``docs/belief_functions.md``, section 1): for each input x a mass
function ``m_x`` on non-empty subsets of the outputs Y; ``bel_x(E) = sum_{B subset of E} m_x(B)``,
``pl_x(E) = sum_{B meets E} m_x(B)``. Rows are inputs, columns are focal sets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from ._html import matrix_repr, matrix_table, set_text, wrap
from ._subsets import check_event_size, mask_of, plausibility, scatter, zeta_subsets
from ._validation import check_labels, check_stochastic, frozen, is_hashable
from .errors import InvalidMechanismError
from .mechanism import Mechanism

__all__ = [
    "MAX_INT64_MASK_OUTPUTS",
    "EvidentialMechanism",
]


MAX_INT64_MASK_OUTPUTS = 62
"""Up to this many outputs :attr:`EvidentialMechanism.focal_masks` is an int64 array; above
it the masks are Python ints in an object array (any number of outputs)."""


def _as_focal_sets(focal_sets: Iterable) -> tuple[frozenset, ...]:
    if isinstance(focal_sets, str | bytes) or not isinstance(focal_sets, Iterable):
        raise InvalidMechanismError(
            f"focal_sets must be a sequence of collections of output labels, got {focal_sets!r}")
    out = []
    for B in focal_sets:
        if isinstance(B, str | bytes) or not isinstance(B, Iterable):
            raise InvalidMechanismError(
                f"a focal set must be a collection of output labels, got {B!r}")
        labels = list(B)
        for y in labels:
            if not is_hashable(y):
                raise InvalidMechanismError(
                    f"focal set {labels!r} has the unhashable label {y!r} "
                    f"(labels must be hashable: str, int, tuple, ...)")
        fs = frozenset(labels)
        if not fs:
            raise InvalidMechanismError("focal sets must be non-empty, got an empty set")
        out.append(fs)
    if len(set(out)) != len(out):
        raise InvalidMechanismError(f"focal sets must be distinct, got {[set(b) for b in out]}")
    return tuple(out)


class EvidentialMechanism:
    r"""An evidential randomizer: ``masses[x, j] = m_x(focal_sets[j])``.

    Parameters
    ----------
    masses : array_like, shape (k, F)
        Row-stochastic (each row a mass function), validated like a :class:`Mechanism`.
    focal_sets : sequence of collections of output labels, length F
        Distinct, non-empty; stored as frozensets.
    inputs : sequence, optional
        Row labels (default ``0..k-1``).
    outputs : sequence, optional
        The output set Y (default: the union of the focal sets, in order of first appearance).
        Every focal set must be a subset of it.

    Notes
    -----
    ``masses`` and ``focal_masks`` (bit j of ``focal_masks[i]`` is set when ``outputs[j]`` is
    in ``focal_sets[i]``; int64 up to 62 outputs, Python ints above) are read-only: setting
    their ``flags.writeable = True`` raises ``ValueError``. (The int64 masks and the masses
    live in immutable buffers; the object array of Python-int masks is a read-only view whose
    ``.base`` numpy cannot protect the same way.)

    Ordinary mechanisms embed as the evidential mechanisms whose focal sets are singletons
    (:meth:`from_mechanism`); :meth:`to_mechanism` reads an evidential mechanism the other way,
    as an ordinary randomizer whose outputs are the messages (Shafer's semantics).
    """

    def __init__(self, masses: Any, focal_sets: Sequence, inputs: Sequence | None = None,
                 outputs: Sequence | None = None) -> None:
        M = check_stochastic(masses, "masses")
        fsets = _as_focal_sets(focal_sets)
        if len(fsets) != M.shape[1]:
            raise InvalidMechanismError(
                f"masses has {M.shape[1]} columns but {len(fsets)} focal sets were given")
        if outputs is None:
            seen: dict = {}
            for B in fsets:
                for y in sorted(B, key=repr) if len(B) > 1 else B:
                    seen.setdefault(y, None)
            outs = tuple(seen)
        else:
            outs = check_labels(outputs, None, "outputs")
        index = {y: j for j, y in enumerate(outs)}
        for B in fsets:
            extra = [y for y in B if y not in index]
            if extra:
                raise InvalidMechanismError(
                    f"focal set {set(B)!r} has labels {extra!r} outside the outputs {outs!r}")
        masks = [mask_of(index[y] for y in B) for B in fsets]
        if len(outs) <= MAX_INT64_MASK_OUTPUTS:
            mask_array = frozen(np.array(masks, dtype=np.int64))
        else:  # Python ints: any number of outputs (object arrays cannot live in bytes)
            base = np.empty(len(masks), dtype=object)
            base[:] = masks
            base.flags.writeable = False
            mask_array = base.view()  # numpy refuses writeable = True on this view
        d = self.__dict__
        d["masses"] = frozen(M)
        d["focal_sets"] = fsets
        d["inputs"] = check_labels(inputs, M.shape[0], "inputs")
        d["outputs"] = outs
        d["_index"] = index
        d["focal_masks"] = mask_array

    def __reduce__(self) -> tuple:
        # rebuild through __init__ so unpickled or copied arrays are read-only again
        return (type(self), (self.masses, self.focal_sets, self.inputs, self.outputs))

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"EvidentialMechanism is immutable; cannot set {key!r}")

    def __repr__(self) -> str:
        """The exact constructor call when it is short, else the size and the labels."""
        def fset(B: frozenset) -> str:
            return set_text(B, self.outputs)
        return matrix_repr("EvidentialMechanism", self.masses,
                           [("focal_sets", self.focal_sets, fset),
                            ("inputs", self.inputs, repr), ("outputs", self.outputs, repr)],
                           hint=".masses")

    def _repr_html_(self) -> str:
        """The masses as a small shaded table, one column per focal set (notebooks)."""
        columns = [set_text(B, self.outputs, str) for B in self.focal_sets]
        return wrap(matrix_table(self.masses, self.inputs, columns, "EvidentialMechanism",
                                 columns_name="focal sets"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EvidentialMechanism):
            return NotImplemented
        return (self.inputs == other.inputs and self.outputs == other.outputs
                and self.focal_sets == other.focal_sets
                and np.array_equal(self.masses, other.masses))

    def __hash__(self) -> int:
        return hash((self.inputs, self.outputs, self.focal_sets, self.masses.tobytes()))

    @property
    def n_inputs(self) -> int:
        return self.masses.shape[0]

    @property
    def n_outputs(self) -> int:
        return len(self.outputs)

    # ------------------------------------------------------------------ conversions
    @classmethod
    def from_mechanism(cls, mechanism: Mechanism) -> EvidentialMechanism:
        """The Bayesian evidential mechanism with singleton focal sets ``{y}``."""
        return cls(mechanism.matrix, [frozenset([y]) for y in mechanism.outputs],
                   mechanism.inputs, mechanism.outputs)

    def to_mechanism(self) -> Mechanism:
        """The ordinary mechanism whose outputs are the messages (the focal sets)."""
        return Mechanism(self.masses, self.inputs, self.focal_sets)

    @cached_property
    def _messages(self) -> Mechanism:
        """:meth:`to_mechanism`, built once (its exact sampler is then built once too)."""
        return self.to_mechanism()

    def sample(self, x: Any, rng: Any = None) -> Any:
        """Draw one message for each input index in ``x``: the index of a focal set (a column
        of :attr:`masses`), drawn from the row's mass function.

        This is :meth:`Mechanism.sample <mechdesign.mechanism.Mechanism.sample>` of
        :meth:`to_mechanism` (``rng=None``: exact draws from the operating system's secure
        source, the same work for every input; an int seed or a numpy Generator: reproducible
        draws for experiments); ``focal_sets[i]`` is the message of index ``i``.
        """
        return self._messages.sample(x, rng)

    @property
    def is_bayesian(self) -> bool:
        """True when every focal set that carries mass in some row is a singleton."""
        carried = (self.masses > 0).any(axis=0)
        return all(len(B) == 1 for B, c in zip(self.focal_sets, carried, strict=True) if c)

    def as_bayesian_mechanism(self) -> Mechanism:
        """For a Bayesian evidential mechanism, the ordinary mechanism over the outputs."""
        if not self.is_bayesian:
            raise InvalidMechanismError("mechanism has non-singleton focal sets with mass")
        Q = np.zeros((self.n_inputs, self.n_outputs))
        for j, B in enumerate(self.focal_sets):
            if len(B) == 1:
                (y,) = B
                Q[:, self._index[y]] += self.masses[:, j]
        return Mechanism(Q, self.inputs, self.outputs)

    # ------------------------------------------------------------------ belief functions
    def _event_mask(self, event: Iterable) -> int:
        labels = list(event)
        missing = [y for y in labels if y not in self._index]
        if missing:
            raise InvalidMechanismError(
                f"event labels {missing!r} are not outputs {self.outputs!r}")
        return mask_of(self._index[y] for y in labels)

    def bel(self, event: Iterable) -> np.ndarray:
        """``bel_x(E) = sum_{B subset of E} m_x(B)`` for every input x (Li et al. 2022, s.1)."""
        E = self._event_mask(event)
        return self.masses[:, (self.focal_masks & ~E) == 0].sum(axis=1)

    def pl(self, event: Iterable) -> np.ndarray:
        """``pl_x(E) = sum_{B meets E} m_x(B)`` for every input x (Li et al. 2022, s.1)."""
        E = self._event_mask(event)
        return self.masses[:, (self.focal_masks & E) != 0].sum(axis=1)

    def mass_by_event(self) -> np.ndarray:
        """Masses scattered over all ``2^m`` events (column E is the bitmask of an event)."""
        check_event_size(self.n_outputs)
        return scatter(self.masses, self.focal_masks, self.n_outputs)

    def bel_matrix(self) -> np.ndarray:
        """``(k, 2^m)`` beliefs of every event; column E is the bitmask over :attr:`outputs`.

        Fast zeta transform; raises :class:`~mechdesign.errors.SizeLimitError` above 16 outputs.
        """
        return zeta_subsets(self.mass_by_event(), self.n_outputs)

    def pl_matrix(self) -> np.ndarray:
        """``(k, 2^m)`` plausibilities of every event, summed without subtraction."""
        return plausibility(self.mass_by_event(), self.n_outputs)

    def event(self, mask: int) -> frozenset:
        """The event (set of output labels) of a column index of the bel/pl matrices."""
        return frozenset(y for j, y in enumerate(self.outputs) if mask >> j & 1)

    # ------------------------------------------------------------------ algebra
    def product(self, other: EvidentialMechanism | Mechanism) -> EvidentialMechanism:
        """Composition ``Q1 x Q2``: ``m_(x1,x2)(B1 x B2) = m1_x1(B1) m2_x2(B2)`` (rectangles)."""
        if isinstance(other, Mechanism):
            other = EvidentialMechanism.from_mechanism(other)
        if not isinstance(other, EvidentialMechanism):
            raise InvalidMechanismError(f"product needs a mechanism, got {type(other).__name__}")
        fsets = [frozenset((a, b) for a in B1 for b in B2)
                 for B1 in self.focal_sets for B2 in other.focal_sets]
        return EvidentialMechanism(
            np.kron(self.masses, other.masses), fsets,
            [(a, b) for a in self.inputs for b in other.inputs],
            [(a, b) for a in self.outputs for b in other.outputs])

    def then(self, f: Mapping | Callable) -> EvidentialMechanism:
        """Post-processing by a data-independent map ``f: Y -> Z``.

        ``m^{f o Q}_x(C) = sum_{B : f(B) = C} m_x(B)`` (Li et al. 2022, section 1).
        """
        fn = f.__getitem__ if isinstance(f, Mapping) else f
        try:
            images = [frozenset(fn(y) for y in B) for B in self.focal_sets]
            new_outputs = list(dict.fromkeys(fn(y) for y in self.outputs))
        except (KeyError, TypeError) as exc:
            raise InvalidMechanismError(
                f"post-processing map failed on an output: {exc!r}") from None
        order = list(dict.fromkeys(images))
        col = {C: i for i, C in enumerate(order)}
        M = np.zeros((self.n_inputs, len(order)))
        for j, C in enumerate(images):
            M[:, col[C]] += self.masses[:, j]
        return EvidentialMechanism(M, order, self.inputs, new_outputs)

    def to_dict(self) -> dict:
        """A JSON-ready dict (read back by :func:`mechdesign.io.matrices.mechanism_from_dict`)."""
        return {"kind": "evidential", "inputs": list(self.inputs), "outputs": list(self.outputs),
                "focal_sets": [sorted(B, key=self.outputs.index) for B in self.focal_sets],
                "masses": self.masses.tolist()}
