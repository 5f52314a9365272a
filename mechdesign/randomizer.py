r"""The one protocol every randomizer of mechdesign implements.

Three kinds of value randomize a respondent's input ``x`` in ``0..k-1``:

* :class:`~mechdesign.mechanism.Mechanism`: an explicit matrix ``Q[x, y] = P(y | x)``;
* :class:`~mechdesign.evidential.EvidentialMechanism`: one mass function per input over
  focal sets (its messages);
* :class:`~mechdesign.oracles.base.FrequencyOracle` (k-RR, unary encodings, subset
  selection, Hadamard response, local hashing): a structured mechanism whose matrix can be
  far too large to build (``k x 2^64 g`` for local hashing).

All three are *finite randomizers*, a Markov kernel from ``n_inputs`` inputs to
``n_outputs`` outputs (Kairouz, Oh, Viswanath, "Extremal mechanisms for local differential
privacy", JMLR 2016, s.2: a mechanism is the conditional law ``Q(y | x)``), and they share
what :class:`Randomizer` lists: their sizes, drawing reports, and the explicit matrix when
it can be built. Analyzers (:func:`~mechdesign.privacy.epsilon_ldp`,
:func:`~mechdesign.privacy.delta_ldp`, :func:`~mechdesign.privacy.privacy_report`) and
:func:`~mechdesign.oracles.survey.estimate` accept any randomizer; a frequency oracle is
measured from its closed form without building its matrix.

>>> import mechdesign as md
>>> isinstance(md.oracles.LocalHashing(1000, 1.0), md.Randomizer)
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover
    from fractions import Fraction

    from .mechanism import Mechanism


@runtime_checkable
class Randomizer(Protocol):
    r"""A finite randomizer: a Markov kernel ``Q(y | x)`` from ``n_inputs`` inputs to
    ``n_outputs`` outputs.

    Attributes
    ----------
    n_inputs : int
        Number of inputs (rows; a frequency oracle's ``k``).
    n_outputs : int
        Size of the output set (a matrix's columns; an evidential mechanism's outputs Y,
        whose subsets are its messages; a frequency oracle's distinct reports, possibly
        astronomically many).

    Methods
    -------
    sample(x, rng=None)
        One report per input index in ``x``: an output index (Mechanism), a message index,
        i.e. a column of ``masses`` (EvidentialMechanism), or the oracle's report array.
        ``rng=None`` draws exactly from the operating system's secure source (deployment);
        an int seed or a ``numpy.random.Generator`` gives reproducible draws (experiments).
    to_mechanism()
        The explicit :class:`~mechdesign.mechanism.Mechanism` (itself for a Mechanism; the
        mechanism over the messages for an evidential one; a frequency oracle's matrix,
        :class:`~mechdesign.errors.SizeLimitError` above
        :data:`~mechdesign.oracles.base.MAX_ENTRIES` entries).

    Notes
    -----
    ``isinstance(obj, Randomizer)`` checks that the members exist (a structural check, as
    for every ``typing.Protocol``), not their behaviour; ``tests/test_randomizer.py`` holds
    every implementation of the library to the contract.
    """

    @property
    def n_inputs(self) -> int: ...

    @property
    def n_outputs(self) -> int: ...

    def sample(self, x: Any, rng: Any = None) -> Any: ...

    def to_mechanism(self) -> Mechanism: ...


@runtime_checkable
class ClosedFormPrivacy(Protocol):
    r"""A randomizer that knows its pure and approximate LDP in closed form (every
    :class:`~mechdesign.oracles.base.FrequencyOracle`): the privacy measures read these
    instead of building the matrix.

    Attributes
    ----------
    epsilon_exact : float
        An upper bound, within a few ulps, on the pure-LDP epsilon of the randomizer as
        implemented (its exact probabilities, not the nominal parameters).

    Methods
    -------
    pair_atoms()
        The law of a report under any two distinct inputs ``x != x'``, as pairs
        ``(P_x(G), P_x'(G))`` of exact rationals over groups G of reports with one likelihood
        ratio each (the same for every pair); ``NotImplementedError`` when not known. Then
        ``delta(eps) = sum_G max(0, P_x(G) - e^eps P_x'(G))`` (Huang & Canonne, Def. 2.2).
    """

    @property
    def epsilon_exact(self) -> float: ...

    def pair_atoms(self) -> list[tuple[Fraction, Fraction]]: ...


__all__ = ["ClosedFormPrivacy", "Randomizer"]
