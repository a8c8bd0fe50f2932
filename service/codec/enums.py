"""Enum values the schema does not define, refused on every transport: one check, driven
by the descriptors (docs/api.md#json).

proto3 enums are open: a protobuf request may carry any int32 in an enum field, and the
parsed message keeps it (``reveal: 7``, ``computer.level: 99``). The JSON walk refuses such
a value as it reads it (``service.codec.json_scalars``); ``unknown_values`` refuses the
same ones, with the same problem, in a message read from protobuf or built in process, and
clears each, so that the message holds only values the schema defines (as the JSON walk
leaves a refused value unset) and a missing REQUIRED field is not reported beside it.

Each message type's check is written out at build time (``snapshot_code.ENUM_CHECKS``, by
codegen/enum_check.py): it visits only the fields that can hold an enum (the enum fields,
and the message fields with one below them), and makes a path only for a value it refuses,
so a request without enums costs one dict lookup.
"""

from __future__ import annotations

from google.protobuf.message import Message

from ..base.errors import ProblemList, Problems
from .snapshot_code import ENUM_CHECKS


def unknown_values(
    msg: Message, path: str, problems: Problems, skip: str = "", clear: bool = True
) -> None:
    """Append a problem for each enum value in ``msg`` (and the messages below it) that
    its enum does not define, at its JSON path below ``path``, and clear it (``clear``
    False: leave it). ``skip``: a top-level field (proto name) left out (a snapshot loaded
    before: checked then)."""
    check = ENUM_CHECKS.get(msg.DESCRIPTOR.full_name)
    if check is not None:
        check(msg, path, problems, skip, clear)


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
