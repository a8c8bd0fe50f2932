"""`make bench-abuse`: what the worst malformed request of each route costs the others.

For each POST route a fresh server (one worker) gets that route's worst malformed request
(tests/huge_positions.py: about a megabyte of unknown card codes, 120,000 match scores,
2,000 bad replay actions) from two clients in a loop for ``--duration`` seconds, while a
probe makes cheap calls one after another: REST ``GET /healthz`` and gRPC ``GetRuleset``.
Reported: the probe's median and 99th-percentile latency as ratios to the same probe on a
quiet server, the worst requests answered per second, and the server's peak resident
memory (VmHWM). Before them, the floods of issue 34 (bench/transport_floods.py: heavy calls,
large heads, SIGTERM at start-up) and of issue 20 (bench/pressure_cases.py), each with the
probes' latency and the peak RSS. First, issue 34's bounded-work rows (bench/gone_cases.py):
the server's CPU after two callers of expensive suggestions left, and each computer
player's decision time on the largest positions. docs/service.md has the figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

import grpc  # noqa: E402
import httpx  # noqa: E402
import transport_floods  # noqa: E402
from gone_cases import abandoned, abandoned_table, decisions, decisions_table  # noqa: E402
from huge_positions import worst_requests  # noqa: E402
from pressure_cases import CASES, run_case  # noqa: E402
from pressure_cases import table as pressure_table  # noqa: E402
from service_bench import Server  # noqa: E402
from service_fixtures import REST, memory_mb  # noqa: E402

from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc  # noqa: E402
from samba_adjudicator.service.base import pb  # noqa: E402
from samba_adjudicator.service.transport.cli import run  # noqa: E402


def probe(server: Server, stop: threading.Event) -> dict[str, list[float]]:
    """Cheap calls one after another until ``stop``: latencies in ms per kind."""
    out: dict[str, list[float]] = {"rest": [], "grpc": []}
    base = f"http://127.0.0.1:{server.http_port}"
    with (
        httpx.Client(base_url=base, timeout=30) as http,
        grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}") as ch,
    ):
        stub = adjudicator_pb2_grpc.AdjudicatorStub(ch)
        request = pb.GetRulesetRequest(profile="classic")
        while not stop.is_set():
            t = time.perf_counter()
            http.get("/healthz")
            out["rest"].append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            stub.GetRuleset(request, timeout=30)
            out["grpc"].append((time.perf_counter() - t) * 1000)
            time.sleep(0.005)
    return out


def hammer(server: Server, path: str, body: bytes, stop: threading.Event, done: list) -> None:
    with httpx.Client(base_url=f"http://127.0.0.1:{server.http_port}", timeout=60) as c:
        while not stop.is_set():
            r = c.post(path, content=body)
            done.append(r.status_code)


def measure(route: str | None, body: bytes | None, duration: float) -> dict:
    server = Server(1)
    try:
        stop = threading.Event()
        done: list[int] = []
        loaders = (
            []
            if route is None
            else [
                threading.Thread(target=hammer, args=(server, REST[route][1], body, stop, done))
                for _ in range(2)
            ]
        )
        for t in loaders:
            t.start()
        result: dict = {}
        prober = threading.Thread(target=lambda: result.update(probe(server, stop)))
        prober.start()
        time.sleep(duration)
        stop.set()
        for t in loaders + [prober]:
            t.join(120)
        return {
            "route": route or "(quiet)",
            "latency": result,
            "answered_per_s": len(done) / duration,
            "codes": sorted(set(done)),
            "peak_rss_mb": memory_mb(server.proc.pid),
        }
    finally:
        server.stop()


def _q(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def table(rows: list[dict]) -> str:
    quiet = rows[0]["latency"]
    base = {k: (statistics.median(v), _q(v, 0.99)) for k, v in quiet.items()}
    lines = [
        "| worst request of | answered/s | codes | REST /healthz p50, p99 (x quiet) | "
        "gRPC GetRuleset p50, p99 (x quiet) | peak RSS MB |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        cells = []
        for kind in ("rest", "grpc"):
            v = row["latency"][kind]
            p50, p99 = statistics.median(v), _q(v, 0.99)
            cells.append(
                f"{p50:.2f} ms, {p99:.2f} ms ({p50 / base[kind][0]:.1f}x, "
                f"{p99 / base[kind][1]:.1f}x)"
            )
        lines.append(
            f"| {row['route']} | {row['answered_per_s']:.1f} | "
            f"{','.join(map(str, row['codes'])) or '-'} | {cells[0]} | {cells[1]} | "
            f"{row['peak_rss_mb']:.0f} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--duration", type=float, default=5.0, help="seconds per route")
    p.add_argument("--routes", nargs="*", help="only these RPCs")
    p.add_argument(
        "--cases",
        nargs="*",
        help="only the issue-20 cases whose name starts with these (e.g. 1 2 7); "
        "--cases alone: none",
    )
    p.add_argument("--hold", type=float, default=2.0, help="seconds each flood is held")
    p.add_argument(
        "--no-bounded",
        action="store_true",
        help="leave out issue 34's rows (callers who left, computer players' decisions)",
    )
    p.add_argument(
        "--starts",
        type=int,
        default=200,
        help="starts signalled at a random moment of their start-up (issue 34; 0: none)",
    )
    p.add_argument(
        "--no-floods", action="store_true", help="leave out issue 34's floods and the SIGTERM row"
    )
    args = p.parse_args(argv)
    if not args.no_bounded:
        print(abandoned_table([abandoned("grpc"), abandoned("rest")]))
        print()
        print(decisions_table(decisions()))
    if not args.no_floods:
        print(transport_floods.run(args.duration, args.starts))
        print()
    rows = []
    for name, flood in CASES.items():
        if args.cases is not None and not any(name.startswith(c) for c in args.cases):
            continue
        rows.append(run_case(name, flood, args.hold))
        print(f"{name}: done", file=sys.stderr)
    if rows:
        print(pressure_table(rows))
        print()
    if args.routes == []:
        return 0
    quiet = measure(None, None, args.duration)
    # any valid snapshot: the worst requests spoil it
    _, dealt = run("Deal", json.dumps({"players": 4, "seed": "abuse"}).encode())
    rows = [quiet]
    for route, body in worst_requests(dealt["snapshot"]).items():
        if args.routes and route not in args.routes:
            continue
        rows.append(measure(route, json.dumps(body).encode(), args.duration))
        print(f"{route}: done", file=sys.stderr)
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
