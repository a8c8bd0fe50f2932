"""The snapshot read from proto3 JSON straight into engine values, written out of the same
field tables as the protobuf reader (``codegen.snapshot_code``): REST's way in without a
protobuf message between the JSON and the engine (docs/performance.md, "REST's snapshot").

For each message of a snapshot, ``_json_<M>(d, path, index, problems)`` takes every field
of the JSON object ``d`` (its lowerCamelCase or its proto name), checks it is of the JSON
type the service itself writes (a number for an int32, a name for an enum, an array of
strings for cards...), checks the REQUIRED fields, then reads the engine value with the
protobuf reader's expressions (``fields.READ``, ``msg.x`` standing for the local the JSON
gave). ``read_json(obj, path)`` is the snapshot, or None as soon as the text is anything
else: an unknown key, a field under both its names, a null, a value proto3 JSON allows in
another form (an int as a string, an enum by number), a REQUIRED field unset, a problem a
READ expression finds (a card code, a meld kind, the ruleset reference). None sends the
request the long way (``service.codec.jsonio``, then the protobuf reader), which reports
every problem at its path: this reader never writes one, so the two cannot disagree on a
refusal, and tests/test_ways_in.py holds that whenever it answers, json_format reads the
same snapshot, and the protobuf reader the same engine value, without a problem.

``disagreements_json(obj, snap, path)`` is ``disagreements`` over the JSON object the reader
took (the given output-only fields compared with the engine's), for the loader's check.
"""

from __future__ import annotations

import re
from typing import Any

from .fields import (
    CARDS,
    DROPS,
    EMBEDDED,
    ENUM,
    INT,
    INTS,
    MESSAGE,
    MESSAGES,
    READ_EMPTY,
    RESOLVES,
    SNAPSHOT,
    TEXT,
    Field,
    Table,
)

#: What the generated module adds to ``snapshot_code.HEADER``.
HEADER = '''

class _Unclean(Exception):
    """Raised by the JSON reader: the text is read the long way."""


_ABSENT: Any = object()
_ONLY_STR = frozenset({str})
_ONLY_INT = frozenset({int})
_ONLY_DICT = frozenset({dict})


def _int32s(value: Any) -> tuple[int, ...]:
    if type(value) is not list or not _ONLY_INT.issuperset(map(type, value)):
        raise _Unclean
    if value and not (-2147483648 <= min(value) and max(value) <= 2147483647):
        raise _Unclean
    return tuple(value)


def _embedded(value: Any, message_type: Any) -> Any:
    """A message the codec reads whole (the ruleset reference), read as jsonio reads it."""
    if type(value) is not dict:
        raise _Unclean
    msg, problems = decode_dict(value, message_type)
    if problems:
        raise _Unclean
    return msg
'''

_MSG = re.compile(r"\bmsg\.(\w+)")
_INT32 = "-2147483648 <= v <= 2147483647"


def _local(f: Field) -> str:
    return f"f_{f.name}"


def _default(f: Field) -> str:
    """The local's value when the field is absent: what the protobuf message answers."""
    if f.presence or f.kind in (MESSAGE, EMBEDDED):
        return "None"
    if f.repeated:
        return "()"
    return repr(f.descriptor.default_value)


def _take(out: Any, t: Table, f: Field) -> list[str]:
    """The lines that check the JSON value ``v`` of field ``f`` and keep it in its local."""
    x, kind, sub = _local(f), f.kind, f.table
    if kind == INT and f.descriptor.type == f.descriptor.TYPE_BOOL:
        return ["if type(v) is not bool:", "    raise _Unclean", f"{x} = v"]
    if kind == INT:
        return [f"if type(v) is not int or not {_INT32}:", "    raise _Unclean", f"{x} = v"]
    if kind == TEXT:
        return ["if type(v) is not str:", "    raise _Unclean", f"{x} = v"]
    if kind == CARDS:
        test = "type(v) is not list or not _ONLY_STR.issuperset(map(type, v))"
        return [f"if {test}:", "    raise _Unclean", f"{x} = tuple(v)"]
    if kind == INTS:
        return [f"{x} = _int32s(v)"]
    if kind == ENUM:
        names = {v.name: v.number for v in f.descriptor.enum_type.values}
        known = out.constant(f"_{t.name}_{f.name}_names_json", repr(names))
        return [
            f"{x} = {known}.get(v) if type(v) is str else None",
            f"if {x} is None:",
            "    raise _Unclean",
        ]
    if kind == EMBEDDED:
        return [f"{x} = _embedded(v, pb.{f.descriptor.message_type.name})"]
    if kind == MESSAGE and sub is not None:
        lines = ["if type(v) is not dict:", "    raise _Unclean", f"{x} = v"]
        return lines if f.read else [*lines, f"_check_{sub.name}(v, problems)"]
    if kind == MESSAGES and sub is not None:
        test = "type(v) is not list or not _ONLY_DICT.issuperset(map(type, v))"
        lines = [f"if {test}:", "    raise _Unclean", f"{x} = v"]
        each = ["for item in v:", f"    _check_{sub.name}(item, problems)"]
        return lines if f.read else [*lines, *each]
    return ["raise _Unclean"]  # a kind the snapshot's messages do not have


def _fields(out: Any, t: Table) -> list[str]:
    """Every field taken from ``d`` (each key counted: one left over is unknown or a
    field given under both its names), then the REQUIRED ones tested."""
    body = ["found = 0"]
    for f in t.fields:
        body.append(f"{_local(f)}: Any = {_default(f)}")
        body.append(f"v = d.get({f.json_name!r}, _ABSENT)")
        if f.name != f.json_name:
            body += ["if v is _ABSENT:", f"    v = d.get({f.name!r}, _ABSENT)"]
        body += ["if v is not _ABSENT:", "    found += 1"]
        body += [f"    {line}" for line in _take(out, t, f)]
    body += ["if found != len(d):", "    raise _Unclean"]
    for f in t.fields:
        if f.required:
            x = _local(f)
            unset = (
                f"not {x}"
                if f.repeated
                else f"{x} is None"
                if f.descriptor.has_presence
                else f"{x} == {f.descriptor.default_value!r}"
            )
            body += [f"if {unset}:", "    raise _Unclean"]
    return body


def _read_value(out: Any, t: Table, f: Field) -> str:
    """The protobuf reader's expression of field ``f`` (``snapshot_code._read_value``) over
    the locals the JSON gave."""
    from .snapshot_code import _unset  # the protobuf reader's stand-ins, shared

    x, kind, sub = _local(f), f.kind, f.table
    at = f'f"{{path}}.{f.json_name}"'
    if f.reader is not None:
        return _MSG.sub(r"f_\1", f.reader)
    if kind == MESSAGES and sub is not None:
        return f"_json_{sub.name}_list({x}, {at}, problems)"
    if kind == MESSAGE and sub is not None:
        if f.unset is READ_EMPTY:
            return f"_json_{sub.name}({x} if {x} is not None else {{}}, {at}, 0, problems)"
        return (
            f"_json_{sub.name}({x}, {at}, 0, problems) if {x} is not None else {_unset(out, t, f)}"
        )
    if f.presence:
        return f"{x} if {x} is not None else {_unset(out, t, f)}"
    if kind == ENUM:
        members = out.constant(f"_{t.name}_{f.name}_members", _literal_members(f))
        return f"{members}[{x}] if {x} else {_unset(out, t, f)}"
    return x


def _literal_members(f: Field) -> str:
    from .snapshot_code import _literal

    return _literal(f.members)


def reader(out: Any, t: Table) -> None:
    """``_json_<M>`` (a message read into its engine value) and ``_check_<M>`` (its fields
    checked only: an output-only message, the pile)."""
    from .snapshot_code import _engine_type

    params = "d: Any, path: str, index: int, problems: Problems"
    taken = _fields(out, t)
    if t.engine is None or not t.reads or not hasattr(t.engine, "__dataclass_fields__"):
        out.function(f"def _check_{t.name}(d: Any, problems: Problems) -> None:", taken)
        return
    out.function(
        f"def _check_{t.name}(d: Any, problems: Problems) -> None:",
        [f"_json_{t.name}(d, '', 0, problems)"],
    )
    body = ["start = len(problems)"] if any("start" in (f.reader or "") for f in t.reads) else []
    body += taken
    names: list[str] = []
    for f in t.reads:
        if f.kind == CARDS and f.reader is None:
            at = f'f"{{path}}.{f.json_name}"'
            body += [
                f"{f.attribute} = {_local(f)}",
                f"if not _CARD_CODES.issuperset({f.attribute}):",
                f"    {f.attribute} = _cards_at({f.attribute}, {at}, problems)",
            ]
            names.append(f.attribute)
            continue
        body.append(f"{f.attribute} = {_read_value(out, t, f)}")
        names += f.attribute.split(", ")
        if f"{t.name}.{f.name}" in DROPS:  # a problem was found: the long way reports it
            body += [f"if {f.attribute} is DROP:", "    raise _Unclean"]
    if t is SNAPSHOT:
        body += [f"if {RESOLVES} is None:", "    raise _Unclean"]
    engine = _engine_type(t)
    body.append(f"return {engine}({', '.join(f'{n}={n}' for n in names)})")
    out.function(f"def _json_{t.name}({params}) -> Any:", body)
    out.function(
        f"def _json_{t.name}_list(items: Any, path: str, problems: Problems) -> Any:",
        [
            "return tuple([_json_" + t.name + '(item, f"{path}[{i}]", i, problems)',
            "              for i, item in enumerate(items)])",
        ],
    )


# -- the output-only check over the JSON --------------------------------------------------


def _get(f: Field) -> str:
    if f.name == f.json_name:
        return f"d.get({f.json_name!r})"
    return f"d.get({f.json_name!r}, d.get({f.name!r}))"


def _given(out: Any, t: Table, f: Field) -> str:
    """The given value as the protobuf message holds it (an enum's name as its number)."""
    if f.kind == ENUM:
        names = {v.name: v.number for v in f.descriptor.enum_type.values}
        known = out.constant(f"_{t.name}_{f.name}_names_json", repr(names))
        return f"{known}.get({_get(f)}, 0)"
    return f"{_get(f)} or {_default(f) if _default(f) != 'None' else '0'}"


def comparer(out: Any, t: Table, every: bool, made: set[tuple[str, bool]]) -> str:
    """``snapshot_code._comparer`` over the JSON object ``d`` the reader took."""
    from .snapshot_code import _compare_value, _value

    name = f"_compare_json_{t.name}_{int(every)}"
    if (t.name, every) in made:
        return name
    made.add((t.name, every))
    body: list[str] = []
    for f in t.fields:
        checked = every or f.checked
        where = f'f"{{path}}.{f.json_name}"'
        sub, n = f.table, f.number
        if f.kind in (MESSAGE, MESSAGES):
            if sub is None or not (checked or sub.has_output_only):
                continue
            below = comparer(out, sub, checked, made)
            if f.kind == MESSAGE:
                body += [
                    f"given{n} = {_get(f)}",
                    f"if given{n} is not None:",
                    f"    {below}(given{n}, {_value(f)}, snap, {where}, out)",
                ]
            else:
                items = f"zip({_get(f)} or (), {_value(f)}, strict=True)"
                at = f'f"{{path}}.{f.json_name}[{{i}}]"'
                body += [
                    f"for i, (given{n}, engine{n}) in enumerate({items}):",
                    f"    {below}(given{n}, engine{n}, snap, {at}, out)",
                ]
        elif checked:
            if not body or body[0] != "given: Any":
                body[:0] = ["given: Any", "actual: Any"]
            body += [f"given = {_given(out, t, f)}", "if given:", f"    actual = {_value(f)}"]
            body += [f"    {line}" for line in _compare_value(out, t, f, where)]
    params = "d: Any, obj: Any, snap: m.Snapshot, path: str, out: list[Any]"
    out.function(f"def {name}({params}) -> None:", body or ["pass"])
    return name


API = '''

def read_json(obj: Any, path: str) -> m.Snapshot | None:
    """The snapshot in JSON object ``obj``, or None: read it the long way."""
    problems: list[Any] = []
    try:
        snap = _json_Snapshot(obj, path, 0, problems)
    except _Unclean:
        return None
    return None if problems else snap


def disagreements_json(obj: Any, snap: m.Snapshot, path: str) -> list[Any]:
    """``disagreements`` of the JSON object ``read_json`` read ``snap`` from."""
    out: list[Any] = []
    {compare}(obj, snap, snap, path, out)
    return out
'''
