"""The cold path, stage by stage: ValidateAction on a snapshot the service has not loaded.

Behind a round-robin load balancer most calls bring a snapshot the replica has not seen;
loading it is then most of the call. For each position of ``bench/scenarios.py`` (opening,
midgame, late) this times, in microseconds per call (median of repeats), every stage of
that path as the transports run it, each stage on the output of the one before:

JSON (REST, CLI): bytes -> JSON object (``jsonio.loads``); the snapshot's cache key
(compact orjson text) and the cache lookup; the descriptor walk and protobuf message
(``jsonio.decode_dict``); the required-field check; then the shared stages.

protobuf (gRPC): the snapshot field found in the bytes (``wire.split_field``) and the cache
lookup; the request parse; the required-field check; then the shared stages.

Shared: protobuf -> engine values (``convert.snapshot_from_proto``), the action read,
``engine.check_snapshot``, the client-given output-only fields (``derived_fields``), the
cache bookkeeping (put, version pin), the engine's validate, the answer message, and its
rendering (proto3 JSON bytes for REST, deterministic bytes for gRPC). Signing is off by
default; the row "signature verify" times it with a key set, on a signed snapshot.

"whole path" is ``Runtime.answer`` with the transport's own decoder and the snapshot cache
emptied before every call, plus the rendering: what one call costs a server, transport I/O
aside. Figures are also given as ratios to the protobuf parse+serialize of the same request
bytes, measured in the same run (``× baseline``), so they compare across machines.

    .venv/bin/python bench/cold_path.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import scenarios  # noqa: E402
from samba_adjudicator import engine  # noqa: E402
from samba_adjudicator.engine.model import Problem, Snapshot  # noqa: E402
from samba_adjudicator.service import (  # noqa: E402
    answers, convert, derived_fields, jsonio, pb, required, wire)
from samba_adjudicator.service.actions import action_to_proto  # noqa: E402
from samba_adjudicator.service.api import Adjudicator  # noqa: E402
from samba_adjudicator.service.decoding import decode_json  # noqa: E402
from samba_adjudicator.service.loading import (  # noqa: E402
    SNAPSHOT, SnapshotLoader, cache_key, json_cache_key, pin_version)
from samba_adjudicator.service.runtime import Runtime  # noqa: E402
from samba_adjudicator.service.signing import Signer  # noqa: E402

METHOD = "ValidateAction"
Request = pb.ValidateActionRequest


def per_call_us(fn: Callable[[], Any], min_time: float, repeats: int) -> float:
    """Median over ``repeats`` of the mean time per call, each repeat ≥ ``min_time`` s."""
    n = 1
    while True:
        t = time.perf_counter()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter() - t
        if elapsed >= min_time / 5:
            break
        n *= 2
    n = max(1, int(n * (min_time / max(elapsed, 1e-9)) / 5))
    samples = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t) / n * 1e6)
    return statistics.median(samples)


def _load_stages(msg: pb.Snapshot, action: pb.Action) -> dict[str, Callable[[], Any]]:
    """The stages ``SnapshotLoader.load`` and the handler run after decoding (shared by
    both encodings), each on the output of the one before."""
    snap = convert.snapshot_from_proto(msg, SNAPSHOT, [])
    assert snap is not None
    loader = SnapshotLoader()
    engine_action = loader._actions(snap, ((action, "action"),), [], True)[0]
    violations = engine.validate(snap, engine_action)

    def bookkeeping() -> None:
        loader.cache.put(("pb", b"k"), snap)
        pin_version(snap.ruleset_ref.version, snap.ruleset, "snapshot.ruleset.version")

    return {
        "protobuf -> engine snapshot": lambda: convert.snapshot_from_proto(msg, SNAPSHOT, []),
        "action read (seat, meld ids)":
            lambda: loader._actions(snap, ((action, "action"),), [], True),
        "check_snapshot": lambda: convert.prefixed(engine.check_snapshot(snap), SNAPSHOT),
        "derived fields": lambda: derived_fields.disagreements(msg, snap, SNAPSHOT),
        "cache put, version pin": bookkeeping,
        "engine validate": lambda: engine.validate(snap, engine_action),
        "answer message": lambda: pb.ValidateActionResponse(
            legal=not violations,
            violations=[answers.violation_to_proto(v) for v in violations]),
    }


def _response(adj: Adjudicator, request: Request) -> pb.ValidateActionResponse:
    out = adj.call(METHOD, request)
    assert isinstance(out, pb.ValidateActionResponse)
    return out


def json_stages(body: bytes, request: Request) -> dict[str, Callable[[], Any]]:
    data = jsonio.loads(body)
    snapshot = data[SNAPSHOT]
    loader = SnapshotLoader()
    msg, problems = jsonio.decode_dict(data, Request)
    response = _response(Adjudicator(), request)
    adj = Adjudicator()
    runtime = Runtime(None, adj, count_calls=False)

    def whole() -> None:
        adj.snapshots.cache.clear()
        answered = runtime.answer(METHOD, runtime.json_decoder(METHOD, body))
        jsonio.dumps_bytes(jsonio.to_dict(answered))

    return {
        "bytes -> JSON object (loads)": lambda: jsonio.loads(body),
        "cache key (orjson text), lookup":
            lambda: loader.loaded(json_cache_key(snapshot)),  # type: ignore[arg-type]
        "JSON -> protobuf (walk, fill)": lambda: jsonio.decode_dict(data, Request),
        "required fields": lambda: required.with_required(msg, problems),
        "decode_json (the 4 above)": lambda: decode_json(body, Request, loader),
        **_load_stages(msg.snapshot, msg.action),
        "render answer (JSON bytes)":
            lambda: jsonio.dumps_bytes(jsonio.to_dict(response)),
        "whole path (cache emptied)": whole,
    }


def protobuf_stages(data: bytes, request: Request) -> dict[str, Callable[[], Any]]:
    loader = SnapshotLoader()
    msg = Request.FromString(data)
    response = _response(Adjudicator(), request)
    adj = Adjudicator()
    runtime = Runtime(None, adj, count_calls=False)
    decode = runtime.protobuf_decoder(METHOD)
    number = Request.DESCRIPTOR.fields_by_name[SNAPSHOT].number

    def split_and_look_up() -> None:
        split = wire.split_field(data, number)
        assert split is not None
        loader.loaded(cache_key("pb", split[0]))

    def whole() -> None:
        adj.snapshots.cache.clear()
        runtime.answer(METHOD, lambda: decode(data)).SerializeToString(deterministic=True)

    return {
        "find snapshot bytes, lookup": split_and_look_up,
        "protobuf parse": lambda: Request.FromString(data),
        "required fields": lambda: required.with_required(msg, ()),
        **_load_stages(msg.snapshot, msg.action),
        "render answer (protobuf bytes)":
            lambda: response.SerializeToString(deterministic=True),
        "whole path (cache emptied)": whole,
    }


def extra_stages(snap: Snapshot, request: Request) -> dict[str, Callable[[], Any]]:
    """Costs outside the default path: a signed snapshot verified, a new Adjudicator."""
    signer = Signer((("k1", b"0123456789abcdef0123456789abcdef"),))
    signed = convert.snapshot_to_proto(snap)
    signer.sign(signed)
    canonical = convert.snapshot_to_proto(snap)
    return {
        "signature verify (keys set)":
            lambda: signer.verify(canonical, signed.signature),
        "service's rendering (for verify)": lambda: convert.snapshot_to_proto(snap),
        "new Adjudicator()": Adjudicator,
    }


def measure(s: Snapshot, min_time: float, repeats: int
            ) -> tuple[float, int, list[tuple[str, dict[str, float]]]]:
    action = scenarios.typical_action(s)
    request = Request(snapshot=convert.snapshot_to_proto(s), action=action_to_proto(action))
    data = request.SerializeToString()
    body = json.dumps(jsonio.to_dict(request)).encode()

    def baseline() -> None:
        Request.FromString(data).SerializeToString()

    base = per_call_us(baseline, min_time, repeats)
    groups = []
    for title, stages in (("JSON (REST)", json_stages(body, request)),
                          ("protobuf (gRPC)", protobuf_stages(data, request)),
                          ("either, when configured", extra_stages(s, request))):
        groups.append((title, {label: per_call_us(fn, min_time, repeats)
                               for label, fn in stages.items()}))
    return base, len(data), groups


def check_no_problems(s: Snapshot) -> None:
    """The positions load without a problem (else the stages would time error paths)."""
    problems: list[Problem] = []
    snap = convert.snapshot_from_proto(convert.snapshot_to_proto(s), SNAPSHOT, problems)
    assert snap is not None and not problems and not engine.check_snapshot(snap)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="shorter timings (about 10 s in all instead of 30)")
    args = parser.parse_args(argv)
    min_time, repeats = (0.05, 3) if args.quick else (0.15, 5)
    from samba_adjudicator.service.server import tune_gc
    tune_gc()  # the collector as the server sets it up

    positions = (("opening", scenarios.opening()), ("midgame", scenarios.midgame()),
                 ("late", scenarios.late()))
    results = []
    for name, s in positions:
        check_no_problems(s)
        results.append((name, *measure(s, min_time, repeats)))

    names = [name for name, *_ in results]
    head = "".join(f"{n:>10} {'×base':>6}" for n in names)
    print(f"{'stage (µs per call, × protobuf parse+serialize)':44}{head}")
    line = "".join(f"{base:10.1f} {1.0:6.1f}" for _, base, _, _ in results)
    print(f"{'baseline: protobuf parse+serialize':44}{line}")
    print(f"{'request bytes (protobuf)':44}"
          + "".join(f"{size:10d} {'':6}" for _, _, size, _ in results))
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
