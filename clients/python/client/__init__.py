"""Python client of the Samba rules adjudicator (``samba.v1.Adjudicator``).

    from samba_adjudicator.client import Client, AdjudicatorError
    with Client.grpc("localhost:50051") as client:        # or Client.rest("http://localhost:8080")
        snapshot = client.deal({"players": 4, "seed": "…"})["snapshot"]
        answer = client.validate_action({"snapshot": snapshot, "action": …})

``AsyncClient`` is the same for asyncio. Requests are protobuf messages
(``samba_adjudicator.client._pb``, generated at build time) or their proto3-JSON dicts;
answers come back in the same form. A refused request raises ``AdjudicatorError``
(status, ErrorInfo reason, every field violation, request id); an illegal action is an
answer with ``legal: false``.
Calls that meet UNAVAILABLE are retried with capped exponential backoff and jitter
(``retry=RetryPolicy(...)``, ``retry=None`` to turn it off; ``client.retry``).
"""

from .api import DEFAULT_TIMEOUT, AsyncClient, Client
from .errors import AdjudicatorError, FieldViolation
from .retry import DEFAULT_RETRY, NO_RETRY, RetryPolicy

__all__ = [
    "AdjudicatorError",
    "AsyncClient",
    "Client",
    "DEFAULT_RETRY",
    "DEFAULT_TIMEOUT",
    "FieldViolation",
    "NO_RETRY",
    "RetryPolicy",
]
