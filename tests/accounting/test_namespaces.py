"""The sub-namespaces of :mod:`mechdesign.accounting` and the renamed subsampling functions.

``mechdesign.accounting`` keeps every name flat; each name is also in exactly one
sub-namespace (``composition``, ``amplification``, ``tradeoff``, ``renyi``,
``calibration``), a module with an explicit ``__all__``. ``subsample``, ``subsampled`` and
``subsampling_privacy`` became ``subsampled_mechanism``, ``subsampling_bound`` and
``exact_subsampling_epsilon``; the old names warn for one release and return the same.
"""

from __future__ import annotations

import importlib
import itertools
import math
import pkgutil
import types

import numpy as np
import pytest

import mechdesign as md
from mechdesign import accounting as acc
from mechdesign.accounting import amplification, exact_subsampling

SUBNAMESPACES = ("composition", "amplification", "tradeoff", "renyi", "calibration")
SUBS = {name: importlib.import_module(f"mechdesign.accounting.{name}")
        for name in SUBNAMESPACES}
RENAMED = {"subsample": "subsampled_mechanism", "subsampled": "subsampling_bound",
           "subsampling_privacy": "exact_subsampling_epsilon"}


def test_the_documented_sub_namespaces():
    assert acc.SUBNAMESPACES == SUBNAMESPACES
    for name, module in SUBS.items():
        assert getattr(acc, name) is module
        assert module.__name__ == f"mechdesign.accounting.{name}"


def test_every_flat_name_is_in_exactly_one_sub_namespace():
    flat = set(acc.__all__)
    for a, b in itertools.combinations(SUBNAMESPACES, 2):
        assert set(SUBS[a].__all__) & set(SUBS[b].__all__) == set(), (a, b)
    listed = set().union(*(set(m.__all__) for m in SUBS.values()))
    assert flat - listed == set()
    # what a sub-namespace has beyond the flat names is its own documented constants
    assert all(n.isupper() for n in listed - flat), sorted(listed - flat)


@pytest.mark.parametrize("sub", SUBNAMESPACES)
def test_sub_namespace_names_are_the_flat_objects(sub):
    module = SUBS[sub]
    for name in module.__all__:
        obj = getattr(module, name)
        if name in acc.__all__:
            assert obj is getattr(acc, name), f"{sub}.{name}"


def test_the_groups():
    # one name per question, spot-checked where the grouping is a choice
    assert acc.composition.basic_composition is acc.basic_composition  # closed-form bounds
    assert acc.composition.privacy_loss_atoms is acc.privacy_loss_atoms  # the engine
    assert acc.composition.sequential_composition is acc.sequential_composition
    assert acc.amplification.exact_shuffle_epsilon is acc.exact_shuffle_epsilon
    assert acc.amplification.subsampled_mechanism is acc.subsampled_mechanism
    assert acc.tradeoff.minimax_test is acc.minimax_test
    assert acc.tradeoff.tradeoff_sldp is acc.tradeoff_sldp
    assert acc.renyi.to_dp_event is acc.to_dp_event
    assert acc.calibration.calibrate is acc.calibrate


def test_flat_namespace_lists_sub_namespaces_but_not_in_all():
    assert set(SUBNAMESPACES) <= set(dir(acc))
    assert set(SUBNAMESPACES).isdisjoint(acc.__all__)
    assert set(RENAMED).isdisjoint(acc.__all__) and set(RENAMED).isdisjoint(dir(acc))
    assert set(RENAMED.values()) <= set(acc.__all__)
    with pytest.raises(AttributeError, match="no attribute 'subsampler'"):
        acc.subsampler  # noqa: B018


@pytest.mark.parametrize(("old", "new"), sorted(RENAMED.items()))
@pytest.mark.parametrize("where", [acc, amplification])
def test_old_name_warns_naming_the_new_one(where, old, new):
    with pytest.warns(DeprecationWarning, match=rf"{old} is deprecated.*use .*\.{new}$"):
        f = getattr(where, old)
    assert f is getattr(acc, new)


@pytest.mark.parametrize(("old", "new"), [("subsample", "subsampled_mechanism"),
                                          ("subsampling_privacy", "exact_subsampling_epsilon")])
def test_old_names_in_their_defining_module_warn(old, new):
    with pytest.warns(DeprecationWarning, match=f"exact_subsampling.{new}"):
        assert getattr(exact_subsampling, old) is getattr(exact_subsampling, new)


def test_old_from_import_warns():
    with pytest.warns(DeprecationWarning, match="subsampling_bound"):
        from mechdesign.accounting import subsampled  # noqa: F401


def test_subsampled_alias_gives_the_bound():
    # Huang & Canonne Thm 6.1: eps' = ln(1 + p (e^eps - 1)), delta' = p delta;
    # eps = 1, p = 0.1: ln(1 + 0.1 (e - 1)) = 0.15860...
    with pytest.warns(DeprecationWarning):
        old = acc.subsampled(1.0, 1e-6, 0.1)
    new = acc.subsampling_bound(1.0, 1e-6, 0.1)
    assert (old.epsilon, old.delta) == (new.epsilon, new.delta)
    assert new.epsilon == pytest.approx(math.log1p(0.1 * math.expm1(1.0)), rel=1e-15)
    assert new.delta == pytest.approx(1e-7, rel=1e-15)


def test_subsample_alias_gives_the_matrix():
    # RR(1) on two inputs, p = 0.5, reference "null": rows [p Q[x] | 1 - p]
    rr = md.randomized_response(2, 1.0)
    with pytest.warns(DeprecationWarning):
        old = acc.subsample(rr, 0.5)
    new = acc.subsampled_mechanism(rr, 0.5)
    e = math.e
    expected = np.array([[0.5 * e / (1 + e), 0.5 / (1 + e), 0.5],
                         [0.5 / (1 + e), 0.5 * e / (1 + e), 0.5]])
    np.testing.assert_array_equal(old.matrix, new.matrix)
    np.testing.assert_allclose(new.matrix, expected, rtol=1e-15)
    assert old.outputs == new.outputs == (*rr.outputs, "null")


def test_subsampling_privacy_alias_gives_the_exact_epsilon():
    # RR(1) with the reference Q[0]: k-RR meets Thm 6.1 with equality,
    # eps = ln(1 + 0.1 (e - 1)) = 0.158565...
    rr = md.randomized_response(2, 1.0)
    with pytest.warns(DeprecationWarning):
        old = acc.subsampling_privacy(rr, 0.1, rr.matrix[0])
    new = acc.exact_subsampling_epsilon(rr, 0.1, rr.matrix[0])
    assert (old.epsilon, old.bound, old.epsilon_input) == \
        (new.epsilon, new.bound, new.epsilon_input)
    assert new.epsilon == pytest.approx(math.log1p(0.1 * math.expm1(1.0)), rel=1e-12)
    assert new.epsilon_input == pytest.approx(1.0, rel=1e-12)


def test_function_names_are_not_shadowed_by_submodules():
    # A package attribute named like one of its submodules becomes that module once the
    # submodule is imported; the modules defining belief_composition and binary_reduction are
    # therefore private (_belief_composition, _binary_reduction). With every submodule
    # imported, each flat name is still the object its lazy table names.
    for info in pkgutil.iter_modules(acc.__path__, f"{acc.__name__}."):
        importlib.import_module(info.name)
    for name in acc.__all__:
        defined = getattr(importlib.import_module(acc._NAMES[name], acc.__name__), name)
        assert getattr(acc, name) is defined, name
    assert callable(acc.belief_composition) and callable(acc.binary_reduction)
    assert not isinstance(acc.belief_composition, types.ModuleType)
    assert not isinstance(acc.binary_reduction, types.ModuleType)
