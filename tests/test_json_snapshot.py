"""The JSON snapshot reader straight to engine values (service.codec.json_snapshot), held to
the ordinary way (JSON -> protobuf message -> engine values, with the required-field walk):
whatever it accepts it reads exactly as that way does, with no problem that way would
report; the service's own rendering it always accepts; and the service answers the same
whichever reader took a request (SnapshotLoader.read_json).

The rules held: docs/service.md, "A position sent again is not parsed again" (which form is
read straight, what is checked there); docs/api.md#cards (output-only fields must agree);
docs/api.md#trust (a signed snapshot is checked by its MAC); docs/api.md#field-violation-reasons
(refusals are the ordinary way's, field by field)."""

from __future__ import annotations

import copy
import json

import pytest
from google.protobuf import json_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from played_endings import asked_and_passed, played, went_out

from samba_adjudicator.engine import legal_actions
from samba_adjudicator.engine.ruleset import PROFILES, resolve
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.errors import ApiError
from samba_adjudicator.service.base.signing import Signer
from samba_adjudicator.service.codec import convert, derived_fields, json_snapshot, jsonio, required
from samba_adjudicator.service.codec.actions import action_to_proto
from samba_adjudicator.service.pipeline.api import Adjudicator
from samba_adjudicator.service.pipeline.decoding import decode_json
from samba_adjudicator.service.pipeline.loading import SNAPSHOT, json_cache_key
from samba_adjudicator.service.pipeline.runtime import Runtime

SIGNER = Signer((("k1", b"0123456789abcdef0123456789abcdef"),))


def _positions() -> list:
    out = []
    for profile in PROFILES:
        for players in resolve(profile).players_allowed:
            out.extend(played(profile, players, "json-reader", 90))
    out += [went_out("classic"), went_out("spanish", with_partner=True), asked_and_passed()]
    return out


POSITIONS = _positions()


def _renderings(snap) -> list[dict]:
    """The two forms the service's JSON takes: its answers (every field written) and
    proto3 JSON's default (defaults left out)."""
    msg = convert.snapshot_to_proto(snap)
    return [
        json.loads(json.dumps(jsonio.to_dict(msg))),
        json_format.MessageToDict(msg),
    ]


def ordinary(obj) -> tuple:
    """(engine snapshot or None, output-only fields given, every problem) the ordinary way."""
    msg, problems = jsonio.decode_dict(obj, pb.Snapshot)
    problems = list(required.with_required(msg, problems))
    snap = convert.snapshot_from_proto(msg, SNAPSHOT, problems)
    return snap, derived_fields.given_in(msg), problems


def test_the_services_own_renderings_are_read_as_the_ordinary_way_reads_them():
    assert len(POSITIONS) > 60
    for snap in POSITIONS:
        for obj in _renderings(snap):
            fast = json_snapshot.read(obj)
            assert fast is not None, obj
            expected, given, problems = ordinary(obj)
            assert problems == []
            assert fast == (expected, given)


def test_a_players_view_and_a_signed_snapshot_are_read_too():
    snap = POSITIONS[40]
    runtime = Runtime(None, Adjudicator(signer=SIGNER), count_calls=False)
    signed = runtime.adjudicator.snapshots.render(snap)
    view = runtime.call("GetPlayerView", pb.GetPlayerViewRequest(snapshot=signed, seat=1)).snapshot
    for msg in (signed, view):
        obj = jsonio.to_dict(msg)
        fast = json_snapshot.read(obj)
        expected, given, problems = ordinary(obj)
        assert problems == [] and fast == (expected, given)
        assert fast[0].signature == msg.signature != ""
    assert any(seat.hand_hidden for seat in json_snapshot.read(jsonio.to_dict(view))[0].seats)


#: Values a mutation puts somewhere: each wrong for some field and right for another.
ODD_VALUES = [
    None,
    0,
    1,
    -1,
    2**31,
    -(2**31) - 1,
    1.0,
    "1",
    "",
    "x",
    True,
    False,
    [],
    {},
    ["AS"],
    ["TS"],
    ["as"],
    [1],
    [None],
    ["AS", ["AS"]],
    {"AS": 1},
    "GROUP",
    "RUN",
    "KIND_UNSPECIFIED",
    "STATUS_UNSPECIFIED",
    "PHASE_UNSPECIFIED",
    "GO_OUT_UNSPECIFIED",
    "REASON_UNSPECIFIED",
    "WENT_OUT",
    "DRAW",
    "CANASTA",
    "ASKED",
    "10D",
    "AS",
    "JK",
    "classic",
    "pagat",
    "nosuchprofile",
]


def _containers(obj, path=()):
    yield path, obj
    items = obj.items() if isinstance(obj, dict) else enumerate(obj)
    for k, v in items:
        if isinstance(v, (dict, list)):
            yield from _containers(v, (*path, k))


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


@st.composite
def mutated(draw):
    snap = draw(st.sampled_from(POSITIONS))
    obj = copy.deepcopy(draw(st.sampled_from(_renderings(snap))))
    for _ in range(draw(st.integers(1, 3))):
        _, target = draw(st.sampled_from(list(_containers(obj))))
        how = draw(st.sampled_from(["set", "drop", "snake", "add"]))
        if isinstance(target, list):
            if not target:
                target.append(draw(st.sampled_from(ODD_VALUES)))
                continue
            i = draw(st.integers(0, len(target) - 1))
            if how == "drop":
                del target[i]
            else:
                target[i] = copy.deepcopy(draw(st.sampled_from(ODD_VALUES)))
            continue
        keys = sorted(target)
        if how == "add" or not keys:
            name = draw(st.sampled_from(["extra", "id", "seat", "kind", "result", "premium"]))
            target[name] = copy.deepcopy(draw(st.sampled_from(ODD_VALUES)))
            continue
        key = draw(st.sampled_from(keys))
        if how == "drop":
            del target[key]
        elif how == "snake":
            target[_snake(key)] = target.pop(key)
        else:
            target[key] = copy.deepcopy(draw(st.sampled_from(ODD_VALUES)))
    return obj


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_what_the_reader_accepts_the_ordinary_way_reads_the_same_with_no_problem(obj):
    fast = json_snapshot.read(obj)
    if fast is None:
        return
    expected, given_fields, problems = ordinary(obj)
    assert problems == []
    assert fast == (expected, given_fields)


def _single_changes(obj: dict):
    """Every change of one value: each key dropped, written in snake_case, or given each of
    ``ODD_VALUES``; each list item dropped or replaced; an unknown key added."""
    for path, target in list(_containers(obj)):
        # a long list's items are alike: its first, second and last stand for the rest
        places = (
            sorted({*range(min(2, len(target))), len(target) - 1} - {-1})
            if isinstance(target, list)
            else sorted(target)
        )
        for place in places:
            for how in ("drop", "snake", *range(len(ODD_VALUES))):
                if how == "snake" and (isinstance(place, int) or _snake(place) == place):
                    continue
                changed = copy.deepcopy(obj)
                where = changed
                for k in path:
                    where = where[k]
                if how == "drop":
                    del where[place]
                elif how == "snake":
                    where[_snake(place)] = where.pop(place)
                else:
                    where[place] = copy.deepcopy(ODD_VALUES[how])
                yield changed
        if isinstance(target, dict):
            changed = copy.deepcopy(obj)
            where = changed
            for k in path:
                where = where[k]
            where["extra"] = 1
            yield changed


def _ended_with_premium():
    return next(s for s in POSITIONS if s.result is not None and s.result.premium is not None)


@pytest.mark.parametrize("which", ["midgame", "ended"])
def test_every_single_change_is_read_the_same_or_left_to_the_ordinary_way(which):
    snap = POSITIONS[30] if which == "midgame" else _ended_with_premium()
    accepted = refused = 0
    for rendering in _renderings(snap):
        for obj in _single_changes(rendering):
            fast = json_snapshot.read(obj)
            if fast is None:
                refused += 1
                continue
            accepted += 1
            expected, given_fields, problems = ordinary(obj)
            assert problems == [], obj
            assert fast == (expected, given_fields), obj
    assert accepted > 100 and refused > 1000, (accepted, refused)


@pytest.mark.parametrize(
    "change",
    [
        lambda o: o.__setitem__("deal_number", o.pop("dealNumber", 1)),
        lambda o: o.__setitem__("dealer", "0"),
        lambda o: o["seats"][0].__setitem__("hand", [c.lower() for c in o["seats"][0]["hand"]]),
        lambda o: o["turn"].__setitem__("phase", 1),
        lambda o: o["turn"].pop("seat"),
        lambda o: o.__setitem__("ply", None),
        lambda o: o["ruleset"].__setitem__("overrides", {"minimumCanastasToGoOut": 1}),
    ],
    ids=[
        "snake_case",
        "int as string",
        "lower-case card",
        "enum number",
        "required",
        "null",
        "overrides",
    ],
)
def test_every_other_form_goes_the_ordinary_way(change):
    obj = jsonio.to_dict(convert.snapshot_to_proto(POSITIONS[30]))
    change(obj)
    assert json_snapshot.read(obj) is None


# -- the service: read_json in the decoding of a request ------------------------------------

METHOD = "ValidateAction"


def _request(snap, signer: Signer | None = None) -> pb.ValidateActionRequest:
    actions, _ = legal_actions(snap)
    msg = convert.snapshot_to_proto(snap)
    if signer is not None:
        signer.sign(msg)
    return pb.ValidateActionRequest(snapshot=msg, action=action_to_proto(actions[-1]))


def _answers(request_json: dict, request: pb.ValidateActionRequest, signer=None) -> tuple:
    """(REST's answer, gRPC's answer) of new servers, each an answer message or the error's
    code, reason and problems; and whether REST's request skipped the protobuf message."""

    def outcome(decode):
        runtime = Runtime(None, Adjudicator(signer=signer), count_calls=False)
        try:
            return runtime.answer(METHOD, decode(runtime))
        except ApiError as e:
            return e.code, e.reason, [(p.field, p.reason) for p in e.field_violations]

    body = json.dumps(request_json).encode()
    rest = outcome(lambda r: r.json_decoder(METHOD, body))
    grpc = outcome(lambda r: lambda: r.protobuf_decoder(METHOD)(request.SerializeToString()))
    loader = Adjudicator(signer=signer).snapshots
    _, _, source = decode_json(body, pb.ValidateActionRequest, loader)
    return rest, grpc, source.loaded is not None


PLAYABLE = [s for s in POSITIONS if s.result is None][::4]


@pytest.mark.parametrize("signer", [None, SIGNER], ids=["unsigned", "signed"])
def test_a_new_position_in_the_services_form_is_answered_as_over_grpc(signer):
    for snap in PLAYABLE:
        request = _request(snap, signer)
        rest, grpc, straight = _answers(jsonio.to_dict(request), request, signer)
        assert straight
        assert rest == grpc and isinstance(rest, pb.ValidateActionResponse)


def _pile_count_wrong(obj: dict) -> None:
    obj["pile"]["count"] += 1


def _card_left_out(obj: dict) -> None:
    seat = obj["seats"][0]
    seat["hand"].pop()
    seat["handCount"] -= 1


def _signature_forged(obj: dict) -> None:
    obj["signature"] = obj["signature"][:-2] + ("AA" if obj["signature"][-2:] != "AA" else "BB")


def _signature_left_out(obj: dict) -> None:
    obj.pop("signature")


@pytest.mark.parametrize(
    "signer, change, reason",
    [
        (None, _pile_count_wrong, "DERIVED_FIELD_DISAGREES"),
        (None, _card_left_out, None),
        (SIGNER, _pile_count_wrong, "DERIVED_FIELD_DISAGREES"),
        (SIGNER, _signature_forged, "SNAPSHOT_SIGNATURE_INVALID"),
        (SIGNER, _signature_left_out, "SNAPSHOT_SIGNATURE_MISSING"),
    ],
    ids=["derived field", "inconsistent", "signed, derived field", "forged", "no signature"],
)
def test_a_snapshot_that_fails_a_check_is_refused_as_over_grpc(signer, change, reason):
    """The reader leaves it to the ordinary way, which says what is wrong: the same refusal,
    problem for problem, as the same snapshot gets over gRPC."""
    request = _request(POSITIONS[30], signer)
    obj = jsonio.to_dict(request)
    change(obj["snapshot"])
    wrong = pb.ValidateActionRequest()
    json_format.ParseDict(obj, wrong)
    rest, grpc, straight = _answers(obj, wrong, signer)
    assert not straight
    assert rest == grpc and isinstance(rest, tuple), rest
    assert reason is None or rest[1] == reason or reason in {r for _, r in rest[2]}, rest
    if reason is None:
        assert rest[0] == "INVALID_ARGUMENT" and rest[2]


def test_a_refusal_elsewhere_in_the_request_is_listed_as_before():
    """A snapshot read straight, an action that is wrong: the action's problems only."""
    request = _request(POSITIONS[30])
    obj = jsonio.to_dict(request)
    obj["action"] = {"seat": 9, "discard": {"card": "XX"}}
    rest, _, straight = _answers(obj, request)
    assert straight
    assert rest[0] == "INVALID_ARGUMENT"
    assert {field for field, _ in rest[2]} >= {"action.discard.card"}, rest
    assert not any(field.startswith("snapshot") for field, _ in rest[2])
    assert json_cache_key(obj["snapshot"]) is not None


def test_the_reader_knows_every_field_of_the_schema():
    """A field added to a snapshot message fails here until the reader reads it (meanwhile
    such snapshots would go the ordinary way: correct, slower). Ruleset overrides are read
    the ordinary way on purpose."""
    expected = {
        "_SNAPSHOT_KEYS": pb.Snapshot,
        "_SEAT_KEYS": pb.Seat,
        "_SIDE_KEYS": pb.Side,
        "_MELD_KEYS": pb.Meld,
        "_PENALTY_KEYS": pb.Penalty,
        "_PILE_KEYS": pb.Pile,
        "_TURN_KEYS": pb.Turn,
        "_RESULT_KEYS": pb.Result,
        "_PREMIUM_KEYS": pb.Premium,
    }
    for name, message in expected.items():
        schema = {f.json_name for f in message.DESCRIPTOR.fields}
        assert getattr(json_snapshot, name) == schema, name
    ruleset = {f.json_name for f in pb.RulesetRef.DESCRIPTOR.fields}
    assert ruleset - json_snapshot._RULESET_KEYS == {"overrides"}
