"""ListLegalActions page tokens reveal nothing hidden, and work across workers and replicas
that share a key (issue 11, findings 4 and 10)."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json

import httpx
import pytest
from builders import make_snapshot
from service_fixtures import ServerProcess, cli_call

from samba_adjudicator.engine import model as m
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.errors import ApiError
from samba_adjudicator.service.codec import convert, jsonio
from samba_adjudicator.service.codec.signing import Signer
from samba_adjudicator.service.ops import config, page_tokens
from samba_adjudicator.service.pipeline.api import Adjudicator

pytestmark = pytest.mark.servers


def _late_position() -> m.Snapshot:
    """Seat 0 to play; seat 1 holds 4D 4S and seat 3 KC KD, hidden from seat 0."""
    return make_snapshot(
        "classic",
        4,
        hands={0: "QH QS QD 7H 8H 9H 10H 5C 5D 2S 4C 6C KS AD", 1: "4D 4S", 2: "JK", 3: "KC KD"},
        discard="9C",
        turn_seat=0,
        phase=m.Phase.PLAY,
        took_pile=False,
    )


def _token_binding(token: str) -> str:
    return json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))["d"]


def _unkeyed_digest(snap: m.Snapshot) -> str:
    """What a player can compute for a guess of the hidden cards, without any key."""
    req = pb.ListLegalActionsRequest(snapshot=convert.snapshot_to_proto(snap))
    return hashlib.sha256(
        snap.ruleset.version.encode() + b"\0" + req.SerializeToString(deterministic=True)
    ).hexdigest()[:32]


def test_a_player_cannot_recover_hidden_cards_from_a_token():
    truth = _late_position()
    token = (
        Adjudicator()
        .call(
            "ListLegalActions",
            pb.ListLegalActionsRequest(snapshot=convert.snapshot_to_proto(truth), page_size=1),
        )
        .next_page_token
    )
    seats = list(truth.seats)
    seats[1], seats[3] = (
        dataclasses.replace(seats[1], hand=truth.seats[3].hand),
        dataclasses.replace(seats[3], hand=truth.seats[1].hand),
    )
    guesses = [truth, dataclasses.replace(truth, seats=tuple(seats))]
    binding = _token_binding(token)
    assert [g for g in guesses if _unkeyed_digest(g) == binding] == []


def test_tokens_depend_on_the_key():
    request = pb.ListLegalActionsRequest(
        snapshot=convert.snapshot_to_proto(_late_position()), page_size=1
    )
    a, b, a2 = (
        Adjudicator(page_token_key=k).call("ListLegalActions", request).next_page_token
        for k in (b"a" * 32, b"b" * 32, b"a" * 32)
    )
    assert a == a2 and a != b
    with pytest.raises(ApiError) as e:
        Adjudicator(page_token_key=b"b" * 32).call(
            "ListLegalActions",
            pb.ListLegalActionsRequest(snapshot=request.snapshot, page_size=1, page_token=a),
        )
    assert e.value.reason == "PAGE_TOKEN_MISMATCH"


def test_the_key_comes_from_the_setting_else_the_signing_key():
    signer = Signer.parse("k1:" + base64.b64encode(b"s" * 32).decode())
    setting = base64.b64encode(b"p" * 32).decode()
    assert page_tokens.key_from(setting, signer) == b"p" * 32
    derived = page_tokens.key_from("", signer)
    assert derived not in (b"s" * 32, page_tokens.PROCESS_KEY)
    assert derived == page_tokens.key_from(
        "", Signer.parse("k1:" + base64.b64encode(b"s" * 32).decode())
    )
    assert page_tokens.key_from("", None) == page_tokens.PROCESS_KEY
    for bad in ("not-base64!", base64.b64encode(b"short").decode()):
        with pytest.raises(ValueError):
            page_tokens.key_from(bad, None)


def test_pages_come_from_one_computed_list():
    adj = Adjudicator()
    request = pb.ListLegalActionsRequest(
        snapshot=convert.snapshot_to_proto(_late_position()), page_size=2
    )
    token, pages = "", 0
    while True:
        request.page_token = token
        token = adj.call("ListLegalActions", request).next_page_token
        pages += 1
        if not token:
            break
    assert pages > 3
    assert len(adj._listed) == 1


def _page_through(base_url: str, snapshot: dict) -> list:
    actions, token = [], ""
    while True:
        # a new connection per page: with --workers the pages land on different workers
        r = httpx.post(
            base_url + "/v1/actions:list",
            timeout=30,
            content=json.dumps({"snapshot": snapshot, "pageSize": 3, "pageToken": token}),
        )
        assert r.status_code == 200, r.text
        actions += r.json()["actions"]
        token = r.json()["nextPageToken"]
        if not token:
            return actions


def test_replicas_sharing_a_key_accept_each_others_tokens():
    key = base64.b64encode(b"replicas" * 4).decode()
    shared = [ServerProcess(env={"SAMBA_PAGE_TOKEN_KEY": key}) for _ in range(2)]
    alone = ServerProcess()
    try:
        snapshot = jsonio.to_dict(convert.snapshot_to_proto(_late_position()))
        first = httpx.post(
            shared[0].base_url + "/v1/actions:list",
            timeout=30,
            content=json.dumps({"snapshot": snapshot, "pageSize": 3}),
        ).json()
        token = first["nextPageToken"]
        assert token
        on_other = httpx.post(
            shared[1].base_url + "/v1/actions:list",
            timeout=30,
            content=json.dumps({"snapshot": snapshot, "pageSize": 3, "pageToken": token}),
        )
        assert on_other.status_code == 200, on_other.text
        on_alone = httpx.post(
            alone.base_url + "/v1/actions:list",
            timeout=30,
            content=json.dumps({"snapshot": snapshot, "pageSize": 3, "pageToken": token}),
        )
        assert on_alone.status_code == 400
        assert on_alone.json()["error"]["details"][0]["reason"] == "PAGE_TOKEN_MISMATCH"
        # the server whose tokens no other replica accepts says so; the others do not
        assert '"pageTokenKey": "per-process"' in alone.logs(), alone.logs()
        assert all("per-process" not in srv.logs() for srv in shared)
    finally:
        for srv in shared + [alone]:
            srv.close()


def test_workers_of_one_server_share_the_key():
    srv = ServerProcess(workers=2)
    try:
        snapshot = jsonio.to_dict(convert.snapshot_to_proto(_late_position()))
        full = httpx.post(
            srv.base_url + "/v1/actions:list",
            timeout=30,
            content=json.dumps({"snapshot": snapshot, "pageSize": 1000}),
        ).json()["actions"]
        for _ in range(3):
            assert _page_through(srv.base_url, snapshot) == full
    finally:
        srv.close()


def _cli_pages(snapshot: dict, env: dict, first_env: dict | None = None) -> tuple[list, int, dict]:
    """Pages through ListLegalActions with one CLI invocation per page: the actions, the
    pages, and the first failing answer (or {})."""
    actions, token, pages = [], "", 0
    while True:
        status, body = cli_call(
            "ListLegalActions",
            {"snapshot": snapshot, "pageSize": 4, "pageToken": token},
            env=first_env if (first_env is not None and pages == 0) else env,
        )
        if status != 0:
            return actions, pages, body
        pages += 1
        actions += body["actions"]
        token = body["nextPageToken"]
        if not token:
            return actions, pages, {}


def test_the_cli_pages_across_invocations_with_its_local_key(tmp_path):
    snapshot = jsonio.to_dict(convert.snapshot_to_proto(_late_position()))
    no_keys = {"SAMBA_PAGE_TOKEN_KEY": "", "SAMBA_SNAPSHOT_KEYS": ""}
    env = {**no_keys, "XDG_STATE_HOME": str(tmp_path / "state")}
    status, whole = cli_call("ListLegalActions", {"snapshot": snapshot, "pageSize": 1000}, env)
    assert status == 0
    actions, pages, failure = _cli_pages(snapshot, env)
    assert failure == {} and pages > 2 and actions == whole["actions"]
    key_file = page_tokens.local_key_path(env)
    assert key_file.is_file()
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert key_file.parent.stat().st_mode & 0o777 == 0o700
    # another local key (another user's state folder) refuses the first one's tokens
    other = {**no_keys, "XDG_STATE_HOME": str(tmp_path / "other")}
    _, pages, failure = _cli_pages(snapshot, other, first_env=env)
    assert pages == 1
    assert failure["error"]["details"][0]["reason"] == "PAGE_TOKEN_MISMATCH", failure


def test_a_configured_key_wins_over_the_local_key(tmp_path):
    env = {"XDG_STATE_HOME": str(tmp_path)}
    configured = base64.b64encode(b"k" * 32).decode()

    def cli_key(environ: dict) -> bytes:
        settings = page_tokens.with_cli_key(config.load([], environ), environ)
        return base64.b64decode(settings.page_token_key)

    assert cli_key({**env, "SAMBA_PAGE_TOKEN_KEY": configured}) == b"k" * 32
    assert not page_tokens.local_key_path(env).exists()
    made = cli_key(env)
    assert made == cli_key(env) != page_tokens.PROCESS_KEY
    assert page_tokens.local_key_path(env).read_text().strip() == base64.b64encode(made).decode()


@pytest.mark.parametrize("spec", ["classic", "pagat", "canasta", "spanish"])
def test_the_page_binding_is_the_request_with_the_services_rendering(spec):
    """The binding is written straight from the rendering's bytes; it must be the request
    message with that rendering, without its page fields, encoded deterministically: the
    binding of every earlier token, whatever brought the snapshot."""
    from played_endings import played

    adj = Adjudicator()
    for snap in played(spec, 4, f"binding-{spec}", 60)[::7]:
        for seat in (None, 0, 3):
            given = pb.ListLegalActionsRequest(page_size=5, page_token="t")
            if seat is not None:
                given.seat = seat
            expected = pb.ListLegalActionsRequest()
            expected.CopyFrom(given)
            expected.ClearField("page_size")
            expected.ClearField("page_token")
            expected.snapshot.CopyFrom(convert.snapshot_to_proto(snap))
            wanted = adj.page_tokens.binding(
                expected.SerializeToString(deterministic=True), snap.ruleset.version
            )
            assert adj._page_binding(given, snap) == wanted


@pytest.mark.parametrize(
    ("host", "level"),
    [
        ("127.0.0.1", "INFO"),
        ("::1", "INFO"),
        ("localhost", "INFO"),
        ("0.0.0.0", "WARNING"),
        ("", "WARNING"),
        ("10.0.0.7", "WARNING"),
    ],
)
def test_a_key_of_its_own_is_warned_of_only_where_a_balancer_can_reach(caplog, host, level):
    """A server listening on loopback alone (the default ``make run``) is no replica behind
    a balancer on another host: its key of its own is said at info, not warned of."""
    with caplog.at_level("INFO", logger="samba.server"):
        page_tokens.warn_per_process(host)
    [record] = [r for r in caplog.records if r.name == "samba.server"]
    assert record.levelname == level
    assert record.fields == {"pageTokenKey": "per-process"}
