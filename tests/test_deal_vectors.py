"""The one set of deal-check vectors (tests/deal_vectors.json, written by tests/deal_vectors.py)
held against the service's check (the engine in process, and VerifyDeal over REST and gRPC)
and the Python client's ``verify_deal``; clients/typescript/test/dealCheck.test.ts holds the
TypeScript client to the same file (issue 47 items 1 and 8).

Every seat's and the spectator's view at every ply of each deal verifies (a spectator's
proves nothing and says so), and each forgery the file names is refused with the problems it
names, the same by each check."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from builders import load_snapshot
from google.protobuf import json_format
from service_fixtures import channel, grpc_call, http, rest_call, server, stub  # noqa: F401

from samba_adjudicator import engine
from samba_adjudicator.client.deal_check import verify_deal as client_verify
from samba_adjudicator.client.errors import AdjudicatorError
from samba_adjudicator.engine.deal_seed import commitment
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec import actions, convert
from samba_adjudicator.service.pipeline.api import Adjudicator

VECTORS = json.loads((Path(__file__).parent / "deal_vectors.json").read_text())
DEALS = {d["name"]: d for d in VECTORS["deals"]}
REQUESTS = {r["name"]: r for r in VECTORS["requests"]}


def _json(snap) -> dict:
    return json_format.MessageToDict(convert.snapshot_to_proto(snap))


def _positions(vector: dict) -> Iterator[engine.Snapshot]:
    """Every snapshot of the deal: Deal's answer (its ruleset is the vector's), then each
    action applied."""
    answer = Adjudicator().call("Deal", json_format.ParseDict(vector["deal"], pb.DealRequest()))
    assert json_format.MessageToDict(answer.ruleset) == vector["ruleset"]
    s = load_snapshot(answer.snapshot)
    yield s
    for k, action in enumerate(vector["actions"]):
        msg = json_format.ParseDict(action, pb.Action())
        s = engine.apply(s, actions.action_from_proto(msg, f"actions[{k}]", [])).snapshot
        yield s


def views(vector: dict) -> Iterator[tuple[int, int | None, dict]]:
    """(ply, viewer, the view as proto3 JSON) for every seat and the spectator at every ply."""
    for s in _positions(vector):
        for viewer in (*range(len(s.seats)), None):
            yield s.ply, viewer, _json(engine.player_view(s, viewer))


# -- the forgeries the file names, applied to a view ---------------------------------------


def _hidden(seat: dict) -> bool:
    return not seat.get("hand") and (seat.get("handCount", 0) > 0 or seat.get("handHidden", False))


def _shown(view: dict) -> list[int]:
    return [i for i, s in enumerate(view["seats"]) if s.get("dealt") or not _hidden(s)]


def _with_seat(view: dict, i: int, **fields) -> dict:
    seats = [dict(s) for s in view["seats"]]
    seats[i].update(fields)
    return {**view, "seats": seats}


def forged(view: dict, seed: str, given: list[str]) -> Iterator[tuple[str, int | None, tuple]]:
    """(forgery, seat, (view, seed, contributions)) for each forgery of the file that applies."""
    n = len(view["seats"])
    yield (
        "commitment-other",
        None,
        ({**view, "dealCommitment": commitment(seed + "x")}, seed, given),
    )
    yield "commitment-removed", None, ({**view, "dealCommitment": ""}, seed, given)
    dealer = (view.get("dealer", 0) + 1) % n
    yield "dealer-next", None, ({**view, "dealer": dealer}, seed, given)
    number = view.get("dealNumber", 1) + 1
    yield "deal-number-next", None, ({**view, "dealNumber": number}, seed, given)
    for i in _shown(view):
        dealt = view["seats"][i].get("dealt", [])
        yield "dealt-emptied", i, (_with_seat(view, i, dealt=[]), seed, given)
        if dealt:
            other = ["KS" if dealt[0] == "AS" else "AS", *dealt[1:]]
            yield "dealt-card-changed", i, (_with_seat(view, i, dealt=other), seed, given)
            if dealt[1:] + dealt[:1] != dealt:
                rotated = dealt[1:] + dealt[:1]
                yield "dealt-rotated", i, (_with_seat(view, i, dealt=rotated), seed, given)
    for i, s in enumerate(view["seats"]):
        if s.get("handHidden") and not s.get("handCount") and not s.get("dealt"):
            yield "hidden-cleared", i, (_with_seat(view, i, handHidden=False), seed, given)


def forged_seeds(view: dict, seed: str, given: list[str]) -> Iterator[tuple[str, None, tuple]]:
    yield "seed-other", None, (view, seed + "x", given)
    yield "contribution-changed", None, (view, seed, [given[0] + "x", *given[1:]])
    yield "contributions-reversed", None, (view, seed, given[::-1])
    yield "contribution-dropped", None, (view, seed, given[:-1])


def forged_here(ply: int, last: int, viewer: int | None, players: int) -> bool:
    """The file's sweep: every view of the first and the final position is forged, and at
    each ply between one view, the seats and then the spectator in turn (every view verifies
    at every ply; forging all of them would cost each check some 30,000 runs)."""
    turn = ply % (players + 1)
    return ply in (0, last) or (viewer if viewer is not None else players) == turn


def expected(name: str, seat: int | None, view: dict) -> set[tuple[str, str]]:
    """The problems the file says the forgery brings."""
    out = set()
    for field, reason in VECTORS["forgeries"][name]["expect"]:
        if field == "{shown}":
            shown = _shown(view)
            out |= {(f"deal.seats[{i}].dealt", reason) for i in shown}
            out |= set() if shown else {("deal.seats", "NOTHING_TO_CHECK")}
        else:
            out.add((field.replace("{seat}", str(seat)), reason))
    return out


# -- the checks ------------------------------------------------------------------------------


def engine_check(view: dict, seed: str, given: list[str]) -> list[tuple[str, str]]:
    """The service's check (engine.deal_proof) of a view given as JSON."""
    problems: list = []
    snap = convert.snapshot_from_proto(json_format.ParseDict(view, pb.Snapshot()), "deal", problems)
    assert not problems and snap is not None
    return [(p.field, p.reason) for p in engine.verify_deal(snap, seed, given)]


def client_check(view: dict, seed: str, given: list[str], ruleset: dict) -> list[tuple[str, str]]:
    answer = client_verify(view, seed, given, ruleset=ruleset)
    assert answer["verified"] == (not answer["problems"])
    return [(p["field"], p["reason"]) for p in answer["problems"]]


def _seeds(vector: dict) -> tuple[str, list[str]]:
    return vector["deal"]["seed"], vector["deal"]["seedContributions"]


@pytest.mark.parametrize("name", DEALS)
def test_every_view_at_every_ply_verifies_and_every_forgery_is_refused(name):
    vector = DEALS[name]
    seed, given = _seeds(vector)
    last = len(vector["actions"])
    counted = {"views": 0, "forgeries": 0}
    for ply, viewer, view in views(vector):
        honest = [] if viewer is not None else [("deal.seats", "NOTHING_TO_CHECK")]
        assert engine_check(view, seed, given) == honest, (ply, viewer)
        assert client_check(view, seed, given, vector["ruleset"]) == honest, (ply, viewer)
        counted["views"] += 1
        if not forged_here(ply, last, viewer, len(view["seats"])):
            continue
        cases = list(forged(view, seed, given))
        if ply in (0, last):
            cases += list(forged_seeds(view, seed, given))
        for forgery, seat, (bad, s, c) in cases:
            found = engine_check(bad, s, c)
            assert found, (ply, viewer, forgery, seat)
            assert expected(forgery, seat, view) <= set(found), (ply, viewer, forgery, seat)
            assert client_check(bad, s, c, vector["ruleset"]) == found, (ply, viewer, forgery)
            counted["forgeries"] += 1
    assert counted["views"] > 100 and counted["forgeries"] > counted["views"]


def test_the_vectors_cover_every_profile_both_tables_a_deal_that_went_out_and_overrides():
    from samba_adjudicator.engine.ruleset import PROFILES, resolve

    tables = {(d["deal"]["ruleset"]["profile"], d["deal"]["players"]) for d in DEALS.values()}
    for profile in PROFILES:
        allowed = resolve(profile).players_allowed
        assert {(profile, min(allowed)), (profile, max(allowed))} <= tables
    # a deal with overrides: its ruleset (Deal's answer) is not the profile's, and only it
    # verifies the deal with no server
    overridden = next(d for d in DEALS.values() if "overrides" in d["deal"]["ruleset"])
    plain = next(d for d in DEALS.values() if d["deal"]["ruleset"] == {"profile": "classic"})
    assert overridden["ruleset"]["version"] != plain["ruleset"]["version"]
    view = next(v for _, viewer, v in views(overridden) if viewer == 0)
    seed, given = _seeds(overridden)
    assert client_check(view, seed, given, overridden["ruleset"]) == []
    assert client_check(view, seed, given, plain["ruleset"]) != []
    assert set(VECTORS["forgeries"]) >= {"hidden-cleared", "dealt-emptied", "commitment-other"}


# -- the requests given whole: the service over REST and gRPC, and the client --------------


def _answer_of_client(request: dict, ruleset: dict) -> dict:
    try:
        answer = client_verify(
            request["deal"],
            request["seed"],
            request.get("seedContributions", []),
            ruleset=ruleset,
        )
    except AdjudicatorError as e:
        return {
            "refused": {
                "status": e.status,
                "reason": e.reason,
                "violations": [[v.field, v.reason] for v in e.violations],
            }
        }
    return {
        "verified": answer["verified"],
        "problems": [[p["field"], p["reason"]] for p in answer["problems"]],
    }


def _recorded(case: dict) -> dict:
    return {k: v for k, v in case.items() if k in ("verified", "problems", "refused")}


@pytest.mark.parametrize("name", REQUESTS)
def test_the_client_answers_each_request_as_the_service(name):
    case = REQUESTS[name]
    assert _answer_of_client(case["request"], DEALS["classic-2"]["ruleset"]) == _recorded(case)


def _answer_over_rest(http, request: dict) -> dict:  # noqa: F811
    r = rest_call(http, "VerifyDeal", request)
    body = r.json()
    if r.status_code != 200:
        details = body["error"]["details"]
        info = next(d for d in details if d["@type"].endswith("ErrorInfo"))
        bad = [v for d in details for v in d.get("fieldViolations", [])]
        return {
            "refused": {
                "status": body["error"]["status"],
                "reason": info["reason"],
                "violations": [[v["field"], v["reason"]] for v in bad],
            }
        }
    return {
        "verified": body["verified"],
        "problems": [[p["field"], p["reason"]] for p in body["problems"]],
    }


def _answer_over_grpc(stub, request: dict) -> dict:  # noqa: F811
    from samba_adjudicator.client.errors import from_grpc

    try:
        answer = grpc_call(stub, "VerifyDeal", request, timeout=30)
    except grpc.RpcError as e:
        err = from_grpc(e, "")
        return {
            "refused": {
                "status": err.status,
                "reason": err.reason,
                "violations": [[v.field, v.reason] for v in err.violations],
            }
        }
    return {
        "verified": answer.verified,
        "problems": [[p.field, p.reason] for p in answer.problems],
    }


@pytest.mark.servers
def test_the_service_answers_each_request_as_recorded_over_rest_and_grpc(http, stub):  # noqa: F811
    for name, case in REQUESTS.items():
        assert _answer_over_rest(http, case["request"]) == _recorded(case), name
        assert _answer_over_grpc(stub, case["request"]) == _recorded(case), name


@pytest.mark.servers
def test_the_first_and_final_views_verify_over_rest_and_grpc(http, stub):  # noqa: F811
    """Every view of each deal's first and final position on the real servers, and each
    forgery of the final ones: the same answers as the check in process."""
    for vector in DEALS.values():
        seed, given = _seeds(vector)
        last = len(vector["actions"])
        for ply, viewer, view in views(vector):
            if ply not in (0, last):
                continue
            cases = [("honest", None, (view, seed, given))]
            cases += list(forged(view, seed, given)) if ply == last else []
            for forgery, _, (bad, s, c) in cases:
                want = engine_check(bad, s, c)
                request = {"deal": bad, "seed": s, "seedContributions": c}
                recorded = {"verified": not want, "problems": [list(p) for p in want]}
                assert _answer_over_rest(http, request) == recorded, (ply, viewer, forgery)
                assert _answer_over_grpc(stub, request) == recorded, (ply, viewer, forgery)
