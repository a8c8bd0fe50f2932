"""Every error of the REST gateway as the JSON error body (docs/api.md#errors): the
framework's own 404, 405 and validation errors, ``ApiError`` raised on a route, and a
refused CORS preflight, each in the request's language (docs/i18n.md): a framework's own
text (Starlette's, pydantic's) is quoted as it was."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response

from samba_adjudicator.engine.messages import N_, problem

from ..base.errors import ApiError, api_error, invalid_argument
from ..i18n.negotiation import choose as choose_language
from ..pipeline.runtime import VERSION_HEADER, request_id_from
from .rest_common import (
    call_language,
    call_request_id,
    error_response,
)

_HTTP_CODES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    413: "RESOURCE_EXHAUSTED",
    504: "DEADLINE_EXCEEDED",
    503: "UNAVAILABLE",
}


async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
    rid = call_request_id(request)
    if exc.status_code == 404:
        return error_response(
            api_error(
                "NOT_FOUND",
                "ROUTE_NOT_FOUND",
                "no route {method} {path}",
                method=request.method,
                path=request.url.path,
            ),
            rid,
            None,
            call_language(request),
        )
    if exc.status_code == 405:
        headers = dict(exc.headers or {})
        allow = headers.get("Allow") or headers.get("allow") or ""
        template = (
            N_("{method} is not allowed on {path}; use {allow}")
            if allow
            else N_("{method} is not allowed on {path}")
        )
        err = api_error(
            "UNIMPLEMENTED",
            "METHOD_NOT_ALLOWED",
            template,
            method=request.method,
            path=request.url.path,
            allow=allow,
        )
        err.http = 405  # no canonical code of its own
        return error_response(err, rid, headers, call_language(request))
    code = _HTTP_CODES.get(exc.status_code, "INTERNAL")
    if code == "INVALID_ARGUMENT":  # Starlette's own text, quoted
        err = invalid_argument([problem("", "OUT_OF_RANGE", "{error}", error=exc.detail)])
    else:
        err = api_error(code, code, "{error}", error=exc.detail)
    return error_response(err, rid, None, call_language(request))


async def _validation_error(request: Request, exc: RequestValidationError) -> Response:
    problems = []
    for e in exc.errors():
        loc = [str(x) for x in e.get("loc", ()) if x not in ("body", "path", "query")]
        problems.append(problem(".".join(loc), "OUT_OF_RANGE", "{error}", error=e.get("msg", "")))
    return error_response(
        invalid_argument(problems), call_request_id(request), None, call_language(request)
    )


async def _api_error(request: Request, exc: ApiError) -> Response:
    return error_response(exc, call_request_id(request), None, call_language(request))


def install(app: FastAPI) -> None:
    """The exception handlers (Starlette types every handler as taking Exception; each gets
    its own class)."""
    app.add_exception_handler(StarletteHTTPException, _http_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _validation_error)  # type: ignore[arg-type]
    app.add_exception_handler(ApiError, _api_error)  # type: ignore[arg-type]


class JsonCORSMiddleware(CORSMiddleware):
    """Starlette's CORS, with a refused preflight answered by the JSON error body."""

    def preflight_response(self, request_headers) -> Response:
        response = super().preflight_response(request_headers)
        if response.status_code < 400:
            return response
        rid = request_id_from(request_headers.get("x-request-id"))
        # outside SambaMiddleware, which negotiates every other answer's language
        lang = choose_language(", ".join(request_headers.getlist("accept-language")))
        headers = {
            "x-request-id": rid,
            "x-samba-version": VERSION_HEADER,
            "content-language": lang,
            "vary": "Accept-Language",
        }
        err = api_error(
            "PERMISSION_DENIED",
            "CORS_PREFLIGHT_REFUSED",
            "CORS preflight refused: {reason}",
            reason=bytes(response.body).decode(),  # Starlette's own text, quoted
        )
        return error_response(err, rid, headers, lang)
