"""Service benchmark: the real server under load, adjudication vs a no-op echo.

For ``--workers 1`` and ``2`` it starts ``samba-adjudicator serve`` on 127.0.0.1 ephemeral
ports with ``SAMBA_BENCH_ECHO=1`` (which adds ``/samba.v1.Bench/Echo`` and
``POST /v1/bench:echo``: the same bytes back through the same stack), and loads it from
separate processes for ``--duration`` seconds per scenario:

- gRPC with ``h2load`` (nghttp2-client): the request in gRPC framing (a 5-byte prefix and
  the serialized message) in a data file, ``content-type: application/grpc``, ``te:
  trailers``; latency percentiles from its per-request log;
- REST with ``wrk`` (POST body set by a small Lua script), ``--latency`` percentiles.

The request is a realistic mid-game ValidateAction (bench/scenarios.py: a classic 4-player
deal played ~30 plies through the legal-action list with a fixed seed). The echo answers the
identical bytes, so ``ratio`` = adjudication throughput / transport-only throughput. The
same request sent again and again is a position the server has loaded before (candidate
moves against one position: docs/service.md); ``validate-new`` (one worker, both transports)
sends it to a second server started with ``--snapshot-cache-size 0``, which keeps no loaded
snapshot, so that every call loads the position anew (a replica behind a round-robin
balancer that has not seen it), against the first server's echo. The servers run the build
``SAMBA_BUILD`` chooses (``SAMBA_BUILD=pure make bench-service`` for the Python source).
Every scenario runs
``--rounds`` times, interleaved; the table gives medians and each round's ratio.

Beside the throughput ratio, each row has the server's CPU time per call (every thread of
its processes, ``/proc/<pid>/task/*/schedstat``, over the load tool's run, divided by the
calls at the measured rate over the run and its 1 s warm-up) and the **CPU ratio**: the
echo's CPU per call over the call's, round by round. On a shared machine a slow spell cuts
both throughputs unevenly (the server, the load tool and other tenants share the CPUs); the
CPU each call costs moves far less, and at saturation the two ratios agree.

Missing tools are installed with apt-get when running as root; otherwise a Python asyncio
client (grpc.aio / httpx, many calls in flight) is used instead.

    make bench-service                      # or: .venv/bin/python bench/service_bench.py
    .venv/bin/python bench/service_bench.py --duration 5 --workers 1
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import math
import os
import re
import secrets
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from scenarios import midgame, midgame_path, typical_action  # noqa: E402
from server_cpu import server_cpu_seconds  # noqa: E402

from samba_adjudicator.service.base import pb  # noqa: E402
from samba_adjudicator.service.codec import convert, jsonio  # noqa: E402
from samba_adjudicator.service.codec.actions import action_to_proto  # noqa: E402

VALIDATE = "/samba.v1.Adjudicator/ValidateAction"
ECHO = "/samba.v1.Bench/Echo"
REST_VALIDATE = "/v1/actions:validate"
REST_ECHO = "/v1/bench:echo"
DEAL = "/samba.v1.Adjudicator/Deal"
REPLAY = "/samba.v1.Adjudicator/ReplayDeal"
REST_DEAL = "/v1/deals:deal"
REST_REPLAY = "/v1/deals:replay"


# -- the request --------------------------------------------------------------------------


#: The load tools' warm-up before the measured run (h2load ``--warm-up-time``, wrk's run).
WARM_UP_SECONDS = 1


def make_request() -> pb.ValidateActionRequest:
    s = midgame()
    action = typical_action(s)
    return pb.ValidateActionRequest(
        snapshot=convert.snapshot_to_proto(s), action=action_to_proto(action)
    )


def signing_env() -> dict[str, str]:
    """Signing on: one fresh 32-byte key, as docs/api.md#trust-model configures it."""
    key = base64.b64encode(secrets.token_bytes(32)).decode("ascii")
    return {"SAMBA_SNAPSHOT_KEYS": f"bench:{key}"}


def signed_requests(server: Server, request: pb.ValidateActionRequest) -> tuple[bytes, bytes]:
    """``request`` with its snapshot as ``server`` (signing on) rendered and signed it, byte
    for byte, for each transport: the mid-game deal dealt by the server and its moves
    replayed through it (Deal, then ReplayDeal), the answer's snapshot sent back unchanged.
    Returns (protobuf bytes, JSON bytes)."""
    import grpc
    import httpx

    seed, path, _ = midgame_path()
    actions = [action_to_proto(a) for a in path]
    deal = pb.DealRequest(ruleset=pb.RulesetRef(profile="classic"), players=4, seed=seed)
    with grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}") as ch:
        dealt = pb.DealResponse.FromString(
            ch.unary_unary(DEAL)(deal.SerializeToString(), timeout=10)
        )
        replay = pb.ReplayDealRequest(snapshot=dealt.snapshot, actions=actions)
        raw = ch.unary_unary(REPLAY)(replay.SerializeToString(), timeout=10)
    replayed = pb.ReplayDealResponse.FromString(raw)
    signed = pb.ValidateActionRequest(snapshot=replayed.snapshot, action=request.action)
    binary = signed.SerializeToString()
    # the snapshot's bytes as the server sent them, and the position the other rows send
    assert signed.snapshot.signature and signed.snapshot.SerializeToString() in raw
    unsigned = pb.Snapshot()
    unsigned.CopyFrom(signed.snapshot)
    unsigned.signature = ""
    assert unsigned == request.snapshot, "the replayed position is not the bench's"

    base = f"http://127.0.0.1:{server.http_port}"
    dealt_json = httpx.post(
        base + REST_DEAL, content=jsonio.dumps(jsonio.to_dict(deal)).encode(), timeout=10
    ).json()
    body = {"snapshot": dealt_json["snapshot"], "actions": [jsonio.to_dict(a) for a in actions]}
    r = httpx.post(base + REST_REPLAY, content=jsonio.dumps(body).encode(), timeout=10)
    assert r.status_code == 200, r.text
    snapshot_text = jsonio.dumps(r.json()["snapshot"])
    assert snapshot_text in r.text, "the JSON snapshot is not the server's own rendering"
    action_text = jsonio.dumps(jsonio.to_dict(request.action))
    text = f'{{"snapshot":{snapshot_text},"action":{action_text}}}'.encode()
    assert jsonio.loads(text)["snapshot"]["signature"] == signed.snapshot.signature
    return binary, text


# -- tools --------------------------------------------------------------------------------


def ensure_tools() -> bool:
    if shutil.which("h2load") and shutil.which("wrk"):
        return True
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("installing wrk and nghttp2-client with apt-get ...", file=sys.stderr)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(
            ["apt-get", "update", "-qq"], env=env, check=False, stdout=subprocess.DEVNULL
        )
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "wrk", "nghttp2-client"],
            env=env,
            check=False,
            stdout=subprocess.DEVNULL,
        )
    return bool(shutil.which("h2load") and shutil.which("wrk"))


# -- the server ---------------------------------------------------------------------------


class Server:
    def __init__(self, workers: int, *extra: str, env: dict[str, str] | None = None) -> None:
        exe = shutil.which("samba-adjudicator", path=str(ROOT / ".venv" / "bin")) or shutil.which(
            "samba-adjudicator"
        )
        cmd = [exe] if exe else [sys.executable, "-m", "samba_adjudicator.service.transport.cli"]
        env = {
            **os.environ,
            "SAMBA_BENCH_ECHO": "1",
            "SAMBA_LOG_LEVEL": "warning",
            "SAMBA_SNAPSHOT_KEYS": "",  # signing off unless ``env`` turns it on
            **(env or {}),
        }
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        self.proc = subprocess.Popen(
            cmd
            + [
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
                "--shutdown-grace-seconds",
                "2",
                *extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=ROOT,
            text=True,
        )
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the server did not start")
        info = json.loads(line)
        self.grpc_port, self.http_port = info["grpcPort"], info["httpPort"]
        self.admin_port = info["adminPort"]
        self.build = info.get("build", "?")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def sanity(server: Server, request: pb.ValidateActionRequest) -> None:
    """One real call on each transport: the bench must measure answers, not errors."""
    import grpc
    import httpx

    from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc

    with grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}") as ch:
        resp = adjudicator_pb2_grpc.AdjudicatorStub(ch).ValidateAction(request, timeout=10)
        assert resp.legal, resp
        echo = ch.unary_unary(ECHO)(request.SerializeToString(), timeout=10)
        assert echo == request.SerializeToString()
    body = jsonio.dumps(jsonio.to_dict(request)).encode()
    r = httpx.post(f"http://127.0.0.1:{server.http_port}{REST_VALIDATE}", content=body, timeout=10)
    assert r.status_code == 200 and r.json()["legal"], r.text
    r = httpx.post(f"http://127.0.0.1:{server.http_port}{REST_ECHO}", content=body, timeout=10)
    assert r.status_code == 200 and r.content == body


def sanity_signed(server: Server, request: pb.ValidateActionRequest, binary: bytes, text: bytes):
    """The signing server refuses the unsigned request and accepts the one it signed, on
    both transports, and echoes the signed bytes."""
    import grpc
    import httpx

    with grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}") as ch:
        validate = ch.unary_unary(VALIDATE)
        answer = pb.ValidateActionResponse.FromString(validate(binary, timeout=10))
        assert answer.legal, answer
        try:
            validate(request.SerializeToString(), timeout=10)
            raise AssertionError("the signing server accepted an unsigned snapshot")
        except grpc.RpcError as e:
            assert e.code() == grpc.StatusCode.PERMISSION_DENIED, e
        assert ch.unary_unary(ECHO)(binary, timeout=10) == binary
    base = f"http://127.0.0.1:{server.http_port}"
    r = httpx.post(base + REST_VALIDATE, content=text, timeout=10)
    assert r.status_code == 200 and r.json()["legal"], r.text
    unsigned = jsonio.dumps(jsonio.to_dict(request)).encode()
    assert httpx.post(base + REST_VALIDATE, content=unsigned, timeout=10).status_code == 403
    r = httpx.post(base + REST_ECHO, content=text, timeout=10)
    assert r.status_code == 200 and r.content == text


# -- load generators ----------------------------------------------------------------------


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = min(len(values) - 1, max(0, int(round(q * (len(values) - 1)))))
    return values[k]


def h2load(
    port: int, path: str, payload: bytes, duration: float, conns: int, streams: int, tmp: Path
) -> dict:
    data = tmp / "grpc-body.bin"
    data.write_bytes(b"\x00" + struct.pack(">I", len(payload)) + payload)
    logf = tmp / "h2load.log"
    if logf.exists():
        logf.unlink()
    cmd = [
        "h2load",
        "-D",
        str(int(duration)),
        "--warm-up-time",
        str(WARM_UP_SECONDS),
        "-c",
        str(conns),
        "-m",
        str(streams),
        "-t",
        "1",
        "-d",
        str(data),
        "--log-file",
        str(logf),
        "-H",
        "content-type: application/grpc",
        "-H",
        "te: trailers",
        f"http://127.0.0.1:{port}{path}",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False).stdout
    m = re.search(r"finished in ([\d.]+)(m?s), ([\d.]+) req/s", out)
    rps = float(m.group(3)) if m else float("nan")
    m = re.search(
        r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, "
        r"(\d+) failed, (\d+) errored",
        out,
    )
    failed = int(m.group(5)) + int(m.group(6)) if m else -1
    lat = []
    if logf.exists():
        for line in logf.read_text().splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1] == "200":
                lat.append(int(parts[2]) / 1e6)
    return {
        "rps": rps,
        "p50": _percentile(lat, 0.50),
        "p99": _percentile(lat, 0.99),
        "failed": failed,
        "tool": "h2load",
    }


_LUA = """wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("{path}", "rb")
wrk.body = f:read("*all")
f:close()
"""


#: One body per line, sent in turn: every call a position the server has not loaded yet
#: (more bodies than its snapshot cache holds).
def _wrk_time(text: str) -> float:
    m = re.match(r"([\d.]+)(us|ms|s|m)", text)
    if not m:
        return float("nan")
    scale = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[m.group(2)]
    return float(m.group(1)) * scale


def wrk(port: int, path: str, payload: bytes, duration: float, conns: int, tmp: Path) -> dict:
    body = tmp / "rest-body.json"
    script = tmp / "post.lua"
    body.write_bytes(payload)
    script.write_text(_LUA.format(path=body))
    # a short warm-up run, then the measured one
    base = ["wrk", "-t", "1", "-c", str(conns), "--latency", "-s", str(script)]
    subprocess.run(
        base + ["-d", f"{WARM_UP_SECONDS}s", f"http://127.0.0.1:{port}{path}"],
        capture_output=True,
        check=False,
    )
    out = subprocess.run(
        base + ["-d", f"{int(duration)}s", f"http://127.0.0.1:{port}{path}"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    m = re.search(r"Requests/sec:\s+([\d.]+)", out)
    rps = float(m.group(1)) if m else float("nan")
    p50 = re.search(r"\s50%\s+(\S+)", out)
    p99 = re.search(r"\s99%\s+(\S+)", out)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "rps": rps,
        "p50": _wrk_time(p50.group(1)) if p50 else float("nan"),
        "p99": _wrk_time(p99.group(1)) if p99 else float("nan"),
        "failed": int(bad.group(1)) if bad else 0,
        "tool": "wrk",
    }


def _asyncio_load(coro_factory, duration: float, concurrency: int) -> dict:
    lat: list[float] = []
    failed = 0

    async def main():
        nonlocal failed
        call = await coro_factory()
        stop = time.perf_counter() + duration

        async def one():
            nonlocal failed
            while time.perf_counter() < stop:
                t = time.perf_counter()
                try:
                    await call()
                    lat.append(time.perf_counter() - t)
                except Exception:  # noqa: BLE001
                    failed += 1

        start = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(concurrency)))
        return time.perf_counter() - start

    elapsed = asyncio.run(main())
    return {
        "rps": len(lat) / elapsed,
        "p50": _percentile(lat, 0.5),
        "p99": _percentile(lat, 0.99),
        "failed": failed,
        "tool": "asyncio",
    }


def grpc_asyncio(port: int, path: str, payload: bytes, duration: float, conc: int) -> dict:
    import grpc

    async def factory():
        ch = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        rpc = ch.unary_unary(path)

        async def call():
            await rpc(payload, timeout=30)

        return call

    return _asyncio_load(factory, duration, conc)


def rest_asyncio(port: int, path: str, payload: bytes, duration: float, conc: int) -> dict:
    import httpx

    async def factory():
        client = httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{port}", limits=httpx.Limits(max_connections=conc)
        )

        async def call():
            r = await client.post(
                path, content=payload, headers={"content-type": "application/json"}
            )
            if r.status_code != 200:
                raise RuntimeError(r.status_code)

        return call

    return _asyncio_load(factory, duration, conc)


# -- main ---------------------------------------------------------------------------------


def run(args) -> list[dict]:
    request = make_request()
    binary = request.SerializeToString()
    text = jsonio.dumps(jsonio.to_dict(request)).encode()
    tools = ensure_tools() and not args.asyncio
    print(
        f"request: mid-game ValidateAction, {len(binary)} bytes protobuf, {len(text)} bytes "
        f"JSON; {os.cpu_count()} CPUs; {args.duration:g} s per scenario; load with "
        f"{'h2load/wrk' if tools else 'asyncio clients'}",
        file=sys.stderr,
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for workers in args.workers:
            server = Server(workers)
            # validate-new: the same request to a server that keeps no loaded snapshot, so
            # that every call loads its position anew (a replica behind a round-robin
            # balancer that has not seen it); its echo is the other server's
            cold = Server(1, "--snapshot-cache-size", "0") if workers == 1 else None
            # validate-new-signed: the same, signing on, sent the snapshot as that server
            # signed it; its echo is its own, of the same (signed) bytes
            signing = (
                Server(1, "--snapshot-cache-size", "0", env=signing_env()) if workers == 1 else None
            )
            print(f"workers={workers}: the {server.build} build", file=sys.stderr)
            try:
                sanity(server, request)
                plans = [
                    ("grpc", VALIDATE, binary, "validate", server),
                    ("grpc", ECHO, binary, "echo", server),
                    ("rest", REST_VALIDATE, text, "validate", server),
                    ("rest", REST_ECHO, text, "echo", server),
                ]
                if cold is not None:
                    sanity(cold, request)
                    plans += [
                        ("grpc", VALIDATE, binary, "validate-new", cold),
                        ("rest", REST_VALIDATE, text, "validate-new", cold),
                    ]
                if signing is not None:
                    signed_binary, signed_text = signed_requests(signing, request)
                    sanity_signed(signing, request, signed_binary, signed_text)
                    print(
                        f"  validate-new-signed: {len(signed_binary)} bytes protobuf, "
                        f"{len(signed_text)} bytes JSON, as the server signed them",
                        file=sys.stderr,
                    )
                    plans += [
                        ("grpc", VALIDATE, signed_binary, "validate-new-signed", signing),
                        ("grpc", ECHO, signed_binary, "echo-signed", signing),
                        ("rest", REST_VALIDATE, signed_text, "validate-new-signed", signing),
                        ("rest", REST_ECHO, signed_text, "echo-signed", signing),
                    ]
                if args.dry_run:
                    for transport, path, payload, call, target in plans:
                        print(
                            f"  would load {transport} {call} ({len(payload)} bytes, "
                            f"{path}) on port "
                            f"{target.grpc_port if transport == 'grpc' else target.http_port}",
                            file=sys.stderr,
                        )
                        rows.append(
                            {
                                "workers": workers,
                                "transport": transport,
                                "call": call,
                                "bytes": len(payload),
                                "build": target.build,
                                "dry_run": True,
                            }
                        )
                    continue
                # rounds interleave the scenarios, so a slow spell of the machine hits all
                for _round, (transport, path, payload, call, target) in (
                    (r, plan) for r in range(args.rounds) for plan in plans
                ):
                    cpu_before = server_cpu_seconds(target.proc.pid)[0]
                    if transport == "grpc":
                        res = (
                            h2load(
                                target.grpc_port,
                                path,
                                payload,
                                args.duration,
                                args.connections,
                                args.streams,
                                tmp,
                            )
                            if tools
                            else grpc_asyncio(
                                target.grpc_port,
                                path,
                                payload,
                                args.duration,
                                args.connections * args.streams,
                            )
                        )
                    else:
                        res = (
                            wrk(
                                target.http_port,
                                path,
                                payload,
                                args.duration,
                                args.connections * args.streams,
                                tmp,
                            )
                            if tools
                            else rest_asyncio(
                                target.http_port,
                                path,
                                payload,
                                args.duration,
                                args.connections * args.streams,
                            )
                        )
                    cpu = server_cpu_seconds(target.proc.pid)[0] - cpu_before
                    # the tools' 1 s warm-up is in the CPU figure: its calls are counted at
                    # the measured rate
                    calls = res["rps"] * (args.duration + WARM_UP_SECONDS)
                    res.update(
                        workers=workers,
                        transport=transport,
                        call=call,
                        round=_round,
                        build=target.build,
                        cpu_us=cpu / calls * 1e6 if calls > 0 else float("nan"),
                    )
                    rows.append(res)
                    print(
                        f"  workers={workers} {transport:4} {res['call']:8} "
                        f"{res['rps']:9.1f} req/s  p50 {res['p50'] * 1e3:7.2f} ms  "
                        f"p99 {res['p99'] * 1e3:7.2f} ms  failed {res['failed']}  "
                        f"server CPU {res['cpu_us']:6.0f} µs/call",
                        file=sys.stderr,
                    )
            finally:
                server.stop()
                for other in (cold, signing):
                    if other is not None:
                        other.stop()
    return rows


def _median_row(rows: list[dict]) -> dict:
    return {k: statistics.median(r[k] for r in rows) for k in ("rps", "p50", "p99")}


#: The ratio each row should reach (issue #25), by (call, transport).
TARGETS = {
    ("validate", "grpc"): 0.85,
    ("validate", "rest"): 0.85,
    ("validate-new", "grpc"): 0.5,
    ("validate-new", "rest"): 0.5,
    ("validate-new-signed", "grpc"): 0.7,
    ("validate-new-signed", "rest"): 0.6,
}


def echo_of(call: str) -> str:
    """The echo a call is measured against: a signed call's own server echoing its bytes."""
    return "echo-signed" if call.endswith("-signed") else "echo"


def table(rows: list[dict]) -> str:
    """Medians over the rounds; the ratio is the median of each round's own ratio."""
    out = [
        "| workers | transport | call | req/s | p50 ms | p99 ms | "
        "echo req/s | p50 ms | p99 ms | ratio to echo (rounds) | target | met | "
        "server CPU µs/call, echo's | CPU ratio (rounds) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    keys = []
    for r in rows:
        k = (r["workers"], r["transport"], r["call"])
        if k not in keys and not r["call"].startswith("echo"):
            keys.append(k)
    for k in keys:
        same = [r for r in rows if (r["workers"], r["transport"], r["call"]) == k]
        echo = {
            r["round"]: r
            for r in rows
            if (r["workers"], r["transport"]) == k[:2] and r["call"] == echo_of(k[2])
        }
        ratios = [r["rps"] / echo[r["round"]]["rps"] for r in same if r["round"] in echo]
        if not ratios:
            continue
        cpu_ratios = [
            echo[r["round"]]["cpu_us"] / r["cpu_us"]
            for r in same
            if r["round"] in echo and r.get("cpu_us", 0) > 0
        ]
        cpu = statistics.median(r.get("cpu_us", math.nan) for r in same)
        echo_cpu = statistics.median(r.get("cpu_us", math.nan) for r in echo.values())
        cpu_spread = ", ".join(f"{x:.2f}" for x in cpu_ratios)
        cpu_ratio = f"**{statistics.median(cpu_ratios):.2f}** ({cpu_spread})" if cpu_ratios else ""
        v, e = _median_row(same), _median_row(list(echo.values()))
        spread = ", ".join(f"{x:.2f}" for x in ratios)
        ratio = statistics.median(ratios)
        target = TARGETS.get((k[2], k[1]))
        goal = f">= {target:g}x" if target is not None else ""
        met = ("yes" if ratio >= target else "**no**") if target is not None else ""
        out.append(
            f"| {k[0]} | {k[1]} | {k[2]} | "
            f"{v['rps']:.0f} | {v['p50'] * 1e3:.2f} | {v['p99'] * 1e3:.2f} | "
            f"{e['rps']:.0f} | {e['p50'] * 1e3:.2f} | {e['p99'] * 1e3:.2f} | "
            f"**{ratio:.2f}** ({spread}) | {goal} | {met} | "
            f"{cpu:.0f}, {echo_cpu:.0f} | {cpu_ratio} |"
        )
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--duration", type=float, default=5.0, help="seconds per scenario")
    p.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="times each scenario runs, interleaved; the table shows medians",
    )
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--connections", type=int, default=4, help="client connections")
    p.add_argument(
        "--streams",
        type=int,
        default=4,
        help="concurrent calls per gRPC connection (REST: connections*streams connections)",
    )
    p.add_argument(
        "--asyncio",
        action="store_true",
        help="use the Python asyncio clients even when h2load/wrk are present",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="start the servers, check every scenario's request answers as it should "
        "(the signed one as the signing server signed it), print the plan, load nothing",
    )
    p.add_argument("--json", metavar="FILE", help="also write the raw rows as JSON")
    args = p.parse_args(argv)
    rows = run(args)
    if not args.dry_run:
        print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
