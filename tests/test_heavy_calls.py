"""Cheap calls never wait behind heavy ones (issue 34): whatever lists legal actions
(ListLegalActions, ReplayDeal, SuggestAction, and ``includeLegalActions`` on any method) runs
on a worker thread under the heavy-call limit, decided by the request's content; and
readiness turns red while an API event loop cannot answer (docs/service.md#readiness)."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import statistics
import threading
import time

import grpc
import httpx
import pytest
from floods import LISTING_CODES, CheapProbe, flood_heavy, flood_listings
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc
from huge_positions import bad_codes, huge_draw
from service_fixtures import ServerProcess, memory_mb, wait_for

from samba_adjudicator.client import NO_RETRY, AdjudicatorError, Client
from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.pipeline.heavy import ASKS_LISTING, weigh
from samba_adjudicator.service.pipeline.rpc import RPCS
from samba_adjudicator.service.transport.loop_watch import PROBE_SECONDS, STALL_SECONDS

# -- which calls are heavy -----------------------------------------------------------------


def test_every_method_with_include_legal_actions_is_looked_at():
    assert set(ASKS_LISTING) == {"Deal", "ApplyAction", "ReplayDeal"}
    assert {n for n, rpc in RPCS.items() if rpc.heavy} == {
        "ReplayDeal",
        "ListLegalActions",
        "SuggestAction",
    }


@pytest.mark.parametrize("method", ["ApplyAction", "Deal"])
def test_protobuf_requests_are_heavy_by_their_flag(method):
    request = pb.ApplyActionRequest() if method == "ApplyAction" else pb.DealRequest(seed="s")
    if method == "ApplyAction":
        request.snapshot.deal_number = 7  # a length-delimited field before the flag
        request.action.seat = 1
    cheap = request.SerializeToString()
    request.include_legal_actions = True
    heavy = request.SerializeToString()
    assert not weigh(method, cheap, json=False)[0]
    assert weigh(method, heavy, json=False)[0]
    assert weigh(method, cheap + heavy, json=False)[0]  # any occurrence
    assert not weigh(method, heavy[:-1] + b"\x00", json=False)[0]  # set to false
    assert not weigh(method, b"\xff\xff\xff", json=False)[0]  # malformed: decoding refuses
    assert weigh("ListLegalActions", cheap, json=False)[0]


def test_json_requests_are_heavy_by_their_flag():
    def heavy(body: dict | str) -> bool:
        text = body if isinstance(body, str) else json.dumps(body)
        return weigh("ApplyAction", text.encode(), json=True)[0]

    assert not heavy({"snapshot": {}, "action": {"seat": 0}})
    assert heavy({"snapshot": {}, "includeLegalActions": True})
    assert heavy({"include_legal_actions": True})
    assert heavy('{"include\\u004cegalActions": true}')  # an escape spelling the name
    assert not heavy({"includeLegalActions": False})
    assert not heavy({"seed": "includeLegalActions", "x": "\u00f1"})  # named, not set
    assert not heavy('{"includeLegalActions": tru')  # malformed: decoding refuses
    # larger than a call answered on the loop: not read, heavy when it names the flag
    big = {"snapshot": {"pad": "x" * 40_000}, "includeLegalActions": False}
    assert heavy(big)
    assert not weigh("ValidateAction", b'{"includeLegalActions": true}', json=True)[0]


# -- a flood of heavy calls ------------------------------------------------------------------

#: Seconds the four flooding clients send heavy calls.
FLOOD_SECONDS = 5.0
#: The 99th percentile of a cheap call's latency during the flood (issue 34's figure).
CHEAP_P99_SECONDS = 1.0


def _p99(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[98]


@pytest.mark.servers
def test_cheap_calls_and_the_probe_answer_while_four_clients_flood_heavy_calls():
    """Issue 34: four clients looping ApplyAction with includeLegalActions on a 150-card
    position stalled the API port's /healthz for 5 s and a cheap ValidateAction timed out
    (REST) or took 3.2 s p50 (gRPC), while the admin probe stayed green."""
    srv = ServerProcess()
    try:
        dealt = httpx.post(
            srv.base_url + "/v1/deals:deal", json={"players": 4, "seed": "flood"}, timeout=30
        ).json()["snapshot"]
        cheap_body = {"snapshot": dealt, "action": {"seat": 1, "drawStock": {}}}
        cheap_request = json_format.ParseDict(cheap_body, pb.ValidateActionRequest())
        stop = threading.Event()
        sent: list[int] = []
        flooders = [
            threading.Thread(
                target=flood_heavy,
                args=(srv.base_url, srv.grpc_target, stop, i, sent),
                daemon=True,
            )
            for i in range(4)
        ]
        latencies: dict[str, list[float]] = {"healthz": [], "rest": [], "grpc": []}
        ready = []
        with (
            httpx.Client(base_url=srv.base_url, timeout=30) as c,
            grpc.insecure_channel(srv.grpc_target) as ch,
        ):
            stub = adjudicator_pb2_grpc.AdjudicatorStub(ch)
            for t in flooders:
                t.start()
            end = time.monotonic() + FLOOD_SECONDS
            while time.monotonic() < end:
                started = time.monotonic()
                assert c.get("/healthz").status_code == 200
                latencies["healthz"].append(time.monotonic() - started)
                started = time.monotonic()
                assert c.post("/v1/actions:validate", json=cheap_body).status_code == 200
                latencies["rest"].append(time.monotonic() - started)
                started = time.monotonic()
                stub.ValidateAction(cheap_request, timeout=30)
                latencies["grpc"].append(time.monotonic() - started)
                ready.append(httpx.get(srv.admin_url + "/readyz", timeout=10).status_code)
                time.sleep(0.02)
            stop.set()
            for t in flooders:
                t.join(30)
        p99 = {name: round(_p99(xs), 3) for name, xs in latencies.items()}
        print(f"flood: {len(sent)} heavy calls, cheap p99 {p99}, samples {len(ready)}")
        assert len(sent) >= 4  # the flood ran
        assert all(v < CHEAP_P99_SECONDS for v in p99.values()), p99
        assert set(ready) == {200}  # no loop was held: readiness stayed green
    finally:
        srv.close()


# -- readiness follows the API loops ----------------------------------------------------------


def _grpc_health(srv: ServerProcess) -> int:
    with grpc.insecure_channel(srv.grpc_target) as ch:
        return (
            health_pb2_grpc.HealthStub(ch)
            .Check(health_pb2.HealthCheckRequest(service="samba.v1.Adjudicator"), timeout=10)
            .status
        )


@pytest.mark.servers
def test_readiness_turns_red_while_an_api_loop_is_held():
    """A cheap call that waits on its event loop (the tests' launcher holds the loop for
    HOLD seconds): the admin port's /readyz turns 503 within STALL_SECONDS and a probe
    period, gRPC health NOT_SERVING while the REST loop is held (REST /readyz 503 while the
    gRPC loop is), and both turn green again once the loop answers."""
    hold = STALL_SECONDS + 3
    srv = ServerProcess(
        env={"SAMBA_TEST_DELAY_SECONDS": str(hold), "SAMBA_TEST_DELAY_ON_LOOP": "1"}
    )
    serving, not_serving = (
        health_pb2.HealthCheckResponse.SERVING,
        health_pb2.HealthCheckResponse.NOT_SERVING,
    )

    def admin_ready() -> int:
        return httpx.get(srv.admin_url + "/readyz", timeout=10).status_code

    try:
        assert admin_ready() == 200 and _grpc_health(srv) == serving
        # the REST loop held by one cheap call
        held = threading.Thread(
            target=lambda: httpx.post(
                srv.base_url + "/v1/melds:check", json={"cards": ["7H", "7D", "7C"]}, timeout=60
            )
        )
        started = time.monotonic()
        held.start()
        wait_for(lambda: admin_ready() == 503, timeout=hold)
        turned = time.monotonic() - started
        assert turned >= STALL_SECONDS - PROBE_SECONDS, turned  # not before the bound
        assert _grpc_health(srv) == not_serving
        held.join(60)
        wait_for(lambda: admin_ready() == 200, timeout=10)
        wait_for(lambda: _grpc_health(srv) == serving, timeout=10)
        # the gRPC loop held by one cheap call
        with grpc.insecure_channel(srv.grpc_target) as ch:
            stub = adjudicator_pb2_grpc.AdjudicatorStub(ch)
            call = stub.CheckMeld.future(pb.CheckMeldRequest(cards=["7H", "7D", "7C"]), timeout=60)
            wait_for(lambda: admin_ready() == 503, timeout=hold)
            assert httpx.get(srv.base_url + "/readyz", timeout=10).status_code == 503
            call.result()
        wait_for(lambda: admin_ready() == 200, timeout=10)
        assert "event loop stalled" in srv.logs()
    finally:
        srv.close()


# -- waiting for a heavy-call slot (issue 47, items 4 and 9) ----------------------------------

#: STRONG's budget of the two computer moves that hold both heavy-call slots, on the
#: 103-card draw (tests/huge_positions.py), where one ply costs seconds: its clock ends the
#: search by twice that plus half a second, so they hold the slots for the whole test (the
#: server's ceiling raised to match; the drain at the end stops them).
HOLD_BUDGET_MS = 20_000
#: The deadline of the call that waits for a slot meanwhile.
WAIT_DEADLINE = 0.5


def _in_flight(srv: ServerProcess) -> float:
    """``samba_requests_in_flight{transport="rest"}``, read on the admin port."""
    text = httpx.get(srv.admin_url + "/metrics", timeout=10).text
    found = re.search(r'^samba_requests_in_flight\{transport="rest"\} (\S+)$', text, re.M)
    return float(found.group(1)) if found else 0.0


class _Moves:
    """Computer moves sent over REST, each on its own thread (one client: its connections);
    ``done`` lists the answers' status codes as they arrive."""

    def __init__(self, srv: ServerProcess) -> None:
        self.client = httpx.Client(
            base_url=srv.base_url, timeout=90, limits=httpx.Limits(max_connections=None)
        )
        self.done: list[int] = []
        self.threads: list[threading.Thread] = []

    def send(self, snapshot: dict, count: int, budget_ms: int, tag: str) -> None:
        seat = snapshot["turn"]["seat"]
        for i in range(count):
            move = {"seat": seat, "level": "STRONG", "seed": f"{tag}{i}", "budgetMs": budget_ms}
            body = json.dumps({"snapshot": snapshot, "computer": move})
            thread = threading.Thread(target=self._post, args=(body,), daemon=True)
            thread.start()
            self.threads.append(thread)

    def _post(self, body: str) -> None:
        headers = {"x-server-timeout": "60"}
        try:
            r = self.client.post("/v1/actions:apply", content=body, headers=headers)
            self.done.append(r.status_code)
        except httpx.HTTPError:
            self.done.append(0)


def _holding(dealt_seed: str) -> tuple[ServerProcess, dict, _Moves]:
    """A server whose two heavy-call slots are both held by long STRONG computer moves,
    and a fresh deal of its."""
    srv = ServerProcess("--shutdown-grace-seconds", "1", "--max-call-seconds", "120")
    dealt = httpx.post(
        srv.base_url + "/v1/deals:deal", json={"players": 4, "seed": dealt_seed}, timeout=30
    ).json()["snapshot"]
    moves = _Moves(srv)
    moves.send(huge_draw(), 2, HOLD_BUDGET_MS, "hold")
    wait_for(lambda: _in_flight(srv) == 2, timeout=30)
    return srv, dealt, moves


def _deadline_exceeded(srv: ServerProcess, dealt: dict, transport: str) -> str:
    """ListLegalActions with a WAIT_DEADLINE deadline: the status it is answered."""
    if transport == "rest":
        r = httpx.post(
            srv.base_url + "/v1/actions:list",
            json={"snapshot": dealt},
            headers={"x-server-timeout": str(WAIT_DEADLINE)},
            timeout=60,
        )
        return f"{r.status_code} {r.json()['error']['status']}" if r.status_code != 200 else "200"
    request = json_format.ParseDict({"snapshot": dealt}, pb.ListLegalActionsRequest())
    with grpc.insecure_channel(srv.grpc_target) as ch:
        try:
            adjudicator_pb2_grpc.AdjudicatorStub(ch).ListLegalActions(
                request, timeout=WAIT_DEADLINE
            )
        except grpc.RpcError as e:
            return e.code().name
    return "OK"


@pytest.mark.servers
@pytest.mark.parametrize("transport", ["rest", "grpc"])
def test_the_wait_for_a_heavy_slot_ends_at_the_calls_deadline(transport):
    """Issue 47, item 4: with both slots held by STRONG computer moves, a REST
    ListLegalActions with ``x-server-timeout: 0.5`` was answered 504 only when a slot came
    free (4.0 s), while gRPC honoured its deadline. Both now answer DEADLINE_EXCEEDED at
    the deadline, while the moves still hold the slots."""
    srv, dealt, holders = _holding("slot-deadline")
    try:
        started = time.monotonic()
        answer = _deadline_exceeded(srv, dealt, transport)
        waited = time.monotonic() - started
        assert holders.done == [], "answered only when a slot came free"
        assert answer == ("504 DEADLINE_EXCEEDED" if transport == "rest" else "DEADLINE_EXCEEDED")
        assert waited < WAIT_DEADLINE + 3.0, waited
    finally:
        srv.close()


def _threads(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("Threads:"))


@pytest.mark.servers
def test_metrics_and_large_cheap_calls_do_not_wait_behind_queued_heavy_calls():
    """Issue 47, item 9: a heavy call waiting for a slot held a thread of the REST pool
    meanwhile, so behind 48 queued computer moves the pool's 40 threads were all taken,
    and the REST port's ``/metrics`` and a large cheap call (over 32 KiB: it runs on the
    pool) waited 2.2-2.6 s for one. Waiting holds no thread now: the server has no more
    threads with the 48 moves waiting than with the two computing, and both calls answer
    while the moves wait."""
    srv, dealt, moves = _holding("slot-queue")
    try:
        computing = _threads(srv.proc.pid)
        moves.send(dealt, 48, 50, "queued")
        time.sleep(2.0)  # the 48 requests arrive
        most = _threads(srv.proc.pid)
        metrics = httpx.get(srv.base_url + "/metrics", timeout=60)
        body = json.dumps({"snapshot": dealt, "action": {"seat": 1, "drawStock": {}}})
        large = body[:-1] + " " * 40_000 + "}"  # a cheap call, large: on the pool
        validated = httpx.post(srv.base_url + "/v1/actions:validate", content=large, timeout=60)
        most = max(most, _threads(srv.proc.pid))
        assert (metrics.status_code, validated.status_code) == (200, 200)
        assert "samba_requests_total" in metrics.text
        assert len(moves.done) < 50, "the moves were all answered before"
        # the probes take a pool thread each, a move handed a slot meanwhile one (freed
        # threads are reused); before, the 48 waiting took 26-38 more (16 -> 42-53)
        assert most <= computing + 8, (computing, most)
    finally:
        srv.close()


#: Issue 56's flood: 0.9 MB listings sent at once behind the two computer moves.
LINE_FLOOD = {"grpc": 160, "rest": 60}
#: Peak resident memory (VmHWM) of the worker meanwhile, MB: the chart's request per
#: worker (348-387 MB before, each waiting call holding its request).
LINE_PEAK_MB = 256
#: Seconds the probe times cheap calls with the two moves alone, before the flood (its
#: baseline).
PROBE_ALONE_SECONDS = 3.0
#: The slowest cheap call or probe during the flood, seconds: issue 56's figure, held
#: while the machine is quiet enough (a load of about 10: 0.53 s).
LINE_PROBE_SECONDS = 1.0
#: At the load this shared 2-core machine had (16-28, other sessions' work), the flood's
#: slowest probe took 0.6-2.5 s with the fix, 11-54 times the same run's slowest with the
#: two moves alone (2.9-9.3 s, 13-257 times, before): past the issue's figure, the
#: slowest must stay within this many times the baseline, a guard against the seconds of
#: before coming back; what the fix changed, the interpreter lock's switch interval, is
#: held by tests/test_service_lifecycle.py (a timing of it did not hold apart from the
#: machine's load: a cheap call's median beside the moves over its quiet median was 13-93
#: times before, 1.1-7.3 times after, with other tests running).
LINE_PROBE_RATIO = 100.0


@pytest.mark.servers
def test_heavy_calls_past_the_budget_are_refused_at_once_and_memory_stays_bounded():
    """Issue 56, item 1: with both slots held by computer moves, 160 gRPC and 60 REST
    ListLegalActions of 0.9 MB all waited in line, each holding its request, to their
    deadline (348-387 MB). The line's bytes count against the decoding budget now: the few
    that fit wait, the others are refused at once, while the
    moves still hold the slots, RESOURCE_EXHAUSTED (REST 429) with a retry hint. Cheap
    calls and the probes answer meanwhile: a gRPC ValidateAction sent behind the flood's
    refused calls waited 3.7-8.4 s for them (``server.tune_switching``)."""
    srv, dealt, _ = _holding("line-budget")
    try:
        probe = CheapProbe(srv.grpc_target, srv.base_url, dealt, srv.admin_url)
        time.sleep(PROBE_ALONE_SECONDS)
        flood_from = time.monotonic()
        answers = flood_listings(
            srv.base_url, srv.grpc_target, dealt, LINE_FLOOD["grpc"], LINE_FLOOD["rest"], 20.0
        )
        flood_until = time.monotonic()
        probe.finish()
        peak = memory_mb(srv.proc.pid)
        refused = {("grpc", "RESOURCE_EXHAUSTED", "1000"), ("rest", "429 RESOURCE_EXHAUSTED", "1")}
        waited = {("grpc", "DEADLINE_EXCEEDED", ""), ("rest", "504 DEADLINE_EXCEEDED", "")}
        # the moves' 4.5 s of CPU (STRONG's budget is capped at 2000 ms) may end during the
        # flood: the calls in line then get a slot, and their bad codes are refused
        served = {("grpc", "INVALID_ARGUMENT", ""), ("rest", "400 INVALID_ARGUMENT", "")}
        assert len(answers) == sum(LINE_FLOOD.values())
        assert set(answers) <= refused | waited | served, set(answers)
        # the budget holds about four of them (4 MiB) while the moves compute (before: none
        # refused, every one waited)
        assert sum(1 for a in answers if a in refused) >= len(answers) // 2
        assert {a[0] for a in answers if a in refused} == {"grpc", "rest"}
        assert peak < LINE_PEAK_MB, peak
        r = httpx.post(
            srv.base_url + "/v1/deals:deal", json={"players": 4, "seed": "s"}, timeout=30
        )
        assert r.status_code == 200
        alone = max(probe.slowest(0.0, flood_from).values())
        flood = probe.slowest(flood_from, flood_until)
        print(f"probe slowest: {alone:.2f} s alone, during the flood {flood}")
        assert not probe.failed, probe.failed
        bound = max(LINE_PROBE_SECONDS, LINE_PROBE_RATIO * alone)
        assert max(flood.values()) < bound, (alone, flood)
    finally:
        srv.close()


def _unsent_body(srv: ServerProcess, size: int) -> bytes:
    """What the REST port answers a ListLegalActions whose head says ``size`` bytes and
    whose body is never sent, until it closes the connection or 10 s pass without a byte
    (b"": nothing, the server waits for the body)."""
    head = (
        b"POST /v1/actions:list HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % size
    )
    answer = b""
    with socket.create_connection(("127.0.0.1", srv.http_port), timeout=10) as s:
        s.sendall(head)
        with contextlib.suppress(TimeoutError):
            while chunk := s.recv(65536):  # a refusal closes the connection after it
                answer += chunk
    return answer


@pytest.mark.servers
def test_rest_heavy_calls_past_the_budget_are_refused_before_their_body_is_read():
    """Issue 56, item 1: a REST listing was read whole before the line could refuse it. With
    both slots held and the line's budget full, one whose ``Content-Length`` finds no room
    is answered 429 from its head, as gRPC refuses it before reading; while the line has
    room, the same head waits for its body."""
    srv, dealt, _ = _holding("line-unread")
    try:
        # The line is filled first, while the moves hold both slots (4.5 s of CPU each): a
        # 10 s wait for an unsent body first let them end at a CI load (no 429 then).
        body = json.dumps({"snapshot": bad_codes(dealt, LISTING_CODES["rest"])})
        statuses: list[int] = []

        def post() -> None:
            headers = {"x-server-timeout": "30"}
            url = srv.base_url + "/v1/actions:list"
            statuses.append(httpx.post(url, content=body, headers=headers, timeout=60).status_code)

        for _ in range(5):
            threading.Thread(target=post, daemon=True).start()
        wait_for(lambda: 429 in statuses, timeout=30)  # four wait in line: the budget is full
        answer = _unsent_body(srv, 900_000)
        assert answer.startswith(b"HTTP/1.1 429 "), answer[:200]
        assert b"retry-after: 1" in answer.lower() and b"MEMORY_BUDGET" in answer
        # the Python client reads the refusal's retry hint on both transports
        for transport, client in (
            ("grpc", Client.grpc(srv.grpc_target, retry=NO_RETRY)),
            ("rest", Client.rest(srv.base_url, retry=NO_RETRY)),
        ):
            listing = {"snapshot": bad_codes(dealt, LISTING_CODES[transport])}  # 0.9 MB
            with pytest.raises(AdjudicatorError) as refused:
                client.call("ListLegalActions", listing)
            assert (refused.value.reason, refused.value.retry_after) == ("MEMORY_BUDGET", 1.0)
        wait_for(lambda: len(statuses) == 5, timeout=120)  # the line is empty again
        assert _unsent_body(srv, 900_000) == b""  # room in line: the server waits
    finally:
        srv.close()


def test_a_json_body_weighed_for_its_flag_is_parsed_once(tmp_path):
    """A REST body that asks ``includeLegalActions`` is read to find the flag
    (``heavy.weigh``) and decoded from what was read (the ``Call`` carries it): one parse
    per call on a real server, counted by tests/slow_server.py (issue 49)."""
    log = tmp_path / "parses"
    server = ServerProcess(env={"SAMBA_TEST_PARSE_LOG": str(log)})
    try:

        def parses() -> int:
            return len(log.read_text().splitlines()) if log.exists() else 0

        body = json.dumps({"players": 4, "seed": "parsed-once", "includeLegalActions": True})
        before = parses()
        r = httpx.post(f"{server.base_url}/v1/deals:deal", content=body, timeout=60)
        assert r.status_code == 200, r.text
        assert r.json()["nextActions"]["actions"]  # the flag was read and honoured
        assert parses() - before == 1
    finally:
        server.close()
