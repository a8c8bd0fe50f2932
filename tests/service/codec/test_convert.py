"""service.codec.convert: cards, rulesets, snapshots and actions between protobuf and the engine."""

from __future__ import annotations

from dataclasses import replace

import pytest
from builders import load_snapshot, make_snapshot
from json_reference import parse_request

from samba_adjudicator.engine import model as m
from samba_adjudicator.engine import ruleset as er
from samba_adjudicator.engine.model import InvalidInput
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec import actions, answers, convert, jsonio, paths, rulesets


def reasons(problems):
    return {(p.field, p.reason) for p in problems}


# -- cards --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,code",
    [
        ("TH", "10H"),
        ("th", "10H"),
        ("10h", "10H"),
        ("qs", "QS"),
        ("jk", "JK"),
        ("JK", "JK"),
        ("2c", "2C"),
    ],
)
def test_card_parsing_canonical(text, code):
    problems = []
    assert paths.card(text, "x", problems) == code and not problems


def test_bad_card_codes_reported_at_exact_paths():
    problems = []
    out = paths.cards(["QH", "1H", "ZZ", "tc", ""], "cards", problems)
    assert out == ("QH", "10C")
    assert [(p.field, p.reason) for p in problems] == [
        ("cards[1]", "UNKNOWN_CARD_CODE"),
        ("cards[2]", "UNKNOWN_CARD_CODE"),
        ("cards[4]", "UNKNOWN_CARD_CODE"),
    ]


def test_snapshot_bad_cards_paths():
    snap = convert.snapshot_to_proto(
        make_snapshot("classic", 4, hands={0: "QH KH 5C 7D"}, discard="9C")
    )
    snap.seats[0].hand[3] = "XX"
    snap.sides[1].red_threes.append("3Q")
    snap.discard_pile.append("11H")
    snap.stock[0] = "q"
    problems = []
    convert.snapshot_from_proto(snap, "snapshot", problems)
    assert reasons(problems) == {
        ("snapshot.seats[0].hand[3]", "UNKNOWN_CARD_CODE"),
        ("snapshot.sides[1].redThrees[0]", "UNKNOWN_CARD_CODE"),
        ("snapshot.discardPile[1]", "UNKNOWN_CARD_CODE"),
        ("snapshot.stock[0]", "UNKNOWN_CARD_CODE"),
    }
    with pytest.raises(InvalidInput):
        load_snapshot(snap)


def test_action_bad_cards_paths():
    action = parse_request(
        '{"seat": 1, "takePile": {"handCards": ["QS", "Q"], "newMelds": [{"cards": ["7h", '
        '"8h", "9x"]}], "additions": [{"meldId": "m1", "cards": ["1S"]}]}}',
        pb.Action,
    )
    problems = []
    out = actions.action_from_proto(action, "action", problems)
    assert reasons(problems) == {
        ("action.takePile.handCards[1]", "UNKNOWN_CARD_CODE"),
        ("action.takePile.newMelds[0].cards[2]", "UNKNOWN_CARD_CODE"),
        ("action.takePile.additions[0].cards[0]", "UNKNOWN_CARD_CODE"),
    }
    assert out.hand_cards == ("QS",)


def test_action_unknown_seat_and_meld_id():
    action = pb.Action(seat=4, take_top_card=pb.TakeTopCard(meld_id="m9"))
    problems = []
    actions.action_from_proto(action, "action", problems, players=4, known_meld_ids={"m1"})
    assert reasons(problems) == {
        ("action.seat", "OUT_OF_RANGE"),
        ("action.takeTopCard.meldId", "UNKNOWN_MELD_ID"),
    }


# -- actions round trip -------------------------------------------------------------------

ACTIONS = [
    m.DrawStock(1),
    m.DrawStock(1, ("KH", "3D", "5C"), expected_ply=0),
    m.TakePile(2, hand_cards=("QS", "QD")),
    m.TakePile(
        2,
        meld_id="m4",
        new_melds=(("7H", "8H", "9H"),),
        additions=(m.Addition("m1", ("KS",)),),
        expected_ply=7,
    ),
    m.TakeTopCard(0, "m3"),
    m.MeldCards(
        3, new_melds=(("5C", "5D", "2S"),), additions=(m.Addition("m2", ("JK",), m.RunEnd.LOW),)
    ),
    m.SwapWild(0, "m2", "QH", "JK"),
    m.Discard(1, "5C"),
    m.AskGoOut(2),
    m.AnswerGoOut(0, True),
    m.AnswerGoOut(0, False),
]


@pytest.mark.parametrize("action", ACTIONS, ids=lambda a: type(a).__name__)
def test_action_round_trip(action):
    msg = actions.action_to_proto(action)
    again = parse_request(jsonio.dumps(jsonio.to_dict(msg)), pb.Action)
    problems = []
    assert actions.action_from_proto(again, "action", problems) == action
    assert not problems


def test_action_json_shape():
    d = jsonio.to_dict(actions.action_to_proto(m.TakePile(1, hand_cards=("QS", "QD"))))
    assert d == {
        "seat": 1,
        "takePile": {"handCards": ["QS", "QD"], "meldId": "", "newMelds": [], "additions": []},
    }


# -- rulesets -----------------------------------------------------------------------------


def test_ruleset_round_trip_all_profiles():
    for rules in er.profile_rulesets():
        msg = rulesets.ruleset_to_proto(rules)
        assert msg.profile == rules.profile and msg.version == rules.version
        assert msg.description
        over = pb.RulesetOverrides()
        for f in pb.Ruleset.DESCRIPTOR.fields:
            if f.name in over.DESCRIPTOR.fields_by_name:
                if f.is_repeated:
                    getattr(over, f.name).extend(getattr(msg, f.name))
                else:
                    setattr(over, f.name, getattr(msg, f.name))
        problems = []
        got, _ = rulesets.ruleset_ref_from_proto(
            pb.RulesetRef(profile=rules.profile, overrides=over), "ruleset", problems
        )
        assert not problems and got == rules and got.version == rules.version


def test_overrides_typed_and_table_scalars():
    ref = parse_request(
        '{"profile": "pagat", "overrides": {"groupWildRule": "MIN_TWO_NATURALS", '
        '"handSize": 11, "go_out_bonus": 0, "initialMeld": [{"fromScore": 0, "points": 60}]}}',
        pb.RulesetRef,
    )
    problems = []
    rules, eref = rulesets.ruleset_ref_from_proto(ref, "ruleset", problems)
    assert not problems
    assert rules.group_wild_rule is er.WildRule.MIN_TWO_NATURALS
    assert all(t.hand_size == 11 for t in rules.table_sizes)
    assert rules.go_out_bonus == 0
    assert rules.initial_meld == (er.InitialMeldBand(0, 60),)
    assert eref.overrides["hand_size"] == 11
    back = jsonio.to_dict(rulesets.ruleset_ref_to_proto(eref))
    assert back["overrides"]["goOutBonus"] == 0 and "decks" not in back["overrides"]


def test_ruleset_problems_camel_paths():
    ref = pb.RulesetRef(
        profile="classic+nope",
        overrides=pb.RulesetOverrides(
            table_sizes=[pb.TableSize(players=9, hand_size=15, draw_count=2)],
            group_wild_rule=pb.Ruleset.WILD_RULE_UNSPECIFIED,
        ),
    )
    problems = []
    rules, _ = rulesets.ruleset_ref_from_proto(ref, "snapshot.ruleset", problems)
    assert rules is None
    assert ("snapshot.ruleset.overrides.groupWildRule", "OUT_OF_RANGE") in reasons(problems)
    ref.overrides.ClearField("group_wild_rule")
    problems = []
    rulesets.ruleset_ref_from_proto(ref, "snapshot.ruleset", problems)
    assert ("snapshot.ruleset.profile", "UNKNOWN_VARIATION") in reasons(problems)
    ref.profile = "classic"
    problems = []
    rulesets.ruleset_ref_from_proto(ref, "snapshot.ruleset", problems)
    assert ("snapshot.ruleset.overrides.tableSizes[0].players", "OUT_OF_RANGE") in reasons(problems)


# -- snapshots ----------------------------------------------------------------------------

SNAPSHOTS = {
    "fresh": lambda: make_snapshot(
        "classic", 4, hands={0: "QH KH 5C", 1: "7D 7S"}, discard="9C", phase=m.Phase.DRAW
    ),
    "melds": lambda: make_snapshot(
        "pagat",
        4,
        hands={0: "JK 7H"},
        melds={0: ["8S 9S 10S JS QS KS AS", "KH KS KD"], 1: ["5C 5D 2S"]},
        red_threes={0: ["3H"]},
        discard="5C 2H 4D",
        turn_seat=0,
        took_pile=True,
    ),
    "over": lambda: make_snapshot(
        "classic",
        2,
        hands={1: "4C"},
        melds={0: ["KH KS KD KC KH KS KD"]},
        discard="9C",
        phase=m.Phase.OVER,
        result=m.Result(m.EndReason.WENT_OUT, seat=0, concealed=True),
    ),
    "hidden": lambda: make_snapshot(
        "spanish",
        3,
        hands={0: "QH"},
        hand_counts={1: 5, 2: 7},
        penalties={1: [("OUT_OF_TURN_DRAW", -100)]},
        go_out=m.GoOut.NOT_ASKED,
        owed={1: 1},
    ),
    "asked": lambda: make_snapshot(
        "classic", 4, hands={0: "QH KH", 2: "5C"}, go_out=m.GoOut.ASKED, melds={0: ["7H 8H 9H"]}
    ),
}


@pytest.mark.parametrize("name", sorted(SNAPSHOTS))
def test_snapshot_round_trip(name):
    snap = SNAPSHOTS[name]()
    msg = convert.snapshot_to_proto(snap)
    text = jsonio.dumps(jsonio.to_dict(msg))
    again_msg = parse_request(text, pb.Snapshot)
    assert again_msg == msg
    again = load_snapshot(again_msg)
    assert again == snap
    assert again.ruleset_ref.profile == snap.ruleset_ref.profile
    assert convert.snapshot_to_proto(again) == msg


def test_snapshot_output_fills_output_only_fields():
    d = jsonio.to_dict(convert.snapshot_to_proto(SNAPSHOTS["melds"]()))
    side0 = d["sides"][0]
    assert side0["opened"] is True and side0["initialMeldRequirement"] == 50
    assert side0["melds"][0] == {
        "id": "m1",
        "cards": ["8S", "9S", "10S", "JS", "QS", "KS", "AS"],
        "laidBy": 0,
        "kind": "RUN",
        "status": "SAMBA",
        "natural": True,
    }
    assert side0["melds"][1]["kind"] == "GROUP" and side0["melds"][1]["status"] == "INCOMPLETE"
    assert d["sides"][1]["melds"][0]["natural"] is False
    assert d["pile"]["top"] == "4D" and d["pile"]["count"] == 3
    assert d["turn"]["awaitingSeats"] == [0] and "result" not in d
    assert d["stockHidden"] is False and d["seats"][1]["handHidden"] is False
    hidden = jsonio.to_dict(convert.snapshot_to_proto(SNAPSHOTS["hidden"]()))
    assert hidden["seats"][1]["handHidden"] is True and hidden["seats"][1]["handCount"] == 5
    over = jsonio.to_dict(convert.snapshot_to_proto(SNAPSHOTS["over"]()))
    assert over["result"] == {"reason": "WENT_OUT", "seat": 0, "concealed": True}
    assert over["turn"]["awaitingSeats"] == []
    asked = jsonio.to_dict(convert.snapshot_to_proto(SNAPSHOTS["asked"]()))
    assert asked["turn"]["awaitingSeats"] == [2]


def test_output_only_fields_may_be_omitted_and_cards_lowercase():
    msg = convert.snapshot_to_proto(SNAPSHOTS["melds"]())
    for side in msg.sides:
        side.ClearField("opened")
        side.ClearField("initial_meld_requirement")
        for meld in side.melds:
            meld.ClearField("kind")
            meld.ClearField("status")
            meld.ClearField("natural")
            meld.cards[:] = [c.lower().replace("10", "t") for c in meld.cards]
    msg.ClearField("pile")
    msg.turn.ClearField("awaiting_seats")
    for seat in msg.seats:
        seat.ClearField("hand_count")
    msg.ClearField("stock_count")
    assert load_snapshot(msg) == SNAPSHOTS["melds"]()


def test_output_only_fields_must_agree():
    msg = convert.snapshot_to_proto(SNAPSHOTS["melds"]())
    msg.sides[1].opened = False  # false cannot be told from omitted: accepted
    msg.sides[0].initial_meld_requirement = 90
    msg.sides[0].melds[1].status = pb.Meld.CANASTA
    msg.sides[1].melds[0].natural = True
    msg.pile.top = "9C"
    msg.pile.frozen_for_sides[:] = [1]
    msg.turn.awaiting_seats[:] = [3]
    msg.seats[0].hand_hidden = True  # its cards are listed: it is not hidden
    with pytest.raises(InvalidInput) as e:
        load_snapshot(msg)
    got = reasons(e.value.problems)
    assert got == {
        (f, "DERIVED_FIELD_DISAGREES")
        for f in (
            "snapshot.sides[0].initialMeldRequirement",
            "snapshot.sides[0].melds[1].status",
            "snapshot.sides[1].melds[0].natural",
            "snapshot.pile.top",
            "snapshot.pile.frozenForSides",
            "snapshot.turn.awaitingSeats",
            "snapshot.seats[0].handHidden",
        )
    }


def test_hand_hidden_on_a_seat_of_no_card_is_the_views_redaction():
    """``handHidden`` on a seat that lists no card and counts none is what a view says of a
    seat that went out (its ``dealt`` hidden too): loaded as hidden, and written back so."""
    msg = convert.snapshot_to_proto(SNAPSHOTS["melds"]())
    assert not msg.seats[2].hand and not msg.seats[2].hand_count
    msg.seats[2].hand_hidden = True
    snap = load_snapshot(msg)
    assert snap.seats[2].hand_hidden and snap.is_view
    assert convert.snapshot_to_proto(snap).seats[2].hand_hidden


def test_engine_consistency_problems_prefixed():
    msg = convert.snapshot_to_proto(SNAPSHOTS["fresh"]())
    msg.seats[1].seat = 3
    msg.seats[0].hand_count = 99
    msg.turn.seat = 7
    with pytest.raises(InvalidInput) as e:
        load_snapshot(msg)
    fields = {p.field for p in e.value.problems}
    assert {"snapshot.seats[1].seat", "snapshot.seats[0].handCount", "snapshot.turn.seat"} <= fields


def test_json_path():
    assert (
        paths.json_path("ruleset.overrides.table_sizes[0].hand_size")
        == "ruleset.overrides.tableSizes[0].handSize"
    )
    assert paths.json_path("snapshot.seats[0].hand[3]") == "snapshot.seats[0].hand[3]"
    assert paths.json_path("") == ""


def test_violation_event_score_to_proto():
    rule = "docs/rules.md#initial-meld"
    v = answers.violation_to_proto(
        m.Violation(
            "INITIAL_MELD_TOO_LOW",
            "too low",
            rule,
            "action.meld.new_melds[0]",
            {"required": "90", "actual": "70"},
        )
    )
    d = jsonio.to_dict(v)
    assert d == {
        "code": "INITIAL_MELD_TOO_LOW",
        "message": "too low",
        "rule": rule,
        "field": "action.meld.newMelds[0]",
        "details": {"required": "90", "actual": "70"},
        "penaltyPoints": 0,
    }
    e = jsonio.to_dict(answers.event_to_proto(m.Event("MELD_CREATED", 1, 1, "m3", ("7H",), 5)))
    assert e == {
        "type": "MELD_CREATED",
        "seat": 1,
        "side": 1,
        "meldId": "m3",
        "cards": ["7H"],
        "points": 5,
        "cardCount": 1,
    }
    report = m.ScoreReport(
        (m.SideScore(0, deal_total=10), m.SideScore(1)), False, None, False, True
    )
    s = jsonio.to_dict(answers.score_to_proto(report))
    assert "winnerSide" not in s and s["provisional"] is True and len(s["sides"]) == 2
    report = replace(report, match_over=True, winner_side=0)
    assert jsonio.to_dict(answers.score_to_proto(report))["winnerSide"] == 0
