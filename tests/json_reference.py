"""A second, plainer reading of proto3 JSON requests: the oracle ``service.codec.jsonio``'s
one-pass walk is compared with (tests/service/codec/test_jsonio.py), and the strict parse
the tests use.

The reference walks the JSON to a clean dict (JSON names, values of the right types, every
problem with its path), then lets json_format.ParseDict, protobuf's own reader, build the
message from it. The service fills the message while it walks, several times faster; on
every request both must build the same message and report the same problems in the same
order.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor as _d
from google.protobuf import json_format
from google.protobuf.message import Message

from samba_adjudicator.engine.problems import InvalidInput, Problem
from samba_adjudicator.service.base.descriptors import (
    F,
    fields_by_json_key,
    is_map,
    is_synthetic_oneof,
    join,
)
from samba_adjudicator.service.base.errors import ProblemList
from samba_adjudicator.service.codec import jsonio
from samba_adjudicator.service.codec.json_scalars import Refused, check_scalar
from samba_adjudicator.service.codec.required import with_required

_BAD = object()


def parse_request(text: str | bytes, message_type: type[Message]) -> Message:
    """``text`` read as ``message_type`` the way the service reads a request (the walk, then
    the required fields), or InvalidInput with every problem."""
    msg, problems = jsonio.decode(text, message_type)
    problems = with_required(msg, problems)
    if problems:
        raise InvalidInput(problems)
    return msg


def decode_in_two_passes(data: dict, message_type: type[Message]) -> tuple[Message, list]:
    """(message, problems) of the reference: the walk to a clean dict, then ParseDict."""
    problems: list[Problem] = ProblemList()
    clean = walk_message(data, message_type.DESCRIPTOR, "", problems)
    msg = message_type()
    json_format.ParseDict(clean, msg)
    return msg, problems


def walk_message(obj: Any, desc: _d.Descriptor, path: str, problems: list) -> Any:
    if not isinstance(obj, dict):
        problems.append(
            Problem(
                path, "OUT_OF_RANGE", f"{path or 'request'} must be a JSON object ({desc.name})"
            )
        )
        return _BAD
    out: dict[str, Any] = {}
    given: dict[str, str] = {}
    chosen: dict[str, str] = {}
    for key, value in obj.items():
        f = fields_by_json_key(desc).get(key) if isinstance(key, str) else None
        if f is None:
            fpath = join(path, str(key))
            problems.append(
                Problem(fpath, "UNKNOWN_FIELD", f"unknown field {key!r} in {desc.full_name}")
            )
            continue
        fpath = join(path, f.json_name)
        if f.json_name in given:
            first = given[f.json_name]
            problems.append(
                Problem(fpath, "OUT_OF_RANGE", f"{fpath} given twice (as {first!r} and {key!r})")
            )
            continue
        given[f.json_name] = key
        if value is None:  # proto3 JSON: null means "not set"
            continue
        o = f.containing_oneof
        if o is not None and not is_synthetic_oneof(o):
            if o.name in chosen:
                other = join(path, chosen[o.name])
                text = f"{other} and {fpath} are alternatives; give only one"
                problems.append(Problem(fpath, "OUT_OF_RANGE", text))
                continue
            chosen[o.name] = f.json_name
        value = _walk_field(value, f, fpath, problems)
        if value is not _BAD:
            out[f.json_name] = value
    return out


def _walk_field(value: Any, f: _d.FieldDescriptor, path: str, problems: list) -> Any:
    if is_map(f):
        return _walk_map(value, f, path, problems)
    if f.is_repeated:
        return _walk_list(value, f, path, problems)
    return _walk_value(value, f, path, problems)


def _walk_map(value: Any, f: _d.FieldDescriptor, path: str, problems: list) -> Any:
    if not isinstance(value, dict):
        problems.append(Problem(path, "OUT_OF_RANGE", f"{path} must be a JSON object"))
        return _BAD
    key_f = f.message_type.fields_by_name["key"]
    val_f = f.message_type.fields_by_name["value"]
    out = {}
    for k, v in value.items():
        kp = f"{path}.{k}"
        if key_f.type != F.TYPE_STRING and _walk_value(k, key_f, kp, problems) is _BAD:
            continue
        if v is None:
            problems.append(Problem(kp, "OUT_OF_RANGE", f"{kp} must not be null"))
            continue
        v2 = _walk_value(v, val_f, kp, problems)
        if v2 is not _BAD:
            out[k] = v2
    return out


def _walk_list(value: Any, f: _d.FieldDescriptor, path: str, problems: list) -> Any:
    if not isinstance(value, list):
        problems.append(Problem(path, "OUT_OF_RANGE", f"{path} must be a JSON array"))
        return _BAD
    out = []
    for i, item in enumerate(value):
        ip = f"{path}[{i}]"
        if item is None:
            problems.append(Problem(ip, "OUT_OF_RANGE", f"{ip} must not be null"))
            continue
        v2 = _walk_value(item, f, ip, problems)
        if v2 is not _BAD:
            out.append(v2)
    return out


def _walk_value(value: Any, f: _d.FieldDescriptor, path: str, problems: list) -> Any:
    if f.type == F.TYPE_MESSAGE:
        return walk_message(value, f.message_type, path, problems)
    out = check_scalar(value, f, path)
    if type(out) is Refused:
        problems.append(Problem(path, "OUT_OF_RANGE", out.text))
        return _BAD
    return out
