"""Replicas behind a real nginx, on 127.0.0.1 only (tests/test_scale.py, bench/scale_bench.py).

- ``Replica``: one ``samba-adjudicator serve`` process (tests/service_fixtures.py), first on
  ports the kernel picks, then restarted on the same ones; every replica gets the same
  ``SAMBA_SNAPSHOT_KEYS`` and ``SAMBA_PAGE_TOKEN_KEY``.
- ``Nginx``: Debian's nginx as the current user, prefix, configuration, pid, error and access
  logs in a temporary folder; REST by ``proxy_pass`` (HTTP/1.1) and gRPC by ``grpc_pass``
  (HTTP/2 without TLS), both round-robin per request over ``keepalive`` upstreams. Its
  access logs (one JSON object per call: the replica that answered, the statuses) say where
  every call landed.
- ``play``: one whole match by an example bot (clients/python/client/examples/play_deal.py,
  clients/typescript/examples/play-deal.ts), as a separate process.
"""

from __future__ import annotations

import base64
import contextlib
import grp
import json
import os
import pwd
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from service_fixtures import ROOT, ServerProcess

from samba_adjudicator.client.deal_check import deal_commitment

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
TS_BOT = ROOT / "clients" / "typescript" / ".build" / "examples" / "play-deal.js"
PY_BOT = ROOT / "clients" / "python" / "client" / "examples" / "play_deal.py"


def shared_keys() -> dict[str, str]:
    """A signing key and a page-token key, fresh for one cluster, as the chart's Secret."""
    return {
        "SAMBA_SNAPSHOT_KEYS": "k1:" + base64.b64encode(os.urandom(32)).decode(),
        "SAMBA_PAGE_TOKEN_KEY": base64.b64encode(os.urandom(32)).decode(),
    }


class Replica:
    """One server process (``workers`` worker processes); ``restart`` starts it again on the
    ports it had. ``own_ports``: each worker also listens on ports of its own
    (``--worker-grpc-port``, ``--worker-http-port``), which ``Nginx`` then balances over
    instead of the shared ones."""

    def __init__(self, env: dict[str, str], workers: int = 1, own_ports: bool = False) -> None:
        self.env = env
        self.workers = workers
        self.own: tuple[str, ...] = ()
        for attempt in range(5):  # another test may take a free run of ports meanwhile
            if own_ports:
                first = free_port_run(2 * workers)
                self.own = (
                    "--worker-grpc-port",
                    str(first),
                    "--worker-http-port",
                    str(first + workers),
                )
            try:
                self.server = ServerProcess(*self.own, env=env, workers=workers)
                break
            except RuntimeError:
                if not own_ports or attempt == 4:
                    raise
        self.grpc_port = self.server.grpc_port
        self.http_port = self.server.http_port
        #: the ports a balancer sends to: each worker's own, else the shared one
        self.grpc_targets: list[int] = self.server.info.get("workerGrpcPorts", [self.grpc_port])
        self.http_targets: list[int] = self.server.info.get("workerHttpPorts", [self.http_port])
        self.old: list[ServerProcess] = []

    def _ports(self) -> tuple[str, ...]:
        return ("--grpc-port", str(self.grpc_port), "--http-port", str(self.http_port), *self.own)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        """Send ``sig`` and wait for the process to exit; its exit status."""
        proc = self.server.proc
        if proc.poll() is None:
            proc.send_signal(sig)
        status = proc.wait(timeout)
        self.old.append(self.server)
        return status

    def restart(self) -> None:
        self.server = ServerProcess(*self._ports(), env=self.env, workers=self.workers)

    def close(self) -> None:
        for srv in [*self.old, self.server]:
            with contextlib.suppress(Exception):
                srv.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_port_run(count: int) -> int:
    """The first of ``count`` consecutive ports free now, below the range the kernel picks
    free ports from (so that the servers' port 0 never takes one of them meanwhile)."""
    rng = random.Random()
    while True:
        first = rng.randrange(20000, 32000 - count)
        socks = []
        try:
            for port in range(first, first + count):
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()


LOG_FORMAT = (
    "log_format calls escape=json '{"
    '"t":$msec,"upstream":"$upstream_addr","status":$status,'
    '"upstreamStatus":"$upstream_status","grpcStatus":"$sent_trailer_grpc_status",'
    '"grpcHeaderStatus":"$sent_http_grpc_status","requestId":"$http_x_request_id",'
    '"uri":"$request_uri","table":"$http_x_samba_table"'
    "}';"
)


def _user_line() -> str:
    """nginx's workers run as the current user (only root's master changes user)."""
    if os.geteuid() != 0:
        return ""
    user = pwd.getpwuid(os.geteuid()).pw_name
    group = grp.getgrgid(os.getegid()).gr_name
    return f"user {user} {group};"


#: nginx's key for a table's calls: the clients' ``x-samba-table`` header (gRPC metadata is
#: an HTTP/2 header too). A call without one is balanced round-robin.
TABLE_HASH = "hash $http_x_samba_table consistent;"


def nginx_config(
    prefix: Path, rest_port: int, grpc_port: int, replicas: list[Replica], balance: str = ""
) -> str:
    """``balance``: an upstream balancing directive (``TABLE_HASH``); round-robin without."""
    # max_fails=0: a replica that refused a connection is tried again on the next call
    # (a restarted one answers at once); the refused call itself goes to the next replica
    rest = "\n".join(
        f"    server 127.0.0.1:{port} max_fails=0;" for r in replicas for port in r.http_targets
    )
    grpc = "\n".join(
        f"    server 127.0.0.1:{port} max_fails=0;" for r in replicas for port in r.grpc_targets
    )
    kinds = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    temp = " ".join(f"{kind}_temp_path {prefix}/{kind};" for kind in kinds)
    return f"""{_user_line()}
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  {LOG_FORMAT}
  {temp}
  upstream samba_rest {{
    {balance}
{rest}
    keepalive 32;
  }}
  upstream samba_grpc {{
    {balance}
{grpc}
    keepalive 32;
  }}
  server {{
    listen 127.0.0.1:{rest_port};
    access_log {prefix}/rest.log calls;
    location / {{
      proxy_pass http://samba_rest;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }}
  }}
  server {{
    listen 127.0.0.1:{grpc_port} http2;
    access_log {prefix}/grpc.log calls;
    location / {{
      grpc_pass grpc://samba_grpc;
    }}
  }}
}}
"""


class Nginx:
    """nginx in front of ``replicas``: ``rest_url`` and ``grpc_target`` (host:port)."""

    def __init__(self, replicas: list[Replica], balance: str = "") -> None:
        if not os.access(NGINX, os.X_OK):
            raise RuntimeError(f"nginx is not installed at {NGINX} (make nginx installs it)")
        self.prefix = Path(tempfile.mkdtemp(prefix="samba-nginx-"))
        self.rest_port, self.grpc_port = free_port(), free_port()
        config = self.prefix / "nginx.conf"
        config.write_text(
            nginx_config(self.prefix, self.rest_port, self.grpc_port, replicas, balance)
        )
        for name in ("rest.log", "grpc.log"):
            (self.prefix / name).touch()
        self.proc = subprocess.Popen(
            [NGINX, "-p", str(self.prefix), "-c", str(config), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.rest_url = f"http://127.0.0.1:{self.rest_port}"
        self.grpc_target = f"127.0.0.1:{self.grpc_port}"
        self._wait_listening()

    def _wait_listening(self) -> None:
        deadline = time.monotonic() + 15
        for port in (self.rest_port, self.grpc_port):
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError("nginx exited:\n" + self.errors())
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                if time.monotonic() > deadline:
                    raise RuntimeError("nginx did not listen:\n" + self.errors())
                time.sleep(0.05)

    def errors(self) -> str:
        path = self.prefix / "error.log"
        stderr = self.proc.stderr.read().decode() if self.proc.poll() is not None else ""
        return stderr + (path.read_text() if path.exists() else "")

    def calls(self, transport: str) -> list[dict]:
        """Every call nginx proxied on ``transport`` ("rest" or "grpc"), in order."""
        text = (self.prefix / f"{transport}.log").read_text()
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # graceful: finish what is in flight
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        shutil.rmtree(self.prefix, ignore_errors=True)


def cache_outcomes(admin_url: str) -> dict[str, float]:
    """``samba_snapshot_cache_total`` of one server by outcome (``hit``, ``miss``), summed
    over its methods and its workers (its /metrics sums them)."""
    out: dict[str, float] = {"hit": 0.0, "miss": 0.0}
    text = httpx.get(admin_url + "/metrics", timeout=30).text
    for line in text.splitlines():
        if line.startswith("samba_snapshot_cache_total{"):
            head, value = line.rsplit(" ", 1)
            outcome = head.split('outcome="', 1)[1].split('"', 1)[0]
            out[outcome] = out.get(outcome, 0.0) + float(value)
    return out


def answered_by(call: dict) -> str:
    """The replica (127.0.0.1:port) that gave the answer: the last one nginx tried."""
    return call["upstream"].split(",")[-1].strip()


def failed_attempt(call: dict) -> bool:
    """A call nginx answered with a failure the client retries: 502/503/504, or gRPC
    UNAVAILABLE (14) or CANCELLED (1: a draining server's call it had not started)."""
    grpc_status = call["grpcStatus"] or call["grpcHeaderStatus"]
    return call["status"] in (502, 503, 504) or grpc_status in ("14", "1")


@dataclass
class Match:
    """One bot's match: who, over what, which seed, and how it ended."""

    bot: str  # "python" or "typescript"
    transport: str  # "rest" or "grpc"
    seed: str
    status: int = -1
    result: dict = field(default_factory=dict)
    output: str = ""

    @property
    def commitment(self) -> str:
        """The deal's commitment: the table key its client sends with every call (the
        example bots deal with the match's seed)."""
        return deal_commitment(self.seed)


def bot_command(bot: str, transport: str, seed: str, nginx: Nginx) -> list[str]:
    if bot == "python":
        target = nginx.rest_url if transport == "rest" else nginx.grpc_target
        return [sys.executable, str(PY_BOT), "--transport", transport, "--target", target]
    url = nginx.rest_url if transport == "rest" else f"http://{nginx.grpc_target}"
    return ["node", str(TS_BOT), "--transport", transport, "--url", url, "--seed", seed]


def play(bot: str, transport: str, seed: str, nginx: Nginx) -> Match:
    """One whole match; ``result`` is the bot's last line (its JSON summary)."""
    cmd = bot_command(bot, transport, seed, nginx)
    if bot == "python":
        cmd += ["--seed", seed]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
    match = Match(bot, transport, seed, p.returncode, output=p.stdout + p.stderr)
    lines = p.stdout.strip().splitlines()
    if p.returncode == 0 and lines:
        summary = json.loads(lines[-1])
        match.result = {"applied": summary["applied"], "sides": summary["sides"]}
    return match


HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"


def haproxy_config(port: int, backend_ports: list[int]) -> str:
    """TCP mode (layer 4, as kube-proxy balances a Service): each new connection goes to
    the next backend that passes its connect check (every 200 ms); the calls on one
    connection all stay on its backend."""
    servers = "\n".join(
        f"  server r{i} 127.0.0.1:{p} check inter 200ms fall 1 rise 1"
        for i, p in enumerate(backend_ports)
    )
    return f"""global
  maxconn 1000
defaults
  mode tcp
  timeout connect 2s
  timeout client 60s
  timeout server 60s
frontend grpc
  bind 127.0.0.1:{port}
  default_backend replicas
backend replicas
  balance roundrobin
{servers}
"""


class HAProxy:
    """Debian's haproxy in front of ``backend_ports`` (some may not listen yet: a backend
    is used once its check passes, as an endpoint joins a Service once its pod is ready)."""

    def __init__(self, backend_ports: list[int]) -> None:
        if not os.access(HAPROXY, os.X_OK):
            raise RuntimeError(f"haproxy is not installed at {HAPROXY} (make haproxy installs it)")
        self.prefix = Path(tempfile.mkdtemp(prefix="samba-haproxy-"))
        self.port = free_port()
        config = self.prefix / "haproxy.cfg"
        config.write_text(haproxy_config(self.port, backend_ports))
        self.proc = subprocess.Popen(
            [HAPROXY, "-db", "-f", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.target = f"127.0.0.1:{self.port}"
        deadline = time.monotonic() + 15
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("haproxy exited:\n" + self.proc.stderr.read().decode())
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("haproxy did not listen")
            time.sleep(0.05)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        shutil.rmtree(self.prefix, ignore_errors=True)
