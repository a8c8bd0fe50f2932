"""Waits of issue 47 (docs/service.md#traces, #heavy-calls), on fresh servers (one worker):

- ``exit``: seconds from SIGTERM to exit with tracing on and a collector that cannot take
  the spans (a closed port, or one that accepts and never answers), after 1 or 3,000
  calls, grace 1 s, against the promised grace + 5 s; and the spans the drain's last log
  line says it dropped.
- ``deadline``: two STRONG computer moves holding both heavy-call slots (the 103-card
  draw), then REST ListLegalActions with ``x-server-timeout: 0.5``: its answer and wait.
- ``queue``: the same two computing, then REST ``/metrics`` and a 42 KB ValidateAction sent
  together, timed, first with nothing else (the baseline), then with 48 more computer
  moves queued; the ratio to the baseline, the server's threads, and the moves answered
  while the two calls waited (none: they did not wait for a move to end).
- ``line``: issue 56's flood: two STRONG computer moves (budgetMs 2000) holding both slots,
  then ListLegalActions of about 0.9 MB (a hand of bad card codes) sent at once, 160 over
  gRPC and 60 over REST, then 300 over gRPC; meanwhile a probe times a cheap
  ValidateAction on gRPC and on REST, gRPC health Check, the API port's ``/healthz`` and
  the admin port's ``/readyz`` one after another (``floods.CheapProbe``). The worker's
  peak RSS (VmHWM), the probe's slowest answer and how many took over 1 s, and what the
  flood's calls were answered.

    make bench-waits                       # all three, 3 rounds
    make bench-waits BENCH_ARGS="--only exit --rounds 1"
    make bench-waits BENCH_ARGS="--only line --rounds 2"
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import httpx  # noqa: E402
import test_heavy_calls as heavy  # noqa: E402
import test_tracing as traced  # noqa: E402
from floods import CheapProbe, flood_listings  # noqa: E402
from huge_positions import huge_draw  # noqa: E402
from service_fixtures import ServerProcess, memory_mb, wait_for  # noqa: E402

from samba_adjudicator.service.transport.server import EXIT_MARGIN_SECONDS  # noqa: E402


def exit_case(collector: str, calls: int) -> str:
    with traced._collector(collector) as url:
        server = traced._server(
            None,
            "--otlp-endpoint",
            url,
            "--shutdown-grace-seconds",
            str(traced.EXIT_GRACE),
            SAMBA_LOG_LEVEL="info",
        )
        try:
            traced._send(server, calls)
            started = time.monotonic()
            server.proc.send_signal(signal.SIGTERM)
            server.proc.wait(120)
            took = time.monotonic() - started
            line = traced._stopped_line(server)
        finally:
            server.close()
    bound = traced.EXIT_GRACE + EXIT_MARGIN_SECONDS
    dropped = line.get("spansDropped", "?")
    return f"| {collector} | {calls} | {took:.1f} s | {bound:g} s | {dropped} |"


def deadline_case(round_: int) -> str:
    srv, dealt, holders = heavy._holding(f"bench-deadline-{round_}")
    try:
        started = time.monotonic()
        answer = heavy._deadline_exceeded(srv, dealt, "rest")
        waited = time.monotonic() - started
        during = "yes" if holders.done == [] else "no"
    finally:
        srv.close()
    return f"| {round_} | {answer} | {waited:.2f} s | {during} |"


def _together(srv, large: str) -> tuple[float, float]:
    took: dict[str, float] = {}

    def timed(name: str, send) -> None:
        started = time.monotonic()
        assert send().status_code == 200
        took[name] = time.monotonic() - started

    threads = [
        threading.Thread(
            target=timed,
            args=("metrics", lambda: httpx.get(srv.base_url + "/metrics", timeout=120)),
        ),
        threading.Thread(
            target=timed,
            args=(
                "large",
                lambda: httpx.post(
                    srv.base_url + "/v1/actions:validate", content=large, timeout=120
                ),
            ),
        ),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return took["metrics"], took["large"]


def queue_case(round_: int) -> str:
    srv, dealt, moves = heavy._holding(f"bench-queue-{round_}")
    try:
        body = json.dumps({"snapshot": dealt, "action": {"seat": 1, "drawStock": {}}})
        large = body[:-1] + " " * 40_000 + "}"
        quiet = _together(srv, large)
        before = heavy._threads(srv.proc.pid)
        moves.send(dealt, 48, 50, "queued")
        time.sleep(1.0)  # they arrive; the two computing have seconds left
        queued_threads = heavy._threads(srv.proc.pid)
        busy = _together(srv, large)
        answered = len(moves.done)
    finally:
        srv.close()
    return (
        f"| {round_} | {quiet[0]:.2f} s | {busy[0]:.2f} s ({busy[0] / quiet[0]:.1f}x) "
        f"| {quiet[1]:.2f} s | {busy[1]:.2f} s ({busy[1] / quiet[1]:.1f}x) "
        f"| {before} → {queued_threads} | {answered} |"
    )


def _probed(probe: CheapProbe, flood_from: float) -> str:
    """The slowest answer of each probe before ``flood_from`` (the two moves alone, the
    baseline) and after; how many after took over 1 s."""
    probe.finish()
    alone, flood = probe.slowest(0.0, flood_from), probe.slowest(flood_from)
    parts = [f"{name} {alone[name]:.2f} → {flood[name]:.2f} s" for name in probe.took]
    after = [x for samples in probe.took.values() for t, x in samples if t >= flood_from]
    over = sum(1 for x in after if x > 1.0)
    failed = f" ({len(probe.failed)} failed)" if probe.failed else ""
    return f"{', '.join(parts)} | {over}/{len(after)}{failed}"


#: Seconds of deadline each call of the flood has (the issue's clients waited as long).
LINE_TIMEOUT = 30.0
#: Seconds the probe runs with the two moves alone before the flood (its baseline).
PROBE_ALONE_SECONDS = 5.0


def line_case(grpc_calls: int, rest_calls: int) -> str:
    srv = ServerProcess("--shutdown-grace-seconds", "1")
    try:
        dealt = httpx.post(
            srv.base_url + "/v1/deals:deal", json={"players": 4, "seed": "line"}, timeout=30
        ).json()["snapshot"]
        moves = heavy._Moves(srv)
        moves.send(huge_draw(), 2, 2000, "hold")
        wait_for(lambda: heavy._in_flight(srv) == 2, timeout=30)
        probe = CheapProbe(srv.grpc_target, srv.base_url, dealt, srv.admin_url)
        time.sleep(PROBE_ALONE_SECONDS)  # the baseline: the probe with the two moves alone
        before = memory_mb(srv.proc.pid)
        started = time.monotonic()
        answers = collections.Counter(
            f"{transport} {status}" + (" (hint)" if hint else "")
            for transport, status, hint in flood_listings(
                srv.base_url, srv.grpc_target, dealt, grpc_calls, rest_calls, LINE_TIMEOUT
            )
        )
        took = time.monotonic() - started
        probed = _probed(probe, started)
        peak = memory_mb(srv.proc.pid)
        for t in moves.threads:
            t.join(120)
    finally:
        srv.close()
    got = ", ".join(f"{k}: {v}" for k, v in sorted(answers.items()))
    moved = ", ".join(str(c) for c in moves.done)
    return (
        f"| {grpc_calls} + {rest_calls} | {os.getloadavg()[0]:.0f} | {before:.0f} → {peak:.0f} MB "
        f"| {probed} | {got} | {took:.1f} s | {moved} |"
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--only", choices=("exit", "deadline", "queue", "line"), nargs="*")
    args = p.parse_args(argv)
    only = set(args.only or ("exit", "deadline", "queue", "line"))
    if "exit" in only:
        print("| collector | calls | SIGTERM to exit | promised | spans dropped |")
        print("|---|---:|---:|---:|---:|")
        for collector, calls in (("closed", 1), ("silent", 1), ("closed", 3000), ("silent", 3000)):
            print(exit_case(collector, calls), flush=True)
    if "deadline" in only:
        print(
            "\n| round | ListLegalActions, x-server-timeout 0.5 | answered after "
            "| slots still held |"
        )
        print("|---|---|---:|---|")
        for r in range(args.rounds):
            print(deadline_case(r), flush=True)
    if "queue" in only:
        print(
            "\n| round | /metrics, 2 computing | + 48 queued | large call, 2 computing "
            "| + 48 queued | threads | moves answered meanwhile |"
        )
        print("|---|---:|---:|---:|---:|---|---:|")
        for r in range(args.rounds):
            print(queue_case(r), flush=True)
    if "line" in only:
        print(
            "\n| gRPC + REST ListLegalActions (0.9 MB) | load "
            "| worker VmHWM: the moves, + the flood "
            "| probe slowest: the moves alone → with the flood "
            "| probes over 1 s | the flood got | flood answered in | the two moves got |"
        )
        print("|---|---:|---:|---|---:|---|---:|---|")
        for _ in range(args.rounds):
            for grpc_calls, rest_calls in ((160, 60), (300, 0)):
                print(line_case(grpc_calls, rest_calls), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
