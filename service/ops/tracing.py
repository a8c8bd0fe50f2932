"""Traces: the W3C trace context of every call, and its server span over OTLP when asked.

Both transports read ``traceparent`` and ``tracestate`` (REST headers, gRPC metadata) into a
``Carried`` pair, untouched, and hand it to ``Runtime.invoke``; nothing is parsed on the call
path unless a log line is written or a span exported. ``parse`` follows the W3C Trace
Context recommendation: a malformed ``traceparent`` (wrong length, upper-case or non-hex
digits, an all-zero id, version ``ff``, two of them) is ignored and the call starts a new
trace, never an error; a malformed ``tracestate`` is dropped, the ``traceparent`` kept.

``Tracer`` (``start``) is the OpenTelemetry SDK with an OTLP/HTTP protobuf exporter behind a
batch processor: one SERVER span per call, named ``samba.v1.Adjudicator/<Method>``, parented
on the caller's ``traceparent`` (sampled as the caller says: the SDK's parent-based
sampler). The SDK is imported by ``start`` only: with no endpoint configured (the default)
it is never imported. Every sampled span ends sent or counted in
``samba_trace_spans_dropped_total`` (``Ledger``): the collector refused it or could not be
reached (``export_failed``), or it was still unsent when the drain's time for traces ran out
(``unsent``; ``Tracer.close``: the export goes on in a thread of its own, so a collector
that does not answer holds the exit no longer than that). Nothing about the trace is sent
back in the answer (``traceresponse`` is not a W3C recommendation); the per-call log line
carries ``traceId`` and ``spanId`` (``log_ids``). docs/service.md#traces.
"""

from __future__ import annotations

import logging
import re
import secrets
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, cast

from ..base.errors import ApiError

log = logging.getLogger("samba.server")

#: What a transport read: (``traceparent``, ``tracestate``), ``""`` for a missing one.
Carried = tuple[str, str]


class CallFacts(Protocol):
    """What a span and a log line read of a call (``service.pipeline.call.Call``). ops/ is
    a floor below the pipeline (CONTRIBUTING.md): it names the shape it reads, not the
    class."""

    @property
    def method(self) -> str: ...
    @property
    def transport(self) -> str: ...
    @property
    def request_id(self) -> str: ...
    @property
    def trace(self) -> Carried | None: ...


class Record(Protocol):
    """What became of a call, as a span and a log line read it
    (``service.pipeline.call.Record``)."""

    @property
    def call(self) -> CallFacts: ...
    @property
    def outcome(self) -> str: ...
    @property
    def elapsed(self) -> float: ...
    @property
    def error(self) -> ApiError | None: ...


SERVICE = "samba.v1.Adjudicator"
#: The default ``service.name`` of the exported spans (``OTEL_SERVICE_NAME`` replaces it).
SERVICE_NAME = "samba-adjudicator"

_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?")
_KEY = re.compile(
    r"[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13}"
)
_VALUE = re.compile(r"[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]")
_ZERO_TRACE = "0" * 32
_ZERO_SPAN = "0" * 16
#: The most list members a ``tracestate`` may have.
MAX_STATE_MEMBERS = 32
#: Seconds the end of a drain waits at most for the last spans to be exported (less when
#: the drain's budget has less left: ``Tracer.close``).
FLUSH_SECONDS = 2.0
#: Why a span was dropped: the ``reason`` label of ``samba_trace_spans_dropped_total``.
DROP_REASONS = ("export_failed", "unsent")
#: gRPC codes for which a server span's status is Error (OpenTelemetry's RPC conventions);
#: the others are the caller's mistakes and leave it unset.
SERVER_FAULTS = frozenset(
    {"UNKNOWN", "DEADLINE_EXCEEDED", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS"}
)


@dataclass(frozen=True, slots=True)
class Parent:
    """A valid incoming trace context."""

    trace_id: str  # 32 lower-case hex digits, not all zero
    span_id: str  # 16, not all zero
    sampled: bool
    state: tuple[tuple[str, str], ...] = ()  # the tracestate's members, in order


def carried(pairs: list[tuple[str, str]]) -> Carried | None:
    """What a transport read: the (key, value) pairs of its headers or metadata whose key
    starts with ``trace``. A second ``traceparent`` makes it ambiguous (ignored); several
    ``tracestate`` join, in order."""
    parent = state = ""
    parents = 0
    for key, value in pairs:
        if key == "traceparent":
            parents += 1
            parent = value
        elif key == "tracestate":
            state = f"{state},{value}" if state else value
    if parents > 1:
        parent = ""
    return (parent, state) if parent or state else None


def parse(carried: Carried | None) -> Parent | None:
    """The caller's trace context, or None when absent or malformed (a new trace)."""
    if carried is None:
        return None
    found = _TRACEPARENT.fullmatch(carried[0].strip(" \t"))
    if found is None:
        return None
    version, trace_id, span_id, flags, rest = found.groups()
    if version == "ff" or (version == "00" and rest is not None):
        return None  # ff is forbidden; version 00 has nothing after the flags
    if trace_id == _ZERO_TRACE or span_id == _ZERO_SPAN:
        return None
    return Parent(trace_id, span_id, bool(int(flags, 16) & 1), parse_state(carried[1]))


def parse_state(raw: str) -> tuple[tuple[str, str], ...]:
    """A ``tracestate``'s members; none when it is malformed (too many members, a bad key or
    value, a key twice): it is then dropped whole."""
    members: list[tuple[str, str]] = []
    for item in raw.split(","):
        item = item.strip(" \t")
        if not item:
            continue  # empty members are allowed
        key, eq, value = item.partition("=")
        if not eq or not _KEY.fullmatch(key) or not _VALUE.fullmatch(value):
            return ()
        members.append((key, value))
    if len(members) > MAX_STATE_MEMBERS or len({k for k, _ in members}) != len(members):
        return ()
    return tuple(members)


def log_ids(carried: Carried | None, ids: tuple[str, str] | None) -> tuple[str, str]:
    """(traceId, spanId) of a call's log line: its exported span's (``ids``); with tracing
    off, the caller's trace and span (the context the call ran in); else a new trace."""
    if ids is not None:
        return ids
    parent = parse(carried)
    if parent is not None:
        return parent.trace_id, parent.span_id
    return secrets.token_hex(16), secrets.token_hex(8)


def traces_url(base: str) -> str:
    """``OTEL_EXPORTER_OTLP_ENDPOINT``'s meaning: the collector's base URL, to which
    ``/v1/traces`` is appended."""
    return base.rstrip("/") + "/v1/traces"


def disabled(environ: Mapping[str, str]) -> bool:
    """``OTEL_SDK_DISABLED=true`` or ``OTEL_TRACES_EXPORTER=none``: no spans, whatever else
    is set."""
    return (
        environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true"
        or environ.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none"
    )


def endpoint_from(environ: Mapping[str, str]) -> str:
    """The traces URL the standard OpenTelemetry variables give, or ``""``:
    ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (as is), else ``OTEL_EXPORTER_OTLP_ENDPOINT``
    (+ ``/v1/traces``); none when ``disabled``."""
    if disabled(environ):
        return ""
    traces = environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if traces:
        return traces
    base = environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    return traces_url(base) if base else ""


class Tracer:
    """Server spans exported over OTLP/HTTP by the OpenTelemetry SDK (one per process:
    each worker makes its own, after it starts)."""

    def __init__(self, url: str, version: str, service_name: str = SERVICE_NAME) -> None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter

        resource = Resource.create({"service.name": service_name, "service.version": version})
        # not the global provider: the service's spans only, whatever else the process loads
        self.provider = TracerProvider(resource=resource, shutdown_on_exit=False)
        self.ledger = Ledger(OTLPSpanExporter(endpoint=url))
        # a SpanExporter by what it does (export, shutdown, force_flush): the SDK is not
        # imported where it is defined
        self.provider.add_span_processor(BatchSpanProcessor(cast(SpanExporter, self.ledger)))
        self.tracer = self.provider.get_tracer("samba_adjudicator.service", version)
        self.url = url
        for reason in DROP_REASONS:  # both series from the start, at 0
            _dropped(reason, 0)

    def record(
        self,
        method: str,
        carried: Carried | None,
        start_ns: int,
        end_ns: int,
        attributes: dict[str, Any],
        fault: bool,
    ) -> tuple[str, str]:
        """Export one finished call as a SERVER span; its (trace id, span id) in hex."""
        from opentelemetry import trace

        parent = parse(carried)
        context = None if parent is None else _remote(parent)
        span = self.tracer.start_span(
            f"{SERVICE}/{method}",
            context=context,
            kind=trace.SpanKind.SERVER,
            attributes=attributes,
            start_time=start_ns,
        )
        if fault:
            span.set_status(trace.StatusCode.ERROR, str(attributes.get("error.type", "")))
        span.end(end_time=end_ns)
        ctx = span.get_span_context()
        if ctx.trace_flags.sampled:  # what the batch processor queues
            self.ledger.queued()
        return f"{ctx.trace_id:032x}", f"{ctx.span_id:016x}"

    def finish(self, record: Record) -> tuple[str, str] | None:
        """``record`` a call that ended now after ``record.elapsed`` seconds; its ids, or
        None when the SDK failed (logged: tracing never fails a call)."""
        attributes, fault = span_attributes(record)
        end = time.time_ns()
        start = end - int(record.elapsed * 1e9)
        try:
            return self.record(record.call.method, record.call.trace, start, end, attributes, fault)
        except Exception:  # noqa: BLE001 - a span is not worth a call
            log.exception("the call's span was not recorded")
            return None

    def close(self, seconds: float = FLUSH_SECONDS) -> tuple[int, int]:
        """At the end of a drain: export what is still queued for at most ``seconds`` (the
        export runs on a thread of its own, which the process does not wait for: the SDK's
        own flush ignores its timeout, and a collector that never answers held the exit
        10 s per batch), then count every span not sent by then as dropped. (sent,
        dropped) spans in all."""
        flush = threading.Thread(target=self.provider.force_flush, name="span-flush", daemon=True)
        flush.start()
        flush.join(max(seconds, 0.0))
        counts = self.ledger.close()
        # no retry after this (the exporter's shutdown ends its back-off), not waited for
        threading.Thread(target=self.ledger.shutdown, name="span-close", daemon=True).start()
        return counts


class Ledger:
    """The span exporter behind the batch processor, counting what becomes of each span
    queued: sent, refused or unreachable (``export_failed``), or unsent when ``close``
    comes (``unsent``: still queued, in an export under way, or pushed out of the SDK's full
    queue, ``OTEL_BSP_MAX_QUEUE_SIZE``). Dropped spans go to the metrics at once."""

    def __init__(self, exporter: Any) -> None:
        self.exporter = exporter
        self._lock = threading.Lock()
        self.handed = self.sent = self.failed = 0
        self.closed = False

    def queued(self) -> None:
        with self._lock:
            self.handed += 1

    def export(self, batch: Any) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        if self.closed:  # counted as unsent by close
            return SpanExportResult.FAILURE
        result = SpanExportResult.FAILURE
        try:
            result = self.exporter.export(batch)
        finally:
            self._settled(len(batch), result is SpanExportResult.SUCCESS)
        return result

    def _settled(self, count: int, sent: bool) -> None:
        with self._lock:
            if self.closed:  # an export that outlived close: its spans are counted unsent
                return
            if sent:
                self.sent += count
            else:
                self.failed += count
        if not sent:
            _dropped("export_failed", count)

    def close(self) -> tuple[int, int]:
        """No export counts after this; what was not sent is dropped. (sent, dropped)."""
        with self._lock:
            self.closed = True
            unsent = self.handed - self.sent - self.failed
        if unsent > 0:
            _dropped("unsent", unsent)
        return self.sent, self.failed + max(unsent, 0)

    def shutdown(self) -> None:
        self.exporter.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True  # nothing is held here


def _dropped(reason: str, count: int) -> None:
    from . import metrics

    metrics.get().spans_dropped.labels(reason=reason).inc(count)


def _remote(parent: Parent) -> Any:
    from opentelemetry import trace

    span = trace.NonRecordingSpan(
        trace.SpanContext(
            int(parent.trace_id, 16),
            int(parent.span_id, 16),
            is_remote=True,
            trace_flags=trace.TraceFlags(1 if parent.sampled else 0),
            trace_state=trace.TraceState(list(parent.state)),
        )
    )
    return trace.set_span_in_context(span)


def start(url: str, version: str, environ: Mapping[str, str]) -> Tracer | None:
    """A Tracer exporting to ``url`` (None: tracing off, nothing imported)."""
    if not url:
        return None
    return Tracer(url, version, environ.get("OTEL_SERVICE_NAME", "").strip() or SERVICE_NAME)


def span_attributes(record: Record) -> tuple[dict[str, Any], bool]:
    """A call's span attributes (OpenTelemetry's RPC conventions, plus ``samba.*``;
    ``rpc.system`` is the transport, ``grpc`` or ``rest``) and whether its status is Error
    (SERVER_FAULTS)."""
    call, err = record.call, record.error
    transport = call.transport
    attributes: dict[str, Any] = {
        "rpc.system": transport,
        "rpc.service": SERVICE,
        "rpc.method": call.method,
        "samba.transport": transport,
        "samba.outcome": record.outcome,
        "samba.request_id": call.request_id,
    }
    if err is None:
        if transport == "grpc":
            attributes["rpc.grpc.status_code"] = 0
        else:
            attributes["http.response.status_code"] = 200
        return attributes, False
    attributes["error.type"] = err.code
    attributes["samba.error.reason"] = err.reason
    if transport == "grpc":
        attributes["rpc.grpc.status_code"] = err.grpc_code
    else:
        attributes["http.response.status_code"] = err.http_status
    return attributes, err.code in SERVER_FAULTS
