"""Just enough of the protobuf wire format to find one top-level field in request bytes.

The gRPC transport uses ``split_field`` to look at a request's ``snapshot`` bytes before
parsing anything: when the service has already loaded exactly those bytes, only the rest of
the request (the action, the seat, ...) is parsed (see ``service.pipeline.decoding``);
``has_field`` and ``flag_set`` tell whether a request asks for something heavy before it is
parsed (``service.pipeline.heavy``).

Anything unusual (a malformed varint, a group, the field appearing twice — which protobuf
would merge — or with the wrong wire type) returns ``None``: the caller then parses the
whole request the ordinary way, which reports malformed bytes itself.
"""

from __future__ import annotations

_VARINT, _FIXED64, _LENGTH, _FIXED32 = 0, 1, 2, 5


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """(value, position after it); IndexError past the end, ValueError when too long."""
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _skip(data: bytes, pos: int, kind: int) -> int:
    """The position after a value of wire type ``kind`` (not length-delimited) at ``pos``;
    ValueError for groups (3, 4) and invalid wire types."""
    if kind == _VARINT:
        return _varint(data, pos)[1]
    if kind == _FIXED64:
        return pos + 8
    if kind == _FIXED32:
        return pos + 4
    raise ValueError(f"wire type {kind}")


def split_field(data: bytes, number: int, ordered: bool = False) -> tuple[bytes, bytes] | None:
    """``(payload of field `number`, the message without it)`` when the field occurs exactly
    once as a length-delimited field at the top level of ``data``; otherwise ``None``.
    ``ordered``: ``None`` too unless the top-level fields stand in number order, as a
    deterministic encoding writes them (the field where that order puts it)."""
    found: tuple[int, int, int] | None = None  # (tag start, payload start, payload end)
    pos, end, last = 0, len(data), 0
    try:
        while pos < end:
            start = pos
            tag, pos = _varint(data, pos)
            if ordered:
                if tag >> 3 < last:
                    return None
                last = tag >> 3
            kind = tag & 7
            if kind != _LENGTH:
                if tag >> 3 == number:
                    return None
                pos = _skip(data, pos, kind)
                continue
            size, pos = _varint(data, pos)
            if tag >> 3 == number:
                if found is not None:
                    return None
                found = (start, pos, pos + size)
            pos += size
    except (IndexError, ValueError):
        return None
    if pos != end or found is None:
        return None
    start, payload, stop = found
    return data[payload:stop], data[:start] + data[stop:]


def has_field(data: bytes, number: int) -> bool:
    """Whether field ``number`` occurs at the top level of ``data``; False for bytes that do
    not parse that far."""
    return _occurs(data, number, False)


def flag_set(data: bytes, number: int) -> bool:
    """Whether the top-level varint field ``number`` of ``data`` is anything but 0 in any of
    its occurrences; False for bytes that do not parse that far."""
    return _occurs(data, number, True)


def _occurs(data: bytes, number: int, flag: bool) -> bool:
    """Field ``number`` at the top level of ``data`` (``flag``: a varint other than 0),
    walking its fields' tags and skipping their values."""
    pos, end = 0, len(data)
    try:
        while pos < end:
            tag, pos = _varint(data, pos)
            if tag >> 3 == number and not flag:
                return True
            kind = tag & 7
            if kind == _LENGTH:
                size, pos = _varint(data, pos)
                pos += size
            elif kind == _VARINT:
                value, pos = _varint(data, pos)
                if tag >> 3 == number and value:
                    return True
            else:
                pos = _skip(data, pos, kind)
    except (IndexError, ValueError):
        return False
    return False
