"""One schema, three transports: the CLI, REST and gRPC give identical answers
(proto3 JSON compared after MessageToDict), errors included."""

from __future__ import annotations

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
from samba_adjudicator.service.codec import jsonio

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
    rebuilt = _errors.rest_body(
        _errors.ApiError(code, info.reason, status.message, violations), "x"
    )
    if code != "INVALID_ARGUMENT":
        rebuilt["error"]["details"] = rebuilt["error"]["details"][:1]
    cli_status, via_cli = cli_call(method, body)
    assert cli_status == (2 if code == "INVALID_ARGUMENT" else 1)
    assert _strip(r.json()) == _strip(rebuilt) == _strip(via_cli)
    assert r.status_code == via_cli["error"]["code"]
