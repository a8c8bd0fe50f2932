"""A port that is taken: one line naming it and the flag to change, exit 1, no traceback."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest
from service_fixtures import ROOT

pytestmark = pytest.mark.servers


@pytest.fixture()
def taken_port():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    yield sock.getsockname()[1]
    sock.close()


def _serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "samba_adjudicator.service.transport.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--admin-port",
            "0",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


@pytest.mark.parametrize(
    "flag,other,name",
    [("--http-port", "--grpc-port", "HTTP"), ("--grpc-port", "--http-port", "gRPC")],
)
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_taken_port_is_one_clear_line(taken_port, flag, other, name, workers):
    done = _serve(flag, str(taken_port), other, "0", "--workers", workers)
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert lines == [
        f"samba-adjudicator serve: the {name} port {taken_port} on 127.0.0.1 is "
        f"not available (Address already in use); choose another with {flag} N "
        f"(or SAMBA_{flag[2:].upper().replace('-', '_')})"
    ]
