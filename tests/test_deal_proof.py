"""Deals players can verify (docs/dealing.md#5-deals-players-can-verify): the commitment, the
shuffle's seed from the secret and the contributions, and VerifyDeal refusing every forged
part, in the engine, in the Python client's function that needs no server, and on the real
servers (REST, gRPC, CLI; signing on)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import replace

import grpc
import pytest
from google.protobuf import json_format
from service_fixtures import (  # noqa: F401 - fixtures
    ServerProcess,
    channel,
    cli_call,
    grpc_call,
    http,
    rest_call,
    server,
    stub,
)

from samba_adjudicator import engine
from samba_adjudicator.client.deal_check import deal_commitment as client_commitment
from samba_adjudicator.client.deal_check import shuffle_seed as client_shuffle_seed
from samba_adjudicator.client.deal_check import verify_deal as client_verify
from samba_adjudicator.engine import deal_seed
from samba_adjudicator.engine.dealing import deal_pack, shuffled_pack
from samba_adjudicator.engine.model import DrawStock
from samba_adjudicator.engine.ruleset import PROFILES, resolve
from samba_adjudicator.service.codec import convert, rulesets

SECRET = "server-secret-7f3a"
CONTRIBUTIONS = ["alice-42", "bob-x", "carol", "dave-!"]


def _deal(profile="classic", players=4, seed=SECRET, contributions=CONTRIBUTIONS):
    return engine.deal(resolve(profile), players, seed, 1, 2, contributions=contributions)


def _reasons(problems) -> dict[str, str]:
    return {p.field: p.reason for p in problems}


# -- the construction ----------------------------------------------------------------------


def test_commitment_is_the_documented_hash():
    want = hashlib.sha256(b"samba-deal-commit/v1\x00" + SECRET.encode()).hexdigest()
    assert deal_seed.commitment(SECRET) == want == client_commitment(SECRET)
    assert _deal().deal_commitment == want


def test_shuffle_seed_is_the_documented_hash_and_lists_cannot_collide():
    def u32(n):
        return n.to_bytes(4, "big")

    raw = b"samba-deal-seed/v1\x00" + u32(1) + b"s" + u32(2) + u32(2) + b"ab" + u32(1) + b"c"
    want = hashlib.sha256(raw).hexdigest()
    assert deal_seed.shuffle_seed("s", ["ab", "c"]) == want == client_shuffle_seed("s", ["ab", "c"])
    # the same bytes cut otherwise, or in another order, are another seed
    seeds = {
        deal_seed.shuffle_seed(s, c)
        for s, c in [("s", ["ab", "c"]), ("s", ["a", "bc"]), ("s", ["abc"]), ("sa", ["b", "c"]),
                     ("s", ["c", "ab"]), ("s", ["ab", "c", ""][:2] + ["x"])]
    }  # fmt: skip
    assert len(seeds) == 6


def test_a_deal_without_contributions_is_todays_shuffle_and_carries_the_commitment():
    rules = resolve("classic")
    snap = engine.deal(rules, 4, "golden-1")
    today = deal_pack(rules, 4, shuffled_pack(rules, 4, 0, 1, "golden-1"))
    assert snap.seats == today.seats and snap.stock == today.stock
    assert snap.deal_commitment == deal_seed.commitment("golden-1")


def test_contributions_change_the_shuffle():
    assert _deal().seats[0].dealt != _deal(contributions=()).seats[0].dealt
    assert _deal().seats[0].dealt != _deal(contributions=CONTRIBUTIONS[::-1]).seats[0].dealt


def test_bad_contributions_are_invalid_with_their_paths():
    with pytest.raises(engine.InvalidInput) as e:
        _deal(contributions=["", "x" * 129, *["c"] * 70])
    fields = [p.field for p in e.value.problems]
    assert fields[:3] == ["seedContributions", "seedContributions[0]", "seedContributions[1]"]


def test_the_commitment_is_kept_by_every_view_and_every_later_snapshot():
    snap = _deal()
    for seat in (None, 0, 1, 2, 3):
        assert engine.player_view(snap, seat).deal_commitment == snap.deal_commitment
    later = engine.apply(snap, DrawStock(seat=snap.turn.seat)).snapshot
    assert later.ply == 1 and later.deal_commitment == snap.deal_commitment


# -- verification in the engine and in the client's function -------------------------------


def _both(snap, seed, contributions):
    """The engine's problems, checked against the client's function on the same deal."""
    found = engine.verify_deal(snap, seed, contributions)
    ruleset = json_format.MessageToDict(rulesets.ruleset_to_proto(snap.ruleset))
    deal = json_format.MessageToDict(convert.snapshot_to_proto(snap))
    answer = client_verify(deal, seed, contributions, ruleset=ruleset)
    assert answer["verified"] == (not found)
    client = [(p["field"], p["reason"]) for p in answer["problems"]]
    assert client == [(p.field, p.reason) for p in found]  # the same problems, in order
    return _reasons(found)


@pytest.mark.parametrize("profile", PROFILES)
def test_the_true_seeds_verify_every_profile_first_later_and_views(profile):
    rules = resolve(profile)
    players = max(rules.players_allowed)
    contributions = CONTRIBUTIONS[:players]
    snap = engine.deal(rules, players, SECRET, players - 1, 3, contributions=contributions)
    later = snap
    for _ in range(3):
        later = engine.apply(later, engine.legal_actions(later)[0][0]).snapshot
    for deal in (snap, later, engine.player_view(snap, 0), engine.player_view(later, 1)):
        assert _both(deal, SECRET, contributions) == {}


FORGERIES = {
    "wrong secret": (SECRET + "x", CONTRIBUTIONS),
    "a contribution changed": (SECRET, ["alice-43", *CONTRIBUTIONS[1:]]),
    "a contribution added": (SECRET, [*CONTRIBUTIONS, "eve"]),
    "a contribution removed": (SECRET, CONTRIBUTIONS[:-1]),
    "contributions reordered": (SECRET, [CONTRIBUTIONS[1], CONTRIBUTIONS[0], *CONTRIBUTIONS[2:]]),
    "no contributions": (SECRET, []),
}


@pytest.mark.parametrize("name", FORGERIES)
def test_each_forged_seed_is_refused(name):
    seed, contributions = FORGERIES[name]
    snap = _deal()
    found = _both(snap, seed, contributions)
    expect_commitment = seed != SECRET
    assert ("deal.dealCommitment" in found) == expect_commitment
    assert all(found[f"deal.seats[{i}].dealt"] == "NOT_THE_SHUFFLE" for i in range(4))
    # a player's view proves its own seat's hand
    view = _both(engine.player_view(snap, 2), seed, contributions)
    assert "deal.seats[2].dealt" in view and "deal.seats[0].dealt" not in view


def test_an_edited_commitment_is_refused():
    snap = _deal()
    edited = replace(snap, deal_commitment=deal_seed.commitment("another secret"))
    assert _both(edited, SECRET, CONTRIBUTIONS) == {"deal.dealCommitment": "COMMITMENT_MISMATCH"}
    assert _both(replace(snap, deal_commitment=""), SECRET, CONTRIBUTIONS) == {
        "deal.dealCommitment": "REQUIRED"
    }


def test_an_edited_dealt_hand_and_first_snapshot_zones_are_refused():
    snap = _deal()
    seats = list(snap.seats)
    seats[1] = replace(seats[1], dealt=seats[1].dealt[1:] + seats[1].dealt[:1])
    assert _both(replace(snap, seats=tuple(seats)), SECRET, CONTRIBUTIONS) == {
        "deal.seats[1].dealt": "NOT_THE_SHUFFLE"
    }
    swapped = replace(snap, stock=snap.stock[::-1], discard_pile=snap.stock[:1])
    assert _reasons(engine.verify_deal(swapped, SECRET, CONTRIBUTIONS)) == {
        "deal.stock": "NOT_THE_SHUFFLE",
        "deal.discardPile": "NOT_THE_SHUFFLE",
    }


def test_a_spectator_view_proves_nothing_and_says_so():
    found = _both(engine.player_view(_deal(), None), SECRET, CONTRIBUTIONS)
    assert found == {"deal.seats": "NOTHING_TO_CHECK"}


# -- the real servers ------------------------------------------------------------------------


def _dealt_over_rest(http, seed=SECRET, contributions=CONTRIBUTIONS) -> dict:  # noqa: F811
    body = {"players": 4, "seed": seed, "seedContributions": contributions, "includeViews": True}
    r = rest_call(http, "Deal", body)
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.servers
def test_verify_deal_over_rest_grpc_and_cli(http, stub):  # noqa: F811
    answer = _dealt_over_rest(http)
    snap = answer["snapshot"]
    assert snap["dealCommitment"] == deal_seed.commitment(SECRET)
    assert {v["snapshot"]["dealCommitment"] for v in answer["views"]} == {snap["dealCommitment"]}
    assert answer["spectatorView"]["snapshot"]["dealCommitment"] == snap["dealCommitment"]
    good = {"deal": snap, "seed": SECRET, "seedContributions": CONTRIBUTIONS}
    bad = {**good, "seedContributions": CONTRIBUTIONS[::-1]}
    for body, verified in ((good, True), (bad, False)):
        r = rest_call(http, "VerifyDeal", body)
        assert r.status_code == 200, r.text
        via_grpc = json_format.MessageToDict(
            grpc_call(stub, "VerifyDeal", body, timeout=30),
            always_print_fields_with_no_presence=True,
        )
        status, via_cli = cli_call("VerifyDeal", body)
        assert status == 0
        assert r.json() == via_grpc == via_cli
        assert r.json()["verified"] is verified
    assert {p["field"] for p in rest_call(http, "VerifyDeal", bad).json()["problems"]} >= {
        "deal.seats[0].dealt"
    }
    # in the caller's language
    r = rest_call(http, "VerifyDeal", bad, headers={"Accept-Language": "es"})
    texts = {p["field"]: p["description"] for p in r.json()["problems"]}
    assert texts["deal.seats[0].dealt"] == (
        "deal.seats[0].dealt no es lo que reparten las semillas reveladas"
    )
    # a player's view, sent back after the deal, verifies its own hand
    view = answer["views"][1]["snapshot"]
    r = rest_call(http, "VerifyDeal", {**good, "deal": view})
    assert r.json() == {"verified": True, "problems": []}


@pytest.mark.servers
def test_bad_verify_requests_are_invalid_with_every_problem(http, stub):  # noqa: F811
    snap = _dealt_over_rest(http)["snapshot"]
    body = {
        "deal": {**snap, "dealCommitment": "XYZ"},
        "seed": "",
        "seedContributions": ["ok", ""],
    }
    r = rest_call(http, "VerifyDeal", body)
    assert r.status_code == 400, r.text
    fields = {
        v["field"] for d in r.json()["error"]["details"] for v in d.get("fieldViolations", [])
    }
    assert {"seed", "seedContributions[1]", "deal.dealCommitment"} <= fields
    with pytest.raises(grpc.RpcError) as e:
        grpc_call(stub, "VerifyDeal", body, timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT


@pytest.fixture(scope="module")
def signed_http():
    import httpx

    key = base64.b64encode(b"k" * 32).decode()
    s = ServerProcess(env={"SAMBA_SNAPSHOT_KEYS": f"k1:{key}"})
    with httpx.Client(base_url=s.base_url, timeout=30) as client:
        yield client
    s.close()


@pytest.mark.servers
def test_with_signing_an_edited_commitment_fails_the_signature(signed_http):
    answer = _dealt_over_rest(signed_http)
    snap = answer["snapshot"]
    good = {"deal": snap, "seed": SECRET, "seedContributions": CONTRIBUTIONS}
    assert rest_call(signed_http, "VerifyDeal", good).json()["verified"] is True
    view = answer["views"][0]["snapshot"]
    assert rest_call(signed_http, "VerifyDeal", {**good, "deal": view}).json()["verified"]
    forged = {**snap, "dealCommitment": deal_seed.commitment("other")}
    r = rest_call(signed_http, "VerifyDeal", {**good, "deal": forged})
    assert r.status_code == 403, r.text
    assert r.json()["error"]["details"][0]["reason"] == "SNAPSHOT_SIGNATURE_INVALID"
    # and so everywhere a snapshot comes in
    r = rest_call(signed_http, "ScoreDeal", {"snapshot": forged, "provisional": True})
    assert r.status_code == 403, r.text


def test_the_client_function_needs_no_server():
    """The client function is plain hashing: it runs with no server and no service
    package imported (the client wheel's import set)."""
    code = (
        "import sys, json; from samba_adjudicator.client import deal_check as d; "
        "a = json.loads(sys.stdin.read()); "
        "print(json.dumps(d.verify_deal(a['deal'], a['seed'], a['c'], ruleset=a['ruleset']))); "
        "assert not any(m.startswith('samba_adjudicator.service') or "
        "m.startswith('samba_adjudicator.engine') for m in sys.modules)"
    )
    snap = _deal()
    doc = {
        "deal": json_format.MessageToDict(convert.snapshot_to_proto(snap)),
        "seed": SECRET,
        "c": CONTRIBUTIONS,
        "ruleset": json_format.MessageToDict(rulesets.ruleset_to_proto(snap.ruleset)),
    }
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("SAMBA_")}
    p = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(doc),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == {"verified": True, "problems": []}


def test_the_signature_covers_the_commitment_on_the_one_hmac_path():
    """The commitment (field 15) follows the signature (14) in a snapshot's bytes: the cheap
    test of a signature reads it, and an edited commitment fails it."""
    from samba_adjudicator.service.base import pb
    from samba_adjudicator.service.codec.signing import Signer
    from samba_adjudicator.service.pipeline.api import Adjudicator

    signer = Signer.parse(f"k:{base64.b64encode(b'k' * 32).decode()}")
    dealt = Adjudicator(signer=signer).call("Deal", pb.DealRequest(players=4, seed=SECRET)).snapshot
    encoded = dealt.SerializeToString(deterministic=True)
    assert encoded.endswith(dealt.deal_commitment.encode())
    assert signer.signed_as_encoded(encoded, dealt.signature)
    edited = pb.Snapshot()
    edited.CopyFrom(dealt)
    edited.deal_commitment = deal_seed.commitment("other")
    assert not signer.signed_as_encoded(
        edited.SerializeToString(deterministic=True), dealt.signature
    )
    # a snapshot of a deal from before commitments, signed: the signature is its last field
    edited.deal_commitment = ""
    signer.sign(edited)
    assert signer.signed_as_encoded(edited.SerializeToString(deterministic=True), edited.signature)


def test_the_documented_vectors():
    commit = "54750da041ce5f1a06fd4eab38bc903695b7a165ef816fe1d883743f5a26cd2f"
    seed = "dcfd20ab1d473a463fbfe000dd7cdc220faafd67c0626be610af2dc42afef82b"
    assert deal_seed.commitment("golden-1") == client_commitment("golden-1") == commit
    assert deal_seed.shuffle_seed("golden-1", ["alice", "bob"]) == seed
    assert client_shuffle_seed("golden-1", ["alice", "bob"]) == seed


# -- the redaction the check skips: what the view says, never an empty field (issue 47) ---


def _went_out(players=2):
    """A seeded deal BASIC plays at every seat until a seat goes out."""
    from builders import mover

    from samba_adjudicator.engine.bots import basic
    from samba_adjudicator.engine.bots.draws import choices
    from samba_adjudicator.engine.model import EndReason, Phase

    for n in range(1, 20):
        s = engine.deal(resolve("classic"), players, f"{SECRET}-{n}", 0, 1, contributions=[])
        while s.turn.phase is not Phase.OVER:
            seat = mover(s)
            s = engine.apply(s, basic.choose(s, seat, choices(s, seat)).action).snapshot
        if s.result.reason is EndReason.WENT_OUT:
            return s, f"{SECRET}-{n}"
    raise AssertionError("no deal went out")


def test_every_final_view_of_a_deal_that_went_out_verifies():
    """docs/api.md#what-a-view-hides: the seat that went out holds no card; every other
    seat's view (and the spectator's) hides its ``dealt`` and says so, so the check skips
    it; its own view proves it."""
    over, seed = _went_out()
    out = over.result.seat
    for viewer in (None, 0, 1):
        view = engine.player_view(over, viewer)
        assert view.seats[out].hand_hidden == (viewer != out)
        expect = {} if viewer is not None else {"deal.seats": "NOTHING_TO_CHECK"}
        assert _both(view, seed, []) == expect, viewer


def test_a_forged_empty_dealt_is_refused_on_a_full_snapshot_and_on_a_view():
    """docs/api.md#what-a-view-hides: an empty ``dealt`` is not a redaction: on the full
    final snapshot (the seat that went out holds no card, nothing hidden) and on the seat's
    own view it is refused."""
    over, seed = _went_out()
    out = over.result.seat
    for deal in (over, engine.player_view(over, out)):
        seats = list(deal.seats)
        seats[out] = replace(seats[out], dealt=())
        found = _both(replace(deal, seats=tuple(seats)), seed, [])
        assert found == {f"deal.seats[{out}].dealt": "NOT_THE_SHUFFLE"}
    # a view that stops saying a seat is hidden: its empty dealt is a claim, refused
    view = engine.player_view(over, 1 - out)
    seats = list(view.seats)
    seats[out] = replace(seats[out], redacted=False)
    found = _both(replace(view, seats=tuple(seats)), seed, [])
    assert found == {f"deal.seats[{out}].dealt": "NOT_THE_SHUFFLE"}


@pytest.mark.servers
def test_the_losers_final_view_verifies_over_rest(http):  # noqa: F811
    """The issue's reproduction: play to WENT_OUT, take the loser's view, VerifyDeal."""
    over, seed = _went_out()
    loser = 1 - over.result.seat
    view = json_format.MessageToDict(convert.snapshot_to_proto(engine.player_view(over, loser)))
    assert view["seats"][over.result.seat]["handHidden"] is True
    r = rest_call(http, "VerifyDeal", {"deal": view, "seed": seed})
    assert r.status_code == 200, r.text
    assert r.json() == {"verified": True, "problems": []}
