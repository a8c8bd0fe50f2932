"""Transports of the Samba adjudicator around the pure engine.

- ``service.pb``: the generated protobuf messages (one namespace).
- ``service.descriptors``: facts read from the protobuf descriptors.
- ``service.required``: the required-field check (every request, both encodings).
- ``service.jsonio``: proto3 JSON in and out, every problem of a request collected.
- ``service.convert``: protobuf messages <-> engine values (paths, cards, rulesets,
  snapshots); ``service.actions``: actions; ``service.answers``: violations, events,
  scores, meld checks; ``service.derived_fields``: client-given output-only fields checked.
- ``service.decoding``: a transport's request bytes -> message, problems, snapshot source.
- ``service.loading``: the one snapshot-loading pipeline and its cache.
- ``service.api``: one transport-neutral implementation of every RPC.
- ``service.runtime``: one call of any transport or the CLI (``Runtime.answer``), metrics.
- ``service.boundary``: the one error boundary (any exception -> ApiError).
- ``service.errors``: ApiError and the error bodies (REST/CLI JSON, gRPC rich status).
- ``service.signing``: snapshot signatures (docs/api.md#server).
- ``service.cli``: the ``samba-adjudicator`` command.
"""

from samba_adjudicator.engine import build as _build

# The compiled build, when chosen, is found before the sources (engine/build.py).
__path__ = _build.search_path(__path__)
