"""Large requests are decoded against a byte budget (issue 20, case 1: 40 concurrent
requests of 150,000 bad card codes peaked at 579 MB, past the pod's limit)."""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest
from huge_positions import bad_codes
from service_fixtures import ServerProcess, memory_mb

from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.errors import ApiError
from samba_adjudicator.service.pipeline import runtime
from samba_adjudicator.service.pipeline.call import Call
from samba_adjudicator.service.pipeline.runtime import ByteBudget


def test_the_budget_admits_waits_and_refuses():
    budget = ByteBudget(1_000_000)
    assert budget.admit(1000) == 0  # small requests are not counted
    first = budget.admit(600_000)
    with pytest.raises(ApiError) as e:
        budget.admit(600_000, wait=0.05)
    assert (e.value.code, e.value.reason, e.value.http_status) == (
        "RESOURCE_EXHAUSTED",
        "MEMORY_BUDGET",
        429,
    )
    admitted: list[int] = []
    waiter = threading.Thread(target=lambda: admitted.append(budget.admit(600_000, wait=5)))
    waiter.start()
    time.sleep(0.1)
    budget.release(first)  # the waiter gets the room
    waiter.join(5)
    assert admitted == [600_000] and budget.used == 600_000
    # a request larger than the whole budget is admitted alone
    budget.release(admitted[0])
    assert budget.admit(5_000_000) == 1_000_000


@pytest.mark.servers
def test_concurrent_large_bad_requests_stay_within_the_memory_budget():
    srv = ServerProcess()
    try:
        dealt = httpx.post(
            srv.base_url + "/v1/deals:deal", json={"players": 4, "seed": "budget"}, timeout=30
        ).json()["snapshot"]
        body = json.dumps({"snapshot": bad_codes(dealt, 150_000), "provisional": True})
        assert len(body) > runtime.ADMIT_FROM
        codes: list = []

        def call() -> None:
            r = httpx.post(srv.base_url + "/v1/deals:score", content=body, timeout=120)
            err = r.json()["error"]
            codes.append((r.status_code, err["details"][0]["reason"]))

        threads = [threading.Thread(target=call) for _ in range(40)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(180)
        assert len(codes) == 40
        assert set(codes) <= {(400, "INVALID_REQUEST"), (429, "MEMORY_BUDGET")}, set(codes)
        assert (400, "INVALID_REQUEST") in codes
        assert memory_mb(srv.proc.pid) < 256
        assert httpx.get(srv.admin_url + "/healthz", timeout=5).status_code == 200
    finally:
        srv.close()


def test_at_most_heavy_calls_compute_at_once():
    """Issue 20, case 7: eight concurrent big listings computing together kept the probes
    waiting for the interpreter lock past the probe timeout; they now take turns."""
    rt = runtime.Runtime(None)
    lock = threading.Lock()
    now = [0]
    most = [0]

    def lookup(key):  # the snapshot cache's lookup, a seam the compiled build calls too
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
        time.sleep(0.2)
        with lock:
            now[0] -= 1
        raise ApiError("INVALID_ARGUMENT", "INVALID_REQUEST", "stop here")

    def call():
        with pytest.raises(ApiError):
            rt.invoke(Call("ListLegalActions", data, "rest", "r", heavy=True))

    data = pb.ListLegalActionsRequest(snapshot=pb.Snapshot()).SerializeToString()
    rt.adjudicator.snapshots.cache.get = lookup

    threads = [threading.Thread(target=call) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert most[0] == runtime.HEAVY_CALLS
