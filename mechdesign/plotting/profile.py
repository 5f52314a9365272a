r"""The privacy profile ``delta(eps)`` of a composition, on a log scale, with the optimal
composition bound of Kairouz, Oh and Viswanath (2015) for comparison.

Object-oriented matplotlib only (no pyplot, no global backend switch):
:func:`plot_privacy_profile` returns a :class:`matplotlib.figure.Figure`, and
``fig.savefig("p.png")`` renders with Agg.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from ..accounting import Composition, PrivacyProfile, optimal_composition_delta
from ..errors import InvalidParameterError

__all__ = [
    "PROFILE_FLOOR",
    "PROFILE_POINTS",
    "plot_privacy_profile",
    "profile_epsilons",
]

PROFILE_POINTS = 256
"""Epsilons at which the profile of a :class:`~mechdesign.accounting.Composition` is drawn."""

PROFILE_FLOOR = 1e-15
"""The profile of a composition is drawn from epsilon 0 to 1.1 times the epsilon at which
delta falls to this value (the y axis stops a decade below it)."""

_LOG_FLOOR = 1e-300
"""Zeros are drawn at this value on the log axis (below the visible range)."""


def profile_epsilons(composition: Composition, points: int = PROFILE_POINTS,
                     floor: float = PROFILE_FLOOR) -> np.ndarray:
    r"""``points`` epsilons from 0 to 1.1 times the epsilon where the composition's delta
    falls to ``floor`` (its largest finite privacy loss when delta never does, as for a
    mechanism with infinite losses; 1 when that is 0)."""
    reach = composition.epsilon(floor).upper
    top = reach if math.isfinite(reach) else composition.profile([0.0]).max_loss
    if not top > 0:
        top = 1.0
    return np.linspace(0.0, 1.1 * top, points)


def plot_privacy_profile(profile: Composition | PrivacyProfile, *,
                         epsilon0: float | None = None, title: str | None = None,
                         floor: float = PROFILE_FLOOR,
                         marks: Sequence[tuple[float, float]] = ()) -> Figure:
    r"""Draw the privacy profile ``delta(eps)`` of a k-fold composition: the smallest delta
    such that the composition is (eps, delta)-LDP, the hockey-stick divergence
    ``max_{x,x'} E_{e^eps}(P_x || P_x')`` of the composed output distributions
    (``docs/accounting.md``).

    An exact profile is one curve; a grid profile (too many privacy-loss atoms) draws its
    safe upper curve and shades the bracket down to its lower curve. With ``epsilon0`` the
    optimal composition bound for k uses of an ``epsilon0``-LDP mechanism (Kairouz, Oh and
    Viswanath 2015, Thm 3.3; :func:`~mechdesign.accounting.optimal_composition_delta`) is
    drawn dashed: the exact profile lies on or below it.

    Parameters
    ----------
    profile : Composition or PrivacyProfile
        A composition from :func:`mechdesign.accounting.compose` (drawn at
        :func:`profile_epsilons`), or a profile already evaluated on a grid of epsilons
        (:meth:`Composition.profile`, :func:`mechdesign.accounting.privacy_profile`).
    epsilon0 : float, optional
        Pure LDP epsilon of each use, for the comparison bound (skipped when infinite).
    title : str, optional
        Default ``"privacy profile of k-fold composition"``.
    floor : float
        The y axis stops a decade below it (and a composition is drawn up to where its delta
        reaches it).
    marks : sequence of (epsilon, delta)
        Points to mark and label on the curve, such as the answers of
        :meth:`Composition.epsilon` / :meth:`Composition.delta` (``mechdesign compose``
        marks its ``--delta`` and ``--epsilon`` answers).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if isinstance(profile, Composition):
        profile = profile.profile(profile_epsilons(profile, floor=floor))
    if not isinstance(profile, PrivacyProfile):
        raise InvalidParameterError(
            "plot_privacy_profile needs a Composition or a PrivacyProfile, got "
            f"{type(profile).__name__}")
    eps, k = profile.epsilons, profile.k
    fig = Figure(figsize=(6.4, 4.4), layout="constrained")
    ax = fig.add_subplot()
    kind = "exact" if profile.exact else "grid (pessimistic)"
    ax.semilogy(eps, np.maximum(profile.upper, _LOG_FLOOR), lw=1.8,
                label=f"delta(eps), {kind}")
    if not profile.exact:
        ax.fill_between(eps, np.maximum(profile.lower, _LOG_FLOOR),
                        np.maximum(profile.upper, _LOG_FLOOR), alpha=0.3, label="grid bracket")
    if epsilon0 is not None and math.isfinite(epsilon0):
        bound = [optimal_composition_delta(epsilon0, k, float(e)) for e in eps]
        ax.semilogy(eps, np.maximum(bound, _LOG_FLOOR), "--", color="k", lw=1.2,
                    label=f"optimal bound for {epsilon0:.4g}-LDP (KOV)")
    for e, d in marks:
        if math.isfinite(e) and d > 0:
            ax.plot([e], [d], "o", color="C3", ms=5, zorder=4)
            ax.annotate(f"({e:.4g}, {d:.3g})", (e, d), textcoords="offset points",
                        xytext=(6, 6), fontsize=8, color="C3")
    ax.set_ylim(floor / 10, 1.5)
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel(r"$\delta(\varepsilon)$")
    ax.set_title(f"privacy profile of {k}-fold composition" if title is None else title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig
