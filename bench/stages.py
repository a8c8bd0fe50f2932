"""Server CPU per call, stage by stage: where every microsecond of a served call goes.

It starts the real server (bench/service_bench.py's ``Server``: 127.0.0.1, one worker, the
build ``SAMBA_BUILD`` chooses, the compiled one when installed), loads it with h2load (gRPC)
or wrk (REST) as ``make bench-service`` does, and samples every thread of the server with
``perf record -e cpu-clock --call-graph dwarf``: a sample is taken per slice of CPU time a
thread spends (an idle or waiting thread is never sampled), with the thread's whole native
stack, kernel included. The compiled build's functions are native
(``CPyDef_<module>___<function>``), so the pipeline's stages are named in the stacks;
grpc's C core and Cython, upb, the kernel's sockets and the interpreter are named by their
library. Interpreted Python (grpc's and our transports' handlers, asyncio, uvicorn,
Starlette, prometheus_client, logging) shows as the interpreter: it is placed by the
compiled function that called it (``INTERPRETED_UNDER``) or else counted as the
transport's Python.

Each sample is given to exactly one stage by ``stage_of`` (the rules of ``STAGES``, read
from the stack's root to its leaf), so the stages partition the samples by construction;
a stage's figure is its samples' CPU time (their periods) over the calls the server
counted in the window (``samba_requests_total`` on its admin port, read at both ends).
The check is independent of the rules: the samples' CPU in all is compared with the CPU the
kernel's scheduler counted for the same threads over the same window
(``/proc/<pid>/task/*/schedstat``; perf's timestamps are CLOCK_MONOTONIC, and only the
samples inside the window count). Beside it, the same window without perf gives the CPU per
call unprofiled: the table states perf's overhead.

    make bench-stages                                   # every scenario, about 3 minutes
    .venv/bin/python bench/stages.py --only grpc-new --seconds 4
    .venv/bin/python bench/stages.py --json /tmp/stages.json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import service_bench  # noqa: E402
from server_cpu import server_tree  # noqa: E402

_ENGINE = (
    "action_order|cards|consistency|deal_checks|deal_proof|deal_seed|dealing|derived|game|"
    "going_out|knowledge|laying|legal|melds|messages|model|outcome_checks|penalties|pile|"
    "premium_kinds|premiums|problems|ruleset|ruleset_checks|scoring|shapes|table_rules|takes|"
    "templates|view|violations|vocabulary|work"
)
#: The stages: (name, pattern over a frame's name, absorbing). A compiled function's name is
#: its mypyc name dotted (``CPyDef_loading___SnapshotLoader___load``:
#: ``loading.SnapshotLoader.load``); any other frame's is its symbol, or its library when
#: the symbol is unknown. The stack is read from its root: a frame that matches sets the
#: stage, unless the stage set is absorbing (the engine's functions that
#: ``check_snapshot`` calls are the check's cost, not the engine's).
STAGES: tuple[tuple[str, str, bool], ...] = (
    (
        "the Call (Call, Record, deadline, budget)",
        r"^(call|runtime\.Runtime\.(invoke|answer|offloaded)|runtime\.request_id_from|budget|"
        r"stops|boundary|deadline|heavy|slots)\.",
        False,
    ),
    (
        "decoding (parse, required and enum walks)",
        r"^(decoding|required|enums|wire|jsonio|json_scalars|json_keys|json_text)\.|"
        r"^snapshot_code\._(missing|enums|clean_enums|walk)",
        False,
    ),
    (
        "cache (key, lookup, put)",
        r"^loading\.(cache_key|json_cache_key|SnapshotLoader\.(loaded|source_of|remember_json))",
        True,
    ),
    (
        "snapshot read (protobuf to engine values)",
        r"^(convert\.snapshot_from_proto|snapshot_code\.(read|_read)|actions\.|snapshot_parts\.)|"
        r"^loading\.SnapshotLoader\.(load|_actions|_check_signature_present)",
        False,
    ),
    (
        "checks (signature, consistency, derived fields)",
        r"^loading\.(SnapshotLoader\._trust|pin_version)|^signing\.",
        True,
    ),
    ("engine (validate)", rf"^({_ENGINE})\.", False),
    (
        "answer (violations, response, outcome)",
        r"^(api\.|answers\.|runtime\._(outcome|profile_of|cache_outcome))",
        False,
    ),
    (
        "render and serialise",
        r"^(json_render|snapshot_bytes|error_bodies)\.|"
        r"^loading\.SnapshotLoader\.render|SerializeToString|^upb_Encode|^_upb_Encode",
        True,
    ),
    ("metrics", r"^runtime\.Runtime\.(_count|_child)", True),
    ("log (tracing off: no span)", r"^runtime\.Runtime\._finish", True),
)
#: Interpreted Python called by a compiled function: which stage it is, read from the
#: code (``Runtime.invoke`` calls prometheus' in-flight gauge, ``SnapshotLoader.load`` the
#: cache's ``put``: no other interpreted callee).
INTERPRETED_UNDER = {
    "runtime.Runtime.invoke": "metrics",
    "loading.SnapshotLoader.load": "cache (key, lookup, put)",
}
GC = "interpreter: garbage collection"
HOPS = "thread hops (context switches, futex wake-ups)"
KERNEL = "transport: kernel (sockets, epoll, loopback TCP)"
CORE = "transport: grpc C core and Cython"
HTTP = "transport: HTTP parser (httptools, h11)"
PYTHON = "transport: interpreted Python (handlers, asyncio, uvicorn, Starlette)"
OTHER = "unattributed (stack not unwound)"
EVAL = "_PyEval_EvalFrameDefault"
_RULES = [(name, re.compile(pattern), absorbing) for name, pattern, absorbing in STAGES]
_MYPYC = re.compile(r"^CPy(?:Def|Py)_(\w+)$")
_DOTTED = re.compile(r"^[a-z_]\w*(\.\w+)+$")


def frame_name(symbol: str, library: str) -> str:
    """The name the stage patterns read: a compiled function's dotted mypyc name, else the
    symbol, else the library's file name."""
    m = _MYPYC.match(symbol)
    if m:
        return m.group(1).replace("___", ".")
    if symbol and symbol != "[unknown]":
        return symbol
    return "lib:" + library.rsplit("/", 1)[-1]


def stage_of(frames: list[str]) -> str:
    """The one stage a sample's stack (names, root first) belongs to."""
    if any(f in ("gc_collect_main", "gc_collect_with_callback") for f in frames):
        return GC
    stage, absorbed, last = None, False, ""
    for name in frames:
        if absorbed:
            break
        if name == EVAL and last in INTERPRETED_UNDER:
            stage, absorbed = INTERPRETED_UNDER[last], True
            continue
        if _DOTTED.match(name) and not _SUFFIXED.search(name):  # compiled: the caller
            last = name
        for rule, pattern, absorbing in _RULES:
            if pattern.search(name):
                stage, absorbed = rule, absorbing
                break
    return stage if stage is not None else _transport(frames)


#: Kernel frames of a thread switched in or out, or waking another.
_HOPS = ("__x64_sys_futex", "futex_", "__schedule", "schedule", "finish_task_switch")


def _transport(frames: list[str]) -> str:
    """A sample outside the pipeline: by the innermost code that owns it."""
    if any(f.startswith(_HOPS) for f in frames):
        return HOPS
    if any(f.startswith(("entry_SYSCALL", "do_syscall", "__x64_sys", "__sys_")) for f in frames):
        return KERNEL
    for name in reversed(frames):
        if name.startswith("lib:cygrpc") or name.startswith("grpc_"):
            return CORE
        if "httptools" in name or name.startswith("lib:parser") or "llhttp" in name:
            return HTTP
        if name == EVAL:
            return PYTHON
    return OTHER if len(frames) < 3 else CORE if any("cygrpc" in f for f in frames) else PYTHON


# -- sampling the server ------------------------------------------------------------------


def thread_cpu(pid: int) -> dict[int, float]:
    """Seconds of CPU of every thread of ``pid`` and its descendants, by thread id."""
    out = {}
    for proc in server_tree(pid):
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{proc}/task").iterdir():
                with contextlib.suppress(OSError, IndexError, ValueError):
                    out[int(task.name)] = int((task / "schedstat").read_text().split()[0]) / 1e9
    return out


def thread_names(pid: int) -> dict[int, str]:
    out = {}
    for proc in server_tree(pid):
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{proc}/task").iterdir():
                with contextlib.suppress(OSError):
                    out[int(task.name)] = (task / "comm").read_text().strip()
    return out


def calls_counted(admin_port: int | None, method: str = "ValidateAction") -> float:
    """``samba_requests_total`` of ``method``, every label, from the server's admin port
    (None: not counted, 0)."""
    if admin_port is None:
        return 0.0
    with urllib.request.urlopen(f"http://127.0.0.1:{admin_port}/metrics", timeout=10) as r:
        text = r.read().decode()
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("samba_requests_total{") and f'method="{method}"' in line
    )


@dataclass
class Window:
    """One measured window: its bounds (CLOCK_MONOTONIC), calls, CPU by thread (``/proc``)
    and, profiled, the CPU seconds of the samples inside it by stage."""

    start: float = 0.0
    end: float = 0.0
    calls: float = 0.0
    cpu: dict[int, float] = field(default_factory=dict)
    stages: Counter = field(default_factory=Counter)
    samples: int = 0
    #: CPU seconds by (stage, the sample's innermost compiled function or else its leaf):
    #: what a stage holds
    leaves: Counter = field(default_factory=Counter)
    #: CPU seconds sampled by thread id, for the check thread by thread
    sampled: Counter = field(default_factory=Counter)
    names: dict[int, str] = field(default_factory=dict)


_HEAD = re.compile(r"^\s*(\d+)\s+([\d.]+):\s+(\d+)\s*$")
_FRAME = re.compile(r"^\s+[0-9a-f]+ (.*?) \((.*)\)$")


def innermost(frames: list[str]) -> str:
    """The innermost compiled function of a stack (leaf first), or else its leaf."""
    for name in frames:
        if _DOTTED.match(name) and not _SUFFIXED.search(name):
            return name
    return frames[0] if frames else "?"


#: C symbols a compiler suffixed (``finish_task_switch.isra.0``): not compiled Python.
_SUFFIXED = re.compile(r"\.(isra|part|constprop|cold|lto_priv)\b")


def read_script(text: str, w: Window, threads: set[int]) -> None:
    """``perf script -F tid,time,period,ip,sym,dso`` output: each sample of one of the
    server's ``threads`` inside the window counted in its one stage."""
    for block in text.split("\n\n"):
        lines = block.strip("\n").splitlines()
        head = _HEAD.match(lines[0]) if lines else None
        if not head or int(head.group(1)) not in threads:
            continue
        if not w.start <= float(head.group(2)) <= w.end:
            continue
        frames = [frame_name(*m.groups()) for m in map(_FRAME.match, lines[1:]) if m]
        stage, cpu = stage_of(frames[::-1]), int(head.group(3)) / 1e9
        w.stages[stage] += cpu
        w.sampled[int(head.group(1))] += cpu
        w.leaves[stage, innermost(frames)] += cpu
        w.samples += 1


#: The bytes of each sampled thread's stack perf copies to unwind it: enough for the
#: deepest stacks seen (kernel, grpc's Cython, the interpreter, the compiled pipeline);
#: each copy is CPU the sampled thread spends unsampled, the method's cost.
STACK_BYTES = 8192
#: perf's buffer per CPU, in pages: room for the samples of a busy second, so that none is
#: lost while perf (niced with the bench) waits for a CPU to write them out.
BUFFER_PAGES = 2048


def measure(pid: int, admin_port: int | None, seconds: float, rate: int | None) -> Window:
    """One window of ``seconds`` on a loaded server, sampled by perf at ``rate`` samples per
    CPU-second (None: not sampled)."""
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "perf.data"
        perf = None
        if rate is not None:
            ctl, ack = Path(tmp) / "ctl", Path(tmp) / "ack"
            os.mkfifo(ctl)
            os.mkfifo(ack)
            perf = subprocess.Popen(
                [
                    "perf",
                    "record",
                    "-e",
                    "cpu-clock",
                    "-F",
                    str(rate),
                    "-k",
                    "CLOCK_MONOTONIC",
                    "--call-graph",
                    f"dwarf,{STACK_BYTES}",
                    "-a",  # every CPU: no per-thread event switched at each context switch
                    "-m",
                    str(BUFFER_PAGES),
                    "-o",
                    str(data),
                    "-D",
                    "-1",  # events off until the window: perf's start on a busy machine
                    "--control",
                    f"fifo:{ctl},{ack}",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            # opening the fifo waits for perf to have set up; the ack, for sampling on
            with open(ctl, "w") as c, open(ack) as a:
                c.write("enable\n")
                c.flush()
                a.readline()
        w = Window()
        cpu0, calls0, w.start = thread_cpu(pid), calls_counted(admin_port), time.monotonic()
        time.sleep(seconds)
        w.end, cpu1, calls1 = time.monotonic(), thread_cpu(pid), calls_counted(admin_port)
        w.calls = calls1 - calls0
        w.names = thread_names(pid)
        w.cpu = {t: cpu1[t] - cpu0.get(t, 0.0) for t in cpu1}
        if perf is not None:
            perf.send_signal(signal.SIGINT)
            perf.wait(120)
            script = subprocess.run(
                ["perf", "script", "-i", str(data), "-F", "tid,time,period,ip,sym,dso"],
                capture_output=True,
                text=True,
                check=False,
            )
            read_script(script.stdout, w, set(w.cpu))
    return w


def ensure_perf() -> bool:
    """perf, installed with apt-get when missing and running as root (as the load tools)."""
    if not shutil.which("perf") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for cmd in (
            ["apt-get", "update", "-qq"],
            ["apt-get", "install", "-y", "-qq", "linux-perf"],
        ):
            subprocess.run(cmd, env=env, check=False, stdout=subprocess.DEVNULL)
    return bool(shutil.which("perf")) and os.geteuid() == 0


# -- the scenarios ------------------------------------------------------------------------


@dataclass
class Scenario:
    name: str
    transport: str
    payload: bytes
    server: service_bench.Server
    #: the echo (``/samba.v1.Bench/Echo``, ``POST /v1/bench:echo``): the transport alone
    echo: bool = False


def scenarios(servers: dict[str, service_bench.Server]) -> list[Scenario]:
    """The echo of the mid-game request, then both transports on a loaded position, a new
    one and a new one the service signed (bench/service_bench.py's requests, byte for
    byte)."""
    request = service_bench.make_request()
    binary = request.SerializeToString()
    text = service_bench.jsonio.dumps(service_bench.jsonio.to_dict(request)).encode()
    signed_binary, signed_text = service_bench.signed_requests(servers["signed"], request)
    out = [
        Scenario("grpc-echo", "grpc", binary, servers["loaded"], echo=True),
        Scenario("rest-echo", "rest", text, servers["loaded"], echo=True),
    ]
    for kind, (grpc_body, rest_body) in (
        ("loaded", (binary, text)),
        ("new", (binary, text)),
        ("new-signed", (signed_binary, signed_text)),
    ):
        server = servers["signed" if kind == "new-signed" else kind]
        out.append(Scenario(f"grpc-{kind}", "grpc", grpc_body, server))
        out.append(Scenario(f"rest-{kind}", "rest", rest_body, server))
    return out


def load(s: Scenario, seconds: float, tmp: Path, result: dict) -> threading.Thread:
    """The load tool on ``s`` for ``seconds``, in a thread; its figures land in ``result``
    (the echo's calls are counted from its rate: the server does not count them)."""
    sb = service_bench
    if s.transport == "grpc":
        path = sb.ECHO if s.echo else sb.VALIDATE
        args = (s.server.grpc_port, path, s.payload, seconds, 4, 4, tmp)
        run = sb.h2load
    else:
        path = sb.REST_ECHO if s.echo else sb.REST_VALIDATE
        args = (s.server.http_port, path, s.payload, seconds, 16, tmp)
        run = sb.wrk
    t = threading.Thread(target=lambda: result.update(run(*args)), daemon=True)
    t.start()
    return t


def run_scenario(s: Scenario, seconds: float, rate: int) -> dict:
    """The scenario's windows under the same load: unprofiled, profiled, unprofiled."""
    result: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        loader = load(s, 3 * seconds + 5, Path(tmp), result)
        time.sleep(1.5)  # the load tool's warm-up
        pid, admin = s.server.proc.pid, None if s.echo else s.server.admin_port
        before = measure(pid, admin, seconds, None)
        profiled = measure(pid, admin, seconds, rate)
        after = measure(pid, admin, seconds, None)
        loader.join()
    if s.echo:  # at the load tool's mean rate
        for w in (before, profiled, after):
            w.calls = result["rps"] * (w.end - w.start)
    return account(s.name, (before, after), profiled)


def account(name: str, plain: tuple[Window, Window], w: Window) -> dict:
    """µs of CPU per call by stage, beside the CPU the scheduler counted (and its count in
    the windows before and after, unprofiled)."""
    per_call = 1e6 / w.calls
    stages = {stage: cpu * per_call for stage, cpu in w.stages.items()}
    leaves: dict[str, dict[str, float]] = {}
    for (stage, leaf), cpu in w.leaves.most_common():
        leaves.setdefault(stage, {})[leaf] = cpu * per_call
    return {
        "scenario": name,
        "calls_per_s": w.calls / (w.end - w.start),
        "stages_us": stages,
        "sum_us": sum(stages.values()),
        "measured_us": sum(w.cpu.values()) * per_call,
        "unprofiled_us": sum(sum(p.cpu.values()) for p in plain)
        * 1e6
        / sum(p.calls for p in plain),
        "samples": w.samples,
        "leaves_us": leaves,
        "threads_us": {
            f"{tid} {w.names.get(tid, '?')}": [w.sampled[tid] * per_call, cpu * per_call]
            for tid, cpu in sorted(w.cpu.items(), key=lambda kv: -kv[1])
        },
    }


#: The table's rows in order: the pipeline's stages, then the transport's.
ORDER = (GC, *(name for name, _, _ in STAGES), PYTHON, CORE, HTTP, KERNEL, HOPS, OTHER)


def _ratio(row: dict, echo: dict[str, float]) -> str:
    base = echo.get(row["scenario"].split("-")[0])
    return "" if base is None else f"{base / row['measured_us']:.2f}"


def _busiest(row: dict) -> str:
    sampled, measured = next(iter(row["threads_us"].values()))
    return f"{sampled / measured:.3f}"


def table(rows: list[dict]) -> str:
    head = "| stage, µs of server CPU per call | " + " | ".join(r["scenario"] for r in rows) + " |"
    out = [head, "|---|" + "---:|" * len(rows)]
    for stage in ORDER:
        cells = [f"{r['stages_us'].get(stage, 0.0):.1f}" for r in rows]
        out.append(f"| {stage} | " + " | ".join(cells) + " |")

    def line(label: str, fmt) -> None:
        out.append(f"| {label} | " + " | ".join(fmt(r) for r in rows) + " |")

    line("**sum of the stages**", lambda r: f"**{r['sum_us']:.1f}**")
    line("measured: the scheduler's CPU, same window", lambda r: f"{r['measured_us']:.1f}")
    line("sum / measured", lambda r: f"{r['sum_us'] / r['measured_us']:.3f}")
    line(
        "not sampled: measured − sum (switches with interrupts off, below)",
        lambda r: f"{r['measured_us'] - r['sum_us']:.1f}",
    )
    line("the busiest thread (the event loop): samples / measured", _busiest)
    echo = {r["scenario"].split("-")[0]: r["measured_us"] for r in rows if "echo" in r["scenario"]}

    def above(r: dict) -> str:
        base = echo.get(r["scenario"].split("-")[0])
        return "" if base is None or "echo" in r["scenario"] else f"{r['measured_us'] - base:.1f}"

    line("above the echo: measured − the echo's measured", above)
    line("CPU ratio: the echo's measured / measured", lambda r: _ratio(r, echo))
    line(
        "measured without perf (the windows before and after)",
        lambda r: f"{r['unprofiled_us']:.1f}",
    )
    line("calls/s while sampled", lambda r: f"{r['calls_per_s']:.0f}")
    line("samples", lambda r: f"{r['samples']}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=6.0, help="each window (default 6)")
    p.add_argument("--rate", type=int, default=199, help="perf samples per CPU-second")
    p.add_argument("--only", default="", help="comma-separated scenario names")
    p.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    p.add_argument(
        "--detail",
        type=int,
        default=0,
        help="print each stage's N costliest innermost compiled functions (or leaves)",
    )
    args = p.parse_args(argv)
    if not service_bench.ensure_tools():
        raise SystemExit("h2load and wrk are needed (apt-get install nghttp2-client wrk)")
    if not ensure_perf():
        raise SystemExit("perf is needed, run as root (apt-get install linux-perf)")
    servers = {
        "loaded": service_bench.Server(1),
        "new": service_bench.Server(1, "--snapshot-cache-size", "0"),
        "signed": service_bench.Server(
            1, "--snapshot-cache-size", "0", env=service_bench.signing_env()
        ),
    }
    rows = []
    try:
        print(f"the {servers['loaded'].build} build", file=sys.stderr)
        wanted = [w for w in args.only.split(",") if w]
        for s in scenarios(servers):
            if wanted and s.name not in wanted:
                continue
            rows.append(run_scenario(s, args.seconds, args.rate))
            print(
                f"  {s.name}: {rows[-1]['sum_us']:.0f} / {rows[-1]['measured_us']:.0f} µs",
                file=sys.stderr,
            )
    finally:
        for server in servers.values():
            server.stop()
    print(table(rows))
    for r in rows if args.detail else ():
        print(f"\n{r['scenario']}: each stage's costliest innermost functions, µs per call")
        for stage, leaves in r["leaves_us"].items():
            top = list(leaves.items())[: args.detail]
            print(f"  {stage}: " + ", ".join(f"{leaf} {us:.1f}" for leaf, us in top))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
