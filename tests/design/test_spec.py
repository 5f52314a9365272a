"""What a method may ask of a design problem (:mod:`mechdesign.design.spec`): the
``ProblemSpec`` protocol.

Pinned: ``DesignProblem`` provides every member the protocol lists, found by walking the
protocol itself (its annotated attributes on an ordinary and an evidential problem; its
methods with every parameter the protocol names, of the same kind and default; its
properties as properties), so a member added to the protocol and not to the problem fails
here; ``over_outputs``, the inner problem of the Walley reduction, keeps the objective, the
labels and the user constraints and drops the focal sets, the Walley semantics and the
symmetry; ``with_privacy`` stays a ``ProblemSpec`` of the same shape.
"""

from __future__ import annotations

import inspect

import pytest

from mechdesign import losses
from mechdesign.design import DesignProblem, EstimationVariance, ExpectedLoss
from mechdesign.design.spec import ProblemSpec
from mechdesign.io.problems import euclidean_grid
from mechdesign.privacy import LDP, WLDP, MetricDP

FLOOR = {"floor": lambda Q: Q[0, 0] >= 0.6}


def _members() -> tuple[list[str], dict[str, object]]:
    """The protocol's annotated attributes and its callables and properties, by name."""
    attributes = list(ProblemSpec.__annotations__)
    functions = {name: value for name, value in vars(ProblemSpec).items()
                 if not name.startswith("_") and (inspect.isfunction(value)
                                                  or isinstance(value, property))}
    return attributes, functions


def _problems() -> list[DesignProblem]:
    D = euclidean_grid(2, 2)
    return [DesignProblem(LDP(1.0), ExpectedLoss(losses.absolute(3)), constraints=FLOOR),
            DesignProblem(WLDP(1.0), EstimationVariance([0.3, 0.7]), inputs=["P", "notP"],
                          outputs=["Yes", "No"], semantics="walley"),
            DesignProblem(MetricDP(1.0, D), ExpectedLoss(D), symmetry=[[1, 0, 3, 2]])]


def test_the_protocol_is_not_empty():
    attributes, functions = _members()
    assert {"privacy", "objective", "constraints", "k", "n", "focal_sets"} <= set(attributes)
    assert {"compile", "feasible_set", "over_outputs", "solve",
            "feasible_by_construction"} <= set(functions)


@pytest.mark.parametrize("problem", _problems(), ids=["ldp", "walley", "symmetric"])
def test_a_design_problem_has_every_attribute_of_the_protocol(problem):
    attributes, _ = _members()
    missing = [name for name in attributes if not hasattr(problem, name)]
    assert not missing, f"DesignProblem lacks the ProblemSpec attributes {missing}"


@pytest.mark.parametrize("name", sorted(_members()[1]))
def test_a_design_problem_has_every_method_of_the_protocol(name):
    wanted = vars(ProblemSpec)[name]
    have = inspect.getattr_static(DesignProblem, name, None)
    assert have is not None, f"DesignProblem lacks ProblemSpec.{name}"
    if isinstance(wanted, property):
        assert isinstance(have, property), f"ProblemSpec.{name} is a property"
        return
    assert inspect.isfunction(have), f"ProblemSpec.{name} is a method"
    ours = inspect.signature(have).parameters
    for param in inspect.signature(wanted).parameters.values():
        assert param.name in ours, f"DesignProblem.{name} lacks the parameter {param.name!r}"
        mine = ours[param.name]
        assert mine.kind == param.kind, (name, param.name)
        assert mine.default == param.default, (name, param.name)


def test_over_outputs_keeps_the_objective_labels_and_constraints():
    problem = DesignProblem(WLDP(1.0), EstimationVariance([0.3, 0.7]), inputs=["P", "notP"],
                            outputs=["Yes", "No"], semantics="walley", constraints=FLOOR)
    assert problem.n == 3 and problem.focal_sets is not None  # messages, "don't know" too
    inner = problem.over_outputs(LDP(1.0))
    assert isinstance(inner, DesignProblem) and isinstance(inner.privacy, LDP)
    assert inner.privacy.epsilon == 1.0
    assert inner.objective is problem.objective
    assert inner.inputs == ("P", "notP") and inner.outputs == ("Yes", "No")
    assert dict(inner.constraints) == dict(problem.constraints)
    assert (inner.k, inner.n) == (2, 2) and inner.outputs_given
    assert inner.focal_sets is None and inner.semantics == "shafer" and inner.symmetry is None
    # the constraint is applied: the inner design meets it
    Q = inner.solve().mechanism.matrix
    assert Q[0, 0] >= 0.6 - 1e-7


def test_with_privacy_is_a_spec_of_the_same_shape():
    D = euclidean_grid(2, 2)
    problem = DesignProblem(MetricDP(1.0, D), ExpectedLoss(D), symmetry=[[1, 0, 3, 2]])
    moved = problem.with_privacy(MetricDP(2.0, D))
    assert moved.privacy.epsilon == 2.0 and problem.privacy.epsilon == 1.0
    for name in ("objective", "k", "n", "inputs", "outputs", "symmetry", "semantics"):
        assert getattr(moved, name) is getattr(problem, name), name
    assert moved.build_context() == problem.build_context()
