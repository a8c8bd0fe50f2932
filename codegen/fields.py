"""One field table per message: each field's number, proto and JSON names, kind, behaviour
(REQUIRED, OUTPUT_ONLY, presence) and, for the messages of a snapshot, where its value
comes from in the engine. Read once from the descriptors and the engine's dataclasses.
``codegen.snapshot_code`` writes the snapshot's reader, writer and derived-field check,
and the required walk of every message, from it, at build time: the service never reads
the table when it runs.

A snapshot message's field is read from the engine value of the same class name
(``Seat`` → ``engine.model.Seat``) under its proto name, a property included
(``Seat.hand_hidden``). The few fields whose value is computed instead are listed once in
``DERIVED``, those read otherwise than their kind says in ``READ``;
tests/codegen/test_fields.py holds every field of the schema to an engine attribute or
an entry of ``DERIVED``, and every engine field to the schema.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf import descriptor as _d

from samba_adjudicator.engine import derived
from samba_adjudicator.engine import model as m
from samba_adjudicator.engine.cards import ORDER
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.descriptors import (
    F,
    is_map,
    is_output_only,
    is_required,
    real_oneofs,
)
from samba_adjudicator.service.codec.snapshot_parts import varint

# The kinds of field, as the codecs tell them apart.
INT, ENUM, TEXT, CARDS, INTS, MESSAGE, MESSAGES, EMBEDDED, OTHER = range(9)
_VARINT, _LEN = 0, 2


@dataclass(frozen=True, slots=True)
class Derived:
    """A field whose value is computed: ``value`` is a Python expression of ``obj`` (the
    engine value of the field's message) and ``snap``; ``given``, of ``given``, normalizes
    what a client gave before it is compared (a card code's spellings). Expressions, not
    functions: ``codegen.snapshot_code`` writes them into the generated code."""

    value: str
    given: str | None = None


#: "Message.field" -> how its value is computed, for the fields of a snapshot's messages
#: that are not an engine attribute of the same name.
DERIVED: dict[str, Derived] = {
    "Snapshot.ruleset": Derived("ruleset_ref_to_proto(obj.ruleset_ref).SerializeToString()"),
    "Snapshot.stock_count": Derived("len(obj.stock) if obj.stock else obj.stock_count"),
    "Snapshot.pile": Derived("derived.pile_state(obj)"),
    "Seat.hand_count": Derived("len(obj.hand) if obj.hand else obj.hand_count"),
    "Side.initial_meld_requirement": Derived("derived.initial_meld_requirement(snap.ruleset, obj)"),
    "Meld.status": Derived("vocabulary.meld_status(obj)"),
    "Meld.natural": Derived("vocabulary.is_natural(obj.cards)"),
    "Pile.top": Derived("obj.top or ''", "parse_card(given) or given"),
    "Pile.count": Derived("obj.size"),
    "Turn.awaiting_seats": Derived("derived.awaiting_seats(snap)"),
}

#: "Message.field" -> how the engine attribute is read, for the fields that a snapshot's
#: reader does not read as their kind says: a Python expression of ``msg``, ``path`` (the
#: message's), ``index`` (in its list), ``problems``, ``start`` (how many problems there
#: were when the message's read began) and the attributes read before it. A seat's or
#: side's number defaults to its index; a count given as 0 is the list's length.
READ: dict[str, str] = {
    "Snapshot.ruleset": 'ruleset_ref_from_proto(msg.ruleset, f"{path}.ruleset", problems)',
    "Snapshot.stock_count": "msg.stock_count or len(msg.stock)",
    "Snapshot.deal_commitment": "commitment(msg.deal_commitment, path, problems)",
    "Seat.seat": "msg.seat or index",
    "Seat.hand_count": "msg.hand_count or len(msg.hand)",
    # a seat listing no card and counting none is hidden only when the view says so
    "Seat.hand_hidden": "msg.hand_hidden and not msg.hand and not msg.hand_count",
    "Side.side": "msg.side or index",
    "Meld.kind": "meld_kind(msg.kind, cards, path, problems, start)",
}
#: The fields whose read may answer ``DROP`` (service.codec.snapshot_parts): their message
#: is left out of its list.
DROPS = frozenset({"Meld.kind"})

#: "Message.field" -> the engine attributes its read sets, where they are not the field's
#: name (the writer reads the field's name: ``Seat.hand_hidden`` is a property).
ATTRIBUTE: dict[str, str] = {
    "Snapshot.ruleset": "ruleset, ruleset_ref",
    "Seat.hand_hidden": "redacted",
}
#: The attribute without which no snapshot is read (its ruleset could not be resolved).
RESOLVES = "ruleset"

#: Fields a client may give that are checked as the output-only ones are: given (true),
#: they must agree with the engine's value (a hand with cards listed is not hidden).
AGREES = frozenset({"Seat.hand_hidden"})

#: An unset message field whose engine attribute has no default: the empty message is read
#: (a snapshot's turn; the required-field check reports it missing).
READ_EMPTY = object()


#: Message name -> the engine class its fields are read from (``Pile``: what
#: ``engine.derived.pile_state`` answers).
ENGINE_CLASSES: dict[str, type] = {
    "Snapshot": m.Snapshot,
    "Seat": m.Seat,
    "Side": m.Side,
    "Meld": m.Meld,
    "Penalty": m.Penalty,
    "Pile": derived.PileState,
    "Turn": m.Turn,
    "Result": m.Result,
    "Premium": m.Premium,
}


@dataclass(frozen=True, slots=True)
class Field:
    number: int
    name: str
    #: The engine attributes the read sets (``ATTRIBUTE``; else ``name``).
    attribute: str
    json_name: str
    kind: int
    required: bool
    output_only: bool
    #: Compared with the engine's value when given (OUTPUT_ONLY, or ``AGREES``).
    checked: bool
    #: proto3 ``optional``: written even at its default (``Turn.seat``), absent when None.
    presence: bool
    repeated: bool
    #: The field's tag, encoded (number and wire type).
    tag: bytes
    #: How the value is computed (``DERIVED``), or None: the engine attribute ``name``.
    derive: Derived | None
    #: Whether the read sets an engine attribute from it: every field but the output-only
    #: and the derived ones, and the fields of ``READ``.
    read: bool
    #: How it is read (``READ``), or None: as its kind says.
    reader: str | None
    #: The engine attribute's value when the field is unset: its default, else a neutral
    #: stand-in (an enum's first member; the required-field check reports the field).
    unset: Any
    #: Its message's table (MESSAGE, MESSAGES).
    table: Table | None
    #: An enum's numbers: engine member (or proto name) -> number (else empty).
    numbers: dict[Any, int]
    #: An enum's engine members by number (else empty).
    members: dict[int, Any]
    #: CARDS: card code -> the whole encoded element (tag, length, text) (else empty).
    elements: dict[str, bytes]
    descriptor: _d.FieldDescriptor


@dataclass(slots=True)
class Table:
    """A message's fields in number order."""

    name: str
    descriptor: _d.Descriptor
    fields: tuple[Field, ...] = ()
    #: The fields the reader reads, in number order.
    reads: tuple[Field, ...] = ()
    #: The engine class its fields are read into (None: not a snapshot's message).
    engine: type | None = None
    #: Real oneofs, as (name, their members' JSON names joined).
    oneofs: tuple[tuple[str, str], ...] = ()
    #: A REQUIRED field or a oneof here or in a message below (a walk can find one missing).
    needs_required_walk: bool = False
    #: A checked field (``Field.checked``) here or in a message below.
    has_output_only: bool = False


_TABLES: dict[str, Table] = {}


def table(desc: _d.Descriptor) -> Table:
    """The table of a message type (made once; messages that hold themselves are fine)."""
    found = _TABLES.get(desc.full_name)
    if found is None:
        found = _TABLES[desc.full_name] = Table(desc.name, desc)
        found.fields = tuple(_field(desc, f) for f in sorted(desc.fields, key=lambda f: f.number))
        found.reads = tuple(f for f in found.fields if f.read)
        found.engine = ENGINE_CLASSES.get(desc.name)
        found.oneofs = tuple(
            (o.name, ", ".join(f.json_name for f in o.fields)) for o in real_oneofs(desc)
        )
        found.needs_required_walk = _below(found, lambda t: bool(t.oneofs), "required", set())
        found.has_output_only = _below(found, lambda t: False, "checked", set())
    return found


def snapshot_tables() -> list[Table]:
    """The tables of a snapshot's messages (the ruleset reference, written whole, aside),
    the snapshot's first."""
    out: dict[str, Table] = {}
    todo = [SNAPSHOT]
    while todo:
        t = todo.pop(0)
        if t.name not in out:
            out[t.name] = t
            todo += [f.table for f in t.fields if f.table is not None and f.kind != EMBEDDED]
    return list(out.values())


def api_tables() -> list[Table]:
    """The tables of every message of the API's files, nested ones included."""
    files = (pb.action_pb2, pb.adjudicator_pb2, pb.ruleset_pb2, pb.snapshot_pb2)
    todo = [d for module in files for d in module.DESCRIPTOR.message_types_by_name.values()]
    out = []
    while todo:
        desc = todo.pop(0)
        if not desc.GetOptions().map_entry:
            out.append(table(desc))
        todo += desc.nested_types
    return out


def _below(t: Table, own: Callable[[Table], bool], flag: str, seen: set[str]) -> bool:
    if t.name in seen:
        return False
    seen.add(t.name)
    if own(t) or any(getattr(f, flag) for f in t.fields):
        return True
    return any(_below(f.table, own, flag, seen) for f in t.fields if f.table is not None)


def _field(desc: _d.Descriptor, f: _d.FieldDescriptor) -> Field:
    key = f"{desc.name}.{f.name}"
    sub = f.message_type if f.type == F.TYPE_MESSAGE and not is_map(f) else None
    derive = DERIVED.get(key)
    kind = _kind(f, derive)
    wire = _LEN if kind in (TEXT, CARDS, INTS, MESSAGE, MESSAGES, EMBEDDED) else _VARINT
    tag = varint(f.number << 3 | wire)
    elements = (
        {code: tag + varint(len(code.encode())) + code.encode() for code in ORDER}
        if kind == CARDS
        else {}
    )
    numbers = _enum_numbers(f) if f.type == F.TYPE_ENUM else {}
    members = {n: member for member, n in numbers.items() if not isinstance(member, str)}
    reader = READ.get(key)
    attribute = ATTRIBUTE.get(key, f.name)
    return Field(
        number=f.number,
        name=f.name,
        attribute=attribute,
        json_name=f.json_name,
        kind=kind,
        required=is_required(f),
        output_only=is_output_only(f),
        checked=is_output_only(f) or key in AGREES,
        presence=f.has_presence and not f.is_repeated and sub is None,
        repeated=f.is_repeated,
        tag=tag,
        derive=derive,
        read=reader is not None or (derive is None and not is_output_only(f)),
        reader=reader,
        unset=_unset(desc.name, attribute, kind, members),
        table=table(sub) if sub is not None else None,
        numbers=numbers,
        members=members,
        elements=elements,
        descriptor=f,
    )


def _unset(message: str, name: str, kind: int, members: dict[int, Any]) -> Any:
    cls = ENGINE_CLASSES.get(message)
    found = {e.name: e for e in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else {}
    if name in found and found[name].default is not dataclasses.MISSING:
        return found[name].default
    if kind == ENUM:
        return next(iter(members.values()), None)
    return {INT: 0, TEXT: "", MESSAGE: READ_EMPTY}.get(kind)


def _kind(f: _d.FieldDescriptor, derive: Derived | None) -> int:
    if f.type == F.TYPE_MESSAGE:
        if is_map(f):
            return OTHER
        if derive is not None and f.message_type is pb.RulesetRef.DESCRIPTOR:
            return EMBEDDED  # written by the ruleset codec, as bytes
        return MESSAGES if f.is_repeated else MESSAGE
    if f.is_repeated:
        return CARDS if f.type == F.TYPE_STRING else INTS if f.type == F.TYPE_INT32 else OTHER
    if f.type == F.TYPE_ENUM:
        return ENUM
    if f.type in (F.TYPE_INT32, F.TYPE_BOOL):
        return INT
    return TEXT if f.type == F.TYPE_STRING else OTHER


def _enum_numbers(f: _d.FieldDescriptor) -> dict[Any, int]:
    """Proto name -> number, and engine member -> number for every engine enum whose
    members all carry names of this enum (``MeldStatus`` for ``Meld.Status``)."""
    numbers: dict[Any, int] = {v.name: v.number for v in f.enum_type.values}
    for engine_enum in _ENGINE_ENUMS:
        if all(member.name in numbers for member in engine_enum):
            numbers.update({member: numbers[member.name] for member in engine_enum})
    return numbers


_ENGINE_ENUMS = tuple(
    v for v in vars(m).values() if isinstance(v, type) and issubclass(v, enum.Enum)
)
SNAPSHOT = table(pb.Snapshot.DESCRIPTOR)
#: "Message.field" -> its entry, for every field of a snapshot's messages.
FIELDS: dict[str, Field] = {f"{t.name}.{f.name}": f for t in snapshot_tables() for f in t.fields}
