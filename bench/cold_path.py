"""The cold path, stage by stage: ValidateAction on a snapshot the service has not loaded.

Behind a round-robin load balancer most calls bring a snapshot the replica has not seen;
loading it is then most of the call. For each position of ``bench/scenarios.py`` (opening,
midgame, late) this times, in microseconds of CPU per call (the least of several repeats),
every stage of that path as the transports run it. A stage's figure is the time of every
stage up to it less the time of those before it, each run from the request bytes: a stage
meets the objects its predecessors made as in the real path (a freshly parsed protobuf
message builds its sub-message wrappers when first read, and whoever reads first pays).

JSON (REST, CLI): bytes -> JSON object (``jsonio.loads``); the snapshot's cache key
(compact orjson text) and the cache lookup; the whole request to a protobuf message; then
the protobuf stages below, and the answer's JSON bytes.

protobuf (gRPC): the snapshot field found in the bytes (``wire.split_field``) and the cache
lookup; the request parse; the required-field check of the request with the snapshot left
to its read; protobuf -> engine values (``convert.snapshot_from_proto``, which finds the
snapshot's missing fields), the action read, ``engine.check_snapshot``, the client-given
output-only fields (``snapshot_code.disagreements``), the cache bookkeeping (put, version pin), the
engine's validate, the answer message and its deterministic bytes. Signing is off by
default; "either, when configured" times the trust checks of a signed snapshot (the one
HMAC over the bytes received, and the fallback: the service's rendering and the signature
verified over it), and "signing on" the whole path of a snapshot the service signed, which
is trusted and not checked again (docs/api.md#trust).

"whole path" is ``Runtime.answer`` of the transport's bytes, the snapshot cache emptied
before every call, plus the rendering: what one call costs a server, transport I/O
aside (beside "sum of the stages": the difference is the dispatch around them). Figures
are also given as ratios to the protobuf parse+serialize of the same request bytes,
measured in the same run (``× baseline``), so they compare across machines.

    .venv/bin/python bench/cold_path.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import scenarios  # noqa: E402
from samba_adjudicator import engine  # noqa: E402
from samba_adjudicator.engine.model import Problem, Snapshot  # noqa: E402
from samba_adjudicator.service.base import pb  # noqa: E402
from samba_adjudicator.service.codec import (  # noqa: E402
    answers,
    convert,
    jsonio,
    paths,
    required,
    snapshot_bytes,
    snapshot_code,
    wire,
)
from samba_adjudicator.service.codec.actions import action_to_proto  # noqa: E402
from samba_adjudicator.service.codec.signing import Signer  # noqa: E402
from samba_adjudicator.service.pipeline.api import Adjudicator  # noqa: E402
from samba_adjudicator.service.pipeline.call import Call  # noqa: E402
from samba_adjudicator.service.pipeline.loading import (  # noqa: E402
    SNAPSHOT,
    SnapshotLoader,
    pin_version,
)
from samba_adjudicator.service.pipeline.runtime import Runtime  # noqa: E402

METHOD = "ValidateAction"
Request = pb.ValidateActionRequest


#: The clock: CPU time of this process. The machine is shared, and another process taking
#: the CPU stretches wall-clock samples by up to twice; the CPU time a call takes does not
#: depend on who else runs (a blocking call would go uncounted: there is none here).
clock = time.process_time


def _batch(fn: Callable[[], Any], min_time: float) -> int:
    """Calls of ``fn`` that take about ``min_time`` seconds."""
    n = 1
    while True:
        t = clock()
        for _ in range(n):
            fn()
        elapsed = clock() - t
        if elapsed >= min_time / 4:
            return max(1, int(n * min_time / max(elapsed, 1e-9)))
        n *= 2


def per_call_us(fn: Callable[[], Any], min_time: float, repeats: int) -> float:
    """The least over ``repeats`` of the mean CPU time per call, each repeat about
    ``min_time`` s (the least: other work only ever adds time)."""
    return timed_together([fn], min_time, repeats)[0]


def timed_together(fns: list[Callable[[], Any]], min_time: float, repeats: int) -> list[float]:
    """``per_call_us`` of each of ``fns``, measured in rounds (one sample of each per
    round), so that a slow moment of the machine touches them all alike."""
    batches = [_batch(fn, min_time) for fn in fns]
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for i, (fn, n) in enumerate(zip(fns, batches, strict=True)):
            t = clock()
            for _ in range(n):
                fn()
            best[i] = min(best[i], (clock() - t) / n * 1e6)
    return best


Stage = Callable[[dict[str, Any]], None]


def _stages() -> dict[str, tuple[str, Stage]]:
    """What ``SnapshotLoader`` and the handler do with a decoded request, by name: each
    stage reads what the ones before left in ``c`` (the request message ``msg``, the engine
    snapshot ``snap``)."""
    loader = SnapshotLoader()

    def to_engine(c: dict[str, Any]) -> None:
        c["snap"] = convert.snapshot_from_proto(c["msg"].snapshot, SNAPSHOT, c["problems"])

    def action(c: dict[str, Any]) -> None:
        c["action"] = loader._actions(
            c["snap"], ((c["msg"].action, "action"),), c["problems"], True
        )[0]

    def consistency(c: dict[str, Any]) -> None:
        assert not paths.prefixed(engine.check_snapshot(c["snap"]), SNAPSHOT)

    def derived(c: dict[str, Any]) -> None:
        assert not snapshot_code.disagreements(c["msg"].snapshot, c["snap"], SNAPSHOT)

    def bookkeeping(c: dict[str, Any]) -> None:
        snap = c["snap"]
        loader.cache.put(c["source"].key, snap)
        pin_version(snap.ruleset_ref.version, snap.ruleset, "snapshot.ruleset.version")

    def validate(c: dict[str, Any]) -> None:
        c["violations"] = engine.validate(c["snap"], c["action"])

    def answer(c: dict[str, Any]) -> None:
        violations = c["violations"]
        c["response"] = pb.ValidateActionResponse(
            legal=not violations, violations=[answers.violation_to_proto(v) for v in violations]
        )

    return {
        "to_engine": ("protobuf -> engine (the table's read)", to_engine),
        "action": ("action read (seat, meld ids)", action),
        "consistency": ("check_snapshot", consistency),
        "derived": ("derived fields", derived),
        "bookkeeping": ("cache put, version pin", bookkeeping),
        "validate": ("engine validate", validate),
        "answer": ("answer message", answer),
    }


def json_stages(body: bytes) -> list[tuple[str, Stage]]:
    """A new JSON snapshot takes the one way in: the request to a protobuf message, then
    the stages of a protobuf request (``SnapshotLoader.load``)."""
    loader = SnapshotLoader()
    shared = _stages()

    def loads(c: dict[str, Any]) -> None:
        c["data"] = jsonio.loads(body)

    def key(c: dict[str, Any]) -> None:
        c["source"] = loader.received(c["data"][SNAPSHOT])
        assert c["source"].loaded is None

    def to_protobuf(c: dict[str, Any]) -> None:
        c["msg"], c["problems"] = jsonio.decode_dict(c["data"], Request)

    def required_fields(c: dict[str, Any]) -> None:
        c["problems"] = required.with_required(c["msg"], c["problems"])

    def render(c: dict[str, Any]) -> None:
        jsonio.dumps_bytes(jsonio.to_dict(c["response"]))

    return [
        ("bytes -> JSON object (loads)", loads),
        ("cache key (orjson text), lookup", key),
        ("JSON -> protobuf (the whole request)", to_protobuf),
        ("required fields (the table's walk)", required_fields),
        *(shared[name] for name in ("to_engine", "action", "consistency", "derived")),
        *(shared[name] for name in ("bookkeeping", "validate", "answer")),
        ("render answer (JSON bytes)", render),
    ]


def protobuf_stages(data: bytes) -> list[tuple[str, Stage]]:
    loader = SnapshotLoader()
    number = Request.DESCRIPTOR.fields_by_name[SNAPSHOT].number
    shared = _stages()

    def split(c: dict[str, Any]) -> None:
        found = wire.split_field(data, number)
        assert found is not None
        c["source"] = loader.received(found[0])
        assert c["source"].loaded is None

    def parse(c: dict[str, Any]) -> None:
        c["msg"] = Request.FromString(data)

    def required_fields(c: dict[str, Any]) -> None:
        c["problems"] = required.with_required(c["msg"], ())

    def render(c: dict[str, Any]) -> None:
        c["response"].SerializeToString(deterministic=True)

    return [
        ("find snapshot bytes, lookup", split),
        ("protobuf parse", parse),
        ("required fields (the table's walk)", required_fields),
        *(shared[name] for name in ("to_engine", "action", "consistency", "derived")),
        *(shared[name] for name in ("bookkeeping", "validate", "answer")),
        ("render answer (protobuf bytes)", render),
    ]


def whole_path(
    runtime: Runtime, data: bytes, json: bool, render: Callable[[Any], Any]
) -> Callable[[], None]:
    """``Runtime.answer`` as a server runs it, the snapshot cache emptied first."""

    def call() -> None:
        runtime.adjudicator.snapshots.cache.clear()
        render(runtime.answer(Call(METHOD, data, json=json)).whole())

    return call


def timed_stages(
    stages: list[tuple[str, Stage]], whole: Callable[[], None], min_time: float, repeats: int
) -> dict[str, float]:
    """Each stage's cost as the difference of the time of the stages up to it and up to
    the one before, every run from the request bytes: a stage meets the objects its
    predecessors made as the real path does (a freshly parsed message builds its
    sub-message wrappers on first access, whoever reads first pays)."""
    runs = []
    for k in range(len(stages)):
        prefix = [fn for _, fn in stages[: k + 1]]

        def run(prefix: list[Stage] = prefix) -> None:
            c: dict[str, Any] = {"problems": []}
            for fn in prefix:
                fn(c)

        runs.append(run)
    upto = timed_together([*runs, whole], min_time, repeats)
    out: dict[str, float] = {}
    before = 0.0
    for (label, _), us in zip(stages, upto, strict=False):
        out[label] = us - before
        before = us
    out["sum of the stages"] = before
    out["whole path (Runtime.answer, cache emptied)"] = upto[-1]
    return out


SIGNER = Signer((("k1", b"0123456789abcdef0123456789abcdef"),))


def extra_stages(snap: Snapshot) -> dict[str, Callable[[], Any]]:
    """Costs outside the default path: the trust checks of a signed snapshot, a new
    Adjudicator."""
    signed = convert.snapshot_to_proto(snap)
    SIGNER.sign(signed)
    encoded = signed.SerializeToString(deterministic=True)
    canonical = convert.snapshot_to_proto(snap)
    unsigned = snapshot_bytes.encode(snap)
    obj = jsonio.to_dict(canonical)
    msg = pb.Snapshot.FromString(encoded)
    return {
        "trust: one HMAC over the bytes received": lambda: SIGNER.signed_as_encoded(
            encoded, signed.signature
        ),
        "trust: JSON's deterministic encoding + HMAC": lambda: SIGNER.signed_as_encoded(
            signed.SerializeToString(deterministic=True), signed.signature
        ),
        "JSON, any other form: JSON -> protobuf": lambda: jsonio.decode_dict(obj, pb.Snapshot),
        "JSON, any other form: the required walk": lambda: required.missing_required(msg, SNAPSHOT),
        "fallback: service's rendering": lambda: snapshot_bytes.encode(snap),
        "fallback: signature verify over it": lambda: SIGNER.signs(unsigned, signed.signature),
        "new Adjudicator() (engine_bench's cold rows)": Adjudicator,
    }


def signed_whole_paths(s: Snapshot, action: Any) -> dict[str, Callable[[], None]]:
    """The whole path of a new snapshot the service signed (keys set), both transports:
    trusted from its bytes, not checked again (docs/api.md#trust)."""
    snapshot = convert.snapshot_to_proto(s)
    SIGNER.sign(snapshot)
    request = Request(snapshot=snapshot, action=action_to_proto(action))
    data = request.SerializeToString()
    body = json.dumps(jsonio.to_dict(request)).encode()
    runtime = Runtime(None, Adjudicator(signer=SIGNER), count_calls=False)
    return {
        "whole path, JSON (REST)": whole_path(
            runtime, body, True, lambda r: jsonio.dumps_bytes(jsonio.to_dict(r))
        ),
        "whole path, protobuf (gRPC)": whole_path(
            runtime, data, False, lambda r: r.SerializeToString(deterministic=True)
        ),
    }


def measure(
    s: Snapshot, min_time: float, repeats: int
) -> tuple[float, int, list[tuple[str, dict[str, float]]]]:
    action = scenarios.typical_action(s)
    request = Request(snapshot=convert.snapshot_to_proto(s), action=action_to_proto(action))
    data = request.SerializeToString()
    body = json.dumps(jsonio.to_dict(request)).encode()

    def baseline() -> None:
        Request.FromString(data).SerializeToString()

    base = per_call_us(baseline, min_time, repeats)
    runtime = Runtime(None, Adjudicator(), count_calls=False)
    groups = [
        (
            "JSON (REST)",
            timed_stages(
                json_stages(body),
                whole_path(runtime, body, True, lambda r: jsonio.dumps_bytes(jsonio.to_dict(r))),
                min_time,
                repeats,
            ),
        ),
        (
            "protobuf (gRPC)",
            timed_stages(
                protobuf_stages(data),
                whole_path(runtime, data, False, lambda r: r.SerializeToString(deterministic=True)),
                min_time,
                repeats,
            ),
        ),
        (
            "either, when configured",
            {label: per_call_us(fn, min_time, repeats) for label, fn in extra_stages(s).items()},
        ),
        (
            "signing on: a snapshot the service signed (trusted)",
            dict(
                zip(
                    signed := signed_whole_paths(s, action),
                    timed_together(list(signed.values()), min_time, repeats),
                    strict=True,
                )
            ),
        ),
    ]
    return base, len(data), groups


def check_no_problems(s: Snapshot) -> None:
    """The positions load without a problem (else the stages would time error paths)."""
    problems: list[Problem] = []
    snap = convert.snapshot_from_proto(convert.snapshot_to_proto(s), SNAPSHOT, problems)
    assert snap is not None and not problems and not engine.check_snapshot(snap)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="shorter timings (about 15 s in all instead of 40)"
    )
    args = parser.parse_args(argv)
    min_time, repeats = (0.04, 5) if args.quick else (0.1, 9)
    from samba_adjudicator.service.transport.server import tune_gc

    positions = (
        ("opening", scenarios.opening()),
        ("midgame", scenarios.midgame()),
        ("late", scenarios.late()),
    )
    tune_gc()  # the collector as the server sets it up, the positions made (long-lived)
    results = []
    for name, s in positions:
        check_no_problems(s)
        results.append((name, *measure(s, min_time, repeats)))

    names = [name for name, *_ in results]
    head = "".join(f"{n:>10} {'×base':>6}" for n in names)
    print(f"{'stage (µs per call, × protobuf parse+serialize)':44}{head}")
    line = "".join(f"{base:10.1f} {1.0:6.1f}" for _, base, _, _ in results)
    print(f"{'baseline: protobuf parse+serialize':44}{line}")
    print(
        f"{'request bytes (protobuf)':44}"
        + "".join(f"{size:10d} {'':6}" for _, _, size, _ in results)
    )
    for g, (title, stages) in enumerate(results[0][3]):
        print(f"\n{title}")
        for label in stages:
            row = ""
            for _, base, _, groups in results:
                us = groups[g][1][label]
                row += f"{us:10.1f} {us / base:6.1f}"
            print(f"  {label:42}{row}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
