"""The REST gateway: a FastAPI app over the same ``service.pipeline.api`` as gRPC.

Routes (docs/api.md#methods), one ``APIRouter`` per resource: rulesets, deals, melds, actions,
plus the operations routes (``service.transport.rest_operations``: ``/healthz``, ``/readyz``,
``/metrics``, ``/openapi.json``) and
the pages of ``service.web.pages`` (``/docs``, ``/redoc``, ``/playground``). Bodies are read as raw
bytes (at most ``--max-message-bytes``, checked on
``Content-Length`` and while reading, *before* any parsing: 413 REQUEST_TOO_LARGE), parsed
by ``service.codec.jsonio`` (proto3 JSON, every problem collected) and answered with the proto3
JSON mapping (every field printed), gzip-encoded from GZIP_MIN_BYTES when the caller accepts
it. Every non-2xx answer is the docs/api.md#errors JSON body —
unknown routes (404), wrong verbs (405), garbage bodies (400) and unexpected failures (500)
included; never an HTML page.

Headers: ``x-request-id`` (echoed, generated when absent) and ``x-samba-version`` on every
answer; ``x-server-timeout: SECONDS`` on a request sets a deadline (504 past it);
``traceparent``/``tracestate`` (W3C trace context) go into the call's log line and span.

Calls are answered inline on the event loop, except heavy ones (``service.pipeline.heavy``:
whatever lists legal actions, by method or by ``includeLegalActions``, and ApplyAction with
``computer``) and requests over ``OFFLOAD_BYTES``, which run in the thread pool
(``run_in_threadpool``) so that health probes and ``/metrics`` are not stalled; a client that
closes the connection meanwhile stops that work (``_watch_disconnect``). A heavy call waits
for its heavy-call slot on the loop first (``service.transport.slot_wait``: no pool thread
held), until its deadline at most; one of a method whose every call is heavy is refused
from its ``Content-Length``, before its body is read, when the line has no room for it
(``_Calls._turn_away``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import time
from collections.abc import Callable

from fastapi import APIRouter, FastAPI, Request
from google.protobuf.message import Message
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect
from starlette.responses import Response
from starlette.routing import compile_path

from samba_adjudicator.engine.deadline import Stop
from samba_adjudicator.engine.messages import problem

from ..base import pb
from ..base.descriptors import http_route
from ..base.errors import ApiError, invalid_argument
from ..codec import jsonio
from ..i18n.http import header_value, language_headers
from ..i18n.negotiation import choose as choose_language
from ..pipeline.api import REMEMBERS
from ..pipeline.boundary import as_api_error
from ..pipeline.budget import line_full
from ..pipeline.call import Call, received, stoppable
from ..pipeline.heavy import OFFLOAD
from ..pipeline.runtime import (
    VERSION,
    VERSION_HEADER,
    Runtime,
    shutting_down,
)
from ..pipeline.slots import Ticket
from ..web import pages, proto_docs
from ..web.openapi import route_tags
from . import rest_errors, rest_operations
from .compression import NegotiatedGZip
from .rest_common import (
    JSON,
    call_language,
    call_request_id,
    call_trace,
    content_length,
    error_response,
    json_response,
    request_head,
    too_large,
)
from .rest_errors import JsonCORSMiddleware
from .slot_wait import offload


def _routes() -> tuple[tuple[str, str, str, str, str], ...]:
    """(RPC, verb, path, tag, summary) of every RPC (docs/api.md#methods), read from the
    schema: the verb and path from its ``google.api.http`` option (the one place a route is
    written), the tag from the path's resource (``/v1/deals:deal``: ``deals``), the summary
    from its proto comment."""
    routes = []
    for method in pb.SERVICE.methods:
        verb, path = http_route(method)
        tag = path.split("/")[2].split(":")[0]
        routes.append((method.name, verb, path, tag, proto_docs.comment(method.full_name)))
    return tuple(routes)


ROUTES = _routes()


_ROUTE_PATTERNS = [(v.upper(), compile_path(path)[0], rpc) for rpc, v, path, _, _ in ROUTES]


def rpc_of_route(verb: str, path: str) -> str | None:
    """The RPC whose route a request's verb and path take (None: no RPC's), for a call
    refused before routing (``SambaMiddleware``'s early 413)."""
    return next((rpc for v, p, rpc in _ROUTE_PATTERNS if v == verb and p.match(path)), None)


BENCH_ECHO_PATH = "/v1/bench:echo"
#: Answers of at least this many bytes are gzip-encoded for a caller that sends
#: ``Accept-Encoding: gzip`` (docs/api.md#compression); smaller ones gain too little.
GZIP_MIN_BYTES = 1024
#: zlib's level: a 10 KB answer with views shrinks to 1.2 KB in 0.05 ms (level 9: 0.06 ms,
#: 1 % smaller).
GZIP_LEVEL = 6


#: ``Retry-After`` of a call refused because the server is stopping (503 SHUTTING_DOWN):
#: retry at once, on another replica (the connection is closed).
DRAIN_RETRY_AFTER = b"1"


class SambaMiddleware:
    """Pure ASGI: request id, ``x-samba-version``, early 413, last-resort JSON 500. The
    early 413 of an RPC's route is a call refused: counted, logged and traced
    (``Runtime.reject``) as one refused while its body was read."""

    def __init__(self, app, limit: int, runtime: Runtime) -> None:
        self.app = app
        self.limit = limit
        self.runtime = runtime
        self.state = runtime.state
        self.version = VERSION_HEADER.encode("latin-1")

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        state = scope.setdefault("state", {})
        rid, size, state["trace"] = request_head(scope.get("headers", ()))
        state["request_id"] = rid
        # a call whose head arrived before SIGTERM is answered normally, however long its
        # body takes to arrive or its turn on the thread pool to come, within the grace;
        # the server's protocol stamps it as it parses the head (http_guard), else now
        state.setdefault("after_sigterm", self.state.draining)
        lang = choose_language(header_value(scope.get("headers", ()), b"accept-language"))
        state["lang"] = lang
        language = lang.encode("latin-1")
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
                if self.state.draining and message["status"] == 503:
                    headers.append((b"retry-after", DRAIN_RETRY_AFTER))  # another replica
                headers = language_headers(headers, language)
                message = {**message, "headers": headers + extra}
            await send(message)

        if size is not None and size > self.limit:
            err = too_large(self.limit, size)
            rpc = rpc_of_route(scope.get("method", ""), scope.get("path", ""))
            if rpc is not None:
                self.runtime.reject(Call(rpc, b"", "rest", rid, trace=state["trace"]), err)
            resp = error_response(err, rid, {"connection": "close"}, lang)
            return await resp(scope, receive, send_with_headers)
        try:
            await self.app(scope, receive, send_with_headers)
        except Exception as e:  # noqa: BLE001 - never an HTML 500
            # a failure of the framework itself, outside any call: the same boundary
            err = as_api_error(e, f"{scope.get('method')} {scope.get('path')}")
            if not started:
                await error_response(err, rid, None, lang)(scope, receive, send_with_headers)


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
                problem(
                    "x-server-timeout",
                    "OUT_OF_RANGE",
                    "the x-server-timeout header must be a positive number of seconds, not {value}",
                    value=repr(raw),
                )
            ]
        )
    return time.monotonic() + seconds


async def _watch_disconnect(request: Request, stop: Stop) -> None:
    """Set ``stop`` when the client closes the connection (the ASGI ``http.disconnect``
    message; the body was read whole before, so nothing else arrives meanwhile)."""
    with contextlib.suppress(Exception):  # a receive channel closed: no one to watch
        while True:
            message = await request.receive()
            if message["type"] == "http.disconnect":
                stop.set()
                return


class _Calls:
    """The RPC routes: read the body, answer through ``Runtime.invoke``, render JSON."""

    def __init__(self, runtime: Runtime, limit: int) -> None:
        self.runtime = runtime
        self.limit = limit

    def answer(self, call: Call, ticket: Ticket | None = None) -> Response:
        try:
            response = self.runtime.invoke(call, ticket)
        except ApiError as e:
            return error_response(e, call.request_id, None, call.lang)
        body = jsonio.to_dict(response)
        if call.method in REMEMBERS and "snapshot" in body:
            self.runtime.adjudicator.snapshots.remember_json(response.snapshot, body["snapshot"])
        return json_response(body)

    def _turn_away(self, request: Request, method: str) -> None:
        """Raise MEMORY_BUDGET before the body is read when the call is heavy by its method
        (``OFFLOAD``), both slots are taken and its ``Content-Length`` finds no room in the
        line (``Slots.turns_away``), as gRPC refuses it before reading (``_read_late``): 60
        bodies of 0.9 MB read only to be refused kept the REST loop turning for seconds
        while the gRPC loop waited for the interpreter lock. ApplyAction and Deal are heavy
        only by their ``includeLegalActions``, which is in the body: they are read first.
        A call the drain refuses is read and answered SHUTTING_DOWN as before."""
        if method not in OFFLOAD or getattr(request.state, "after_sigterm", False):
            return
        size = content_length(request.headers.get("content-length"))
        if size is not None and self.runtime.heavy.turns_away(size):
            raise line_full(size)

    async def run(self, request: Request, call: Call) -> Response:
        if getattr(request.state, "after_sigterm", self.runtime.state.draining):
            err = shutting_down()
            self.runtime.reject(call, err)
            return error_response(err, call.request_id, {"connection": "close"}, call.lang)
        if not self.runtime.offloaded(call):
            return self.answer(call)
        # a client that closes the connection stops the call's work (engine.deadline)
        call = stoppable(call)
        assert call.stop is not None
        watch = asyncio.ensure_future(_watch_disconnect(request, call.stop))
        try:
            return await offload(self.runtime.heavy, call, watch, self.answer, run_in_threadpool)
        finally:
            watch.cancel()

    def endpoint(self, method: str, message: Callable[..., Message] | None = None):
        """The route of RPC ``method``: its body read (``message``: a GET's request, made
        from the path's parameters), its ``Call`` made, answered through ``run``."""

        async def endpoint(request: Request) -> Response:
            rid, lang = call_request_id(request), call_language(request)
            trace = call_trace(request)
            try:
                deadline = _deadline(request)
                if message is None:
                    self._turn_away(request, method)
                    body: bytes | Message = await read_body(request, self.limit)
                else:
                    body = message(**request.path_params)
            except ApiError as e:
                self.runtime.reject(Call(method, b"", "rest", rid, trace=trace), e)
                close = {"connection": "close"} if e.code == "RESOURCE_EXHAUSTED" else None
                return error_response(e, rid, close, lang)
            call = received(method, body, "rest", rid, deadline, lang, trace)
            return await self.run(request, call)

        endpoint.__name__ = method
        return endpoint

    def routers(self) -> list[APIRouter]:
        routers = {tag: APIRouter(tags=[tag]) for tag in route_tags(ROUTES)}
        # the GET routes: their request made from the path (docs/api.md#methods)
        gets: dict[str, Callable[..., Message]] = {
            "ListRulesets": pb.ListRulesetsRequest,
            "GetRuleset": pb.GetRulesetRequest,
        }
        for rpc, verb, path, tag, summary in ROUTES:
            routers[tag].add_api_route(
                path,
                self.endpoint(rpc, gets.get(rpc)),
                methods=[verb.upper()],
                operation_id=rpc,
                summary=summary,
                response_class=Response,
            )
        return list(routers.values())


def create_app(runtime: Runtime, settings) -> FastAPI:
    limit = int(settings.max_message_bytes)
    app = FastAPI(
        title="Samba adjudicator", version=VERSION, docs_url=None, redoc_url=None, openapi_url=None
    )
    app.state.runtime = runtime
    for router in _Calls(runtime, limit).routers():
        app.include_router(router)
    app.include_router(rest_operations.router(runtime, ROUTES))
    app.include_router(pages.router())  # /docs, /redoc, /playground: served from here
    document = functools.partial(
        rest_operations.openapi_document, ROUTES, runtime.adjudicator.signer
    )
    app.openapi = document  # type: ignore[method-assign]

    if settings.bench_echo:

        async def echo(request: Request) -> Response:
            body = await read_body(request, limit)
            return Response(body, media_type=JSON)

        app.add_api_route(BENCH_ECHO_PATH, echo, methods=["POST"], include_in_schema=False)

    # Starlette types every handler as taking Exception; each gets its own class.
    rest_errors.install(app)
    # inside SambaMiddleware: its last-resort 500 and early 413 stay plain (and small)
    app.add_middleware(NegotiatedGZip, minimum_size=GZIP_MIN_BYTES, compresslevel=GZIP_LEVEL)
    # Anything else raised on a route reaches SambaMiddleware, the last resort.
    app.add_middleware(SambaMiddleware, limit=limit, runtime=runtime)
    if settings.cors_origins:
        # Outermost, so that every answer (a 413 or a 500 included) carries the CORS headers
        # a page needs to read it.
        app.add_middleware(
            JsonCORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=[
                "content-type",
                "x-request-id",
                "x-server-timeout",
                "x-samba-table",
                "accept-language",
                "traceparent",
                "tracestate",
            ],
            # retry-after: the hint of a 429 or 503, which a page's client waits before retrying
            expose_headers=["x-request-id", "x-samba-version", "content-language", "retry-after"],
            max_age=600,
        )
    return app
