"""The field tables (service.codec.fields) held to the schema and to the engine's values:
every field of a snapshot's messages is read from an engine attribute of its name or
computed by one entry of DERIVED, and every engine field is in the schema."""

from __future__ import annotations

import dataclasses

from samba_adjudicator.engine import deal, resolve
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.descriptors import F, is_output_only, is_required
from samba_adjudicator.service.codec import fields

#: Engine fields the schema carries under another field, and where.
ENGINE_ONLY = {
    "Snapshot.ruleset_ref": "Snapshot.ruleset",  # the reference is what the field holds
    "Pile.size": "Pile.count",  # a NamedTuple field may not be named count
}


def _tables() -> list[fields.Table]:
    out: dict[str, fields.Table] = {}
    todo = [fields.SNAPSHOT]
    while todo:
        t = todo.pop()
        if t.name not in out:
            out[t.name] = t
            todo += [f.table for f in t.fields if f.table is not None and f.kind != fields.EMBEDDED]
    return list(out.values())


def _engine_names(cls: type) -> set[str]:
    if dataclasses.is_dataclass(cls):
        return {f.name for f in dataclasses.fields(cls)}
    return set(cls._fields)  # the NamedTuple of engine.derived.pile_state


def test_every_message_of_a_snapshot_has_its_engine_class():
    names = {t.name for t in _tables()}
    assert names == set(fields.ENGINE_CLASSES)


def test_every_field_is_an_engine_attribute_or_derived():
    for t in _tables():
        cls = fields.ENGINE_CLASSES[t.name]
        for f in t.fields:
            key = f"{t.name}.{f.name}"
            if key in fields.DERIVED:
                assert f.derive is fields.DERIVED[key]
            else:
                assert f.derive is None
                assert hasattr(cls, f.name) or f.name in _engine_names(cls), key


def test_every_engine_field_is_in_the_schema():
    for t in _tables():
        names = {f.name for f in t.fields}
        for name in _engine_names(fields.ENGINE_CLASSES[t.name]):
            key = f"{t.name}.{name}"
            assert name in names or key in ENGINE_ONLY, f"{key} is not in the schema"
    for carried_by in ENGINE_ONLY.values():
        assert carried_by in fields.DERIVED


def test_every_derived_entry_names_a_field():
    for key in fields.DERIVED:
        message, name = key.split(".")
        desc = pb.DESCRIPTOR.message_types_by_name[message]
        assert name in desc.fields_by_name, key


def test_the_table_states_each_field_as_the_descriptor_does():
    for t in _tables():
        for f in t.fields:
            d = f.descriptor
            assert (f.number, f.name, f.json_name) == (d.number, d.name, d.json_name)
            assert f.required == is_required(d) and f.output_only == is_output_only(d)
            assert f.repeated == d.is_repeated
            wire = 2 if d.is_repeated or d.type in (F.TYPE_STRING, F.TYPE_MESSAGE) else 0
            assert f.tag[0] == (d.number << 3 | wire)  # every number here is below 16
            assert f.kind != fields.OTHER, f"{t.name}.{f.name}: a kind the codecs do not know"


def test_an_enum_s_numbers_know_every_engine_member_that_can_fill_it():
    snap = deal(resolve("classic"), 4, "fields")
    seen = 0
    for t in _tables():
        for f in t.fields:
            if f.kind == fields.ENUM:
                names = {v.name: v.number for v in f.descriptor.enum_type.values}
                members = [k for k in f.numbers if not isinstance(k, str)]
                assert members, f"{t.name}.{f.name} has no engine enum"
                assert all(f.numbers[k] == names[k.name] for k in members)
                seen += 1
    assert seen == 5
    assert fields.value(fields.SNAPSHOT.fields[0], snap, snap)  # the ruleset, encoded


def test_the_reader_sets_every_engine_field_from_the_schema():
    """Every attribute of a snapshot's engine values is read from the field of its name
    (the ruleset's field gives the ruleset and its reference); a field the reader reads
    not as its kind says is one entry of READ, and every entry names a field."""
    for t in _tables():
        cls = fields.ENGINE_CLASSES[t.name]
        if not dataclasses.is_dataclass(cls):
            continue  # the pile: output-only, never read
        read = {f.name for f in t.reads} | ({"ruleset_ref"} if t.name == "Snapshot" else set())
        assert read == _engine_names(cls), t.name
        assert t.engine is cls
        for f in t.reads:
            assert (f.reader is not None) == (f"{t.name}.{f.name}" in fields.READ)
    for key in fields.READ:
        message, name = key.split(".")
        assert name in pb.DESCRIPTOR.message_types_by_name[message].fields_by_name, key
