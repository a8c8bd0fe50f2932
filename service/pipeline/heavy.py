"""Which calls are heavy: whatever computes a list of legal actions (docs/service.md).

A heavy call runs on a worker thread, never on a server's event loop, and at most
``HEAVY_CALLS`` of them compute at once (``service.pipeline.runtime``): a listing of a
150-card hand takes half a second of CPU, and on the loop it kept ``/healthz`` and cheap
calls waiting seconds. Heavy are the methods that always list (their row's ``heavy``:
``service.pipeline.rpc``), a call of any method that asks for the awaited seat's first page
(``include_legal_actions``), and an ApplyAction with a ``computer`` move, decided from the
request's bytes before they are decoded:

- protobuf (gRPC): the request's top-level fields are walked (their lengths skipped, not
  read) and the flag's field read, set in any of its occurrences;
- JSON (REST): a body that neither names the field (either spelling) nor holds a ``\\u``
  escape (which could spell it) is cheap; one that does is read as the request's decoding
  reads it (tens of microseconds for the 32 KiB a call answered on the loop may have) and
  its flag looked at, and the request's decoding starts from what was read (``weigh``
  returns it; the ``Call`` carries it); a larger one, which runs on a worker thread
  anyway, is heavy.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from samba_adjudicator.engine.problems import InvalidInput

from ..base import pb
from ..codec import json_text, wire
from . import computer
from .rpc import RPCS

#: The request field that asks for a listing with the answer.
LISTING_FIELD = "include_legal_actions"
#: Method -> the field number of ``include_legal_actions`` in its request, for every
#: method whose request has it.
ASKS_LISTING = {
    m.name: m.input_type.fields_by_name[LISTING_FIELD].number
    for m in pb.SERVICE.methods
    if LISTING_FIELD in m.input_type.fields_by_name
}
#: Requests larger than this run on a worker thread whatever their method (runtime: reading
#: a snapshot of a hundred thousand cards takes a third of a second); so JSON bodies up to
#: it are read to find the flag, and larger ones, which mention it, are heavy.
OFFLOAD_BYTES = 32 * 1024
_JSON_MARKS = (b"includeLegalActions", b"include_legal_actions", b"\\u")


def weigh(method: str, body: bytes | str | Message, json: bool) -> tuple[bool, Any]:
    """Whether a call of ``method`` with request ``body`` (JSON or protobuf bytes, or a
    message built in process) lists, or asks for a computer move (``computer.is_heavy``);
    and the JSON body as read to find the flag (None: not read), which the request's
    decoding starts from (``service.pipeline.call``: a body is parsed once)."""
    if not isinstance(body, bytes):
        return RPCS[method].heavy, None
    if RPCS[method].heavy or computer.is_heavy(method, body, json):
        return True, None
    number = ASKS_LISTING.get(method)
    if number is None:
        return False, None
    if not json:
        return wire.flag_set(body, number), None
    if not any(mark in body for mark in _JSON_MARKS):
        return False, None
    if len(body) > OFFLOAD_BYTES:
        return True, None
    try:
        value = json_text.loads(body)  # the reader of the request itself
    except InvalidInput:
        return False, None  # malformed: its decoding fails fast
    if not isinstance(value, dict):
        return False, value
    flag = value.get("includeLegalActions") is True or value.get(LISTING_FIELD) is True
    return flag, value
