"""Replicas answer byte for byte the same, and a snapshot's cache key is faithful
(issue 11, findings 8 and 9)."""

from __future__ import annotations

import json

import grpc
import httpx
import pytest
from google.protobuf import json_format
from service_fixtures import ServerProcess, http, server  # noqa: F401

from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec import jsonio

pytestmark = pytest.mark.servers


def _out_of_turn(http: httpx.Client) -> dict:
    dealt = http.post(
        "/v1/deals:deal", content=json.dumps({"players": 4, "seed": "replicas"})
    ).json()["snapshot"]
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


def test_an_infinite_number_is_not_keyed_as_null(server, http):
    """1e400 and null are different requests: the answer must not depend on which of them
    the server saw first."""
    dealt = http.post(
        "/v1/deals:deal", content=json.dumps({"players": 4, "seed": "infinite-key"})
    ).json()["snapshot"]
    infinite = json.dumps({"snapshot": dealt, "provisional": True}).replace(
        '"ply": 0', '"ply": 1e400'
    )
    assert "1e400" in infinite
    null = infinite.replace("1e400", "null")
    first = http.post("/v1/deals:score", content=infinite)
    assert first.status_code == 400, first.text
    assert http.post("/v1/deals:score", content=null).status_code == 200
    again = http.post("/v1/deals:score", content=infinite)
    assert again.status_code == 400, again.text
    assert (
        again.json()["error"]["details"][1]["fieldViolations"]
        == first.json()["error"]["details"][1]["fieldViolations"]
    )
