"""The floods of issue 20, one per case, for ``make bench-abuse``: each runs against a fresh
one-worker server with the default settings while a prober asks the admin port's
``/healthz`` every 50 ms; reported: the probe's median and worst latency, probes failed,
the server's peak RSS (VmHWM) and what the flood's own calls got."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import resource
import socket
import threading
import time

import grpc
import httpx
from grpc_health.v1 import health_pb2, health_pb2_grpc
from huge_positions import bad_codes, huge_hand
from service_bench import Server
from service_fixtures import memory_mb

H2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def _raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _probe_once(port: int) -> bool:
    """One probe as the kubelet makes it: a new connection, GET /healthz, a 2 s timeout."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.settimeout(2)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: probe\r\n\r\n")
            return s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def _probe(port: int, stop, out) -> None:
    """In its own process (no share of the flood's GIL): latencies until ``stop``."""
    found = []
    while not stop.is_set():
        t = time.perf_counter()
        ok = _probe_once(port)
        found.append(((time.perf_counter() - t) * 1000, ok))
        time.sleep(0.05)
    out.send(found)


def _sockets(port: int, count: int, first: bytes) -> list[socket.socket]:
    out = []
    for _ in range(count):
        with contextlib.suppress(OSError):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(first)
            out.append(s)
    return out


def case_headers(srv: Server, note: dict) -> list:
    socks = _sockets(srv.http_port, 16, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: ")
    answers = []
    for s in socks:
        with contextlib.suppress(OSError):
            for _ in range(64):
                s.sendall(b"x" * 65536)
        with contextlib.suppress(OSError):
            s.settimeout(5)
            answers.append(s.recv(12)[9:12].decode())
    note["answers"] = ",".join(sorted(set(answers)))
    return socks


def case_kept_lists(srv: Server, note: dict) -> list:
    codes = []
    for size in range(140, 150, 2):  # distinct big hands, each kept for its next pages
        body = json.dumps({"snapshot": huge_hand(size), "pageSize": 10})
        r = httpx.post(
            f"http://127.0.0.1:{srv.http_port}/v1/actions:list", content=body, timeout=120
        )
        codes.append(r.status_code)
    note["answers"] = ",".join(map(str, sorted(set(codes))))
    return []


def case_bad_codes(srv: Server, note: dict) -> list:
    base = f"http://127.0.0.1:{srv.http_port}"
    dealt = httpx.post(base + "/v1/deals:deal", json={"players": 4, "seed": "b"}).json()
    body = json.dumps({"snapshot": bad_codes(dealt["snapshot"], 150_000), "provisional": True})
    codes: list = []

    def call() -> None:
        codes.append(httpx.post(base + "/v1/deals:score", content=body, timeout=120).status_code)

    threads = [threading.Thread(target=call) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)
    note["answers"] = " ".join(f"{c}x{codes.count(c)}" for c in sorted(set(codes)))
    return []


def case_idle_grpc(srv: Server, note: dict) -> list:
    socks = _sockets(srv.grpc_port, 1100, H2_HELLO)
    time.sleep(1.5)
    t = time.perf_counter()
    with grpc.insecure_channel(f"127.0.0.1:{srv.grpc_port}") as ch:
        try:
            health_pb2_grpc.HealthStub(ch).Check(
                health_pb2.HealthCheckRequest(), timeout=10, wait_for_ready=True
            )
            note["answers"] = f"new gRPC health check OK in {(time.perf_counter() - t):.2f} s"
        except grpc.RpcError as e:
            note["answers"] = f"new gRPC health check {e.code().name}"
    return socks


def case_stalled_bodies(srv: Server, note: dict) -> list:
    head = b"POST /v1/deals:deal HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"
    socks = _sockets(srv.http_port, 1100, head)
    codes = [httpx.get(f"http://127.0.0.1:{srv.http_port}/healthz", timeout=5).status_code]
    note["answers"] = f"API /healthz {codes[0]}"
    return socks


def case_pipelined(srv: Server, note: dict) -> list:
    socks = []
    for _ in range(200):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", srv.http_port))
        s.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n" * 20)
        socks.append(s)
    time.sleep(3)
    t = time.perf_counter()
    code = httpx.get(f"http://127.0.0.1:{srv.http_port}/healthz", timeout=30).status_code
    note["answers"] = f"API /healthz {code} in {(time.perf_counter() - t) * 1000:.0f} ms"
    return socks


def case_big_listings(srv: Server, note: dict) -> list:
    body = json.dumps({"snapshot": huge_hand(149)})
    codes: list = []

    def call() -> None:
        r = httpx.post(
            f"http://127.0.0.1:{srv.http_port}/v1/actions:list", content=body, timeout=300
        )
        codes.append(r.status_code)

    threads = [threading.Thread(target=call) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    note["answers"] = " ".join(f"{c}x{codes.count(c)}" for c in sorted(set(codes)))
    return []


CASES = {
    "1 headers (16 sockets streaming a header line)": case_headers,
    "1 kept lists (5 distinct 140-148-card listings)": case_kept_lists,
    "1 bad codes (40 concurrent 150,000-code requests)": case_bad_codes,
    "2 idle HTTP/2 (1,100 connections)": case_idle_grpc,
    "3 stalled bodies (1,100 connections)": case_stalled_bodies,
    "4 pipelined, never read (200 x 20 /openapi.json)": case_pipelined,
    "7 big listings (8 concurrent 149-card)": case_big_listings,
}


def run_case(name: str, flood, hold: float) -> dict:
    _raise_fd_limit()
    srv = Server(1)
    ctx = multiprocessing.get_context("fork")
    stop = ctx.Event()
    theirs, ours = ctx.Pipe(duplex=False)
    prober = ctx.Process(target=_probe, args=(srv.admin_port, stop, ours), daemon=True)
    probes: list = []
    note: dict = {}
    socks: list = []
    try:
        prober.start()
        socks = flood(srv, note)
        time.sleep(hold)
        stop.set()
        if theirs.poll(30):
            probes = theirs.recv()
        prober.join(10)
        peak = memory_mb(srv.proc.pid)
    finally:
        stop.set()
        for s in socks:
            s.close()
        srv.stop()
    latencies = sorted(ms for ms, _ in probes)
    return {
        "case": name,
        "probes": len(probes),
        "failed": sum(1 for _, ok in probes if not ok),
        "p50": latencies[len(latencies) // 2] if latencies else float("nan"),
        "max": latencies[-1] if latencies else float("nan"),
        "peak_rss_mb": peak,
        "answers": note.get("answers", ""),
    }


def table(rows: list[dict]) -> str:
    lines = [
        "| case | admin /healthz p50, max | probes failed | peak RSS MB | the flood got |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['case']} | {r['p50']:.1f} ms, {r['max']:.1f} ms | {r['failed']}/{r['probes']} "
            f"| {r['peak_rss_mb']:.0f} | {r['answers']} |"
        )
    return "\n".join(lines)
