"""CORS on the REST gateway, with real preflights against real servers: off by default,
``--cors-origins`` / ``SAMBA_CORS_ORIGINS`` allow the listed origins only."""

from __future__ import annotations

import re

import httpx
import pytest
from service_fixtures import ROOT, ServerProcess, server  # noqa: F401

from samba_adjudicator.service.ops import config

GAME = "https://game.example"
LOCAL = "http://localhost:3000"
OTHER = "https://evil.example"


def preflight(
    base_url: str, origin: str, path: str = "/v1/actions:validate", method: str = "POST"
) -> httpx.Response:
    return httpx.options(
        base_url + path,
        headers={
            "origin": origin,
            "access-control-request-method": method,
            "access-control-request-headers": "content-type,x-request-id",
        },
        timeout=30,
    )


@pytest.fixture(scope="module", params=["flag", "env"])
def cors_server(request):
    if request.param == "flag":
        s = ServerProcess("--cors-origins", f"{GAME}, {LOCAL}")
    else:
        s = ServerProcess(env={"SAMBA_CORS_ORIGINS": f"{GAME},{LOCAL}"})
    yield s
    s.close()


@pytest.mark.parametrize("origin", [GAME, LOCAL])
def test_listed_origin_preflight_is_allowed(cors_server, origin):
    r = preflight(cors_server.base_url, origin)
    assert r.status_code == 200, r.text
    assert r.headers["access-control-allow-origin"] == origin
    assert "POST" in r.headers["access-control-allow-methods"]
    allowed = r.headers["access-control-allow-headers"].lower()
    assert "x-request-id" in allowed and "content-type" in allowed
    assert "x-samba-table" in allowed  # the clients' table key (docs/deployment.md)
    get = preflight(cors_server.base_url, origin, "/v1/rulesets/classic", "GET")
    assert get.headers["access-control-allow-origin"] == origin


def test_listed_origin_reads_the_answer_and_the_request_id(cors_server):
    r = httpx.post(
        cors_server.base_url + "/v1/melds:check",
        content=b'{"cards": ["ZZ"]}',
        headers={"origin": GAME, "x-request-id": "from-a-page"},
        timeout=30,
    )
    assert r.status_code == 400  # an error answer is readable by the page too
    assert r.headers["access-control-allow-origin"] == GAME
    exposed = r.headers["access-control-expose-headers"].lower()
    assert "x-request-id" in exposed
    assert r.headers["x-request-id"] == "from-a-page"


def test_a_page_can_read_the_retry_hint(cors_server):
    """Issue 56: a 429 or 503 carries ``Retry-After``, which a browser hid from the page's
    script (not exposed): a client in a page could not wait as the server asked."""
    r = httpx.get(cors_server.base_url + "/healthz", headers={"origin": GAME}, timeout=30)
    exposed = {h.strip().lower() for h in r.headers["access-control-expose-headers"].split(",")}
    assert "retry-after" in exposed


def test_unlisted_origin_gets_no_cors_headers(cors_server):
    r = preflight(cors_server.base_url, OTHER)
    assert "access-control-allow-origin" not in r.headers
    assert r.status_code == 403
    error = r.json()["error"]
    assert error["status"] == "PERMISSION_DENIED"
    assert error["details"][0]["reason"] == "CORS_PREFLIGHT_REFUSED"
    simple = httpx.get(cors_server.base_url + "/v1/rulesets", headers={"origin": OTHER}, timeout=30)
    assert simple.status_code == 200
    assert "access-control-allow-origin" not in simple.headers


def test_cors_is_off_by_default(server):  # noqa: F811
    r = preflight(server.base_url, GAME)
    assert "access-control-allow-origin" not in r.headers
    assert r.status_code == 405
    simple = httpx.get(server.base_url + "/v1/rulesets", headers={"origin": GAME}, timeout=30)
    assert "access-control-allow-origin" not in simple.headers


def test_cors_origins_setting():
    assert config.load([], environ={}).cors_origins == ()
    env = {"SAMBA_CORS_ORIGINS": f" {GAME} ,{LOCAL},"}
    assert config.load([], environ=env).cors_origins == (GAME, LOCAL)
    assert config.load(["--cors-origins", "*"], environ=env).cors_origins == ("*",)
    for bad in ("game.example", f"{GAME}/path", "https://*.example", "ftp://x"):
        with pytest.raises(config.ConfigError, match="--cors-origins"):
            config.load(["--cors-origins", bad], environ={})


def _named_in_docs(before: str, after: str) -> set[str]:
    """The backquoted names docs/service.md's CORS paragraph lists between two phrases."""
    text = " ".join((ROOT / "docs" / "service.md").read_text(encoding="utf-8").split())
    start = text.index(before) + len(before)
    return set(re.findall(r"`([^`]+)`", text[start : text.index(after, start)]))


def test_the_headers_docs_list_are_those_a_real_server_sends(cors_server):
    """Issue 56, item 7: service.md listed three allowed request headers and two exposed ones
    while the service allows nine and exposes three; the doc is checked against the server's
    own answers (the one list is rest.py's, with Starlette's safelisted headers added)."""
    asked = "accept,accept-language,content-language,content-type,x-request-id,x-samba-table"
    r = httpx.options(
        cors_server.base_url + "/v1/actions:validate",
        headers={
            "origin": GAME,
            "access-control-request-method": "POST",
            "access-control-request-headers": asked + ",x-server-timeout,traceparent,tracestate",
        },
        timeout=30,
    )
    assert r.status_code == 200, r.text
    allowed = {h.strip().lower() for h in r.headers["access-control-allow-headers"].split(",")}
    assert allowed == _named_in_docs("request headers", "; cached")
    answer = httpx.get(cors_server.base_url + "/healthz", headers={"origin": GAME}, timeout=30)
    exposed = {
        h.strip().lower() for h in answer.headers["access-control-expose-headers"].split(",")
    }
    assert exposed == _named_in_docs("`Access-Control-Allow-Origin`, and", "are exposed")
