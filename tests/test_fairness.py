"""The worst malformed request of each route: bounded memory, and cheap calls keep being
answered while it runs (issue 11, findings 1 and 2). Latency figures relative to a quiet
server: ``make bench-abuse``."""

from __future__ import annotations

import json
import threading
import time

import grpc
import httpx
import pytest
from huge_positions import worst_requests
from service_fixtures import REST, ServerProcess, memory_mb

from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc
from samba_adjudicator.service.base import pb

pytestmark = pytest.mark.servers

#: Peak resident memory of a server that refused each worst request twice at once (it
#: starts near 75 MB; one such request took 250 MB before errors were bounded).
PEAK_RSS_MB = 250
#: Slowest cheap call while two worst requests run at once (inline, one of them held the
#: event loop for 1.2 s).
CHEAP_CALL_SECONDS = 1.0


@pytest.fixture(scope="module")
def fresh_server():
    srv = ServerProcess()
    yield srv
    srv.close()


def _post_twice(base_url: str, path: str, body: bytes) -> list[httpx.Response]:
    answers: list = []

    def post():
        answers.append(httpx.post(base_url + path, content=body, timeout=60))

    threads = [threading.Thread(target=post) for _ in range(2)]
    for t in threads:
        t.start()
    return threads, answers


def test_worst_requests_keep_memory_bounded_and_cheap_calls_answered(fresh_server):
    srv = fresh_server
    snapshot = httpx.post(
        srv.base_url + "/v1/deals:deal",
        timeout=30,
        content=json.dumps({"players": 4, "seed": "worst"}),
    ).json()["snapshot"]
    slowest: dict[str, float] = {}
    with (
        httpx.Client(base_url=srv.base_url, timeout=30) as cheap,
        grpc.insecure_channel(srv.grpc_target) as ch,
    ):
        stub = adjudicator_pb2_grpc.AdjudicatorStub(ch)
        for method, body in worst_requests(snapshot).items():
            threads, answers = _post_twice(srv.base_url, REST[method][1], json.dumps(body).encode())
            worst = 0.0
            while any(t.is_alive() for t in threads):
                started = time.monotonic()
                assert cheap.get("/healthz").status_code == 200
                stub.GetRuleset(pb.GetRulesetRequest(profile="classic"), timeout=30)
                worst = max(worst, time.monotonic() - started)
            for t in threads:
                t.join()
            slowest[method] = worst
            for r in answers:
                assert r.status_code in (400, 413), (method, r.status_code, r.text[:200])
                assert r.headers["content-type"].startswith("application/json")
                assert len(r.content) < 16_384, (method, len(r.content))
    assert memory_mb(srv.proc.pid) < PEAK_RSS_MB
    assert max(slowest.values()) < CHEAP_CALL_SECONDS, slowest


def test_memory_of_refused_requests_is_returned():
    """A refused request must not stay reachable (its error's traceback held the call's
    frame, which held the error: a cycle kept each megabyte request until a full
    collection, and the server grew by 6 MB a request)."""
    srv = ServerProcess()
    try:
        body = json.dumps({"players": 4, "seed": "s", "matchScores": list(range(120_000))})
        with httpx.Client(base_url=srv.base_url, timeout=60) as c:
            for _ in range(5):
                assert c.post("/v1/deals:deal", content=body).status_code == 400
            settled = memory_mb(srv.proc.pid, "VmRSS")
            for _ in range(20):
                assert c.post("/v1/deals:deal", content=body).status_code == 400
        assert memory_mb(srv.proc.pid, "VmRSS") - settled < 40
    finally:
        srv.close()
