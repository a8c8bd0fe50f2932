"""The Python client read against the conformance vectors (conformance/exchanges.json): every
exchange both transports carry, called through ``Client`` with the request id and language
the vectors send, on a real server started with the vectors' settings, gives the recorded
answer or the recorded refusal, decoded (status, ErrorInfo, every field violation)."""

from __future__ import annotations

import pytest
from conformance_vectors import load, masked
from google.protobuf import json_format
from service_fixtures import ServerProcess

from samba_adjudicator.client import AdjudicatorError, Client
from samba_adjudicator.client.rpcs import RPCS

pytestmark = pytest.mark.servers

VECTORS = load()
BOTH = {e["name"]: e for e in VECTORS["exchanges"] if "only" not in e}


@pytest.fixture(scope="module")
def recorded_server():
    s = ServerProcess(env=VECTORS["server"]["env"])
    yield s
    s.close()


def _refusal(status: str, body: dict) -> dict:
    """What a client decodes of a refusal, from the recorded REST ``error`` or gRPC
    ``google.rpc.Status`` (their JSON forms share ``message`` and ``details``)."""
    info = next((d for d in body["details"] if d["@type"].endswith("ErrorInfo")), {})
    bad = [v for d in body["details"] for v in d.get("fieldViolations", [])]
    return {
        "status": status,
        "message": body["message"],
        "reason": info.get("reason", ""),
        "domain": info.get("domain", ""),
        "metadata": info.get("metadata", {}),
        "violations": [[v.get("field", ""), v["reason"], v["description"]] for v in bad],
    }


def _decoded(e: AdjudicatorError) -> dict:
    return {
        "status": e.status,
        "message": e.message,
        "reason": e.reason,
        "domain": e.domain,
        "metadata": e.metadata,
        "violations": [[v.field, v.reason, v.description] for v in e.violations],
    }


@pytest.mark.parametrize("transport", ["rest", "grpc"])
@pytest.mark.parametrize("name", list(BOTH))
def test_the_client_gives_the_recorded_answer(recorded_server, transport, name):
    exchange = BOTH[name]
    address = recorded_server.base_url if transport == "rest" else recorded_server.grpc_target
    rpc = RPCS[exchange["rpc"]]
    metadata = exchange["metadata"]
    with getattr(Client, transport)(address, retry=None) as client:
        call = getattr(client, rpc.python_name)
        try:
            got = call(
                exchange["request"],
                request_id=metadata["x-request-id"],
                locale=metadata.get("accept-language"),
                timeout=60,
            )
        except AdjudicatorError as e:
            recorded = exchange[transport]
            want = (
                _refusal(recorded["answer"]["error"]["status"], recorded["answer"]["error"])
                if transport == "rest"
                else _refusal(recorded["status"], recorded["details"])
            )
            assert _decoded(e) == masked(want, exchange.get("masked", []))
            assert e.request_id == metadata["x-request-id"]
            return
    assert exchange["grpc"]["status"] == "OK", "answered where a refusal was recorded"
    want = json_format.ParseDict(exchange["rest"]["answer"], rpc.response_class())
    assert json_format.ParseDict(got, rpc.response_class()) == want
