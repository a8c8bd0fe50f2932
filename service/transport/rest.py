"""The REST gateway: a FastAPI app over the same ``service.pipeline.api`` as gRPC.

Routes (docs/api.md#methods), one ``APIRouter`` per resource: rulesets, deals, melds, actions,
plus the operations routes ``/healthz``, ``/readyz``, ``/metrics``, ``/openapi.json``, and
the pages of ``service.web.pages`` (``/docs``, ``/redoc``, ``/playground``). Bodies are read as raw
bytes (at most ``--max-message-bytes``, checked on
``Content-Length`` and while reading, *before* any parsing: 413 REQUEST_TOO_LARGE), parsed
by ``service.codec.jsonio`` (proto3 JSON, every problem collected) and answered with the proto3
JSON mapping (every field printed), gzip-encoded from GZIP_MIN_BYTES when the caller accepts
it. Every non-2xx answer is the docs/api.md#errors JSON body —
unknown routes (404), wrong verbs (405), garbage bodies (400) and unexpected failures (500)
included; never an HTML page.

Headers: ``x-request-id`` (echoed, generated when absent) and ``x-samba-version`` on every
answer; ``x-server-timeout: SECONDS`` on a request sets a deadline (504 past it).

Calls are answered inline on the event loop, except the heavy ones (the methods of
``service.pipeline.runtime.OFFLOAD``, whose cost grows with the request, and ApplyAction with
``computer``: ``Runtime.is_heavy``), which run in the thread pool
(``run_in_threadpool``) so that health probes and ``/metrics`` are not stalled; a client that
closes the connection meanwhile stops that work (``_watch_disconnect``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import time
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from starlette.concurrency import run_in_threadpool
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import ClientDisconnect
from starlette.responses import Response

from samba_adjudicator.engine.deadline import Stop
from samba_adjudicator.engine.messages import problem
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.errors import ApiError, api_error, invalid_argument
from samba_adjudicator.service.codec import jsonio
from samba_adjudicator.service.i18n.http import header_value, language_headers
from samba_adjudicator.service.i18n.localize import localize_response
from samba_adjudicator.service.i18n.negotiation import DEFAULT as DEFAULT_LANGUAGE
from samba_adjudicator.service.i18n.negotiation import choose as choose_language
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
from samba_adjudicator.service.transport import rest_errors
from samba_adjudicator.service.transport.rest_common import (
    JSON,
    call_language,
    call_request_id,
    error_response,
    json_response,
)
from samba_adjudicator.service.transport.rest_errors import JsonCORSMiddleware
from samba_adjudicator.service.web import examples, openapi, pages

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
    ("VerifyDeal", "post", "/v1/deals:verify", "deals", "Check a deal against its seeds."),
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
#: Answers of at least this many bytes are gzip-encoded for a caller that sends
#: ``Accept-Encoding: gzip`` (docs/api.md#compression); smaller ones gain too little.
GZIP_MIN_BYTES = 1024
#: zlib's level: a 10 KB answer with views shrinks to 1.2 KB in 0.05 ms (level 9: 0.06 ms,
#: 1 % smaller).
GZIP_LEVEL = 6


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
        state = scope.setdefault("state", {})
        state["request_id"] = rid
        # a call whose head arrived before SIGTERM is answered normally, however long its
        # body takes to arrive or its turn on the thread pool to come, within the grace
        state["after_sigterm"] = self.state.draining
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
                headers = language_headers(headers, language)
                message = {**message, "headers": headers + extra}
            await send(message)

        if size is not None and size > self.limit:
            resp = error_response(too_large(self.limit, size), rid, {"connection": "close"}, lang)
            return await resp(scope, receive, send_with_headers)
        try:
            await self.app(scope, receive, send_with_headers)
        except Exception as e:  # noqa: BLE001 - never an HTML 500
            # a failure of the framework itself, outside any call: the same boundary
            err = as_api_error(e, f"{scope.get('method')} {scope.get('path')}")
            if not started:
                await error_response(err, rid, None, lang)(scope, receive, send_with_headers)


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

    def answer(
        self,
        method: str,
        decode,
        rid: str,
        deadline: float | None,
        size: int = 0,
        lang: str = DEFAULT_LANGUAGE,
        heavy: bool = False,
        stop: Stop | None = None,
    ) -> Response:
        try:
            response = self.runtime.invoke(
                method,
                decode,
                transport="rest",
                request_id=rid,
                deadline=deadline,
                size=size,
                heavy=heavy,
                stop=stop,
            )
        except ApiError as e:
            return error_response(e, rid, None, lang)
        body = jsonio.to_dict(localize_response(response, lang))
        if method in REMEMBERS and "snapshot" in body:
            self.runtime.adjudicator.snapshots.remember_json(response.snapshot, body["snapshot"])
        return json_response(body)

    async def run(
        self,
        request: Request,
        method: str,
        decode,
        rid: str,
        deadline: float | None,
        size: int = 0,
        lang: str = DEFAULT_LANGUAGE,
        heavy: bool = False,
    ) -> Response:
        if getattr(request.state, "after_sigterm", self.runtime.state.draining):
            err = shutting_down()
            self.runtime.reject(method, "rest", rid, err)
            return error_response(err, rid, {"connection": "close"}, lang)
        if self.runtime.offloaded(method, size, heavy):
            # a client that closes the connection stops the call's work (engine.deadline)
            stop = Stop()
            watch = asyncio.ensure_future(_watch_disconnect(request, stop))
            try:
                return await run_in_threadpool(
                    self.answer, method, decode, rid, deadline, size, lang, heavy, stop
                )
            finally:
                watch.cancel()
        return self.answer(method, decode, rid, deadline, size, lang, heavy)

    def post_endpoint(self, method: str):
        async def endpoint(request: Request) -> Response:
            rid = call_request_id(request)
            try:
                deadline = _deadline(request)
                body = await read_body(request, self.limit)
            except ApiError as e:
                self.runtime.reject(method, "rest", rid, e)
                close = {"connection": "close"} if e.code == "RESOURCE_EXHAUSTED" else None
                return error_response(e, rid, close, call_language(request))
            decode = self.runtime.json_decoder(method, body)
            heavy = self.runtime.is_heavy(method, body, json=True)
            return await self.run(
                request, method, decode, rid, deadline, len(body), call_language(request), heavy
            )

        endpoint.__name__ = method
        return endpoint

    async def list_rulesets(self, request: Request) -> Response:
        return await self._get("ListRulesets", pb.ListRulesetsRequest(), request)

    async def get_ruleset(self, profile: str, request: Request) -> Response:
        return await self._get("GetRuleset", pb.GetRulesetRequest(profile=profile), request)

    async def _get(self, method: str, message, request: Request) -> Response:
        rid = call_request_id(request)
        try:
            deadline = _deadline(request)
        except ApiError as e:
            return error_response(e, rid, None, call_language(request))
        return await self.run(
            request, method, lambda: (message, [], None), rid, deadline, lang=call_language(request)
        )

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
        return json_response({"status": "SERVING"})

    @ops.get("/readyz")
    async def readyz() -> Response:
        serving = runtime.state.serving
        return json_response(
            {"status": "SERVING" if serving else "NOT_SERVING"}, 200 if serving else 503
        )

    @ops.get("/metrics")
    async def metrics_endpoint() -> Response:
        body, ctype = await run_in_threadpool(metrics.exposition)
        return Response(body, media_type=ctype)

    @ops.get("/openapi.json")
    async def openapi_json() -> Response:
        # 130 KB: rendered once, not for every caller (a pipelining flood asks thousands)
        return Response(_openapi_bytes(), media_type=JSON)

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


@functools.lru_cache(maxsize=1)
def _openapi_bytes() -> bytes:
    return jsonio.dumps_bytes(_openapi_document())


def openapi_document() -> dict:
    """The OpenAPI document of the gateway (built once; FastAPI's generator is replaced)."""
    return _openapi_document()


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
    rest_errors.install(app)
    # inside SambaMiddleware: its last-resort 500 and early 413 stay plain (and small)
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES, compresslevel=GZIP_LEVEL)
    # Anything else raised on a route reaches SambaMiddleware, the last resort.
    app.add_middleware(SambaMiddleware, limit=limit, state=runtime.state)
    if settings.cors_origins:
        # Outermost, so that every answer (a 413 or a 500 included) carries the CORS headers
        # a page needs to read it.
        app.add_middleware(
            JsonCORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["content-type", "x-request-id", "x-server-timeout", "accept-language"],
            expose_headers=["x-request-id", "x-samba-version", "content-language"],
            max_age=600,
        )
    return app
