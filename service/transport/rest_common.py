"""What the REST gateway's modules share: JSON answers, the call's request id and language."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from samba_adjudicator.service.base.errors import ApiError, rest_body
from samba_adjudicator.service.codec import jsonio
from samba_adjudicator.service.i18n.localize import localize_error
from samba_adjudicator.service.i18n.negotiation import DEFAULT as DEFAULT_LANGUAGE
from samba_adjudicator.service.pipeline.runtime import request_id_from

JSON = "application/json"


def json_response(body, status: int = 200, headers: dict | None = None) -> Response:
    return Response(jsonio.dumps_bytes(body), status_code=status, media_type=JSON, headers=headers)


def error_response(
    err: ApiError, request_id: str, headers: dict | None = None, lang: str = DEFAULT_LANGUAGE
) -> Response:
    """The error body of ``err``, its texts in ``lang`` (docs/i18n.md)."""
    return json_response(rest_body(localize_error(err, lang), request_id), err.http_status, headers)


def call_request_id(request: Request) -> str:
    rid = getattr(request.state, "request_id", None)
    return rid or request_id_from(request.headers.get("x-request-id"))


def call_language(request: Request) -> str:
    """The answer's language, chosen by the middleware from ``Accept-Language``."""
    return getattr(request.state, "lang", None) or DEFAULT_LANGUAGE
