"""Protobuf messages <-> engine values (docs/api.md#cards, #resources).

Input rules:
- Cards go through ``engine.cards.parse_card`` (``T`` for 10, lower case); every bad code
  is a Problem at its exact path (``snapshot.seats[0].hand[3]``), reason UNKNOWN_CARD_CODE.
- Problems are collected, never repaired, and raised together as ``InvalidInput``.
  Builders append to a ``problems`` list; ``service.pipeline.loading`` raises.
- Paths are JSON names relative to the request; engine paths in snake_case are camelised.
- Output-only snapshot fields are not read here (``service.codec.derived_fields`` checks them).

Actions are in ``service.codec.actions``, the judgements answered in ``service.codec.answers``.

Repeated fields are read by ``tuple(container)``, not a slice: a slice is a fifth faster on
a real hand but makes a list beside the tuple, a megabyte each for the largest requests
(docs/performance.md).

Output: every output-only field is filled from ``engine.derived``; cards are canonical
(``service.codec.snapshot_bytes`` writes the snapshot's bytes, parsed into the message).
"""

from __future__ import annotations

from typing import Any

from samba_adjudicator.engine import model as m
from samba_adjudicator.engine import ruleset as er
from samba_adjudicator.engine import vocabulary

from ..base import pb
from ..base.errors import Problems
from . import snapshot_bytes
from .fields import (
    CARDS,
    DROP,
    ENUM,
    INTS,
    MESSAGE,
    MESSAGES,
    READ_EMPTY,
    SNAPSHOT,
    Field,
    Table,
)
from .paths import CARD_CODES, cards

# -- snapshots: proto -> engine -----------------------------------------------------------


def snapshot_from_proto(msg: pb.Snapshot, path: str, problems: Problems) -> m.Snapshot | None:
    """Build the engine Snapshot; unparseable values are appended to ``problems``.

    Never raises and never judges consistency (``service.pipeline.loading`` does that). Fields
    the required-field check reports (``turn.phase``, …) get a neutral stand-in here.
    Returns None when the ruleset cannot be resolved. Driven by the field table
    (``service.codec.fields``): every field the engine takes, in number order, read as its
    kind says or by its entry of ``fields.READ``.
    """
    values = _read(SNAPSHOT, msg, path, 0, problems)
    rules, ref = values.pop("ruleset")
    if rules is None:
        return None
    return m.Snapshot(ruleset=rules, ruleset_ref=ref, **values)


def _read(t: Table, msg: Any, path: str, index: int, problems: Problems) -> dict[str, Any]:
    """The engine attributes of message ``msg`` (table ``t``, at ``path``, ``index`` in its
    list), or a ``DROP`` among them when an adapter left the message out."""
    values: dict[str, Any] = {}
    start = len(problems)
    for f in t.reads:
        reader = f.reader
        if reader is not None:
            values[f.name] = reader(msg, values, index, path, problems, start)
            continue
        kind = f.kind
        if kind == CARDS:
            raw = tuple(getattr(msg, f.name))
            values[f.name] = (
                raw if CARD_CODES.issuperset(raw) else cards(raw, f"{path}.{f.json_name}", problems)
            )
        elif kind == MESSAGES:
            values[f.name] = _read_list(f, getattr(msg, f.name), f"{path}.{f.json_name}", problems)
        elif kind == INTS:
            values[f.name] = tuple(getattr(msg, f.name))
        elif f.presence or kind == MESSAGE:
            values[f.name] = _read_present(f, msg, path, problems)
        elif kind == ENUM:
            number = getattr(msg, f.name)
            values[f.name] = f.members[number] if number else f.unset
        else:
            values[f.name] = getattr(msg, f.name)
    return values


def _read_list(f: Field, items: Any, path: str, problems: Problems) -> tuple:
    """The engine values of a repeated message field, those an adapter dropped left out."""
    sub = f.table
    assert sub is not None and sub.engine is not None
    out = []
    for i, item in enumerate(items):
        values = _read(sub, item, f"{path}[{i}]", i, problems)
        if DROP not in values.values():
            out.append(sub.engine(**values))
    return tuple(out)


def _read_present(f: Field, msg: Any, path: str, problems: Problems) -> Any:
    """A message field, or a scalar with presence: its value when set, else ``f.unset``."""
    if not msg.HasField(f.name) and f.unset is not READ_EMPTY:
        return f.unset
    if f.kind != MESSAGE:
        return getattr(msg, f.name)
    sub = f.table
    assert sub is not None and sub.engine is not None
    return sub.engine(**_read(sub, getattr(msg, f.name), f"{path}.{f.json_name}", 0, problems))


# -- snapshots: engine -> proto -----------------------------------------------------------


def meld_to_proto(rules: er.Ruleset, meld: m.Meld) -> pb.Meld:
    return pb.Meld(
        id=meld.id,
        cards=list(meld.cards),
        laid_by=meld.laid_by,
        kind=pb.Meld.Kind.Value(meld.kind.name),
        status=pb.Meld.Status.Value(vocabulary.meld_status(meld).name),
        natural=vocabulary.is_natural(meld.cards),
    )


def snapshot_to_proto(snap: m.Snapshot) -> pb.Snapshot:
    """Every field filled, output-only ones included; ``signature`` left empty (the API
    signs). Parsed from the bytes ``snapshot_bytes`` writes: one call into the protobuf
    runtime instead of one per field and card."""
    return pb.Snapshot.FromString(snapshot_bytes.encode(snap))
