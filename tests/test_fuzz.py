"""Fuzzing both servers (issue 11): schemathesis over every REST route with the service's
own OpenAPI document, and requests made from valid played positions and their mutations,
over REST and gRPC. Never a 500 or UNKNOWN/INTERNAL; every REST answer conforms to the
document. Bounded here (FUZZ_EXAMPLES per route, default 40, and five times that many
played positions; derandomized, so CI is repeatable); `make fuzz` runs 500 per route with
fresh randomness (FUZZ_RANDOM=1)."""

from __future__ import annotations

import json
import os

import grpc
import httpx
import jsonschema
import pytest
import schemathesis
from fuzz_strategies import requests
from google.protobuf import json_format
from hypothesis import HealthCheck, given, settings
from service_fixtures import REST, channel, http, server, stub  # noqa: F401

from samba_adjudicator.service.base import pb
from samba_adjudicator.service.pipeline.api import METHODS

pytestmark = pytest.mark.servers
#: Examples per REST route (schemathesis) and of played positions; `make fuzz` raises both.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "40"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not os.environ.get("FUZZ_RANDOM"),
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)
PLAYED = settings(FUZZ, max_examples=5 * EXAMPLES)
NEVER = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}


@pytest.fixture(scope="module")
def openapi_document(server):
    return httpx.get(server.base_url + "/openapi.json", timeout=30).json()


@pytest.fixture(scope="module")
def rest_schema(openapi_document, server):
    schema = schemathesis.openapi.from_dict(openapi_document)
    schema.config.base_url = server.base_url
    return schema


def test_every_rest_route_against_its_own_document(rest_schema):
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    checks = [response_schema_conformance, content_type_conformance, status_code_conformance]
    operations = [result.ok() for result in rest_schema.get_all_operations()]
    assert len(operations) >= len(REST) + 3  # every RPC, /healthz, /readyz, ...
    for operation in operations:

        @given(case=operation.as_strategy())
        @FUZZ
        def route(case):
            response = case.call(timeout=30)
            _no_server_error(response.status_code, response.text)
            case.validate_response(response, checks=checks)

        route()


def _no_server_error(status: int, text: str) -> None:
    """Never a 5xx, but a 504 for a deadline the request itself set (x-server-timeout)."""
    if status == 504:
        assert json.loads(text)["error"]["status"] == "DEADLINE_EXCEEDED", text
        return
    assert status < 500, (status, text[:500])


def _validator(document: dict, component: str) -> jsonschema.Validator:
    root = {"$ref": f"#/components/schemas/{component}", "components": document["components"]}
    return jsonschema.Draft202012Validator(root)


@given(generated=requests())
@PLAYED
def test_played_and_mutated_positions_reach_the_engine(generated, http, stub, openapi_document):
    method, body = generated
    verb, path = REST[method]
    r = http.post(path, content=json.dumps(body))
    _no_server_error(r.status_code, r.text)
    assert r.headers["content-type"] == "application/json"
    out = pb.SERVICE.methods_by_name[method].output_type.full_name.removeprefix("samba.v1.")
    component = out if r.status_code == 200 else "Error"
    _validator(openapi_document, component).validate(r.json())
    try:
        request = json_format.ParseDict(body, METHODS[method][0]())
    except (json_format.ParseError, ValueError, TypeError, AttributeError):
        return  # not expressible as a protobuf message: a REST-only case
    try:
        getattr(stub, method)(request, timeout=30)
    except grpc.RpcError as e:
        assert e.code() not in NEVER, (method, e.code(), e.details())
