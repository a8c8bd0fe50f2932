"""The REST gateway's language headers (docs/i18n.md): the request's ``Accept-Language``
read from the raw ASGI headers, the answer's ``Content-Language`` and ``Vary``."""

from __future__ import annotations

from collections.abc import Iterable


def header_value(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> str | None:
    """Every line of header ``name`` (lower case, as ASGI gives them) as one list, joined
    by commas as RFC 9110 §5.3 reads repeated lines of a list header; None when absent."""
    values = [v.decode("latin-1") for k, v in headers if k == name]
    return ", ".join(values) if values else None


def language_headers(headers: list[tuple[bytes, bytes]], lang: bytes) -> list:
    """``headers`` with ``Content-Language: lang`` and ``Vary: Accept-Language`` (joined to
    any Vary already there: CORS varies on Origin): caches keep one answer per language."""
    out = []
    vary = b"accept-language"
    for name, value in headers:
        if name.lower() == b"vary":
            vary = value + b", accept-language"
        elif name.lower() != b"content-language":
            out.append((name, value))
    return out + [(b"content-language", lang), (b"vary", vary)]
