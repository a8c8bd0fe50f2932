"""The JSON reader takes a scalar exactly when protobuf's own reader does
(service/codec/json_scalars.py): ``google.protobuf.json_format.Parse`` is the oracle, over
edge values of every scalar kind, in strings and as JSON numbers. Where json_format's Python
conversions take more than proto3 JSON allows, the reader refuses, and each such case is
named in ``_REFUSED_ON_PURPOSE`` (a name there that no longer differs fails too, so the
list stays what it says)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

from samba_adjudicator.engine.problems import InvalidInput
from samba_adjudicator.service.codec import jsonio


def _edge_message() -> type:
    """A message with one field of each scalar kind (and an open enum, as proto3's are)."""
    fd = descriptor_pb2.FileDescriptorProto(name="edge.proto", package="edge", syntax="proto3")
    enum = fd.enum_type.add(name="Kind")
    for name, number in (("KIND_UNSPECIFIED", 0), ("ONE", 1), ("TWO", 2)):
        enum.value.add(name=name, number=number)
    message = fd.message_type.add(name="Edge")
    types = descriptor_pb2.FieldDescriptorProto
    for number, (name, kind) in enumerate(KINDS.items(), 1):
        field = message.field.add(name=name, number=number, type=kind, label=types.LABEL_OPTIONAL)
        if kind == types.TYPE_ENUM:
            field.type_name = ".edge.Kind"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("edge.Edge"))


_T = descriptor_pb2.FieldDescriptorProto
KINDS = {
    "int32": _T.TYPE_INT32,
    "int64": _T.TYPE_INT64,
    "uint32": _T.TYPE_UINT32,
    "uint64": _T.TYPE_UINT64,
    "bool": _T.TYPE_BOOL,
    "float": _T.TYPE_FLOAT,
    "double": _T.TYPE_DOUBLE,
    "enum": _T.TYPE_ENUM,
    "string": _T.TYPE_STRING,
    "bytes": _T.TYPE_BYTES,
}
EDGE = _edge_message()

_LIMITS = [2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32, 2**63 - 1, 2**63, -(2**63)]
_LIMITS += [-(2**63) - 1, 2**64 - 1, 2**64, 10**30]
#: Strings: spaces, exponents, signs, leading zeros, the limits, "-0", hex and other bases,
#: fractions, empty, underscores, other scripts' digits, float names, base64, enum names.
STRINGS = [
    *("2", " 2", "2 ", "\t2", "2\n", " ", "", "\u00a02", "\u0662", "\uff12"),
    *("1e1", "1E1", "1e-1", "1e+1", "1e400", "-1e400", "1e39", "-1e39", "3.4028235e38"),
    *("+2", "-2", "+0", "-0", "--2", "+-2", "02", "-02", "007", "00"),
    *(str(n) for n in _LIMITS),
    *("0x10", "0X1A", "0o7", "0b1", "1_0", "_1", "1__0"),
    *("1.5", "1.0", "0.1", "2.000", ".5", "5.", "-0.0"),
    *("NaN", "nan", "NAN", "-nan", "Infinity", "-Infinity", "inf", "-inf", "infinity"),
    *("AQ==", "AQ", "AQ=", "AQ===", "-_8", "+/8", "A Q", "AQ==AQ==", "!", "QUJD", "QUJDRA"),
    *("ONE", "one", "TWO", "KIND_UNSPECIFIED", "true", "false", "null"),
]
#: JSON values that are not strings: integers at the limits, exponents, fractions, -0,
#: numbers beyond a double, booleans, null, arrays and objects.
NUMBERS = [
    *("0", "2", "-2", "-0", "1e1", "1E2", "1e-1", "1.0", "1.5", "0.1", "-0.0", "2.5e0"),
    *(str(n) for n in _LIMITS),
    *("1e39", "-1e39", "3.4028235e38", "3.4028236e38", "1e308", "1e400", "-1e400", "1" + "0" * 400),
    *("true", "false", "null", "[]", "{}", "[1]", '{"a": 1}'),
]
VALUES = [json.dumps(s) for s in STRINGS] + NUMBERS

_ENUM_NUMBER_UNDEFINED = "a number the enum does not define (docs/api.md#json)"
_TRUNCATED = "a fraction or a boolean json_format's int() would read as an enum number"
_BOOLEAN_AS_NUMBER = "a boolean json_format's float() would read as 1.0 or 0.0"
#: (kind, JSON value) -> why the reader refuses what json_format takes.
_REFUSED_ON_PURPOSE = {
    **{
        ("enum", v): _ENUM_NUMBER_UNDEFINED
        for v in (
            *(json.dumps(s) for s in ("-2", "-02", "007", "1_0", "3", "2147483647")),
            *(json.dumps(s) for s in ("-2147483648", "4294967296", "-9223372036854775808")),
            *("1e1", "1E2", "-2", "2147483647", "-2147483648"),
            # beyond 32 bits: json_format's lookup truncates them to 0
            *("4294967296", "-9223372036854775808"),
        )
    },
    **{("enum", v): _TRUNCATED for v in ("1.5", "0.1", "2.5e0", "1e-1", "true", "false")},
    **{(kind, v): _BOOLEAN_AS_NUMBER for kind in ("float", "double") for v in ("true", "false")},
}


def _oracle(text: str) -> bytes | None:
    """The message protobuf's reader makes of ``text`` (None: refused)."""
    try:
        return json_format.Parse(text, EDGE()).SerializeToString(deterministic=True)
    except json_format.ParseError:
        return None


def _reader(text: str) -> bytes | None:
    """The message the service's reader makes of ``text`` (None: refused at the field)."""
    try:
        message, problems = jsonio.decode(text, EDGE)
    except InvalidInput:
        return None
    if problems:
        return None
    return message.SerializeToString(deterministic=True)


def _answers(kind: str, value: str) -> tuple[Any, Any]:
    text = f'{{"{kind}": {value}}}'
    return _oracle(text), _reader(text)


@pytest.mark.parametrize("kind", KINDS)
def test_the_reader_takes_what_json_format_takes(kind):
    differences = []
    for value in VALUES:
        oracle, reader = _answers(kind, value)
        if oracle != reader and (kind, value) not in _REFUSED_ON_PURPOSE:
            said = "refused" if oracle is None else f"read {oracle!r}"
            differences.append(f"{kind} {value}: json_format {said}, the reader {reader!r}")
    assert not differences, "\n".join(differences)


@pytest.mark.parametrize(("kind", "value"), sorted(_REFUSED_ON_PURPOSE))
def test_what_json_format_takes_beyond_proto3_json_is_refused(kind, value):
    oracle, reader = _answers(kind, value)
    assert oracle is not None and reader is None, _REFUSED_ON_PURPOSE[kind, value]


def test_the_edge_values_meet_both_answers_for_every_kind():
    """The edges are edges: each kind has values both take and values both refuse."""
    for kind in KINDS:
        answers = [_answers(kind, value) for value in VALUES]
        assert any(o is not None and o == r for o, r in answers), kind
        assert any(o is None and r is None for o, r in answers), kind


def test_a_spaced_integer_string_is_refused_at_its_path():
    """Issue 56: " 2" (with a space) was read as 2; protobuf's reader refuses it."""
    message, problems = jsonio.decode('{"int32": " 2", "uint64": "2 ", "int64": "1e1"}', EDGE)
    assert [(p.field, p.reason) for p in problems] == [
        ("int32", "OUT_OF_RANGE"),
        ("uint64", "OUT_OF_RANGE"),
    ]
    assert message.int64 == 10
