"""Settings of ``samba-adjudicator serve``, each written once: its field of ``Settings``
carries its default, its help, its range and whether it has a flag (``setting``); the
parser, the ``SAMBA_*`` environment twins, the range checks and the table of
docs/service.md#flags-and-environment (``markdown_table``, written by ``make docs``) are
made from those fields.

Every flag has a twin (``--grpc-port`` / ``SAMBA_GRPC_PORT``); a flag given on the command
line wins over the environment, which wins over the default. Port 0 asks the kernel for a
free port; the server reports the bound ports on its ``listening`` line. The settings are
read once, by ``load``; the worker processes get the value, never the environment again.
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
#: One CORS origin: scheme://host[:port], as a browser sends it in ``Origin``; or ``*``.
ORIGIN = re.compile(r"\*|https?://[^/\s,*]+")
#: An OTLP/HTTP URL: http(s)://[user@]host[:port][/path] (``otlp_url_problem`` checks
#: the host and the port).
OTLP_URL = re.compile(r"https?://(?:[^/\s?#@]*@)?(?P<netloc>[^/\s?#@]*)(?:/[^\s?#]*)?")
#: A host name or IPv4 address (RFC 3986 reg-name, without the rarely used sub-delims).
HOST_NAME = re.compile(r"[A-Za-z0-9._~%-]+")


class ConfigError(ValueError):
    """A setting is out of range (the message names the flag and its twin)."""


@dataclass(frozen=True)
class Spec:
    """How one setting is given and checked (the metadata of its ``Settings`` field)."""

    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    #: False: environment only (keys, which do not belong on a command line)
    flag: bool = True
    #: False: not for production, left out of ``--help`` and of the docs' table
    listed: bool = True
    metavar: str | None = None
    #: the environment's text -> the value (None: the field's type)
    parse: Callable[[str], Any] | None = None
    #: the table's default column, when the default alone says too little
    shown: str | None = None
    #: what is wrong with a value beyond its range or choices (None: nothing)
    check: Callable[[Any], str | None] | None = None
    #: other variables that give it, named with it in a refusal
    also: str = ""


def otlp_url_problem(url: str) -> str | None:
    """What makes ``url`` no OTLP/HTTP URL a collector can be reached at, or None: an
    http:// or https:// URL with a host (a name, an IPv4 address, or an IPv6 address in
    brackets), a port 1..65535 when one is written, no query or fragment."""
    found = OTLP_URL.fullmatch(url)
    if found is None:
        return f"{url!r} is not an http:// or https:// URL"
    host, port, why = _authority(found["netloc"])
    if why is None and not host:
        why = "it names no host"
    if why is None and port is not None and not _port(port):
        why = f"the port must be a number 1..65535, not {port!r}"
    return None if why is None else f"{url!r}: {why}"


def _authority(netloc: str) -> tuple[str, str | None, str | None]:
    """(host, port or None, what is wrong or None) of ``host[:port]``."""
    if netloc.startswith("["):
        inner, closed, rest = netloc[1:].partition("]")
        if not closed:
            return "", None, "'[' opens an IPv6 address and no ']' closes it"
        if not _ipv6(inner):
            return "", None, f"{inner!r} is not an IPv6 address"
        if rest and not rest.startswith(":"):
            return "", None, f"{rest!r} follows the IPv6 address"
        return inner, rest[1:] if rest else None, None
    host, colon, port = netloc.partition(":")
    if "[" in netloc or "]" in netloc:
        return "", None, "an IPv6 address is written in brackets: [::1]"
    if host and not HOST_NAME.fullmatch(host):
        return "", None, f"{host!r} is not a host name"
    return host, port if colon else None, None


def _port(text: str) -> bool:
    return text.isascii() and text.isdigit() and 1 <= int(text) <= 65535


def _ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def setting(default: Any, help: str, **spec: Any) -> Any:
    """A field of ``Settings``: ``default`` and its ``Spec``."""
    return dataclasses.field(
        default=default, repr=spec.get("flag", True), metadata={"spec": Spec(help, **spec)}
    )


def cors_origins(raw: str) -> tuple[str, ...]:
    """``"https://a.example, http://localhost:3000"`` -> the origins, without blanks."""
    return tuple(o.strip() for o in raw.split(",") if o.strip())


def _origins_problem(origins: tuple[str, ...]) -> str | None:
    for origin in origins:
        if not ORIGIN.fullmatch(origin):
            return f"{origin!r} is not an origin: scheme://host[:port] without a path, or *"
    return None


def _endpoint_problem(url: str) -> str | None:
    return otlp_url_problem(url) if url else None


def _switch(raw: str) -> bool:
    return raw.strip().lower() not in ("", "0", "false")


@dataclass(frozen=True)
class Settings:
    host: str = setting(
        "127.0.0.1", "address both servers bind (0.0.0.0 in the container)", metavar="ADDR"
    )
    grpc_port: int = setting(50051, "gRPC port; 0 = any free port", low=0, high=65535)
    http_port: int = setting(
        8080,
        "REST, /docs and the playground (and /healthz, /readyz, /metrics); 0 = any free port",
        low=0,
        high=65535,
    )
    admin_port: int = setting(
        8081,
        "/healthz, /readyz and /metrics on their own listener and thread; 0 = any free port",
        low=0,
        high=65535,
    )
    workers: int = setting(1, "server processes sharing both ports (SO_REUSEPORT)", low=1, high=256)
    worker_grpc_port: int = setting(
        0,
        "the workers' own gRPC ports: worker i (from 0) also listens on this + i alone, for a "
        "balancer that hashes a table's calls onto one worker; 0 = none",
        low=0,
        high=65535,
    )
    worker_http_port: int = setting(
        0,
        "the workers' own REST ports, as --worker-grpc-port; 0 = none",
        low=0,
        high=65535,
    )
    max_message_bytes: int = setting(
        1048576,
        "largest request accepted (RESOURCE_EXHAUSTED, REST 413, above)",
        low=1024,
        high=256 * 1024 * 1024,
    )
    log_level: str = setting(
        "info", "debug logs one line per request", choices=LOG_LEVELS, parse=str.lower
    )
    shutdown_grace_seconds: float = setting(
        20.0, "time in-flight calls get to finish after SIGTERM", low=0, high=86400
    )
    snapshot_cache_size: int = setting(
        1024,
        "loaded snapshots kept per process, about 5-10 KB each; 0 keeps none",
        low=0,
        high=1_000_000,
    )
    max_connections: int = setting(
        1000,
        "open connections each server (gRPC, REST) keeps per process; past it REST closes "
        "idle or half-sent connections first",
        low=8,
        high=1_000_000,
    )
    read_timeout_seconds: float = setting(
        10.0,
        "a REST request must arrive whole, and a new gRPC connection finish its handshake, "
        "within this time",
        low=0.1,
        high=86400,
    )
    idle_timeout_seconds: float = setting(
        75.0,
        "idle connections are closed (keep it above a load balancer's idle timeout)",
        low=0.1,
        high=86400,
    )
    max_connection_age_seconds: float = setting(
        300.0,
        "a gRPC connection is closed (GOAWAY) at this age, +-10%, so that clients behind an "
        "L4 balancer reconnect and spread over replicas added since",
        low=1,
        high=86400,
    )
    max_connection_age_grace_seconds: float = setting(
        30.0,
        "calls in flight on a connection closed for its age get this long to finish",
        low=0,
        high=3600,
    )
    max_call_seconds: float = setting(
        10.0,
        "the most CPU time one call's work may take, whether or not the caller set a "
        "deadline; past it the call stops and is answered RESOURCE_EXHAUSTED "
        "CALL_TOO_EXPENSIVE (REST 413); past three times it of wall time (a busy machine), "
        "SERVER_BUSY (REST 503, a retry hint)",
        low=0.1,
        high=3600,
    )
    snapshot_keys: str = setting(
        "",
        "id1:base64,id2:base64: sign and verify snapshots; each key at least 16 random "
        "bytes in padded standard base64 (openssl rand -base64 32); a malformed value stops "
        "the start-up (exit 2)",
        flag=False,
        shown="unset",
    )
    page_token_key: str = setting(
        "",
        "key of ListLegalActions page tokens (padded standard base64, at least 16 bytes): "
        "give every replica behind one load balancer the same one. Unset: derived from the "
        "first SAMBA_SNAPSHOT_KEYS key, else random per server (its workers share it; the "
        'server logs "pageTokenKey": "per-process", a warning unless it listens on loopback '
        "alone); the one-shot CLI "
        "keeps a local key instead",
        flag=False,
        shown="unset",
    )
    cors_origins: tuple[str, ...] = setting(
        (),
        "comma-separated browser origins (https://game.example) allowed to call the REST "
        "gateway, '*' for any; preflights answered, x-request-id exposed",
        metavar="ORIGINS",
        parse=cors_origins,
        shown="unset (off)",
        check=_origins_problem,
    )
    otlp_endpoint: str = setting(
        "",
        "an OpenTelemetry collector's OTLP/HTTP base URL (http://collector:4318): one span "
        "per call, posted to URL/v1/traces, parented on the caller's traceparent. Unset: "
        "the standard OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (as is) or "
        "OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces); none of them: tracing off. Whichever "
        "gives it, a malformed URL (no http:// or https://, no host, a port outside "
        "1..65535, an IPv6 address without its brackets) stops the start-up (exit 2)",
        metavar="URL",
        shown="unset (off)",
        check=_endpoint_problem,
        also="OTEL_EXPORTER_OTLP_*ENDPOINT",
    )
    bench_echo: bool = setting(
        False, "the benchmark's hidden echo endpoints", flag=False, listed=False, parse=_switch
    )
    grpc_threads: int = setting(
        0,
        "the gRPC server's thread pool (0: automatic)",
        flag=False,
        listed=False,
        low=0,
        high=1024,
    )


def specs() -> list[tuple[dataclasses.Field, Spec]]:
    """Every setting's field and spec, in the order of ``Settings``."""
    return [(f, f.metadata["spec"]) for f in dataclasses.fields(Settings)]


def flag_of(f: dataclasses.Field) -> str:
    return "--" + f.name.replace("_", "-")


def env_of(f: dataclasses.Field) -> str:
    return "SAMBA_" + f.name.upper()


def _named(f: dataclasses.Field, spec: Spec) -> str:
    twins = ", ".join(name for name in (env_of(f), spec.also) if name)
    return f"{flag_of(f)} ({twins})" if spec.flag else twins


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _range(spec: Spec) -> str:
    return f"{_number(spec.low)}..{_number(spec.high)}" if spec.low is not None else ""


def _default(f: dataclasses.Field, spec: Spec) -> str:
    return spec.shown if spec.shown is not None else _number(f.default)


def build_parser(prog: str = "samba-adjudicator serve") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Serve samba.v1.Adjudicator over gRPC and REST (one process, or "
        "--workers processes sharing the ports). Every flag has a SAMBA_* "
        "environment twin; the flag wins.",
    )
    for f, spec in specs():
        if not spec.flag:
            continue
        kind = type(f.default)
        bounds = f"; {_range(spec)}" if spec.low is not None else ""
        typed: dict[str, Any] = {"type": kind} if kind in (int, float) else {}
        p.add_argument(
            flag_of(f),
            dest=f.name,
            **typed,
            choices=spec.choices or None,
            metavar=spec.metavar or (None if spec.choices else "N" if kind is int else "S"),
            help=f"{spec.help} ({env_of(f)}{bounds}; default {_default(f, spec)})".replace(
                "%", "%%"
            ),
        )
    return p


def _from_env(f: dataclasses.Field, spec: Spec, environ: Mapping[str, str]) -> Any:
    raw = environ.get(env_of(f))
    if raw is None or raw.strip() == "":
        return None
    if spec.parse is not None:
        return spec.parse(raw.strip())
    kind: Callable[[str], Any] = type(f.default)
    try:
        return kind(raw.strip())
    except ValueError:
        raise ConfigError(f"{env_of(f)}={raw!r} is not a valid {kind.__name__}") from None


def load(argv: list[str] | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from ``argv`` (flags) and ``environ`` (``SAMBA_*``); raises ConfigError."""
    environ = os.environ if environ is None else environ
    args = build_parser().parse_args(argv)
    values: dict[str, Any] = {}
    for f, spec in specs():
        given = getattr(args, f.name, None)
        if given is not None:
            values[f.name] = spec.parse(given) if spec.parse is not None else given
            continue
        v = _from_env(f, spec, environ)
        if v is not None:
            values[f.name] = v
    values["otlp_endpoint"] = otlp_endpoint(str(values.get("otlp_endpoint", "")), environ)
    s = Settings(**values)
    validate(s)
    return s


def otlp_endpoint(given: str, environ: Mapping[str, str]) -> str:
    """The traces URL: ``--otlp-endpoint`` (a base URL, like ``OTEL_EXPORTER_OTLP_ENDPOINT``)
    or the standard variables (``service.ops.tracing.endpoint_from``); "" for none, and
    when ``OTEL_SDK_DISABLED`` is true. Another protocol than http/protobuf is refused."""
    from .tracing import disabled, endpoint_from, traces_url  # the SDK: only when asked

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


def validate(s: Settings) -> None:
    """Every setting within its range or among its choices, then what ranges cannot say."""
    for f, spec in specs():
        value = getattr(s, f.name)
        if spec.low is not None and not spec.low <= value <= spec.high:
            raise ConfigError(f"{_named(f, spec)} must be {_range(spec)}, not {_number(value)}")
        if spec.choices and value not in spec.choices:
            raise ConfigError(
                f"{_named(f, spec)} must be one of {', '.join(spec.choices)}, not {value!r}"
            )
        why = spec.check(value) if spec.check is not None else None
        if why is not None:
            raise ConfigError(f"{_named(f, spec)}: {why}")
    ports = ("grpc_port", "http_port", "admin_port", "worker_grpc_port", "worker_http_port")
    for i, a in enumerate(ports):
        for b in ports[i + 1 :]:
            if _taken(s, a) & _taken(s, b):
                raise ConfigError(
                    f"--{a.replace('_', '-')} and --{b.replace('_', '-')} must differ"
                    + (" (a worker port stands for --workers ports)" if "worker_" in a + b else "")
                )
    for name in ports[3:]:
        if getattr(s, name) and getattr(s, name) + s.workers - 1 > 65535:
            raise ConfigError(f"--{name.replace('_', '-')} + --workers - 1 must be at most 65535")


def _taken(s: Settings, name: str) -> set[int]:
    """The port numbers setting ``name`` stands for (none for 0: any free port, or none)."""
    first = getattr(s, name)
    if not first:
        return set()
    return set(range(first, first + s.workers)) if name.startswith("worker_") else {first}


def worker_ports(s: Settings, index: int) -> tuple[int, int]:
    """(gRPC, REST) ports of worker ``index`` alone (0: none)."""
    grpc, http = s.worker_grpc_port, s.worker_http_port
    return (grpc + index if grpc else 0, http + index if http else 0)


def markdown_table() -> str:
    """The table of docs/service.md#flags-and-environment (``make docs`` writes it there)."""
    rows = ["| flag | environment | default | range | meaning |", "|---|---|---|---|---|"]
    for f, spec in specs():
        if spec.listed:
            flag = f"`{flag_of(f)}`" if spec.flag else "—"
            bounds = _range(spec).replace("..", "–") or ", ".join(spec.choices)
            default = f"`{_default(f, spec)}`"
            rows.append(f"| {flag} | `{env_of(f)}` | {default} | {bounds} | {spec.help} |")
    return "\n".join(rows) + "\n"
