"""The floods of issue 34, shared by the tests and ``make bench-abuse``: heavy calls that list
a 149-card hand from four clients, and connections holding large request heads."""

from __future__ import annotations

import contextlib
import json
import socket
import threading

import grpc
import httpx
from google.protobuf import json_format
from huge_positions import huge_hand

from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc
from samba_adjudicator.service.base import pb

_HUGE: list[dict] = []


def listing_apply(ply: int) -> dict:
    """ApplyAction of an illegal draw on a 149-card hand, asking for the listing: the answer
    lists seat 0's tens of thousands of actions. ``ply`` makes each request a new position
    (a kept list would answer the same one at once)."""
    if not _HUGE:
        _HUGE.append(huge_hand(149))
    return {
        "snapshot": {**_HUGE[0], "ply": ply},
        "action": {"seat": 0, "drawStock": {}},
        "includeLegalActions": True,
    }


def flood_heavy(
    base_url: str, grpc_target: str, stop: threading.Event, index: int, sent: list
) -> None:
    """One flooding client until ``stop``: REST for even ``index``, gRPC for odd; each call
    gives up after 3 s (its deadline stops the server's work too)."""
    ply = index * 100_000
    if index % 2 == 0:
        with httpx.Client(base_url=base_url, timeout=30) as c:
            while not stop.is_set():
                ply += 1
                body = json.dumps(listing_apply(ply))
                c.post("/v1/actions:apply", content=body, headers={"x-server-timeout": "3"})
                sent.append(index)
        return
    with grpc.insecure_channel(grpc_target) as ch:
        stub = adjudicator_pb2_grpc.AdjudicatorStub(ch)
        while not stop.is_set():
            ply += 1
            request = json_format.ParseDict(listing_apply(ply), pb.ApplyActionRequest())
            try:
                stub.ApplyAction(request, timeout=3)
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.DEADLINE_EXCEEDED, e
            sent.append(index)


def head(size: int, close: bool = True) -> bytes:
    """A GET /healthz whose head holds a ``size``-byte header value."""
    connection = b"Connection: close\r\n" if close else b""
    return b"GET /healthz HTTP/1.1\r\nHost: x\r\n%sX-Long: %s\r\n\r\n" % (connection, b"y" * size)


def hold_heads(port: int, count: int) -> list[socket.socket]:
    """``count`` kept-alive connections: the even ones send a 125 KB head in one write, the
    odd ones an unfinished 15 KB head (no blank line), and hold it."""
    big, held = head(125_000, close=False), head(15_000, close=False)[:-4]
    out = []
    for i in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        out.append(s)
        with contextlib.suppress(OSError):  # closed by the server mid-stream: fine
            s.sendall(big if i % 2 == 0 else held)
    return out
