"""proto3 JSON out: answers rendered for REST and the CLI (docs/api.md#json).

``to_dict`` is lowerCamelCase, every field printed (zeros, false, empty lists) except fields
with presence (``optional`` scalars, messages), absent when unset; the text is
``service.codec.json_text.dumps``.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor as _d
from google.protobuf import json_format
from google.protobuf.message import Message

from ..base.descriptors import F, is_map


def to_dict(msg: Message) -> dict:
    """The proto3 JSON of an answer: lowerCamelCase, every field without presence printed,
    keys in schema order (json_format prints set fields first, defaults after), map keys
    sorted."""
    return _ordered(
        json_format.MessageToDict(msg, always_print_fields_with_no_presence=True), msg.DESCRIPTOR
    )


def _ordered(d: Any, desc: _d.Descriptor) -> Any:
    if not isinstance(d, dict):
        return d
    out = {}
    for f in desc.fields:
        if f.json_name not in d:
            continue
        v = d[f.json_name]
        if f.type == F.TYPE_MESSAGE:
            if is_map(f):
                # sorted keys: a map iterates in an order that changes between processes,
                # and replicas must answer byte for byte the same
                vf = f.message_type.fields_by_name["value"]
                if vf.type == F.TYPE_MESSAGE:
                    v = {k: _ordered(v[k], vf.message_type) for k in sorted(v)}
                else:
                    v = {k: v[k] for k in sorted(v)}
            elif isinstance(v, list):
                v = [_ordered(x, f.message_type) for x in v]
            else:
                v = _ordered(v, f.message_type)
        out[f.json_name] = v
    for k, v in d.items():  # anything json_format added that the loop did not (none today)
        out.setdefault(k, v)
    return out
