"""Whether a text is an OTLP/HTTP URL a collector can be reached at (``--otlp-endpoint``
and the ``OTEL_EXPORTER_OTLP_*ENDPOINT`` variables): checked at start-up, so that a
mistyped URL stops the server instead of every span being dropped later."""

from __future__ import annotations

import ipaddress
import re

#: An OTLP/HTTP URL: http(s)://[user@]host[:port][/path] (``problem`` checks the host and
#: the port).
OTLP_URL = re.compile(r"https?://(?:[^/\s?#@]*@)?(?P<netloc>[^/\s?#@]*)(?:/[^\s?#]*)?")
#: A host name or IPv4 address (RFC 3986 reg-name, without the rarely used sub-delims).
HOST_NAME = re.compile(r"[A-Za-z0-9._~%-]+")


def problem(url: str) -> str | None:
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


def checked(url: str) -> str:
    """``url`` when empty (no endpoint) or well formed; else ValueError saying why."""
    why = problem(url) if url else None
    if why is not None:
        raise ValueError(why)
    return url


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
