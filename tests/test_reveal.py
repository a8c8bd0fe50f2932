"""GetPlayerView's ``reveal`` (docs/api.md#revealed-views), against the real servers on
both transports: every hand open once the deal is over (``REVEAL_FINISHED_DEAL``) or at any
point for a teaching table (``REVEAL_TEACHING``); refused while the deal is in play without
the teaching value, and from a view; the stock stays hidden and the answer is unsigned."""

from __future__ import annotations

import base64
import json

import grpc
import httpx
import pytest
from google.protobuf import json_format
from service_fixtures import ServerProcess, channel, grpc_call, http, server, stub  # noqa: F401


def _finish(http: httpx.Client, seed: str) -> dict:
    """A whole deal played by computer seats (RANDOM: quick), its final snapshot."""
    snap = http.post("/v1/deals:deal", json={"players": 4, "seed": seed}).json()["snapshot"]
    while snap["turn"]["phase"] != "OVER":
        seat = snap["turn"]["awaitingSeats"][0]
        computer = {"seat": seat, "level": "RANDOM", "seed": "r"}
        r = http.post("/v1/actions:apply", json={"snapshot": snap, "computer": computer})
        assert r.status_code == 200, r.text
        snap = r.json()["snapshot"]
    return snap


@pytest.fixture(scope="module")
def positions(http):  # noqa: F811
    dealt = http.post("/v1/deals:deal", json={"players": 4, "seed": "reveal"}).json()
    return {"in_play": dealt["snapshot"], "over": _finish(http, "reveal-over")}


def _rest(http, body):  # noqa: F811
    return http.post("/v1/deals:view", json=body)


def _grpc(stub, body):  # noqa: F811
    try:
        return 200, json_format.MessageToDict(grpc_call(stub, "GetPlayerView", body))
    except grpc.RpcError as e:
        return e.code(), e.trailing_metadata()


def _open_hands(view: dict, full: dict) -> None:
    for mine, theirs in zip(view["seats"], full["seats"], strict=True):
        assert mine.get("hand", []) == theirs.get("hand", [])
        assert not mine.get("handHidden", False)
    assert not view.get("stock") and view["stockCount"] == full["stockCount"]
    assert not view.get("signature")


def _grpc_open_hands(answer: dict, full: dict) -> None:
    """gRPC's answer (proto3 JSON leaves zeros and empty lists out) opens every hand."""
    seats = answer["snapshot"]["seats"]
    assert [s.get("hand", []) for s in seats] == [s.get("hand", []) for s in full["seats"]]
    assert not any(s.get("handHidden") for s in seats)
    assert not answer["snapshot"].get("stock") and not answer["snapshot"].get("signature")


@pytest.mark.servers
@pytest.mark.parametrize("seat", [0, None])
def test_a_finished_deal_opens_every_hand(http, stub, positions, seat):  # noqa: F811
    full = positions["over"]
    assert any(s.get("hand") for s in full["seats"])  # a hand is left to reveal
    body = {"snapshot": full, "reveal": "REVEAL_FINISHED_DEAL"}
    if seat is not None:
        body["seat"] = seat
    r = _rest(http, body)
    assert r.status_code == 200, r.text
    _open_hands(r.json()["snapshot"], full)
    code, answer = _grpc(stub, body)
    assert code == 200, answer
    _grpc_open_hands(answer, full)


@pytest.mark.servers
def test_a_deal_in_play_is_refused_without_the_teaching_value(http, stub, positions):  # noqa: F811
    body = {"snapshot": positions["in_play"], "seat": 1, "reveal": "REVEAL_FINISHED_DEAL"}
    r = _rest(http, body)
    assert r.status_code == 400, r.text
    problems = r.json()["error"]["details"]
    fields = [v["field"] for d in problems for v in d.get("fieldViolations", [])]
    assert fields == ["reveal"], r.text
    code, _ = _grpc(stub, body)
    assert code == grpc.StatusCode.INVALID_ARGUMENT


@pytest.mark.servers
def test_a_teaching_table_opens_every_hand_in_play(http, stub, positions):  # noqa: F811
    full = positions["in_play"]
    body = {"snapshot": full, "seat": 2, "reveal": "REVEAL_TEACHING"}
    r = _rest(http, body)
    assert r.status_code == 200, r.text
    _open_hands(r.json()["snapshot"], full)
    code, answer = _grpc(stub, body)
    assert code == 200, answer
    _grpc_open_hands(answer, full)


@pytest.mark.servers
def test_a_view_cannot_reveal(http, stub, positions):  # noqa: F811
    view = _rest(http, {"snapshot": positions["over"], "seat": 0}).json()["snapshot"]
    for value in ("REVEAL_FINISHED_DEAL", "REVEAL_TEACHING"):
        r = _rest(http, {"snapshot": view, "reveal": value})
        assert r.status_code == 400, r.text
        assert "SNAPSHOT_IS_VIEW" in r.text
        code, _ = _grpc(stub, {"snapshot": view, "reveal": value})
        assert code == grpc.StatusCode.INVALID_ARGUMENT


@pytest.mark.servers
def test_without_reveal_the_view_hides_the_other_hands(http, positions):  # noqa: F811
    view = _rest(http, {"snapshot": positions["over"], "seat": 0}).json()["snapshot"]
    assert all(s.get("handHidden") for s in view["seats"][1:] if s.get("handCount"))


@pytest.mark.servers
def test_a_revealed_view_is_not_signed_where_views_are():
    key = base64.b64encode(bytes(range(32))).decode()
    s = ServerProcess(env={"SAMBA_SNAPSHOT_KEYS": f"k1:{key}"})
    try:
        with httpx.Client(base_url=s.base_url, timeout=30) as h:
            full = _finish(h, "signed-reveal")
            assert full["signature"]
            plain = _rest(h, {"snapshot": full, "seat": 0}).json()["snapshot"]
            assert plain["signature"]  # a view is signed
            r = _rest(h, {"snapshot": full, "seat": 0, "reveal": "REVEAL_FINISHED_DEAL"})
            assert r.status_code == 200, r.text
            opened = r.json()["snapshot"]
            assert not opened.get("signature")
            # so it cannot be sent back as a table: ScoreDeal refuses it unsigned
            r = h.post("/v1/deals:score", content=json.dumps({"snapshot": opened}))
            assert r.status_code == 403, r.text
    finally:
        s.close()
