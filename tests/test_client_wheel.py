"""The Python client as its own distribution (clients/python/pyproject.toml): the wheel is
built, installed alone in a fresh virtual environment, and calls a real server there; its
protobuf modules are the service's, byte for byte.

The client's dependencies are downloaded once into .tools/client-wheels (pip, from the
machine's index) and installed from there without an index, so the install takes seconds.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest
from service_fixtures import ROOT, server  # noqa: F401

pytestmark = pytest.mark.servers

CLIENT = ROOT / "clients" / "python"
WHEELS = ROOT / ".tools" / "client-wheels"

CALLS = """
import json, sys
from samba_adjudicator.client import AdjudicatorError, Client
from samba_adjudicator.client.examples import play_deal
grpc_target, base_url = sys.argv[1:3]
out = {}
with Client.grpc(grpc_target) as c:
    snapshot = c.deal({"players": 4, "seed": "wheel"})["snapshot"]
    out["grpc_phase"] = snapshot["turn"]["phase"]
with Client.rest(base_url) as c:
    out["rest_profiles"] = [r["profile"] for r in c.list_rulesets()["rulesets"]]
    try:
        c.deal({"players": 5})
    except AdjudicatorError as e:
        out["refused"] = e.status
out["bot"] = callable(play_deal.main)
for name in ("samba_adjudicator.engine", "samba_adjudicator.service", "samba_adjudicator.schema",
             "fastapi", "uvicorn"):
    try:
        __import__(name)
        out.setdefault("importable", []).append(name)
    except ImportError:
        pass
print(json.dumps(out))
"""


def _requirements() -> list[str]:
    with open(CLIENT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]["dependencies"]


def _wheelhouse() -> Path:
    """The client's dependencies as wheels, downloaded when their list changes."""
    requirements = _requirements()
    marker = WHEELS / (
        "requirements-" + hashlib.sha256("\n".join(requirements).encode()).hexdigest()[:12]
    )
    if not marker.exists():
        WHEELS.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--only-binary=:all:",
                "-d",
                str(WHEELS),
                *requirements,
            ],
            check=True,
            timeout=600,
        )
        marker.write_text("\n".join(requirements) + "\n")
    return WHEELS


@pytest.fixture(scope="module")
def client_wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("client-wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(out),
            str(CLIENT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = out.glob("samba_adjudicator_client-*.whl")
    return wheel


def test_the_client_wheel_is_pure_python_typed_and_carries_its_schema(client_wheel):
    names = set(zipfile.ZipFile(client_wheel).namelist())
    assert client_wheel.name.endswith("-py3-none-any.whl")
    for module in (
        "__init__.py",
        "py.typed",
        "_pb/adjudicator_pb2.py",
        "_pb/adjudicator_pb2_grpc.py",
        "examples/play_deal.py",
        "examples/redact.py",
        "examples/match.py",
        "examples/turn_timer.py",
        "examples/undo.py",
        "examples/reconnect.py",
        "examples/teaching_view.py",
    ):
        assert f"samba_adjudicator/client/{module}" in names, module
    assert not [
        n
        for n in names
        if n.startswith(
            ("samba_adjudicator/engine", "samba_adjudicator/service", "samba_adjudicator/schema")
        )
    ]
    metadata = (
        zipfile.ZipFile(client_wheel)
        .read(next(n for n in names if n.endswith(".dist-info/METADATA")))
        .decode()
    )
    required = sorted(
        line.split(":", 1)[1].split(">")[0].strip()
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:")
    )
    assert required == ["googleapis-common-protos", "grpcio", "httpx", "protobuf"]


def test_the_clients_messages_are_the_services_byte_for_byte():
    """Both are imported in one process by the service's tests: the descriptor pool takes
    a file twice only when it is the same, and then both share the message classes."""
    from samba_adjudicator.client._pb import adjudicator_pb2 as client_pb
    from samba_adjudicator.schema.v1 import adjudicator_pb2 as service_pb

    assert client_pb.DESCRIPTOR.serialized_pb == service_pb.DESCRIPTOR.serialized_pb
    assert client_pb.DealRequest is service_pb.DealRequest


def test_the_client_installs_alone_in_a_fresh_venv_and_calls_a_server(
    client_wheel,
    tmp_path,
    server,  # noqa: F811
):
    wheels = _wheelhouse()
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-index",
            "--find-links",
            str(wheels),
            str(client_wheel),
        ],
        check=True,
        timeout=300,
        cwd=tmp_path,
    )
    done = subprocess.run(
        [str(python), "-c", CALLS, server.grpc_target, server.base_url],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,  # not the repository: nothing of it on the path
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["grpc_phase"] == "DRAW"
    assert "classic" in out["rest_profiles"]
    assert out["refused"] == "INVALID_ARGUMENT"
    assert out["bot"] is True
    assert "importable" not in out, out["importable"]
