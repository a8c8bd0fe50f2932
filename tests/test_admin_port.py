"""The admin listener (issue 20): /healthz, /readyz, /metrics on their own port and thread,
answered while the API ports are flooded."""

from __future__ import annotations

import socket
import time

import httpx
import pytest
from service_fixtures import ServerProcess, server  # noqa: F401

from samba_adjudicator.service.ops import config

pytestmark = pytest.mark.servers


def test_the_admin_port_serves_health_readiness_and_metrics(server):
    assert server.admin_port not in (0, server.http_port, server.grpc_port)
    base = server.admin_url
    assert httpx.get(base + "/healthz", timeout=5).json() == {"status": "SERVING"}
    ready = httpx.get(base + "/readyz", timeout=5)
    assert (ready.status_code, ready.json()) == (200, {"status": "SERVING"})
    scraped = httpx.get(base + "/metrics", timeout=5)
    assert scraped.status_code == 200
    assert "samba_build_info" in scraped.text
    assert httpx.get(base + "/v1/rulesets", timeout=5).status_code == 404
    # the API port keeps its own health endpoints
    assert httpx.get(server.base_url + "/healthz", timeout=5).status_code == 200


def test_the_admin_port_flag_env_and_default():
    assert config.load([], environ={}).admin_port == 8081
    assert config.load([], environ={"SAMBA_ADMIN_PORT": "9100"}).admin_port == 9100
    assert config.load(["--admin-port", "0"], environ={"SAMBA_ADMIN_PORT": "9100"}).admin_port == 0
    with pytest.raises(config.ConfigError, match="--http-port and --admin-port must differ"):
        config.load(["--http-port", "9000", "--admin-port", "9000"], environ={})


def test_readiness_on_the_admin_port_goes_not_serving_at_once_on_sigterm():
    srv = ServerProcess("--shutdown-grace-seconds", "3", env={"SAMBA_TEST_DELAY_SECONDS": "2.5"})
    try:
        # a slow call keeps the drain going for the grace
        s = socket.create_connection(("127.0.0.1", srv.http_port), timeout=5)
        s.sendall(b"GET /v1/rulesets HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.3)
        srv.proc.send_signal(15)
        time.sleep(0.3)
        r = httpx.get(srv.admin_url + "/readyz", timeout=2)
        assert (r.status_code, r.json()) == (503, {"status": "NOT_SERVING"})
        assert httpx.get(srv.admin_url + "/healthz", timeout=2).status_code == 200
        s.close()
    finally:
        srv.close()


def test_an_oversized_or_silent_admin_request_does_not_keep_probes_out(server):
    silent = [socket.create_connection(("127.0.0.1", server.admin_port)) for _ in range(64)]
    try:
        big = socket.create_connection(("127.0.0.1", server.admin_port), timeout=5)
        big.sendall(b"GET /healthz HTTP/1.1\r\nX: " + b"a" * 20_000 + b"\r\n\r\n")
        assert big.recv(100).startswith(b"HTTP/1.1 431")
        big.close()
        # past its small cap the oldest silent connections were closed for this probe
        assert httpx.get(server.admin_url + "/healthz", timeout=2).status_code == 200
    finally:
        for s in silent:
            s.close()
