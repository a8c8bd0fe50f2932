"""One field table per message: each field's number, proto and JSON names, kind, behaviour
(REQUIRED, OUTPUT_ONLY, presence) and, for the messages of a snapshot, where its value
comes from in the engine. Read once from the descriptors and the engine's dataclasses;
the codecs are driven by it (``snapshot_bytes`` writes a snapshot by it,
``derived_fields`` compares the output-only fields a client gave by it, ``required``
walks a request by it).

A snapshot message's field is read from the engine value of the same class name
(``Seat`` → ``engine.model.Seat``) under its proto name, a property included
(``Seat.hand_hidden``). The few fields whose value is computed instead are listed once in
``DERIVED``; tests/test_fields.py holds every field of the schema to an engine attribute or
an entry of ``DERIVED``, and every engine field to the schema.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf import descriptor as _d

from samba_adjudicator.engine import derived, vocabulary
from samba_adjudicator.engine import model as m
from samba_adjudicator.engine.cards import ORDER, parse_card

from ..base import pb
from ..base.descriptors import F, is_map, is_output_only, is_required, real_oneofs
from .rulesets import ruleset_ref_to_proto

# The kinds of field, as the codecs tell them apart.
INT, ENUM, TEXT, CARDS, INTS, MESSAGE, MESSAGES, EMBEDDED, OTHER = range(9)
_VARINT, _LEN = 0, 2


@dataclass(frozen=True, slots=True)
class Derived:
    """A field whose value is computed: ``value(engine object, snapshot)``; ``given``
    normalizes what a client gave before it is compared (a card code's spellings)."""

    value: Callable[[Any, m.Snapshot], Any]
    given: Callable[[Any], Any] | None = None


#: "Message.field" -> how its value is computed, for the fields of a snapshot's messages
#: that are not an engine attribute of the same name.
DERIVED: dict[str, Derived] = {
    "Snapshot.ruleset": Derived(
        lambda snap, _: ruleset_ref_to_proto(snap.ruleset_ref).SerializeToString()
    ),
    "Snapshot.stock_count": Derived(
        lambda snap, _: len(snap.stock) if snap.stock else snap.stock_count
    ),
    "Snapshot.pile": Derived(lambda snap, _: derived.pile_state(snap)),
    "Seat.hand_count": Derived(lambda s, _: len(s.hand) if s.hand else s.hand_count),
    "Side.initial_meld_requirement": Derived(
        lambda sd, snap: derived.initial_meld_requirement(snap.ruleset, sd)
    ),
    "Meld.status": Derived(lambda meld, _: vocabulary.meld_status(meld)),
    "Meld.natural": Derived(lambda meld, _: vocabulary.is_natural(meld.cards)),
    "Pile.top": Derived(lambda state, _: state.top or "", lambda given: parse_card(given) or given),
    "Pile.count": Derived(lambda state, _: state.size),
    "Turn.awaiting_seats": Derived(lambda _, snap: derived.awaiting_seats(snap)),
}

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


def varint(n: int) -> bytes:
    """A non-negative integer as a varint; a negative one as its 64-bit two's complement."""
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


@dataclass(frozen=True, slots=True)
class Field:
    number: int
    name: str
    json_name: str
    kind: int
    required: bool
    output_only: bool
    #: proto3 ``optional``: written even at its default (``Turn.seat``), absent when None.
    presence: bool
    repeated: bool
    #: The field's tag, encoded (number and wire type).
    tag: bytes
    #: How the value is computed (``DERIVED``), or None: the engine attribute ``name``.
    derive: Derived | None
    #: Its message's table (MESSAGE, MESSAGES).
    table: Table | None
    #: An enum's numbers: engine member (or proto name) -> number (else empty).
    numbers: dict[Any, int]
    #: CARDS: card code -> the whole encoded element (tag, length, text) (else empty).
    elements: dict[str, bytes]
    descriptor: _d.FieldDescriptor


@dataclass(slots=True)
class Table:
    """A message's fields in number order."""

    name: str
    descriptor: _d.Descriptor
    fields: tuple[Field, ...] = ()
    #: Real oneofs, as (name, their members' JSON names joined).
    oneofs: tuple[tuple[str, str], ...] = ()
    #: A REQUIRED field or a oneof here or in a message below (a walk can find one missing).
    needs_required_walk: bool = False
    #: An OUTPUT_ONLY field here or in a message below.
    has_output_only: bool = False


_TABLES: dict[str, Table] = {}


def table(desc: _d.Descriptor) -> Table:
    """The table of a message type (made once; messages that hold themselves are fine)."""
    found = _TABLES.get(desc.full_name)
    if found is None:
        found = _TABLES[desc.full_name] = Table(desc.name, desc)
        found.fields = tuple(_field(desc, f) for f in sorted(desc.fields, key=lambda f: f.number))
        found.oneofs = tuple(
            (o.name, ", ".join(f.json_name for f in o.fields)) for o in real_oneofs(desc)
        )
        found.needs_required_walk = _below(found, lambda t: bool(t.oneofs), "required", set())
        found.has_output_only = _below(found, lambda t: False, "output_only", set())
    return found


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
    return Field(
        number=f.number,
        name=f.name,
        json_name=f.json_name,
        kind=kind,
        required=is_required(f),
        output_only=is_output_only(f),
        presence=f.has_presence and not f.is_repeated and sub is None,
        repeated=f.is_repeated,
        tag=tag,
        derive=derive,
        table=table(sub) if sub is not None else None,
        numbers=_enum_numbers(f) if f.type == F.TYPE_ENUM else {},
        elements=elements,
        descriptor=f,
    )


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


def value(f: Field, obj: Any, snap: m.Snapshot) -> Any:
    """Field ``f``'s value for engine value ``obj`` (of the field's message) in ``snap``."""
    derive = f.derive
    return getattr(obj, f.name) if derive is None else derive.value(obj, snap)


SNAPSHOT = table(pb.Snapshot.DESCRIPTOR)
