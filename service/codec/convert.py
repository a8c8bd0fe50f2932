"""Protobuf messages <-> engine values (docs/api.md#cards, #resources).

Input rules:
- Cards go through ``engine.cards.parse_card`` (``T`` for 10, lower case); every bad code
  is a Problem at its exact path (``snapshot.seats[0].hand[3]``), reason UNKNOWN_CARD_CODE.
- Problems are collected, never repaired, and raised together as ``InvalidInput``.
  Builders append to a ``problems`` list; ``service.pipeline.loading`` raises.
- Paths are JSON names relative to the request; engine paths in snake_case are camelised.
- Output-only snapshot fields are not read here (``snapshot_code.disagreements`` checks them).

Actions are in ``service.codec.actions``, the judgements answered in ``service.codec.answers``.

Repeated fields are read by ``tuple(container)``, not a slice: a slice is a fifth faster on
a real hand but makes a list beside the tuple, a megabyte each for the largest requests
(docs/performance.md).

Output: every output-only field is filled from ``engine.derived``; cards are canonical
(``service.codec.snapshot_bytes`` writes the snapshot's bytes, parsed into the message).
"""

from __future__ import annotations

from samba_adjudicator.engine import model as m

from ..base import pb
from ..base.errors import Problems
from . import snapshot_bytes, snapshot_code

# -- snapshots: proto -> engine -----------------------------------------------------------


def snapshot_from_proto(msg: pb.Snapshot, path: str, problems: Problems) -> m.Snapshot | None:
    """Build the engine Snapshot; unparseable values are appended to ``problems``.

    Never raises and never judges consistency (``service.pipeline.loading`` does that). Fields
    the required-field check reports (``turn.phase``, …) get a neutral stand-in here.
    Returns None when the ruleset cannot be resolved. Written out from the field table
    (codegen/fields.py, by codegen/snapshot_code.py): every field the engine takes, in
    number order, read as its kind says or by its entry of ``READ``.
    """
    return snapshot_code.read(msg, path, problems)


# -- snapshots: engine -> proto -----------------------------------------------------------


def snapshot_to_proto(snap: m.Snapshot) -> pb.Snapshot:
    """Every field filled, output-only ones included; ``signature`` left empty (the API
    signs). Parsed from the bytes ``snapshot_bytes`` writes: one call into the protobuf
    runtime instead of one per field and card."""
    return pb.Snapshot.FromString(snapshot_bytes.encode(snap))
