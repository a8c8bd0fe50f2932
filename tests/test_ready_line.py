"""`make run`'s ready line names the playground's URL: in the JSON line on stdout and in a
plain line on stderr for a person; the URL serves the playground."""

from __future__ import annotations

import httpx
import pytest
from service_fixtures import ServerProcess, wait_for

from samba_adjudicator.service.transport.serve import _playground_url

pytestmark = pytest.mark.servers


def test_the_ready_line_names_the_playground():
    srv = ServerProcess()
    try:
        url = f"{srv.base_url}/playground"
        assert srv.info["playground"] == url
        assert httpx.get(url, timeout=10).status_code == 200
        wait_for(lambda: "samba-adjudicator ready: playground " + url in srv.logs())
    finally:
        srv.close()


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("0.0.0.0", "http://127.0.0.1:8080/playground"),
        ("::", "http://[::1]:8080/playground"),
        ("::1", "http://[::1]:8080/playground"),
        ("adjudicator.local", "http://adjudicator.local:8080/playground"),
    ],
)
def test_a_wildcard_host_is_shown_as_loopback(host, url):
    assert _playground_url(host, 8080) == url
