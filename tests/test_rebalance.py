"""gRPC connections rebalance behind an L4 balancer (issue 38; docs/deployment.md).

A Kubernetes Service balances connections, not calls: a game server's long-lived HTTP/2
connection stays on the pod it first reached, so pods added by a scale-out get no gRPC
calls until clients reconnect. The server closes each connection at
``--max-connection-age-seconds`` (GOAWAY; calls in flight get the grace), the client
reconnects, and the balancer sends the new connection to the next backend.

Debian's haproxy in TCP mode stands in for kube-proxy, in front of three replicas and a
fourth backend that does not listen yet. One client, one channel, steady calls; the fourth
replica starts (a scale-out) and the calls each replica answered are read from its own
``samba_requests_total`` on its admin port. With a 2 s age the new replica answers within
a few ages and takes about a quarter of the calls; with the default age (300 s) it gets
none in the same time: the setting is what moves the connection.
"""

from __future__ import annotations

import os
import threading
import time

import grpc
import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from scale_cluster import HAPROXY, HAProxy, free_port, shared_keys
from service_fixtures import ServerProcess

from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc
from samba_adjudicator.service.base import pb

pytestmark = pytest.mark.servers

AGE, GRACE = 2.0, 1.0
METHOD = "ListRulesets"


def answered(server: ServerProcess) -> int:
    """gRPC ListRulesets calls ``server`` answered, from its own /metrics."""
    text = httpx.get(server.admin_url + "/metrics", timeout=10).text
    return int(
        sum(
            s.value
            for family in text_string_to_metric_families(text)
            for s in family.samples
            if s.name == "samba_requests_total"
            and s.labels.get("method") == METHOD
            and s.labels.get("transport") == "grpc"
        )
    )


class SteadyClient:
    """One channel, one call every 20 ms until stopped; counts the calls and failures."""

    def __init__(self, target: str) -> None:
        self.channel = grpc.insecure_channel(target)
        self.stub = adjudicator_pb2_grpc.AdjudicatorStub(self.channel)
        self.calls = 0
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.stub.ListRulesets(pb.ListRulesetsRequest(), timeout=10)
                self.calls += 1
            except grpc.RpcError as e:
                self.failures.append(f"{e.code()}: {e.details()}")
            self._stop.wait(0.02)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(30)
        self.channel.close()


def _env(age: float | None) -> dict[str, str]:
    env = {**shared_keys(), "SAMBA_LOG_LEVEL": "warning"}
    if age is not None:
        env["SAMBA_MAX_CONNECTION_AGE_SECONDS"] = str(age)
        env["SAMBA_MAX_CONNECTION_AGE_GRACE_SECONDS"] = str(GRACE)
    return env


def scale_out(age: float | None, replicas: int, watch: float) -> dict:
    """``replicas`` behind haproxy, steady calls, one more replica started; then ``watch``
    seconds of calls. The figures: when the new replica answered first, and its share."""
    if not os.access(HAPROXY, os.X_OK):
        pytest.fail(f"haproxy is needed at {HAPROXY}: `make haproxy` installs it")
    env = _env(age)
    servers = [ServerProcess(env=env) for _ in range(replicas)]
    new_port = free_port()
    balancer = client = None
    try:
        balancer = HAProxy([s.grpc_port for s in servers] + [new_port])
        client = SteadyClient(balancer.target)
        deadline = time.monotonic() + 30
        while client.calls < 50 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert client.calls >= 50 and not client.failures, (client.calls, client.failures)
        servers.append(ServerProcess("--grpc-port", str(new_port), env=env))
        started = time.monotonic()
        new, first = servers[-1], None
        before = [answered(s) for s in servers]
        while (elapsed := time.monotonic() - started) < watch:
            if first is None and answered(new) > 0:
                first = elapsed
            time.sleep(0.25)
        after = [answered(s) for s in servers]
        calls = [a - b for a, b in zip(after, before, strict=True)]
        figures = {
            "ageSeconds": age,
            "firstCallAfterSeconds": None if first is None else round(first, 2),
            "callsPerReplica": calls,
            "newShare": round(calls[-1] / max(1, sum(calls)), 3),
            "failures": client.failures,
        }
        print(figures)
        return figures
    finally:
        if client is not None:
            client.close()
        if balancer is not None:
            balancer.close()
        for s in servers:
            s.close()


def test_a_replica_added_under_steady_load_takes_its_share_within_the_age():
    figures = scale_out(AGE, replicas=3, watch=16)
    # each connection lives AGE (+-10 %) + at most GRACE; haproxy hands each new one to the
    # next backend, so the fourth is reached within four connections: 4 x 3.2 s, doubled
    # for a loaded machine
    assert figures["firstCallAfterSeconds"] is not None, figures
    assert figures["firstCallAfterSeconds"] <= 8 * (AGE * 1.1 + GRACE), figures
    # a quarter is its share; at least a tenth over 16 s (five connections or so)
    assert figures["newShare"] >= 0.10, figures
    assert figures["failures"] == [], "a GOAWAY for age must cost the client no call"


def test_without_an_age_the_added_replica_gets_no_calls():
    """The control: the default age (300 s) keeps the one connection where it is."""
    figures = scale_out(None, replicas=2, watch=8)
    assert figures["firstCallAfterSeconds"] is None, figures
    assert figures["callsPerReplica"][-1] == 0 and sum(figures["callsPerReplica"]) > 0, figures
