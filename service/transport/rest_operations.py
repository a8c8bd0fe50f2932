"""The REST gateway's operations routes: health, readiness, metrics and the OpenAPI document
(built once from the gateway's route table, its schemas and examples from the protobuf
schema and the service's own answers)."""

from __future__ import annotations

import functools

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from ..codec import jsonio
from ..codec.signing import Signer
from ..ops import metrics
from ..pipeline.runtime import VERSION, Runtime
from ..web import examples, openapi
from .rest_common import JSON, json_response

Routes = tuple[tuple[str, str, str, str, str], ...]


def router(runtime: Runtime, routes: Routes) -> APIRouter:
    """Health, readiness, metrics, the OpenAPI document and its Swagger UI."""
    ops = APIRouter(tags=["operations"])

    @ops.get("/healthz")
    async def healthz() -> Response:
        return json_response(*runtime.state.probe(readiness=False))

    @ops.get("/readyz")
    async def readyz() -> Response:
        return json_response(*runtime.state.probe(readiness=True))

    @ops.get("/metrics")
    async def metrics_endpoint() -> Response:
        body, ctype = await run_in_threadpool(metrics.exposition)
        return Response(body, media_type=ctype)

    @ops.get("/openapi.json")
    async def openapi_json() -> Response:
        # 130 KB: rendered once, not for every caller (a pipelining flood asks thousands)
        return Response(_openapi_bytes(routes, runtime.adjudicator.signer), media_type=JSON)

    return ops


@functools.lru_cache(maxsize=1)
def openapi_document(routes: Routes, signer: Signer | None = None) -> dict:
    """The OpenAPI document of the gateway (built once; FastAPI's generator is replaced),
    its examples signed by the server's ``signer``."""
    return openapi.build(
        routes,
        title="Samba adjudicator",
        version=VERSION,
        description="REST gateway of `samba.v1.Adjudicator` (proto3 JSON mapping). "
        "Schemas and descriptions come from the protobuf schema; every "
        "example is a real request and the service's answer to it.",
        examples=examples.route_examples(signer),
    )


@functools.lru_cache(maxsize=1)
def _openapi_bytes(routes: Routes, signer: Signer | None) -> bytes:
    return jsonio.dumps_bytes(openapi_document(routes, signer))
