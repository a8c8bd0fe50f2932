"""The conformance vectors (conformance/exchanges.json, written by tests/conformance_vectors.py)
against a real server started with the settings they name: recorded anew, they are the file
(the file is current); and the file's own bytes, sent as a client in another language sends
them, are answered as recorded on REST and on gRPC."""

from __future__ import annotations

import base64

import grpc
import httpx
import pytest
from conformance_vectors import (
    SERVER_ENV,
    load,
    masked,
    record,
    write,
)
from google.protobuf import json_format
from google.rpc import status_pb2
from service_fixtures import ServerProcess

from samba_adjudicator.client.rpcs import RPCS

pytestmark = pytest.mark.servers

VECTORS = load()
EXCHANGES = {e["name"]: e for e in VECTORS["exchanges"]}


@pytest.fixture(scope="module")
def recorded_server():
    s = ServerProcess(env=VECTORS["server"]["env"])
    yield s
    s.close()


@pytest.fixture(scope="module")
def rest(recorded_server):
    with httpx.Client(base_url=recorded_server.base_url, timeout=60) as client:
        yield client


@pytest.fixture(scope="module")
def channel(recorded_server):
    with grpc.insecure_channel(recorded_server.grpc_target) as ch:
        grpc.channel_ready_future(ch).result(timeout=10)
        yield ch


def test_the_file_names_the_generators_settings():
    assert VECTORS["server"]["env"] == SERVER_ENV


def test_every_rpc_has_an_answer_and_a_refusal_on_both_transports():
    for rpc in RPCS:
        both = [e for e in VECTORS["exchanges"] if e["rpc"] == rpc and "only" not in e]
        assert any(e["grpc"]["status"] == "OK" for e in both), rpc
        if rpc != "ListRulesets":  # it takes no input a caller could get wrong
            assert any(e["grpc"]["status"] != "OK" for e in both), rpc
        for e in both:
            assert (e["rest"]["status"] == 200) == (e["grpc"]["status"] == "OK"), e["name"]


def test_the_vectors_are_current(rest, channel):
    """`make conformance` writes what the file holds: run it and review the diff when not."""
    assert write(record(rest, channel)) == write(VECTORS)


def _rest_answer(rest: httpx.Client, exchange: dict) -> dict:
    sent = exchange["rest"]
    r = rest.request(
        sent["method"],
        sent["path"],
        content=sent["body"].encode("utf-8") if "body" in sent else None,
        headers={"content-type": "application/json", **exchange["metadata"]},
    )
    return {"status": r.status_code, "answer": r.json()}


@pytest.mark.parametrize("name", [n for n, e in EXCHANGES.items() if "rest" in e])
def test_rest_answers_the_recorded_bytes_as_recorded(rest, name):
    exchange = EXCHANGES[name]
    keys = exchange.get("masked", [])
    want = {"status": exchange["rest"]["status"], "answer": exchange["rest"]["answer"]}
    assert masked(_rest_answer(rest, exchange), keys) == masked(want, keys)


def _status(binary: str) -> dict:
    return json_format.MessageToDict(status_pb2.Status.FromString(base64.b64decode(binary)))


@pytest.mark.parametrize("name", [n for n, e in EXCHANGES.items() if "grpc" in e])
def test_grpc_answers_the_recorded_bytes_as_recorded(channel, name):
    exchange = EXCHANGES[name]
    sent = exchange["grpc"]
    method = channel.unary_unary(sent["method"])
    metadata = list(exchange["metadata"].items())
    keys = exchange.get("masked", [])
    try:
        answer = method(base64.b64decode(sent["request"]), metadata=metadata, timeout=60)
    except grpc.RpcError as e:
        got = dict(e.trailing_metadata() or ())["grpc-status-details-bin"]
        status = json_format.MessageToDict(status_pb2.Status.FromString(got))
        want = {"status": sent["status"], "code": sent["code"], "message": sent["message"]}
        assert masked(
            {"status": e.code().name, "code": e.code().value[0], "message": e.details()}, keys
        ) == masked(want, keys)
        assert masked(status, keys) == masked(sent["details"], keys)
        assert sent["details"] == _status(sent["detailsBinary"])  # the two forms agree
        return
    assert sent["status"] == "OK", f"answered where {sent['status']} was recorded"
    response_class = RPCS[exchange["rpc"]].response_class
    # compared as messages: an encoding's bytes are not canonical across languages
    assert response_class.FromString(answer) == response_class.FromString(
        base64.b64decode(sent["answerBinary"])
    )
    assert response_class.FromString(answer) == json_format.ParseDict(
        exchange["rest"]["answer"], response_class()
    )
