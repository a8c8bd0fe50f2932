"""The REST gateway: a FastAPI app over the same ``service.pipeline.api`` as gRPC.

Routes (docs/api.md#methods), one ``APIRouter`` per resource: rulesets, deals, melds, actions,
plus the operations routes ``/healthz``, ``/readyz``, ``/metrics``, ``/openapi.json``, and
the pages of ``service.web.pages`` (``/docs``, ``/redoc``, ``/playground``). Bodies are read as raw
bytes (at most ``--max-message-bytes``, checked on
``Content-Length`` and while reading, *before* any parsing: 413 REQUEST_TOO_LARGE), parsed
by ``service.codec.jsonio`` (proto3 JSON, every problem collected) and answered with the proto3
JSON mapping (every field printed). Every non-2xx answer is the docs/api.md#errors JSON body —
unknown routes (404), wrong verbs (405), garbage bodies (400) and unexpected failures (500)
included; never an HTML page.

Headers: ``x-request-id`` (echoed, generated when absent) and ``x-samba-version`` on every
answer; ``x-server-timeout: SECONDS`` on a request sets a deadline (504 past it).

Calls are answered inline on the event loop, except the methods of
``service.pipeline.runtime.OFFLOAD`` (cost grows with the request), which run in the thread pool
(``run_in_threadpool``) so that health probes and ``/metrics`` are not stalled.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect
from starlette.responses import Response

from samba_adjudicator.engine.model import Problem
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.errors import ApiError, invalid_argument, rest_body
from samba_adjudicator.service.codec import jsonio
from samba_adjudicator.service.ops import metrics
from samba_adjudicator.service.pipeline.api import REMEMBERS
from samba_adjudicator.service.pipeline.boundary import as_api_error
from samba_adjudicator.service.pipeline.runtime import (
    VERSION,
    VERSION_HEADER,
    Runtime,
    request_id_from,
    shutting_down,
)
from samba_adjudicator.service.web import examples, openapi, pages

JSON = "application/json"

#: (RPC, verb, path, tag, summary) — docs/api.md#methods.
ROUTES = (
    ("ListRulesets", "get", "/v1/rulesets", "rulesets", "Every served profile, resolved."),
    (
        "GetRuleset",
        "get",
        "/v1/rulesets/{profile}",
        "rulesets",
        "One profile (with +-joined variations), resolved.",
    ),
    ("Deal", "post", "/v1/deals:deal", "deals", "Shuffle and deal a new deal."),
    ("ScoreDeal", "post", "/v1/deals:score", "deals", "Score a (finished or provisional) deal."),
    (
        "GetPlayerView",
        "post",
        "/v1/deals:view",
        "deals",
        "The snapshot as one seat (or a spectator) may see it.",
    ),
    (
        "ReplayDeal",
        "post",
        "/v1/deals:replay",
        "deals",
        "Apply actions in order, stopping at the first illegal one.",
    ),
    ("CheckMeld", "post", "/v1/melds:check", "melds", "Judge a meld."),
    ("ValidateAction", "post", "/v1/actions:validate", "actions", "Is an action legal now?"),
    ("ApplyAction", "post", "/v1/actions:apply", "actions", "Apply an action."),
    (
        "ListLegalActions",
        "post",
        "/v1/actions:list",
        "actions",
        "Every legal atomic action, paged.",
    ),
    (
        "SuggestAction",
        "post",
        "/v1/actions:suggest",
        "actions",
        "A computer player's legal action for one seat, from that seat's view only.",
    ),
)
BENCH_ECHO_PATH = "/v1/bench:echo"


def _json(body, status: int = 200, headers: dict | None = None) -> Response:
    return Response(jsonio.dumps_bytes(body), status_code=status, media_type=JSON, headers=headers)


def error_response(err: ApiError, request_id: str, headers: dict | None = None) -> Response:
    return _json(rest_body(err, request_id), err.http_status, headers)


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
    return _json(body, http, headers)


def too_large(limit: int, size: int | None = None) -> ApiError:
    what = f"{size} bytes" if size is not None else f"over {limit} bytes"
    return ApiError(
        "RESOURCE_EXHAUSTED",
        "REQUEST_TOO_LARGE",
        f"the request is {what}; the limit is {limit} bytes (do not retry)",
    )


def _rid(request: Request) -> str:
    rid = getattr(request.state, "request_id", None)
    return rid or request_id_from(request.headers.get("x-request-id"))


class SambaMiddleware:
    """Pure ASGI: request id, ``x-samba-version``, early 413, last-resort JSON 500."""

    def __init__(self, app, limit: int, state) -> None:
        self.app = app
        self.limit = limit
        self.state = state
        self.version = VERSION_HEADER.encode("latin-1")

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        rid, size = _request_id_and_size(scope.get("headers", ()))
        scope.setdefault("state", {})["request_id"] = rid
        extra = [(b"x-request-id", rid.encode("latin-1")), (b"x-samba-version", self.version)]
        started = False

        async def send_with_headers(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = [
                    h
                    for h in message.get("headers", ())
                    if h[0] not in (b"x-request-id", b"x-samba-version")
                ]
                if self.state.draining and (b"connection", b"close") not in headers:
                    headers.append((b"connection", b"close"))  # clients reconnect elsewhere
                message = {**message, "headers": headers + extra}
            await send(message)

        if size is not None and size > self.limit:
            resp = error_response(too_large(self.limit, size), rid, {"connection": "close"})
            return await resp(scope, receive, send_with_headers)
        try:
            await self.app(scope, receive, send_with_headers)
        except Exception as e:  # noqa: BLE001 - never an HTML 500
            # a failure of the framework itself, outside any call: the same boundary
            err = as_api_error(e, f"{scope.get('method')} {scope.get('path')}")
            if not started:
                await error_response(err, rid)(scope, receive, send_with_headers)


def _request_id_and_size(headers) -> tuple[str, int | None]:
    """The call's request id (``x-request-id`` or a new one) and its ``Content-Length``."""
    rid = None
    size = None
    for k, v in headers:
        if k == b"x-request-id":
            rid = v.decode("latin-1")
        elif k == b"content-length":
            try:
                size = int(v)
            except ValueError:
                size = None
    return request_id_from(rid), size


async def read_body(request: Request, limit: int) -> bytes:
    chunks = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise too_large(limit)
            chunks.append(chunk)
    except ClientDisconnect:  # nobody to answer: counted and logged, without a traceback
        raise ApiError(
            "CANCELLED",
            "CLIENT_DISCONNECTED",
            "the client closed the connection before its request arrived whole",
        ) from None
    return b"".join(chunks)


def _deadline(request: Request) -> float | None:
    raw = request.headers.get("x-server-timeout")
    if raw is None:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        seconds = float("nan")
    if not math.isfinite(seconds) or seconds <= 0:
        raise invalid_argument(
            [
                Problem(
                    "x-server-timeout",
                    "OUT_OF_RANGE",
                    "the x-server-timeout header must be a positive number of seconds, "
                    f"not {raw!r}",
                )
            ]
        )
    return time.monotonic() + seconds


class _Calls:
    """The RPC routes: read the body, answer through ``Runtime.invoke``, render JSON."""

    def __init__(self, runtime: Runtime, limit: int) -> None:
        self.runtime = runtime
        self.limit = limit

    def answer(self, method: str, decode, rid: str, deadline: float | None) -> Response:
        try:
            response = self.runtime.invoke(
                method, decode, transport="rest", request_id=rid, deadline=deadline
            )
        except ApiError as e:
            return error_response(e, rid)
        body = jsonio.to_dict(response)
        if method in REMEMBERS and "snapshot" in body:
            self.runtime.adjudicator.snapshots.remember_json(response.snapshot, body["snapshot"])
        return _json(body)

    async def run(
        self, method: str, decode, rid: str, deadline: float | None, size: int = 0
    ) -> Response:
        if self.runtime.state.draining:
            err = shutting_down()
            self.runtime.reject(method, "rest", rid, err)
            return error_response(err, rid, {"connection": "close"})
        if self.runtime.offloaded(method, size):
            return await run_in_threadpool(self.answer, method, decode, rid, deadline)
        return self.answer(method, decode, rid, deadline)

    def post_endpoint(self, method: str):
        async def endpoint(request: Request) -> Response:
            rid = _rid(request)
            try:
                deadline = _deadline(request)
                body = await read_body(request, self.limit)
            except ApiError as e:
                self.runtime.reject(method, "rest", rid, e)
                return error_response(
                    e, rid, {"connection": "close"} if e.code == "RESOURCE_EXHAUSTED" else None
                )
            return await self.run(
                method, self.runtime.json_decoder(method, body), rid, deadline, len(body)
            )

        endpoint.__name__ = method
        return endpoint

    async def list_rulesets(self, request: Request) -> Response:
        return await self._get("ListRulesets", pb.ListRulesetsRequest(), request)

    async def get_ruleset(self, profile: str, request: Request) -> Response:
        return await self._get("GetRuleset", pb.GetRulesetRequest(profile=profile), request)

    async def _get(self, method: str, message, request: Request) -> Response:
        rid = _rid(request)
        try:
            deadline = _deadline(request)
        except ApiError as e:
            return error_response(e, rid)
        return await self.run(method, lambda: (message, [], None), rid, deadline)

    def routers(self) -> list[APIRouter]:
        routers = {tag: APIRouter(tags=[tag]) for tag in ("rulesets", "deals", "melds", "actions")}
        special: dict[str, Callable[..., Any]] = {
            "ListRulesets": self.list_rulesets,
            "GetRuleset": self.get_ruleset,
        }
        for rpc, verb, path, tag, summary in ROUTES:
            fn = special.get(rpc) or self.post_endpoint(rpc)
            routers[tag].add_api_route(
                path,
                fn,
                methods=[verb.upper()],
                operation_id=rpc,
                summary=summary,
                response_class=Response,
            )
        return list(routers.values())


def _operations(runtime: Runtime) -> APIRouter:
    """Health, readiness, metrics, the OpenAPI document and its Swagger UI."""
    ops = APIRouter(tags=["operations"])

    @ops.get("/healthz")
    async def healthz() -> Response:
        return _json({"status": "SERVING"})

    @ops.get("/readyz")
    async def readyz() -> Response:
        serving = runtime.state.serving
        return _json({"status": "SERVING" if serving else "NOT_SERVING"}, 200 if serving else 503)

    @ops.get("/metrics")
    async def metrics_endpoint() -> Response:
        body, ctype = await run_in_threadpool(metrics.exposition)
        return Response(body, media_type=ctype)

    @ops.get("/openapi.json")
    async def openapi_json() -> Response:
        return _json(openapi_document())

    return ops


@functools.lru_cache(maxsize=1)
def _openapi_document() -> dict:
    return openapi.build(
        ROUTES,
        title="Samba adjudicator",
        version=VERSION,
        description="REST gateway of `samba.v1.Adjudicator` (proto3 JSON mapping). "
        "Schemas and descriptions come from the protobuf schema; every "
        "example is a real request and the service's answer to it.",
        examples=examples.route_examples(),
    )


def openapi_document() -> dict:
    """The OpenAPI document of the gateway (built once; FastAPI's generator is replaced)."""
    return _openapi_document()


# -- every error as JSON -------------------------------------------------------------------

_HTTP_CODES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    413: "RESOURCE_EXHAUSTED",
    504: "DEADLINE_EXCEEDED",
    503: "UNAVAILABLE",
}


async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
    rid = _rid(request)
    if exc.status_code == 404:
        return error_response(
            ApiError(
                "NOT_FOUND", "ROUTE_NOT_FOUND", f"no route {request.method} {request.url.path}"
            ),
            rid,
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
    return error_response(err, rid)


async def _validation_error(request: Request, exc: RequestValidationError) -> Response:
    problems = []
    for e in exc.errors():
        loc = [str(x) for x in e.get("loc", ()) if x not in ("body", "path", "query")]
        problems.append(Problem(".".join(loc), "OUT_OF_RANGE", e.get("msg", "")))
    return error_response(invalid_argument(problems), _rid(request))


async def _api_error(request: Request, exc: ApiError) -> Response:
    return error_response(exc, _rid(request))


def create_app(runtime: Runtime, settings) -> FastAPI:
    limit = int(settings.max_message_bytes)
    app = FastAPI(
        title="Samba adjudicator", version=VERSION, docs_url=None, redoc_url=None, openapi_url=None
    )
    app.state.runtime = runtime
    for router in _Calls(runtime, limit).routers():
        app.include_router(router)
    app.include_router(_operations(runtime))
    app.include_router(pages.router())  # /docs, /redoc, /playground: served from here
    app.openapi = openapi_document  # type: ignore[method-assign]

    if settings.bench_echo:

        async def echo(request: Request) -> Response:
            body = await read_body(request, limit)
            return Response(body, media_type=JSON)

        app.add_api_route(BENCH_ECHO_PATH, echo, methods=["POST"], include_in_schema=False)

    # Starlette types every handler as taking Exception; each gets its own class.
    app.add_exception_handler(StarletteHTTPException, _http_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _validation_error)  # type: ignore[arg-type]
    app.add_exception_handler(ApiError, _api_error)  # type: ignore[arg-type]
    # Anything else raised on a route reaches SambaMiddleware, the last resort.
    app.add_middleware(SambaMiddleware, limit=limit, state=runtime.state)
    if settings.cors_origins:
        # Outermost, so that every answer (a 413 or a 500 included) carries the CORS headers
        # a page needs to read it.
        app.add_middleware(
            JsonCORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["content-type", "x-request-id", "x-server-timeout"],
            expose_headers=["x-request-id", "x-samba-version"],
            max_age=600,
        )
    return app


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
