"""Replicas answer byte for byte the same, and a snapshot's cache key is faithful
(issue 11, findings 8 and 9)."""

from __future__ import annotations

import json

import grpc
import httpx
from google.protobuf import json_format

from samba_adjudicator.service import jsonio, pb
from service_fixtures import ServerProcess


def _out_of_turn(http: httpx.Client) -> dict:
    dealt = http.post("/v1/deals:deal", content=json.dumps(
        {"players": 4, "seed": "replicas"})).json()["snapshot"]
    seat = (dealt["turn"]["seat"] + 1) % 4
    return {"snapshot": dealt, "action": {"seat": seat, "drawStock": {}}}


def test_violation_details_render_with_sorted_keys():
    v = pb.Violation(code="X")
    for key in ("q", "b", "zz", "a", "m", "c"):
        v.details[key] = key
    body = jsonio.to_dict(v)
    assert list(body["details"]) == sorted(body["details"])


def test_two_processes_answer_the_same_bytes_on_both_transports():
    # The violation's details map (turn, seat) iterates in an order seeded per process.
    servers = [ServerProcess() for _ in range(3)]
    try:
        rest_bodies, grpc_bodies = set(), set()
        for srv in servers:
            with httpx.Client(base_url=srv.base_url, timeout=30) as http:
                request = _out_of_turn(http)
                r = http.post("/v1/actions:validate", content=json.dumps(request))
                assert r.status_code == 200 and r.json()["legal"] is False, r.text
                assert len(r.json()["violations"][0]["details"]) >= 2
                rest_bodies.add(r.content)
            with grpc.insecure_channel(srv.grpc_target) as ch:
                raw = ch.unary_unary("/samba.v1.Adjudicator/ValidateAction")
                message = pb.ValidateActionRequest()
                json_format.ParseDict(request, message)
                grpc_bodies.add(raw(message.SerializeToString(), timeout=30))
        assert len(rest_bodies) == 1, rest_bodies
        assert len(grpc_bodies) == 1, grpc_bodies
    finally:
        for srv in servers:
            srv.close()
