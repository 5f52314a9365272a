"""One registry per notion: every facet a notion needs (its measure, exact verifier, design
formulation, file reader, fuzz reference) is registered on the notion type, a conformance
test walks the registry, and a new notion is a class plus its registrations with nothing
else changed."""

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
from mechdesign.testing.cases import Built, Case
from mechdesign.testing.fuzz import check_privacy, float_measure
from mechdesign.testing.reference import FuzzReference, fuzz_reference, reference_lp


def test_every_built_in_notion_has_every_facet():
    # the fuzz reference is registered by mechdesign.testing.reference (imported above, and
    # by missing_facets); every built-in notion has one
    assert set(FACETS) == {"measure", "exact_verifier", "formulation", "file_reader",
                           "fuzz_reference"}
    lacking = {name: missing_facets(cls) for name, cls in REGISTRY.items()}
    assert lacking == {name: () for name in REGISTRY}
    assert set(REGISTRY) == {"ldp", "approx_ldp", "deletion_ldp", "metric", "sldp", "wldp",
                             "renyi_ldp", "composed", "shuffled"}


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
    ldp_ref = fuzz_reference(LDP)
    register_facet(HalfLDP, "fuzz_reference", FuzzReference(
        privacy_rows=lambda lp, problem, n, eps, delta: ldp_ref.privacy_rows(
            lp, problem, LDP(n.epsilon / 2), eps / 2, delta),
        float_measure=lambda n, mech: 2.0 * measures.epsilon_ldp(mech)))
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


def test_a_toy_notion_is_checked_by_the_fuzz_harness(toy_notion):
    # the harness's two checks read the toy notion through its fuzz_reference facet: the
    # float and exact checks of a designed matrix, and the naive reference LP, whose optimum
    # is k-RR's (k - 1)/(e^eps + k - 1) at eps = 2 / 2 = 1 (Hamming loss, uniform prior; KOV16)
    H = 1.0 - np.eye(3)
    prob = DesignProblem(toy_notion(2.0), ExpectedLoss(H))
    res = prob.solve()
    chk = check_privacy(toy_notion(2.0), res.mechanism)
    assert chk.category == "verified" and chk.float_ok
    assert float_measure(toy_notion(2.0), res.mechanism) <= 2.0 + 1e-9
    assert check_privacy(toy_notion(1.9), res.mechanism).category == "float_fail"
    ref = reference_lp(Case("half_ldp", "expected_loss", 3, 3, 2.0, 0.0, 0),
                       Built(prob, toy_notion(2.0), 3, H, np.full(3, 1 / 3)))
    assert ref.status == "verified"
    assert ref.value == pytest.approx(2 / (np.e + 2), rel=1e-6)
    assert res.value == pytest.approx(ref.value, rel=1e-6)


def test_a_missing_facet_is_named_by_the_conformance_check_and_the_error(toy_notion):
    notions._FACETS[toy_notion].pop("exact_verifier")
    assert missing_facets(toy_notion) == ("exact_verifier",)
    with pytest.raises(InvalidParameterError, match="HalfLDP has no exact_verifier"):
        verify_exact(np.eye(2) * 0.5 + 0.25, toy_notion(2.0))
    notions._FACETS[toy_notion].pop("formulation")
    assert missing_facets(toy_notion) == ("exact_verifier", "formulation")
    with pytest.raises(InvalidParameterError, match="HalfLDP has no formulation"):
        DesignProblem(toy_notion(2.0), ExpectedLoss(absolute(3))).solve()
    notions._FACETS[toy_notion].pop("fuzz_reference")
    assert missing_facets(toy_notion) == ("exact_verifier", "formulation", "fuzz_reference")
    with pytest.raises(InvalidParameterError, match="HalfLDP has no fuzz_reference"):
        float_measure(toy_notion(2.0), np.eye(2) * 0.5 + 0.25)


def test_unknown_facets_are_refused():
    with pytest.raises(InvalidParameterError, match="unknown facet"):
        register_facet(LDP, "colour", "blue")
