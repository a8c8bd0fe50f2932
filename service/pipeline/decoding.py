"""A request read once: ``read(call, loader)`` -> ``Request``, the one value every
pipeline stage and handler takes (docs/api.md#trust).

A call's body (``service.pipeline.call.Call``) is protobuf bytes (gRPC), proto3 JSON (REST
and CLI: ``json``; already read when weighing it read it) or a message built in process.
Reading is the same three steps whatever came:

1. the request's snapshot is looked up in the loaded-snapshot cache *before* it is parsed
   (``service.pipeline.loading``): when the service has loaded exactly that encoding before,
   only the rest of the request is parsed and the message comes back without its snapshot;
2. the message is parsed, every problem with its path (JSON: ``service.codec.jsonio``;
   bytes that are not the message are MALFORMED_MESSAGE, never grpc's INTERNAL); an enum
   value the schema does not define is refused on every transport (protobuf and messages:
   ``service.codec.enums``);
3. the required-field walk (``service.codec.required``) adds the missing REQUIRED fields:
   below a snapshot loaded before it does not look, and below a new one it leaves the walk
   to the snapshot's read, which finds the same fields where the walk would have put them.

tests/test_ways_in.py holds every way in to the same answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from google.protobuf.message import DecodeError, Message

from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.model import Snapshot
from samba_adjudicator.engine.problems import Problem

from ..base import errors, pb
from ..codec import enums, jsonio, required, wire
from ..i18n.negotiation import DEFAULT
from .loading import SNAPSHOT, SnapshotLoader, SnapshotSource

if TYPE_CHECKING:
    from .call import Call


@dataclass(slots=True)
class Request:
    """One request as read: its RPC, its message, the problems reading found (the handler
    adds its own), how its snapshot came (``snapshot``: its cache key, the snapshot loaded
    before from that key, or where its missing fields go; None: the request has none) and
    the answer's language; then what its answer carries as written (``rendered``: the
    snapshots' fields, ``remembered``: the position kept: ``service.pipeline.loading``)."""

    method: str
    message: Message
    problems: errors.Problems
    snapshot: SnapshotSource | None = None
    lang: str = DEFAULT
    rendered: list[bytes] = field(default_factory=list)
    remembered: Snapshot | None = None

    @property
    def carries_snapshot(self) -> bool:
        """Whether the request has a snapshot (in its message, or loaded before)."""
        if self.snapshot is not None and self.snapshot.loaded is not None:
            return True
        return SNAPSHOT in self.message.DESCRIPTOR.fields_by_name and self.message.HasField(
            SNAPSHOT
        )


#: RPC name -> its request message, from the schema
_REQUEST_TYPES: dict[str, type[Message]] = {
    m.name: getattr(pb, m.input_type.name) for m in pb.SERVICE.methods
}
#: RPC name -> the field number of its request's ``snapshot`` (None: it has none)
_SNAPSHOT_NUMBERS: dict[str, int | None] = {
    name: (
        t.DESCRIPTOR.fields_by_name[SNAPSHOT].number
        if SNAPSHOT in t.DESCRIPTOR.fields_by_name
        else None
    )
    for name, t in _REQUEST_TYPES.items()
}


def request_type(method: str) -> type[Message]:
    """The request message of RPC ``method`` (UNIMPLEMENTED for a name the schema lacks)."""
    found = _REQUEST_TYPES.get(method)
    if found is None:
        raise errors.api_error(
            "UNIMPLEMENTED", "UNKNOWN_METHOD", "no method {method}", method=repr(method)
        )
    return found


def read(call: Call, loader: SnapshotLoader, problems: Iterable[Problem] = ()) -> Request:
    """``call``'s body read as a request of its method (``json``: proto3 JSON text, from
    what weighing it read when it did; a message: taken as it is, with the ``problems``
    found building it)."""
    method, data = call.method, call.body
    message_type = request_type(method)
    number = _SNAPSHOT_NUMBERS[method]
    found: errors.Problems
    if isinstance(data, Message):
        if not isinstance(data, message_type):
            raise errors.api_error(
                "INTERNAL",
                "INTERNAL",
                "{method} takes {type}",
                method=method,
                type=message_type.__name__,
            )
        message, found, source = data, list(problems), None
        if number is not None and data.HasField(SNAPSHOT):
            source = loader.received(data.snapshot.SerializeToString(deterministic=True))
    elif call.json:
        parsed = jsonio.loads(data) if call.parsed is None else call.parsed
        message, found, source = _from_json(parsed, message_type, number, loader)
    else:
        assert isinstance(data, bytes)
        message, found, source = _from_protobuf(data, message_type, number, loader)
    if not call.json:  # the JSON walk refuses them as it reads
        found = errors.ProblemList(found)
        skip = SNAPSHOT if source is not None and source.loaded is not None else ""
        if isinstance(data, Message):  # the caller's: left as it is
            message = enums.known_values(message, found, skip)
        else:
            enums.unknown_values(message, "", found, skip)
    found, source = _with_required(message, found, source)
    return Request(method, message, found, source, call.lang)


def _from_protobuf(
    data: bytes, message_type: type[Message], number: int | None, loader: SnapshotLoader
) -> tuple[Message, errors.Problems, SnapshotSource | None]:
    try:
        split = wire.split_field(data, number) if number is not None else None
        if split is None:
            return message_type.FromString(data), [], None
        snapshot_bytes, rest = split
        source = loader.received(snapshot_bytes)
        assert source is not None  # bytes always have a key
        return (
            message_type.FromString(data if source.loaded is None else rest),
            [],
            source,
        )
    except (DecodeError, RuntimeError, ValueError) as e:
        raise errors.invalid_argument(
            [
                problem(
                    "",
                    "MALFORMED_MESSAGE",
                    "the request is not a valid {type} message: {error}",
                    type=message_type.DESCRIPTOR.full_name,
                    error=e,
                )
            ]
        ) from None


def _from_json(
    data: Any, message_type: type[Message], number: int | None, loader: SnapshotLoader
) -> tuple[Message, errors.Problems, SnapshotSource | None]:
    """JSON already read (``jsonio.loads``: text that is not JSON raised InvalidInput,
    MALFORMED_JSON); every problem is returned. The snapshot is keyed by its compact JSON
    (``SnapshotLoader.received``)."""
    snapshot = data.get(SNAPSHOT) if isinstance(data, dict) else None
    source = None
    if isinstance(snapshot, dict) and number is not None:
        source = loader.received(snapshot)
    if source is None:
        return (*jsonio.decode_dict(data, message_type), None)
    if source.loaded is not None:  # the rest of the request only
        data = {k: v for k, v in data.items() if k != SNAPSHOT}
    return (*jsonio.decode_dict(data, message_type), source)


def _with_required(
    message: Message, problems: errors.Problems, source: SnapshotSource | None
) -> tuple[errors.Problems, SnapshotSource | None]:
    """The problems plus the missing REQUIRED fields (a snapshot loaded before: not walked)."""
    if source is not None and source.loaded is not None:
        return required.with_required(message, problems, skip=(SNAPSHOT,)), source
    return required.with_required(message, problems), source
