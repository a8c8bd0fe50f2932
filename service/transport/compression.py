"""Which coding a REST answer travels in: RFC 9110 §12.5.3 ``Accept-Encoding``
(docs/api.md#compression), read by ``service.base.weighted`` as Accept-Language is.

``gzip`` (or its alias ``x-gzip``) is acceptable when listed with a weight above 0, or,
unlisted, when ``*`` is; ``identity`` (the answer as it is) is acceptable unless
``identity;q=0``, or ``*;q=0`` without an ``identity`` member, refuses it. Tokens and the
``q`` parameter are case-insensitive; a member with a malformed weight is left out; several
``Accept-Encoding`` lines are one list. gzip is chosen when acceptable and weighted at least
as much as identity (identity unweighted counts least): from GZIP_MIN_BYTES on, and for
every answer when identity is refused. When neither is acceptable the answer is sent as it
is: a refusal (406) would tell a caller less than the answer itself.
"""

from __future__ import annotations

from starlette.middleware.gzip import GZipMiddleware, GZipResponder, IdentityResponder
from starlette.types import Receive, Scope, Send

from ..base import weighted
from ..i18n.http import header_value

IDENTITY, GZIP, GZIP_ALWAYS = "identity", "gzip", "gzip, identity refused"
#: RFC 9110 §8.4.1.3: a recipient treats ``x-gzip`` as ``gzip``.
_ALIASES = {"x-gzip": "gzip"}


def coding(header: str | None) -> str:
    """IDENTITY, GZIP (from the size threshold on) or GZIP_ALWAYS, for an Accept-Encoding
    value (None: absent, the answer as it is)."""
    weights: dict[str, float] = {}
    for token, q in weighted.members(header):
        weights.setdefault(_ALIASES.get(token, token), q)  # a token given twice: the first
    star = weights.get("*")
    gzip = weights.get("gzip", 0.0 if star is None else star)
    identity = weights.get("identity", star)  # None: acceptable, weighted least
    if gzip <= 0 or (identity is not None and identity > gzip):
        return IDENTITY
    return GZIP_ALWAYS if identity == 0 else GZIP


class NegotiatedGZip(GZipMiddleware):
    """Starlette's gzip middleware with the coding chosen by ``coding`` (Starlette's own
    looks for the substring ``gzip``: ``gzip;q=0`` got gzip, ``GZIP`` did not)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chosen = coding(header_value(scope.get("headers", ()), b"accept-encoding"))
        responder: IdentityResponder
        if chosen == IDENTITY:
            responder = IdentityResponder(
                self.app, self.minimum_size, exclude_content_types=self.exclude_content_types
            )
        else:
            responder = GZipResponder(
                self.app,
                self.minimum_size if chosen == GZIP else 1,
                compresslevel=self.compresslevel,
                thread_minimum_size=self.thread_minimum_size,
                exclude_content_types=self.exclude_content_types,
            )
        await responder(scope, receive, send)
