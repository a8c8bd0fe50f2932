"""SIGTERM under load with a short grace (issue 11, finding 7): every call that was in
flight gets a JSON answer (never a plain-text 500 or a reset), /readyz answers 503 while
draining, and the process exits 0 soon after the grace."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import threading
import time

import grpc
import httpx
import pytest
from google.protobuf import json_format
from huge_positions import huge_hand
from prometheus_client.parser import text_string_to_metric_families
from service_fixtures import ServerProcess, wait_for

from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc
from samba_adjudicator.service.base import pb

pytestmark = pytest.mark.servers

GRACE = 2.0
#: Exit within the grace plus this margin (the finding: 9 s after SIGTERM with a 2 s grace).
EXIT_MARGIN = 2.5


class Load:
    """Clients calling a server until stopped, each outcome recorded with whether the call
    started before SIGTERM: (transport, early, outcome)."""

    def __init__(self, srv: ServerProcess) -> None:
        self.srv = srv
        self.sigterm_at: list[float] = []
        self.outcomes: list[tuple] = []
        self.readiness: list[int] = []
        self.stop = threading.Event()

    def early(self) -> bool:
        return not self.sigterm_at

    def rest(self, path: str, body: str | None) -> None:
        with httpx.Client(base_url=self.srv.base_url, timeout=30) as c:
            while not self.stop.is_set():
                early = self.early()
                try:
                    r = c.post(path, content=body) if body else c.get(path)
                    reason = (
                        r.json()["error"]["details"][0]["reason"] if r.status_code != 200 else ""
                    )
                    outcome = (r.status_code, r.headers.get("content-type"), reason)
                except httpx.HTTPError as e:
                    outcome = ("error", type(e).__name__, str(e))
                self.outcomes.append(("rest", early, outcome))
                if outcome[0] == "error" and not early:
                    return

    def grpc(self, method: str, request) -> None:
        with grpc.insecure_channel(self.srv.grpc_target) as ch:
            call = getattr(adjudicator_pb2_grpc.AdjudicatorStub(ch), method)
            while not self.stop.is_set():
                early = self.early()
                try:
                    call(request, timeout=30)
                    outcome: tuple = ("OK",)
                except grpc.RpcError as e:
                    outcome = (e.code().name, e.details())
                self.outcomes.append(("grpc", early, outcome))
                if outcome[0] != "OK" and not early:
                    return

    def probe_readiness(self) -> None:
        while not self.stop.is_set():
            try:
                self.readiness.append(
                    httpx.get(self.srv.base_url + "/readyz", timeout=5).status_code
                )
            except httpx.HTTPError:
                return
            time.sleep(0.05)


def _check(transport: str, was_early: bool, outcome: tuple) -> None:
    if transport == "grpc":
        assert outcome[0] in ("OK", "UNAVAILABLE"), outcome
    elif outcome[0] == "error":
        # only a call sent after SIGTERM may find the connection gone
        assert not was_early, outcome
    else:
        code, ctype, reason = outcome
        assert ctype == "application/json", outcome
        assert code == 200 or (code == 503 and reason == "SHUTTING_DOWN"), outcome


def test_sigterm_under_load_answers_every_accepted_call_and_exits_in_time():
    srv = ServerProcess("--shutdown-grace-seconds", str(GRACE))
    huge = json.dumps({"snapshot": huge_hand()})
    huge_pb = json_format.ParseDict({"snapshot": huge_hand()}, pb.ListLegalActionsRequest())
    load = Load(srv)
    threads = [
        threading.Thread(target=load.rest, args=("/v1/rulesets", None)),
        threading.Thread(target=load.rest, args=("/v1/actions:list", huge)),
        threading.Thread(target=load.rest, args=("/v1/actions:list", huge)),
        threading.Thread(
            target=load.grpc, args=("GetRuleset", pb.GetRulesetRequest(profile="classic"))
        ),
        threading.Thread(target=load.grpc, args=("ListLegalActions", huge_pb)),
        threading.Thread(target=load.probe_readiness),
    ]
    try:
        for t in threads:
            t.start()
        time.sleep(1.0)
        load.sigterm_at.append(time.monotonic())
        srv.proc.send_signal(signal.SIGTERM)
        status = srv.proc.wait(GRACE + 10)
        exited = time.monotonic() - load.sigterm_at[0]
    finally:
        load.stop.set()
        for t in threads:
            t.join(30)
        srv.close()
    assert status == 0
    assert exited < GRACE + EXIT_MARGIN, exited
    assert 503 in load.readiness, load.readiness
    assert any(early for _, early, _ in load.outcomes), load.outcomes
    for transport, was_early, outcome in load.outcomes:
        _check(transport, was_early, outcome)


def _rest_answer(srv: ServerProcess, out: list, path: str = "/v1/rulesets") -> None:
    try:
        r = httpx.get(srv.base_url + path, timeout=30)
        reason = r.json()["error"]["details"][0]["reason"] if r.status_code != 200 else ""
        out.append((r.status_code, reason))
    except httpx.HTTPError as e:
        out.append(("error", repr(e)))


def _grpc_answer(srv: ServerProcess, out: list) -> None:
    with grpc.insecure_channel(srv.grpc_target) as ch:
        stub = adjudicator_pb2_grpc.AdjudicatorStub(ch)
        try:
            stub.GetRuleset(pb.GetRulesetRequest(profile="classic"), timeout=30)
            out.append(("OK", ""))
        except grpc.RpcError as e:
            out.append((e.code().name, e.details()))


def _in_flight(srv: ServerProcess) -> dict[str, float]:
    """``samba_requests_in_flight`` by transport, read on the admin port: calls the server
    has received and is answering."""
    text = httpx.get(srv.admin_url + "/metrics", timeout=10).text
    return {
        s.labels["transport"]: s.value
        for family in text_string_to_metric_families(text)
        if family.name == "samba_requests_in_flight"
        for s in family.samples
    }


#: Seconds each call of the next test takes (the test delay): long enough for the slowest
#: of its threads to start its call while the first is still in flight (2.2 s at a load of
#: 20), and within the grace.
CALL_SECONDS = 5.0


def test_calls_received_before_sigterm_get_their_normal_answer_on_both_transports():
    """Issue 20, case 6: with the grace long enough, every call that arrived before SIGTERM
    is answered 200 / OK, even those whose body arrives after it; calls arriving after it
    get SHUTTING_DOWN on both transports.

    The signal goes once the server answers all 9 calls (its in-flight gauge) and the
    slow POST's head is in its socket (``ss``). It went after a fixed 0.7 s until issue 61:
    at a load of 10-20 the test's threads had not all sent their calls by then (one to all
    six REST calls left 0.03-2.2 s after the signal, rightly refused SHUTTING_DOWN), and
    the test failed in 3 of 6 runs."""
    srv = ServerProcess(
        "--shutdown-grace-seconds",
        str(CALL_SECONDS * 2),
        env={"SAMBA_TEST_DELAY_SECONDS": str(CALL_SECONDS)},
    )
    rest: list = []
    grpc_out: list = []
    late_rest: list = []
    late_grpc: list = []
    threads = [threading.Thread(target=_rest_answer, args=(srv, rest)) for _ in range(6)]
    threads += [threading.Thread(target=_grpc_answer, args=(srv, grpc_out)) for _ in range(3)]
    try:
        # a grpc channel connected before SIGTERM, used after it
        with grpc.insecure_channel(srv.grpc_target) as ch:
            grpc.channel_ready_future(ch).result(timeout=10)
            for t in threads:
                t.start()
            # the head of a POST before SIGTERM, its body after
            slow = socket.create_connection(("127.0.0.1", srv.http_port), timeout=30)
            body = json.dumps({"cards": ["7H", "7D", "7C"]}).encode()
            slow.sendall(
                b"POST /v1/melds:check HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
                % len(body)
            )
            wait_for(lambda: _in_flight(srv) == {"rest": 6, "grpc": 3}, timeout=60)
            _wait_arrived(srv.http_port, 0, 0)  # the slow POST's head too
            srv.proc.send_signal(signal.SIGTERM)
            time.sleep(0.3)
            slow.sendall(body)
            late = threading.Thread(target=_rest_answer, args=(srv, late_rest))
            late.start()
            try:
                adjudicator_pb2_grpc.AdjudicatorStub(ch).GetRuleset(
                    pb.GetRulesetRequest(profile="classic"), timeout=10
                )
                late_grpc.append(("OK", ""))
            except grpc.RpcError as e:
                late_grpc.append((e.code().name, rpc_reason(e)))
            slow.settimeout(30)
            answer = slow.recv(65536)
            slow.close()
            for t in [*threads, late]:
                t.join(30)
        assert srv.proc.wait(15) == 0
    finally:
        srv.close()
    assert rest == [(200, "")] * 6, rest
    assert grpc_out == [("OK", "")] * 3, grpc_out
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]
    assert late_rest == [(503, "SHUTTING_DOWN")], late_rest
    assert late_grpc == [("UNAVAILABLE", "SHUTTING_DOWN")], late_grpc


def rpc_reason(e: grpc.RpcError) -> str:
    from google.rpc import error_details_pb2
    from grpc_status import rpc_status

    status = rpc_status.from_call(e)
    info = error_details_pb2.ErrorInfo()
    if status is None or not status.details or not status.details[0].Unpack(info):
        return ""
    return info.reason


def _grpc_huge_listing(srv: ServerProcess, request, out: list) -> None:
    with grpc.insecure_channel(srv.grpc_target) as ch:
        try:
            adjudicator_pb2_grpc.AdjudicatorStub(ch).ListLegalActions(request, timeout=30)
            out.append(("OK", ""))
        except grpc.RpcError as e:
            out.append((e.code().name, rpc_reason(e)))


def test_calls_still_running_at_the_end_of_a_short_grace_are_answered_not_cancelled():
    """Issue 20, case 6: with a short grace an in-flight gRPC call was CANCELLED: the
    servers stopped before the calls stopped by the drain had written their answers."""
    srv = ServerProcess("--shutdown-grace-seconds", "1")
    request = json_format.ParseDict({"snapshot": huge_hand()}, pb.ListLegalActionsRequest())
    out: list = []
    rest: list = []
    threads = [
        threading.Thread(target=_grpc_huge_listing, args=(srv, request, out)) for _ in range(16)
    ]
    threads += [threading.Thread(target=_rest_answer, args=(srv, rest)) for _ in range(2)]
    try:
        for t in threads[:16]:
            t.start()
        time.sleep(0.8)
        srv.proc.send_signal(signal.SIGTERM)
        # soon: queued listings are stopped at once, and the drain of the compiled build
        # ends with its running ones, about 0.2 s after the signal
        time.sleep(0.05)
        for t in threads[16:]:
            t.start()
        for t in threads:
            t.join(30)
        assert srv.proc.wait(15) == 0
    finally:
        srv.close()
    assert len(out) == 16
    for code, reason in out:
        assert code == "OK" or (code, reason) == ("UNAVAILABLE", "SHUTTING_DOWN"), out
    # sent 0.05 s after the signal: a call whose head the server had not yet read when it
    # stopped taking calls is refused, one it had is answered (docs/service.md); on a busy
    # machine either, never dropped
    assert len(rest) == 2 and set(rest) <= {(503, "SHUTTING_DOWN"), (200, "")}, rest


def test_sigterm_right_after_the_ready_line_drains():
    """Issue 20, case 6: the handler was installed after the ready line, so a SIGTERM right
    after it killed the process without a drain."""
    for _ in range(5):
        srv = ServerProcess("--shutdown-grace-seconds", "1")
        srv.proc.send_signal(signal.SIGTERM)
        try:
            assert srv.proc.wait(15) == 0
            assert '"stopped"' in srv.logs(), srv.logs()
        finally:
            srv.close()


#: Starts signalled at random moments in the default suite (200 in `make bench-abuse`).
RANDOM_STARTS = 8


@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_at_any_moment_of_start_up_ends_within_the_grace_and_margin(workers):
    """Issue 34: a server with grace 1 s had not exited 15 s after a SIGTERM sent right after
    its ready line (busy machine). The signal handler set a threading.Event, whose own lock
    the main thread could hold at that moment (server.SignalWaiter): a deadlock. Now every
    start ends within the grace plus EXIT_MARGIN_SECONDS: cleanly (0) once the handlers are
    installed, by the default action (-SIGTERM) before."""
    from sigterm_starts import sigterm_starts

    from samba_adjudicator.service.transport.server import EXIT_MARGIN_SECONDS

    starts = sigterm_starts(RANDOM_STARTS if workers == 1 else RANDOM_STARTS // 2, workers)
    worst = max(s.exit_seconds for s in starts)
    print(f"workers {workers}: {len(starts)} starts, slowest exit {worst:.2f} s")
    for s in starts:
        assert s.returncode in (0, -signal.SIGTERM), (s.delay, s.returncode, s.log)
        assert s.exit_seconds < 1.0 + EXIT_MARGIN_SECONDS, (s.delay, s.exit_seconds, s.log)
        if s.ready:  # a server that printed its ready line drained cleanly
            assert s.returncode == 0, (s.delay, s.log)
    assert any(s.ready for s in starts)


_SIGNAL_AT_EVERY_LINE = """
import os, signal, sys, threading
from samba_adjudicator.service.transport import server
waiter = server.SignalWaiter()
files = {threading.__file__, server.__file__}
def tracer(frame, event, arg):  # a SIGTERM at every line the waiting thread runs
    if event == "line" and frame.f_code.co_filename in files:
        os.kill(os.getpid(), signal.SIGTERM)
    return tracer
sys.settrace(tracer)
got = waiter.wait()
sys.settrace(None)
print(got)
"""


def test_a_signal_handled_at_any_line_of_the_wait_does_not_deadlock():
    """The cause of the hang: the handler set a threading.Event that the main thread was
    waiting on, and a signal handled while Event.wait held the event's lock deadlocked
    (with the former SignalWaiter this subprocess never ends). Python runs the handler
    between two bytecodes of the main thread; here a SIGTERM arrives at every line."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _SIGNAL_AT_EVERY_LINE], capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(int(signal.SIGTERM))


def _acked_to(port: int) -> tuple[int, int]:
    """(bytes acknowledged, bytes not yet acknowledged) summed over this machine's
    established TCP connections to ``port`` on 127.0.0.1, from ``ss``: a byte acknowledged
    is in the server's socket, whether or not the server has read it yet."""
    out = subprocess.run(
        ["ss", "-tinH", "state", "established", f"( dport = :{port} )"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    acked = sum(int(n) for n in re.findall(r"\bbytes_acked:(\d+)", out))
    waiting = sum(int(n) for n in re.findall(r"\bnotsent:(\d+)", out))
    # a connection's unacknowledged bytes show as its Send-Q column (the third)
    waiting += sum(int(line.split()[1]) for line in out.splitlines() if line[:1].isdigit())
    return acked, waiting


def _wait_arrived(port: int, before: int, least: int, timeout: float = 60) -> None:
    """Wait until at least ``least`` more bytes than ``before`` reached the server's
    sockets on ``port`` and none is left to send."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        acked, waiting = _acked_to(port)
        if acked - before >= least and waiting == 0:
            return
        time.sleep(0.01)
    raise AssertionError(f"the calls' bytes did not reach port {port}: {_acked_to(port)}")


def _grpc_outcome(future) -> tuple:
    try:
        future.result()
        return ("grpc", "OK", "")
    except grpc.RpcError as e:
        return ("grpc", e.code().name, e.details())


#: Seconds of grace of the next test: the listings' whole work, however busy the machine.
LISTINGS_GRACE = 90


@pytest.mark.parametrize("workers", [1, 2])
def test_listings_sent_before_sigterm_on_a_busy_server_are_all_answered(workers):
    """Issue 34: 4 REST + 4 gRPC listings whose bytes were in the server's sockets at the
    SIGTERM (grace 20 s): 3/8 to 7/8 were answered normally; the others were refused
    SHUTTING_DOWN because the busy REST loop parsed their heads after the signal. New calls
    are now refused only once what had arrived at the signal is parsed
    (loop_watch.after_pending_io): all 8 answered, none CANCELLED. The signal goes only once
    every request's last byte is acknowledged by the server's kernel (``ss``), so a loaded
    machine that is slow to send them cannot make a call arrive after it (with a fixed
    0.3 s instead, this failed at a load of 9); so signalled, gRPC refused 1 to 3 of its 4
    in 3 of 8 runs until its drain waited for its core to read them
    (loop_watch.wait_kernel_read): 0 in 16.

    The grace is LISTINGS_GRACE: with 20 s, at a load of 20 (the test niced 10, the pure
    build) the 8 listings (about 4.4 s of CPU) were not all done when it ended, and the
    last two REST ones were stopped and answered SHUTTING_DOWN after 19.9 s (issue 61;
    their heads had been parsed before the signal)."""
    base = huge_hand(100)
    srv = ServerProcess("--shutdown-grace-seconds", str(LISTINGS_GRACE), workers=workers)
    rest_requests = []
    for i in range(4):
        body = json.dumps({"snapshot": {**base, "ply": 1000 + i}}).encode()
        head = (
            f"POST /v1/actions:list HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n"
        ).encode()
        rest_requests.append(head + body)
    requests = [
        json_format.ParseDict({"snapshot": {**base, "ply": 2000 + i}}, pb.ListLegalActionsRequest())
        for i in range(4)
    ]
    outcomes: list = []
    channels = [grpc.insecure_channel(srv.grpc_target) for _ in range(4)]
    sockets = [socket.create_connection(("127.0.0.1", srv.http_port)) for _ in range(4)]

    def rest_answer(sock: socket.socket) -> None:
        sock.settimeout(LISTINGS_GRACE + 30)
        with sock.makefile("rb") as f:
            status = f.readline().split()
            rest = f.read().decode(errors="replace")
        code = int(status[1]) if len(status) > 1 else 0
        outcomes.append(("rest", code, "" if code == 200 else rest[-200:]))

    try:
        for ch in channels:
            grpc.channel_ready_future(ch).result(timeout=10)
        rest_before, _ = _acked_to(srv.http_port)
        grpc_before, _ = _acked_to(srv.grpc_port)
        futures = [
            adjudicator_pb2_grpc.AdjudicatorStub(ch).ListLegalActions.future(
                r, timeout=LISTINGS_GRACE + 30
            )
            for ch, r in zip(channels, requests, strict=True)
        ]
        for sock, data in zip(sockets, rest_requests, strict=True):
            sock.sendall(data)
        _wait_arrived(srv.http_port, rest_before, sum(len(d) for d in rest_requests))
        _wait_arrived(srv.grpc_port, grpc_before, sum(r.ByteSize() for r in requests))
        srv.proc.send_signal(signal.SIGTERM)
        threads = [threading.Thread(target=rest_answer, args=(s,)) for s in sockets]
        for t in threads:
            t.start()
        outcomes += [_grpc_outcome(f) for f in futures]
        for t in threads:
            t.join(LISTINGS_GRACE + 30)
        assert srv.proc.wait(LISTINGS_GRACE + 30) == 0
        assert sorted(str(o[1]) for o in outcomes) == ["200"] * 4 + ["OK"] * 4, outcomes
    finally:
        for ch in channels:
            ch.close()
        for sock in sockets:
            sock.close()
        srv.close()
