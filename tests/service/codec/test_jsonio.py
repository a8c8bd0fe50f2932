"""service.codec.jsonio: proto3 JSON in (every problem, with paths) and out (every field)."""

from __future__ import annotations

import json

import pytest
from json_reference import decode_in_two_passes, parse_request

from samba_adjudicator.engine.model import InvalidInput
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec import jsonio, required


def problems(text, msg_type):
    with pytest.raises(InvalidInput) as e:
        parse_request(text if isinstance(text, str) else json.dumps(text), msg_type)
    return {(p.field, p.reason) for p in e.value.problems}


def test_unknown_fields_all_reported_with_paths():
    got = problems(
        {
            "snapshot": {
                "seats": [{"hand": []}, {"handcards": ["QH"]}],
                "turn": {"seat": 0, "phase": "DRAW", "bogus": 1},
                "ruleset": {"profile": "classic"},
            },
            "action": {"seat": 0, "takePile": {"handcards": ["QS"]}},
            "extra": True,
        },
        pb.ValidateActionRequest,
    )
    assert {
        ("snapshot.seats[1].handcards", "UNKNOWN_FIELD"),
        ("snapshot.turn.bogus", "UNKNOWN_FIELD"),
        ("action.takePile.handcards", "UNKNOWN_FIELD"),
        ("extra", "UNKNOWN_FIELD"),
    } <= got


def test_snake_case_and_camel_case_accepted():
    a = parse_request(
        '{"seat": 1, "take_pile": {"hand_cards": ["QS", "qd"], "meld_id": ""}, "expected_ply": 3}',
        pb.Action,
    )
    b = parse_request(
        '{"seat": 1, "takePile": {"handCards": ["QS", "qd"]}, "expectedPly": 3}', pb.Action
    )
    assert a == b
    assert list(a.take_pile.hand_cards) == ["QS", "qd"]  # cards are parsed by convert
    assert a.HasField("expected_ply") and a.expected_ply == 3


def test_missing_required_fields():
    got = problems(
        {
            "snapshot": {
                "ruleset": {},
                "seats": [{}],
                "sides": [{}],
                "turn": {"phase": "PHASE_UNSPECIFIED"},
            }
        },
        pb.ValidateActionRequest,
    )
    assert ("action", "REQUIRED") in got
    assert ("snapshot.turn.seat", "REQUIRED") in got
    assert ("snapshot.turn.phase", "REQUIRED") in got
    got = problems({"seat": 0}, pb.Action)
    assert got == {("", "REQUIRED")}  # the oneof `kind`
    # ApplyAction's action (or computer) and Deal's players (or previous) are checked by their
    # handlers, which know the alternative: the schema marks neither REQUIRED
    assert problems({}, pb.DealRequest) == {("seed", "REQUIRED")}


def test_required_check_works_on_binary_messages():
    req = pb.ReplayDealRequest(actions=[pb.Action(discard=pb.Discard(card="5C"))])
    got = {(p.field, p.reason) for p in required.missing_required(req)}
    assert got == {("snapshot", "REQUIRED"), ("actions[0].seat", "REQUIRED")}


def test_bad_enum_and_type_errors_all_reported():
    got = problems(
        {
            "snapshot": {
                "turn": {"seat": "x", "phase": "DRAWW", "goOut": 7},
                "ply": 1.5,
                "dealer": True,
                "stock": "QH",
                "seats": [{"hand": ["QH", 3]}],
            }
        },
        pb.ScoreDealRequest,
    )
    assert {
        ("snapshot.turn.seat", "OUT_OF_RANGE"),
        ("snapshot.turn.phase", "OUT_OF_RANGE"),
        ("snapshot.turn.goOut", "OUT_OF_RANGE"),
        ("snapshot.ply", "OUT_OF_RANGE"),
        ("snapshot.dealer", "OUT_OF_RANGE"),
        ("snapshot.stock", "OUT_OF_RANGE"),
        ("snapshot.seats[0].hand[1]", "OUT_OF_RANGE"),
    } <= got
    # a field with a bad value is not also reported as missing
    assert ("snapshot.turn.seat", "REQUIRED") not in got
    assert ("snapshot.turn.phase", "REQUIRED") not in got


def test_int32_range_and_int_strings():
    assert parse_request('{"players": "4", "seed": "s"}', pb.DealRequest).players == 4
    assert problems('{"players": 4294967296, "seed": "s"}', pb.DealRequest) == {
        ("players", "OUT_OF_RANGE")
    }


def test_two_oneof_members_and_duplicates():
    got = problems({"seat": 0, "discard": {"card": "5C"}, "askGoOut": {}}, pb.Action)
    assert ("askGoOut", "OUT_OF_RANGE") in got
    got = problems({"seat": 0, "expectedPly": 1, "expected_ply": 2, "askGoOut": {}}, pb.Action)
    assert ("expectedPly", "OUT_OF_RANGE") in got


@pytest.mark.parametrize("text", ["", "{", "nope", "[1, 2]", "42", '{"a": NaN}', b"\xff\xfe"])
def test_garbage_json(text):
    with pytest.raises(InvalidInput) as e:
        parse_request(text, pb.DealRequest)
    assert [(p.field, p.reason) for p in e.value.problems] == [("", "MALFORMED_JSON")]


def test_null_means_unset():
    msg = parse_request(
        '{"players": 4, "seed": "s", "ruleset": null, "dealer": null}', pb.DealRequest
    )
    assert not msg.HasField("ruleset") and msg.dealer == 0


def test_output_prints_defaults_and_omits_unset_optionals():
    resp = pb.ScoreDealResponse(sides=[pb.SideScore(side=0)])
    d = jsonio.to_dict(resp)
    assert d["matchOver"] is False and d["draw"] is False and "winnerSide" not in d
    assert d["sides"][0]["dealTotal"] == 0 and d["sides"][0]["side"] == 0
    resp.winner_side = 0
    assert jsonio.to_dict(resp)["winnerSide"] == 0
    view = jsonio.to_dict(pb.GetPlayerViewResponse(snapshot=pb.Snapshot()))
    assert "viewerSeat" not in view and "result" not in view["snapshot"]
    assert view["snapshot"]["seats"] == [] and view["snapshot"]["stockCount"] == 0
    action = jsonio.to_dict(pb.Action(seat=2, ask_go_out=pb.AskGoOut()))
    assert action == {"seat": 2, "askGoOut": {}}
    turn = jsonio.to_dict(pb.Turn(seat=0, phase=pb.Turn.DRAW))
    assert turn["seat"] == 0 and turn["phase"] == "DRAW" and turn["awaitingSeats"] == []


def test_output_keys_in_schema_order():
    d = jsonio.to_dict(pb.InitialMeldBand(from_score=0, points=50))
    assert list(d) == ["fromScore", "points"]
    assert jsonio.dumps(d) == '{"fromScore":0,"points":50}'


def test_the_walk_fills_what_json_format_parse_dict_builds():
    """jsonio fills messages itself as it walks; the result must equal what
    json_format.ParseDict builds from the same JSON, for every field shape in use
    (nested and repeated messages, enums by name and number, optional scalars, oneofs,
    maps, empty messages)."""
    from google.protobuf import json_format

    from samba_adjudicator.engine import apply, deal, legal_actions, resolve
    from samba_adjudicator.service.base import pb
    from samba_adjudicator.service.codec import convert
    from samba_adjudicator.service.codec.actions import action_to_proto

    s = deal(resolve("spanish"), 6, "fill-test")
    actions, _ = legal_actions(s)
    s2 = apply(s, actions[0]).snapshot
    requests = [
        pb.ApplyActionRequest(snapshot=convert.snapshot_to_proto(s2), action=action_to_proto(a))
        for a in legal_actions(s2)[0][:20]
    ]
    requests.append(
        pb.ValidateActionRequest(
            snapshot=convert.snapshot_to_proto(s),
            action=pb.Action(seat=0, ask_go_out=pb.AskGoOut(), expected_ply=0),
        )
    )
    requests.append(
        pb.DealRequest(
            ruleset=pb.RulesetRef(
                profile="classic+open",
                overrides=pb.RulesetOverrides(
                    group_wild_rule=pb.Ruleset.TWICE_NATURALS,
                    target_score=5000,
                    runs_allowed=False,
                    initial_meld=[pb.InitialMeldBand(from_score=-5, points=15)],
                ),
            ),
            players=4,
            seed="x",
            match_scores=[10, -20],
        )
    )
    requests.append(
        pb.ApplyActionResponse(
            violations=[
                pb.Violation(
                    code="HAND_FLOOR", details={"left": "1", "x": "y"}, penalty_points=-100
                )
            ]
        )
    )
    for req in requests:
        data = jsonio.to_dict(req)
        ours, problems = jsonio.decode_dict(data, type(req))
        assert list(problems) == []
        theirs = json_format.ParseDict(data, type(req)())
        assert ours == theirs == req
        assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
            deterministic=True
        )
    # enums given by number take the same path
    data = {"profile": "classic", "overrides": {"groupWildRule": 2}}
    ours, problems = jsonio.decode_dict(data, pb.RulesetRef)
    assert list(problems) == []
    assert ours == json_format.ParseDict(data, pb.RulesetRef())


def test_a_bad_item_in_a_list_of_strings_is_reported_at_its_index():
    with pytest.raises(InvalidInput) as e:
        parse_request(
            '{"players": 4, "seed": "s", "cards": ["QH", 5, "QS", null]}', pb.CheckMeldRequest
        )
    got = {(p.field, p.reason, p.description) for p in e.value.problems}
    assert ("cards[1]", "OUT_OF_RANGE", "cards[1] must be a string") in got
    assert ("cards[3]", "OUT_OF_RANGE", "cards[3] must not be null") in got


def test_a_field_given_twice_and_two_alternatives_are_refused():
    got = problems(
        '{"seat": 1, "expectedPly": 2, "expected_ply": 3, "discard": {"card": "QH"},'
        ' "drawStock": {}}',
        pb.Action,
    )
    assert ("expected_ply", "OUT_OF_RANGE") in got or ("expectedPly", "OUT_OF_RANGE") in got
    assert ("drawStock", "OUT_OF_RANGE") in got
    with pytest.raises(InvalidInput) as e:
        parse_request(
            '{"seat": 1, "expectedPly": 2, "expected_ply": 3, "discard": {"card": "QH"}}', pb.Action
        )
    assert [p.description for p in e.value.problems] == [
        "expectedPly given twice (as 'expectedPly' and 'expected_ply')"
    ]
    with pytest.raises(InvalidInput) as e:
        parse_request('{"seat": 1, "discard": {"card": "QH"}, "drawStock": {}}', pb.Action)
    assert [p.description for p in e.value.problems] == [
        "discard and drawStock are alternatives; give only one"
    ]


def _mutations(node, path=()):
    """(path, replacement) for every position of a JSON tree and a handful of odd values."""
    odd = (
        None,
        "x",
        "NaN",
        1.5,
        7.0,
        -1,
        2**40,
        "12",
        True,
        [],
        {},
        ["AS", 3, None],
        [{}, None, 5],
        {"bogus": 1},
    )
    for value in odd:
        yield path, value
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _mutations(v, path + (k,))
        yield path + ("bogusField",), 1
    elif isinstance(node, list):
        for i, v in enumerate(node[:2]):
            yield from _mutations(v, path + (i,))


def _replaced(node, path, value):
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(node, dict):
        out = dict(node)
        out[head] = _replaced(node.get(head), rest, value)
        return out
    out = list(node)
    out[head] = _replaced(node[head], rest, value)
    return out


def test_the_single_pass_decodes_as_the_walk_then_the_fill():
    """``decode_dict`` walks the JSON and fills the message in one pass; on every field of
    real requests, well-formed or given an odd value, it builds the same message and the
    same problems (paths, reasons, texts, order) as the two-pass reference
    (tests/json_reference.py)."""
    from samba_adjudicator.engine import deal, legal_actions, resolve
    from samba_adjudicator.service.base import pb
    from samba_adjudicator.service.codec import convert
    from samba_adjudicator.service.codec.actions import action_to_proto

    s = deal(resolve("classic"), 4, "single-pass")
    action = legal_actions(s)[0][0]
    requests = [
        pb.ValidateActionRequest(
            snapshot=convert.snapshot_to_proto(s), action=action_to_proto(action)
        ),
        pb.DealRequest(
            ruleset=pb.RulesetRef(
                profile="classic",
                overrides=pb.RulesetOverrides(
                    target_score=5000, initial_meld=[pb.InitialMeldBand(from_score=-5, points=15)]
                ),
            ),
            players=4,
            seed="x",
            match_scores=[10, -20],
        ),
        pb.ApplyActionResponse(violations=[pb.Violation(code="X", details={"a": "1"})]),
    ]
    checked = 0
    for req in requests:
        data = jsonio.to_dict(req)
        variants = [data, {**data, "unknownAtTheTop": 1}]
        if isinstance(req, pb.ValidateActionRequest):
            variants.append(
                {**data, "action": {"seat": 0, "discard": {"card": "AS"}, "askGoOut": {}}}
            )
            variants.append({**data, "action": {"seat": 0, "expected_ply": 1, "expectedPly": 2}})
        variants += [_replaced(data, path, value) for path, value in _mutations(data) if path]
        for variant in variants:
            one, one_problems = jsonio.decode_dict(variant, type(req))
            two, two_problems = decode_in_two_passes(variant, type(req))
            assert one.SerializeToString(deterministic=True) == two.SerializeToString(
                deterministic=True
            ), variant
            assert [(p.field, p.reason, p.description) for p in one_problems] == [
                (p.field, p.reason, p.description) for p in two_problems
            ]
            assert getattr(one_problems, "omitted", 0) == getattr(two_problems, "omitted", 0)
            checked += 1
    assert checked > 1000


def test_text_the_message_refuses_is_reported_at_its_path():
    """An unpaired surrogate is valid JSON but not UTF-8: protobuf refuses it when set. The
    walk reports it where it is (a field, an item of a card list, a map value) and keeps the
    rest, like any other problem (it used to be one pathless problem from json_format)."""
    text = (
        '{"meldId": "\\ud800", "seat": 3, "cards": ["QH", "\\udc00", "QS"],'
        ' "ruleset": {"profile": "x\\ud800"}}'
    )
    msg, found = jsonio.decode(text, pb.CheckMeldRequest)
    assert [(p.field, p.reason) for p in found] == [
        ("meldId", "OUT_OF_RANGE"),
        ("cards[1]", "OUT_OF_RANGE"),
        ("ruleset.profile", "OUT_OF_RANGE"),
    ]
    assert "surrogates not allowed" in found[0].description
    assert (msg.seat, list(msg.cards)) == (3, ["QH", "QS"])
    details = '{"violations": [{"code": "X", "details": {"a": "1", "b": "\\ud800"}}]}'
    msg, found = jsonio.decode(details, pb.ApplyActionResponse)
    assert [p.field for p in found] == ["violations[0].details.b"]
    assert dict(msg.violations[0].details) == {"a": "1"}


def test_an_enum_number_beyond_32_bits_is_not_a_value():
    got = problems({"seat": 0, "phase": 2**40}, pb.Turn)
    assert ("phase", "OUT_OF_RANGE") in got
    msg, found = jsonio.decode_dict({"seat": 0, "phase": 2}, pb.Turn)
    assert msg.phase == 2 and list(found) == []


def test_floats_and_bytes_read_as_proto3_json_says():
    """No request has a float or bytes field today; the walk reads them right should one
    come (checked on protobuf's wrapper messages, whose field is named ``value``)."""
    from google.protobuf import wrappers_pb2

    def read(message_type, value):
        msg, found = jsonio.decode_dict({"value": value}, message_type)
        return msg.value, [(p.field, p.description) for p in found]

    nan, found = read(wrappers_pb2.DoubleValue, "NaN")
    assert nan != nan and found == []
    assert read(wrappers_pb2.DoubleValue, "-Infinity") == (float("-inf"), [])
    assert read(wrappers_pb2.DoubleValue, 1e300) == (1e300, [])
    assert read(wrappers_pb2.FloatValue, 1e39) == (
        0.0,
        [("value", "value is out of the range of a 32-bit float")],
    )
    assert read(wrappers_pb2.BytesValue, "aGk=") == (b"hi", [])
    assert read(wrappers_pb2.BytesValue, "_-8") == (b"\xff\xef", [])  # URL-safe, unpadded
    assert read(wrappers_pb2.BytesValue, "not base64!") == (
        b"",
        [("value", "value must be a base64 string")],
    )
