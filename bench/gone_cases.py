"""`make bench-abuse`'s rows of issue 34: the work of callers who left, and computer players'
decision time on the largest positions.

- ``abandoned(transport)``: a fresh server (one worker) gets two STRONG suggestions at the
  largest budget on the 103-card draw (tests/huge_positions.py); 0.8 s later their callers
  leave (gRPC: the calls are cancelled; REST: the connections closed). Reported: the
  server's CPU seconds in the 1.2 s window that starts 0.3 s after they left (0 when the
  work stopped; 1.2 when it went on), and how long a fresh deal's ListLegalActions then
  takes (it waited for a heavy-call slot when the work went on).
- ``decisions()``: in this process, each level's ``suggest`` on the 103-card draw, the
  150-card hand (not yet opened) and the 140-card hand of an opened side, both to play:
  wall and CPU milliseconds (the build SAMBA_BUILD chooses).
"""

from __future__ import annotations

import json
import socket
import time

import grpc
import httpx
from google.protobuf import json_format
from huge_positions import huge_draw, huge_hand, huge_opened_hand
from server_cpu import server_cpu_seconds
from service_bench import Server
from service_fixtures import REST

from samba_adjudicator.engine.bots import Level, suggest
from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec import convert

_BODY = {"seat": 0, "level": "STRONG", "budgetMs": 2000}


def _leave_grpc(server: Server, bodies: list[dict], after: float) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}") as ch:
        stub = adjudicator_pb2_grpc.AdjudicatorStub(ch)
        calls = [
            stub.SuggestAction.future(json_format.ParseDict(b, pb.SuggestActionRequest()))
            for b in bodies
        ]
        time.sleep(after)
        for call in calls:
            call.cancel()


def _leave_rest(server: Server, bodies: list[dict], after: float) -> None:
    socks = []
    for body in bodies:
        raw = json.dumps(body).encode()
        sock = socket.create_connection(("127.0.0.1", server.http_port))
        sock.sendall(
            f"POST {REST['SuggestAction'][1]} HTTP/1.1\r\nHost: x\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(raw)}\r\n\r\n".encode()
            + raw
        )
        socks.append(sock)
    time.sleep(after)
    for sock in socks:
        sock.close()


def abandoned(transport: str, after: float = 0.8, window: float = 1.2) -> dict:
    server = Server(1)
    try:
        bodies = [{**_BODY, "snapshot": huge_draw(103 - i), "seed": f"b{i}"} for i in range(2)]
        (_leave_grpc if transport == "grpc" else _leave_rest)(server, bodies, after)
        time.sleep(0.3)
        before = server_cpu_seconds(server.proc.pid)[0]
        time.sleep(window)
        cpu = server_cpu_seconds(server.proc.pid)[0] - before
        with httpx.Client(base_url=f"http://127.0.0.1:{server.http_port}", timeout=120) as c:
            dealt = c.post(REST["Deal"][1], content=json.dumps({"players": 4, "seed": "b"}))
            started = time.monotonic()
            listed = c.post(
                REST["ListLegalActions"][1],
                content=json.dumps({"snapshot": dealt.json()["snapshot"]}),
            )
            listing = time.monotonic() - started
        return {
            "transport": transport,
            "cpu_after_s": cpu,
            "window_s": window,
            "listing_ms": listing * 1000,
            "listing_status": listed.status_code,
        }
    finally:
        server.stop()


def abandoned_table(rows: list[dict]) -> str:
    lines = [
        "| callers left (2 STRONG, budgetMs 2000, 103-card draw) | server CPU in the next "
        "1.2 s | a fresh ListLegalActions then |",
        "|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['transport']} | {r['cpu_after_s']:.2f} s | {r['listing_ms']:.0f} ms "
            f"({r['listing_status']}) |"
        )
    return "\n".join(lines)


def decisions(budget: int = 200) -> list[dict]:
    rows = []
    positions = (
        ("103-card draw", huge_draw()),
        ("150-card hand", huge_hand(150)),
        ("140-card hand, opened", huge_opened_hand(140)),
    )
    for name, doc in positions:
        snap = convert.snapshot_from_proto(
            json_format.ParseDict(doc, pb.Snapshot()), "snapshot", []
        )
        assert snap is not None
        for level in Level:
            wall, cpu = time.monotonic(), time.process_time()
            got = suggest(snap, 0, level, "bench", budget)
            rows.append(
                {
                    "position": name,
                    "level": level.name,
                    "wall_ms": (time.monotonic() - wall) * 1000,
                    "cpu_ms": (time.process_time() - cpu) * 1000,
                    "reason": got.reason.code,
                }
            )
    return rows


def decisions_table(rows: list[dict], budget: int = 200) -> str:
    lines = [
        f"| position | level (STRONG budgetMs {budget}) | wall | CPU | reason |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['position']} | {r['level']} | {r['wall_ms']:.0f} ms | {r['cpu_ms']:.0f} ms "
            f"| {r['reason']} |"
        )
    return "\n".join(lines)
