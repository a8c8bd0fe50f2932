"""The service around the pure engine, in folders by role (docs/service.md#layout).

- ``base``: what every layer uses: the generated messages (``pb``), descriptor facts,
  errors and their bodies, the LRU cache, snapshot signatures and page tokens.
- ``codec``: request and answer encodings: the required-field walk, proto3 JSON, protobuf
  <-> engine values (snapshots, actions, answers), derived fields, the wire reader.
- ``pipeline``: one call, transport-neutral: decoding, snapshot loading, the RPCs (``api``),
  the error boundary, the runtime that answers any transport.
- ``transport``: the I/O shells: the gRPC server, the REST gateway, its HTTP guard, the
  listeners, the process (``server``) and the ``samba-adjudicator`` command (``cli``).
- ``ops``: configuration, logs, metrics.
- ``web``: the human pages: OpenAPI, Swagger UI/ReDoc, the reference, the playground.

``codec`` and ``pipeline`` are compiled with mypyc with the engine (pyproject.toml
``[tool.samba-adjudicator] compiled``); their packages find the compiled build first.
"""
