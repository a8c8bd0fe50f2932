"""Views in the answer and a match carried by the service (docs/api.md#views-in-the-answer,
#a-match-carried-by-the-service; docs/guide.md#one-call-per-move).

The whole-deal tests run against a real server over REST only, with signing on, as a game
server would: one call per move, each player handed its own view and events."""

from __future__ import annotations

import base64
import json
import random

import pytest
from builders import make_snapshot
from service_fixtures import ServerProcess

from samba_adjudicator.engine import (
    apply,
    deal,
    events_seen_by,
    legal_actions,
    player_view,
    resolve,
    validate,
)
from samba_adjudicator.engine.action_order import action_key
from samba_adjudicator.engine.derived import awaiting_seats
from samba_adjudicator.engine.model import Event, GoOut, Phase, RulesetRef
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.errors import ApiError
from samba_adjudicator.service.codec import convert
from samba_adjudicator.service.codec.signing import Signer
from samba_adjudicator.service.pipeline.api import Adjudicator
from samba_adjudicator.service.pipeline.runtime import Runtime

KEYS = "k1:" + base64.b64encode(b"v" * 32).decode()
MAX_MOVES = 3000


def call(adj, method, request):
    return Runtime(None, adj, count_calls=False).call(method, request, [])


# -- the engine's rule -------------------------------------------------------------------


def test_events_seen_by_hides_drawn_cards_from_others_only():
    events = (
        Event("CARDS_DRAWN", 1, 1, cards=("QH", "4C")),
        Event("RED_THREE_LAID", 1, 1, cards=("3H",)),
        Event("DISCARDED", 1, 1, cards=("4C",)),
    )
    drawer = events_seen_by(events, 1)
    assert [(e.cards, n) for e, n in drawer] == [(("QH", "4C"), 2), (("3H",), 1), (("4C",), 1)]
    for viewer in (0, 2, 3, None):
        seen = events_seen_by(events, viewer)
        assert [(e.type, e.cards, n) for e, n in seen] == [
            ("CARDS_DRAWN", (), 2),
            ("RED_THREE_LAID", ("3H",), 1),
            ("DISCARDED", ("4C",), 1),
        ]


# -- a whole deal over REST, one call per move ---------------------------------------------


@pytest.fixture(scope="module")
def signed_server():
    s = ServerProcess(env={"SAMBA_SNAPSHOT_KEYS": KEYS})
    yield s
    s.close()


@pytest.fixture(scope="module")
def rest(signed_server):
    import httpx

    with httpx.Client(base_url=signed_server.base_url, timeout=60) as client:
        yield client


def post(rest, path: str, body: dict) -> dict:
    r = rest.post(path, content=json.dumps(body))
    assert r.status_code == 200, r.text
    return r.json()


def check_views(answer: dict, players: int) -> None:
    """Each seat sees its own hand and drawn cards only; the spectator sees neither."""
    full = answer["snapshot"]
    assert [v["seat"] for v in answer["views"]] == list(range(players))
    for view in answer["views"]:
        seat, snap = view["seat"], view["snapshot"]
        assert snap["signature"].startswith("v1.k1.")
        assert snap["stock"] == [] and snap["stockCount"] == full["stockCount"]
        for i, s in enumerate(snap["seats"]):
            if i == seat:
                assert s["hand"] == full["seats"][i]["hand"]
            else:
                assert s["hand"] == [] and s["dealt"] == []
                assert s["handCount"] == len(full["seats"][i]["hand"])
        for e, raw in zip(view["events"], answer["events"], strict=True):
            if e["type"] == "CARDS_DRAWN" and e["seat"] != seat:
                assert e["cards"] == [] and e["cardCount"] == len(raw["cards"])
            else:
                assert e == raw
    spectator = answer["spectatorView"]
    assert all(s["hand"] == [] for s in spectator["snapshot"]["seats"])
    for e, raw in zip(spectator["events"], answer["events"], strict=True):
        assert e["cards"] == ([] if e["type"] == "CARDS_DRAWN" else raw["cards"])
        assert e["cardCount"] == len(raw["cards"])


@pytest.fixture(scope="module")
def played(rest):
    """A whole 4-player deal played by a REST-only game server: the Deal call, then one
    ApplyAction per move, each carrying the views and the next seat's first page."""
    rng = random.Random(21)
    answer = post(
        rest,
        "/v1/deals:deal",
        {"players": 4, "seed": "views-rest", "includeViews": True, "includeLegalActions": True},
    )
    check_views({**answer, "events": []}, 4)
    calls, drawn_seen = 1, 0
    for _ in range(MAX_MOVES):
        snap = answer["snapshot"]
        if snap["turn"]["phase"] == "OVER":
            break
        nxt = answer["nextActions"]
        assert nxt["seat"] == snap["turn"]["awaitingSeats"][0]
        assert nxt["totalSize"] >= len(nxt["actions"]) > 0
        answer = post(
            rest,
            "/v1/actions:apply",
            {
                "snapshot": snap,
                "action": rng.choice(nxt["actions"]),
                "includeViews": True,
                "includeLegalActions": True,
            },
        )
        calls += 1
        assert answer["legal"], answer["violations"]
        check_views(answer, 4)
        drawn_seen += sum(e["type"] == "CARDS_DRAWN" and bool(e["cards"]) for e in answer["events"])
    assert answer["snapshot"]["turn"]["phase"] == "OVER"
    assert "nextActions" not in answer
    return answer, calls, drawn_seen


def test_rest_game_server_plays_a_deal_one_call_per_move(played):
    answer, calls, drawn_seen = played
    moves = answer["snapshot"]["ply"]
    assert calls == moves + 1  # the Deal, then one call per move
    assert drawn_seen > 10  # draws happened, and were hidden from the other seats above
    assert answer["score"]["sides"]


def test_views_are_accepted_as_signed_views(rest, played):
    answer = post(
        rest,
        "/v1/deals:deal",
        {"players": 4, "seed": "views-signed", "includeViews": True, "includeLegalActions": True},
    )
    seat = answer["nextActions"]["seat"]
    view = answer["views"][seat]["snapshot"]
    listed = post(rest, "/v1/actions:list", {"snapshot": view, "seat": seat})
    assert listed["actions"] == answer["nextActions"]["actions"]
    forged = {**view, "ply": 3}
    r = rest.post("/v1/actions:list", content=json.dumps({"snapshot": forged, "seat": seat}))
    assert r.status_code == 403


# -- a match carried by the service ------------------------------------------------------


def reason_of(r) -> str:
    return r.json()["error"]["details"][0]["reason"]


def test_signed_match_carries_over_from_previous(rest, played):
    final = played[0]
    nxt = post(
        rest, "/v1/deals:deal", {"players": 4, "seed": "deal-2", "previous": final["snapshot"]}
    )
    snap = nxt["snapshot"]
    assert snap["dealNumber"] == final["snapshot"]["dealNumber"] + 1 == 2
    assert snap["dealer"] == (final["snapshot"]["dealer"] + 1) % 4
    totals = [s["matchTotal"] for s in final["score"]["sides"]]
    assert [s["matchScore"] for s in snap["sides"]] == totals
    assert snap["ruleset"]["profile"] == final["snapshot"]["ruleset"]["profile"]


def test_signed_match_refuses_a_forged_carry_over(rest, played):
    final = played[0]["snapshot"]
    for raw in ({"matchScores": [3000, 0]}, {"dealNumber": 2}, {"matchScores": [0, 10]}):
        r = rest.post("/v1/deals:deal", content=json.dumps({"players": 4, "seed": "f", **raw}))
        assert (r.status_code, reason_of(r)) == (403, "MATCH_CARRY_OVER_UNSIGNED"), r.text
    forged = json.loads(json.dumps(final))
    forged["sides"][1]["matchScore"] = 4000  # a side's carried score, the signature kept
    r = rest.post(
        "/v1/deals:deal", content=json.dumps({"players": 4, "seed": "f", "previous": forged})
    )
    assert (r.status_code, reason_of(r)) == (403, "SNAPSHOT_SIGNATURE_INVALID"), r.text
    unsigned = {k: v for k, v in final.items() if k != "signature"}
    r = rest.post(
        "/v1/deals:deal", content=json.dumps({"players": 4, "seed": "f", "previous": unsigned})
    )
    assert (r.status_code, reason_of(r)) == (403, "SNAPSHOT_SIGNATURE_MISSING"), r.text
    # a new match (deal 1, zero scores) is still dealt without `previous`
    post(rest, "/v1/deals:deal", {"players": 4, "seed": "f", "matchScores": [0, 0]})


def test_previous_must_be_over_and_alone(rest):
    first = post(rest, "/v1/deals:deal", {"players": 4, "seed": "not-over"})["snapshot"]
    r = rest.post(
        "/v1/deals:deal",
        content=json.dumps(
            {
                "players": 3,
                "seed": "x",
                "dealer": 2,
                "ruleset": {"profile": "pagat"},
                "previous": first,
            }
        ),
    )
    assert r.status_code == 400, r.text
    fields = {v["field"]: v["reason"] for v in r.json()["error"]["details"][1]["fieldViolations"]}
    assert fields == {
        "previous.turn.phase": "OUT_OF_RANGE",
        "players": "DERIVED_FIELD_DISAGREES",
        "ruleset": "DERIVED_FIELD_DISAGREES",
        "dealer": "DERIVED_FIELD_DISAGREES",
    }


def finished(profile: str, scores, deal_number: int = 1):
    """A deal played to its end (the first listed action each time, so drawing until the
    stock runs out), dealt as deal ``deal_number`` with these match scores."""
    rules, ref = resolve(profile), RulesetRef(profile=profile)
    s = deal(rules, 4, f"finished-{profile}", 0, deal_number, tuple(scores), ref)
    while s.turn.phase is not Phase.OVER:
        s = apply(s, legal_actions(s)[0][0]).snapshot
    return convert.snapshot_to_proto(s)


@pytest.mark.parametrize(
    ("profile", "scores", "number"),
    [("classic", [20000, 0], 1), ("pagat", [0, 0], 60), ("classic", [0, 0], 1)],
)
def test_match_end_is_enforced_on_previous(profile, scores, number):
    adj = Adjudicator()
    req = pb.DealRequest(players=4, seed="s", previous=finished(profile, scores, number))
    if scores == [0, 0] and number == 1:
        assert call(adj, "Deal", req).snapshot.deal_number == 2
        return
    with pytest.raises(ApiError) as e:
        call(adj, "Deal", req)
    assert (e.value.code, e.value.reason) == ("FAILED_PRECONDITION", "MATCH_OVER")


def test_match_end_is_enforced_on_raw_fields_with_signing_off():
    adj = Adjudicator()
    pagat = pb.RulesetRef(profile="pagat")
    assert call(adj, "Deal", pb.DealRequest(ruleset=pagat, players=4, seed="s", deal_number=60))
    for req in (
        pb.DealRequest(ruleset=pagat, players=4, seed="s", deal_number=61),
        pb.DealRequest(players=4, seed="s", match_scores=[10000, 10]),
    ):
        with pytest.raises(ApiError) as e:
            call(adj, "Deal", req)
        assert (e.value.code, e.value.reason) == ("FAILED_PRECONDITION", "MATCH_OVER")


def test_raw_carry_over_refused_in_process_with_signing_on():
    adj = Adjudicator(signer=Signer.parse(KEYS))
    with pytest.raises(ApiError) as e:
        call(adj, "Deal", pb.DealRequest(players=4, seed="s", deal_number=2))
    assert (e.value.code, e.value.reason) == ("PERMISSION_DENIED", "MATCH_CARRY_OVER_UNSIGNED")


# -- next actions and replay -------------------------------------------------------------


def test_next_actions_is_listlegalactions_first_page_and_its_token_pages_on():
    adj = Adjudicator()
    snap = make_snapshot(
        "classic",
        4,
        hands={0: "QH QS QD 7H 8H 9H 10H 5C 5D 5S 2S 4C 6C KS KD AD AH JK 8D 8S", 1: "4D"},
        discard="9C",
        turn_seat=0,
        phase=Phase.DRAW,
    )
    req = pb.ApplyActionRequest(
        snapshot=convert.snapshot_to_proto(snap), include_legal_actions=True
    )
    req.action.seat = 0
    req.action.draw_stock.SetInParent()
    out = call(adj, "ApplyAction", req)
    assert not out.views and not out.HasField("spectator_view")
    nxt = out.next_actions
    first = call(adj, "ListLegalActions", pb.ListLegalActionsRequest(snapshot=out.snapshot, seat=0))
    assert nxt.seat == 0 and list(nxt.actions) == list(first.actions)
    assert nxt.total_size == first.total_size > 100 and nxt.next_page_token
    second = call(
        adj,
        "ListLegalActions",
        pb.ListLegalActionsRequest(snapshot=out.snapshot, seat=0, page_token=nxt.next_page_token),
    )
    assert second.actions and second.actions[0] not in first.actions


def test_replay_views_carry_every_applied_action_events():
    adj = Adjudicator()
    dealt = call(adj, "Deal", pb.DealRequest(players=4, seed="replay", include_legal_actions=True))
    actions, snap = [], dealt.snapshot
    for _ in range(6):
        nxt = call(
            adj,
            "ApplyAction",
            pb.ApplyActionRequest(
                snapshot=snap,
                action=call(
                    adj, "ListLegalActions", pb.ListLegalActionsRequest(snapshot=snap)
                ).actions[-1],
            ),
        )
        actions.append(nxt)
        snap = nxt.snapshot
    replay = call(
        adj,
        "ReplayDeal",
        pb.ReplayDealRequest(
            snapshot=dealt.snapshot,
            actions=[
                call(adj, "ListLegalActions", pb.ListLegalActionsRequest(snapshot=s)).actions[-1]
                for s in [dealt.snapshot] + [a.snapshot for a in actions[:-1]]
            ],
            include_views=True,
        ),
    )
    events = [e for r in replay.results for e in r.events]
    assert replay.snapshot == snap
    for view in replay.views:
        assert len(view.events) == len(events)
        assert [e.type for e in view.events] == [e.type for e in events]
    assert len(replay.spectator_view.events) == len(events)


# -- "may I go out?" and whose turn it is (item 4) ------------------------------------------


def test_refusals_during_may_i_go_out_name_the_awaited_seats():
    snap = make_snapshot("classic", 4, hands={0: "4C 5C", 2: "7D"}, go_out=GoOut.ASKED)
    adj = Adjudicator()
    msg = convert.snapshot_to_proto(snap)
    for seat, text in ((2, "seat 2 answers first"), (1, "waits for seat 2 to answer, not seat 1")):
        req = pb.ValidateActionRequest(snapshot=msg)
        req.action.seat = seat
        req.action.discard.card = "7D" if seat == 2 else "4D"
        (v,) = [x for x in call(adj, "ValidateAction", req).violations if x.code == "NOT_YOUR_TURN"]
        assert dict(v.details) == {"turn": "0", "awaitingSeats": "2", "seat": str(seat)}
        assert text in v.message and "partner" not in v.message
    req = pb.ValidateActionRequest(snapshot=msg)
    req.action.seat = 3
    req.action.discard.card = "4D"
    plain = make_snapshot("classic", 4, hands={0: "4C 5C", 3: "4D"})
    req.snapshot.CopyFrom(convert.snapshot_to_proto(plain))
    (v,) = call(adj, "ValidateAction", req).violations
    assert v.message == "it is seat 0's turn, not seat 3's"
    assert dict(v.details) == {"turn": "0", "awaitingSeats": "0", "seat": "3"}


# -- a seat's own view lists at every turn (item 3) ----------------------------------------

VIEW_SPECS = [
    (spec, players)
    for spec in ("classic", "pagat", "spanish", "canasta", "bolivia", "official", "spanish+open")
    for players in resolve(spec).players_allowed
]


@pytest.mark.parametrize(("spec", "players"), VIEW_SPECS)
def test_own_view_lists_at_every_turn_of_played_deals(spec, players):
    """ListLegalActions on the awaited seat's own view never answers an error, lists only
    actions legal on the full position, and each of them validates on the view."""
    rules = resolve(spec)
    for k in range(2):
        s = deal(rules, players, f"views-{spec}-{players}-{k}")
        rng = random.Random(k)
        for _ in range(400):
            if s.turn.phase is Phase.OVER:
                break
            full: list = []
            for seat in awaiting_seats(s):
                view = player_view(s, seat)
                listed, complete = legal_actions(view, seat)
                mine = legal_actions(s, seat)[0]
                keys, all_keys = set(map(action_key, listed)), set(map(action_key, mine))
                assert keys <= all_keys
                assert keys == all_keys or not complete  # a shorter list says it is partial
                assert all(not validate(view, a) for a in listed)
                full += mine
            s = apply(s, rng.choice(full)).snapshot


def test_spanish_first_turn_with_owed_replacements_lists_the_draw_on_the_view():
    """The issue's case: the seat to move owes red-3 replacements; on its own view (stock
    hidden) a take depends on the replacements, so the list holds the draw and says it is
    partial, and ValidateAction agrees on the draw."""
    adj = Adjudicator()
    rules = pb.RulesetRef(profile="spanish")
    for i in range(200):
        dealt = call(adj, "Deal", pb.DealRequest(ruleset=rules, players=4, seed=f"owed-{i}"))
        seat = dealt.snapshot.turn.seat
        if dealt.snapshot.seats[seat].red_three_replacements_owed:
            break
    else:
        pytest.fail("no spanish deal with replacements owed by the first seat")
    view = call(adj, "GetPlayerView", pb.GetPlayerViewRequest(snapshot=dealt.snapshot, seat=seat))
    for asked in (
        pb.ListLegalActionsRequest(snapshot=view.snapshot, seat=seat),
        pb.ListLegalActionsRequest(snapshot=view.snapshot),
    ):
        listed = call(adj, "ListLegalActions", asked)
        assert [a.WhichOneof("kind") for a in listed.actions] == ["draw_stock"]
        full = call(adj, "ListLegalActions", pb.ListLegalActionsRequest(snapshot=dealt.snapshot))
        assert listed.complete is (full.total_size == 1)
        assert listed.actions[0] == full.actions[0]
    check = pb.ValidateActionRequest(snapshot=view.snapshot, action=listed.actions[0])
    assert call(adj, "ValidateAction", check).legal


# -- smaller rough edges (item 6) -----------------------------------------------------------


def test_listed_additions_print_no_unspecified_end():
    """An addition's ``end`` is absent unless said (docs/api.md#json-rest-and-cli)."""
    from samba_adjudicator.service.codec import jsonio

    snap = make_snapshot(
        "classic", 4, hands={0: "7H 7D 5C 5D 9S"}, melds={0: ["7S 7C 7H"]}, has_melded=[0]
    )
    listed = call(
        Adjudicator(),
        "ListLegalActions",
        pb.ListLegalActionsRequest(snapshot=convert.snapshot_to_proto(snap)),
    )
    additions = [
        a for a in jsonio.to_dict(listed)["actions"] if "meld" in a and a["meld"]["additions"]
    ]
    assert additions
    assert all("end" not in add for a in additions for add in a["meld"]["additions"])


def test_service_md_not_their_turn_example_is_illegal():
    """docs/service.md validates a draw by the seat after the one to move: not their turn."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "service.md").read_text()
    line = next(x for x in text.splitlines() if "actions:validate" not in x and "drawStock" in x)
    seat_expr = re.search(r"seat: (\(\(\.snapshot\.turn\.seat \+ 1\) % 4\))", line)
    assert seat_expr, line  # the example computes the seat from the dealt snapshot
    adj = Adjudicator()
    dealt = call(adj, "Deal", pb.DealRequest(players=4, seed="my-secret-seed")).snapshot
    req = pb.ValidateActionRequest(snapshot=dealt)
    req.action.seat = (dealt.turn.seat + 1) % 4
    req.action.draw_stock.SetInParent()
    out = call(adj, "ValidateAction", req)
    assert not out.legal and [v.code for v in out.violations] == ["NOT_YOUR_TURN"]


def test_permission_answered_points_say_the_answer_as_documented():
    from pathlib import Path

    api = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()
    assert "`PERMISSION_ANSWERED` the answer: `1` allowed, `0`" in " ".join(api.split())
    snap = make_snapshot("classic", 4, hands={0: "4C 5C", 2: "7D"}, go_out=GoOut.ASKED)
    for allow, points in ((True, 1), (False, 0)):
        req = pb.ApplyActionRequest(snapshot=convert.snapshot_to_proto(snap))
        req.action.seat = 2
        req.action.answer_go_out.allow = allow
        (event,) = call(Adjudicator(), "ApplyAction", req).events
        assert (event.type, event.points) == (pb.Event.PERMISSION_ANSWERED, points)


def test_a_page_token_continues_with_another_page_size_as_documented():
    """docs/guide.md and docs/api.md: the token is bound to the snapshot and seat; the page
    size may change from page to page (AIP-158)."""
    from pathlib import Path

    guide = " ".join(
        (Path(__file__).resolve().parent.parent / "docs" / "guide.md").read_text().split()
    )
    assert "the page size may change from page to page" in guide
    adj = Adjudicator()
    snap = convert.snapshot_to_proto(
        make_snapshot("classic", 4, hands={0: "QH QS QD 7H 8H 9H 10H 5C 5D 2S 4C 6C KS AD"})
    )
    whole = call(adj, "ListLegalActions", pb.ListLegalActionsRequest(snapshot=snap, page_size=1000))
    first = call(adj, "ListLegalActions", pb.ListLegalActionsRequest(snapshot=snap, page_size=3))
    rest = call(
        adj,
        "ListLegalActions",
        pb.ListLegalActionsRequest(snapshot=snap, page_size=1000, page_token=first.next_page_token),
    )
    assert list(first.actions) + list(rest.actions) == list(whole.actions)


def test_a_carried_deal_is_counted_under_the_previous_deal_profile():
    from samba_adjudicator.service.pipeline.decoding import Request
    from samba_adjudicator.service.pipeline.runtime import _profile_of

    previous = finished("pagat", [0, 0])
    carried = pb.DealRequest(players=4, seed="s", previous=previous)
    assert _profile_of(Request("Deal", carried, [])) == "pagat"
    assert _profile_of(Request("Deal", pb.DealRequest(players=4, seed="s"), [])) == "classic"
