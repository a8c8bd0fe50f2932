"""A transport's request bytes -> (request message, structural problems, SnapshotSource).

Both encodings look the request's snapshot up in the loaded-snapshot cache *before*
parsing it (``service.pipeline.loading``): when the service has loaded exactly that encoding before,
only the rest of the request (the action, the seat, ...) is parsed and the message comes
back without its ``snapshot``.

- ``ProtobufDecoder(method, loader)``: gRPC bytes (``service.codec.wire`` finds the snapshot field);
  malformed bytes are INVALID_ARGUMENT (MALFORMED_MESSAGE), never grpc's INTERNAL.
- ``decode_json(text, RequestType, loader)``: proto3 JSON (REST and CLI); text that is not a
  JSON object raises InvalidInput (MALFORMED_JSON), every other problem is returned. A
  snapshot not loaded before becomes a protobuf message like any other field and is loaded
  as a gRPC one is (``SnapshotLoader.load``): one way in, whatever the encoding
  (tests/test_ways_in.py holds every way to the same answers).
"""

from __future__ import annotations

from google.protobuf.message import DecodeError, Message

from samba_adjudicator.engine.messages import problem

from ..base import errors
from ..codec import jsonio, wire
from .loading import (
    SNAPSHOT,
    SnapshotLoader,
    SnapshotSource,
    cache_key,
    json_cache_key,
)

Decoded = tuple[Message, errors.Problems, SnapshotSource | None]


class ProtobufDecoder:
    """Decodes the requests of one method from protobuf bytes."""

    def __init__(self, request_type: type[Message], loader: SnapshotLoader) -> None:
        self.request_type = request_type
        field = request_type.DESCRIPTOR.fields_by_name.get(SNAPSHOT)
        self.snapshot_number = field.number if field is not None else None
        self.loader = loader

    def __call__(self, data: bytes) -> Decoded:
        try:
            return self._decode(data)
        except (DecodeError, RuntimeError, ValueError) as e:
            raise errors.invalid_argument(
                [
                    problem(
                        "",
                        "MALFORMED_MESSAGE",
                        "the request is not a valid {type} message: {error}",
                        type=self.request_type.DESCRIPTOR.full_name,
                        error=e,
                    )
                ]
            ) from None

    def _decode(self, data: bytes) -> Decoded:
        parse = self.request_type.FromString
        split = (
            wire.split_field(data, self.snapshot_number)
            if self.snapshot_number is not None
            else None
        )
        if split is None:
            return parse(data), [], None
        snapshot_bytes, rest = split
        key = cache_key("pb", snapshot_bytes)
        loaded = self.loader.loaded(key)
        if loaded is None:
            return parse(data), [], SnapshotSource(key)
        return parse(rest), [], SnapshotSource(key, loaded)


def decode_json(text: str | bytes, request_type: type[Message], loader: SnapshotLoader) -> Decoded:
    """``jsonio.decode`` plus the request snapshot's source (keyed by its compact JSON)."""
    data = jsonio.loads(text)
    snapshot = data.get(SNAPSHOT) if isinstance(data, dict) else None
    key = (
        json_cache_key(snapshot)
        if isinstance(snapshot, dict) and SNAPSHOT in request_type.DESCRIPTOR.fields_by_name
        else None
    )
    if key is None:
        return (*jsonio.decode_dict(data, request_type), None)
    loaded = loader.loaded(key)
    if loaded is not None:  # the rest of the request only
        data = {k: v for k, v in data.items() if k != SNAPSHOT}
    return (*jsonio.decode_dict(data, request_type), SnapshotSource(key, loaded))
