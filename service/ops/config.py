"""Settings of ``samba-adjudicator serve``: one pydantic-settings model, ``Settings``, whose
fields carry each setting's default, help, range (``ge``/``le``) or choices (``Literal``)
and, in its JSON Schema, whether it has a flag. pydantic checks the values; pydantic-settings
reads the ``SAMBA_*`` twins; the flags' parser, the docs' table and the chart's
values.schema.json (``make docs``: tests/settings_table.py) are made from the JSON Schema.
pydantic-settings' own command line (``CliSettingsSource``) was tried: a ``CliSuppress``
field (the keys) is still read from the command line, so the flags are argparse's.

A flag wins over its twin (``--grpc-port`` / ``SAMBA_GRPC_PORT``), which wins over the
default. Read once, by ``load`` (``Settings()`` is the defaults: no environment is read);
worker processes get the value, never the environment again. Port 0: any free port.
"""

from __future__ import annotations

import argparse
import functools
import os
from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, BeforeValidator, Field, ValidationError, model_validator
from pydantic_settings import BaseSettings, EnvSettingsSource, NoDecode, SettingsConfigDict
from pydantic_settings.sources.utils import parse_env_vars

from . import otlp_url
from .tracing import endpoint

Levels = Literal["debug", "info", "warning", "error", "critical"]
LOG_LEVELS: tuple[str, ...] = get_args(Levels)
PORTS = ("grpc_port", "http_port", "admin_port", "worker_grpc_port", "worker_http_port")


def _lower(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


def _listed(value: Any) -> Any:
    """``"https://a.example, http://localhost:3000"`` -> the origins, without blanks."""
    return (
        tuple(v.strip() for v in value.split(",") if v.strip()) if isinstance(value, str) else value
    )


#: One CORS origin: scheme://host[:port], as a browser sends it in ``Origin``; or ``*``.
Origin = Annotated[str, Field(pattern=r"^(\*|https?://[^/\s,*]+)$")]
Origins = Annotated[tuple[Origin, ...], NoDecode, BeforeValidator(_listed)]
OtlpUrl = Annotated[str, AfterValidator(otlp_url.checked)]
LogLevel = Annotated[Levels, BeforeValidator(_lower)]


class ConfigError(ValueError):
    """Settings out of range (the message names each flag and its twin)."""


def setting(default: Any, help: str, low: float | None = None, high: float | None = None, **x):
    """A field of ``Settings``; ``x`` goes to its JSON Schema: ``flag=False`` (environment
    only: keys do not belong on a command line), ``listed=False`` (not for production: out of
    ``--help`` and the docs), ``metavar``, ``shown`` (the table's default, when the default
    says too little), ``also`` (other variables that give it)."""
    kept: dict[str, Any] = {"repr": x.get("flag", True), "json_schema_extra": x or None}
    return Field(default, description=help, ge=low, le=high, **kept)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="SAMBA_", frozen=True, extra="forbid", env_ignore_empty=True
    )

    # fmt: off
    # (a setting in as few lines as its help needs, read as a table; ruff's layout would give
    # each argument its own line)
    host: str = setting("127.0.0.1", "address both servers bind (0.0.0.0 in the container)",
        metavar="ADDR")
    grpc_port: int = setting(50051, "gRPC port; 0 = any free port", 0, 65535)
    http_port: int = setting(8080, "REST, /docs and the playground (and /healthz, /readyz, "
        "/metrics); 0 = any free port", 0, 65535)
    admin_port: int = setting(8081, "/healthz, /readyz and /metrics on their own listener and "
        "thread; 0 = any free port", 0, 65535)
    workers: int = setting(1, "server processes sharing both ports (SO_REUSEPORT)", 1, 256)
    worker_grpc_port: int = setting(0, "the workers' own gRPC ports: worker i (from 0) also "
        "listens on this + i alone, for a balancer that hashes a table's calls onto one worker; "
        "0 = none", 0, 65535)
    worker_http_port: int = setting(0, "the workers' own REST ports, as --worker-grpc-port; "
        "0 = none", 0, 65535)
    max_message_bytes: int = setting(1048576, "largest request accepted (RESOURCE_EXHAUSTED, "
        "REST 413, above)", 1024, 256 * 1024 * 1024)
    log_level: LogLevel = setting("info", "debug logs one line per request")
    shutdown_grace_seconds: float = setting(20.0, "time in-flight calls get to finish after "
        "SIGTERM", 0, 86400)
    snapshot_cache_size: int = setting(1024, "loaded snapshots kept per process, about 5-10 KB "
        "each; 0 keeps none", 0, 1_000_000)
    max_connections: int = setting(1000, "open connections each server (gRPC, REST) keeps per "
        "process; past it REST closes idle or half-sent connections first", 8, 1_000_000)
    read_timeout_seconds: float = setting(10.0, "a REST request must arrive whole, and a new "
        "gRPC connection finish its handshake, within this time", 0.1, 86400)
    idle_timeout_seconds: float = setting(75.0, "idle connections are closed (keep it above a "
        "load balancer's idle timeout)", 0.1, 86400)
    max_connection_age_seconds: float = setting(300.0, "a gRPC connection is closed (GOAWAY) at "
        "this age, +-10%, so that clients behind an L4 balancer reconnect and spread over "
        "replicas added since", 1, 86400)
    max_connection_age_grace_seconds: float = setting(30.0, "calls in flight on a connection "
        "closed for its age get this long to finish", 0, 3600)
    max_call_seconds: float = setting(10.0, "the most CPU time one call's work may take, "
        "whether or not the caller set a deadline; past it the call stops and is answered "
        "RESOURCE_EXHAUSTED CALL_TOO_EXPENSIVE (REST 413); past three times it of wall time (a "
        "busy machine), SERVER_BUSY (REST 503, a retry hint)", 0.1, 3600)
    snapshot_keys: str = setting("", "id1:base64,id2:base64: sign and verify snapshots; each "
        "key at least 16 random bytes in padded standard base64 (openssl rand -base64 32); a "
        "malformed value stops the start-up (exit 2)", flag=False, shown="unset")
    page_token_key: str = setting("", "key of ListLegalActions page tokens (padded standard "
        "base64, at least 16 bytes): give every replica behind one load balancer the same one. "
        "Unset: derived from the first SAMBA_SNAPSHOT_KEYS key, else random per server (its "
        'workers share it; the server logs "pageTokenKey": "per-process", a warning unless it '
        "listens on loopback alone); the one-shot CLI keeps a local key instead",
        flag=False, shown="unset")
    cors_origins: Origins = setting((), "comma-separated browser "
        "origins (https://game.example) allowed to call the REST gateway, '*' for any; "
        "preflights answered, x-request-id exposed", metavar="ORIGINS", shown="unset (off)")
    otlp_endpoint: OtlpUrl = setting("", "an OpenTelemetry collector's OTLP/HTTP base URL "
        "(http://collector:4318): one span per call, posted to URL/v1/traces, parented on the "
        "caller's traceparent. Unset: the standard OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (as is) "
        "or OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces); none of them: tracing off. Whichever "
        "gives it, a malformed URL (no http:// or https://, no host, a port outside 1..65535, "
        "an IPv6 address without its brackets) stops the start-up (exit 2)", metavar="URL",
        shown="unset (off)", also="OTEL_EXPORTER_OTLP_*ENDPOINT")
    bench_echo: bool = setting(False, "the benchmark's hidden echo endpoints", flag=False,
        listed=False)
    grpc_threads: int = setting(0, "the gRPC server's thread pool (0: automatic)", 0, 1024,
        flag=False, listed=False)
    # fmt: on

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, **others):  # type: ignore[override,unused-ignore]
        return (init_settings,)  # the environment is read by ``load`` only, from its mapping

    @model_validator(mode="after")
    def _ports_apart(self) -> Settings:
        # the port numbers each stands for: a worker port one per worker; 0 none
        widths = {name: self.workers if name.startswith("worker_") else 1 for name in PORTS}
        taken = {n: set(range(p, p + widths[n]) if (p := getattr(self, n)) else ()) for n in PORTS}
        for i, a in enumerate(PORTS):
            for b in (b for b in PORTS[i + 1 :] if taken[a] & taken[b]):
                also = " (a worker port stands for --workers ports)" if "worker_" in a + b else ""
                raise ValueError(f"{flag_of(a)} and {flag_of(b)} must differ{also}")
        for name in (name for name in PORTS[3:] if max(taken[name], default=0) > 65535):
            raise ValueError(f"{flag_of(name)} + --workers - 1 must be at most 65535")
        return self


@functools.cache
def schema() -> dict[str, dict[str, Any]]:
    """Each setting's JSON Schema, by name, in the order of ``Settings``: its ``default``,
    ``description`` (the help), ``minimum``/``maximum`` or ``enum``, and ``setting``'s
    extras (``flag`` and ``listed`` only where false)."""
    return Settings.model_json_schema()["properties"]


def flag_of(name: str) -> str:
    return "--" + name.replace("_", "-")


def env_of(name: str) -> str:
    return "SAMBA_" + name.upper()


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def range_text(s: dict) -> str:
    return f"{_number(s['minimum'])}..{_number(s['maximum'])}" if "minimum" in s else ""


def default_text(s: dict) -> str:
    return s.get("shown", _number(s["default"]))


def build_parser(prog: str = "samba-adjudicator serve") -> argparse.ArgumentParser:
    """The flags, given as text: pydantic reads them as it reads the environment."""
    p = argparse.ArgumentParser(
        prog=prog,
        description="Serve samba.v1.Adjudicator over gRPC and REST (one process, or --workers "
        "processes sharing the ports). Every flag has a SAMBA_* environment twin; the flag wins.",
    )
    for name, s in schema().items():
        if s.get("flag", True):
            bounds = f"; {range_text(s)}" if "minimum" in s else ""
            text = f"{s['description']} ({env_of(name)}{bounds}; default {default_text(s)})"
            short = None if "enum" in s else "N" if s["type"] == "integer" else "S"
            help = text.replace("%", "%%")  # argparse formats the help
            metavar, choices = s.get("metavar", short), s.get("enum")
            p.add_argument(flag_of(name), dest=name, choices=choices, metavar=metavar, help=help)
    return p


class _Environ(EnvSettingsSource):
    """The ``SAMBA_*`` twins read from a given mapping (``os.environ`` by default)."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ
        super().__init__(Settings)

    # the one hook for another mapping than os.environ (tests and the CLI pass theirs);
    # tests/service/ops/test_config.py reads every twin through it
    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(self.environ, False, True, None)


def _named(name: str) -> str:
    s = schema()[name]
    twins = ", ".join(n for n in (env_of(name), s.get("also")) if n)
    return f"{flag_of(name)} ({twins})" if s.get("flag", True) else twins


def _problem(error: Any) -> str:
    """One of pydantic's errors, in its words, said with the flag and its twin."""
    if error["type"] == "value_error":  # our validators' own words
        why = str(error["ctx"]["error"])
        return f"{_named(str(error['loc'][0]))}: {why}" if error["loc"] else why
    return f"{_named(str(error['loc'][0]))}: {error['msg']}, not {error['input']!r}"


def load(argv: list[str] | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from ``argv`` (flags) and ``environ`` (``SAMBA_*``); raises ConfigError
    naming every setting out of range."""
    environ = os.environ if environ is None else environ
    flags = {k: v for k, v in vars(build_parser().parse_args(argv)).items() if v is not None}
    values = {**_Environ(environ)(), **flags}
    try:
        values["otlp_endpoint"] = endpoint(str(values.get("otlp_endpoint", "")), environ)
        return Settings(**values)
    except ValidationError as e:
        raise ConfigError("; ".join(_problem(error) for error in e.errors())) from None
    except ValueError as e:  # the traces' protocol (tracing.endpoint)
        raise ConfigError(str(e)) from None


def worker_ports(s: Settings, index: int) -> tuple[int, int]:
    """(gRPC, REST) ports of worker ``index`` alone (0: none)."""
    grpc, http = s.worker_grpc_port, s.worker_http_port
    return (grpc + index if grpc else 0, http + index if http else 0)
