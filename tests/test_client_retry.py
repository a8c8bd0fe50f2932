"""The Python client's retry policy: UNAVAILABLE (a draining replica, a refused connection,
REST 503) is sent again with capped exponential backoff and jitter, and RESOURCE_EXHAUSTED
when the server is busy for now (SERVER_BUSY, MEMORY_BUDGET), not before its hint; nothing
else is; off
with ``retry=None``; a gRPC service config reaches the channel
(docs/api.md#retries-and-idempotency)."""

from __future__ import annotations

import asyncio
import base64
import random
import signal
import threading
import time

import grpc
import httpx
import pytest
from service_fixtures import ServerProcess, wait_for

from samba_adjudicator.client import (
    DEFAULT_TIMEOUT,
    NO_RETRY,
    AdjudicatorError,
    AsyncClient,
    Client,
    RetryPolicy,
)
from samba_adjudicator.client.errors import from_rest
from samba_adjudicator.client.retry import DEFAULT_RETRY, UNTIMED_ATTEMPTS, Attempts

pytestmark = pytest.mark.servers


def _error(status: str) -> AdjudicatorError:
    return AdjudicatorError(getattr(grpc.StatusCode, status), "test")


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_backoff_is_capped_exponential_with_full_jitter():
    policy = RetryPolicy(max_attempts=6, initial_backoff=0.1, max_backoff=0.5, multiplier=2)
    highest = Attempts(policy, None, rng=lambda: 0.999999)
    delays = [highest.retry_after(_error("UNAVAILABLE")) for _ in range(6)]
    assert delays[:5] == pytest.approx([0.1, 0.2, 0.4, 0.5, 0.5], rel=1e-5)
    assert delays[5] is None  # the sixth attempt was the last
    lowest = Attempts(policy, None, rng=lambda: 0.0)
    assert lowest.retry_after(_error("UNAVAILABLE")) == 0.0


def test_only_unavailable_and_cancelled_are_retried_by_default():
    for status in ("INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "PERMISSION_DENIED", "INTERNAL"):
        assert Attempts(DEFAULT_RETRY, None).retry_after(_error(status)) is None
    # CANCELLED: what a draining gRPC server answered, through nginx, for a call it had
    # received but not started (seen in the rolling restart of tests/test_scale.py)
    for status in ("UNAVAILABLE", "CANCELLED"):
        assert Attempts(DEFAULT_RETRY, None).retry_after(_error(status)) is not None
    assert Attempts(NO_RETRY, None).retry_after(_error("UNAVAILABLE")) is None
    assert Attempts(None, None).retry_after(_error("UNAVAILABLE")) is None


def test_a_busy_servers_resource_exhausted_is_retried_after_its_hint():
    """Issue 56: the server answers RESOURCE_EXHAUSTED with a retry hint when it is busy for
    now (SERVER_BUSY, MEMORY_BUDGET), and the client gave up at once. It retries those,
    not before the hint, and still never a request too large or too costly."""

    def exhausted(reason: str, hint: float | None) -> AdjudicatorError:
        return AdjudicatorError(
            grpc.StatusCode.RESOURCE_EXHAUSTED, "test", reason=reason, retry_after=hint
        )

    for reason, hint in (("MEMORY_BUDGET", 1.0), ("SERVER_BUSY", 2.0)):
        delay = Attempts(DEFAULT_RETRY, None, rng=lambda: 0.5).retry_after(exhausted(reason, hint))
        assert delay == hint, reason
    for reason in ("REQUEST_TOO_LARGE", "CALL_TOO_EXPENSIVE"):
        assert Attempts(DEFAULT_RETRY, None).retry_after(exhausted(reason, None)) is None
    # a hint past the call's deadline: the error is raised rather than slept on
    assert Attempts(DEFAULT_RETRY, 0.5).retry_after(exhausted("MEMORY_BUDGET", 1.0)) is None


def test_the_retry_hint_is_read_from_a_rest_answer():
    """``Retry-After`` as this service sends it (seconds); gRPC's trailer is read from a real
    server's refusal in tests/test_heavy_calls.py."""
    rest = from_rest(
        429,
        {"error": {"status": "RESOURCE_EXHAUSTED", "message": "m", "details": []}},
        "rid",
        "1",
    )
    assert (rest.status, rest.retry_after) == ("RESOURCE_EXHAUSTED", 1.0)
    assert from_rest(503, None, "rid", "Wed, 21 Oct 2026 07:28:00 GMT").retry_after is None
    assert from_rest(503, None, "rid").retry_after is None


def test_the_timeout_covers_every_attempt():
    clock = _Clock()
    attempts = Attempts(DEFAULT_RETRY, 1.0, clock=clock, rng=lambda: 0.5)
    assert attempts.timeout() == pytest.approx(1.0)
    clock.now += 0.7
    assert attempts.timeout() == pytest.approx(0.3)
    assert attempts.retry_after(_error("UNAVAILABLE")) == pytest.approx(0.05)
    clock.now += 0.29
    # a sleep that would end past the deadline is not taken: the error is raised
    assert attempts.retry_after(_error("UNAVAILABLE")) is None


def test_a_service_config_retry_policy_reads_as_one():
    config = {
        "methodConfig": [
            {
                "name": [{"service": "samba.v1.Adjudicator"}],
                "retryPolicy": {
                    "maxAttempts": 4,
                    "initialBackoff": "0.2s",
                    "maxBackoff": "3s",
                    "backoffMultiplier": 1.5,
                    "retryableStatusCodes": ["UNAVAILABLE", "RESOURCE_EXHAUSTED"],
                },
            }
        ]
    }
    assert RetryPolicy.from_service_config(config) == RetryPolicy(
        4, 0.2, 3.0, 1.5, frozenset({"UNAVAILABLE", "RESOURCE_EXHAUSTED"})
    )
    assert RetryPolicy.from_service_config({"methodConfig": [{"timeout": "1s"}]}) is None


def test_the_grpc_service_config_reaches_the_channel():
    # the service config's 0.3 s timeout, shorter than the client's, ends a 2 s call
    slow = ServerProcess(env={"SAMBA_TEST_DELAY_SECONDS": "2"})
    config = {"methodConfig": [{"name": [{"service": "samba.v1.Adjudicator"}], "timeout": "0.3s"}]}
    try:
        with Client.grpc(slow.grpc_target, service_config=config) as client:
            with pytest.raises(AdjudicatorError) as e:
                client.list_rulesets()
            assert e.value.status == "DEADLINE_EXCEEDED"
        with Client.grpc(slow.grpc_target) as client:  # without it the call is answered
            assert client.list_rulesets()["rulesets"]
    finally:
        slow.close()


def _drain(server: ServerProcess) -> threading.Thread:
    """SIGTERM ``server`` while one slow call keeps it draining; returns that call."""
    holder = threading.Thread(
        target=lambda: httpx.get(server.base_url + "/v1/rulesets", timeout=30), daemon=True
    )
    holder.start()
    time.sleep(0.3)  # the slow call is in flight
    server.proc.send_signal(15)
    wait_for(lambda: httpx.get(server.base_url + "/readyz", timeout=5).status_code == 503)
    return holder


@pytest.mark.parametrize("transport", ["rest", "grpc"])
def test_a_call_to_a_draining_replica_is_retried_until_its_successor_answers(transport):
    old = ServerProcess(env={"SAMBA_TEST_DELAY_SECONDS": "2", "SAMBA_SHUTDOWN_GRACE_SECONDS": "5"})
    ports = ("--grpc-port", str(old.grpc_port), "--http-port", str(old.http_port))
    target = old.base_url if transport == "rest" else old.grpc_target
    successor: list[ServerProcess] = []
    try:
        holder = _drain(old)
        with getattr(Client, transport)(target, retry=None) as once:
            # readiness turns 503 at the signal; the servers refuse once what had reached them
            # is read (a call in that instant is still answered): the refusal is awaited
            refused = None
            for _ in range(50):
                try:
                    once.list_rulesets(request_id="not-retried")
                except AdjudicatorError as err:
                    refused = err
                    break
                time.sleep(0.05)
            assert refused is not None, "a draining replica refuses a call without retry"
            # both transports say why: a call after SIGTERM is refused SHUTTING_DOWN
            assert (refused.status, refused.reason) == ("UNAVAILABLE", "SHUTTING_DOWN")

        def restart() -> None:  # a rolling restart: the same ports, once the old one is gone
            old.proc.wait(30)
            successor.append(ServerProcess(*ports))

        restarter = threading.Thread(target=restart, daemon=True)
        restarter.start()
        patient = RetryPolicy(max_attempts=100, initial_backoff=0.05, max_backoff=0.2)
        with getattr(Client, transport)(target, retry=patient, timeout=60) as client:
            answer = client.list_rulesets(request_id="retried-call")
        assert answer["rulesets"]
        restarter.join(30)
        holder.join(30)
        # the successor answered it; over REST the old replica's log shows it refused first
        assert successor and successor[0].proc.poll() is None
        if transport == "rest":
            assert '"requestId": "retried-call"' in old.logs()
    finally:
        for srv in [old, *successor]:
            srv.close()


def test_by_default_a_call_is_retried_until_its_deadline_not_a_number_of_times():
    clock = _Clock()
    attempts = Attempts(DEFAULT_RETRY, 10.0, clock=clock, rng=lambda: 1.0)
    delays = []
    while (delay := attempts.retry_after(_error("UNAVAILABLE"))) is not None:
        delays.append(delay)
        clock.now += delay + 0.01  # the attempt itself fails at once (refused)
    assert len(delays) > 10 and sum(delays) > 9.0  # rides out seconds of restart
    assert max(delays) == pytest.approx(DEFAULT_RETRY.max_backoff)
    assert DEFAULT_TIMEOUT == 10.0
    untimed = Attempts(DEFAULT_RETRY, None, rng=lambda: 0.0)
    tries = 1
    while untimed.retry_after(_error("UNAVAILABLE")) is not None:
        tries += 1
    assert tries == UNTIMED_ATTEMPTS  # without a deadline, a bounded number of attempts


MATCH = {"ruleset": {"profile": "classic", "overrides": {"maxDeals": 2}}, "players": 4}
#: The match is signed: the restarted server verifies what the killed one signed.
SIGNED = {"SAMBA_SNAPSHOT_KEYS": "k1:" + base64.b64encode(b"retry-match-key-" * 2).decode()}
COMPUTERS = (1, 3)


def _play_match(call, seed: str, moved: threading.Event, after: int) -> tuple[int, int]:
    """A two-deal match, seats 1 and 3 computer players, one call per move; ``moved`` is
    set after ``after`` moves. (moves, calls)."""
    rng, moves, calls = random.Random(seed), 0, 0
    extras = {"includeLegalActions": True}
    answer = call("Deal", {**MATCH, "seed": f"{seed}-1", **extras})
    calls += 1
    while True:
        while not answer.get("score"):
            seat = answer["nextActions"]["seat"]
            body = {"snapshot": answer["snapshot"], **extras}
            if seat in COMPUTERS:
                body["computer"] = {"seat": seat, "level": "BASIC", "seed": seed}
            else:
                body["action"] = rng.choice(answer["nextActions"]["actions"])
            answer = call("ApplyAction", body)
            assert answer["legal"] and answer["snapshot"]["signature"].startswith("v1.k1.")
            moves, calls = moves + 1, calls + 1
            if moves == after:
                moved.set()
        if answer["score"]["matchOver"]:
            return moves, calls
        answer = call("Deal", {"previous": answer["snapshot"], "seed": f"{seed}-2", **extras})
        calls += 1


def _kill_and_restart(server: ServerProcess, moved: threading.Event, out: list) -> None:
    ports = (
        "--grpc-port",
        str(server.grpc_port),
        "--http-port",
        str(server.http_port),
        "--admin-port",
        str(server.admin_port),
    )
    moved.wait(120)
    server.proc.send_signal(signal.SIGKILL)
    server.proc.wait(10)
    time.sleep(3)  # down for 3 s, then the start-up's own time
    out.append(ServerProcess(*ports, env=SIGNED))


@pytest.mark.parametrize("asyncio_client", [False, True], ids=["sync", "asyncio"])
@pytest.mark.parametrize("transport", ["rest", "grpc"])
def test_the_default_client_finishes_a_match_through_a_sigkill_and_restart(
    transport, asyncio_client
):
    server = ServerProcess(env=SIGNED)
    target = server.base_url if transport == "rest" else server.grpc_target
    moved, restarted = threading.Event(), []
    killer = threading.Thread(target=_kill_and_restart, args=(server, moved, restarted))
    killer.start()
    loop = asyncio.new_event_loop()
    try:
        if asyncio_client:
            client = loop.run_until_complete(_async_client(transport, target))

            def call(method, body):
                return loop.run_until_complete(client.call(method, body))

        else:
            client = getattr(Client, transport)(target)  # the defaults: no retry or timeout set
            call = client.call
        moves, calls = _play_match(call, f"sigkill-{transport}", moved, after=40)
        # the match ended on the restarted server: it was not over before the kill
        assert restarted, "the match ended before the server was killed and started again"
        if asyncio_client:
            loop.run_until_complete(client.close())
        else:
            client.close()
        killer.join(60)
        assert restarted, "the server was killed and started again"
        assert restarted[0].proc.poll() is None
        assert server.proc.returncode == -signal.SIGKILL
        assert moves > 40 and calls == moves + 2  # two Deals, then one call per move
    finally:
        loop.close()
        moved.set()
        killer.join(60)
        for srv in [server, *restarted]:
            srv.close()


async def _async_client(transport: str, target: str) -> AsyncClient:
    return getattr(AsyncClient, transport)(target)
