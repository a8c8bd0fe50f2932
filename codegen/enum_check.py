"""The check of enum values the schema does not define, written out per message (the
run-time contract: service/codec/enums.py). For each message type with an enum field in it
or below it (maps aside: tests/test_unknown_enums.py holds that no request has a map of
enums): ``_clean_enums_<M>(msg, skip)``, whether every value is defined (no path made),
and ``_report_enums_<M>(msg, path, problems, skip, clear)``, each undefined value refused at
its path and cleared; ``_enums_<M>`` runs the second when the first finds a value. The
fields are visited in the descriptor's order: its enum fields, then its message fields.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor as _d

from samba_adjudicator.service.base.descriptors import F, is_map


def holds_enums(desc: _d.Descriptor, seen: frozenset[_d.Descriptor] = frozenset()) -> bool:
    """Whether a message type, or any message below it, has an enum field (maps aside)."""
    if desc in seen:
        return False
    if any(f.type == F.TYPE_ENUM for f in desc.fields):
        return True
    return any(holds_enums(f.message_type, seen | {desc}) for f in _messages(desc))


def _messages(desc: _d.Descriptor) -> list[_d.FieldDescriptor]:
    return [f for f in desc.fields if f.type == F.TYPE_MESSAGE and not is_map(f)]


def _name(desc: _d.Descriptor) -> str:
    return desc.full_name.removeprefix(desc.file.package + ".").replace(".", "_")


def write(out: Any, desc: _d.Descriptor) -> str:
    """The three functions of ``desc`` written into ``out``; the checker's name."""
    name = _name(desc)
    enums = [f for f in desc.fields if f.type == F.TYPE_ENUM]
    walk = [f for f in _messages(desc) if holds_enums(f.message_type)]
    clean, report = [], []
    for f in enums:
        known = out.constant(
            f"_{name}_{f.name}_known", repr(frozenset(f.enum_type.values_by_number))
        )
        enum = out.constant(f"_{name}_{f.name}_enum", f"_enum({f.enum_type.full_name!r})")
        at = f"join(path, {f.json_name!r})"
        if f.is_repeated:
            clean += [f"if not {known}.issuperset(msg.{f.name}):", "    return False"]
            report += [
                f"if not {known}.issuperset(msg.{f.name}):",
                f"    refuse_items(msg, {f.name!r}, {at}, {known}, {enum}, problems, clear)",
            ]
        else:
            clean += [f"if msg.{f.name} not in {known}:", "    return False"]
            report += [
                f"if msg.{f.name} not in {known}:",
                f"    refuse(msg.{f.name}, {enum}, {at}, problems)",
                "    if clear:",
                f"        msg.ClearField({f.name!r})",
            ]
    for f in walk:
        sub = _name(f.message_type)
        if f.is_repeated:
            clean += [
                f"if {f.name!r} != skip:",
                f"    for item in msg.{f.name}:",
                f"        if not _clean_enums_{sub}(item):",
                "            return False",
            ]
            report += [
                f"if {f.name!r} != skip:",
                f"    where = join(path, {f.json_name!r})",
                f"    for i, item in enumerate(msg.{f.name}):",
                f'        _enums_{sub}(item, f"{{where}}[{{i}}]", problems, "", clear)',
            ]
        else:
            here = f"msg.HasField({f.name!r})"
            clean += [
                f"if {f.name!r} != skip and {here} and not _clean_enums_{sub}(msg.{f.name}):",
                "    return False",
            ]
            report += [
                f"if {f.name!r} != skip and {here}:",
                f'    _enums_{sub}(msg.{f.name}, join(path, {f.json_name!r}), problems, "", clear)',
            ]
    out.function(
        f'def _clean_enums_{name}(msg: Any, skip: str = "") -> bool:', [*clean, "return True"]
    )
    params = "msg: Any, path: str, problems: Problems, skip: str, clear: bool"
    out.function(f"def _report_enums_{name}({params}) -> None:", report)
    params = 'msg: Any, path: str, problems: Problems, skip: str = "", clear: bool = True'
    out.function(
        f"def _enums_{name}({params}) -> None:",
        [
            f"if not _clean_enums_{name}(msg, skip):",
            f"    _report_enums_{name}(msg, path, problems, skip, clear)",
        ],
    )
    return f"_enums_{name}"
