"""The compiled build's ``__init__``s are written from the dataclasses' fields
(dataclass_inits.py): each written one takes its dataclass's fields, in order, with their
defaults, and sets every one, exactly as the ``__init__`` dataclasses generates; and the
engine's hot paths that rebuild a value field by field pass every field."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import inspect
import sys
from pathlib import Path

import pytest

from samba_adjudicator.engine import model

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from dataclass_inits import UnsupportedDataclass, explicit_inits  # noqa: E402

SOURCE = ROOT / "engine" / "model.py"


def _module_from(source: str, name: str):
    """``source`` run as the Python module ``samba_adjudicator.engine.<name>`` (its relative
    imports resolve in the installed engine)."""
    full = f"samba_adjudicator.engine.{name}"
    spec = importlib.util.spec_from_loader(full, loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "samba_adjudicator.engine"
    sys.modules[full] = module
    try:
        exec(compile(source, str(SOURCE), "exec"), module.__dict__)
    finally:
        del sys.modules[full]
    return module


def _values(module) -> list[type]:
    return [
        c
        for c in vars(module).values()
        if isinstance(c, type) and dataclasses.is_dataclass(c) and c.__module__ == module.__name__
    ]


PLAIN = _module_from(SOURCE.read_text(), "_model_plain")
WRITTEN = _module_from(explicit_inits(SOURCE.read_text()), "_model_written")
PAIRS = [(c, getattr(WRITTEN, c.__name__)) for c in _values(PLAIN)]


def test_every_value_of_the_model_gets_a_written_init():
    assert {c.__name__ for c in _values(WRITTEN)} == {c.__name__ for c in _values(model)}
    assert len(PAIRS) >= 20
    for plain, written in PAIRS:
        assert plain.__dataclass_params__.init, "the repository's model keeps plain dataclasses"
        assert not written.__dataclass_params__.init, written.__name__
        assert written.__dataclass_params__.frozen
        assert "__init__" in vars(written)


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p[0].__name__)
def test_written_init_takes_the_fields_in_order_with_their_defaults(pair):
    plain, written = pair
    generated = list(inspect.signature(plain.__init__).parameters.values())[1:]
    params = list(inspect.signature(written.__init__).parameters.values())[1:]
    fields = dataclasses.fields(written)
    assert [f.name for f in fields] == [f.name for f in dataclasses.fields(plain)]
    assert [p.name for p in params] == [p.name for p in generated] == [f.name for f in fields]
    for p, g, f in zip(params, generated, fields, strict=True):
        assert p.kind is g.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        if f.default_factory is not dataclasses.MISSING:
            assert p.default is None, f.name  # None: not given, the factory's value
        else:
            assert repr(p.default) == repr(g.default), f.name  # each module its own enums


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p[0].__name__)
def test_written_init_builds_what_the_generated_one_builds(pair):
    plain, written = pair
    fields = dataclasses.fields(written)
    given = {f.name: object() for f in fields}
    for build in (lambda cls: cls(**given), lambda cls: cls(*given.values())):
        value = build(written)
        assert all(getattr(value, f.name) is given[f.name] for f in fields)
        assert repr(value) == repr(build(plain)).replace(PLAIN.__name__, WRITTEN.__name__)
    required = {
        f.name: given[f.name]
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    assert repr(written(**required)) == repr(plain(**required)).replace(
        PLAIN.__name__, WRITTEN.__name__
    )  # the defaults and the factories' values
    value = written(**given)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, fields[0].name, 1)
    assert dataclasses.replace(value) == value


def test_the_installed_build_builds_the_same_values():
    """Whichever build is installed (compiled: written __init__s), the same values, repr
    and hash as the plain dataclasses."""
    for module in (model, PLAIN, WRITTEN):
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
            repr(module.Meld("m1", ("5H",), 0, module.MeldKind.GROUP))
            == "Meld(id='m1', cards=('5H',), laid_by=0, kind=<MeldKind.GROUP: 'GROUP'>)"
        )
        assert hash(module.Turn(1, module.Phase.DRAW)) == hash(module.Turn(1, module.Phase.DRAW))


@pytest.mark.parametrize(
    "source",
    [
        "@dataclass(frozen=True)\nclass A(Base):\n    x: int\n",
        "@dataclass(frozen=True, kw_only=True)\nclass A:\n    x: int\n",
        "@dataclass(frozen=True)\nclass A:\n    x: int = field(init=False)\n",
        "@dataclass(frozen=True)\nclass A:\n    x: int\n    def __post_init__(self): pass\n",
    ],
)
def test_a_dataclass_the_generator_cannot_write_exactly_stops_the_build(source):
    with pytest.raises(UnsupportedDataclass):
        explicit_inits(source)


def test_classes_that_are_not_frozen_dataclasses_are_left_as_they_are():
    source = "class A:\n    x: int = 1\n\n\n@dataclass\nclass B:\n    y: int\n"
    assert ast.dump(ast.parse(explicit_inits(source))) == ast.dump(ast.parse(source))


# -- the hot paths that rebuild a value field by field ------------------------------------

WORK = ROOT / "engine" / "work.py"


def _constructions(path: Path, names: set[str]):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names:
            yield node


def test_the_working_copy_builds_seats_sides_turns_and_snapshots_by_replaced():
    """engine.work makes the next Turn/Seat/Side/Snapshot by ``replaced``, naming only what
    an action changes (a field added to the model is carried without an edit here), never
    by the constructor, which would give a field it does not pass its default."""
    classes = {c.__name__ for c in (model.Turn, model.Seat, model.Side, model.Snapshot)}
    assert list(_constructions(WORK, classes)) == []
    calls = [
        node
        for node in ast.walk(ast.parse(WORK.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "replaced"
    ]
    assert len(calls) >= 4 and all(not call.args for call in calls)


REPLACING = [(p, w) for p, w in PAIRS if "replaced" in vars(p)]


def test_the_classes_the_engine_copies_get_a_written_replaced():
    assert {p.__name__ for p, _ in REPLACING} == {"Seat", "Side", "Turn", "Snapshot"}
    for _plain, written in REPLACING:
        names = [f.name for f in dataclasses.fields(written)]
        params = list(inspect.signature(written.replaced).parameters.values())[1:]
        assert [p.name for p in params] == names
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params)


@pytest.mark.parametrize("pair", REPLACING, ids=lambda p: p[0].__name__)
def test_written_replaced_builds_what_dataclasses_replace_builds(pair):
    """Each field changed alone, and none: the written ``replaced`` and the source's
    (``dataclasses.replace``) keep every other field and set the one given."""
    for cls in pair:
        names = [f.name for f in dataclasses.fields(cls)]
        given = {name: object() for name in names}
        value = cls(**given)
        kept = value.replaced()
        assert kept is not value and all(getattr(kept, n) is given[n] for n in names)
        for name in names:
            other = object()
            changed = value.replaced(**{name: other})
            assert all(getattr(changed, n) is (other if n == name else given[n]) for n in names)
        with pytest.raises(TypeError):
            value.replaced(no_such_field=1)
