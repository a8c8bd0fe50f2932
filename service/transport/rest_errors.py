"""Every error of the REST gateway as the JSON error body (docs/api.md#errors): the
framework's own 404, 405 and validation errors, ``ApiError`` raised on a route, and a
refused CORS preflight."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response

from samba_adjudicator.engine.model import Problem
from samba_adjudicator.service.base.errors import ApiError, api_error, invalid_argument
from samba_adjudicator.service.pipeline.runtime import VERSION_HEADER, request_id_from
from samba_adjudicator.service.transport.rest_common import (
    call_language,
    call_request_id,
    error_response,
    json_response,
)


def _plain_error(
    http: int, status: str, reason: str, message: str, request_id: str, headers: dict | None = None
) -> Response:
    """Errors with no canonical mapping of their own (405)."""
    body = {
        "error": {
            "code": http,
            "status": status,
            "message": message,
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": reason,
                    "domain": "samba.v1",
                    "metadata": {"requestId": request_id},
                }
            ],
        }
    }
    return json_response(body, http, headers)


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
        return _plain_error(
            405,
            "UNIMPLEMENTED",
            "METHOD_NOT_ALLOWED",
            f"{request.method} is not allowed on {request.url.path}"
            + (f"; use {allow}" if allow else ""),
            rid,
            headers,
        )
    code = _HTTP_CODES.get(exc.status_code, "INTERNAL")
    if code == "INVALID_ARGUMENT":
        err = invalid_argument([Problem("", "OUT_OF_RANGE", str(exc.detail))])
    else:
        err = ApiError(code, code, str(exc.detail))
    return error_response(err, rid, None, call_language(request))


async def _validation_error(request: Request, exc: RequestValidationError) -> Response:
    problems = []
    for e in exc.errors():
        loc = [str(x) for x in e.get("loc", ()) if x not in ("body", "path", "query")]
        problems.append(Problem(".".join(loc), "OUT_OF_RANGE", e.get("msg", "")))
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
        return error_response(
            ApiError(
                "PERMISSION_DENIED",
                "CORS_PREFLIGHT_REFUSED",
                f"CORS preflight refused: {bytes(response.body).decode()}",
            ),
            rid,
            {"x-request-id": rid, "x-samba-version": VERSION_HEADER},
        )
