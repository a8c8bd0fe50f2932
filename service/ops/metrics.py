"""Prometheus metrics of the server, shared by the gRPC and REST transports.

| metric | type | labels |
|---|---|---|
| ``samba_requests_total`` | counter | ``method``, ``transport``, ``outcome``, ``profile`` |
| ``samba_request_duration_seconds`` | histogram | ``method``, ``transport`` |
| ``samba_violations_total`` | counter | ``code`` (docs/api.md#violation-codes) |
| ``samba_errors_total`` | counter | ``method``, ``transport``, ``code`` (canonical status name) |
| ``samba_requests_in_flight`` | gauge | ``transport`` |
| ``samba_snapshot_cache_total`` | counter | ``method``, ``outcome`` (``hit`` / ``miss``) |
| ``samba_build_info`` | gauge (=1) | ``version``, ``ruleset_revision``, ``build`` |
| ``samba_trace_spans_dropped_total`` | counter | ``reason`` (``service.ops.tracing.Ledger``) |
| ``samba_worker_start_failures_total`` | counter | (none; ``--workers N``: failed replacements) |

``outcome`` is one of ``legal`` / ``illegal`` (ValidateAction, ApplyAction, ReplayDeal: the
first illegal action makes it ``illegal``; CheckMeld: ``valid``), ``ok`` (the methods that
judge nothing), ``invalid_argument`` (INVALID_ARGUMENT answers) and ``error`` (every other
non-OK answer; ``samba_errors_total`` tells which). ``profile`` is the base profile of the
request's ruleset (``classic`` for ``classic+open``; unknown names count as ``other``, a
request without one as ``none``), so the label set stays bounded.

``samba_snapshot_cache_total`` counts the calls that carried a snapshot: ``hit`` when the
worker had loaded those exact bytes before (or rendered them in an answer), ``miss`` when it
had to load them (service/pipeline/loading.py). Per worker process: the hit rate says how
well a table's calls are routed to one place (docs/deployment.md).

Multi-process: with ``PROMETHEUS_MULTIPROC_DIR`` set (``serve --workers N`` sets one up when
it is missing) every worker writes its samples there and ``/metrics`` sums them
(``prometheus_client.multiprocess``); the in-flight gauge is summed over live processes
(``livesum``). The environment variable must be set before ``prometheus_client`` is first
imported, which ``service.transport.server`` takes care of.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from samba_adjudicator.engine.ruleset import profile_parts

_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
)


class Metrics:
    def __init__(self, registry=None) -> None:
        from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics

        disable_created_metrics()  # no *_created series: they only double the output

        kw: dict[str, Any] = {} if registry is None else {"registry": registry}
        self.requests = Counter(
            "samba_requests_total",
            "Adjudicator calls answered, by outcome.",
            ["method", "transport", "outcome", "profile"],
            **kw,
        )
        self.duration = Histogram(
            "samba_request_duration_seconds",
            "Time to answer an Adjudicator call (parsing included).",
            ["method", "transport"],
            buckets=_BUCKETS,
            **kw,
        )
        self.violations = Counter(
            "samba_violations_total",
            "Rule violations reported in answers, by code.",
            ["code"],
            **kw,
        )
        self.errors = Counter(
            "samba_errors_total",
            "Non-OK answers, by canonical status code.",
            ["method", "transport", "code"],
            **kw,
        )
        self.in_flight = Gauge(
            "samba_requests_in_flight",
            "Adjudicator calls being answered now.",
            ["transport"],
            multiprocess_mode="livesum",
            **kw,
        )
        self.snapshot_cache = Counter(
            "samba_snapshot_cache_total",
            "Calls carrying a snapshot, by whether this worker had loaded it before.",
            ["method", "outcome"],
            **kw,
        )
        self.build_info = Gauge(
            "samba_build_info",
            "Always 1; labels carry the package version, the ruleset "
            "revision and the build (compiled or pure).",
            ["version", "ruleset_revision", "build"],
            multiprocess_mode="max",
            **kw,
        )
        self.spans_dropped = Counter(
            "samba_trace_spans_dropped_total",
            "Sampled spans (tracing on) never sent: export_failed (the collector refused "
            "them or could not be reached), unsent (not sent when the drain's time for "
            "traces ran out).",
            ["reason"],
            **kw,
        )
        self.worker_start_failures = Counter(
            "samba_worker_start_failures_total",
            "Worker processes of --workers N that failed to start in place of one that "
            "died (tried again, with a growing wait).",
            **kw,
        )


_lock = threading.Lock()
_metrics: Metrics | None = None


def get() -> Metrics:
    """The process-wide metrics, created on first use (after the multiprocess dir is set)."""
    global _metrics
    if _metrics is None:
        with _lock:
            if _metrics is None:
                _metrics = Metrics()
    return _metrics


def multiprocess_dir() -> str | None:
    # prometheus_client also reads the lower-case name (its older spelling)
    return (
        os.environ.get("PROMETHEUS_MULTIPROC_DIR")
        or os.environ.get("prometheus_multiproc_dir")  # noqa: SIM112
        or None
    )


def exposition() -> tuple[bytes, str]:
    """The ``/metrics`` body and its content type (summed over workers in multi-process
    mode)."""
    from prometheus_client import (
        CONTENT_TYPE_LATEST,
        REGISTRY,
        CollectorRegistry,
        generate_latest,
        multiprocess,
    )

    get()
    if multiprocess_dir():
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def mark_process_dead(pid: int) -> None:
    """Drop a dead worker's live gauges (called by the parent when a worker exits)."""
    if multiprocess_dir():
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)


def base_profile(profile: str, known: frozenset[str]) -> str:
    if not profile:
        return "none"
    base = profile_parts(profile)[0].strip().lower()
    return base if base in known else "other"
