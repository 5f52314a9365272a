r"""Named mechanisms from the literature, each validated and returned as a value.

Every constructor checks its parameters and raises
:class:`~mechdesign.errors.InvalidParameterError` naming the offending value.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ._validation import check_epsilon, check_int, check_probability
from .errors import InvalidParameterError, SizeLimitError
from .evidential import EvidentialMechanism
from .mechanism import Mechanism

YES, NO = "Yes", "No"
BINARY_INPUTS = ("P", "notP")

MAX_UNARY_K = 12
"""unary_encoding builds all 2^k bit vectors explicitly: k <= 12 (4096 outputs)."""

MAX_ENTRIES = 10_000_000
"""Largest explicit matrix (inputs x outputs) the catalog builds."""


def warner(p: float) -> Mechanism:
    r"""Warner's randomized response (Warner 1965).

    .. math:: Q_W(p) = \begin{pmatrix} p & 1-p \\ 1-p & p \end{pmatrix}

    Inputs ``("P", "notP")`` (the respondent has the sensitive property or not), outputs
    ``("Yes", "No")``; eps = |ln(p / (1 - p))| (Li et al. 2022, s.4).
    """
    p = check_probability(p, "p")
    return Mechanism([[p, 1 - p], [1 - p, p]], BINARY_INPUTS, (YES, NO), name=f"warner({p:g})")


def randomized_response(k: int, epsilon: float) -> Mechanism:
    r"""k-ary randomized response (Kairouz, Oh, Viswanath 2016).

    .. math:: Q[x, y] = \frac{e^\varepsilon}{e^\varepsilon + k - 1} \text{ if } y = x,
              \quad \frac{1}{e^\varepsilon + k - 1} \text{ otherwise.}

    Exactly eps-LDP; optimal for Hamming loss under a uniform prior.
    """
    k = check_int(k, "k", 2)
    eps = check_epsilon(epsilon)
    # divide by e^eps inside to stay finite at large eps
    off = 1.0 / (math.exp(eps) + k - 1) if eps < 700 else 0.0
    diag = 1.0 / (1.0 + (k - 1) * math.exp(-eps))
    Q = np.full((k, k), off)
    np.fill_diagonal(Q, diag)
    return Mechanism(Q, name=f"randomized_response({k}, {eps:g})")


def dont_know(p: float, q: float) -> EvidentialMechanism:
    r"""The "don't know" mechanism Q_2x3 (Li et al. 2022, s.4):

    .. math:: \begin{array}{c|ccc} & \{Yes\} & \{No\} & \{Yes, No\} \\ \hline
              P & p & q & 1-p-q \\ notP & q & p & 1-p-q \end{array}

    The respondent tells the truth with probability p, lies with probability q and says
    "don't know" otherwise. Needs p, q >= 0 and p + q <= 1 (the paper assumes p > 1/2).
    eps_S = ln(p/q), eps_pl = ln((1-q)/(1-p)), eps_bel = ln(p/q), eps_W = ln((1-q)/q).
    """
    p = check_probability(p, "p")
    q = check_probability(q, "q")
    if p + q > 1 + 1e-12:
        raise InvalidParameterError(f"p + q must be <= 1, got p + q = {p + q!r}")
    d = 1.0 - p - q
    if d < 1e-12:  # p + q = 1 up to rounding (0.7 + 0.3 < 1 in binary): no "don't know"
        d = 0.0
    return EvidentialMechanism([[p, q, d], [q, p, d]],
                               [frozenset([YES]), frozenset([NO]), frozenset([YES, NO])],
                               BINARY_INPUTS, (YES, NO))


def q_lambda(p: float, q: float, lam: float) -> Mechanism:
    r"""Walley's Bayesian completion Q_lambda of Q_2x3 (Li et al. 2022, s.4): the
    "don't know" mass ``d = 1 - p - q`` goes to the truth with probability lambda.

    .. math:: Q_\lambda = \begin{pmatrix} p + \lambda d & q + (1-\lambda) d \\
              q + (1-\lambda) d & p + \lambda d \end{pmatrix}

    ``Q_0 = warner(p)`` and ``Q_1 = warner(1 - q)``.
    """
    dk = dont_know(p, q)  # validates p, q
    lam = check_probability(lam, "lam")
    d = float(dk.masses[0, 2])
    a, b = p + lam * d, q + (1 - lam) * d
    return Mechanism([[a, b], [b, a]], BINARY_INPUTS, (YES, NO),
                     name=f"q_lambda({p:g}, {q:g}, {lam:g})")


def _check_size(rows: int, cols: int, what: str) -> None:
    if rows * cols > MAX_ENTRIES:
        raise SizeLimitError(
            f"{what} would have {rows} x {cols} = {rows * cols} entries; the limit is "
            f"{MAX_ENTRIES}")


def unary_encoding(k: int, epsilon: float, optimized: bool = False) -> Mechanism:
    r"""Unary encoding over all ``2^k`` bit vectors (Wang et al. 2017).

    Input x is one-hot encoded and each bit is reported independently:
    ``P(bit_i = 1) = p`` if ``i = x`` else ``q``.

    * symmetric (RAPPOR-style, ``optimized=False``): ``p = e^{eps/2}/(1 + e^{eps/2})``,
      ``q = 1 - p``;
    * optimized (OUE): ``p = 1/2``, ``q = 1/(1 + e^eps)``.

    Both are exactly eps-LDP. Outputs are tuples of k bits; ``k <= 12`` (:data:`MAX_UNARY_K`).
    """
    k = check_int(k, "k", 2)
    eps = check_epsilon(epsilon)
    if k > MAX_UNARY_K:
        raise SizeLimitError(f"unary_encoding builds 2^k outputs; k = {k} exceeds {MAX_UNARY_K}")
    if optimized:
        p, q = 0.5, 1.0 / (1.0 + math.exp(eps))
    else:
        p = 1.0 / (1.0 + math.exp(-eps / 2))
        q = 1.0 - p
    bits = np.array(list(itertools.product((0, 1), repeat=k)), dtype=float)  # (2^k, k)
    # P(v | x) = prod_i P(v_i | x) = prod_{i != x} q^v_i (1-q)^(1-v_i) * p^v_x (1-p)^(1-v_x)
    base = np.prod(np.where(bits == 1, q, 1 - q), axis=1)  # all bits as "other"
    Q = np.empty((k, len(bits)))
    for x in range(k):
        own = np.where(bits[:, x] == 1, p, 1 - p)
        other = np.where(bits[:, x] == 1, q, 1 - q)
        Q[x] = base / other * own
    outputs = [tuple(int(b) for b in row) for row in bits]
    name = f"unary_encoding({k}, {eps:g}, optimized={optimized})"
    return Mechanism(Q, outputs=outputs, name=name)


def subset_selection(k: int, d: int, epsilon: float) -> Mechanism:
    r"""d-subset selection (Ye & Barg 2018; Wang et al. 2016): report a d-subset of the k
    values, containing the truth with boosted probability.

    .. math:: Q[x, S] = \frac{e^\varepsilon [x \in S] + [x \notin S]}
              {\binom{k-1}{d-1} e^\varepsilon + \binom{k-1}{d}}

    Outputs are the sorted d-tuples; ``1 <= d <= k - 1``. Exactly eps-LDP; with the best d it
    is estimation-optimal under a uniform prior (``reference/design_formulations.md``).
    """
    k = check_int(k, "k", 2)
    d = check_int(d, "d", 1)
    if d > k - 1:
        raise InvalidParameterError(f"d must be <= k - 1 = {k - 1}, got {d}")
    eps = check_epsilon(epsilon)
    n_sets = math.comb(k, d)
    _check_size(k, n_sets, "subset_selection")
    subsets = list(itertools.combinations(range(k), d))
    member = np.zeros((k, n_sets), dtype=bool)
    for j, S in enumerate(subsets):
        member[list(S), j] = True
    # normalise by e^eps to stay finite: weights e^eps -> 1, 1 -> e^-eps
    low = math.exp(-eps)
    z = math.comb(k - 1, d - 1) + math.comb(k - 1, d) * low
    Q = np.where(member, 1.0 / z, low / z)
    return Mechanism(Q, outputs=subsets, name=f"subset_selection({k}, {d}, {eps:g})")


def hadamard_response(k: int, epsilon: float) -> Mechanism:
    r"""Hadamard response (Acharya, Sun, Zhang 2019).

    Let K be the smallest power of two above k and H the K x K Sylvester-Hadamard matrix.
    Input x owns the set ``C_x = {y : H[x + 1, y] = +1}`` (the all-ones row 0 is skipped;
    ``|C_x| = K/2``), and

    .. math:: Q[x, y] = \frac{e^\varepsilon}{(K/2)(e^\varepsilon + 1)} \text{ if } y \in C_x,
              \quad \frac{1}{(K/2)(e^\varepsilon + 1)} \text{ otherwise.}

    Outputs are ``0..K-1``. Exactly eps-LDP.
    """
    k = check_int(k, "k", 2)
    eps = check_epsilon(epsilon)
    K = 1 << k.bit_length()  # smallest power of two > k
    _check_size(k, K, "hadamard_response")
    idx = np.arange(K)
    rows = np.arange(1, k + 1)
    # Sylvester: H[i, j] = (-1)^{popcount(i & j)}
    parity = np.bitwise_count((rows[:, None] & idx[None, :]).astype(np.uint64)) % 2
    hi = 1.0 / ((K / 2) * (1.0 + math.exp(-eps)))
    lo = 1.0 / ((K / 2) * (math.exp(eps) + 1.0)) if eps < 700 else 0.0
    Q = np.where(parity == 0, hi, lo)
    return Mechanism(Q, outputs=range(K), name=f"hadamard_response({k}, {eps:g})")


def truncated_geometric(n: int, epsilon: float) -> Mechanism:
    r"""The truncated geometric mechanism on counts ``0..n-1`` (Ghosh, Roughgarden,
    Sundararajan 2012), with ``alpha = e^-eps``:

    .. math:: Q[x, y] = \frac{1-\alpha}{1+\alpha}\alpha^{|x-y|} \ (0 < y < n-1), \quad
              Q[x, 0] = \frac{\alpha^{x}}{1+\alpha}, \quad
              Q[x, n-1] = \frac{\alpha^{n-1-x}}{1+\alpha}.

    eps-private for inputs at distance 1 (metric privacy with ``|x - x'|``); its pure LDP
    epsilon over all inputs is ``(n - 1) eps``.
    """
    n = check_int(n, "n", 2)
    eps = check_epsilon(epsilon)
    a = math.exp(-eps)
    x = np.arange(n)
    dist = np.abs(x[:, None] - x[None, :])
    Q = (1 - a) / (1 + a) * a ** dist
    Q[:, 0] = a ** x / (1 + a)
    Q[:, n - 1] = a ** (n - 1 - x) / (1 + a)
    return Mechanism(Q, name=f"truncated_geometric({n}, {eps:g})")


def deletion_counterexample(epsilon: float = 0.25, delta: float = 1 / 6) -> Mechanism:
    r"""The randomizer of Huang & Canonne, Lemma 4.2, whose replacement delta at 2 eps is
    ``(e^eps + 1) delta``, not ``2 delta``. At the paper's parameters (eps = 1/4,
    delta = 1/6) it is (eps, delta)-deletion LDP with the uniform reference on {1, 2, 3};
    for other parameters that need not hold (check with ``delta_deletion``):

    .. math:: R(0) = [e^\varepsilon/3,\ e^{-\varepsilon}(1/3 - \delta),\ \text{rest}], \quad
              R(1) = [e^{-\varepsilon}/3,\ e^\varepsilon/3 + \delta,\ \text{rest}].
    """
    eps = check_epsilon(epsilon)
    delta = check_probability(delta, "delta")
    a, b = math.exp(eps), math.exp(-eps)
    r0 = [a / 3, b * (1 / 3 - delta)]
    r1 = [b / 3, a / 3 + delta]
    rows = [[*r0, 1 - sum(r0)], [*r1, 1 - sum(r1)]]
    if min(min(r) for r in rows) < 0:
        raise InvalidParameterError(
            f"epsilon = {eps!r}, delta = {delta!r} give negative probabilities")
    return Mechanism(rows, outputs=(1, 2, 3), name=f"deletion_counterexample({eps:g}, {delta:g})")


CATALOG = {
    "warner": warner,
    "randomized_response": randomized_response,
    "dont_know": dont_know,
    "q_lambda": q_lambda,
    "unary_encoding": unary_encoding,
    "subset_selection": subset_selection,
    "hadamard_response": hadamard_response,
    "truncated_geometric": truncated_geometric,
    "deletion_counterexample": deletion_counterexample,
}
"""Name -> constructor, as used by the CLI and problem files."""
