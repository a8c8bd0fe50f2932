"""The required-field walk written out per message (the run-time contract:
service/codec/required.py): each REQUIRED field tested, then the message fields whose type
holds a REQUIRED field or a oneof below walked (a list of leaf messages' tests written
inline, a path made only for a problem), then each real oneof; an RPC's request leaves out
the fields named in ``skip``.
"""

from __future__ import annotations

from typing import Any

from .fields import EMBEDDED, Field, Table


def _required(t: Table, msg: str = "msg", here: str = "", skipping: bool = False) -> list[str]:
    """The REQUIRED tests of ``t`` on ``msg``; ``here``: the f-string text of its path, when
    it is made only for a problem (a list's item), else ``path`` is joined. ``skipping``: a
    field named in ``skip`` is not tested."""
    body = []
    for f in t.fields:
        if f.required:
            d = f.descriptor
            unset = (
                f"not len({msg}.{f.name})"
                if f.repeated
                else f"not {msg}.HasField({f.name!r})"
                if d.has_presence
                else f"{msg}.{f.name} == {d.default_value!r}"
            )
            at = f'f"{here}.{f.json_name}"' if here else f"join(path, {f.json_name!r})"
            body += [
                f"if {_unskipped(f, skipping)}{unset}:",
                f"    out.append(missing_field({at}))",
            ]
    return body


def _unskipped(f: Field, skipping: bool) -> str:
    return f"{f.name!r} not in skip and " if skipping else ""


def _leaf(t: Table) -> bool:
    """Only REQUIRED tests to walk in ``t``: written inline where its list is walked."""
    return not t.oneofs and not any(
        f.table is not None and f.table.needs_required_walk and f.kind != EMBEDDED for f in t.fields
    )


def walk_name(t: Table) -> str:
    """``_missing_`` and the message's name within its package (``Ruleset_Overrides``)."""
    package = t.descriptor.file.package
    return "_missing_" + t.descriptor.full_name.removeprefix(package + ".").replace(".", "_")


def walker(out: Any, t: Table, skipping: bool) -> None:
    """The required walk of ``t``; ``skipping``: an RPC's request, whose fields named in
    ``skip`` are left out (the other messages take ``skip`` and ignore it)."""
    body = _required(t, skipping=skipping)
    for f in t.fields:
        sub = f.table
        if sub is None or not sub.needs_required_walk or f.kind == EMBEDDED:
            continue
        where = f"join(path, {f.json_name!r})"
        unskipped = _unskipped(f, skipping)
        if f.repeated:
            n = f.number
            inline = _required(sub, f"item{n}", f"{{where{n}}}[{{i}}]") if _leaf(sub) else []
            each = inline or [f'{walk_name(sub)}(item{n}, f"{{where{n}}}[{{i}}]", out)']
            body += [
                f"if {unskipped}msg.{f.name}:",
                f"    where{n} = {where}",
                f"    for i, item{n} in enumerate(msg.{f.name}):",
                *[f"        {line}" for line in each],
            ]
        else:
            body += [
                f"if {unskipped}msg.HasField({f.name!r}):",
                f"    {walk_name(sub)}(msg.{f.name}, {where}, out)",
            ]
    for name, names in t.oneofs:
        body += [
            f"if msg.WhichOneof({name!r}) is None:",
            f"    out.append(needs_one_of(path, {names!r}))",
        ]
    params = "msg: Any, path: str, out: list[Any], skip: tuple[str, ...] = ()"
    out.function(f"def {walk_name(t)}({params}) -> None:", body or ["pass"])
