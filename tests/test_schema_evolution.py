"""Schema evolution gated (issue 38; docs/api.md#versioning).

- ``buf breaking`` against the last release's schema (proto/baseline/samba-v1.binpb, made
  by ``make proto-baseline``) passes for the schema in the repository and fails for a
  change that breaks the wire or JSON (a renumbered field, a renamed one): the control;
- a snapshot an older release wrote, in each form it can take, is refused with a code that
  says why or is checked again, never read under rules it does not say:

  - it pins a ruleset version this release does not serve (an older engine rules
    revision): FAILED_PRECONDITION ``RULESET_VERSION_MISMATCH`` naming the served version,
    signed or not, over REST and gRPC;
  - it is signed with the older release's key, retired when the rules revision changed:
    PERMISSION_DENIED ``SNAPSHOT_KEY_UNKNOWN`` naming that key (keys are named after the
    release or revision that signs with them); with the key still listed it is accepted;
  - it carries a signature of another scheme than ``v1``: ``SNAPSHOT_SIGNATURE_INVALID``;
  - unsigned and unpinned, it is checked in full like any snapshot: an output-only field
    the older release computed otherwise is INVALID_ARGUMENT at its path.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
from pathlib import Path

import grpc
import httpx
import pytest
from google.protobuf import json_format
from service_fixtures import ServerProcess, server  # noqa: F401
from test_service_grpc import rich

from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec.signing import Signer

REPO = Path(__file__).resolve().parents[1]
BUF = REPO / ".tools" / "node_modules" / ".bin" / "buf"
BASELINE = REPO / "proto" / "baseline" / "samba-v1.binpb"


def _buf_breaking(proto_dir: Path) -> subprocess.CompletedProcess:
    assert BUF.exists(), f"{BUF} is missing: `make lint-proto` installs buf"
    return subprocess.run(
        [str(BUF), "breaking", "--against", str(BASELINE)],
        cwd=proto_dir,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.tools
def test_the_schema_does_not_break_the_last_release():
    assert BASELINE.is_file(), "make proto-baseline writes the last release's schema"
    res = _buf_breaking(REPO / "proto")
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.tools
@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ("int32 ply = 4;", "int32 ply = 40;", "ply"),
        ("int32 deal_number = 2;", "int32 deal_no = 2;", "deal_number"),
    ],
)
def test_buf_breaking_refuses_a_breaking_change(tmp_path, old, new, said):
    """Control: a renumbered field (wire) and a renamed one (JSON) are caught."""
    proto = tmp_path / "proto"
    shutil.copytree(REPO / "proto", proto, ignore=shutil.ignore_patterns("baseline"))
    snapshot = proto / "samba" / "v1" / "snapshot.proto"
    text = snapshot.read_text()
    assert old in text
    snapshot.write_text(text.replace(old, new))
    res = _buf_breaking(proto)
    assert res.returncode != 0, res.stdout
    assert said in res.stdout + res.stderr


# ----------------------------------------------------------------------------- older snapshots

NEW_KEY = ("r0-2", base64.b64encode(b"n" * 32).decode())
OLD_KEY = ("r0-1", base64.b64encode(b"o" * 32).decode())


def _keys(*keys: tuple[str, str]) -> str:
    return ",".join(f"{k}:{v}" for k, v in keys)


@pytest.fixture(scope="module")
def signing_server():
    """This release's server: its own key signs; the older release's key is retired."""
    srv = ServerProcess(env={"SAMBA_SNAPSHOT_KEYS": _keys(NEW_KEY)})
    yield srv
    srv.close()


def _deal(base_url: str) -> dict:
    body = {"ruleset": {"profile": "classic"}, "players": 4, "dealer": 0, "seed": "evolve"}
    answer = httpx.post(base_url + "/v1/deals:deal", json=body, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()["snapshot"]


def _older(snapshot: dict, *, version: str = "", key: tuple[str, str] | None = None) -> pb.Snapshot:
    """``snapshot`` as an older release would have written it: pinned to its ruleset
    version when ``version`` is given, signed with its key when ``key`` is."""
    msg = json_format.ParseDict(snapshot, pb.Snapshot())
    msg.ruleset.version = version
    msg.signature = ""
    if key is not None:
        Signer.parse(_keys(key)).sign(msg)
    return msg


def _old_revision_version(served: str) -> str:
    """A ruleset version of engine rules revision 1 (``<revision>.<12 hex>``)."""
    revision, _ = served.split(".")
    assert revision != "1", "revision 1 is the older one here"
    return "1." + hashlib.sha256(b"revision 1").hexdigest()[:12]


def _validate_rest(base_url: str, msg: pb.Snapshot) -> httpx.Response:
    snapshot = json_format.MessageToDict(msg)
    action = {"seat": msg.turn.seat, "drawStock": {}}
    return httpx.post(
        base_url + "/v1/actions:validate", json={"snapshot": snapshot, "action": action}, timeout=30
    )


def _reason(answer: httpx.Response) -> str:
    [info] = [d for d in answer.json()["error"]["details"] if d["@type"].endswith("ErrorInfo")]
    return info["reason"]


def _served_version(base_url: str) -> str:
    return httpx.get(base_url + "/v1/rulesets/classic", timeout=30).json()["version"]


@pytest.mark.servers
@pytest.mark.parametrize("signed", [False, True], ids=["unsigned", "signed"])
def test_a_snapshot_pinned_to_an_older_ruleset_version_is_refused(signing_server, server, signed):  # noqa: F811
    srv = signing_server if signed else server
    served = _served_version(srv.base_url)
    old = _old_revision_version(served)
    msg = _older(_deal(srv.base_url), version=old, key=NEW_KEY if signed else None)
    answer = _validate_rest(srv.base_url, msg)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["status"] == "FAILED_PRECONDITION"
    assert _reason(answer) == "RULESET_VERSION_MISMATCH"
    message = answer.json()["error"]["message"]
    assert old in message and served in message, message
    with grpc.insecure_channel(srv.grpc_target) as channel:
        stub = adjudicator_pb2_grpc.AdjudicatorStub(channel)
        request = pb.ValidateActionRequest(snapshot=msg)
        request.action.seat = msg.turn.seat
        request.action.draw_stock.SetInParent()
        with pytest.raises(grpc.RpcError) as err:
            stub.ValidateAction(request, timeout=30)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    info, _ = rich(err.value)
    assert info.reason == "RULESET_VERSION_MISMATCH"


@pytest.mark.servers
def test_a_snapshot_signed_with_a_retired_key_is_refused_naming_it(signing_server):
    msg = _older(_deal(signing_server.base_url), key=OLD_KEY)
    answer = _validate_rest(signing_server.base_url, msg)
    assert answer.status_code == 403, answer.text
    assert _reason(answer) == "SNAPSHOT_KEY_UNKNOWN"
    assert repr(OLD_KEY[0]) in answer.json()["error"]["message"]


@pytest.mark.servers
def test_a_snapshot_signed_with_a_key_still_listed_is_accepted():
    """Within one rules revision the older key stays listed (second: it verifies, the
    first signs), and the older release's snapshots go on."""
    srv = ServerProcess(env={"SAMBA_SNAPSHOT_KEYS": _keys(NEW_KEY, OLD_KEY)})
    try:
        msg = _older(_deal(srv.base_url), key=OLD_KEY)
        answer = _validate_rest(srv.base_url, msg)
        assert answer.status_code == 200, answer.text
        assert answer.json()["legal"] is True
    finally:
        srv.close()


@pytest.mark.servers
def test_a_signature_of_another_scheme_is_refused(signing_server):
    msg = _older(_deal(signing_server.base_url), key=NEW_KEY)
    msg.signature = "v0" + msg.signature[2:]
    answer = _validate_rest(signing_server.base_url, msg)
    assert answer.status_code == 403, answer.text
    assert _reason(answer) == "SNAPSHOT_SIGNATURE_INVALID"


@pytest.mark.servers
def test_an_unsigned_older_snapshot_is_checked_in_full(server):  # noqa: F811
    """An output-only field the older release computed otherwise is found and refused."""
    msg = _older(_deal(server.base_url))
    msg.stock_count += 1
    answer = _validate_rest(server.base_url, msg)
    assert answer.status_code == 400, answer.text
    assert _reason(answer) == "INVALID_REQUEST"
    fields = [
        v["field"] for d in answer.json()["error"]["details"] for v in d.get("fieldViolations", [])
    ]
    assert "snapshot.stockCount" in fields, fields
    # as written, the same older snapshot is accepted: it is read under the rules it says
    ok = _validate_rest(server.base_url, _older(_deal(server.base_url)))
    assert ok.status_code == 200 and ok.json()["legal"] is True, ok.text


@pytest.mark.servers
def test_a_pinned_deal_carries_its_version_in_every_snapshot(server):  # noqa: F811
    """What the policy asks of game servers: pin the version in Deal, and the snapshots
    carry it, so that a release of other rules refuses them rather than reading them."""
    served = _served_version(server.base_url)
    body = {"ruleset": {"profile": "classic", "version": served}, "players": 4, "seed": "pin"}
    snapshot = httpx.post(server.base_url + "/v1/deals:deal", json=body, timeout=30).json()[
        "snapshot"
    ]
    assert snapshot["ruleset"]["version"] == served
    action = {"seat": snapshot["turn"]["seat"], "drawStock": {}}
    body = {"snapshot": snapshot, "action": action}
    applied = httpx.post(server.base_url + "/v1/actions:apply", json=body, timeout=30).json()
    assert applied["snapshot"]["ruleset"]["version"] == served
