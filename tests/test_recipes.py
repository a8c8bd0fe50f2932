"""The Python client's recipes (clients/python/client/examples/: match, turn_timer, undo,
reconnect, teaching_view; docs/guide.md#recipes) run as a user runs them, over REST and
gRPC, against a real server; the match also against a signing one."""

from __future__ import annotations

import base64
import json
import subprocess
import sys

import pytest
from service_fixtures import ROOT, ServerProcess, server  # noqa: F401

pytestmark = pytest.mark.servers


def run(recipe: str, target: str, transport: str, *args: str) -> dict:
    p = subprocess.run(
        [sys.executable, "-m", f"samba_adjudicator.client.examples.{recipe}"]
        + ["--transport", transport, "--target", target, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def both(server, recipe: str, *args: str) -> list[dict]:  # noqa: F811
    return [
        run(recipe, server.base_url, "rest", *args),
        run(recipe, server.grpc_target, "grpc", *args),
    ]


@pytest.fixture(scope="module")
def signing_server():
    key = base64.b64encode(bytes(range(32))).decode()
    s = ServerProcess(env={"SAMBA_SNAPSHOT_KEYS": f"k1:{key}"})
    yield s
    s.close()


@pytest.mark.parametrize("signed", [False, True], ids=["plain", "signed"])
def test_a_whole_match_across_deals(server, signing_server, signed):  # noqa: F811
    for report in both(signing_server if signed else server, "match", "--max-deals", "2"):
        assert report["deals"] == 2, report
        assert len(report["matchTotals"]) == 2
        assert report.get("draw") or report.get("winnerSide") in (0, 1)


def test_a_timed_out_player_is_moved_for_and_their_late_move_refused(server):  # noqa: F811
    for report in both(server, "turn_timer", "--turn-seconds", "0.05"):
        assert report["forced"] >= 1, report
        assert report["lateRefused"] == report["forced"]


def test_a_meld_is_undone_and_a_draw_is_not(server):  # noqa: F811
    for report in both(server, "undo"):
        assert report["undone"] == 1, report
        assert "CARDS_DRAWN" in report["refused"]
        assert report["afterUndoLegal"]


def test_a_reconnecting_player_gets_its_view_of_the_current_snapshot(server):  # noqa: F811
    rest, grpc = both(server, "reconnect")
    assert rest == grpc == {"seat": 2, "ply": 12, "hidden": [0, 1, 3], "actions": rest["actions"]}


def test_a_teaching_view_and_a_finished_deals_review_open_every_hand(server):  # noqa: F811
    rest, grpc = both(server, "teaching_view")
    assert rest == grpc
    assert rest["teachingOpenHands"] == 4
    assert rest["inPlay"] == ["INVALID_ARGUMENT", ["reveal"]]
    assert rest["reviewOpenHands"] == sum(1 for n in rest["reviewHands"] if n)
