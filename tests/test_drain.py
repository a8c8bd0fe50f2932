"""SIGTERM under load with a short grace (issue 11, finding 7): every call that was in
flight gets a JSON answer (never a plain-text 500 or a reset), /readyz answers 503 while
draining, and the process exits 0 soon after the grace."""

from __future__ import annotations

import json
import signal
import threading
import time

import grpc
import httpx
import pytest
from google.protobuf import json_format
from huge_positions import huge_hand
from service_fixtures import ServerProcess

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
