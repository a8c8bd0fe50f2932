"""Calls per second through nginx with 1 and 3 replicas (`make bench-scale`, docs/deployment.md).

The cluster of tests/test_scale.py (replicas sharing keys, Debian's nginx round-robin per
call, everything on 127.0.0.1) loaded for ``--duration`` seconds per scenario by ``h2load``
(gRPC, through ``grpc_pass``) and ``wrk`` (REST, through ``proxy_pass``) with the mid-game
ValidateAction of bench/service_bench.py. Every scenario runs ``--rounds`` times,
interleaved with the others; the table gives medians and the ratio to one replica through
nginx measured in the same run. On a machine with few cores the load tools, nginx and the
replicas share them: the ratio says what a second and third process buy on this machine,
not what three machines would.

    make bench-scale                       # or: .venv/bin/python bench/scale_bench.py
    .venv/bin/python bench/scale_bench.py --duration 3 --rounds 1
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

import grpc  # noqa: E402
import httpx  # noqa: E402
from scale_cluster import Nginx, Replica, shared_keys  # noqa: E402
from service_bench import REST_VALIDATE, VALIDATE, ensure_tools, h2load, make_request, wrk  # noqa: E402

from samba_adjudicator.service.codec import jsonio  # noqa: E402
from samba_adjudicator.service.codec.signing import Signer  # noqa: E402


def _load(transport: str, port: int, payloads: dict, args, tmp: Path) -> dict:
    if transport == "grpc":
        return h2load(
            port, VALIDATE, payloads["grpc"], args.duration, args.connections, args.streams, tmp
        )
    return wrk(port, REST_VALIDATE, payloads["rest"], args.duration, args.connections, tmp)


def _signed_request(keys: dict[str, str]):
    """The bench's request with its snapshot signed by the cluster's key (signing is on, as
    in the chart's defaults)."""
    request = make_request()
    Signer.parse(keys["SAMBA_SNAPSHOT_KEYS"]).sign(request.snapshot)
    return request


def _check(nginx: Nginx, payloads: dict) -> None:
    """One real call on each transport: the bench must measure answers, not refusals."""
    r = httpx.post(nginx.rest_url + REST_VALIDATE, content=payloads["rest"], timeout=30)
    assert r.status_code == 200, r.text
    with grpc.insecure_channel(nginx.grpc_target) as ch:
        ch.unary_unary(VALIDATE)(payloads["grpc"], timeout=30)


def run(args) -> list[dict]:
    keys = shared_keys()
    request = _signed_request(keys)
    payloads = {
        "grpc": request.SerializeToString(),
        "rest": jsonio.dumps(jsonio.to_dict(request)).encode(),
    }
    env = {**keys, "SAMBA_LOG_LEVEL": "warning", "SAMBA_SHUTDOWN_GRACE_SECONDS": "2"}
    replicas = [Replica(env) for _ in range(max(args.replicas))]
    clusters = {n: Nginx(replicas[:n]) for n in args.replicas}
    rows: list[dict] = []
    try:
        for nginx in clusters.values():
            _check(nginx, payloads)
        with tempfile.TemporaryDirectory() as tmpdir:
            for round_ in range(args.rounds):
                for n, nginx in clusters.items():
                    for transport in ("grpc", "rest"):
                        port = nginx.grpc_port if transport == "grpc" else nginx.rest_port
                        result = _load(transport, port, payloads, args, Path(tmpdir))
                        rows.append({"replicas": n, "transport": transport, **result})
                        print(f"round {round_ + 1}: {rows[-1]}", file=sys.stderr, flush=True)
    finally:
        for nginx in clusters.values():
            nginx.close()
        for r in replicas:
            r.close()
    return rows


def table(rows: list[dict]) -> str:
    lines = [
        "| replicas | transport | calls/s (median) | ratio to 1 replica | p50 ms | p99 ms "
        "| failed |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    medians: dict[tuple, float] = {}
    for key in sorted({(r["replicas"], r["transport"]) for r in rows}):
        group = [r for r in rows if (r["replicas"], r["transport"]) == key]
        medians[key] = statistics.median(r["rps"] for r in group)
    for (n, transport), rps in medians.items():
        group = [r for r in rows if (r["replicas"], r["transport"]) == (n, transport)]
        base = medians.get((1, transport), float("nan"))
        lines.append(
            f"| {n} | {transport} | {rps:,.0f} | {rps / base:.2f} | "
            f"{statistics.median(r['p50'] for r in group) * 1000:.1f} | "
            f"{statistics.median(r['p99'] for r in group) * 1000:.1f} | "
            f"{sum(r['failed'] for r in group)} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--duration", type=float, default=5.0, help="seconds per scenario")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--connections", type=int, default=8)
    p.add_argument("--streams", type=int, default=4, help="gRPC streams per connection")
    p.add_argument("--replicas", type=int, nargs="+", default=[1, 3])
    args = p.parse_args(argv)
    if not ensure_tools():
        print("bench-scale needs h2load and wrk (apt-get install nghttp2-client wrk)")
        return 1
    print(
        f"{os.cpu_count()} CPUs; mid-game ValidateAction; {args.duration:g} s per scenario, "
        f"{args.rounds} rounds; build {os.environ.get('SAMBA_BUILD', 'default')}",
        file=sys.stderr,
    )
    print(table(run(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
