"""W3C trace context on both transports and spans over OTLP (service.ops.tracing;
docs/service.md#traces).

The server tests run the real server against a real OTLP/HTTP receiver on 127.0.0.1
(tests/otlp_receiver.py), call it over REST and gRPC with a ``traceparent``, and read the
exported spans and the per-call log lines."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time

import grpc
import httpx
import pytest
from google.protobuf import json_format
from otlp_receiver import Receiver, attributes, closed_port_url, silent_collector
from prometheus_client import REGISTRY
from service_fixtures import ROOT, ServerProcess, grpc_call

from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.ops import config, tracing
from samba_adjudicator.service.ops.tracing import carried, parse
from samba_adjudicator.service.pipeline.call import Call, Record
from samba_adjudicator.service.transport.server import EXIT_MARGIN_SECONDS

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SPAN = "00f067aa0ba902b7"
PARENT = f"00-{TRACE}-{SPAN}-01"


# -- parsing (the W3C Trace Context recommendation) ----------------------------------------


def test_a_valid_traceparent_is_read():
    p = parse((PARENT, ""))
    assert p is not None and (p.trace_id, p.span_id, p.sampled, p.state) == (TRACE, SPAN, True, ())
    assert parse((f"00-{TRACE}-{SPAN}-00", "")).sampled is False
    assert parse((f" {PARENT}\t", "")) is not None  # optional white space around


@pytest.mark.parametrize(
    "value",
    [
        "",
        "garbage",
        PARENT.upper(),  # upper-case hex
        f"00-{'0' * 32}-{SPAN}-01",  # all-zero trace id
        f"00-{TRACE}-{'0' * 16}-01",  # all-zero parent id
        f"ff-{TRACE}-{SPAN}-01",  # version ff is forbidden
        f"00-{TRACE}-{SPAN}-01-extra",  # version 00 ends at the flags
        f"00-{TRACE[:-1]}-{SPAN}-01",  # short trace id
        f"00-{TRACE}-{SPAN}-1",  # short flags
        f"00-{TRACE}-{SPAN[:-1]}g-01",  # not hex
        f"00_{TRACE}_{SPAN}_01",
        f"01-{TRACE}-{SPAN}-01x",  # a later version: the flags end or a dash follows
    ],
)
def test_a_malformed_traceparent_is_ignored(value):
    assert parse((value, "")) is None


def test_a_later_version_is_read_as_far_as_version_00_goes():
    p = parse((f"cc-{TRACE}-{SPAN}-01-what-comes-later", ""))
    assert p is not None and (p.trace_id, p.span_id) == (TRACE, SPAN)


def test_tracestate_is_kept_when_valid_and_dropped_whole_when_not():
    assert parse((PARENT, "rojo=00f067aa0ba902b7, congo=t61rcWkgMzE,,")).state == (
        ("rojo", "00f067aa0ba902b7"),
        ("congo", "t61rcWkgMzE"),
    )
    assert parse((PARENT, "tenant@vendor=x")).state == (("tenant@vendor", "x"),)
    for bad in (
        "Rojo=1",
        "rojo",
        "rojo=a=b",
        "rojo=1,rojo=2",
        ",".join(f"k{i}=v" for i in range(33)),
    ):
        p = parse((PARENT, bad))
        assert p is not None and p.state == (), bad  # the traceparent stays
    assert parse(("", "rojo=1")) is None  # a tracestate alone starts no trace


def test_two_traceparents_are_ambiguous_and_several_tracestates_join():
    pairs = [("traceparent", PARENT), ("tracestate", "a=1"), ("tracestate", "b=2")]
    assert carried(pairs) == (PARENT, "a=1,b=2")
    assert carried([("traceresponse", "x")]) is None
    assert parse(carried(pairs + [("traceparent", PARENT)])) is None


def test_the_log_names_the_callers_trace_or_a_new_one():
    assert tracing.log_ids((PARENT, ""), None) == (TRACE, SPAN)
    assert tracing.log_ids((PARENT, ""), ("a" * 32, "b" * 16)) == ("a" * 32, "b" * 16)
    trace_id, span_id = tracing.log_ids(("bad", ""), None)
    assert len(trace_id) == 32 and len(span_id) == 16 and trace_id != TRACE


# -- settings ------------------------------------------------------------------------------


def test_the_endpoint_comes_from_the_flag_or_the_standard_variables():
    url = "http://collector:4318"
    assert config.load([], {}).otlp_endpoint == ""
    assert config.load(["--otlp-endpoint", url + "/"], {}).otlp_endpoint == url + "/v1/traces"
    assert config.load([], {"SAMBA_OTLP_ENDPOINT": url}).otlp_endpoint == url + "/v1/traces"
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": url}
    assert config.load([], env).otlp_endpoint == url + "/v1/traces"
    env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = url + "/custom"
    assert config.load([], env).otlp_endpoint == url + "/custom"
    for off in ({"OTEL_SDK_DISABLED": "true"}, {"OTEL_TRACES_EXPORTER": "none"}):
        assert config.load(["--otlp-endpoint", url], {**env, **off}).otlp_endpoint == ""


def test_a_bad_endpoint_or_another_protocol_stops_the_start():
    with pytest.raises(config.ConfigError, match="otlp-endpoint"):
        config.load(["--otlp-endpoint", "collector:4318"], {})
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
    with pytest.raises(config.ConfigError, match="http/protobuf"):
        config.load([], env)
    env["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] = "http/protobuf"  # the specific one wins
    assert config.load([], env).otlp_endpoint == "http://c:4317/v1/traces"


#: Mistyped collector URLs (issue 47, item 10): each stops the start, however it is given.
BAD_ENDPOINTS = {
    "http://127.0.0.1:99999": "port",
    "http://127.0.0.1:0": "port",
    "http://collector:43x8": "port",
    "http://collector:": "port",
    "http://[::1": "IPv6",
    "http://::1]:4318": "IPv6",
    "http://[::1]x:4318": "IPv6",
    "http://[zz::1]:4318": "IPv6",
    "http://:4318": "host",
    "http://user@/v1": "host",
    "http://coll ector:4318": "http:// or https:// URL",
    "http://collector:4318?x=1": "http:// or https:// URL",
    "collector:4318": "http:// or https:// URL",
    "ftp://collector:4318": "http:// or https:// URL",
}
GOOD_ENDPOINTS = (
    "http://collector:4318",
    "https://otel.example/prefix/",
    "http://[::1]:4318",
    "http://127.0.0.1",
    "http://user@collector:4318",
)


@pytest.mark.parametrize("url", BAD_ENDPOINTS)
def test_a_mistyped_endpoint_stops_the_start_whichever_way_it_is_given(url):
    for argv, env in (
        (["--otlp-endpoint", url], {}),
        ([], {"SAMBA_OTLP_ENDPOINT": url}),
        ([], {"OTEL_EXPORTER_OTLP_ENDPOINT": url}),
        ([], {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": url}),
    ):
        with pytest.raises(config.ConfigError) as err:
            config.load(argv, env)
        message = str(err.value)
        assert message.startswith("--otlp-endpoint (SAMBA_OTLP_ENDPOINT, OTEL_"), message
        assert BAD_ENDPOINTS[url] in message and repr(url)[:-1] in message, message


@pytest.mark.parametrize("url", GOOD_ENDPOINTS)
def test_a_well_formed_endpoint_is_taken(url):
    assert config.load([], {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": url}).otlp_endpoint == url


def test_serve_exits_2_with_one_line_for_a_mistyped_endpoint():
    for url in ("http://127.0.0.1:99999", "http://[::1"):
        p = subprocess.run(
            [sys.executable, "-m", "samba_adjudicator.service.transport.cli", "serve"],
            env={
                **os.environ,
                "SAMBA_OTLP_ENDPOINT": url,
                "SAMBA_HOST": "127.0.0.1",
                **{f"SAMBA_{name}_PORT": "0" for name in ("HTTP", "GRPC", "ADMIN")},
            },
            capture_output=True,
            text=True,
            timeout=30,
            cwd=ROOT,
        )
        assert p.returncode == 2, p.stderr
        assert p.stdout == "" and "Traceback" not in p.stderr
        line = p.stderr.strip()
        assert "\n" not in line and line.startswith("samba-adjudicator serve: --otlp-endpoint")


def test_with_tracing_off_the_sdk_is_never_imported():
    # (FastAPI itself imports the OpenTelemetry API, a few small modules; not the SDK)
    script = """
import sys
from samba_adjudicator.service.ops.config import Settings
from samba_adjudicator.service.pipeline.call import Call
from samba_adjudicator.service.pipeline.runtime import Runtime
import samba_adjudicator.service.transport.grpc_server, samba_adjudicator.service.transport.rest
rt = Runtime(Settings())
from samba_adjudicator.service.base.errors import ApiError
import logging
logging.basicConfig(level=logging.DEBUG)  # the log lines are written, their ids made
rt = Runtime(Settings())
trace = ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "")
for body in (b'{"cards": ["7H", "7D", "7C"]}', b'{}'):
    try:
        rt.invoke(Call("CheckMeld", body, "rest", "r", json=True, trace=trace))
    except ApiError:
        pass
sdk = ("opentelemetry.sdk", "opentelemetry.exporter", "opentelemetry.proto")
print(sorted(m for m in sys.modules if m.startswith(sdk)))
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# -- the real server, a real receiver ------------------------------------------------------


def _log_line(server: ServerProcess, request_id: str) -> dict:
    for line in server.logs().splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            if record.get("message") == "request" and record.get("requestId") == request_id:
                return record
    raise AssertionError(f"no log line for {request_id}:\n{server.logs()[-3000:]}")


def _server(receiver: Receiver | None, *args: str, **env: str) -> ServerProcess:
    clean = {k: "" for k in os.environ if k.startswith("OTEL_")}
    extra = {} if receiver is None else {"OTEL_BSP_SCHEDULE_DELAY": "50"}
    return ServerProcess(*args, env={**clean, "SAMBA_LOG_LEVEL": "debug", **extra, **env})


MELD = {"cards": ["7H", "7D", "7C"]}


@pytest.mark.servers
def test_spans_are_exported_parented_on_the_callers_traceparent():
    with Receiver() as receiver:
        server = _server(receiver, "--otlp-endpoint", receiver.url)
        try:
            headers = {"traceparent": PARENT, "tracestate": "rojo=1", "x-request-id": "t-rest"}
            r = httpx.post(server.base_url + "/v1/melds:check", json=MELD, headers=headers)
            assert r.status_code == 200, r.text
            assert "traceparent" not in r.headers and "traceresponse" not in r.headers
            resource, span = receiver.wait_for(lambda s: s.trace_id.hex() == TRACE)
            assert span.parent_span_id.hex() == SPAN
            assert span.name == "samba.v1.Adjudicator/CheckMeld"
            assert span.kind == span.SPAN_KIND_SERVER
            assert span.trace_state == "rojo=1"
            assert span.end_time_unix_nano >= span.start_time_unix_nano > 0
            assert attributes(span) == {
                "rpc.system": "rest",
                "rpc.service": "samba.v1.Adjudicator",
                "rpc.method": "CheckMeld",
                "samba.transport": "rest",
                "samba.outcome": "legal",
                "samba.request_id": "t-rest",
                "http.response.status_code": 200,
            }
            assert resource["service.name"] == "samba-adjudicator"
            assert receiver.posts[0] == "/v1/traces"
            line = _log_line(server, "t-rest")
            assert (line["traceId"], line["spanId"]) == (TRACE, span.span_id.hex())

            # a call the transport refuses before it runs has its span too
            refused = f"00-{'5' * 32}-{SPAN}-01"
            headers = {"traceparent": refused, "x-server-timeout": "soon"}
            r = httpx.post(server.base_url + "/v1/melds:check", json=MELD, headers=headers)
            assert r.status_code == 400, r.text
            _, span = receiver.wait_for(lambda s: s.trace_id.hex() == "5" * 32)
            a = attributes(span)
            assert (a["error.type"], a["http.response.status_code"]) == ("INVALID_ARGUMENT", 400)

            # so has one refused by its Content-Length alone, before routing (413)
            large = f"00-{'6' * 32}-{SPAN}-01"
            big = b'{"cards": ["' + b"x" * (1024 * 1024) + b'"]}'
            r = httpx.post(
                server.base_url + "/v1/melds:check", content=big, headers={"traceparent": large}
            )
            assert r.status_code == 413, r.text
            _, span = receiver.wait_for(lambda s: s.trace_id.hex() == "6" * 32)
            assert (span.name, span.parent_span_id.hex()) == (
                "samba.v1.Adjudicator/CheckMeld",
                SPAN,
            )
            a = attributes(span)
            assert (a["error.type"], a["samba.error.reason"], a["samba.outcome"]) == (
                "RESOURCE_EXHAUSTED",
                "REQUEST_TOO_LARGE",
                "error",
            )
            assert a["http.response.status_code"] == 413

            with grpc.insecure_channel(server.grpc_target) as channel:
                stub = adjudicator_pb2_grpc.AdjudicatorStub(channel)
                other = f"00-{'1' * 32}-{SPAN}-01"
                grpc_call(stub, "CheckMeld", MELD, metadata=(("traceparent", other),))
                _, span = receiver.wait_for(lambda s: s.trace_id.hex() == "1" * 32)
                assert span.parent_span_id.hex() == SPAN
                a = attributes(span)
                assert (a["rpc.system"], a["samba.transport"], a["rpc.grpc.status_code"]) == (
                    "grpc",
                    "grpc",
                    0,
                )
                # an error: its code on the span, whose status stays unset (the caller's fault)
                bad = f"00-{'2' * 32}-{SPAN}-01"
                with pytest.raises(grpc.RpcError) as e:
                    grpc_call(stub, "ValidateAction", {}, metadata=(("traceparent", bad),))
                assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                _, span = receiver.wait_for(lambda s: s.trace_id.hex() == "2" * 32)
                a = attributes(span)
                assert (a["error.type"], a["rpc.grpc.status_code"]) == ("INVALID_ARGUMENT", 3)
                assert a["samba.outcome"] == "invalid_argument"
                assert span.status.code == span.status.STATUS_CODE_UNSET
        finally:
            server.close()


@pytest.mark.servers
def test_a_malformed_or_unsampled_traceparent():
    with Receiver() as receiver:
        # the standard variable, as an operator's collector sidecar would set it
        server = _server(receiver, OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url)
        try:
            malformed = PARENT.upper()
            headers = {"traceparent": malformed, "x-request-id": "t-bad"}
            r = httpx.post(server.base_url + "/v1/melds:check", json=MELD, headers=headers)
            assert r.status_code == 200, r.text  # never an error
            _, span = receiver.wait_for(lambda s: attributes(s)["samba.request_id"] == "t-bad")
            assert span.trace_id.hex() != TRACE.upper().lower()
            assert span.parent_span_id == b""  # a new trace
            line = _log_line(server, "t-bad")
            assert (line["traceId"], line["spanId"]) == (span.trace_id.hex(), span.span_id.hex())

            unsampled = f"00-{'3' * 32}-{SPAN}-00"
            headers = {"traceparent": unsampled, "x-request-id": "t-unsampled"}
            httpx.post(server.base_url + "/v1/melds:check", json=MELD, headers=headers)
            headers = {"traceparent": f"00-{'4' * 32}-{SPAN}-01", "x-request-id": "t-after"}
            httpx.post(server.base_url + "/v1/melds:check", json=MELD, headers=headers)
            receiver.wait_for(lambda s: s.trace_id.hex() == "4" * 32)
            assert not [s for _, s in receiver.spans if s.trace_id.hex() == "3" * 32]
            assert _log_line(server, "t-unsampled")["traceId"] == "3" * 32
        finally:
            server.close()


@pytest.mark.servers
def test_with_no_endpoint_nothing_is_exported_and_the_log_has_the_callers_trace():
    with Receiver() as receiver:
        # the endpoint is set, but tracing is switched off by the standard variable
        server = _server(
            receiver, OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url, OTEL_SDK_DISABLED="true"
        )
        plain = _server(None)
        try:
            for s, rid in ((server, "t-disabled"), (plain, "t-off")):
                headers = {"traceparent": PARENT, "x-request-id": rid}
                r = httpx.post(s.base_url + "/v1/melds:check", json=MELD, headers=headers)
                assert r.status_code == 200, r.text
                assert (_log_line(s, rid)["traceId"], _log_line(s, rid)["spanId"]) == (TRACE, SPAN)
            with grpc.insecure_channel(plain.grpc_target) as channel:
                stub = adjudicator_pb2_grpc.AdjudicatorStub(channel)
                metadata = (("traceparent", PARENT), ("x-request-id", "t-off-grpc"))
                grpc_call(stub, "CheckMeld", MELD, metadata=metadata)
            assert _log_line(plain, "t-off-grpc")["traceId"] == TRACE
            server.terminate()  # the drain flushes what a tracer would have queued
            assert receiver.posts == []
        finally:
            server.close()
            plain.close()


# -- the drain's end with a collector that cannot take the spans (issue 47, item 3) ---------


def _dropped(reason: str) -> float:
    return REGISTRY.get_sample_value("samba_trace_spans_dropped_total", {"reason": reason}) or 0.0


def _record(tracer: tracing.Tracer, count: int) -> None:
    for i in range(count):
        call = Call("CheckMeld", b"{}", "rest", f"r{i}", json=True)
        tracer.finish(Record(call, outcome="legal", elapsed=0.001))


def test_every_span_ends_sent_or_counted_as_dropped():
    """Closing the tracer exports what it can in the time given, then counts the rest in
    ``samba_trace_spans_dropped_total``: none with a collector that takes them, all of them
    with a closed port or a collector that never answers."""
    with Receiver() as receiver:
        tracer = tracing.Tracer(receiver.url + "/v1/traces", "test")
        _record(tracer, 20)
        assert tracer.close(10.0) == (20, 0)
        assert len(receiver.spans) == 20
    with silent_collector() as silent:
        for url in (closed_port_url(), silent):
            before = _dropped("unsent") + _dropped("export_failed")
            tracer = tracing.Tracer(url + "/v1/traces", "test")
            _record(tracer, 30)
            assert tracer.close(0.5) == (0, 30), url
            assert _dropped("unsent") + _dropped("export_failed") - before == 30, url


@contextlib.contextmanager
def _collector(kind: str):
    if kind == "closed":
        yield closed_port_url()
    else:
        with silent_collector() as url:
            yield url


#: The grace of the exit tests: the finding measured 7 s (closed port, one call), 10.3 s (a
#: collector that never answers) and 34-40 s (3,000 calls) after SIGTERM.
EXIT_GRACE = 1.0


def _send(server: ServerProcess, calls: int) -> None:
    with grpc.insecure_channel(server.grpc_target) as channel:
        stub = adjudicator_pb2_grpc.AdjudicatorStub(channel)
        request = json_format.ParseDict(MELD, pb.CheckMeldRequest())
        for start in range(0, calls, 100):
            futures = [
                stub.CheckMeld.future(request, timeout=60) for _ in range(min(100, calls - start))
            ]
            for f in futures:
                assert f.result().valid


def _stopped_line(server: ServerProcess) -> dict:
    for line in server.logs().splitlines():
        if line.startswith("{") and json.loads(line).get("message") == "stopped":
            return json.loads(line)
    raise AssertionError(f"no stopped line:\n{server.logs()[-3000:]}")


@pytest.mark.servers
@pytest.mark.parametrize(("collector", "calls"), [("closed", 1), ("silent", 1), ("closed", 3000)])
def test_sigterm_with_an_unreachable_collector_exits_within_the_grace_and_margin(collector, calls):
    """Issue 47, item 3: the last spans' export at the end of the drain held the process
    past the grace plus EXIT_MARGIN_SECONDS (the chart's pod grace SIGKILLs a busy pod).
    Now it is bounded by what is left of that budget, and every span not sent is counted
    as dropped (the drain's last log line says how many)."""
    with _collector(collector) as url:
        server = _server(
            None,
            "--otlp-endpoint",
            url,
            "--shutdown-grace-seconds",
            str(EXIT_GRACE),
            SAMBA_LOG_LEVEL="info",
        )
        try:
            _send(server, calls)
            started = time.monotonic()
            server.proc.send_signal(signal.SIGTERM)
            status = server.proc.wait(120)
            exited = time.monotonic() - started
            line = _stopped_line(server)
        finally:
            server.close()
        assert status == 0
        assert exited < EXIT_GRACE + EXIT_MARGIN_SECONDS, exited
        assert (line["spansSent"], line["spansDropped"]) == (0, calls), line
