"""docs/rules.md#snapshot-fields: every field of a snapshot is a fact of play or derived from
the rest, and every derived one is checked, never trusted (issue 19).

Played positions of every profile (random legal actions, applied by the engine) and engine-
made endings go to a real server; each derived field is changed in turn and the server must
answer INVALID_ARGUMENT naming that field's path. Output-only booleans are changed only from
false to true (proto3 cannot tell a given false from an omitted one), output-only numbers
only to another non-zero value.
"""

from __future__ import annotations

import copy
import json

import pytest
from google.protobuf import json_format
from played_endings import asked_and_passed, played, went_out
from service_fixtures import http, rest_call, server  # noqa: F401 - fixtures

from samba_adjudicator.engine.ruleset import PROFILES, resolve
from samba_adjudicator.service.codec import convert

KINDS = ["GROUP", "RUN", "BLACK_THREES", "WILD_GROUP"]
STATUSES = ["INCOMPLETE", "CANASTA", "SAMBA", "CLOSED"]


def to_json(snap) -> dict:
    return json_format.MessageToDict(convert.snapshot_to_proto(snap))


def _other(value, choices):
    return next(c for c in choices if c != value)


def _seat_mutations(doc: dict) -> list[tuple[str, object]]:
    """(path, mutate) pairs for the seats' derived fields."""
    out = []
    sides = len(doc["sides"])
    for i, seat in enumerate(doc["seats"]):
        out.append((f"seats[{i}].side", ("set", ["seats", i, "side"], (i + 1) % sides)))
        if seat.get("hand"):
            count = len(seat["hand"])
            out.append((f"seats[{i}].handCount", ("set", ["seats", i, "handCount"], count + 1)))
            out.append((f"seats[{i}].handHidden", ("set", ["seats", i, "handHidden"], True)))
    return out


def _side_mutations(doc: dict) -> list[tuple[str, object]]:
    out = []
    for k, side in enumerate(doc["sides"]):
        seats = side.get("seats", [])
        out.append((f"sides[{k}].seats", ("set", ["sides", k, "seats"], [*seats, 9])))
        if not side.get("opened"):
            out.append((f"sides[{k}].opened", ("set", ["sides", k, "opened"], True)))
        need = side.get("initialMeldRequirement", 0)
        out.append(
            (
                f"sides[{k}].initialMeldRequirement",
                ("set", ["sides", k, "initialMeldRequirement"], need + 5),
            )
        )
        for j, meld in enumerate(side.get("melds", [])):
            where = ["sides", k, "melds", j]
            path = f"sides[{k}].melds[{j}]"
            out.append((f"{path}.kind", ("set", [*where, "kind"], _other(meld["kind"], KINDS))))
            status = _other(meld["status"], STATUSES)
            out.append((f"{path}.status", ("set", [*where, "status"], status)))
            if not meld.get("natural"):
                out.append((f"{path}.natural", ("set", [*where, "natural"], True)))
        for x, penalty in enumerate(side.get("penalties", [])):
            points = penalty["points"] - 100
            out.append(
                (
                    f"sides[{k}].penalties[{x}].points",
                    ("set", ["sides", k, "penalties", x, "points"], points),
                )
            )
    return out


def _table_mutations(doc: dict) -> list[tuple[str, object]]:
    out = []
    if doc.get("stock"):
        out.append(("stockCount", ("set", ["stockCount"], len(doc["stock"]) + 1)))
        out.append(("stockHidden", ("set", ["stockHidden"], True)))
    pile = doc.get("pile", {})
    if pile.get("top"):
        out.append(("pile.top", ("set", ["pile", "top"], _other(pile["top"], ["5C", "6C"]))))
    out.append(("pile.count", ("set", ["pile", "count"], pile.get("count", 0) + 1)))
    if not pile.get("blocked"):
        out.append(("pile.blocked", ("set", ["pile", "blocked"], True)))
    frozen = pile.get("frozenForSides", [])
    other = [k for k in range(len(doc["sides"])) if k not in frozen][:1] or [0, 0]
    out.append(("pile.frozenForSides", ("set", ["pile", "frozenForSides"], frozen + other)))
    waiting = doc["turn"].get("awaitingSeats", [])
    out.append(("turn.awaitingSeats", ("set", ["turn", "awaitingSeats"], [*waiting, 9])))
    return out


def _result_mutations(doc: dict) -> list[tuple[str, object]]:
    result = doc.get("result")
    if not result or result["reason"] != "WENT_OUT":
        return []
    out = [("result.seat", ("set", ["result", "seat"], (result["seat"] + 1) % len(doc["seats"])))]
    out.append(("result.concealed", ("set", ["result", "concealed"], not result.get("concealed"))))
    premium = result.get("premium")
    if premium:
        points = premium["points"] + 1
        out.append(("result.premium.points", ("set", ["result", "premium", "points"], points)))
        out.append(("result.premium.kind", ("set", ["result", "premium", "kind"], "JACKPOT")))
        out.append(("result.premium", ("drop", ["result", "premium"], None)))
    else:
        added = {"kind": "DEALT_HAND", "points": 1000}
        out.append(("result.premium", ("set", ["result", "premium"], added)))
    return out


def mutations(doc: dict) -> list[tuple[str, object]]:
    """Every derived field of ``doc`` with a change that makes it wrong."""
    return (
        _seat_mutations(doc) + _side_mutations(doc) + _table_mutations(doc) + _result_mutations(doc)
    )


def mutated(doc: dict, change) -> dict:
    how, where, value = change
    out = copy.deepcopy(doc)
    target = out
    for key in where[:-1]:
        target = target[key]
    if how == "drop":
        del target[where[-1]]
    else:
        target[where[-1]] = value
    return out


def score(http, doc: dict):  # noqa: F811 - http is the fixture passed through
    over = doc["turn"]["phase"] == "OVER"
    return rest_call(http, "ScoreDeal", {"snapshot": doc, "provisional": not over})


def violations(response) -> list[tuple[str, str]]:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT", error
    bad = next(d for d in error["details"] if d["@type"].endswith("google.rpc.BadRequest"))
    return [(v["field"], v["reason"]) for v in bad["fieldViolations"]]


def positions() -> list[tuple[str, object]]:
    out = []
    for profile in PROFILES:
        players = resolve(profile).players_allowed[-1]
        for n, snap in enumerate(played(profile, players, "fields", 120)):
            out.append((f"{profile}-{players}p-{n}", snap))
    for profile in ("classic", "pagat", "spanish"):
        out.append((f"{profile}-concealed", went_out(profile)))
    out.append(("spanish-with-partner", went_out("spanish", with_partner=True)))
    out.append(("spanish-during-play", went_out("spanish", from_dealt=False)))
    out.append(("spanish-not-concealed", went_out("spanish", concealed=False)))
    out.append(("spanish-penalty", asked_and_passed()))
    return out


POSITIONS = positions()


@pytest.mark.parametrize("name, snap", POSITIONS, ids=[name for name, _ in POSITIONS])
def test_every_derived_field_is_checked(http, name, snap):  # noqa: F811
    """Each derived field changed alone is refused with its own path; the position as the
    service wrote it is accepted."""
    doc = to_json(snap)
    assert score(http, doc).status_code == 200, score(http, doc).text
    changes = mutations(doc)
    assert changes
    missed = []
    for path, change in changes:
        fields = [f for f, _ in violations(score(http, mutated(doc, change)))]
        if f"snapshot.{path}" not in fields:
            missed.append((path, fields))
    assert not missed, missed


def test_positions_cover_every_profile_and_an_ending_with_a_premium():
    profiles = {snap.ruleset.profile for _, snap in POSITIONS}
    assert profiles == set(PROFILES)
    assert any(s.result is not None and s.result.premium for _, s in POSITIONS)
    assert any(side.penalties for _, s in POSITIONS for side in s.sides)
    assert any(s.result is not None and not s.result.concealed for _, s in POSITIONS)


# -- premiums on every route that takes a snapshot (issue 19, item 1) -------------------------

DRAW = {"seat": 0, "drawStock": {}}


def route_requests(doc: dict) -> dict[str, dict]:
    return {
        "ScoreDeal": {"snapshot": doc},
        "ValidateAction": {"snapshot": doc, "action": DRAW},
        "ApplyAction": {"snapshot": doc, "action": DRAW},
        "ListLegalActions": {"snapshot": doc},
        "GetPlayerView": {"snapshot": doc, "seat": 1},
        "ReplayDeal": {"snapshot": doc, "actions": [DRAW]},
        "CheckMeld": {"cards": ["7H", "7D", "7C"], "snapshot": doc, "seat": 0},
    }


FORGED = [
    # (profile of the ending, the premium its result claims, the problem's path)
    ("classic", {"kind": "DEALT_HAND", "points": 1000}, "snapshot.result.premium"),
    ("pagat", {"kind": "DURING_PLAY", "points": 500}, "snapshot.result.premium"),
    ("spanish", {"kind": "JACKPOT", "points": 1000}, "snapshot.result.premium.kind"),
    ("spanish", {"kind": "DEALT_HAND", "points": -1000}, "snapshot.result.premium.points"),
    ("spanish", {"kind": "DEALT_HAND", "points": 123456}, "snapshot.result.premium.points"),
    ("spanish", {"kind": "DURING_PLAY", "points": 500}, "snapshot.result.premium.kind"),
]


@pytest.mark.parametrize("method", list(route_requests({})))
@pytest.mark.parametrize("profile, premium, path", FORGED)
def test_a_forged_premium_is_refused_on_every_route(http, method, profile, premium, path):  # noqa: F811
    """Issue 19: a classic deal whose result claims DEALT_HAND 1000 scored 1,200 concealed
    bonus; now every route answers INVALID_ARGUMENT at the premium's path."""
    doc = to_json(went_out(profile))
    doc["result"]["premium"] = premium
    response = rest_call(http, method, route_requests(doc)[method])
    assert path in [f for f, _ in violations(response)]


def test_a_spanish_premium_without_concealed_going_out_is_refused(http):  # noqa: F811
    doc = to_json(went_out("spanish", concealed=False))
    doc["result"]["premium"] = {"kind": "DEALT_HAND", "points": 1000}
    for method, body in route_requests(doc).items():
        found = violations(rest_call(http, method, body))
        assert ("snapshot.result.premium", "PHASE_INCONSISTENT") in found, (method, found)


def test_the_earned_premium_is_scored(http):  # noqa: F811
    """The premium the engine wrote is accepted and scored (in concealedBonus)."""
    doc = to_json(went_out("spanish"))
    response = score(http, doc)
    assert response.status_code == 200, response.text
    assert response.json()["sides"][0]["concealedBonus"] == 1000
    assert json.dumps(doc["result"]["premium"]) == json.dumps(
        {"kind": "DEALT_HAND", "points": 1000}
    )


def test_the_premium_table_is_served_and_overridable(http):  # noqa: F811
    """GetRuleset lists spanish's premiums (and none for classic); an override replaces the
    table and a bad row is an invalid argument at its path."""
    spanish = rest_call(http, "GetRuleset", {"profile": "spanish"}).json()
    assert spanish["concealedPremiums"] == [
        {"kind": "DEALT_HAND", "points": 1000},
        {"kind": "DEALT_HAND_WITH_PARTNER", "points": 500},
        {"kind": "DURING_PLAY", "points": 500},
        {"kind": "DURING_PLAY_WITH_PARTNER", "points": 200},
    ]
    classic = rest_call(http, "GetRuleset", {"profile": "classic"}).json()
    assert classic.get("concealedPremiums", []) == []
    doc = to_json(went_out("spanish"))
    doc["ruleset"]["overrides"] = {"concealedPremiums": [{"kind": "DEALT_HAND", "points": 700}]}
    assert violations(score(http, doc)) == [
        ("snapshot.result.premium.points", "DERIVED_FIELD_DISAGREES")
    ]
    doc["result"]["premium"]["points"] = 700
    assert score(http, doc).json()["sides"][0]["concealedBonus"] == 700
    doc["ruleset"]["overrides"] = {"concealedPremiums": [{"kind": "JACKPOT", "points": 1}]}
    assert ("snapshot.ruleset.overrides.concealedPremiums[0].kind", "OUT_OF_RANGE") in violations(
        score(http, doc)
    )
