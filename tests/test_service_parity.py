"""One schema, three transports: the CLI, REST and gRPC give identical answers
(proto3 JSON compared after MessageToDict), errors included."""

from __future__ import annotations

import json

import grpc
import pytest
from google.protobuf import json_format
from service_fixtures import (  # noqa: F401
    REST,
    channel,
    cli_call,
    dealt,
    grpc_call,
    http,
    rest_call,
    sample_requests,
    server,
    stub,
)

from samba_adjudicator.engine.model import Problem
from samba_adjudicator.service.base import errors as _errors
from samba_adjudicator.service.codec import error_bodies, jsonio

pytestmark = pytest.mark.servers


@pytest.mark.parametrize("method", list(REST))
def test_same_answer_everywhere(http, stub, sample_requests, method):
    body = sample_requests[method]
    r = rest_call(http, method, body)
    assert r.status_code == 200, r.text
    via_grpc = jsonio.to_dict(grpc_call(stub, method, body, timeout=30))
    status, via_cli = cli_call(method, body)
    assert status == 0, via_cli
    assert r.json() == via_grpc == via_cli
    # MessageToDict of the gRPC answer, key order aside
    assert (
        json_format.MessageToDict(
            grpc_call(stub, method, body, timeout=30), always_print_fields_with_no_presence=True
        )
        == via_cli
    )


def _strip(body: dict) -> dict:
    err = body["error"]
    for d in err["details"]:
        d.get("metadata", {}).pop("requestId", None)
    return body


@pytest.mark.parametrize(
    "method,body",
    [
        ("Deal", {"players": 4}),
        ("CheckMeld", {"cards": ["7H", "XX"]}),
        ("GetRuleset", {"profile": "nosuchgame"}),
    ],
)
def test_same_error_everywhere(http, stub, method, body):
    r = rest_call(http, method, body)
    with pytest.raises(grpc.RpcError) as e:
        grpc_call(stub, method, body, timeout=30)
    from grpc_status import rpc_status

    status = rpc_status.from_call(e.value)
    # rebuild the REST body from the gRPC status details
    from google.rpc import error_details_pb2

    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    code = e.value.code().name
    violations = []
    if len(status.details) > 1:
        br = error_details_pb2.BadRequest()
        status.details[1].Unpack(br)
        violations = [Problem(v.field, v.reason, v.description) for v in br.field_violations]
    rebuilt = error_bodies.rest_body(
        _errors.ApiError(code, info.reason, status.message, violations), "x"
    )
    if code != "INVALID_ARGUMENT":
        rebuilt["error"]["details"] = rebuilt["error"]["details"][:1]
    cli_status, via_cli = cli_call(method, body)
    assert cli_status == (2 if code == "INVALID_ARGUMENT" else 1)
    assert _strip(r.json()) == _strip(rebuilt) == _strip(via_cli)
    assert r.status_code == via_cli["error"]["code"]


# -- official pair takes name their group (docs/rules.md#further-decisions, item 14) --------


def _two_nines(spec: str) -> dict:
    """Seat 0 to draw, 9H on the pile; its side holds a completed canasta of nines (m1)
    and, in ``official``, a second group of nines (m2)."""
    from builders import make_snapshot

    from samba_adjudicator.engine.model import Phase
    from samba_adjudicator.service.codec import convert

    groups = ["9H 9S 9D 9C 9H 9S 2D", "9C 9D 9S"] if spec == "official" else ["9C 9S 9D"]
    snap = make_snapshot(
        spec,
        4,
        hands={0: "9D 9C 2C 5C 6D 7S"},
        melds={0: [*groups, "KH KS KD KC KH KS KD"]},
        discard="4D 9H",
        phase=Phase.DRAW,
    )
    return jsonio.to_dict(convert.snapshot_to_proto(snap))


def test_official_pair_takes_name_their_group_on_every_route(http, stub):  # noqa: F811
    """ListLegalActions (paged, REST and gRPC alike) names the group of each pair take,
    one take per group it may join; ValidateAction and ApplyAction join the group named;
    SuggestAction at every level picks a listed action; meldId with handCards is an
    invalid argument in classic."""
    snap = _two_nines("official")
    body = {"snapshot": snap, "seat": 0}
    full = http.post("/v1/actions:list", content=json.dumps(body)).json()
    paged, token = [], ""
    while True:
        page = {**body, "pageSize": 2, **({"pageToken": token} if token else {})}
        r = http.post("/v1/actions:list", content=json.dumps(page)).json()
        paged += r["actions"]
        token = r["nextPageToken"]
        if not token:
            break
    assert paged == full["actions"] and full["totalSize"] == len(paged)
    assert jsonio.to_dict(grpc_call(stub, "ListLegalActions", body, timeout=30)) == full
    takes = [
        (t["handCards"], t["meldId"])
        for t in (a.get("takePile", {}) for a in full["actions"])
        if t.get("handCards")
    ]
    assert takes == [(["9D", "9C"], "m1"), (["9D", "9C"], "m2"), (["2C", "9D", "9C"], "m2")]
    take = {"seat": 0, "takePile": {"handCards": ["9D", "9C", "2C"], "meldId": "m2"}}
    applied = http.post("/v1/actions:apply", content=json.dumps({"snapshot": snap, "action": take}))
    assert applied.json()["legal"] is True, applied.text
    m2 = applied.json()["snapshot"]["sides"][0]["melds"][1]
    assert m2["id"] == "m2" and len(m2["cards"]) == 7
    onto_canasta = {**take, "takePile": {**take["takePile"], "meldId": "m1"}}
    judged = http.post(
        "/v1/actions:validate", content=json.dumps({"snapshot": snap, "action": onto_canasta})
    ).json()
    assert judged["legal"] is False
    assert [v["code"] for v in judged["violations"]] == ["WILD_ONTO_CANASTA_NOT_ALLOWED"]
    for level in ("RANDOM", "BASIC", "STRONG"):
        request = {"snapshot": snap, "seat": 0, "level": level, "seed": "named"}
        suggested = http.post("/v1/actions:suggest", content=json.dumps(request))
        assert suggested.json()["action"] in full["actions"], suggested.text
    classic = {"snapshot": _two_nines("classic"), "action": take}
    refused = http.post("/v1/actions:validate", content=json.dumps(classic))
    assert refused.status_code == 400, refused.text
    fields = [
        (v["field"], v["reason"])
        for d in refused.json()["error"]["details"]
        for v in d.get("fieldViolations", [])
    ]
    assert fields == [("action.takePile", "REQUIRED")]
