"""The OpenAPI document explains itself, and /docs, /redoc, /playground work offline.

Against a real server: every message, field, enum value and RPC carries its proto comment;
every route's request example is accepted (200) and its error example is what the service
answers; the pages load nothing from another site.
"""

from __future__ import annotations

import re

import pytest
from service_fixtures import REST, http, server  # noqa: F401

from samba_adjudicator.service.base import pb
from samba_adjudicator.service.web import proto_docs
from samba_adjudicator.service.web.pages import DOC_ASSETS, PLAYGROUND_FILES

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def document(http):  # noqa: F811
    response = http.get("/openapi.json")
    assert response.status_code == 200
    return response.json()


def _operations(document):
    for path, verbs in document["paths"].items():
        for verb, op in verbs.items():
            if op["operationId"] in REST:
                yield path, verb, op


def test_proto_comments_cover_the_whole_schema():
    """Every message, field, enum, enum value and RPC of samba.v1 has a comment (map entries,
    which protoc makes up, excepted)."""
    undocumented = [
        name
        for name, text in proto_docs.comments().items()
        if name.startswith("samba.v1.")
        and not text
        and not name.split(".")[-1].endswith("Entry")
        and ".DetailsEntry." not in name
    ]
    assert undocumented == []


def test_every_schema_property_and_enum_value_is_described(document):
    missing = []
    for name, schema in document["components"]["schemas"].items():
        if name.startswith("google.") or name == "Error":
            continue
        if not schema.get("description"):
            missing.append(name)
        for prop, sub in schema.get("properties", {}).items():
            if not sub.get("description"):
                missing.append(f"{name}.{prop}")
        values = zip(schema.get("enum", []), schema.get("x-enum-descriptions", []), strict=True)
        for value, text in values:
            if not text or f"`{value}`: {text}" not in schema["description"]:
                missing.append(f"{name}.{value}")
    assert missing == []


def test_every_operation_has_a_summary_and_a_description(document):
    for path, verbs in document["paths"].items():
        for verb, op in verbs.items():
            assert op.get("summary") and op.get("description"), f"{verb} {path}"


def test_descriptions_are_the_proto_comments(document):
    schemas = document["components"]["schemas"]
    assert schemas["Snapshot"]["properties"]["ply"]["description"].startswith(
        proto_docs.comment("samba.v1.Snapshot.ply")
    )
    assert "Naturals of one suit in sequence." in schemas["Meld.Kind"]["description"]
    deal = document["paths"]["/v1/deals:deal"]["post"]
    assert deal["description"].startswith(proto_docs.comment("samba.v1.Adjudicator.Deal"))
    for method in pb.SERVICE.methods:
        assert proto_docs.comment(method.full_name), method.name


@pytest.mark.parametrize("rpc", sorted(REST))
def test_every_route_example_is_accepted_and_its_error_example_is_real(rpc, document, http):  # noqa: F811
    verb, path = REST[rpc]
    op = next(op for _, _, op in _operations(document) if op["operationId"] == rpc)
    if verb == "GET":
        params = {p["name"]: p["example"] for p in op["parameters"] if p["in"] == "path"}
        response = http.get(path.format(**params))
    else:
        example = op["requestBody"]["content"]["application/json"]["examples"]["default"]["value"]
        assert example, rpc
        response = http.post(path, json=example)
    assert response.status_code == 200, response.text
    ok = op["responses"]["200"]["content"]["application/json"]["examples"]["default"]["value"]
    assert response.json() == ok
    if rpc == "ListRulesets":
        return
    errors = [
        (code, r["content"]["application/json"]["examples"]["default"]["value"])
        for code, r in op["responses"].items()
        if code != "200" and "examples" in r["content"]["application/json"]
    ]
    assert len(errors) == 1, rpc
    code, body = errors[0]
    assert body["error"]["code"] == int(code) >= 400


def test_error_example_is_what_the_service_answers(document, http):  # noqa: F811
    op = document["paths"]["/v1/melds:check"]["post"]
    body = op["responses"]["400"]["content"]["application/json"]["examples"]["default"]["value"]
    request = {
        **op["requestBody"]["content"]["application/json"]["examples"]["default"]["value"],
        "handcards": [],
    }
    answer = http.post("/v1/melds:check", json=request).json()
    for detail in answer["error"]["details"] + body["error"]["details"]:
        detail.get("metadata", {}).pop("requestId", None)
    assert answer == body


def test_swagger_prefills_a_valid_example_not_a_placeholder(document):
    for _, _, op in _operations(document):
        if "requestBody" in op:
            value = op["requestBody"]["content"]["application/json"]["examples"]["default"]["value"]
            profile = str(value.get("ruleset", {}).get("profile", ""))
            assert "string" not in profile, op["operationId"]


def test_every_violation_rule_opens_on_the_gateway(http):  # noqa: F811
    """A violation's rule (docs/rules.md#x) is served at /reference/rules.md with anchor x."""
    from samba_adjudicator.engine.violations import CODES

    pages = {}
    for rule, _ in CODES.values():
        path, anchor = rule.removeprefix("docs/").split("#")
        if path not in pages:
            response = http.get(f"/reference/{path}")
            assert response.status_code == 200
            pages[path] = response.text
        assert f'id="{anchor}"' in pages[path], rule
    assert http.get("/reference/nothing.md").status_code == 404


@pytest.mark.parametrize(
    "page", ["/docs", "/redoc", "/playground", "/reference/rules.md", "/reference/api.md"]
)
def test_pages_load_nothing_from_another_site(page, http):  # noqa: F811
    response = http.get(page)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    assert not re.search(r"(?:src|href)\s*=\s*[\"']?(?:https?:)?//", html, re.I), html
    for ref in re.findall(r"(?:src|href)=\"([^\"]+)\"", html):
        if ref.startswith("/"):
            assert http.get(ref).status_code == 200, ref


def test_every_served_asset_answers(http):  # noqa: F811
    for name, media in DOC_ASSETS.items():
        response = http.get(f"/docs-assets/{name}")
        assert response.status_code == 200 and response.headers["content-type"].startswith(media)
        assert len(response.content) > 1000
    for name in PLAYGROUND_FILES:
        assert http.get(f"/playground/{name}").status_code == 200
    assert http.get("/docs-assets/nothing.js").status_code == 404


def test_examples_are_signed_where_signing_is_on():
    """With snapshot keys configured every snapshot must be signed: the examples are made
    with the server's keys, so "Try it out" still works."""
    import httpx
    from service_fixtures import ServerProcess

    signed = ServerProcess(env={"SAMBA_SNAPSHOT_KEYS": "k1:" + "A" * 44})
    try:
        with httpx.Client(base_url=signed.base_url, timeout=30) as client:
            op = client.get("/openapi.json").json()["paths"]["/v1/actions:validate"]["post"]
            example = op["requestBody"]["content"]["application/json"]["examples"]["default"]
            assert example["value"]["snapshot"]["signature"].startswith("v1.k1.")
            assert client.post("/v1/actions:validate", json=example["value"]).status_code == 200
            unsigned = {
                **example["value"],
                "snapshot": {**example["value"]["snapshot"], "signature": ""},
            }
            assert client.post("/v1/actions:validate", json=unsigned).status_code == 403
    finally:
        signed.terminate()
