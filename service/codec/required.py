"""The required-field check, driven by the field tables (``service.codec.fields``): every
field marked ``google.api.field_behavior = REQUIRED`` and every real ``oneof`` of a request.

It works on any message, so gRPC (binary) requests get the same check as JSON ones
(``service.pipeline.decoding`` runs it on every request and reports it together with the
problems parsing found: ``with_required``). The walk goes down only into the message
fields whose type holds a REQUIRED field or a oneof somewhere below (``Table.
needs_required_walk``): of a snapshot, the sides' melds, the turn and the result. A
snapshot's messages are walked by the walk written out from their tables
(``snapshot_code.WALKS``, by ``codegen``).
"""

from __future__ import annotations

from collections.abc import Iterable

from google.protobuf.message import Message

from samba_adjudicator.engine.model import Problem

from ..base.descriptors import join
from ..base.errors import ProblemList
from .fields import Table, missing_field, needs_one_of, table
from .snapshot_code import WALKS


def missing_required(msg: Message, path: str = "", skip: tuple[str, ...] = ()) -> list[Problem]:
    """Every REQUIRED field left unset in ``msg`` and its set sub-messages, with JSON paths.

    Set means: a repeated field non-empty, a field with presence present, any other scalar
    or enum different from its default (an enum at ``*_UNSPECIFIED`` is unset). Every real
    ``oneof`` (``Action.kind``) needs one member set. ``skip``: top-level fields (proto
    names) checked elsewhere, left out entirely. In field order: a message's REQUIRED
    fields, then the set message fields below, then its oneofs.
    """
    out: list[Problem] = []
    _collect(msg, path, skip, out)
    return out


def _collect(msg: Message, path: str, skip: tuple[str, ...], out: list[Problem]) -> None:
    written = WALKS.get(msg.DESCRIPTOR.full_name) if not skip else None
    if written is not None:  # a snapshot's messages: the walk written out from the table
        written(msg, path, out)
    else:
        _planned(msg, path, skip, out)


def _planned(msg: Message, path: str, skip: tuple[str, ...], out: list[Problem]) -> None:
    required, walk, oneofs = _plan(msg.DESCRIPTOR.full_name, msg)
    if required:
        _unset(msg, required, path, skip, out)
    for name, json_name, repeated in walk:
        if skip and name in skip:
            continue
        if repeated:
            items = getattr(msg, name)
            if items:
                fpath = join(path, json_name)
                for i, item in enumerate(items):
                    _collect(item, f"{fpath}[{i}]", (), out)
        elif msg.HasField(name):
            _collect(getattr(msg, name), join(path, json_name), (), out)
    for oneof, names in oneofs:
        if msg.WhichOneof(oneof) is None:
            out.append(needs_one_of(path, names))


def _unset(msg: Message, required: tuple, path: str, skip: tuple[str, ...], out: list) -> None:
    for name, json_name, test, default in required:
        if skip and name in skip:
            continue
        missing = (
            not len(getattr(msg, name))
            if test == _REPEATED
            else not msg.HasField(name)
            if test == _PRESENCE
            else getattr(msg, name) == default
        )
        if missing:
            out.append(missing_field(join(path, json_name)))


_REPEATED, _PRESENCE, _VALUE = 0, 1, 2
#: Message full name -> what the check reads of its table, as plain tuples.
_PLANS: dict[str, tuple] = {}


def _plan(name: str, msg: Message) -> tuple:
    """(REQUIRED fields as (name, json name, how "set" is tested, default), message fields
    worth walking as (name, json name, repeated), real oneofs as (name, members)) of the
    message type's table."""
    plan = _PLANS.get(name)
    if plan is None:
        t: Table = table(msg.DESCRIPTOR)
        required = tuple(
            (
                f.name,
                f.json_name,
                _REPEATED if f.repeated else _PRESENCE if f.descriptor.has_presence else _VALUE,
                f.descriptor.default_value if not f.repeated else None,
            )
            for f in t.fields
            if f.required
        )
        walk = tuple(
            (f.name, f.json_name, f.repeated)
            for f in t.fields
            if f.table is not None and f.table.needs_required_walk
        )
        plan = _PLANS[name] = (required, walk, t.oneofs)
    return plan


def with_required(
    msg: Message, problems: Iterable[Problem], skip: tuple[str, ...] = ()
) -> list[Problem]:
    """``problems`` plus every missing REQUIRED field not already explained by one
    (``skip``: as in ``missing_required``)."""
    out = ProblemList(problems)
    out.extend(_unexplained(out, missing_required(msg, skip=skip)))
    return out


def unexplained(reported: Iterable[Problem], missing: Iterable[Problem]) -> list[Problem]:
    """For a field its handler requires only in some requests (ApplyAction's ``action``
    without ``computer``, Deal's ``players`` without ``previous``): the ``missing``
    problems no problem in ``reported`` already explains, as ``with_required`` adds them."""
    return _unexplained(reported, missing)


def _unexplained(reported: Iterable[Problem], missing: Iterable[Problem]) -> list[Problem]:
    """The ``missing`` fields no problem in ``reported`` already explains (``_covers``)."""
    fields = [p.field for p in reported]
    return [p for p in missing if not any(_covers(r, p.field) for r in fields)]


def _covers(reported: str, path: str) -> bool:
    """A problem at ``reported`` already explains a missing field at ``path``."""
    if reported == path or not reported:
        return True
    return (
        path.startswith(reported + ".")
        or path.startswith(reported + "[")
        or reported.startswith(path + ".")
        or reported.startswith(path + "[")
    )
