"""A worker of ``serve --workers N`` that dies is replaced on its own ports (issue 56, item 2):
while it is replaced no other server can take them, and a replacement that cannot start
never stops the server (it is tried again, counted, logged, and readiness says so)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time

import httpx
import pytest
from scale_cluster import Replica
from service_fixtures import ROOT, serve_command, serve_env, wait_for

from samba_adjudicator.client import Client

pytestmark = pytest.mark.servers


def _listening(port: int) -> set[int]:
    """The processes listening on ``port`` (``ss``)."""
    out = subprocess.run(
        ["ss", "-Htlnp", f"( sport = :{port} )"], capture_output=True, text=True, check=True
    ).stdout
    return {int(p) for p in re.findall(r"pid=(\d+)", out)}


def _kill_worker(replica: Replica, index: int) -> None:
    """SIGKILL worker ``index``; back once its sockets are closed. It is found by its own
    gRPC port, where only it listens (the supervisor's socket is bound, not listening)."""
    grpc_port = replica.server.info["workerGrpcPorts"][index]
    (pid,) = _listening(grpc_port)
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: pid not in _listening(grpc_port), timeout=10, interval=0.01)


def _answers(transport: str, port: int) -> bool:
    client = (
        Client.rest(f"http://127.0.0.1:{port}")
        if transport == "rest"
        else Client.grpc(f"127.0.0.1:{port}")
    )
    with client:
        return client.call("GetRuleset", {"profile": "classic"})["profile"] == "classic"


def _plain_bind(port: int) -> str:
    """What a plain server's listener gets on ``port`` (``SO_REUSEADDR``, as uvicorn, gRPC
    and ``serve`` with one worker bind): "bound", or the error."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen(8)
        return "bound"
    except OSError as e:
        return e.strerror or str(e)
    finally:
        sock.close()


def _second_server(flag: str, port: int) -> tuple[int, str, str]:
    second = subprocess.Popen(
        [*serve_command(), flag, str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=serve_env(),
    )
    try:
        out, err = second.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # it started: stopped as a server is
        second.terminate()
        out, err = second.communicate(timeout=60)
    return second.returncode, out, err


@pytest.mark.parametrize(
    "transport,field,flag",
    [("rest", "workerHttpPorts", "--http-port"), ("grpc", "workerGrpcPorts", "--grpc-port")],
)
def test_a_killed_worker_s_own_port_cannot_be_taken_while_it_is_replaced(transport, field, flag):
    """Issue 56: SIGKILL worker 1, then ``serve --http-port`` its own port: the second server
    started in 4 of 5 tries (the supervisor's socket let any ``SO_REUSEADDR`` listener
    beside it), and the replacement then never bound. Now the second server is refused, the
    first keeps serving on its other ports, and the replacement serves on the port."""
    replica = Replica({}, workers=2, own_ports=True)
    srv = replica.server
    port = srv.info[field][1]
    try:
        _kill_worker(replica, 1)
        assert _plain_bind(port) == "Address already in use"
        status, out, err = _second_server(flag, port)
        assert status == 1 and out == "", (status, out, err)
        assert "is not available (Address already in use)" in err, err
        # the first server serves meanwhile: its shared ports and worker 0's own
        assert _answers(transport, srv.http_port if transport == "rest" else srv.grpc_port)
        assert _answers(transport, srv.info[field][0])
        # and the replacement on worker 1's own port
        wait_for(lambda: '"worker ready"' in srv.logs(), timeout=60, interval=0.2)
        assert _answers(transport, port)
        assert srv.proc.poll() is None
    finally:
        replica.close()
    assert srv.proc.returncode == 0, srv.logs()


def _readiness(srv) -> tuple[int, dict]:
    r = httpx.get(srv.admin_url + "/readyz", timeout=10)
    return r.status_code, r.json()


def _start_failures(srv) -> float:
    text = httpx.get(srv.admin_url + "/metrics", timeout=10).text
    found = re.search(r"^samba_worker_start_failures_total (\S+)$", text, re.M)
    return float(found.group(1)) if found else 0.0


def test_a_replacement_that_cannot_start_is_tried_again_and_readiness_says_so(tmp_path):
    """Issue 56: a replacement that could not bind failed in a loop, and after eleven
    failures in a minute the supervisor stopped the whole server (exit 1 within 14 s),
    its other worker and the shared ports with it. Now it is tried again with a growing
    wait, each failure counted and logged; ``/readyz`` says NOT_SERVING, naming the worker,
    while the other worker serves; once the cause is gone the replacement starts."""
    flag = tmp_path / "start-fails"
    replica = Replica({"SAMBA_TEST_START_FAILS": str(flag)}, workers=2, own_ports=True)
    srv = replica.server
    try:
        assert _readiness(srv)[0] == 200
        flag.touch()
        _kill_worker(replica, 1)
        wait_for(lambda: _start_failures(srv) >= 3, timeout=90, interval=0.5)
        assert srv.proc.poll() is None, srv.logs()
        assert _readiness(srv) == (503, {"status": "NOT_SERVING", "workersMissing": [1]})
        assert _answers("rest", srv.http_port) and _answers("grpc", srv.grpc_port)
        assert _answers("rest", srv.info["workerHttpPorts"][0])
        assert srv.logs().count('"worker failed to start; trying again"') >= 3
        flag.unlink()
        wait_for(lambda: _readiness(srv)[0] == 200, timeout=60, interval=0.2)
        assert _answers("rest", srv.info["workerHttpPorts"][1])
        assert _answers("grpc", srv.info["workerGrpcPorts"][1])
    finally:
        replica.close()
    assert srv.proc.returncode == 0, srv.logs()


def test_a_port_left_in_time_wait_by_a_plain_server_is_still_reserved():
    """The supervisor's socket has no ``SO_REUSEADDR`` (so that no plain listener binds
    beside it), which the kernel refuses while an earlier server's connections without
    ``SO_REUSEPORT`` linger in TIME_WAIT: it then holds the port as before, not failing."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        accepted, _ = listener.accept()
        accepted.close()  # the server closes first: its side goes to TIME_WAIT
        time.sleep(0.1)
        client.close()
    from samba_adjudicator.service.transport.listeners import reserve

    held = reserve("127.0.0.1", port)
    held.close()
