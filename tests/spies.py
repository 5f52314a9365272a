"""Record the keyword arguments (and the returned figure) of a plotting function that a
command calls: ``drawn = spy_on(monkeypatch, "plot_tradeoff")``, run the command, then
read ``drawn["gaussian_mu"]`` or ``drawn["figure"]``."""

from __future__ import annotations

from typing import Any

import mechdesign.plotting as plotting


def spy_on(monkeypatch: Any, name: str) -> dict:
    drawn: dict = {}
    original = getattr(plotting, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        drawn.clear()
        drawn.update(kwargs)
        drawn["figure"] = original(*args, **kwargs)
        return drawn["figure"]

    monkeypatch.setattr(plotting, name, spy)
    return drawn
