"""`make bench`: engine time per call on realistic positions, beside baselines measured in
the same run.

For each position (opening hand, mid-game, late game with a 40+ card hand after a big pile
take) it times, in microseconds per call (median of several repeats):

- engine only: validate, apply, legal_actions, score (provisional);
- the whole JSON path of the CLI/REST gateway for ValidateAction (JSON text → protobuf →
  engine → protobuf → JSON), for a snapshot the service has not seen (every cache emptied)
  and for one it has (clients validate several moves on one snapshot), and the protobuf
  (gRPC) path for a snapshot seen;
- the baseline: protobuf parse + serialize of the same ValidateActionRequest bytes, and
  json.loads + json.dumps of the same JSON text.

Figures are reported as ratios to the protobuf baseline so they compare across machines.
The garbage collector is set up as the server sets it up (``service.transport.server.tune_gc``).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import scenarios  # noqa: E402
from samba_adjudicator.engine import apply, legal_actions, score, validate  # noqa: E402


def per_call_us(fn, min_time: float = 0.2, repeats: int = 5) -> float:
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


def figures(s) -> tuple[dict[str, float], float, int]:
    """(µs per call by measurement, the protobuf baseline, request bytes) at position ``s``."""
    from samba_adjudicator.service.base import pb
    from samba_adjudicator.service.codec import convert, jsonio
    from samba_adjudicator.service.codec.actions import action_to_proto
    from samba_adjudicator.service.pipeline.api import Adjudicator
    from samba_adjudicator.service.transport.cli import run

    action = scenarios.typical_action(s)
    request = pb.ValidateActionRequest(
        snapshot=convert.snapshot_to_proto(s), action=action_to_proto(action)
    )
    wire = request.SerializeToString()
    body = json.dumps(jsonio.to_dict(request)).encode()
    n_legal = len(legal_actions(s)[0])

    def proto_roundtrip():
        pb.ValidateActionRequest.FromString(wire).SerializeToString()

    def json_roundtrip():
        json.dumps(json.loads(body))

    warm = Adjudicator()

    def json_path_cold():
        # a snapshot the service has not seen: every cache emptied first
        status, _ = run("ValidateAction", body, adjudicator=Adjudicator())
        assert status == 0

    def json_path_warm():
        status, _ = run("ValidateAction", body, adjudicator=warm)
        assert status == 0

    def proto_path_cold():
        Adjudicator().call("ValidateAction", pb.ValidateActionRequest.FromString(wire))

    def proto_path_warm():
        warm.call("ValidateAction", pb.ValidateActionRequest.FromString(wire))

    base = per_call_us(proto_roundtrip)
    return (
        {
            "baseline: protobuf parse+serialize": base,
            "baseline: json loads+dumps": per_call_us(json_roundtrip),
            "engine validate": per_call_us(lambda: validate(s, action)),
            "engine apply": per_call_us(lambda: apply(s, action)),
            f"engine legal_actions ({n_legal} actions)": per_call_us(lambda: legal_actions(s)),
            "engine score (provisional)": per_call_us(lambda: score(s, provisional=True)),
            "ValidateAction JSON→JSON, new snapshot": per_call_us(json_path_cold),
            "ValidateAction JSON→JSON, snapshot seen": per_call_us(json_path_warm),
            "ValidateAction protobuf, new snapshot": per_call_us(proto_path_cold),
            "ValidateAction protobuf, snapshot seen": per_call_us(proto_path_warm),
        },
        base,
        len(wire),
    )


def main() -> int:
    from samba_adjudicator.service.transport.server import tune_gc

    tune_gc()  # the collector as the server sets it up (service/transport/server.py)
    rows = []
    for name, make in (
        ("opening", scenarios.opening),
        ("midgame", scenarios.midgame),
        ("late (40+ cards)", scenarios.late),
    ):
        s = make()
        measured, base, size = figures(s)
        hand = len(s.seats[s.turn.seat].hand)
        rows.append((f"{name}: hand {hand}, {size} B request", measured, base))

    print(f"{'measurement':48} {'µs/call':>10} {'× baseline':>11}")
    for title, measured, base in rows:
        print(f"\n{title}")
        for label, us in measured.items():
            print(f"  {label:46} {us:10.1f} {us / base:11.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
