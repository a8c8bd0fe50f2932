"""Client-given output-only snapshot fields against ``engine.derived`` (docs/api.md#cards).

Output-only fields may be omitted; when given (non-default: proto3 cannot tell an omitted
``false``/``0`` from a given one) they must agree with what the engine derives, or the
snapshot is refused with DERIVED_FIELD_DISAGREES at the field's path. Checked only once the
snapshot is consistent (the derivations assume it). Which fields, and how each is derived,
is the field table's (``service.codec.fields``): every OUTPUT_ONLY field, and every field
of an output-only message (``pile``).
"""

from __future__ import annotations

from typing import Any

from samba_adjudicator.engine import model as m
from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.model import Problem

from ..base import pb
from .fields import ENUM, INTS, MESSAGE, MESSAGES, SNAPSHOT, Field, Table, value


def disagreements(msg: pb.Snapshot, snap: m.Snapshot, path: str) -> list[Problem]:
    """Every given output-only field of ``msg`` that disagrees with ``snap`` (loaded from
    it, consistent), at its JSON path under ``path``. A default value stands for "not
    given" (proto3 cannot tell an omitted ``false``/``0`` from a given one)."""
    out: list[Problem] = []
    _compare(SNAPSHOT, msg, snap, snap, path, False, out)
    return out


def _compare(
    t: Table, msg: Any, obj: Any, snap: m.Snapshot, path: str, every: bool, out: list[Problem]
) -> None:
    """The fields of ``t`` in ``msg`` against engine value ``obj``; ``every``: all of them
    (inside an output-only message), else the output-only ones and the messages that hold
    some."""
    for f in t.fields:
        checked = every or f.output_only
        if f.kind == MESSAGE or f.kind == MESSAGES:
            sub = f.table
            if sub is None or not (checked or sub.has_output_only):
                continue
            where = f"{path}.{f.json_name}"
            if f.kind == MESSAGE:
                if msg.HasField(f.name):
                    _compare(
                        sub, getattr(msg, f.name), value(f, obj, snap), snap, where, checked, out
                    )
            else:
                items = zip(getattr(msg, f.name), value(f, obj, snap), strict=True)
                for i, (item, engine_item) in enumerate(items):
                    _compare(sub, item, engine_item, snap, f"{where}[{i}]", checked, out)
            continue
        if not checked:
            continue
        given = getattr(msg, f.name)
        if given:
            _compare_value(f, given, value(f, obj, snap), f"{path}.{f.json_name}", out)


def _compare_value(f: Field, given: Any, actual: Any, where: str, out: list[Problem]) -> None:
    """A given (non-default) scalar or list of ints against the derived one."""
    if f.kind == INTS:
        if sorted(given) != sorted(actual):
            _add(out, where, list(given), list(actual))
    elif f.kind == ENUM:
        if given != f.numbers[actual]:
            named = f.descriptor.enum_type.values_by_number.get(given)
            _add(out, where, given if named is None else named.name, actual.name)
    else:
        normal = f.derive.given if f.derive is not None else None
        if (normal(given) if normal is not None else given) != actual:
            _add(out, where, given, actual)


def _add(out: list[Problem], where: str, given: Any, actual: Any) -> None:
    out.append(
        problem(
            where,
            "DERIVED_FIELD_DISAGREES",
            "{field} is {actual}, not {given}",
            field=where,
            actual=repr(actual),
            given=repr(given),
        )
    )
