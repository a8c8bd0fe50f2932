"""The cost of a whole deal: server CPU per deal played through the one-call move, beside a
no-op echo of the same calls.

Starts the real server (``samba-adjudicator serve`` on 127.0.0.1 ephemeral ports, one worker,
``SAMBA_BENCH_ECHO=1``) once with signing off and once with signing on (a fresh 32-byte key in
``SAMBA_SNAPSHOT_KEYS``), and on each transport (gRPC with grpcio, REST with httpx; raw bytes,
so every request's size is known) plays seeded 4-player classic deals to their end: Deal, then
one ApplyAction per move with ``includeViews`` and ``includeLegalActions`` (each seat's view,
its events, the next seat's first page: docs/guide.md#one-call-per-move), every snapshot sent
back as the server answered it (signed when signing is on; on gRPC the bytes sent back are
checked to be those of the answer).

The player is the BASIC computer player, in two ways that play the same actions (the bench
checks that they do):

- ``adjudication``: the client chooses in-process (``engine.bots.suggest``, the function
  SuggestAction runs), so the server's CPU is the adjudication alone (Deal, ApplyAction);
- ``with-suggest``: the client asks the server (SuggestAction, level BASIC, the same seed)
  before every move; the difference to ``adjudication`` is what the bot's thinking costs the
  server.

Server CPU is the run time of every thread of the server process and all its descendants (the
supervisor and its worker: /proc/<pid>/task/*/schedstat, in nanoseconds; utime + stime from
/proc/<pid>/stat, in 10 ms ticks, is kept in the JSON rows as a check), read before and after
each deal. After each deal the same requests,
byte for byte, go to the echo (``/samba.v1.Bench/Echo``, ``POST /v1/bench:echo``: the same
bytes back through the same stack), so ``ratio`` = the deal's server CPU / the echo's CPU for
the same number of calls of the same sizes. Deals and their echoes interleave.

    make bench-deal                                    # BENCH_ARGS="--quick" for one deal each
    .venv/bin/python bench/deal_bench.py --deals 2 --json /tmp/deal.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from server_cpu import server_cpu_seconds  # noqa: E402
from service_bench import ECHO, REST_ECHO, Server, signing_env  # noqa: E402

from samba_adjudicator.engine import bots  # noqa: E402
from samba_adjudicator.engine.action_order import canonical  # noqa: E402
from samba_adjudicator.service.base import pb  # noqa: E402
from samba_adjudicator.service.codec import convert, jsonio  # noqa: E402
from samba_adjudicator.service.codec.actions import action_to_proto  # noqa: E402
from samba_adjudicator.service.transport.rest import ROUTES as _SERVICE_ROUTES  # noqa: E402

MAX_MOVES = 5000
MODES = ("adjudication", "with-suggest")
#: RPC -> REST path, from the schema's google.api.http options (service.transport.rest).
REST_PATHS = {rpc: path for rpc, _verb, path, _tag, _summary in _SERVICE_ROUTES}
GRPC_TYPES = {
    "Deal": (pb.DealRequest, pb.DealResponse),
    "ApplyAction": (pb.ApplyActionRequest, pb.ApplyActionResponse),
    "SuggestAction": (pb.SuggestActionRequest, pb.SuggestActionResponse),
}


# -- the transports: raw bytes out, a decoded answer back ---------------------------------


class GrpcWire:
    name = "grpc"

    def __init__(self, server: Server) -> None:
        import grpc

        self.channel = grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}")
        self.stubs = {
            method: self.channel.unary_unary(f"/samba.v1.Adjudicator/{method}")
            for method in GRPC_TYPES
        }
        self.echo_stub = self.channel.unary_unary(ECHO)

        # the last answer's snapshot as received, sent back as a gRPC client would: the
        # message itself, not a copy made from its JSON form
        self.last: tuple[dict, pb.Snapshot] | None = None
        self.answered = 0  # bytes of every answer so far

    def encode(self, method: str, body: dict) -> bytes:
        given = body.get("snapshot")
        rest = {k: v for k, v in body.items() if k != "snapshot"}
        message, problems = jsonio.decode_dict(rest, GRPC_TYPES[method][0])
        assert not problems, problems
        if given is not None:
            assert self.last is not None and given is self.last[0]
            message.snapshot.CopyFrom(self.last[1])
        return message.SerializeToString()

    def call(self, method: str, payload: bytes) -> dict:
        raw = self.stubs[method](payload, timeout=60)
        self.answered += len(raw)
        answer = GRPC_TYPES[method][1].FromString(raw)
        decoded = jsonio.to_dict(answer)
        if "snapshot" in decoded:
            # sent back, the snapshot is these bytes of the answer, as the server wrote them
            assert answer.snapshot.SerializeToString() in raw
            self.last = (decoded["snapshot"], answer.snapshot)
        return decoded

    def echo(self, payload: bytes) -> None:
        assert self.echo_stub(payload, timeout=60) == payload

    def close(self) -> None:
        self.channel.close()


class RestWire:
    name = "rest"

    def __init__(self, server: Server) -> None:
        import httpx

        self.client = httpx.Client(base_url=f"http://127.0.0.1:{server.http_port}", timeout=60)
        self.headers = {"content-type": "application/json"}
        self.answered = 0  # bytes of every answer so far

    def encode(self, method: str, body: dict) -> bytes:
        return json.dumps(body, separators=(",", ":")).encode()

    def call(self, method: str, payload: bytes) -> dict:
        r = self.client.post(REST_PATHS[method], content=payload, headers=self.headers)
        if r.status_code != 200:
            raise RuntimeError(f"{method}: HTTP {r.status_code} {r.text[:300]}")
        self.answered += len(r.content)
        return r.json()

    def echo(self, payload: bytes) -> None:
        r = self.client.post(REST_ECHO, content=payload, headers=self.headers)
        assert r.status_code == 200 and r.content == payload, r.status_code

    def close(self) -> None:
        self.client.close()


# -- one deal -----------------------------------------------------------------------------

EXTRAS = {"includeViews": True, "includeLegalActions": True}


@dataclass
class Played:
    """One deal as the client played it: every request sent, in order, and its end."""

    requests: list[tuple[str, bytes]] = field(default_factory=list)
    actions: list[dict] = field(default_factory=list)
    moves: int = 0
    reason: str = ""


def _local_choice(snapshot: dict, seat: int, seed: str) -> dict:
    """What SuggestAction at BASIC answers, decided here (the client's CPU, not the
    server's): the same engine function on the same snapshot and seed."""
    message, problems = jsonio.decode_dict(snapshot, pb.Snapshot)
    snap = convert.snapshot_from_proto(message, "snapshot", problems)
    assert snap is not None and not problems, problems
    suggestion = bots.suggest(snap, seat, bots.Level.BASIC, seed)
    return jsonio.to_dict(action_to_proto(canonical(suggestion.action)))


def play_deal(wire, seed: str, mode: str) -> Played:
    played = Played()

    def send(method: str, body: dict) -> dict:
        payload = wire.encode(method, body)
        played.requests.append((method, payload))
        return wire.call(method, payload)

    answer = send("Deal", {"ruleset": {"profile": "classic"}, "players": 4, "seed": seed, **EXTRAS})
    while answer["snapshot"]["turn"]["phase"] != "OVER":
        if played.moves >= MAX_MOVES:
            raise RuntimeError(f"deal {seed!r} did not end in {MAX_MOVES} moves")
        snapshot = answer["snapshot"]
        seat = snapshot["turn"]["awaitingSeats"][0]
        if mode == "with-suggest":
            action = send(
                "SuggestAction",
                {"snapshot": snapshot, "seat": seat, "level": "BASIC", "seed": seed},
            )["action"]
        else:
            action = _local_choice(snapshot, seat, seed)
        action = dict(action, expectedPly=snapshot["ply"])
        played.actions.append(action)
        answer = send("ApplyAction", {"snapshot": snapshot, "action": action, **EXTRAS})
        if not answer["legal"]:
            raise RuntimeError(f"a suggested action was refused: {answer['violations']}")
        played.moves += 1
    played.reason = answer["snapshot"]["result"]["reason"]
    return played


# -- the matrix ---------------------------------------------------------------------------


def measure(server: Server, wire, seed: str, mode: str) -> dict:
    """One deal, then the echo of its requests; the server's CPU around each."""
    before = server_cpu_seconds(server.proc.pid)
    start, answered = time.perf_counter(), wire.answered
    played = play_deal(wire, seed, mode)
    wall = time.perf_counter() - start
    middle = server_cpu_seconds(server.proc.pid)
    for _method, payload in played.requests:
        wire.echo(payload)
    after = server_cpu_seconds(server.proc.pid)
    return {
        "seed": seed,
        "moves": played.moves,
        "reason": played.reason,
        "calls": dict(Counter(method for method, _ in played.requests)),
        "request_bytes": sum(len(p) for _, p in played.requests),
        # the echo answers the requests' bytes; the deal's answers (views) are larger
        "answer_bytes": wire.answered - answered,
        "server_cpu_s": middle[0] - before[0],
        "echo_cpu_s": after[0] - middle[0],
        "server_cpu_ticks_s": middle[1] - before[1],
        "echo_cpu_ticks_s": after[1] - middle[1],
        "wall_s": wall,
        "actions": played.actions,
    }


def run(
    deals: int,
    transports: tuple[str, ...] = ("grpc", "rest"),
    signings: tuple[bool, ...] = (False, True),
    modes: tuple[str, ...] = MODES,
    log=print,
) -> list[dict]:
    """Every (signing, transport, mode) plays the same ``deals`` seeds; one row per deal."""
    wires = {"grpc": GrpcWire, "rest": RestWire}
    rows: list[dict] = []
    for signing in signings:
        server = Server(1, env=signing_env() if signing else None)
        log(f"signing {'on' if signing else 'off'}: the {server.build} build, one worker")
        try:
            for transport in transports:
                wire = wires[transport](server)
                try:
                    for k in range(deals):
                        seed = f"deal-bench-{k}"
                        for mode in modes:  # interleaved: a slow spell hits both
                            row = measure(server, wire, seed, mode)
                            row.update(
                                transport=transport,
                                signing=signing,
                                mode=mode,
                                build=server.build,
                            )
                            rows.append(row)
                            log(
                                f"  {transport:4} signing {'on ' if signing else 'off'} "
                                f"{mode:12} {seed}: {row['moves']} moves, "
                                f"server {row['server_cpu_s'] * 1e3:.0f} ms CPU, "
                                f"echo {row['echo_cpu_s'] * 1e3:.0f} ms"
                            )
                finally:
                    wire.close()
        finally:
            server.stop()
    check_same_play(rows)
    return rows


def check_same_play(rows: list[dict]) -> None:
    """Both modes and both transports must have played the same actions for a seed: else
    ``with-suggest`` minus ``adjudication`` is not the bot's cost, and the transports did
    not play the same deals."""
    by_seed: dict[str, list[dict]] = {}
    for r in rows:
        by_seed.setdefault(r["seed"], []).append(r)
    for seed, same in by_seed.items():
        first = same[0]["actions"]
        for r in same[1:]:
            if r["actions"] != first:
                raise RuntimeError(
                    f"deal {seed!r}: {r['transport']} {r['mode']} played other actions"
                )


def table(rows: list[dict]) -> str:
    out = [
        "| transport | signing | mode | deals | moves/deal | calls/deal (by method) | "
        "server CPU ms/deal | ms/call | echo CPU ms/deal (same calls) | ratio |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    keys: list[tuple] = []
    for r in rows:
        k = (r["transport"], r["signing"], r["mode"])
        if k not in keys:
            keys.append(k)
    for k in keys:
        same = [r for r in rows if (r["transport"], r["signing"], r["mode"]) == k]
        n = len(same)
        calls: Counter = Counter()
        for r in same:
            calls.update(r["calls"])
        by_method = ", ".join(f"{m} {c / n:.1f}" for m, c in sorted(calls.items()))
        cpu = sum(r["server_cpu_s"] for r in same) / n
        echo = sum(r["echo_cpu_s"] for r in same) / n
        moves = statistics.mean(r["moves"] for r in same)
        ratio = f"{cpu / echo:.1f}x" if echo > 0 else "n/a"
        out.append(
            f"| {k[0]} | {'on' if k[1] else 'off'} | {k[2]} | {n} | {moves:.0f} | "
            f"{sum(calls.values()) / n:.1f} ({by_method}) | {cpu * 1e3:.0f} | "
            f"{cpu * 1e3 * n / sum(calls.values()):.2f} | {echo * 1e3:.0f} | **{ratio}** |"
        )
    out.append("")
    for transport, signing in dict.fromkeys((r["transport"], r["signing"]) for r in rows):
        cpu = {}
        for mode in MODES:
            same = [
                r
                for r in rows
                if (r["transport"], r["signing"], r["mode"]) == (transport, signing, mode)
            ]
            if same:
                cpu[mode] = sum(r["server_cpu_s"] for r in same) / len(same)
        if len(cpu) == 2:
            out.append(
                f"{transport}, signing {'on' if signing else 'off'}: SuggestAction (BASIC) "
                f"costs the server {(cpu['with-suggest'] - cpu['adjudication']) * 1e3:.0f} ms "
                "CPU per deal (with-suggest minus adjudication: the same actions)"
            )
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=None, help="deals per combination (default 10)")
    p.add_argument("--quick", action="store_true", help="one deal per combination")
    p.add_argument("--transports", nargs="+", choices=("grpc", "rest"), default=["grpc", "rest"])
    p.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    p.add_argument("--json", metavar="FILE", help="also write the raw rows as JSON")
    args = p.parse_args(argv)
    deals = args.deals if args.deals is not None else (1 if args.quick else 10)
    print(
        f"{deals} seeded deal(s) per combination; the BASIC player chooses in the client "
        "(adjudication) or through SuggestAction (with-suggest); server CPU from /proc",
        file=sys.stderr,
    )
    rows = run(
        deals,
        tuple(args.transports),
        modes=tuple(args.modes),
        log=lambda text: print(text, file=sys.stderr),
    )
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
