"""The `samba-adjudicator` command, run for real as a subprocess (docs/api.md#server).

Tests marked ``engine`` need the engine's deal/apply/… (engine/); the others only rulesets.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXE = REPO / ".venv" / "bin" / "samba-adjudicator"


def cli(*args, stdin: str = "", env=None):
    p = subprocess.run(
        [str(EXE), *args], input=stdin, capture_output=True, text=True, timeout=60, env=env
    )
    assert "Traceback" not in p.stderr, p.stderr
    body = json.loads(p.stdout) if p.stdout.strip() else None
    return p.returncode, body


def assert_error(body, http, status, reason):
    err = body["error"]
    assert err["code"] == http and err["status"] == status and err["message"]
    info = err["details"][0]
    assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
    assert info["reason"] == reason and info["domain"] == "samba.v1"
    assert info["metadata"]["requestId"]
    return err


def test_list_rulesets():
    rc, body = cli("list-rulesets", stdin="{}")
    assert rc == 0
    profiles = [r["profile"] for r in body["rulesets"]]
    assert profiles == ["classic", "pagat", "spanish", "canasta", "bolivia", "official"]
    classic = body["rulesets"][0]
    assert classic["groupWildRule"] == "MORE_NATURALS" and classic["wildOnlyGroups"] is False
    assert classic["version"] and classic["description"]


def test_get_ruleset(tmp_path):
    f = tmp_path / "req.json"
    f.write_text('{"profile": "canasta"}')
    rc, body = cli("get-ruleset", "--input", str(f))
    assert rc == 0 and body["profile"] == "canasta" and body["runsAllowed"] is False
    rc, body = cli("get-ruleset", stdin='{"profile": "classic+uruguayan"}')
    assert rc == 0 and body["sideWildLimit"] == 2


def test_get_ruleset_unknown_profile_is_not_found():
    rc, body = cli("get-ruleset", stdin='{"profile": "nope"}')
    assert rc == 1
    err = assert_error(body, 404, "NOT_FOUND", "UNKNOWN_PROFILE")
    assert len(err["details"]) == 1


@pytest.mark.parametrize("stdin", ["", "{", "not json", "[]"])
def test_garbage_json_is_invalid_argument(stdin):
    rc, body = cli("deal", stdin=stdin)
    assert rc == 2
    err = assert_error(body, 400, "INVALID_ARGUMENT", "INVALID_REQUEST")
    assert err["details"][1]["@type"] == "type.googleapis.com/google.rpc.BadRequest"
    assert err["details"][1]["fieldViolations"][0]["reason"] == "MALFORMED_JSON"


def test_every_problem_listed():
    rc, body = cli(
        "deal",
        stdin='{"ruleset": {"profile": "classic", "overides": {}}, "players": "four", "sed": "x"}',
    )
    assert rc == 2
    fv = assert_error(body, 400, "INVALID_ARGUMENT", "INVALID_REQUEST")["details"][1]
    got = {(v["field"], v["reason"]) for v in fv["fieldViolations"]}
    assert got == {
        ("ruleset.overides", "UNKNOWN_FIELD"),
        ("players", "OUT_OF_RANGE"),
        ("sed", "UNKNOWN_FIELD"),
        ("seed", "REQUIRED"),
    }


def test_unknown_profile_in_body_is_invalid_argument():
    rc, body = cli("deal", stdin='{"ruleset": {"profile": "nope"}, "players": 4, "seed": "s"}')
    assert rc == 2
    fv = assert_error(body, 400, "INVALID_ARGUMENT", "INVALID_REQUEST")["details"][1]
    assert fv["fieldViolations"][0]["field"] == "ruleset.profile"
    assert fv["fieldViolations"][0]["reason"] == "UNKNOWN_PROFILE"


def test_help_and_unknown_command_no_traceback():
    p = subprocess.run([str(EXE), "--help"], capture_output=True, text=True)
    assert p.returncode == 0 and "list-legal-actions" in p.stdout
    p = subprocess.run([str(EXE), "no-such-method"], capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr


# -- engine-dependent ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def dealt():
    rc, body = cli(
        "deal",
        stdin='{"ruleset": {"profile": "classic"}, "players": 4, "seed": "cli-test", "dealer": 0}',
    )
    assert rc == 0, body
    return body["snapshot"]


def test_deal_is_deterministic(dealt):
    rc, again = cli(
        "deal", stdin='{"ruleset": {"profile": "classic"}, "players": 4, "seed": "cli-test"}'
    )
    assert again["snapshot"] == dealt
    assert dealt["turn"]["seat"] == 1 and dealt["turn"]["phase"] == "DRAW"
    assert dealt["ply"] == 0 and "result" not in dealt and dealt["stockHidden"] is False


def test_apply_validate_and_legal_false(dealt):
    rc, body = cli(
        "apply-action",
        stdin=json.dumps({"snapshot": dealt, "action": {"seat": 1, "drawStock": {}}}),
    )
    assert rc == 0 and body["legal"] is True and body["snapshot"]["ply"] == 1
    assert body["events"][0]["type"] == "CARDS_DRAWN" and "score" not in body
    rc, body = cli(
        "validate-action",
        stdin=json.dumps({"snapshot": dealt, "action": {"seat": 2, "drawStock": {}}}),
    )
    assert rc == 0 and body["legal"] is False
    assert body["violations"][0]["code"] == "NOT_YOUR_TURN"


def test_list_legal_actions_and_view(dealt):
    rc, body = cli("list-legal-actions", stdin=json.dumps({"snapshot": dealt}))
    assert rc == 0 and body["totalSize"] == len(body["actions"]) >= 1
    assert body["nextPageToken"] == "" and body["complete"] is True
    rc, body = cli("get-player-view", stdin=json.dumps({"snapshot": dealt, "seat": 1}))
    assert rc == 0 and body["viewerSeat"] == 1
    view = body["snapshot"]
    assert view["seats"][0]["handHidden"] is True and view["seats"][1]["hand"]
    rc, body = cli("score-deal", stdin=json.dumps({"snapshot": view, "provisional": True}))
    assert rc == 2
    assert_error(body, 400, "INVALID_ARGUMENT", "SNAPSHOT_IS_VIEW")


def test_bad_card_in_snapshot_exit_2(dealt):
    snap = json.loads(json.dumps(dealt))
    snap["seats"][0]["hand"][3] = "ZZ"
    rc, body = cli(
        "validate-action",
        stdin=json.dumps({"snapshot": snap, "action": {"seat": 1, "discard": {"card": "1C"}}}),
    )
    assert rc == 2
    fv = assert_error(body, 400, "INVALID_ARGUMENT", "INVALID_REQUEST")["details"][1]
    got = {(v["field"], v["reason"]) for v in fv["fieldViolations"]}
    assert got == {
        ("snapshot.seats[0].hand[3]", "UNKNOWN_CARD_CODE"),
        ("action.discard.card", "UNKNOWN_CARD_CODE"),
    }


def test_check_meld_and_replay(dealt):
    rc, body = cli("check-meld", stdin='{"cards": ["7h", "8h", "9h"]}')
    assert rc == 0 and body["valid"] is True and body["kind"] == "RUN"
    rc, body = cli(
        "replay-deal",
        stdin=json.dumps(
            {
                "snapshot": dealt,
                "actions": [{"seat": 1, "drawStock": {}}, {"seat": 3, "drawStock": {}}],
            }
        ),
    )
    assert rc == 0 and body["firstIllegalIndex"] == 1
    assert body["results"][1]["legal"] is False and body["snapshot"]["ply"] == 1
    assert body["results"][1]["violations"][0]["field"].startswith("actions[1]")


def test_signing_via_environment(dealt):
    import os

    env = dict(os.environ, SAMBA_SNAPSHOT_KEYS="k1:" + "A" * 44)
    rc, body = cli("deal", stdin='{"players": 2, "seed": "s"}', env=env)
    assert rc == 0 and body["snapshot"]["signature"].startswith("v1.k1.")
    rc, body = cli(
        "validate-action",
        env=env,
        stdin=json.dumps({"snapshot": dealt, "action": {"seat": 1, "drawStock": {}}}),
    )
    assert rc == 1
    assert_error(body, 403, "PERMISSION_DENIED", "SNAPSHOT_SIGNATURE_MISSING")
