"""Finite randomizers: the :class:`Mechanism` value.

Convention (both source papers): rows are inputs, columns are outputs,
``Q[x, y] = P(output y | input x)``; the output law under a prior is ``prior @ Q`` and
post-processing by a row-stochastic ``G`` is ``Q @ G``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np

from ._html import matrix_repr, matrix_table, wrap
from ._validation import check_labels, check_stochastic, frozen
from .errors import InvalidMechanismError, InvalidParameterError
from .sampler import ExactSampler

__all__ = [
    "Mechanism",
]


def _generator(rng: Any) -> np.random.Generator:
    """A numpy Generator from a Generator, an int seed or None; a typed error otherwise."""
    if rng is None or isinstance(rng, np.random.Generator) or (
            isinstance(rng, int | np.integer) and not isinstance(rng, bool) and rng >= 0):
        return np.random.default_rng(rng)
    raise InvalidParameterError(
        f"rng must be a numpy Generator, a non-negative int seed or None, got {rng!r}")


class Mechanism:
    r"""A finite randomizer ``Q`` with ``Q[x, y] = P(y | x)``, immutable and validated.

    Parameters
    ----------
    matrix : array_like, shape (k, m)
        Row-stochastic: finite, non-negative, every row summing to 1 within 1e-9. Nothing is
        renormalised; a matrix that fails raises :class:`~mechdesign.errors.InvalidMechanismError`
        naming the entry or row.
    inputs, outputs : sequence of hashable, optional
        Labels of the rows and columns (default ``0..k-1`` and ``0..m-1``).
    name : str
        A display name.

    Notes
    -----
    ``matrix`` is a read-only copy whose memory is an immutable buffer: setting
    ``matrix.flags.writeable = True`` raises ``ValueError`` (on the array, its views and its
    ``.base``), so a Mechanism cannot be changed after validation. Mechanisms compare equal
    when their matrices and labels are equal.
    """

    def __init__(self, matrix: Any, inputs: Sequence | None = None,
                 outputs: Sequence | None = None, name: str = "") -> None:
        Q = frozen(check_stochastic(matrix, "matrix"))
        d = self.__dict__
        d["matrix"] = Q
        d["inputs"] = check_labels(inputs, Q.shape[0], "inputs")
        d["outputs"] = check_labels(outputs, Q.shape[1], "outputs")
        d["name"] = "" if name is None else str(name)

    def __reduce__(self) -> tuple:
        # rebuild through __init__ so an unpickled or copied matrix is frozen again
        return (type(self), (self.matrix, self.inputs, self.outputs, self.name))

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"Mechanism is immutable; cannot set {key!r}")

    # ------------------------------------------------------------------ basic facts
    @property
    def Q(self) -> np.ndarray:
        """The matrix (alias of :attr:`matrix`)."""
        return self.matrix

    @property
    def n_inputs(self) -> int:
        return self.matrix.shape[0]

    @property
    def n_outputs(self) -> int:
        return self.matrix.shape[1]

    @property
    def shape(self) -> tuple[int, int]:
        return self.matrix.shape

    def __repr__(self) -> str:
        """The exact constructor call when it is short, else the size and the labels."""
        return matrix_repr("Mechanism", self.matrix,
                           [("inputs", self.inputs, repr), ("outputs", self.outputs, repr)],
                           self.name)

    def _repr_html_(self) -> str:
        """The matrix as a small shaded table (notebooks)."""
        title = f"Mechanism {self.name}" if self.name else "Mechanism"
        return wrap(matrix_table(self.matrix, self.inputs, self.outputs, title))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mechanism):
            return NotImplemented
        return (self.inputs == other.inputs and self.outputs == other.outputs
                and np.array_equal(self.matrix, other.matrix))

    def __hash__(self) -> int:
        return hash((self.inputs, self.outputs, self.matrix.tobytes()))

    # ------------------------------------------------------------------ algebra
    def then(self, G: Any, outputs: Sequence | None = None) -> Mechanism:
        """Post-processing: the mechanism ``x -> G(Q(x))`` with matrix ``Q @ G``.

        ``G`` is a :class:`Mechanism` whose inputs are this mechanism's outputs, or a
        row-stochastic array of shape ``(n_outputs, z)``. Post-processing never raises any
        privacy loss (data-processing inequality).
        """
        if isinstance(G, Mechanism):
            Gm, outs = G.matrix, (G.outputs if outputs is None else outputs)
        else:
            Gm, outs = check_stochastic(G, "G"), outputs
        if Gm.shape[0] != self.n_outputs:
            raise InvalidMechanismError(
                f"post-processing G has {Gm.shape[0]} rows, expected {self.n_outputs} "
                "(one per output of the mechanism)"
            )
        return Mechanism(self.matrix @ Gm, self.inputs, outs)

    def product(self, other: Mechanism) -> Mechanism:
        """Parallel composition: input ``(x1, x2)`` gives ``(Q1(x1), Q2(x2))`` independently.

        The matrix is the Kronecker product; labels are pairs in row-major order. Pure
        epsilons add: ``eps(Q1 x Q2) = eps(Q1) + eps(Q2)``.
        """
        if not isinstance(other, Mechanism):
            raise InvalidMechanismError(f"product needs a Mechanism, got {type(other).__name__}")
        return Mechanism(
            np.kron(self.matrix, other.matrix),
            [(a, b) for a in self.inputs for b in other.inputs],
            [(a, b) for a in self.outputs for b in other.outputs],
        )

    def to_mechanism(self) -> Mechanism:
        """The mechanism itself (every :class:`~mechdesign.randomizer.Randomizer` has an
        explicit matrix form; a Mechanism is one)."""
        return self

    # ------------------------------------------------------------------ sampling
    def _check_input_indices(self, x: Any) -> np.ndarray:
        arr = np.asarray(x)
        if arr.dtype.kind not in "iu":
            raise InvalidParameterError(f"inputs to sample must be integer row indices, got {x!r}")
        if arr.size and (arr.min() < 0 or arr.max() >= self.n_inputs):
            bad = arr[(arr < 0) | (arr >= self.n_inputs)].flat[0]
            raise InvalidParameterError(
                f"input index {int(bad)} is outside 0..{self.n_inputs - 1}")
        return arr

    @cached_property
    def exact_sampler(self) -> ExactSampler:
        """The deployment sampler of :meth:`sample` (built on first use): exact for the stored
        floats, with the same work and randomness for every row
        (:class:`~mechdesign.sampler.ExactSampler`)."""
        return ExactSampler(self.matrix)

    def sample(self, x: Any, rng: np.random.Generator | int | None = None) -> Any:
        """Draw one output index for each input index in ``x``.

        Parameters
        ----------
        x : int or array_like of int
            Row indices (not labels). The result has the same shape.
        rng : numpy Generator, int seed, or None
            ``None`` (the default, for deployment): draws come from the operating system's
            cryptographically secure source (``os.urandom``) and are EXACT for the matrix as
            stored: every float is a dyadic rational, so the matrix is turned into integer
            weights ``w[x, y] = Q[x, y] 2^K`` at one common scale and an output is chosen by a
            uniform integer below the largest row total (rejection sampling, no rounding).
            Output ``y`` is drawn with probability exactly ``Q[x, y] / sum_y Q[x, y]``, and
            the work and the random bytes of a draw are the same for every input row
            (:class:`~mechdesign.sampler.ExactSampler`): its time does not reveal the input.

            A ``numpy.random.Generator`` or an int seed (for reproducible experiments, NOT for
            deployment): vectorised inverse-CDF sampling with 53-bit float uniforms.
        """
        arr = self._check_input_indices(x)
        if rng is None:
            out = np.array(self.exact_sampler.draw_many(arr.ravel().tolist()), dtype=np.int64)
            return int(out[0]) if arr.ndim == 0 else out.reshape(arr.shape)
        gen = _generator(rng)
        cum = np.cumsum(self.matrix, axis=1)
        u = gen.random(arr.shape) * cum[arr, -1]
        # first column whose cumulative weight exceeds u; zero-probability columns are skipped
        out = (cum[arr] <= u[..., None]).sum(axis=-1)
        out = np.minimum(out, self.n_outputs - 1)
        return int(out) if arr.ndim == 0 else out

    def sample_counts(self, counts: Any, rng: np.random.Generator | int | None = None
                      ) -> np.ndarray:
        """Output counts of a survey: ``counts[..., x]`` respondents hold input ``x``.

        Each input's respondents are answered by one multinomial draw (never a loop over
        respondents); the result has shape ``counts.shape[:-1] + (n_outputs,)``, so a batch of
        surveys is one call. ``rng`` as in numpy (``None`` seeds from the OS); this is a
        simulation tool, use :meth:`sample` for deployment.
        """
        c = np.asarray(counts)
        if c.dtype.kind not in "iu" or c.ndim < 1 or c.shape[-1] != self.n_inputs:
            raise InvalidParameterError(
                f"counts must be integers with last axis of length {self.n_inputs}, "
                f"got dtype {c.dtype} and shape {c.shape}")
        if (c < 0).any():
            raise InvalidParameterError(f"counts must be >= 0, got {c[c < 0].flat[0]}")
        gen = _generator(rng)
        pvals = self.matrix / self.matrix.sum(axis=1, keepdims=True)
        return gen.multinomial(c, pvals).sum(axis=-2)

    # ------------------------------------------------------------------ interchange
    def to_dict(self) -> dict:
        """A JSON-ready dict (read back by :func:`mechdesign.io.matrices.mechanism_from_dict`)."""
        return {"kind": "mechanism", "name": self.name, "inputs": list(self.inputs),
                "outputs": list(self.outputs), "matrix": self.matrix.tolist()}
