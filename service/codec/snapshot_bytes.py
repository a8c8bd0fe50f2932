"""A snapshot's protobuf encoding written straight from engine values (docs/performance.md,
"the cold path").

``encode(snap)`` gives the bytes of the service's rendering of ``snap``, every output-only
field filled and ``signature`` left empty: exactly what ``pb.Snapshot.SerializeToString
(deterministic=True)`` gives for that message (Snapshot has no map fields, so every
serialization of it is deterministic). It is what a signature is computed over, and parsing
it back is how ``convert.snapshot_to_proto`` builds the message: one call into upb for the
whole snapshot instead of one per field and card (compiled: 0.7 times the time, encoding
alone 0.5-0.6 times building and serializing the message).

The writer is written out from the field tables at build time (``snapshot_code``, by
codegen/snapshot_code.py): every field of every message of a snapshot, its tag and where
its value comes from, stated once. The wire
format, as proto3 writes it: fields in number order; a scalar at its default (0,
``false``, ``""``) left out unless the field has presence (``optional``: ``Turn.seat``,
``Result.seat``); a negative int32 as a ten-byte varint; repeated int32 packed; every
element of a repeated string written, empty ones too; a set sub-message written even when
empty. tests/service/codec/test_snapshot_bytes.py holds the bytes to the protobuf
runtime's own on played deals of every profile, views, ended deals and rulesets with
overrides.
"""

from __future__ import annotations

from collections.abc import Callable

from samba_adjudicator.engine import model as m

from .snapshot_code import SIGNATURE, write_head, write_tail
from .snapshot_parts import varint

#: The field the signature goes in (``SIGNATURE``): written by ``rendering``, between the
#: others.
_SIGNATURE_TAG = varint(SIGNATURE << 3 | 2)


def _len_field(tag: bytes, payload: bytes) -> bytes:
    return tag + varint(len(payload)) + payload


def as_field(number: int, payload: bytes) -> bytes:
    """``payload``, a message's bytes, as field ``number`` of an enclosing message (tag,
    length, bytes): a snapshot or a message holding one, handed on as written."""
    return _len_field(varint(number << 3 | 2), payload)


def encode_as_field(number: int, snap: m.Snapshot) -> bytes:
    """``encode(snap)`` as field ``number`` of an enclosing message (tag, length, bytes)."""
    return as_field(number, encode(snap))


def encode(snap: m.Snapshot) -> bytes:
    """The deterministic protobuf bytes of the service's rendering of ``snap``, unsigned."""
    return write_head(snap) + write_tail(snap)


def rendering(snap: m.Snapshot, sign: Callable[[bytes], str] | None) -> tuple[bytes, str]:
    """(the bytes as answered, their signature): the signature ``sign`` makes over
    ``encode(snap)`` in its field, before the deal commitment (the message's own
    serialization), or ``encode(snap)`` and "" when ``sign`` is None. Written once, signed
    once, never parsed to be serialized again."""
    head, tail = write_head(snap), write_tail(snap)
    unsigned = head + tail
    signature = "" if sign is None else sign(unsigned)
    if not signature:
        return unsigned, ""
    return head + _len_field(_SIGNATURE_TAG, signature.encode()) + tail, signature
