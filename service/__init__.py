"""Transports of the Samba adjudicator around the pure engine.

- ``service.pb``: the generated protobuf messages (one namespace).
- ``service.jsonio``: proto3 JSON in and out, every problem of a request collected.
- ``service.convert``: protobuf messages <-> engine values.
- ``service.api``: one transport-neutral implementation of every RPC.
- ``service.errors``: ApiError and the error bodies (REST/CLI JSON, gRPC rich status).
- ``service.signing``: snapshot signatures (docs/api.md#server).
- ``service.cli``: the ``samba-adjudicator`` command.
"""
