"""Numbers the service computes never wrap (docs/service.md#limits): the next deal's number,
the ply after an action and a match score plus a deal's score are int32 on the wire; a
request that would take one past 2**31 - 1 (or below -2**31) is INVALID_ARGUMENT at the
field that leads there, over REST and gRPC. Repeated ``Accept-Language`` lines (REST) and
``accept-language`` metadata values (gRPC) are one list (RFC 9110 §5.3)."""

from __future__ import annotations

import json
from dataclasses import replace

import grpc
import pytest
from builders import make_snapshot
from played_endings import KINGS7, NINES, QUEENS7, went_out
from service_fixtures import channel, dealt, grpc_call, http, rest_call, server, stub  # noqa: F401
from test_service_grpc import rich

from samba_adjudicator.engine import apply
from samba_adjudicator.engine.model import Discard, MeldCards, Phase, Snapshot
from samba_adjudicator.service.codec import convert, jsonio
from samba_adjudicator.service.pipeline.int_range import INT32_MAX, INT32_MIN

pytestmark = pytest.mark.servers


def _json(snap: Snapshot) -> dict:
    return jsonio.to_dict(convert.snapshot_to_proto(snap))


def _scored(snap: Snapshot, score: int) -> Snapshot:
    return replace(snap, sides=tuple(replace(s, match_score=score) for s in snap.sides))


def _went_out_leaving_cards() -> Snapshot:
    """Seat 0 goes out while seat 1 still holds cards: side 1's deal score is negative."""
    hand = NINES + " 5C"
    snap = make_snapshot(
        "classic",
        4,
        hands={0: hand, 1: "KH QH JH"},
        melds={0: [(KINGS7, 2), (QUEENS7, 2)]},
        has_melded=[2],
    )
    melded = apply(snap, MeldCards(0, new_melds=(tuple(NINES.split()),)))
    out = apply(melded.snapshot, Discard(0, "5C"))
    assert out.legal and out.snapshot.turn.phase is Phase.OVER, out.violations
    return out.snapshot


def _refused(http, stub, method: str, body: dict) -> list[tuple[str, str]]:
    """The (field, reason) problems of ``method``'s INVALID_ARGUMENT, the same on both
    transports."""
    r = rest_call(http, method, body)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    rest = [(p["field"], p["reason"]) for p in error["details"][1]["fieldViolations"]]
    with pytest.raises(grpc.RpcError) as e:
        grpc_call(stub, method, body, timeout=30)
    assert e.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    _, bad = rich(e.value)
    assert [(v.field, v.reason) for v in bad.field_violations] == rest
    return rest


def test_no_deal_follows_the_largest_deal_number(http, stub):
    last = _json(replace(went_out("classic"), deal_number=INT32_MAX))
    body = {"players": 4, "seed": "s", "previous": last}
    assert _refused(http, stub, "Deal", body) == [("previous.dealNumber", "OUT_OF_RANGE")]
    # one below is dealt, numbered INT32_MAX
    body["previous"] = _json(replace(went_out("classic"), deal_number=INT32_MAX - 1))
    r = rest_call(http, "Deal", body)
    assert r.status_code == 200, r.text
    assert r.json()["snapshot"]["dealNumber"] == INT32_MAX


def test_match_scores_that_would_leave_int32_are_refused_not_wrapped(http, stub):
    ended = _went_out_leaving_cards()
    low = _scored(ended, INT32_MIN + 1)
    body = {"players": 4, "seed": "s", "previous": _json(low)}
    # side 1's negative deal score would take it below INT32_MIN
    assert _refused(http, stub, "Deal", body) == [("previous.sides[1].matchScore", "OUT_OF_RANGE")]
    for provisional in (False, True):
        body = {"snapshot": _json(low), "provisional": provisional}
        assert _refused(http, stub, "ScoreDeal", body) == [
            ("snapshot.sides[1].matchScore", "OUT_OF_RANGE")
        ]
    high = {"snapshot": _json(_scored(ended, INT32_MAX - 1))}  # side 0 scored > 1 point
    assert _refused(http, stub, "ScoreDeal", high) == [
        ("snapshot.sides[0].matchScore", "OUT_OF_RANGE")
    ]
    # the same deal from zero answers its scores
    r = rest_call(http, "ScoreDeal", {"snapshot": _json(ended)})
    assert r.status_code == 200, r.text
    assert [s["dealTotal"] < 0 for s in r.json()["sides"]] == [False, True]


def test_the_action_that_ends_a_deal_is_refused_when_its_score_would_wrap(http, stub):
    hand = NINES + " 5C"
    snap = make_snapshot(
        "classic",
        4,
        hands={0: hand},
        melds={0: [(KINGS7, 2), (QUEENS7, 2)]},
        has_melded=[2],
    )
    melded = apply(snap, MeldCards(0, new_melds=(tuple(NINES.split()),))).snapshot
    discard = {"seat": 0, "discard": {"card": "5C"}}
    body = {"snapshot": _json(_scored(melded, INT32_MAX - 10)), "action": discard}
    assert _refused(http, stub, "ApplyAction", body) == [
        ("snapshot.sides[0].matchScore", "OUT_OF_RANGE")
    ]
    body = {"snapshot": body["snapshot"], "actions": [discard]}
    assert _refused(http, stub, "ReplayDeal", body) == [
        ("snapshot.sides[0].matchScore", "OUT_OF_RANGE")
    ]


def test_no_action_follows_the_largest_ply(http, stub, dealt):
    first = rest_call(http, "ListLegalActions", {"snapshot": dealt}).json()["actions"][0]
    at_max = {**dealt, "ply": INT32_MAX}
    for method, body in (
        ("ApplyAction", {"snapshot": at_max, "action": first}),
        ("ReplayDeal", {"snapshot": at_max, "actions": [first]}),
        ("ReplayDeal", {"snapshot": {**dealt, "ply": INT32_MAX - 1}, "actions": [first, first]}),
    ):
        if method == "ReplayDeal" and len(body["actions"]) == 2:
            second = rest_call(http, "ApplyAction", {"snapshot": dealt, "action": first}).json()
            follow = rest_call(http, "ListLegalActions", {"snapshot": second["snapshot"]})
            body["actions"] = [first, follow.json()["actions"][0]]
        assert _refused(http, stub, method, body) == [("snapshot.ply", "OUT_OF_RANGE")]
    # ValidateAction computes no ply: still answered
    r = rest_call(http, "ValidateAction", {"snapshot": at_max, "action": first})
    assert r.status_code == 200 and r.json()["legal"] is True
    below = rest_call(
        http, "ApplyAction", {"snapshot": {**dealt, "ply": INT32_MAX - 1}, "action": first}
    )
    assert below.status_code == 200 and below.json()["snapshot"]["ply"] == INT32_MAX


# -- Accept-Language: repeated lines are one list ----------------------------------------------


def test_repeated_accept_language_lines_are_one_list_over_rest(http):
    body = json.dumps({"players": 4, "seed": "x", "dealer": 9})
    for lines, lang in (
        ([("accept-language", "fr"), ("accept-language", "es")], "es"),
        ([("accept-language", "en;q=0.1"), ("accept-language", "it")], "it"),
        ([("accept-language", "sv;q=0.5"), ("accept-language", "de, es;q=0.9")], "es"),
    ):
        r = http.post("/v1/deals:deal", content=body, headers=lines)
        assert r.status_code == 400 and r.headers["content-language"] == lang, lines


def test_several_accept_language_values_are_one_list_over_grpc(stub):
    body = {"players": 4, "seed": "x", "dealer": 9}
    for values, lang in ((("fr", "sv"), "sv"), (("en;q=0.1", "it"), "it")):
        metadata = tuple(("accept-language", v) for v in values)
        with pytest.raises(grpc.RpcError) as e:
            grpc_call(stub, "Deal", body, metadata=metadata, timeout=30)
        assert ("content-language", lang) in tuple(e.value.trailing_metadata()), values
