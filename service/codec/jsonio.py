"""Proto3 JSON for the REST gateway and the CLI (docs/api.md#json).

``parse_request(text, RequestType)`` walks the JSON against the message descriptor and
collects *every* problem (unknown fields with their paths, wrong types, unknown enum names,
missing REQUIRED fields: ``service.codec.required``) before a message is filled; it raises
``engine.model.InvalidInput`` with all of them. Input accepts lowerCamelCase and snake_case
names; ``null`` means "not set". ``loads`` reads the text (orjson, with the ``json`` module
as the reference for anything orjson refuses); ``decode`` / ``decode_dict`` are the lenient
forms transports use (``service.pipeline.decoding``).

``to_dict``/``dumps`` render answers: lowerCamelCase, every field printed (zeros, false,
empty lists) except fields with presence (``optional`` scalars, messages), absent when unset.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

import orjson
from google.protobuf import descriptor as _d
from google.protobuf import json_format
from google.protobuf.message import Message

from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.model import InvalidInput, Problem
from samba_adjudicator.service.base.descriptors import (
    F,
    fields_by_json_key,
    fields_by_json_name,
    is_map,
    is_synthetic_oneof,
    join,
)
from samba_adjudicator.service.base.errors import ProblemList, Problems, too_many_items
from samba_adjudicator.service.codec.required import with_required

MALFORMED_JSON = "MALFORMED_JSON"
_INT_RANGES = {
    F.TYPE_INT32: (-(2**31), 2**31 - 1),
    F.TYPE_SINT32: (-(2**31), 2**31 - 1),
    F.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    F.TYPE_UINT32: (0, 2**32 - 1),
    F.TYPE_FIXED32: (0, 2**32 - 1),
    F.TYPE_INT64: (-(2**63), 2**63 - 1),
    F.TYPE_SINT64: (-(2**63), 2**63 - 1),
    F.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    F.TYPE_UINT64: (0, 2**64 - 1),
    F.TYPE_FIXED64: (0, 2**64 - 1),
}
_BAD = object()


# -- parsing ------------------------------------------------------------------------------


def parse_request(text: str | bytes, message_type: type[Message]) -> Message:
    """Parse a JSON request into ``message_type``, or raise InvalidInput with every problem."""
    msg, problems = decode(text, message_type)
    problems = with_required(msg, problems)
    if problems:
        raise InvalidInput(problems)
    return msg


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_dict(data: Any, message_type: type[Message]) -> Message:
    """Like ``parse_request`` for already decoded JSON."""
    msg, problems = decode_dict(data, message_type)
    problems = with_required(msg, problems)
    if problems:
        raise InvalidInput(problems)
    return msg


def loads(text: str | bytes) -> Any:
    """JSON text -> Python values, or InvalidInput (MALFORMED_JSON).

    orjson reads well-formed input several times faster than ``json``; anything it refuses
    (and any integer of 19 digits or more, which it would turn into a float) is read again
    by ``json``, whose result and error messages are the reference."""
    if not isinstance(text, str):
        text = bytes(text)
    if not _has_long_number(text):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    try:
        if not isinstance(text, str):
            text = text.decode("utf-8")
        data = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, UnicodeDecodeError) as e:
        raise InvalidInput(
            [problem("", MALFORMED_JSON, "the request is not valid JSON: {error}", error=e)]
        ) from None
    except RecursionError:
        raise InvalidInput(
            [Problem("", MALFORMED_JSON, "the request is nested too deeply")]
        ) from None
    return data


def _has_long_number(text: str | bytes) -> bool:
    """Whether 19 digits follow each other somewhere (a regex takes ten times longer)."""
    if isinstance(text, str):
        return _LONG_NUMBER_TEXT.search(text) is not None
    return _NINETEEN_ZEROS in text.translate(_DIGITS_TO_ZERO)


_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_NINETEEN_ZEROS = b"0" * 19
_LONG_NUMBER_TEXT = re.compile(r"[0-9]{19}")


def decode(text: str | bytes, message_type: type[Message]) -> tuple[Message, Problems]:
    """Lenient parse for transports: the message built from every well-formed part, and
    the structural problems found (unknown fields, types, enum names), *without* the
    required-field check (``service.pipeline.api`` runs it on every transport and reports it
    together with the problems conversion finds). Raises InvalidInput only for text that
    is not a JSON object."""
    return decode_dict(loads(text), message_type)


def decode_dict(data: Any, message_type: type[Message]) -> tuple[Message, Problems]:
    if not isinstance(data, dict):
        raise InvalidInput([Problem("", MALFORMED_JSON, "the request must be a JSON object")])
    return _decode_dict(data, message_type)


#: Message full name -> {top-level JSON field: (method, most items)}: longer lists are
#: refused (RESOURCE_EXHAUSTED) before their items are walked.
ITEM_LIMITS: dict[str, dict[str, tuple[str, int]]] = {}


def _check_item_limits(data: dict, desc: _d.Descriptor) -> None:
    for key, (method, limit) in ITEM_LIMITS.get(desc.full_name, {}).items():
        items = data.get(key)
        if isinstance(items, list) and len(items) > limit:
            raise too_many_items(method, key, limit, len(items))


def _decode_dict(data: dict, message_type: type[Message]) -> tuple[Message, Problems]:
    """One pass over the JSON object fills the message (``_walk_into``); a value the
    message refuses (a ``"NaN"`` double, base64 bytes, a float out of range) starts again
    with the two-pass reference: the walk to a clean dict, then ``_fill`` or, failing that,
    json_format. Both report the same problems in the same order."""
    _check_item_limits(data, message_type.DESCRIPTOR)
    problems: Problems = ProblemList()
    msg = message_type()
    try:
        _walk_into(data, msg, message_type.DESCRIPTOR, "", problems)
    except (TypeError, ValueError, KeyError):
        return _decode_dict_in_two_passes(data, message_type)
    return msg, problems


def _decode_dict_in_two_passes(data: dict, message_type: type[Message]) -> tuple[Message, Problems]:
    problems: Problems = ProblemList()
    clean = _walk_message(data, message_type.DESCRIPTOR, "", problems)
    msg = message_type()
    try:
        _fill(msg, clean)
    except (TypeError, ValueError, KeyError):  # not expected once the walk is clean:
        msg = message_type()  # let json_format have the last word
        try:
            json_format.ParseDict(clean, msg)
        except json_format.ParseError as e:
            problems.append(Problem("", "OUT_OF_RANGE", str(e)))
    return msg, problems


def _fill(msg: Message, clean: dict) -> None:
    """Set ``msg`` from a dict the walk has already checked (JSON names, values of the right
    types, enum names or numbers): what json_format.ParseDict does, several times faster."""
    fields = fields_by_json_name(msg.DESCRIPTOR)
    for key, value in clean.items():
        f = fields[key]
        if is_map(f):
            _fill_map(getattr(msg, f.name), f, value)
        elif f.is_repeated:
            _fill_list(getattr(msg, f.name), f, value)
        elif f.type == F.TYPE_MESSAGE:
            sub = getattr(msg, f.name)
            sub.SetInParent()
            _fill(sub, value)
        elif f.type == F.TYPE_ENUM:
            setattr(msg, f.name, _enum_number(f, value))
        else:
            setattr(msg, f.name, value)


def _fill_map(target: Any, f: _d.FieldDescriptor, value: dict) -> None:
    key_f = f.message_type.fields_by_name["key"]
    val_f = f.message_type.fields_by_name["value"]
    for k, v in value.items():
        k = k if key_f.type == F.TYPE_STRING else _as_int(k)
        if val_f.type == F.TYPE_MESSAGE:
            _fill(target[k], v)
        else:
            target[k] = _enum_number(val_f, v) if val_f.type == F.TYPE_ENUM else v


def _fill_list(target: Any, f: _d.FieldDescriptor, value: list) -> None:
    if f.type == F.TYPE_MESSAGE:
        for v in value:
            _fill(target.add(), v)
    elif f.type == F.TYPE_ENUM:
        target.extend(_enum_number(f, v) for v in value)
    else:
        target.extend(value)


def _enum_number(f: _d.FieldDescriptor, value: Any) -> int:
    return f.enum_type.values_by_name[value].number if isinstance(value, str) else value


def _walk_message(obj: Any, desc: _d.Descriptor, path: str, problems: Problems) -> Any:
    if not isinstance(obj, dict):
        problems.append(
            problem(
                path,
                "OUT_OF_RANGE",
                "{field} must be a JSON object ({type})",
                field=path or "request",
                type=desc.name,
            )
        )
        return _BAD
    fields = _walk_plan(desc)
    out: dict[str, Any] = {}
    given: dict[str, str] = {}
    chosen: dict[str, str] = {}
    for key, value in obj.items():
        entry = fields.get(key) if isinstance(key, str) else None
        if entry is None:
            _unknown_field(path, key, desc, problems)
            continue
        f, json_name, oneof = entry
        if json_name in given:
            _given_twice(path, json_name, given[json_name], key, problems)
            continue
        given[json_name] = key
        if value is None:  # proto3 JSON: null means "not set"
            continue
        if oneof is not None and not _choose(oneof, chosen, path, json_name, problems):
            continue
        value = _walk_field(value, f, join(path, json_name), problems)
        if value is not _BAD:
            out[f.json_name] = value
    return out


# -- the single pass: walk and fill at once ----------------------------------------------
# Each field is read the way ``_walk_message`` reads it and set the way ``_fill`` sets it.
# The common values (an int in range, a known enum name, a bool, a string, a list of
# strings) are checked inline; anything else goes through ``_walk_scalar`` / ``_walk_list``
# / ``_walk_map`` themselves, so problems and values are those of the two passes.

_INTO_PLANS: dict = {}  # Descriptor -> _into_plan(descriptor)
_ONLY_STR = frozenset({str})
#: setter(value, msg, field, extra, path, json name, problems): check ``value`` as the walk
#: does and set it as ``_fill`` does (``path``: the message's; the field's is written out
#: only when a problem or a nested message needs it).
Setter = Callable[[Any, Message, _d.FieldDescriptor, Any, str, str, Problems], None]


def _into_plan(desc: _d.Descriptor) -> dict[str, tuple]:
    """JSON key -> (field, proto name, json name, real oneof or None, setter, extra,
    aliased: the field has two keys (``deal_number``, ``dealNumber``), plain: (type, low,
    high) for an int, bool or string field, checked inline, else None)."""
    plan = _INTO_PLANS.get(desc)
    if plan is None:
        plan = {}
        for key, (f, json_name, oneof) in _walk_plan(desc).items():
            setter, extra = _setter(f)
            plain = (
                (int, *extra)
                if setter is _int_into
                else (extra, None, None)
                if setter is _typed_into
                else None
            )
            plan[key] = (f, f.name, json_name, oneof, setter, extra, f.name != json_name, plain)
        _INTO_PLANS[desc] = plan
    return plan


def _setter(f: _d.FieldDescriptor) -> tuple[Setter, Any]:
    if is_map(f):
        return _map_into, None
    if f.type == F.TYPE_MESSAGE:
        return (_messages_into if f.is_repeated else _message_into), None
    if f.is_repeated:
        return _list_into, None
    if f.type in _INT_RANGES:
        return _int_into, _INT_RANGES[f.type]
    if f.type == F.TYPE_ENUM:
        return _enum_into, {v.name: v.number for v in f.enum_type.values}
    if f.type == F.TYPE_BOOL:
        return _typed_into, bool
    if f.type == F.TYPE_STRING:
        return _typed_into, str
    return _scalar_into, None


def _walk_into(obj: dict, msg: Message, desc: _d.Descriptor, path: str, problems: Problems) -> None:
    """``_fill(msg, _walk_message(obj, desc, path, problems))`` in one pass (``obj`` is a
    dict)."""
    plan = _into_plan(desc)
    given: dict[str, str] = {}
    chosen: dict[str, str] = {}
    for key, value in obj.items():
        entry = plan.get(key) if isinstance(key, str) else None
        if entry is None:
            _unknown_field(path, key, desc, problems)
            continue
        f, name, json_name, oneof, setter, extra, aliased, plain = entry
        if aliased:  # only a field with two keys can be given twice
            if json_name in given:
                _given_twice(path, json_name, given[json_name], key, problems)
                continue
            given[json_name] = key
        if value is None:  # proto3 JSON: null means "not set"
            continue
        if oneof is not None and not _choose(oneof, chosen, path, json_name, problems):
            continue
        if (
            plain is not None
            and type(value) is plain[0]
            and (plain[1] is None or plain[1] <= value <= plain[2])
        ):
            setattr(msg, name, value)  # an int in range, a bool, a string
        else:
            setter(value, msg, f, extra, path, json_name, problems)


def _unknown_field(path: str, key: Any, desc: _d.Descriptor, problems: Problems) -> None:
    problems.append(
        problem(
            join(path, str(key)),
            "UNKNOWN_FIELD",
            "unknown field {key} in {type}",
            key=repr(key),
            type=desc.full_name,
        )
    )


def _given_twice(path: str, json_name: str, first: str, key: str, problems: Problems) -> None:
    fpath = join(path, json_name)
    problems.append(
        problem(
            fpath,
            "OUT_OF_RANGE",
            "{field} given twice (as {first} and {second})",
            field=fpath,
            first=repr(first),
            second=repr(key),
        )
    )


def _choose(
    oneof: str, chosen: dict[str, str], path: str, json_name: str, problems: Problems
) -> bool:
    """Whether this member of a real oneof is the first one given (else a problem)."""
    if oneof in chosen:
        fpath = join(path, json_name)
        problems.append(
            problem(
                fpath,
                "OUT_OF_RANGE",
                "{first} and {second} are alternatives; give only one",
                first=join(path, chosen[oneof]),
                second=fpath,
            )
        )
        return False
    chosen[oneof] = json_name
    return True


def _int_into(
    value: Any,
    msg: Message,
    f: _d.FieldDescriptor,
    extra: Any,
    path: str,
    json_name: str,
    problems: Problems,
) -> None:
    if type(value) is int and extra[0] <= value <= extra[1]:
        setattr(msg, f.name, value)
    else:
        _scalar_into(value, msg, f, extra, path, json_name, problems)


def _enum_into(
    value: Any,
    msg: Message,
    f: _d.FieldDescriptor,
    extra: Any,
    path: str,
    json_name: str,
    problems: Problems,
) -> None:
    number = extra.get(value) if type(value) is str else None
    if number is not None:
        setattr(msg, f.name, number)
    else:
        _scalar_into(value, msg, f, extra, path, json_name, problems)


def _typed_into(
    value: Any,
    msg: Message,
    f: _d.FieldDescriptor,
    extra: Any,
    path: str,
    json_name: str,
    problems: Problems,
) -> None:
    """A bool or string field (``extra``: its Python type)."""
    if type(value) is extra:
        setattr(msg, f.name, value)
    else:
        _scalar_into(value, msg, f, extra, path, json_name, problems)


def _scalar_into(
    value: Any,
    msg: Message,
    f: _d.FieldDescriptor,
    extra: Any,
    path: str,
    json_name: str,
    problems: Problems,
) -> None:
    """A scalar the inline checks did not take: the walk's own check, then ``_fill``'s
    setting."""
    value = _walk_scalar(value, f, join(path, json_name), problems)
    if value is not _BAD:
        setattr(msg, f.name, _enum_number(f, value) if f.type == F.TYPE_ENUM else value)


def _list_into(
    value: Any,
    msg: Message,
    f: _d.FieldDescriptor,
    extra: Any,
    path: str,
    json_name: str,
    problems: Problems,
) -> None:
    """A list of scalars (of strings, such as cards, without a look at each item)."""
    if f.type == F.TYPE_STRING and type(value) is list and _ONLY_STR.issuperset(map(type, value)):
        getattr(msg, f.name).extend(value)  # card lists: the bulk of a snapshot
        return
    items = _walk_list(value, f, join(path, json_name), problems)
    if items is not _BAD:
        _fill_list(getattr(msg, f.name), f, items)


def _map_into(
    value: Any,
    msg: Message,
    f: _d.FieldDescriptor,
    extra: Any,
    path: str,
    json_name: str,
    problems: Problems,
) -> None:
    entries = _walk_map(value, f, join(path, json_name), problems)
    if entries is not _BAD:
        _fill_map(getattr(msg, f.name), f, entries)


def _message_into(
    value: Any,
    msg: Message,
    f: _d.FieldDescriptor,
    extra: Any,
    path: str,
    json_name: str,
    problems: Problems,
) -> None:
    path = join(path, json_name)
    if not isinstance(value, dict):
        _walk_message(value, f.message_type, path, problems)  # reports it
        return
    sub = getattr(msg, f.name)
    sub.SetInParent()
    _walk_into(value, sub, f.message_type, path, problems)


def _messages_into(
    value: Any,
    msg: Message,
    f: _d.FieldDescriptor,
    extra: Any,
    path: str,
    json_name: str,
    problems: Problems,
) -> None:
    path = join(path, json_name)
    if not isinstance(value, list):
        problems.append(problem(path, "OUT_OF_RANGE", "{field} must be a JSON array", field=path))
        return
    target = getattr(msg, f.name)
    desc = f.message_type
    for i, item in enumerate(value):
        ip = f"{path}[{i}]"
        if item is None:
            problems.append(problem(ip, "OUT_OF_RANGE", "{field} must not be null", field=ip))
        elif not isinstance(item, dict):
            _walk_message(item, desc, ip, problems)  # reports it
        else:
            _walk_into(item, target.add(), desc, ip, problems)


_WALK_PLANS: dict = {}


def _walk_plan(desc: _d.Descriptor) -> dict[str, tuple]:
    """JSON key (json name or proto name) -> (field, json name, real oneof name or None)."""
    plan = _WALK_PLANS.get(desc)
    if plan is None:
        plan = {}
        for key, f in fields_by_json_key(desc).items():
            o = f.containing_oneof
            real = o.name if o is not None and not is_synthetic_oneof(o) else None
            plan[key] = (f, f.json_name, real)
        _WALK_PLANS[desc] = plan
    return plan


def _walk_field(value: Any, f: _d.FieldDescriptor, path: str, problems: Problems) -> Any:
    if is_map(f):
        return _walk_map(value, f, path, problems)
    if f.is_repeated:
        return _walk_list(value, f, path, problems)
    return _walk_value(value, f, path, problems)


def _walk_map(value: Any, f: _d.FieldDescriptor, path: str, problems: Problems) -> Any:
    if not isinstance(value, dict):
        problems.append(problem(path, "OUT_OF_RANGE", "{field} must be a JSON object", field=path))
        return _BAD
    key_f = f.message_type.fields_by_name["key"]
    val_f = f.message_type.fields_by_name["value"]
    out = {}
    for k, v in value.items():
        kp = f"{path}.{k}"
        if key_f.type != F.TYPE_STRING and _walk_scalar(k, key_f, kp, problems) is _BAD:
            continue
        if v is None:
            problems.append(problem(kp, "OUT_OF_RANGE", "{field} must not be null", field=kp))
            continue
        v2 = _walk_value(v, val_f, kp, problems)
        if v2 is not _BAD:
            out[k] = v2
    return out


def _walk_list(value: Any, f: _d.FieldDescriptor, path: str, problems: Problems) -> Any:
    if not isinstance(value, list):
        problems.append(problem(path, "OUT_OF_RANGE", "{field} must be a JSON array", field=path))
        return _BAD
    if f.type == F.TYPE_STRING and all(type(item) is str for item in value):
        return value  # card lists, the bulk of a snapshot: nothing to check per item
    out = []
    for i, item in enumerate(value):
        ip = f"{path}[{i}]"
        if item is None:
            problems.append(problem(ip, "OUT_OF_RANGE", "{field} must not be null", field=ip))
            continue
        v2 = _walk_value(item, f, ip, problems)
        if v2 is not _BAD:
            out.append(v2)
    return out


def _walk_value(value: Any, f: _d.FieldDescriptor, path: str, problems: Problems) -> Any:
    if f.type == F.TYPE_MESSAGE:
        return _walk_message(value, f.message_type, path, problems)
    return _walk_scalar(value, f, path, problems)


class _Refused:
    """A scalar of the wrong JSON type or out of range: why."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _walk_scalar(value: Any, f: _d.FieldDescriptor, path: str, problems: Problems) -> Any:
    check = _SCALARS.get(f.type, _unsupported)
    out = check(value, f, path)
    if type(out) is _Refused:
        problems.append(Problem(path, "OUT_OF_RANGE", out.text))
        return _BAD
    return out


def _enum_value(value: Any, f: _d.FieldDescriptor, path: str) -> Any:
    enum = f.enum_type
    if isinstance(value, str) and value in enum.values_by_name:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value in enum.values_by_number:
        return value
    known = ", ".join(v.name for v in enum.values if v.number != 0)
    return _Refused(f"{value!r} is not a value of {enum.name}; known: {known}")


def _integer(value: Any, f: _d.FieldDescriptor, path: str) -> Any:
    lo, hi = _INT_RANGES[f.type]
    n = _as_int(value)
    if n is None:
        return _Refused(f"{path} must be an integer")
    if not lo <= n <= hi:
        return _Refused(f"{path} must be in {lo}..{hi}")
    return n


def _boolean(value: Any, f: _d.FieldDescriptor, path: str) -> Any:
    return value if isinstance(value, bool) else _Refused(f"{path} must be true or false")


def _string(value: Any, f: _d.FieldDescriptor, path: str) -> Any:
    return value if isinstance(value, str) else _Refused(f"{path} must be a string")


def _number(value: Any, f: _d.FieldDescriptor, path: str) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity"):
        return value
    return _Refused(f"{path} must be a number")


def _base64(value: Any, f: _d.FieldDescriptor, path: str) -> Any:
    return value if isinstance(value, str) else _Refused(f"{path} must be a base64 string")


def _unsupported(value: Any, f: _d.FieldDescriptor, path: str) -> Any:
    return _Refused(f"{path}: unsupported field type")


#: Scalar field type -> check(value, field, path): the value to keep, or _Refused.
_SCALARS: dict[int, Callable[[Any, _d.FieldDescriptor, str], Any]] = {
    F.TYPE_ENUM: _enum_value,
    F.TYPE_BOOL: _boolean,
    F.TYPE_STRING: _string,
    F.TYPE_DOUBLE: _number,
    F.TYPE_FLOAT: _number,
    F.TYPE_BYTES: _base64,
    **dict.fromkeys(_INT_RANGES, _integer),
}


def _as_int(value: Any) -> int | None:
    """proto3 JSON integers: a number with no fraction, or a decimal string."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() else None
    if isinstance(value, str):
        s = value.strip()
        try:
            return int(s)
        except ValueError:
            try:
                x = float(s)
            except ValueError:
                return None
            return int(x) if math.isfinite(x) and x.is_integer() else None
    return None


# -- output -------------------------------------------------------------------------------


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


def dumps(body: Any) -> str:
    """The one JSON text rendering shared by REST and CLI (compact, UTF-8)."""
    return json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def dumps_bytes(body: Any) -> bytes:
    """``dumps(body)`` encoded as UTF-8 (orjson writes the same compact text faster; what it
    cannot write, e.g. a lone surrogate echoed in a message, goes through ``dumps``)."""
    try:
        return orjson.dumps(body)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return dumps(body).encode("utf-8", "backslashreplace")
