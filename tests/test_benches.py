"""The benchmarks measure what they say (nothing here is timed): `make bench-deal` plays whole
deals to their end on both transports, signing off and on, and counts calls and server CPU;
`make bench-service` sends the signing server the snapshot it signed itself and sets each
row beside its target; `make bench-stages` gives every sample of the server's CPU one stage
and sets their sum beside the CPU the kernel counted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import service_bench  # noqa: E402
import stages  # noqa: E402

pytestmark = pytest.mark.servers


def run_bench(script: str, *args: str, tmp_path: Path) -> tuple[list[dict], str]:
    out = tmp_path / "rows.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args, "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text()), done.stdout


def test_deal_bench_plays_each_deal_to_its_end(tmp_path):
    rows, table = run_bench("deal_bench.py", "--quick", "--deals", "1", tmp_path=tmp_path)
    combos = {(r["transport"], r["signing"], r["mode"]) for r in rows}
    assert combos == {
        (t, s, m)
        for t in ("grpc", "rest")
        for s in (False, True)
        for m in ("adjudication", "with-suggest")
    }
    for r in rows:
        assert r["reason"] and r["moves"] > 0, r["reason"]
        assert r["calls"]["Deal"] == 1 and r["calls"]["ApplyAction"] == r["moves"]
        assert r["calls"].get("SuggestAction", 0) == (
            r["moves"] if r["mode"] == "with-suggest" else 0
        )
        # the CPU figures are read from the server's processes, not left at zero
        assert r["server_cpu_s"] > 0 and r["echo_cpu_s"] > 0
        assert r["server_cpu_ticks_s"] >= 0 and r["echo_cpu_ticks_s"] >= 0
    # one seed, one deal: every combination played the same actions to the same end
    assert len({json.dumps(r["actions"]) for r in rows}) == 1
    assert table.count("| grpc |") == 4 and table.count("| rest |") == 4
    assert "SuggestAction (BASIC) costs the server" in table


def test_service_bench_signed_row_is_the_servers_own_signature(tmp_path):
    """--dry-run starts the servers and checks every request: the signing server refuses the
    unsigned snapshot and takes the one it rendered and signed, byte for byte."""
    rows, _ = run_bench("service_bench.py", "--dry-run", "--workers", "1", tmp_path=tmp_path)
    size = {(r["transport"], r["call"]): r["bytes"] for r in rows}
    for transport in ("grpc", "rest"):
        signed = size[(transport, "validate-new-signed")]
        assert signed == size[(transport, "echo-signed")]
        # the same request plus the signature (v1.<key id>.<43 characters>)
        assert signed > size[(transport, "validate-new")] + 40


def test_service_bench_table_says_whether_each_target_is_met():
    def row(transport, call, rps, cpu_us, round_=0):
        return {
            "workers": 1,
            "transport": transport,
            "call": call,
            "round": round_,
            "rps": rps,
            "p50": 0.001,
            "p99": 0.002,
            "cpu_us": cpu_us,
        }

    rows = [
        row("grpc", "echo", 1000, 100),
        row("grpc", "validate", 900, 125),
        row("grpc", "echo-signed", 500, 200),
        row("grpc", "validate-new-signed", 300, 400),
        row("rest", "echo", 1000, 150),
        row("rest", "validate-new", 600, 300),
    ]
    lines = {
        tuple(cell.strip() for cell in line.split("|")[1:4]): line
        for line in service_bench.table(rows).splitlines()[2:]
    }
    assert "| >= 0.85x | yes |" in lines[("1", "grpc", "validate")]
    # the CPU ratio: the echo's CPU per call over the call's, beside both figures
    assert lines[("1", "grpc", "validate")].endswith("| 125, 100 | **0.80** (0.80) |")
    # a signed call is measured against its own server's echo of the signed bytes
    assert "**0.60**" in lines[("1", "grpc", "validate-new-signed")]
    assert "| >= 0.7x | **no** |" in lines[("1", "grpc", "validate-new-signed")]
    assert "| 400, 200 | **0.50** (0.50) |" in lines[("1", "grpc", "validate-new-signed")]
    assert "| >= 0.5x | yes |" in lines[("1", "rest", "validate-new")]


def test_warm_costs_measures_each_candidate_on_a_played_deal(tmp_path):
    """`bench/warm_costs.py` (docs/deployment.md#a-tables-calls-to-one-worker): a hit and a
    miss per transport, the parts of a miss and of a shared entry (read back equal to what
    was written), and the server's CPU per REST call on both kinds of connection."""
    rows, table = run_bench(
        "warm_costs.py", "--rounds", "1", "--connection-calls", "20", tmp_path=tmp_path
    )
    seen = {(r["what"], r.get("transport", ""), r.get("outcome", "")) for r in rows}
    calls = {("call", t, o) for t in ("grpc", "rest") for o in ("hit", "miss")}
    parts = {(p, "", "") for p in ("parse", "convert", "hmac", "shared write", "shared read")}
    connections = {(f"connection {k}", "", "") for k in ("kept-alive", "new")}
    assert seen == calls | parts | connections
    assert all(r["us"] > 0 for r in rows)
    assert all(r["bytes"] > 0 for r in rows if r["what"].startswith("shared"))
    assert "calls of one deal" in table


def test_stage_rules_give_a_stack_the_stage_of_its_work():
    """Read from the root: the innermost matching frame sets the stage, an absorbing one
    keeps what it calls (the engine's functions under the consistency check are the
    check's), interpreted code is placed by its compiled caller, and a stack outside the
    pipeline is the transport's part that owns its leaf."""
    invoke = ["lib:cygrpc.so", "_PyEval_EvalFrameDefault", "runtime.Runtime.invoke"]
    load = [
        *invoke,
        "runtime.Runtime.answer",
        "api.Adjudicator.answer",
        "api.Adjudicator.validate_action",
        "loading.SnapshotLoader.load",
    ]
    cases = {
        (
            *load,
            "loading.SnapshotLoader._trust",
            "consistency.check_snapshot",
            "melds.check_new",
            "PyDict_GetItem",
        ): "checks (signature, consistency, derived fields)",
        (
            *load,
            "convert.snapshot_from_proto",
            "snapshot_code._read_Seat",
            "PyUpb_Message_GetAttr",
        ): "snapshot read (protobuf to engine values)",
        (*load[:-1], "game.validate", "melds.check_new"): "engine (validate)",
        (*load, "_PyEval_EvalFrameDefault", "PyDict_SetItem"): "cache (key, lookup, put)",
        (*invoke, "_PyEval_EvalFrameDefault", "PyFloat_FromDouble"): "metrics",
        (*invoke, "runtime.Runtime._count", "_PyEval_EvalFrameDefault"): "metrics",
        (
            *invoke,
            "runtime.Runtime.answer",
            "decoding.read",
            "decoding._from_protobuf",
            "upb_Decode",
        ): "decoding (parse, required and enum walks)",
        (*invoke, "runtime.Runtime._finish"): "log (tracing off: no span)",
        (*invoke, "call.Record.__init__"): "the Call (Call, Record, deadline, budget)",
        (
            "lib:cygrpc.so",
            "_PyEval_EvalFrameDefault",
            "PyUpb_Message_SerializeToString",
        ): "render and serialise",
        (
            "start_thread",
            "lib:cygrpc.so",
            "epoll_wait",
            "entry_SYSCALL_64",
            "do_syscall_64",
            "__x64_sys_epoll_wait",
        ): stages.KERNEL,
        (
            "start_thread",
            "lib:cygrpc.so",
            "do_syscall_64",
            "__x64_sys_futex",
            "futex_wake",
        ): stages.HOPS,
        ("start_thread", "lib:cygrpc.so", "lib:cygrpc.so"): stages.CORE,
        ("lib:cygrpc.so", "_PyEval_EvalFrameDefault", "_PyType_Lookup"): stages.PYTHON,
        (
            "_PyEval_EvalFrameDefault",
            "__pyx_f_9httptools_6parser",
            "llhttp__internal__run",
        ): stages.HTTP,
        (*load, "gc_collect_main", "move_unreachable"): stages.GC,
    }
    for frames, stage in cases.items():
        assert stages.stage_of(list(frames)) == stage, frames
    # the names the rules read: a compiled function's dotted mypyc name, a symbol, a library
    assert stages.frame_name("CPyDef_loading___SnapshotLoader____trust", "x.so") == (
        "loading.SnapshotLoader._trust"
    )
    assert stages.frame_name("[unknown]", "/a/b/cygrpc.cpython-311.so") == (
        "lib:cygrpc.cpython-311.so"
    )


def test_stages_bench_partitions_the_servers_cpu(tmp_path):
    """One scenario on the real server: every sample counted in exactly one stage (the
    stages, the threads and the innermost frames give the same total), and that total set
    beside the CPU the scheduler counted over the same window (generous bounds: a busy
    machine moves it; docs/performance.md has the measured figures)."""
    rows, table = run_bench(
        "stages.py", "--only", "grpc-new,rest-loaded", "--seconds", "2", tmp_path=tmp_path
    )
    assert [r["scenario"] for r in rows] == ["rest-loaded", "grpc-new"]
    for r in rows:
        total = r["sum_us"]
        assert r["samples"] > 20 and total > 0
        assert set(r["stages_us"]) <= set(stages.ORDER)
        by_thread = sum(sampled for sampled, _ in r["threads_us"].values())
        by_leaf = sum(sum(leaves.values()) for leaves in r["leaves_us"].values())
        assert by_thread == pytest.approx(total) and by_leaf == pytest.approx(total)
        assert 0.5 < total / r["measured_us"] < 1.2, r
    # a new position is read and checked; a loaded one is not (but for its first call)
    loaded, new = (r["stages_us"] for r in rows)
    assert new["checks (signature, consistency, derived fields)"] > 0
    # (the loaded scenario's first call reads its position: a sample may land there)
    checks = "checks (signature, consistency, derived fields)"
    assert loaded.get(checks, 0) < new[checks] / 10, (loaded, new)
    assert "| **sum of the stages** |" in table and "| sum / measured |" in table
