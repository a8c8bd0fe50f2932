"""A computer seat's move in one call (ApplyAction's ``computer``), ``view_seats`` and a
``Deal`` whose ``previous`` decides ``players``, on the real servers over REST and gRPC
(docs/api.md#computer-moves, docs/guide.md#computer-players)."""

from __future__ import annotations

import random

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
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

from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec import jsonio
from samba_adjudicator.service.pipeline.heavy import weigh

pytestmark = pytest.mark.servers

TRANSPORTS = ("rest", "grpc")
COMPUTERS = {1: "BASIC", 3: "STRONG"}


class Calls:
    """One transport's calls, counted; refusals as (status, [(field, reason), ...])."""

    def __init__(self, transport: str, http, stub) -> None:  # noqa: F811
        self.transport, self.http, self.stub = transport, http, stub
        self.count = 0

    def __call__(self, method: str, body: dict) -> dict:
        self.count += 1
        if self.transport == "rest":
            r = rest_call(self.http, method, body)
            assert r.status_code == 200, r.text
            return r.json()
        return jsonio.to_dict(grpc_call(self.stub, method, body, timeout=60))

    def refused(self, method: str, body: dict) -> tuple[str, list[tuple[str, str]]]:
        if self.transport == "rest":
            r = rest_call(self.http, method, body)
            error = r.json()["error"]
            details = [d for d in error["details"] if d["@type"].endswith("BadRequest")]
            found = [(v["field"], v["reason"]) for d in details for v in d["fieldViolations"]]
            return error["status"], found
        with pytest.raises(grpc.RpcError) as err:
            grpc_call(self.stub, method, body, timeout=60)
        status = rpc_status.from_call(err.value)
        found = []
        for detail in status.details:
            bad = error_details_pb2.BadRequest()
            if detail.Unpack(bad):
                found += [(v.field, v.reason) for v in bad.field_violations]
        return err.value.code().name, found


@pytest.fixture(params=TRANSPORTS)
def calls(request, http, stub):  # noqa: F811
    return Calls(request.param, http, stub)


def play_deal(calls: Calls, seed: str, first: dict | None = None) -> tuple[dict, int, int]:
    """A whole 4-seat deal, seats 1 and 3 computer players, 0 and 2 people choosing among
    the legal actions each answer brings; (final snapshot, moves, calls)."""
    rng = random.Random(seed)
    answer = first or calls(
        "Deal",
        {"players": 4, "seed": seed, "includeViews": True, "includeLegalActions": True},
    )
    snapshot, moves = answer["snapshot"], 0
    while "score" not in answer or not answer.get("score"):
        seat = answer["nextActions"]["seat"]
        body = {"snapshot": snapshot, "includeViews": True, "includeLegalActions": True}
        if seat in COMPUTERS:
            body["computer"] = {"seat": seat, "level": COMPUTERS[seat], "seed": seed}
            body["computer"]["budgetMs"] = 10
        else:
            body["action"] = rng.choice(answer["nextActions"]["actions"])
        answer = calls("ApplyAction", body)
        assert answer["legal"], answer["violations"]
        assert ("chosen" in answer and bool(answer["chosen"])) == (seat in COMPUTERS)
        snapshot, moves = answer["snapshot"], moves + 1
        assert len(answer["views"]) == 4 and answer["spectatorView"]
    return snapshot, moves, calls.count


def test_a_whole_deal_with_two_computer_seats_takes_one_call_per_move(calls):
    before = calls("Deal", {"players": 4, "seed": "two-computers"})  # the deal alone
    calls.count = 0
    final, moves, count = play_deal(calls, "two-computers")
    assert final["turn"]["phase"] == "OVER"
    assert before["snapshot"]["seats"][0]["hand"]  # dealt, as the counted Deal answered it
    assert moves > 20
    assert count - 1 == moves  # one Deal, then exactly one ApplyAction per move


@pytest.mark.parametrize("level", ["RANDOM", "BASIC", "STRONG"])
def test_the_chosen_action_is_suggest_actions_and_is_applied(calls, dealt, level):  # noqa: F811
    seat = dealt["turn"]["seat"]
    move = {"seat": seat, "level": level, "seed": "same", "budgetMs": 30}
    suggested = calls("SuggestAction", {"snapshot": dealt, **move})
    answer = calls("ApplyAction", {"snapshot": dealt, "computer": move})
    assert answer["chosen"] == {"action": suggested["action"], "reason": suggested["reason"]}
    applied = calls("ApplyAction", {"snapshot": dealt, "action": suggested["action"]})
    assert {k: v for k, v in answer.items() if k != "chosen"} == applied


def test_a_computer_move_answers_in_the_callers_language(http, dealt):  # noqa: F811
    body = {"snapshot": dealt, "computer": {"seat": dealt["turn"]["seat"], "seed": "es"}}
    english = rest_call(http, "ApplyAction", body).json()["chosen"]["reason"]
    spanish = rest_call(http, "ApplyAction", body, headers={"accept-language": "es"}).json()
    assert spanish["chosen"]["reason"]["code"] == english["code"]
    assert spanish["chosen"]["reason"]["message"] != english["message"]


def test_refusals_name_their_fields(calls, dealt):  # noqa: F811
    awaited = dealt["turn"]["seat"]
    action = calls("SuggestAction", {"snapshot": dealt, "seat": awaited})["action"]
    cases = [
        ({"computer": {"seat": (awaited + 1) % 4}}, [("computer.seat", "NOT_AWAITED")]),
        ({"computer": {"seat": 4}}, [("computer.seat", "OUT_OF_RANGE")]),
        ({"computer": {"seat": -1, "budgetMs": -3}}, None),
        (
            {"computer": {"seat": awaited}, "action": action},
            [("action", "ONE_OF"), ("computer", "ONE_OF")],
        ),
        ({}, [("action", "REQUIRED")]),
    ]
    for extra, expected in cases:
        status, found = calls.refused("ApplyAction", {"snapshot": dealt, **extra})
        assert status == "INVALID_ARGUMENT", extra
        if expected is None:
            assert {f for f, _ in found} == {"computer.seat", "computer.budgetMs"}
        else:
            assert found == expected, extra


def test_the_cli_makes_a_computer_move(dealt):  # noqa: F811
    move = {"seat": dealt["turn"]["seat"], "level": "BASIC", "seed": "cli"}
    code, answer = cli_call("ApplyAction", {"snapshot": dealt, "computer": move})
    assert code == 0 and answer["legal"] and answer["chosen"]["reason"]["code"]
    code, refused = cli_call("ApplyAction", {"snapshot": dealt})
    assert code == 2 and refused["error"]["status"] == "INVALID_ARGUMENT"


def test_a_computer_move_is_heavy_before_it_is_parsed():
    """Both transports run it on a worker thread under the heavy-call limit."""
    message = pb.ApplyActionRequest(computer=pb.ComputerMove(seat=1))
    plain = pb.ApplyActionRequest(include_views=True, view_seats=[5])
    assert weigh("ApplyAction", message.SerializeToString(), json=False)[0]
    assert not weigh("ApplyAction", plain.SerializeToString(), json=False)[0]
    assert weigh("ApplyAction", b'{"computer": {"seat": 1}}', json=True)[0]
    assert not weigh("ApplyAction", b'{"action": {"seat": 1}}', json=True)[0]
    assert weigh("SuggestAction", b"", json=False)[0] and not weigh("Deal", b"", json=False)[0]


# -- view_seats ----------------------------------------------------------------------------


def test_view_seats_narrow_the_views_of_every_method(calls, dealt):  # noqa: F811
    seat = dealt["turn"]["seat"]
    narrow = {"includeViews": True, "viewSeats": [2, 0]}
    dealt_views = calls("Deal", {"players": 4, "seed": "narrow", **narrow})
    move = {"seat": seat, "seed": "v"}
    applied = calls("ApplyAction", {"snapshot": dealt, "computer": move, **narrow})
    replayed = calls(
        "ReplayDeal", {"snapshot": dealt, "actions": [applied["chosen"]["action"]], **narrow}
    )
    whole = calls("ApplyAction", {"snapshot": dealt, "computer": move, "includeViews": True})
    for answer in (dealt_views, applied, replayed):
        assert [v["seat"] for v in answer["views"]] == [2, 0]
        assert not answer.get("spectatorView")
    assert applied["views"] == [whole["views"][2], whole["views"][0]]
    assert whole["spectatorView"] and len(whole["views"]) == 4


def test_bad_view_seats_are_invalid_with_their_paths(calls, dealt):  # noqa: F811
    seat = dealt["turn"]["seat"]
    body = {"snapshot": dealt, "computer": {"seat": seat}, "includeViews": True}
    status, found = calls.refused("ApplyAction", {**body, "viewSeats": [1, 4, 1, -1]})
    assert status == "INVALID_ARGUMENT"
    assert found == [
        ("viewSeats[1]", "OUT_OF_RANGE"),
        ("viewSeats[2]", "OUT_OF_RANGE"),
        ("viewSeats[3]", "OUT_OF_RANGE"),
    ]
    status, found = calls.refused(
        "Deal", {"players": 4, "seed": "s", "viewSeats": [0]}
    )  # without includeViews
    assert (status, found) == ("INVALID_ARGUMENT", [("viewSeats", "REQUIRED")])


def test_more_view_seats_than_the_table_has_are_one_problem(calls, dealt):  # noqa: F811
    """Issue 47, item 2: a list longer than the table is refused as a whole, before any of
    its entries is looked at (a megabyte of protobuf holds a million of them)."""
    draw = {"seat": dealt["turn"]["seat"], "drawStock": {}}
    body = {"snapshot": dealt, "action": draw, "includeViews": True}
    for listed in ([0, 1, 2, 3, 0], [7] * 5, [1] * 100_000):
        status, found = calls.refused("ApplyAction", {**body, "viewSeats": listed})
        assert (status, found) == ("INVALID_ARGUMENT", [("viewSeats", "OUT_OF_RANGE")])
    status, found = calls.refused("Deal", {"players": 2, "seed": "s", **narrow_all(3)})
    assert (status, found) == ("INVALID_ARGUMENT", [("viewSeats", "OUT_OF_RANGE")])


def narrow_all(count: int) -> dict:
    return {"includeViews": True, "viewSeats": list(range(count))}


# -- previous decides players --------------------------------------------------------------


def test_previous_decides_players(calls):
    final, _, _ = play_deal(calls, "match")
    following = calls("Deal", {"previous": final, "seed": "match-2"})
    assert len(following["snapshot"]["seats"]) == 4
    assert following["snapshot"]["dealNumber"] == 2
    same = calls("Deal", {"previous": final, "seed": "match-2", "players": 4})
    assert same == following
    status, found = calls.refused("Deal", {"previous": final, "seed": "m", "players": 6})
    assert (status, found) == ("INVALID_ARGUMENT", [("players", "DERIVED_FIELD_DISAGREES")])
    status, found = calls.refused("Deal", {"seed": "m"})
    assert (status, found) == ("INVALID_ARGUMENT", [("players", "REQUIRED")])


def test_a_malformed_action_is_not_also_missing(http, dealt):  # noqa: F811
    r = rest_call(http, "ApplyAction", {"snapshot": dealt, "action": 5})
    assert r.status_code == 400
    violations = [
        (v["field"], v["reason"])
        for d in r.json()["error"]["details"]
        if d["@type"].endswith("BadRequest")
        for v in d["fieldViolations"]
    ]
    assert violations and all(f == "action" and why != "REQUIRED" for f, why in violations)
