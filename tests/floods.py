"""The floods of issue 34, shared by the tests and ``make bench-abuse``: heavy calls that list
a 149-card hand from four clients, and connections holding large request heads; issue 56's
flood of 0.9 MB listings, and the probe that times cheap calls meanwhile (``make
bench-waits``)."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import socket
import threading
import time

import grpc
import httpx
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc
from huge_positions import bad_codes, huge_hand

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


#: Bad card codes in a listing's hand: about 0.9 MB of JSON (REST) and of protobuf (gRPC).
LISTING_CODES = {"rest": 150_000, "grpc": 225_000}
#: gRPC channels a flood of listings is spread over (100 streams each at most), each on a
#: connection of its own (grpc shares one between channels of the same target otherwise).
LISTING_CHANNELS = 4
#: Channel options for a connection of its own.
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]


def flood_listings(
    base_url: str, grpc_target: str, dealt: dict, grpc_calls: int, rest_calls: int, timeout: float
) -> list[tuple[str, str, str]]:
    """Issue 56's flood: ``grpc_calls`` and ``rest_calls`` ListLegalActions of 0.9 MB (a
    hand of bad card codes on ``dealt``), all sent at once, each with a ``timeout`` s
    deadline: per call, its transport, its status (gRPC code name, REST status and code)
    and its retry hint (``grpc-retry-pushback-ms``, ``Retry-After``; "" when none)."""
    answers: list[tuple[str, str, str]] = []
    request = json_format.ParseDict(
        {"snapshot": bad_codes(dealt, LISTING_CODES["grpc"])}, pb.ListLegalActionsRequest()
    )
    body = json.dumps({"snapshot": bad_codes(dealt, LISTING_CODES["rest"])})
    channels = [
        grpc.insecure_channel(grpc_target, options=OWN_CONNECTION) for _ in range(LISTING_CHANNELS)
    ]
    stubs = [adjudicator_pb2_grpc.AdjudicatorStub(ch) for ch in channels]
    calls = [
        stubs[i % LISTING_CHANNELS].ListLegalActions.future(request, timeout=timeout)
        for i in range(grpc_calls)
    ]

    def post() -> None:
        headers = {"x-server-timeout": str(timeout)}
        try:
            r = httpx.post(
                base_url + "/v1/actions:list", content=body, headers=headers, timeout=timeout + 60
            )
            status = "200"
            if r.status_code != 200:
                status = f"{r.status_code} {r.json()['error']['status']}"
            answers.append(("rest", status, r.headers.get("retry-after", "")))
        except httpx.HTTPError as e:
            answers.append(("rest", type(e).__name__, ""))

    threads = [threading.Thread(target=post, daemon=True) for _ in range(rest_calls)]
    for t in threads:
        t.start()
    for call in calls:
        try:
            call.result()
            answers.append(("grpc", "OK", ""))
        except grpc.RpcError as e:
            hint = dict(e.trailing_metadata() or ()).get("grpc-retry-pushback-ms", "")
            answers.append(("grpc", e.code().name, hint))
    for t in threads:
        t.join(timeout + 120)
    for ch in channels:
        ch.close()
    return answers


class CheapProbe:
    """Cheap calls one after another until ``finish``, from a process of its own (as a
    kubelet's probe or another client would be: the flood's client, in this process, holds
    its interpreter lock for seconds while it sends): gRPC ValidateAction and health Check
    (a connection of their own), REST ValidateAction, the API port's ``/healthz`` and the
    admin port's ``/readyz`` (``admin_url``; None: left out). ``took``, once finished: per
    name, (when it was sent, its seconds), ``time.monotonic()`` (one clock for every
    process); ``failed``: what failed."""

    def __init__(self, grpc_target: str, base_url: str, dealt: dict, admin_url=None) -> None:
        names = ["grpc", "health", "rest", "healthz"] + (["readyz"] if admin_url else [])
        self.took: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
        self.failed: list[str] = []
        context = multiprocessing.get_context("spawn")  # no grpc state crosses a fork
        self._stop = context.Event()
        self._results, sending = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_probe,
            args=(grpc_target, base_url, dealt, admin_url, names, self._stop, sending),
            daemon=True,
        )
        self._process.start()
        ready = self._results.recv()  # its first round is answered: it runs
        assert ready == "ready", ready

    def finish(self) -> None:
        self._stop.set()
        self.took, self.failed = self._results.recv()
        self._process.join(120)

    def slowest(self, since: float, until: float = float("inf")) -> dict[str, float]:
        """Per name, the slowest answer of the calls sent from ``since`` until ``until``
        (``time.monotonic()``)."""
        return {
            name: max((x for t, x in samples if since <= t < until), default=0.0)
            for name, samples in self.took.items()
        }


def _probe(grpc_target, base_url, dealt, admin_url, names, stop, results) -> None:
    """``CheapProbe``'s process: rounds of its calls until ``stop``, then its samples and
    failures sent on ``results``."""
    body = {"snapshot": dealt, "action": {"seat": 1, "drawStock": {}}}
    request = json_format.ParseDict(body, pb.ValidateActionRequest())
    check = health_pb2.HealthCheckRequest(service="samba.v1.Adjudicator")
    took: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    failed: list[str] = []
    with (
        grpc.insecure_channel(grpc_target, options=OWN_CONNECTION) as ch,
        httpx.Client(timeout=60) as http,
    ):
        stub, health = adjudicator_pb2_grpc.AdjudicatorStub(ch), health_pb2_grpc.HealthStub(ch)
        calls = {
            "grpc": lambda: stub.ValidateAction(request, timeout=60),
            "health": lambda: health.Check(check, timeout=60),
            "rest": lambda: http.post(base_url + "/v1/actions:validate", json=body),
            "healthz": lambda: http.get(base_url + "/healthz"),
            "readyz": lambda: http.get(f"{admin_url}/readyz"),
        }
        first = True
        while first or not stop.is_set():
            for name in names:
                started = time.monotonic()
                try:
                    answer = calls[name]()
                    if isinstance(answer, httpx.Response):
                        answer.raise_for_status()
                except Exception as e:  # noqa: BLE001 - a failed probe is a figure of its own
                    failed.append(f"{name}: {type(e).__name__}")
                took[name].append((started, time.monotonic() - started))
            if first:
                results.send("ready")
                first = False
            time.sleep(0.05)
    results.send((took, failed))
