"""Settings of ``samba-adjudicator serve``: flags with ``SAMBA_*`` environment twins.

Every flag has a twin (``--grpc-port`` / ``SAMBA_GRPC_PORT``); a flag given on the command
line wins over the environment, which wins over the default. Port 0 asks the kernel for a
free port; the server reports the bound ports on its ``listening`` line.

A bench-only knob (never set it in production): ``SAMBA_BENCH_ECHO=1`` adds the hidden echo
endpoints used by ``bench/service_bench.py``. The drain tests' slow calls are a seam of
the tests' own launcher (tests/slow_server.py), not a setting.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    grpc_port: int = 50051
    http_port: int = 8080
    admin_port: int = 8081  # /healthz, /readyz, /metrics on their own listener
    workers: int = 1
    max_message_bytes: int = 1048576
    log_level: str = "info"
    shutdown_grace_seconds: float = 20.0
    snapshot_cache_size: int = 1024
    max_connections: int = 1000
    read_timeout_seconds: float = 10.0
    idle_timeout_seconds: float = 75.0
    # gRPC connections are closed (GOAWAY) at this age, so clients behind an L4 balancer
    # reconnect and spread over new replicas; in-flight calls get the grace to finish
    max_connection_age_seconds: float = 300.0
    max_connection_age_grace_seconds: float = 30.0
    # the most work one call may take, whatever its deadline (docs/service.md#bounded-work)
    max_call_seconds: float = 10.0
    snapshot_keys: str = field(default="", repr=False)
    page_token_key: str = field(default="", repr=False)  # base64; service.base.page_tokens
    # browser origins allowed to call the REST gateway (CORS); empty: CORS off
    cors_origins: tuple[str, ...] = ()
    # where spans go (OTLP/HTTP, the traces URL); empty: tracing off (service.ops.tracing)
    otlp_endpoint: str = ""
    # bench knob (environment only)
    bench_echo: bool = False
    grpc_threads: int = 0  # 0: automatic


# flag name -> (env var, type, default attribute)
_FLAGS = (
    ("host", "SAMBA_HOST", str),
    ("grpc_port", "SAMBA_GRPC_PORT", int),
    ("http_port", "SAMBA_HTTP_PORT", int),
    ("admin_port", "SAMBA_ADMIN_PORT", int),
    ("workers", "SAMBA_WORKERS", int),
    ("max_message_bytes", "SAMBA_MAX_MESSAGE_BYTES", int),
    ("log_level", "SAMBA_LOG_LEVEL", str),
    ("shutdown_grace_seconds", "SAMBA_SHUTDOWN_GRACE_SECONDS", float),
    ("snapshot_cache_size", "SAMBA_SNAPSHOT_CACHE_SIZE", int),
    ("max_connections", "SAMBA_MAX_CONNECTIONS", int),
    ("read_timeout_seconds", "SAMBA_READ_TIMEOUT_SECONDS", float),
    ("idle_timeout_seconds", "SAMBA_IDLE_TIMEOUT_SECONDS", float),
    ("max_connection_age_seconds", "SAMBA_MAX_CONNECTION_AGE_SECONDS", float),
    ("max_connection_age_grace_seconds", "SAMBA_MAX_CONNECTION_AGE_GRACE_SECONDS", float),
    ("max_call_seconds", "SAMBA_MAX_CALL_SECONDS", float),
    ("cors_origins", "SAMBA_CORS_ORIGINS", str),
    ("otlp_endpoint", "SAMBA_OTLP_ENDPOINT", str),
)

#: One CORS origin: scheme://host[:port], as a browser sends it in ``Origin``; or ``*``.
ORIGIN = re.compile(r"\*|https?://[^/\s,*]+")


class ConfigError(ValueError):
    """A setting is out of range (the message names the flag and its twin)."""


def build_parser(prog: str = "samba-adjudicator serve") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Serve samba.v1.Adjudicator over gRPC and REST (one process, or "
        "--workers processes sharing the ports). Every flag has a SAMBA_* "
        "environment twin; the flag wins.",
    )
    d = Settings()
    p.add_argument(
        "--host", help=f"address to bind (SAMBA_HOST; default {d.host}; 0.0.0.0 in the container)"
    )
    p.add_argument(
        "--grpc-port",
        type=int,
        metavar="N",
        help=f"gRPC port, 0 = any free port (SAMBA_GRPC_PORT; default {d.grpc_port})",
    )
    p.add_argument(
        "--http-port",
        type=int,
        metavar="N",
        help=f"REST/ops port, 0 = any free port (SAMBA_HTTP_PORT; default {d.http_port})",
    )
    p.add_argument(
        "--admin-port",
        type=int,
        metavar="N",
        help=f"probes and metrics port (/healthz, /readyz, /metrics on their own thread), "
        f"0 = any free port (SAMBA_ADMIN_PORT; default {d.admin_port})",
    )
    p.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help=f"server processes sharing the ports (SAMBA_WORKERS; default {d.workers})",
    )
    p.add_argument(
        "--max-message-bytes",
        type=int,
        metavar="N",
        help=f"largest request accepted (SAMBA_MAX_MESSAGE_BYTES; default {d.max_message_bytes})",
    )
    p.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        help=f"SAMBA_LOG_LEVEL; default {d.log_level}; debug logs every request",
    )
    p.add_argument(
        "--shutdown-grace-seconds",
        type=float,
        metavar="S",
        help=f"time in-flight calls get to finish after SIGTERM "
        f"(SAMBA_SHUTDOWN_GRACE_SECONDS; default {d.shutdown_grace_seconds:g})",
    )
    p.add_argument(
        "--snapshot-cache-size",
        type=int,
        metavar="N",
        help=f"loaded snapshots kept per process, about 5-10 KB each; 0 keeps none "
        f"(SAMBA_SNAPSHOT_CACHE_SIZE; default {d.snapshot_cache_size})",
    )
    p.add_argument(
        "--max-connections",
        type=int,
        metavar="N",
        help=f"open connections each server (gRPC, REST) keeps; past it idle or "
        f"half-sent REST connections are closed first (SAMBA_MAX_CONNECTIONS; "
        f"default {d.max_connections})",
    )
    p.add_argument(
        "--read-timeout-seconds",
        type=float,
        metavar="S",
        help=f"a REST request must arrive whole, and a gRPC connection finish its "
        f"handshake, within S seconds (SAMBA_READ_TIMEOUT_SECONDS; default "
        f"{d.read_timeout_seconds:g})",
    )
    p.add_argument(
        "--idle-timeout-seconds",
        type=float,
        metavar="S",
        help=f"connections idle that long are closed (SAMBA_IDLE_TIMEOUT_SECONDS; "
        f"default {d.idle_timeout_seconds:g}; above the load balancer's)",
    )
    p.add_argument(
        "--max-connection-age-seconds",
        type=float,
        metavar="S",
        help=f"a gRPC connection is closed (GOAWAY) at this age, +-10%%, so that clients "
        f"behind an L4 balancer reconnect and spread over new replicas "
        f"(SAMBA_MAX_CONNECTION_AGE_SECONDS; default {d.max_connection_age_seconds:g})",
    )
    p.add_argument(
        "--max-connection-age-grace-seconds",
        type=float,
        metavar="S",
        help=f"calls in flight on a connection closed for its age get this long to finish "
        f"(SAMBA_MAX_CONNECTION_AGE_GRACE_SECONDS; default "
        f"{d.max_connection_age_grace_seconds:g})",
    )
    p.add_argument(
        "--max-call-seconds",
        type=float,
        metavar="S",
        help=f"the most time one call's work may take, whether or not the caller set a "
        f"deadline; past it the call is stopped and answered RESOURCE_EXHAUSTED "
        f"CALL_TOO_EXPENSIVE (SAMBA_MAX_CALL_SECONDS; 0.1..3600; default "
        f"{d.max_call_seconds:g})",
    )
    p.add_argument(
        "--cors-origins",
        metavar="ORIGINS",
        help="comma-separated browser origins (https://game.example) allowed to "
        "call the REST gateway, '*' for any; preflights answered, "
        "x-request-id exposed (SAMBA_CORS_ORIGINS; default: CORS off)",
    )
    p.add_argument(
        "--otlp-endpoint",
        metavar="URL",
        help="export a span per call over OTLP/HTTP to this collector (http://collector:4318; "
        "spans are posted to URL/v1/traces), parented on the caller's traceparent "
        "(SAMBA_OTLP_ENDPOINT, else the standard OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or "
        "OTEL_EXPORTER_OTLP_ENDPOINT; default: tracing off)",
    )
    return p


def otlp_endpoint(given: str, environ: Mapping[str, str]) -> str:
    """The traces URL: ``--otlp-endpoint`` (a base URL, like ``OTEL_EXPORTER_OTLP_ENDPOINT``)
    or the standard variables (``service.ops.tracing.endpoint_from``); "" for none, and
    when ``OTEL_SDK_DISABLED`` is true. Another protocol than http/protobuf is refused."""
    from .tracing import disabled, endpoint_from, traces_url

    url = endpoint_from(environ) if not given.strip() else traces_url(given.strip())
    if disabled(environ):
        return ""
    for name in ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"):
        protocol = environ.get(name, "").strip()
        if url and protocol and protocol != "http/protobuf":
            raise ConfigError(f"{name}={protocol!r}: spans are exported as http/protobuf only")
        if protocol:
            break
    return url


def cors_origins(raw: str) -> tuple[str, ...]:
    """``"https://a.example, http://localhost:3000"`` -> the origins, without blanks."""
    return tuple(o.strip() for o in raw.split(",") if o.strip())


def _env(name: str, conv, environ) -> object | None:
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        return None
    try:
        return conv(raw.strip())
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a valid {conv.__name__}") from None


def load(argv: list[str] | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from ``argv`` (flags) and ``environ`` (``SAMBA_*``); raises ConfigError."""
    environ = os.environ if environ is None else environ
    args = build_parser().parse_args(argv)
    values: dict[str, Any] = {}
    for name, env, conv in _FLAGS:
        flag = getattr(args, name)
        if flag is not None:
            values[name] = flag
            continue
        v = _env(env, conv, environ)
        if v is not None:
            values[name] = v
    if "log_level" in values:
        values["log_level"] = str(values["log_level"]).lower()
    values["snapshot_keys"] = environ.get("SAMBA_SNAPSHOT_KEYS", "")
    values["page_token_key"] = environ.get("SAMBA_PAGE_TOKEN_KEY", "")
    values["cors_origins"] = cors_origins(str(values.get("cors_origins", "")))
    values["otlp_endpoint"] = otlp_endpoint(str(values.get("otlp_endpoint", "")), environ)
    values["bench_echo"] = environ.get("SAMBA_BENCH_ECHO", "") not in ("", "0", "false")
    threads = _env("SAMBA_GRPC_THREADS", int, environ)
    values["grpc_threads"] = threads or 0
    s = Settings(**values)
    validate(s)
    return s


def _validate_ports(s: Settings) -> None:
    ports = (
        ("grpc_port", "SAMBA_GRPC_PORT"),
        ("http_port", "SAMBA_HTTP_PORT"),
        ("admin_port", "SAMBA_ADMIN_PORT"),
    )
    for name, env in ports:
        port = getattr(s, name)
        if not 0 <= port <= 65535:
            raise ConfigError(f"--{name.replace('_', '-')} ({env}) must be 0..65535, not {port}")
    for i, (a, _) in enumerate(ports):
        for b, _ in ports[i + 1 :]:
            if getattr(s, a) and getattr(s, a) == getattr(s, b):
                raise ConfigError(
                    f"--{a.replace('_', '-')} and --{b.replace('_', '-')} must differ"
                )


def _validate_connections(s: Settings) -> None:
    if not 8 <= s.max_connections <= 1_000_000:
        raise ConfigError(
            f"--max-connections (SAMBA_MAX_CONNECTIONS) must be 8..1000000, not {s.max_connections}"
        )
    for name, env in (
        ("read_timeout_seconds", "SAMBA_READ_TIMEOUT_SECONDS"),
        ("idle_timeout_seconds", "SAMBA_IDLE_TIMEOUT_SECONDS"),
    ):
        if not 0.1 <= getattr(s, name) <= 86400:
            raise ConfigError(
                f"--{name.replace('_', '-')} ({env}) must be 0.1..86400, not {getattr(s, name)}"
            )
    if not 1 <= s.max_connection_age_seconds <= 86400:
        raise ConfigError(
            "--max-connection-age-seconds (SAMBA_MAX_CONNECTION_AGE_SECONDS) must be "
            f"1..86400, not {s.max_connection_age_seconds}"
        )
    if not 0 <= s.max_connection_age_grace_seconds <= 3600:
        raise ConfigError(
            "--max-connection-age-grace-seconds (SAMBA_MAX_CONNECTION_AGE_GRACE_SECONDS) "
            f"must be 0..3600, not {s.max_connection_age_grace_seconds}"
        )


#: An OTLP/HTTP URL: http(s)://host[:port][/path].
OTLP_URL = re.compile(r"https?://[^/\s?#]+(/[^\s?#]*)?")


def _validate_tracing(s: Settings) -> None:
    if s.otlp_endpoint and not OTLP_URL.fullmatch(s.otlp_endpoint):
        raise ConfigError(
            f"--otlp-endpoint (SAMBA_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_*ENDPOINT): "
            f"{s.otlp_endpoint!r} is not an http:// or https:// URL"
        )


def validate(s: Settings) -> None:
    _validate_ports(s)
    if not 1 <= s.workers <= 256:
        raise ConfigError(f"--workers (SAMBA_WORKERS) must be 1..256, not {s.workers}")
    if not 1024 <= s.max_message_bytes <= 256 * 1024 * 1024:
        raise ConfigError(
            "--max-message-bytes (SAMBA_MAX_MESSAGE_BYTES) must be "
            f"1024..268435456, not {s.max_message_bytes}"
        )
    if s.log_level.lower() not in LOG_LEVELS:
        raise ConfigError(
            f"--log-level (SAMBA_LOG_LEVEL) must be one of "
            f"{', '.join(LOG_LEVELS)}, not {s.log_level!r}"
        )
    if s.shutdown_grace_seconds < 0:
        raise ConfigError("--shutdown-grace-seconds (SAMBA_SHUTDOWN_GRACE_SECONDS) must be >= 0")
    if not 0 <= s.snapshot_cache_size <= 1_000_000:
        raise ConfigError(
            "--snapshot-cache-size (SAMBA_SNAPSHOT_CACHE_SIZE) must be "
            f"0..1000000, not {s.snapshot_cache_size}"
        )
    _validate_connections(s)
    if not 0.1 <= s.max_call_seconds <= 3600:
        raise ConfigError(
            "--max-call-seconds (SAMBA_MAX_CALL_SECONDS) must be 0.1..3600, "
            f"not {s.max_call_seconds:g}"
        )
    _validate_tracing(s)
    for origin in s.cors_origins:
        if not ORIGIN.fullmatch(origin):
            raise ConfigError(
                f"--cors-origins (SAMBA_CORS_ORIGINS): {origin!r} is not an "
                "origin: scheme://host[:port] without a path, or *"
            )
