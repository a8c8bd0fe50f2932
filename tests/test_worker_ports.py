"""``--worker-grpc-port`` / ``--worker-http-port``: each worker of ``--workers N`` also
listens on ports of its own (the first + its index), so that a balancer hashing a table's
key over them sends a table's calls to the one worker whose cache holds the snapshot its
last answer rendered (docs/deployment.md#a-tables-calls-to-one-worker). The shared ports
stay, balanced by the kernel as before."""

from __future__ import annotations

import subprocess

import pytest
from scale_cluster import Replica, cache_outcomes
from service_fixtures import ROOT, serve_command, serve_env

from samba_adjudicator.client import Client
from samba_adjudicator.service.ops import config

pytestmark = pytest.mark.servers

DEAL = {"ruleset": {"profile": "classic"}, "players": 4, "seed": "worker-ports"}


@pytest.fixture(scope="module")
def two_workers():
    """Two workers on their own ports: gRPC from a free port on, REST from 2 above it."""
    replica = Replica({}, workers=2, own_ports=True)
    yield replica.server, int(replica.own[1])
    replica.close()


def test_the_listening_line_names_each_worker_s_own_ports(two_workers):
    srv, first = two_workers
    assert srv.info["workerGrpcPorts"] == [first, first + 1]
    assert srv.info["workerHttpPorts"] == [first + 2, first + 3]


def _client(transport: str, port: int) -> Client:
    if transport == "rest":
        return Client.rest(f"http://127.0.0.1:{port}")
    return Client.grpc(f"127.0.0.1:{port}")


@pytest.mark.parametrize("transport", ["rest", "grpc"])
def test_a_worker_s_own_port_reaches_that_worker_alone(two_workers, transport):
    """A game's next call on the port of the worker that dealt it finds its snapshot cached
    (a hit), on the other worker's port it does not (a miss): each port is one worker."""
    srv, _ = two_workers
    ports = srv.info["workerGrpcPorts" if transport == "grpc" else "workerHttpPorts"]
    with _client(transport, ports[0]) as first, _client(transport, ports[1]) as second:
        dealt = first.call("Deal", {**DEAL, "includeLegalActions": True})
        action = dealt["nextActions"]["actions"][0]
        request = {"snapshot": dealt["snapshot"], "action": action}
        for client, outcome in ((first, "hit"), (second, "miss"), (first, "hit")):
            before = cache_outcomes(srv.admin_url)
            assert client.call("ValidateAction", request)["legal"]
            after = cache_outcomes(srv.admin_url)
            assert after[outcome] - before[outcome] == 1, (transport, outcome, before, after)


@pytest.mark.parametrize(
    "flag,field,what",
    [
        ("--worker-grpc-port", "workerGrpcPorts", "gRPC"),
        ("--worker-http-port", "workerHttpPorts", "HTTP"),
        ("--http-port", "httpPort", "HTTP"),
        ("--grpc-port", "grpcPort", "gRPC"),
    ],
)
def test_a_second_server_on_the_same_ports_is_refused(two_workers, flag, field, what):
    """The workers share their ports with SO_REUSEPORT, which would let a second ``serve
    --workers N`` (same user) bind them too and take part of their calls: a worker's own port
    would reach two workers, of two servers. It is refused as any taken port is."""
    srv, _ = two_workers
    port = srv.info[field][0] if field.startswith("worker") else srv.info[field]
    second = subprocess.Popen(
        [*serve_command(workers=2), flag, str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=serve_env(workers=2),
    )
    try:
        out, err = second.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # it started: stopped as a server is (its workers too)
        second.terminate()
        out, err = second.communicate(timeout=60)
    assert second.returncode == 1, out
    assert out == ""
    assert err.strip().splitlines() == [
        f"samba-adjudicator serve: the {what} port {port} on 127.0.0.1 is not available "
        f"(Address already in use); choose another with {flag} N "
        f"(or SAMBA_{flag[2:].upper().replace('-', '_')})"
    ]


def test_worker_ports_must_not_meet_the_other_ports():
    load = config.load
    assert (
        load(["--workers", "3", "--worker-http-port", "9000"], environ={}).worker_http_port == 9000
    )
    with pytest.raises(config.ConfigError, match="--http-port and --worker-http-port must differ"):
        load(["--workers", "3", "--http-port", "9002", "--worker-http-port", "9000"], environ={})
    with pytest.raises(config.ConfigError, match="--worker-grpc-port and --worker-http-port"):
        load(
            ["--workers", "2", "--worker-grpc-port", "9001", "--worker-http-port", "9000"],
            environ={},
        )
    with pytest.raises(config.ConfigError, match="at most 65535"):
        load(["--workers", "2", "--worker-grpc-port", "65535"], environ={})
    assert config.worker_ports(load(["--worker-grpc-port", "7000"], environ={}), 2) == (7002, 0)
