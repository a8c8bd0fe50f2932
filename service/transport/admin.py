"""The admin listener (``--admin-port``): ``/healthz``, ``/readyz`` and ``/metrics`` for the
kubelet and Prometheus, out of reach of any flood of the API ports.

A second uvicorn server, on its own thread and event loop, sharing nothing with the API
servers but the lifecycle (``State``) and the metrics registry: no API connection, queued
call or event-loop stall reaches it. Its connections are guarded as REST's are
(``http_guard``, with a cap of their own): past ADMIN_MAX_CONNECTIONS the oldest idle or
half-sent connection is closed for the newcomer, and a request must arrive whole within
ADMIN_READ_TIMEOUT with a head of at most ``http_guard.MAX_HEAD_BYTES`` (else 431), so a
flood of the admin port itself cannot keep the next probe out (tests/test_admin_port.py).

It was an HTTP/1.1 server of its own (117 lines) until issue 61. prometheus_client's
server (``start_http_server``: its WSGI app on wsgiref's threading server) was tried in its
place on 2026-12-07 (prometheus_client 0.26): it answered a 20,000-byte head 200, not 431
(http.server takes header lines up to 64 KiB), and it gives every connection a thread with
no cap and no read timeout (``test_an_oversized_or_silent_admin_request_does_not_keep_probes_out``).

gRPC health stays on the gRPC port (for load balancers); the chart's probes are HTTP on this
port because one listener then answers liveness, readiness and the scrape, and HTTP probes
need no HTTP/2 connection of their own (docs/service.md#the-admin-port).
"""

from __future__ import annotations

import socket
import threading
import time

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response
from starlette.routing import Route

from ..ops import metrics
from .http_guard import ConnectionGuard, protocol_class
from .rest_common import json_response

#: Connections the admin listener keeps open at once (probes and a scraper need a few).
ADMIN_MAX_CONNECTIONS = 32
#: Seconds a request may take to arrive whole.
ADMIN_READ_TIMEOUT = 2.0
#: Seconds an idle connection stays open (uvicorn takes whole seconds).
ADMIN_IDLE_SECONDS = 2


def admin_app(state) -> Starlette:
    """``/healthz`` (the process answers), ``/readyz`` (``State.serving``), ``/metrics``."""

    async def probe(request) -> Response:
        return json_response(*state.probe(readiness=request.url.path == "/readyz"))

    async def scrape(request) -> Response:
        body, ctype = await run_in_threadpool(metrics.exposition)
        return Response(body, media_type=ctype)

    paths = ("/healthz", "/readyz")
    return Starlette(routes=[*(Route(p, probe) for p in paths), Route("/metrics", scrape)])


class AdminServer:
    """``admin_app`` served on ``sock`` (bound by ``listeners.bind_admin``)."""

    def __init__(self, state, sock: socket.socket) -> None:
        self.sock = sock
        self.port: int = sock.getsockname()[1]
        guard = ConnectionGuard(ADMIN_MAX_CONNECTIONS, ADMIN_READ_TIMEOUT)
        config = uvicorn.Config(
            admin_app(state),
            log_config=None,
            access_log=False,
            lifespan="off",
            server_header=False,
            timeout_keep_alive=ADMIN_IDLE_SECONDS,
            http=protocol_class(guard),
        )
        self.server = uvicorn.Server(config)

    def start(self) -> int:
        thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, name="admin", daemon=True
        )
        thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the admin server did not start")
            time.sleep(0.01)
        return self.port

    def stop(self) -> None:
        self.server.should_exit = True
