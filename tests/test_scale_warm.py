"""`make scale-test`, part two (issue 51): does a game's next call find its snapshot warm?

Each worker keeps the snapshots it loaded or answered; a game loop sends back, call after
call, the snapshot the last answer rendered, so the call is cheap (a cache hit) only where
the last one was answered. The clients send a table key (``x-samba-table``: the deal's
commitment) and nginx hashes on it. The Python example bot (one call per move) plays
``TABLES`` deals at once, over REST then gRPC, through nginx in front of:

- 1 replica x 1 worker, the reference;
- 3 replicas x 2 workers balanced round-robin (no table key used): what a plain balancer gives;
- 3 replicas x 1 worker, hashed on the table key;
- 3 replicas x 2 workers hashed on the table key over the replicas' shared ports: nginx
  reuses its kept-alive connections to a replica across tables, and the kernel gave each
  connection to one of the replica's workers, so a table's calls spread over them;
- 3 replicas x 2 workers hashed on the table key over each worker's own ports
  (``--worker-grpc-port``, ``--worker-http-port``): nginx's connections then lead to one
  worker each, and a table's calls all reach the worker that answered its last one.

Each replica's ``samba_snapshot_cache_total`` (its admin port) gives the hit rate; the CPU
time of every server process (the supervisors and their workers: bench/server_cpu.py, from
/proc) per call gives the cost of a call, which the other load on a shared machine does not
distort as it does calls per second (printed too, first to last call in nginx's log); nginx's
log gives every call's table key and the worker port that answered it. Printed as a table
beside the 1 x 1 loop; docs/deployment.md#a-tables-calls-to-one-worker reads it.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import defaultdict

import pytest
from scale_cluster import (
    NGINX,
    TABLE_HASH,
    Nginx,
    Replica,
    answered_by,
    cache_outcomes,
    play,
    shared_keys,
)
from service_fixtures import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from server_cpu import server_cpu_seconds  # noqa: E402

pytestmark = pytest.mark.servers

#: Deals played at once (one example bot process each), per transport and configuration.
TABLES = 4
#: (name, replicas, workers per replica, nginx balancing, each worker on ports of its own)
CONFIGS = [
    ("1 x 1", 1, 1, TABLE_HASH, False),
    ("3 x 2 round-robin", 3, 2, "", False),
    ("3 x 1 by table", 3, 1, TABLE_HASH, False),
    ("3 x 2 by table, pod ports", 3, 2, TABLE_HASH, False),
    ("3 x 2 by table, worker ports", 3, 2, TABLE_HASH, True),
]
RESULTS: dict[tuple[str, str], dict] = {}


def cache_counts(replicas: list[Replica]) -> dict[str, float]:
    """``samba_snapshot_cache_total`` by outcome, summed over the replicas."""
    out: dict[str, float] = defaultdict(float)
    for r in replicas:
        for outcome, count in cache_outcomes(r.server.admin_url).items():
            out[outcome] += count
    return out


def server_cpu(replicas: list[Replica]) -> float:
    """CPU seconds of every process of ``replicas`` so far."""
    return sum(server_cpu_seconds(r.server.proc.pid)[0] for r in replicas)


#: Seconds the replicas are watched doing nothing, before a configuration's loops.
IDLE_WATCH = 3.0


def idle_rate(replicas: list[Replica]) -> float:
    """CPU seconds per second the replicas spend answering nothing (their watch threads,
    the supervisor's look at its workers, gRPC's timers): taken off each loop's CPU time in
    proportion to its duration, so that a call's CPU is the work of the calls alone."""
    cpu, started = server_cpu(replicas), time.monotonic()
    time.sleep(IDLE_WATCH)
    return (server_cpu(replicas) - cpu) / (time.monotonic() - started)


def _loop(nginx: Nginx, replicas: list[Replica], transport: str, name: str, idle: float) -> dict:
    """``TABLES`` deals at once through ``nginx``: hit rate, calls/s, the servers' CPU per
    call (``idle``: their CPU seconds per second without calls, taken off), keys and
    workers."""
    before_calls = len(nginx.calls(transport))
    before = cache_counts(replicas)
    cpu_before, started = server_cpu(replicas), time.monotonic()
    matches = []
    threads = [
        threading.Thread(
            target=lambda i=i: matches.append(
                play("python", transport, f"warm-{name}-{transport}-{i}", nginx)
            )
        )
        for i in range(TABLES)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    assert len(matches) == TABLES and all(m.status == 0 for m in matches), [
        m.output[-2000:] for m in matches if m.status != 0
    ]
    idle_cpu = idle * (time.monotonic() - started)
    cpu = server_cpu(replicas) - cpu_before - idle_cpu
    after = cache_counts(replicas)
    calls = nginx.calls(transport)[before_calls:]
    hits = after["hit"] - before["hit"]
    misses = after["miss"] - before["miss"]
    seconds = max(float(calls[-1]["t"]) - float(calls[0]["t"]), 1e-3)
    by_table: dict[str, set[str]] = defaultdict(set)
    for c in calls:
        by_table[c["table"]].add(answered_by(c))
    return {
        "calls": len(calls),
        "hit_rate": hits / max(hits + misses, 1),
        "calls_per_second": len(calls) / seconds,
        "cpu_per_call": cpu / max(len(calls), 1),
        "idle_per_call": idle_cpu / max(len(calls), 1),
        "tables": by_table,
    }


@pytest.fixture(scope="module")
def measured():
    if not os.access(NGINX, os.X_OK):
        pytest.fail(f"nginx is needed at {NGINX}: `make nginx` installs it (apt-get install nginx)")
    for name, count, workers, balance, own_ports in CONFIGS:
        env = {**shared_keys(), "SAMBA_LOG_LEVEL": "warning"}
        replicas: list[Replica] = []
        nginx = None
        try:
            replicas = [Replica(env, workers, own_ports) for _ in range(count)]
            nginx = Nginx(replicas, balance)
            idle = idle_rate(replicas)
            for transport in ("rest", "grpc"):
                RESULTS[(name, transport)] = _loop(nginx, replicas, transport, name, idle)
                # the workers' own ports, as each replica's listening line lists them
                listed = "workerGrpcPorts" if transport == "grpc" else "workerHttpPorts"
                RESULTS[(name, transport)]["own_ports"] = {
                    f"127.0.0.1:{port}" for r in replicas for port in r.server.info.get(listed, [])
                }
        finally:
            if nginx is not None:
                nginx.close()
            for r in replicas:
                r.close()
    _print()
    return RESULTS


def _print() -> None:
    print(
        f"\na game loop ({TABLES} deals at once, the Python bot, one call per move) through"
        " nginx. CPU ms/call: the server processes' CPU time (/proc) per call, less what they"
        " spend idle (idle ms/call); calls/s/core = 1 / that, and its ratio to 1 x 1's and to"
        " 3 x 1's (CPU time, which the machine's other load does not distort as it does"
        " calls/s; calls/s, first to last call, is shown too):"
    )
    print(
        f"  {'replicas x workers':30} {'transport':9} {'calls':>5} {'hits':>6}"
        f" {'CPU ms/call':>11} {'idle ms/call':>12} {'calls/s/core':>12}"
        f" {'to 1 x 1':>8} {'to 3 x 1':>8} {'calls/s':>7}"
    )
    for (name, transport), r in RESULTS.items():
        one = RESULTS[("1 x 1", transport)]["cpu_per_call"]
        three = RESULTS[("3 x 1 by table", transport)]["cpu_per_call"]
        print(
            f"  {name:30} {transport:9} {r['calls']:5} {r['hit_rate']:6.1%}"
            f" {r['cpu_per_call'] * 1e3:11.2f} {r['idle_per_call'] * 1e3:12.2f}"
            f" {1 / r['cpu_per_call']:12.0f} {one / r['cpu_per_call']:8.2f}"
            f" {three / r['cpu_per_call']:8.2f} {r['calls_per_second']:7.0f}"
        )


def test_every_call_of_a_game_carries_its_table_key(measured):
    for (name, transport), r in measured.items():
        tables = r["tables"]
        assert "" not in tables, (name, transport)  # every call had a key
        assert len(tables) == TABLES, (name, transport, sorted(tables))  # one key per deal


def test_hashing_on_the_key_keeps_a_table_on_one_replica(measured):
    for (name, transport), r in measured.items():
        if "by table" in name:
            assert all(len(replicas) == 1 for replicas in r["tables"].values()), (name, transport)


def test_one_worker_per_place_serves_a_game_from_its_cache(measured):
    """Wherever a table's calls all reach one worker, each call after the deal is a hit."""
    for name in ("1 x 1", "3 x 1 by table", "3 x 2 by table, worker ports"):
        for transport in ("rest", "grpc"):
            assert measured[(name, transport)]["hit_rate"] >= 0.9, (name, transport)


def test_hashing_over_the_workers_own_ports_keeps_a_table_on_one_worker(measured):
    """Each call's answering port in nginx's log is a worker's own (each reaches that worker
    alone: tests/test_worker_ports.py), one per table, and the workers' caches (/metrics)
    say that every call after a deal found its snapshot (over the pods' shared ports 69-92 %
    did, and now and then 100 % by chance: the ports are the proof, the hits the effect)."""
    for transport in ("rest", "grpc"):
        r = measured[("3 x 2 by table, worker ports", transport)]
        answered = set().union(*r["tables"].values())
        assert answered <= r["own_ports"], (transport, answered, r["own_ports"])
        assert all(len(workers) == 1 for workers in r["tables"].values()), (transport, r)
        assert r["hit_rate"] >= 0.99, (transport, r["hit_rate"])
