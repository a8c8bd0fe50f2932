"""proto3 JSON scalars: the check of one JSON value against one scalar field
(docs/api.md#json), shared by the request walk (``service.codec.jsonio``).

``check_scalar(value, field, path)`` returns the value to set on the message (an enum by
name or number, an int from a number or a decimal string, a float from a number or a
string, bytes from base64) or a ``Refused`` saying why it cannot be.

What is accepted is what protobuf's own reader, ``google.protobuf.json_format``, accepts, so
that a client, a proxy or a log reading the same text with it reads the same message
(tests/service/codec/test_json_scalars.py compares the two over edge values). Where that
reader's Python conversions take more than proto3 JSON allows, this one refuses, each
named there: an enum number the enum does not define (docs/api.md#json), a fraction or a
boolean read as an enum number (``int(1.5)`` is 1), a boolean read as a float.
"""

from __future__ import annotations

import base64
import binascii
import math
import sys
from collections.abc import Callable
from typing import Any

from google.protobuf import descriptor as _d

from samba_adjudicator.engine.messages import N_

from ..base.descriptors import F

INT_RANGES = {
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
_INT32_LOW, _INT32_HIGH = INT_RANGES[F.TYPE_INT32]
#: The largest finite 32-bit float: a JSON number beyond it does not fit a ``float`` field.
FLOAT32_MAX = 3.4028234663852886e38
_ONLY_INT = frozenset({int})
_SPECIAL_NUMBERS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_DOUBLE_MAX = sys.float_info.max


class Refused:
    """A scalar of the wrong JSON type or out of range: why, as a message template and its
    parameters (engine.messages.problem makes the field problem of it)."""

    __slots__ = ("params", "template")

    def __init__(self, template: str, /, **params: object) -> None:
        self.template = template
        self.params = params

    @property
    def text(self) -> str:
        """The English description."""
        return self.template.format_map({k: str(v) for k, v in self.params.items()})


def check_scalar(value: Any, f: _d.FieldDescriptor, path: str) -> Any:
    """The value to set on scalar field ``f`` for JSON ``value``, or a ``Refused``."""
    return _SCALARS.get(f.type, _unsupported)(value, f, path)


def plain_ints(value: list, f: _d.FieldDescriptor) -> bool:
    """Whether ``value`` is a list of JSON integers (not booleans) all in integer field
    ``f``'s range: set as it is, without a look at each item from Python (a megabyte holds
    half a million of them)."""
    bounds = INT_RANGES.get(f.type)
    if bounds is None or not value or not _ONLY_INT.issuperset(map(type, value)):
        return False
    return bounds[0] <= min(value) and max(value) <= bounds[1]


def enum_number(f: _d.FieldDescriptor, value: Any) -> int:
    """An enum value the check kept (a name or a number) as its number."""
    return f.enum_type.values_by_name[value].number if isinstance(value, str) else value


def _enum_value(value: Any, f: _d.FieldDescriptor, path: str) -> Any:
    enum = f.enum_type
    if isinstance(value, str) and value in enum.values_by_name:
        return value
    number = _enum_int(value)
    if (
        number is not None
        and _INT32_LOW <= number <= _INT32_HIGH  # protobuf's lookup truncates to 32 bits
        and number in enum.values_by_number
    ):
        return number
    return not_a_value(value, enum)


def _enum_int(value: Any) -> int | None:
    """An enum number as json_format reads it, with ``int()``: a JSON integer, an integral
    number (``1e1``), a string ``int`` reads (``"2"``, ``" 2"``, ``"+2"``, but not ``"2.0"``).
    A fraction or a boolean, which ``int()`` would turn into a number (1.5 and true into 1),
    is none."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return None
    return None


def not_a_value(value: Any, enum: _d.EnumDescriptor) -> Refused:
    """The refusal of a value ``enum`` does not define (a name, or a number on any
    transport: service.codec.enums)."""
    known = ", ".join(v.name for v in enum.values if v.number != 0)
    return Refused(
        N_("{value} is not a value of {enum}; known: {known}"),
        value=repr(value),
        enum=enum.name,
        known=known,
    )


def _integer(value: Any, f: _d.FieldDescriptor, path: str) -> Any:
    lo, hi = INT_RANGES[f.type]
    n = as_int(value)
    if n is None:
        return Refused(N_("{field} must be an integer"), field=path)
    if not lo <= n <= hi:
        return Refused(N_("{field} must be in {lo}..{hi}"), field=path, lo=lo, hi=hi)
    return n


def _boolean(value: Any, f: _d.FieldDescriptor, path: str) -> Any:
    return (
        value
        if isinstance(value, bool)
        else Refused(N_("{field} must be true or false"), field=path)
    )


def _string(value: Any, f: _d.FieldDescriptor, path: str) -> Any:
    return value if isinstance(value, str) else Refused(N_("{field} must be a string"), field=path)


def _number(value: Any, f: _d.FieldDescriptor, path: str) -> Any:
    if isinstance(value, str):
        return _number_text(value, path)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return Refused(N_("{field} must be a number"), field=path)
    try:
        number = float(value)
    except OverflowError:  # an integer of more than 308 digits
        number = math.inf
    if not math.isfinite(number):  # 1e400 is read as infinity: "Infinity" says it
        return Refused(
            N_("{field} must be in {lo}..{hi}"), field=path, lo=-_DOUBLE_MAX, hi=_DOUBLE_MAX
        )
    if f.type == F.TYPE_FLOAT and abs(number) > FLOAT32_MAX:
        return Refused(N_("{field} is out of the range of a 32-bit float"), field=path)
    return number


def _number_text(value: str, path: str) -> Any:
    """A float written as a string, read as json_format reads it: Python's ``float`` (spaces
    around, exponents, ``inf``), ``NaN``/``Infinity``/``-Infinity``, but not ``nan``. A
    32-bit field takes what does not fit as infinity, as the message does."""
    if value == "nan":
        return Refused(N_("{field} must be a number"), field=path)
    try:
        return float(value)
    except ValueError:
        special = _SPECIAL_NUMBERS.get(value)
        if special is None:
            return Refused(N_("{field} must be a number"), field=path)
        return special


def _base64(value: Any, f: _d.FieldDescriptor, path: str) -> Any:
    """Standard or URL-safe base64, padded or not, read as json_format reads it (padding
    added, what is not of the alphabet skipped)."""
    if isinstance(value, str):
        encoded = value.encode("utf-8", "surrogatepass")
        try:
            return base64.urlsafe_b64decode(encoded + b"=" * (4 - len(encoded) % 4))
        except (binascii.Error, ValueError):
            pass
    return Refused(N_("{field} must be a base64 string"), field=path)


def _unsupported(value: Any, f: _d.FieldDescriptor, path: str) -> Any:
    return Refused(N_("{field}: unsupported field type"), field=path)


#: Scalar field type -> check(value, field, path): the value to keep, or Refused.
_SCALARS: dict[int, Callable[[Any, _d.FieldDescriptor, str], Any]] = {
    F.TYPE_ENUM: _enum_value,
    F.TYPE_BOOL: _boolean,
    F.TYPE_STRING: _string,
    F.TYPE_DOUBLE: _number,
    F.TYPE_FLOAT: _number,
    F.TYPE_BYTES: _base64,
    **dict.fromkeys(INT_RANGES, _integer),
}


def as_int(value: Any) -> int | None:
    """proto3 JSON integers as json_format reads them: a number with no fraction, or a
    string ``int`` reads (``"+2"``, ``"02"``, ``"-0"``) or ``float`` reads as one
    (``"1e1"``, ``"2.0"``), with no space in it (``" 2"`` is refused)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None  # inf and NaN are not
    if isinstance(value, str) and " " not in value:
        try:
            return int(value)
        except ValueError:
            try:
                x = float(value)
            except ValueError:
                return None
            return int(x) if x.is_integer() else None
    return None
