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

    make bench-waits                       # all three, 3 rounds
    make bench-waits BENCH_ARGS="--only exit --rounds 1"
"""

from __future__ import annotations

import argparse
import json
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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--only", choices=("exit", "deadline", "queue"), nargs="*")
    args = p.parse_args(argv)
    only = set(args.only or ("exit", "deadline", "queue"))
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
