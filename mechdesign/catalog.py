r"""Named mechanisms from the literature, each validated and returned as a value.

Every constructor checks its parameters and raises
:class:`~mechdesign.errors.InvalidParameterError` naming the offending value.

Never above the nominal epsilon. A constructor with an ``epsilon`` stores a matrix whose exact
privacy (every ratio of two stored floats, read as rationals) is at most its nominal epsilon:
the tight ratios of the formula equal ``e^eps`` exactly, and rounding each entry to nearest
puts about half of them above it (``randomized_response(5, 1e-12)`` stored epsilon
``1.0000334e-12``; ``randomized_response(2, 1.0)`` exceeded 1 by 1e-16). So every such
constructor computes the distinct values of its matrix as a non-increasing sequence and
passes it through one helper, :func:`_at_most_e_eps`, which, when the exact test fails,
lowers the large value to the largest float ``<= e^eps`` times its partner or (where the
small values carry the larger rounding) raises the small one to the smallest float
``>= e^-eps`` times its partner: an ulp or two, decided with rational arithmetic against a
40-digit bracket of ``e^eps``.
The stored epsilon is then within about ``2^-52`` (absolute, one ulp of the ratio) below
the nominal one, and rows still sum to 1 within a few ulps.

Large epsilons. Each constructor computes every entry without cancellation
(``1 - p`` is never formed; logistic values come from :func:`scipy.special.expit` or in log
space) and it refuses an epsilon at which the smallest entry of the exact matrix would not be
a normal double (below ``2^-1022``, about ``2.2e-308``): such an entry underflows to 0 or
loses relative precision, and the returned matrix would not have the guarantee (a zero makes
it non-private). Each docstring gives that largest supported epsilon in closed form, and
:func:`max_epsilon` computes it for given sizes.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from ._exact import exp_bracket, float_down, float_up
from ._validation import check_epsilon, check_int, check_probability
from .errors import InvalidParameterError, SizeLimitError
from .evidential import EvidentialMechanism
from .mechanism import Mechanism

# In source order: the order of the API reference page.
__all__ = [  # noqa: RUF022
    "MAX_UNARY_K",
    "MAX_ENTRIES",
    "TINY",
    "LOG2_TINY",
    "warner",
    "randomized_response",
    "dont_know",
    "q_lambda",
    "unary_encoding",
    "subset_selection",
    "hadamard_response",
    "truncated_geometric",
    "deletion_counterexample",
    "max_epsilon",
    "CATALOG",
]

YES, NO = "Yes", "No"
BINARY_INPUTS = ("P", "notP")

MAX_UNARY_K = 12
"""unary_encoding builds all 2^k bit vectors explicitly: k <= 12 (4096 outputs)."""

MAX_ENTRIES = 10_000_000
"""Largest explicit matrix (inputs x outputs) the catalog builds."""

TINY = float(np.finfo(float).tiny)
"""``2^-1022``: the smallest normal double. Every positive catalog entry is at least this."""

LOG2_TINY = -1022
"""``log2(TINY)``."""


def _refuse_large_epsilon(name: str, eps: float, eps_max: float) -> None:
    """Raise when ``eps`` exceeds the largest epsilon at which ``name`` is representable."""
    if eps > eps_max:
        raise InvalidParameterError(
            f"{name}: epsilon = {eps!r} is too large; its smallest entry would be below "
            f"2^-1022 (not a normal double) and the matrix would not be exactly "
            f"epsilon-private; the largest supported epsilon here is {eps_max!r}")


def _at_most_e_eps(values: Any, epsilon: float, step: int = 1,
                   move: Literal["large", "small"] = "large") -> np.ndarray:
    r"""A non-increasing sequence of entries, rounded where needed so that

    .. math:: v_i \le e^\varepsilon\, v_{i + \mathrm{step}} \quad \text{exactly}

    (as rationals, against a 40-digit :func:`exp_bracket` of ``+-epsilon``, so the test is
    rigorous; the bracket's end is 1 for ``epsilon < 1e-40``). Every catalog constructor with
    an epsilon builds its matrix from such sequences, whose ``step``-apart values are exactly
    the pairs its privacy compares. A pair that fails is repaired by moving one value by an
    ulp or two, in the safe direction:

    * ``move="large"`` (from the tail): ``v_i`` becomes the largest float ``<= e^eps
      v_{i+step}``. Row sums never grow. For formulas whose small entries are as accurate as
      their large ones (randomized response, subset selection, Hadamard response).
    * ``move="small"`` (from the head): ``v_{i+step}`` becomes the smallest float ``>= e^-eps
      v_i``. For formulas whose small entries are ``exp`` of arguments near -700, off by
      ``ulp(700)`` (1e-13) relatively: lowering their large partners instead moved row sums
      by 5.7e-14 (truncated geometric at eps = 141), raising them moves nothing visible.

    Either way the sequence stays non-increasing, so ``v_{i+step} <= e^eps v_i`` holds too.
    """
    out = [float(v) for v in values]
    if move == "large":
        bound = exp_bracket(epsilon, 40)[0]  # <= e^eps
        for i in range(len(out) - step - 1, -1, -1):
            limit = bound * Fraction(out[i + step])
            if Fraction(out[i]) > limit:
                out[i] = float_down(limit)
    else:
        bound = exp_bracket(-epsilon, 40)[1]  # >= e^-eps
        for i in range(len(out) - step):
            limit = bound * Fraction(out[i])
            if Fraction(out[i + step]) < limit:
                out[i + step] = float_up(limit)
    return np.array(out)


def _two_outputs(large: float, small: float, epsilon: float) -> tuple[float, float]:
    """A two-output row ``(large, small)`` of an epsilon-LDP mechanism (``large + small = 1``).

    With ``small >= 1/4`` (``eps <= ln 3`` for randomized response), ``1 - large`` is exact
    (Sterbenz) and a multiple of ``ulp(large) = 2^-53``, at most two ulps of ``small``: the
    row is stored as ``(large, 1 - large)``, summing to exactly 1, with ``large`` lowered ulp
    by ulp until ``large <= e^eps (1 - large)`` exactly. Downstream code that pins a row's
    total to 1 then sees no rounding of it (the 1000-fold trade-off curve of
    ``randomized_response(2, 0.1)`` lost its breakpoints below 1e-29 when the rows summed to
    ``1 - 2^-53``). A smaller ``small`` would lose relative precision in ``1 - large``
    (``ulp(large) / small``), so the pair goes through :func:`_at_most_e_eps` instead. Used
    by every constructor whose matrix has two outputs (``randomized_response(2, eps)``,
    ``subset_selection(2, 1, eps)``, ``truncated_geometric(2, eps)``: the same matrix).
    """
    if small < 0.25:
        out = _at_most_e_eps([large, small], epsilon)
        return float(out[0]), float(out[1])
    bound = exp_bracket(epsilon, 40)[0]  # <= e^eps
    while Fraction(large) > bound * Fraction(1.0 - large):
        large = float(np.nextafter(large, 0.0))
    return large, 1.0 - large


def warner(p: float) -> Mechanism:
    r"""Warner's randomized response (Warner 1965).

    .. math:: Q_W(p) = \begin{pmatrix} p & 1-p \\ 1-p & p \end{pmatrix}

    Inputs ``("P", "notP")`` (the respondent has the sensitive property or not), outputs
    ``("Yes", "No")``; eps = ``|ln(p / (1 - p))|`` (Li et al. 2022, s.4).
    """
    p = check_probability(p, "p")
    return Mechanism([[p, 1 - p], [1 - p, p]], BINARY_INPUTS, (YES, NO), name=f"warner({p:g})")


def randomized_response(k: int, epsilon: float) -> Mechanism:
    r"""k-ary randomized response (Kairouz, Oh, Viswanath 2016).

    .. math:: Q[x, y] = \frac{e^\varepsilon}{e^\varepsilon + k - 1} \text{ if } y = x,
              \quad \frac{1}{e^\varepsilon + k - 1} \text{ otherwise.}

    Exactly eps-LDP; optimal for Hamming loss under a uniform prior.

    Largest supported epsilon (smallest entry ``1/(e^eps + k - 1) >= 2^-1022``):
    ``ln(2^1022 - k + 1)``, which is ``1022 ln 2 = 708.396...`` for every practical k.
    """
    k = check_int(k, "k", 2)
    eps = check_epsilon(epsilon)
    _check_size(k, k, "randomized_response")
    _refuse_large_epsilon("randomized_response", eps, _max_eps_rr(k))
    # divide by e^eps: e^-eps never overflows and both entries are exact to an ulp; then the
    # diagonal is rounded down if needed so that diag <= e^eps off exactly
    low = math.exp(-eps)
    z = 1.0 + (k - 1) * low
    if k == 2:  # rows (diag, 1 - diag), summing to exactly 1
        diag, off = _two_outputs(1.0 / z, low / z, eps)
    else:
        diag, off = _at_most_e_eps([1.0 / z, low / z], eps)
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

    Input x is one-hot encoded and each bit is reported independently,
    ``P(v_i = 1 | x) = p`` if ``i = x`` and ``q`` otherwise, so for a bit vector
    ``v = (v_0, ..., v_{k-1})``

    .. math:: Q[x, v] = p^{v_x} (1-p)^{1-v_x} \prod_{i \ne x} q^{v_i} (1-q)^{1-v_i}.

    * symmetric (RAPPOR-style, ``optimized=False``): ``p = e^{eps/2}/(1 + e^{eps/2})``,
      ``q = 1 - p = 1/(1 + e^{eps/2})``; then
      :math:`Q[x, v] = p^{c} q^{k - c}` with ``c`` the number of bits of v that agree with
      the one-hot code of x;
    * optimized (OUE, ``optimized=True``): ``p = 1/2``, ``q = 1/(1 + e^eps)``; then
      :math:`Q[x, v] = \tfrac12 q^{|v| - v_x} (1-q)^{k - 1 - |v| + v_x}`.

    Both are exactly eps-LDP (worst ratio: bit x on, bit x' off,
    ``(p/q)((1-q)/(1-p)) = e^eps``). Outputs are tuples of k bits, in lexicographic order;
    ``k <= 12`` (:data:`MAX_UNARY_K`). Entries are computed in log space from
    ``log p = log_expit(eps/2)`` etc., never from ``1 - p``.

    Largest supported epsilon (smallest entry ``q^k`` resp. ``q^{k-1}/2`` at least
    ``2^-1022``): symmetric ``2 ln(2^{1022/k} - 1)`` (708.40 for k = 2, 472.26 for k = 3,
    118.07 for k = 12); optimized ``ln(2^{1021/(k-1)} - 1)`` (707.70 for k = 2, 64.34 for
    k = 12).
    """
    k = check_int(k, "k", 2)
    eps = check_epsilon(epsilon)
    if not isinstance(optimized, bool | np.bool_):
        raise InvalidParameterError(
            f"optimized must be True or False, got {optimized!r}")
    optimized = bool(optimized)
    if k > MAX_UNARY_K:
        raise SizeLimitError(f"unary_encoding builds 2^k outputs; k = {k} exceeds {MAX_UNARY_K}")
    _refuse_large_epsilon(f"unary_encoding(optimized={optimized})", eps,
                          _max_eps_unary(k, optimized))
    from scipy.special import log_expit  # loaded on first use

    bits = np.array(list(itertools.product((0, 1), repeat=k)), dtype=bool)  # (2^k, k)
    own = np.eye(k, dtype=bool)  # own[x, i]: bit i is the one-hot bit of input x
    if optimized:
        # own bit: 1/2 either way; other bits: q = expit(-eps) if set, 1 - q = expit(eps).
        # Q[x, v] = value[s] with s = |v| - v_x; column v compares s = |v| - 1 with |v|
        log_q, log_1q = log_expit(-eps), log_expit(eps)
        s = np.arange(k)
        value = _at_most_e_eps(np.exp(-math.log(2.0) + s * log_q + (k - 1 - s) * log_1q), eps,
                               move="small")
        n_set = bits.sum(axis=1)  # |v|
        Q = value[n_set[None, :] - bits.T]  # |v| - v_x, shape (k, 2^k)
    else:
        # every bit agrees with the one-hot code with probability p = expit(eps/2):
        # Q[x, v] = value[c] with c agreeing bits; column v compares c + 1 with c - 1
        log_p, log_q = log_expit(eps / 2), log_expit(-eps / 2)
        c = np.arange(k, -1, -1)  # non-increasing values: c = k first
        value = _at_most_e_eps(np.exp(c * log_p + (k - c) * log_q), eps, step=2,
                               move="small")[::-1]
        agree = (bits[None, :, :] == own[:, None, :]).sum(axis=2)  # (k, 2^k)
        Q = value[agree]
    outputs = [tuple(int(b) for b in row) for row in bits]
    name = f"unary_encoding({k}, {eps:g}, optimized={optimized})"
    return Mechanism(Q, outputs=outputs, name=name)


def subset_selection(k: int, d: int, epsilon: float) -> Mechanism:
    r"""d-subset selection (Ye & Barg 2018; Wang et al. 2016): report a d-subset of the k
    values, containing the truth with boosted probability.

    .. math:: Q[x, S] = \frac{e^\varepsilon [x \in S] + [x \notin S]}
              {\binom{k-1}{d-1} e^\varepsilon + \binom{k-1}{d}}

    Outputs are the sorted d-tuples; ``1 <= d <= k - 1``. Exactly eps-LDP; with the best d it
    is estimation-optimal under a uniform prior (``docs/formulations.md``).

    Largest supported epsilon (smallest entry ``1/(C(k-1,d-1) e^eps + C(k-1,d)) >= 2^-1022``):
    ``ln((2^1022 - C(k-1,d)) / C(k-1,d-1))``, about ``708.396 - ln C(k-1, d-1)``.
    """
    k = check_int(k, "k", 2)
    d = check_int(d, "d", 1)
    if d > k - 1:
        raise InvalidParameterError(f"d must be <= k - 1 = {k - 1}, got {d}")
    eps = check_epsilon(epsilon)
    n_sets = math.comb(k, d)
    _check_size(k, n_sets, "subset_selection")
    _refuse_large_epsilon("subset_selection", eps, _max_eps_subset(k, d))
    subsets = list(itertools.combinations(range(k), d))
    member = np.zeros((k, n_sets), dtype=bool)
    for j, S in enumerate(subsets):
        member[list(S), j] = True
    # normalise by e^eps to stay finite: weights e^eps -> 1, 1 -> e^-eps
    low = math.exp(-eps)
    z = math.comb(k - 1, d - 1) + math.comb(k - 1, d) * low
    if n_sets == 2:  # k = 2, d = 1: randomized response, rows summing to exactly 1
        inside, outside = _two_outputs(1.0 / z, low / z, eps)
    else:
        inside, outside = _at_most_e_eps([1.0 / z, low / z], eps)
    Q = np.where(member, inside, outside)
    return Mechanism(Q, outputs=subsets, name=f"subset_selection({k}, {d}, {eps:g})")


def hadamard_response(k: int, epsilon: float) -> Mechanism:
    r"""Hadamard response (Acharya, Sun, Zhang 2019).

    Let K be the smallest power of two above k and H the K x K Sylvester-Hadamard matrix.
    Input x owns the set ``C_x = {y : H[x + 1, y] = +1}`` (the all-ones row 0 is skipped;
    ``|C_x| = K/2``), and

    .. math:: Q[x, y] = \frac{e^\varepsilon}{(K/2)(e^\varepsilon + 1)} \text{ if } y \in C_x,
              \quad \frac{1}{(K/2)(e^\varepsilon + 1)} \text{ otherwise.}

    Outputs are ``0..K-1``. Exactly eps-LDP.

    Largest supported epsilon (smallest entry ``1/((K/2)(e^eps + 1)) >= 2^-1022``):
    ``ln(2^1023/K - 1)``, i.e. ``708.396 - ln(K/2)`` (707.70 for k = 2, 3).
    """
    k = check_int(k, "k", 2)
    eps = check_epsilon(epsilon)
    K = 1 << k.bit_length()  # smallest power of two > k
    _check_size(k, K, "hadamard_response")
    _refuse_large_epsilon("hadamard_response", eps, _max_eps_hadamard(k))
    idx = np.arange(K)
    rows = np.arange(1, k + 1)
    # Sylvester: H[i, j] = (-1)^{popcount(i & j)}
    parity = np.bitwise_count((rows[:, None] & idx[None, :]).astype(np.uint64)) % 2
    low = math.exp(-eps)  # never overflows; both entries exact to an ulp
    hi, lo = _at_most_e_eps([1.0 / ((K / 2) * (1.0 + low)), low / ((K / 2) * (1.0 + low))], eps)
    Q = np.where(parity == 0, hi, lo)
    return Mechanism(Q, outputs=range(K), name=f"hadamard_response({k}, {eps:g})")


def truncated_geometric(n: int, epsilon: float) -> Mechanism:
    r"""The truncated geometric mechanism on counts ``0..n-1`` (Ghosh, Roughgarden,
    Sundararajan 2012), with ``alpha = e^-eps``:

    .. math:: Q[x, y] = \frac{1-\alpha}{1+\alpha}\alpha^{|x-y|} \ (0 < y < n-1), \quad
              Q[x, 0] = \frac{\alpha^{x}}{1+\alpha}, \quad
              Q[x, n-1] = \frac{\alpha^{n-1-x}}{1+\alpha}.

    eps-private for inputs at distance 1 (metric privacy with ``|x - x'|``); its pure LDP
    epsilon over all inputs is ``(n - 1) eps``. ``1 - alpha`` is computed as
    ``-expm1(-eps)`` and powers of alpha in log space.

    Largest supported epsilon: the largest eps at which every entry is at least ``2^-1022``,
    i.e. the root of ``(n-1) eps + ln(1 + e^-eps) = 1022 ln 2`` (the corner entries
    ``alpha^{n-1}/(1+alpha)``; 708.396 for n = 2, 354.2 for n = 3, about 708.4/(n-1)) when
    ``n <= 1023``; for larger n the interior entries ``(1-alpha)/(1+alpha) alpha^{n-2}`` bind
    and the root is found by bisection (:func:`max_epsilon`). (For a subnormal
    ``0 < eps < 4.5e-308`` the interior entries ``~ eps/2`` are subnormal too; the matrix
    is then numerically eps = 0 private, which is still within the guarantee.)
    """
    n = check_int(n, "n", 2)
    eps = check_epsilon(epsilon)
    _check_size(n, n, "truncated_geometric")
    _refuse_large_epsilon("truncated_geometric", eps, _max_eps_geometric(n))
    x = np.arange(n)
    dist = np.abs(x[:, None] - x[None, :])
    # ln((1 - a) / (1 + a)) with 1 - a = -expm1(-eps); -inf at eps = 0 (interior entries 0)
    with np.errstate(divide="ignore"):
        log_mid = np.log(-np.expm1(-eps)) - np.log1p(math.exp(-eps))
    log_edge = -np.log1p(math.exp(-eps))
    # adjacent rows of a column hold consecutive powers: mid[d] vs mid[d + 1] (interior
    # columns, d <= n - 2) and edge[d] vs edge[d + 1] (first and last column)
    mid = _at_most_e_eps(np.exp(log_mid - eps * np.arange(max(n - 1, 1))), eps, move="small")
    if n == 2:  # randomized response, computed as there (1 / (1 + a), a / (1 + a))
        low = math.exp(-eps)
        edge = np.array(_two_outputs(1.0 / (1.0 + low), low / (1.0 + low), eps))
    else:
        edge = _at_most_e_eps(np.exp(log_edge - eps * x), eps, move="small")
    Q = mid[np.minimum(dist, len(mid) - 1)]
    Q[:, 0] = edge[x]
    Q[:, n - 1] = edge[n - 1 - x]
    return Mechanism(Q, name=f"truncated_geometric({n}, {eps:g})")


def deletion_counterexample(epsilon: float = 0.25, delta: float = 1 / 6) -> Mechanism:
    r"""The randomizer of Huang & Canonne, Lemma 4.2, whose replacement delta at 2 eps is
    ``(e^eps + 1) delta``, not ``2 delta``. At the paper's parameters (eps = 1/4,
    delta = 1/6) it is (eps, delta)-deletion LDP with the uniform reference on {1, 2, 3};
    for other parameters that need not hold (check with ``delta_deletion``):

    .. math:: R(0) = [e^\varepsilon/3,\ e^{-\varepsilon}(1/3 - \delta),\ \text{rest}], \quad
              R(1) = [e^{-\varepsilon}/3,\ e^\varepsilon/3 + \delta,\ \text{rest}].

    The four entries that are tight against the uniform reference (``R(0)[1]``, ``R(1)[1]``
    with slack delta, ``R(0)[0]``, ``R(1)[0]`` with none) are rounded in the safe direction,
    exactly (``e^eps/3`` and ``e^eps/3 + delta`` down, the others up; 40-digit brackets of
    ``e^{+-eps}``), so the stored matrix keeps the guarantee the real one has.
    """
    eps = check_epsilon(epsilon)
    delta = check_probability(delta, "delta")
    if eps > math.log(3.0):  # e^eps / 3 > 1: the first entry alone exceeds 1
        raise InvalidParameterError(
            f"epsilon = {eps!r}, delta = {delta!r} give negative probabilities "
            f"(need epsilon <= ln 3 = {math.log(3.0)!r})")
    up_lo = exp_bracket(eps, 40)[0]      # <= e^eps
    down_hi = exp_bracket(-eps, 40)[1]   # >= e^-eps
    third, d = Fraction(1, 3), Fraction(delta)
    r0 = [float_down(up_lo * third), float_up(down_hi * (third - d))]
    r1 = [float_up(down_hi * third), float_down(up_lo * third + d)]
    rows = [[*r0, 1 - sum(r0)], [*r1, 1 - sum(r1)]]
    if min(min(r) for r in rows) < 0:
        raise InvalidParameterError(
            f"epsilon = {eps!r}, delta = {delta!r} give negative probabilities")
    return Mechanism(rows, outputs=(1, 2, 3), name=f"deletion_counterexample({eps:g}, {delta:g})")


# --------------------------------------------------------------------------- largest epsilons
_LN_TINY_INV = -LOG2_TINY * math.log(2.0)  # 1022 ln 2 = -ln(2^-1022) = 708.396...


def _max_eps_rr(k: int) -> float:
    # 1/(e^eps + k - 1) >= 2^-1022  <=>  e^eps <= 2^1022 - (k - 1)
    return math.log(2.0 ** 1022 - (k - 1))


def _max_eps_hadamard(k: int) -> float:
    # 1/((K/2)(e^eps + 1)) >= 2^-1022  <=>  e^eps <= 2^1023 / K - 1
    K = 1 << k.bit_length()
    return math.log(2.0 ** 1023 / K - 1.0)


def _max_eps_subset(k: int, d: int) -> float:
    # 1/(C(k-1,d-1) e^eps + C(k-1,d)) >= 2^-1022
    return math.log((2.0 ** 1022 - math.comb(k - 1, d)) / math.comb(k - 1, d - 1))


def _max_eps_unary(k: int, optimized: bool) -> float:
    if optimized:  # q^(k-1) / 2 >= 2^-1022 with q = 1/(1 + e^eps)
        return math.log(2.0 ** (1021 / (k - 1)) - 1.0)
    # q^k >= 2^-1022 with q = 1/(1 + e^(eps/2))
    return 2.0 * math.log(2.0 ** (1022 / k) - 1.0)


def _geometric_neglog_min(n: int, eps: float) -> float:
    """``-ln`` of the smallest positive entry of truncated_geometric(n, eps), eps > 0."""
    corner = (n - 1) * eps + math.log1p(math.exp(-eps))
    if n < 3:
        return corner
    interior = (n - 2) * eps - math.log(-math.expm1(-eps)) + math.log1p(math.exp(-eps))
    return max(corner, interior)


def _max_eps_geometric(n: int) -> float:
    # -ln(min entry) is convex in eps (the interior term has second derivative
    # cosh/sinh^2 > 0, the corner term is increasing), far below 1022 ln 2 at eps = 2/n and
    # above it at hi: its sublevel set contains [2/n, eps_max]; bisect for eps_max
    lo, hi = 2.0 / n, _LN_TINY_INV / (n - 1) + 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if _geometric_neglog_min(n, mid) <= _LN_TINY_INV:
            lo = mid
        else:
            hi = mid
    return lo


def max_epsilon(name: str, **params: int | bool) -> float:
    """The largest epsilon the catalog constructor ``name`` accepts for the given sizes.

    Above it, the smallest entry of the exact matrix is below ``2^-1022`` (not a normal
    double) and the constructor raises :class:`~mechdesign.errors.InvalidParameterError`.
    ``params`` are the size parameters: ``k`` (randomized_response, hadamard_response),
    ``k`` and ``optimized`` (unary_encoding), ``k`` and ``d`` (subset_selection), ``n``
    (truncated_geometric). deletion_counterexample needs ``epsilon <= ln 3``.
    """
    try:
        if name == "randomized_response":
            return _max_eps_rr(check_int(params["k"], "k", 2))
        if name == "hadamard_response":
            return _max_eps_hadamard(check_int(params["k"], "k", 2))
        if name == "subset_selection":
            k = check_int(params["k"], "k", 2)
            d = check_int(params["d"], "d", 1)
            if d > k - 1:
                raise InvalidParameterError(f"d must be <= k - 1 = {k - 1}, got {d}")
            return _max_eps_subset(k, d)
        if name == "unary_encoding":
            return _max_eps_unary(check_int(params["k"], "k", 2),
                                  bool(params.get("optimized", False)))
        if name == "truncated_geometric":
            return _max_eps_geometric(check_int(params["n"], "n", 2))
        if name == "deletion_counterexample":
            return math.log(3.0)
    except KeyError as exc:
        raise InvalidParameterError(f"max_epsilon({name!r}) needs parameter {exc}") from None
    raise InvalidParameterError(f"{name!r} is not a catalog constructor with an epsilon")


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
