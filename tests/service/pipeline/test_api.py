"""service.pipeline.api in process: errors, paging, signing, limits, version pins
(docs/api.md#methods, #errors, #server)."""

from __future__ import annotations

import base64

import pytest
from builders import make_snapshot

from samba_adjudicator.engine import model as m
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.errors import ApiError
from samba_adjudicator.service.codec import convert, jsonio
from samba_adjudicator.service.codec.signing import Signer
from samba_adjudicator.service.pipeline.api import METHODS, Adjudicator, kebab
from samba_adjudicator.service.pipeline.call import Call
from samba_adjudicator.service.pipeline.runtime import Runtime

KEY = base64.b64encode(b"k" * 32).decode()


def play_snapshot():
    """Seat 0 in PLAY with a varied hand: many discards and melds."""
    return make_snapshot(
        "classic",
        4,
        hands={0: "QH QS QD 7H 8H 9H 10H 5C 5D 2S 4C 6C KS AD", 1: "4D 4S", 2: "JK", 3: "KC KD"},
        discard="9C",
        turn_seat=0,
        phase=m.Phase.PLAY,
        took_pile=False,
    )


def call(adj, method, request, problems=()):
    """In process, through the error boundary every transport uses."""
    return Runtime(None, adj, count_calls=False).call(method, request, list(problems))


def test_methods_table_covers_service():
    assert list(METHODS) == [mm.name for mm in pb.SERVICE.methods]
    assert kebab("ListLegalActions") == "list-legal-actions"


def test_paging():
    adj = Adjudicator()
    snap = convert.snapshot_to_proto(play_snapshot())
    full = call(adj, "ListLegalActions", pb.ListLegalActionsRequest(snapshot=snap, page_size=1000))
    assert full.total_size == len(full.actions) > 7 and not full.next_page_token
    pages, token = [], ""
    while True:
        resp = call(
            adj,
            "ListLegalActions",
            pb.ListLegalActionsRequest(snapshot=snap, page_size=3, page_token=token),
        )
        assert resp.total_size == full.total_size
        pages.extend(resp.actions)
        token = resp.next_page_token
        if not token:
            break
    assert list(pages) == list(full.actions)
    default = call(adj, "ListLegalActions", pb.ListLegalActionsRequest(snapshot=snap))
    assert len(default.actions) == min(100, full.total_size)
    # same request, same pages
    again = call(adj, "ListLegalActions", pb.ListLegalActionsRequest(snapshot=snap, page_size=3))
    first = call(adj, "ListLegalActions", pb.ListLegalActionsRequest(snapshot=snap, page_size=3))
    assert again == first


def test_page_token_bound_to_request():
    adj = Adjudicator()
    snap = convert.snapshot_to_proto(play_snapshot())
    first = call(adj, "ListLegalActions", pb.ListLegalActionsRequest(snapshot=snap, page_size=2))
    other = pb.ListLegalActionsRequest(
        snapshot=snap, seat=0, page_size=2, page_token=first.next_page_token
    )
    with pytest.raises(ApiError) as e:
        call(adj, "ListLegalActions", other)
    assert e.value.code == "INVALID_ARGUMENT" and e.value.reason == "PAGE_TOKEN_MISMATCH"
    for junk in ("garbage!", "eyJvIjoxfQ"):
        with pytest.raises(ApiError) as e:
            call(
                adj, "ListLegalActions", pb.ListLegalActionsRequest(snapshot=snap, page_token=junk)
            )
        assert e.value.reason == "PAGE_TOKEN_MISMATCH"


def test_negative_page_size_and_unknown_seat():
    adj = Adjudicator()
    snap = convert.snapshot_to_proto(play_snapshot())
    with pytest.raises(ApiError) as e:
        call(adj, "ListLegalActions", pb.ListLegalActionsRequest(snapshot=snap, page_size=-1))
    assert [(p.field, p.reason) for p in e.value.field_violations] == [("pageSize", "OUT_OF_RANGE")]
    with pytest.raises(ApiError) as e:
        call(adj, "ListLegalActions", pb.ListLegalActionsRequest(snapshot=snap, seat=4))
    assert e.value.field_violations[0].field == "seat"


def test_required_fields_on_binary_requests_with_conversion_problems():
    adj = Adjudicator()
    snap = convert.snapshot_to_proto(play_snapshot())
    snap.seats[0].hand[0] = "QQ"
    with pytest.raises(ApiError) as e:
        call(adj, "ValidateAction", pb.ValidateActionRequest(snapshot=snap))
    got = {(p.field, p.reason) for p in e.value.field_violations}
    assert got == {("action", "REQUIRED"), ("snapshot.seats[0].hand[0]", "UNKNOWN_CARD_CODE")}


def test_unknown_meld_id_is_invalid_argument():
    adj = Adjudicator()
    snap = convert.snapshot_to_proto(play_snapshot())
    action = pb.Action(
        seat=0, meld=pb.MeldCards(additions=[pb.Addition(meld_id="m7", cards=["QC"])])
    )
    with pytest.raises(ApiError) as e:
        call(adj, "ValidateAction", pb.ValidateActionRequest(snapshot=snap, action=action))
    assert [(p.field, p.reason) for p in e.value.field_violations] == [
        ("action.meld.additions[0].meldId", "UNKNOWN_MELD_ID")
    ]


def test_version_pin():
    adj = Adjudicator()
    rules = call(adj, "GetRuleset", pb.GetRulesetRequest(profile="classic"))
    ok = call(
        adj,
        "Deal",
        pb.DealRequest(
            players=4, seed="s", ruleset=pb.RulesetRef(profile="classic", version=rules.version)
        ),
    )
    assert ok.snapshot.ruleset.version == rules.version
    with pytest.raises(ApiError) as e:
        call(
            adj,
            "Deal",
            pb.DealRequest(
                players=4, seed="s", ruleset=pb.RulesetRef(profile="classic", version="0.old")
            ),
        )
    assert (e.value.code, e.value.reason) == ("FAILED_PRECONDITION", "RULESET_VERSION_MISMATCH")
    assert e.value.http_status == 400
    snap = ok.snapshot
    snap.ruleset.version = "0.old"
    with pytest.raises(ApiError) as e:
        call(adj, "ScoreDeal", pb.ScoreDealRequest(snapshot=snap, provisional=True))
    assert e.value.reason == "RULESET_VERSION_MISMATCH"


def test_replay_limit():
    adj = Adjudicator(max_replay_actions=3)
    snap = convert.snapshot_to_proto(play_snapshot())
    req = pb.ReplayDealRequest(snapshot=snap, actions=[pb.Action(seat=0, ask_go_out={})] * 4)
    with pytest.raises(ApiError) as e:
        call(adj, "ReplayDeal", req)
    assert (e.value.code, e.value.reason, e.value.http_status) == (
        "RESOURCE_EXHAUSTED",
        "REQUEST_TOO_LARGE",
        413,
    )


def test_view_refused_by_apply_replay_score():
    adj = Adjudicator()
    snap = convert.snapshot_to_proto(play_snapshot())
    view = call(adj, "GetPlayerView", pb.GetPlayerViewRequest(snapshot=snap, seat=0)).snapshot
    assert view.seats[1].hand_hidden
    action = pb.Action(seat=0, discard=pb.Discard(card="5C"))
    assert call(adj, "ValidateAction", pb.ValidateActionRequest(snapshot=view, action=action)).legal
    for method, req in [
        ("ApplyAction", pb.ApplyActionRequest(snapshot=view, action=action)),
        ("ReplayDeal", pb.ReplayDealRequest(snapshot=view)),
        ("ScoreDeal", pb.ScoreDealRequest(snapshot=view, provisional=True)),
    ]:
        with pytest.raises(ApiError) as e:
            call(adj, method, req)
        assert (e.value.code, e.value.reason) == ("INVALID_ARGUMENT", "SNAPSHOT_IS_VIEW")
    spectator = call(adj, "GetPlayerView", pb.GetPlayerViewRequest(snapshot=snap))
    assert not spectator.HasField("viewer_seat")
    assert all(s.hand_hidden for s in spectator.snapshot.seats)


def test_signing_round_trip_and_refusals():
    signer = Signer.parse(f"new:{KEY},old:{base64.b64encode(b'o' * 32).decode()}")
    adj = Adjudicator(signer=signer)
    dealt = call(adj, "Deal", pb.DealRequest(players=4, seed="sig")).snapshot
    assert dealt.signature.startswith("v1.new.")
    action = pb.Action(seat=1, draw_stock=pb.DrawStock())
    out = call(adj, "ApplyAction", pb.ApplyActionRequest(snapshot=dealt, action=action))
    assert out.legal and out.snapshot.signature.startswith("v1.new.")
    # omitted output-only fields and lower-case cards still verify (canonicalised)
    light = pb.Snapshot()
    light.CopyFrom(dealt)
    light.ClearField("pile")
    light.seats[0].hand[:] = [c.lower() for c in light.seats[0].hand]
    assert call(
        adj, "ValidateAction", pb.ValidateActionRequest(snapshot=light, action=action)
    ).legal
    # a snapshot signed with the old key verifies
    old_signer = Signer.parse(f"old:{base64.b64encode(b'o' * 32).decode()}")
    old = call(Adjudicator(signer=old_signer), "Deal", pb.DealRequest(players=4, seed="x")).snapshot
    assert call(adj, "ValidateAction", pb.ValidateActionRequest(snapshot=old, action=action))
    cases = {
        "": "SNAPSHOT_SIGNATURE_MISSING",
        "v1.zz.abc": "SNAPSHOT_KEY_UNKNOWN",
        "garbage": "SNAPSHOT_SIGNATURE_INVALID",
    }
    for sig, reason in cases.items():
        bad = pb.Snapshot()
        bad.CopyFrom(dealt)
        bad.signature = sig
        with pytest.raises(ApiError) as e:
            call(adj, "ValidateAction", pb.ValidateActionRequest(snapshot=bad, action=action))
        assert (e.value.code, e.value.reason, e.value.http_status) == (
            "PERMISSION_DENIED",
            reason,
            403,
        )
    tampered = pb.Snapshot()
    tampered.CopyFrom(dealt)
    tampered.seats[1].hand[0], tampered.stock[0] = tampered.stock[0], tampered.seats[1].hand[0]
    with pytest.raises(ApiError) as e:
        call(adj, "ValidateAction", pb.ValidateActionRequest(snapshot=tampered, action=action))
    assert e.value.reason == "SNAPSHOT_SIGNATURE_INVALID"
    # forged and inconsistent (a card twice): refused for the signature, before any
    # consistency check runs
    forged = pb.Snapshot()
    forged.CopyFrom(dealt)
    forged.seats[1].hand[0] = forged.seats[1].hand[1] = forged.stock[0]
    forged.signature = "v1.new." + "A" * 43
    with pytest.raises(ApiError) as e:
        call(adj, "ValidateAction", pb.ValidateActionRequest(snapshot=forged, action=action))
    assert e.value.reason == "SNAPSHOT_SIGNATURE_INVALID"
    view = call(adj, "GetPlayerView", pb.GetPlayerViewRequest(snapshot=dealt, seat=1)).snapshot
    assert view.signature.startswith("v1.new.") and view.signature != dealt.signature


@pytest.mark.parametrize(
    "spec",
    [
        "k1",
        "k1:!!!",
        "k1:" + base64.b64encode(b"short").decode(),
        f"k1:{KEY},k1:{KEY}",
        f"bad id:{KEY}",
        # passphrases, not base64 (a lenient decoder takes them)
        "k1:my-long-secret-passphrase-here",
        "k1:correct horse battery staple",
        "k1:" + KEY[:-4] + "-+" + KEY[-2:],
        # only the canonical, padded standard alphabet
        "k1:" + base64.urlsafe_b64encode(b"\xfb\xff" * 16).decode(),
        "k1:" + KEY.rstrip("="),
    ],
)
def test_bad_key_specs(spec):
    with pytest.raises(ValueError):
        Signer.parse(spec)


def test_signing_off_by_default():
    assert Signer.parse("") is None
    assert call(Adjudicator(), "Deal", pb.DealRequest(players=2, seed="s")).snapshot.signature == ""


def broken_adjudicator(monkeypatch) -> Adjudicator:
    """An Adjudicator whose snapshot cache fails with an unexpected exception (a seam that
    is not compiled: the compiled build calls its own functions directly)."""
    adj = Adjudicator()
    monkeypatch.setattr(adj.snapshots.cache, "get", lambda key: 1 / 0)
    return adj


def validate_request() -> pb.ValidateActionRequest:
    return pb.ValidateActionRequest(
        snapshot=convert.snapshot_to_proto(play_snapshot()),
        action=pb.Action(seat=0, discard=pb.Discard(card="5C")),
    )


def test_unexpected_exception_becomes_internal(monkeypatch):
    runtime = Runtime(None, broken_adjudicator(monkeypatch), count_calls=False)
    data = validate_request().SerializeToString()
    with pytest.raises(ApiError) as e:
        runtime.answer(Call("ValidateAction", data))
    assert e.value.code == "INTERNAL"


def test_json_problems_and_required_reported_together():
    msg, problems = jsonio.decode(
        '{"snapshot": {"bogus": 1}, "action": {"seat": 0}}', pb.ApplyActionRequest
    )
    with pytest.raises(ApiError) as e:
        call(Adjudicator(), "ApplyAction", msg, problems)
    got = {(p.field, p.reason) for p in e.value.field_violations}
    assert ("snapshot.bogus", "UNKNOWN_FIELD") in got and ("action", "REQUIRED") in got
    assert ("snapshot.turn", "REQUIRED") in got


def test_snapshot_cache_answers_like_a_fresh_load():
    """The loaded-snapshot cache (Adjudicator.snapshots) is keyed by the exact bytes:
    a repeated snapshot answers as a fresh service would, and any change is re-checked."""
    snap = convert.snapshot_to_proto(play_snapshot())
    action = pb.Action(seat=0, discard=pb.Discard(card="5C"))
    warm = Adjudicator()
    first = call(warm, "ValidateAction", pb.ValidateActionRequest(snapshot=snap, action=action))
    second = call(warm, "ValidateAction", pb.ValidateActionRequest(snapshot=snap, action=action))
    fresh = call(
        Adjudicator(), "ValidateAction", pb.ValidateActionRequest(snapshot=snap, action=action)
    )
    assert first == second == fresh and first.legal
    broken = pb.Snapshot()
    broken.CopyFrom(snap)
    broken.seats[0].hand.append("QH")
    broken.seats[0].hand.append("QH")  # four queens of hearts: more than the pack holds
    with pytest.raises(ApiError) as err:
        call(warm, "ValidateAction", pb.ValidateActionRequest(snapshot=broken, action=action))
    assert err.value.code == "INVALID_ARGUMENT"


def test_snapshot_cache_does_not_bypass_signatures():
    signer = Signer.parse(f"k1:{KEY}")
    adj = Adjudicator(signer=signer)
    snap = convert.snapshot_to_proto(play_snapshot())
    signer.sign(snap)
    action = pb.Action(seat=0, discard=pb.Discard(card="5C"))
    assert call(adj, "ValidateAction", pb.ValidateActionRequest(snapshot=snap, action=action)).legal
    forged = pb.Snapshot()
    forged.CopyFrom(snap)
    tail = "AAAA" if not snap.signature.endswith("AAAA") else "BBBB"
    forged.signature = snap.signature[:-4] + tail
    with pytest.raises(ApiError) as err:
        call(adj, "ValidateAction", pb.ValidateActionRequest(snapshot=forged, action=action))
    assert err.value.code == "PERMISSION_DENIED"


def test_listed_card_lists_are_in_canonical_order():
    """docs/api.md#methods: ListLegalActions prints every card list in canonical order
    (rank A 2 … K, then suit S H D C, jokers last)."""
    from samba_adjudicator.engine.cards import ORDER

    snap = convert.snapshot_to_proto(play_snapshot())
    resp = call(
        Adjudicator(), "ListLegalActions", pb.ListLegalActionsRequest(snapshot=snap, page_size=1000)
    )
    lists = []
    for a in resp.actions:
        lists += [list(m.cards) for m in a.meld.new_melds]
        lists += [list(x.cards) for x in a.meld.additions]
        lists += [list(a.take_pile.hand_cards)] + [list(m.cards) for m in a.take_pile.new_melds]
    assert any(any(c.startswith("2") for c in cards) and len(cards) > 2 for cards in lists)
    for cards in lists:
        assert cards == sorted(cards, key=ORDER.__getitem__), cards


def test_the_error_boundary_translates_every_exception(caplog):
    """service.pipeline.boundary: the one translation every transport and the CLI go through."""
    from samba_adjudicator.engine.model import InvalidInput, Problem
    from samba_adjudicator.engine.ruleset import RulesetError
    from samba_adjudicator.service.pipeline.boundary import as_api_error

    given = ApiError("NOT_FOUND", "UNKNOWN_PROFILE", "no")
    assert as_api_error(given, "GetRuleset") is given
    engine_error = InvalidInput(
        [Problem("snapshot.seats[0].hand_count", "OUT_OF_RANGE", "x")], "SNAPSHOT_IS_VIEW"
    )
    err = as_api_error(engine_error, "ApplyAction")
    assert (err.code, err.reason) == ("INVALID_ARGUMENT", "SNAPSHOT_IS_VIEW")
    assert [(p.field, p.reason) for p in err.field_violations] == [
        ("snapshot.seats[0].handCount", "OUT_OF_RANGE")
    ]
    err = as_api_error(
        RulesetError([("ruleset.overrides.hand_size", "UNKNOWN_PARAMETER", "y")]), "Deal"
    )
    assert (err.code, err.reason) == ("INVALID_ARGUMENT", "INVALID_REQUEST")
    assert [(p.field, p.description) for p in err.field_violations] == [
        ("ruleset.overrides.handSize", "y")
    ]
    with caplog.at_level("ERROR", logger="samba.api"):
        err = as_api_error(ZeroDivisionError("boom"), "ScoreDeal")
    assert (err.code, err.reason) == ("INTERNAL", "INTERNAL") and "boom" not in err.message
    assert "ScoreDeal" in caplog.text and "ZeroDivisionError" in caplog.text


def test_a_snapshot_is_looked_up_once_per_call(monkeypatch):
    """The transport looks the snapshot's key up; loading does not look again (a miss used
    to be looked up twice). The protobuf and JSON paths, on a miss and on a hit."""
    from samba_adjudicator.service.transport import cli

    adj = Adjudicator()
    lookups = []
    real_get = adj.snapshots.cache.get

    def counted(key):
        lookups.append(key)
        return real_get(key)

    monkeypatch.setattr(adj.snapshots.cache, "get", counted)
    runtime = Runtime(None, adj, count_calls=False)
    request = validate_request()
    data = request.SerializeToString()
    for _ in range(2):  # a miss, then a hit
        lookups.clear()
        assert runtime.answer(Call("ValidateAction", data)).message.legal
        assert len(lookups) == 1
    body = jsonio.dumps(jsonio.to_dict(request)).encode()
    for _ in range(2):
        lookups.clear()
        status, _ = cli.run("ValidateAction", body, adjudicator=adj)
        assert status == cli.EXIT_OK and len(lookups) == 1


def test_the_cli_answers_an_unexpected_exception_with_internal(monkeypatch):
    """The CLI goes through the same boundary as the servers: INTERNAL, never a traceback."""
    from samba_adjudicator.service.transport import cli

    body = jsonio.dumps(jsonio.to_dict(validate_request())).encode()
    status, body = cli.run(
        "ValidateAction", body, adjudicator=broken_adjudicator(monkeypatch), request_id="r"
    )
    assert status == cli.EXIT_ERROR
    assert body["error"]["status"] == "INTERNAL" and body["error"]["code"] == 500


def test_a_snapshot_the_service_signed_is_not_checked_again_an_unsigned_one_is():
    """docs/api.md#trust: an inconsistent snapshot signed with the service's key (as only
    the service could) is taken as it is; the same snapshot unsigned, on a service without
    keys, is refused; and one whose output-only fields were changed after signing is
    checked in full."""
    signer = Signer.parse(f"k:{KEY}")
    adj = Adjudicator(signer=signer)
    dealt = call(adj, "Deal", pb.DealRequest(players=4, seed="trust")).snapshot
    action = pb.Action(seat=dealt.turn.seat, draw_stock=pb.DrawStock())
    # a card twice: inconsistent, but signed by the key, as the service signs
    broken = pb.Snapshot()
    broken.CopyFrom(dealt)
    broken.seats[2].hand[0] = broken.seats[3].hand[0]
    broken.signature = ""
    canonical = convert.snapshot_to_proto(convert.snapshot_from_proto(broken, "snapshot", []))
    signer.sign(canonical)
    req = pb.ValidateActionRequest(snapshot=canonical, action=action)
    assert call(adj, "ValidateAction", req).legal
    unsigned = pb.Snapshot()
    unsigned.CopyFrom(canonical)
    unsigned.signature = ""
    with pytest.raises(ApiError) as e:
        call(
            Adjudicator(),
            "ValidateAction",
            pb.ValidateActionRequest(snapshot=unsigned, action=action),
        )
    assert e.value.code == "INVALID_ARGUMENT"
    # a derived field changed after signing: the signature still verifies (it covers the
    # service's rendering), but the snapshot is no longer the service's own: checked in full
    altered = pb.Snapshot()
    altered.CopyFrom(dealt)
    altered.sides[0].initial_meld_requirement = 999
    with pytest.raises(ApiError) as e:
        call(adj, "ValidateAction", pb.ValidateActionRequest(snapshot=altered, action=action))
    assert e.value.code == "INVALID_ARGUMENT"
    assert [p.field for p in e.value.field_violations] == [
        "snapshot.sides[0].initialMeldRequirement"
    ]


def test_a_signed_snapshot_is_trusted_from_its_bytes_and_nothing_else_is():
    """docs/api.md#trust, the cheap test: one HMAC over the bytes received tells the
    service's own signed rendering; any other bytes (tampered, a field added, the same
    message in another order, another key's MAC) fail it and take the full path, where an
    inconsistent snapshot signed by the key is trusted only as the exact rendering."""
    signer = Signer.parse(f"k:{KEY}")
    other = Signer.parse(f"k:{base64.b64encode(b'o' * 32).decode()}")
    adj = Adjudicator(signer=signer)
    dealt = call(adj, "Deal", pb.DealRequest(players=4, seed="trust-bytes")).snapshot
    encoded = dealt.SerializeToString(deterministic=True)
    assert signer.signed_as_encoded(encoded, dealt.signature)
    assert not other.signed_as_encoded(encoded, dealt.signature)
    changed = pb.Snapshot()
    changed.CopyFrom(dealt)
    changed.seats[0].hand[0] = changed.seats[1].hand[0]
    assert not signer.signed_as_encoded(
        changed.SerializeToString(deterministic=True), dealt.signature
    )
    added = pb.Snapshot()
    added.CopyFrom(dealt)
    added.ply += 1
    assert not signer.signed_as_encoded(
        added.SerializeToString(deterministic=True), dealt.signature
    )
    # the signature field not last: protobuf reads the same message, the bytes differ
    unsigned = pb.Snapshot()
    unsigned.CopyFrom(dealt)
    unsigned.signature = ""
    sig_first = pb.Snapshot(signature=dealt.signature).SerializeToString() + (
        unsigned.SerializeToString(deterministic=True)
    )
    assert pb.Snapshot.FromString(sig_first) == dealt
    assert not signer.signed_as_encoded(sig_first, dealt.signature)
    # ... and such bytes still load through the full path (the rendering verifies)
    runtime = Runtime(None, adj, count_calls=False)
    action = pb.Action(seat=dealt.turn.seat, draw_stock=pb.DrawStock())
    rest = pb.ValidateActionRequest(action=action).SerializeToString()
    request = rest + b"\x0a" + bytes([len(sig_first) & 0x7F | 0x80, len(sig_first) >> 7])
    request += sig_first
    assert len(sig_first) >= 128 and runtime.answer(Call("ValidateAction", request)).message.legal
    # an inconsistent snapshot signed by the key, sent as its exact bytes: trusted
    broken = pb.Snapshot()
    broken.CopyFrom(unsigned)
    broken.seats[2].hand[0] = broken.seats[3].hand[0]
    canonical = convert.snapshot_to_proto(convert.snapshot_from_proto(broken, "snapshot", []))
    signer.sign(canonical)
    fresh = Runtime(None, Adjudicator(signer=signer), count_calls=False)
    data = pb.ValidateActionRequest(snapshot=canonical, action=action).SerializeToString()
    assert signer.signed_as_encoded(canonical.SerializeToString(), canonical.signature)
    assert fresh.answer(Call("ValidateAction", data)).message.legal
