"""The table key every call carries as ``x-samba-table`` (gRPC metadata or REST header), so
that a balancer can send a table's calls to one place
(docs/deployment.md#a-tables-calls-to-one-worker).

The service is stateless, but each worker keeps the snapshots it loaded or answered: the
next call of a game sends back the snapshot the last answer rendered, and it is served
from that worker's cache only if it lands there. The key is, in order: the one the caller
gives (``table=`` on a call); the ``dealCommitment`` of the snapshot the request carries
(``snapshot``, Deal's ``previous``, VerifyDeal's ``deal``); for a Deal, the commitment of
its ``seed``, which its answer will carry, so that the deal and the calls after it go to
the same place. None when the request has none of them (ListRulesets).
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from .deal_check import deal_commitment

#: The header (gRPC metadata key) of the table key.
TABLE_HEADER = "x-samba-table"
#: The request fields that carry a snapshot, the one of most requests first.
_SNAPSHOT_FIELDS = ("snapshot", "previous", "deal")


def table_key(method: str, request: Message | dict[str, Any] | None) -> str | None:
    """The table key of ``request`` (a message or its proto3-JSON dict) for ``method``."""
    if request is None:
        return None
    if method == "Deal":
        seed = _field(request, "seed")
        if seed:
            return deal_commitment(seed)
    for name in _SNAPSHOT_FIELDS:
        snapshot = _field(request, name)
        if snapshot is not None:
            commitment = _field(snapshot, "dealCommitment", "deal_commitment")
            if commitment:
                return commitment
    return None


def _field(value: Any, camel: str, snake: str | None = None) -> Any:
    """A field of a message (None when unset) or of a dict, by either spelling."""
    snake = snake or camel
    if isinstance(value, Message):
        if snake not in value.DESCRIPTOR.fields_by_name:
            return None
        field = value.DESCRIPTOR.fields_by_name[snake]
        if field.message_type is not None and not value.HasField(snake):
            return None
        return getattr(value, snake)
    if isinstance(value, dict):
        found = value.get(camel)
        return found if found is not None else value.get(snake)
    return None
