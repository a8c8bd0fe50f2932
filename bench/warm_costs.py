"""What keeping a table's calls on one worker could cost, measured before building it
(issue 51; docs/deployment.md#a-tables-calls-to-one-worker):

- ``miss``: the game loop's call (ApplyAction with views and the next seat's actions, the
  Python example bot's choices, signing on) answered in process by a worker that answered the
  last one (a hit) and by one whose cache is empty (a miss): CPU per call, REST and gRPC;
- ``parts``: what a miss does that a hit does not (parse the snapshot, convert it, the HMAC
  of the signed fast path), beside what a cache shared between processes would add: the
  snapshot written to bytes other processes can read (pickle, the engine's values by field,
  the ruleset by reference) on every answer, and read back on a miss;
- ``connection``: a real server's CPU per REST call on a kept-alive connection and on a new
  connection per call (what handing each call's connection to the key's worker needs, as
  nginx's kept-alive connections carry many tables' calls).

CPU time (``time.process_time``, the server's /proc figures), not wall time: the other load on
a shared machine does not distort it. ``.venv/bin/python bench/warm_costs.py``.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import dataclasses
import io
import json
import os
import pickle
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import orjson  # noqa: E402
from server_cpu import server_cpu_seconds  # noqa: E402

from samba_adjudicator.client.examples.play_deal import Game  # noqa: E402
from samba_adjudicator.engine import model  # noqa: E402
from samba_adjudicator.engine import ruleset as er  # noqa: E402
from samba_adjudicator.service.base import pb  # noqa: E402
from samba_adjudicator.service.base.lru import Lru  # noqa: E402
from samba_adjudicator.service.codec import convert, jsonio  # noqa: E402
from samba_adjudicator.service.codec.signing import Signer  # noqa: E402
from samba_adjudicator.service.pipeline.api import Adjudicator  # noqa: E402
from samba_adjudicator.service.pipeline.call import received  # noqa: E402
from samba_adjudicator.service.pipeline.decoding import request_type  # noqa: E402
from samba_adjudicator.service.pipeline.runtime import Runtime  # noqa: E402

SIGNER = Signer.parse("k1:" + base64.b64encode(os.urandom(32)).decode())


def _runtime() -> Runtime:
    return Runtime(None, Adjudicator(SIGNER), count_calls=False)


def _answer(rt: Runtime, method: str, data: bytes, rest: bool) -> dict | None:
    """One call as its transport makes it (REST also remembers the JSON rendering)."""
    answer = rt.answer(received(method, data, "rest" if rest else "grpc", "warm"))
    if not rest:
        answer.wire()
        return None
    return jsonio.loads(answer.json())


def game_calls(seed: str) -> list[tuple[str, bytes]]:
    """Every call of one deal by the example bot: (method, proto3 JSON)."""
    rt, game, out = _runtime(), Game(seed), []
    calls = game.calls()
    call = next(calls)
    with contextlib.redirect_stdout(io.StringIO()):  # the bot's own report at the end
        try:
            while True:
                method, request = call
                out.append((method, orjson.dumps(request)))
                call = calls.send(_answer(rt, method, out[-1][1], True))
        except StopIteration:
            return out


def miss_costs(calls: list[tuple[str, bytes]], rounds: int) -> list[dict]:
    encoded = {
        "grpc": [(m, jsonio.decode(d, request_type(m))[0].SerializeToString()) for m, d in calls]
    }
    encoded["rest"] = calls
    rows = []
    for _ in range(rounds):
        for transport, recs in encoded.items():
            for outcome in ("hit", "miss"):
                rt = _runtime()
                started = time.process_time()
                for method, data in recs:
                    if outcome == "miss":
                        rt.adjudicator.snapshots.cache = Lru(1024)
                    _answer(rt, method, data, transport == "rest")
                cpu = (time.process_time() - started) / len(recs)
                rows.append(
                    {"what": "call", "transport": transport, "outcome": outcome, "us": cpu * 1e6}
                )
    return rows


class _Writer(pickle.Pickler):
    """The engine's values by field, the ruleset by reference (every process has them)."""

    def persistent_id(self, obj):
        return obj.profile if isinstance(obj, er.Ruleset) else None

    def reducer_override(self, obj):
        if (
            dataclasses.is_dataclass(obj)
            and not isinstance(obj, type)
            and type(obj).__module__.startswith(model.__name__)
        ):
            return type(obj), tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))
        return NotImplemented


def _reader(data: bytes, rulesets: dict) -> object:
    unpickler = pickle.Unpickler(io.BytesIO(data))
    unpickler.persistent_load = rulesets.__getitem__  # type: ignore[method-assign]
    return unpickler.load()


def _dumps(obj: object) -> bytes:
    out = io.BytesIO()
    _Writer(out, protocol=5).dump(obj)
    return out.getvalue()


def part_costs(calls: list[tuple[str, bytes]], rounds: int) -> list[dict]:
    messages = [jsonio.decode(d, request_type(m))[0].snapshot for m, d in calls if m != "Deal"]
    raw = [m.SerializeToString() for m in messages]
    snaps = [convert.snapshot_from_proto(m, "snapshot", []) for m in messages]
    rulesets = {s.ruleset.profile: s.ruleset for s in snaps}
    shared = [_dumps(s) for s in snaps]
    assert _reader(shared[-1], rulesets) == snaps[-1]
    parts = {
        "parse": lambda i: pb.Snapshot.FromString(raw[i]),
        "convert": lambda i: convert.snapshot_from_proto(messages[i], "snapshot", []),
        "hmac": lambda i: SIGNER.signed_as_encoded(raw[i], messages[i].signature),
        "shared write": lambda i: _dumps(snaps[i]),
        "shared read": lambda i: _reader(shared[i], rulesets),
    }
    rows = []
    for _ in range(rounds):
        for name, part in parts.items():
            started = time.process_time()
            for i in range(len(raw)):
                part(i)
            cpu = (time.process_time() - started) / len(raw)
            rows.append(
                {"what": name, "us": cpu * 1e6, "bytes": sum(map(len, shared)) // len(shared)}
            )
    return rows


def _http(close: bool) -> bytes:
    """A cheap real call (GetRuleset): what changes is the connection, not the work."""
    return (
        b"GET /v1/rulesets/classic HTTP/1.1\r\nhost: bench\r\n"
        + (b"connection: close\r\n" if close else b"")
        + b"\r\n"
    )


def _exchange(sock: socket.socket, request: bytes) -> None:
    sock.sendall(request)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, rest = data.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 200"), head
    length = int(
        next(h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")).split(b":")[
            1
        ]
    )
    while len(rest) < length:
        rest += sock.recv(65536)


def connection_costs(calls: int, rounds: int) -> list[dict]:
    serve = ["serve", "--host", "127.0.0.1", "--log-level", "warning"]
    for flag in ("--http-port", "--grpc-port", "--admin-port"):
        serve += [flag, "0"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "samba_adjudicator.service.transport.cli", *serve],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    rows = []
    try:
        port = json.loads(proc.stdout.readline())["httpPort"]
        for _ in range(rounds):
            for kind in ("kept-alive", "new"):
                before = server_cpu_seconds(proc.pid)[0]
                sock = socket.create_connection(("127.0.0.1", port))
                for _ in range(calls):
                    if kind == "new":
                        sock.close()
                        sock = socket.create_connection(("127.0.0.1", port))
                    _exchange(sock, _http(kind == "new"))
                sock.close()
                cpu = server_cpu_seconds(proc.pid)[0] - before
                rows.append({"what": f"connection {kind}", "us": cpu / calls * 1e6})
    finally:
        proc.terminate()
        proc.wait(30)
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", default="warm-costs")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--connection-calls", type=int, default=1500)
    p.add_argument("--json", help="write the rows here")
    args = p.parse_args()
    calls = game_calls(args.seed)
    rows = miss_costs(calls, args.rounds) + part_costs(calls, args.rounds)
    rows += connection_costs(args.connection_calls, args.rounds)
    print(
        f"{len(calls)} calls of one deal; CPU microseconds per call, median of {args.rounds} rounds"
    )
    seen: dict[tuple, list[float]] = {}
    for r in rows:
        seen.setdefault((r["what"], r.get("transport", ""), r.get("outcome", "")), []).append(
            r["us"]
        )
    for (what, transport, outcome), values in seen.items():
        print(f"  {what:18} {transport:5} {outcome:5} {sorted(values)[len(values) // 2]:8.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows))


if __name__ == "__main__":
    main()
