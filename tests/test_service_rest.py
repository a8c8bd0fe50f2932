"""The REST gateway against a real server (docs/api.md#json, #methods, #errors, #server)."""

from __future__ import annotations

import json

import pytest
from service_fixtures import REST, dealt, http, rest_call, sample_requests, server  # noqa: F401

from samba_adjudicator.service.base import pb

pytestmark = pytest.mark.servers


def _error(r, status: int, code: str, reason: str) -> dict:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    err = r.json()["error"]
    assert err["code"] == status and err["status"] == code, err
    infos = [d for d in err["details"] if d["@type"].endswith("google.rpc.ErrorInfo")]
    assert len(infos) == 1
    assert infos[0]["reason"] == reason and infos[0]["domain"] == "samba.v1"
    assert infos[0]["metadata"]["requestId"] == r.headers["x-request-id"]
    return err


@pytest.mark.parametrize("method", list(REST))
def test_every_route_answers(http, sample_requests, method):
    r = rest_call(http, method, sample_requests[method])
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert r.headers["x-request-id"]
    assert r.headers["x-samba-version"].split()[0]
    body = r.json()
    # proto3 JSON of the response type, every field without presence printed
    response_type = pb.SERVICE.methods_by_name[method].output_type
    for f in response_type.fields:
        if not f.has_presence or f.is_repeated:
            assert f.json_name in body, (method, f.json_name)


def test_answers_print_defaults(http, sample_requests):
    body = rest_call(http, "ValidateAction", sample_requests["ValidateAction"]).json()
    assert body == {"legal": True, "violations": []}


def test_illegal_action_is_200(http, dealt):
    seat = dealt["turn"]["seat"]
    other = (seat + 1) % 4
    r = http.post(
        "/v1/actions:validate",
        content=json.dumps({"snapshot": dealt, "action": {"seat": other, "drawStock": {}}}),
    )
    assert r.status_code == 200
    body = r.json()
    assert body["legal"] is False
    assert body["violations"][0]["code"] == "NOT_YOUR_TURN"


def test_snake_case_accepted(http, dealt):
    r = http.post(
        "/v1/deals:deal",
        content=json.dumps(
            {"players": 4, "seed": "snake", "deal_number": 3, "match_scores": [10, 20]}
        ),
    )
    assert r.status_code == 200, r.text
    snap = r.json()["snapshot"]
    assert snap["dealNumber"] == 3
    assert [s["matchScore"] for s in snap["sides"]] == [10, 20]


def test_unknown_field_is_400_with_field_path(http, dealt):
    r = http.post(
        "/v1/actions:validate",
        content=json.dumps(
            {"snapshot": dealt, "action": {"seat": 0, "drawStock": {}, "handcards": []}}
        ),
    )
    err = _error(r, 400, "INVALID_ARGUMENT", "INVALID_REQUEST")
    br = [d for d in err["details"] if d["@type"].endswith("google.rpc.BadRequest")]
    assert len(br) == 1
    fields = {v["field"]: v["reason"] for v in br[0]["fieldViolations"]}
    assert fields.get("action.handcards") == "UNKNOWN_FIELD", fields


def test_bad_card_path(http):
    r = http.post("/v1/melds:check", content=json.dumps({"cards": ["7H", "ZZ", "7C"]}))
    err = _error(r, 400, "INVALID_ARGUMENT", "INVALID_REQUEST")
    br = next(d for d in err["details"] if d["@type"].endswith("BadRequest"))
    assert {"field": "cards[1]", "reason": "UNKNOWN_CARD_CODE"}.items() <= br["fieldViolations"][
        0
    ].items()


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"garbage",
        b"[1,2]",
        b"null",
        b'{"players": "x"}',
        b"\xff\xfe",
        b"{" * 5000,
        b'{"seed": NaN}',
    ],
)
def test_garbage_bodies_are_400_json(http, body):
    r = http.post("/v1/deals:deal", content=body)
    _error(r, 400, "INVALID_ARGUMENT", "INVALID_REQUEST")


@pytest.mark.parametrize("method", [m for m, (verb, _) in REST.items() if verb == "POST"])
def test_empty_object_is_400_not_500(http, method):
    r = rest_call(http, method, {})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["status"] == "INVALID_ARGUMENT"


def test_unknown_profile_is_404(http):
    r = http.get("/v1/rulesets/nosuchgame")
    _error(r, 404, "NOT_FOUND", "UNKNOWN_PROFILE")


def test_unknown_route_is_404_json(http):
    r = http.get("/v2/nothing")
    _error(r, 404, "NOT_FOUND", "ROUTE_NOT_FOUND")
    r = http.post("/v1/actions:nothing", content=b"{}")
    _error(r, 404, "NOT_FOUND", "ROUTE_NOT_FOUND")


def test_wrong_verb_is_405_json(http):
    r = http.get("/v1/deals:deal")
    assert r.status_code == 405
    assert r.headers["allow"] == "POST"
    assert r.json()["error"]["details"][0]["reason"] == "METHOD_NOT_ALLOWED"


def test_oversize_is_413(http, server):
    big = b'{"players": 4, "seed": "' + b"x" * (1024 * 1024 + 10) + b'"}'
    r = http.post("/v1/deals:deal", content=big)
    _error(r, 413, "RESOURCE_EXHAUSTED", "REQUEST_TOO_LARGE")


def test_oversize_chunked_is_413(http):
    def chunks():
        yield b'{"players": 4, "seed": "'
        for _ in range(20):
            yield b"x" * 65536
        yield b'"}'

    r = http.post("/v1/deals:deal", content=chunks())
    _error(r, 413, "RESOURCE_EXHAUSTED", "REQUEST_TOO_LARGE")


def _oversize_bodies():
    """A request over the 1 MiB limit, with its ``Content-Length`` and chunked."""

    def chunks():
        yield b'{"players": 4, "seed": "'
        for _ in range(20):
            yield b"x" * 65536
        yield b'"}'

    yield "length", b'{"players": 4, "seed": "' + b"x" * (1024 * 1024 + 10) + b'"}'
    yield "chunked", chunks()


def test_oversize_is_counted_and_logged_however_framed(http, server):
    """A 413 is a call refused: counted, logged (and traced) as a chunked one always was,
    whether the size was seen in ``Content-Length`` or while reading."""
    for framing, content in _oversize_bodies():
        labels = {"method": "Deal", "transport": "rest"}
        text = http.get("/metrics").text
        errors = _metric(text, "samba_errors_total", code="RESOURCE_EXHAUSTED", **labels)
        requests = _metric(text, "samba_requests_total", outcome="error", **labels)
        rid = f"too-large-{framing}"
        r = http.post("/v1/deals:deal", content=content, headers={"x-request-id": rid})
        _error(r, 413, "RESOURCE_EXHAUSTED", "REQUEST_TOO_LARGE")
        text = http.get("/metrics").text
        assert _metric(text, "samba_errors_total", code="RESOURCE_EXHAUSTED", **labels) == (
            errors + 1
        ), framing
        assert _metric(text, "samba_requests_total", outcome="error", **labels) == requests + 1
        lines = [json.loads(line) for line in server.logs().splitlines() if rid in line]
        assert [(x["method"], x["transport"], x["code"]) for x in lines] == [
            ("Deal", "rest", "RESOURCE_EXHAUSTED")
        ], framing


def test_request_id_echoed_and_generated(http):
    r = http.get("/v1/rulesets", headers={"x-request-id": "abc-123"})
    assert r.headers["x-request-id"] == "abc-123"
    r1, r2 = http.get("/v1/rulesets"), http.get("/v1/rulesets")
    assert r1.headers["x-request-id"] != r2.headers["x-request-id"]
    r = http.post("/v1/deals:deal", content=b"{}", headers={"x-request-id": "req-42"})
    assert r.headers["x-request-id"] == "req-42"
    assert r.json()["error"]["details"][0]["metadata"]["requestId"] == "req-42"


def test_version_header_everywhere(http):
    for r in (
        http.get("/healthz"),
        http.get("/nope"),
        http.get("/metrics"),
        http.post("/v1/deals:deal", content=b"x"),
    ):
        assert r.headers["x-samba-version"]


def test_health_and_ready(http):
    assert http.get("/healthz").json() == {"status": "SERVING"}
    r = http.get("/readyz")
    assert r.status_code == 200 and r.json() == {"status": "SERVING"}


def test_bad_timeout_header_is_400(http):
    r = http.get("/v1/rulesets", headers={"x-server-timeout": "soon"})
    _error(r, 400, "INVALID_ARGUMENT", "INVALID_REQUEST")


def _metric(text: str, name: str, **labels) -> float:
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        head, value = line.rsplit(" ", 1)
        if all(f'{k}="{v}"' in head for k, v in labels.items()):
            total += float(value)
    return total


def test_metrics_count_requests(http, dealt):
    before = _metric(
        http.get("/metrics").text,
        "samba_requests_total",
        method="ValidateAction",
        transport="rest",
        outcome="illegal",
        profile="classic",
    )
    seat = (dealt["turn"]["seat"] + 1) % 4
    http.post(
        "/v1/actions:validate",
        content=json.dumps({"snapshot": dealt, "action": {"seat": seat, "drawStock": {}}}),
    )
    text = http.get("/metrics").text
    after = _metric(
        text,
        "samba_requests_total",
        method="ValidateAction",
        transport="rest",
        outcome="illegal",
        profile="classic",
    )
    assert after == before + 1
    assert _metric(text, "samba_violations_total", code="NOT_YOUR_TURN") >= 1
    assert (
        _metric(
            text, "samba_request_duration_seconds_count", method="ValidateAction", transport="rest"
        )
        >= 1
    )
    assert "samba_requests_in_flight" in text
    assert _metric(text, "samba_build_info") == 1


def test_metrics_count_invalid_argument(http):
    http.post("/v1/deals:deal", content=b"{}")
    text = http.get("/metrics").text
    assert (
        _metric(
            text,
            "samba_requests_total",
            method="Deal",
            transport="rest",
            outcome="invalid_argument",
        )
        >= 1
    )
    assert _metric(text, "samba_errors_total", method="Deal", code="INVALID_ARGUMENT") >= 1


# -- OpenAPI ------------------------------------------------------------------------------


def _messages_reachable() -> list:
    seen, out, todo = set(), [], []
    for m in pb.SERVICE.methods:
        todo += [m.input_type, m.output_type]
    while todo:
        d = todo.pop()
        if d.full_name in seen or d.GetOptions().map_entry:
            continue
        seen.add(d.full_name)
        out.append(d)
        for f in d.fields:
            if f.message_type is not None:
                if f.message_type.GetOptions().map_entry:
                    v = f.message_type.fields_by_name["value"]
                    if v.message_type is not None:
                        todo.append(v.message_type)
                else:
                    todo.append(f.message_type)
    return out


def test_openapi_has_every_proto_field(http):
    doc = http.get("/openapi.json").json()
    schemas = doc["components"]["schemas"]
    missing = []
    for desc in _messages_reachable():
        name = desc.full_name.removeprefix("samba.v1.")
        if name not in schemas:
            missing.append(name)
            continue
        props = schemas[name]["properties"]
        for f in desc.fields:
            if f.json_name not in props:
                missing.append(f"{name}.{f.json_name}")
            if f.enum_type is not None:
                enum_name = f.enum_type.full_name.removeprefix("samba.v1.")
                assert schemas[enum_name]["enum"] == [v.name for v in f.enum_type.values]
    assert not missing, missing


def test_openapi_operations(http):
    doc = http.get("/openapi.json").json()
    ops = {}
    for path, item in doc["paths"].items():
        for verb, op in item.items():
            ops[op["operationId"]] = (verb.upper(), path, op)
    for method, (verb, path) in REST.items():
        assert ops[method][:2] == (verb, path), method
        op = ops[method][2]
        out = pb.SERVICE.methods_by_name[method].output_type.full_name.removeprefix("samba.v1.")
        assert op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
            "/" + out
        )
        assert op["responses"]["400"]["content"]["application/json"]["schema"]["$ref"].endswith(
            "/Error"
        )
        if verb == "POST":
            inp = pb.SERVICE.methods_by_name[method].input_type.full_name
            assert op["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
                "/" + inp.removeprefix("samba.v1.")
            )
    # structure: repeated -> array, nested message -> $ref, map -> object, enum -> string
    schemas = doc["components"]["schemas"]
    seats = schemas["Snapshot"]["properties"]["seats"]
    assert seats["type"] == "array" and seats["items"]["$ref"].endswith("/Seat")
    assert schemas["Violation"]["properties"]["details"] == {
        "type": "object",
        "additionalProperties": {"type": "string"},
        "description": "Machine-readable details, e.g. `required`, `actual`.",
    }
    assert schemas["Turn.Phase"]["type"] == "string"
    assert "snapshot" in schemas["ValidateActionRequest"]["required"]


def test_docs_page(http):
    r = http.get("/docs")
    assert r.status_code == 200 and "openapi.json" in r.text


def test_readyz_503_while_draining():
    """The readiness switch itself (the drain test covers the process end to end)."""
    import asyncio

    import httpx as _httpx

    from samba_adjudicator.service.ops.config import Settings
    from samba_adjudicator.service.pipeline.runtime import Runtime
    from samba_adjudicator.service.transport.rest import create_app

    rt = Runtime(Settings())
    app = create_app(rt, Settings())

    async def probe():
        async with _httpx.AsyncClient(
            transport=_httpx.ASGITransport(app=app), base_url="http://t"
        ) as c:
            return (await c.get("/readyz")).status_code

    assert asyncio.run(probe()) == 503  # starting
    rt.state.set_ready()
    assert asyncio.run(probe()) == 200
    rt.state.drain()
    assert asyncio.run(probe()) == 503


def test_openapi_states_what_the_service_enforces(http, sample_requests):
    """Unknown fields are refused, and a REQUIRED list or string may not be empty: the
    document says so (additionalProperties, minItems, minLength), and the service does."""
    from samba_adjudicator.service.base import descriptors

    schemas = http.get("/openapi.json").json()["components"]["schemas"]
    for desc in _messages_reachable():
        schema = schemas[desc.full_name.removeprefix("samba.v1.")]
        assert schema["additionalProperties"] is False, desc.full_name
        for f in desc.fields:
            if not descriptors.is_required(f):
                continue
            prop = schema["properties"][f.json_name]
            if f.is_repeated:
                assert prop["minItems"] == 1, (desc.full_name, f.json_name)
            elif f.type == f.TYPE_STRING:
                assert prop["minLength"] == 1, (desc.full_name, f.json_name)
    empty = http.post("/v1/melds:check", content=json.dumps({"cards": []}))
    assert empty.status_code == 400
    assert empty.json()["error"]["details"][1]["fieldViolations"][0]["field"] == "cards"
    unknown = http.post(
        "/v1/melds:check", content=json.dumps({**sample_requests["CheckMeld"], "extra": 1})
    )
    assert unknown.status_code == 400


def test_metrics_count_snapshot_cache_hits_and_misses(http):
    """``samba_snapshot_cache_total{method, outcome}``: a snapshot the service answered is a
    hit when sent back; the same position written otherwise (its keys in another order) is
    a miss, then a hit the next time; a call without a snapshot counts neither."""

    def counts() -> tuple[float, float]:
        text = http.get("/metrics").text
        name = "samba_snapshot_cache_total"
        return (
            _metric(text, name, method="ListLegalActions", outcome="hit"),
            _metric(text, name, method="ListLegalActions", outcome="miss"),
        )

    r = http.post("/v1/deals:deal", content=json.dumps({"players": 4, "seed": "cache-counter"}))
    snapshot = r.json()["snapshot"]
    reordered = dict(reversed(list(snapshot.items())))
    before = counts()
    for sent in (snapshot, reordered, reordered):
        answer = http.post("/v1/actions:list", content=json.dumps({"snapshot": sent}))
        assert answer.status_code == 200, answer.text
    hits, misses = counts()
    assert (hits - before[0], misses - before[1]) == (2, 1)
    http.get("/v1/rulesets/classic")
    assert counts() == (hits, misses)
