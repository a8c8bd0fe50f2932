"""Real servers for the transport tests (no mocks): ``samba-adjudicator serve`` subprocesses
on 127.0.0.1 ephemeral ports, discovered from their ``listening`` line.

Import the fixtures into a test module (``from service_fixtures import server, ...``).
Session-scoped: under ``pytest -n 2`` each xdist worker starts its own server.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
import httpx
import pytest
from google.protobuf import json_format

ROOT = Path(__file__).resolve().parent.parent

from samba_adjudicator.client.rpcs import ROUTES  # noqa: E402
from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc  # noqa: E402
from samba_adjudicator.service.pipeline.api import METHODS, kebab  # noqa: E402

#: RPC -> (verb, path) of the REST gateway: the client's table (one statement of the routes).
REST = ROUTES


def serve_command(*args: str, workers: int = 1, slow: bool = False) -> list[str]:
    """The command line of ``samba-adjudicator serve`` on 127.0.0.1, every port chosen by
    the system (read back from the ready line); ``slow``: through tests/slow_server.py."""
    entry = (
        [str(Path(__file__).with_name("slow_server.py"))]
        if slow
        else ["-m", "samba_adjudicator.service.transport.cli"]
    )
    return [
        sys.executable,
        *entry,
        "serve",
        "--host",
        "127.0.0.1",
        "--grpc-port",
        "0",
        "--http-port",
        "0",
        "--admin-port",
        "0",
        "--workers",
        str(workers),
        *args,
    ]


def serve_env(env: dict | None = None, workers: int = 1) -> dict:
    """The environment of a test server: this one's, less the settings the command line
    gives, with ``env`` on top."""
    full_env = {**os.environ, "SAMBA_LOG_LEVEL": "info", **(env or {})}
    for k in (
        "SAMBA_GRPC_PORT",
        "SAMBA_HTTP_PORT",
        "SAMBA_ADMIN_PORT",
        "SAMBA_HOST",
        "SAMBA_WORKERS",
    ):
        full_env.pop(k, None)
    if workers == 1:
        full_env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    return full_env


class ServerProcess:
    def __init__(self, *args: str, env: dict | None = None, workers: int = 1) -> None:
        # open for the server's whole life; close() removes it
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115
            prefix="samba-serve-",
            suffix=".log",
            delete=False,
        )
        full_env = serve_env(env, workers)
        # a test that needs calls in flight asks for slow ones: tests/slow_server.py
        # (or counts its JSON parses, or has workers fail to start)
        slow = any(
            full_env.get(k)
            for k in ("SAMBA_TEST_DELAY_SECONDS", "SAMBA_TEST_PARSE_LOG", "SAMBA_TEST_START_FAILS")
        )
        self.proc = subprocess.Popen(
            serve_command(*args, workers=workers, slow=slow),
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=full_env,
            cwd=ROOT,
            text=True,
        )
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(10)
            raise RuntimeError("server did not start:\n" + self.logs())
        info = json.loads(line)
        assert info["event"] == "listening", info
        self.info = info
        self.grpc_port: int = info["grpcPort"]
        self.http_port: int = info["httpPort"]
        self.admin_port: int = info["adminPort"]
        self.admin_url = f"http://127.0.0.1:{self.admin_port}"
        self.base_url = f"http://127.0.0.1:{self.http_port}"
        self.grpc_target = f"127.0.0.1:{self.grpc_port}"

    def logs(self) -> str:
        return Path(self.log.name).read_text(errors="replace")

    def terminate(self, timeout: float = 30) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            raise

    def close(self) -> None:
        try:
            self.terminate()
        finally:
            with contextlib.suppress(OSError):
                os.unlink(self.log.name)


@pytest.fixture(scope="session")
def server():
    s = ServerProcess()
    yield s
    s.close()


@pytest.fixture(scope="session")
def http(server):
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        yield client


@pytest.fixture(scope="session")
def channel(server):
    with grpc.insecure_channel(server.grpc_target) as ch:
        grpc.channel_ready_future(ch).result(timeout=10)
        yield ch


@pytest.fixture(scope="session")
def stub(channel):
    return adjudicator_pb2_grpc.AdjudicatorStub(channel)


# -- requests for every method ------------------------------------------------------------


def rest_call(http: httpx.Client, method: str, body: dict, **kw) -> httpx.Response:
    verb, path = REST[method]
    if method == "GetRuleset":
        return http.get(path.format(profile=body["profile"]), **kw)
    if verb == "GET":
        return http.get(path, **kw)
    return http.post(path, content=json.dumps(body), **kw)


def grpc_call(stub, method: str, body: dict, **kw):
    request = json_format.ParseDict(body, METHODS[method][0]())
    return getattr(stub, method)(request, **kw)


def cli_call(method: str, body: dict, env: dict | None = None) -> tuple[int, dict]:
    p = subprocess.run(
        [sys.executable, "-m", "samba_adjudicator.service.transport.cli", kebab(method)],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=60,
    )
    return p.returncode, json.loads(p.stdout)


@pytest.fixture(scope="session")
def dealt(http) -> dict:
    r = http.post("/v1/deals:deal", content=json.dumps({"players": 4, "seed": "service-tests"}))
    assert r.status_code == 200, r.text
    return r.json()["snapshot"]


@pytest.fixture(scope="session")
def sample_requests(http, dealt) -> dict:
    """One valid request body per RPC, built from a real deal and its legal actions."""
    legal = http.post("/v1/actions:list", content=json.dumps({"snapshot": dealt})).json()
    first = legal["actions"][0]
    return {
        "ListRulesets": {},
        "GetRuleset": {"profile": "classic+open"},
        "Deal": {"players": 4, "seed": "parity-seed", "dealer": 1},
        "CheckMeld": {"cards": ["7H", "7D", "7C"]},
        "ValidateAction": {"snapshot": dealt, "action": first},
        "ApplyAction": {"snapshot": dealt, "action": first},
        "ListLegalActions": {"snapshot": dealt, "pageSize": 5},
        "ScoreDeal": {"snapshot": dealt, "provisional": True},
        "GetPlayerView": {"snapshot": dealt, "seat": 0},
        "ReplayDeal": {"snapshot": dealt, "actions": [first]},
        "SuggestAction": {"snapshot": dealt, "seat": first["seat"], "level": "STRONG", "seed": "s"},
        "VerifyDeal": {"deal": dealt, "seed": "service-tests"},
    }


def memory_mb(pid: int, field: str = "VmHWM") -> float:
    """A process's memory from /proc: ``VmHWM`` (peak resident) or ``VmRSS`` (now), MB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field} for process {pid}")


def wait_for(predicate, timeout: float = 10.0, interval: float = 0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("condition not met in time")
