"""One registry per notion: every facet a notion needs (its measure, exact verifier, design
formulation, file reader) is registered on the notion type, a conformance test walks the
registry, and a new notion is a class plus its registrations with nothing else changed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pytest

from mechdesign.design import DesignProblem
from mechdesign.design.formulations import formulation
from mechdesign.design.objectives import ExpectedLoss
from mechdesign.errors import InvalidParameterError
from mechdesign.io import loads_problem
from mechdesign.privacy import measures, notions
from mechdesign.privacy.notions import (
    FACETS,
    LDP,
    REGISTRY,
    Notion,
    missing_facets,
    notion_facet,
    register,
    register_facet,
)
from mechdesign.privacy.verify import verify_exact


def test_every_built_in_notion_has_every_facet():
    assert set(FACETS) == {"measure", "exact_verifier", "formulation", "file_reader"}
    lacking = {name: missing_facets(cls) for name, cls in REGISTRY.items()}
    assert lacking == {name: () for name in REGISTRY}
    assert set(REGISTRY) == {"ldp", "approx_ldp", "deletion_ldp", "metric", "sldp", "wldp"}


@dataclass(frozen=True)
class HalfLDP(Notion):
    """A toy notion: ``epsilon``-HalfLDP is pure (epsilon / 2)-LDP."""

    epsilon: float
    name: ClassVar[str] = "half_ldp"

    def measure(self, mechanism: Any) -> float:
        return 2.0 * measures.epsilon_ldp(mechanism)

    def describe(self) -> str:
        return f"half LDP, epsilon = {self.epsilon:g}"


@pytest.fixture
def toy_notion():
    """HalfLDP registered as a class plus its registrations, removed afterwards."""
    before = dict(notions._FACETS)
    register(HalfLDP)
    ldp = notion_facet(LDP, "formulation")
    formulation(HalfLDP, lambda n, c, p: ldp.n_nonzeros(LDP(n.epsilon / 2), c, p))(
        lambda n, c, p: ldp.formulate(LDP(n.epsilon / 2), c, p))
    exact = notion_facet(LDP, "exact_verifier")

    def verifier(mechanism, notion, digits, tol):
        return exact(mechanism, LDP(notion.epsilon / 2), digits, tol / 2)

    register_facet(HalfLDP, "exact_verifier", verifier)
    yield HalfLDP
    REGISTRY.pop(HalfLDP.name)
    notions._FACETS.clear()
    notions._FACETS.update(before)


def absolute(k: int) -> np.ndarray:
    i = np.arange(k)
    return np.abs(i[:, None] - i[None, :]).astype(float)


def test_a_toy_notion_is_designable_verifiable_and_readable(toy_notion):
    assert missing_facets(toy_notion) == ()
    res = DesignProblem(toy_notion(2.0), ExpectedLoss(absolute(4))).solve()
    ref = DesignProblem(LDP(1.0), ExpectedLoss(absolute(4))).solve()  # the same program
    assert res.certificate.met and res.status.value == "optimal"
    assert res.value == pytest.approx(ref.value, rel=1e-9)
    assert measures.epsilon_ldp(res.mechanism) <= 1.0
    v = verify_exact(res.mechanism, toy_notion(2.0))
    assert v.holds is True
    assert verify_exact(res.mechanism, toy_notion(1.9)).holds is False
    pf = loads_problem("""
[privacy]
notion = "half_ldp"
epsilon = 2.0

[objective]
kind = "expected_loss"
loss = "absolute"
k = 4
""")
    assert isinstance(pf.problem.privacy, toy_notion)
    assert pf.problem.solve().value == pytest.approx(ref.value, rel=1e-9)


def test_a_missing_facet_is_named_by_the_conformance_check_and_the_error(toy_notion):
    notions._FACETS[toy_notion].pop("exact_verifier")
    assert missing_facets(toy_notion) == ("exact_verifier",)
    with pytest.raises(InvalidParameterError, match="HalfLDP has no exact_verifier"):
        verify_exact(np.eye(2) * 0.5 + 0.25, toy_notion(2.0))
    notions._FACETS[toy_notion].pop("formulation")
    assert missing_facets(toy_notion) == ("exact_verifier", "formulation")
    with pytest.raises(InvalidParameterError, match="HalfLDP has no formulation"):
        DesignProblem(toy_notion(2.0), ExpectedLoss(absolute(3))).solve()


def test_unknown_facets_are_refused():
    with pytest.raises(InvalidParameterError, match="unknown facet"):
        register_facet(LDP, "colour", "blue")
