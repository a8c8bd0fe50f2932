"""Enum values the schema does not define, refused on every transport: one check, driven
by the descriptors (docs/api.md#json).

proto3 enums are open: a protobuf request may carry any int32 in an enum field, and the
parsed message keeps it (``reveal: 7``, ``computer.level: 99``). The JSON walk refuses such
a value as it reads it (``service.codec.json_scalars``); ``unknown_values`` refuses the
same ones, with the same problem, in a message read from protobuf or built in process, and
clears each, so that the message holds only values the schema defines (as the JSON walk
leaves a refused value unset) and a missing REQUIRED field is not reported beside it.

The walk visits only the fields that can hold an enum (``_plan``: the enum fields, and the
message fields with one below them), so a request without enums costs one dict lookup.
"""

from __future__ import annotations

from google.protobuf import descriptor as _d
from google.protobuf.message import Message

from samba_adjudicator.engine.messages import problem

from ..base.descriptors import F, is_map, join
from ..base.errors import ProblemList, Problems
from .json_scalars import not_a_value

#: Descriptor -> (enum fields as (name, json name, the numbers defined, the enum,
#: repeated), message fields worth walking as (name, json name, repeated)).
_PLANS: dict = {}


def unknown_values(
    msg: Message, path: str, problems: Problems, skip: str = "", clear: bool = True
) -> None:
    """Append a problem for each enum value in ``msg`` (and the messages below it) that
    its enum does not define, at its JSON path below ``path``, and clear it (``clear``
    False: leave it). ``skip``: a top-level field (proto name) left out (a snapshot loaded
    before: checked then)."""
    if not _clean(msg, skip):  # the common case: no value to refuse, no path written
        _report(msg, path, problems, skip, clear)


def _plan_of(desc: _d.Descriptor) -> tuple[tuple, tuple, tuple]:
    plan = _PLANS.get(desc)
    if plan is None:
        plan = _PLANS[desc] = _plan(desc)
    return plan


def _clean(msg: Message, skip: str = "") -> bool:
    """Whether every enum value in ``msg`` and below is defined (a walk writing no path;
    a repeated field of messages with only single enums, such as melds, read inline)."""
    enums, walk, quick = _plan_of(msg.DESCRIPTOR)
    for name, known in quick:
        if getattr(msg, name) not in known:
            return False
    for name, _, known, _, repeated in enums:
        if repeated and not known.issuperset(getattr(msg, name)):
            return False
    for name, _, repeated, leaf in walk:
        if name == skip:
            continue
        if repeated:
            if not _clean_items(getattr(msg, name), leaf):
                return False
        elif msg.HasField(name) and not _clean(getattr(msg, name)):
            return False
    return True


def _clean_items(items, leaf: tuple | None) -> bool:
    if leaf is None:
        return all(_clean(item) for item in items)
    for item in items:
        for name, known in leaf:
            if getattr(item, name) not in known:
                return False
    return True


def _report(msg: Message, path: str, problems: Problems, skip: str, clear: bool) -> None:
    """``unknown_values``' walk with the paths, for a message ``_clean`` found values in."""
    enums, walk, _ = _plan_of(msg.DESCRIPTOR)
    for name, json_name, known, enum, repeated in enums:
        if repeated:
            _repeated_values(msg, name, join(path, json_name), known, enum, problems, clear)
        else:
            value = getattr(msg, name)
            if value not in known:
                _refuse(value, enum, join(path, json_name), problems)
                if clear:
                    msg.ClearField(name)
    for name, json_name, repeated, _ in walk:
        if name != skip:
            _below(msg, name, join(path, json_name), repeated, problems, clear)


def _below(
    msg: Message, name: str, path: str, repeated: bool, problems: Problems, clear: bool
) -> None:
    """``unknown_values`` of the message(s) in field ``name``, when set."""
    if repeated:
        for i, item in enumerate(getattr(msg, name)):
            unknown_values(item, f"{path}[{i}]", problems, "", clear)
    elif msg.HasField(name):
        unknown_values(getattr(msg, name), path, problems, "", clear)


def _repeated_values(
    msg: Message,
    name: str,
    path: str,
    known: frozenset,
    enum: _d.EnumDescriptor,
    problems: Problems,
    clear: bool,
) -> None:
    values = getattr(msg, name)
    if all(v in known for v in values):
        return
    kept = []
    for i, value in enumerate(values):
        if value in known:
            kept.append(value)
        else:
            _refuse(value, enum, f"{path}[{i}]", problems)
    if clear:
        del values[:]
        values.extend(kept)


def known_values(msg: Message, problems: Problems, skip: str = "") -> Message:
    """``msg``, or, when it holds enum values its schema does not define, a copy of it
    with them cleared (their problems appended): the caller's message is left as it was."""
    probe = ProblemList()
    unknown_values(msg, "", probe, skip, clear=False)
    if not probe:
        return msg
    copy = type(msg)()
    copy.CopyFrom(msg)
    unknown_values(copy, "", problems, skip)
    return copy


def _refuse(value: int, enum: _d.EnumDescriptor, path: str, problems: Problems) -> None:
    refused = not_a_value(value, enum)
    problems.append(problem(path, "OUT_OF_RANGE", refused.template, **refused.params))


def _plan(desc: _d.Descriptor) -> tuple[tuple, tuple, tuple]:
    """(enum fields as (name, json name, the numbers defined, the enum, repeated); message
    fields worth walking as (name, json name, repeated, their single enums as (name,
    numbers) when a repeated field's type has nothing else to walk, else None); the single
    enum fields as (name, numbers), for ``_clean``)."""
    enums = tuple(
        (
            f.name,
            f.json_name,
            frozenset(f.enum_type.values_by_number),
            f.enum_type,
            f.is_repeated,
        )
        for f in desc.fields
        if f.type == F.TYPE_ENUM
    )
    walk = tuple(
        (f.name, f.json_name, f.is_repeated, _leaf(f.message_type) if f.is_repeated else None)
        for f in desc.fields
        if f.type == F.TYPE_MESSAGE and not is_map(f) and _holds_enums(f.message_type)
    )
    quick = tuple((name, known) for name, _, known, _, repeated in enums if not repeated)
    return enums, walk, quick


def _leaf(desc: _d.Descriptor) -> tuple | None:
    """A message type's single enum fields as (name, numbers) when it holds nothing else
    with an enum (no repeated enum, no message with one below), else None."""
    _, walk, quick = _plan_of(desc)
    repeated = any(f.type == F.TYPE_ENUM and f.is_repeated for f in desc.fields)
    return None if walk or repeated else quick


def _holds_enums(desc: _d.Descriptor, seen: frozenset = frozenset()) -> bool:
    """Whether a message type, or any message below it, has an enum field (maps aside:
    the schema's requests have none with enum values)."""
    if desc in seen:
        return False
    if any(f.type == F.TYPE_ENUM for f in desc.fields):
        return True
    below = seen | {desc}
    return any(
        _holds_enums(f.message_type, below)
        for f in desc.fields
        if f.type == F.TYPE_MESSAGE and not is_map(f)
    )
