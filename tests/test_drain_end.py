"""The end of a drain (issue 56, item 3): a call the server will not serve because it is
stopping is answered UNAVAILABLE (gRPC) or 503 with ``Retry-After`` (REST), or finds no
connection before it sent a byte; never CANCELLED, never a connection reset once its request
was sent. Calls go out across the end of the grace (grace 2 s, from 1.5 s to 3 s after
SIGTERM, a call in flight throughout so that the drain lasts the whole grace), on gRPC
channels connected before the signal and new ones, and on new REST connections."""

from __future__ import annotations

import signal
import threading
import time

import grpc
import httpx
import pytest
from service_fixtures import ServerProcess

from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc
from samba_adjudicator.service.base import pb

pytestmark = pytest.mark.servers

GRACE = 2.0
#: Drains in one run of the test (the issue saw CANCELLED in 5 of 8, resets in 7 of 8).
DRAINS = 4


def _grpc(channel, out: list) -> None:
    try:
        adjudicator_pb2_grpc.AdjudicatorStub(channel).GetRuleset(
            pb.GetRulesetRequest(profile="classic"), timeout=20
        )
        out.append(("grpc", "OK"))
    except grpc.RpcError as e:
        out.append(("grpc", e.code().name, e.details()))


def _rest(port: int, out: list) -> None:
    try:
        r = httpx.get(f"http://127.0.0.1:{port}/v1/rulesets", timeout=20)
    except httpx.ConnectError:  # refused before a byte was sent: retry elsewhere
        out.append(("rest", "refused"))
        return
    except httpx.HTTPError as e:
        out.append(("rest", "error", repr(e)))
        return
    if r.status_code == 200:
        out.append(("rest", 200))
    else:
        reason = r.json()["error"]["details"][0]["reason"]
        out.append(("rest", r.status_code, reason, r.headers.get("retry-after")))


def _drain(workers: int) -> tuple[int, list]:
    """One drain: (exit status, outcomes of the calls sent across the end of its grace)."""
    srv = ServerProcess(
        "--shutdown-grace-seconds",
        str(GRACE),
        env={"SAMBA_TEST_DELAY_SECONDS": str(2 * GRACE)},
        workers=workers,
    )
    out: list = []
    held = grpc.insecure_channel(srv.grpc_target)
    channels = [held]
    try:
        grpc.channel_ready_future(held).result(timeout=10)
        # in flight through the whole grace: the drain runs to its end
        busy = [threading.Thread(target=_grpc, args=(held, [])) for _ in range(2)]
        busy += [threading.Thread(target=_rest, args=(srv.http_port, [])) for _ in range(2)]
        for t in busy:
            t.start()
        time.sleep(0.5)
        signalled = time.monotonic()
        srv.proc.send_signal(signal.SIGTERM)
        time.sleep(1.5)
        calls = []
        while time.monotonic() - signalled < 3.0:
            channels.append(grpc.insecure_channel(srv.grpc_target))
            for target, args in (
                (_grpc, (held, out)),
                (_grpc, (channels[-1], out)),
                (_rest, (srv.http_port, out)),
            ):
                calls.append(threading.Thread(target=target, args=args))
                calls[-1].start()
            time.sleep(0.05)
        for t in busy + calls:
            t.join(30)
        return srv.proc.wait(30), out
    finally:
        for ch in channels:
            ch.close()
        srv.close()


def _acceptable(outcome: tuple) -> bool:
    if outcome[0] == "grpc":
        return outcome[1] in ("OK", "UNAVAILABLE")
    return outcome[1] in (200, "refused") or outcome[1:] == (503, "SHUTTING_DOWN", "1")


@pytest.mark.parametrize("workers", [1, 2])
def test_calls_across_the_end_of_the_grace_are_unavailable_never_cancelled_or_reset(workers):
    """Before: CANCELLED on gRPC and resets of new REST connections (each in 1 of 4 drains
    here: grpcio's ``server.stop`` cancelled the calls it had not handed to a handler, and
    uvicorn's shutdown closed its listeners with connections queued on them), and a 503
    SHUTTING_DOWN without ``Retry-After``."""
    bad = []
    refusals = 0
    for _ in range(DRAINS if workers == 1 else DRAINS // 2):
        status, out = _drain(workers)
        assert status == 0
        bad += [o for o in out if not _acceptable(o)]
        refusals += sum(o[1] in ("UNAVAILABLE", 503) for o in out)
    assert bad == [], bad
    assert refusals, "no call reached the drain's refusals"
