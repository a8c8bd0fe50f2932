"""REST answers are gzip-encoded for a caller that accepts it, from GZIP_MIN_BYTES on
(docs/api.md#compression), on the real server: the same JSON either way, every header of
the service kept, error answers included."""

from __future__ import annotations

import gzip
import json

import httpx
import pytest
from service_fixtures import dealt, http, server  # noqa: F401

from samba_adjudicator.service.transport.rest import GZIP_MIN_BYTES

pytestmark = pytest.mark.servers

GZIP = {"accept-encoding": "gzip"}
PLAIN = {"accept-encoding": "identity"}


def raw(server, method: str, path: str, headers: dict, body: dict | None = None):  # noqa: F811
    """(response, the bytes as sent on the wire)."""
    content = None if body is None else json.dumps(body)
    with (
        httpx.Client(base_url=server.base_url, timeout=30) as client,
        client.stream(method, path, headers=headers, content=content) as r,
    ):
        return r, b"".join(r.iter_raw())


def test_a_large_answer_is_gzipped_when_accepted(server, dealt):  # noqa: F811
    body = {"snapshot": dealt, "computer": {"seat": dealt["turn"]["seat"]}, "includeViews": True}
    zipped, wire = raw(server, "POST", "/v1/actions:apply", GZIP, body)
    plain, plain_wire = raw(server, "POST", "/v1/actions:apply", PLAIN, body)
    assert zipped.status_code == plain.status_code == 200
    assert zipped.headers["content-encoding"] == "gzip"
    assert "content-encoding" not in plain.headers
    assert json.loads(gzip.decompress(wire)) == json.loads(plain_wire)
    assert len(wire) * 4 < len(plain_wire)  # about 8 times smaller with five views
    for name in ("x-request-id", "x-samba-version", "content-language"):
        assert zipped.headers[name], name
    assert "accept-encoding" in zipped.headers["vary"].lower()


def test_a_small_answer_is_sent_as_it_is(server):  # noqa: F811
    r, wire = raw(server, "GET", "/healthz", GZIP)
    assert len(wire) < GZIP_MIN_BYTES
    assert "content-encoding" not in r.headers and json.loads(wire) == {"status": "SERVING"}


def test_error_answers_stay_json_either_way(server):  # noqa: F811
    many = {"cards": [f"Z{i}" for i in range(300)]}  # a hundred problems listed
    for headers in (GZIP, PLAIN):
        r, wire = raw(server, "POST", "/v1/melds:check", headers, many)
        assert r.status_code == 400
        text = gzip.decompress(wire) if r.headers.get("content-encoding") == "gzip" else wire
        assert json.loads(text)["error"]["status"] == "INVALID_ARGUMENT"
        assert r.headers["x-request-id"]
    # a large error body is compressed like any answer
    r, wire = raw(server, "POST", "/v1/melds:check", GZIP, many)
    assert len(gzip.decompress(wire)) >= GZIP_MIN_BYTES
    assert r.headers["content-encoding"] == "gzip"
    for method, path in (("GET", "/v1/nowhere"), ("PUT", "/v1/actions:apply")):
        r, wire = raw(server, method, path, GZIP)
        assert r.status_code in (404, 405)
        assert json.loads(wire)["error"]["status"]
    r, wire = raw(server, "POST", "/v1/actions:apply", {**GZIP, "content-type": "x"}, None)
    assert r.status_code == 400 and json.loads(wire)["error"]


def test_a_request_too_large_is_refused_plainly(server):  # noqa: F811
    big = b"{" + b" " * (5 * 1024 * 1024) + b"}"
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        r = client.post("/v1/actions:apply", content=big, headers=GZIP)
    assert r.status_code == 413
    assert r.json()["error"]["details"][0]["reason"] == "REQUEST_TOO_LARGE"


def test_the_default_client_reads_gzipped_answers(http, dealt):  # noqa: F811
    """httpx (the Python client's) asks for gzip by default and decodes it."""
    body = {"snapshot": dealt, "computer": {"seat": dealt["turn"]["seat"]}, "includeViews": True}
    r = http.post("/v1/actions:apply", content=json.dumps(body))
    assert r.headers["content-encoding"] == "gzip" and r.json()["legal"]


#: Accept-Encoding as RFC 9110 §12.5.3 reads it (issue 47, item 7: it was matched as a
#: substring, so ``gzip;q=0`` got gzip and ``GZIP`` did not) -> the coding of a large answer.
ACCEPT_ENCODING = [
    ("gzip", "gzip"),
    ("GZIP", "gzip"),
    ("GZip;Q=1", "gzip"),
    ("x-gzip", "gzip"),
    ("deflate, gzip;q=0.3", "gzip"),
    ("br, *", "gzip"),
    ("*", "gzip"),
    ("gzip;q=0", "identity"),
    ("gzip; q=0.000", "identity"),
    ("gzip;q=0, *", "identity"),
    ("*;q=0", "identity"),
    ("identity", "identity"),
    ("gzip;q=0.5, identity", "identity"),
    ("gzip;q=0.5, *;q=0.8", "identity"),
    ("gzip, identity;q=0.5", "gzip"),
    ("identity;q=0", "identity"),  # nothing acceptable: sent as it is
    ("notgzip, gzipped", "identity"),
    ("gzip;q=2", "identity"),  # a malformed weight: the member is left out
    ("gzip;q=0.0001", "identity"),
    ("br", "identity"),
    ("", "identity"),
]


@pytest.mark.parametrize(("header", "coding"), ACCEPT_ENCODING)
def test_accept_encoding_is_read_as_rfc_9110_says(server, dealt, header, coding):  # noqa: F811
    body = {"snapshot": dealt, "includeViews": True, "action": _draw(dealt)}
    r, wire = raw(server, "POST", "/v1/actions:apply", {"accept-encoding": header}, body)
    assert r.status_code == 200
    assert r.headers.get("content-encoding", "identity") == coding, header
    text = gzip.decompress(wire) if coding == "gzip" else wire
    assert len(text) >= GZIP_MIN_BYTES and json.loads(text)["legal"]


def test_several_accept_encoding_lines_are_one_list(server, dealt):  # noqa: F811
    body = {"snapshot": dealt, "includeViews": True, "action": _draw(dealt)}
    lines = [("accept-encoding", "br"), ("accept-encoding", "GZIP;q=0.5")]
    r, wire = raw(server, "POST", "/v1/actions:apply", lines, body)
    assert r.headers["content-encoding"] == "gzip" and json.loads(gzip.decompress(wire))
    lines = [("accept-encoding", "gzip"), ("accept-encoding", "gzip;q=0")]  # the first wins
    r, _ = raw(server, "POST", "/v1/actions:apply", lines, body)
    assert r.headers["content-encoding"] == "gzip"


def test_identity_refused_gets_even_a_small_answer_gzipped(server):  # noqa: F811
    """``identity;q=0`` (or ``*;q=0`` without identity) refuses the answer as it is: with
    gzip acceptable, an answer under GZIP_MIN_BYTES is gzipped too."""
    for header in ("gzip, identity;q=0", "gzip;q=0.1, *;q=0"):
        r, wire = raw(server, "GET", "/healthz", {"accept-encoding": header})
        assert r.headers["content-encoding"] == "gzip", header
        assert json.loads(gzip.decompress(wire)) == {"status": "SERVING"}
    r, wire = raw(server, "GET", "/healthz", {"accept-encoding": "gzip"})
    assert "content-encoding" not in r.headers and json.loads(wire)


def _draw(snapshot: dict) -> dict:
    return {"seat": snapshot["turn"]["seat"], "drawStock": {}}
