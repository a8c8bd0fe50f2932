"""The field tables (codegen/fields.py) held to the schema and to the engine's values:
every field of a snapshot's messages is read from an engine attribute of its name or
computed by one entry of DERIVED, and every engine field is in the schema; and the codec
written out of them (codegen/snapshot_code.py) is the module the service runs."""

from __future__ import annotations

import ast
import dataclasses
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from samba_adjudicator.engine import build, deal, resolve
from samba_adjudicator.schema.v1 import snapshot_code as generated_module
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.descriptors import F, is_output_only, is_required
from samba_adjudicator.service.codec import snapshot_bytes, snapshot_code

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from codegen import enum_check, fields  # noqa: E402
from codegen import snapshot_code as codegen  # noqa: E402

#: Engine fields the schema carries under another field, and where.
ENGINE_ONLY = {
    "Snapshot.ruleset_ref": "Snapshot.ruleset",  # the reference is what the field holds
    "Pile.size": "Pile.count",  # a NamedTuple field may not be named count
}


def _tables() -> list[fields.Table]:
    return fields.snapshot_tables()


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
        names = {f.name for f in t.fields} | {n for f in t.fields for n in f.attribute.split(", ")}
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
    written = pb.Snapshot.FromString(snapshot_bytes.encode(snap))
    assert written.ruleset.profile == "classic"  # the ruleset's field, encoded whole


def test_the_reader_sets_every_engine_field_from_the_schema():
    """Every attribute of a snapshot's engine values is read from the field of its name or
    of its ``ATTRIBUTE`` entry (the ruleset's field gives the ruleset and its reference, a
    seat's ``handHidden`` its ``redacted``); a field the reader reads
    not as its kind says is one entry of READ, and every entry names a field."""
    for t in _tables():
        cls = fields.ENGINE_CLASSES[t.name]
        if not dataclasses.is_dataclass(cls):
            continue  # the pile: output-only, never read
        read = {name for f in t.reads for name in f.attribute.split(", ")}
        assert read == _engine_names(cls), t.name
        assert t.engine is cls
        for f in t.reads:
            assert (f.reader is not None) == (f"{t.name}.{f.name}" in fields.READ)
    for key in [*fields.READ, *fields.ATTRIBUTE, *fields.AGREES]:
        message, name = key.split(".")
        assert name in pb.DESCRIPTOR.message_types_by_name[message].fields_by_name, key


# -- the codec written out from the tables (codegen/snapshot_code.py) ---------------------

GENERATED = codegen.source()
FUNCTIONS = {
    node.name: node for node in ast.parse(GENERATED).body if isinstance(node, ast.FunctionDef)
}


def _text(name: str) -> str:
    return ast.unparse(FUNCTIONS[name])


def test_the_codec_runs_the_generated_text_and_consults_no_table_per_call():
    """The reader, writer, walk and check are straight-line code per message, made once from
    the tables: no function reads a table or a field entry when it runs (the tables' objects
    it needs are literals of the module), the service imports no table, and the Python
    source runs exactly this text."""
    for name, node in FUNCTIONS.items():
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        attributes = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        assert not names & {"FIELDS", "SNAPSHOT", "fields"}, name
        assert not attributes & {"reads", "fields", "table", "derive", "reader"}, name
    if build.CURRENT.name == "pure":
        assert snapshot_code.read is generated_module.read
    for name in ("read", "write_head", "write_tail", "missing", "disagreements"):
        assert name in FUNCTIONS and hasattr(snapshot_code, name)
    assert "codegen" not in GENERATED.split('"""', 2)[2]  # no import of the build side
    service = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, samba_adjudicator.service.pipeline.api; print(*sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    ours = [name for name in service if name.startswith("samba_adjudicator") or "codegen" in name]
    assert [name for name in ours if "codegen" in name or name.endswith(".fields")] == []


def test_the_set_up_wrote_the_text_the_generator_prints():
    """proto/generate.sh (``make proto``, ``make install``) wrote what ``python -m
    codegen.snapshot_code`` prints beside the protobuf code, and setup.py compiles that
    file; a stale or edited one fails here (``make install`` writes it again)."""
    printed = subprocess.run(
        [sys.executable, "-m", "codegen.snapshot_code"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "SAMBA_BUILD": "pure"},
    ).stdout
    assert printed == GENERATED
    assert Path(generated_module.__file__).read_text() == GENERATED


def test_the_generator_runs_where_the_project_is_not_installed(tmp_path):
    """proto/generate.sh runs it with the build tools' Python, which has the protobuf
    runtime but not this project: ``codegen.source_tree`` finds the checkout's packages
    (here: no site-packages processing, so the editable install is not seen)."""
    site = sysconfig.get_paths()["purelib"]
    printed = subprocess.run(
        [sys.executable, "-S", "-m", "codegen.snapshot_code"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={**os.environ, "SAMBA_BUILD": "pure", "PYTHONPATH": f"{site}{os.pathsep}{ROOT}"},
    ).stdout
    assert printed == GENERATED


def test_every_message_with_something_required_has_its_walk():
    """The required walks of every request are written out too: a message with a REQUIRED
    field or a oneof in it or below it is in ``WALKS``; the others need none."""
    walked = {t.descriptor.full_name for t in fields.api_tables() if t.needs_required_walk}
    assert set(snapshot_code.WALKS) == walked
    assert "samba.v1.ValidateActionRequest" in walked and "samba.v1.Snapshot" in walked


def test_every_message_with_an_enum_has_its_check():
    """The check of enum values the schema does not define (service.codec.enums) is written
    out for every message with an enum field in it or below it, requests and snapshots."""
    holding = {
        t.descriptor.full_name for t in fields.api_tables() if enum_check.holds_enums(t.descriptor)
    }
    assert set(snapshot_code.ENUM_CHECKS) == holding
    assert {"samba.v1.ValidateActionRequest", "samba.v1.Turn"} <= holding


def test_every_field_of_the_tables_is_written_read_walked_and_checked():
    """A field added to the schema and the engine reaches every generated function by the
    table alone: its tag in its message's writer, its read, its REQUIRED test, its check."""
    for t in fields.snapshot_tables():
        writer = (
            _text("_write_Snapshot_head") + _text("_write_Snapshot_tail")
            if t is fields.SNAPSHOT
            else _text(f"_write_{t.name}")
        )
        for f in t.fields:
            key = f"{t.name}.{f.name}"
            if f.name != "signature" or t is not fields.SNAPSHOT:  # rendering splices it
                assert repr(f.tag) in writer, key
            if f.read and dataclasses.is_dataclass(t.engine):  # the pile is never read
                assert f"msg.{f.name}" in _text(f"_read_{t.name}"), key
            if f.required:
                assert f"{f.json_name!r}" in _text(f"_missing_{t.name}"), key
            if f.checked:
                assert f"msg.{f.name}" in "".join(
                    _text(n) for n in FUNCTIONS if n.startswith(f"_compare_{t.name}_")
                ), key
