"""The required-field check, driven by the descriptors: every field marked
``google.api.field_behavior = REQUIRED`` and every real ``oneof`` of a request.

It works on any message, so gRPC (binary) requests get the same check as JSON ones
(``service.pipeline.api`` runs it on every request and reports it together with the problems
parsing and conversion found: ``with_required``).

A request's new snapshot is not walked here: its reader, which visits every field anyway,
finds its missing REQUIRED fields as it reads (``convert.snapshot_from_proto``'s
``missing``), and ``insert_held`` puts them
where this walk would have (``with_required_held``): same problems, same order.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableSequence
from dataclasses import dataclass
from functools import cache

from google.protobuf import descriptor as _d
from google.protobuf.message import Message

from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.model import Problem

from ..base import pb
from ..base.descriptors import F, is_map, is_required, join, real_oneofs
from ..base.errors import MAX_LISTED_PROBLEMS, ProblemList


def missing_required(msg: Message, path: str = "", skip: tuple[str, ...] = ()) -> list[Problem]:
    """Every REQUIRED field left unset in ``msg`` and its set sub-messages, with JSON paths.

    Set means: a repeated field non-empty, a field with presence present, any other scalar
    or enum different from its default (an enum at ``*_UNSPECIFIED`` is unset). Every real
    ``oneof`` (``Action.kind``) needs one member set. ``skip``: top-level fields (proto
    names) checked elsewhere, left out entirely.
    """
    out: list[Problem] = []
    _collect_missing(msg, path, skip, out)
    return out


def _collect_missing(msg: Message, path: str, skip: tuple[str, ...], out: list[Problem]) -> None:
    if msg.DESCRIPTOR is _SNAPSHOT and not skip:
        snapshot_missing(msg, path, out)
    else:
        collect_planned(msg, path, skip, out)


def collect_planned(
    msg: Message,
    path: str,
    skip: tuple[str, ...],
    out: list[Problem],
    marks: dict[str, int] | None = None,
) -> None:
    """The walk as the descriptors' plan drives it (``snapshot_missing`` aside). ``marks``:
    filled with where each skipped message field's problems would have begun in ``out``."""
    desc = msg.DESCRIPTOR
    plan = _PLANS.get(desc)
    if plan is None:
        plan = _PLANS[desc] = _required_plan(desc)
    required, walk, oneofs = plan
    for name, json_name, test, default in required:
        if name in skip:
            continue
        missing = (
            not len(getattr(msg, name))
            if test == _REPEATED
            else not msg.HasField(name)
            if test == _PRESENCE
            else getattr(msg, name) == default
        )
        if missing:
            fpath = join(path, json_name)
            out.append(problem(fpath, "REQUIRED", "{field} is required", field=fpath))
    for name, json_name, repeated in walk:
        if name not in skip:
            _collect_below(msg, name, path, json_name, repeated, out)
        elif marks is not None:
            marks[name] = len(out)
    for oneof, names in oneofs:
        if msg.WhichOneof(oneof) is None:
            where = path or "request"
            out.append(
                problem(path, "REQUIRED", "{field} needs one of: {names}", field=where, names=names)
            )


def _missing(out: list[Problem], fpath: str) -> None:
    out.append(missing_field(fpath))


def missing_field(fpath: str) -> Problem:
    """The problem of a REQUIRED field left unset at ``fpath``."""
    return problem(fpath, "REQUIRED", "{field} is required", field=fpath)


_SNAPSHOT = pb.Snapshot.DESCRIPTOR
#: What ``snapshot_missing`` checks, as (message type, REQUIRED field) pairs: every one the
#: descriptors mark below Snapshot (tests/service/codec/test_required.py compares the two).
SNAPSHOT_REQUIRED = frozenset(
    {
        ("samba.v1.Snapshot", "ruleset"),
        ("samba.v1.Snapshot", "seats"),
        ("samba.v1.Snapshot", "sides"),
        ("samba.v1.Snapshot", "turn"),
        ("samba.v1.Meld", "id"),
        ("samba.v1.Turn", "seat"),
        ("samba.v1.Turn", "phase"),
        ("samba.v1.Result", "reason"),
    }
)


def snapshot_missing(msg: pb.Snapshot, path: str, out: list[Problem]) -> None:
    """The walk of a Snapshot, written out: every new position's request takes it, and the
    plan-driven walk spent 2.4 times as long on it (docs/performance.md, "the cold path").
    Same problems in the same order as the plan gives: the REQUIRED fields in field order,
    then the set message fields below in field order (sides' melds, turn, result)."""
    sides = msg.sides
    has_turn = msg.HasField("turn")
    for name, missing in (
        ("ruleset", not msg.HasField("ruleset")),
        ("seats", not len(msg.seats)),
        ("sides", not len(sides)),
        ("turn", not has_turn),
    ):
        if missing:
            _missing(out, join(path, name))
    if len(sides):
        base = join(path, "sides")
        for k, side in enumerate(sides):
            for j, meld in enumerate(side.melds):
                if not meld.id:
                    _missing(out, f"{base}[{k}].melds[{j}].id")
    if has_turn:
        _turn_missing(msg.turn, join(path, "turn"), out)
    if msg.HasField("result") and not msg.result.reason:
        _missing(out, join(path, "result.reason"))


def _turn_missing(turn: pb.Turn, path: str, out: list[Problem]) -> None:
    if not turn.HasField("seat"):
        _missing(out, f"{path}.seat")
    if not turn.phase:
        _missing(out, f"{path}.phase")


def _collect_below(
    msg: Message, name: str, path: str, json_name: str, repeated: bool, out: list[Problem]
) -> None:
    """The missing fields of the message(s) in field ``name``, when set."""
    if repeated:
        items = getattr(msg, name)
        if items:
            fpath = join(path, json_name)
            for i, item in enumerate(items):
                _collect_missing(item, f"{fpath}[{i}]", (), out)
    elif msg.HasField(name):
        _collect_missing(getattr(msg, name), join(path, json_name), (), out)


_REPEATED, _PRESENCE, _VALUE = "repeated", "presence", "value"
#: Descriptor -> _required_plan(descriptor), read on every request.
_PLANS: dict = {}


def _required_plan(desc: _d.Descriptor):
    """What the required-field check reads of a message type, as plain tuples:
    (REQUIRED fields as (name, json name, how "set" is tested, default), message fields worth
    walking as (name, json name, repeated), real oneofs as (name, their members' json
    names))."""
    required = tuple(
        (
            f.name,
            f.json_name,
            _REPEATED if f.is_repeated else _PRESENCE if f.has_presence else _VALUE,
            None if f.is_repeated or f.has_presence else f.default_value,
        )
        for f in desc.fields
        if is_required(f)
    )
    walk = tuple(
        (f.name, f.json_name, f.is_repeated)
        for f in desc.fields
        if f.type == F.TYPE_MESSAGE and not is_map(f) and _needs_required_walk(f.message_type)
    )
    oneofs = tuple((o.name, ", ".join(f.json_name for f in o.fields)) for o in real_oneofs(desc))
    return required, walk, oneofs


@cache
def _needs_required_walk(desc: _d.Descriptor, _seen: frozenset = frozenset()) -> bool:
    """Whether a message type, or any message below it, has a REQUIRED field or a oneof
    (so walking it can find something missing); lets large snapshots skip the walk."""
    if desc in _seen:
        return False
    if real_oneofs(desc) or any(is_required(f) for f in desc.fields):
        return True
    seen = _seen | {desc}
    return any(
        _needs_required_walk(f.message_type, seen) for f in desc.fields if f.type == F.TYPE_MESSAGE
    )


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


@dataclass(frozen=True, slots=True)
class Held:
    """Where a field's missing REQUIRED fields go once its reader has found them: ``at``, the
    index among the request's problems the walk would have put the first at; ``given``, how
    many problems came with the request (a problem at or above a missing field explains it,
    as in ``with_required``)."""

    at: int
    given: int


def with_required_held(
    msg: Message, problems: Iterable[Problem], held: str
) -> tuple[ProblemList, Held]:
    """``with_required`` with the walk below top-level message field ``held`` (set) left to
    its reader, and where that reader's findings go (``insert_held``)."""
    out = ProblemList(problems)
    given = len(out)
    found: list[Problem] = []
    marks: dict[str, int] = {}
    collect_planned(msg, "", (held,), found, marks)
    mark = marks.get(held, len(found))
    before = _unexplained(out, found[:mark])
    out.extend(before)
    out.extend(_unexplained(out[:given], found[mark:]))
    return out, Held(given + len(before), given)


def insert_held(problems: MutableSequence[Problem], held: Held, missing: list[Problem]) -> None:
    """Put ``missing`` (a held field's missing REQUIRED fields, as its reader found them)
    into ``problems`` where ``with_required`` would have put them, keeping the list's bound
    (``ProblemList``: the first MAX_LISTED_PROBLEMS, the rest counted)."""
    kept = _unexplained(problems[: held.given], missing)
    if not kept:
        return
    at = min(held.at, len(problems))
    problems[at:at] = kept
    excess = len(problems) - MAX_LISTED_PROBLEMS
    if excess > 0:
        del problems[-excess:]
        if isinstance(problems, ProblemList):
            problems.omitted += excess


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
