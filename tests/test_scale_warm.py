"""`make scale-test`, part two (issue 51): does a game's next call find its snapshot warm?

Each worker keeps the snapshots it loaded or answered; a game loop sends back, call after
call, the snapshot the last answer rendered, so the call is cheap (a cache hit) only where
the last one was answered. The clients send a table key (``x-samba-table``: the deal's
commitment) and nginx hashes on it. The Python example bot (one call per move) plays
``TABLES`` deals at once, over REST then gRPC, through nginx in front of:

- 1 replica x 1 worker, the reference;
- 3 replicas x 2 workers balanced round-robin (no table key used): what a plain balancer gives;
- 3 replicas x 1 worker and 3 replicas x 2 workers hashed on the table key.

Each replica's ``samba_snapshot_cache_total`` (its admin port) gives the hit rate, nginx's log
the calls per second (first to last call), every call's table key and its replica. Printed
as a table beside the 1 x 1 loop; docs/deployment.md#a-tables-calls-to-one-worker reads it.
"""

from __future__ import annotations

import os
import threading
from collections import defaultdict

import httpx
import pytest
from scale_cluster import NGINX, TABLE_HASH, Nginx, Replica, answered_by, play, shared_keys

pytestmark = pytest.mark.servers

#: Deals played at once (one example bot process each), per transport and configuration.
TABLES = 4
#: (name, replicas, workers per replica, nginx balancing)
CONFIGS = [
    ("1 x 1", 1, 1, TABLE_HASH),
    ("3 x 2 round-robin", 3, 2, ""),
    ("3 x 1 by table", 3, 1, TABLE_HASH),
    ("3 x 2 by table", 3, 2, TABLE_HASH),
]
RESULTS: dict[tuple[str, str], dict] = {}


def cache_counts(replicas: list[Replica]) -> dict[str, float]:
    """``samba_snapshot_cache_total`` by outcome, summed over the replicas (each replica's
    /metrics sums its workers)."""
    out: dict[str, float] = defaultdict(float)
    for r in replicas:
        text = httpx.get(r.server.admin_url + "/metrics", timeout=30).text
        for line in text.splitlines():
            if line.startswith("samba_snapshot_cache_total{"):
                head, value = line.rsplit(" ", 1)
                outcome = head.split('outcome="', 1)[1].split('"', 1)[0]
                out[outcome] += float(value)
    return out


def _loop(nginx: Nginx, replicas: list[Replica], transport: str, name: str) -> dict:
    """``TABLES`` deals at once through ``nginx``: hit rate, calls/s, keys and replicas."""
    before_calls = len(nginx.calls(transport))
    before = cache_counts(replicas)
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
        "tables": by_table,
    }


@pytest.fixture(scope="module")
def measured():
    if not os.access(NGINX, os.X_OK):
        pytest.fail(f"nginx is needed at {NGINX}: `make nginx` installs it (apt-get install nginx)")
    for name, count, workers, balance in CONFIGS:
        env = {**shared_keys(), "SAMBA_LOG_LEVEL": "warning"}
        replicas: list[Replica] = []
        nginx = None
        try:
            replicas = [Replica(env, workers=workers) for _ in range(count)]
            nginx = Nginx(replicas, balance)
            for transport in ("rest", "grpc"):
                RESULTS[(name, transport)] = _loop(nginx, replicas, transport, name)
        finally:
            if nginx is not None:
                nginx.close()
            for r in replicas:
                r.close()
    _print()
    return RESULTS


def _print() -> None:
    print(
        f"\na game loop ({TABLES} deals at once, the Python bot, one call per move) through nginx:"
    )
    print(
        f"  {'replicas x workers':24} {'transport':9} {'calls':>6} {'hits':>6} {'calls/s':>8}"
        f" {'ratio to 1 x 1':>15}"
    )
    for (name, transport), r in RESULTS.items():
        ratio = r["calls_per_second"] / RESULTS[("1 x 1", transport)]["calls_per_second"]
        print(
            f"  {name:24} {transport:9} {r['calls']:6} {r['hit_rate']:6.1%}"
            f" {r['calls_per_second']:8.0f} {ratio:15.2f}"
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
    for name in ("1 x 1", "3 x 1 by table"):
        for transport in ("rest", "grpc"):
            assert measured[(name, transport)]["hit_rate"] >= 0.9, (name, transport)
