"""Process behaviour: configuration, graceful drain on SIGTERM, several workers."""

from __future__ import annotations

import signal
import threading
import time

import grpc
import httpx
import pytest
from service_fixtures import ServerProcess, wait_for

from samba_adjudicator.service.base import pb
from samba_adjudicator.service.ops import config

pytestmark = pytest.mark.servers


def test_flags_env_defaults():
    s = config.load([], environ={})
    assert (
        s.host,
        s.grpc_port,
        s.http_port,
        s.workers,
        s.max_message_bytes,
        s.log_level,
        s.shutdown_grace_seconds,
    ) == ("127.0.0.1", 50051, 8080, 1, 1048576, "info", 20.0)
    env = {
        "SAMBA_GRPC_PORT": "6000",
        "SAMBA_HTTP_PORT": "6001",
        "SAMBA_WORKERS": "3",
        "SAMBA_LOG_LEVEL": "DEBUG",
        "SAMBA_SHUTDOWN_GRACE_SECONDS": "7",
        "SAMBA_MAX_MESSAGE_BYTES": "2048",
        "SAMBA_HOST": "0.0.0.0",
    }
    s = config.load([], environ=env)
    assert (
        s.host,
        s.grpc_port,
        s.http_port,
        s.workers,
        s.max_message_bytes,
        s.log_level,
        s.shutdown_grace_seconds,
    ) == ("0.0.0.0", 6000, 6001, 3, 2048, "debug", 7.0)
    s = config.load(["--grpc-port", "0", "--workers", "1"], environ=env)
    assert s.grpc_port == 0 and s.workers == 1 and s.http_port == 6001  # the flag wins
    with pytest.raises(config.ConfigError):
        config.load([], environ={"SAMBA_GRPC_PORT": "many"})
    with pytest.raises(config.ConfigError):
        config.load(["--workers", "0"], environ={})
    assert config.load([], environ={}).snapshot_cache_size == 1024
    assert config.load([], environ={"SAMBA_SNAPSHOT_CACHE_SIZE": "0"}).snapshot_cache_size == 0
    assert (
        config.load(
            ["--snapshot-cache-size", "5"], environ={"SAMBA_SNAPSHOT_CACHE_SIZE": "0"}
        ).snapshot_cache_size
        == 5
    )
    with pytest.raises(config.ConfigError):
        config.load(["--snapshot-cache-size", "-1"], environ={})


def _slow_calls(srv: ServerProcess, results: dict) -> list[threading.Thread]:
    def rest():
        try:
            r = httpx.get(srv.base_url + "/v1/rulesets", timeout=30)
            results["rest"] = r.status_code
        except Exception as e:  # noqa: BLE001
            results["rest"] = repr(e)

    def grpc_():
        from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc

        try:
            with grpc.insecure_channel(srv.grpc_target) as ch:
                stub = adjudicator_pb2_grpc.AdjudicatorStub(ch)
                resp = stub.GetRuleset(pb.GetRulesetRequest(profile="classic"), timeout=30)
                results["grpc"] = resp.profile
        except Exception as e:  # noqa: BLE001
            results["grpc"] = repr(e)

    threads = [threading.Thread(target=rest), threading.Thread(target=grpc_)]
    for t in threads:
        t.start()
    return threads


def _in_flight(srv: ServerProcess) -> float:
    # /metrics answers at once (not delayed); the gauge tells when both calls are running
    text = httpx.get(srv.base_url + "/metrics", timeout=10).text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("samba_requests_in_flight{")
    )


def test_sigterm_lets_in_flight_calls_finish():
    srv = ServerProcess("--shutdown-grace-seconds", "10", env={"SAMBA_TEST_DELAY_SECONDS": "2"})
    try:
        results: dict = {}
        threads = _slow_calls(srv, results)
        wait_for(lambda: _in_flight(srv) >= 2, timeout=10)
        t0 = time.monotonic()
        srv.proc.send_signal(signal.SIGTERM)
        # while the in-flight calls finish: not ready, alive, new calls refused as JSON
        time.sleep(0.3)
        ready = httpx.get(srv.base_url + "/readyz", timeout=2)
        assert ready.status_code == 503 and ready.json() == {"status": "NOT_SERVING"}
        assert httpx.get(srv.base_url + "/healthz", timeout=2).status_code == 200
        refused = httpx.get(srv.base_url + "/v1/rulesets", timeout=2)
        assert refused.status_code == 503, refused.text
        assert refused.json()["error"]["details"][0]["reason"] == "SHUTTING_DOWN"
        assert refused.headers["connection"] == "close"
        for t in threads:
            t.join(30)
        assert results == {"rest": 200, "grpc": "classic"}, results
        assert srv.proc.wait(30) == 0
        assert time.monotonic() - t0 < 10
        logs = srv.logs()
        assert '"draining"' in logs and '"clean": true' in logs, logs
    finally:
        srv.close()


def test_two_workers_share_ports_and_metrics(tmp_path):
    mp = tmp_path / "metrics"
    srv = ServerProcess("--workers", "2", env={"PROMETHEUS_MULTIPROC_DIR": str(mp)}, workers=2)
    try:
        assert srv.info["workers"] == 2
        n = 12
        for _ in range(n):  # a new connection each time: the kernel spreads them
            with httpx.Client(base_url=srv.base_url, timeout=10) as c:
                assert c.get("/v1/rulesets").status_code == 200
        from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc

        for _ in range(4):
            with grpc.insecure_channel(srv.grpc_target) as ch:
                adjudicator_pb2_grpc.AdjudicatorStub(ch).ListRulesets(
                    pb.ListRulesetsRequest(), timeout=10
                )
        text = httpx.get(srv.base_url + "/metrics", timeout=10).text
        total = {}
        for line in text.splitlines():
            if line.startswith("samba_requests_total{") and 'method="ListRulesets"' in line:
                transport = "rest" if 'transport="rest"' in line else "grpc"
                total[transport] = total.get(transport, 0) + float(line.rsplit(" ", 1)[1])
        assert total == {"rest": n, "grpc": 4}, text
        pids = {f.name.rsplit("_", 1)[-1] for f in mp.glob("counter_*.db")}
        assert len(pids) >= 1
        assert srv.terminate() == 0
    finally:
        srv.close()


def test_tune_gc_freezes_the_start_up_heap_and_raises_the_young_threshold():
    import gc

    from samba_adjudicator.service.transport import server

    before = gc.get_threshold()
    try:
        server.tune_gc()
        assert gc.get_threshold() == (server.GC_THRESHOLD,) + before[1:]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def test_tune_switching_hands_the_interpreter_lock_over_every_half_millisecond():
    """Issue 56, item 1: at CPython's 5 ms each turn of an API event loop waited up to that
    long for the lock two computing heavy calls held, and a cheap call behind a flood of
    refused calls waited 3.7-9.3 s for grpc.aio to accept the calls ahead of it, one by one
    (docs/service.md#switch-interval)."""
    import sys

    from samba_adjudicator.service.transport import server

    before = sys.getswitchinterval()
    try:
        server.tune_switching()
        assert sys.getswitchinterval() == server.SWITCH_INTERVAL_SECONDS <= 0.0005
    finally:
        sys.setswitchinterval(before)
