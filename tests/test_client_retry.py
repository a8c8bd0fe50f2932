"""The Python client's retry policy: UNAVAILABLE (a draining replica, a refused connection,
REST 503) is sent again with capped exponential backoff and jitter; nothing else is; off
with ``retry=None``; a gRPC service config reaches the channel
(docs/api.md#retries-and-idempotency)."""

from __future__ import annotations

import threading
import time

import grpc
import httpx
import pytest
from service_fixtures import ServerProcess, wait_for

from samba_adjudicator.client import NO_RETRY, AdjudicatorError, Client, RetryPolicy
from samba_adjudicator.client.retry import DEFAULT_RETRY, Attempts

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
            with pytest.raises(AdjudicatorError) as e:
                once.list_rulesets(request_id="not-retried")
            # both transports say why: a call after SIGTERM is refused SHUTTING_DOWN
            assert (e.value.status, e.value.reason) == ("UNAVAILABLE", "SHUTTING_DOWN")

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
