"""Issue 34's floods for ``make bench-abuse``, each as ratios to a quiet server measured in
the same run:

- **heavy**: four clients (two REST, two gRPC) loop ApplyAction with ``includeLegalActions``
  on a 149-card hand while a probe makes cheap calls one after another: the API port's
  ``/healthz``, ValidateAction over REST and over gRPC, and the admin port's ``/readyz``.
- **heads**: 1,000 kept-alive connections, half sending a 125 KB head in one write, half
  holding an unfinished 15 KB head, with the same probe; and the worker's peak RSS.
- **SIGTERM at start-up**: 200 starts (tests/sigterm_starts.py), each signalled at a random
  moment of its start-up (grace 1 s): the slowest exit after the signal, against the exit
  of a server signalled once ready.
"""

from __future__ import annotations

import statistics
import threading
import time

import grpc
import httpx
from floods import flood_heavy, hold_heads
from google.protobuf import json_format
from pressure_cases import _raise_fd_limit
from service_bench import Server
from service_fixtures import memory_mb
from sigterm_starts import _one, sigterm_starts

from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc
from samba_adjudicator.service.base import pb

KINDS = ("healthz", "rest", "grpc")


def _probe(srv: Server, stop: threading.Event, out: dict) -> None:
    """Cheap calls one after another until ``stop``: latencies in ms per kind, and the
    admin /readyz answers that were not 200."""
    base = f"http://127.0.0.1:{srv.http_port}"
    with (
        httpx.Client(base_url=base, timeout=60) as c,
        grpc.insecure_channel(f"127.0.0.1:{srv.grpc_port}") as ch,
    ):
        stub = adjudicator_pb2_grpc.AdjudicatorStub(ch)
        dealt = c.post("/v1/deals:deal", json={"players": 4, "seed": "probe"}).json()["snapshot"]
        body = {"snapshot": dealt, "action": {"seat": 1, "drawStock": {}}}
        request = json_format.ParseDict(body, pb.ValidateActionRequest())
        admin = f"http://127.0.0.1:{srv.admin_port}/readyz"
        while not stop.is_set():
            for kind, call in (
                ("healthz", lambda: c.get("/healthz")),
                ("rest", lambda: c.post("/v1/actions:validate", json=body)),
                ("grpc", lambda: stub.ValidateAction(request, timeout=60)),
            ):
                t = time.perf_counter()
                call()
                out[kind].append((time.perf_counter() - t) * 1000)
            out["not_ready"] += httpx.get(admin, timeout=10).status_code != 200
            out["probes"] += 1
            time.sleep(0.02)


def measure(flood: str, duration: float) -> dict:
    """One fresh server (one worker) under ``flood`` ("quiet", "heavy", "heads")."""
    _raise_fd_limit()
    srv = Server(1, "--read-timeout-seconds", "60")
    stop = threading.Event()
    sent: list[int] = []
    socks: list = []
    try:
        loaders = []
        if flood == "heavy":
            loaders = [
                threading.Thread(
                    target=flood_heavy,
                    args=(f"http://127.0.0.1:{srv.http_port}", f"127.0.0.1:{srv.grpc_port}"),
                    kwargs={"stop": stop, "index": i, "sent": sent},
                )
                for i in range(4)
            ]
        elif flood == "heads":
            socks = hold_heads(srv.http_port, 1000)
        for t in loaders:
            t.start()
        out: dict = {k: [] for k in KINDS} | {"not_ready": 0, "probes": 0}
        prober = threading.Thread(target=_probe, args=(srv, stop, out))
        prober.start()
        time.sleep(duration)
        stop.set()
        for t in [*loaders, prober]:
            t.join(120)
        return {"flood": flood, "latency": out, "calls": len(sent), "peak": memory_mb(srv.proc.pid)}
    finally:
        for s in socks:
            s.close()
        srv.stop()


def _q(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def table(rows: list[dict]) -> str:
    quiet = rows[0]["latency"]
    base = {k: (statistics.median(quiet[k]), _q(quiet[k], 0.99)) for k in KINDS}
    lines = [
        "| flood | API /healthz p50, p99 (x quiet) | REST ValidateAction p50, p99 (x quiet) | "
        "gRPC ValidateAction p50, p99 (x quiet) | admin /readyz not 200 | peak RSS MB |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        lat = row["latency"]
        cells = []
        for k in KINDS:
            p50, p99 = statistics.median(lat[k]), _q(lat[k], 0.99)
            cells.append(
                f"{p50:.1f} ms, {p99:.1f} ms ({p50 / base[k][0]:.1f}x, {p99 / base[k][1]:.1f}x)"
            )
        name = row["flood"] + (f" ({row['calls']} heavy calls)" if row["flood"] == "heavy" else "")
        lines.append(
            f"| {name} | {' | '.join(cells)} | {lat['not_ready']}/{lat['probes']} | "
            f"{row['peak']:.0f} |"
        )
    return "\n".join(lines)


def sigterm_table(count: int) -> str:
    """The SIGTERM row: ``count`` starts signalled at random moments, against 5 signalled
    once ready (the quiet baseline)."""
    quiet = [_one(1, 1.0, None)[0].exit_seconds for _ in range(5)]
    starts = sigterm_starts(count, 1)
    exits = [s.exit_seconds for s in starts]
    codes = {}
    for s in starts:
        codes[s.returncode] = codes.get(s.returncode, 0) + 1
    base = statistics.median(quiet)
    worst = max(exits)
    return "\n".join(
        [
            "| SIGTERM (grace 1 s) | starts | exit p50, max after the signal (x quiet) | "
            "exit statuses | hung |",
            "|---|---|---|---|---|",
            f"| once ready (quiet) | {len(quiet)} | {base:.2f} s, {max(quiet):.2f} s | - | - |",
            f"| at a random moment of start-up | {count} | {statistics.median(exits):.2f} s, "
            f"{worst:.2f} s ({statistics.median(exits) / base:.1f}x, {worst / base:.1f}x) | "
            + ", ".join(f"{c}: {n}" for c, n in sorted(codes.items(), key=str))
            + f" | {sum(s.returncode is None for s in starts)} |",
        ]
    )


def run(duration: float, starts: int) -> str:
    rows = []
    for flood in ("quiet", "heavy", "heads"):
        rows.append(measure(flood, duration))
    out = table(rows)
    if starts:
        out += "\n\n" + sigterm_table(starts)
    return out
