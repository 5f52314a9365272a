"""Exact references shared by the estimation tests: every count vector, the multinomial pmf
and the moments of the Q_2x3 estimator in rational arithmetic (fractions.Fraction), so that
"unbiased" and "exact variance" are checked as equalities; and the k-ary mechanisms the tests
share."""

from __future__ import annotations

import math
from fractions import Fraction as F

import mechdesign as md


def compositions(n: int, parts: int):
    """Every count vector of ``parts`` non-negative integers summing to n."""
    if parts == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in compositions(n - first, parts - 1):
            yield (first, *rest)


def multinomial_pmf(counts, probs) -> F:
    n = sum(counts)
    coef = math.factorial(n)
    for c in counts:
        coef //= math.factorial(c)
    out = F(coef)
    for c, p in zip(counts, probs, strict=True):
        out *= p ** c
    return out


def exact_A(n: int, c: F) -> F:
    """E[1/M | M > 0], M ~ Bin(n, c), as a fraction (docs/belief_functions.md s.4)."""
    s = sum(F(math.comb(n, k)) * c ** k * (1 - c) ** (n - k) / k for k in range(1, n + 1))
    return s / (1 - (1 - c) ** n)


def dont_know_moments(n: int, p: F, q: F, pi: F) -> tuple[F, F]:
    """Conditional mean and variance of the Q_2x3 MLE given N1 + N2 > 0, by enumeration."""
    q1, q2 = pi * p + (1 - pi) * q, pi * q + (1 - pi) * p
    law = (q1, q2, 1 - p - q)
    mass = mean = second = F(0)
    for counts in compositions(n, 3):
        n1, n2, _ = counts
        if n1 + n2 == 0:
            continue
        w = multinomial_pmf(counts, law)
        est = (p * n1 - q * n2) / ((p - q) * (n1 + n2))
        mass += w
        mean += w * est
        second += w * est * est
    mean /= mass
    return mean, second / mass - mean * mean


MECHS = [
    md.randomized_response(3, 1.0),
    md.Mechanism([[0.5, 0.3, 0.2, 0.0], [0.2, 0.3, 0.1, 0.4], [0.1, 0.1, 0.6, 0.2]]),
    md.dont_know(0.6, 0.2).to_mechanism(),
]
"""Three k-ary mechanisms: square (3-RR), wide (3 x 4), and Q_2x3 read as a 3-output matrix."""
