"""The Python client's REST answer against raw HTTP on the same answer (docs/performance.md
#the-python-clients-rest-path): one ApplyAction with every view and the first page of legal
actions (a game server's move), sent again and again to one real server on 127.0.0.1,
interleaved call by call so that every way meets the same load:

- ``raw``: ``httpx.post`` of the JSON body and ``json.loads`` of the answer (the floor);
- ``client dict``: ``Client.rest(...).apply_action(dict)``: the answer parsed once, as it
  arrives (before: parsed, re-encoded through protobuf's json_format and back);
- ``client message``: the request a message, the answer parsed once into the message;
- ``re-encoded``: raw, then the answer through protobuf's json_format and back to a dict,
  what the client did before (for the difference);
- ``gRPC dict``: ``Client.grpc(...).apply_action(dict)``, for scale.

Prints p50 and p90 in milliseconds and each p50's difference to ``raw``. ``make bench-client``
(BENCH_ARGS="--calls 100").
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import httpx
from google.protobuf import json_format

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from service_bench import Server  # noqa: E402

from samba_adjudicator.client import Client  # noqa: E402
from samba_adjudicator.client._pb import adjudicator_pb2  # noqa: E402

EXTRAS = {"includeViews": True, "includeLegalActions": True}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=300)
    args = p.parse_args()
    server = Server(1)
    try:
        base = f"http://127.0.0.1:{server.http_port}"
        with (
            httpx.Client(base_url=base, timeout=30) as http,
            Client.rest(base, timeout=30) as rest,
            Client.grpc(f"127.0.0.1:{server.grpc_port}", timeout=30) as grpc_client,
        ):
            dealt = rest.deal({"players": 4, "seed": "client-bench"})
            seat = dealt["snapshot"]["turn"]["seat"]
            body = {
                "snapshot": dealt["snapshot"],
                "action": {"seat": seat, "drawStock": {}},
                **EXTRAS,
            }
            message = json_format.ParseDict(body, adjudicator_pb2.ApplyActionRequest())
            text = json.dumps(body)
            size = len(http.post("/v1/actions:apply", content=text).content)

            def raw():
                r = http.post(
                    "/v1/actions:apply", content=text, headers={"content-type": "application/json"}
                )
                return json.loads(r.content)

            def reencoded():
                answer = json_format.ParseDict(raw(), adjudicator_pb2.ApplyActionResponse())
                return json_format.MessageToDict(answer, always_print_fields_with_no_presence=True)

            ways = {
                "raw": raw,
                "re-encoded": reencoded,
                "client dict": lambda: rest.apply_action(body),
                "client message": lambda: rest.apply_action(message),
                "gRPC dict": lambda: grpc_client.apply_action(body),
            }
            assert ways["client dict"]() == raw()
            times: dict[str, list[float]] = {name: [] for name in ways}
            for _ in range(args.calls):
                for name, way in ways.items():  # interleaved: the same load for every way
                    start = time.perf_counter()
                    way()
                    times[name].append((time.perf_counter() - start) * 1000)
        print(
            f"build {server.build}; ApplyAction with 5 views and next actions, "
            f"{size} bytes of JSON; {args.calls} calls each, interleaved"
        )
        print("way             p50 ms  p90 ms  p50 - raw")
        floor = statistics.median(times["raw"])
        for name, ms in times.items():
            p50 = statistics.median(ms)
            p90 = statistics.quantiles(ms, n=10)[-1]
            print(f"{name:<15} {p50:>6.2f}  {p90:>6.2f}  {p50 - floor:>+8.2f}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
