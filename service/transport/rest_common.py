"""What the REST gateway's modules share: JSON answers, the call's request id, language and
trace context, the 413 error."""

from __future__ import annotations

import math

from starlette.requests import Request
from starlette.responses import Response

from ..base.errors import ApiError, api_error
from ..codec import jsonio
from ..codec.error_bodies import rest_body
from ..i18n.localize import localize_error
from ..i18n.negotiation import DEFAULT as DEFAULT_LANGUAGE
from ..ops.tracing import Carried, carried
from ..pipeline.runtime import request_id_from

JSON = "application/json"


def json_response(body, status: int = 200, headers: dict | None = None) -> Response:
    return Response(jsonio.dumps_bytes(body), status_code=status, media_type=JSON, headers=headers)


def error_response(
    err: ApiError, request_id: str, headers: dict | None = None, lang: str = DEFAULT_LANGUAGE
) -> Response:
    """The error body of ``err``, its texts in ``lang`` (docs/i18n.md), with ``Retry-After``
    when it carries a retry hint (whole seconds, rounded up: the header takes no fraction)."""
    if err.retry_after > 0:
        headers = {**(headers or {}), "retry-after": str(math.ceil(err.retry_after))}
    return json_response(rest_body(localize_error(err, lang), request_id), err.http_status, headers)


def call_request_id(request: Request) -> str:
    rid = getattr(request.state, "request_id", None)
    return rid or request_id_from(request.headers.get("x-request-id"))


def call_language(request: Request) -> str:
    """The answer's language, chosen by the middleware from ``Accept-Language``."""
    return getattr(request.state, "lang", None) or DEFAULT_LANGUAGE


def call_trace(request: Request) -> Carried | None:
    """The call's trace context, read by the middleware (``request_head``)."""
    return getattr(request.state, "trace", None)


def too_large(limit: int, size: int | None = None) -> ApiError:
    if size is None:
        return api_error(
            "RESOURCE_EXHAUSTED",
            "REQUEST_TOO_LARGE",
            "the request is over {limit} bytes; the limit is {limit} bytes (do not retry)",
            limit=limit,
        )
    return api_error(
        "RESOURCE_EXHAUSTED",
        "REQUEST_TOO_LARGE",
        "the request is {size} bytes; the limit is {limit} bytes (do not retry)",
        size=size,
        limit=limit,
    )


def content_length(value: bytes | str | None) -> int | None:
    """A ``Content-Length`` value as a number of bytes (None: absent or not a number)."""
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def request_head(headers) -> tuple[str, int | None, Carried | None]:
    """The call's request id (``x-request-id`` or a new one), its ``Content-Length`` and
    its trace context (``traceparent``, ``tracestate``), in one pass over the headers."""
    rid = None
    size = None
    traces: list[tuple[str, str]] = []
    for k, v in headers:
        if k == b"x-request-id":
            rid = v.decode("latin-1")
        elif k == b"content-length":
            size = content_length(v)
        elif k == b"traceparent" or k == b"tracestate":
            traces.append((k.decode("latin-1"), v.decode("latin-1")))
    return request_id_from(rid), size, carried(traces) if traces else None
