"""One release, said once (README.md#releases): VERSION holds it, and every artefact takes it
at build time. `make dist-files` is built into a temporary folder and each file read for the
version it says (the server's wheel and sdist, the Python client's wheel, the TypeScript
client's npm tarball, the chart's package); a real server says it in ``x-samba-version`` (REST
header, gRPC trailer), in its OpenAPI document and in ``samba_build_info``. The image's label
and metric are checked where the image is built (tests/image_check.py, `make image-test`). No
other file of the repository holds the release: a copy would be one to keep in step."""

from __future__ import annotations

import json
import re
import subprocess
import tarfile
import zipfile
from email.parser import HeaderParser
from pathlib import Path

import grpc
import httpx
import pytest
import yaml
from service_fixtures import ROOT, ServerProcess

from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc
from samba_adjudicator.service.base import pb

RELEASE = (ROOT / "VERSION").read_text().strip()
#: The files that name releases as history, not as the one being built: the changelog's
#: sections, and the table of releases and rules revisions in docs/api.md#versioning.
HISTORY = {"VERSION", "CHANGELOG.md", "docs/api.md"}


def test_the_release_is_semver():
    assert re.fullmatch(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?", RELEASE)


def test_the_release_is_said_once():
    pattern = r"(^|[^0-9.])" + re.escape(RELEASE) + r"($|[^0-9])"
    found = subprocess.run(
        ["git", "grep", "-l", "-E", pattern],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert set(found) <= HISTORY, f"copies of {RELEASE}: {sorted(set(found) - HISTORY)}"


def test_the_changelog_opens_with_unreleased_then_the_release():
    headings = [
        line for line in (ROOT / "CHANGELOG.md").read_text().splitlines() if line.startswith("## ")
    ]
    assert headings[0] == "## [Unreleased]", headings[:2]
    assert re.fullmatch(rf"## \[{re.escape(RELEASE)}\] - \d{{4}}-\d{{2}}-\d{{2}}", headings[1]), (
        headings[:2]
    )


def _metadata(text: str) -> str:
    return HeaderParser().parsestr(text)["Version"]


def _wheel_version(path: Path) -> str:
    with zipfile.ZipFile(path) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return _metadata(z.read(name).decode())


def _tar_member(path: Path, suffix: str) -> str:
    with tarfile.open(path) as t:
        member = next(m for m in t.getmembers() if m.name.endswith(suffix))
        return t.extractfile(member).read().decode()


@pytest.mark.tools
def test_every_artefact_says_the_release(tmp_path):
    # the server's wheel from its Python source (WHEEL_COMPILE=0): the version is the
    # same compiled or not, and mypyc would take minutes
    subprocess.run(
        ["make", "--no-print-directory", "dist-files", f"DIST={tmp_path}", "WHEEL_COMPILE=0"],
        cwd=ROOT,
        check=True,
        timeout=900,
        capture_output=True,
    )
    files = {p.name for p in tmp_path.iterdir()}
    server_wheel = tmp_path / f"samba_adjudicator-{RELEASE}-py3-none-any.whl"
    sdist = tmp_path / f"samba_adjudicator-{RELEASE}.tar.gz"
    client_wheel = tmp_path / f"samba_adjudicator_client-{RELEASE}-py3-none-any.whl"
    npm = tmp_path / f"samba-adjudicator-client-{RELEASE}.tgz"
    chart = tmp_path / f"samba-adjudicator-{RELEASE}.tgz"
    assert files == {p.name for p in (server_wheel, sdist, client_wheel, npm, chart)}, files
    assert _wheel_version(server_wheel) == RELEASE
    assert _metadata(_tar_member(sdist, f"samba_adjudicator-{RELEASE}/PKG-INFO")) == RELEASE
    assert _wheel_version(client_wheel) == RELEASE
    assert json.loads(_tar_member(npm, "package/package.json"))["version"] == RELEASE
    chart_yaml = yaml.safe_load(_tar_member(chart, "samba-adjudicator/Chart.yaml"))
    assert (chart_yaml["version"], chart_yaml["appVersion"]) == (RELEASE, RELEASE)


@pytest.mark.servers
def test_the_service_says_the_release():
    server = ServerProcess()
    try:
        header = httpx.get(server.base_url + "/v1/rulesets", timeout=30).headers["x-samba-version"]
        assert header.split()[0] == RELEASE, header
        openapi = httpx.get(server.base_url + "/openapi.json", timeout=30).json()
        assert openapi["info"]["version"] == RELEASE
        metrics = httpx.get(server.admin_url + "/metrics", timeout=30).text
        info = next(m for m in metrics.splitlines() if m.startswith("samba_build_info{"))
        assert f'version="{RELEASE}"' in info, info
        with grpc.insecure_channel(server.grpc_target) as ch:
            stub = adjudicator_pb2_grpc.AdjudicatorStub(ch)
            _, call = stub.ListRulesets.with_call(pb.ListRulesetsRequest(), timeout=30)
            assert dict(call.trailing_metadata())["x-samba-version"] == header
            with pytest.raises(grpc.RpcError) as refused:
                stub.GetRuleset(pb.GetRulesetRequest(profile="bridge"), timeout=30)
            assert dict(refused.value.trailing_metadata())["x-samba-version"] == header
    finally:
        server.close()
