"""Proto3 JSON requests read into protobuf messages, for the REST gateway and the CLI
(docs/api.md#json). The transports' one JSON module: it also offers the text layer
(``loads``, ``dumps``, ``dumps_bytes``: ``service.codec.json_text``) and answers rendered
as proto3 JSON (``to_dict``: ``service.codec.json_render``).

``decode(text, RequestType)`` walks the JSON against the message descriptor once, filling the
message as it goes, and collects *every* problem with its field path (unknown fields, wrong
types, unknown enum names, values the message refuses) instead of stopping at the first;
the required-field check (``service.codec.required``) runs after it, in
``service.pipeline.api``, on every transport. Input accepts lowerCamelCase and snake_case
names; ``null`` means "not set". ``loads`` reads the text (orjson, with the ``json`` module
as the reference for anything orjson refuses).

tests/json_reference.py keeps a second, plainer reading (a walk to a clean dict, then
json_format.ParseDict) as the oracle this one is compared with.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf import descriptor as _d
from google.protobuf.message import Message

from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.problems import InvalidInput, Problem

from ..base.descriptors import (
    F,
    fields_by_json_key,
    is_map,
    is_synthetic_oneof,
    join,
)
from ..base.errors import ProblemList, Problems, too_many_items
from .json_render import to_dict
from .json_scalars import (
    INT_RANGES,
    Refused,
    check_scalar,
    enum_number,
    plain_ints,
)
from .json_text import MALFORMED_JSON, dumps, dumps_bytes, loads

__all__ = [
    "MALFORMED_JSON",
    "ITEM_LIMITS",
    "loads",
    "decode",
    "decode_dict",
    "to_dict",
    "dumps",
    "dumps_bytes",
]

_BAD = object()


# -- reading ------------------------------------------------------------------------------


def decode(text: str | bytes, message_type: type[Message]) -> tuple[Message, Problems]:
    """Lenient parse for transports: the message built from every well-formed part, and
    the structural problems found (unknown fields, types, enum names), *without* the
    required-field check (``service.pipeline.api`` runs it on every transport and reports it
    together with the problems conversion finds). Raises InvalidInput only for text that
    is not a JSON object."""
    return decode_dict(loads(text), message_type)


#: Actions one ReplayDeal replays (``service.pipeline.api`` holds the protobuf request to it).
MAX_REPLAY_ACTIONS = 2000
#: Message full name -> {top-level JSON field: (method, most items)}: longer lists are
#: refused (RESOURCE_EXHAUSTED) before their items are walked (a megabyte of JSON holds
#: forty thousand actions).
ITEM_LIMITS: dict[str, dict[str, tuple[str, int]]] = {
    "samba.v1.ReplayDealRequest": {"actions": ("ReplayDeal", MAX_REPLAY_ACTIONS)},
}


def _check_item_limits(data: dict, desc: _d.Descriptor) -> None:
    for key, (method, limit) in ITEM_LIMITS.get(desc.full_name, {}).items():
        items = data.get(key)
        if isinstance(items, list) and len(items) > limit:
            raise too_many_items(method, key, limit, len(items))


def decode_dict(data: Any, message_type: type[Message]) -> tuple[Message, Problems]:
    """``decode`` for JSON already read (``loads``)."""
    if not isinstance(data, dict):
        raise InvalidInput([Problem("", MALFORMED_JSON, "the request must be a JSON object")])
    _check_item_limits(data, message_type.DESCRIPTOR)
    problems: Problems = ProblemList()
    msg = message_type()
    _walk_into(data, msg, message_type.DESCRIPTOR, "", problems)
    return msg, problems


# -- the walk: check and fill at once -----------------------------------------------------
# The common values (an int in range, a known enum name, a bool, a string, a list of
# strings) are checked inline; anything else goes through ``check_scalar``. A value the
# message still refuses when set (text with an unpaired surrogate, which is not UTF-8) is
# reported at its path like any other problem.

_INTO_PLANS: dict = {}  # Descriptor -> _into_plan(descriptor)
_ONLY_STR = frozenset({str})
#: setter(value, msg, field, extra, path, json name, problems): check ``value`` and set it
#: (``path``: the message's; the field's is written out only when a problem or a nested
#: message needs it).
Setter = Callable[[Any, Message, _d.FieldDescriptor, Any, str, str, Problems], None]


def _into_plan(desc: _d.Descriptor) -> dict[str, tuple]:
    """JSON key -> (field, proto name, json name, real oneof or None, setter, extra,
    aliased: the field has two keys (``deal_number``, ``dealNumber``), plain: (type, low,
    high) for an int, bool or string field, checked inline, else None)."""
    plan = _INTO_PLANS.get(desc)
    if plan is None:
        plan = {}
        for key, f in fields_by_json_key(desc).items():
            o = f.containing_oneof
            oneof = o.name if o is not None and not is_synthetic_oneof(o) else None
            setter, extra = _setter(f)
            plain = (
                (int, *extra)
                if setter is _int_into
                else (extra, None, None)
                if setter is _typed_into
                else None
            )
            plan[key] = (f, f.name, f.json_name, oneof, setter, extra, f.name != f.json_name, plain)
        _INTO_PLANS[desc] = plan
    return plan


def _setter(f: _d.FieldDescriptor) -> tuple[Setter, Any]:
    if is_map(f):
        return _map_into, None
    if f.type == F.TYPE_MESSAGE:
        return (_messages_into if f.is_repeated else _message_into), None
    if f.is_repeated:
        return _list_into, None
    if f.type in INT_RANGES:
        return _int_into, INT_RANGES[f.type]
    if f.type == F.TYPE_ENUM:
        return _enum_into, {v.name: v.number for v in f.enum_type.values}
    if f.type == F.TYPE_BOOL:
        return _typed_into, bool
    if f.type == F.TYPE_STRING:
        return _typed_into, str
    return _scalar_into, None


def _walk_into(obj: dict, msg: Message, desc: _d.Descriptor, path: str, problems: Problems) -> None:
    """Fill ``msg`` (of ``desc``) from the JSON object ``obj`` found at ``path``, adding every
    problem to ``problems``; what is refused is left unset."""
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
        try:
            if (
                plain is not None
                and type(value) is plain[0]
                and (plain[1] is None or plain[1] <= value <= plain[2])
            ):
                setattr(msg, name, value)  # an int in range, a bool, a string
            else:
                setter(value, msg, f, extra, path, json_name, problems)
        except (TypeError, ValueError) as e:  # checked, and still refused by the message
            _refused_by_message(msg, f, value, join(path, json_name), e, problems)


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


def _not_an_object(path: str, desc: _d.Descriptor, problems: Problems) -> None:
    problems.append(
        problem(
            path,
            "OUT_OF_RANGE",
            "{field} must be a JSON object ({message})",
            field=path or "request",
            message=desc.name,
        )
    )


def _refused_by_message(
    msg: Message, f: _d.FieldDescriptor, value: Any, path: str, error: Exception, problems: Problems
) -> None:
    """A checked value the message would not take: each item of a list or map that it
    refuses is reported at its own path, and the others kept."""
    if is_map(f) or f.type == F.TYPE_MESSAGE or not f.is_repeated:
        problems.append(problem(path, "OUT_OF_RANGE", "{field}: {error}", field=path, error=error))
        return
    target = getattr(msg, f.name)
    del target[:]
    for i, item in enumerate(value):
        try:
            target.append(enum_number(f, item) if f.type == F.TYPE_ENUM else item)
        except (TypeError, ValueError) as e:
            item = f"{path}[{i}]"
            problems.append(problem(item, "OUT_OF_RANGE", "{field}: {error}", field=item, error=e))


def _checked(value: Any, f: _d.FieldDescriptor, path: str, problems: Problems) -> Any:
    """``check_scalar``'s value ready to set (an enum as its number), or _BAD, reported."""
    out = check_scalar(value, f, path)
    if type(out) is Refused:
        problems.append(problem(path, "OUT_OF_RANGE", out.template, **out.params))
        return _BAD
    return enum_number(f, out) if f.type == F.TYPE_ENUM else out


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
    """A scalar the inline checks did not take: ``check_scalar`` decides."""
    value = _checked(value, f, join(path, json_name), problems)
    if value is not _BAD:
        setattr(msg, f.name, value)


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
    path = join(path, json_name)
    if type(value) is not list:
        problems.append(problem(path, "OUT_OF_RANGE", "{field} must be a JSON array", field=path))
        return
    target = getattr(msg, f.name)
    if f.type == F.TYPE_STRING and _ONLY_STR.issuperset(map(type, value)):
        target.extend(value)  # card lists: the bulk of a snapshot
        return
    if plain_ints(value, f):
        target.extend(value)  # a megabyte holds half a million: not one by one
        return
    items = []
    for i, item in enumerate(value):
        ip = f"{path}[{i}]"
        if item is None:
            problems.append(problem(ip, "OUT_OF_RANGE", "{field} must not be null", field=ip))
            continue
        checked = _checked(item, f, ip, problems)
        if checked is not _BAD:
            items.append(checked)
    target.extend(items)


def _map_into(
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
        problems.append(problem(path, "OUT_OF_RANGE", "{field} must be a JSON object", field=path))
        return
    key_f = f.message_type.fields_by_name["key"]
    val_f = f.message_type.fields_by_name["value"]
    target = getattr(msg, f.name)
    for k, v in value.items():
        kp = f"{path}.{k}"
        key = k if key_f.type == F.TYPE_STRING else _checked(k, key_f, kp, problems)
        if key is _BAD:
            continue
        if v is None:
            problems.append(problem(kp, "OUT_OF_RANGE", "{field} must not be null", field=kp))
        elif val_f.type != F.TYPE_MESSAGE:
            checked = _checked(v, val_f, kp, problems)
            if checked is not _BAD:
                _set_entry(target, key, checked, kp, problems)
        elif isinstance(v, dict):
            _walk_into(v, target[key], val_f.message_type, kp, problems)
        else:
            _not_an_object(kp, val_f.message_type, problems)


def _set_entry(target: Any, key: Any, value: Any, path: str, problems: Problems) -> None:
    try:
        target[key] = value
    except (TypeError, ValueError) as e:
        problems.append(problem(path, "OUT_OF_RANGE", "{field}: {error}", field=path, error=e))


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
        _not_an_object(path, f.message_type, problems)
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
            _not_an_object(ip, desc, problems)
        else:
            _walk_into(item, target.add(), desc, ip, problems)
