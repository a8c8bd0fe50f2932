"""SuggestAction on the real servers (docs/api.md#suggestaction): REST, gRPC, the CLI and
the Python client agree, every answer is legal, and bad requests are INVALID_ARGUMENT
listing every problem."""

from __future__ import annotations

import grpc
import pytest
from service_fixtures import (  # noqa: F401
    channel,
    cli_call,
    dealt,
    grpc_call,
    http,
    rest_call,
    server,
    stub,
)

from samba_adjudicator.client import AdjudicatorError, Client
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec import jsonio

pytestmark = pytest.mark.servers

LEVELS = ("RANDOM", "BASIC", "STRONG", "LEVEL_UNSPECIFIED")


def request(snapshot: dict, level: str, seed: str = "svc", budget: int = 20) -> dict:
    seat = snapshot["turn"]["seat"]
    return {"snapshot": snapshot, "seat": seat, "level": level, "seed": seed, "budgetMs": budget}


def legal(http, snapshot: dict, action: dict) -> bool:  # noqa: F811
    answer = rest_call(http, "ValidateAction", {"snapshot": snapshot, "action": action}).json()
    return answer["legal"]


@pytest.mark.parametrize("level", LEVELS)
def test_rest_grpc_cli_and_client_agree_and_the_action_is_legal(
    level,
    http,
    stub,
    server,
    dealt,  # noqa: F811
):
    body = request(dealt, level)
    over_rest = rest_call(http, "SuggestAction", body)
    assert over_rest.status_code == 200, over_rest.text
    answer = over_rest.json()
    assert set(answer) == {"action", "reason"} and answer["reason"]["code"]
    assert legal(http, dealt, answer["action"])
    over_grpc = grpc_call(stub, "SuggestAction", body, timeout=30)
    assert jsonio.to_dict(over_grpc) == answer
    code, by_cli = cli_call("SuggestAction", body)
    assert code == 0 and by_cli == answer
    with Client.rest(server.base_url) as c:
        assert c.suggest_action(body) == answer
    assert rest_call(http, "SuggestAction", body).json() == answer, "same request, same answer"


def test_a_played_deal_through_the_service(http):  # noqa: F811
    """A short stretch of a deal, BASIC for every seat, over REST: each answer applies."""
    snapshot = rest_call(http, "Deal", {"players": 4, "seed": "svc-play"}).json()["snapshot"]
    for _ in range(25):
        answer = rest_call(http, "SuggestAction", request(snapshot, "BASIC")).json()
        applied = rest_call(
            http, "ApplyAction", {"snapshot": snapshot, "action": answer["action"]}
        ).json()
        assert applied["legal"], answer
        snapshot = applied["snapshot"]


def test_a_player_view_is_accepted(http, dealt):  # noqa: F811
    seat = dealt["turn"]["seat"]
    view = rest_call(http, "GetPlayerView", {"snapshot": dealt, "seat": seat}).json()["snapshot"]
    from_view = rest_call(http, "SuggestAction", request(view, "STRONG")).json()
    assert from_view == rest_call(http, "SuggestAction", request(dealt, "STRONG")).json()


def test_a_seat_whose_hand_the_view_hides_gets_no_suggestion(http, stub, dealt):  # noqa: F811
    """Issue 47, item 6: refused HIDDEN_INFORMATION_REQUIRED on both transports, as
    ListLegalActions refuses it, naming the hand it needs."""
    seat = dealt["turn"]["seat"]
    other = rest_call(http, "GetPlayerView", {"snapshot": dealt, "seat": (seat + 1) % 4})
    body = request(other.json()["snapshot"], "BASIC")
    for method in ("SuggestAction", "ListLegalActions"):
        r = rest_call(
            http, method, body if method == "SuggestAction" else {"snapshot": body["snapshot"]}
        )
        assert r.status_code == 400, (method, r.text[:300])
        info, bad = r.json()["error"]["details"]
        assert info["reason"] == "HIDDEN_INFORMATION_REQUIRED", method
        assert bad["fieldViolations"][0]["field"] == f"snapshot.seats[{seat}].hand"
    with pytest.raises(grpc.RpcError) as err:
        grpc_call(stub, "SuggestAction", body, timeout=30)
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert f"snapshot.seats[{seat}].hand" in err.value.details()


def test_every_problem_is_listed_with_its_field(http, dealt):  # noqa: F811
    body = {**request(dealt, "BASIC"), "seat": 9, "budgetMs": -5}
    r = rest_call(http, "SuggestAction", body)
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    fields = {
        v["field"]
        for d in error["details"]
        if d["@type"].endswith("BadRequest")
        for v in d["fieldViolations"]
    }
    assert fields == {"seat", "budgetMs"}


def test_a_seat_not_awaited_is_invalid_over_grpc(stub, dealt):  # noqa: F811
    body = {**request(dealt, "BASIC"), "seat": (dealt["turn"]["seat"] + 1) % 4}
    with pytest.raises(grpc.RpcError) as err:
        grpc_call(stub, "SuggestAction", body, timeout=30)
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "seat" in err.value.details()


def test_a_deadline_shorter_than_the_search_is_deadline_exceeded(http, dealt):  # noqa: F811
    # BASIC plays on until its choice is a discard, a decision STRONG searches
    snapshot = dealt
    for _ in range(40):
        answer = rest_call(http, "SuggestAction", request(snapshot, "BASIC")).json()
        if "discard" in answer["action"]:
            break
        body = {"snapshot": snapshot, "action": answer["action"]}
        snapshot = rest_call(http, "ApplyAction", body).json()["snapshot"]
    assert "discard" in answer["action"]
    body = request(snapshot, "STRONG", budget=2000)
    r = rest_call(http, "SuggestAction", body, headers={"x-server-timeout": "0.05"})
    assert r.status_code == 504, r.text
    assert r.json()["error"]["status"] == "DEADLINE_EXCEEDED"
    searched = rest_call(http, "SuggestAction", request(snapshot, "STRONG", budget=10)).json()
    assert searched["reason"]["code"] == "SEARCHED"


def test_client_raises_invalid_argument(server, dealt):  # noqa: F811
    with Client.grpc(server.grpc_target) as c, pytest.raises(AdjudicatorError) as err:
        c.suggest_action(pb.SuggestActionRequest(seat=0))
    assert err.value.status == "INVALID_ARGUMENT"
    assert [(v.field, v.reason) for v in err.value.violations] == [("snapshot", "REQUIRED")]
