"""Connection caps, read timeouts and JSON refusals of both servers (issue 11, findings 6
and 11), with real sockets on loopback."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from service_fixtures import ServerProcess, server, wait_for  # noqa: F401

pytestmark = pytest.mark.servers

HALF_OPEN = 300
CAP = 50


def _open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _connect(port: int, first_bytes: bytes = b"") -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    if first_bytes:
        s.sendall(first_bytes)
    return s


def _closed_by_server(s: socket.socket, within: float) -> bool:
    s.settimeout(within)
    try:
        while True:
            data = s.recv(65536)
            if not data:
                return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_half_open_connections_do_not_keep_health_probes_out():
    srv = ServerProcess("--max-connections", str(CAP), "--read-timeout-seconds", "60")
    sockets = []
    try:
        baseline = _open_fds(srv.proc.pid)
        for _ in range(HALF_OPEN):
            sockets.append(_connect(srv.http_port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n"))
        r = httpx.get(srv.base_url + "/healthz", timeout=10)
        assert r.status_code == 200
        # the oldest half-sent connections were closed to make room
        assert _open_fds(srv.proc.pid) <= baseline + CAP + 10
    finally:
        for s in sockets:
            s.close()
        srv.close()


def test_half_open_grpc_connections_are_capped_then_dropped():
    """grpc core has no eviction: past the cap new connections wait until the handshake
    timeout (the read timeout) has dropped the half-open ones."""
    srv = ServerProcess("--max-connections", str(CAP), "--read-timeout-seconds", "2")
    sockets = []
    try:
        baseline = _open_fds(srv.proc.pid)
        for _ in range(HALF_OPEN):
            with contextlib.suppress(OSError):  # refused past the cap: fine
                sockets.append(_connect(srv.grpc_port, b"PRI * HTTP/2.0\r\n"))
        time.sleep(0.5)
        assert _open_fds(srv.proc.pid) <= baseline + CAP + 20
        time.sleep(2.5)
        with grpc.insecure_channel(srv.grpc_target) as ch:
            assert (
                health_pb2_grpc.HealthStub(ch)
                .Check(health_pb2.HealthCheckRequest(), timeout=10)
                .status
                == health_pb2.HealthCheckResponse.SERVING
            )
        assert httpx.get(srv.base_url + "/healthz", timeout=10).status_code == 200
    finally:
        for s in sockets:
            s.close()
        srv.close()


def test_a_request_must_arrive_within_the_read_timeout():
    srv = ServerProcess("--read-timeout-seconds", "1")
    try:
        rest = _connect(srv.http_port, b"POST /v1/deals:deal HTTP/1.1\r\nHost: x\r\n")
        body = _connect(
            srv.http_port,
            b"POST /v1/deals:deal HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{",
        )
        silent_grpc = _connect(srv.grpc_port)
        for s in (rest, body, silent_grpc):
            assert _closed_by_server(s, within=10)
            s.close()
        # a complete request on a fresh connection is still answered
        assert httpx.get(srv.base_url + "/healthz", timeout=10).status_code == 200
    finally:
        srv.close()


def test_when_every_connection_is_busy_a_newcomer_gets_json_503():
    srv = ServerProcess("--max-connections", "8", env={"SAMBA_TEST_DELAY_SECONDS": "3"})
    try:
        calls = [
            threading.Thread(
                target=httpx.get, args=(srv.base_url + "/v1/rulesets",), kwargs={"timeout": 30}
            )
            for _ in range(8)
        ]
        for t in calls:
            t.start()
        time.sleep(1.0)  # each call takes 3 s: all eight hold their connection now
        r = httpx.get(srv.base_url + "/healthz", timeout=10)
        assert r.status_code == 503, r.text
        assert r.headers["content-type"] == "application/json"
        assert r.json()["error"]["details"][0]["reason"] == "TOO_MANY_CONNECTIONS"
        for t in calls:
            t.join(30)
    finally:
        srv.close()


def test_malformed_http_gets_the_json_error_body(server):
    s = _connect(server.http_port, b"THIS IS NOT HTTP\r\n\r\n")
    s.settimeout(10)
    answer = b""
    while True:
        data = s.recv(65536)
        if not data:
            break
        answer += data
    s.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    assert b"content-type: application/json" in head.lower()
    err = json.loads(body)["error"]
    assert err["status"] == "INVALID_ARGUMENT"
    assert err["details"][1]["fieldViolations"][0]["reason"] == "MALFORMED_HTTP"


def test_a_client_leaving_mid_upload_logs_no_traceback():
    srv = ServerProcess()
    try:
        s = _connect(
            srv.http_port,
            b'POST /v1/deals:deal HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"players"',
        )
        time.sleep(0.3)
        s.close()
        wait_for(lambda: "CLIENT_DISCONNECTED" in srv.logs(), timeout=10)
        assert httpx.get(srv.base_url + "/healthz", timeout=10).status_code == 200
        logs = srv.logs()
        assert "Traceback" not in logs and '"exception"' not in logs, logs
    finally:
        srv.close()


def test_the_cap_fits_the_open_files_limit():
    """With 600 open files at most, both servers' connections and the headroom must fit:
    the cap comes down to (600 - 256) / 2."""
    import subprocess
    import sys

    code = (
        "import resource\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (600, 600))\n"
        "from samba_adjudicator.service.ops import config\n"
        "from samba_adjudicator.service.transport import listeners\n"
        "print(listeners.fit_connections(config.load([], environ={})).max_connections)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert int(out) == (600 - 256) // 2
