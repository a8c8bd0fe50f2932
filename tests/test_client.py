"""samba_adjudicator.client against the real servers: both transports, sync and asyncio."""

from __future__ import annotations

import asyncio
import json
import runpy
import subprocess
import sys
import zipfile

import grpc
import pytest
from google.protobuf import json_format
from played_endings import played
from service_fixtures import ROOT, ServerProcess, dealt, http, sample_requests, server  # noqa: F401

from samba_adjudicator.client import AdjudicatorError, AsyncClient, Client
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec.convert import snapshot_to_proto

pytestmark = pytest.mark.servers

TRANSPORTS = ("grpc", "rest")


def address(server, transport: str) -> str:  # noqa: F811
    return server.grpc_target if transport == "grpc" else server.base_url


def client(server, transport: str, **kw) -> Client:  # noqa: F811
    return getattr(Client, transport)(address(server, transport), **kw)


def async_client(server, transport: str, **kw) -> AsyncClient:  # noqa: F811
    return getattr(AsyncClient, transport)(address(server, transport), **kw)


@pytest.fixture(scope="module")
def slow():
    """A server that sleeps 3 s in every call: deadlines pass."""
    s = ServerProcess(env={"SAMBA_TEST_DELAY_SECONDS": "3"})
    yield s
    s.close()


@pytest.fixture(scope="module")
def gone():
    """The address of a server that has stopped."""
    s = ServerProcess()
    s.close()
    return s


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_dict_round_trip_deal_and_validate(server, transport):  # noqa: F811
    with client(server, transport) as c:
        snapshot = c.deal({"players": 4, "seed": "client-test"})["snapshot"]
        assert snapshot["turn"]["phase"] == "DRAW"
        first = c.list_legal_actions({"snapshot": snapshot})["actions"][0]
        answer = c.validate_action({"snapshot": snapshot, "action": first})
        assert answer == {"legal": True, "violations": []}
        out_of_turn = dict(first, seat=(first["seat"] + 1) % 4)
        refused = c.validate_action({"snapshot": snapshot, "action": out_of_turn})
        assert refused["legal"] is False
        assert refused["violations"][0]["code"] == "NOT_YOUR_TURN"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_messages_in_messages_out(server, transport):  # noqa: F811
    with client(server, transport) as c:
        answer = c.get_ruleset(pb.GetRulesetRequest(profile="classic+open"))
        assert isinstance(answer, pb.Ruleset) and answer.profile == "classic+open"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_known_cards_come_back_in_every_view_and_answer(server, transport):  # noqa: F811
    """docs/rules.md#public-knowledge through the client: a position where a seat took the
    pile keeps that seat's ``known`` in another seat's view and in ApplyAction's answer."""
    position = next(
        p for p in played("classic", 4, "client-known", 120) if any(s.known for s in p.seats)
    )
    holder = next(s for s in position.seats if s.known)
    snapshot = json_format.MessageToDict(snapshot_to_proto(position))
    with client(server, transport) as c:
        viewer = (holder.seat + 1) % 4
        view = c.get_player_view({"snapshot": snapshot, "seat": viewer})["snapshot"]
        seen = view["seats"][holder.seat]
        assert seen["handHidden"] and seen["known"] == list(holder.known)
        first = c.list_legal_actions({"snapshot": snapshot})["actions"][0]
        answer = c.apply_action({"snapshot": snapshot, "action": first})
        assert answer["legal"]
        kept = [s.get("known", []) for s in answer["snapshot"]["seats"]]
        assert any(kept)


PYTHON_NAMES = {
    "ListRulesets": "list_rulesets",
    "GetRuleset": "get_ruleset",
    "Deal": "deal",
    "CheckMeld": "check_meld",
    "ValidateAction": "validate_action",
    "ApplyAction": "apply_action",
    "ListLegalActions": "list_legal_actions",
    "ScoreDeal": "score_deal",
    "GetPlayerView": "get_player_view",
    "ReplayDeal": "replay_deal",
    "SuggestAction": "suggest_action",
    "VerifyDeal": "verify_deal",
}


def test_every_rpc_gives_the_same_answer_on_both_transports(server, sample_requests):  # noqa: F811
    assert set(sample_requests) == set(PYTHON_NAMES)
    with client(server, "grpc") as over_grpc, client(server, "rest") as over_rest:
        for method, body in sample_requests.items():
            by_name = getattr(over_grpc, PYTHON_NAMES[method])(body)
            assert by_name == over_rest.call(method, body), method


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_invalid_argument_carries_reason_field_violations_and_request_id(server, transport):  # noqa: F811,E501
    with client(server, transport) as c:
        with pytest.raises(AdjudicatorError) as err:
            c.check_meld({"cards": ["7H", "ZZ", "7C", "XX"]}, request_id="client-req")
    e = err.value
    assert e.code is grpc.StatusCode.INVALID_ARGUMENT and e.status == "INVALID_ARGUMENT"
    assert (e.reason, e.domain, e.request_id) == ("INVALID_REQUEST", "samba.v1", "client-req")
    assert [(v.field, v.reason) for v in e.violations] == [
        ("cards[1]", "UNKNOWN_CARD_CODE"),
        ("cards[3]", "UNKNOWN_CARD_CODE"),
    ]
    assert all(v.description for v in e.violations)
    assert e.http_status == (400 if transport == "rest" else None)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_not_found_with_a_generated_request_id(server, transport):  # noqa: F811
    with client(server, transport) as c:
        with pytest.raises(AdjudicatorError) as err:
            c.get_ruleset({"profile": "nonesuch"})
    assert err.value.code is grpc.StatusCode.NOT_FOUND
    assert err.value.reason == "UNKNOWN_PROFILE"
    assert len(err.value.request_id) == 32


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_deadline(slow, transport):
    with client(slow, transport, timeout=0.3) as c:
        with pytest.raises(AdjudicatorError) as by_default:
            c.list_rulesets()
    with client(slow, transport, timeout=None) as c:
        with pytest.raises(AdjudicatorError) as per_call:
            c.list_rulesets(timeout=0.3, request_id="late")
    assert by_default.value.code is grpc.StatusCode.DEADLINE_EXCEEDED
    assert by_default.value.reason == "DEADLINE_EXCEEDED"
    assert per_call.value.code is grpc.StatusCode.DEADLINE_EXCEEDED
    assert per_call.value.request_id == "late"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_unreachable_server_is_unavailable(gone, transport):
    with client(gone, transport, timeout=5) as c:
        with pytest.raises(AdjudicatorError) as err:
            c.list_rulesets()
    assert err.value.code is grpc.StatusCode.UNAVAILABLE


# -- asyncio ------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_async_calls_and_errors(server, transport):  # noqa: F811
    async def scenario():
        async with async_client(server, transport) as c:
            dealt_ = await c.deal({"players": 4, "seed": "client-test"})
            listed, ruleset = await asyncio.gather(
                c.list_legal_actions({"snapshot": dealt_["snapshot"]}),
                c.get_ruleset(pb.GetRulesetRequest(profile="classic")),
            )
            with pytest.raises(AdjudicatorError) as err:
                await c.check_meld({"cards": ["7H", "ZZ"]}, request_id="async-req")
            return dealt_, listed, ruleset, err.value

    dealt_, listed, ruleset, err = asyncio.run(scenario())
    with client(server, transport) as sync:
        assert dealt_ == sync.deal({"players": 4, "seed": "client-test"})
        assert listed == sync.list_legal_actions({"snapshot": dealt_["snapshot"]})
    assert listed["actions"] and listed["totalSize"] == len(listed["actions"])
    assert isinstance(ruleset, pb.Ruleset) and ruleset.profile == "classic"
    assert (err.code, err.reason, err.request_id) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_REQUEST",
        "async-req",
    )
    assert [(v.field, v.reason) for v in err.violations] == [("cards[1]", "UNKNOWN_CARD_CODE")]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_async_deadline(slow, transport):
    async def scenario():
        async with async_client(slow, transport) as c:
            with pytest.raises(AdjudicatorError) as err:
                await c.list_rulesets(timeout=0.3)
            return err.value

    assert asyncio.run(scenario()).code is grpc.StatusCode.DEADLINE_EXCEEDED


# -- the example bot ----------------------------------------------------------------------

EXAMPLES = ROOT / "clients" / "python" / "client" / "examples"
BOT = EXAMPLES / "play_deal.py"


def play(transport: str, target: str, seed: str, *extra: str) -> dict:
    p = subprocess.run(
        [
            sys.executable,
            str(BOT),
            "--transport",
            transport,
            "--target",
            target,
            "--seed",
            seed,
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert lines[0].startswith("deal over after ")
    return json.loads(lines[-1])


@pytest.mark.parametrize("seed", ["bot-1", "bot-2"])
def test_example_bot_plays_a_whole_deal_on_both_transports(server, seed):  # noqa: F811
    over_grpc = play("grpc", server.grpc_target, seed)
    over_rest = play("rest", server.base_url, seed, "--asyncio")
    assert over_grpc == over_rest
    assert over_grpc["applied"] > 0 and len(over_grpc["sides"]) == 2
    assert over_grpc["reason"] in ("WENT_OUT", "STOCK_EXHAUSTED")


def test_guide_redaction_hides_other_hands_and_drawn_cards(server):  # noqa: F811
    redact = runpy.run_path(str(EXAMPLES / "redact.py"))
    with client(server, "rest") as c:
        snapshot = c.deal({"players": 4, "seed": "redact"})["snapshot"]
        drawer = snapshot["turn"]["seat"]
        draw = next(
            a for a in c.list_legal_actions({"snapshot": snapshot})["actions"] if "drawStock" in a
        )
        applied, messages = redact["apply_for_each_seat"](c, snapshot, draw)
        drawn = next(e for e in applied["events"] if e["type"] == "CARDS_DRAWN")
        assert drawn["cards"]
    assert [m["seat"] for m in messages] == [0, 1, 2, 3]
    for m in messages:
        seen = next(e for e in m["events"] if e["type"] == "CARDS_DRAWN")
        assert seen["cards"] == (drawn["cards"] if m["seat"] == drawer else [])
        assert seen["cardCount"] == len(drawn["cards"])
        assert [bool(s["hand"]) for s in m["snapshot"]["seats"]] == [
            i == m["seat"] for i in range(4)
        ]
        assert m["snapshot"]["stock"] == [] and m["snapshot"]["stockHidden"]


def test_clients_carry_previous_and_views_as_messages(server):  # noqa: F811
    """The generated messages hold the new fields: a match carried with ``previous``."""
    from samba_adjudicator.schema.v1 import adjudicator_pb2 as apb

    with client(server, "grpc") as c:
        dealt = c.deal(apb.DealRequest(players=4, seed="carry", include_views=True))
        assert [v.seat for v in dealt.views] == [0, 1, 2, 3]
        assert dealt.spectator_view.snapshot.seats[0].hand_hidden
        final = c.replay_deal(apb.ReplayDealRequest(snapshot=dealt.snapshot))
        with pytest.raises(AdjudicatorError) as e:  # not over: refused with its field
            c.deal(apb.DealRequest(players=4, seed="next", previous=final.snapshot))
        assert [v.field for v in e.value.violations] == ["previous.turn.phase"]


def test_the_wheel_carries_the_client_and_the_schema_it_uses(tmp_path):
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--verbose",  # the build's own output, warnings included
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    # setuptools warned that the playground folder "would be ignored" until it was listed
    assert "would be ignored" not in built.stdout + built.stderr
    (wheel,) = tmp_path.glob("samba_adjudicator-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in (
        "client/__init__.py",
        "client/api.py",
        "client/transports.py",
        "client/py.typed",
        "client/_pb/adjudicator_pb2.py",
        "client/examples/play_deal.py",
        "engine/py.typed",
        "schema/v1/adjudicator_pb2.py",
        "schema/v1/adjudicator_pb2_grpc.py",
    ):
        assert f"samba_adjudicator/{module}" in names, module
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    assert "Requires-Dist: httpx" in zipfile.ZipFile(wheel).read(metadata).decode()


# -- a game server's day: computer moves, languages per call, every page, one parse --------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_computer_move_through_the_client(server, dealt, transport):  # noqa: F811
    move = {"seat": dealt["turn"]["seat"], "level": "BASIC", "seed": "client"}
    with client(server, transport) as c:
        suggested = c.suggest_action({"snapshot": dealt, **move})
        answer = c.apply_action({"snapshot": dealt, "computer": move})
        as_message = c.apply_action(
            pb.ApplyActionRequest(
                snapshot=c.deal(pb.DealRequest(players=4, seed="service-tests")).snapshot,
                computer=pb.ComputerMove(seat=move["seat"], level=pb.SuggestActionRequest.BASIC),
            )
        )
    assert answer["chosen"]["action"] == suggested["action"] and answer["legal"]
    assert isinstance(as_message, pb.ApplyActionResponse) and as_message.chosen.reason.code


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_language_is_chosen_per_call(server, dealt, transport):  # noqa: F811
    seat = dealt["turn"]["seat"]
    out_of_turn = {"snapshot": dealt, "action": {"seat": (seat + 1) % 4, "drawStock": {}}}
    with client(server, transport) as c, client(server, transport, locale="sv") as swedish:
        plain = c.validate_action(out_of_turn)["violations"][0]["message"]
        spanish = c.validate_action(out_of_turn, locale="es")["violations"][0]["message"]
        overridden = swedish.validate_action(out_of_turn, locale="es")["violations"][0]["message"]
        with pytest.raises(AdjudicatorError) as err:
            c.deal({"players": 4, "seed": "x", "dealer": 9}, locale="es")
    assert plain.startswith("it is seat") and spanish.startswith("es el turno del asiento")
    assert overridden == spanish
    assert err.value.violations[0].description == "dealer debe ser un asiento de 0 a 3, no 9"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_iter_legal_actions_fetches_every_page(server, dealt, transport):  # noqa: F811
    with client(server, transport) as c:
        draw = c.list_legal_actions({"snapshot": dealt})["actions"][0]
        drawn = c.apply_action({"snapshot": dealt, "action": draw})["snapshot"]
        whole = c.list_legal_actions({"snapshot": drawn, "pageSize": 1000})["actions"]
        paged = list(c.iter_legal_actions({"snapshot": drawn, "pageSize": 3}))
        as_messages = list(
            c.iter_legal_actions(
                pb.ListLegalActionsRequest(
                    snapshot=json_format.ParseDict(drawn, pb.Snapshot()), page_size=4
                )
            )
        )

        async def collect():
            async with async_client(server, transport) as ac:
                return [a async for a in ac.iter_legal_actions({"snapshot": drawn, "pageSize": 5})]

        by_asyncio = asyncio.run(collect())
    assert len(whole) > 3 and paged == whole == by_asyncio
    assert [json_format.MessageToDict(a) for a in as_messages] == [
        json_format.MessageToDict(json_format.ParseDict(a, pb.Action())) for a in whole
    ]


def test_a_rest_answer_is_parsed_once_as_it_arrives(server, http, dealt):  # noqa: F811
    """A dict request's answer is the JSON the server sent, not a protobuf round trip."""
    body = {"snapshot": dealt, "includeViews": True, "includeLegalActions": True}
    body["action"] = {"seat": dealt["turn"]["seat"], "drawStock": {}}
    raw = http.post("/v1/actions:apply", content=json.dumps(body)).json()
    parsed = []
    original = json_format.ParseDict
    with client(server, "rest") as c:
        json_format.ParseDict = lambda *a, **k: parsed.append(1) or original(*a, **k)
        try:
            answer = c.apply_action(body)
        finally:
            json_format.ParseDict = original
    assert answer == raw
    assert parsed == []  # neither the request nor the answer went through protobuf
