"""Instructions per call, counted by valgrind's callgrind: figures that a busy machine does
not move (timings on the shared 2-CPU development machine swing by ±30 % from one run to
the next; an instruction count repeats to a fraction of a percent).

Each measurement runs in its own process under ``valgrind --tool=callgrind``, twice: with
``n`` calls and with ``2n``; the difference divided by ``n`` is one call, without the start,
the imports and the first call's warm-up (n is set per call, large enough that the calls
dwarf what varies in the start; PYTHONHASHSEED is fixed). Ratios are to the protobuf
parse+serialize of the same request, counted the same way in the same run (``× baseline``).
Instructions are not time (a cache miss costs more than an add) but they compare two
builds or two commits of the same code closely. ``--source DIR`` counts another checkout's
installed build (its ``.venv``) beside this one, for a before/after table.

    .venv/bin/python bench/instructions.py [--position midgame] [--source /path/to/old]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: name -> (the statement one call runs (names from _SETUP), n): n large enough that its calls
#: dwarf the variation of the start (imports, ~2 billion instructions).
CALLS = {
    "baseline: protobuf parse+serialize": (
        "pb.ValidateActionRequest.FromString(wire).SerializeToString()",
        4000,
    ),
    "engine validate": ("validate(s, action)", 2000),
    "engine apply": ("apply(s, action)", 2000),
    "engine legal_actions": ("legal_actions(s)", 200),
    "engine score (provisional)": ("score(s, provisional=True)", 2000),
    "ValidateAction protobuf, new snapshot": (
        "Adjudicator().call('ValidateAction', pb.ValidateActionRequest.FromString(wire))",
        400,
    ),
    "ValidateAction protobuf, snapshot seen": (
        "warm.call('ValidateAction', pb.ValidateActionRequest.FromString(wire))",
        2000,
    ),
    "ApplyAction with views protobuf, new snapshot": (
        "Adjudicator().call('ApplyAction', pb.ApplyActionRequest.FromString(apply_wire))",
        200,
    ),
    "ApplyAction with views protobuf, snapshot seen": (
        "warm.call('ApplyAction', pb.ApplyActionRequest.FromString(apply_wire))",
        400,
    ),
    "ValidateAction JSON→JSON, new snapshot": (
        "run('ValidateAction', body, adjudicator=Adjudicator())",
        300,
    ),
    "ValidateAction JSON→JSON, snapshot seen": (
        "run('ValidateAction', body, adjudicator=warm)",
        1000,
    ),
    # the body as the project's clients and bench-service send it: compact JSON
    "ValidateAction compact JSON→JSON, new snapshot": (
        "run('ValidateAction', compact, adjudicator=Adjudicator())",
        300,
    ),
    "ValidateAction compact JSON→JSON, snapshot seen": (
        "run('ValidateAction', compact, adjudicator=warm)",
        1000,
    ),
    # the servers' path: Runtime.invoke (metrics, the log line, the span when tracing is on)
    "ValidateAction served (invoke), seen": (
        "invoke()",
        1000,
    ),
    # the same with the caller's traceparent, tracing off (a checkout before traces: ignored)
    "… with a traceparent, tracing off": (
        "invoke(**traced)",
        1000,
    ),
    "gRPC metadata read (id, language, trace)": ("read_metadata(context)", 4000),
    # a transport's whole answer, the bytes it sends included (gRPC: ``_call``; REST: the
    # route's ``answer``), without grpcio and uvicorn: a new position (a cache of size 0) and
    # one seen, signing off and on (the snapshot then signed, as the service answered it)
    **{
        f"{method} {way} served, {seen}, {'signed' if signed else 'unsigned'}": (
            f"transported({method!r}, {way!r}, {seen == 'seen'}, {signed})",
            (200 if method == "ApplyAction" else 400) * (1 if seen == "new" else 2),
        )
        for method in ("ValidateAction", "ApplyAction")
        for way in ("gRPC", "REST")
        for seen in ("new", "seen")
        for signed in (False, True)
    },
}

_SETUP = """
import json, sys
sys.path.insert(0, {root!r})
from bench import scenarios
from samba_adjudicator.engine import apply, legal_actions, score, validate
from samba_adjudicator.service.codec import convert, jsonio
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec.actions import action_to_proto
from samba_adjudicator.service.pipeline.api import Adjudicator
from samba_adjudicator.service.transport.cli import run
s = getattr(scenarios, {position!r})()
action = scenarios.typical_action(s)
request = pb.ValidateActionRequest(snapshot=convert.snapshot_to_proto(s),
                                   action=action_to_proto(action))
wire = request.SerializeToString()
apply_wire = pb.ApplyActionRequest(snapshot=request.snapshot, action=request.action,
                                   include_views=True).SerializeToString()
body = json.dumps(jsonio.to_dict(request)).encode()
compact = json.dumps(jsonio.to_dict(request), separators=(',', ':')).encode()
warm = Adjudicator()
import inspect, types
from samba_adjudicator.service.ops.config import Settings
from samba_adjudicator.service.pipeline.runtime import Runtime
from samba_adjudicator.service.transport import grpc_server
read_metadata = grpc_server._request_id_and_language
rt = Runtime(Settings(), adjudicator=warm)
# the request as Runtime.invoke takes it: the bytes (a checkout before the one Request
# value took a decode closure)
if hasattr(rt, 'protobuf_decoder'):
    decode = rt.protobuf_decoder('ValidateAction')
    served = lambda: decode(wire)
else:
    served = wire
parent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
try:
    with_trace = 'trace' in inspect.signature(rt.invoke).parameters
except ValueError:  # compiled without a text signature: a checkout that has traces
    with_trace = True
traced = {{'trace': (parent, '')}} if with_trace else {{}}
try:  # the call as its transport makes it (service.pipeline.call)
    from samba_adjudicator.service.pipeline.call import received
except ImportError:  # a checkout before the one Call value: loose parameters
    received = None
def invoke(**kw):
    if received is None:
        return rt.invoke('ValidateAction', served, transport='grpc', request_id='r', **kw)
    return rt.invoke(received('ValidateAction', served, 'grpc', 'r', **kw))
metadata = (('x-request-id', 'r-1'), ('user-agent', 'grpc-python/1.7'), ('traceparent', parent))
context = types.SimpleNamespace(invocation_metadata=lambda: metadata)
from samba_adjudicator.service.codec.signing import Signer
from samba_adjudicator.service.transport import rest as rest_way
signer = Signer.parse('bench:' + 'A' * 43 + '=')
signed_snapshot = convert.snapshot_to_proto(s)
signer.sign(signed_snapshot)
bodies = {{}}
kinds = (('ValidateAction', pb.ValidateActionRequest), ('ApplyAction', pb.ApplyActionRequest))
for method, kind in kinds:
    for signed in (False, True):
        r = kind(snapshot=signed_snapshot if signed else request.snapshot, action=request.action)
        if method == 'ApplyAction':
            r.include_views = True
        bodies[method, 'gRPC', signed] = r.SerializeToString()
        bodies[method, 'REST', signed] = json.dumps(jsonio.to_dict(r)).encode()
ways = {{}}
for seen in (False, True):
    for signed in (False, True):
        adj = Adjudicator(signer=signer if signed else None, cache_size=1024 if seen else 0)
        run_time = Runtime(Settings(), adjudicator=adj)
        ways['gRPC', seen, signed] = lambda call, rt=run_time: grpc_server._call(rt, call)
        ways['REST', seen, signed] = rest_way._Calls(run_time, 1 << 20).answer
def transported(method, way, seen, signed):
    call = received(method, bodies[method, way, signed], 'rest' if way == 'REST' else 'grpc', 'r')
    return ways[way, seen, signed](call)
for _ in range(3):  # warm-up: first calls fill the caches every later call finds
    {call}
for _ in range({n}):
    {call}
"""


def count(source: Path, position: str, call: str, n: int) -> int:
    """Instructions callgrind counts for the whole process running ``call`` ``n`` times."""
    script = _SETUP.format(root=str(source), position=position, call=call, n=n)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                str(source / ".venv" / "bin" / "python"),
                "-c",
                script,
            ],
            capture_output=True,
            text=True,
            cwd=source,
            env={
                **os.environ,
                "SAMBA_BUILD": os.environ.get("SAMBA_BUILD", "compiled"),
                "PYTHONHASHSEED": "0",
            },
        )  # the same dict layouts in every run
        if done.returncode != 0:
            raise SystemExit(f"{call}: exit {done.returncode}\n{done.stderr[-2000:]}")
        found = re.search(r"Collected : (\d+)", done.stderr)
        if not found:
            raise SystemExit(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")
        return int(found.group(1))


def per_call(source: Path, position: str, call: str, n: int) -> float:
    return (count(source, position, call, 2 * n) - count(source, position, call, n)) / n


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--position", default="midgame", choices=("opening", "midgame", "late"))
    p.add_argument(
        "--source",
        type=Path,
        default=None,
        help="another checkout (with its .venv) to count beside this one",
    )
    p.add_argument("--scale", type=float, default=1.0, help="multiply every n (default 1)")
    p.add_argument(
        "--only",
        default="",
        help="comma-separated texts: count only the calls whose name has one (and the baseline)",
    )
    args = p.parse_args(argv)
    if subprocess.run(["valgrind", "--version"], capture_output=True).returncode != 0:
        raise SystemExit("valgrind is needed (apt-get install valgrind)")
    sources = [("this", ROOT)] + ([("other", args.source.resolve())] if args.source else [])
    print(
        f"position {args.position}, SAMBA_BUILD={os.environ.get('SAMBA_BUILD', 'compiled')}, "
        f"instructions per call (thousands) and × baseline"
    )
    head = f"{'call':42s}" + "".join(f"{name:>22s}" for name, _ in sources)
    print(head + ("   this/other" if len(sources) > 1 else ""))
    base: dict[str, float] = {}
    for label, (call, n) in CALLS.items():
        wanted = [w for w in args.only.split(",") if w]
        if wanted and not label.startswith("baseline") and not any(w in label for w in wanted):
            continue
        row = []
        for name, src in sources:
            k = per_call(src, args.position, call, max(1, round(n * args.scale)))
            base.setdefault(name, k)
            row.append(k / base[name])
            print(f"{label:42s}" if name == "this" else "", end="")
            print(f"{k / 1000:12.1f}k {k / base[name]:7.1f}×", end="", flush=True)
        print(f"   {row[0] / row[1]:10.2f}" if len(row) > 1 else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
