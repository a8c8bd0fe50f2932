"""The engine's values write their ``__init__`` out (engine/model.py's docstring says why):
each must take its dataclass's fields, in order, with their defaults, and set every one,
exactly as the ``__init__`` dataclasses would generate."""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import sys
from pathlib import Path

import pytest

from samba_adjudicator.engine import model

pytestmark = pytest.mark.engine

SOURCE = Path(__file__).resolve().parent.parent / "engine" / "model.py"


def _source_module():
    """engine/model.py run as Python source, whichever build is installed: the compiled
    classes check their arguments' types, and sentinels are not cards."""
    name = "samba_adjudicator.engine._model_as_source"
    spec = importlib.util.spec_from_file_location(name, SOURCE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


SOURCE_MODULE = _source_module()
VALUES = [
    c
    for c in vars(SOURCE_MODULE).values()
    if isinstance(c, type)
    and dataclasses.is_dataclass(c)
    and c.__module__ == SOURCE_MODULE.__name__
]


def test_every_value_of_the_model_is_checked_here():
    installed = {
        n
        for n, c in vars(model).items()
        if isinstance(c, type) and dataclasses.is_dataclass(c) and c.__module__ == model.__name__
    }
    assert {c.__name__ for c in VALUES} == installed
    assert len(VALUES) >= 25


@pytest.mark.parametrize("cls", VALUES, ids=lambda c: c.__name__)
def test_init_takes_the_fields_in_order_with_their_defaults(cls):
    assert cls.__dataclass_params__.frozen
    assert not cls.__dataclass_params__.init, "a generated __init__ is not compiled"
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    fields = dataclasses.fields(cls)
    assert [p.name for p in params] == [f.name for f in fields]
    for p, f in zip(params, fields, strict=True):
        assert p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        if f.default is not dataclasses.MISSING:
            assert p.default == f.default, f.name
        elif f.default_factory is not dataclasses.MISSING:
            assert p.default is None, f.name  # None: not given, the factory's value
            others = {
                g.name: object()
                for g in fields
                if g.default is dataclasses.MISSING and g.default_factory is dataclasses.MISSING
            }
            assert getattr(cls(**others), f.name) == f.default_factory()
        else:
            assert p.default is inspect.Parameter.empty, f.name


@pytest.mark.parametrize("cls", VALUES, ids=lambda c: c.__name__)
def test_init_sets_each_field_to_its_argument_and_stays_frozen(cls):
    fields = dataclasses.fields(cls)
    given = {f.name: object() for f in fields}
    value = cls(**given)
    for f in fields:
        assert getattr(value, f.name) is given[f.name], f.name
    positional = cls(*given.values())
    assert all(getattr(positional, f.name) is given[f.name] for f in fields)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, fields[0].name, 1)
    assert dataclasses.replace(value) == value


def test_the_installed_build_builds_the_same_values():
    """The compiled classes come from the same source: equal values, repr and hash."""
    for module in (model, SOURCE_MODULE):
        turn = module.Turn(2, module.Phase.PLAY, took_pile=True)
        meld = module.Meld("m1", ("5H", "5D", "5S"), 0, module.MeldKind.GROUP)
        side = module.Side(0, (0, 2), melds=(meld,))
        assert (turn.go_out.name, turn.took_pile, turn.melded_this_turn) == (
            "NOT_ASKED",
            True,
            False,
        )
        assert side.opened and side.match_score == 0 and side.penalties == ()
        assert module.RulesetRef().overrides == {} and module.Violation("C", "m", "r").details == {}
    assert (
        repr(model.Meld("m1", ("5H",), 0, model.MeldKind.GROUP))
        == "Meld(id='m1', cards=('5H',), laid_by=0, kind=<MeldKind.GROUP: 'GROUP'>)"
    )
    assert hash(model.Turn(1, model.Phase.DRAW)) == hash(model.Turn(1, model.Phase.DRAW))
