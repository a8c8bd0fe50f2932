"""`make scale-test` (issue 22): three replicas behind a real nginx, round-robin per call.

Three ``samba-adjudicator serve`` processes share one signing key and one page-token key
(tests/scale_cluster.py); nginx proxies REST (HTTP/1.1, ``proxy_pass``) and gRPC (HTTP/2,
``grpc_pass``) to them. Through it the Python and TypeScript example bots play whole
matches over both transports:

- undisturbed, one bot at a time: every call lands on another replica than the one before
  (nginx's access log names the replica of every call), signed snapshots, page tokens and
  answers are byte-identical whichever replica answers;
- during a rolling restart (each replica in turn gets SIGTERM, drains, and is started again
  on its ports) with the clients' default retry policy: no bot sees a failed call and
  every match ends as the undisturbed one with the same seed;
- with one replica SIGKILLed mid-match: the retries carry the matches on.

Each test prints its figures (``make scale-test`` shows them).
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections import Counter

import grpc
import httpx
import pytest
from google.protobuf import json_format
from scale_cluster import (
    NGINX,
    TS_BOT,
    Match,
    Nginx,
    Replica,
    answered_by,
    failed_attempt,
    play,
    shared_keys,
)

from samba_adjudicator.service.base import pb

pytestmark = pytest.mark.servers

BOTS = [("python", "rest"), ("python", "grpc"), ("typescript", "rest"), ("typescript", "grpc")]
#: Results of undisturbed matches, by (bot, seed): what every later match must repeat.
BASELINE: dict[tuple[str, str], dict] = {}


@pytest.fixture(scope="module")
def cluster():
    import os

    if not os.access(NGINX, os.X_OK):
        pytest.fail(f"nginx is needed at {NGINX}: `make nginx` installs it (apt-get install nginx)")
    if not TS_BOT.exists():
        pytest.fail(f"{TS_BOT} is missing: `make test-typescript` builds it")
    env = {**shared_keys(), "SAMBA_SHUTDOWN_GRACE_SECONDS": "3", "SAMBA_LOG_LEVEL": "warning"}
    replicas = [Replica(env) for _ in range(3)]
    nginx = None
    try:
        nginx = Nginx(replicas)
        yield replicas, nginx
    finally:
        if nginx is not None:
            nginx.close()
        for r in replicas:
            r.close()


def _all_calls(nginx: Nginx) -> list[dict]:
    return nginx.calls("rest") + nginx.calls("grpc")


def _per_replica(calls: list[dict], replicas: list[Replica]) -> dict[str, int]:
    """Calls answered by each replica (``replica-0`` ...), whichever its transport."""
    names = {}
    for i, r in enumerate(replicas):
        names[f"127.0.0.1:{r.http_port}"] = names[f"127.0.0.1:{r.grpc_port}"] = f"replica-{i}"
    return dict(sorted(Counter(names[answered_by(c)] for c in calls).items()))


def _baseline(bot: str, seed: str, nginx: Nginx) -> dict:
    if (bot, seed) not in BASELINE:
        match = play(bot, "rest", seed, nginx)
        assert match.status == 0, match.output
        BASELINE[(bot, seed)] = match.result
    return BASELINE[(bot, seed)]


def test_matches_spread_every_call_over_the_replicas(cluster):
    replicas, nginx = cluster
    ports = {f"127.0.0.1:{r.http_port}" for r in replicas} | {
        f"127.0.0.1:{r.grpc_port}" for r in replicas
    }
    played = []
    for bot, transport in BOTS:
        before = len(nginx.calls(transport))
        match = play(bot, transport, "scale-0", nginx)
        assert match.status == 0, match.output
        calls = nginx.calls(transport)[before:]
        landed = [answered_by(c) for c in calls]
        assert len(landed) > 50 and set(landed) <= ports
        # one bot alone: each call on another replica than the one before, all three used
        assert all(a != b for a, b in zip(landed, landed[1:], strict=False)), landed[:20]
        assert len(set(landed)) == 3
        assert not [c for c in calls if failed_attempt(c)]
        # both clients send the deal's commitment as the table key, over both transports
        assert {c["table"] for c in calls} == {match.commitment}, (bot, transport)
        played.append((match, _per_replica(calls, replicas)))
    by_bot: dict[str, list[dict]] = {}
    for match, _ in played:
        by_bot.setdefault(match.bot, []).append(match.result)
    for bot, results in by_bot.items():
        assert results[0] == results[1], (bot, results)  # the same match on both transports
        BASELINE[(bot, "scale-0")] = results[0]
    print("\nmatches played through nginx, one bot at a time:")
    for match, spread in played:
        print(
            f"  {match.bot:10} over {match.transport:4}: {match.result['applied']} actions, "
            f"sides {match.result['sides']}; calls per replica {spread}"
        )


def _deal_and_list(base_url: str, grpc_target: str) -> tuple:
    """From one replica, as bytes: a signed Deal, the move that draws, one page of the legal
    actions after it (REST and gRPC), and an out-of-turn ValidateAction."""
    with httpx.Client(base_url=base_url, timeout=30) as http:
        deal = http.post("/v1/deals:deal", content=json.dumps({"players": 4, "seed": "bytes"}))
        dealt = deal.json()["snapshot"]
        draw = http.post("/v1/actions:list", content=json.dumps({"snapshot": dealt}))
        move = {"snapshot": dealt, "action": draw.json()["actions"][0]}
        applied = http.post("/v1/actions:apply", content=json.dumps(move))
        drawn = applied.json()["snapshot"]
        listing = {"snapshot": drawn, "pageSize": 2}
        page = http.post("/v1/actions:list", content=json.dumps(listing))
        seat = (drawn["turn"]["seat"] + 1) % 4
        check = {"snapshot": drawn, "action": {"seat": seat, "drawStock": {}}}
        verdict = http.post("/v1/actions:validate", content=json.dumps(check))
    with grpc.insecure_channel(grpc_target) as ch:
        raw = ch.unary_unary("/samba.v1.Adjudicator/ListLegalActions")
        message = json_format.ParseDict(listing, pb.ListLegalActionsRequest())
        grpc_page = raw(message.SerializeToString(), timeout=30)
    return deal.content, applied.content, page.content, verdict.content, grpc_page


def test_answers_are_byte_identical_whichever_replica_answers(cluster):
    replicas, nginx = cluster
    first = replicas[0].server
    answers = {_deal_and_list(r.server.base_url, r.server.grpc_target) for r in replicas}
    assert len(answers) == 1, "replicas answered different bytes"
    deal, applied, page, verdict, _ = answers.pop()
    assert json.loads(deal)["snapshot"]["signature"].startswith("v1.k1.")
    assert json.loads(verdict)["legal"] is False
    snapshot = json.loads(applied)["snapshot"]
    assert json.loads(page)["nextPageToken"]
    # Paging through nginx: each page from another replica, the pages the whole list.
    whole = httpx.post(
        first.base_url + "/v1/actions:list",
        content=json.dumps({"snapshot": snapshot, "pageSize": 1000}),
        timeout=30,
    ).json()["actions"]
    before = len(nginx.calls("rest"))
    actions, token = [], ""
    with httpx.Client(base_url=nginx.rest_url, timeout=30) as http:
        while True:
            body = {"snapshot": snapshot, "pageSize": 2, "pageToken": token}
            r = http.post("/v1/actions:list", content=json.dumps(body))
            assert r.status_code == 200, r.text
            actions += r.json()["actions"]
            token = r.json()["nextPageToken"]
            if not token:
                break
    landed = [answered_by(c) for c in nginx.calls("rest")[before:]]
    assert len(landed) > 3 and all(a != b for a, b in zip(landed, landed[1:], strict=False))
    assert actions == whole
    print(f"\npaged {len(whole)} actions in {len(landed)} pages over {len(set(landed))} replicas")


def _keep_playing(bot: str, transport: str, nginx: Nginx, until: threading.Event, out: list):
    """Matches with seeds roll-0, roll-1, ... until ``until`` is set (the one being played
    then is finished)."""
    index = 0
    while not until.is_set() or index == 0:
        out.append(play(bot, transport, f"roll-{index}", nginx))
        index += 1


def _play_while(nginx: Nginx, disturb) -> tuple[list[Match], float]:
    """Every bot plays matches while ``disturb()`` runs; the matches and its seconds."""
    done = threading.Event()
    matches: list[Match] = []
    players = [
        threading.Thread(target=_keep_playing, args=(bot, tr, nginx, done, matches))
        for bot, tr in BOTS
    ]
    for t in players:
        t.start()
    time.sleep(2.0)  # the bots are mid-match
    started = time.monotonic()
    try:
        disturb()
    finally:
        done.set()
        seconds = time.monotonic() - started
        for t in players:
            t.join(600)
    return matches, seconds


def _report(title: str, matches: list[Match], calls: list[dict], seconds: float, replicas) -> None:
    failed = [m for m in matches if m.status != 0]
    retried = [c for c in calls if failed_attempt(c)]
    print(f"\n{title} ({seconds:.1f} s of disturbance):")
    print(f"  matches played: {len(matches)} ({Counter((m.bot, m.transport) for m in matches)})")
    print(f"  calls: {len(calls)}, per replica {_per_replica(calls, replicas)}")
    print(f"  failed calls seen by the bots: {len(failed)}")
    print(f"  attempts refused or cut (502/503, UNAVAILABLE/CANCELLED), retried: {len(retried)}")


def _check_results(matches: list[Match], nginx: Nginx) -> None:
    failed = [m for m in matches if m.status != 0]
    assert not failed, failed[0].output[-2000:] + "\nnginx:\n" + nginx.errors()[-3000:]
    for m in matches:
        assert m.result == _baseline(m.bot, m.seed, nginx), (m.bot, m.transport, m.seed)


def test_a_rolling_restart_during_play_fails_no_call(cluster):
    replicas, nginx = cluster
    before = len(nginx.calls("rest")), len(nginx.calls("grpc"))

    def rolling_restart() -> None:
        for r in replicas:
            assert r.stop(signal.SIGTERM) == 0  # drained cleanly
            r.restart()
            time.sleep(1.0)  # calls reach the new process before the next one goes

    matches, seconds = _play_while(nginx, rolling_restart)
    calls = nginx.calls("rest")[before[0] :] + nginx.calls("grpc")[before[1] :]
    _report("rolling restart of the 3 replicas during play", matches, calls, seconds, replicas)
    _check_results(matches, nginx)
    assert len(_per_replica(calls, replicas)) == 3


def test_a_replica_killed_mid_match_the_retries_carry_on(cluster):
    replicas, nginx = cluster
    before = len(nginx.calls("rest")), len(nginx.calls("grpc"))
    victim = replicas[1]

    def kill_one() -> None:
        assert victim.stop(signal.SIGKILL) == -signal.SIGKILL
        time.sleep(3.0)  # the others carry the matches meanwhile
        victim.restart()

    matches, seconds = _play_while(nginx, kill_one)
    calls = nginx.calls("rest")[before[0] :] + nginx.calls("grpc")[before[1] :]
    _report("one replica SIGKILLed mid-match", matches, calls, seconds, replicas)
    _check_results(matches, nginx)
